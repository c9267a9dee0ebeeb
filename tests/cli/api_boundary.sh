#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The clients (cli/, validate/, report/, bench/peers/) use the library through its public
# headers (<xconv/xconv.h> and the topic headers beside it in host/include/xconv/) only: every
# quoted include names a header of those folders, and no include reaches into host/, cl/, cuda/
# or common/. Usage: api_boundary.sh [PATH/TO/xconv] (the binary is not needed).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=checks.bash
source tests/cli/checks.bash

# allowed_include FILE LINE: whether an #include line of a client file is allowed.
allowed_include() {
    local file=$1 line=$2 target dir
    if [[ $line =~ \#include[[:space:]]*\<([^>]+)\> ]]; then
        target=${BASH_REMATCH[1]}
        # System headers, and of the library's headers only the public ones.
        [[ $target != xconv/* || -f host/include/$target ]]
        return
    fi
    [[ $line =~ \#include[[:space:]]*\"([^\"]+)\" ]] || return 0
    target=${BASH_REMATCH[1]}
    dir=$(cd "$(dirname "$file")/$(dirname "$target")" 2>/dev/null && pwd) || return 1
    case "$dir" in
    "$PWD/cli" | "$PWD/validate" | "$PWD/report" | "$PWD/bench/peers") return 0 ;;
    esac
    return 1
}

files=0
for file in cli/*.[ch] validate/*.[ch] report/*.[ch] bench/peers/*.[ch]; do
    files=$((files + 1))
    while IFS= read -r line; do
        check "$file: $line" allowed_include "$file" "$line"
    done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$file")
done
check "the clients have source files" test "$files" -gt 20
# The check itself catches what it must: an internal header by a relative path, a private one
# under xconv/, a kernel header.
rejects() { ! allowed_include "$@"; }
check "catches \"../host/device.h\"" rejects cli/x.c '#include "../host/device.h"'
check "catches <xconv/internal.h>" rejects cli/x.c '#include <xconv/internal.h>'
check "catches \"../common/xconv_dialect.h\"" rejects report/x.c \
    '#include "../common/xconv_dialect.h"'

echo "cli api boundary: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
