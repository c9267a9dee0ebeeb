// SPDX-License-Identifier: MIT
// winograd_fused: Winograd convolution F(m x m, r x r) in one kernel, with no workspace beyond
// the transformed filters (cl/winograd_filter.cl, layout XC_WINO_U_CK 1: U[xi][g][c][k]).
//
// Algorithm: a work-group computes TILE_BLOCK output tiles (numbered across images, tile rows
// and tile columns) x K_BLOCK output channels of one group, for all alpha^2 tile positions xi.
// It walks its group's input channels in chunks of C_CHUNK: each chunk's input tiles are loaded
// (zeros outside the image) and transformed (B^T d B) into local memory as V[xi][c][tile], and
// the chunk's transformed filters copied beside them as U[xi][c][k]; then work-item
// (xi, tile run, k run) adds the outer product of its WPT_T tiles and WPT_K channels for every
// channel of the chunk with XC_FMA: alpha^2 independent matrix products over channels, the
// element-wise stage of Winograd, with the accumulators in registers. At the end the products
// pass through local memory WPT_K times (one channel of each work-item per pass), and one
// work-item per (tile, channel) applies the output transform (A^T M A) and stores the inside
// part of its m x m tile. Every product is the sum over input channels in increasing order of
// one fma each, as in the non-fused variants' GEMM, so both give the same bits.
// The local array is used only inside the kernel itself (PoCL 3.1 has given wrong results when
// a __local pointer was passed to a helper function).

// ---------------------------------------------------------------------------------------------
// Tuning parameters (host/plan_winograd.c chooses them from the device's limits)

#ifndef XC_WINO_M
#define XC_WINO_M 2            // output tile side m of F(m x m, r x r): 2 or 4 with r 3, 2 with r 5
#endif
#ifndef XC_WINO_TILE_BLOCK
#define XC_WINO_TILE_BLOCK 32  // output tiles per work-group: 8..64
#endif
#ifndef XC_WINO_K_BLOCK
#define XC_WINO_K_BLOCK 32     // output channels per work-group (within a group): 4..64
#endif
#ifndef XC_WINO_C_CHUNK
#define XC_WINO_C_CHUNK 8      // input channels per local-memory step: 2..16
#endif
#ifndef XC_WINO_WPT_T
#define XC_WINO_WPT_T 4        // tiles per work-item (register blocking, per position): 1..8
#endif
#ifndef XC_WINO_WPT_K
#define XC_WINO_WPT_K 4        // output channels per work-item: 1..8
#endif
#ifndef XC_WINO_VW
#define XC_WINO_VW 4           // local fragment reads as float4 (4) or floats (1); with 4 a
#endif                         // work-item's tiles and channels are runs of 4
#ifndef XC_WINO_UNROLL_C
#define XC_WINO_UNROLL_C 1     // unroll a chunk's channel loop (0 on CPUs, which vectorize
#endif                         // across work-items instead)

#include "xconv_winograd.h"

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_WINO_THREADS_T (XC_WINO_TILE_BLOCK / XC_WINO_WPT_T)  // work-items along tiles
#define XC_WINO_THREADS_K (XC_WINO_K_BLOCK / XC_WINO_WPT_K)     // work-items along channels
#define XC_WINO_THREADS (XC_WINO_AA * XC_WINO_THREADS_T * XC_WINO_THREADS_K)
#define XC_WINO_V_FLOATS (XC_WINO_AA * XC_WINO_C_CHUNK * XC_WINO_TILE_BLOCK)  // V[xi][c][tile]
#define XC_WINO_U_FLOATS (XC_WINO_AA * XC_WINO_C_CHUNK * XC_WINO_K_BLOCK)     // U[xi][c][k]
#define XC_WINO_X_LD (XC_WINO_TILE_BLOCK + 1)  // exchange rows, padded against bank conflicts
#define XC_WINO_X_FLOATS (XC_WINO_AA * XC_WINO_THREADS_K * XC_WINO_X_LD)  // X[xi][k][tile]
#define XC_WINO_STAGE_FLOATS (XC_WINO_V_FLOATS + XC_WINO_U_FLOATS)
#define XC_WINO_LOCAL_FLOAT4                                                                  \
    (((XC_WINO_STAGE_FLOATS > XC_WINO_X_FLOATS ? XC_WINO_STAGE_FLOATS : XC_WINO_X_FLOATS) + \
      3) / 4)
#define XC_WINO_K_BLOCKS ((XC_KG + XC_WINO_K_BLOCK - 1) / XC_WINO_K_BLOCK)  // per group
#define XC_WINO_ALL_TILES (XC_N * XC_WINO_TILES)

#if XC_WINO_TILE_BLOCK % XC_WINO_WPT_T != 0 || XC_WINO_K_BLOCK % XC_WINO_WPT_K != 0
#error "winograd_fused.cl: the blocks must be multiples of the work per item"
#endif
#if XC_WINO_WPT_T % XC_WINO_VW != 0 || XC_WINO_WPT_K % XC_WINO_VW != 0
#error "winograd_fused.cl: WPT_T and WPT_K must be multiples of VW"
#endif

// The block-relative index of fragment element e of work-item t (VW-wide runs, THREADS*VW apart).
#define XC_WINO_FRAG_POS(e, threads, t) \
    (((e) / XC_WINO_VW) * (threads) * XC_WINO_VW + (t) * XC_WINO_VW + (e) % XC_WINO_VW)

// Reads fragment frag (wpt floats) of work-item t from the local row `row`.
#if XC_WINO_VW == 4
#define XC_WINO_READ_FRAG(frag, row, wpt, threads, t)                                       \
    for (int v = 0; v < (wpt) / 4; v++) {                                                   \
        const float4 f4 = ((XC_LOCAL_PTR const float4 *)(row))[v * (threads) + (t)];        \
        frag[4 * v + 0] = f4.x;                                                             \
        frag[4 * v + 1] = f4.y;                                                             \
        frag[4 * v + 2] = f4.z;                                                             \
        frag[4 * v + 3] = f4.w;                                                             \
    }
#else
#define XC_WINO_READ_FRAG(frag, row, wpt, threads, t) \
    for (int v = 0; v < (wpt); v++)                   \
        frag[v] = (row)[v * (threads) + (t)];
#endif

// ---------------------------------------------------------------------------------------------
// Transforms of one tile (private arrays)

// Loads the alpha x alpha input tile of flat tile t, channel c of group g (zeros outside the
// image, and everywhere when !live) and writes V = B^T d B into vt.
XC_FUNC void xc_wino_input_tile(const XC_GLOBAL float *XC_RESTRICT x, const int t, const int c,
                                const bool live, float *vt)
{
    const int n = live ? t / XC_WINO_TILES : 0;
    const int th = (t / XC_WINO_TILES_W) % XC_WINO_TILES_H;
    const int tw = t % XC_WINO_TILES_W;
    const int ih0 = th * XC_WINO_M - XC_PAD_H;
    const int iw0 = tw * XC_WINO_M - XC_PAD_W;
    const XC_GLOBAL float *plane = x + (n * XC_C + (live ? c : 0)) * XC_H * XC_W;
    float d[XC_WINO_AA];
#pragma unroll
    for (int i = 0; i < XC_WINO_A; i++) {
        const bool row_in = live && (unsigned)(ih0 + i) < (unsigned)XC_H;
#pragma unroll
        for (int j = 0; j < XC_WINO_A; j++) {
            const bool inside = row_in && (unsigned)(iw0 + j) < (unsigned)XC_W;
            d[i * XC_WINO_A + j] = inside ? plane[(ih0 + i) * XC_W + iw0 + j] : 0.0f;
        }
    }
    float bd[XC_WINO_AA];
#pragma unroll
    for (int j = 0; j < XC_WINO_A; j++)
        XC_WINO_BT_1D(bd + j, XC_WINO_A, d + j, XC_WINO_A);
#pragma unroll
    for (int i = 0; i < XC_WINO_A; i++)
        XC_WINO_BT_1D(vt + i * XC_WINO_A, 1, bd + i * XC_WINO_A, 1);
}

// Applies the output transform to the alpha^2 products of one tile and channel and stores the
// inside part of the m x m result at flat tile t, output channel k of y.
XC_FUNC void xc_wino_output_tile(XC_GLOBAL float *XC_RESTRICT y, const int t, const int k,
                                 const float *prod)
{
    const int n = t / XC_WINO_TILES;
    const int p0 = ((t / XC_WINO_TILES_W) % XC_WINO_TILES_H) * XC_WINO_M;
    const int q0 = (t % XC_WINO_TILES_W) * XC_WINO_M;
    float am[XC_WINO_M * XC_WINO_A];
#pragma unroll
    for (int j = 0; j < XC_WINO_A; j++)
        XC_WINO_AT_1D(am + j, XC_WINO_A, prod + j, XC_WINO_A);
    float yt[XC_WINO_M * XC_WINO_M];
#pragma unroll
    for (int i = 0; i < XC_WINO_M; i++)
        XC_WINO_AT_1D(yt + i * XC_WINO_M, 1, am + i * XC_WINO_A, 1);
    XC_GLOBAL float *dst = y + (n * XC_K + k) * XC_P * XC_Q + p0 * XC_Q + q0;
#pragma unroll
    for (int i = 0; i < XC_WINO_M; i++) {
#pragma unroll
        for (int j = 0; j < XC_WINO_M; j++) {
            if (p0 + i < XC_P && q0 + j < XC_Q)
                dst[i * XC_Q + j] = yt[i * XC_WINO_M + j];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL XC_WORK_GROUP_SIZE(XC_WINO_THREADS, 1, 1)
void winograd_fused(const XC_GLOBAL float *XC_RESTRICT x, const XC_GLOBAL float *XC_RESTRICT u,
                    const int u_offset, XC_GLOBAL float *XC_RESTRICT y)
{
    // Staging: V[xi][c][tile] then U[xi][c][k]; at the end the exchange X[xi][k][tile].
    XC_LOCAL float4 lds4[XC_WINO_LOCAL_FLOAT4];
    XC_LOCAL_PTR float *lds = (XC_LOCAL_PTR float *)lds4;
    const int lid = XC_LOCAL_ID(0);                                     // bound THREADS
    const int kk = lid % XC_WINO_THREADS_K;                             // channel run
    const int tt = (lid / XC_WINO_THREADS_K) % XC_WINO_THREADS_T;       // tile run
    const int xi = lid / (XC_WINO_THREADS_K * XC_WINO_THREADS_T);       // position, bound AA
    const int tile0 = XC_GROUP_ID(0) * XC_WINO_TILE_BLOCK;              // first flat tile
    const int g = XC_GROUP_ID(1) / XC_WINO_K_BLOCKS;                    // group
    const int k0 = (XC_GROUP_ID(1) % XC_WINO_K_BLOCKS) * XC_WINO_K_BLOCK;  // within the group
    const XC_GLOBAL float *x_group = x + g * XC_CG * XC_H * XC_W;
    const XC_GLOBAL float *u_group = u + u_offset + g * XC_CG * XC_KG;

    float acc[XC_WINO_WPT_T * XC_WINO_WPT_K];
#pragma unroll
    for (int i = 0; i < XC_WINO_WPT_T * XC_WINO_WPT_K; i++)
        acc[i] = 0.0f;

    for (int c0 = 0; c0 < XC_CG; c0 += XC_WINO_C_CHUNK) {
        // The chunk's input tiles, transformed: one (tile, channel) pair per work-item and round.
        for (int e = lid; e < XC_WINO_TILE_BLOCK * XC_WINO_C_CHUNK; e += XC_WINO_THREADS) {
            const int tb = e % XC_WINO_TILE_BLOCK;  // tile in the block
            const int cb = e / XC_WINO_TILE_BLOCK;  // channel in the chunk
            const bool live = tile0 + tb < XC_WINO_ALL_TILES && c0 + cb < XC_CG;
            float vt[XC_WINO_AA];
            xc_wino_input_tile(x_group, tile0 + tb, c0 + cb, live, vt);
#pragma unroll
            for (int p = 0; p < XC_WINO_AA; p++)
                lds[(p * XC_WINO_C_CHUNK + cb) * XC_WINO_TILE_BLOCK + tb] = vt[p];
        }
        // The chunk's transformed filters (zeros past the group's channels).
        for (int e = lid; e < XC_WINO_U_FLOATS; e += XC_WINO_THREADS) {
            const int kb = e % XC_WINO_K_BLOCK;                          // channel in the block
            const int cb = (e / XC_WINO_K_BLOCK) % XC_WINO_C_CHUNK;      // input channel
            const int p = e / (XC_WINO_K_BLOCK * XC_WINO_C_CHUNK);       // position
            const bool inside = c0 + cb < XC_CG && k0 + kb < XC_KG;
            lds[XC_WINO_V_FLOATS + e] =
                inside ? u_group[(p * XC_C + c0 + cb) * XC_KG + k0 + kb] : 0.0f;
        }
        XC_BARRIER();
        // This work-item's position: WPT_T x WPT_K outer products, one per channel.
        XC_LOCAL_PTR const float *v_row = lds + xi * XC_WINO_C_CHUNK * XC_WINO_TILE_BLOCK;
        XC_LOCAL_PTR const float *u_row =
            lds + XC_WINO_V_FLOATS + xi * XC_WINO_C_CHUNK * XC_WINO_K_BLOCK;
#if XC_WINO_UNROLL_C
#pragma unroll
#endif
        for (int cb = 0; cb < XC_WINO_C_CHUNK; cb++) {
            float vf[XC_WINO_WPT_T];
            float uf[XC_WINO_WPT_K];
            XC_WINO_READ_FRAG(vf, v_row + cb * XC_WINO_TILE_BLOCK, XC_WINO_WPT_T,
                              XC_WINO_THREADS_T, tt)
            XC_WINO_READ_FRAG(uf, u_row + cb * XC_WINO_K_BLOCK, XC_WINO_WPT_K, XC_WINO_THREADS_K,
                              kk)
#pragma unroll
            for (int i = 0; i < XC_WINO_WPT_T; i++) {
#pragma unroll
                for (int j = 0; j < XC_WINO_WPT_K; j++)
                    acc[i * XC_WINO_WPT_K + j] =
                        XC_FMA(vf[i], uf[j], acc[i * XC_WINO_WPT_K + j]);
            }
        }
        XC_BARRIER();
    }

    // Output: pass j moves channel j of every work-item's run through local memory, then one
    // work-item per (tile, channel) of the pass transforms and stores.
#pragma unroll
    for (int j = 0; j < XC_WINO_WPT_K; j++) {
#pragma unroll
        for (int i = 0; i < XC_WINO_WPT_T; i++)
            lds[(xi * XC_WINO_THREADS_K + kk) * XC_WINO_X_LD +
                XC_WINO_FRAG_POS(i, XC_WINO_THREADS_T, tt)] = acc[i * XC_WINO_WPT_K + j];
        XC_BARRIER();
        for (int e = lid; e < XC_WINO_TILE_BLOCK * XC_WINO_THREADS_K; e += XC_WINO_THREADS) {
            const int tb = e % XC_WINO_TILE_BLOCK;  // tile in the block
            const int kt = e / XC_WINO_TILE_BLOCK;  // channel run whose channel j this is
            const int k = k0 + XC_WINO_FRAG_POS(j, XC_WINO_THREADS_K, kt);  // within the group
            float prod[XC_WINO_AA];
#pragma unroll
            for (int p = 0; p < XC_WINO_AA; p++)
                prod[p] = lds[(p * XC_WINO_THREADS_K + kt) * XC_WINO_X_LD + tb];
            if (tile0 + tb < XC_WINO_ALL_TILES && k < XC_KG)
                xc_wino_output_tile(y, tile0 + tb, g * XC_KG + k, prod);
        }
        XC_BARRIER();
    }
}
