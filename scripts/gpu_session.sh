#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One GPU-host session: environment, device list, validation and benchmarks, results under OUTDIR.
# Usage: scripts/gpu_session.sh OUTDIR [MODE] [BUILD_DIR]
#   MODE: smoke (default), preview, record1, record2, direct, direct_gpu, direct_pocl, matrix,
#   matrix_gpu, matrix_pocl
# Needs the build folder and .gpu/ (scripts/gpu_bundle.sh) beside the checkout.
set -u
out=${1:?usage: gpu_session.sh OUTDIR [MODE] [BUILD_DIR]}
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
record1)
    # NVIDIA OpenCL: every variant on the standard suite, checked then timed, beside CLBlast;
    # the references on PoCL; then each shared variant through both backends (parity).
    run "$x" bench --suite standard --device nvidia --repeat 20 \
        --json "$out/bench_opencl_h100.json" | grep -E "^opencl|records"
    run "$x" validate --suite standard --device pocl --variant "$standard_peers" \
        --json "$out/validate_standard_pocl.json" | grep -E "FAIL|error|records"
    run "$x" validate --parity --suite standard --repeat 10 --json "$out/parity_h100.json" |
        grep -vE "^\[|^$"
    ;;
record2)
    # CUDA: every variant and every cuDNN row on the standard suite; SGEMM; PoCL on the host CPU.
    run "$x" bench --suite standard --device cuda:0 --repeat 25 \
        --json "$out/bench_cuda_h100.json" | grep -E "^cuda|records"
    run "$x" bench --gemm standard --device nvidia --device cuda:0 --repeat 10 \
        --json "$out/gemm_h100.json" | grep -vE "^\[|^$"
    run "$x" bench --suite small --device pocl --repeat 5 \
        --variant direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock,clblast_convgemm \
        --json "$out/bench_pocl_small_host16.json" | grep -E "records"
    run scripts/bench_pocl_direct.sh "$x" "$out/bench_pocl_standard_cut_host16.json" | grep records
    ;;
direct | direct_gpu | direct_pocl)
    # The direct family beside its peers in one run per backend (clblast_convgemm on OpenCL,
    # cudnn_find and cuDNN's implicit GEMM on CUDA), bitwise parity, and PoCL on the host CPU.
    # direct_gpu and direct_pocl are its two halves, for calls that must end within 10 minutes.
    d=direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock
    # 10 warm-up runs: with 2, the first plan timed in a scratch run read 6% slower than the
    # same plan timed again later in that run.
    if [ "$mode" != direct_pocl ]; then
        run "$x" bench --suite standard --device nvidia --device cuda:0 --repeat 20 --warmup 10 \
            --variant "$d,clblast_convgemm,cudnn_find,cudnn_implicit_precomp_gemm" \
            --json "$out/bench_direct_h100.json" | grep -E "^(opencl|cuda) |records"
        run "$x" validate --parity --suite standard --repeat 10 --variant "${d#direct_naive,}" \
            --json "$out/parity_direct_h100.json" | grep -vE "^\[|^$"
    fi
    if [ "$mode" != direct_gpu ]; then
        # Small shapes take 0.1 ms on 16 threads and vary by 10% between runs: many repeats.
        run "$x" bench --suite small --device pocl --repeat 100 --warmup 5 \
            --variant "$d,clblast_convgemm" --json "$out/bench_pocl_small_host16.json" |
            grep -E "records"
        run scripts/bench_pocl_direct.sh "$x" "$out/bench_pocl_standard_cut_host16.json" |
            grep records
    fi
    ;;
matrix | matrix_gpu | matrix_pocl)
    # The standard matrix (docs/matrix.md): every variant and peer through both GPU backends on
    # the standard suite, and on PoCL with the batches cut, floors from the peaks measured first;
    # its report. matrix_gpu and matrix_pocl are its halves, for calls that must end within 10
    # minutes (the report then takes the matrix files there are).
    p=(--peaks-file "$out/peaks.json")
    run "$x" peaks --device all "${p[@]}"
    if [ "$mode" != matrix_pocl ]; then
        run "$x" matrix --suite standard --device cuda:0 --device nvidia "${p[@]}" \
            --json "$out/matrix_gpu.json" | grep -vE "^\[[0-9]+/"
    fi
    if [ "$mode" != matrix_gpu ]; then
        run "$x" matrix --shapes bench/shapes/standard_cut.shapes --device pocl "${p[@]}" \
            --json "$out/matrix_pocl.json" | grep -vE "^\[[0-9]+/"
    fi
    run "$x" report "$out"/matrix_*.json -o "$out/report.html" | tail -3
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
esac
echo "done: $mode" | tee -a "$log"
