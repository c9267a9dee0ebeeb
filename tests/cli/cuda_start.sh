#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CUDA backend's start on a machine without a GPU, through a stand-in libcuda whose primary
# context takes seconds to make (scripts/fake_libcuda.c: host memory, launches that do nothing;
# NVRTC compiles for real): opening returns at once and the context is made on a thread, so a
# run builds, loads once the context is made, runs and writes its output; builds ahead on two
# threads wait for it as well; a context the driver cannot make fails the run with the driver's
# word, exit 1, no output written. Skips (exit 77) without NVRTC, the CUDA backend or a C compiler.
# Usage: cuda_start.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_nvrtc
build_fake_libcuda "$tmp"
# Only the stand-in is found, with a slow context; no driver cache of NVRTC's or PoCL's in play.
export LD_LIBRARY_PATH=$tmp FAKE_CU_TRACE=1 FAKE_CU_INIT_MS=0 FAKE_CU_CTX_MS=1500
export CUDA_CACHE_DISABLE=1
shape=n=2,c=8,h=12,w=14,k=8,r=3,pad=1
skip_without_fake_cuda

# A run through a context that takes 1.5 s to make.
XCONV_CACHE_DIR=$tmp/c1 "$xconv" run --device cuda:0 --shape $shape --output "$tmp/y.npy" \
    >"$tmp/run.txt" 2>&1
check "run through a slow context exits 0: $(tail -3 "$tmp/run.txt")" test $? -eq 0
check "it wrote its output" test -s "$tmp/y.npy"
check "it built a program into the cache" test "$(ls "$tmp/c1/kernels" | wc -l)" -ge 1
# The module is loaded, and the kernel launched, only once the context was made.
order=$(grep -oE "cuDevicePrimaryCtxRetain (starts|done)|cuModuleLoadDataEx|cuLaunchKernel" \
    "$tmp/run.txt" | uniq | tr '\n' ',')
check "context made, then module loaded, then launched ($order)" \
    test "$order" = "cuDevicePrimaryCtxRetain starts,cuDevicePrimaryCtxRetain done,cuModuleLoadDataEx,cuLaunchKernel,"

# Builds ahead on two threads, each loading its module once the context is made.
XCONV_CACHE_DIR=$tmp/c2 "$xconv" precompile --device cuda:0 --shape $shape \
    --variant direct_naive,im2col_gemm,winograd_f23 --build-threads 2 >"$tmp/pre.txt" 2>&1
check "precompile on two threads through a slow context exits 0: $(tail -3 "$tmp/pre.txt")" \
    test $? -eq 0
n=$(ls "$tmp/c2/kernels" 2>/dev/null | wc -l)
check "it built the variants' programs ($n)" test "$n" -ge 4
first_load=$(grep -n "cuModuleLoadDataEx" "$tmp/pre.txt" | head -1 | cut -d: -f1)
made=$(grep -n "cuDevicePrimaryCtxRetain done" "$tmp/pre.txt" | cut -d: -f1)
check "no module was loaded before the context was made" test "${made:-0}" -lt "${first_load:-0}"

# A context the driver cannot make: the run says so and writes nothing.
FAKE_CU_CTX_FAIL=1 FAKE_CU_CTX_MS=200 XCONV_CACHE_DIR=$tmp/c3 "$xconv" run --device cuda:0 \
    --shape $shape --output "$tmp/y3.npy" >"$tmp/fail.txt" 2>&1
check "a context that cannot be made fails the run with exit 1" test $? -eq 1
check "naming the driver's call: $(tail -2 "$tmp/fail.txt")" \
    grep -q "opening CUDA device 0: cuDevicePrimaryCtxRetain" "$tmp/fail.txt"
check "and writes no output" test ! -e "$tmp/y3.npy"

echo "cuda_start.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
