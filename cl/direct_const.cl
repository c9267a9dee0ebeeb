// SPDX-License-Identifier: MIT
// direct_const: filters read from constant memory. Each work-item computes a register block of
// XD_BLOCK_K output channels x XD_BLOCK_H rows x XD_BLOCK_W columns, reading its input window
// straight from global memory (rows shared between its outputs are loaded once).
//
// The block geometry (tiles, interleaved or consecutive columns, flat numbering) is the family's,
// in common/xconv_direct_block.h. The whole filter tensor is one constant buffer, so the host
// applies this variant only while it fits the device's limit.
// With XD_VEC_Q > 0 (CPU devices; OpenCL C only) an item's XD_BLOCK_W = XD_VEC_Q consecutive
// columns are one vector: each tap is one vector load (stride 1 or 2) and one vector FMA per
// channel, with per-lane clamped loads only for taps whose stored lanes' window crosses the
// input's edge (lanes past the output's last column may read on into the input plane).
// With an epilogue (common/xconv_epilogue.h) the store adds the bias, activates and, when the
// planner gave whole pool windows to each work-item, pools.

#include "xconv_epilogue.h"
#include "xconv_direct_block.h"

// ---------------------------------------------------------------------------------------------
// Tuning parameters of this kernel (set by host/families/direct/plan_direct.c; the family's are in the header)

#ifndef XD_VEC_Q
#define XD_VEC_Q 0     // 4, 8 or 16: columns are vector lanes (needs XD_STRIP_W, not XD_FLAT)
#endif
#ifndef XD_UNROLL_C
#define XD_UNROLL_C 0  // 1: the channel loop is unrolled too, so with XD_BLOCK_K = K every filter
#endif                 // index is a compile-time constant (operands straight from constant banks)

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XD_FILTER_ELEMS (XC_K * XC_CG * XD_RS)

#if XD_VEC_Q
#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_C_VERSION__)
#error "direct_const: XD_VEC_Q needs OpenCL C's vector types"
#endif
#if XC_DTYPE
#error "direct_const: XD_VEC_Q reads and writes float vectors (fp32 storage only)"
#endif
#if XD_BLOCK_W != XD_VEC_Q || !XD_STRIP_W || XD_FLAT
#error "direct_const: XD_VEC_Q needs XD_BLOCK_W == XD_VEC_Q, XD_STRIP_W = 1 and XD_FLAT = 0"
#endif
#define XD_CAT2(a, b) a##b
#define XD_CAT(a, b) XD_CAT2(a, b)
#define XD_VEC XD_CAT(float, XD_VEC_Q)            // the vector of an item's columns
#define XD_VLOAD XD_CAT(vload, XD_VEC_Q)
#define XD_VSTORE XD_CAT(vstore, XD_VEC_Q)
// Whether a tap's lanes can be one load: stride 1, or stride 2 with a double-width load.
#if XC_STRIDE_W == 2 && XD_VEC_Q == 4
#define XD_VLOAD_PAIRS(p) vload8(0, (p)).even     // 4 columns at stride 2: one 8-float load
#define XD_TAP_LOADS 1
#elif XC_STRIDE_W == 2 && XD_VEC_Q == 8
#define XD_VLOAD_PAIRS(p) vload16(0, (p)).even
#define XD_TAP_LOADS 1
#else
#define XD_TAP_LOADS (XC_STRIDE_W == 1)
#endif
#endif

XC_CONSTANT_ARRAY(XC_DATA, xd_filter, XD_FILTER_ELEMS)

// ---------------------------------------------------------------------------------------------
// The kernel (one function: Oclgrind 21.10 cannot run a kernel whose inlined helper takes
// restrict pointers, and reports it as "no kernel named direct_const")

XC_KERNEL XC_WORK_GROUP_SIZE(XD_WG_W, XD_WG_H, 1)
void direct_const(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                  XC_CONSTANT_PARAM(XC_DATA, xd_filter),
                  XC_GLOBAL XC_DATA *XC_RESTRICT y XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
#if XD_FLAT
    const int tx = 0, ty = 0;  // the "tile" is the work-item's own block
    // Flat (n, group, k-block, block row, block column) of this work-item; past the last image
    // in the last work-group.
    const int g = XC_GROUP_ID(0) * XD_WG_W + XC_LOCAL_ID(0);
#else
    const int tx = XC_LOCAL_ID(0);  // column within the tile, < XD_WG_W
    const int ty = XC_LOCAL_ID(1);  // row block within the tile, < XD_WG_H
    const int g = XC_GROUP_ID(0);   // flat (n, group, k-block, tile row, tile column)
#endif
    const xd_block b = xd_locate(g, tx, ty XC_BATCH_ARG);
    int ih0[XD_BLOCK_H];
    int iw0[XD_BLOCK_W];
    xd_first_inputs(b, ih0, iw0);
#if XD_VEC_Q
#if XD_BLOCK_K > XC_KG
#error "direct_const: XD_VEC_Q needs XD_BLOCK_K <= XC_KG"
#endif
    // The block's output channels, moved back where needed to end at the group's last one: every
    // filter value is then a compile-time offset from one pointer per input channel, which CPUs
    // fold into the FMA's memory operand (with offsets clamped per channel, PoCL spent two address
    // instructions on each FMA). Channels before b.k0 are computed again and not stored.
    const int k_first = xd_min(b.k0, b.k_end - XD_BLOCK_K);
    __constant float *w_block = xd_filter + k_first * XC_CG * XD_RS;
    // Taps whose stored lanes read columns inside the row are one vector load. The load may
    // run past the row's end for lanes past the output's last column (not stored): tap_end[s]
    // is the last column it reads, and the loop falls back to lane-by-lane loads where that
    // would leave the input plane. Other taps: -1.
    const int lanes = xd_min(XD_VEC_Q, XC_Q - b.q0);  // lanes of the item that are stored
    int tap_end[XC_S];
    for (int s = 0; s < XC_S; s++) {
        const int first = iw0[0] + s * XC_DIL_W;
        const int needed = first + (lanes - 1) * XC_STRIDE_W;
        const bool vector = XD_TAP_LOADS && first >= 0 && needed < XC_W;
        tap_end[s] = vector ? first + (XC_STRIDE_W == 2 ? 2 * XD_VEC_Q : XD_VEC_Q) - 1 : -1;
    }
    XD_VEC acc[XD_BLOCK_K][XD_BLOCK_H];  // lane j: column q0 + j
    for (int kk = 0; kk < XD_BLOCK_K; kk++)
        for (int i = 0; i < XD_BLOCK_H; i++)
            acc[kk][i] = (XD_VEC)(0.0f);
#else
    int kf[XD_BLOCK_K];  // filter offset of each output channel, clamped to the group
    for (int kk = 0; kk < XD_BLOCK_K; kk++)
        kf[kk] = xd_min(b.k0 + kk, b.k_end - 1) * XC_CG * XD_RS;
    float acc[XD_BLOCK_K][XD_BLOCK_H][XD_BLOCK_W];
    for (int kk = 0; kk < XD_BLOCK_K; kk++)
        for (int i = 0; i < XD_BLOCK_H; i++)
            for (int j = 0; j < XD_BLOCK_W; j++)
                acc[kk][i][j] = 0.0f;
#endif

    const XC_GLOBAL XC_DATA *x_img = x + (b.n * XC_C + b.grp * XC_CG) * XC_H * XC_W;
#if XD_UNROLL_C
#pragma unroll
#endif
    for (int c = 0; c < XC_CG; c++) {
        const XC_GLOBAL XC_DATA *x_plane = x_img + c * XC_H * XC_W;
#pragma unroll
        for (int r = 0; r < XC_R; r++) {
#pragma unroll
            for (int s = 0; s < XC_S; s++) {
                const int tap = c * XD_RS + r * XC_S + s;  // the tap's filter offset
#pragma unroll
                for (int i = 0; i < XD_BLOCK_H; i++) {
                    bool row_in;
                    const int ihc = xd_input_row(ih0[i] + r * XC_DIL_H, &row_in);
#if XD_VEC_Q
                    const XC_GLOBAL float *x_row = x_plane + ihc * XC_W;
                    XD_VEC xv;
                    if (tap_end[s] >= 0 && tap_end[s] < (XC_H - ihc) * XC_W) {
#if XC_STRIDE_W == 1
                        xv = XD_VLOAD(0, x_row + iw0[0] + s * XC_DIL_W);
#elif defined(XD_VLOAD_PAIRS)
                        xv = XD_VLOAD_PAIRS(x_row + iw0[0] + s * XC_DIL_W);
#endif
                    } else {
                        // The window crosses an edge: lane by lane from clamped addresses.
                        float lane[XD_VEC_Q];
                        for (int j = 0; j < XD_VEC_Q; j++) {
                            const int iw = iw0[j] + s * XC_DIL_W;
                            const float v = x_row[xd_clamp(iw, XC_W - 1)];
                            lane[j] = iw >= 0 && iw < XC_W ? v : 0.0f;
                        }
                        xv = XD_VLOAD(0, lane);
                    }
                    xv = row_in ? xv : (XD_VEC)(0.0f);
#pragma unroll
                    for (int kk = 0; kk < XD_BLOCK_K; kk++)
                        acc[kk][i] = fma(xv, (XD_VEC)(w_block[kk * XC_CG * XD_RS + tap]),
                                         acc[kk][i]);
#else
#pragma unroll
                    for (int j = 0; j < XD_BLOCK_W; j++) {
                        const float xv = xd_input(x_plane, ihc, row_in, iw0[j] + s * XC_DIL_W);
#pragma unroll
                        for (int kk = 0; kk < XD_BLOCK_K; kk++)
                            acc[kk][i][j] =
                                XC_FMA(xv, XC_LD(xd_filter, kf[kk] + tap), acc[kk][i][j]);
                    }
#endif
                }
            }
        }
    }

    for (int kk = 0; kk < XD_BLOCK_K; kk++) {
#if XD_VEC_Q
        const int k = k_first + kk;  // below b.k0: another block's channel, computed again
        if (k < b.k0 || b.n_item >= XC_N)
            continue;
#if XC_POOL_H
        float lanes[XD_BLOCK_H][XD_VEC_Q];  // the block's rows, lane by lane, to pool
        for (int i = 0; i < XD_BLOCK_H; i++)
            XD_VSTORE(acc[kk][i], 0, lanes[i]);
#define XD_VALUE(i, j) XC_EPI(lanes[i][j], k)
        XD_POOL_STORE(y + (b.n * XC_K + k) * XC_Y_H * XC_Y_W, b.p0, b.q0, XD_VALUE)
#else
        for (int i = 0; i < XD_BLOCK_H && b.p0 + i < XC_P; i++) {
            XC_GLOBAL float *y_row = y + ((b.n * XC_K + k) * XC_P + b.p0 + i) * XC_Q;
#if XC_EPI_ANY
            acc[kk][i] = (XD_VEC)(XC_EPI_ADD(acc[kk][i], k));
#if XC_EPI_ACT
            acc[kk][i] = select(acc[kk][i], (XD_VEC)(0.0f), acc[kk][i] < (XD_VEC)(0.0f));
#endif
#if XC_EPI_ACT == 2
            acc[kk][i] = select(acc[kk][i], (XD_VEC)(6.0f), acc[kk][i] > (XD_VEC)(6.0f));
#endif
#endif
            if (b.q0 + XD_VEC_Q <= XC_Q) {
                XD_VSTORE(acc[kk][i], 0, y_row + b.q0);
            } else {  // the last item of a row: only the lanes inside it
                float lane[XD_VEC_Q];
                XD_VSTORE(acc[kk][i], 0, lane);
                for (int j = 0; j < XD_VEC_Q && b.q0 + j < XC_Q; j++)
                    y_row[b.q0 + j] = lane[j];
            }
        }
#endif
#else
        if (b.k0 + kk >= b.k_end || b.n_item >= XC_N)
            break;
#if XC_POOL_H
        XD_POOL_STORE_ACC(y, b, kk)
#else
        for (int i = 0; i < XD_BLOCK_H; i++) {
            const int p = b.p0 + i;
            for (int j = 0; j < XD_BLOCK_W; j++) {
                const int q = b.q0 + j * XD_BLOCK_STEP_W;
                if (p < XC_P && q < XC_Q)
                    XC_ST(y, ((b.n * XC_K + b.k0 + kk) * XC_P + p) * XC_Q + q,
                          XC_EPI(acc[kk][i][j], b.k0 + kk));
            }
        }
#endif
#endif
    }
}
