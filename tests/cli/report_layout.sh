#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv report on committed results files (no device needed): two files of one device are one
# device (two hosts' devices stay two); auto is shown as "auto -> kernel" and is never the
# fastest or the best xconv kernel; the roofline's legend lies inside its picture, coloured by
# family; and the page of the H100's
# 28-variant matrix, rendered by headless Chromium at 1400 px, scrolls sideways nowhere (the
# rendering is skipped, saying so, without chromium).
# Usage: report_layout.sh PATH/TO/xconv
set -u
xconv=$1
here=$(dirname "${BASH_SOURCE[0]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$here/checks.bash"
unset XCONV_PEAKS
isolate_cache "$tmp/cache"
matrix=bench/results/2026-11-23-h100-8d14d95-matrix_gpu.json
again=bench/results/2026-11-23-h100-c69953e-matrix_cuda_after_find.json
bench_auto=bench/results/2026-11-23-h100-4278c49-bench_auto.json

# Two files from the same H100: its CUDA device once, with the records of both.
"$xconv" report "$matrix" "$again" -o "$tmp/two.html" --svg "$tmp/svg" >"$tmp/two.txt" 2>&1
check "a report of two files of one device exits 0" test $? -eq 0
check "the CUDA device is one device" \
    test "$(grep -c '^NVIDIA H100 80GB HBM3 · cuda' "$tmp/two.txt")" -eq 1
check "two devices in all (CUDA and OpenCL)" \
    test "$(grep -c '^NVIDIA H100 80GB HBM3 · ' "$tmp/two.txt")" -eq 2
check "its facts name both files" grep -q "matrix_gpu.json and 1 more file" "$tmp/two.html"
# Files that name different hosts keep their devices apart (two nodes of a fleet).
python3 - "$matrix" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for host in ("node-a", "node-b"):
    d["host"] = host
    json.dump(d, open("%s/%s.json" % (sys.argv[2], host), "w"))
PY
"$xconv" report "$tmp/node-a.json" "$tmp/node-b.json" -o "$tmp/nodes.html" >"$tmp/nodes.txt" 2>&1
check "two hosts' devices of one model stay two" \
    test "$(grep -c '^NVIDIA H100 80GB HBM3 · cuda · node-' "$tmp/nodes.txt")" -eq 2

# The roofline's legend: every line of text inside the picture; markers by family.
check "the roofline's legend is whole, in family colours" \
    python3 - "$tmp"/svg/*cuda-roofline.svg <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
size = re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', svg)
width, height = int(size.group(1)), int(size.group(2))
ys = [float(y) for y in re.findall(r'<text x="[^"]*" y="([^"]*)"', svg)]
assert max(ys) < height, (max(ys), height)
legend = re.findall(r'fill="#([0-9a-f]{6})"[^>]*/><text x="([^"]*)" y="[^"]*" font-size="11">'
                    r'([a-z0-9_]+)</text>', svg)
assert len(legend) >= 20, len(legend)
for fill, x, name in legend:
    assert float(x) + 7 * len(name) < width, (name, x, width)
rgb = {name: tuple(int(fill[i:i + 2], 16) for i in (0, 2, 4)) for fill, _, name in legend}
assert len(set(rgb.values())) == len(rgb), "two variants share a colour"
families = {"direct_naive": 2, "direct_regblock": 2, "im2col_gemm": 1, "implicit_gemm": 1,
            "cudnn_find": 0, "cublas_gemm": 0}  # the dominant channel: blue, green, red
for name, channel in families.items():
    c = rgb[name]
    assert c[channel] == max(c), (name, c)
PY

# auto: its kernel is named, and it wins nothing itself.
"$xconv" report "$bench_auto" -o "$tmp/auto.html" >"$tmp/auto.txt" 2>&1
check "a report of a bench with auto rows exits 0" test $? -eq 0
check "auto is shown with the kernel it ran" grep -q "auto → direct_regblock" "$tmp/auto.html"
check "auto is no device's fastest" bash -c "! grep -q 'fastest:.* auto' '$tmp/auto.txt'"
check "auto is never the fastest or the best xconv kernel" python3 - "$tmp/auto.html" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
for table in re.findall(r"<h3>Winners</h3>.*?</table>", page, re.S):
    for row in re.findall(r"<tr><td class=\"num\">.*?</tr>", table, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        assert not cells[2].startswith("auto"), row   # fastest
        assert not cells[-3].startswith("auto"), row  # best xconv kernel
PY

if ! command -v chromium >/dev/null; then
    echo "SKIPPED PART: chromium is missing (Debian: chromium), the pages were not rendered"
    echo "report_layout.sh: $checks checks, $failures failed"
    [ "$failures" -eq 0 ]
    exit
fi
# The widest page at 1400 px: a copy with a script that writes, into the page, how far the
# document and any box that scrolls (overflow auto or scroll) reach past their width (the report
# itself has no script).
python3 - "$tmp/two.html" "$tmp/probe.html" <<'PY'
import sys
probe = """<script>
var worst = 0;
document.querySelectorAll("*").forEach(function (e) {
  var scrolls = ["auto", "scroll"].indexOf(getComputedStyle(e).overflowX) >= 0;
  if (scrolls)
    worst = Math.max(worst, e.scrollWidth - e.clientWidth);
});
var doc = document.documentElement;
document.body.setAttribute("data-overflow", (doc.scrollWidth - doc.clientWidth) + " " + worst);
</script></body>"""
open(sys.argv[2], "w").write(open(sys.argv[1]).read().replace("</body>", probe))
PY
timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
    --window-size=1400,1000 --dump-dom "file://$tmp/probe.html" >"$tmp/dom.html" 2>/dev/null
overflow=$(sed -n 's/.*data-overflow="\([0-9-]* [0-9-]*\)".*/\1/p' "$tmp/dom.html" | head -1)
echo "overflow at 1400 px (page, worst box): ${overflow:-none}"
check "Chromium ran the probe" test -n "$overflow"
check "at 1400 px nothing scrolls sideways" test "$overflow" = "0 0"
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$tmp/chromium" --window-size=1400,2600 \
    --screenshot="$tmp/two.png" "file://$tmp/two.html" >/dev/null 2>&1
check "the page renders to a 1400x2600 PNG that is not blank" \
    python3 "$here/png_check.py" "$tmp/two.png" 1400 2600

echo "report_layout.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
