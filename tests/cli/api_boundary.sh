#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command-line tool (cli/, with cli/report/ and cli/peers/) uses the library through its public
# headers only (<xconv/*.h> as installed from host/include/xconv/): no include reaches into host/,
# cl/, cuda/ or common/. cli/ includes its own headers, cli/report/'s (records and the report) and
# cli/peers/' (the FFT peers) and nothing else of the project; cli/report/ and cli/peers/ include
# their own folders'.
# Usage: api_boundary.sh [PATH/TO/xconv] (the binary is not needed).
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
    case "$file:$dir" in
    cli/report/*:"$PWD/cli/report" | cli/peers/*:"$PWD/cli/peers") return 0 ;;
    cli/report/* | cli/peers/*) return 1 ;;
    cli/*:"$PWD/cli" | cli/*:"$PWD/cli/report" | cli/*:"$PWD/cli/peers") return 0 ;;
    esac
    return 1
}

files=0
for file in cli/*.[ch] cli/report/*.[ch] cli/peers/*.[ch]; do
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
check "catches \"../common/xconv_dialect.h\"" rejects cli/report/x.c \
    '#include "../../common/xconv_dialect.h"'
check "catches the engine's internals" rejects cli/x.c '#include "../host/measure/case.h"'
check "catches cli/report/ reaching up into cli/" rejects cli/report/x.c '#include "../cli.h"'
check "catches a folder that is gone" rejects cli/x.c '#include "../validate/harness.h"'
check "takes <xconv/measure.h>" allowed_include cli/x.c '#include <xconv/measure.h>'

echo "cli api boundary: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
