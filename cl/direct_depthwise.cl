// SPDX-License-Identifier: MIT
// direct_depthwise: a streaming kernel for convolutions whose output channels each read one input
// channel (C/groups == 1: depthwise, and depthwise with a channel multiplier K/groups). Each
// work-item computes a strip of XD_DW_ROWS outputs down one column q of one output plane (n, k):
// it walks the strip's input rows top to bottom, loading each row's S taps once into registers
// and adding them into every output of the strip whose window holds that row, so each input row
// is read once per work-item and the filter (R x S taps) once per strip. Work-items are numbered
// with q fastest, then the strip, then the plane (n, k): neighbouring items read neighbouring
// columns of one row (coalesced; the horizontal overlap of their windows comes from the cache),
// and a work-group spans several planes where planes are small (7x7, 14x14).
// The sums are fp32 in (r, s) order, as direct_naive's; x, w and y are stored as XC_DATA (fp32,
// or fp16/bf16 under XC_DTYPE). The bias and activation (common/xconv_epilogue.h) are applied to
// each stored output; a max-pool is left to the epilogue's own step. The batch size is the
// bound of the plane index only, so taking it at run time (XC_N_RUNTIME) changes no address
// arithmetic.

#include "xconv_epilogue.h"

#ifndef XD_DW_ROWS
#define XD_DW_ROWS 4  // outputs per work-item down one column (the strip): 1 to 8
#endif

// Strips per output column, the last one partial where XD_DW_ROWS does not divide P.
#define XD_DW_STRIPS ((XC_P + XD_DW_ROWS - 1) / XD_DW_ROWS)
// Input rows one strip reads: its outputs' windows, overlapping where the stride is below the
// filter's extent.
#define XD_DW_IN_ROWS ((XD_DW_ROWS - 1) * XC_STRIDE_H + (XC_R - 1) * XC_DIL_H + 1)
// Work-items of the launch: one per strip of every column of every plane.
#define XD_DW_ITEMS (XC_N * XC_K * XD_DW_STRIPS * XC_Q)

XC_KERNEL void direct_depthwise(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                                const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                                XC_GLOBAL XC_DATA *XC_RESTRICT y XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    const int index = XC_GLOBAL_ID(0);  // (plane, strip, q), q fastest; bound XD_DW_ITEMS
    if (index >= XD_DW_ITEMS)
        return;
    const int q = index % XC_Q;
    const int strip = (index / XC_Q) % XD_DW_STRIPS;
    const int plane = index / (XC_Q * XD_DW_STRIPS);  // n * K + k
    const int k = plane % XC_K;
    const int n = plane / XC_K;
    const int p0 = strip * XD_DW_ROWS;               // the strip's first output row
    // Output channel k reads input channel k / KG of its image (one input channel a group).
    const XC_GLOBAL XC_DATA *x_plane = x + (n * XC_C + k / XC_KG) * XC_H * XC_W;

    float taps[XC_R * XC_S];  // k's filter
#pragma unroll
    for (int t = 0; t < XC_R * XC_S; t++)
        taps[t] = XC_LD(w, k * XC_R * XC_S + t);
    float acc[XD_DW_ROWS];
#pragma unroll
    for (int i = 0; i < XD_DW_ROWS; i++)
        acc[i] = 0.0f;

    const int ih0 = p0 * XC_STRIDE_H - XC_PAD_H;  // the strip's first input row (may be padding)
    const int iw0 = q * XC_STRIDE_W - XC_PAD_W;   // the column's first input column
#pragma unroll
    for (int t = 0; t < XD_DW_IN_ROWS; t++) {
        const int ih = ih0 + t;
        const bool row_in = ih >= 0 && ih < XC_H;
        float row[XC_S];  // input row ih at the column's S taps; 0.0f on the padding
#pragma unroll
        for (int s = 0; s < XC_S; s++) {
            const int iw = iw0 + s * XC_DIL_W;
            row[s] = row_in && iw >= 0 && iw < XC_W ? XC_LD(x_plane, ih * XC_W + iw) : 0.0f;
        }
        // Every output of the strip whose window holds row t, at the filter row r it meets
        // (t = i * stride + r * dilation; constants once the loops unroll).
#pragma unroll
        for (int i = 0; i < XD_DW_ROWS; i++) {
            const int d = t - i * XC_STRIDE_H;
            if (d >= 0 && d % XC_DIL_H == 0 && d / XC_DIL_H < XC_R) {
                const int r = d / XC_DIL_H;
#pragma unroll
                for (int s = 0; s < XC_S; s++)
                    acc[i] = XC_FMA(row[s], taps[r * XC_S + s], acc[i]);
            }
        }
    }

#pragma unroll
    for (int i = 0; i < XD_DW_ROWS; i++) {
        const int p = p0 + i;
        if (p < XC_P)
            XC_ST(y, (plane * XC_P + p) * XC_Q + q, XC_EPI(acc[i], k));
    }
}
