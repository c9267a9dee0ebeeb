#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The forcing variables are read by one strict parser: text a variable does not take ("", "2abc",
# "8y8", a value out of range) is refused before any work with exit 2 and one line naming the
# variable, by every command that plans. Usage: forcing.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/checks.bash"
export XCONV_CACHE_DIR=$tmp/cache
unset XCONV_DIRECT_PLAN XCONV_GEMM_TILES XCONV_GEMM_SPLIT XCONV_GEMM_CHUNK XCONV_WINO_CHUNK \
    XCONV_WINO_FUSED XCONV_FFT_TILE XCONV_FFT_CHUNK XCONV_FFT_PLANES XCONV_MMA_PIPELINE \
    XCONV_MMA_TILES XCONV_MMA_SPLIT XCONV_FFT_GEMM
shape=n=1,c=2,h=6,w=6,k=2,r=3

for bad in XCONV_GEMM_SPLIT=2abc XCONV_GEMM_SPLIT= XCONV_GEMM_SPLIT=17 XCONV_GEMM_SPLIT=-1 \
    XCONV_GEMM_CHUNK=1.5 XCONV_GEMM_CHUNK=-2 XCONV_WINO_CHUNK=x XCONV_FFT_CHUNK= \
    XCONV_FFT_TILE=8y8 XCONV_FFT_TILE=8x XCONV_FFT_TILE=1 XCONV_FFT_TILE=8x8x8 \
    XCONV_FFT_PLANES=16 XCONV_FFT_PLANES=-2 XCONV_FFT_PLANES=4x \
    XCONV_DIRECT_PLAN= XCONV_DIRECT_PLAN=direct_const:1,2 XCONV_DIRECT_PLAN=:1,1,1,1,1,1,1,1 \
    XCONV_GEMM_TILES=16,16,8,4 XCONV_GEMM_TILES=16,16,8,4,4x XCONV_WINO_FUSED=16,8,4 \
    XCONV_MMA_PIPELINE=4 XCONV_MMA_PIPELINE=x XCONV_MMA_TILES=64,128,32,2 \
    XCONV_MMA_TILES=64,128,32,2,4,3,1 XCONV_MMA_TILES=0,0,0,0,0 XCONV_MMA_SPLIT=17 \
    XCONV_MMA_SPLIT=2x XCONV_FFT_GEMM=32,64,8,4 XCONV_FFT_GEMM=0,0,0,0,0 \
    XCONV_FFT_GEMM=32,64,8,4,4x; do
    name=${bad%%=*}
    value=${bad#*=}
    for cmd in run validate bench explain; do
        env "$bad" bash -c 'source "$1"; xconv=$2 tmp=$3; shift 3; refused "$@"; \
            [ "$failures" -eq 0 ]' _ "$(dirname "$0")/checks.bash" "$xconv" "$tmp" \
            2 "^xconv $cmd: $name='$value': expected" -- $cmd --shape $shape --variant auto
        check "$cmd refuses $bad" [ $? -eq 0 ]
    done
done

# Values the variables take are taken (the planner then says what does not fit).
for good in XCONV_GEMM_SPLIT=0 XCONV_GEMM_SPLIT=16 XCONV_FFT_TILE=8 XCONV_FFT_TILE=8x12 \
    XCONV_GEMM_CHUNK=0 XCONV_WINO_CHUNK=3 XCONV_GEMM_TILES=16,16,8,4,4,4,0,2 \
    XCONV_FFT_PLANES=0 XCONV_FFT_PLANES=8 XCONV_MMA_PIPELINE=3 XCONV_MMA_TILES=64,128,32,2,4 \
    XCONV_MMA_TILES=128,128,64,4,2,2 XCONV_MMA_SPLIT=0 XCONV_MMA_SPLIT=16 \
    XCONV_FFT_GEMM=64,64,32,8,4; do
    env "$good" "$xconv" run --shape $shape --variant direct_naive >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "$good is taken (exit $rc): $(cat "$tmp/err")" [ "$rc" -eq 0 ]
done

# A kind that is no direct kernel and a block of zeros are refused the same way; a value of the
# right form out of its field's range (xconv_plan_options_check) names the field.
for bad in XCONV_DIRECT_PLAN=direct_nope:1,1,1,1,1,1,1,1 XCONV_WINO_FUSED=0,0,0,0,0; do
    env "$bad" bash -c 'source "$1"; xconv=$2 tmp=$3; shift 3; refused "$@"; \
        [ "$failures" -eq 0 ]' _ "$(dirname "$0")/checks.bash" "$xconv" "$tmp" \
        2 "^xconv run: ${bad%%=*}='${bad#*=}': expected" -- run --shape $shape --variant auto
    check "run refuses $bad" [ $? -eq 0 ]
done
second="direct_const:1,1,1,1,1,1,1,1;direct_tiled:0,1,1,1,1,1,1,1"  # the second entry's wg_w
for bad in XCONV_WINO_FUSED=16,8,4,4,2,4:winograd_fused.vec \
    XCONV_GEMM_TILES=16,16,8,4,4,3:gemm_tiles.vw "XCONV_DIRECT_PLAN=$second:direct_tiling.1..wg_w" \
    XCONV_FFT_PLANES=3:fft_planes XCONV_MMA_TILES=64,128,32,2,4,5:mma_tiles.stages \
    XCONV_MMA_TILES=64,0,32,2,4:mma_tiles.tn; do
    field=${bad##*:}
    bad=${bad%:*}
    env "$bad" bash -c 'source "$1"; xconv=$2 tmp=$3; shift 3; refused "$@"; \
        [ "$failures" -eq 0 ]' _ "$(dirname "$0")/checks.bash" "$xconv" "$tmp" \
        2 "^xconv run: ${bad%%=*}='.*': plan options: $field is out of range" \
        -- run --shape $shape --variant direct_naive
    check "run refuses $bad naming $field" [ $? -eq 0 ]
done

echo "forcing: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
