#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/cudnn_pick.sh chooses cuDNN deliberately: the newest libcudnn.so.9 among those found
# (by the versioned file it resolves to, or a wheel's cudnn_version.h), or XCONV_CUDNN_DIR, and
# says which. Runs on fake library trees the test makes; needs no GPU.
# Usage: cudnn_pick.sh PATH/TO/xconv (unused)
set -u
pick="$(dirname "${BASH_SOURCE[0]}")/../../scripts/cudnn_pick.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

# A system cuDNN 9.14 and a Python wheel's 9.19 (a file named libcudnn.so.9, its version in the
# wheel's header), found in that order; and a 9.9 that sorts below 9.19 by version, not text.
mkdir -p "$tmp/usr/lib" "$tmp/venv/nvidia/cudnn/lib" "$tmp/venv/nvidia/cudnn/include" "$tmp/old"
: >"$tmp/usr/lib/libcudnn.so.9.14.0"
ln -s libcudnn.so.9.14.0 "$tmp/usr/lib/libcudnn.so.9"
: >"$tmp/venv/nvidia/cudnn/lib/libcudnn.so.9"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' \
    >"$tmp/venv/nvidia/cudnn/include/cudnn_version.h"
: >"$tmp/old/libcudnn.so.9.9.0"
ln -s libcudnn.so.9.9.0 "$tmp/old/libcudnn.so.9"

chosen=$(env -u XCONV_CUDNN_DIR bash "$pick" "$tmp" 2>"$tmp/err")
check "the newest (9.19.0, the wheel's) is chosen" test "$chosen" = "$tmp/venv/nvidia/cudnn/lib"
want="cuDNN 9.19.0 from $tmp/venv/nvidia/cudnn/lib, the newest of 3 found"
want+="; also 9.14.0 in $tmp/usr/lib; also 9.9.0 in $tmp/old"
check "it says which and what else it found" grep -qF "$want" "$tmp/err"

chosen=$(XCONV_CUDNN_DIR="$tmp/usr/lib" bash "$pick" "$tmp" 2>"$tmp/err")
check "XCONV_CUDNN_DIR chooses another" test "$chosen" = "$tmp/usr/lib"
check "... and says so" grep -q "cuDNN 9.14.0 from $tmp/usr/lib (XCONV_CUDNN_DIR)" "$tmp/err"

XCONV_CUDNN_DIR="$tmp/nowhere" bash "$pick" "$tmp" >"$tmp/out" 2>"$tmp/err"
check "an XCONV_CUDNN_DIR without cuDNN is refused" test $? -ne 0
check "... by name" grep -q "XCONV_CUDNN_DIR=$tmp/nowhere holds no libcudnn.so.9" "$tmp/err"

chosen=$(env -u XCONV_CUDNN_DIR bash "$pick" "$tmp/usr/lib/nothing-here" 2>"$tmp/err")
check "none found: nothing chosen" test -z "$chosen"
check "... and it says so" grep -q "no libcudnn.so.9" "$tmp/err"

echo "cudnn_pick: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
