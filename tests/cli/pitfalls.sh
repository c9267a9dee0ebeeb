#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench --pitfall: each wrong way of timing (docs/teaching/timing.md) runs, passes the check and
# says so in its records' notes; a mode it does not know exits 2. Skips (exit 77) without an
# OpenCL CPU device.
# Usage: pitfalls.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

shape=n=2,c=4,h=12,w=12,k=4,r=3,pad=1
for mode in first-run no-sync host-sync mean; do
    "$xconv" bench --shape "$shape" --variant direct_naive,im2col_gemm --device pocl \
        --repeat 3 --warmup 1 --pitfall "$mode" --json "$tmp/$mode.json" >"$tmp/$mode.txt" 2>&1
    check "--pitfall $mode exits 0" test $? -eq 0
    check "--pitfall $mode: records pass, timed, noted" python3 - "$tmp/$mode.json" "$mode" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert len(recs) == 2, recs
for r in recs:
    assert r["outcome"] == "pass" and r["median_ms"] > 0, r
    assert r["note"].startswith("PITFALL %s: " % sys.argv[2]), r["note"]
    if sys.argv[2] == "first-run":
        assert r["min_ms"] == r["median_ms"] == r["max_ms"], r
PY
done
"$xconv" bench --shape "$shape" --device pocl --pitfall sometimes >"$tmp/bad.txt" 2>&1
check "an unknown --pitfall exits 2" test $? -eq 2
check "the refusal names the modes" grep -q "first-run, no-sync, host-sync or mean" "$tmp/bad.txt"
"$xconv" bench --shape "$shape" --variant direct_naive --device pocl --repeat 3 \
    --json "$tmp/plain.json" >/dev/null 2>&1
check "without --pitfall no note says PITFALL" bash -c "! grep -q PITFALL '$tmp/plain.json'"

echo "$checks checks, $failures failed"
[[ $failures -eq 0 ]]
