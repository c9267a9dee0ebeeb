#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The problem's sizes baked into the programs of implicit_gemm, implicit_precomp and gemm_1x1
# (--bake-dims on, the default) or passed as arguments (off, or XCONV_BAKE_DIMS=off): on PoCL over odd shapes
# (strides, padding, dilation, groups, rectangular filters, a fused bias and activation, a fused
# pool, fp16 storage, split-K) every element passes validate both ways and `run` writes the
# same bytes both ways (the arithmetic is the same); explain says which values are baked; a layer of
# another shape with the same plan builds no program; a bad value is refused.
# Skips (exit 77) without an OpenCL CPU device.
# Usage: bake_dims.sh PATH/TO/xconv
set -u
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
begin_test "$1"
skip_without_cpu_device

gathered="n=3,c=6,h=9,w=11,k=10,r=3,pad=1
n=2,c=5,h=13,w=10,k=7,r=3,stride=2,pad=2,dil=2
n=2,c=8,h=7,w=9,k=12,r=3,pad=1,groups=4
n=1,c=3,h=11,w=8,k=5,r=5,s=3,stride_h=2,pad_h=2,pad_w=1
n=2,c=6,h=9,w=9,k=8,r=3,pad=1,bias=1,act=relu
n=2,c=6,h=9,w=7,k=10,r=3,pad=1,dtype=f16
n=2,c=4,h=8,w=8,k=4,r=3,pad=1,bias=1,act=relu,pool=2"
pointwise="n=3,c=8,h=7,w=5,k=12,r=1
n=3,c=12,h=5,w=7,k=9,r=1,groups=3
n=2,c=9,h=6,w=5,k=6,r=1,bias=1,act=relu6
n=2,c=8,h=5,w=9,k=12,r=1,dtype=f16"
printf '%s\n' "$gathered" >"$tmp/gathered.shapes"
printf '%s\n' "$pointwise" >"$tmp/pointwise.shapes"

# validate: every element against the reference, both ways, split-K too (its GEMM and reduce
# steps take the sizes; a fused pool keeps them baked).
validate() {
    local what=$1
    shift
    "$xconv" validate --device pocl "$@" >"$tmp/v.txt" 2>&1
    local rc=$?
    check "validate $what: passes (rc $rc)" test "$rc" -eq 0
    check "validate $what: every case ran" eval '! grep -q "n/a on" "$tmp/v.txt"'
    [ "$rc" -eq 0 ] || cat "$tmp/v.txt" >&2
}
for bake in on off; do
    for split in 0 2; do
        XCONV_GEMM_SPLIT=$split validate "implicit_gemm --bake-dims $bake, split $split" \
            --bake-dims "$bake" --variant implicit_gemm --shapes "$tmp/gathered.shapes"
        XCONV_GEMM_SPLIT=$split validate "gemm_1x1 --bake-dims $bake, split $split" \
            --bake-dims "$bake" --variant gemm_1x1 --shapes "$tmp/pointwise.shapes"
        XCONV_GEMM_SPLIT=$split validate "implicit_precomp --bake-dims $bake, split $split" \
            --bake-dims "$bake" --variant implicit_precomp --shapes "$tmp/gathered.shapes"
    done
done

# run: the same bytes both ways.
same_output() {
    local variant=$1 shape=$2
    "$xconv" run --device pocl --seed 5 --variant "$variant" --shape "$shape" --bake-dims on \
        --output "$tmp/on.npy" >"$tmp/on.txt" 2>&1
    local rc_on=$?
    XCONV_BAKE_DIMS=off "$xconv" run --device pocl --seed 5 --variant "$variant" \
        --shape "$shape" --output "$tmp/off.npy" >"$tmp/off.txt" 2>&1
    local rc_off=$?
    check "$variant $shape: runs both ways (rc $rc_on, $rc_off)" \
        test "$rc_on" -eq 0 -a "$rc_off" -eq 0
    check "$variant $shape: the same output both ways" cmp -s "$tmp/on.npy" "$tmp/off.npy"
}
same_output implicit_gemm "n=2,c=5,h=13,w=10,k=7,r=3,stride=2,pad=2,dil=2"
same_output gemm_1x1 "n=3,c=12,h=5,w=7,k=9,r=1,groups=3"
same_output implicit_precomp "n=2,c=8,h=7,w=9,k=12,r=3,pad=1,groups=4,bias=1,act=relu"

# explain says which values are baked.
explain() {
    "$xconv" explain --device pocl "$@" >"$tmp/e.txt" 2>&1
}
explain --variant implicit_gemm --shape "n=2,c=6,h=9,w=11,k=10,r=3,pad=1" --bake-dims off
words="N: a run-time argument; C, H, W, K, P, Q: run-time arguments (R, S, strides, padding, "
words+="dilation and groups baked)"
check "explain --bake-dims off: the sizes are arguments" grep -qF "$words" "$tmp/e.txt"
check "explain --bake-dims off: no size among the defines" \
    eval '! grep -qE -- "-DXC_(N|C|H|W|K|P|Q|CG|KG|GEMM_M|GEMM_K|GEMM_SEG)=" "$tmp/e.txt"'
check "explain --bake-dims off: XC_DIMS_RUNTIME defined" \
    grep -q -- "-DXC_DIMS_RUNTIME=1" "$tmp/e.txt"
XCONV_GEMM_SPLIT=2 explain --variant implicit_gemm --shape "n=2,c=6,h=9,w=11,k=10,r=3,pad=1" \
    --bake-dims off
check "explain split-K --bake-dims off: the GEMM and the reduce take the sizes" \
    eval '[ "$(grep -c -- "-DXC_DIMS_RUNTIME=1" "$tmp/e.txt")" -eq 2 ] &&
        grep -q "C, H, W, K, P, Q: run-time arguments (R" "$tmp/e.txt"'
explain --variant implicit_gemm --shape "n=2,c=4,h=8,w=8,k=4,r=3,pad=1,pool=2" --bake-dims off
check "explain pooled --bake-dims off: the sizes stay baked" \
    grep -q "C, H, W, K, P, Q: baked" "$tmp/e.txt"
explain --variant implicit_gemm --shape "n=2,c=6,h=9,w=11,k=10,r=3,pad=1"
check "explain by default: the sizes baked" grep -q -- "-DXC_C=6" "$tmp/e.txt"
check "explain by default: no word on the sizes" eval '! grep -q "C, H, W, K, P, Q" "$tmp/e.txt"'

# A layer of another shape with the same plan (tiles forced, both 3x3 pad 1, K a multiple of 4)
# builds nothing more when the sizes are arguments, and its own program when baked.
export XCONV_CACHE_DIR=none XCONV_GEMM_TILES=16,16,8,4,4
for bake in on off; do
    "$xconv" validate --device pocl --build-threads 1 --bake-dims "$bake" \
        --variant implicit_gemm --shape "n=2,c=6,h=9,w=11,k=8,r=3,pad=1" \
        --shape "n=1,c=10,h=7,w=5,k=12,r=3,pad=1" >"$tmp/p.txt" 2>&1
    rc=$?
    check "two layers --bake-dims $bake: pass (rc $rc)" test "$rc" -eq 0
    want=2
    [ "$bake" = off ] && want=1
    built=$(grep -o '[0-9]* programs\? built ahead' "$tmp/p.txt")
    check "two layers --bake-dims $bake: $want program(s) built ($built)" \
        grep -qE "^time: .*\\($want programs? built ahead" "$tmp/p.txt"
done
unset XCONV_CACHE_DIR XCONV_GEMM_TILES

# A value other than on or off, from the flag or the environment: exit 2, one line naming it.
refused 2 "--bake-dims 'maybe': expected on or off" -- run --device pocl \
    --shape "n=1,c=3,h=5,w=5,k=4,r=1" --bake-dims maybe
XCONV_BAKE_DIMS=yes refused 2 "XCONV_BAKE_DIMS 'yes': expected on or off" -- run \
    --device pocl --shape "n=1,c=3,h=5,w=5,k=4,r=1"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
