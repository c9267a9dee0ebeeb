#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The FFT family under Oclgrind's memory checker, which the planners see as a GPU (32 KiB of
# local memory): fft and fft_tiled on small shapes chosen for their edges (a last work-group
# with fewer planes than it holds, partial tiles, groups with a rectangular filter, a 1x2
# filter, depthwise, channel sums over partial blocks of channels and filters), then forced
# tiles, passes of one image, eight planes a work-group and forced channel-sum tiles, and the
# transforms on raw planes (bench --fft, VkFFT's too).
# Any out-of-bounds access or data race in our kernels fails the test.
# Skips (exit 77) when oclgrind is not installed, and in the sanitizer build, as
# oclgrind_kernels.sh does: the simulated kernels are the same there.
# Usage: oclgrind_fft.sh PATH/TO/xconv
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

# clean LABEL FILE: Oclgrind reported no invalid access and no data race in FILE.
clean() {
    check "$1: no invalid memory access or data race" \
        bash -c "! grep -qiE 'invalid (read|write)|data race' '$2'"
    grep -iE "invalid (read|write)|data race" "$2" | head -5 >&2
}

# memcheck LABEL RECORDS ENV... -- SHAPES...: fft and fft_tiled validate every shape under
# oclgrind with ENV set (VAR=VALUE words), RECORDS records passing, with no invalid access.
memcheck() {
    local label=$1 records=$2 envs=() shapes=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    for s in "$@"; do shapes+=(--shape "$s"); done
    env "${envs[@]}" oclgrind --data-races "$xconv" validate "${shapes[@]}" --device oclgrind \
        --variant fft,fft_tiled >"$tmp/out.txt" 2>&1
    local rc=$?
    check "$label: validate exits 0" test "$rc" -eq 0
    check "$label: $records records pass" grep -qE "^$records records?: 0 failed or errored" \
        "$tmp/out.txt"
    clean "$label" "$tmp/out.txt"
    [ "$rc" -eq 0 ] || grep -iE "error|FAIL" "$tmp/out.txt" | head -10 >&2
}

memcheck "planned" 14 XCONV_FFT_CHUNK=0 -- \
    n=9,c=2,h=6,w=6,k=2,r=3,pad=1 \
    n=3,c=4,h=9,w=7,k=6,r=2,s=3,pad_w=1,groups=2 \
    n=2,c=5,h=6,w=6,k=3,r=1,s=2 \
    n=1,c=3,h=30,w=17,k=2,r=5,pad=2 \
    n=2,c=2,h=5,w=5,k=2,r=5,pad=2 \
    n=2,c=6,h=7,w=7,k=6,r=3,pad=1,groups=6 \
    n=2,c=11,h=5,w=5,k=40,r=3,pad=1
memcheck "tiles of 8x12 with partial edges, 2 images a pass" 4 XCONV_FFT_TILE=8x12 \
    XCONV_FFT_CHUNK=2 -- n=3,c=2,h=13,w=23,k=3,r=3,s=4,pad=1 n=2,c=1,h=9,w=9,k=2,r=2
memcheck "one image a pass" 2 XCONV_FFT_CHUNK=1 -- n=3,c=3,h=7,w=8,k=2,r=3,pad=1
memcheck "8 planes a work-group, the last one short" 4 XCONV_FFT_PLANES=8 -- \
    n=3,c=3,h=7,w=8,k=5,r=3,pad=1 n=5,c=4,h=9,w=7,k=6,r=2,s=3,pad_w=1,groups=2
memcheck "forced channel-sum tiles: pairs, one step, partial blocks" 4 \
    XCONV_FFT_GEMM=16,8,8,4,2 -- n=3,c=3,h=7,w=8,k=5,r=3,pad=1 n=2,c=11,h=5,w=5,k=40,r=3,pad=1
memcheck "forced channel-sum tiles: single rows and columns, steps of 3 channels" 4 \
    XCONV_FFT_GEMM=6,10,3,3,5 -- n=3,c=3,h=7,w=8,k=5,r=3,pad=1 n=2,c=11,h=5,w=5,k=40,r=3,pad=1

# The transforms alone, ours and VkFFT's. No data-race check here: VkFFT's in-place kernels read
# and write the same global addresses across a local-memory barrier, which Oclgrind reports;
# ours ran under the race check above.
oclgrind "$xconv" bench --fft 8x8:5,12x10:3,15x16:1 --device oclgrind --repeat 1 --warmup 0 \
    >"$tmp/bench.txt" 2>&1
check "bench --fft under oclgrind exits 0" test $? -eq 0
clean "bench --fft" "$tmp/bench.txt"

echo "cli oclgrind fft: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
