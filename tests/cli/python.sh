#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package (python/) under pytest against this build's libxconv and xconv, on PoCL's
# CPU device: conv2d against NumPy's float64 reference, bad arguments, devices, variants,
# explain, bench and find records, results files. Runs Debian's /usr/bin/python3 when it has
# NumPy and pytest, else the first python3 on PATH that does; skips (exit 77) saying so when
# none has, or without an OpenCL CPU device. pytest collecting no test is a failure.
# Usage: python.sh PATH/TO/BUILD/xconv
set -u
xconv=$1
build=$(cd "$(dirname "$xconv")" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
py=""
for cand in /usr/bin/python3 "$(command -v python3 || true)"; do
    if [ -n "$cand" ] && "$cand" -c "import numpy, pytest" >/dev/null 2>&1; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    echo "SKIP: no python3 with NumPy and pytest (Debian: python3-numpy python3-pytest)"
    exit 77
fi
if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A cache of the test's own (it runs a find), starting from the build's compiled kernels.
mkdir -p "$tmp/cache"
[ -d "${XCONV_CACHE_DIR:-}/kernels" ] && cp -r "$XCONV_CACHE_DIR/kernels" "$tmp/cache/"
export XCONV_CACHE_DIR=$tmp/cache XCONV_LIBRARY=$build/libxconv.so XCONV_CLI=$xconv
export XCONV_INCLUDE=$src/host/include
export XCONV_TEST_DEVICE=pocl PYTHONDONTWRITEBYTECODE=1
# A sanitized library loads into python only after the sanitizers' runtimes.
if grep -q "^XCONV_SANITIZE:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
    export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
fi
echo "$py -m pytest python/tests ($("$py" --version 2>&1))"
"$py" -m pytest -q -p no:cacheprovider "$src/python/tests"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "FAIL: pytest collected no tests"
    exit 1
fi
exit "$rc"
