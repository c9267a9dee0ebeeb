#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The epilogue through the CLI on PoCL's CPU device: the epilogue suite (each part alone and
# together) with every variant fused and unfused side by side, random shapes with random
# epilogues, Winograd's and the FFT crop's fused stores against the unfused path bit for bit,
# `run --bias` (the pooled output, its shape, a fused against an unfused run and the
# host reference), what explain says, and the refusals naming the key or file. Skips (exit 77)
# when no OpenCL CPU device is installed.
# Usage: epilogue.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

# The suite, fused and unfused rows side by side, on variants that fuse everything (direct_naive),
# part (direct_tiled, im2col_gemm, gemm_1x1: the pool where blocks hold windows, or never),
# the pool in a blocked or GEMM store (direct_regblock, implicit_precomp), and nothing (CLBlast).
"$xconv" validate --suite epilogue --device pocl --epilogue both --json "$tmp/v.json" \
    --variant direct_naive,direct_tiled,direct_regblock,im2col_gemm,implicit_precomp,gemm_1x1 \
    --variant clblast_convgemm >"$tmp/suite.txt" 2>&1
rc=$?
check "validate --suite epilogue --epilogue both exits 0" test "$rc" -eq 0
check "the epilogue suite: every record passes or does not apply" python3 - "$tmp/v.json" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = [(r["variant"], r["shape_name"], r["outcome"]) for r in recs
       if r["outcome"] not in ("pass", "not_applicable")]
assert not bad, bad
unfused = {r["variant"] for r in recs if r["variant"].endswith("+unfused")}
# Each of our families has an unfused row beside its fused one; the vendor's rows are unfused.
for v in ("direct_regblock", "implicit_precomp", "im2col_gemm"):
    assert v + "+unfused" in unfused, (v, sorted(unfused))
shapes = {r["shape_name"] for r in recs}
assert len(shapes) >= 13, shapes
EOF
if [ "$rc" -ne 0 ]; then grep -E "FAIL|error" "$tmp/suite.txt" | head -20 >&2; fi

# Random shapes with random epilogues: the composed operation against the float64 reference.
"$xconv" validate --random 8 --random-epilogue --seed 11 --device pocl \
    --variant direct_naive,direct_regblock,im2col_gemm,implicit_gemm,implicit_precomp \
    >"$tmp/random.txt" 2>&1
check "random shapes with epilogues pass" grep -q "records: 0 failed or errored" "$tmp/random.txt"
check "the random shapes have epilogues" grep -q "pool" "$tmp/random.txt"

# Split-K with the epilogue in the reduce step: the suite and random shapes with a forced split,
# fused and unfused side by side, and the fused split's output bit for bit the unfused split's
# (the same sums in the same order; bias, activation and pool rounded alike), chunked im2col too.
XCONV_GEMM_SPLIT=3 "$xconv" validate --suite epilogue --device pocl --epilogue both \
    --variant im2col_gemm,implicit_precomp --json "$tmp/split.json" >"$tmp/split.txt" 2>&1
check "split-K: the epilogue suite passes fused and unfused" python3 - "$tmp/split.json" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = [(r["variant"], r["shape_name"], r["outcome"]) for r in recs if r["outcome"] != "pass"]
assert not bad, bad
assert len(recs) >= 4 * 13, len(recs)
EOF
XCONV_GEMM_SPLIT=2 "$xconv" validate --random 6 --random-epilogue --seed 23 --device pocl \
    --variant implicit_gemm,gemm_1x1 >"$tmp/split_random.txt" 2>&1
check "split-K: random shapes with epilogues pass" \
    grep -q "records: 0 failed or errored" "$tmp/split_random.txt"
pooled="n=2,c=5,h=17,w=23,k=7,r=3,pad=1,bias=1,act=relu6,pool=3,pool_stride=2,pool_pad=1"
XCONV_GEMM_SPLIT=3 "$xconv" explain --shape "$pooled" --variant implicit_gemm --device pocl \
    >"$tmp/split_explain.txt" 2>&1
check "split-K: explain says the reduce applies the epilogue, all of it fused in its store" \
    grep -q "applies the epilogue.*epilogue fused: .* in the split-K reduce's store" \
    "$tmp/split_explain.txt"
for v in im2col_gemm implicit_gemm; do
    for e in fused unfused; do
        XCONV_GEMM_SPLIT=3 XCONV_GEMM_CHUNK=1 "$xconv" run --shape "$pooled" --variant "$v" \
            --device pocl --epilogue "$e" --output "$tmp/split_$e.npy" >/dev/null 2>&1
    done
    check "split-K: $v's fused reduce gives the unfused split's bits" \
        cmp "$tmp/split_fused.npy" "$tmp/split_unfused.npy"
done

# Winograd's output transforms apply the epilogue: the suite fused and unfused on a non-fused
# and a fused variant; a 2x2/2 pool fused (tiles hold whole windows) gives the unfused path's
# bits, and a 4x4 pool on 2x2 tiles stays a step, explain saying why.
"$xconv" validate --suite epilogue --device pocl --epilogue both \
    --variant winograd_f43,winograd_f23_fused --json "$tmp/wino.json" >"$tmp/wino.txt" 2>&1
check "Winograd: the epilogue suite passes fused and unfused" python3 - "$tmp/wino.json" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = [(r["variant"], r["shape_name"], r["outcome"]) for r in recs
       if r["outcome"] not in ("pass", "not_applicable")]
assert not bad, bad
assert sum(r["outcome"] == "pass" for r in recs) >= 20, len(recs)
EOF
wpool="n=2,c=5,h=17,w=23,k=7,r=3,pad=1,bias=1,act=relu6,pool=2"
for v in winograd_f43 winograd_f23_fused; do
    for e in fused unfused; do
        "$xconv" run --shape "$wpool" --variant "$v" --device pocl --epilogue "$e" \
            --output "$tmp/wino_$e.npy" >/dev/null 2>&1
    done
    check "Winograd: $v's fused store gives the unfused path's bits" \
        cmp "$tmp/wino_fused.npy" "$tmp/wino_unfused.npy"
done
"$xconv" explain --shape "n=2,c=6,h=13,w=15,k=5,r=3,pad=1,bias=1,act=relu,pool=4" \
    --variant winograd_f23 --device pocl >"$tmp/wino_explain.txt" 2>&1
check "Winograd: a 4x4 pool on 2x2 tiles is a step, and explain says why" \
    grep -q "partly fused: bias + relu in the store.*Winograd tile (2x2 outputs)" \
    "$tmp/wino_explain.txt"

# The FFT family's inverse transform applies the epilogue in its crop: the suite fused and
# unfused on both variants; fused crops give the unfused path's bits: a whole-image frame pools
# any window (overlapping, padded), tiles of whole 2x2 windows pool, and where a pool crosses
# fft_tiled's tiles the pool stays a step (bias + relu6 still fused), explain saying why.
"$xconv" validate --suite epilogue --device pocl --epilogue both --variant fft,fft_tiled \
    --json "$tmp/fft.json" >"$tmp/fft.txt" 2>&1
check "FFT: the epilogue suite passes fused and unfused" python3 - "$tmp/fft.json" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = [(r["variant"], r["shape_name"], r["outcome"]) for r in recs
       if r["outcome"] not in ("pass", "not_applicable")]
assert not bad, bad
for v in ("fft", "fft_tiled", "fft+unfused", "fft_tiled+unfused"):
    assert sum(r["variant"] == v and r["outcome"] == "pass" for r in recs) >= 10, v
EOF
fcases=("fft n=2,c=5,h=17,w=23,k=7,r=5,pad=2,bias=1,act=relu6,pool=3,pool_stride=2,pool_pad=1"
        "fft_tiled $wpool"
        "fft_tiled n=2,c=5,h=17,w=23,k=7,r=5,pad=2,bias=1,act=relu6,pool=3,pool_stride=2")
for c in "${fcases[@]}"; do
    v=${c%% *} shape=${c#* }
    for e in auto unfused; do
        "$xconv" run --shape "$shape" --variant "$v" --device pocl --epilogue "$e" \
            --output "$tmp/fft_$e.npy" >/dev/null 2>&1
    done
    check "FFT: $v's crop gives the unfused path's bits on $shape" \
        cmp "$tmp/fft_auto.npy" "$tmp/fft_unfused.npy"
done
# Random shapes with random epilogues (seed 2: 8 of 40 shapes suit FFT), fused and unfused:
# both pass, with the same worst error at the same index (the same bits give the same errors).
"$xconv" validate --random 40 --random-epilogue --seed 2 --device pocl --epilogue both \
    --variant fft,fft_tiled --json "$tmp/fft_random.json" >"$tmp/fft_random.txt" 2>&1
check "FFT: random shapes with epilogues pass fused and unfused, alike" \
    python3 - "$tmp/fft_random.json" <<'EOF'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = [(r["variant"], r["shape"], r["outcome"]) for r in recs
       if r["outcome"] not in ("pass", "not_applicable")]
assert not bad, bad
rows = {(r["variant"], r["shape"]): r for r in recs if r["outcome"] == "pass"}
for v in ("fft", "fft_tiled"):
    mine = [s for (w, s) in rows if w == v]
    assert len(mine) >= 8 and sum("pool" in s for s in mine) >= 3, (v, mine)
    for s in mine:
        f, u = rows[(v, s)], rows[(v + "+unfused", s)]
        assert (f["max_norm_err"], f["worst_index"]) == (u["max_norm_err"], u["worst_index"]), s
EOF
"$xconv" explain --shape "${fcases[0]#* }" --variant fft --device pocl >"$tmp/fft_e1.txt" 2>&1
check "FFT: a whole-image crop fuses an overlapping padded pool" \
    grep -q "epilogue fused: bias + relu6, max-pool 3x3/2 pad 1x1 in the store" "$tmp/fft_e1.txt"
"$xconv" explain --shape "${fcases[2]#* }" --variant fft_tiled --device pocl \
    >"$tmp/fft_e2.txt" 2>&1
check "FFT: an overlapping pool across tiles is a step, and explain says why" \
    grep -q "partly fused: bias + relu6 in the store.*a pool crosses tiles" "$tmp/fft_e2.txt"

# run --bias: a (K,) float32 file; the output is the pooled one.
python3 - "$tmp/b.npy" 6 <<'EOF'
import struct, sys
k = int(sys.argv[2])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % k
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % k, *[0.25 * i - 0.5 for i in range(k)]))
EOF
spec="n=2,c=4,h=12,w=13,k=6,r=3,pad=1,act=relu,pool=2"
for v in direct_const implicit_gemm cpu_ref; do
    "$xconv" run --shape "$spec" --bias "$tmp/b.npy" --variant "$v" --device pocl \
        --output "$tmp/y_$v.npy" >"$tmp/run_$v.txt" 2>&1
    check "run --bias with $v exits 0" test $? -eq 0
done
"$xconv" run --shape "$spec" --bias "$tmp/b.npy" --variant direct_const --device pocl \
    --epilogue unfused --output "$tmp/y_unfused.npy" >"$tmp/run_unfused.txt" 2>&1
check "run --epilogue unfused exits 0" test $? -eq 0
check "run prints the pooled output's shape" grep -q "y\[2,6,6,6\]" "$tmp/run_direct_const.txt"
check "the runs agree with the host reference, fused equal to unfused" python3 - "$tmp" <<'EOF'
import struct, sys
def load(path):
    data = open(path, "rb").read()
    n = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + n].decode()
    assert "(2, 6, 6, 6)" in header, header
    return struct.unpack("<%df" % (2 * 6 * 6 * 6), data[10 + n:])
d = sys.argv[1]
ref = load(d + "/y_cpu_ref.npy")
fused, unfused, gemm = (load(d + "/y_%s.npy" % v) for v in ("direct_const", "unfused",
                                                             "implicit_gemm"))
assert fused == unfused, "fused and unfused outputs differ"
assert all(v >= 0 for v in fused), "relu left a negative value"
assert max(abs(a - b) for a, b in zip(fused, ref)) < 1e-4
assert max(abs(a - b) for a, b in zip(gemm, ref)) < 1e-4
EOF

# explain says which path a plan is.
"$xconv" explain --shape "$spec,bias=1" --variant direct_const --device pocl >"$tmp/e1.txt" 2>&1
check "explain: the fused plan" grep -q "epilogue fused" "$tmp/e1.txt"
"$xconv" explain --shape "$spec,bias=1" --variant direct_const --device pocl \
    --epilogue unfused >"$tmp/e2.txt" 2>&1
check "explain: the unfused plan and its steps" grep -q "epilogue unfused" "$tmp/e2.txt"
check "explain: the max-pool step" grep -q "epilogue_pool" "$tmp/e2.txt"
"$xconv" explain --shape "$spec,bias=1" --variant im2col_gemm --device pocl >"$tmp/e3.txt" 2>&1
check "explain: a partly fused plan says why" \
    grep -q "partly fused.*do not hold whole pool windows" "$tmp/e3.txt"

# Refusals: exit 2, naming the key or the file.
refuses() {
    local label=$1 want=$2
    shift 2
    "$xconv" "$@" >"$tmp/refusal.txt" 2>&1
    local rc=$?
    check "$label: exit 2" test "$rc" -eq 2
    check "$label: names $want" grep -q -- "$want" "$tmp/refusal.txt"
}
refuses "a pool window larger than the output" "pool" run --device pocl \
    --shape "n=1,c=2,h=6,w=6,k=2,r=3,pool=5"
refuses "an unknown activation" "act" run --device pocl --shape "n=1,c=2,h=6,w=6,k=2,r=3,act=tanh"
refuses "a negative pool padding" "pool_pad" run --device pocl \
    --shape "n=1,c=2,h=6,w=6,k=2,r=3,pool=2,pool_pad=-1"
refuses "bias=2" "bias" run --device pocl --shape "n=1,c=2,h=6,w=6,k=2,r=3,bias=2"
refuses "a bias file of the wrong length" "shape (2,)" run --device pocl \
    --shape "n=1,c=2,h=6,w=6,k=2,r=3" --bias "$tmp/b.npy"
refuses "--bias with bias=0" "bias=0" run --device pocl \
    --shape "n=1,c=2,h=6,w=6,k=6,r=3,bias=0" --bias "$tmp/b.npy"
# A fused plan the variant cannot make is not applicable: nothing could run, exit 1 (as
# validate and bench exit for a variant that does not take the shape).
"$xconv" run --device pocl --shape "$spec" --variant im2col_gemm --epilogue fused \
    >"$tmp/refusal.txt" 2>&1
rc=$?
check "a fused plan the variant cannot make: exit 1" test "$rc" -eq 1
check "a fused plan the variant cannot make: says it does not fuse" \
    grep -q -- "does not fuse" "$tmp/refusal.txt"
refuses "an unknown epilogue mode" "expected auto, fused, unfused" validate --device pocl \
    --suite epilogue --epilogue sideways

echo "cli epilogue: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
