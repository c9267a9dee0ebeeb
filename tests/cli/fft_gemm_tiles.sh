#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fft_cgemm's tiles (XCONV_FFT_GEMM) do not change results: fft_tiled's and fft's outputs are
# the same bit for bit under the planner's tiles and under forced ones (some of the sweep's
# candidates: 8 channels a step or all in one, 8x4 and 8x8 sums a work-item; odd ones with
# single rows and columns a work-item, partial blocks of channels, filters and columns), on
# shapes with C/groups not a multiple of the step (5 channels, 3 a step), groups, and blocks
# larger than K. Tiles the kernel or the device does not take are refused with the reason.
# Skips (exit 77) without an OpenCL CPU device.
# Usage: fft_gemm_tiles.sh PATH/TO/xconv
set -u
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
begin_test "$1"
skip_without_cpu_device
unset XCONV_FFT_GEMM XCONV_FFT_TILE XCONV_FFT_CHUNK XCONV_FFT_PLANES

shapes=(n=2,c=32,h=9,w=8,k=64,r=5,pad=2
        n=2,c=15,h=10,w=10,k=18,r=3,s=2,pad=1,groups=3)
tiles=(32,64,8,4,4 64,64,32,8,4 64,128,32,8,8 6,10,3,3,5 9,8,5,3,1)

for v in fft_tiled fft; do
    for shape in "${shapes[@]}"; do
        "$xconv" run --device pocl --variant "$v" --shape "$shape" --seed 7 \
            --output "$tmp/ref.npy" >"$tmp/out.txt" 2>&1
        check "$v $shape: the planner's tiles run" test $? -eq 0
        for t in "${tiles[@]}"; do
            XCONV_FFT_GEMM=$t "$xconv" run --device pocl --variant "$v" --shape "$shape" \
                --seed 7 --output "$tmp/t.npy" >"$tmp/out.txt" 2>&1
            check "$v $shape: XCONV_FFT_GEMM=$t runs" test $? -eq 0
            check "$v $shape: XCONV_FFT_GEMM=$t gives the same bits" \
                cmp -s "$tmp/ref.npy" "$tmp/t.npy"
        done
    done
done

# Refused with the reason: not a multiple of the work per item, too many sums a work-item,
# more work-items than the device takes.
shape=n=1,c=4,h=8,w=8,k=4,r=3,pad=1
for bad in "30,64,8,4,4:multiple of WM" "64,64,8,16,4:WM and WN 1..8" \
    "256,512,8,1,1:work-groups of"; do
    t=${bad%%:*}
    why=${bad#*:}
    XCONV_FFT_GEMM=$t "$xconv" run --device pocl --variant fft_tiled --shape "$shape" \
        >"$tmp/out.txt" 2>&1
    rc=$?
    check "XCONV_FFT_GEMM=$t is refused (exit $rc)" test "$rc" -ne 0
    check "XCONV_FFT_GEMM=$t: the message says '$why'" grep -q "$why" "$tmp/out.txt"
done

echo "cli fft_gemm_tiles: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
