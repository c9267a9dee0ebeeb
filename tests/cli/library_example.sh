#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The measuring API's example in docs/guide/library.md is a program that works: the C block under
# its "compiled and run by tests/cli/library_example.sh" marker is compiled against the built
# shared library and run on PoCL, where it must check and time direct_tiled and auto and see both
# pass. Skips (exit 77) without PoCL. Usage: library_example.sh PATH/TO/BUILD/xconv
set -u
xconv=$1
build=$(cd "$(dirname "$xconv")" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$src/tests/cli/checks.bash"
if ! "$xconv" devices 2>/dev/null | grep -qi pocl; then
    echo "SKIP: no PoCL device to run the example on"
    exit 77
fi
# The block after the marker, between its ```c and ``` lines.
awk '/compiled and run by tests\/cli\/library_example.sh/ { found = 1; next }
     found && /^```c$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$src/docs/guide/library.md" >"$tmp/example.c"
check "docs/guide/library.md holds the example" test -s "$tmp/example.c"
check "the example includes the public header alone" bash -c \
    "! grep '#include' '$tmp/example.c' | grep -v -e '<stdio.h>' -e '<xconv/xconv.h>'"
# A sanitized build's library needs the example built the same way.
flags=""
if grep -q "^XCONV_SANITIZE:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
    flags="-fsanitize=address,undefined"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
fi
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror $flags -I "$src/host/include" -o "$tmp/example" \
    "$tmp/example.c" -L "$build" -lxconv -Wl,-rpath,"$build" -lm >"$tmp/cc.log" 2>&1
rc=$?
check "the example compiles warning-free against the built library" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$tmp/cc.log" >&2
"$tmp/example" pocl >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt"
check "the example runs and both pass" test "$rc" -eq 0
check "it checked and timed direct_tiled" \
    grep -Eq "^direct_tiled +pass .*median [0-9.]+ ms of 5 runs" "$tmp/out.txt"
check "it ran auto and says what auto chose" grep -q "auto -> " "$tmp/out.txt"
check "the error is under the threshold it names" bash -c \
    "grep -E '^direct_tiled' '$tmp/out.txt' | grep -Eq 'against cpu_ref'"
echo "library example: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
