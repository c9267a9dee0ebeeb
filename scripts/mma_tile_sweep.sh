#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# implicit_mma's packed pipeline over forced tiles and split-K on a GPU host of compute
# capability 8.0+ (XCONV_MMA_TILES, XCONV_MMA_SPLIT; docs/guide/cli.md). Checks first: the small
# suite validated in f16 and tf32 on cuda:0 and NVIDIA's OpenCL with split-K forced (3 slices)
# and with forced 128x128 tiles, and OpenCL against CUDA bit for bit on the standard suite with
# the planner's split. Then the timings of vgg3x3 and ResNet-50's res5_3x3 at batch 50 in f16 on
# cuda:0, one JSON for each tile set and split (the plan's summary names both), then the
# planner's own choice. A summary of each step's exit status ends the log.
# Usage: scripts/mma_tile_sweep.sh OUTDIR XCONV [REPEAT]
set -u
# shellcheck source=scripts/gpu_steps.bash
source "$(dirname "$0")/gpu_steps.bash"
vgg3x3=n=16,c=64,h=224,w=224,k=64,r=3,pad=1
res5=n=50,c=512,h=7,w=7,k=512,r=3,pad=1
# Tile sets TM,TN,TK,WM,WN[,STAGES] in f16 (TK in elements), each within 48 KiB a work-group.
tiles=(64,128,32,2,4 128,128,32,2,4 128,128,32,4,2 64,128,64,2,4 128,64,32,4,2
       256,128,32,4,2,2 64,128,32,2,4,3 128,128,32,2,4,2)

nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >>"$log" 2>&1
run explain "$x" explain --device cuda:0 --variant implicit_mma --shape "$res5" --dtype f16 \
    --math f16

# Correctness: split-K and forced tiles on both backends, then the planner's split bit for bit.
for m in f16 tf32; do
    dtype=$m
    [ "$m" = tf32 ] && dtype=f32
    k_step=32
    [ "$m" = tf32 ] && k_step=16
    for dev in cuda:0 nvidia; do
        run "validate_split3_${dev%%:*}_$m" env XCONV_MMA_PIPELINE=2 XCONV_MMA_SPLIT=3 "$x" \
            validate --suite small --device "$dev" --variant implicit_mma --dtype "$dtype" \
            --math "$m" --json "$out/validate_split3_${dev%%:*}_$m.json"
        run "validate_128x128_${dev%%:*}_$m" env XCONV_MMA_PIPELINE=2 \
            XCONV_MMA_TILES=128,128,$k_step,4,2 "$x" validate --suite small --device "$dev" \
            --variant implicit_mma --dtype "$dtype" --math "$m" \
            --json "$out/validate_128x128_${dev%%:*}_$m.json"
    done
    run "parity_$m" env XCONV_MMA_PIPELINE=2 "$x" validate --parity --suite standard \
        --variant implicit_mma --dtype "$dtype" --math "$m" --repeat 5 \
        --json "$out/parity_$m.json"
done

# Speed in f16: every tile set with each split (0: the planner's), then the planner's tiles.
for shape in vgg3x3 res5; do
    spec=${!shape}
    for t in "${tiles[@]}"; do
        for split in 1 2 3 4 6 8 0; do
            [ "$shape" = vgg3x3 ] && [ "$split" != 1 ] && continue  # 12544 tiles: no split
            name="bench_${shape}_${t//,/x}_split$split"
            run "$name" env XCONV_MMA_PIPELINE=2 XCONV_MMA_TILES="$t" XCONV_MMA_SPLIT=$split \
                "$x" bench --shape "$spec" --device cuda:0 --variant implicit_mma --dtype f16 \
                --math f16 --repeat "$repeat" --json "$out/$name.json"
        done
    done
    run "bench_${shape}_planner" "$x" bench --shape "$spec" --device cuda:0 \
        --variant implicit_mma --dtype f16 --math f16 --repeat "$repeat" \
        --json "$out/bench_${shape}_planner.json"
done

summary
