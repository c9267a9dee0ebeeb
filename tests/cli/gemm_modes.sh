#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `bench --gemm` in the storage types and math modes on PoCL's CPU device: fp16 and bf16 A and B
# with strict fp32 math run ours as gemm_1x1 (C in the same type) and pass the storage threshold,
# CLBlast's row not applicable with the reason; the reduced math modes (tf32, f16, bf16) make
# n/a rows here (implicit_mma needs NVIDIA tensor cores, CLBlast runs fp32 only) and an explicit
# size where nothing ran exits 1; the records carry dtype, math and the mode's threshold (the
# gemm family's plus host/measure/thresholds.c's math term) and timed rows a floor at the
# device's peaks; strict fp32 keeps its two rows;
# a math mode its dtype cannot feed and an unknown one are refused with exit 2. Skips (exit 77)
# when no OpenCL CPU device is installed.
# Usage: gemm_modes.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device
isolate_cache "$tmp/cache"  # no peaks file of the user's: no floors

size=70,50,90

# Strict fp32: today's two rows, fp32 in the records.
"$xconv" bench --gemm "$size" --device pocl --repeat 1 --json "$tmp/f32.json" >"$tmp/f32.txt" 2>&1
rc=$?
check "bench --gemm in strict fp32 exits 0 (got $rc)" test "$rc" -eq 0
check "strict fp32: sgemm_ours and clblast_sgemm pass, f32/f32, threshold 1e-5" \
    python3 - "$tmp/f32.json" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert [r["variant"] for r in recs] == ["sgemm_ours", "clblast_sgemm"], recs
for r in recs:
    assert r["outcome"] == "pass" and r["dtype"] == "f32" and r["math"] == "f32", r
    assert r["threshold"] == 1e-5, r
PY

# fp16 and bf16 storage, fp32 math: gemm_1x1 runs and passes within the family's threshold plus
# C's rounding to the type (2^-11, 2^-8); CLBlast's row is not applicable and says why.
for dtype in f16 bf16; do
    "$xconv" bench --gemm "$size" --device pocl --repeat 1 --dtype "$dtype" \
        --json "$tmp/$dtype.json" >"$tmp/$dtype.txt" 2>&1
    rc=$?
    check "bench --gemm --dtype $dtype exits 0 (got $rc)" test "$rc" -eq 0
    check "--dtype $dtype: gemm_1x1 passes at the storage threshold, CLBlast n/a" \
        python3 - "$tmp/$dtype.json" "$dtype" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
dtype = sys.argv[2]
storage = {"f16": 2**-11, "bf16": 2**-8}[dtype]
ours, vendor = recs
assert ours["variant"] == "gemm_1x1" and ours["outcome"] == "pass", ours
assert ours["dtype"] == dtype and ours["math"] == "f32", ours
assert abs(ours["threshold"] - (1e-5 + storage)) < 1e-8 * ours["threshold"], ours
assert 0 < ours["max_norm_err"] <= ours["threshold"], ours
assert ours["median_ms"] > 0, ours
assert vendor["variant"] == "clblast_sgemm" and vendor["outcome"] == "not_applicable", vendor
assert "CLBlast runs SGEMM only here" in vendor["note"], vendor
PY
done

# Floors at the device's peaks (XCONV_PEAKS: 100 GFLOP/s, 10 GB/s): fp32 math takes the FMA
# peak, so gemm_1x1's fp16 row gets max(2mnk / 100 GFLOP/s, 2 bytes x (mk + kn + mn) / 10 GB/s).
XCONV_PEAKS=100,10 "$xconv" bench --gemm "$size" --device pocl --repeat 1 --dtype f16 \
    --json "$tmp/floor.json" >"$tmp/floor.txt" 2>&1
check "--dtype f16 under XCONV_PEAKS: gemm_1x1's floor is the fp32 peak's" \
    python3 - "$tmp/floor.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["records"][0]
m, n, k = 70, 50, 90
floor = max(2 * m * n * k / 100e9, 2 * (m * k + k * n + m * n) / 10e9) * 1e3
assert abs(ours["floor_ms"] - floor) < 1e-6 * floor, (ours["floor_ms"], floor)
assert abs(ours["floor_share"] - floor / ours["median_ms"]) < 1e-6, ours
PY

# The reduced math modes: nothing runs on a CPU, so an explicit size exits 1 and says why.
for pair in "f32 tf32" "f16 f16" "bf16 bf16"; do
    read -r dtype math <<<"$pair"
    "$xconv" bench --gemm "$size" --device pocl --repeat 1 --dtype "$dtype" --math "$math" \
        --json "$tmp/m.json" >"$tmp/m.txt" 2>&1
    rc=$?
    check "bench --gemm --math $math on a CPU exits 1 (got $rc)" test "$rc" -eq 1
    check "--math $math: the message names the tensor cores" \
        grep -q "implicit_mma needs NVIDIA tensor cores" "$tmp/m.txt"
    check "--math $math: n/a rows for implicit_mma and CLBlast, with the mode's threshold" \
        python3 - "$tmp/m.json" "$dtype" "$math" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
dtype, math = sys.argv[2], sys.argv[3]
term = {"tf32": 2**-10 + 2**-12, "f16": 2**-12, "bf16": 2**-12}[math]
assert [r["variant"] for r in recs] == ["implicit_mma", "clblast_sgemm"], recs
for r in recs:
    assert r["outcome"] == "not_applicable" and r["dtype"] == dtype and r["math"] == math, r
    assert abs(r["threshold"] - (1e-5 + term)) < 1e-8 * r["threshold"], r  # JSON: 9 significant digits
    assert r["median_ms"] is None, r
assert "tensor cores" in recs[0]["note"] and "math=" + math in recs[1]["note"], recs
PY
done

# Refusals before any device work: a math mode its dtype cannot feed, unknown names.
refused 2 "math=f16 needs dtype=f16" -- bench --gemm "$size" --device pocl --math f16
refused 2 "math=tf32 needs dtype=f32" -- bench --gemm "$size" --device pocl --math tf32 \
    --dtype bf16
refused 2 "is not a math mode" -- bench --gemm "$size" --device pocl --math fp8
refused 2 "is not a storage type" -- bench --gemm "$size" --device pocl --dtype f64

echo "gemm_modes: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
