#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/plot_crossover.py (Python's standard library only, it writes SVG itself): on a
# synthetic sweep whose crossovers are known, the SVG is well-formed XML with a line per variant,
# the crossovers printed are those of the numbers, records that did not pass are left out, and
# bad input is refused without writing a file; then on a two-shape sweep that xconv itself
# measures on PoCL (that part skips, saying so, without an OpenCL CPU device). About 10 s.
# Usage: plot_crossover.sh PATH/TO/xconv
set -u
xconv=$(realpath "${1:-build/xconv}")
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source tests/cli/checks.bash

# direct grows as R^2, fft stays flat, fft_tiled grows slowly: FFT wins from R=7 against
# direct_const; implicit_gemm is always faster except at R=15 (so from 15); a failed record of
# fft at R=9 is left out.
python3 - "$tmp/sweep.json" <<'PY'
import json, sys
recs = []
for r in range(3, 16, 2):
    for v, ms in (("direct_const", 0.025 * r * r), ("fft", 1.0), ("fft_tiled", 0.5 + 0.1 * r),
                  ("implicit_gemm", 0.5 if r < 15 else 5.0)):
        recs.append({"device": "opencl:0 test", "backend": "opencl", "variant": v,
                     "shape_name": "crossover:r%d" % r,
                     "shape": "n=4,c=32,h=64,w=64,k=32,r=%d,pad=%d" % (r, r // 2),
                     "outcome": "pass", "median_ms": ms})
recs.append({"device": "opencl:0 test", "backend": "opencl", "variant": "fft", "shape":
             "n=4,c=32,h=64,w=64,k=32,r=9,pad=4", "shape_name": "crossover:r9",
             "outcome": "fail", "median_ms": 0.001})
# A shape of another sweep in the same file (fft_error.shapes' names) is not plotted.
recs.append({"device": "opencl:0 test", "backend": "opencl", "variant": "fft", "shape":
             "n=2,c=1,h=6,w=6,k=4,r=3,pad=1", "shape_name": "err:L8c1",
             "outcome": "pass", "median_ms": 0.002})
json.dump({"records": recs}, open(sys.argv[1], "w"))
PY
python3 scripts/plot_crossover.py "$tmp/sweep.json" -o "$tmp/c.svg" --title sweep \
    >"$tmp/out.txt" 2>&1
check "plot_crossover exits 0" test $? -eq 0
cat "$tmp/out.txt"
check "FFT overtakes direct_const from R=7" grep -q "FFT overtakes direct_const .*from R=7$" \
    "$tmp/out.txt"
check "FFT overtakes implicit_gemm from R=15" grep -q "FFT overtakes implicit_gemm .*from R=15$" \
    "$tmp/out.txt"
check "the failed record is left out" bash -c "! grep -q 'R=9 0.001' '$tmp/out.txt'"
check "other shapes are left out" bash -c "! grep -q 'R=3 0.002' '$tmp/out.txt'"
check "the SVG is well-formed XML" python3 -c \
    'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/c.svg"
check "one line per variant" test "$(grep -c '<polyline' "$tmp/c.svg")" -eq 4
check "the legend says where FFT wins" grep -q "direct_const (FFT from 7)" "$tmp/c.svg"

echo '{"records": []}' >"$tmp/empty.json"
python3 scripts/plot_crossover.py "$tmp/empty.json" -o "$tmp/none.svg" >/dev/null 2>&1
check "no FFT records: exit 2" test $? -eq 2
check "no FFT records: no file" test ! -e "$tmp/none.svg"
python3 scripts/plot_crossover.py "$tmp/missing.json" -o "$tmp/none.svg" >/dev/null 2>&1
check "a missing file: exit 2" test $? -eq 2

# A sweep measured by xconv: two filter sizes of a tiny layer, direct_const beside the FFTs.
if "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    printf 'name=t:r3 n=1,c=4,h=16,w=16,k=4,r=3,pad=1\nname=t:r7 n=1,c=4,h=16,w=16,k=4,r=7,pad=3\n' \
        >"$tmp/t.shapes"
    plot=(--name t:)
    "$xconv" bench --shapes "$tmp/t.shapes" --variant direct_const,fft,fft_tiled --device pocl \
        --repeat 2 --warmup 1 --json "$tmp/real.json" >"$tmp/bench.txt" 2>&1
    check "xconv bench of the sweep exits 0" test $? -eq 0 || cat "$tmp/bench.txt"
    python3 scripts/plot_crossover.py "$tmp/real.json" "${plot[@]}" -o "$tmp/real.svg" \
        >"$tmp/real.txt" 2>&1
    check "plot_crossover reads xconv's JSON" test $? -eq 0
    cat "$tmp/real.txt"
    check "one line per variant measured" test "$(grep -c '<polyline' "$tmp/real.svg")" -eq 3
    check "the crossover against direct_const is reported" \
        grep -q "FFT overtakes direct_const " "$tmp/real.txt"
    check "every plotted time is one of the records' medians" python3 -c '
import json, re, sys
meds = {"%.4g" % r["median_ms"] for r in json.load(open(sys.argv[1]))["records"]}
shown = re.findall(r"R=\d+: ([0-9.e+-]+) ms", open(sys.argv[2]).read())
assert len(shown) == 6 and set(shown) <= meds, (shown, meds)' "$tmp/real.json" "$tmp/real.svg"
else
    echo "SKIP (part): no OpenCL CPU device (install pocl-opencl-icd): the sweep measured by" \
        "xconv is not plotted"
fi

echo "plot crossover: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
