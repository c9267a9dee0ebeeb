// SPDX-License-Identifier: MIT
// Reading a work-item's register fragment from a tile row in local memory, as the GEMM
// (cl/sgemm.cl) and fused Winograd (cl/winograd_fused.cl) products do: wpt floats of `row`
// for work-item t of `threads`, in runs spaced threads runs apart. A kernel picks one reader
// by its vector width.
#ifndef XCONV_LOCAL_FRAG_H
#define XCONV_LOCAL_FRAG_H

// Runs of four floats, one float4 read each (wpt a multiple of 4, row float4-aligned).
#define XC_READ_FRAG_VEC4(frag, row, wpt, threads, t)                                       \
    for (int v = 0; v < (wpt) / 4; v++) {                                                   \
        const float4 f4 = ((XC_LOCAL_PTR const float4 *)(row))[v * (threads) + (t)];        \
        frag[4 * v + 0] = f4.x;                                                             \
        frag[4 * v + 1] = f4.y;                                                             \
        frag[4 * v + 2] = f4.z;                                                             \
        frag[4 * v + 3] = f4.w;                                                             \
    }

// Runs of one float.
#define XC_READ_FRAG_SCALAR(frag, row, wpt, threads, t)                                     \
    for (int v = 0; v < (wpt); v++)                                                         \
        frag[v] = (row)[v * (threads) + (t)];

#endif // XCONV_LOCAL_FRAG_H
