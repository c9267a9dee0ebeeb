// SPDX-License-Identifier: MIT
// winograd_output: the output transform of the non-fused Winograd variants, Y = A^T M A for
// every (output channel k, tile t of a chunk of images), where M[xi][k][t] holds the alpha^2
// element-wise products summed over input channels (the batched GEMM's C operand). The m x m
// tile is stored into y where it lies inside P x Q: partial tiles at the right and bottom edges
// store only their inside part (common/xconv_winograd_transforms.h has the matrices,
// common/xconv_winograd.h the store, which applies a fused epilogue: bias, activation, and a
// pool whose windows divide the tile).
// M is a workspace region: (mm, m_offset in floats); column t = n * TILES + th * TILES_W + tw
// of the chunk of `images` images from n0.
// No tile parameters: one work-item per (tile, output channel), tiles along dimension 0.

#ifndef XC_WINO_M
#define XC_WINO_M 2  // output tile side m of F(m x m, r x r): 2 or 4 with r 3, 2 with r 5
#endif

#include "xconv_epilogue.h"
#include "xconv_winograd_transforms.h"
#include "xconv_winograd.h"

#ifndef XC_WINO_T_LD
#define XC_WINO_T_LD (XC_N * XC_WINO_TILES)  // columns of M: tiles of a chunk, padded (planner)
#endif

XC_KERNEL void winograd_output(const XC_GLOBAL float *XC_RESTRICT mm, const int m_offset,
                               XC_GLOBAL XC_DATA *XC_RESTRICT y, const int n0, const int images
                               XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    const int t = XC_GLOBAL_ID(0);  // column: tile of the chunk, bound images * TILES
    const int k = XC_GLOBAL_ID(1);  // output channel, bound K
    if (t >= images * XC_WINO_TILES || k >= XC_K)
        return;
    const int n = t / XC_WINO_TILES;
    const int th = (t / XC_WINO_TILES_W) % XC_WINO_TILES_H;
    const int tw = t % XC_WINO_TILES_W;
    const XC_GLOBAL float *src = mm + m_offset + k * XC_WINO_T_LD + t;
    float prod[XC_WINO_AA];
#pragma unroll
    for (int xi = 0; xi < XC_WINO_AA; xi++)
        prod[xi] = src[xi * XC_K * XC_WINO_T_LD];
    xc_wino_output_tile(y, n0 + n, k, th * XC_WINO_M, tw * XC_WINO_M, prod XC_EPI_BIAS_ARG);
}
