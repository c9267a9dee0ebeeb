#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# direct_depthwise on PoCL's CPU device: every element against cpu_ref over strides 1 and 2
# (and mixed), 3x3, 5x5, 7x7 and rectangular filters, padding, dilation, odd, even, one-column,
# small and large planes, channel multipliers (K/groups > 1), with a fused bias and activation
# and an unfused pool, in fp32, fp16 and bf16 storage; bitwise the output of direct_naive (the
# same sums in the same order) in each storage type, over odd and even widths; the strip length
# and block columns (two for 16-bit storage, rows as 2-element words where W is even) the
# planner picks; one program for every batch (N at run time) and the same output with N baked;
# the refusal of a layer whose output channels read several input channels; the lead's bench
# command on two cut MobileNet-v2 layers; and two small shapes under Oclgrind's memory checker
# (skipped without oclgrind or in the sanitizer build). Skips (exit 77) without an OpenCL CPU
# device.
# Usage: depthwise.sh PATH/TO/xconv
set -u
xconv=$(realpath "$1")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

# ---------------------------------------------------------------------------------------------
# Shapes

shapes=(
    "n=2,c=8,h=13,w=11,k=8,r=3,pad=1,groups=8"             # stride 1, odd plane
    "n=2,c=8,h=15,w=17,k=8,r=3,stride=2,pad=1,groups=8"    # stride 2
    "n=1,c=4,h=20,w=19,k=4,r=5,pad=2,groups=4"             # 5x5
    "n=1,c=4,h=23,w=21,k=4,r=7,stride=2,pad=3,groups=4"    # 7x7 stride 2
    "n=1,c=3,h=16,w=16,k=3,r=3,pad=2,dil=2,groups=3"       # dilation
    "n=1,c=6,h=12,w=10,k=12,r=3,pad=1,groups=6"            # channel multiplier 2
    "n=3,c=5,h=7,w=7,k=5,r=3,pad=1,groups=5"               # 7x7 planes
    "n=2,c=16,h=3,w=3,k=16,r=3,pad=1,groups=16"            # planes smaller than a strip
    "n=1,c=2,h=60,w=61,k=2,r=3,pad=1,groups=2"             # a tall plane: strips of 8
    "n=1,c=3,h=11,w=14,k=3,r=5,s=3,stride_h=2,stride_w=1,pad_h=1,pad_w=0,groups=3"
    "n=1,c=4,h=9,w=9,k=4,r=3,groups=4"                     # unpadded
    "n=1,c=4,h=12,w=14,k=4,r=3,stride=2,pad=1,groups=4"    # stride 2, even W, odd Q
    "n=1,c=4,h=10,w=12,k=4,r=3,groups=4"                   # unpadded, even W: words from 0
    "n=2,c=4,h=9,w=1,k=4,r=3,s=1,pad_h=1,groups=4"         # one column
)
# With an epilogue (fp32 storage only, as every variant so far): the bias and relu6 fused, the
# pool its own step.
epilogue=n=2,c=4,h=10,w=10,k=4,r=3,pad=1,groups=4,bias=1,act=relu6,pool=2
shape_args=()
for s in "${shapes[@]}"; do shape_args+=(--shape "$s"); done

# ---------------------------------------------------------------------------------------------
# Every element against cpu_ref, in each storage type

for dtype in f32 f16 bf16; do
    extra=() nshapes=${#shapes[@]}
    if [ "$dtype" = f32 ]; then
        extra=(--shape "$epilogue") nshapes=$((nshapes + 1))
    fi
    "$xconv" validate --device pocl --variant direct_depthwise --dtype "$dtype" \
        "${shape_args[@]}" "${extra[@]}" --json "$tmp/$dtype.json" >"$tmp/$dtype.txt" 2>&1
    rc=$?
    check "$dtype: validate exits 0 (rc $rc)" test "$rc" -eq 0
    check "$dtype: every shape passes within its threshold" \
        python3 - "$tmp/$dtype.json" "$dtype" "$nshapes" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
dtype, n = sys.argv[2], int(sys.argv[3])
assert len(recs) == n, len(recs)
for r in recs:
    assert r["variant"] == "direct_depthwise" and r["dtype"] == dtype, r
    assert r["outcome"] == "pass", (r["shape"], r["outcome"], r["note"])
    assert 0 <= r["max_norm_err"] <= r["threshold"], (r["shape"], r["max_norm_err"])
EOF
    [ "$rc" -eq 0 ] || tail -20 "$tmp/$dtype.txt" >&2
done

# The same sums in the same order as direct_naive's: the same bytes in every storage type, over
# odd and even widths (16-bit rows loaded as scalars and as 2-element words), strides 1 and 2,
# dilation and a channel multiplier.
bitwise=("$epilogue")
for i in 0 1 3 4 5 11 12; do
    for dtype in f32 f16 bf16; do bitwise+=("${shapes[$i]},dtype=$dtype"); done
done
for s in "${bitwise[@]}"; do
    rm -f "$tmp"/direct_*.npy
    for v in direct_depthwise direct_naive; do
        "$xconv" run --device pocl --seed 5 --variant "$v" --shape "$s" \
            --output "$tmp/$v.npy" >"$tmp/run.txt" 2>&1 || cat "$tmp/run.txt" >&2
    done
    check "$s: bitwise direct_naive's output" \
        cmp -s "$tmp/direct_depthwise.npy" "$tmp/direct_naive.npy"
done

# ---------------------------------------------------------------------------------------------
# The plan: strip length, summary, batch at run time

# strips SHAPE TARGET: the strip length explain reports for direct_depthwise on a profile.
strips() {
    "$xconv" explain --target "$2" --variant direct_depthwise --shape "$1" 2>&1 |
        sed -n 's/.*per strip of \([0-9]*\) outputs.*/\1/p'
}
b1=n=32,c=32,h=112,w=112,k=32,r=3,pad=1,groups=32
check "MobileNet-v2's b1_dw on the H100's profile: strips of 8 (got '$(strips $b1 sm_90)')" \
    test "$(strips $b1 sm_90)" = 8
small=n=1,c=8,h=7,w=7,k=8,r=3,pad=1,groups=8
check "a tiny layer fills the device with strips of 1 (got '$(strips $small sm_90)')" \
    test "$(strips $small sm_90)" = 1
b15=n=32,c=960,h=7,w=7,k=960,r=3,pad=1,groups=960
check "7x7 planes with work enough: strips of 7, whole columns (got '$(strips $b15 sm_90)')" \
    test "$(strips $b15 sm_90)" = 7
# columns SHAPE TARGET: the columns a work-item's block spans, and how its rows load.
columns() {
    "$xconv" explain --target "$2" --variant direct_depthwise --shape "$1" 2>&1 |
        sed -n -e 's/.*outputs down \([0-9]*\) column.*loaded once a strip\(.*\), the .*/\1\2/p'
}
check "b1_dw in fp32: one column a work-item (got '$(columns $b1 sm_90)')" \
    test "$(columns $b1 sm_90)" = 1
for dtype in f16 bf16; do
    got=$(columns "$b1,dtype=$dtype" sm_90)
    check "b1_dw in $dtype: two columns, rows as 2-element words (got '$got')" \
        test "$got" = "2 as aligned 2-element words"
done
got=$(columns "$b15,dtype=f16" sm_90)
check "b15_dw in f16 (W = 7, odd): two columns, rows loaded by element (got '$got')" \
    test "$got" = 2
"$xconv" explain --device pocl --variant direct_depthwise --shape "$b1" >"$tmp/explain.txt" 2>&1
check "explain: the step, its strip and column defines" \
    grep -q "XD_DW_ROWS=.* -DXD_DW_COLS=1 -DXD_DW_PAIRS=0" "$tmp/explain.txt"
check "explain says N is a run-time argument" grep -q "N: a run-time argument" "$tmp/explain.txt"

# One program for every batch; N baked or not, the same bytes.
XCONV_CACHE_DIR="$tmp/cache" "$xconv" precompile --device pocl --variant direct_depthwise \
    --shape "n=1,${shapes[0]#n=2,}" --shape "n=3,${shapes[0]#n=2,}" >"$tmp/pre.txt" 2>&1
check "precompile: one program for the batches 1 and 3" \
    grep -q "^1 programs built or loaded for 2 shape" "$tmp/pre.txt"
for bake in on off; do
    "$xconv" run --device pocl --seed 3 --variant direct_depthwise --shape "${shapes[1]}" \
        --bake-batch "$bake" --output "$tmp/bake_$bake.npy" >"$tmp/run.txt" 2>&1
    check "runs with --bake-batch $bake" test $? -eq 0
done
check "the same output with N baked and at run time" cmp -s "$tmp/bake_on.npy" "$tmp/bake_off.npy"

# A layer whose output channels read several input channels is refused with the reason.
"$xconv" validate --device pocl --variant direct_depthwise --all \
    --shape n=1,c=8,h=8,w=8,k=8,r=3,pad=1,groups=4 >"$tmp/na.txt" 2>&1
check "grouped (not depthwise) layers: n/a, the reason says why" grep -q \
    "needs one input channel per output channel (depthwise: C/groups = 1); each reads 2 here" \
    "$tmp/na.txt"
"$xconv" validate --device pocl --variant direct_depthwise --all \
    --shape n=1,c=2,h=16,w=16,k=2,r=13,pad=6,groups=2 >"$tmp/na.txt" 2>&1
check "a 13x13 filter: n/a, the reason says why" \
    grep -q "the 13x13 filter has 169 taps; direct_depthwise needs at most 121" "$tmp/na.txt"

# ---------------------------------------------------------------------------------------------
# The lead's bench command, on two MobileNet-v2 layers cut to a CPU's size

grep -E "name=mnv2:(b1_dw|b2_dw_s2) " "$root/bench/shapes/mobilenet_v2.shapes" |
    sed -e 's/n=32,/n=1,/' -e 's/h=112,w=112/h=28,w=28/' >"$tmp/mnv2_cut.shapes"
for dtype in f32 f16; do
    "$xconv" bench --shapes "$tmp/mnv2_cut.shapes" --dtype "$dtype" --repeat 3 --warmup 1 \
        --variant direct_depthwise,direct_tiled_db,direct_naive,auto --device pocl \
        --json "$tmp/bench_$dtype.json" >"$tmp/bench.txt" 2>&1
    rc=$?
    check "bench $dtype of the four exits 0 (rc $rc)" test "$rc" -eq 0
    check "bench $dtype: 2 shapes x 4 variants timed and passing" \
        python3 - "$tmp/bench_$dtype.json" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert len(recs) == 8, len(recs)
for r in recs:
    assert r["outcome"] == "pass" and r["median_ms"] > 0, (r["variant"], r["outcome"])
EOF
    [ "$rc" -eq 0 ] || tail -20 "$tmp/bench.txt" >&2
done

# ---------------------------------------------------------------------------------------------
# Oclgrind's memory checker on two small shapes

if ! command -v oclgrind >/dev/null 2>&1; then
    echo "note: oclgrind not installed: its part skipped"
elif [ -n "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "note: sanitizer build: Oclgrind's part runs in the plain build"
else
    oclgrind --max-errors 10 "$xconv" validate --device oclgrind --variant direct_depthwise \
        --shape "${shapes[1]}" --shape "${shapes[5]},dtype=f16" >"$tmp/ocl.txt" 2>&1
    check "oclgrind: validate exits 0" test $? -eq 0
    check "oclgrind: 2 records, none failed" grep -qE "^2 records: 0 failed" "$tmp/ocl.txt"
    check "oclgrind: no report" \
        bash -c "! grep -qE '^[[:space:]]*Kernel: |OCLGRIND FATAL' '$tmp/ocl.txt'"
fi

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
