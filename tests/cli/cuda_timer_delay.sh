#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CUDA timer's start delay on a machine without a GPU, through a stand-in libcuda
# (scripts/fake_libcuda.c: launches that do nothing; NVRTC compiles for real): `xconv peaks`
# times its micro-kernels, and each timed region launches the delay kernel (built by NVRTC once
# for the context) before it records its start event; XCONV_TIMING_DELAY=0 records the same
# events with no delay launched; other text is refused, naming the variable. The delay's effect
# on times needs a GPU (docs/guide/reading-results.md). Skips (exit 77) without NVRTC, the CUDA
# backend or a C compiler.
# Usage: cuda_timer_delay.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_nvrtc
build_fake_libcuda "$tmp"
export LD_LIBRARY_PATH=$tmp FAKE_CU_TRACE=1 FAKE_CU_INIT_MS=0 FAKE_CU_CTX_MS=0
export CUDA_CACHE_DISABLE=1 XCONV_CACHE_DIR=$tmp/cache XDG_CACHE_HOME=$tmp/xdg
skip_without_fake_cuda

# The driver calls of `peaks`, one a line without their times.
calls() {
    "$xconv" peaks --device cuda:0 --repeat 2 --peaks-file "$tmp/peaks.json" >"$tmp/out.txt" 2>&1
    local rc=$?
    sed -n 's/^\[fake libcuda *[0-9.]* ms\] //p' "$tmp/out.txt" >"$1"
    return $rc
}

calls "$tmp/on.txt"
check "peaks with the delay (the default) exits 0: $(tail -3 "$tmp/out.txt")" test $? -eq 0
XCONV_TIMING_DELAY=0 calls "$tmp/off.txt"
check "peaks with XCONV_TIMING_DELAY=0 exits 0: $(tail -3 "$tmp/out.txt")" test $? -eq 0

built=$(grep -c "cuModuleGetFunction xconv_timer_delay" "$tmp/on.txt")
check "the delay kernel is looked up once for the context ($built)" test "$built" -eq 1
first=$(grep -m1 -B2 "^cuEventRecord" "$tmp/on.txt" | head -2 | tr '\n' ',')
check "the first start event follows the delay's lookup and launch ($first)" \
    test "$first" = "cuModuleGetFunction xconv_timer_delay,cuLaunchKernel,"
records_on=$(grep -c "^cuEventRecord" "$tmp/on.txt")
records_off=$(grep -c "^cuEventRecord" "$tmp/off.txt")
launches_on=$(grep -c "^cuLaunchKernel" "$tmp/on.txt")
launches_off=$(grep -c "^cuLaunchKernel" "$tmp/off.txt")
check "both time the same regions ($records_on and $records_off events)" \
    test "$records_on" -eq "$records_off" -a "$records_on" -gt 0
check "one delay launched a region ($launches_on launches with it, $launches_off without, \
$records_on events)" test $((launches_on - launches_off)) -eq $((records_on / 2))
check "no delay kernel without the delay" test "$(grep -c xconv_timer_delay "$tmp/off.txt")" -eq 0

XCONV_TIMING_DELAY=sometimes calls "$tmp/bad.txt"
check "XCONV_TIMING_DELAY=sometimes fails" test $? -ne 0
check "naming the variable: $(tail -2 "$tmp/out.txt")" grep -q "XCONV_TIMING_DELAY='sometimes'" \
    "$tmp/out.txt"

echo "cuda_timer_delay.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
