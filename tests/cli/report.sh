#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv report on a small PoCL matrix (xconv matrix --json): the page and each SVG are well-formed
# XML (xmllint), the page renders in headless Chromium to a PNG of the asked size that is not
# blank, auto's picks from the matrix are shown, a run compared with itself has no regressions
# and one made slower is flagged (exit 1), and bad input exits 2.
# Skips (exit 77) without PoCL's CPU device or xmllint; the rendering is skipped, saying so,
# without chromium.
# Usage: report.sh PATH/TO/xconv
set -u
xconv=$1
here=$(dirname "${BASH_SOURCE[0]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s%N)
# shellcheck source=checks.bash
source "$here/checks.bash"
unset XCONV_PEAKS
isolate_cache "$tmp/cache"  # no measured peaks: --peaks gives them below

# Usage errors need neither a device nor a file that exists.
"$xconv" report -o "$tmp/r.html" >"$tmp/out.txt" 2>&1
check "report without files exits 2" test $? -eq 2
"$xconv" report "$tmp/missing.json" -o "$tmp/r.html" >"$tmp/out.txt" 2>&1
check "a missing file exits 2" test $? -eq 2
check "a missing file is named" grep -q "cannot open '$tmp/missing.json'" "$tmp/out.txt"
parity=$(ls bench/results/*parity*.json 2>/dev/null | head -1)
if [ -n "$parity" ]; then
    "$xconv" report "$parity" -o "$tmp/r.html" >"$tmp/out.txt" 2>&1
    check "a parity file exits 2" test $? -eq 2
    check "a parity file is refused as one" grep -q '"parity": only bench, validate' "$tmp/out.txt"
fi
printf '{"tool": "xconv", "records": [' >"$tmp/cut.json"
"$xconv" report "$tmp/cut.json" -o "$tmp/r.html" >"$tmp/out.txt" 2>&1
check "truncated JSON exits 2" test $? -eq 2
check "truncated JSON says the byte" \
    grep -qF "cut.json: byte 30 (line 1, column 30): ']' expected near end of file" "$tmp/out.txt"
check "no page is left behind" test ! -e "$tmp/r.html"

if ! command -v xmllint >/dev/null; then
    echo "SKIP: xmllint is missing (Debian: libxml2-utils)"
    exit 77
fi
if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd); $checks checks, $failures failed"
    [ "$failures" -eq 0 ] || exit 1
    exit 77
fi

# A small matrix: three variants (one a vendor library) on the small suite, timed three times.
"$xconv" matrix --suite small --device pocl --repeat 3 --warmup 1 \
    --variant direct_naive,direct_const,clblast_convgemm --json "$tmp/run.json" \
    >"$tmp/matrix.txt" 2>&1
check "the small PoCL matrix exits 0" test $? -eq 0

"$xconv" report "$tmp/run.json" --shapes bench/shapes/alexnet.shapes -o "$tmp/report.html" \
    --svg "$tmp/svg" >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt"
check "report exits 0" test "$rc" -eq 0
check "the page is well-formed XHTML" xmllint --noout "$tmp/report.html"
check "the page's root is XHTML" grep -q '<html xmlns="http://www.w3.org/1999/xhtml"' \
    "$tmp/report.html"
nsvg=0
for svg in "$tmp"/svg/*.svg; do
    [ -e "$svg" ] || continue
    nsvg=$((nsvg + 1))
    check "$(basename "$svg") is well-formed XML" xmllint --noout "$svg"
    check "$(basename "$svg") is SVG" grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$svg"
done
check "a heatmap and a roofline were written" test "$nsvg" -eq 2
check "the page holds both pictures inline" test "$(grep -c '<svg xmlns' "$tmp/report.html")" -eq 2
check "the page has no script" bash -c "! grep -qi '<script' '$tmp/report.html'"
check "the page loads nothing (its only URLs are XML namespaces)" \
    bash -c "! grep -oE '(https?|ftp)://[^\"]*' '$tmp/report.html' | grep -v '^http://www.w3.org/'"
check "no number is NaN or infinite on the page" \
    bash -c "! grep -qiE '[^a-z](nan|inf)[^a-z]' '$tmp/report.html'"
check "every small shape is a winners' row" \
    test "$(grep -c '<tr><td class="num">[0-9]*</td>' "$tmp/report.html")" -eq 16
check "AlexNet's layers were not run, so it has no total" \
    grep -q 'alexnet.shapes<br/><span class="spec">5 shapes, 5 layers</span></td><td><span class="muted">not run<' \
        "$tmp/report.html"
check "the winners' table says what auto picks" grep -q "<th>auto picks</th>" "$tmp/report.html"

if command -v chromium >/dev/null; then
    # Chromium as root needs --no-sandbox; its own profile directory keeps runs apart.
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$tmp/chromium" --window-size=1280,1800 \
        --screenshot="$tmp/report.png" "file://$tmp/report.html" >"$tmp/chromium.txt" 2>&1
    check "chromium rendered the page" test -s "$tmp/report.png"
    check "the PNG is 1280x1800 and not blank" python3 "$here/png_check.py" "$tmp/report.png" \
        1280 1800
else
    echo "SKIPPED PART: chromium is missing (Debian: chromium), the page was not rendered"
fi

# Compare: the run against itself, then against a copy whose one cell is slower than the base's
# slowest time by half (whatever the noise of three runs was) and another fails.
"$xconv" report "$tmp/run.json" --compare "$tmp/run.json" -o "$tmp/same.html" >"$tmp/out.txt" 2>&1
check "a run compared with itself exits 0" test $? -eq 0
check "and has no regressions" grep -q " 0 regressions, 0 improvements" "$tmp/out.txt"
python3 - "$tmp/run.json" "$tmp/slow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["records"]:
    if r["variant"] == "direct_naive" and r["shape_name"] == "plain3x3":
        slowest = r["max_ms"]
        r["min_ms"], r["median_ms"], r["max_ms"] = 1.5 * slowest, 1.6 * slowest, 1.7 * slowest
    if r["variant"] == "direct_const" and r["shape_name"] == "pw1x1":
        r["outcome"], r["pass"] = "fail", False
json.dump(d, open(sys.argv[2], "w"))
PY
"$xconv" report "$tmp/slow.json" --compare "$tmp/run.json" -o "$tmp/cmp.html" --svg "$tmp/cmp" \
    >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt"
check "a regression exits 1" test "$rc" -eq 1
check "two regressions are counted" grep -q ": 2 regressions, 0 improvements" "$tmp/out.txt"
check "the slower cell is listed" grep -q "SLOWER .* direct_naive  plain3x3  x[1-9]" "$tmp/out.txt"
check "the failing cell is listed" grep -q "BROKE .* direct_const  pw1x1  (now FAIL, base pass)" \
    "$tmp/out.txt"
check "the comparison page is well-formed" xmllint --noout "$tmp/cmp.html"
check "the comparison picture is well-formed" xmllint --noout "$tmp"/cmp/*-compare.svg
check "the page flags both" test "$(grep -c 'class="bad">\(slower\|no longer passes\)' \
    "$tmp/cmp.html")" -eq 2
# Several runs, the first with fewer shapes than the rest: every run's layers are totalled.
"$xconv" matrix --shape n=1,c=2,h=8,w=8,k=2,r=3 --device pocl --repeat 1 --warmup 0 \
    --variant direct_naive --json "$tmp/one.json" >"$tmp/matrix1.txt" 2>&1
check "the one-shape matrix exits 0" test $? -eq 0
"$xconv" report "$tmp/one.json" "$tmp/run.json" -o "$tmp/two.html" >"$tmp/out.txt" 2>&1
check "a report of a small run and a larger one exits 0" test $? -eq 0
check "that page is well-formed" xmllint --noout "$tmp/two.html"
check "a network a device did not run reads 'not run', not '0 of N shapes passed'" \
    bash -c "! grep -q '>0 of [0-9]* shapes passed' '$tmp/two.html'"
"$xconv" report "$tmp/slow.json" "$tmp/run.json" --compare "$tmp/run.json" -o "$tmp/x.html" \
    >"$tmp/out.txt" 2>&1
check "--compare with two runs exits 2" test $? -eq 2
"$xconv" report "$tmp/run.json" --peaks 'pocl=abc' -o "$tmp/x.html" >"$tmp/out.txt" 2>&1
check "bad --peaks exits 2" test $? -eq 2
"$xconv" report "$tmp/run.json" >"$tmp/out.txt" 2>&1
check "report without -o or --svg exits 2" test $? -eq 2

# Peaks given for the device turn the colours into shares of the floor and draw the ceilings.
"$xconv" report "$tmp/run.json" --peaks 'pthread=200,20' --svg "$tmp/peaks" >"$tmp/out.txt" 2>&1
check "report --peaks exits 0" test $? -eq 0
check "the heatmap shows shares of the floor" grep -q "share of the device's floor" \
    "$tmp"/peaks/*-heatmap.svg
check "the roofline has its ceilings" grep -q "fp32 peak 200 GFLOP/s" "$tmp"/peaks/*-roofline.svg

echo "$checks checks, $failures failed, $(( ($(date +%s%N) - start) / 1000000 )) ms"
[ "$failures" -eq 0 ]
