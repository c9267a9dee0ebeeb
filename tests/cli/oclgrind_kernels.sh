#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every OpenCL kernel of ours under Oclgrind's simulator, whose memory checker reports each
# access outside a buffer (global, constant or local): every variant on the small suite (each
# shape at n <= 2) and on shapes chosen for their tails, then plans forced to reach the tails
# the planners produce only on other devices (flat regblock as on GPUs, with BLOCK_K not
# dividing K; GPU GEMM tiles; channel chunks that do not divide C; partial im2col chunks; every
# placement of implicit_precomp's table; split-K with the small-output tiles), the tail runs
# with Oclgrind's data-race check too.
# Any report from Oclgrind, a failed or errored record, or a forced plan that did not take
# fails the test. It takes about 160 s of CPU (under 3 minutes on 2 cores). Skips (exit 77)
# without oclgrind, and in the sanitizer build: the simulated kernels are checked the same there
# and the host code around them is covered by the other tests, while that Debug build under ASan
# spent 2.6 times the CPU of this one on the same Oclgrind runs.
# Usage: oclgrind_kernels.sh PATH/TO/xconv
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

gemm=im2col_gemm,implicit_gemm,implicit_precomp,gemm_1x1
all=direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock,$gemm
nall=9

# ---------------------------------------------------------------------------------------------
# Shapes

# The small suite's shapes at n <= 2 (the simulator runs about 1 MFLOP a second), read from the
# CLI's own CSV record of the suite.
"$xconv" validate --suite small --variant cpu_ref --csv "$tmp/small.csv" >/dev/null 2>&1
mapfile -t small < <(python3 -c '
import csv, re, sys
for row in csv.DictReader(open(sys.argv[1])):
    n = int(re.match(r"n=(\d+)", row["shape"]).group(1))
    print(re.sub(r"^n=\d+", "n=%d" % min(n, 2), row["shape"]))' "$tmp/small.csv")
check "the small suite's shapes are read (${#small[@]})" test "${#small[@]}" -ge 10

# Tails: output channels, channels, rows and columns that no block or tile divides, one channel
# and one filter, one output position, a 1x1 everything, groups, and GEMM operands whose sizes
# are multiples of 4 (vector loads and stores) with partial tiles in M, N and K.
tails=(
    "n=3,c=5,h=13,w=11,k=7,r=3,pad=1"
    "n=2,c=1,h=9,w=7,k=1,r=3"
    "n=3,c=2,h=3,w=3,k=5,r=3"
    "n=1,c=1,h=1,w=1,k=1,r=1"
    "n=2,c=6,h=7,w=9,k=10,r=3,pad=1,groups=2"
    "n=3,c=4,h=6,w=6,k=7,r=3,pad=1"
    "n=2,c=8,h=6,w=6,k=7,r=1"
    "n=3,c=5,h=7,w=5,k=9,r=1"
    "n=2,c=8,h=5,w=5,k=6,r=1,groups=2"
)
# VGG-11's first layer at n=1: forced to the plan an H100 gets for it at n=64, whose flat
# regblock read past its local filters (BLOCK_K=11 for K=32, every filter staged).
vgg11=n=1,c=3,h=100,w=100,k=32,r=3,pad=1
vgg11_plan=direct_regblock:128,1,4,1,11,1,1,0,2

# shape_args SPEC...: "--shape SPEC" for each.
shape_args() {
    local s
    for s in "$@"; do printf -- '--shape\n%s\n' "$s"; done
}

# ---------------------------------------------------------------------------------------------
# Checks

# memcheck LABEL RECORDS OCLGRIND_OPTION... -- VALIDATE_ARGUMENT...: validate under oclgrind
# exits 0 with RECORDS records, none failed or errored, and oclgrind reports nothing. The
# environment of the call (XCONV_DIRECT_PLAN, XCONV_GEMM_TILES, XCONV_GEMM_CHUNK) passes on.
memcheck() {
    local label=$1 records=$2 opts=()
    shift 2
    while [ "$1" != "--" ]; do
        opts+=("$1")
        shift
    done
    shift
    local start=$SECONDS
    oclgrind --max-errors 10 "${opts[@]}" "$xconv" validate --device oclgrind "$@" \
        >"$tmp/out.txt" 2>&1
    local rc=$?
    echo "$label: $((SECONDS - start)) s"
    check "$label: validate exits 0" test "$rc" -eq 0
    check "$label: $records records, none failed" \
        grep -qE "^$records records?: 0 failed or errored" "$tmp/out.txt"
    # Every Oclgrind diagnostic (invalid access, data race, divergence, API error) names the
    # kernel; a fatal one says so.
    check "$label: no report from oclgrind" \
        bash -c "! grep -qE '^[[:space:]]*Kernel: |OCLGRIND FATAL' '$tmp/out.txt'"
    if [ "$rc" -ne 0 ] || grep -qE "^[[:space:]]*Kernel: |OCLGRIND FATAL|records: [1-9]" \
        "$tmp/out.txt"; then
        grep -iE -A4 "invalid|race|fatal|error|FAIL" "$tmp/out.txt" | head -40 >&2
    fi
}

# planned LABEL PATTERN OCLGRIND_OPTION... -- EXPLAIN_ARGUMENT...: the plan explain prints under
# oclgrind matches the extended regular expression PATTERN (a forced plan took, with the tail it
# is meant to reach).
planned() {
    local label=$1 pattern=$2 opts=()
    shift 2
    while [ "$1" != "--" ]; do
        opts+=("$1")
        shift
    done
    shift
    oclgrind "${opts[@]}" "$xconv" explain --device oclgrind "$@" >"$tmp/plan.txt" 2>&1
    check "plan: $label" grep -qE -- "$pattern" "$tmp/plan.txt"
}

mapfile -t small_args < <(shape_args "${small[@]}")
mapfile -t tail_args < <(shape_args "${tails[@]}")
nsmall=${#small[@]}
ntails=${#tails[@]}

# ---------------------------------------------------------------------------------------------
# The planners' own choices

memcheck "small suite, every variant" $((nsmall * nall)) -- "${small_args[@]}" --variant "$all"
memcheck "tail shapes, every variant" $((ntails * nall)) --data-races -- "${tail_args[@]}" \
    --variant "$all"

# ---------------------------------------------------------------------------------------------
# The direct family, plans forced

# forced LABEL VARIANTS SPEC OCLGRIND_OPTION...: each variant's plan for SPEC is the one
# XCONV_DIRECT_PLAN (from the caller's environment) forces, and passes memcheck.
forced() {
    local label=$1 variants=$2 spec=$3
    shift 3
    local count
    count=$(tr ',' '\n' <<<"$variants" | wc -l)
    oclgrind "$xconv" explain --device oclgrind --shape "$spec" --variant "$variants" \
        >"$tmp/plan.txt" 2>&1
    check "$label: every plan forced" \
        test "$(grep -c '(forced tiling)' "$tmp/plan.txt")" -eq "$count"
    memcheck "$label" "$count" "$@" -- --shape "$spec" --variant "$variants"
}

# every_kind PLAN: the same tiling forced on every tiled direct kind.
every_kind() {
    echo "direct_tiled:$1;direct_tiled_db:$1;direct_regblock:$1;direct_const:$1"
}

XCONV_DIRECT_PLAN=$vgg11_plan planned "VGG-11 at n=1 gets the H100's regblock plan" \
    "-DXC_K=32 .*-DXD_BLOCK_K=11 .*-DXD_FLAT=1 .*-DXD_REPEAT=2" -- \
    --shape "$vgg11" --variant direct_regblock
XCONV_DIRECT_PLAN=$vgg11_plan memcheck "VGG-11 layer 1, the H100's regblock plan" 1 -- \
    --shape "$vgg11" --variant direct_regblock

# Flat regblock with groups whose k-blocks run into the next group's filters, input rows read
# as float2 pairs and rows stored as float4s; and one with columns that no block divides.
XCONV_DIRECT_PLAN="direct_regblock:32,1,4,1,3,1,1,0,2" \
    forced "flat regblock, groups, paired loads" direct_regblock \
    n=2,c=4,h=12,w=14,k=10,r=3,groups=2 --data-races
XCONV_DIRECT_PLAN="direct_regblock:32,1,3,1,4,1,1,0,1;direct_const:32,1,3,1,4,1,1,1" \
    forced "flat regblock and direct_const, partial rows" direct_regblock,direct_const \
    n=1,c=3,h=9,w=11,k=7,r=3,pad=1 --data-races

# Tiled plans: 7 channels in chunks of 4, 10 output channels in blocks of 8, 4x16 tiles over
# 13x11 outputs (interleaved columns); then consecutive columns stored as float4s.
tiled=direct_tiled,direct_tiled_db,direct_regblock,direct_const
chunked=n=2,c=7,h=13,w=11,k=10,r=5,pad=2
XCONV_DIRECT_PLAN=$(every_kind 8,2,2,2,8,0,0,0) \
    planned "7 channels staged 4 at a time" "x 4 channels in local memory" -- \
    --shape "$chunked" --variant direct_tiled
XCONV_DIRECT_PLAN=$(every_kind 8,2,2,2,8,0,0,0) \
    forced "tiled plans, channel and k tails" "$tiled" "$chunked" --data-races
XCONV_DIRECT_PLAN=$(every_kind 2,2,4,2,2,1,0,0) \
    forced "tiled plans, consecutive columns" "$tiled" n=2,c=3,h=9,w=12,k=5,r=3,pad=1 \
    --data-races

# direct_const's vector columns (what CPUs get; their loads may read past a row's end for lanes
# that are not stored, never past the input plane).
XCONV_DIRECT_PLAN="direct_const:1,4,8,2,1,1,0,0,1,8" \
    memcheck "vector direct_const, float8 over two rows" $((nsmall + ntails)) -- \
    "${small_args[@]}" "${tail_args[@]}" --variant direct_const
XCONV_DIRECT_PLAN="direct_const:1,2,4,1,1,1,0,0,1,4" \
    memcheck "vector direct_const, float4" $((nsmall + ntails)) -- \
    "${small_args[@]}" "${tail_args[@]}" --variant direct_const

# ---------------------------------------------------------------------------------------------
# The GEMM family, tiles forced

# The GPUs' first tiles (128x128, 8x8 per work-item: on two shapes, one with vector loads),
# 16x16 tiles of 4x4 with float4 fragments, and 2x2 scalar fragments whose k step covers some
# products in one step; im2col in chunks of 2 images (a partial last chunk at n=3).
gemm_shapes=("${tails[0]}" "${tails[4]}" "${tails[5]}" "${tails[6]}" "${tails[7]}")
XCONV_GEMM_CHUNK=2 planned "im2col in chunks of 2 images" "im2col of 2 image" -- \
    --shape "${tails[0]}" --variant im2col_gemm
for tiles in 128,128,8,8,8 16,16,8,4,4 16,16,16,2,2,1; do
    shapes=("${gemm_shapes[@]}")
    [ "$tiles" = 128,128,8,8,8 ] && shapes=("${tails[0]}" "${tails[5]}")
    mapfile -t gemm_args < <(shape_args "${shapes[@]}")
    XCONV_GEMM_TILES=$tiles planned "GEMM tiles $tiles" \
        "TILE_M=${tiles%%,*} -DXC_GEMM_TILE_N=$(echo "$tiles" | cut -d, -f2) " -- \
        --shape "${tails[5]}" --variant implicit_gemm
    XCONV_GEMM_TILES=$tiles XCONV_GEMM_CHUNK=2 \
        memcheck "GEMM tiles $tiles" $((${#shapes[@]} * 4)) -- "${gemm_args[@]}" \
        --variant "$gemm"
done

# implicit_precomp's table (48 rows: 384 bytes; the 16x16 tiles take 2560 bytes of local
# memory) in constant memory and copied to local memory (the default here), in constant memory
# read where it lies (local memory too small for both), in global memory copied to local, and
# in global memory read where it lies.
table() {
    local label=$1 pattern=$2
    shift 2
    XCONV_GEMM_TILES=16,16,8,4,4 planned "implicit_precomp's table $label" "$pattern" "$@" -- \
        --shape "${tails[0]}" --variant implicit_precomp
    XCONV_GEMM_TILES=16,16,8,4,4 memcheck "implicit_precomp, table $label" 1 "$@" -- \
        --shape "${tails[0]}" --variant implicit_precomp
}
table "constant, local copy" "384 bytes, constant memory, read from a local copy"
table "constant" "384 bytes, constant memory\)" --local-mem-size 2816
table "global, local copy" "384 bytes, global memory, read from a local copy" \
    --constant-mem-size 256
table "global" "384 bytes, global memory\)" --local-mem-size 2816 --constant-mem-size 256

# ---------------------------------------------------------------------------------------------
# The GEMM family, split-K forced

# The small-output tiles with the K reduction split: 3 slices of one 16-step each (K = 45, 27,
# 36 and 40: the last slice's step partial, the 27-row K normalised to 2 slices), and 2 slices of
# 3 8-steps with im2col in chunks of 2 images (the partials region reused by each pass); every
# slice's partial stores and the reduce's stores into y's layout, with the data-race check.
split_shapes=("${tails[0]}" "${tails[4]}" "${tails[5]}" "n=2,c=40,h=3,w=3,k=6,r=1")
mapfile -t split_args < <(shape_args "${split_shapes[@]}")
for tiles in 64,32,16,4,4,4,4,3 32,64,8,4,8,4,4,2; do
    XCONV_GEMM_TILES=$tiles planned "split-K tiles $tiles" \
        "split-K: ${tiles##*,} K slices" -- --shape "${tails[0]}" \
        --variant implicit_precomp
    XCONV_GEMM_TILES=$tiles XCONV_GEMM_CHUNK=2 \
        memcheck "split-K tiles $tiles" $((${#split_shapes[@]} * 4)) --data-races -- \
        "${split_args[@]}" --variant "$gemm"
done

echo "cli oclgrind kernels: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
