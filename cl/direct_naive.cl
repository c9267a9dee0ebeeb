// SPDX-License-Identifier: MIT
// direct_naive: the teaching baseline. One work-item per output element y[n][k][p][q]; it walks
// its (C/groups) x R x S window, reading x and the filter straight from global memory. A tap on
// the zero padding multiplies 0.0f, so a NaN or infinite weight there gives NaN (IEEE 754), as in
// every other variant.
// With an epilogue (common/xconv_epilogue.h) the bias and activation are applied to the sum, and
// with a pool a work-item computes one pooled output: every convolution output of its window,
// whatever the window's stride and padding (overlapping windows compute theirs again).
// No tile parameters: the problem's shape arrives as XC_* defines (common/xconv_problem_fields.h);
// the macros of this file are XD_*, the direct family's prefix (common/xconv_direct_block.h).
// x, w and y are stored as XC_DATA (fp32, or fp16/bf16 under XC_DTYPE) and the sums are fp32.

#include "xconv_epilogue.h"

#if XC_POOL_H
#define XD_Y_ELEMS (XC_N * XC_K * XC_Y_H * XC_Y_W)
#else
#define XD_Y_ELEMS (XC_N * XC_K * XC_P * XC_Q)
#endif

// Declares acc, the convolution's output (n, k, p, q): the taps of its window in (c, r, s)
// order, one XC_FMA each.
#define XD_CONVOLVE(acc, n, k, p, q)                                                       \
    const int c_first = ((k) / XC_KG) * XC_CG;  /* first input channel of k's group */    \
    float acc = 0.0f;                                                                      \
    for (int c = 0; c < XC_CG; c++) {                                                      \
        const XC_GLOBAL XC_DATA *x_plane = x + ((n) * XC_C + c_first + c) * XC_H * XC_W;   \
        const XC_GLOBAL XC_DATA *w_plane = w + ((k) * XC_CG + c) * XC_R * XC_S;            \
        for (int r = 0; r < XC_R; r++) {                                                   \
            const int ih = (p) * XC_STRIDE_H - XC_PAD_H + r * XC_DIL_H;                    \
            const bool row_in = ih >= 0 && ih < XC_H;                                      \
            for (int s = 0; s < XC_S; s++) {                                               \
                const int iw = (q) * XC_STRIDE_W - XC_PAD_W + s * XC_DIL_W;                \
                const float xv =                                                           \
                    row_in && iw >= 0 && iw < XC_W ? XC_LD(x_plane, ih * XC_W + iw) : 0.0f; \
                acc = XC_FMA(xv, XC_LD(w_plane, r * XC_S + s), acc);                       \
            }                                                                              \
        }                                                                                  \
    }

XC_KERNEL void direct_naive(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                            const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                            XC_GLOBAL XC_DATA *XC_RESTRICT y XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    const int index = XC_GLOBAL_ID(0);  // flat index of y, bound XD_Y_ELEMS
    if (index >= XD_Y_ELEMS)
        return;
#if XC_POOL_H
    const int yq = index % XC_Y_W;
    const int yp = (index / XC_Y_W) % XC_Y_H;
    const int k = (index / (XC_Y_W * XC_Y_H)) % XC_K;
    const int n = index / (XC_Y_W * XC_Y_H * XC_K);
    float m = XC_EPI_NEG_INF;  // the window's padding
    for (int a = 0; a < XC_POOL_H; a++) {
        const int p = yp * XC_POOL_STRIDE_H - XC_POOL_PAD_H + a;
        for (int b = 0; b < XC_POOL_W; b++) {
            const int q = yq * XC_POOL_STRIDE_W - XC_POOL_PAD_W + b;
            if (p >= 0 && p < XC_P && q >= 0 && q < XC_Q) {
                XD_CONVOLVE(acc, n, k, p, q)
                m = xc_epi_max(m, XC_EPI(acc, k));
            }
        }
    }
    XC_ST(y, index, m);
#else
    const int q = index % XC_Q;
    const int p = (index / XC_Q) % XC_P;
    const int k = (index / (XC_Q * XC_P)) % XC_K;
    const int n = index / (XC_Q * XC_P * XC_K);
    XD_CONVOLVE(acc, n, k, p, q)
    XC_ST(y, index, XC_EPI(acc, k));
#endif
}
