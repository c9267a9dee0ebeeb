#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Special values, zero padding (docs/guide/reading-results.md): a NaN or Inf weight whose tap lands
# on the padding gives NaN, and a NaN or Inf inside the input reaches exactly the outputs whose
# receptive field holds it, from every variant on PoCL and, when Mesa's Rusticl is installed, on
# its CPU device too; the FFT variants may spread them further, over the output planes their
# transforms reach (docs/validation.md). Skips (exit 77) when no OpenCL CPU device is installed.
# Usage: special_values.sh PATH/TO/xconv
set -u
xconv=$1
here=$(dirname "${BASH_SOURCE[0]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RUSTICL_ENABLE=llvmpipe  # Rusticl lists its CPU device only when asked to
"$xconv" devices >"$tmp/devices.txt" 2>&1
devices=()
grep -q "platform Portable Computing Language" "$tmp/devices.txt" && devices+=(pocl)
grep -q "platform rusticl" "$tmp/devices.txt" && devices+=(rusticl)
if [ ${#devices[@]} -eq 0 ]; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd or mesa-opencl-icd)"
    exit 77
fi
# shellcheck source=checks.bash
source "$here/checks.bash"

# Every variant that runs on OpenCL, and the float64 host reference (run with the first device).
mapfile -t variants < <("$xconv" variants | awk 'NR > 1 && $3 ~ /opencl|host/ {print $1}')
mapfile -t host_variants < <("$xconv" variants | awk 'NR > 1 && $3 == "host" {print $1}')
mapfile -t fft_variants < <("$xconv" variants | awk 'NR > 1 && $2 == "fft" {print $1}')
check "xconv variants lists the FFT family's fft and fft_tiled" \
    test "$(printf '%s\n' "${fft_variants[@]}" | grep -cxE 'fft|fft_tiled')" -eq 2
check "xconv variants lists cpu_ref, direct_naive and clblast_gemm" \
    test "$(printf '%s\n' "${variants[@]}" | grep -cxE 'cpu_ref|direct_naive|clblast_gemm')" -eq 3

for case in padded_weights input_values input_values_s1; do
    keys=$(python3 "$here/special_values.py" write "$tmp" "$case")
    for device in "${devices[@]}"; do
        ran=0
        for v in "${variants[@]}"; do
            if [ "$case" = input_values_s1 ] && [[ " ${fft_variants[*]} " != *" $v "* ]]; then
                continue  # the stride-1 case is for the FFT variants
            fi
            if [ "$device" != "${devices[0]}" ] && [[ " ${host_variants[*]} " == *" $v "* ]]; then
                continue
            fi
            out=$tmp/y_$case.npy
            rm -f "$out"
            "$xconv" run --input "$tmp/${case}_x.npy" --weights "$tmp/${case}_w.npy" \
                --shape "$keys" --variant "$v" --device "$device" --output "$out" \
                >"$tmp/run.txt" 2>&1
            rc=$?
            # The variant does not apply: to this shape (gemm_1x1 with padding), or to strict
            # fp32 (implicit_mma computes only reduced math).
            if [ "$rc" -eq 1 ] && grep -qE "needs|has no|computes only" "$tmp/run.txt"; then
                continue
            fi
            check "$case, $v on $device: run exits 0" test "$rc" -eq 0 || cat "$tmp/run.txt"
            family=""
            [[ " ${fft_variants[*]} " == *" $v "* ]] && family=fft
            check "$case, $v on $device: special values where IEEE arithmetic puts them" \
                python3 "$here/special_values.py" check "$tmp" "$case" "$out" "$family"
            ran=$((ran + 1))
        done
        least=9
        [ "$case" = input_values_s1 ] && least=${#fft_variants[@]}
        check "$case on $device: at least $least variants ran" test "$ran" -ge "$least"
        echo "$case on $device: $ran variants checked"
    done
done

echo "special values: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
