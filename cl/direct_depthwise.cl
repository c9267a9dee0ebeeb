// SPDX-License-Identifier: MIT
// direct_depthwise: a streaming kernel for convolutions whose output channels each read one input
// channel (C/groups == 1: depthwise, and depthwise with a channel multiplier K/groups). Each
// work-item computes a block of XD_DW_ROWS x XD_DW_COLS outputs of one output plane (n, k): a
// strip of XD_DW_ROWS rows down XD_DW_COLS adjacent columns. It walks the strip's input rows top
// to bottom, loading the part of each row its columns' windows cover once into registers and
// adding it into every output of the block whose window holds that row, so each input row is
// read once per work-item and the filter (R x S taps) once per block. Where XD_DW_PAIRS is set
// (XD_DW_COLS even, W even) the row is loaded as aligned 2-element words (one 4-byte access for
// fp16/bf16, 8-byte for fp32), and where Q is even too the outputs are stored two at a time:
// 16-bit storage needs half the load instructions of one element per tap. Work-items are
// numbered with the column block fastest, then the strip, then the plane (n, k): neighbouring
// items read neighbouring columns of one row (coalesced; the horizontal overlap of their windows
// comes from the cache), and a work-group spans several planes where planes are small.
// The sums are fp32 in (r, s) order, as direct_naive's; x, w and y are stored as XC_DATA (fp32,
// or fp16/bf16 under XC_DTYPE). The bias and activation (common/xconv_epilogue.h) are applied to
// each stored output; a max-pool is left to the epilogue's own step. The batch size is the
// bound of the plane index only, so taking it at run time (XC_N_RUNTIME) changes no address
// arithmetic.

#include "xconv_epilogue.h"

#ifndef XD_DW_ROWS
#define XD_DW_ROWS 4  // outputs per work-item down one column (the strip): 1 to 8
#endif
#ifndef XD_DW_COLS
#define XD_DW_COLS 1  // adjacent output columns per work-item: 1, 2 or 4
#endif
#ifndef XD_DW_PAIRS
#define XD_DW_PAIRS 0  // 1: input rows as aligned 2-element loads (XD_DW_COLS and W even)
#endif
#if XD_DW_PAIRS && (XD_DW_COLS % 2 != 0 || XC_W % 2 != 0)
#error "direct_depthwise: XD_DW_PAIRS needs XD_DW_COLS and W even"
#endif

// Strips per output column, the last one partial where XD_DW_ROWS does not divide P.
#define XD_DW_STRIPS ((XC_P + XD_DW_ROWS - 1) / XD_DW_ROWS)
// Column blocks per output row, the last one partial where XD_DW_COLS does not divide Q.
#define XD_DW_COL_BLOCKS ((XC_Q + XD_DW_COLS - 1) / XD_DW_COLS)
// Input rows one strip reads: its outputs' windows, overlapping where the stride is below the
// filter's extent.
#define XD_DW_IN_ROWS ((XD_DW_ROWS - 1) * XC_STRIDE_H + (XC_R - 1) * XC_DIL_H + 1)
// Input columns a block's outputs' windows cover in one row.
#define XD_DW_IN_COLS ((XD_DW_COLS - 1) * XC_STRIDE_W + (XC_S - 1) * XC_DIL_W + 1)
#if XD_DW_PAIRS
// A block's first input column q0 * stride - pad has the parity of the padding (q0 is even): the
// aligned words start XD_DW_LEAD columns before it and cover the row's XD_DW_IN_COLS columns.
#define XD_DW_LEAD (XC_PAD_W % 2)
#define XD_DW_ROW_LEN (2 * ((XD_DW_LEAD + XD_DW_IN_COLS + 1) / 2))
#else
#define XD_DW_LEAD 0
#define XD_DW_ROW_LEN XD_DW_IN_COLS
#endif
// Work-items of the launch: one per strip of every column block of every plane.
#define XD_DW_ITEMS (XC_N * XC_K * XD_DW_STRIPS * XD_DW_COL_BLOCKS)

XC_KERNEL void direct_depthwise(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                                const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                                XC_GLOBAL XC_DATA *XC_RESTRICT y XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    const int index = XC_GLOBAL_ID(0);  // (plane, strip, column block), block fastest
    if (index >= XD_DW_ITEMS)
        return;
    const int q0 = (index % XD_DW_COL_BLOCKS) * XD_DW_COLS;  // the block's first output column
    const int strip = (index / XD_DW_COL_BLOCKS) % XD_DW_STRIPS;
    const int plane = index / (XD_DW_COL_BLOCKS * XD_DW_STRIPS);  // n * K + k
    const int k = plane % XC_K;
    const int n = plane / XC_K;
    const int p0 = strip * XD_DW_ROWS;  // the strip's first output row
    // Output channel k reads input channel k / KG of its image (one input channel a group).
    const XC_GLOBAL XC_DATA *x_plane = x + (n * XC_C + k / XC_KG) * XC_H * XC_W;

    float taps[XC_R * XC_S];  // k's filter
#pragma unroll
    for (int t = 0; t < XC_R * XC_S; t++)
        taps[t] = XC_LD(w, k * XC_R * XC_S + t);
    float acc[XD_DW_ROWS * XD_DW_COLS];  // output (p0 + i, q0 + j) at i * XD_DW_COLS + j
#pragma unroll
    for (int i = 0; i < XD_DW_ROWS * XD_DW_COLS; i++)
        acc[i] = 0.0f;

    const int ih0 = p0 * XC_STRIDE_H - XC_PAD_H;  // the strip's first input row (may be padding)
    const int iw0 = q0 * XC_STRIDE_W - XC_PAD_W;  // the block's first input column
#pragma unroll
    for (int t = 0; t < XD_DW_IN_ROWS; t++) {
        const int ih = ih0 + t;
        const bool row_in = ih >= 0 && ih < XC_H;
        // Input row ih from column iw0 - XD_DW_LEAD on; 0.0f on the padding.
        float row[XD_DW_ROW_LEN];
#if XD_DW_PAIRS
        // Even columns, W even: a word lies wholly inside the row or wholly on the padding.
#pragma unroll
        for (int m = 0; m < XD_DW_ROW_LEN; m += 2) {
            const int iw = iw0 - XD_DW_LEAD + m;
            const float2 v = row_in && iw >= 0 && iw < XC_W ? XC_LD2(x_plane, ih * XC_W + iw)
                                                            : XC_MAKE_FLOAT2(0.0f, 0.0f);
            row[m] = v.x;
            row[m + 1] = v.y;
        }
#else
#pragma unroll
        for (int m = 0; m < XD_DW_ROW_LEN; m++) {
            const int iw = iw0 + m;
            row[m] = row_in && iw >= 0 && iw < XC_W ? XC_LD(x_plane, ih * XC_W + iw) : 0.0f;
        }
#endif
        // Every output of the block whose window holds row t, at the filter row r it meets
        // (t = i * stride + r * dilation; constants once the loops unroll).
#pragma unroll
        for (int i = 0; i < XD_DW_ROWS; i++) {
            const int d = t - i * XC_STRIDE_H;
            if (d >= 0 && d % XC_DIL_H == 0 && d / XC_DIL_H < XC_R) {
                const int r = d / XC_DIL_H;
#pragma unroll
                for (int j = 0; j < XD_DW_COLS; j++) {
#pragma unroll
                    for (int s = 0; s < XC_S; s++)
                        acc[i * XD_DW_COLS + j] =
                            XC_FMA(row[XD_DW_LEAD + j * XC_STRIDE_W + s * XC_DIL_W],
                                   taps[r * XC_S + s], acc[i * XD_DW_COLS + j]);
                }
            }
        }
    }

#pragma unroll
    for (int i = 0; i < XD_DW_ROWS; i++) {
        const int p = p0 + i;
        if (p < XC_P) {
            const int base = (plane * XC_P + p) * XC_Q + q0;
#if XD_DW_PAIRS && XC_Q % 2 == 0
            // q0 and Q even: the block's outputs lie in the row in aligned pairs.
#pragma unroll
            for (int j = 0; j < XD_DW_COLS; j += 2)
                if (q0 + j < XC_Q)
                    XC_ST2(y, base + j,
                           XC_MAKE_FLOAT2(XC_EPI(acc[i * XD_DW_COLS + j], k),
                                          XC_EPI(acc[i * XD_DW_COLS + j + 1], k)));
#else
#pragma unroll
            for (int j = 0; j < XD_DW_COLS; j++)
                if (q0 + j < XC_Q)
                    XC_ST(y, base + j, XC_EPI(acc[i * XD_DW_COLS + j], k));
#endif
        }
    }
}
