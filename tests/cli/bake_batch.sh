#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The batch size baked into the programs (--bake-batch on) or passed as an argument (off):
# every family's kernels on PoCL at N=1 and N=3 give bitwise the same output both ways (the
# arithmetic is the same), validate passes both ways, the split-K reduce and the unfused
# epilogue's steps included; explain says whether N is baked, by each variant's default
# (direct_tiled bakes it, direct_tiled_db takes it at run time) and as forced; a bad value is
# refused.
# Skips (exit 77) without an OpenCL CPU device.
# Usage: bake_batch.sh PATH/TO/xconv
set -u
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
begin_test "$1"
skip_without_cpu_device

# same_output WHAT ARGS...: `xconv run ARGS` with the batch baked and not: both exit 0 and
# write the same bytes.
same_output() {
    local what=$1
    shift
    local on="$tmp/on.npy" off="$tmp/off.npy"
    rm -f "$on" "$off"
    "$xconv" run --device pocl --seed 3 "$@" --bake-batch on --output "$on" >"$tmp/on.txt" 2>&1
    local rc_on=$?
    "$xconv" run --device pocl --seed 3 "$@" --bake-batch off --output "$off" >"$tmp/off.txt" 2>&1
    local rc_off=$?
    check "$what: runs baked (rc $rc_on)" test "$rc_on" -eq 0
    check "$what: runs with N an argument (rc $rc_off)" test "$rc_off" -eq 0
    check "$what: the same output both ways" cmp -s "$on" "$off"
    [ "$rc_on" -eq 0 ] && [ "$rc_off" -eq 0 ] || cat "$tmp/on.txt" "$tmp/off.txt" >&2
}

conv3=c=3,h=10,w=9,k=5,r=3,pad=1
conv1=c=8,h=6,w=6,k=4,r=1
pooled=c=4,h=8,w=8,k=4,r=3,pad=1,bias=1,act=relu,pool=2
# One variant per kernel file (fft_tiled and the other Winograd tiles run the same kernels).
variants3="direct_naive direct_const direct_tiled direct_tiled_db direct_regblock im2col_gemm
    implicit_gemm implicit_precomp winograd_f23_fused winograd_f23 fft"
for n in 1 3; do
    for v in $variants3; do
        same_output "$v n=$n" --variant "$v" --shape "n=$n,$conv3"
    done
    same_output "gemm_1x1 n=$n" --variant gemm_1x1 --shape "n=$n,$conv1"
    # A split product: its GEMM and reduce steps keep N compiled in, the rest take it.
    XCONV_GEMM_SPLIT=2 same_output "implicit_gemm split n=$n" --variant implicit_gemm \
        --shape "n=$n,$conv3"
    # The unfused epilogue's steps (cl/epilogue.cl) and a fused pool.
    same_output "unfused epilogue n=$n" --variant direct_naive --epilogue unfused \
        --shape "n=$n,$pooled"
    same_output "fused epilogue n=$n" --variant implicit_gemm --shape "n=$n,$pooled"
done

# validate: the run-time batch passes against the reference at N=1 and N=3, both ways.
for bake in on off; do
    "$xconv" validate --device pocl --bake-batch "$bake" --shape "n=1,$conv3" \
        --shape "n=3,$conv3" --shape "n=3,$pooled" --shape "n=2,$conv1" >"$tmp/v.txt" 2>&1
    rc=$?
    check "validate --bake-batch $bake passes (rc $rc)" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || cat "$tmp/v.txt" >&2
done

# explain says which values are baked.
"$xconv" explain --device pocl --variant direct_tiled --shape "n=2,$conv3" --bake-batch off \
    >"$tmp/e.txt" 2>&1
check "explain --bake-batch off: N a run-time argument" grep -q "N: a run-time argument" "$tmp/e.txt"
"$xconv" explain --device pocl --variant direct_tiled --shape "n=2,$conv3" >"$tmp/e.txt" 2>&1
check "explain direct_tiled: N baked (its default)" grep -q "N: baked" "$tmp/e.txt"
"$xconv" explain --device pocl --variant direct_tiled_db --shape "n=2,$conv3" >"$tmp/e.txt" 2>&1
check "explain direct_tiled_db: N a run-time argument (its default)" \
    grep -q "N: a run-time argument" "$tmp/e.txt"
"$xconv" explain --device pocl --variant direct_tiled_db --shape "n=2,$conv3" --bake-batch on \
    >"$tmp/e.txt" 2>&1
check "explain direct_tiled_db --bake-batch on: N baked" grep -q "N: baked" "$tmp/e.txt"
"$xconv" explain --device pocl --variant fft --shape "n=2,$conv3" --bake-batch off \
    >"$tmp/e.txt" 2>&1
check "explain fft: N baked where the defines depend on it" \
    grep -q "N: baked (the steps' defines depend on it)" "$tmp/e.txt"

# A value other than on or off: exit 2, one line naming it.
"$xconv" run --device pocl --shape "n=1,$conv3" --bake-batch maybe >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--bake-batch maybe: exit 2 (got $rc)" test "$rc" -eq 2
check "--bake-batch maybe: says what it takes" grep -q "expected on or off" "$tmp/err"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
