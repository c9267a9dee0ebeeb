#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The run walk: which of the project's source files `xconv run --shape` passes through from the
# command line to the kernel launch. Runs XCONV (built with -g, a Debug build) twice under gdb,
# first into an empty compiled-kernel cache (cold: the build) and then from it (warm: the load),
# stopping at the problem's check, auto, the find-db, the plan's steps and check, the upload, the
# build and the launch; prints each stop's backtrace, then the distinct project files on those
# stacks (with how many stops each is on) and their count, and how many times each run checked
# the problem and asked auto. Builds nothing.
# Usage: scripts/run_walk.sh XCONV SHAPE [ARGS...]   (ARGS go to `xconv run`, e.g. --device pocl)
#   XCONV_CACHE_DIR: the cache folder of the two runs (default: a new empty one).
set -u
xconv=${1:?usage: run_walk.sh XCONV SHAPE [ARGS...]}
shape=${2:?usage: run_walk.sh XCONV SHAPE [ARGS...]}
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
command -v gdb >/dev/null || { echo "run_walk.sh: gdb is not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XCONV_CACHE_DIR=${XCONV_CACHE_DIR:-$tmp/cache}
mkdir -p "$XCONV_CACHE_DIR"

stops=(xconv_problem_check xconv_auto_plan xconv_find_db_lookup xconv_plan_add_step
       xconv_plan_check xconv_buffer_upload clBuildProgram clEnqueueNDRangeKernel)
{
    echo "set pagination off"
    echo "set confirm off"
    echo "set breakpoint pending on"
    echo "set print frame-arguments none"
    echo "set print thread-events off"
    echo "set print inferior-events off"
    for s in "${stops[@]}"; do
        printf 'break %s\ncommands\nsilent\nprintf "=== stop %s\\n"\nbt\ncontinue\nend\n' "$s" "$s"
    done
    echo "run"
    echo "quit"
} >"$tmp/walk.gdb"

# Runs the walk once as run $1 (cold or warm) into $tmp/$1.log and prints its stops.
walk() {
    echo "### $1 run: $xconv run --shape $shape ${*:2} (XCONV_CACHE_DIR=$XCONV_CACHE_DIR)"
    gdb -q -batch -x "$tmp/walk.gdb" --args "$xconv" run --shape "$shape" "${@:2}" \
        >"$tmp/$1.log" 2>&1
    grep -E '^(=== stop|#[0-9]+ )' "$tmp/$1.log"
    if ! grep -q '^=== stop clEnqueueNDRangeKernel$' "$tmp/$1.log"; then
        echo "run_walk.sh: the $1 run reached no launch:" >&2
        tail -20 "$tmp/$1.log" >&2
        exit 1
    fi
}
walk cold "$@"
walk warm "$@"

# The project's files on the stacks: a frame's "at FILE:LINE" under the root, outside builds.
echo "### the project's files on the walk (stops each is on)"
cat "$tmp/cold.log" "$tmp/warm.log" | awk -v root="$root/" '
    /^=== stop/ { stop++ }
    /^#[0-9]+ / && match($0, / at [^ ]+:[0-9]+$/) {
        file = substr($0, RSTART + 4, RLENGTH - 4); sub(/:[0-9]+$/, "", file)
        if (index(file, root) == 1) file = substr(file, length(root) + 1)
        else if (file ~ /^\//) next
        if (file ~ /^build/) next
        if (!((stop, file) in seen)) { seen[stop, file] = 1; count[file]++ }
    }
    END { for (f in count) printf "%4d  %s\n", count[f], f }' | sort -k2 >"$tmp/files"
cat "$tmp/files"
echo "files on the walk: $(wc -l <"$tmp/files")"
for run in cold warm; do
    for s in xconv_problem_check xconv_auto_plan; do
        echo "$run run: $s hit $(grep -c "^=== stop $s\$" "$tmp/$run.log") time(s)"
    done
done
