#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Odd states of the cache folder each give one clear warning and a defined behaviour before any
# work: XCONV_CACHE_DIR naming a regular file (no cache: the run goes on), a folder where the
# find-db's lock should be (the find-db is read only; find refuses at once, exit 2). A find-db
# with CRLF line ends is read as it is (test_find_db). Usage: cache_states.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/checks.bash"
"$xconv" devices >/dev/null 2>&1 || { echo "cache_states: no device, skipped"; exit 77; }
shape=n=1,c=2,h=6,w=6,k=2,r=3

# XCONV_CACHE_DIR naming a regular file: one warning, the run done without a cache.
touch "$tmp/file"
XCONV_CACHE_DIR=$tmp/file "$xconv" run --shape $shape --variant auto >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a cache folder that is a file: the run still exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "a cache folder that is a file: one warning saying so: $(cat "$tmp/err")" \
    eval '[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "warning: no cache (.*file is not a folder)" \
    "$tmp/err"'
check "the file is left alone" [ -f "$tmp/file" -a ! -s "$tmp/file" ]

# A folder where find.db.lock should be: run warns once and plans by the find-db it can read;
# find refuses before timing anything.
mkdir -p "$tmp/cache/find.db.lock"
export XCONV_CACHE_DIR=$tmp/cache
"$xconv" run --shape $shape --variant auto >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a lock that is a folder: run exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "a lock that is a folder: run warns once: $(cat "$tmp/err")" \
    eval '[ "$(grep -c "find.db.lock is not a regular file (a folder)" "$tmp/err")" -eq 1 ]'
start=$(date +%s%N)
"$xconv" find --shape $shape >"$tmp/out" 2>"$tmp/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "a lock that is a folder: find exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "a lock that is a folder: find says why: $(cat "$tmp/err")" \
    grep -q "find-db in .* cannot be written" "$tmp/err"
check "a lock that is a folder: find refuses before timing (${ms} ms)" [ "$ms" -lt 5000 ]
check "a lock that is a folder: nothing was timed" bash -c '! grep -q "ms" "$1"' _ "$tmp/out"
check "a lock that is a folder: find --list still reads the find-db" \
    bash -c '"$1" find --list >/dev/null 2>&1' _ "$xconv"

echo "cache_states: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
