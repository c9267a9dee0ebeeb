#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Winograd family under Oclgrind's memory checker: the fused variants on the small suite with
# their own plans (Oclgrind says it is a CPU as well as a GPU, so they get the vector path, whose
# row loads may read past a tile row's last column, never past x: this fails when that guard is
# loosened) and with the work-group path forced (what GPUs get), the vector path at the images'
# edges, and the non-fused variants with passes of 1 image on shapes chosen for their tails
# (tiles that do not divide the output, groups, depthwise, padding past (r-1)/2) where this
# Oclgrind runs cl/sgemm.cl. Any out-of-bounds access fails the test. Skips (exit 77) when
# oclgrind is not installed, and in the sanitizer build (as oclgrind_kernels.sh does: the
# simulated kernels are the same there).
# Usage: oclgrind_winograd.sh PATH/TO/xconv
set -u
xconv=$1
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "SKIP: oclgrind not installed (apt-get install oclgrind)"
    exit 77
fi
if [ -n "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "SKIP: sanitizer build: the kernels under Oclgrind are the same as in the plain build," \
        "which runs this test"
    exit 77
fi
# Oclgrind preloads its OpenCL library; an ASan build must not insist on coming first.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

# memcheck LABEL RECORDS [ENV=VALUE | --OCLGRIND-OPTION ...] -- VALIDATE ARGS...: validate under
# oclgrind passes, RECORDS records (n/a included) with none failed, and oclgrind reports nothing.
memcheck() {
    local label=$1 records=$2
    shift 2
    local envs=() checks_opts=()
    while [ "$1" != "--" ]; do
        case $1 in --*) checks_opts+=("$1") ;; *) envs+=("$1") ;; esac
        shift
    done
    shift
    env "${envs[@]}" oclgrind "${checks_opts[@]}" "$xconv" validate --device oclgrind "$@" \
        >"$tmp/out.txt" 2>&1
    local rc=$?
    check "$label: validate exits 0" test "$rc" -eq 0
    check "$label: $records records, none failed" \
        grep -qE "^$records records?: 0 failed or errored" "$tmp/out.txt"
    # Every Oclgrind diagnostic (invalid access, API error) names the kernel; a fatal one says so.
    check "$label: no report from oclgrind" \
        bash -c "! grep -qE '^[[:space:]]*Kernel: |OCLGRIND FATAL|[Ii]nvalid (read|write)' \
                 '$tmp/out.txt'"
    if [ "$rc" -ne 0 ] || grep -qE "^[[:space:]]*Kernel: |OCLGRIND FATAL|[Ii]nvalid (read|write)" \
        "$tmp/out.txt"; then
        grep -iE "invalid|error|FAIL" "$tmp/out.txt" | head -20 >&2
    fi
}

fused=winograd_f23_fused,winograd_f43_fused,winograd_f25_fused
memcheck "fused, planned" 48 -- --suite small --variant "$fused"
# The work-group path on the small suite's kinds (a smaller depthwise shape: its 1-channel
# groups in blocks of 8 are slow to simulate).
memcheck "fused, work-group path" 18 XCONV_WINO_FUSED=16,8,4,4,2 -- \
    --shape n=4,c=8,h=32,w=32,k=16,r=3,pad=1 --shape n=3,c=5,h=17,w=23,k=7,r=3,pad=1 \
    --shape n=4,c=16,h=16,w=16,k=32,r=3,pad=1,groups=4 \
    --shape n=2,c=8,h=12,w=13,k=8,r=3,pad=1,groups=8 --shape n=8,c=6,h=22,w=22,k=16,r=5 \
    --shape n=2,c=3,h=4,w=4,k=4,r=5,pad=2 --variant "$fused"
# The vector path at the image's edges: padding 2, a last tile row that is partly outside, the
# first and last images' row loads (16 lanes of F(4x4): 66 floats a row), 8 lanes of F(2x2,5x5).
memcheck "fused, vector path, 16 lanes" 2 XCONV_WINO_FUSED=16,4,3,1,4,16 -- \
    --shape n=2,c=5,h=18,w=64,k=4,r=3,pad=2 --variant winograd_f23_fused,winograd_f43_fused
memcheck "fused, vector path, 8 lanes" 1 XCONV_WINO_FUSED=8,3,2,1,3,8 -- \
    --shape n=2,c=3,h=11,w=20,k=6,r=5,pad=1 --variant winograd_f25_fused

# The non-fused variants need cl/sgemm.cl, which this Oclgrind may not run (21.10 cannot run a
# kernel whose inlined helper takes restrict pointers).
oclgrind "$xconv" validate --device oclgrind --shape n=1,c=2,h=4,w=4,k=2,r=1 \
    --variant im2col_gemm >"$tmp/gemm.txt" 2>&1
if grep -q "^1 record: 0 failed or errored" "$tmp/gemm.txt"; then
    # 3x3 shapes: partial tiles on both axes (17x23 outputs), two groups with 7x9 outputs,
    # depthwise with padding 2; 5x5 shapes: padding 2, and two groups with padding 1 (4x3
    # outputs: one partial tile).
    memcheck "non-fused, passes of 1 image" 15 XCONV_WINO_CHUNK=1 -- \
        --shape n=2,c=5,h=17,w=23,k=7,r=3,pad=1 --shape n=2,c=6,h=7,w=9,k=10,r=3,pad=1,groups=2 \
        --shape n=2,c=6,h=10,w=7,k=6,r=3,pad=2,groups=6 --shape n=2,c=3,h=11,w=12,k=4,r=5,pad=2 \
        --shape n=2,c=4,h=6,w=5,k=6,r=5,pad=1,groups=2 \
        --variant winograd_f23,winograd_f43,winograd_f25
    # The batched GEMM split into 3 K slices (40 channels: 3 k steps of 16, 5 of 8) in passes of
    # 2 images, the last partial: each slice's partials and the reduce's stores into M, with the
    # data-race check.
    memcheck "non-fused, split-K forced" 2 XCONV_GEMM_SPLIT=3 XCONV_WINO_CHUNK=2 --data-races \
        -- --shape n=3,c=40,h=7,w=9,k=6,r=3,pad=1 --variant winograd_f23,winograd_f43
else
    echo "note: this Oclgrind cannot run cl/sgemm.cl: the non-fused variants are not checked"
fi

echo "cli oclgrind winograd: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
