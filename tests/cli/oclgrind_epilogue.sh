#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The epilogue under Oclgrind's memory checker: the direct family's fused stores (bias,
# activation and the pool, where blocks hold whole windows: the pooled store's edges, an odd
# output, the floor that drops a row), the GEMM family's (bias and activation; the implicit
# GEMMs' 2x2 pooled store, with row and column tails; a split-K reduce applying bias, activation
# and an overlapping padded pool), Winograd's output stores (2x2/2 pools at odd edges), the FFT
# crops' (bias, relu6 and pools over a whole image or whole windows of tiles), the unfused steps
# (cl/epilogue.cl: bias+activation in place, overlapping and padded pools), and forced plans
# that pool in what other devices get (direct_const's vector columns, flat regblock blocks of two rows). Any
# out-of-bounds access or failed record fails the test. Skips (exit 77) without oclgrind, and in
# the sanitizer build (XCONV_SANITIZED_BUILD), whose kernels are the same.
# Usage: oclgrind_epilogue.sh PATH/TO/xconv
set -u
xconv=$1
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "SKIP: oclgrind not installed (apt-get install oclgrind)"
    exit 77
fi
if [ -n "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "SKIP: sanitizer build: the kernels under Oclgrind are the same as in the plain build"
    exit 77
fi
# Oclgrind preloads its OpenCL library; an ASan build must not insist on coming first.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

direct=direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock
pool2="n=1,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu,pool=2"
odd="n=1,c=5,h=17,w=23,k=7,r=3,pad=1,bias=1,act=relu6,pool=3,pool_stride=2,pool_pad=1"
stride2="n=1,c=8,h=33,w=33,k=16,r=3,stride=2,pad=1,bias=1,act=relu,pool=2"
pw="n=2,c=32,h=14,w=14,k=24,r=1,bias=1,act=relu,pool=2"
rect="n=1,c=4,h=20,w=21,k=8,r=3,s=5,pad_h=1,pad_w=2,act=relu,pool_h=2,pool_w=3,"
rect+="pool_stride_h=2,pool_stride_w=1"

# memcheck LABEL RECORDS PLAN ARGS...: validate ARGS under oclgrind passes, every record, with
# no invalid access reported (PLAN: XCONV_DIRECT_PLAN, "" for none).
memcheck() {
    local label=$1 records=$2 plan=$3
    shift 3
    env ${plan:+XCONV_DIRECT_PLAN=$plan} oclgrind "$xconv" validate --device oclgrind "$@" \
        >"$tmp/out.txt" 2>&1
    local rc=$?
    check "$label: validate exits 0" test "$rc" -eq 0
    check "$label: every record passes" grep -qE "^$records records?: 0 failed or errored" \
        "$tmp/out.txt"
    check "$label: no invalid memory access" \
        bash -c "! grep -qi 'invalid \(read\|write\)' '$tmp/out.txt'"
    if [ "$rc" -ne 0 ] || grep -qi "invalid \(read\|write\)" "$tmp/out.txt"; then
        grep -iE "invalid|error|FAIL" "$tmp/out.txt" | head -20 >&2
    fi
}

memcheck "fused 2x2/2 pools" 10 "" --variant "$direct" --shape "$pool2" --shape "$stride2"
memcheck "overlapping padded pools (partly fused, direct_naive fused)" 10 "" \
    --variant "$direct" --shape "$odd" --shape "$rect"
memcheck "GEMM family stores (bias, activation; implicit GEMMs pool 2x2/2)" 9 "" \
    --variant im2col_gemm,implicit_gemm,implicit_precomp --shape "$pool2" --shape "$stride2" \
    --shape "$odd"
memcheck "gemm_1x1's store, the pool as a step" 1 "" --variant gemm_1x1 --shape "$pw"
memcheck "Winograd output stores pooling 2x2/2 at odd edges (non-fused and fused)" 2 "" \
    --variant winograd_f43,winograd_f23_fused \
    --shape "n=1,c=4,h=13,w=11,k=6,r=3,pad=1,bias=1,act=relu6,pool=2"
memcheck "FFT crops pooling a whole image (2x2/2, overlapping padded 3x3/2)" 2 "" \
    --variant fft --shape "n=1,c=3,h=13,w=11,k=4,r=3,pad=1,bias=1,act=relu6,pool=2" \
    --shape "$odd"
XCONV_FFT_TILE=8x12 memcheck "fft_tiled's crops pooling 2x2/2 in 6x10 tiles, partial edges" 1 \
    "" --variant fft_tiled --shape "n=1,c=3,h=13,w=23,k=4,r=3,pad=1,bias=1,act=relu6,pool=2"
XCONV_GEMM_SPLIT=3 memcheck "split-K reduces applying the epilogue (overlapping padded pool)" 2 \
    "" --variant implicit_gemm --shape "$odd" --shape "$stride2"
memcheck "the unfused steps" 3 "" --variant direct_const --epilogue unfused --shape "$pool2" \
    --shape "$odd" --shape "$rect"
memcheck "vector direct_const pooling float8 over two rows" 1 \
    "direct_const:1,4,8,2,1,1,0,0,1,8" --variant direct_const --shape "$pool2"
memcheck "flat regblock blocks of two rows" 1 "direct_regblock:32,1,4,2,4,1,1,0,1" \
    --variant direct_regblock --shape "$pool2"
XCONV_DIRECT_PLAN="direct_regblock:32,1,4,2,4,1,1,0,1" "$xconv" explain --shape "$pool2" \
    --variant direct_regblock >"$tmp/explain.txt" 2>&1
check "the forced regblock plan fuses the pool" grep -q "flat work-groups.*epilogue fused" \
    "$tmp/explain.txt"

echo "cli oclgrind epilogue: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
