#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The FFT family on random shapes on PoCL: fft and fft_tiled on `validate --random` shapes (odd
# sizes, groups, depthwise, padding up to the filter's reach), passing their thresholds over
# their error blocks where they apply (stride 1 and dilation 1, a filter larger than 1x1) and
# refusing the others for that reason alone. Skips (exit 77) when no OpenCL CPU device is installed.
# Usage: fft_random.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device

SHAPES=40
SEED=2  # 8 of its 40 shapes have stride 1, dilation 1 and a filter larger than 1x1
"$xconv" validate --random "$SHAPES" --seed "$SEED" --variant fft,fft_tiled --device pocl \
    --json "$tmp/r.json" >"$tmp/out.txt" 2>&1
rc=$?
tail -1 "$tmp/out.txt"
check "validate --random $SHAPES exits 0" test "$rc" -eq 0 || cat "$tmp/out.txt"
check "every stride-1, dilation-1 shape passes over its block; the others are refused for it" \
    python3 -c '
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert len(recs) == 2 * int(sys.argv[2]), len(recs)
for v in ("fft", "fft_tiled"):
    mine = [r for r in recs if r["variant"] == v]
    passed = [r for r in mine if r["outcome"] == "pass"]
    for r in mine:
        keys = dict(kv.split("=") for kv in r["shape"].split(","))
        pointwise = keys["r"] == "1" and keys.get("s", "1") == "1"
        simple = "stride=" not in r["shape"] and "stride_" not in r["shape"] and \
            "dil" not in r["shape"]
        if simple and not pointwise:
            assert r["outcome"] == "pass", r
            assert r["max_block_err"] <= r["threshold"], r
        elif simple:
            assert r["outcome"] == "not_applicable" and "1x1 filter" in r["note"], r
        else:
            assert r["outcome"] == "not_applicable" and "stride 1 and dilation 1" in r["note"], r
    print("  %s: %d of %d shapes pass" % (v, len(passed), len(mine)))
    assert len(passed) >= 8, v
' "$tmp/r.json" "$SHAPES"

echo "fft random: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
