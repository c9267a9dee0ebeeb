#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a temporary prefix and runs its bin/xconv; builds
# docs/examples/conv_example.c out of tree against it three ways: with CMake (find_package, the
# static library), with pkg-config (the shared library, found through xconv.pc's rpath alone)
# and with pkg-config --static (libxconv.a, no libxconv.so needed); runs each on the default
# device and checks that it passes against the float64 reference. Then, on PoCL, the example's
# default cache: after an `xconv find`, the command line and the example pick the same variant
# from the find-db, and without a cache both fall back to the rules.
# Skips (exit 77) without a device. Usage: install_example.sh PATH/TO/BUILD/xconv
set -u
xconv=$1
build=$(cd "$(dirname "$xconv")" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$xconv" devices >/dev/null 2>&1; then
    echo "SKIP: no device to run the example on"
    exit 77
fi
# shellcheck source=checks.bash
source "$src/tests/cli/checks.bash"
# A sanitized build's library needs the example built the same way.
flags=""
if grep -q "^XCONV_SANITIZE:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
    flags="-fsanitize=address,undefined"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
fi
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1
check "cmake --install succeeds" test $? -eq 0
for f in bin/xconv lib/libxconv.a lib/libxconv.so include/xconv/xconv.h \
    lib/cmake/xconv/xconvConfig.cmake lib/cmake/xconv/xconvConfigVersion.cmake \
    lib/cmake/xconv/xconvTargets.cmake lib/pkgconfig/xconv.pc; do
    check "installs $f" test -e "$prefix/$f"
done
# The shared library exports the public API and keeps the rest inside.
check "libxconv.so exports xconv_plan_create" bash -c \
    "nm -D --defined-only '$prefix/lib/libxconv.so' | grep -qw xconv_plan_create"
check "libxconv.so hides the core's internals" bash -c \
    "! nm -D --defined-only '$prefix/lib/libxconv.so' | grep -qw xconv_program_get"
# The installed command runs from anywhere (nothing is read from the build tree).
(cd "$tmp" && "$prefix/bin/xconv" devices) >"$tmp/devices.txt" 2>&1
check "the installed xconv lists devices" test $? -eq 0
check "the installed xconv --version names the version" bash -c \
    "'$prefix/bin/xconv' --version 2>&1 | grep -q '0\\.[0-9]'"

# With CMake: find_package(xconv), xconv::xconv.
cmake -S "$src/docs/examples" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS="$flags" >"$tmp/cmake.log" 2>&1 &&
    cmake --build "$tmp/cmake-build" >>"$tmp/cmake.log" 2>&1
rc=$?
check "the example builds with CMake" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$tmp/cmake.log" >&2
"$tmp/cmake-build/conv_example" >"$tmp/cmake-run.txt" 2>&1
rc=$?
cat "$tmp/cmake-run.txt"
check "the CMake-built example passes" test "$rc" -eq 0
check "it says so" grep -q "max normalised error .*: pass" "$tmp/cmake-run.txt"

# With pkg-config: the shared library.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
check "pkg-config knows xconv" pkg-config --exists xconv
# shellcheck disable=SC2046,SC2086
cc $flags -o "$tmp/conv_example_pc" "$src/docs/examples/conv_example.c" \
    $(pkg-config --cflags --libs xconv) -lm >"$tmp/pc.log" 2>&1
rc=$?
check "the example builds with pkg-config" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$tmp/pc.log" >&2
# No LD_LIBRARY_PATH: xconv.pc's rpath finds the installed library.
env -u LD_LIBRARY_PATH "$tmp/conv_example_pc" >"$tmp/pc-run.txt" 2>&1
rc=$?
cat "$tmp/pc-run.txt"
check "the pkg-config-built example passes" test "$rc" -eq 0
check "it runs on the installed shared library" bash -c \
    "env -u LD_LIBRARY_PATH ldd '$tmp/conv_example_pc' | grep -q '$prefix/lib.*libxconv.so'"

# With pkg-config --static: libxconv.a linked in, the system libraries shared as usual.
# shellcheck disable=SC2046,SC2086
cc $flags -o "$tmp/conv_example_static" "$src/docs/examples/conv_example.c" \
    $(pkg-config --static --cflags --libs xconv) >"$tmp/static.log" 2>&1
rc=$?
check "the example builds with pkg-config --static" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$tmp/static.log" >&2
check "the static link needs no libxconv.so" bash -c \
    "! ldd '$tmp/conv_example_static' | grep -q libxconv"
check "it holds the library's code" bash -c \
    "nm '$tmp/conv_example_static' | grep -qw 'T xconv_plan_create'"
mv "$prefix/lib" "$prefix/lib.moved"
"$tmp/conv_example_static" >"$tmp/static-run.txt" 2>&1
rc=$?
mv "$prefix/lib.moved" "$prefix/lib"
cat "$tmp/static-run.txt"
check "the static example passes with the installed libraries moved away" test "$rc" -eq 0

# The default cache: the example opens the folder the command line uses
# (xconv_cache_open_default), so after a find both pick the find-db's winner.
if "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    export XCONV_CACHE_DIR=$tmp/cache
    shape=n=2,c=4,h=12,w=12,k=8,r=3,pad=1
    "$prefix/bin/xconv" find --shape $shape --device pocl --repeat 2 --warmup 1 --confirm 0 \
        >"$tmp/find.txt" 2>&1
    check "xconv find into the default cache succeeds" test $? -eq 0
    picked() {  # the variant a run's first line names
        sed -n 's/^\([a-z0-9_]*\) on .*/\1/p' "$1" | head -n 1
    }
    "$prefix/bin/xconv" run --shape $shape --device pocl >"$tmp/cli-run.txt" 2>&1
    "$tmp/conv_example_pc" pocl $shape >"$tmp/ex-run.txt" 2>&1
    cat "$tmp/cli-run.txt" "$tmp/ex-run.txt"
    check "the command line's auto reads the find-db" grep -q "^auto: find-db" "$tmp/cli-run.txt"
    check "the example's auto reads the find-db" grep -q "^auto: find-db" "$tmp/ex-run.txt"
    check "both pick the same variant ($(picked "$tmp/cli-run.txt"))" \
        test "$(picked "$tmp/cli-run.txt")" = "$(picked "$tmp/ex-run.txt")"
    # A record whose winner the rules never pick (direct_naive): both follow it.
    python3 - "$tmp/cache/find.db" <<'PY'
import re, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
for i, line in enumerate(lines):
    if line.startswith("rec"):
        lines[i] = re.sub(r"entry=direct_naive\|pass\|[0-9.e-]+\|",
                          "entry=direct_naive|pass|1e-06|", line)
open(path, "w").write("\n".join(lines))
PY
    "$prefix/bin/xconv" run --shape $shape --device pocl >"$tmp/cli-run2.txt" 2>&1
    "$tmp/conv_example_static" pocl $shape >"$tmp/ex-run2.txt" 2>&1
    check "the command line follows the record to direct_naive" \
        test "$(picked "$tmp/cli-run2.txt")" = direct_naive
    check "the example follows it too" test "$(picked "$tmp/ex-run2.txt")" = direct_naive
    XCONV_CACHE_DIR=none "$tmp/conv_example_pc" pocl $shape >"$tmp/ex-none.txt" 2>&1
    XCONV_CACHE_DIR=none "$prefix/bin/xconv" run --shape $shape --device pocl \
        >"$tmp/cli-none.txt" 2>&1
    check "without a cache the example uses the rules" grep -q "^auto: rules" "$tmp/ex-none.txt"
    check "and picks what the command line picks" \
        test "$(picked "$tmp/cli-none.txt")" = "$(picked "$tmp/ex-none.txt")"
    unset XCONV_CACHE_DIR
else
    echo "no OpenCL CPU device: the default cache's checks skipped"
fi

echo "cli install example: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
