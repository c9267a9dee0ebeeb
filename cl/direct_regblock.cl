// SPDX-License-Identifier: MIT
// direct_regblock: each work-item computes a register block of XD_BLOCK_K output channels x
// XD_BLOCK_H rows x XD_BLOCK_W columns, reading its input window straight from global memory
// (rows shared between its outputs are loaded once); the work-group's filters are staged in
// local memory XD_CHUNK_C input channels at a time, laid out [c][r][s][k] so that one input
// value meets XD_BLOCK_K consecutive filter values.
//
// The block geometry (tiles, interleaved or consecutive columns, flat numbering) is the family's,
// in common/xconv_direct_block.h. With XD_FLAT=1 the whole filter tensor is staged once,
// [c][r][s][k] over all K, and the channel loop stays rolled (its body is XD_BLOCK_K x block x
// R x S FMAs); each work-item then computes XD_REPEAT blocks, XD_WG_W apart, so the staging and
// its barrier are paid once per XD_REPEAT blocks.
// With an epilogue (common/xconv_epilogue.h) the store adds the bias, activates and, when the
// planner gave whole pool windows to each work-item, pools.
// The local array is used only inside the kernel function itself: PoCL (3.1, several threads)
// gave wrong results when a __local pointer was passed to a helper function.

#include "xconv_epilogue.h"
#include "xconv_direct_block.h"

// ---------------------------------------------------------------------------------------------
// Tuning parameters of this kernel (set by host/families/direct/plan_direct.c; the family's are in the header)

#ifndef XD_REPEAT
#define XD_REPEAT 1    // flat: blocks each work-item computes one after another (filters are
#endif                 // staged once for all of them); 1 otherwise

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XD_STAGE_K (XD_FLAT ? XC_K : XD_BLOCK_K)  // output channels staged: flat, every group's
#define XD_STAGE_ELEMS (XD_CHUNK_C * XD_RS * XD_STAGE_K)  // floats of one chunk's filters
// Flat: where XD_BLOCK_K does not divide XC_KG, a group's last k-block reads XD_BLOCK_K values
// from its first channel on, past the group's last one: into the next tap's or group's filters
// (for accumulators that are never stored), and past the last group's last tap by at most this
// many floats, which are staged as zeros after the filters.
#define XD_STAGE_PAD (XD_FLAT ? XD_KBLOCKS * XD_BLOCK_K - XC_KG : 0)
// An item's columns are consecutive and its blocks tile each row exactly (fp32 storage): the row
// is stored as 4-float (XD_BLOCK_W a multiple of 4) or 2-float (even) vectors, aligned because Q
// and the block's first column are multiples of XD_BLOCK_W, so a warp writes whole sectors
// instead of every XD_BLOCK_W-th float per instruction.
#define XD_STORE_VEC (!XC_DTYPE && (XD_FLAT || XD_STRIP_W) && XC_Q % XD_BLOCK_W == 0 && \
                      XD_BLOCK_W % 2 == 0)
#define XD_STORE_VEC_W (XD_BLOCK_W % 4 == 0 ? 4 : 2)  // floats per vector store
// Flat blocks of even width over unit-stride, undilated, unpadded columns of an even-width input
// (fp32 storage):
// each input row segment a block reads (XD_ROW_W floats from an even column) is loaded as float2
// pairs, 8-byte aligned, instead of one float at a time. XD_ROW_W is even: Q = W - S + 1 and
// both Q (a multiple of XD_BLOCK_W) and W are even, so S is odd.
#define XD_ROW_W (XD_BLOCK_W + XC_S - 1)
#define XD_ROW_VEC2 (!XC_DTYPE && XD_FLAT && XD_COLS_IN && XC_STRIDE_W == 1 && XC_DIL_W == 1 && \
                     XC_W % 2 == 0 && XD_BLOCK_W % 2 == 0)

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL XC_WORK_GROUP_SIZE(XD_WG_W, XD_WG_H, 1)
void direct_regblock(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                     const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                     XC_GLOBAL XC_DATA *XC_RESTRICT y XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    // Filters [c][r][s][k] of one chunk; 16-byte aligned so that 4 consecutive k are one load.
    XC_LOCAL float wl[XD_STAGE_ELEMS + XD_STAGE_PAD] __attribute__((aligned(16)));
#if XD_FLAT
    const int tx = 0, ty = 0;  // the "tile" is the work-item's own block
    const int lid = XC_LOCAL_ID(0);
#else
    const int tx = XC_LOCAL_ID(0);  // column within the tile, < XD_WG_W
    const int ty = XC_LOCAL_ID(1);  // row block within the tile, < XD_WG_H
    const int lid = ty * XD_WG_W + tx;
#endif
    for (int rep = 0; rep < XD_REPEAT; rep++) {
#if XD_FLAT
        // Flat (n, group, k-block, block row, block column) of this work-item's block; past the
        // last image in the last work-group.
        const int g = (XC_GROUP_ID(0) * XD_REPEAT + rep) * XD_WG_W + lid;
#else
        const int g = XC_GROUP_ID(0);  // flat (n, group, k-block, tile row, tile column)
#endif
        const xd_block b = xd_locate(g, tx, ty XC_BATCH_ARG);
        const int k_stage = XD_FLAT ? b.k0 : 0;  // first staged output channel of this work-item
        int ih0[XD_BLOCK_H];
        int iw0[XD_BLOCK_W];
        xd_first_inputs(b, ih0, iw0);

        float acc[XD_BLOCK_K][XD_BLOCK_H][XD_BLOCK_W];
        for (int kk = 0; kk < XD_BLOCK_K; kk++)
            for (int i = 0; i < XD_BLOCK_H; i++)
                for (int j = 0; j < XD_BLOCK_W; j++)
                    acc[kk][i][j] = 0.0f;

        const XC_GLOBAL XC_DATA *x_img = x + (b.n * XC_C + b.grp * XC_CG) * XC_H * XC_W;
        for (int c0 = 0; c0 < XC_CG; c0 += XD_CHUNK_C) {
            // Stage the chunk's filters; zeros past the group's channels and output channels.
            // Flat: every filter, for the first block only (the condition is the same for the
            // whole work-group, so the barrier is too). Flags, not constants in && and ||:
            // compilers warn about those (NVIDIA's OpenCL printed "1 warning generated.").
            const bool stage = XD_FLAT ? rep == 0 : true;
            for (int e = lid; stage && e < XD_STAGE_ELEMS; e += XD_WG_SIZE) {
                const int kk = e % XD_STAGE_K;
                const int rs = (e / XD_STAGE_K) % XD_RS;
                const int cc = e / (XD_STAGE_K * XD_RS);
                const int k = XD_FLAT ? kk : b.k0 + kk;
                const bool k_in = XD_FLAT ? true : k < b.k_end;  // flat stages every k
                float v = 0.0f;
                if (c0 + cc < XC_CG && k_in)
                    v = XC_LD(w, (k * XC_CG + c0 + cc) * XD_RS + rs);
                wl[e] = v;
            }
#if XD_STAGE_PAD
            for (int e = lid; stage && e < XD_STAGE_PAD; e += XD_WG_SIZE)
                wl[XD_STAGE_ELEMS + e] = 0.0f;  // the last k-block's reads past every filter
#endif
            if (stage)
                XC_BARRIER();  // the chunk's filters are staged
            // Flat: one chunk of every channel, looped (the unrolled body is large already).
#if XD_FLAT
#pragma unroll 1
#else
#pragma unroll
#endif
            for (int cc = 0; cc < XD_CHUNK_C; cc++) {
                // Channels past the group's last read the last channel's inputs, against zero
                // filters.
                const int c = XC_CG % XD_CHUNK_C == 0 ? c0 + cc : xd_min(c0 + cc, XC_CG - 1);
                const XC_GLOBAL XC_DATA *x_plane = x_img + c * XC_H * XC_W;
                // This channel's staged filters: each tap's offset from here is a constant, so
                // its loads need no address arithmetic of their own.
                const XC_LOCAL_PTR float *w_chan = wl + cc * XD_RS * XD_STAGE_K + k_stage;
#if XD_ROW_VEC2
                // Each accumulator still adds its taps in (r, s) order: the same sums as below.
#pragma unroll
                for (int r = 0; r < XC_R; r++) {
#pragma unroll
                    for (int i = 0; i < XD_BLOCK_H; i++) {
                        bool row_in;
                        const int ihc = xd_input_row(ih0[i] + r * XC_DIL_H, &row_in);
                        const XC_GLOBAL XC_DATA *x_row = x_plane + ihc * XC_W + iw0[0];
                        float xr[XD_ROW_W];
#pragma unroll
                        for (int e = 0; e < XD_ROW_W; e += 2) {
                            const float2 v2 = *(const XC_GLOBAL float2 *)(x_row + e);
                            xr[e] = row_in ? v2.x : 0.0f;
                            xr[e + 1] = row_in ? v2.y : 0.0f;
                        }
#pragma unroll
                        for (int s = 0; s < XC_S; s++) {
                            const int wi = (r * XC_S + s) * XD_STAGE_K;
#pragma unroll
                            for (int j = 0; j < XD_BLOCK_W; j++) {
#pragma unroll
                                for (int kk = 0; kk < XD_BLOCK_K; kk++)
                                    acc[kk][i][j] =
                                        XC_FMA(xr[j + s], w_chan[wi + kk], acc[kk][i][j]);
                            }
                        }
                    }
                }
#else
#pragma unroll
                for (int r = 0; r < XC_R; r++) {
#pragma unroll
                    for (int s = 0; s < XC_S; s++) {
                        const int wi = (r * XC_S + s) * XD_STAGE_K;
                        // The tap's filter values are read where they are used: copied into a
                        // private array for a shared helper, PoCL 3.1 generated twice the code
                        // and ran ece408_mini2 about 1.5x slower (and no helper can take w_chan:
                        // see above).
#pragma unroll
                        for (int i = 0; i < XD_BLOCK_H; i++) {
                            bool row_in;
                            const int ihc = xd_input_row(ih0[i] + r * XC_DIL_H, &row_in);
#pragma unroll
                            for (int j = 0; j < XD_BLOCK_W; j++) {
                                const float xv =
                                    xd_input(x_plane, ihc, row_in, iw0[j] + s * XC_DIL_W);
#pragma unroll
                                for (int kk = 0; kk < XD_BLOCK_K; kk++)
                                    acc[kk][i][j] = XC_FMA(xv, w_chan[wi + kk], acc[kk][i][j]);
                            }
                        }
                    }
                }
#endif
            }
#if XD_FLAT
            // Flat plans never restage, so no work-item waits for the others here. The fence only
            // keeps the compiler from hoisting the staged filters' loads out of the XD_REPEAT
            // loop: with neither it nor a barrier, ptxas kept ece408_c1's filters in 172-198
            // registers (63 with it), and the kernel ran 40% slower through CUDA.
            XC_LOCAL_FENCE();
#else
            XC_BARRIER();  // every work-item is done with the chunk's filters
#endif
        }

        for (int kk = 0; kk < XD_BLOCK_K; kk++) {
            if (b.k0 + kk >= b.k_end || b.n_item >= XC_N)
                break;
#if XC_POOL_H
            XD_POOL_STORE_ACC(y, b, kk)
#else
            for (int i = 0; i < XD_BLOCK_H; i++) {
                const int p = b.p0 + i;
                if (p >= XC_P)
                    break;
                XC_GLOBAL XC_DATA *y_row = y + ((b.n * XC_K + b.k0 + kk) * XC_P + p) * XC_Q;
#if XD_STORE_VEC
                for (int j = 0; j < XD_BLOCK_W && b.q0 < XC_Q; j += XD_STORE_VEC_W) {
#if XD_STORE_VEC_W == 4
                    *(XC_GLOBAL float4 *)(y_row + b.q0 + j) = XC_MAKE_FLOAT4(
                        XC_EPI(acc[kk][i][j], b.k0 + kk), XC_EPI(acc[kk][i][j + 1], b.k0 + kk),
                        XC_EPI(acc[kk][i][j + 2], b.k0 + kk),
                        XC_EPI(acc[kk][i][j + 3], b.k0 + kk));
#else
                    *(XC_GLOBAL float2 *)(y_row + b.q0 + j) = XC_MAKE_FLOAT2(
                        XC_EPI(acc[kk][i][j], b.k0 + kk), XC_EPI(acc[kk][i][j + 1], b.k0 + kk));
#endif
                }
#else
                for (int j = 0; j < XD_BLOCK_W; j++) {
                    const int q = b.q0 + j * XD_BLOCK_STEP_W;
                    if (q < XC_Q)
                        XC_ST(y_row, q, XC_EPI(acc[kk][i][j], b.k0 + kk));
                }
#endif
            }
#endif
        }
    }
}

