#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The performance matrix over a fleet under SLURM: one array task per node and device, each
# running `xconv matrix --suite SUITE --device DEVICE --json FILE`, then one job merging every
# file into one report with `xconv report`. (docs/report.md, "A fleet".)
#
# The tasks are a text file, one "NODE DEVICE" a line ('#' comments), e.g.
#     gpu01  cuda:0
#     gpu01  opencl:0
#     gpu01  pocl
#     gpu02  cuda:0
# DEVICE is anything `xconv --device` takes. For each node, submit makes one array job pinned to
# it (--nodelist) with one task per device; a last job, started when all of them have ended,
# merges the files.
#
# Usage (on the login node, from the repository root, with build/xconv built for the nodes):
#   scripts/slurm_matrix.sh submit TASKS OUTDIR   submit the arrays and the merge job
#   scripts/slurm_matrix.sh run TASKS OUTDIR      one array task (what sbatch runs)
#   scripts/slurm_matrix.sh merge OUTDIR          the merge: OUTDIR/fleet.html from OUTDIR/*.json
# Environment: XCONV (the binary, default build/xconv), SUITE (default standard), MATRIX_ARGS
# (more options for xconv matrix), SBATCH_ARGS (more options for sbatch: --partition,
# --account, --time), DRY_RUN=1 (print the sbatch commands instead of submitting).
#
#SBATCH --job-name=xconv-matrix
#SBATCH --ntasks=1
#SBATCH --exclusive
#SBATCH --time=00:30:00
set -euo pipefail

XCONV=${XCONV:-build/xconv}
SUITE=${SUITE:-standard}
MATRIX_ARGS=${MATRIX_ARGS:-}
SBATCH_ARGS=${SBATCH_ARGS:-}

die() {
    echo "slurm_matrix.sh: $*" >&2
    exit 2
}

# Prints the tasks file's "NODE DEVICE" lines without comments and blank lines.
tasks() {
    [ -r "$1" ] || die "cannot read the tasks file '$1'"
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"
}

# Prints the devices listed for node $2 in tasks file $1, one a line.
devices_of() {
    tasks "$1" | awk -v node="$2" '$1 == node { print $2 }'
}

# Turns a device selector into a file name part ("cuda:0" -> "cuda-0").
slug() {
    printf '%s' "$1" | tr -c 'A-Za-z0-9._' '-'
}

submit() {
    local tasks_file=$1 out=$2 node n ids="" id extra
    read -r -a extra <<<"$SBATCH_ARGS"
    mkdir -p "$out"
    local nodes
    nodes=$(tasks "$tasks_file" | awk '{ print $1 }' | sort -u)
    [ -n "$nodes" ] || die "no tasks in '$tasks_file'"
    for node in $nodes; do
        n=$(devices_of "$tasks_file" "$node" | wc -l)
        local cmd=(sbatch --parsable "${extra[@]}" --nodelist="$node" --array="0-$((n - 1))"
            --output="$out/%x-$node-%a.log" "$0" run "$tasks_file" "$out")
        if [ "${DRY_RUN:-0}" = 1 ]; then
            echo "${cmd[*]}"
            id="dry$node"
        else
            id=$("${cmd[@]}")
        fi
        ids="$ids:${id%%;*}"
        echo "node $node: $n device(s), job $id"
    done
    local merge=(sbatch --parsable "${extra[@]}" --dependency="afterany$ids" --ntasks=1
        --job-name=xconv-merge --output="$out/merge.log" "$0" merge "$out")
    if [ "${DRY_RUN:-0}" = 1 ]; then
        echo "${merge[*]}"
    else
        echo "merge job $("${merge[@]}"): $out/fleet.html when the arrays end"
    fi
}

run() {
    local tasks_file=$1 out=$2
    local node=${SLURMD_NODENAME:-$(hostname -s)}
    local index=${SLURM_ARRAY_TASK_ID:?run is an array task: SLURM_ARRAY_TASK_ID is not set}
    local device
    device=$(devices_of "$tasks_file" "$node" | sed -n "$((index + 1))p")
    [ -n "$device" ] || die "node $node has no device number $index in '$tasks_file'"
    local file
    file="$out/$node-$(slug "$device").json"
    echo "node $node, device $device -> $file"
    # A matrix exits 1 when a cell failed its check; the file is written all the same and the
    # report shows the failure, so the task still counts as done.
    # shellcheck disable=SC2086
    "$XCONV" matrix --suite "$SUITE" --device "$device" --json "$file" $MATRIX_ARGS || {
        rc=$?
        [ "$rc" -eq 1 ] && [ -s "$file" ] || exit "$rc"
        echo "some cells failed their check; $file holds them"
    }
}

merge() {
    local out=$1
    local files=("$out"/*.json)
    [ -e "${files[0]}" ] || die "no results in $out"
    "$XCONV" report "${files[@]}" -o "$out/fleet.html" --svg "$out/svg"
}

case "${1:-}" in
submit) [ $# -eq 3 ] || die "usage: $0 submit TASKS OUTDIR"; submit "$2" "$3" ;;
run) [ $# -eq 3 ] || die "usage: $0 run TASKS OUTDIR"; run "$2" "$3" ;;
merge) [ $# -eq 2 ] || die "usage: $0 merge OUTDIR"; merge "$2" ;;
*) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
