#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One GPU-host session: environment, device list, validation and benchmarks, results under OUTDIR.
# Usage: scripts/gpu_session.sh OUTDIR [smoke|validate|bench|all] [BUILD_DIR]
# Needs the build folder and .gpu/ (scripts/gpu_bundle.sh) beside the checkout.
set -u
out=${1:?usage: gpu_session.sh OUTDIR [smoke|validate|bench|all] [BUILD_DIR]}
mode=${2:-all}
build=${3:-build-gpu}
mkdir -p "$out"
cd "$(dirname "$0")/.."
# shellcheck source=gpu_env.sh
source scripts/gpu_env.sh .gpu >"$out/env.txt" 2>&1
x="$build/xconv"
log="$out/session.log"
run() {  # run CMD...: echo and log a command and its output
    echo "+ $*" | tee -a "$log"
    "$@" 2>&1 | tee -a "$log"
    return "${PIPESTATUS[0]}"
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
esac
echo "done: $mode" | tee -a "$log"
