#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv matrix on PoCL with two variants and a shape file of two weighted layers: the terminal
# table (winners, auto's picks, shares of the floor, the network's total), the JSON (read back
# by xconv report and checked key by key) and the CSV, the progress lines off a terminal and the
# bar on one (under script(1)), a SIGINT mid-run that leaves a valid JSON of what finished, and
# a reader polling the files during a run that never finds one broken.
# Bad usage exits 2 and leaves no file. Skips (exit 77) without PoCL's CPU device.
# Usage: matrix.sh PATH/TO/xconv
set -u
xconv=$1
here=$(dirname "${BASH_SOURCE[0]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s%N)
# shellcheck source=checks.bash
source "$here/checks.bash"
unset XCONV_PEAKS XCONV_DEVICE
isolate_cache "$tmp/cache"  # no measured peaks: XCONV_PEAKS gives them below

"$xconv" matrix --family nosuch --shape n=1,c=4,h=8,w=8,k=4,r=3 --json "$tmp/x.json" \
    >"$tmp/out.txt" 2>&1
check "an unknown family exits 2" test $? -eq 2
check "and the families are listed" grep -q "unknown family 'nosuch'; families: .*direct" \
    "$tmp/out.txt"
"$xconv" matrix --variant cpu_ref --shape n=1,c=4,h=8,w=8,k=4,r=3 --json "$tmp/x.json" \
    >"$tmp/out.txt" 2>&1
check "a host variant exits 2" test $? -eq 2
"$xconv" matrix --repeat 0 --shape n=1,c=4,h=8,w=8,k=4,r=3 --json "$tmp/x.json" \
    >"$tmp/out.txt" 2>&1
check "--repeat 0 exits 2" test $? -eq 2
check "bad usage leaves no file" test ! -e "$tmp/x.json"

if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd); $checks checks, $failures failed"
    [ "$failures" -eq 0 ] || exit 1
    exit 77
fi

cat >"$tmp/net.shapes" <<'SHAPES'
# two layers of a made-up network
name=conv_a weight=2 n=2,c=8,h=16,w=16,k=16,r=3,pad=1
name=conv_b weight=3 mb2ic16ih8oc8oh8kh1
SHAPES
XCONV_PEAKS=pocl=100,10 "$xconv" matrix --shapes "$tmp/net.shapes" --device pocl \
    --variant direct_naive,direct_const --repeat 2 --warmup 1 --json "$tmp/m.json" \
    --csv "$tmp/m.csv" >"$tmp/table.txt" 2>"$tmp/progress.txt"
rc=$?
cat "$tmp/table.txt" "$tmp/progress.txt"
check "matrix exits 0" test "$rc" -eq 0
check "the table has the shapes as columns, then the compile time" \
    grep -qE "^variant +conv_a +conv_b +compile s$" "$tmp/table.txt"
check "each row's compile time in seconds" \
    test "$(grep -cE "^direct_(naive|const) .* [0-9]+\.[0-9]{2}$" "$tmp/table.txt")" -eq 2
check "and a row per variant" test "$(grep -cE "^direct_(naive|const) " "$tmp/table.txt")" -eq 2
check "each shape has its fastest marked" test "$(grep -o '[0-9]\*' "$tmp/table.txt" | wc -l)" -eq 2
check "auto's picks are marked" grep -qE "[0-9]\*?\+ " "$tmp/table.txt"
check "shares of the floor are shown" grep -qE "[0-9] [0-9.]+%" "$tmp/table.txt"
check "the peaks' source is said" grep -q "peaks: 100 GFLOP/s fp32, 10 GB/s (XCONV_PEAKS)" \
    "$tmp/table.txt"
check "the network is totalled" grep -q "net.shapes on opencl:0 .*: 2 layers (weight 5): " \
    "$tmp/table.txt"
check "4 records, none failed" grep -q "^4 records: 0 failed or errored" "$tmp/table.txt"
check "off a terminal, progress is plain lines" grep -q "^\[4/4\] opencl:0 .* conv_b" \
    "$tmp/progress.txt"

check "the JSON is the matrix schema, key by key" python3 - "$tmp/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "matrix" and d["schema_version"] == 1 and d["complete"] is True, d.keys()
(dev,) = d["devices"]
assert dev["backend"] == "opencl" and dev["compute_units"] > 0, dev
assert dev["peaks"] == {"fp32_gflops": 100, "gbps": 10, "gbps_read": None,
                        "source": "XCONV_PEAKS"}, dev["peaks"]
assert [(s["name"], s["weight"], s["set"]) for s in d["shapes"]] == \
    [("conv_a", 2, "net.shapes"), ("conv_b", 3, "net.shapes")], d["shapes"]
recs = d["records"]
assert len(recs) == 4 and all(r["device"] == dev["id"] and r["pass"] for r in recs), recs
for r in recs:
    assert r["repeat"] == 2 and r["median_ms"] > 0 and r["gflops"] > 0 and r["gbps"] > 0, r
    assert r["floor_ms"] > 0 and abs(r["floor_share"] - r["floor_ms"] / r["median_ms"]) < 1e-6
    assert isinstance(r["auto_pick"], bool), r
for shape in ("conv_a", "conv_b"):  # auto picks direct_const on CPUs
    picks = [r["variant"] for r in recs if r["shape_name"] == shape and r["auto_pick"]]
    assert picks == ["direct_const"], (shape, picks)
PY
check "the CSV has a row per record" python3 - "$tmp/m.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) == 5 and all(len(r) == 25 for r in rows), rows
assert rows[0][-3:] == ["floor_ms", "floor_share", "auto_pick"], rows[0]
PY
"$xconv" report "$tmp/m.json" --svg "$tmp/svg" >"$tmp/out.txt" 2>&1
check "xconv report reads the file back" test $? -eq 0
check "with the winners per shape" grep -q "direct_const" "$tmp/out.txt"

# On a terminal (script(1) gives one), the bar with [done/total], the shape and the time left.
if command -v script >/dev/null; then
    script -qec "$xconv matrix --shape n=1,c=4,h=8,w=8,k=4,r=3 --device pocl --variant \
direct_naive,direct_const --repeat 1 --warmup 0" /dev/null >"$tmp/tty.txt" 2>&1
    check "on a terminal the bar is drawn in place" grep -q $'\r\[1/2\] ##########--------' \
        "$tmp/tty.txt"
    check "with the time left" grep -q "s left" "$tmp/tty.txt"
    check "and cleared at the end" grep -q $'\r\033\[K' "$tmp/tty.txt"
else
    echo "SKIPPED PART: script(1) is missing (Debian: bsdutils), the bar was not checked"
fi

# SIGINT once some records finished: the JSON holds them, valid, "complete": false. (Job control
# gives the background run the default SIGINT action, as a run in a terminal has.) Each program
# is built as its cell runs, so that the cells take long enough to be cut short.
set -m
"$xconv" matrix --suite small --device pocl --variant direct_naive,direct_const --repeat 1 \
    --warmup 0 --build-threads 0 --json "$tmp/int.json" --csv "$tmp/int.csv" >"$tmp/int.txt" 2>&1 &
pid=$!
set +m
for _ in $(seq 600); do
    n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['records']))" \
        "$tmp/int.json" 2>/dev/null)
    [ "${n:-0}" -ge 3 ] && break
    sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
check "the interrupted run ended by SIGINT" test "$rc" -eq 130
check "its JSON is valid and holds what finished" python3 - "$tmp/int.json" "$tmp/int.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
n = len(d["records"])
assert d["complete"] is False and 3 <= n < 32, (n, d["complete"])
assert all(r["outcome"] == "pass" and r["median_ms"] > 0 for r in d["records"])
rows = len(list(csv.reader(open(sys.argv[2], newline="")))) - 1
assert rows in (n - 1, n), (rows, n)  # the CSV is written after the JSON
PY
"$xconv" report "$tmp/int.json" --svg "$tmp/int_svg" >"$tmp/out.txt" 2>&1
check "and xconv report reads it" test $? -eq 0
check "saying the run was cut short" grep -q "int.json: the run was cut short" "$tmp/out.txt"

# A reader polling the files as fast as it can while the matrix writes them never finds one
# broken (each record replaces the whole file).
python3 "$here/watch_files.py" "$tmp/w.json" "$tmp/w.csv" -- "$xconv" matrix --suite small \
    --device pocl --repeat 2 --warmup 0 --find off --json "$tmp/w.json" --csv "$tmp/w.csv" \
    >"$tmp/watch" 2>&1
check "a reader polling the matrix's files never reads a broken one ($(tail -n 1 "$tmp/watch"))" \
    grep -q "^reads [1-9][0-9]* invalid 0 records [1-9]" "$tmp/watch"

echo "$checks checks, $failures failed, $(( ($(date +%s%N) - start) / 1000000 )) ms"
[ "$failures" -eq 0 ]
