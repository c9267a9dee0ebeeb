#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Programs built ahead on worker threads (validate, bench, matrix, find) on PoCL's CPU device:
# the progress line and totals, records and compiled binaries bitwise the same as builds one at
# a time, a warm cache loaded ahead, and three processes filling one cache folder at once.
# Skips (exit 77) when no OpenCL CPU device is installed.
# Usage: prebuild.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device
run=(validate --device pocl --shape n=2,c=4,h=12,w=12,k=8,r=3,pad=1
     --shape n=1,c=6,h=9,w=11,k=4,r=1
     --variant auto,direct_naive,direct_regblock,implicit_gemm,winograd_f43,fft)

# Ahead on two threads (on PoCL: two helper processes building into the cache folder, then two
# threads loading), then one at a time as each case runs, each into a fresh cache.
XCONV_CACHE_DIR=$tmp/ahead "$xconv" "${run[@]}" --build-threads 2 --json "$tmp/ahead.json" \
    >"$tmp/ahead.out" 2>"$tmp/ahead.err"
check "validate with builds ahead exits 0" test $? -eq 0
cat "$tmp/ahead.err"
XCONV_CACHE_DIR=$tmp/serial "$xconv" "${run[@]}" --build-threads 0 --json "$tmp/serial.json" \
    >"$tmp/serial.out" 2>"$tmp/serial.err"
check "validate building as it goes exits 0" test $? -eq 0
n=$(ls "$tmp/serial/kernels" | wc -l)
check "the progress line starts with every program left" \
    grep -q "programs: 0 built, $n left" "$tmp/ahead.err"
check "and ends with none left" grep -q "programs: $n built, 0 left" "$tmp/ahead.err"
check "the programs were built ahead on 2 threads" \
    grep -q "$n programs built ahead in .* on 2 threads" "$tmp/ahead.err"
check "two helper processes built shares of the programs first" \
    grep -q "2 helper processes built their shares" "$tmp/ahead.err"
check "nothing is built ahead under --build-threads 0" \
    bash -c "! grep -q 'built ahead' '$tmp/serial.err'"
check "both runs print their totals" \
    grep -q "^time: compile [0-9.]* s.*, check [0-9.]* s, timed runs [0-9.]* s, wall" \
    "$tmp/ahead.err" "$tmp/serial.err"
check "the same records both ways (outcomes, errors, worst elements) and compile times kept" \
    python3 - "$tmp/ahead.json" "$tmp/serial.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["records"] for f in sys.argv[1:3])
assert len(a) == len(b) == 12, (len(a), len(b))
keys = ("variant", "shape", "outcome", "max_norm_err", "worst_index", "note")
for x, y in zip(a, b):
    assert all(x[k] == y[k] for k in keys), (x, y)
    assert x["outcome"] == "pass" or x["outcome"] == "not_applicable", x
# Each program's build time is counted by the first case that uses it, ahead or not.
for recs in (a, b):
    assert sum(r["compile_ms"] or 0 for r in recs) > 0
    assert recs[1]["compile_ms"] > 0, recs[1]  # the first direct_naive builds its program
PY
check "the same programs stored both ways" \
    diff <(ls "$tmp/ahead/kernels") <(ls "$tmp/serial/kernels")
# Outputs of programs built ahead against those built one at a time: bitwise the same.
for v in direct_regblock implicit_gemm winograd_f43 fft; do
    for c in ahead serial; do
        XCONV_CACHE_DIR=$tmp/$c "$xconv" run --device pocl --variant $v \
            --shape n=2,c=4,h=12,w=12,k=8,r=3,pad=1 --output "$tmp/$c-$v.npy" >/dev/null 2>&1
    done
    check "$v: the same output bits from either build" cmp "$tmp/ahead-$v.npy" "$tmp/serial-$v.npy"
done

# A warm cache: the programs come from disk ahead of the runs.
XCONV_CACHE_DIR=$tmp/ahead "$xconv" "${run[@]}" --build-threads 2 >/dev/null 2>"$tmp/warm.err"
check "a warm run loads its programs ahead" grep -q "$n programs built ahead" "$tmp/warm.err"

# Three processes at once, each building with two helpers into one fresh cache folder: every
# binary stored once, whole, and no temporary file left.
for i in 1 2 3; do
    XCONV_CACHE_DIR=$tmp/shared "$xconv" "${run[@]}" --build-threads 2 >/dev/null \
        2>"$tmp/shared$i.err" &
done
rcs=0
for job in $(jobs -p); do wait "$job" || rcs=$((rcs + 1)); done
check "three concurrent writers all exit 0" test "$rcs" -eq 0
check "no temporary file is left" bash -c "! ls '$tmp/shared/kernels' | grep -q tmp"
check "the concurrent writers stored every program" \
    diff <(ls "$tmp/shared/kernels") <(ls "$tmp/serial/kernels")
check "every stored file is whole: its payload's length and checksum match its header" \
    python3 - "$tmp/shared/kernels" <<'PY'
import os, sys
for name in os.listdir(sys.argv[1]):
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    head, sep, payload = data.partition(b"\n\n")
    lines = head.split(b"\n")
    assert lines[0] == b"xconv-kernel-binary 1", name
    size = int(lines[-2].split(b"=")[1])
    want = int(lines[-1].split(b"=")[1], 16)
    assert len(payload) == size, (name, len(payload), size)
    h = 0xcbf29ce484222325
    for b in payload:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    assert h == want, name
PY

# Matrix and find build ahead too; a bad thread count is refused.
XCONV_CACHE_DIR=$tmp/ahead "$xconv" matrix --device pocl --shape n=2,c=4,h=12,w=12,k=8,r=3,pad=1 \
    --variant direct_naive,implicit_gemm --repeat 2 --build-threads 2 >/dev/null \
    2>"$tmp/matrix.err"
check "matrix exits 0 and prints its totals" grep -q "^time: compile" "$tmp/matrix.err"
XCONV_CACHE_DIR=$tmp/find "$xconv" find --device pocl --shape n=1,c=6,h=9,w=11,k=4,r=1 \
    --repeat 2 --warmup 1 --build-threads 2 >"$tmp/find.out" 2>"$tmp/find.err"
check "find exits 0" test $? -eq 0
check "find builds its variants' programs ahead" grep -q "programs built ahead" "$tmp/find.err"
"$xconv" validate --build-threads -1 >/dev/null 2>"$tmp/bad.err"
check "a negative --build-threads exits 2" test $? -eq 2
check "and says why" grep -q "bad value '-1' for --build-threads" "$tmp/bad.err"

echo "prebuild.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
