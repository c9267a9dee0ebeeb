#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI's commands agree with each other: `xconv help COMMAND` is COMMAND's help, each --help
# lists only the environment variables the command reads, explain defaults to auto, --shape takes
# a benchdnn descriptor as --shapes files do, names longer than 31 characters load whole, counts
# are in the singular for one, and what a vendor library's driver writes on stderr is said with
# its case. The parts that run a kernel skip without an OpenCL CPU device.
# Usage: seams.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

# Help: `help bench` is bench's own, and the environment block holds only what a command reads.
"$xconv" help bench >"$tmp/help_bench.txt" 2>&1
"$xconv" bench --help >"$tmp/bench_help.txt" 2>&1
check "help bench prints bench's help" grep -q "^Usage: xconv bench" "$tmp/help_bench.txt"
check "help bench is bench --help" cmp -s "$tmp/help_bench.txt" "$tmp/bench_help.txt"
"$xconv" help frobnicate >/dev/null 2>"$tmp/err"
check "help of an unknown command exits 2" test $? -eq 2
check "and says so" grep -q "unknown command 'frobnicate'" "$tmp/err"
"$xconv" devices --help >"$tmp/devices.txt"
check "devices --help lists XCONV_DEVICE" grep -q "^  XCONV_DEVICE" "$tmp/devices.txt"
check "devices --help lists no planning variable" \
    test "$(grep -c "XCONV_GEMM\|XCONV_FFT\|XCONV_WINO\|XCONV_PEAKS" "$tmp/devices.txt")" -eq 0
"$xconv" report --help >"$tmp/report.txt"
check "report --help lists XCONV_PEAKS" grep -q "^  XCONV_PEAKS" "$tmp/report.txt"
check "report --help lists nothing else" \
    test "$(grep -c "^  XCONV_" "$tmp/report.txt")" -eq 1
"$xconv" variants --help >"$tmp/variants.txt"
check "variants --help has no environment block" \
    test "$(grep -c "Environment" "$tmp/variants.txt")" -eq 0
check "bench --help lists the planning variables" grep -q "^  XCONV_GEMM_TILES" \
    "$tmp/bench_help.txt"
check "explain --help says auto is the default" grep -q "auto.*the default" \
    <("$xconv" explain --help)
for c in $("$xconv" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
    "$xconv" "$c" --help >"$tmp/c_help.txt" 2>&1
    check "$c --help prints its usage (exit 0)" \
        bash -c "[ $? -eq 0 ] && grep -q '^Usage: xconv $c' '$tmp/c_help.txt'"
done

# A --shape benchdnn descriptor that is not one is refused by name.
"$xconv" validate --shape mb1ic3ihXoc8 >"$tmp/out" 2>"$tmp/err"
check "a bad benchdnn --shape exits 2" test $? -eq 2
check "and names --shape" grep -q "^xconv validate: --shape" "$tmp/err"

if ! "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)\|CPU,"; then
    echo "SKIP (the rest): no OpenCL CPU device"
    echo "seams.sh: $checks checks, $failures failed"
    [ "$failures" -eq 0 ]
    exit
fi

# explain without --variant explains auto.
"$xconv" explain --shape n=1,c=3,h=8,w=8,k=4,r=3,pad=1 --device pocl >"$tmp/explain.txt" 2>&1
check "explain defaults to auto" grep -q "^plan of auto -> " "$tmp/explain.txt"

# --shape takes a benchdnn descriptor, its name included; run too.
long='googlenet_v1:inception_3a/3x3_reduce_and_then_some'
"$xconv" validate --shape "mb1ic3ih8oc4oh8kh3ph1n\"$long\"" --variant direct_naive \
    --device pocl --json "$tmp/bd.json" >"$tmp/bd.txt" 2>&1
check "validate --shape BENCHDNN passes" grep -q "^1 record: 0 failed" "$tmp/bd.txt"
check "the record keeps the descriptor's long name whole" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["records"][0]
assert r["shape_name"] == sys.argv[2], r["shape_name"]
assert r["shape"] == "n=1,c=3,h=8,w=8,k=4,r=3,pad=1", r["shape"]' "$tmp/bd.json" "$long"
"$xconv" run --shape mb1ic3ih8oc4oh8kh3ph1 --variant direct_naive --device pocl \
    >"$tmp/run.txt" 2>&1
check "run --shape BENCHDNN runs it" grep -q "n=1,c=3,h=8,w=8,k=4,r=3,pad=1 -> y\[1,4,8,8\]" \
    "$tmp/run.txt"

# A shape file with oneDNN's long GoogLeNet names loads whole.
cat >"$tmp/googlenet.shapes" <<'EOF'
mb1ic8ih8oc4oh8kh1n"googlenet_v1:inception_3a/3x3_reduce"
mb1ic8ih8oc4oh8kh1n"googlenet_v1:inception_4e/double3x3_reduce"
EOF
"$xconv" validate --shapes "$tmp/googlenet.shapes" --variant direct_naive --device pocl \
    --json "$tmp/g.json" >"$tmp/g.txt" 2>&1
check "names over 31 characters load" grep -q "^2 records: 0 failed" "$tmp/g.txt"
check "and reach the records whole" python3 -c '
import json, sys
names = [r["shape_name"] for r in json.load(open(sys.argv[1]))["records"]]
assert names == ["googlenet_v1:inception_3a/3x3_reduce",
                 "googlenet_v1:inception_4e/double3x3_reduce"], names' "$tmp/g.json"

# What a vendor library's driver writes on stderr comes with its case: PoCL compiling CLBlast's
# kernel afresh (its own kernel cache empty) says "1 warning generated.".
POCL_CACHE_DIR=$tmp/pocl "$xconv" validate --shape n=1,c=3,h=8,w=8,k=4,r=3,pad=1 \
    --variant clblast_convgemm --device pocl >"$tmp/cb.txt" 2>"$tmp/cb.err"
check "validate of clblast_convgemm passes" grep -q "^1 record: 0 failed" "$tmp/cb.txt"
check "no bare driver line on stderr" \
    test "$(grep -c '^[0-9]* warnings\? generated' "$tmp/cb.err")" -eq 0
check "what the driver wrote is said with its case" \
    test "$(grep 'generated\.' "$tmp/cb.err" | grep -vc \
        '^xconv validate: clblast_convgemm on n=1,c=3,h=8,w=8,k=4,r=3,pad=1, what its')" -eq 0
grep -q "generated\." "$tmp/cb.err" ||
    echo "note: PoCL wrote nothing while building CLBlast's kernel"

echo "seams.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
