#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --shapes FILE through the commands that take shapes: names and both syntaxes reach the records,
# bad files are refused with file:line and exit 2, run takes a one-shape file. The runs use
# PoCL's CPU device; without it only the refusals are checked.
# Usage: shape_files.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

cat >"$tmp/two.shapes" <<'SHAPES'
# one shape in each syntax
name=tiny weight=2  n=1,c=2,h=8,w=8,k=4,r=3   # xconv SPEC
mb1ic2ih9oc3oh9kh3n"bd:one"                    # benchdnn: padding 1 deduced from oh9
SHAPES
printf 'n=1,c=2,h=8,w=8,k=4,r=3\nmb1ic2ih9oc3oh8kh3ph1\n' >"$tmp/bad.shapes"
head -2 "$tmp/two.shapes" | tail -1 >"$tmp/one.shapes"

# Refusals need no device: the file is read before any device is opened.
for cmd in validate bench explain; do
    "$xconv" "$cmd" --shapes "$tmp/bad.shapes" --variant direct_naive >"$tmp/out.txt" 2>&1
    rc=$?
    check "$cmd with a bad shape file exits 2" test "$rc" -eq 2
    check "$cmd names file, line and key" grep -q "bad.shapes:2: oh8 in" "$tmp/out.txt"
done
"$xconv" bench --shapes "$tmp/missing.shapes" >"$tmp/out.txt" 2>&1
check "a missing shape file exits 2" test $? -eq 2
check "a missing shape file is named" grep -q "cannot open '$tmp/missing.shapes'" "$tmp/out.txt"
"$xconv" run --shapes "$tmp/two.shapes" >"$tmp/out.txt" 2>&1
check "run refuses a file of two shapes" test $? -eq 2
check "run says it takes one" grep -q "holds 2 shapes; this command takes one" "$tmp/out.txt"
"$xconv" run --shapes "$tmp/one.shapes" --shape n=1,c=1,h=4,w=4,k=1,r=1 >"$tmp/out.txt" 2>&1
check "run refuses --shape beside --shapes" test $? -eq 2

if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "no OpenCL CPU device: runs skipped, $checks checks, $failures failed"
    [ "$failures" -eq 0 ] || exit 1
    exit 77
fi
"$xconv" validate --shapes "$tmp/two.shapes" --variant direct_naive --device pocl \
    --json "$tmp/v.json" >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt"
check "validate --shapes exits 0" test "$rc" -eq 0
check "both shapes ran, under their names" python3 -c '
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert [r["shape_name"] for r in recs] == ["tiny", "bd:one"], recs
assert recs[1]["shape"] == "n=1,c=2,h=9,w=9,k=3,r=3,pad=1", recs[1]["shape"]
assert all(r["outcome"] == "pass" for r in recs)' "$tmp/v.json"
"$xconv" run --shapes "$tmp/one.shapes" --device pocl >"$tmp/out.txt" 2>&1
check "run --shapes with one shape exits 0" test $? -eq 0
check "run used the file's shape" grep -q "n=1,c=2,h=8,w=8,k=4,r=3 -> y\[1,4,6,6\]" "$tmp/out.txt"
"$xconv" explain --shapes bench/shapes/alexnet.shapes --variant direct_naive --device pocl \
    >"$tmp/out.txt" 2>&1
check "explain --shapes plans all five AlexNet layers" \
    test "$(grep -c '^plan of' "$tmp/out.txt")" -eq 5

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
