#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times the direct family beside clblast_convgemm on a CPU OpenCL device (PoCL) over the standard
# suite with each batch cut so that one run takes well under 2 s on a few cores.
# Usage: scripts/bench_pocl_direct.sh XCONV_BINARY OUT.json [extra xconv bench options...]
bench_out=OUT.json
# shellcheck source=bench_args.bash
source "$(dirname "${BASH_SOURCE[0]}")/bench_args.bash"

# The standard suite (host/shapes/suites.c) with n cut; the other parameters are unchanged.
shapes=(
    n=100,c=1,h=48,w=48,k=6,r=5                    # ece408_c1
    n=100,c=6,h=22,w=22,k=16,r=5                   # ece408_c2
    n=1,c=64,h=224,w=224,k=64,r=3,pad=1            # vgg3x3
    n=2,c=256,h=14,w=14,k=256,r=3,pad=1            # res3x3
    n=4,c=1024,h=14,w=14,k=256,r=1                 # res1x1
    n=2,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3    # stem7x7s2
    n=2,c=3,h=227,w=227,k=96,r=11,stride=4         # alex11x11s4
    n=2,c=32,h=56,w=56,k=64,r=5,pad=2              # conv5x5
    n=1,c=128,h=56,w=56,k=128,r=3,pad=2,dil=2      # dil3x3d2
)
args=()
for s in "${shapes[@]}"; do
    args+=(--shape "$s")
done
variants=direct_naive,direct_const,direct_tiled,direct_tiled_db,direct_regblock,clblast_convgemm
exec "$xconv" bench "${args[@]}" --variant "$variants" \
    --device "${XCONV_DEVICE:-pocl}" --repeat "${REPEAT:-3}" --warmup 1 --json "$out" "$@"
