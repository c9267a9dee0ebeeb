#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Long runs: records stream (the JSON and CSV files are valid while the run goes on, each table
# row is printed as its case finishes), SIGINT and SIGTERM stop the run after the case that is
# running with what finished written as valid files, the number of cases that did not run and
# exit 130 / 143, and the progress says [done/total], the shape's name and the time left (a bar
# on a terminal, plain lines otherwise). Values not measured are null. A reader polling the
# files while a run writes them never finds one broken. Runs on PoCL's CPU device; skips (77)
# without an OpenCL CPU device.
# Usage: streaming.sh PATH/TO/xconv
set -u
xconv=$(realpath "$1")
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

# json_records FILE: prints how many records FILE holds as valid JSON, or "invalid".
json_records() {
    python3 -c 'import json,sys
try: print(len(json.load(open(sys.argv[1]))["records"]))
except Exception: print("invalid")' "$1"
}

# csv_rows FILE: prints how many complete records FILE holds as a CSV table, or "invalid".
csv_rows() {
    python3 -c 'import csv,sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
ok = rows and all(len(r) == len(rows[0]) for r in rows) and rows[0][0] == "device"
print(len(rows) - 1 if ok else "invalid")' "$1"
}

# interrupt SIGNAL CODE: starts validate on the small suite, waits until two records are in
# the JSON file (checking both files each time it looks), sends SIGNAL, and checks the end. Each
# program is built as its case runs, so that the cases take long enough to be cut short.
interrupt() {
    local sig=$1 code=$2 n=0 seen_invalid=0 polls=0
    rm -f "$tmp/run.json" "$tmp/run.csv"
    "$xconv" validate --suite small --device pocl --build-threads 0 --json "$tmp/run.json" \
        --csv "$tmp/run.csv" --all >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && [ "$polls" -lt 600 ]; do
        polls=$((polls + 1))
        if [ -e "$tmp/run.json" ]; then
            n=$(json_records "$tmp/run.json")
            [ "$n" = invalid ] && seen_invalid=$((seen_invalid + 1))
            [ "$(csv_rows "$tmp/run.csv")" = invalid ] && seen_invalid=$((seen_invalid + 1))
            [ "$n" != invalid ] && [ "$n" -ge 2 ] && break
        fi
        sleep 0.05
    done
    kill -s "$sig" "$pid"
    wait "$pid"
    local rc=$?
    pid=
    local records rows total
    records=$(json_records "$tmp/run.json")
    # The run's cases as its progress lines count them (the small suite's shapes times PoCL's
    # variants and the auto row).
    total=$(sed -n 's/.*\[[0-9]*\/\([0-9]*\)\].*/\1/p' "$tmp/err" | tail -n 1)
    rows=$(csv_rows "$tmp/run.csv")
    check "$sig: the files were valid JSON and CSV each time they were read mid-run" \
        test "$seen_invalid" -eq 0
    check "$sig: exit $code (got $rc)" test "$rc" -eq "$code"
    check "$sig: the JSON is valid after the stop ($records records)" \
        bash -c "[ '$records' != invalid ] && [ '$records' -ge 2 ] && [ '$records' -lt '$total' ]"
    check "$sig: the CSV holds the same records" test "$rows" = "$records"
    check "$sig: says how many cases did not run" \
        grep -q "stopped by $sig: $((total - records)) of $total cases did not run" "$tmp/err"
    check "$sig: the summary counts what finished" \
        grep -q "^$records records: 0 failed or errored" "$tmp/out"
    check "$sig: the table (--all) has a row per record" \
        test "$(grep -cE '^[a-z0-9_+]+ +[a-z0-9_]+ +(pass|FAIL|error|n/a) ' "$tmp/out")" \
        -eq "$records"
    [ "$rc" -eq "$code" ] || cat "$tmp/err" >&2
}

interrupt SIGINT 130
interrupt SIGTERM 143

# A reader polling the files as fast as it can while a run writes them never finds one broken:
# each record replaces the whole file, so the closing is never caught half overwritten.
python3 "$(dirname "${BASH_SOURCE[0]}")/watch_files.py" "$tmp/w.json" "$tmp/w.csv" -- \
    "$xconv" validate --suite small --device pocl --json "$tmp/w.json" --csv "$tmp/w.csv" \
    >"$tmp/watch" 2>&1
check "a reader polling validate's files never reads a broken one ($(tail -n 1 "$tmp/watch"))" \
    grep -q "^reads [1-9][0-9]* invalid 0 records [1-9]" "$tmp/watch"

# A whole run: rows and progress lines as cases finish, null for what was not measured.
printf 'name=first n=1,c=2,h=8,w=8,k=2,r=3\nn=1,c=2,h=9,w=9,k=2,r=3\n' >"$tmp/two.shapes"
"$xconv" validate --shapes "$tmp/two.shapes" --variant direct_naive,clblast_gemm --device pocl \
    --json "$tmp/v.json" >"$tmp/out" 2>"$tmp/err"
check "validate exits 0" test $? -eq 0
check "progress: [done/total] and the shape's name" \
    grep -q "^\[1/4\] first direct_naive on opencl:0 .*: pass" "$tmp/err"
check "progress: an unnamed shape by its SPEC, not the word 'shape'" \
    grep -q "^\[4/4\] n=1,c=2,h=9,w=9,k=2,r=3 clblast_gemm on opencl:0 .*: pass" "$tmp/err"
check "progress: the time left" grep -q "about [0-9]*s left" "$tmp/err"
check "validation records: timings are null, the build time is measured" python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["records"]:
    assert r["median_ms"] is None and r["min_ms"] is None and r["gflops"] is None, r
    assert r["gbps"] is None and r["compile_ms"] is not None, r
    assert r["libraries"].startswith("OpenCL platform") and "CLBlast" in r["libraries"], r
' "$tmp/v.json"

# On a terminal: one line redrawn with a bar (script(1) gives the run a terminal).
if command -v script >/dev/null; then
    script -qec "'$xconv' validate --shape n=1,c=2,h=8,w=8,k=2,r=3 --device pocl \
        --variant direct_naive,clblast_gemm" /dev/null >"$tmp/tty" 2>&1
    check "terminal: a redrawn line with a bar" grep -qE $'\r\033\\[K\\[2/2\\] #{20} ' "$tmp/tty"
    check "terminal: no plain progress lines" bash -c "! grep -q '^\[1/2\] ' '$tmp/tty'"
else
    echo "note: no script(1): the terminal's progress bar is not checked"
fi

# bench --gemm streams too, and an explicit size that cannot run exits 1, saying why.
"$xconv" bench --gemm 100000000,100000000,100000000 --device pocl --json "$tmp/g.json" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
check "bench --gemm of a size that cannot run exits 1 (got $rc)" test "$rc" -eq 1
check "... saying why" grep -q "nothing that was asked for could run here" "$tmp/err"
check "... and its record says n/a in a valid file" python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["records"]
assert r[0]["outcome"] == "not_applicable"' "$tmp/g.json"

echo "cli streaming: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
