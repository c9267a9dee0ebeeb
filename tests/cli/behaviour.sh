#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv behaviour (docs/behaviour.md) on the stacks CI has, in one run: PoCL, Mesa's Rusticl
# (RUSTICL_ENABLE=llvmpipe) and Oclgrind (its runtime added as an ICD beside the installed ones).
# Checks the JSON's structure and known facts: a record for every OpenCL variant of the registry
# on every stack, every shape passed and deterministic, NaN and Inf where IEEE arithmetic over
# the zero-padded input puts them, denormals kept on PoCL and Oclgrind, an agreement row for
# every variant and pair of stacks, xconv's own kernels bitwise identical across the stacks; then
# the report page of a validate file with the behaviour file beside it (xmllint). The accuracy
# shapes are the probes' three problem sizes, so nothing is compiled for them alone. Rusticl's
# and Oclgrind's parts are skipped with a message when absent, Oclgrind's in the sanitizer build.
# Skips (exit 77) without PoCL.
# Usage: behaviour.sh PATH/TO/xconv
set -u
xconv=$1
here=$(dirname "${BASH_SOURCE[0]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
# shellcheck source=checks.bash
source "$here/checks.bash"

# The probes' problem sizes (cli/behaviour_cases.c); the JSON check below confirms them.
shapes=(n=2,c=4,h=7,w=9,k=4,r=3,pad=1
        n=2,c=4,h=9,w=11,k=4,r=3,s=2,stride_h=2,pad=1,dil_w=2,groups=2
        n=2,c=6,h=5,w=7,k=4,r=1)

# Usage errors need no device.
"$xconv" behaviour --shape n=1,c=1,h=3000,w=3000,k=64,r=5 --json "$tmp/big.json" \
    >"$tmp/out.txt" 2>&1
check "a shape past the host reference exits 2" test $? -eq 2
check "and says why" grep -q "more than the float64 host reference's limit" "$tmp/out.txt"
check "and writes no file" test ! -e "$tmp/big.json"
"$xconv" behaviour --device no-such-device >"$tmp/out.txt" 2>&1
check "an unknown device exits 2" test $? -eq 2

# The stacks: the installed ICDs (those of OCL_ICD_VENDORS where set, as the sanitizer build
# does), Rusticl's CPU device, and Oclgrind's runtime as one more ICD.
mkdir "$tmp/vendors"
cp "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"/*.icd "$tmp/vendors/" 2>/dev/null
oclgrind_icd=""
if [ -n "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "SKIPPED PART: Oclgrind in the sanitizer build (the plain build runs it)"
elif command -v oclgrind >/dev/null 2>&1; then
    prefix=$(dirname "$(dirname "$(readlink -f "$(command -v oclgrind)")")")
    oclgrind_icd=$(ls "$prefix"/lib/oclgrind/liboclgrind-rt-icd.so \
        "$prefix"/lib/*/oclgrind/liboclgrind-rt-icd.so 2>/dev/null | head -1)
    [ -n "$oclgrind_icd" ] && echo "$oclgrind_icd" >"$tmp/vendors/oclgrind.icd"
fi
export OCL_ICD_VENDORS=$tmp/vendors RUSTICL_ENABLE=llvmpipe
"$xconv" devices >"$tmp/devices.txt" 2>&1
stacks=()
grep -q "platform Portable Computing Language" "$tmp/devices.txt" && stacks+=(pocl)
if ! grep -q "platform Portable Computing Language" "$tmp/devices.txt"; then
    echo "SKIP: no PoCL device (install pocl-opencl-icd); $checks checks, $failures failed"
    [ "$failures" -eq 0 ] || exit 1
    exit 77
fi
if grep -q "platform rusticl" "$tmp/devices.txt"; then
    stacks+=(rusticl)
else
    echo "SKIPPED PART: Rusticl lists no device (install mesa-opencl-icd)"
fi
if grep -q "platform Oclgrind" "$tmp/devices.txt"; then
    stacks+=(oclgrind)
elif [ -z "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "SKIPPED PART: Oclgrind's runtime not found (install oclgrind)"
fi
echo "stacks: ${stacks[*]}"

# ---------------------------------------------------------------------------------------------
# The run

args=()
for s in "${shapes[@]}"; do args+=(--shape "$s"); done
for s in "${stacks[@]}"; do args+=(--device "$s"); done
"$xconv" behaviour "${args[@]}" --json "$tmp/b.json" >"$tmp/table.txt" 2>"$tmp/err.txt"
rc=$?
check "behaviour exits 0" test "$rc" -eq 0 || cat "$tmp/err.txt"
sed -n '/^stack /,/^Rounding/p' "$tmp/table.txt" | head -60
"$xconv" variants | awk 'NR > 1 && $3 ~ /opencl/ {print $1}' >"$tmp/variants.txt"
check "the registry lists OpenCL variants" test "$(wc -l <"$tmp/variants.txt")" -ge 10
check "the table has a row per stack and OpenCL variant" \
    test "$(grep -cE "^($(IFS='|'; echo "${stacks[*]}")) " "$tmp/table.txt")" \
        -eq $(( ${#stacks[@]} * $(wc -l <"$tmp/variants.txt") ))
check "the table ends with each stack's rounding controls" \
    test "$(grep -c "xconv kernels built with: -cl-std=CL1.2; #pragma OPENCL FP_CONTRACT OFF" \
        "$tmp/table.txt")" -eq "${#stacks[@]}"

check "the JSON's structure and known facts" python3 - "$tmp/b.json" "$tmp/variants.txt" \
    "${stacks[*]}" "${shapes[@]}" <<'PY'
import json, sys
path, variants_file, stacks = sys.argv[1], sys.argv[2], sys.argv[3].split()
shapes = sys.argv[4:]
d = json.load(open(path))
variants = open(variants_file).read().split()
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)

# Structure.
need(d["tool"] == "xconv" and d["kind"] == "behaviour" and d["schema_version"] == 1, "header")
for key in ("version", "commit", "date", "command", "host", "seed", "host_ref_gflop"):
    need(key in d, "top-level " + key)
need(len(d["shapes"]) == len(shapes), "every shape given")
probes = ["nan_inf_weights", "nan_inf_inputs", "minus_zero", "denormal_inputs",
          "denormal_weights", "denormal_products", "denormal_sums"]
need(sorted({p["shape"] for p in d["probe_problems"]}) == sorted(s["shape"] for s in d["shapes"]),
     "the probes use the shapes this test runs")
need([p["probe"] for p in d["probe_problems"][::2]] == probes, "two problems per probe")
ids = [s["id"] for s in d["stacks"]]
need(ids == stacks, "stacks %s, want %s" % (ids, stacks))
for s in d["stacks"]:
    need(s["build_flags"] == "-cl-std=CL1.2; #pragma OPENCL FP_CONTRACT OFF", s["id"] + " flags")
    need("round_to_nearest" in s["fp32_config"], s["id"] + " fp32 config")
byname = {s["id"]: s for s in d["stacks"]}
need("denorm" in byname["pocl"]["fp32_config"], "PoCL reports denormals")
if "rusticl" in byname:
    need("denorm" not in byname["rusticl"]["fp32_config"], "Rusticl reports no denormals")
recs = {(r["stack"], r["variant"]): r for r in d["records"]}
need(len(recs) == len(d["records"]), "one record per stack and variant")
need(set(recs) == {(s, v) for s in stacks for v in variants},
     "a record per stack and OpenCL variant of the registry")

# Variants that apply to none of these shapes (3x3 and 1x1 filters): F(2x2,5x5) takes 5x5 only;
# direct_depthwise depthwise layers only (these read several input channels an output channel;
# tests/cli/depthwise.sh checks it bitwise against direct_naive); and implicit_mma and
# implicit_xmx, which need NVIDIA tensor cores or Intel's matrix engines and a reduced math mode
# (none of these stacks has either, the probes ask strict fp32).
no_shape = {"winograd_f25", "winograd_f25_fused", "direct_depthwise", "implicit_mma",
            "implicit_xmx"}
# Denormal probes a Winograd algorithm with 6x6 tiles does not keep: its filter transform
# scales denormal weights by fractions (1/6, 2/15, ...), rounding them on the coarse denormal
# grid, and its output transform multiplies denormal products by up to 8.
winograd_denormals = {"denormal_weights", "denormal_products"}

# Facts about every record.
for (stack, variant), r in recs.items():
    name = "%s %s" % (stack, variant)
    a = r["accuracy"]
    need(len(r["shapes"]) == len(shapes), name + ": a result per shape")
    if variant in no_shape:
        need(a["passed"] + a["failed"] + a["errors"] == 0 and
             a["not_applicable"] == len(shapes), name + ": not applicable to any shape")
        continue
    need([p["probe"] for p in r["probes"]] == probes, name + ": every probe")
    ran = a["passed"] + a["failed"]
    need(a["failed"] == 0 and a["errors"] == 0, name + ": every shape that ran passed")
    need(ran + a["not_applicable"] == len(shapes), name + ": shapes counted")
    need(ran > 0, name + ": ran a shape")
    det = r["determinism"]
    need(det["compared"] == ran and det["deterministic"] is True, name + ": deterministic")
    need(a["max_block_err"] <= r["threshold"], name + ": within its threshold")
    for p in r["probes"]:
        # Neither the Winograd nor the FFT family takes nan_inf_inputs' problems (strided,
        # dilated or 1x1).
        if r["family"] in ("winograd", "fft") and p["probe"] == "nan_inf_inputs":
            need(p["ran"] == 0 and p["verdict"] == "n/a", "%s: %s ran" % (name, p["probe"]))
            continue
        need(p["ran"] > 0, "%s: ran probe %s" % (name, p["probe"]))
        if p["kind"] == "special":
            # Direct and GEMM kernels, CLBlast and the references follow the rule exactly;
            # an algorithm computing blocks together may spread a NaN inside its blocks.
            exact = r["family"] in ("direct", "gemm", "reference") or variant.startswith("clblast")
            want = ("exact",) if exact else ("exact", "block")
            need(p["verdict"] in want, "%s: %s %s" % (name, p["probe"], p["verdict"]))
    verdicts = {p["probe"]: p["verdict"] for p in r["probes"]}
    if stack in ("pocl", "oclgrind"):
        # FFT convolution forms no product x*w: its spectra are scaled by 1/(L_h*L_w) and summed
        # over the plane, so results in the denormal range are not kept as such.
        for probe in probes[3:] if r["family"] != "fft" else ():
            if r["family"] == "winograd" and "f23" not in variant and probe in winograd_denormals:
                continue
            need(verdicts[probe] == "kept", "%s: %s %s" % (name, probe, verdicts[probe]))
        if r["family"] in ("direct", "gemm"):
            need(verdicts["minus_zero"] == "+0", "%s: -0 gives %s" % (name, verdicts["minus_zero"]))

# What differs on Rusticl (Mesa 22.3.6 on Debian 12; docs/behaviour.md explains it and must
# change with these lines): its fma() reads denormal operands as zero, so xconv's kernels, which
# accumulate with XC_FMA, flush denormal inputs, while CLBlast's kernels keep every denormal.
if "rusticl" in stacks:
    for (stack, variant), r in recs.items():
        verdicts = {p["probe"]: p["verdict"] for p in r["probes"]}
        if stack == "rusticl" and r["kernels"] == "xconv" and r["family"] in ("direct", "gemm"):
            need(verdicts["denormal_inputs"] == "flushed", variant + " on rusticl keeps denormals")
        if stack == "rusticl" and "vendor" in r["kernels"]:
            need(all(verdicts[p] == "kept" for p in probes[3:]), variant + " on rusticl flushes")

# Agreement: a row per variant and pair of stacks; xconv's own kernels agree bit for bit, and
# CLBlast's (built with the compiler's default contraction) agree between PoCL and Oclgrind,
# which fuse its multiply-adds, but not with Rusticl, which does not.
rows = {(g["variant"], tuple(g["stacks"])): g for g in d["agreement"]}
for v in (v for v in variants if v not in no_shape):
    for i, a in enumerate(stacks):
        for b in stacks[i + 1:]:
            g = rows.get((v, (a, b)))
            need(g is not None and g["shapes"] > 0, "agreement %s %s:%s" % (v, a, b))
            if g and recs[(a, v)]["kernels"] == "xconv":
                need(g["bitwise_identical"] and g["max_ulp"] == 0,
                     "%s: %s and %s differ (%s)" % (v, a, b, g["share_differing"]))
            if g and "vendor" in recs[(a, v)]["kernels"] and {a, b} == {"pocl", "oclgrind"}:
                need(g["bitwise_identical"], "%s: pocl and oclgrind differ" % v)
            if g and "vendor" in recs[(a, v)]["kernels"] and "rusticl" in (a, b):
                need(not g["bitwise_identical"], "%s: %s and %s agree" % (v, a, b))
for b in bad:
    print("  " + b)
print("  %d records, %d agreement rows, %d problems" % (len(recs), len(rows), len(bad)))
sys.exit(1 if bad else 0)
PY

# ---------------------------------------------------------------------------------------------
# The report page: a validate file with the behaviour file beside it, and the behaviour alone

"$xconv" validate --shape "${shapes[0]}" --variant direct_naive --device pocl \
    --json "$tmp/v.json" >/dev/null 2>&1
check "validate for the page exits 0" test $? -eq 0
"$xconv" report "$tmp/v.json" "$tmp/b.json" -o "$tmp/page.html" >"$tmp/out.txt" 2>&1
check "report with a behaviour file exits 0" test $? -eq 0 || cat "$tmp/out.txt"
check "the summary has the behaviour line" \
    grep -q "^behaviour b.json: ${#stacks[@]} stacks, .* 0 fail a shape, 0 not deterministic" \
    "$tmp/out.txt"
if command -v xmllint >/dev/null 2>&1; then
    check "the page is well-formed XHTML" xmllint --noout "$tmp/page.html"
else
    echo "SKIPPED PART: xmllint is missing (Debian: libxml2-utils)"
fi
check "the page has the behaviour section" grep -q '<section id="behaviour-1">' "$tmp/page.html"
check "and the device section" grep -q '<h3>Heatmap</h3>' "$tmp/page.html"
check "a row per record" test "$(grep -c '<tr><td>\(pocl\|rusticl\|oclgrind\)</td><td>' \
    "$tmp/page.html")" -ge "$(grep -cE "^($(IFS='|'; echo "${stacks[*]}")) " "$tmp/table.txt")"
check "no number is NaN or infinite on the page" \
    bash -c "! grep -qE '[^a-zA-Z_](nan|inf|-nan|-inf)[^a-zA-Z_]' '$tmp/page.html'"
"$xconv" report "$tmp/b.json" -o "$tmp/alone.html" >/dev/null 2>&1
check "a behaviour file alone makes a page" grep -q "<title>xconv behaviour report</title>" \
    "$tmp/alone.html"
"$xconv" report "$tmp/b.json" --compare "$tmp/v.json" -o "$tmp/cmp.html" >"$tmp/out.txt" 2>&1
check "--compare refuses a behaviour file" test $? -eq 2
"$xconv" devices --json >"$tmp/devices.json" 2>/dev/null
check "devices --json says each device's fp32 config and build flags" python3 -c '
import json, sys
for d in json.load(open(sys.argv[1]))["devices"]:
    assert isinstance(d["fp32_config"], list) and d["build_flags"], d' "$tmp/devices.json"

echo "behaviour on ${stacks[*]}: $((checks - failures)) passed, $failures failed," \
    "$(( $(date +%s) - start )) s"
[ "$failures" -eq 0 ] || exit 1
if [ ${#stacks[@]} -lt 3 ] && [ -z "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "(ran on ${#stacks[@]} of the 3 stacks CI installs)"
fi
