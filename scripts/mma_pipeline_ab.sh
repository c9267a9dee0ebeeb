#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# implicit_mma's two pipelines side by side on a GPU host of compute capability 8.0+, one binary:
# XCONV_MMA_PIPELINE=1 (registers double-buffered from x and w as stored, the default) and 2 (x
# and w packed into the workspace, a cp.async ring; docs/guide/precision.md). Checks first: the
# small suite validated in tf32, f16 and bf16 on cuda:0 and NVIDIA's OpenCL with the packed
# pipeline, OpenCL against CUDA bit for bit (validate --parity), and both pipelines' outputs
# compared bit for bit on shapes whose channels fill whole K steps (the same mma in the same
# order). Then the timings, each pipeline in its own JSON: vgg3x3, the standard suite and
# ResNet-50's late layers at batch 50 (bench/shapes/resnet50_b50_splitk.shapes) in tf32 and f16
# on cuda:0, and vgg3x3 on NVIDIA's OpenCL. A summary of each step's exit status ends the log.
# Usage: scripts/mma_pipeline_ab.sh OUTDIR XCONV [REPEAT]
set -u
# shellcheck source=scripts/gpu_steps.bash
source "$(dirname "$0")/gpu_steps.bash"
dtype_of() {  # the storage a math mode reads
    [ "$1" = tf32 ] && echo f32 || echo "$1"
}
vgg3x3=n=16,c=64,h=224,w=224,k=64,r=3,pad=1

nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >>"$log" 2>&1
run explain env XCONV_MMA_PIPELINE=2 "$x" explain --device cuda:0 --variant implicit_mma \
    --shape "$vgg3x3,math=tf32"

# Correctness of the packed pipeline: every mode, both backends (an OpenCL compiler that refuses
# the inline PTX, cp.async or ldmatrix shows here as a build error in the records' notes), and
# OpenCL against CUDA bit for bit.
for m in tf32 f16 bf16; do
    for dev in cuda:0 nvidia; do
        run "validate_packed_${dev%%:*}_$m" env XCONV_MMA_PIPELINE=2 "$x" validate \
            --suite small --device "$dev" --variant implicit_mma --dtype "$(dtype_of $m)" \
            --math "$m" --json "$out/validate_packed_${dev%%:*}_$m.json"
    done
    run "parity_packed_$m" env XCONV_MMA_PIPELINE=2 "$x" validate --parity --suite standard \
        --variant implicit_mma --dtype "$(dtype_of $m)" --math "$m" --repeat 5 \
        --json "$out/parity_packed_$m.json"
done

# The two pipelines bit for bit where a group's channels fill whole K steps (16 TF32, 32 fp16).
specs=("n=2,c=64,h=17,w=19,k=40,r=3,pad=1" "n=4,c=64,h=14,w=14,k=96,r=1")
for i in "${!specs[@]}"; do
    for m in tf32 f16; do
        s="${specs[$i]},dtype=$(dtype_of $m),math=$m"
        s=${s/dtype=f32,/}
        for pipe in 1 2; do
            run "run_pipe${pipe}_${m}_$i" env XCONV_MMA_PIPELINE=$pipe "$x" run --shape "$s" \
                --device cuda:0 --variant implicit_mma --output "$out/y_pipe${pipe}_${m}_$i.npy"
        done
        if cmp -s "$out/y_pipe1_${m}_$i.npy" "$out/y_pipe2_${m}_$i.npy"; then
            summary+=("bitwise $s: registers and packed identical")
        else
            summary+=("bitwise $s: registers and packed DIFFER (or a run failed)")
        fi
    done
done

# Speed, each pipeline in its own records (the plan's summary names the pipeline).
for m in tf32 f16; do
    for pipe in 1 2; do
        run "bench_vgg3x3_pipe${pipe}_$m" env XCONV_MMA_PIPELINE=$pipe "$x" bench \
            --shape "$vgg3x3" --device cuda:0 --device nvidia --variant implicit_mma \
            --dtype "$(dtype_of $m)" --math "$m" --repeat "$repeat" \
            --json "$out/bench_vgg3x3_pipe${pipe}_$m.json"
        run "bench_standard_pipe${pipe}_$m" env XCONV_MMA_PIPELINE=$pipe "$x" bench \
            --suite standard --device cuda:0 --variant implicit_mma --dtype "$(dtype_of $m)" \
            --math "$m" --repeat "$repeat" --json "$out/bench_standard_pipe${pipe}_$m.json"
        run "bench_resnet50_b50_pipe${pipe}_$m" env XCONV_MMA_PIPELINE=$pipe "$x" bench \
            --shapes bench/shapes/resnet50_b50_splitk.shapes --device cuda:0 \
            --variant implicit_mma --dtype "$(dtype_of $m)" --math "$m" --repeat "$repeat" \
            --json "$out/bench_resnet50_b50_pipe${pipe}_$m.json"
    done
done

summary
