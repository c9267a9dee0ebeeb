#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `xconv explain` of the FFT family on PoCL: each plan shows its transform size and tiles, its
# four steps, its three workspace regions and its error block; shapes the family does not take
# (stride 2, dilation 2, a 1x1 filter, a workspace larger than the device allows) are refused
# with the reason. No kernel is built or run: about a second. Skips (exit 77) without an OpenCL
# CPU device.
# Usage: fft_explain.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

# big11x11 at n=4: fft transforms the padded 74x74 image at 75x75, fft_tiled 3x2 tiles.
"$xconv" explain --device pocl --shape n=4,c=32,h=64,w=64,k=32,r=11,pad=5 \
    --variant fft,fft_tiled >"$tmp/plan.txt" 2>&1
check "explain exits 0" test $? -eq 0
cat "$tmp/plan.txt" | grep -v defines
check "fft: 75x75 transforms of one 64x64 tile" grep -q "75x75 transforms .* 1x1 tiles of 64x64" \
    "$tmp/plan.txt"
check "fft_tiled: tiles of several outputs" grep -qE "[0-9]+x[0-9]+ transforms .* [2-9]x[1-9] tiles" \
    "$tmp/plan.txt"
for label in "filter transform" "input transform" "channel sum" "inverse transform"; do
    check "two steps labelled $label" test "$(grep -c "step [0-9]: $label:" "$tmp/plan.txt")" -eq 2
done
for region in "input spectra" "filter spectra" "output spectra"; do
    check "two regions named $region" test "$(grep -c "region [0-9]: $region," "$tmp/plan.txt")" -eq 2
done
check "fft's error block is its 64x64 tile" grep -q "error block: 64x64 outputs" "$tmp/plan.txt"
check "two error blocks" test "$(grep -c "error block:" "$tmp/plan.txt")" -eq 2

# refused SPEC TEXT: both variants are not applicable to SPEC, the reason containing TEXT.
refused() {
    "$xconv" explain --device pocl --shape "$1" --variant fft,fft_tiled >"$tmp/no.txt" 2>&1
    check "$1: explain exits 0" test $? -eq 0
    check "$1: both refused for '$2'" \
        test "$(grep -c "not applicable: fft\(_tiled\)\?.*$2" "$tmp/no.txt")" -eq 2
    grep "not applicable" "$tmp/no.txt" | head -1
}
refused n=1,c=3,h=33,w=33,k=4,r=3,stride=2 "needs stride 1 and dilation 1 .*stride 2x2"
refused n=1,c=3,h=33,w=33,k=4,r=3,dil=2 "needs stride 1 and dilation 1 .*dilation 2x2"
refused n=1,c=3,h=33,w=33,k=4,r=1 "a 1x1 filter .* pointwise product"
refused n=1,c=512,h=38,w=38,k=32000,r=3,pad=1 "workspace for one image needs .* MiB.* allows"

# explain prints the threshold validate applies: each FFT variant's own, not the family's 1e-4.
"$xconv" explain --device pocl --shape n=1,c=2,h=16,w=16,k=2,r=3,pad=1 --variant fft,fft_tiled \
    >"$tmp/thr.txt" 2>&1
check "explain gives fft's own threshold" grep -q "error block: .*threshold 1e-05 (fft)$" \
    "$tmp/thr.txt"
check "explain gives fft_tiled's own threshold" \
    grep -q "error block: .*threshold 5e-06 (fft_tiled)$" "$tmp/thr.txt"
check "explain gives no FFT threshold of 1e-4" bash -c '! grep -q "threshold 0.0001" "$1"' _ \
    "$tmp/thr.txt"
# fft_tiled on an image padded to the filter's size: nothing to tile, said so.
"$xconv" explain --device pocl --shape n=1,c=2,h=3,w=3,k=2,r=3 --variant fft_tiled \
    >"$tmp/tiny.txt" 2>&1
check "fft_tiled's reason on a 3x3 image and filter names the padded image" \
    grep -q "padded image (3x3) is no larger than the 3x3 filter" "$tmp/tiny.txt"
check "and does not blame the largest tile" bash -c '! grep -q "largest tile" "$1"' _ \
    "$tmp/tiny.txt"

echo "fft explain: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
