#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-stack validation (docs/guide/reading-results.md): every variant on a sample of random
# shapes on PoCL and on Mesa's Rusticl (its CPU device, which RUSTICL_ENABLE=llvmpipe asks for),
# and on Rusticl the small suite too (small_suite.sh runs it on PoCL). Without RUSTICL_ENABLE,
# `xconv devices` says how to enable Rusticl. Skips (exit 77) when neither stack is installed,
# and after PoCL's part passed when Rusticl is not (Debian: mesa-opencl-icd).
# Usage: stacks.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

RANDOM_SHAPES=8  # shapes per stack: two of each kind (plain, grouped, depthwise, 1x1)
SEED=25

RUSTICL_ENABLE=llvmpipe "$xconv" devices >"$tmp/devices.txt" 2>&1
stacks=()
grep -q "platform Portable Computing Language" "$tmp/devices.txt" && stacks+=(pocl)
grep -q "platform rusticl" "$tmp/devices.txt" && stacks+=(rusticl)
if [ ${#stacks[@]} -eq 0 ]; then
    echo "SKIP: neither PoCL nor Rusticl lists a device (install pocl-opencl-icd and" \
        "mesa-opencl-icd)"
    exit 77
fi

# passes LABEL JSON MIN_PASS: every record of the results file passed or did not apply, and at
# least MIN_PASS passed.
passes() {
    check "$1: every record passes or does not apply, at least $3 pass" python3 -c '
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
bad = [r for r in recs if r["outcome"] not in ("pass", "not_applicable")]
for r in bad:
    print("  %s %s: %s %s" % (r["variant"], r["shape"], r["outcome"], r["note"]))
passed = sum(r["outcome"] == "pass" for r in recs)
print("  %d records, %d passed" % (len(recs), passed))
sys.exit(1 if bad or passed < int(sys.argv[2]) else 0)' "$2" "$3"
}

# validate STACK LABEL ARGS...: xconv validate on STACK's device exits 0 with no failure.
validate() {
    local stack=$1 label=$2
    shift 2
    RUSTICL_ENABLE=llvmpipe "$xconv" validate --device "$stack" --json "$tmp/$stack.json" "$@" \
        >"$tmp/out.txt" 2>"$tmp/err.txt"
    local rc=$?
    check "$label on $stack: validate exits 0" test "$rc" -eq 0 || cat "$tmp/out.txt" "$tmp/err.txt"
    check "$label on $stack: no failure" grep -q " 0 failed or errored" "$tmp/out.txt"
}

for stack in "${stacks[@]}"; do
    if [ "$stack" = rusticl ]; then
        validate rusticl "small suite"
        passes "small suite on rusticl" "$tmp/rusticl.json" 150
    fi
    validate "$stack" "$RANDOM_SHAPES random shapes" --random "$RANDOM_SHAPES" --seed "$SEED"
    passes "random shapes on $stack" "$tmp/$stack.json" $((RANDOM_SHAPES * 8))
    check "random shapes on $stack: each printed with its spec" \
        test "$(grep -c '^rand[0-9]*: n=' "$tmp/err.txt")" -eq "$RANDOM_SHAPES"
    # Timing: positive times, or a refusal where the device's profiling clock does not advance
    # (Mesa 22.3's Rusticl); never a run read as 0 ms.
    RUSTICL_ENABLE=llvmpipe "$xconv" bench --device "$stack" --random 1 --variant direct_naive \
        --repeat 2 --warmup 1 --json "$tmp/bench.json" >/dev/null 2>&1
    check "bench on $stack: positive times or the clock refused" python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["records"]:
    timed = r["outcome"] == "pass" and r["min_ms"] > 0
    refused = r["outcome"] == "error" and "profiling clock does not advance" in r["note"]
    assert timed or refused, r' "$tmp/bench.json"
done

if [[ " ${stacks[*]} " != *" rusticl "* ]]; then
    echo "stacks: PoCL: $((checks - failures)) passed, $failures failed"
    [ "$failures" -eq 0 ] || exit 1
    echo "SKIP: Rusticl lists no device even with RUSTICL_ENABLE=llvmpipe (install" \
        "mesa-opencl-icd)"
    exit 77
fi

# Rusticl installed but not enabled: the device list says how, as advice, not an error.
env -u RUSTICL_ENABLE "$xconv" devices >"$tmp/plain.txt" 2>&1
check "devices without RUSTICL_ENABLE lists no llvmpipe device" \
    bash -c "! grep -q 'platform rusticl' '$tmp/plain.txt'"
check "devices without RUSTICL_ENABLE says how to enable Rusticl" \
    grep -q "^opencl: platform 'rusticl' (Mesa's Rusticl) lists no device: .*RUSTICL_ENABLE=llvmpipe" \
    "$tmp/plain.txt"
env -u RUSTICL_ENABLE "$xconv" validate --device rusticl >"$tmp/plain.txt" 2>&1
check "--device rusticl without RUSTICL_ENABLE is refused with the advice" \
    grep -q "RUSTICL_ENABLE=llvmpipe" "$tmp/plain.txt"
# Rusticl's ICD alone (Debian installs it as /etc/OpenCL/vendors/rusticl.icd): no device at all,
# an error, and the advice beside it.
if [ -f /etc/OpenCL/vendors/rusticl.icd ]; then
    mkdir "$tmp/vendors" && cp /etc/OpenCL/vendors/rusticl.icd "$tmp/vendors/"
    env -u RUSTICL_ENABLE OCL_ICD_VENDORS="$tmp/vendors" "$xconv" devices >"$tmp/alone.txt" 2>&1
    check "devices with Rusticl's platform alone and empty exits 1" test $? -eq 1
    check "devices with Rusticl's platform alone and empty gives the advice" \
        grep -q "RUSTICL_ENABLE=llvmpipe gives its CPU device" "$tmp/alone.txt"
fi

echo "stacks: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
