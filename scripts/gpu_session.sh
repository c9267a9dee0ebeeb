#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One GPU-host session: environment, device list, validation and benchmarks, results under OUTDIR.
# Usage: scripts/gpu_session.sh OUTDIR [smoke|preview|validate|bench|pocl] [BUILD_DIR]
# Needs the build folder and .gpu/ (scripts/gpu_bundle.sh) beside the checkout.
set -u
out=${1:?usage: gpu_session.sh OUTDIR [smoke|preview|validate|bench|pocl] [BUILD_DIR]}
mode=${2:-smoke}
build=${3:-build-gpu}
mkdir -p "$out"
cd "$(dirname "$0")/.."
# shellcheck source=gpu_env.sh
source scripts/gpu_env.sh .gpu >>"$out/session.log" 2>&1
x="$build/xconv"
log="$out/session.log"
run() {  # run CMD...: echo and log a command, its output and its exit code
    echo "+ $*" | tee -a "$log"
    "$@" 2>&1 | tr '\r' '\n' | tee -a "$log"
    local rc=${PIPESTATUS[0]}
    echo "exit code $rc" | tee -a "$log"
    return "$rc"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu \
    --format=csv >>"$log" 2>&1
run "$x" devices
"$x" devices --json >"$out/devices.json" 2>>"$log"

standard_peers=direct_naive,clblast_gemm,clblast_convgemm
case "$mode" in
smoke)
    for t in test_opencl_backend test_cuda_backend; do
        [ -x "$build/$t" ] && run "$build/$t"
    done
    run "$x" validate --suite small --device nvidia
    run "$x" validate --suite small --device cuda:0
    run "$x" bench --suite standard --device nvidia --variant direct_naive,clblast_convgemm \
        --repeat 5
    ;;
validate)
    # The standard suite: every variant on NVIDIA OpenCL and CUDA; the references on PoCL.
    run "$x" validate --suite standard --device nvidia --device cuda:0 \
        --json "$out/validate_standard_h100.json"
    run "$x" validate --suite standard --device pocl --variant "$standard_peers" \
        --json "$out/validate_standard_pocl.json"
    run "$x" validate --parity --suite standard --repeat 10 --json "$out/parity_h100.json"
    ;;
bench)
    run "$x" bench --suite standard --device nvidia --repeat 20 --json "$out/bench_opencl_h100.json"
    run "$x" bench --suite standard --device cuda:0 --repeat 25 --json "$out/bench_cuda_h100.json"
    if "$x" bench --help | grep -q -- --gemm; then
        run "$x" bench --gemm standard --device nvidia --device cuda:0 --repeat 10 \
            --json "$out/gemm_h100.json"
    fi
    ;;
preview)
    v=direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock
    v=$v,im2col_gemm,implicit_gemm,implicit_precomp,gemm_1x1
    run "$x" validate --suite small --device nvidia --device cuda:0 --variant "$v" \
        --json "$out/validate_small_h100.json" | grep -E "FAIL|error|records"
    run "$x" bench --suite standard --device nvidia --variant "$v,clblast_convgemm" --repeat 10 \
        --json "$out/bench_opencl_preview.json" | grep -E "^opencl|records"
    run "$x" bench --suite standard --device cuda:0 --repeat 10 \
        --variant "$v,cudnn_find,cudnn_implicit_precomp_gemm" \
        --json "$out/bench_cuda_preview.json" | grep -E "^cuda|records"
    ;;
pocl)
    [ -x scripts/bench_pocl_direct.sh ] &&
        run scripts/bench_pocl_direct.sh "$x" "$out/bench_pocl_16core.json"
    ;;
esac
echo "done: $mode" | tee -a "$log"
