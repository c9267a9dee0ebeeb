#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cases the exit-status table of docs/guide/cli.md settles: a shape file past the 256 shapes a
# run takes (2, one line saying so), a variant that does not take the shape (1 in run, validate
# and bench alike), a CUDA selector without the driver (2, no advice to install an OpenCL
# driver that is there). Usage: exit_status.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/checks.bash"
export XCONV_CACHE_DIR=$tmp/cache

for i in $(seq 1 300); do echo "n=1,c=2,h=6,w=$((i + 5)),k=2,r=3"; done >"$tmp/big.shapes"
refused 2 "big.shapes holds 300 shapes: a run takes at most 256" -- validate \
    --shapes "$tmp/big.shapes"
refused 2 "holds 300 shapes, and 1 come before it" -- bench --shape n=1,c=1,h=4,w=4,k=1,r=1 \
    --shapes "$tmp/big.shapes"

if "$xconv" devices >/dev/null 2>&1; then
    for cmd in run validate bench; do
        "$xconv" $cmd --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant winograd_f25 >"$tmp/out" \
            2>"$tmp/err"
        rc=$?
        check "$cmd --variant winograd_f25 on a 3x3 filter exits 1 (got $rc)" [ "$rc" -eq 1 ]
        check "$cmd says why winograd_f25 does not apply" grep -q "needs a 5x5 filter" \
            "$tmp/err" "$tmp/out"
    done
fi

if ! "$xconv" devices 2>/dev/null | grep -q "^ *[0-9]* *cuda:"; then
    "$xconv" run --shape n=1,c=2,h=6,w=6,k=2,r=3 --device cuda:0 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "--device cuda:0 without a CUDA device exits 2 (got $rc)" [ "$rc" -eq 2 ]
    check "--device cuda:0 says why CUDA lists no device" grep -q "cuda: unavailable" "$tmp/err"
    check "--device cuda:0 gives no advice to install an OpenCL driver" \
        bash -c '! grep -qi "pocl-opencl-icd" "$1"' _ "$tmp/err"
fi

echo "exit_status: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
