// SPDX-License-Identifier: MIT
// winograd_input: the input transform of the non-fused Winograd variants, V = B^T d B for every
// alpha x alpha input tile d (input channel c, tile t of a chunk of images), written as
// V[xi][c][t]: per plane xi and group a C/groups x T_LD row-major matrix, the B operand of the
// batched GEMM (common/xconv_winograd_transforms.h has the matrices).
//
// Tile (n, th, tw) reads rows th*m - pad_h .. + alpha-1 and columns tw*m - pad_w .. + alpha-1 of
// image n0 + n, zeros outside the image (the padding, and the right and bottom edges of partial
// tiles). Column t = n * TILES + th * TILES_W + tw of the chunk `images` images from n0; columns
// from images * TILES up to T_LD (the row length, padded for vector loads) get zeros.
// V is a workspace region: (v, v_offset in floats).
// No tile parameters: one work-item per (tile, channel), tiles along dimension 0 so that
// neighbouring work-items write neighbouring addresses.

#ifndef XC_WINO_M
#define XC_WINO_M 2  // output tile side m of F(m x m, r x r): 2 or 4 with r 3, 2 with r 5
#endif

#include "xconv_winograd_transforms.h"
#include "xconv_winograd.h"

#ifndef XC_WINO_T_LD
#define XC_WINO_T_LD (XC_N * XC_WINO_TILES)  // columns of V: tiles of a chunk, padded (planner)
#endif

XC_KERNEL void winograd_input(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                              XC_GLOBAL float *XC_RESTRICT v, const int v_offset, const int n0,
                              const int images XC_BATCH_PARAM)
{
    const int t = XC_GLOBAL_ID(0);  // column: tile of the chunk, bound T_LD
    const int c = XC_GLOBAL_ID(1);  // input channel, bound C
    if (t >= XC_WINO_T_LD || c >= XC_C)
        return;
    const int n = t / XC_WINO_TILES;                       // image of the chunk
    const int th = (t / XC_WINO_TILES_W) % XC_WINO_TILES_H;  // tile row
    const int tw = t % XC_WINO_TILES_W;                    // tile column
    const bool live = n < images;
    const XC_GLOBAL XC_DATA *plane = x + ((live ? n0 + n : 0) * XC_C + c) * XC_H * XC_W;
    float vt[XC_WINO_AA];  // B^T d B
    xc_wino_input_tile(plane, th * XC_WINO_M - XC_PAD_H, tw * XC_WINO_M - XC_PAD_W, live, vt);
    XC_GLOBAL float *out = v + v_offset + c * XC_WINO_T_LD + t;
#pragma unroll
    for (int xi = 0; xi < XC_WINO_AA; xi++)
        out[xi * XC_C * XC_WINO_T_LD] = vt[xi];
}
