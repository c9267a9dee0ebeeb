#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The folders' include arrows have no circle and none runs back up, and cli/ includes only its own
# and the public headers (scripts/check_layers.py); the check catches each.
# Usage: layers.sh [PATH/TO/xconv] (the binary is not needed).
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
echo '#include "../peers/vkfft.h"' >> "$tmp/cli/report/record.c"
echo '#include "../report/record.h"' >> "$tmp/cli/peers/vkfft.c"
check "a circle (cli/report/ and cli/peers/ using each other) is caught" bash -c "! python3 '$tmp/check_layers.py' '$tmp' 2>/dev/null"
git -C "$tmp" checkout -q -- cli/report/record.c cli/peers/vkfft.c
# cli/ is a client of the installed public headers: a private header, quoted or in angle
# brackets, from cli/ or its folders, is caught.
for breach in 'cli/cmd_run.c:#include "../host/core/device.h"' 'cli/cmd_run.c:#include "core/device.h"' \
              'cli/report/record.c:#include "../../common/xconv_dialect.h"' \
              'cli/peers/vkfft.c:#include <core/device.h>' 'cli/cmd_run.c:#include <xconv/internal.h>'; do
    file=${breach%%:*}
    echo "${breach#*:}" >> "$tmp/$file"
    check "cli/ reaching a private header is caught (${breach})" bash -c "! python3 '$tmp/check_layers.py' '$tmp' 2>/dev/null"
    git -C "$tmp" checkout -q -- "$file"
done
check "the copy passes again" python3 "$tmp/check_layers.py" "$tmp"

echo "cli layers: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
