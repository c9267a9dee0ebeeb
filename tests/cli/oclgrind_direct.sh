#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The direct family under Oclgrind's memory checker: every direct variant on the small suite,
# then direct_const's vector columns forced (what CPUs get; their loads may read past a row's end
# for lanes that are not stored, never past the input plane). Any out-of-bounds access fails the
# test. Skips (exit 77) when oclgrind is not installed.
# Usage: oclgrind_direct.sh PATH/TO/xconv
set -u
xconv=$1
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "SKIP: oclgrind not installed (apt-get install oclgrind)"
    exit 77
fi
# Oclgrind preloads its OpenCL library; an ASan build must not insist on coming first.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

# memcheck LABEL VARIANTS RECORDS [PLAN]: the small suite under oclgrind passes, every record,
# with no invalid access reported.
memcheck() {
    local label=$1 variants=$2 records=$3 plan=${4:-}
    XCONV_DIRECT_PLAN=$plan oclgrind "$xconv" validate --suite small --device oclgrind \
        --variant "$variants" >"$tmp/out.txt" 2>&1
    local rc=$?
    check "$label: validate exits 0" test "$rc" -eq 0
    check "$label: every small shape passes" grep -q "$records records: 0 failed or errored" \
        "$tmp/out.txt"
    check "$label: no invalid memory access" bash -c "! grep -qi 'invalid \(read\|write\)' '$tmp/out.txt'"
    if [ "$rc" -ne 0 ] || grep -qi "invalid \(read\|write\)" "$tmp/out.txt"; then
        grep -iE "invalid|error|FAIL" "$tmp/out.txt" | head -20 >&2
    fi
}

memcheck "direct family" direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock 80
memcheck "vector direct_const, float8 over two rows" direct_const 16 \
    "direct_const:1,4,8,2,1,1,0,0,1,8"
memcheck "vector direct_const, float4" direct_const 16 "direct_const:1,2,4,1,1,1,0,0,1,4"

echo "cli oclgrind direct: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
