#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv find on PoCL's CPU device into a cache folder of its own: the find-db's records, auto
# from them in run, explain, bench and validate, stale records (re-timed, or kept under
# --find=trust), a corrupted file set aside, two finds at once, exhaustive mode, confirm
# rounds, SIGINT mid-find, --list and --clear. Skips (exit 77) when no OpenCL CPU device is
# installed.
# Usage: find.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device
export XCONV_CACHE_DIR=$tmp/cache
a=n=2,c=4,h=12,w=12,k=8,r=3,pad=1
b=n=2,c=3,h=10,w=10,k=4,r=1
quick=(--device pocl --repeat 2 --warmup 1)

# A normal find of two shapes: both ranked and stored, the fastest passing variant first.
"$xconv" find --shape $a --shape $b "${quick[@]}" --json "$tmp/find.json" >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt"
check "find exits 0" test "$rc" -eq 0
check "find printed a ranking" grep -q "^  1 " "$tmp/out.txt"
check "find of 2 shapes, said in the plural" grep -q "find of 2 shapes$" "$tmp/out.txt"
check "no carriage returns in a log (stderr is no terminal)" \
    test "$(tr -cd '\r' <"$tmp/out.txt" | wc -c)" -eq 0
check "no 'nan ms' for runs that were not timed" \
    test "$(grep -ci "nan ms" "$tmp/out.txt")" -eq 0
check "the find-db holds two records" test "$(grep -c '^rec' "$tmp/cache/find.db")" -eq 2
check "find wrote its runs as JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["records"]) >= 10
assert all(r["outcome"] in ("pass", "not_applicable") for r in d["records"])' \
    "$tmp/find.json"
"$xconv" find --list >"$tmp/list.txt" 2>&1
check "--list shows both records fresh" test "$(grep -c '| fresh |' "$tmp/list.txt")" -eq 2

# Auto reads them: run (its default variant), explain, and the auto rows of bench and validate.
winner=$(python3 -c '
import sys
for line in open(sys.argv[1]):
    if line.startswith("rec") and "shape=" + sys.argv[2] + "\t" in line:
        print(line.split("entry=")[1].split("|")[0])' "$tmp/cache/find.db" "$a")
"$xconv" run --shape $a --device pocl >"$tmp/run.txt" 2>&1
check "run without --variant runs auto from the find-db" grep -q "^auto: find-db" "$tmp/run.txt"
check "run ran the record's winner ($winner)" grep -q "^$winner on" "$tmp/run.txt"
"$xconv" explain --shape $a --variant auto --device pocl >"$tmp/explain.txt" 2>&1
check "explain --variant auto says which and why" grep -q "plan of auto -> $winner" \
    "$tmp/explain.txt"
check "explain names the find-db" grep -q "auto: find-db: fastest of" "$tmp/explain.txt"
"$xconv" explain --shape $a --device pocl >"$tmp/explain_default.txt" 2>&1
check "explain without --variant explains auto" grep -q "plan of auto -> $winner" \
    "$tmp/explain_default.txt"
"$xconv" run --shape $a --device pocl --find=off >"$tmp/off.txt" 2>&1
check "--find=off uses the rules" grep -q "^auto: rules" "$tmp/off.txt"
"$xconv" explain --shape $a --variant auto --device pocl --find=off >"$tmp/off_explain.txt" 2>&1
rules=$(sed -n 's/^plan of auto -> \([a-z0-9_]*\) .*/\1/p' "$tmp/off_explain.txt")
"$xconv" matrix --shape $a "${quick[@]}" --variant "$winner,direct_naive" --json "$tmp/m.json" \
    >"$tmp/m.txt" 2>&1
check "matrix marks the find-db's winner as auto's pick" python3 -c '
import json, sys
picks = [r["variant"] for r in json.load(open(sys.argv[1]))["records"] if r["auto_pick"]]
assert picks == [sys.argv[2]], picks' "$tmp/m.json" "$winner"
"$xconv" matrix --find off --shape $a "${quick[@]}" --variant "$rules,direct_naive" \
    --json "$tmp/m_off.json" >"$tmp/m.txt" 2>&1
check "matrix --find off marks the rules' choice ($rules)" python3 -c '
import json, sys
picks = [r["variant"] for r in json.load(open(sys.argv[1]))["records"] if r["auto_pick"]]
assert picks == [sys.argv[2]], picks' "$tmp/m_off.json" "$rules"
"$xconv" bench --shape $a "${quick[@]}" --variant auto,direct_naive --json "$tmp/bench.json" \
    >"$tmp/bench.txt" 2>&1
check "bench with an auto row exits 0" test $? -eq 0
check "bench's auto row names its choice and source" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
auto = [r for r in d["records"] if r["variant"] == "auto"]
assert len(auto) == 1 and auto[0]["outcome"] == "pass" and auto[0]["median_ms"] > 0
assert auto[0]["note"].startswith("auto -> %s (find-db)" % sys.argv[2]), auto[0]["note"]' \
    "$tmp/bench.json" "$winner"
"$xconv" validate --shape $b --device pocl >"$tmp/validate.txt" 2>&1
check "validate exits 0 with its auto row" test $? -eq 0
check "validate lists auto among all variants" grep -q " auto " "$tmp/validate.txt"

# A fresh record is kept; --force times it again.
"$xconv" find --shape $a "${quick[@]}" >"$tmp/again.txt" 2>&1
check "a fresh record is kept" grep -q "fresh record .* kept" "$tmp/again.txt"

# A record made under another driver is stale: not used silently, kept under --find=trust,
# timed again by find.
sed -i 's/\tdriver=[^\t]*\t/\tdriver=older driver\t/' "$tmp/cache/find.db"
"$xconv" explain --shape $a --variant auto --device pocl >"$tmp/stale.txt" 2>&1
check "a stale record is not used" grep -q "auto: rules.*stale" "$tmp/stale.txt"
"$xconv" explain --shape $a --variant auto --device pocl --find=trust >"$tmp/trust.txt" 2>&1
check "--find=trust uses it and says so" grep -q "auto: find-db.*stale, trusted.*older driver" \
    "$tmp/trust.txt"
"$xconv" find --list >"$tmp/list.txt" 2>&1
check "--list marks both stale" test "$(grep -c '| stale (driver ) |' "$tmp/list.txt")" -eq 2
"$xconv" find --shape $a "${quick[@]}" --find=trust >"$tmp/kept.txt" 2>&1
check "find --find=trust keeps a stale record" grep -q "stale record .* kept (--find=trust)" \
    "$tmp/kept.txt"
"$xconv" find --shape $a "${quick[@]}" >"$tmp/retime.txt" 2>&1
check "find times a stale record again" grep -q "stale record .* timed again" "$tmp/retime.txt"
"$xconv" explain --shape $a --variant auto --device pocl >"$tmp/fresh.txt" 2>&1
check "the re-timed record is used" grep -q "auto: find-db: fastest of" "$tmp/fresh.txt"

# A corrupted find-db: a warning, the file set aside, its good records kept, exit 0.
printf 'rec\tgarbage\n' >>"$tmp/cache/find.db"
"$xconv" find --list >"$tmp/corrupt.txt" 2>&1
check "--list of a corrupted db exits 0" test $? -eq 0
check "the corruption is reported" grep -q "warning: find-db .* is corrupted" "$tmp/corrupt.txt"
check "the corrupted file is set aside" bash -c "ls '$tmp/cache' | grep -q '^find.db.corrupt-'"
check "its good records are kept" grep -q "^3 records in" "$tmp/corrupt.txt"

# Two finds at once into the same db: both records arrive.
c=n=1,c=2,h=9,w=9,k=3,r=3
d=n=1,c=2,h=8,w=8,k=5,r=3,stride=2
"$xconv" find --shape $c "${quick[@]}" >"$tmp/c.txt" 2>&1 &
"$xconv" find --shape $d "${quick[@]}" >"$tmp/d.txt" 2>&1
wait
for s in $c $d; do
    check "the concurrent find of $s is stored" grep -q "shape=$s	" "$tmp/cache/find.db"
done

# run --find=normal finds a shape without a record first; exhaustive tunes within a budget.
# A strided shape: only the direct and GEMM families apply, and direct_const, which has
# tunings, is the fastest by far (2.7x here), so exhaustive (which tunes the variants within
# 1.5x of the fastest) has one to tune; on the stride-1 3x3 shape used before, a fused Winograd
# variant, which has none, could time fastest alone.
e=n=1,c=8,h=32,w=32,k=16,r=3,stride=2,pad=1
"$xconv" run --shape $e --device pocl --find=normal >"$tmp/runfind.txt" 2>&1
check "run --find=normal finds first" grep -q "^found: " "$tmp/runfind.txt"
check "and then runs the find-db's choice" grep -q "^auto: find-db" "$tmp/runfind.txt"
"$xconv" find --shape $e "${quick[@]}" --mode exhaustive --budget 15 >"$tmp/ex.txt" 2>&1
check "an exhaustive find exits 0" test $? -eq 0
check "it tuned something" grep -q "exhaustive find: .* [1-9][0-9]* of them tunings" "$tmp/ex.txt"
check "its record says exhaustive" grep -q "shape=$e	mode=exhaustive" "$tmp/cache/find.db"
"$xconv" find --shape $e "${quick[@]}" --mode fast >"$tmp/fast.txt" 2>&1
check "find --mode fast says what auto chooses" grep -q "auto: .*(find-db" "$tmp/fast.txt"

# Confirm rounds: every contender (all passing variants, under --confirm-within 1000) is timed
# twice more, interleaved; each one's time in the find-db is the median of its three timings.
"$xconv" find --shape $b "${quick[@]}" --force --confirm 2 --confirm-within 1000 \
    --json "$tmp/confirm.json" >"$tmp/confirm.txt" 2>&1
check "a find with confirm rounds exits 0" test $? -eq 0
check "each contender's time is the median of its three timings, interleaved" python3 -c '
import json, statistics, sys
runs = {}
order = []
for r in json.load(open(sys.argv[1]))["records"]:
    if r["outcome"] == "pass":
        runs.setdefault(r["variant"], []).append(r["median_ms"])
        order.append((r["variant"], r["note"].split(";")[0]))
assert len(runs) >= 5, runs
assert all(len(t) == 3 for t in runs.values()), runs
n = len(runs)
rounds = [tag for _, tag in order[n:]]
assert rounds == ["confirm round 1 of 2"] * n + ["confirm round 2 of 2"] * n, rounds
assert [v for v, _ in order[n:2 * n]] == [v for v, _ in order[2 * n:]]
shape = sys.argv[3]
rec = [l for l in open(sys.argv[2]) if l.startswith("rec") and "shape=" + shape + "\t" in l][-1]
entries = [e.split("|") for e in rec.strip().split("\t") if e.startswith("entry=")]
for e in entries:
    name = e[0][len("entry="):]
    want = statistics.median(runs[name])
    assert abs(float(e[2]) - want) <= 1e-6 * want, (name, e[2], want)
want = "%d confirmations" % (2 * n)
assert want in open(sys.argv[4]).read(), want' \
    "$tmp/confirm.json" "$tmp/cache/find.db" "$b" "$tmp/confirm.txt"
"$xconv" find --shape $b "${quick[@]}" --confirm -1 >/dev/null 2>&1
check "--confirm -1 exits 2" test $? -eq 2
"$xconv" find --shape $b "${quick[@]}" --confirm-within 0.5 >/dev/null 2>&1
check "--confirm-within 0.5 exits 2" test $? -eq 2

# SIGINT during a find: the runs that finished are in --json (streamed as they finish), the
# shape it cut short is not stored, exit 130.
f=n=2,c=32,h=64,w=64,k=32,r=3,pad=1
"$xconv" find --shape $b --shape $f "${quick[@]}" --force --json "$tmp/int.json" \
    >"$tmp/int.txt" 2>"$tmp/int.err" &
pid=$!
polls=0
while kill -0 "$pid" 2>/dev/null && [ "$polls" -lt 1200 ]; do  # until a run of f is in the file
    polls=$((polls + 1))
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["shape"] == sys.argv[2] for r in d["records"]) else 1)' \
        "$tmp/int.json" "$f" 2>/dev/null && break
    sleep 0.05
done
kill -s INT "$pid"
wait "$pid"
rc=$?
pid=
check "an interrupted find exits 130 (got $rc)" test "$rc" -eq 130
check "its JSON holds the runs that finished, those of the cut shape too" python3 -c '
import json, sys
shapes = [r["shape"] for r in json.load(open(sys.argv[1]))["records"]]
assert shapes.count(sys.argv[2]) >= 5 and 1 <= shapes.count(sys.argv[3]), shapes' \
    "$tmp/int.json" "$b" "$f"
check "it says the cut shape stored nothing" grep -q "nothing stored for this shape" \
    "$tmp/int.txt"
check "and how many shape finds did not finish" \
    grep -q "stopped by SIGINT: 1 of 2 shape finds did not finish" "$tmp/int.err"
check "the cut shape has no record" bash -c "! grep -q 'shape=$f	' '$tmp/cache/find.db'"

# Bad usage, then clearing.
"$xconv" find --mode quick --shape $a >/dev/null 2>&1
check "an unknown mode exits 2" test $? -eq 2
"$xconv" find >/dev/null 2>&1
check "find without shapes exits 2" test $? -eq 2
"$xconv" run --shape $a --device pocl --find=maybe >/dev/null 2>&1
check "an unknown --find exits 2" test $? -eq 2
"$xconv" find --clear >"$tmp/clear.txt" 2>&1
check "--clear removes every record (b's stale one too)" grep -q "removed 7 records from" \
    "$tmp/clear.txt"
check "the db is empty" test "$(grep -c '^rec' "$tmp/cache/find.db")" -eq 0
"$xconv" find --clear-kernels >"$tmp/clear.txt" 2>&1
check "--clear-kernels removes the compiled kernels" grep -q "removed [1-9][0-9]* compiled" \
    "$tmp/clear.txt"

echo "find.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
