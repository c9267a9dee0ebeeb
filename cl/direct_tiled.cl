// SPDX-License-Identifier: MIT
// direct_tiled: each work-group loads the input tile its outputs need, halo and zero padding
// included, into local memory once, cooperatively, XC_CHUNK_C input channels at a time, and
// computes its outputs from there (two barriers per chunk: loaded, then consumed).
//
// Work-item (tx, ty) computes XC_BLOCK_K output channels x XC_BLOCK_H consecutive rows x
// XC_BLOCK_W columns, the columns consecutive (XC_STRIP_W=1) or XC_WG_W apart (XC_STRIP_W=0).
// Filters are read from global memory at addresses shared by the whole work-group.
// The local array is used only inside the kernel function itself: PoCL (3.1, several threads)
// gave wrong results when a __local pointer was passed to a helper function.

// ---------------------------------------------------------------------------------------------
// Tuning parameters (set by host/plan_direct.c)

#ifndef XC_WG_W
#define XC_WG_W 16     // work-items along q in a work-group (8..64)
#endif
#ifndef XC_WG_H
#define XC_WG_H 8      // work-items along p in a work-group (1..16)
#endif
#ifndef XC_BLOCK_W
#define XC_BLOCK_W 1   // output columns per work-item (1..8)
#endif
#ifndef XC_BLOCK_H
#define XC_BLOCK_H 2   // consecutive output rows per work-item (1..4)
#endif
#ifndef XC_STRIP_W
#define XC_STRIP_W 0   // 1: an item's columns are consecutive (CPUs: vectors within an item);
#endif                 // 0: they are XC_WG_W apart (GPUs: neighbouring items, neighbouring data)
#ifndef XC_BLOCK_K
#define XC_BLOCK_K 4   // output channels per work-item, all within one group (1..16)
#endif
#ifndef XC_CHUNK_C
#define XC_CHUNK_C 4   // input channels per local-memory tile (1..C/groups)
#endif

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_TILE_W (XC_WG_W * XC_BLOCK_W)  // output columns of a work-group
#define XC_TILE_H (XC_WG_H * XC_BLOCK_H)  // output rows of a work-group
#define XC_TILES_W ((XC_Q + XC_TILE_W - 1) / XC_TILE_W)
#define XC_TILES_H ((XC_P + XC_TILE_H - 1) / XC_TILE_H)
#define XC_KBLOCKS ((XC_KG + XC_BLOCK_K - 1) / XC_BLOCK_K)  // k-blocks per channel group
#define XC_ITEM_STEP_W (XC_STRIP_W ? XC_BLOCK_W : 1)   // column step between work-items
#define XC_BLOCK_STEP_W (XC_STRIP_W ? 1 : XC_WG_W)  // column step within a work-item
#define XC_RS (XC_R * XC_S)
#define XC_IN_TILE_H ((XC_TILE_H - 1) * XC_STRIDE_H + (XC_R - 1) * XC_DIL_H + 1)
#define XC_IN_TILE_W ((XC_TILE_W - 1) * XC_STRIDE_W + (XC_S - 1) * XC_DIL_W + 1)
#define XC_IN_PLANE (XC_IN_TILE_H * XC_IN_TILE_W)
#define XC_TILE_ELEMS (XC_CHUNK_C * XC_IN_PLANE)  // floats of one chunk's tile
#define XC_WG_SIZE (XC_WG_W * XC_WG_H)

XC_FUNC int dt_min(int a, int b) { return a < b ? a : b; }

// ---------------------------------------------------------------------------------------------
// Pieces

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL XC_WORK_GROUP_SIZE(XC_WG_W, XC_WG_H, 1)
void direct_tiled(const XC_GLOBAL float *XC_RESTRICT x,
                  const XC_GLOBAL float *XC_RESTRICT w,
                  XC_GLOBAL float *XC_RESTRICT y)
{
    XC_LOCAL float tile[XC_TILE_ELEMS];  // one chunk's input tile
    const int tx = XC_LOCAL_ID(0);  // column within the tile, < XC_WG_W
    const int ty = XC_LOCAL_ID(1);  // row block within the tile, < XC_WG_H
    const int lid = ty * XC_WG_W + tx;
    int g = XC_GROUP_ID(0);  // flat (n, group, k-block, tile row, tile column)
    const int tile_q = (g % XC_TILES_W) * XC_TILE_W;
    g /= XC_TILES_W;
    const int tile_p = (g % XC_TILES_H) * XC_TILE_H;
    g /= XC_TILES_H;
    const int kb = g % (XC_GROUPS * XC_KBLOCKS);
    const int n = g / (XC_GROUPS * XC_KBLOCKS);
    const int grp = kb / XC_KBLOCKS;
    const int k0 = grp * XC_KG + (kb % XC_KBLOCKS) * XC_BLOCK_K;  // first output channel
    const int k_end = grp * XC_KG + XC_KG;                         // past the group's last
    float acc[XC_BLOCK_K][XC_BLOCK_H][XC_BLOCK_W];
    for (int kk = 0; kk < XC_BLOCK_K; kk++)
        for (int i = 0; i < XC_BLOCK_H; i++)
            for (int j = 0; j < XC_BLOCK_W; j++)
                acc[kk][i][j] = 0.0f;

    const XC_GLOBAL float *x_img = x + (n * XC_C + grp * XC_CG) * XC_H * XC_W;
    const int ih0 = tile_p * XC_STRIDE_H - XC_PAD_H;  // the tile's top-left input
    const int iw0 = tile_q * XC_STRIDE_W - XC_PAD_W;
    for (int c0 = 0; c0 < XC_CG; c0 += XC_CHUNK_C) {
        for (int e = lid; e < XC_TILE_ELEMS; e += XC_WG_SIZE) {  // element of the chunk
            const int cc = e / XC_IN_PLANE;
            const int rem = e - cc * XC_IN_PLANE;
            const int row = rem / XC_IN_TILE_W;
            const int ih = ih0 + row;
            const int iw = iw0 + rem - row * XC_IN_TILE_W;
            float v = 0.0f;
            if (c0 + cc < XC_CG && ih >= 0 && ih < XC_H && iw >= 0 && iw < XC_W)
                v = x_img[((c0 + cc) * XC_H + ih) * XC_W + iw];
            tile[e] = v;
        }
        XC_BARRIER();  // the chunk is loaded
#pragma unroll
        for (int cc = 0; cc < XC_CHUNK_C; cc++) {
            // Channels past the group's last multiply zeros in the tile by the last channel's
            // filters (finite values), so no test is needed.
            const int c = XC_CG % XC_CHUNK_C == 0 ? c0 + cc : dt_min(c0 + cc, XC_CG - 1);
#pragma unroll
            for (int r = 0; r < XC_R; r++) {
#pragma unroll
                for (int s = 0; s < XC_S; s++) {
                    float wv[XC_BLOCK_K];
#pragma unroll
                    for (int kk = 0; kk < XC_BLOCK_K; kk++)
                        wv[kk] = w[(dt_min(k0 + kk, k_end - 1) * XC_CG + c) * XC_RS +
                                   r * XC_S + s];
#pragma unroll
                    for (int i = 0; i < XC_BLOCK_H; i++) {
                        const int row = cc * XC_IN_TILE_H + (ty * XC_BLOCK_H + i) * XC_STRIDE_H +
                                        r * XC_DIL_H;
#pragma unroll
                        for (int j = 0; j < XC_BLOCK_W; j++) {
                            const int col = (tx * XC_ITEM_STEP_W + j * XC_BLOCK_STEP_W) *
                                                XC_STRIDE_W + s * XC_DIL_W;
                            const float xv = tile[row * XC_IN_TILE_W + col];
#pragma unroll
                            for (int kk = 0; kk < XC_BLOCK_K; kk++)
                                acc[kk][i][j] = XC_FMA(xv, wv[kk], acc[kk][i][j]);
                        }
                    }
                }
            }
        }

        XC_BARRIER();  // every work-item is done with it
    }

    const int p0 = tile_p + ty * XC_BLOCK_H;
    const int q0 = tile_q + tx * XC_ITEM_STEP_W;
    for (int kk = 0; kk < XC_BLOCK_K; kk++) {
        for (int i = 0; i < XC_BLOCK_H; i++) {
            const int p = p0 + i;
            for (int j = 0; j < XC_BLOCK_W; j++) {
                const int q = q0 + j * XC_BLOCK_STEP_W;
                if (k0 + kk < k_end && p < XC_P && q < XC_Q)
                    y[((n * XC_K + k0 + kk) * XC_P + p) * XC_Q + q] = acc[kk][i][j];
            }
        }
    }
}

