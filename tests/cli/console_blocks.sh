#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The console blocks of README.md and docs/guide/ are what the commands print now, timings and
# the machine's details aside (console_blocks.py): each `$ xconv ...` runs this build's binary on
# PoCL's CPU device, into a cache folder of its own. When a change alters what a command prints,
# regenerate the blocks with
#   python3 tests/cli/console_blocks.py . build --update
# Skips (exit 77) without PoCL's CPU device, and in a sanitized build.
# Usage: console_blocks.sh PATH/TO/xconv (run from the source tree's root)
set -u
xconv=$1
if [ -n "${XCONV_SANITIZED_BUILD:-}" ]; then
    echo "SKIP: the sanitizers add nothing to comparing printed text (the plain build checks it)"
    exit 77
fi
if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP: no OpenCL CPU device (install pocl-opencl-icd)"
    exit 77
fi
# The blocks run `xconv`: a folder holding this binary under that name goes first on PATH.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$(cd "$(dirname "$xconv")" && pwd)/$(basename "$xconv")" "$bin/xconv"
python3 "$(dirname "${BASH_SOURCE[0]}")/console_blocks.py" . "$bin"
