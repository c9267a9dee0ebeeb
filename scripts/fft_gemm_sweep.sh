#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The FFT channel sum (cl/fft_cgemm.cl) over forced tiles on a GPU host (XCONV_FFT_GEMM=TM,TN,
# TK,WM,WN; docs/guide/fft-family.md, "Forcing plans"). Checks first: conv5x5 and big11x11
# validated with fft and fft_tiled under the two most different candidates on cuda:0 and
# NVIDIA's OpenCL (tests/cli/fft_gemm_tiles.sh checks the edges on CPUs, bit for bit). Then
# fft_tiled and fft timed on the standard suite's conv5x5 and big11x11 for each candidate and
# the planner's own tiles ("planner"), on cuda:0 and on NVIDIA's OpenCL: one JSON per candidate
# and device (the plan's defines carry the tiles). About two minutes on an H100 with the default
# REPEAT 10. A summary of each step's exit status ends the log.
# Usage: scripts/fft_gemm_sweep.sh OUTDIR XCONV [REPEAT]
set -u
# shellcheck source=scripts/gpu_steps.bash
source "$(dirname "$0")/gpu_steps.bash" "$1" "$2" "${3:-10}"
conv5x5=n=32,c=32,h=56,w=56,k=64,r=5,pad=2
big11x11=n=16,c=64,h=64,w=64,k=64,r=11,pad=5
# TM,TN,TK,WM,WN: work-items (TM/WM) x (TN/WN); local memory TK x (TM + 2 + TN) x 8 bytes.
#   32,64,8,4,4    the planner's tiles before, 128 work-items, 8 channels a step
#   32,64,32,4,4   as the planner's now on the H100: every channel of conv5x5 in one step
#   64,64,32,4,4   all 64 filters a work-group, 256 work-items
#   64,64,32,8,4   the same block, 128 work-items of 8x4 sums
#   64,64,32,4,8   128 work-items of 4x8 sums
#   64,64,32,8,8   64 work-items of 8x8 sums
#   32,128,32,4,8  128 columns, 128 work-items of 4x8
#   64,128,16,8,8  the largest block, 128 work-items of 8x8, 16 channels a step
#   64,64,16,4,4   256 work-items, 16 channels a step
#   32,32,32,4,4   small blocks: 64 work-items, twice the work-groups
#   16,64,32,4,4   64 work-items, four blocks of filters
#   64,32,32,8,4   64 work-items of 8x4
# shellcheck disable=SC2054  # commas inside each candidate
tiles=(32,64,8,4,4 32,64,32,4,4 64,64,32,4,4 64,64,32,8,4 64,64,32,4,8 64,64,32,8,8
       32,128,32,4,8 64,128,16,8,8 64,64,16,4,4 32,32,32,4,4 16,64,32,4,4 64,32,32,8,4)

nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >>"$log" 2>&1
run explain "$x" explain --device cuda:0 --variant fft_tiled --shape "$conv5x5"

# Correctness: the most different candidates against the reference on both backends.
for t in 64,64,32,8,8 16,64,32,4,4; do
    for dev in cuda:0 nvidia; do
        name="validate_${t//,/x}_${dev%%:*}"
        run "$name" env XCONV_FFT_GEMM="$t" "$x" validate --shape "$conv5x5" \
            --shape "$big11x11" --device "$dev" --variant fft_tiled,fft --json "$out/$name.json"
    done
done

# Speed: every candidate, then the planner's tiles, on both backends.
for t in "${tiles[@]}" planner; do
    for dev in cuda:0 nvidia; do
        name="bench_${t//,/x}_${dev%%:*}"
        gemm=()
        [ "$t" != planner ] && gemm=(XCONV_FFT_GEMM="$t")
        run "$name" env "${gemm[@]}" "$x" bench --shape "$conv5x5" --shape "$big11x11" \
            --device "$dev" --variant fft_tiled,fft --repeat "$repeat" --json "$out/$name.json"
    done
done

summary
