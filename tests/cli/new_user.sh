#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A new user's path after the README's `make build`: `make install PREFIX=...` into a temporary
# prefix, the library guide's example built with pkg-config and run with nothing else set, and
# the Python package installed with pip into a virtual environment and its conv2d checked
# against NumPy's float64 convolution, the library found through pkg-config as python/README.md
# says. Skips (exit 77) without an OpenCL CPU device; the Python step says why when it cannot
# run (no python3 with NumPy and venv). Usage: new_user.sh PATH/TO/BUILD/xconv
set -u
xconv=$1
build=$(cd "$(dirname "$xconv")" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd)"
    exit 77
fi
# shellcheck source=checks.bash
source "$src/tests/cli/checks.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
export XCONV_CACHE_DIR=$tmp/cache
flags=""
if grep -q "^XCONV_SANITIZE:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
    flags="-fsanitize=address,undefined"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
fi

# The README's commands name the steps this test follows.
check "the README says make build" grep -q "^make build" "$src/README.md"
check "the README says make install PREFIX=" grep -q "make install" "$src/README.md"

# make install, as the README writes it (-o build: the build is done already).
make -C "$src" -o build install BUILD="$build" PREFIX="$prefix" >"$tmp/install.log" 2>&1
rc=$?
check "make install PREFIX=... succeeds" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$tmp/install.log" >&2
check "it installs bin/xconv" test -x "$prefix/bin/xconv"
"$prefix/bin/xconv" devices >"$tmp/devices.txt" 2>&1
check "the installed xconv lists the CPU device" grep -qi "pthread\|cpu" "$tmp/devices.txt"

# The library guide's example, built as it says, run with no LD_LIBRARY_PATH.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046,SC2086
cc $flags -o "$tmp/app" "$src/docs/examples/conv_example.c" $(pkg-config --cflags --libs xconv) \
    >"$tmp/cc.log" 2>&1
check "cc app.c \$(pkg-config --cflags --libs xconv) builds" test $? -eq 0
env -u LD_LIBRARY_PATH "$tmp/app" pocl >"$tmp/app.txt" 2>&1
rc=$?
cat "$tmp/app.txt"
check "the example runs and passes" test "$rc" -eq 0

# Python: pip install ./python into a virtual environment, conv2d against NumPy's float64.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if ! "$py" -c "import numpy, venv, ensurepip" >/dev/null 2>&1 &&
    ! "$py" -c "import numpy, venv, pip" >/dev/null 2>&1; then
    echo "SKIP (Python step): $py lacks NumPy, venv or pip (Debian: python3-numpy python3-venv)"
else
    "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1
    check "python3 -m venv makes an environment" test $? -eq 0
    cp -r "$src/python" "$tmp/python"  # pip builds in its folder: a copy keeps the tree clean
    "$tmp/venv/bin/pip" install --no-build-isolation --no-index "$tmp/python" \
        >"$tmp/pip.log" 2>&1
    rc=$?
    check "pip install ./python succeeds (no compiler, no network)" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || cat "$tmp/pip.log" >&2
    if [ -n "$flags" ]; then  # a sanitized library loads after the sanitizers' runtimes
        export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    fi
    (cd "$tmp" && env -u XCONV_LIBRARY "$tmp/venv/bin/python" - "$prefix") \
        >"$tmp/py.txt" 2>&1 <<'PY'
import sys
import numpy as np
import xconv

prefix = sys.argv[1]
assert xconv.library_path().startswith(prefix), xconv.library_path()
rng = np.random.default_rng(7)
x = rng.uniform(-1, 1, (2, 6, 15, 17)).astype(np.float32)
w = rng.uniform(-1, 1, (8, 3, 3, 3)).astype(np.float32)
y = xconv.conv2d(x, w, stride=(1, 2), pad=1, groups=2, device="pocl")
# NumPy's float64: the padded input's windows against the filters, group by group.
xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))[:, :, :, ::2]
ref = np.concatenate([np.einsum("ncpqrs,kcrs->nkpq", win[:, 3 * g:3 * g + 3],
                                w[4 * g:4 * g + 4].astype(np.float64)) for g in range(2)], 1)
scale = np.concatenate([np.einsum("ncpqrs,kcrs->nkpq", np.abs(win[:, 3 * g:3 * g + 3]),
                                  np.abs(w[4 * g:4 * g + 4].astype(np.float64)))
                        for g in range(2)], 1)
err = np.abs(y - ref) / scale
print(f"conv2d {y.shape} from {xconv.library_path()}: max normalised error {err.max():.3g}")
assert y.shape == ref.shape and err.max() <= 1e-5
PY
    rc=$?
    cat "$tmp/py.txt"
    check "Python conv2d matches NumPy's float64 within 1e-5" test "$rc" -eq 0
fi

echo "cli new user: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
