#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A device lost for good costs its case only: with XCONV_TEST_FAULT (test-only) a case of
# validate on the small suite loses its device for good, the cases after it run in new
# processes of xconv, one of those is killed by a signal (abort) and another loses its device
# again. The JSON and CSV files hold every case's record in the order of a run without faults,
# the faulting cases are errors naming why, every other case passes, and the exit code is 1;
# the same for xconv matrix. Runs on PoCL's CPU device; skips (77) without one. On a GPU host,
# XCONV_ISOLATION_DEVICE=cuda:0 XCONV_ISOLATION_FAULT=kernel runs the same checks with a real
# faulting kernel on that device.
# Usage: isolation.sh PATH/TO/xconv
set -u
xconv=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
device=${XCONV_ISOLATION_DEVICE:-pocl}
kind=${XCONV_ISOLATION_FAULT:-lose}
if [ "$device" = pocl ] &&
    ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd)"
    exit 77
fi
# What the record of a case that lost its device says (the injected loss names its variant).
lost() {
    if [ "$kind" = lose ]; then
        echo "device lost for good at a fault ($1: a test's injected fault)"
    else
        echo "device lost for good at a fault"
    fi
}
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

# compare OK FAULTED CSV_OK CSV_FAULTED CASE:WORDS...: the faulted run's JSON and CSV records
# are the good run's cases in the same order; each CASE given is an error whose note holds
# WORDS, every other case passes.
compare() {
    python3 - "$@" <<'EOF'
import csv, json, sys
ok, bad, csv_ok, csv_bad = (sys.argv[1:5])
faults = dict((int(a.split(":", 1)[0]), a.split(":", 1)[1]) for a in sys.argv[5:])
def key(r): return (r["device"], r["variant"], r["shape"])
def csv_key(r): return (r["device"], r["variant"], r["shape"])
a = json.load(open(ok))["records"]
b = json.load(open(bad))["records"]
ca = list(csv.DictReader(open(csv_ok, newline="")))
cb = list(csv.DictReader(open(csv_bad, newline="")))
errors = []
if [key(r) for r in a] != [key(r) for r in b]:
    errors.append("JSON records differ in number or order: %d and %d" % (len(a), len(b)))
if [csv_key(r) for r in ca] != [csv_key(r) for r in cb] or len(cb) != len(b):
    errors.append("CSV rows differ in number or order: %d and %d" % (len(ca), len(cb)))
for i, r in enumerate(b):
    rec = r.get("rec", r)
    if i in faults:
        if r["outcome"] != "error" or faults[i] not in r["note"]:
            errors.append("case %d: %s, %r (wanted an error naming %r)"
                          % (i, r["outcome"], r["note"], faults[i]))
        if i < len(cb) and (cb[i]["outcome"] != "error" or faults[i] not in cb[i]["note"]):
            errors.append("CSV row %d: %s" % (i, cb[i]["outcome"]))
    elif r["outcome"] != a[i]["outcome"] if i < len(a) else True:
        errors.append("case %d: %s where the good run has %s: %s"
                      % (i, r["outcome"], a[i]["outcome"] if i < len(a) else "-", r["note"]))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
EOF
}

run=(validate --suite small --device "$device" --variant direct_naive,im2col_gemm)

# The run without faults: no worker process, everything passes.
"$xconv" "${run[@]}" --json "$tmp/ok.json" --csv "$tmp/ok.csv" >"$tmp/ok.out" 2>"$tmp/ok.err"
check "validate without faults exits 0" test $? -eq 0
check "validate without faults starts no process" \
    bash -c "! grep -q 'new processes' '$tmp/ok.err'"

# Case 5 loses its device for good: the 26 cases after it run in one new process.
XCONV_TEST_FAULT=5:$kind "$xconv" "${run[@]}" --json "$tmp/lose.json" --csv "$tmp/lose.csv" \
    >"$tmp/lose.out" 2>"$tmp/lose.err"
check "a lost device exits 1" test $? -eq 1
check "the lost device's cases left run in new processes" \
    grep -q "was lost for good; its 26 cases left run in new processes" "$tmp/lose.err"
check "the records are those of the good run, case 5 an error naming the loss" \
    compare "$tmp/ok.json" "$tmp/lose.json" "$tmp/ok.csv" "$tmp/lose.csv" \
    "5:$(lost im2col_gemm)"
check "the table says 32 records, 1 failed" grep -q "^32 records: 1 failed or errored" \
    "$tmp/lose.out"

# Case 2 loses the device, the worker dies by a signal in case 9 (the next worker goes on at
# 10), and a worker loses its device again at 20 (the next goes on at 21). The JSON goes to
# standard output: what workers print never reaches it.
XCONV_TEST_FAULT=2:$kind,9:abort,20:$kind "$xconv" "${run[@]}" --json - --csv "$tmp/more.csv" \
    >"$tmp/more.json" 2>"$tmp/more.err"
check "faults in workers exit 1" test $? -eq 1
check "every case after a worker's death and a second loss has its record" \
    compare "$tmp/ok.json" "$tmp/more.json" "$tmp/ok.csv" "$tmp/more.csv" \
    "2:$(lost direct_naive)" "9:killed by signal 6 (Aborted)" "20:$(lost direct_naive)"

# A malformed XCONV_TEST_FAULT is refused before any work.
XCONV_TEST_FAULT=2:explode "$xconv" "${run[@]}" >"$tmp/bad.out" 2>"$tmp/bad.err"
check "a malformed XCONV_TEST_FAULT exits 2" test $? -eq 2
check "and says what it takes" grep -q "CASE:KIND" "$tmp/bad.err"

# xconv matrix: the same isolation for its cells.
mrun=(matrix --device "$device" --variant direct_naive,direct_tiled --shape n=1,c=3,h=8,w=8,k=4,r=3
      --shape n=2,c=4,h=6,w=6,k=4,r=3,pad=1 --shape n=1,c=2,h=5,w=5,k=2,r=1 --repeat 1
      --warmup 0)
"$xconv" "${mrun[@]}" --json "$tmp/mok.json" --csv "$tmp/mok.csv" >"$tmp/mok.out" 2>&1
check "matrix without faults exits 0" test $? -eq 0
XCONV_TEST_FAULT=1:$kind,3:abort "$xconv" "${mrun[@]}" --json "$tmp/mbad.json" \
    --csv "$tmp/mbad.csv" >"$tmp/mbad.out" 2>&1
check "matrix with a lost device exits 1" test $? -eq 1
check "matrix's records are those of the good run, cells 1 and 3 errors naming why" \
    compare "$tmp/mok.json" "$tmp/mbad.json" "$tmp/mok.csv" "$tmp/mbad.csv" \
    "1:$(lost direct_tiled)" "3:killed by signal 6"

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
