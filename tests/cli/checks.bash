# SPDX-License-Identifier: MIT
# Sourced by the CLI tests (not a test itself: ctest runs tests/cli/*.sh): `check DESCRIPTION
# COMMAND...` runs COMMAND and counts it in $checks, and a failure in $failures with a FAIL line.
failures=0
checks=0
check() {
    local what=$1
    shift
    checks=$((checks + 1))
    if ! "$@"; then
        failures=$((failures + 1))
        echo "FAIL: $what" >&2
    fi
}

# `begin_test XCONV` sets $xconv to XCONV's full path (the test may change directory) and $tmp
# to a new directory removed when the test exits.
begin_test() {
    xconv=$(realpath "$1")
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
}

# `skip_without_nvrtc` ends the test with exit 77 (skipped) when "$xconv" has no NVRTC to
# compile for sm_90 (the CUDA toolkit's libnvrtc not installed).
skip_without_nvrtc() {
    if ! "$xconv" compile --list-targets 2>/dev/null |
        grep -q "compiler nvrtc for sm_90: installed"; then
        echo "SKIP: NVRTC is not installed (the CUDA toolkit's libnvrtc)"
        exit 77
    fi
}

# `build_fake_libcuda DIR` builds the stand-in libcuda (scripts/fake_libcuda.c: host memory,
# launches that do nothing) as DIR/libcuda.so.1, or ends the test with exit 77 (skipped) when
# there is no C compiler to build it.
build_fake_libcuda() {
    if ! cc -shared -fPIC -O1 -std=c11 -o "$1/libcuda.so.1" \
        "$(dirname "${BASH_SOURCE[0]}")/../../scripts/fake_libcuda.c"; then
        echo "SKIP: no C compiler to build the stand-in libcuda"
        exit 77
    fi
}

# `skip_without_fake_cuda` ends the test with exit 77 (skipped) when "$xconv", run over the
# stand-in libcuda (LD_LIBRARY_PATH), lists no CUDA device: built without the CUDA toolkit.
skip_without_fake_cuda() {
    if ! "$xconv" devices 2>/dev/null | grep -q "Fake H100"; then
        echo "SKIP: this xconv has no CUDA backend (built without the CUDA toolkit)"
        exit 77
    fi
}

# `skip_without_cpu_device` ends the test with exit 77 (skipped) when "$xconv" lists no OpenCL
# CPU device (PoCL's, or another runtime's CPU device).
skip_without_cpu_device() {
    if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
        echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd)"
        exit 77
    fi
}

# `isolate_cache DIR` points XDG_CACHE_HOME at DIR, so that xconv's peaks file is the test's own,
# while PoCL keeps its kernel cache where it was (it lives under XDG_CACHE_HOME too).
isolate_cache() {
    export POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl/kcache}
    export XDG_CACHE_HOME=$1
}

# `refused CODE PATTERN -- ARGS...` runs "$xconv" ARGS (with $tmp for its output) and checks
# that it exits CODE within 1 s (10 s under the sanitizers) with one line on stderr matching
# PATTERN.
refused() {
    local code=$1 pattern=$2
    shift 3
    local limit_ms=1000
    [ -n "${XCONV_SANITIZED_BUILD:-}" ] && limit_ms=10000
    local start end got lines
    start=$(date +%s%N)
    timeout 20 "$xconv" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    end=$(date +%s%N)
    lines=$(wc -l <"$tmp/err")
    check "xconv $* exits $code (got $got): $(head -c 300 "$tmp/err")" [ "$got" -eq "$code" ]
    check "xconv $* says one line matching '$pattern': $(cat "$tmp/err")" \
        eval '[ "$lines" -eq 1 ] && grep -qE -- "$pattern" "$tmp/err"'
    check "xconv $* answers within ${limit_ms} ms (took $(((end - start) / 1000000)) ms)" \
        [ $(((end - start) / 1000000)) -lt "$limit_ms" ]
}
