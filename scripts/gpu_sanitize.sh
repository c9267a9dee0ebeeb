#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPU memory check of record: every CUDA variant of ours validated (each case checked against
# the reference) under compute-sanitizer's memcheck, and under racecheck those that use local
# memory, on the small suite and on a cut standard suite; plus VGG-11's first layer, whose flat
# direct_regblock plan once read past its local filters (issue 17), plain on both GPU backends
# and under memcheck at its full batch.
#
# The cut standard suite is the standard suite and VGG-11's first layer with each batch cut to
# the most images that stay under a number of GFLOP (memcheck 1, racecheck 0.25; at least one
# image), so the float64 host reference checks every case and no vendor kernel runs. A plan can
# depend on the batch (VGG-11's flat regblock plan is chosen at n=64, not at n=1): where the
# plan at the cut batch differs from the full shape's, the full shape's tiling is forced on the
# cut shape in an extra run (XCONV_DIRECT_PLAN, XCONV_GEMM_TILES; im2col's batch chunks are not
# forced: tests/cli/oclgrind_kernels.sh checks a partial last chunk).
#
# Usage: scripts/gpu_sanitize.sh OUTDIR [BUILD_DIR]   (BUILD_DIR default build-gpu)
# Run on the GPU host after `source scripts/gpu_env.sh .gpu`. Subsets through the environment:
#   XCONV_SANITIZE_TOOLS      tools to run, of "memcheck racecheck" (default both)
#   XCONV_SANITIZE_SETS       shape sets, of "vgg11 small standard" (default all three)
#   XCONV_SANITIZE_VARIANTS   comma-separated variants (default every CUDA variant of ours;
#                             racecheck keeps those that use local memory)
#   XCONV_SANITIZE_GFLOP      the cut standard suite's caps, memcheck's then racecheck's
#                             (default "1 0.25")
#   XCONV_SANITIZE_BUDGET_S   starts no run after this many seconds (default 540) and stops a
#                             run at 580, so the script ends inside a 10-minute command; the
#                             summary says what was left out
#   COMPUTE_SANITIZER         the compute-sanitizer binary (default: PATH, then CUDA's folders)
# Writes OUTDIR/sanitize.log (every command, its output and exit code, then the summary) and
# prints one line per (tool, variant): clean, FAIL or not run, with records, failures, the
# sanitizer's error (or hazard) count, runs and seconds. Exit code 0 only when every run was
# clean and nothing was left out.
set -u
out=${1:?usage: gpu_sanitize.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$out"
log="$out/sanitize.log"
: >"$log"
x="$build/xconv"

all_variants=direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock
all_variants=$all_variants,im2col_gemm,implicit_gemm,implicit_precomp,gemm_1x1
all_variants=$all_variants,winograd_f23,winograd_f43,winograd_f25,winograd_f23_fused
all_variants=$all_variants,winograd_f43_fused,winograd_f25_fused,fft,fft_tiled
local_memory=" direct_tiled direct_tiled_db direct_regblock im2col_gemm implicit_gemm "
local_memory="$local_memory implicit_precomp gemm_1x1 winograd_f23 winograd_f43 winograd_f25 "
local_memory="$local_memory winograd_f23_fused winograd_f43_fused winograd_f25_fused fft fft_tiled "
tools=${XCONV_SANITIZE_TOOLS:-memcheck racecheck}
sets=${XCONV_SANITIZE_SETS:-vgg11 small standard}
IFS=, read -r -a variants <<<"${XCONV_SANITIZE_VARIANTS:-$all_variants}"
budget=${XCONV_SANITIZE_BUDGET_S:-540}
read -r memcheck_cap racecheck_cap <<<"${XCONV_SANITIZE_GFLOP:-1 0.25}"
declare -A gflop_cap=([memcheck]=$memcheck_cap [racecheck]=$racecheck_cap)
vgg11=n=64,c=3,h=100,w=100,k=32,r=3,pad=1
hard_limit=$((budget + 40))

say() {  # say TEXT...: to the terminal and the log
    echo "$*" | tee -a "$log"
}

checked() {  # checked VARIANT: whether VARIANT is one of those this run checks
    [[ " ${variants[*]} " == *" $1 "* ]]
}

for tool in $tools; do
    if [ "$tool" != memcheck ] && [ "$tool" != racecheck ]; then
        say "gpu_sanitize: unknown tool '$tool' (memcheck or racecheck)"
        exit 2
    fi
done

cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer)}
for candidate in /usr/local/cuda/bin/compute-sanitizer \
                 /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -z "$cs" ] && [ -x "$candidate" ] && cs=$candidate
done
if [ -z "$cs" ] || [ ! -x "$x" ]; then
    say "gpu_sanitize: needs compute-sanitizer (${cs:-not found}) and $x"
    exit 2
fi
say "gpu_sanitize: $("$cs" --version 2>&1 | tail -n 1); $("$x" --version 2>&1)"
say "gpu_sanitize: tools '$tools', sets '$sets', variants ${variants[*]}, budget ${budget} s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$log" 2>&1

# ---------------------------------------------------------------------------------------------
# Shapes

# The standard suite's shapes (from the CLI's own CSV record of it) and VGG-11's first layer.
"$x" validate --suite standard --variant cpu_ref --csv "$out/.standard.csv" >/dev/null 2>&1
mapfile -t standard < <(python3 -c '
import csv, sys
print("\n".join(row["shape"] for row in csv.DictReader(open(sys.argv[1]))))' \
    "$out/.standard.csv")
rm -f "$out/.standard.csv"
if ((${#standard[@]} < 2)); then
    say "gpu_sanitize: could not read the standard suite's shapes from $x validate --csv"
    exit 2
fi
standard+=("$vgg11")

# cut_batch CAP SPEC: SPEC with n cut to the most images whose work stays under CAP GFLOP.
cut_batch() {
    python3 - "$1" "$2" <<'EOF'
import sys
cap, spec = float(sys.argv[1]), sys.argv[2]
kv = dict(item.split("=") for item in spec.split(","))
def get(key, default):
    return int(kv.get(key, kv.get(key.split("_")[0], default)))
n, c, k, g = get("n", 1), get("c", 1), get("k", 1), get("groups", 1)
r = get("r", 1)
s = int(kv.get("s", r))
def out(size, f, axis):
    return (size + 2 * get("pad_" + axis, 0) - get("dil_" + axis, 1) * (f - 1) - 1) \
        // get("stride_" + axis, 1) + 1
p, q = out(int(kv["h"]), r, "h"), out(int(kv["w"]), s, "w")
per_image = 2.0 * k * p * q * (c // g) * r * s / 1e9
cut = max(1, min(n, int(cap / per_image)))
print(spec.replace("n=%d" % n, "n=%d" % cut, 1))
EOF
}

# plan_key VARIANT SPEC: the tuning that explain shows for VARIANT on SPEC through CUDA, as the
# environment that forces it ("" for variants with none, "?" when explain fails).
plan_key() {
    local text
    text=$("$x" explain --device cuda:0 --shape "$2" --variant "$1" 2>&1) || {
        echo "?"
        return
    }
    python3 - "$1" "$text" <<'EOF'
import re, sys
variant, text = sys.argv[1], sys.argv[2]
d = dict(re.findall(r"-D(X[CD]_\w+)=(-?\d+)", text))
if "XD_WG_W" in d:
    keys = "WG_W WG_H BLOCK_W BLOCK_H BLOCK_K STRIP_W FLAT UNROLL_C REPEAT VEC_Q".split()
    print("XCONV_DIRECT_PLAN=%s:%s" % (variant, ",".join(d["XD_" + k] for k in keys)))
elif "XC_GEMM_TILE_M" in d:
    keys = "TILE_M TILE_N TILE_K WPT_M WPT_N VW PAD".split()
    split = d.get("XC_GEMM_SPLIT_K", "1")  # the split-K as the eighth field (1: none)
    print("XCONV_GEMM_TILES=" + ",".join([d["XC_GEMM_" + k] for k in keys] + [split]))
else:
    print("")
EOF
}

# ---------------------------------------------------------------------------------------------
# Runs

declare -A records failed errors runs seconds bad skipped
reproducer_failed=0
start=$SECONDS

# sanitized TOOL VARIANT LABEL [NAME=VALUE...] -- VALIDATE_ARGUMENT...: validate VARIANT on
# cuda:0 under TOOL with the environment given, logged, and counted in the (TOOL, VARIANT) row.
sanitized() {
    local tool=$1 variant=$2 label=$3 env=()
    shift 3
    while [ "$1" != "--" ]; do
        env+=("$1")
        shift
    done
    shift
    local key="$tool $variant"
    if ((SECONDS - start > budget)); then
        skipped[$key]=$((${skipped[$key]:-0} + 1))
        echo "--- $key, $label: not run (budget of $budget s spent)" >>"$log"
        return
    fi
    local t0=$SECONDS text rc limit=$((hard_limit - (SECONDS - start)))
    ((limit < 10)) && limit=10
    {
        echo "--- $key, $label"
        echo "+ ${env[*]} $cs --tool $tool $x validate --device cuda:0 --variant $variant $*"
    } >>"$log"
    # API errors are not reported: xconv checks every driver call's result itself (a failing one
    # fails the run), and the CUDA backend's parameter check asks cuFuncGetParamInfo one index
    # past a kernel's last parameter by design, which the driver answers with
    # CUDA_ERROR_INVALID_VALUE. Device memory errors and races are what this script checks.
    text=$(env "${env[@]}" timeout "$limit" "$cs" --tool "$tool" --error-exitcode 99 \
        --report-api-errors no --print-limit 20 "$x" validate --device cuda:0 \
        --variant "$variant" "$@" 2>&1)
    rc=$?
    echo "$text" | tr '\r' '\n' | grep -v '^\[[0-9]' >>"$log"
    echo "exit code $rc, $((SECONDS - t0)) s$( ((rc == 124)) && echo ": stopped at the limit")" \
        >>"$log"
    local rec nrec fail err
    rec=$(grep -oE '^[0-9]+ records: [0-9]+ failed' <<<"$text" | tail -n 1)
    nrec=${rec%% *}
    fail=$(grep -oE '[0-9]+ failed' <<<"$rec" | grep -oE '^[0-9]+')
    # memcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N hazards displayed
    # (E errors, W warnings)", whose hazards are counted.
    err=$(grep -oE '(ERROR SUMMARY: [0-9]+|RACECHECK SUMMARY: [0-9]+)' <<<"$text" | tail -n 1 |
        grep -oE '[0-9]+$')
    records[$key]=$((${records[$key]:-0} + ${nrec:-0}))
    failed[$key]=$((${failed[$key]:-0} + ${fail:-0}))
    errors[$key]=$((${errors[$key]:-0} + ${err:-0}))
    runs[$key]=$((${runs[$key]:-0} + 1))
    seconds[$key]=$((${seconds[$key]:-0} + SECONDS - t0))
    # Clean: exit 0 (all records pass, no sanitizer error), a records line and a summary line.
    if [ "$rc" -ne 0 ] || [ -z "$rec" ] || [ -z "$err" ] || [ "${err:-1}" -ne 0 ]; then
        bad[$key]=1
    fi
}

# standard_runs TOOL VARIANT: the cut standard suite in one run, then one run per shape whose
# plan at the cut batch differs from the full shape's, with the full shape's tiling forced.
standard_runs() {
    local tool=$1 variant=$2 spec cut full_key cut_key args=() forced=()
    if ((SECONDS - start > budget)); then
        sanitized "$tool" "$variant" "standard cut" --  # counted as not run
        return
    fi
    for spec in "${standard[@]}"; do
        cut=$(cut_batch "${gflop_cap[$tool]}" "$spec")
        args+=(--shape "$cut")
        full_key=$(plan_key "$variant" "$spec")
        cut_key=$(plan_key "$variant" "$cut")
        if [ "$full_key" != "$cut_key" ] && [ "$full_key" != "?" ]; then
            forced+=("$cut|$full_key")
            echo "plan of $variant on $cut differs from $spec's: forcing '$full_key'" >>"$log"
        fi
    done
    sanitized "$tool" "$variant" "standard cut at ${gflop_cap[$tool]} GFLOP" -- "${args[@]}" \
        --host-ref-gflop 4
    local entry env_words
    for entry in "${forced[@]}"; do
        read -r -a env_words <<<"${entry#*|}"
        # The forced tiling must take: the cut shape's plan then is the full shape's.
        if [ "$(export "${env_words[@]}"; plan_key "$variant" "${entry%%|*}")" != \
            "${entry#*|}" ]; then
            echo "--- $tool $variant: forcing '${entry#*|}' on ${entry%%|*} did not take" >>"$log"
            bad["$tool $variant"]=1
        fi
        sanitized "$tool" "$variant" "${entry%%|*} with the full shape's plan" \
            "${env_words[@]}" -- --shape "${entry%%|*}" --host-ref-gflop 4 --verbose
    done
}

# ---------------------------------------------------------------------------------------------
# The checks

if [[ " $sets " == *" vgg11 "* ]]; then
    # The issue's reproducer, plain, through both GPU backends: every variant of ours passes.
    say "+ $x validate --shape $vgg11 --device nvidia --device cuda:0 --variant <ours>"
    text=$("$x" validate --shape "$vgg11" --device nvidia --device cuda:0 \
        --variant "$all_variants" --host-ref-gflop 2 2>&1)
    rc=$?
    echo "$text" | grep -v '^\[[0-9]' >>"$log"
    say "reproducer VGG-11 layer 1, both backends: $(tail -n 1 <<<"$text"), exit code $rc"
    [ "$rc" -eq 0 ] || reproducer_failed=1
    if [[ " $tools " == *" memcheck "* ]] && checked direct_regblock; then
        sanitized memcheck direct_regblock "VGG-11 layer 1 at n=64" -- --shape "$vgg11" \
            --host-ref-gflop 2 --verbose
    fi
fi
for tool in $tools; do
    for variant in "${variants[@]}"; do
        [ "$tool" = racecheck ] && [[ "$local_memory" != *" $variant "* ]] && continue
        [[ " $sets " == *" small "* ]] &&
            sanitized "$tool" "$variant" "small suite" -- --suite small
    done
done
for tool in $tools; do
    for variant in "${variants[@]}"; do
        [ "$tool" = racecheck ] && [[ "$local_memory" != *" $variant "* ]] && continue
        [[ " $sets " == *" standard "* ]] && standard_runs "$tool" "$variant"
    done
done

# ---------------------------------------------------------------------------------------------
# Summary

status=$reproducer_failed
say ""
say "summary (tool, variant: outcome, records, failed, sanitizer errors/hazards, runs, seconds)"
for tool in $tools; do
    for variant in "${variants[@]}"; do
        [ "$tool" = racecheck ] && [[ "$local_memory" != *" $variant "* ]] && continue
        key="$tool $variant"
        outcome=clean
        [ -n "${bad[$key]:-}" ] && outcome=FAIL
        [ -n "${skipped[$key]:-}" ] &&
            outcome="$outcome but partial, ${skipped[$key]} run(s) left out for the budget"
        [ -z "${runs[$key]:-}" ] && outcome="not run (budget)"
        [ "$outcome" = clean ] || status=1
        say "$(printf '%-9s %-16s %s: %d records, %d failed, %d %s, %d runs, %d s' "$tool" \
            "$variant" "$outcome" "${records[$key]:-0}" "${failed[$key]:-0}" \
            "${errors[$key]:-0}" "$([ "$tool" = racecheck ] && echo hazards || echo errors)" \
            "${runs[$key]:-0}" "${seconds[$key]:-0}")"
    done
done
say "gpu_sanitize: $((SECONDS - start)) s; log $log"
exit "$status"
