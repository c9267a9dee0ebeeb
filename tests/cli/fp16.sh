#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reduced storage through the CLI on PoCL's CPU device: every variant with fp16 and bf16 kernels
# validated on the small suite in both types (gemm_1x1, direct_depthwise, the FFT and Winograd
# variants where they apply; the others not applicable with the reason, never run as fp32), the
# records' dtype, math and threshold fields, the refusals (a math mode a variant lacks, tensor cores this device lacks, a math mode its
# dtype cannot feed, an unknown type),
# a forced split-K with fp16, explain's storage line,
# float16 .npy in and out of `run` (the fp16 output is the fp32 output rounded to fp16), and one
# fp16 kernel under Oclgrind's memory checker (skipped without oclgrind or in the sanitizer
# build). Skips (exit 77) when no OpenCL CPU device is installed.
# Usage: fp16.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

half=direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_depthwise,direct_regblock
half=$half,gemm_1x1,implicit_gemm,implicit_precomp,fft,fft_tiled
half=$half,winograd_f23,winograd_f43,winograd_f25

# ---------------------------------------------------------------------------------------------
# The small suite in fp16 and bf16: every variant (auto too), the half ones passing.

for dtype in f16 bf16; do
    "$xconv" validate --suite small --dtype "$dtype" --device pocl --json "$tmp/$dtype.json" \
        >"$tmp/$dtype.txt" 2>&1
    rc=$?
    check "validate --suite small --dtype $dtype exits 0" test "$rc" -eq 0
    check "$dtype: the half variants pass every shape, the rest say why they do not apply" \
        python3 - "$tmp/$dtype.json" "$dtype" "$half" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
dtype, half = sys.argv[2], set(sys.argv[3].split(","))
storage = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}[dtype]
shapes = {r["shape_name"] for r in recs}
assert len(shapes) >= 10, shapes
for r in recs:
    assert r["dtype"] == dtype and r["math"] == "f32", r
    assert r["shape"].endswith(",dtype=" + dtype), r["shape"]
    name = r["variant"]
    if name == "gemm_1x1" and r["outcome"] == "not_applicable":
        assert "needs a 1x1 filter" in r["note"], r["note"]
    elif name == "direct_depthwise" and r["outcome"] == "not_applicable":
        assert "needs one input channel per output channel" in r["note"], r["note"]
    elif name in half and name.startswith(("fft", "winograd")) and \
            r["outcome"] == "not_applicable":
        assert "dtype=" not in r["note"], r["note"]  # a shape the family takes in no type
    elif name in half or name == "auto":
        assert r["outcome"] == "pass", (name, r["shape_name"], r["outcome"], r["note"])
        # The family's threshold plus the output's half-ulp rounding.
        base = r["threshold"] - storage
        assert abs(base - 1e-5) < 1e-12 or (name.startswith(("fft", "winograd")) and base > 0), \
            r["threshold"]
        assert r["max_norm_err"] <= r["threshold"]
    else:
        assert r["outcome"] == "not_applicable", (name, r["shape_name"], r["outcome"])
        assert "dtype=" + dtype in r["note"] or (  # matrix engines: reduced math only
            name in ("implicit_mma", "implicit_xmx") and "math=f32 is strict fp32" in r["note"]), \
            r["note"]
for v in half:
    assert sum(r["variant"] == v for r in recs) == len(shapes), v
assert any(r["variant"] == "gemm_1x1" and r["outcome"] == "pass" for r in recs)
assert any(r["variant"] == "direct_depthwise" and r["outcome"] == "pass" for r in recs)
assert any(r["variant"] == "fft_tiled" and r["outcome"] == "pass" for r in recs)
assert any(r["variant"] == "winograd_f43" and r["outcome"] == "pass" for r in recs)
EOF
done

# GEMM: split-K's partials are fp32 whatever the storage; the reduce rounds their sum into y.
for dtype in f16 bf16; do
    XCONV_GEMM_SPLIT=4 "$xconv" validate --shape n=1,c=512,h=7,w=7,k=64,r=1,dtype=$dtype \
        --variant gemm_1x1,implicit_gemm --device pocl --json "$tmp/split_$dtype.json" \
        >"$tmp/split.txt" 2>&1
    check "a forced split-K with $dtype storage passes" python3 - "$tmp/split_$dtype.json" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert len(recs) == 2 and all(r["outcome"] == "pass" for r in recs), recs
assert all("split-K: 4 K slices" in r["note"] for r in recs), [r["note"] for r in recs]
EOF
done

# fp32 records say so.
"$xconv" validate --shape n=1,c=2,h=6,w=6,k=3,r=3 --variant direct_naive --device pocl \
    --csv "$tmp/f32.csv" >/dev/null 2>&1
check "fp32 records carry dtype f32 and math f32" python3 - "$tmp/f32.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["dtype"] == "f32" and r["math"] == "f32" for r in rows), rows
EOF

# ---------------------------------------------------------------------------------------------
# Refusals

"$xconv" validate --shape n=1,c=2,h=6,w=6,k=3,r=3,math=tf32 --device pocl \
    --variant direct_naive >"$tmp/tf32.txt" 2>&1
rc=$?
check "math=tf32 on a strict-fp32 variant exits 1: nothing asked for could run" test "$rc" -eq 1
check "math=tf32: the reason is given" \
    grep -q "math=tf32: direct_naive does not implement this math mode" "$tmp/tf32.txt"
"$xconv" explain --shape n=1,c=2,h=6,w=6,k=3,r=3,math=tf32 --device pocl \
    --variant implicit_mma >"$tmp/tf32.txt" 2>&1
check "math=tf32 without tensor cores: implicit_mma says what it needs" \
    grep -q "needs NVIDIA tensor cores (compute capability 8.0+)" "$tmp/tf32.txt"
"$xconv" validate --shape n=1,c=2,h=6,w=6,k=3,r=3,math=tf32 --device pocl >"$tmp/tf32.txt" 2>&1
check "math=tf32 without matrix engines: every variant n/a, auto passes (in fp32 math)" \
    bash -c "grep -q 'records: 0 failed' '$tmp/tf32.txt' && \
             test \"\$(grep -c ' pass ' '$tmp/tf32.txt')\" -eq 1 && grep -q '^auto .* pass ' '$tmp/tf32.txt'"
"$xconv" explain --shape n=1,c=2,h=6,w=6,k=3,r=3,dtype=bf16,math=bf16 --device pocl \
    >"$tmp/auto_bf16.txt" 2>&1
check "auto in bf16 math without matrix engines: a rule line in fp32 math, and it says so" \
    grep -q "rules, line .*(in fp32 math: no variant auto picks computes math=bf16 here)" \
    "$tmp/auto_bf16.txt"
"$xconv" validate --shape n=1,c=2,h=6,w=6,k=3,r=3 --math f16 --device pocl >"$tmp/m.txt" 2>&1
rc=$?
check "--math f16 on fp32 storage is a usage error (2)" test "$rc" -eq 2
check "--math f16: says which dtype it needs" grep -q "math=f16 needs dtype=f16" "$tmp/m.txt"
"$xconv" run --shape n=1,c=2,h=6,w=6,k=3,r=3,dtype=f64 --device pocl >"$tmp/d.txt" 2>&1
rc=$?
check "dtype=f64 is a usage error (2)" test "$rc" -eq 2
check "dtype=f64: names the types" grep -q "not a storage type (f32, f16, bf16)" "$tmp/d.txt"
"$xconv" run --shape n=1,c=2,h=6,w=6,k=3,r=3,dtype=f16 --variant im2col_gemm --device pocl \
    >"$tmp/na.txt" 2>&1
rc=$?
check "run of a variant without fp16 kernels fails" test "$rc" -ne 0
check "run: says the variant has no fp16 kernels" grep -q "no dtype=f16 kernels" "$tmp/na.txt"

"$xconv" explain --shape n=1,c=4,h=8,w=8,k=4,r=3,pad=1,dtype=f16 --variant direct_regblock \
    --device pocl >"$tmp/explain.txt" 2>&1
check "explain: the storage line with the threshold" \
    grep -q "storage: x, w and y in f16 (2 bytes an element)" "$tmp/explain.txt"
check "explain: the kernel's define" grep -q -- "-DXC_DTYPE=1" "$tmp/explain.txt"

# ---------------------------------------------------------------------------------------------
# float16 .npy through run

if python3 -c "import numpy" 2>/dev/null; then py=python3; else py=/usr/bin/python3; fi
if "$py" -c "import numpy" 2>/dev/null; then
    "$py" - "$tmp" <<'EOF'
import numpy as np, sys
rng = np.random.default_rng(3)
x = rng.uniform(-1, 1, (2, 4, 9, 9)).astype(np.float16)
w = rng.uniform(-1, 1, (6, 4, 3, 3)).astype(np.float16)
np.save(sys.argv[1] + "/x16.npy", x)
np.save(sys.argv[1] + "/w16.npy", w)
np.save(sys.argv[1] + "/x32.npy", x.astype(np.float32))
np.save(sys.argv[1] + "/w32.npy", w.astype(np.float32))
EOF
    for v in direct_naive direct_regblock; do
        "$xconv" run --input "$tmp/x16.npy" --weights "$tmp/w16.npy" --shape pad=1 \
            --variant $v --device pocl --output "$tmp/y16_$v.npy" >"$tmp/run.txt" 2>&1
        check "run $v on float16 files exits 0" test $? -eq 0
        check "run $v: the problem is dtype=f16" grep -q "pad=1,dtype=f16 -> y" "$tmp/run.txt"
        "$xconv" run --input "$tmp/x32.npy" --weights "$tmp/w32.npy" --shape pad=1 \
            --variant $v --device pocl --output "$tmp/y32_$v.npy" >/dev/null 2>&1
        check "run $v: the float16 output is the float32 output rounded" \
            "$py" - "$tmp/y16_$v.npy" "$tmp/y32_$v.npy" <<'EOF'
import numpy as np, sys
y16, y32 = np.load(sys.argv[1]), np.load(sys.argv[2])
assert y16.dtype == np.float16 and y32.dtype == np.float32 and y16.shape == (2, 6, 9, 9)
assert np.array_equal(y32.astype(np.float16), y16), np.abs(y32 - y16).max()
EOF
    done
    "$xconv" run --input "$tmp/x16.npy" --weights "$tmp/w16.npy" --shape pad=1,dtype=bf16 \
        --device pocl >"$tmp/mix.txt" 2>&1
    check "a float16 file for dtype=bf16 is a usage error (2)" test $? -eq 2
    check "the mismatch is named" grep -q "holds f16 values but the problem's dtype is bf16" \
        "$tmp/mix.txt"
else
    echo "SKIPPED PART: .npy checks need numpy"
fi

# ---------------------------------------------------------------------------------------------
# One fp16 kernel under Oclgrind's memory checker

if ! command -v oclgrind >/dev/null 2>&1; then
    echo "SKIPPED PART: oclgrind not installed"
elif [ -n "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "SKIPPED PART: Oclgrind in the sanitizer build (the plain build runs it)"
else
    oclgrind --max-errors 10 "$xconv" validate --device oclgrind \
        --shape n=2,c=5,h=9,w=7,k=6,r=3,pad=1,dtype=f16 \
        --shape n=1,c=6,h=7,w=5,k=6,r=3,stride=2,groups=6,dtype=f16 \
        --variant direct_naive,direct_regblock >"$tmp/ocl.txt" 2>&1
    rc=$?
    check "oclgrind: validate of fp16 kernels exits 0" test "$rc" -eq 0
    check "oclgrind: 4 records, none failed" grep -q "^4 records: 0 failed" "$tmp/ocl.txt"
    check "oclgrind: no report" \
        bash -c "! grep -qE '^[[:space:]]*Kernel: |OCLGRIND FATAL' '$tmp/ocl.txt'"
    [ "$rc" -eq 0 ] || head -40 "$tmp/ocl.txt" >&2
fi

echo "cli fp16: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
