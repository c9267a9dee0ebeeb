#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# implicit_mma (tensor cores) on a GPU host of compute capability 8.0+, in one call: the device
# list (compute capability on both backends), the small suite validated in every math mode
# (tf32, f16, bf16) on cuda:0 and NVIDIA's OpenCL, OpenCL's and CUDA's outputs compared bit for
# bit, the sm_90 plan explained, the standard suite timed in each mode on both backends beside
# cuDNN's find in that mode and our strict-fp32 auto, ResNet-50's and MobileNet-v2's layers
# through CUDA in every mode beside cuDNN, and fp16 storage against fp32 with strict math.
# Records are JSON under OUTDIR; a summary of each step's exit status ends the log.
# Usage: scripts/mma_check.sh OUTDIR XCONV [REPEAT]
set -u
# shellcheck source=scripts/gpu_steps.bash
source "$(dirname "$0")/gpu_steps.bash"
dtype_of() {  # the storage a math mode reads
    [ "$1" = tf32 ] && echo f32 || echo "$1"
}

nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >>"$log" 2>&1
run devices "$x" devices
run explain "$x" explain --device cuda:0 --device nvidia --variant implicit_mma \
    --shape n=50,c=256,h=14,w=14,k=256,r=3,pad=1,math=tf32

# Correctness: every mode, both backends (an OpenCL compiler that refuses the inline PTX shows
# here as a build error in the records' notes).
for m in tf32 f16 bf16; do
    for dev in cuda:0 nvidia; do
        run "validate_${dev%%:*}_$m" "$x" validate --suite small --device "$dev" \
            --variant implicit_mma,auto --dtype "$(dtype_of $m)" --math "$m" \
            --json "$out/validate_${dev%%:*}_$m.json"
    done
done

# OpenCL and CUDA bit for bit: the same inputs (seed 1) through both, outputs compared.
specs=("n=2,c=24,h=17,w=19,k=40,r=3,pad=1" "n=4,c=64,h=14,w=14,k=96,r=1")
for i in "${!specs[@]}"; do
    for m in tf32 f16 bf16; do
        s="${specs[$i]},dtype=$(dtype_of $m),math=$m"
        s=${s/dtype=f32,/}
        for dev in cuda:0 nvidia; do
            run "run_${dev%%:*}_${m}_$i" "$x" run --shape "$s" --device "$dev" \
                --variant implicit_mma --output "$out/y_${dev%%:*}_${m}_$i.npy"
        done
        if cmp -s "$out/y_cuda_${m}_$i.npy" "$out/y_nvidia_${m}_$i.npy"; then
            summary+=("bitwise $s: OpenCL and CUDA identical")
        else
            summary+=("bitwise $s: OpenCL and CUDA DIFFER (or a run failed)")
        fi
    done
done

# Speed: the standard suite in each mode on both backends beside cuDNN's find in the same mode
# (tensor-op math), then the strict-fp32 rows to compare.
for m in tf32 f16 bf16; do
    run "bench_$m" "$x" bench --suite standard --device cuda:0 --device nvidia \
        --variant implicit_mma,cudnn_find --dtype "$(dtype_of $m)" --math "$m" \
        --repeat "$repeat" --json "$out/bench_mma_$m.json"
done
run bench_f32 "$x" bench --suite standard --device cuda:0 \
    --variant auto,implicit_precomp,cudnn_find --repeat "$repeat" --json "$out/bench_f32_peers.json"

# The network layers through CUDA: ResNet-50's late layers at batch 50, ResNet-50 at batch 32 and
# MobileNet-v2, auto (the tensor cores in a reduced mode) beside cuDNN's find, in every mode.
nets=(--shapes bench/shapes/resnet50_b50_splitk.shapes --shapes bench/shapes/resnet50.shapes
      --shapes bench/shapes/mobilenet_v2.shapes)
for m in f32 tf32 f16 bf16; do
    run "networks_$m" "$x" bench "${nets[@]}" --device cuda:0 --variant auto,cudnn_find \
        --dtype "$(dtype_of $m)" --math "$m" --repeat "$repeat" --json "$out/networks_$m.json"
done
# The half path: fp16 storage with strict fp32 math against fp32 storage, auto's rules only.
run networks_f16_storage "$x" bench "${nets[@]}" --device cuda:0 --variant auto --dtype f16 \
    --find off --repeat "$repeat" --json "$out/networks_f16_storage.json"

summary
