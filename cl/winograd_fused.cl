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
//
// CPUs (XC_WINO_VEC 8 or 16, OpenCL C only): one work-item computes VEC consecutive tiles as
// the lanes of one vector x K_BLOCK output channels, in work-groups of one item. Per chunk of
// C_CHUNK channels it gathers and transforms its tiles (the transforms on whole vectors), then
// for each position xi adds, channel by channel, V[c][xi] times each channel's U broadcast to
// the WPT_K accumulators of a register block; the alpha^2 x K_BLOCK accumulators live in local
// memory between blocks. The same sums in the same order as the other paths: the same bits.
// The two paths are two algorithms (vector lanes in one work-item; work-groups through local
// memory), so each keeps its own body; what they share is common/xconv_winograd.h's: the 2-D
// transforms (XC_WINO_BT_2D, XC_WINO_AT_2D), the input tile loader and the tile store.

// ---------------------------------------------------------------------------------------------
// Tuning parameters (host/families/winograd/plan_winograd.c chooses them from the device's limits)

#ifndef XC_WINO_M
#define XC_WINO_M 2            // output tile side m of F(m x m, r x r): 2, 4 (r 3); 2 (r 5)
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
#ifndef XC_WINO_VEC
#define XC_WINO_VEC 0          // CPUs: tiles per work-item as vector lanes (8 or 16); 0: the
#endif                         // work-group path (GPUs)
#ifndef XC_WINO_UNROLL_C
#define XC_WINO_UNROLL_C 1     // unroll a chunk's channel loop (0 on CPUs, which vectorize
#endif                         // across work-items instead)

#include "xconv_epilogue.h"
#include "xconv_local_frag.h"
#include "xconv_winograd_transforms.h"
#include "xconv_winograd.h"

#define XC_WINO_K_BLOCKS ((XC_KG + XC_WINO_K_BLOCK - 1) / XC_WINO_K_BLOCK)  // per group
#define XC_WINO_ALL_TILES (XC_N * XC_WINO_TILES)                             // of every image

#if XC_WINO_VEC
// =============================================================================================
// CPUs: tiles as vector lanes

#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_C_VERSION__)
#error "winograd_fused.cl: XC_WINO_VEC needs OpenCL C's vector types"
#endif
#if XC_WINO_K_BLOCK % XC_WINO_WPT_K != 0 || XC_WINO_K_BLOCK > XC_KG
#error "winograd_fused.cl: XC_WINO_VEC needs WPT_K dividing K_BLOCK, and K_BLOCK <= K/groups"
#endif
#define XC_WINO_CAT2(a, b) a##b
#define XC_WINO_CAT(a, b) XC_WINO_CAT2(a, b)
#define XC_WINO_V XC_WINO_CAT(float, XC_WINO_VEC)        // one value of VEC tiles
#define XC_WINO_VLOAD XC_WINO_CAT(vload, XC_WINO_VEC)
#define XC_WINO_VSTORE XC_WINO_CAT(vstore, XC_WINO_VEC)
#define XC_WINO_IV XC_WINO_CAT(int, XC_WINO_VEC)          // lane masks
// Column j of VEC neighbouring tiles of one tile row, from p = the first tile's column j: every
// m-th float of VEC * m (one load reads up to m - 1 floats past the last lane's column).
#if XC_WINO_M == 2 && XC_WINO_VEC == 8
#define XC_WINO_LOAD_LANES(p) vload16(0, (p)).even
#elif XC_WINO_M == 2 && XC_WINO_VEC == 16
#define XC_WINO_LOAD_LANES(p) ((float16)(vload16(0, (p)).even, vload16(0, (p) + 16).even))
#elif XC_WINO_M == 4 && XC_WINO_VEC == 8
#define XC_WINO_LOAD_LANES(p) ((float8)(vload16(0, (p)).s048c, vload16(0, (p) + 16).s048c))
#elif XC_WINO_M == 4 && XC_WINO_VEC == 16
#define XC_WINO_LOAD_LANES(p)                                                              \
    ((float16)(vload16(0, (p)).s048c, vload16(0, (p) + 16).s048c, vload16(0, (p) + 32).s048c, \
               vload16(0, (p) + 48).s048c))
#else
#error "winograd_fused.cl: XC_WINO_VEC must be 8 or 16"
#endif
#define XC_WINO_LANE_SPAN (XC_WINO_A - 1 + XC_WINO_VEC * XC_WINO_M)  // floats a row's loads read
// The transforms' multiply-adds on whole vectors (their scalar coefficients broadcast).
#undef XC_WINO_FMA
#define XC_WINO_FMA(a, b, c) fma((XC_WINO_V)(a), (XC_WINO_V)(b), (XC_WINO_V)(c))

XC_KERNEL XC_WORK_GROUP_SIZE(1, 1, 1)
void winograd_fused(const XC_GLOBAL float *XC_RESTRICT x, const XC_GLOBAL float *XC_RESTRICT u,
                    const int u_offset, XC_GLOBAL float *XC_RESTRICT y XC_EPI_BIAS_PARAM
                    XC_BATCH_PARAM)
{
    XC_LOCAL XC_WINO_V acc[XC_WINO_AA * XC_WINO_K_BLOCK];  // [xi][k]: the products' sums
    XC_LOCAL XC_WINO_V vin[XC_WINO_C_CHUNK * XC_WINO_AA];  // [c][xi]: a chunk's input tiles
    const int tile0 = XC_GROUP_ID(0) * XC_WINO_VEC;                        // lane 0's tile
    const int g = XC_GROUP_ID(1) / XC_WINO_K_BLOCKS;                       // group
    const int k0 = (XC_GROUP_ID(1) % XC_WINO_K_BLOCKS) * XC_WINO_K_BLOCK;  // within the group
    // The block moved back where needed to end at the group's last channel, so every filter
    // read is inside it; channels before k0 are computed again and not stored.
    const int k_first = k0 < XC_KG - XC_WINO_K_BLOCK ? k0 : XC_KG - XC_WINO_K_BLOCK;

    // Each lane's tile: its image's first channel of the group, and its input window's corner.
    int plane0[XC_WINO_VEC], ih0[XC_WINO_VEC], iw0[XC_WINO_VEC];
    for (int l = 0; l < XC_WINO_VEC; l++) {
        const int t = tile0 + l < XC_WINO_ALL_TILES ? tile0 + l : -1;  // -1: no tile
        const int tc = t < 0 ? 0 : t;
        plane0[l] = ((tc / XC_WINO_TILES) * XC_C + g * XC_CG) * XC_H * XC_W;
        ih0[l] = t < 0 ? -XC_H - XC_WINO_A : ((tc / XC_WINO_TILES_W) % XC_WINO_TILES_H) *
                                                      XC_WINO_M - XC_PAD_H;  // dead: all rows out
        iw0[l] = (tc % XC_WINO_TILES_W) * XC_WINO_M - XC_PAD_W;
    }
    // Lanes in one tile row (each input row then holds every lane's or none): loads of every
    // m-th float, with the columns outside the image masked, when all the rows' reads stay
    // inside x; else lane by lane.
    const bool one_row = tile0 + XC_WINO_VEC <= XC_WINO_ALL_TILES &&
                         tile0 / XC_WINO_TILES_W == (tile0 + XC_WINO_VEC - 1) / XC_WINO_TILES_W;
    const int row_lo = ih0[0] > 0 ? ih0[0] : 0;
    const int row_hi = ih0[0] + XC_WINO_A - 1 < XC_H ? ih0[0] + XC_WINO_A - 1 : XC_H - 1;
    const bool by_lanes = one_row && plane0[0] + row_lo * XC_W + iw0[0] >= 0 &&
                          plane0[0] + (XC_CG - 1) * XC_H * XC_W + row_hi * XC_W + iw0[0] +
                                  XC_WINO_LANE_SPAN <= XC_N * XC_C * XC_H * XC_W;
    XC_WINO_IV col_in[XC_WINO_A];  // lane l: column j of its tile inside the image (-1) or not
#pragma unroll
    for (int j = 0; j < XC_WINO_A; j++) {
        int lane_in[XC_WINO_VEC];
        for (int l = 0; l < XC_WINO_VEC; l++)
            lane_in[l] = (unsigned)(iw0[l] + j) < (unsigned)XC_W ? -1 : 0;
        col_in[j] = XC_WINO_CAT(vload, XC_WINO_VEC)(0, lane_in);
    }
    for (int i = 0; i < XC_WINO_AA * XC_WINO_K_BLOCK; i++)
        acc[i] = (XC_WINO_V)(0.0f);
    const XC_GLOBAL float *u_block = u + u_offset + g * XC_CG * XC_KG + k_first;

    for (int c0 = 0; c0 < XC_CG; c0 += XC_WINO_C_CHUNK) {
#if XC_CG % XC_WINO_C_CHUNK == 0
        const int cn = XC_WINO_C_CHUNK;
#else
        const int cn = XC_CG - c0 < XC_WINO_C_CHUNK ? XC_CG - c0 : XC_WINO_C_CHUNK;
#endif
        // The chunk's input tiles, lane by lane (zeros outside the image), then transformed.
        for (int cb = 0; cb < cn; cb++) {
            XC_WINO_V dv[XC_WINO_AA], bd[XC_WINO_AA];
            if (by_lanes) {
                const XC_GLOBAL float *plane = x + plane0[0] + (c0 + cb) * XC_H * XC_W;
#pragma unroll
                for (int i = 0; i < XC_WINO_A; i++) {
                    const int ih = ih0[0] + i;
                    const bool row_in = (unsigned)ih < (unsigned)XC_H;
#pragma unroll
                    for (int j = 0; j < XC_WINO_A; j++)
                        dv[i * XC_WINO_A + j] =
                            row_in ? select((XC_WINO_V)(0.0f),
                                            XC_WINO_LOAD_LANES(plane + ih * XC_W + iw0[0] + j),
                                            col_in[j])
                                   : (XC_WINO_V)(0.0f);
                }
            } else {
            float d[XC_WINO_AA][XC_WINO_VEC];
            for (int l = 0; l < XC_WINO_VEC; l++) {
                const XC_GLOBAL float *plane = x + plane0[l] + (c0 + cb) * XC_H * XC_W;
#pragma unroll
                for (int i = 0; i < XC_WINO_A; i++) {
                    const int ih = ih0[l] + i;
                    const bool row_in = (unsigned)ih < (unsigned)XC_H;
#pragma unroll
                    for (int j = 0; j < XC_WINO_A; j++) {
                        const int iw = iw0[l] + j;
                        d[i * XC_WINO_A + j][l] = row_in && (unsigned)iw < (unsigned)XC_W
                                                      ? plane[ih * XC_W + iw]
                                                      : 0.0f;
                    }
                }
            }
#pragma unroll
            for (int e = 0; e < XC_WINO_AA; e++)
                dv[e] = XC_WINO_VLOAD(0, d[e]);
            }
            XC_WINO_BT_2D(vin + cb * XC_WINO_AA, dv, bd)
        }
        // Per position and register block: acc += V[c] * U[c] over the chunk's channels.
        for (int xi = 0; xi < XC_WINO_AA; xi++) {
            const XC_GLOBAL float *u_xi = u_block + (xi * XC_C + c0) * XC_KG;
            for (int kr = 0; kr < XC_WINO_K_BLOCK; kr += XC_WINO_WPT_K) {
                XC_LOCAL_PTR XC_WINO_V *a_row = acc + xi * XC_WINO_K_BLOCK + kr;
                XC_WINO_V a[XC_WINO_WPT_K];
#pragma unroll
                for (int j = 0; j < XC_WINO_WPT_K; j++)
                    a[j] = a_row[j];
                for (int cb = 0; cb < cn; cb++) {
                    const XC_WINO_V v = vin[cb * XC_WINO_AA + xi];
                    const XC_GLOBAL float *u_c = u_xi + cb * XC_KG + kr;
#pragma unroll
                    for (int j = 0; j < XC_WINO_WPT_K; j++)
                        a[j] = fma(v, (XC_WINO_V)(u_c[j]), a[j]);
                }
#pragma unroll
                for (int j = 0; j < XC_WINO_WPT_K; j++)
                    a_row[j] = a[j];
            }
        }
    }

    // Output transform of each channel's tiles, stored lane by lane inside P x Q.
    for (int kk = 0; kk < XC_WINO_K_BLOCK; kk++) {
        const int k = k_first + kk;
        if (k < k0)
            continue;
        XC_WINO_V prod[XC_WINO_AA], am[XC_WINO_M * XC_WINO_A], yt[XC_WINO_M * XC_WINO_M];
        for (int xi = 0; xi < XC_WINO_AA; xi++)
            prod[xi] = acc[xi * XC_WINO_K_BLOCK + kk];
        XC_WINO_AT_2D(yt, prod, am)
        float out[XC_WINO_M * XC_WINO_M][XC_WINO_VEC];
#pragma unroll
        for (int e = 0; e < XC_WINO_M * XC_WINO_M; e++)
            XC_WINO_VSTORE(yt[e], 0, out[e]);
        for (int l = 0; l < XC_WINO_VEC && tile0 + l < XC_WINO_ALL_TILES; l++) {
            const int t = tile0 + l;
            const int n = t / XC_WINO_TILES;
            const int p0 = ((t / XC_WINO_TILES_W) % XC_WINO_TILES_H) * XC_WINO_M;
            const int q0 = (t % XC_WINO_TILES_W) * XC_WINO_M;
            float lane[XC_WINO_M * XC_WINO_M];
            for (int e = 0; e < XC_WINO_M * XC_WINO_M; e++)
                lane[e] = out[e][l];
            xc_wino_store_tile(y, n, g * XC_KG + k, p0, q0, lane XC_EPI_BIAS_ARG);
        }
    }
}

#else
// =============================================================================================
// GPUs: a work-group's tiles staged in local memory

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
#define XC_WINO_READ_FRAG XC_READ_FRAG_VEC4
#else
#define XC_WINO_READ_FRAG XC_READ_FRAG_SCALAR
#endif

// ---------------------------------------------------------------------------------------------
// Tiles by flat number (the transforms themselves: common/xconv_winograd_transforms.h)

// Loads the input tile of flat tile t, channel c of the group whose first channel's plane of
// image 0 is x_group (zeros everywhere when !live), and writes V = B^T d B into vt.
XC_FUNC void xc_wino_group_tile(const XC_GLOBAL float *x_group, const int t, const int c,
                                const bool live, float *vt)
{
    const int n = live ? t / XC_WINO_TILES : 0;
    const int th = (t / XC_WINO_TILES_W) % XC_WINO_TILES_H;
    const int tw = t % XC_WINO_TILES_W;
    const XC_GLOBAL float *plane = x_group + (n * XC_C + (live ? c : 0)) * XC_H * XC_W;
    xc_wino_input_tile(plane, th * XC_WINO_M - XC_PAD_H, tw * XC_WINO_M - XC_PAD_W, live, vt);
}

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL XC_WORK_GROUP_SIZE(XC_WINO_THREADS, 1, 1)
void winograd_fused(const XC_GLOBAL float *XC_RESTRICT x, const XC_GLOBAL float *XC_RESTRICT u,
                    const int u_offset, XC_GLOBAL float *XC_RESTRICT y XC_EPI_BIAS_PARAM
                    XC_BATCH_PARAM)
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
            xc_wino_group_tile(x_group, tile0 + tb, c0 + cb, live, vt);
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
            const int t = tile0 + tb;  // flat tile: image, tile row, tile column
            if (t < XC_WINO_ALL_TILES && k < XC_KG)
                xc_wino_output_tile(y, t / XC_WINO_TILES, g * XC_KG + k,
                                    ((t / XC_WINO_TILES_W) % XC_WINO_TILES_H) * XC_WINO_M,
                                    (t % XC_WINO_TILES_W) * XC_WINO_M, prod XC_EPI_BIAS_ARG);
        }
        XC_BARRIER();
    }
}

#endif // XC_WINO_VEC
