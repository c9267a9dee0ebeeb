#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `xconv compile`: the small suite's plans of every variant with kernels of ours compiled for an
# AMD target (gfx90a, clang's amdgcn backend) and an Intel one (dg2, ocloc). Fails on any kernel
# a compiler refuses, on a variant left unchecked and on any spill in a plan auto picks; checks
# the records' fields, the CSV, explain --target and the refusal of an unknown target. Skips
# (exit 77) when neither compiler is installed.
# Four compilers at once: ocloc's wall time is mostly not CPU time (about 2 s a kernel, 0.3 s
# of it on the CPU), so four take 1.6x less time than two on 2 cores.
# Usage: vendor_compile.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

"$xconv" compile --list-targets >"$tmp/targets.txt"
check "--list-targets exits 0" test $? -eq 0
for t in gfx90a gfx1030 dg2 pvc sm_90; do
    check "profile $t listed" grep -q "^$t " "$tmp/targets.txt"
done
targets=""
grep -A2 "^gfx90a " "$tmp/targets.txt" | grep -q "compiler amdgcn for gfx90a: installed" &&
    targets=gfx90a
grep -A2 "^dg2 " "$tmp/targets.txt" | grep -q "compiler ocloc for dg2: installed" &&
    targets=${targets:+$targets,}dg2
if [ -z "$targets" ]; then
    echo "SKIP: neither clang-15 with rocm-device-libs nor ocloc is installed (make deps)"
    exit 77
fi
[ "$targets" = "gfx90a,dg2" ] || echo "note: only $targets has its compiler installed"

# explain plans for a profile as for a device; an unknown profile is refused naming the others.
"$xconv" explain --target gfx90a --shape n=2,c=64,h=8,w=8,k=64,r=3,pad=1 --variant auto \
    >"$tmp/explain.txt" 2>&1
check "explain --target exits 0" test $? -eq 0
check "explain --target names the profile" grep -q "AMD Instinct MI250X" "$tmp/explain.txt"
"$xconv" explain --target gfx9000 --shape n=1,c=1,h=8,w=8,k=1,r=3 --variant auto \
    >"$tmp/bad.txt" 2>&1
check "an unknown target is bad usage" test $? -eq 2
check "the refusal lists the profiles" grep -q "profiles: gfx90a, gfx1030, dg2, pvc" "$tmp/bad.txt"

# The sanitized build checks xconv's own side (planning, records, the report) on one shape: the
# vendors' compilers do the same work under it, and the small suite takes them about 10 minutes.
shapes=(--suite small)
min_kernels=40
if [ -n "${XCONV_SANITIZED_BUILD:-}" ]; then
    shapes=(--shape n=2,c=8,h=16,w=16,k=16,r=3,pad=1)
    min_kernels=10
fi
# Every variant with kernels of ours (the families of `xconv variants` but the vendor libraries).
"$xconv" variants | awk '$2 ~ /^(direct|gemm|winograd|fft)$/ {print $1}' >"$tmp/variants.txt"
"$xconv" compile "${shapes[@]}" --target "$targets" --jobs 4 --json "$tmp/c.json" \
    --csv "$tmp/c.csv" >"$tmp/table.txt" 2>"$tmp/err.txt"
rc=$?
cat "$tmp/err.txt"
grep -E " (failed|spills) " "$tmp/table.txt"
check "compile exits 0 (no kernel refused, no spill in auto's picks)" test $rc -eq 0
/usr/bin/python3 - "$tmp/c.json" "$tmp/c.csv" "$targets" "$min_kernels" "$tmp/variants.txt" \
    <<'PY' || failures=$((failures + 1))
import csv, json, sys
doc = json.load(open(sys.argv[1]))
recs = doc["records"]
rows = list(csv.DictReader(open(sys.argv[2])))
targets = sys.argv[3].split(",")
min_kernels = int(sys.argv[4])
ours = open(sys.argv[5]).read().split()
bad = []
def need(ok, what):
    if not ok:
        bad.append(what)
need(doc["kind"] == "compile", "kind is compile")
need(len(rows) == len(recs), "CSV rows match JSON records")
need(set(r["target"] for r in recs) == set(targets), "records of every target")
for t in targets:
    mine = [r for r in recs if r["target"] == t]
    compiled = [r for r in mine if r["compiled"]]
    need(len(compiled) >= min_kernels,
         f"{t}: at least {min_kernels} kernels compiled ({len(compiled)})")
    need(all(r["outcome"] != "failed" for r in mine), f"{t}: no kernel refused")
    need(all(r["registers"] and r["registers"] > 0 for r in compiled), f"{t}: registers read")
    need(any(r["auto"] for r in mine), f"{t}: auto's picks marked")
    need(not any(r["auto"] and r["outcome"] == "spills" for r in mine), f"{t}: auto never spills")
    if t.startswith("gfx"):
        need(all(1 <= r["occupancy"] <= 10 for r in compiled), f"{t}: occupancy read")
    else:
        need(all(r["simd"] in (8, 16, 32) for r in compiled), f"{t}: SIMD width read")
    variants = set(r["variant"] for r in mine)
    need(len(ours) >= 17, f"the variants listing names our {len(ours)} variants")
    for v in ours:
        need(v in variants, f"{t}: {v} checked")
    need(all(r["compiled"] or r["outcome"] == "n/a" for r in mine),
         f"{t}: every kernel compiled or n/a")
    na = [r for r in mine if r["outcome"] == "n/a"]
    need(all(r["note"] for r in na), f"{t}: every n/a says why")
for what in bad:
    print("FAIL:", what, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
checks=$((checks + 1))

# The register rules' cases (docs/guide/vendors.md): gemm_1x1 on pw1x1 for gfx1030 (2 K slices
# of 4 steps, which clang unrolled whole and spilled until the step loop was kept rolled) and
# winograd_f43 on VGG-16's conv3_1 for dg2 (an 8x8 block at the register file's edge); with
# --variant auto, auto's pick beside the variant named.
edge=()
case $targets in *gfx90a*) edge+=(--shape n=4,c=64,h=14,w=14,k=32,r=1 --target gfx1030) ;; esac
case $targets in *dg2*) edge+=(--shape n=16,c=128,h=56,w=56,k=256,r=3,pad=1 --target dg2) ;; esac
"$xconv" compile "${edge[@]}" --variant auto,gemm_1x1,winograd_f43 --json "$tmp/edge.json" \
    >"$tmp/edge.txt" 2>&1
check "the register rules' cases compile with no spill in auto's picks" test $? -eq 0
/usr/bin/python3 - "$tmp/edge.json" <<'PY' || failures=$((failures + 1))
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = [r["target"] + " " + r["variant"] + " " + r["kernel"] for r in recs
       if r["variant"] in ("gemm_1x1", "winograd_f43") and r["outcome"] != "n/a" and
       (not r["compiled"] or r["spills"])]
picks = set((r["target"], r["shape"]) for r in recs if r["auto"])
shapes = set((r["target"], r["shape"]) for r in recs)
for what in bad:
    print("FAIL: spills or refused:", what, file=sys.stderr)
if picks != shapes:
    print("FAIL: --variant auto left a shape without auto's pick", file=sys.stderr)
sys.exit(1 if bad or picks != shapes else 0)
PY
checks=$((checks + 1))

# The report's vendors view: variants x targets.
"$xconv" report "$tmp/c.json" -o "$tmp/r.html" >"$tmp/report.txt" 2>&1
check "report of a compile file exits 0" test $? -eq 0
check "the page has the vendors section" grep -q "Vendors' compilers: c.json" "$tmp/r.html"
check "the summary has the variants x targets table" grep -q "^direct_regblock " \
    "$tmp/report.txt"

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
