# SPDX-License-Identifier: MIT
# The preamble of the GPU-host check scripts (mma_check.sh, mma_pipeline_ab.sh,
# mma_tile_sweep.sh): sourced with the script's arguments OUTDIR XCONV [REPEAT], it sets $out and
# $x as absolute paths and $repeat (default 20), goes to the checkout, loads scripts/gpu_env.sh
# (NVIDIA's OpenCL ICD, cuDNN), opens $out/NAME.log for the script NAME, and defines `run NAME
# CMD...` (logs the command and its output, keeps its exit status) and `summary` (prints every
# step's exit status, also into the log).
gpu_steps_name=$(basename "$0" .sh)
out=${1:?usage: $gpu_steps_name.sh OUTDIR XCONV [REPEAT]}
x=${2:?usage: $gpu_steps_name.sh OUTDIR XCONV [REPEAT]}
repeat=${3:-20}
mkdir -p "$out"
out=$(cd "$out" && pwd)
x=$(cd "$(dirname "$x")" && pwd)/$(basename "$x")
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/gpu_env.sh
source scripts/gpu_env.sh .gpu >/dev/null 2>&1
log="$out/$gpu_steps_name.log"
steps=()
run() {  # run NAME CMD...: logs the command and its output, keeps its exit status for the end
    local name=$1
    shift
    echo "+ $*" >>"$log"
    "$@" >>"$log" 2>&1
    local rc=$?
    steps+=("$name: exit $rc")
    echo "$name: exit $rc"
}
summary() {  # every step's exit status, into the log too
    printf '%s\n' "== summary" "${steps[@]}" | tee -a "$log"
}
