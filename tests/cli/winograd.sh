#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Winograd family on PoCL's CPU device beyond the small suite: validate --random, seeded
# random 3x3 and 5x5 stride-1 shapes (every padding up to the filter's size, grouped,
# depthwise, odd sizes), the non-fused variants' passes forced to 1 and 2 images (a last partial
# pass), the fused kernel's work-group path (what GPUs get) and its vector path with blocks that
# do not divide the channels, the same bits from every path, what explain shows (steps,
# workspace, error block) and the refusals of the shapes Winograd does not apply to. Skips
# (exit 77) when no OpenCL CPU device is installed.
# Usage: winograd.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device
nonfused=winograd_f23,winograd_f43,winograd_f25
fused=winograd_f23_fused,winograd_f43_fused,winograd_f25_fused

# validated LABEL RECORDS [ENV=VALUE ...] -- VALIDATE ARGS...: validate passes with RECORDS
# records, none failed (n/a records count as records).
validated() {
    local label=$1 records=$2
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$xconv" validate --device pocl "$@" >"$tmp/out.txt" 2>&1
    local rc=$?
    check "$label: validate exits 0" test "$rc" -eq 0
    check "$label: $records records, none failed" \
        grep -qE "^$records records?: 0 failed or errored" "$tmp/out.txt"
    if [ "$rc" -ne 0 ]; then grep -E "FAIL|error" "$tmp/out.txt" | head -5 >&2; fi
}

# Random Winograd shapes: r 3 or 5, padding 0..r per side, plain, grouped and depthwise.
python3 - "$tmp/random.txt" <<'PY'
import random, sys
g = random.Random(19)
with open(sys.argv[1], "w") as f:
    for i in range(12):
        r = 5 if i % 3 == 2 else 3
        groups, cg, kg = [(1, g.randint(1, 12), g.randint(1, 12)),
                          (g.randint(2, 4), g.randint(1, 4), g.randint(1, 4)),
                          (g.randint(2, 12), 1, g.randint(1, 2)),
                          (1, g.randint(1, 6), g.randint(1, 20))][i % 4]
        ph, pw = g.randint(0, r), g.randint(0, r)
        h, w = g.randint(max(1, r - 2 * ph), 30), g.randint(max(1, r - 2 * pw), 30)
        f.write("name=wr%d n=%d,c=%d,h=%d,w=%d,k=%d,r=%d,pad_h=%d,pad_w=%d,groups=%d\n" %
                (i, g.randint(1, 3), cg * groups, h, w, kg * groups, r, ph, pw, groups))
PY
validated "12 random 3x3/5x5 shapes" 72 -- --shapes "$tmp/random.txt" \
    --variant "$nonfused,$fused" --json "$tmp/random.json"
check "random shapes: each 3x3 shape passed on 4 variants, each 5x5 on 2" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["records"]
assert sum(x["outcome"] == "pass" for x in r) == 8 * 4 + 4 * 2' "$tmp/random.json"

# validate --random: the harness's own random shapes (seed 8: 3 of the first 48 are 3x3 and 2 are
# 5x5 stride-1 shapes; the rest are not applicable and cost nothing).
validated "validate --random 48 --seed 8" 288 -- --random 48 --seed 8 \
    --variant "$nonfused,$fused" --json "$tmp/rand.json"
check "--random: every 3x3 variant passed on 3 shapes, every 5x5 one on 2" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["records"]
for v in sys.argv[2].split(","):
    passed = sum(x["variant"] == v and x["outcome"] == "pass" for x in r)
    assert passed == (2 if "f25" in v else 3), (v, passed)' "$tmp/rand.json" "$nonfused,$fused"

# Non-fused passes of 1 and 2 images: 5 images in 5 or 3 passes, the last one partial.
for chunk in 1 2; do
    validated "passes of $chunk image(s)" 3 XCONV_WINO_CHUNK=$chunk -- \
        --shape n=5,c=6,h=13,w=11,k=10,r=3,pad=1 --variant "$nonfused"
    validated "5x5 passes of $chunk image(s)" 1 XCONV_WINO_CHUNK=$chunk -- \
        --shape n=3,c=4,h=9,w=10,k=5,r=5,pad=2,groups=1 --variant winograd_f25
done
XCONV_WINO_CHUNK=2 "$xconv" explain --shape n=5,c=6,h=13,w=11,k=10,r=3,pad=1 \
    --variant winograd_f43 --device pocl >"$tmp/explain.txt" 2>&1
check "explain: 2 images a pass in 3 passes" grep -q "2 images a pass in 3 passes" \
    "$tmp/explain.txt"
check "explain: 1 + 3 x 3 steps" test "$(grep -c "^  step " "$tmp/explain.txt")" -eq 10
for region in "0: transformed filters" "1: transformed input" "2: element-wise products"; do
    check "explain: workspace region $region" grep -q "region $region" "$tmp/explain.txt"
done
check "explain: multiplies per output against direct" \
    grep -q "2.25 multiplies per output and input channel against 9 for direct" \
    "$tmp/explain.txt"
check "explain: the 4x4 error block and its threshold" \
    grep -q "error block: 4x4 outputs .*threshold 3e-05 (winograd_f43)" "$tmp/explain.txt"
"$xconv" explain --shape n=1,c=3,h=9,w=9,k=2,r=5,pad=2 --variant winograd_f25_fused \
    --device pocl >"$tmp/explain.txt" 2>&1
check "explain: the fused F(2x2,5x5) plan's steps" \
    test "$(grep -c "^  step " "$tmp/explain.txt")" -eq 2
check "explain: the fused plan's workspace" \
    grep -q "region 0: transformed filters" "$tmp/explain.txt"
check "explain: the fused plan's 2x2 error block" \
    grep -q "error block: 2x2 outputs .*threshold 2e-05 (winograd_f25)" "$tmp/explain.txt"

# The fused kernel's work-group path (GPUs') forced on the CPU: float4 and scalar fragments.
validated "fused work-group path 16,8,4,4,2" 48 XCONV_WINO_FUSED=16,8,4,4,2 -- \
    --suite small --variant "$fused"
validated "fused work-group path 32,16,8,4,4 (float4)" 48 XCONV_WINO_FUSED=32,16,8,4,4 -- \
    --suite small --variant "$fused"
# The vector path with channel blocks that do not divide K/groups (the last block moves back)
# and chunks that do not divide C/groups, 8 and 16 lanes.
validated "vector path 16 lanes, 12 channels in blocks of 4, chunks of 3" 2 \
    XCONV_WINO_FUSED=16,12,3,1,4,16 -- --shape n=4,c=8,h=32,w=32,k=16,r=3,pad=1 \
    --variant winograd_f23_fused,winograd_f43_fused
validated "vector path 8 lanes, 4 of 7 channels, chunks of 2" 2 \
    XCONV_WINO_FUSED=8,4,2,1,2,8 -- --shape n=3,c=5,h=17,w=23,k=7,r=3,pad=1 \
    --variant winograd_f23_fused,winograd_f43_fused
validated "vector path 8 lanes, 5x5, 3 channels of 16, chunks of 4" 1 \
    XCONV_WINO_FUSED=8,3,4,1,3,8 -- --shape n=8,c=6,h=22,w=22,k=16,r=5 \
    --variant winograd_f25_fused
validated "vector path 16 lanes, depthwise" 2 XCONV_WINO_FUSED=16,1,1,1,1,16 -- \
    --shape n=4,c=32,h=28,w=28,k=32,r=3,pad=1,groups=32 \
    --variant winograd_f23_fused,winograd_f43_fused

# Every path gives the same bits: the same products summed in the same order.
shape=n=3,c=6,h=15,w=14,k=8,r=3,pad_h=2,pad_w=1,groups=2
same_bits() {
    local label=$1 variant=$2 envs=$3
    env $envs "$xconv" run --shape "$shape" --variant "$variant" --device pocl \
        --output "$tmp/$label.npy" >/dev/null 2>&1
    check "$label: the same bits as winograd_f43" cmp -s "$tmp/nonfused.npy" "$tmp/$label.npy"
}
"$xconv" run --shape "$shape" --variant winograd_f43 --device pocl --output "$tmp/nonfused.npy" \
    >/dev/null 2>&1
check "winograd_f43 wrote its output" test -s "$tmp/nonfused.npy"
same_bits fused winograd_f43_fused ""
same_bits workgroup winograd_f43_fused XCONV_WINO_FUSED=8,4,4,2,2
same_bits lanes8 winograd_f43_fused XCONV_WINO_FUSED=8,4,2,1,4,8
same_bits chunked winograd_f43 XCONV_WINO_CHUNK=1

# Refusals name their reason.
"$xconv" validate --device pocl --shape n=2,c=4,h=9,w=9,k=4,r=3,stride=2 \
    --variant winograd_f23 >"$tmp/na.txt" 2>&1
check "stride 2 is not applicable, with the reason" grep -q "Winograd needs stride 1" "$tmp/na.txt"
"$xconv" explain --device pocl --shape n=1,c=2,h=9,w=9,k=2,r=5,pad=2 \
    --variant winograd_f23,winograd_f43_fused >"$tmp/na.txt" 2>&1
check "a 5x5 filter is not applicable to F(2x2,3x3) and F(4x4,3x3), with the reason" \
    test "$(grep -c "needs a 3x3 filter, not 5x5" "$tmp/na.txt")" -eq 2
"$xconv" explain --device pocl --shape n=1,c=2,h=9,w=9,k=2,r=3,dil=2 \
    --variant winograd_f23 >"$tmp/na.txt" 2>&1
check "dilation 2 is not applicable, with the reason" \
    grep -q "Winograd needs dilation 1 (this problem has dilation 2x2)" "$tmp/na.txt"
"$xconv" explain --device pocl --shape n=1,c=2,h=9,w=9,k=2,r=3 \
    --variant winograd_f25 >"$tmp/na.txt" 2>&1
check "a 3x3 filter is not applicable to F(2x2,5x5), with the reason" \
    grep -q "needs a 5x5 filter, not 3x3" "$tmp/na.txt"
XCONV_WINO_FUSED=16,8,4 "$xconv" validate --device pocl --shape n=2,c=4,h=9,w=9,k=4,r=3 \
    --variant winograd_f23_fused >"$tmp/bad.txt" 2>&1
check "a malformed forced block is named" grep -q "TB,KB,CC,WT,WK" "$tmp/bad.txt"

echo "cli winograd: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
