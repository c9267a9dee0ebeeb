#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/slurm_matrix.sh without SLURM: the sbatch commands submit would run (DRY_RUN), what an
# array task runs (a stand-in for `xconv matrix`, which writes its arguments), and the merge of
# two results files of record into one report by the real xconv.
# Usage: slurm_matrix.sh PATH/TO/xconv
set -u
xconv=$1
script=scripts/slurm_matrix.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

cat >"$tmp/tasks" <<'TASKS'
# node   device
gpu01    cuda:0
gpu01    opencl:0   # NVIDIA's OpenCL
gpu02    pocl
TASKS

DRY_RUN=1 SBATCH_ARGS="--partition=gpu" bash "$script" submit "$tmp/tasks" "$tmp/out" \
    >"$tmp/submit.txt" 2>&1
check "submit (dry run) exits 0" test $? -eq 0
cat "$tmp/submit.txt"
check "one array of two tasks pinned to gpu01" grep -q \
    "sbatch --parsable --partition=gpu --nodelist=gpu01 --array=0-1 .* run $tmp/tasks $tmp/out" \
    "$tmp/submit.txt"
check "one array of one task pinned to gpu02" grep -q "\-\-nodelist=gpu02 --array=0-0" \
    "$tmp/submit.txt"
check "the merge waits for both" grep -q "\-\-dependency=afterany:drygpu01:drygpu02 .* merge" \
    "$tmp/submit.txt"

# An array task: the device is the task's line among its node's; a stand-in matrix records its
# arguments in the file it was asked for, and exits with $FAKE_RC.
cat >"$tmp/fake_xconv" <<'FAKE'
#!/usr/bin/env bash
json=""
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --json ] && { j=$((i + 1)); json=${!j}; }; done
[ "${FAKE_WRITE:-1}" = 1 ] && echo "$*" >"$json"
exit "${FAKE_RC:-0}"
FAKE
chmod +x "$tmp/fake_xconv"
mkdir -p "$tmp/out"
SLURMD_NODENAME=gpu01 SLURM_ARRAY_TASK_ID=1 XCONV="$tmp/fake_xconv" MATRIX_ARGS="--repeat 5" \
    bash "$script" run "$tmp/tasks" "$tmp/out" >"$tmp/run.txt" 2>&1
check "an array task exits 0" test $? -eq 0
check "task 1 on gpu01 runs the matrix on opencl:0" grep -qx \
    "matrix --suite standard --device opencl:0 --json $tmp/out/gpu01-opencl-0.json --repeat 5" \
    "$tmp/out/gpu01-opencl-0.json"
SLURMD_NODENAME=gpu02 SLURM_ARRAY_TASK_ID=1 XCONV="$tmp/fake_xconv" \
    bash "$script" run "$tmp/tasks" "$tmp/out" >"$tmp/run.txt" 2>&1
check "a task past the node's devices exits 2" test $? -eq 2
SLURMD_NODENAME=gpu02 SLURM_ARRAY_TASK_ID=0 XCONV="$tmp/fake_xconv" FAKE_RC=1 \
    bash "$script" run "$tmp/tasks" "$tmp/out" >"$tmp/run.txt" 2>&1
check "failed cells with a written file still end the task well" test $? -eq 0
SLURMD_NODENAME=gpu02 SLURM_ARRAY_TASK_ID=0 XCONV="$tmp/fake_xconv" FAKE_RC=1 FAKE_WRITE=0 \
    SUITE=small bash "$script" run "$tmp/tasks" "$tmp/out2" >"$tmp/run.txt" 2>&1
check "a matrix that wrote nothing fails the task" test $? -eq 1
bash "$script" >/dev/null 2>&1
check "no mode prints the usage and exits 2" test $? -eq 2

# The merge, with the real report, of two results files of record.
mkdir -p "$tmp/fleet"
files=(bench/results/*-bench_direct_h100.json)
cp "${files[0]}" "$tmp/fleet/a.json"
cp "${files[-1]}" "$tmp/fleet/b.json"
XCONV=$xconv bash "$script" merge "$tmp/fleet" >"$tmp/merge.txt" 2>&1
check "merge exits 0" test $? -eq 0
check "merge wrote fleet.html" test -s "$tmp/fleet/fleet.html"
check "the fleet page shows two devices (two files of the same two: one device an identity)" \
    test "$(grep -c '<section id="d[0-9]' "$tmp/fleet/fleet.html")" -eq 2
check "merge wrote the pictures" test "$(ls "$tmp/fleet/svg" | wc -l)" -eq 4

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
