#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compile time on a GPU host, cold caches: the standard matrix through both GPU backends (cold,
# then warm), the cut standard matrix on PoCL, a find over ResNet-50's layers on cuda:0 and
# `xconv run` on a new shape, each command's wall time and its programs counted; one binary a
# call, so that a build before and after a change run the same commands (docs/guide/compile.md).
# Usage: scripts/gpu_compile.sh OUTDIR XCONV LABEL [SECONDS [STEP...]]
#   LABEL names the files (matrix_gpu_LABEL.json, ...); SECONDS caps each command (default 540):
#   a matrix cut short keeps the cells it finished (its files are streamed). STEPs: run,
#   matrix_gpu, matrix_gpu_warm, find, matrix_pocl, bundle (default all, in that order), and
#   bundle_sm90 (XCONV_SM90_BUNDLE: a bundle made by precompile --target sm_90 without a GPU).
set -u
out=${1:?usage: gpu_compile.sh OUTDIR XCONV LABEL [SECONDS]}
x=${2:?}
label=${3:?}
cap=${4:-540}
shift $(($# < 4 ? $# : 4))
steps=${*:-run matrix_gpu matrix_gpu_warm find matrix_pocl bundle}
mkdir -p "$out"
cd "$(dirname "$0")/.."
source scripts/gpu_env.sh .gpu >/dev/null 2>&1
log="$out/compile_$label.log"
# No driver keeps compiled kernels of its own between the runs (NVIDIA's compute cache, PoCL's).
export CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0
secs() {  # secs NANOSECONDS: prints them as seconds with three decimals
    printf '%d.%03d' $(($1 / 1000000000)) $(($1 / 1000000 % 1000))
}
cold() {  # cold NAME CMD...: runs CMD on a fresh xconv cache, logs its wall time and programs
    local name=$1
    shift
    rm -rf "/tmp/xc-$label-$name"
    local t0 t1 rc
    t0=$(date +%s%N)
    XCONV_CACHE_DIR="/tmp/xc-$label-$name" timeout "$cap" "$@" >"/tmp/$label-$name.out" 2>&1
    rc=$?
    t1=$(date +%s%N)
    grep -E "^time:|built ahead|helper|records:|programs: 0 built| wall " \
        "/tmp/$label-$name.out" >>"$log"
    printf '%s %s: exit %d, wall %s s, %d programs stored\n' "$label" "$name" "$rc" \
        "$(secs $((t1 - t0)))" "$(ls "/tmp/xc-$label-$name/kernels" 2>/dev/null | wc -l)" |
        tee -a "$log"
}
warm() {  # warm NAME CMD...: runs CMD again on NAME's cache, logs its wall time
    local name=$1
    shift
    local t0 t1 rc
    t0=$(date +%s%N)
    XCONV_CACHE_DIR="/tmp/xc-$label-$name" timeout "$cap" "$@" >"/tmp/$label-$name-warm.out" 2>&1
    rc=$?
    t1=$(date +%s%N)
    grep -E "^time:|records:| wall " "/tmp/$label-$name-warm.out" >>"$log"
    printf '%s %s warm: exit %d, wall %s s\n' "$label" "$name" "$rc" \
        "$(secs $((t1 - t0)))" | tee -a "$log"
}
nproc >>"$log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$log" 2>&1
"$x" --version >>"$log" 2>&1
for step in $steps; do
    case $step in
    run)
        cold run_cuda "$x" run --device cuda:0 --shape n=3,c=24,h=37,w=41,k=40,r=3,pad=1
        cold run_cuda2 "$x" run --device cuda:0 --shape n=5,c=20,h=29,w=31,k=36,r=5,pad=2 ;;
    matrix_gpu)
        cold matrix_gpu "$x" matrix --suite standard --device cuda:0 --device nvidia \
            --json "$out/matrix_gpu_$label.json" ;;
    matrix_gpu_warm)
        warm matrix_gpu "$x" matrix --suite standard --device cuda:0 --device nvidia ;;
    find)
        cold find_resnet50 "$x" find --shapes bench/shapes/resnet50.shapes --device cuda:0 \
            --json "/tmp/find_$label.json" ;;
    matrix_pocl)
        cold matrix_pocl "$x" matrix --shapes bench/shapes/standard_cut.shapes --device pocl \
            --json "$out/matrix_pocl_$label.json" ;;
    bundle)
        # A bundle made for a new shape, imported into a fresh cache: run builds nothing.
        cold bundle_export "$x" precompile --device cuda:0 --export "/tmp/$label.bundle" \
            --shape n=7,c=22,h=35,w=39,k=44,r=3,pad=1
        rm -rf "/tmp/xc-$label-bundle_run"
        XCONV_CACHE_DIR="/tmp/xc-$label-bundle_run" "$x" precompile --device cuda:0 \
            --import "/tmp/$label.bundle" >>"$log" 2>&1
        warm bundle_run "$x" run --device cuda:0 --shape n=7,c=22,h=35,w=39,k=44,r=3,pad=1 ;;
    bundle_sm90)
        # A bundle made without a GPU (precompile --target sm_90 --suite standard --export),
        # $XCONV_SM90_BUNDLE, imported into a fresh cache: the standard matrix on cuda:0 then
        # compiles nothing (the programs stored stay those imported).
        rm -rf "/tmp/xc-$label-sm90"
        XCONV_CACHE_DIR="/tmp/xc-$label-sm90" "$x" precompile --device cuda:0 \
            --import "${XCONV_SM90_BUNDLE:?the sm_90 bundle}" 2>&1 | tee -a "$log"
        imported=$(ls "/tmp/xc-$label-sm90/kernels" | wc -l)
        (cd "/tmp/xc-$label-sm90/kernels" && md5sum ./* >"/tmp/$label-sm90.md5")
        warm sm90 "$x" matrix --suite standard --device cuda:0 \
            --json "$out/matrix_cuda_sm90_bundle_$label.json"
        changed=$(cd "/tmp/xc-$label-sm90/kernels" && md5sum -c --quiet "/tmp/$label-sm90.md5" \
                  2>/dev/null | wc -l)
        printf '%s sm90 bundle: %d programs imported, %d stored after the matrix, %d changed\n' \
            "$label" "$imported" "$(ls "/tmp/xc-$label-sm90/kernels" | wc -l)" "$changed" |
            tee -a "$log" ;;
    esac
done
echo "done: $label" | tee -a "$log"
