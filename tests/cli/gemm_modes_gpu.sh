#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `bench --gemm` in the reduced modes on a CUDA GPU with tensor cores (cuda:0): in tf32, f16 and
# bf16 both rows run and pass the mode's threshold (implicit_mma and cuBLAS's
# cublasGemmStridedBatchedEx, whose note names the types), and strict fp32 keeps cublas_sgemm.
# Skips (exit 77) without a CUDA device.
# Usage: gemm_modes_gpu.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$xconv" devices 2>/dev/null | grep -q "cuda:0"; then
    echo "SKIP: no CUDA device (cuda:0): bench --gemm's tensor-core rows need an NVIDIA GPU"
    exit 77
fi
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

size=512,384,640
for pair in "f32 f32 sgemm_ours cublas_sgemm" "f32 tf32 implicit_mma cublas_gemmex" \
    "f16 f16 implicit_mma cublas_gemmex" "bf16 bf16 implicit_mma cublas_gemmex"; do
    read -r dtype math ours vendor <<<"$pair"
    "$xconv" bench --gemm "$size" --device cuda:0 --repeat 3 --dtype "$dtype" --math "$math" \
        --json "$tmp/g.json" >"$tmp/g.txt" 2>&1
    rc=$?
    check "bench --gemm --dtype $dtype --math $math on cuda:0 exits 0 (got $rc)" test "$rc" -eq 0
    check "--dtype $dtype --math $math: $ours and $vendor pass, timed, in the mode" \
        python3 - "$tmp/g.json" "$dtype" "$math" "$ours" "$vendor" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
dtype, math, ours, vendor = sys.argv[2:6]
assert [r["variant"] for r in recs] == [ours, vendor], recs
for r in recs:
    assert r["outcome"] == "pass" and r["dtype"] == dtype and r["math"] == math, r
    assert r["median_ms"] > 0 and r["max_norm_err"] <= r["threshold"], r
if math != "f32":
    assert "A and B %s, C f32, math %s" % (dtype, math) in recs[1]["note"], recs[1]
    assert "mma.sync" in recs[0]["note"], recs[0]
PY
done

echo "gemm_modes_gpu: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
