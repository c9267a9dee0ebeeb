#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The documentation against the tree (docs_check.py): each variant `xconv variants` lists has a
# row in docs/guide/variants.md and a chapter in docs/teaching/ naming it, each quoted kernel
# excerpt matches cl/ byte for byte, each results file of record is named in the docs and each
# named one exists, and relative links resolve. When kernel lines move, re-anchor the quotes with
#   python3 tests/cli/docs_check.py . <(build/xconv variants) --fix
# Usage: docs.sh PATH/TO/xconv (run from the source tree's root)
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$xconv" variants >"$tmp/variants.txt"; then
    echo "FAIL: xconv variants"
    exit 1
fi
python3 "$(dirname "${BASH_SOURCE[0]}")/docs_check.py" . "$tmp/variants.txt"
