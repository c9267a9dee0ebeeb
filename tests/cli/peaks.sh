#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv peaks on PoCL: positive, plausible figures stored under the device's identity in the
# cache folder ($XDG_CACHE_HOME/xconv, else ~/.cache/xconv, or --peaks-file), read back for
# explain's and bench's floors (a reduced math mode's at the tensor cores' figure of that mode),
# overridden by XCONV_PEAKS; a malformed peaks file or XCONV_PEAKS
# exits 2 and the file is kept; with clpeak installed (and not in the sanitizer build), the
# bandwidth is within 0.01x-100x of clpeak's (scripts/clpeak_compare.sh). No wall time is
# asserted.
# Skips (exit 77) without PoCL's CPU device.
# Usage: peaks.sh PATH/TO/xconv
set -u
xconv=$1
here=$(dirname "${BASH_SOURCE[0]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s%N)
# shellcheck source=checks.bash
source "$here/checks.bash"
unset XCONV_PEAKS XCONV_DEVICE
isolate_cache "$tmp/cache"

"$xconv" peaks --repeat 0 >"$tmp/out.txt" 2>&1
check "--repeat 0 exits 2" test $? -eq 2
mkdir -p "$tmp/bad"
printf '{"tool": "xconv", "kind": "peaks", "schema_version": 1, "devices": [' >"$tmp/bad/p.json"
cp "$tmp/bad/p.json" "$tmp/bad/orig.json"
"$xconv" peaks --peaks-file "$tmp/bad/p.json" >"$tmp/out.txt" 2>&1
check "a malformed peaks file exits 2" test $? -eq 2
check "and says where" grep -qF "p.json: byte 68 (line 1, column 68): ']' expected near end of file" "$tmp/out.txt"
check "and is left as it was" cmp -s "$tmp/bad/p.json" "$tmp/bad/orig.json"
XCONV_PEAKS=fast "$xconv" explain --shape n=1,c=4,h=8,w=8,k=4,r=3 --variant direct_naive \
    >"$tmp/out.txt" 2>&1
check "a malformed XCONV_PEAKS exits 2" test $? -eq 2
check "and is named" grep -q "XCONV_PEAKS: peaks 'fast'" "$tmp/out.txt"

# A reduced math mode's floor uses the tensor cores' figure of that mode (the sm_90 profile's
# identity in a peaks file), and none when the file has none for it; strict fp32 the FMA figure.
cat >"$tmp/tc.json" <<'JSON'
{"tool": "xconv", "kind": "peaks", "schema_version": 1, "devices": [
 {"name": "NVIDIA H100 SXM5 (sm_90)", "backend": "cuda", "driver": "",
  "fp32_gflops": 50000, "gbps": 3000, "gbps_read": null,
  "tf32_gflops": 400000, "f16_gflops": null, "bf16_gflops": 800000}]}
JSON
tc="explain --target sm_90 --peaks-file $tmp/tc.json --shape n=8,c=64,h=28,w=28,k=128,r=3,pad=1"
# shellcheck disable=SC2086
"$xconv" $tc,math=tf32 --variant implicit_mma >"$tmp/out.txt" 2>&1
check "math=tf32: the floor at the tf32 tensor-core peak" \
    grep -q "of tf32 arithmetic at 400000 GFLOP/s, .* peaks measured)" "$tmp/out.txt"
# shellcheck disable=SC2086
"$xconv" $tc,dtype=bf16,math=bf16 --variant implicit_mma >"$tmp/out.txt" 2>&1
check "math=bf16: the floor at the bf16 one" grep -q "of bf16 arithmetic at 800000 GFLOP/s" \
    "$tmp/out.txt"
# shellcheck disable=SC2086
"$xconv" $tc,dtype=f16,math=f16 --variant implicit_mma >"$tmp/out.txt" 2>&1
check "math=f16 without its figure: no floor (not the fp32 one)" \
    grep -q "floor: unknown in math=f16" "$tmp/out.txt"
# shellcheck disable=SC2086
"$xconv" $tc --variant implicit_gemm >"$tmp/out.txt" 2>&1
check "strict fp32: the floor at the FMA peak" grep -q "of fp32 arithmetic at 50000 GFLOP/s" \
    "$tmp/out.txt"

if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd); $checks checks, $failures failed"
    [ "$failures" -eq 0 ] || exit 1
    exit 77
fi

# Measure, and store in $XDG_CACHE_HOME/xconv/peaks.json (made when missing).
"$xconv" peaks --device pocl --repeat 3 >"$tmp/peaks.txt" 2>&1
rc=$?
cat "$tmp/peaks.txt"
check "peaks exits 0" test "$rc" -eq 0
store=$tmp/cache/xconv/peaks.json
check "the peaks are stored in the cache folder" test -s "$store"
check "the output names the file" grep -q "stored in $store" "$tmp/peaks.txt"
check "the stored peaks are positive and plausible for a CPU" python3 - "$store" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "xconv" and d["kind"] == "peaks" and d["schema_version"] == 1, d
(e,) = d["devices"]
assert e["backend"] == "opencl" and e["name"] and e["driver"], e
for key, most in (("fp32_gflops", 1e5), ("gbps", 1e4), ("gbps_read", 1e4)):
    assert 0.01 < e[key] < most, (key, e[key])
for key in ("tf32_gflops", "f16_gflops", "bf16_gflops"):  # no tensor cores: not measured
    assert e[key] is None, (key, e[key])
PY
check "peaks says the tensor cores are n/a on a CPU" grep -q "tensor cores: n/a" "$tmp/peaks.txt"
gflops=$(python3 - "$store" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["devices"][0]["fp32_gflops"])
PY
)

# explain draws the floor from them: from $XDG_CACHE_HOME, from ~/.cache, from --peaks-file.
shape="--shape n=2,c=16,h=28,w=28,k=32,r=3,pad=1 --variant direct_naive --device pocl"
# shellcheck disable=SC2086
"$xconv" explain $shape >"$tmp/out.txt" 2>&1
check "explain's floor comes from the measured peaks" grep -q "floor: .* peaks measured)" \
    "$tmp/out.txt"
mkdir -p "$tmp/home/.cache/xconv"
cp "$store" "$tmp/home/.cache/xconv/peaks.json"
# shellcheck disable=SC2086
env -u XDG_CACHE_HOME HOME="$tmp/home" "$xconv" explain $shape >"$tmp/out.txt" 2>&1
check "without XDG_CACHE_HOME they are read from ~/.cache/xconv" \
    grep -q "floor: .* peaks measured)" "$tmp/out.txt"
# shellcheck disable=SC2086
XDG_CACHE_HOME=relative HOME="$tmp/nowhere" "$xconv" explain $shape >"$tmp/out.txt" 2>&1
check "a relative XDG_CACHE_HOME is ignored (as XDG says)" grep -q "floor: unknown" "$tmp/out.txt"
# shellcheck disable=SC2086
XDG_CACHE_HOME=$tmp/none "$xconv" explain $shape --peaks-file "$store" >"$tmp/out.txt" 2>&1
check "--peaks-file names the file" grep -q "floor: .* peaks measured)" "$tmp/out.txt"
# shellcheck disable=SC2086
XCONV_PEAKS="nomatch=1,1;pocl=1234,56" "$xconv" explain $shape >"$tmp/out.txt" 2>&1
check "XCONV_PEAKS overrides them (its first entry that matches)" \
    grep -q "at 1234 GFLOP/s, .* at 56 GB/s; peaks XCONV_PEAKS)" "$tmp/out.txt"

# bench's records get their floor and share.
"$xconv" bench --shape n=2,c=16,h=28,w=28,k=32,r=3,pad=1 --variant direct_naive --device pocl \
    --repeat 2 --warmup 1 --json "$tmp/bench.json" >"$tmp/out.txt" 2>&1
check "bench exits 0" test $? -eq 0
check "bench's table shows the share of the floor" grep -q "of floor" "$tmp/out.txt"
check "bench's records carry the floor from the measured peaks" python3 - "$tmp/bench.json" \
    "$gflops" <<'PY'
import json, sys
(r,) = json.load(open(sys.argv[1]))["records"]
flops = 2 * 2 * 32 * 28 * 28 * 16 * 9
assert r["floor_ms"] >= flops / float(sys.argv[2]) * 1e-6 * 0.999, r
assert abs(r["floor_share"] - r["floor_ms"] / r["median_ms"]) < 1e-6 * r["floor_share"], r
PY

# Beside clpeak (its bandwidth test; both are read-dominated streams over large buffers). The
# sanitizer build leaves it out: neither figure depends on how xconv's host code was built, and
# clpeak takes most of this test's time.
if ldd "$xconv" 2>/dev/null | grep -q libasan; then
    echo "SKIPPED PART: a sanitizer build; the clpeak comparison runs in the plain build"
elif command -v clpeak >/dev/null && command -v clinfo >/dev/null; then
    bash scripts/clpeak_compare.sh --bandwidth-only "$xconv" pocl >"$tmp/clpeak.txt" 2>&1
    rc=$?
    cat "$tmp/clpeak.txt"
    check "clpeak_compare.sh exits 0" test "$rc" -eq 0
    check "xconv's bandwidth is within 0.01x-100x of clpeak's" python3 - "$tmp/clpeak.txt" <<'PY'
import sys
line = [l for l in open(sys.argv[1]) if l.startswith("ratios: ")][-1]
ratios = dict(kv.split() for kv in line[len("ratios: "):].split(", "))
assert set(ratios) == {"gbps", "gbps_read"}, ratios
assert all(0.01 < float(v) < 100 for v in ratios.values()), ratios
PY
else
    echo "SKIPPED PART: clpeak or clinfo is missing (Debian: clpeak, clinfo), no comparison"
fi

echo "$checks checks, $failures failed, $(( ($(date +%s%N) - start) / 1000000 )) ms"
[ "$failures" -eq 0 ]
