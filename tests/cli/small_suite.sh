#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every variant on the small suite on PoCL's CPU device, the .npy round trip through `run`, and
# the results files. Skips (exit 77) when no OpenCL CPU device is installed.
# Usage: small_suite.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

# Every variant that runs on OpenCL, every small shape, against the float64 reference.
"$xconv" validate --suite small --device pocl --json "$tmp/v.json" --csv "$tmp/v.csv" \
    >"$tmp/validate.txt" 2>&1
rc=$?
cat "$tmp/validate.txt"
check "validate --suite small exits 0" test "$rc" -eq 0
check "validate wrote JSON that parses" python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["records"]; assert all(r["outcome"] in ("pass","not_applicable") for r in d["records"])' "$tmp/v.json"
check "validate wrote CSV" grep -q "direct_naive" "$tmp/v.csv"
check "no failures in the table" bash -c "! grep -qE ' (FAIL|error) ' '$tmp/validate.txt'"
# The FFT variants apply to the 10 small shapes of stride 1 and dilation 1 and a filter larger
# than 1x1 (depthwise3x3's 9-product outputs among them) and pass over their error blocks;
# pw1x1 is refused as a pointwise product.
check "fft and fft_tiled pass the 10 stride-1 shapes, n/a on the 6 others" python3 -c '
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
for v in ("fft", "fft_tiled"):
    mine = [r for r in recs if r["variant"] == v]
    passed = [r for r in mine if r["outcome"] == "pass"]
    assert len(mine) == 16 and len(passed) == 10, (v, len(mine), len(passed))
    assert all(r["error_block_h"] >= 1 and r["max_block_err"] <= r["threshold"] for r in passed)
    assert {r["shape_name"] for r in passed} >= {"depthwise3x3", "big_filter"}
    pw = [r for r in mine if r["shape_name"] == "pw1x1"][0]
    assert pw["outcome"] == "not_applicable" and "1x1 filter" in pw["note"], pw
' "$tmp/v.json"

# validate_forced VARIANT LABEL PLAN...: every small shape passes with each tiling forced.
validate_forced() {
    local variant=$1 label=$2 plan
    shift 2
    for plan in "$@"; do
        XCONV_DIRECT_PLAN=$variant:$plan "$xconv" validate --suite small --device pocl \
            --variant "$variant" >"$tmp/forced.txt" 2>&1
        rc=$?
        check "$label $plan: validate exits 0" test "$rc" -eq 0
        check "$label $plan: every small shape passes" \
            grep -q "16 records: 0 failed or errored" "$tmp/forced.txt"
    done
}

# direct_regblock's flat mode (what GPUs get: 1-D work-groups, all filters staged once) forced
# on the CPU device: float4 and scalar stores, one channel per k-block, two blocks per item, and
# rows of 8 and 6 stored as two float4 (plain3x3, many_channels) and three float2 (ece408_mini2).
# Rows of 4 (ece408_mini1) and 6 (ece408_mini2) also read their input rows as float2 pairs.
validate_forced direct_regblock "flat regblock" \
    32,1,4,1,0,1,1,0,2 32,1,3,1,1,1,1,0,1 16,1,8,1,1,1,1,0,2 32,1,6,1,1,1,1,0,1

# direct_const's vector columns (what CPUs get where the planner finds them worth it; its own
# plans, with several channels per item, ran in the validate above) forced on every small shape:
# float8 over two rows, float4 with stride-2 pair loads, float16 in work-groups two items wide
# (stride 2 then loads lane by lane). One channel per item, as depthwise3x3 allows no more.
validate_forced direct_const "vector direct_const" \
    1,4,8,2,1,1,0,0,1,8 1,2,4,1,1,1,0,0,1,4 2,2,16,1,1,1,0,0,1,16

# Vector direct_const with 3 channels per item where the group's channel count is not a multiple
# of 3 (groups4: 8 per group; odd_sizes: 7; asym_stride_pad: 10): the last k-block of each group
# moves back to end at the group's last channel and stores only the channels it adds.
for shape in n=4,c=16,h=16,w=16,k=32,r=3,pad=1,groups=4 n=3,c=5,h=17,w=23,k=7,r=3,pad=1 \
    n=2,c=6,h=21,w=26,k=10,r=3,s=4,stride_h=2,stride_w=3,pad_h=1,pad_w=2; do
    XCONV_DIRECT_PLAN=direct_const:1,2,8,1,3,1,0,0,1,8 "$xconv" validate --shape "$shape" \
        --device pocl --variant direct_const >"$tmp/forced.txt" 2>&1
    check "vector direct_const, 3 channels per item, $shape: validate exits 0" test $? -eq 0
    check "vector direct_const, 3 channels per item, $shape: passes" \
        grep -q "1 record: 0 failed or errored" "$tmp/forced.txt"
done

# The GEMM family with split-K and a small-output tile forced (the planner splits nothing on a
# 2-core CPU): every small shape, and shapes whose K = C*R*S the 3 slices do not divide evenly
# (K = 45: 3 steps of 16, the last partial; K = 100: 7 steps, slices of 3, 3 and 1; K = 20: 2
# steps, normalised to 2 slices; a 1x1 with K = 40), through every GEMM variant.
gemm=im2col_gemm,implicit_gemm,implicit_precomp,gemm_1x1
XCONV_GEMM_TILES=64,32,16,4,4,4,4,3 "$xconv" validate --suite small --device pocl \
    --shape n=3,c=5,h=17,w=23,k=7,r=3,pad=1 --shape n=2,c=4,h=9,w=9,k=70,r=5,pad=2 \
    --shape n=2,c=20,h=6,w=5,k=9,r=1 --shape n=3,c=40,h=7,w=7,k=66,r=1 \
    --variant "$gemm" >"$tmp/split.txt" 2>&1
rc=$?
check "split-K forced on the GEMM family: validate exits 0" test "$rc" -eq 0
check "split-K forced: every shape passes" grep -q "80 records: 0 failed or errored" \
    "$tmp/split.txt"
XCONV_GEMM_TILES=64,32,16,4,4,4,4,3 "$xconv" explain --shape n=2,c=4,h=9,w=9,k=70,r=5,pad=2 \
    --device pocl --variant implicit_gemm >"$tmp/split_plan.txt" 2>&1
check "split-K forced: explain shows 3 slices and the reduce" \
    grep -qE "split-K: 3 K slices of 3 steps" "$tmp/split_plan.txt"
check "split-K forced: the reduce step is planned" grep -q "splitk_reduce" "$tmp/split_plan.txt"

# The non-fused Winograd variants with their batched GEMM split forced (3 slices) on every small
# shape they apply to, and in passes of 2 images over a shape whose 40 channels make 3 k steps
# of 16 (the partials region reused by each pass, the last pass partial).
wino=winograd_f23,winograd_f43,winograd_f25
XCONV_GEMM_SPLIT=3 "$xconv" validate --suite small --device pocl --variant "$wino" \
    >"$tmp/wino_split.txt" 2>&1
check "split-K forced on Winograd: validate exits 0" test $? -eq 0
check "split-K forced on Winograd: nothing fails" \
    grep -q "^[0-9]* records: 0 failed or errored" "$tmp/wino_split.txt"
XCONV_GEMM_SPLIT=3 XCONV_WINO_CHUNK=2 "$xconv" validate --shape n=5,c=40,h=9,w=11,k=10,r=3,pad=1 \
    --device pocl --variant "$wino" >"$tmp/wino_split.txt" 2>&1
check "split-K forced on Winograd in passes: 2 pass" \
    test "$(grep -cE "^[a-z0-9_+]+ .* pass " "$tmp/wino_split.txt")" -eq 2
XCONV_GEMM_SPLIT=3 "$xconv" explain --shape n=5,c=40,h=9,w=11,k=10,r=3,pad=1 --device pocl \
    --variant winograd_f43 >"$tmp/wino_plan.txt" 2>&1
check "split-K forced on Winograd: explain shows the slices" \
    grep -q "split-K: 3 K slices of 1 steps" "$tmp/wino_plan.txt"
check "split-K forced on Winograd: the reduce and the partials' region are planned" \
    grep -q "region 3: split-K partials" "$tmp/wino_plan.txt"

# bench --gemm takes the split too: our SGEMM's record passes and its note names the slices.
XCONV_GEMM_SPLIT=3 "$xconv" bench --gemm 100,200,301 --device pocl --repeat 1 \
    --json "$tmp/gemm_split.json" >"$tmp/gemm_split.txt" 2>&1
check "split-K forced on bench --gemm: exits 0" test $? -eq 0
check "split-K forced on bench --gemm: the record names 3 K slices and passes" python3 -c "
import json, sys
r = [r for r in json.load(open(sys.argv[1]))['records'] if r['variant'] == 'sgemm_ours'][0]
sys.exit(not (r['outcome'] == 'pass' and 'split-K: 3 K slices' in r['note']))" \
    "$tmp/gemm_split.json"

# The FFT family's planning options: forced tiles (not square, partial at the edges) in passes
# of three images, and passes of one image, every small shape passing.
for forced in "XCONV_FFT_TILE=12x16 XCONV_FFT_CHUNK=3 fft_tiled" "XCONV_FFT_CHUNK=1 fft"; do
    # shellcheck disable=SC2086
    env ${forced% *} "$xconv" validate --suite small --device pocl --variant "${forced##* }" \
        >"$tmp/forced.txt" 2>&1
    check "$forced: validate exits 0" test $? -eq 0
    check "$forced: the 10 stride-1 shapes pass" \
        test "$(grep -cE "^[a-z0-9_+]+ .* pass " "$tmp/forced.txt")" -eq 10
done

# bench: timings present, positive, checked.
"$xconv" bench --shape n=2,c=4,h=16,w=16,k=8,r=3,pad=1 --variant direct_naive,clblast_gemm \
    --device pocl --repeat 3 --json "$tmp/b.json" >"$tmp/bench.txt" 2>&1
check "bench exits 0" test $? -eq 0
check "bench JSON has positive timings" python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); r=d["records"]; assert len(r)==2 and all(x["median_ms"]>0 and x["gflops"]>0 and x["pass"] for x in r); assert d["commit"] and d["date"]' "$tmp/b.json"

# run: .npy in, .npy out, same result as the float64 reference within the threshold.
"$xconv" run --shape n=2,c=3,h=9,w=11,k=4,r=3,pad=1 --variant cpu_ref --output "$tmp/ref.npy" >/dev/null
check "cpu_ref wrote ref.npy" test -s "$tmp/ref.npy"
"$xconv" run --shape n=2,c=3,h=9,w=11,k=4,r=3,pad=1 --variant direct_naive --device pocl \
    --output "$tmp/y.npy" >/dev/null
check "direct_naive wrote y.npy" test -s "$tmp/y.npy"
check "direct_naive matches cpu_ref" python3 - "$tmp/ref.npy" "$tmp/y.npy" <<'PY'
import struct, sys
def load(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode()
    assert "'<f4'" in header and "(2, 4, 9, 11)" in header, header
    return struct.unpack("<%df" % (len(data[10 + hlen:]) // 4), data[10 + hlen:])
a, b = load(sys.argv[1]), load(sys.argv[2])
assert len(a) == len(b) == 2 * 4 * 9 * 11
assert max(abs(x - y) for x, y in zip(a, b)) < 1e-4
PY
# run --variant auto: the library's choice on a CPU is direct_const, and it matches cpu_ref.
"$xconv" run --shape n=2,c=3,h=9,w=11,k=4,r=3,pad=1 --variant auto --device pocl \
    --output "$tmp/auto.npy" >"$tmp/auto.txt" 2>&1
check "run --variant auto exits 0" test $? -eq 0
check "auto ran direct_const on the CPU" grep -q "^direct_const on" "$tmp/auto.txt"
check "auto wrote a file the size of cpu_ref's" test "$(wc -c <"$tmp/auto.npy")" -eq \
    "$(wc -c <"$tmp/ref.npy")"

# The files written by run feed back in: shapes come from them, and must agree with --shape.
python3 - "$tmp" <<'PY'
import struct, sys, random
def save(path, shape):
    n = 1
    for d in shape: n *= d
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ", ".join(map(str, shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % n, *[random.uniform(-1, 1) for _ in range(n)]))
save(sys.argv[1] + "/x.npy", (1, 4, 10, 10))
save(sys.argv[1] + "/w.npy", (6, 2, 3, 3))
PY
"$xconv" run --input "$tmp/x.npy" --weights "$tmp/w.npy" --shape groups=2,pad=1 --device pocl \
    --output "$tmp/out.npy" >"$tmp/run.txt" 2>&1
check "run with .npy inputs and groups=2" grep -q "y\[1,6,10,10\]" "$tmp/run.txt"
"$xconv" run --input "$tmp/x.npy" --weights "$tmp/w.npy" --shape c=5 --device pocl >"$tmp/err" 2>&1
check "a --shape key that disagrees with the file is refused" grep -q "c=5" "$tmp/err"

echo "cli small suite: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
