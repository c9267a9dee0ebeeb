#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The folders' include arrows have no circle and none runs back up (scripts/check_layers.py), and
# the check catches both. Usage: layers.sh [PATH/TO/xconv] (the binary is not needed).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=checks.bash
source tests/cli/checks.bash

check "the folders are layered" python3 scripts/check_layers.py

# The check itself: a copy of the tree with one arrow back up, then one circle, must fail.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z '*.c' '*.h' | while IFS= read -r -d '' f; do
    mkdir -p "$tmp/$(dirname "$f")" && cp "$f" "$tmp/$f"
done
git -C "$tmp" init -q && git -C "$tmp" add -A
cp scripts/check_layers.py "$tmp/check_layers.py"
echo '#include "../measure/case.h"' >> "$tmp/host/core/problem.c"
check "an arrow back up is caught" bash -c "! python3 '$tmp/check_layers.py' '$tmp' 2>/dev/null"
git -C "$tmp" checkout -q -- host/core/problem.c
echo '#include "../bench/peers/vkfft.h"' >> "$tmp/report/record.c"
echo '#include "../../report/record.h"' >> "$tmp/bench/peers/vkfft.c"
check "a circle (report/ and bench/peers/ using each other) is caught" bash -c "! python3 '$tmp/check_layers.py' '$tmp' 2>/dev/null"
git -C "$tmp" checkout -q -- report/record.c bench/peers/vkfft.c
check "the copy passes again" python3 "$tmp/check_layers.py" "$tmp"

echo "cli layers: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
