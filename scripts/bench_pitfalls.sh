#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times two shapes the right way and with each of bench's --pitfall modes, one results file a
# mode, for docs/teaching/timing.md.
# Usage: scripts/bench_pitfalls.sh XCONV_BINARY OUT_PREFIX [extra xconv bench options...]
#        (writes OUT_PREFIX-pitfall_MODE.json for MODE in none first-run no-sync host-sync mean)
bench_out=OUT_PREFIX
# shellcheck source=bench_args.bash
source "$(dirname "${BASH_SOURCE[0]}")/bench_args.bash"
shapes=(
    --shape n=100,c=6,h=22,w=22,k=16,r=5      # ece408_c2 with its batch cut to 100
    --shape n=1,c=16,h=16,w=16,k=16,r=3,pad=1  # a tiny layer: the launch is most of its time
)
for mode in none first-run no-sync host-sync mean; do
    "$xconv" bench "${shapes[@]}" --variant direct_const,im2col_gemm \
        --device "${XCONV_DEVICE:-pocl}" --repeat "${REPEAT:-30}" --warmup 2 --pitfall "$mode" \
        --json "$out-pitfall_$mode.json" "$@"
done
