#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# implicit_xmx (Intel's matrix engines) through `xconv compile`: its kernels for dg2 (sub-group
# 8) and pvc (16) in f16 and bf16 compiled by ocloc at that SIMD width, without spills, and n/a
# with the reason in strict fp32 and tf32; n/a on the AMD and NVIDIA profiles (explain
# --target). Where ocloc can load Intel's disassembler (IGA), the planned kernel's binary holds
# dpas instructions of the mode's type at the sub-group's width. Skips (exit 77) without ocloc.
# Usage: xmx_compile.sh PATH/TO/xconv
set -u
xconv=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

if ! "$xconv" compile --list-targets | grep -A2 "^dg2 " |
    grep -q "compiler ocloc for dg2: installed"; then
    echo "SKIP: ocloc is not installed (Debian package intel-opencl-icd)"
    exit 77
fi

# The Intel profiles say at which sub-group size their engines run; the others have none.
"$xconv" compile --list-targets >"$tmp/targets.txt"
for case in "dg2 8" "pvc 16"; do
    read -r target sg <<<"$case"
    grep -A3 "^$target " "$tmp/targets.txt" >"$tmp/$target.txt"
    check "$target's engines at sub-group $sg" \
        grep -q "Intel matrix engines .* at sub-group $sg\$" "$tmp/$target.txt"
done
check "two profiles with engines" test "$(grep -c "Intel matrix engines" "$tmp/targets.txt")" -eq 2

# Shapes: rows, columns and K not multiples of the tiles, groups, stride and dilation; one in
# strict fp32 and one in tf32 (n/a).
base=(n=2,c=5,h=7,w=9,k=20,r=3,pad=1 n=1,c=64,h=28,w=28,k=128,r=3,pad=1
      n=2,c=12,h=6,w=6,k=6,r=3,groups=3,pad=1 n=4,c=24,h=20,w=18,k=12,r=3,stride=2,dil=2,pad=2)
shapes=()
for s in "${base[@]}"; do
    shapes+=(--shape "$s,dtype=f16,math=f16" --shape "$s,dtype=bf16,math=bf16")
done
shapes+=(--shape "${base[0]}" --shape "${base[0]},math=tf32")
"$xconv" compile "${shapes[@]}" --target dg2,pvc --variant implicit_xmx --jobs 4 \
    --json "$tmp/c.json" >"$tmp/table.txt" 2>"$tmp/err.txt"
rc=$?
cat "$tmp/table.txt" "$tmp/err.txt"
check "compile exits 0" test $rc -eq 0
/usr/bin/python3 - "$tmp/c.json" <<'PY' || failures=$((failures + 1))
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = []
def need(ok, what):
    if not ok:
        bad.append(what)
for target, simd in (("dg2", 8), ("pvc", 16)):
    mine = [r for r in recs if r["target"] == target]
    done = [r for r in mine if r["compiled"]]
    need(len(done) == 8, f"{target}: 8 kernels compiled ({len(done)})")
    need(all(r["outcome"] == "ok" and not r["spills"] for r in done), f"{target}: no spills")
    need(all(r["simd"] == simd for r in done), f"{target}: compiled at SIMD{simd}")
    need(all(r["registers"] and r["registers"] > 0 for r in done), f"{target}: registers read")
    na = [r for r in mine if r["outcome"] == "n/a"]
    need(len(na) == 2, f"{target}: fp32 and tf32 n/a ({len(na)})")
    need(any("math=f32 is strict fp32" in r["note"] for r in na), f"{target}: f32 reason")
    need(any("math=tf32: implicit_xmx does not implement" in r["note"] for r in na),
         f"{target}: tf32 reason")
    need(not any(r["auto"] for r in mine), f"{target}: never auto's pick")
for what in bad:
    print("FAIL:", what, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
checks=$((checks + 1))

# Other vendors' profiles: n/a with the reason.
spec=n=2,c=16,h=10,w=10,k=40,r=3,pad=1,dtype=f16,math=f16
"$xconv" explain --target gfx90a --variant implicit_xmx --shape "$spec" >"$tmp/amd.txt" 2>&1
check "n/a on gfx90a: no Intel matrix engines" \
    grep -q "not applicable: implicit_xmx needs Intel's matrix engines" "$tmp/amd.txt"
"$xconv" explain --target sm_90 --variant implicit_xmx --shape "$spec" >"$tmp/nv.txt" 2>&1
check "n/a on sm_90: OpenCL only" grep -q "not applicable: .*not run on the cuda" "$tmp/nv.txt"

# dpas in the binary: the planned kernel's text (the dialect, then the kernel with its header)
# and defines (explain's) through ocloc, disassembled. Debian installs IGA as libiga64.so.1,
# where ocloc looks for libiga64.so: a link in the test's folder provides it.
iga=$(ls /usr/lib/*/libiga64.so.1 2>/dev/null | head -n1)
if [ -z "$iga" ]; then
    echo "note: Intel's disassembler (libiga64) is not installed: dpas not checked"
else
    mkdir -p "$tmp/lib" && ln -s "$iga" "$tmp/lib/libiga64.so"
    printf '#include "xconv_dialect.h"\n#line 1\n#include "implicit_xmx.cl"\n' >"$tmp/k.cl"
    for case in "dg2 f16 8 hf" "dg2 bf16 8 bf" "pvc f16 16 hf" "pvc bf16 16 bf"; do
        read -r target m sg type <<<"$case"
        "$xconv" explain --target "$target" --variant implicit_xmx \
            --shape "n=1,c=64,h=28,w=28,k=128,r=3,pad=1,dtype=$m,math=$m" >"$tmp/plan.txt"
        defines=$(sed -n 's/^ *defines: //p' "$tmp/plan.txt")
        out=$tmp/$target-$m
        ocloc compile -file "$tmp/k.cl" -device "$target" -out_dir "$out" -output k \
            -output_no_suffix -options "-cl-std=CL1.2 -I $root/common -I $root/cl $defines" \
            >"$out.log" 2>&1
        LD_LIBRARY_PATH=$tmp/lib ocloc disasm -file "$out/k" -device "$target" -dump "$out/asm" \
            >>"$out.log" 2>&1
        count=$(grep -hc "dpas\.8x8 ($sg|M0) .*:$type" "$out"/asm/implicit_xmx*.asm 2>/dev/null)
        echo "$target $m: ${count:-0} dpas.8x8 ($sg|M0) on :$type operands"
        check "$target $m: dpas at sub-group $sg on $type" test "${count:-0}" -ge 4
    done
fi

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
