#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI refuses bad input with a message naming what is wrong, a non-zero exit, and no partial
# output file. Usage: errors.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0

# expect CODE PATTERN -- ARGS...: the command exits with CODE and its stderr matches PATTERN.
expect() {
    local code=$1 pattern=$2
    shift 3
    checks=$((checks + 1))
    "$xconv" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$code" ] || ! grep -qiE -- "$pattern" "$tmp/err" "$tmp/out"; then
        failures=$((failures + 1))
        echo "FAIL: xconv $* exited $got (want $code), output:" >&2
        cat "$tmp/err" "$tmp/out" >&2
    fi
}

expect 2 "unknown command" -- frobnicate
expect 2 "unknown option '--bogus'" -- validate --bogus
expect 2 "does not apply" -- devices --repeat 3
expect 2 "bad value 'abc' for --repeat" -- bench --repeat abc
expect 2 "needs a value" -- validate --shape
expect 2 "unknown key 'x'" -- run --shape n=1,c=1,h=8,w=8,k=1,r=3,x=3
expect 2 "groups" -- run --shape n=1,c=6,h=8,w=8,k=4,r=3,groups=4
expect 2 "empty output|larger than" -- run --shape n=1,c=1,h=2,w=2,k=1,r=5
expect 2 "unknown variant 'nope'.*direct_naive" -- validate --variant nope
expect 2 "unknown suite 'huge'" -- validate --suite huge
expect 2 "--random 300: at most 256 shapes" -- validate --random 300
expect 2 "bad value '-1' for --random" -- validate --random -1
# Past int64_t: results files would hold a seed their reader (Jansson) refuses.
expect 2 "bad value '9223372036854775808' for --seed" -- validate --seed 9223372036854775808
expect 2 "give --shape" -- run
expect 2 "--input and --weights go together" -- run --input "$tmp/x.npy"
expect 0 "Usage: xconv validate" -- validate --help

# Malformed .npy files are refused by name and leave no output file behind.
printf 'not a numpy file at all' >"$tmp/bad.npy"
expect 2 "bad.npy" -- run --input "$tmp/bad.npy" --weights "$tmp/bad.npy" --output "$tmp/y.npy"
checks=$((checks + 1))
if [ -e "$tmp/y.npy" ]; then
    failures=$((failures + 1))
    echo "FAIL: a refused run left $tmp/y.npy behind" >&2
fi
expect 2 "missing.npy" -- run --input "$tmp/missing.npy" --weights "$tmp/missing.npy"

# A tensor past the device's largest allocation is refused before any work (PoCL allows 1 GiB
# or so; 2^30.6 floats of x pass it on any device with less than 6 GiB per buffer).
if "$xconv" devices 2>/dev/null | grep -q "largest allocation [0-9]\{1,4\} MiB"; then
    expect 1 "largest allocation" -- run --shape n=1,c=1,h=40000,w=40000,k=1,r=1 --device 0
fi

# The environment's forced plans reach the library through the CLI: one that does not parse is
# refused by name, with exit 2; `run` says what its --variant defaults to.
if "$xconv" devices >/dev/null 2>&1; then
    checks=$((checks + 1))
    XCONV_DIRECT_PLAN=direct_const:1,2 "$xconv" run --shape n=1,c=2,h=8,w=8,k=2,r=3 \
        --variant direct_const >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne 2 ] || ! grep -q "XCONV_DIRECT_PLAN='direct_const:1,2'.*8 to 10 integers" "$tmp/err"; then
        failures=$((failures + 1))
        echo "FAIL: a malformed XCONV_DIRECT_PLAN exited $got:" >&2
        cat "$tmp/err" >&2
    fi
fi
expect 0 "auto for the library's choice \(the default\)" -- run --help

# Lists and keys that would have been taken silently.
expect 2 "^xconv validate: --variant ',,' has an empty name" -- validate --variant ,,
expect 2 "--variant 'cpu_ref,,' has an empty name" -- validate --variant cpu_ref,,
expect 2 "has an empty name" -- run --shape n=1,c=1,h=4,w=4,k=1,r=1 --variant ,direct_naive
expect 2 "^xconv run: --shape: shape 'n=1,c=1,h=5,w=5,r=1': k is required" -- \
    run --shape n=1,c=1,h=5,w=5,r=1
expect 2 "n is required" -- validate --shape c=1,h=5,w=5,k=1,r=1
# Messages start with "xconv COMMAND: " and name the variant once.
expect 2 "^xconv validate: unknown suite 'huge'" -- validate --suite huge
expect 2 "^xconv bench: --repeat must be at least 1" -- bench --repeat 0
expect 2 "^xconv explain: give --shape" -- explain
if "$xconv" devices >/dev/null 2>&1; then
    expect 1 "^xconv run: gemm_1x1 needs a 1x1 filter" -- \
        run --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant gemm_1x1
    checks=$((checks + 1))
    if [ "$(grep -o gemm_1x1 "$tmp/err" | wc -l)" -ne 1 ]; then
        failures=$((failures + 1))
        echo "FAIL: the refusal names gemm_1x1 more than once:" >&2
        cat "$tmp/err" >&2
    fi
    # XCONV_DEVICE is named as itself, not as --device.
    checks=$((checks + 1))
    XCONV_DEVICE=zz "$xconv" run --shape n=1,c=1,h=4,w=4,k=1,r=1 >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne 2 ] || ! grep -q "^xconv run: XCONV_DEVICE: device 'zz' matches no device" \
        "$tmp/err" || grep -q -- "--device" "$tmp/err"; then
        failures=$((failures + 1))
        echo "FAIL: XCONV_DEVICE=zz exited $got:" >&2
        cat "$tmp/err" >&2
    fi
    # devices --device filters the listing, and refuses a selector that matches nothing.
    checks=$((checks + 1))
    "$xconv" devices --device 0 >"$tmp/out" 2>"$tmp/err"
    if [ $? -ne 0 ] || [ "$(grep -c '^[0-9]  ' "$tmp/out")" -ne 1 ] ||
        grep -q unavailable "$tmp/out"; then
        failures=$((failures + 1))
        echo "FAIL: devices --device 0 does not list device 0 alone:" >&2
        cat "$tmp/out" "$tmp/err" >&2
    fi
    expect 2 "^xconv devices: --device: device 'nope' matches no device" -- devices --device nope
    expect 2 "devices: --device: device 'nope'" -- devices --json --device nope
fi

# A product of sizes from the command line that passes int64 is refused, not computed (the
# sanitizer build halts on signed overflow): groups * (c/groups from the weights' file).
python3 - "$tmp" <<'PY'
import struct, sys
def save(path, shape):
    n = 1
    for d in shape: n *= d
    dims = ", ".join(map(str, shape))
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(b"\0" * 4 * n)
save(sys.argv[1] + "/x.npy", (1, 4, 10, 10))
save(sys.argv[1] + "/w.npy", (6, 2, 3, 3))
PY
expect 2 "w.npy has 2 channels per filter but c=4 with groups=4611686018427387904" -- \
    run --input "$tmp/x.npy" --weights "$tmp/w.npy" --shape groups=4611686018427387904
expect 2 "groups=-3.*needs groups to divide c" -- \
    run --input "$tmp/x.npy" --weights "$tmp/w.npy" --shape groups=-3

# cpu_ref refuses what the host's memory cannot hold, with the numbers (46340^2 floats of x and
# of y, y again in float64: 34.4 GB), on hosts with less memory than that.
mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null)
if [ -n "$mem_kb" ] && [ "$mem_kb" -lt 33000000 ]; then
    expect 1 "^xconv run: cpu_ref needs 32.0 GiB of host memory .*; the host has [0-9.]+ GiB" -- \
        run --shape n=1,c=1,h=46340,w=46340,k=1,r=1 --variant cpu_ref
    checks=$((checks + 1))
    if grep -q "random inputs" "$tmp/out"; then
        failures=$((failures + 1))
        echo "FAIL: cpu_ref made its inputs before refusing" >&2
    fi
else
    echo "note: this host has more than 33 GB: the cpu_ref host-memory refusal is not checked"
fi

# No OpenCL platform at all: the message says which package provides one.
mkdir -p "$tmp/no-icd"
checks=$((checks + 1))
OCL_ICD_VENDORS="$tmp/no-icd" XCONV_DEVICE= "$xconv" devices >"$tmp/out" 2>"$tmp/err"
if ! grep -q "pocl-opencl-icd" "$tmp/out" "$tmp/err"; then
    failures=$((failures + 1))
    echo "FAIL: devices without a platform does not name the package:" >&2
    cat "$tmp/out" "$tmp/err" >&2
fi

echo "cli errors: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
