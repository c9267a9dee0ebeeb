#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times forced direct plans (XCONV_DIRECT_PLAN) on one shape through NVIDIA OpenCL and CUDA,
# one JSON per plan under OUTDIR, and prints one line per plan and backend.
# Usage: scripts/gpu_direct_plans.sh OUTDIR BUILD_DIR LABEL SHAPE PLAN...
#   PLAN: "kind:wg_w,wg_h,block_w,block_h,block_k,strip,flat,unroll_c" (block_k 0: K/groups)
# Run after `source scripts/gpu_env.sh .gpu`; XCONV_PLAN_DEVICES overrides the devices.
set -u
out=${1:?usage: gpu_direct_plans.sh OUTDIR BUILD_DIR LABEL SHAPE PLAN...}
x=${2:?}/xconv
label=${3:?}
shape=${4:?}
shift 4
mkdir -p "$out"
read -r -a devices <<<"${XCONV_PLAN_DEVICES:---device nvidia --device cuda:0}"
i=0
for plan in "$@"; do
    variant=${plan%%:*}
    XCONV_DIRECT_PLAN=$plan "$x" bench --shape "$shape" "${devices[@]}" --variant "$variant" \
        --repeat 20 --warmup 10 --json "$out/${label}_plan$i.json" 2>&1 |
        grep -E "^(opencl|cuda) " | sed "s|^|$plan |" |
        awk '{ print $1, $2, $(NF-6), "median_ms=" $(NF-4), "GFLOP/s=" $(NF-1) }'
    i=$((i + 1))
done
