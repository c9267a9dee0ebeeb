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
    if [ "$got" -ne 2 ] || ! grep -q "direct_const:1,2.*at least 8" "$tmp/err"; then
        failures=$((failures + 1))
        echo "FAIL: a malformed XCONV_DIRECT_PLAN exited $got:" >&2
        cat "$tmp/err" >&2
    fi
fi
expect 0 "auto for the library's choice \(the default\)" -- run --help

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
