#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where a cold `xconv run` goes on a machine without a GPU (docs/guide/compile.md, "A cold run"):
#   - NVRTC: each distinct program `auto` plans for the shapes of scripts/gpu_compile.sh's run
#     step, and every variant's for the small suite, on the sm_90 profile, built as the CUDA
#     backend builds it:
#     its CPU time, NVRTC's phases (--time) and the front-end flags NVRTC documents (--minimal,
#     -default-device, -pch), each checked to give the same CUBIN (scripts/nvrtc_phases.c);
#   - CUDA: `xconv run` of those two shapes on cuda:0 through a stand-in libcuda whose driver
#     start sleeps as a driver's does (scripts/fake_libcuda.c), NVRTC compiling for real: what
#     waits for what, REPS times each;
#   - PoCL's steps for that run's program (scripts/pocl_phases.c), REPS times;
#   - PoCL: `xconv run` of a small new shape with PoCL's own kernel cache off, REPS times each:
#     cold into a fresh cache folder, cold without one (XCONV_CACHE_DIR=none: nothing stored),
#     and warm (the program in the folder), wall and CPU time, for XCONV and, when given, for
#     XCONV_BEFORE in turn; the machine's load before and after.
# Usage: scripts/cold_start.sh LOG XCONV [REPS [XCONV_BEFORE]]
set -u
log=${1:?usage: cold_start.sh LOG XCONV [REPS [XCONV_BEFORE]]}
after=${2:?}
reps=${3:-5}
before=${4:-}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
main() {
    echo "# scripts/cold_start.sh $*"
    date -u
    "$after" --version
    [ -n "$before" ] && "$before" --version
    echo "cores: $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

    echo
    echo "## NVRTC: one build per program, sm_90 profile (no GPU)"
    cuda=${CUDA_HOME:-/usr/local/cuda}
    build=$(dirname "$(readlink -f "$after")")
    if [ -e "$cuda/include/nvrtc.h" ] && [ -e "$build/libxconv.so" ]; then
        cc -O2 -std=c11 -Wall -Wextra -o "$tmp/nvrtc_phases" scripts/nvrtc_phases.c -Ihost/include \
            -I"$cuda/include" -L"$build" -lxconv -L"$cuda/lib64" -lnvrtc \
            -Wl,-rpath,"$build:$cuda/lib64"
        echo "\$ nvrtc_phases sm_90 $reps --shape n=3,c=24,h=37,w=41,k=40,r=3,pad=1 --shape n=5,c=20,h=29,w=31,k=36,r=5,pad=2"
        "$tmp/nvrtc_phases" sm_90 "$reps" --shape n=3,c=24,h=37,w=41,k=40,r=3,pad=1 \
            --shape n=5,c=20,h=29,w=31,k=36,r=5,pad=2
        echo "\$ nvrtc_phases sm_90 1 --suite small --variant all"
        "$tmp/nvrtc_phases" sm_90 1 --suite small --variant all
    else
        echo "skipped: no $cuda/include/nvrtc.h or no $build/libxconv.so"
    fi

    echo
    echo "## CUDA through a stand-in driver (scripts/fake_libcuda.c: cuInit sleeps 100 ms, the"
    echo "## primary context 300 ms; NVRTC compiles for real), CUDA_CACHE_DISABLE=1, $reps runs"
    mkdir -p "$tmp/fake"
    if cc -shared -fPIC -O2 -std=c11 -Wall -Wextra -o "$tmp/fake/libcuda.so.1" \
        scripts/fake_libcuda.c; then
        for ((i = 0; i < reps; i++)); do
            for x in $before $after; do
                name=$([ "$x" = "$before" ] && echo before || echo after)
                for s in n=3,c=24,h=37,w=41,k=40,r=3,pad=1 n=5,c=20,h=29,w=31,k=36,r=5,pad=2; do
                    rm -rf "$tmp/cuda-cache"
                    /usr/bin/time -f "$name $s %e %U %S" -o "$tmp/t" env LD_LIBRARY_PATH="$tmp/fake" \
                        CUDA_CACHE_DISABLE=1 XCONV_CACHE_DIR="$tmp/cuda-cache" \
                        "$x" run --device cuda:0 --shape "$s" >"$tmp/out" 2>&1 ||
                        { echo "$name $s failed:"; cat "$tmp/out"; }
                    cat "$tmp/t"
                done
            done
        done | tee "$tmp/cuda_runs"
        echo "medians (seconds):                                  wall   user    sys"
        awk '{print $1, $2}' "$tmp/cuda_runs" | sort -u | while read -r name s; do
            awk -v k="$name $s" '$1 " " $2 == k {print $3, $4, $5}' "$tmp/cuda_runs" | sort -n |
                awk -v k="$name $s" '{w[NR]=$1; u[NR]=$2; s[NR]=$3}
                    END {m = int((NR + 1) / 2); printf "%-48s %6.2f %6.2f %6.2f\n", k, w[m], u[m], s[m]}'
        done
        echo "(rows sorted by wall: the median run's wall, user and system)"
    fi

    echo
    export POCL_KERNEL_CACHE=0
    shape=n=1,c=8,h=16,w=16,k=8,r=3,pad=1
    echo "## PoCL's steps, POCL_KERNEL_CACHE=0 (scripts/pocl_phases.c), $reps runs"
    if [ -e "$build/libxconv.so" ] &&
        cc -O2 -std=c11 -Wall -Wextra -o "$tmp/pocl_phases" scripts/pocl_phases.c -Ihost/include \
            -L"$build" -lxconv -lOpenCL -Wl,-rpath,"$build"; then
        for ((i = 0; i < reps; i++)); do
            echo "\$ pocl_phases $shape"
            "$tmp/pocl_phases" "$shape"
        done
    else
        echo "skipped: no $build/libxconv.so or no OpenCL headers"
    fi

    echo
    echo "## PoCL: xconv run --shape $shape --device pocl, POCL_KERNEL_CACHE=0"
    timed() {  # timed LABEL CACHE_DIR XCONV: one run, its wall, user and system seconds on one line
        /usr/bin/time -f "$1 %e %U %S" -o "$tmp/t" env XCONV_CACHE_DIR="$2" \
            "$3" run --shape "$shape" --device pocl >"$tmp/out" 2>&1 ||
            { echo "$1 failed:"; cat "$tmp/out"; }
        cat "$tmp/t"
}
for ((i = 0; i < reps; i++)); do
    for x in $before $after; do
        name=$([ "$x" = "$before" ] && echo before || echo after)
        rm -rf "$tmp/cache"
        timed "$name cold" "$tmp/cache" "$x"
        timed "$name warm" "$tmp/cache" "$x"
        timed "$name cold-nocache" none "$x"
    done
done | tee "$tmp/runs"
echo
echo "medians over $reps runs (seconds):        wall   user    sys   user+sys"
for name in ${before:+before} after; do
    for kind in cold cold-nocache warm; do
        awk -v k="$name $kind" '$1 " " $2 == k {print $3, $4, $5, $4 + $5}' "$tmp/runs" |
            sort -n -k4 | awk -v k="$name $kind" '{w[NR]=$1; u[NR]=$2; s[NR]=$3; c[NR]=$4}
                END {m = int((NR + 1) / 2); printf "%-36s %6.2f %6.2f %6.2f %6.2f\n", k, w[m], u[m], s[m], c[m]}'
    done
done
echo "(rows sorted by user+sys: the median run's wall, user and system; wall moves with the load)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
main "$@" 2>&1 | tee "$log"
