#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `xconv bench --fft` on PoCL: our 2-D R2C and C2R beside VkFFT's on sizes of every radix (8, 4,
# 2, 3, 5; one plane, an odd batch, 75x75 as big11x11's transform), each checked against a
# float64 FFT and against the other, timed, in records; bad sizes refused. Skips (exit 77) when
# no OpenCL CPU device is installed; VkFFT's rows are n/a, and said so, when xconv was built
# without vkFFT.h (which fails the test where /usr/include/vkFFT.h exists).
# Usage: fft_vkfft.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

sizes=8x8:64,12x10:5,16x15:1,24x20:16,75x75:3
"$xconv" bench --fft "$sizes" --device pocl --repeat 3 --warmup 1 --json "$tmp/fft.json" \
    >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
cat "$tmp/out.txt"
check "bench --fft exits 0" test "$rc" -eq 0 || cat "$tmp/err.txt"
vkfft=yes
grep -q "VkFFT not built" "$tmp/err.txt" && vkfft=no
echo "VkFFT built: $vkfft"
# Where Debian's libvkfft-dev is installed (make's package list), VkFFT must have been built in.
check "VkFFT built where vkFFT.h is installed" \
    bash -c "[ $vkfft = yes ] || [ ! -f /usr/include/vkFFT.h ]"
check "four records per size, ours checked and timed, VkFFT's too or n/a without it" python3 -c '
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
vkfft = sys.argv[2] == "yes"
assert len(recs) == 20, len(recs)
for i in range(0, 20, 4):
    four = recs[i:i + 4]
    assert [r["variant"] for r in four] == ["r2c_ours", "c2r_ours", "r2c_vkfft", "c2r_vkfft"]
    assert len({r["shape"] for r in four}) == 1 and four[0]["shape"].startswith("fft2d lh=")
    for r in four[:2] + (four[2:] if vkfft else []):
        assert r["outcome"] == "pass" and r["pass"], r
        assert 0 < r["max_norm_err"] <= r["threshold"] <= 1e-6, r
        assert r["median_ms"] > 0 and r["gflops"] > 0 and r["repeat"] == 3, r
    for r in four[2:]:
        if vkfft:
            assert r["note"].startswith("differs from ours by "), r
            assert float(r["note"].split()[-1]) <= 1e-6, r
        else:
            assert r["outcome"] == "not_applicable" and "VkFFT not built" in r["note"], r
' "$tmp/fft.json" "$vkfft"
check "ours is printed as a share of VkFFT's time" \
    bash -c "[ $vkfft = no ] || grep -q 'R2C ours .* VkFFT.s time' '$tmp/out.txt'"

# Bad sizes are usage errors: not LHxLW, a length our transforms do not take, a zero batch.
for bad in 48 7x7 8x8:0 8x8x8 0x8 8192x8; do
    "$xconv" bench --fft "$bad" --device pocl >"$tmp/bad.txt" 2>&1
    check "--fft $bad refused with exit 2" test $? -eq 2
    check "--fft $bad: the message names it" grep -q "not '$bad'" "$tmp/bad.txt"
done
"$xconv" bench --fft 8x8 --shape n=1,c=1,h=8,w=8,k=1,r=3 --device pocl >"$tmp/bad.txt" 2>&1
check "--fft with --shape refused with exit 2" test $? -eq 2

echo "bench --fft: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
