// SPDX-License-Identifier: MIT
// epilogue: the unfused path's steps after a convolution that did not apply its epilogue: the
// bias and activation in place over the convolution's N x K x P x Q output, and the max-pool
// from it into y (N x K x XC_Y_H x XC_Y_W). Each is one pass over memory: the bytes fusion saves.
// The arithmetic is common/xconv_epilogue.h's, the same as a fused store's, so both paths give
// the same bits from the same convolution.
// No tile parameters: one work-item per output element; the problem's fields and the epilogue's
// (common/xconv_problem_fields.h) arrive as defines.

#include "xconv_epilogue.h"

#define XC_PQ (XC_P * XC_Q)

#if XC_EPI_ANY
// v[v_offset + i] = act(v[v_offset + i] + bias[k]) for every output i of the convolution (k its
// channel); v is y itself, or the workspace with the region's offset in floats.
XC_KERNEL void epilogue_bias_act(XC_GLOBAL float *XC_RESTRICT v, const int v_offset
                                 XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    const int i = XC_GLOBAL_ID(0);  // flat N x K x P x Q index, bound N*K*P*Q
    if (i >= XC_N * XC_K * XC_PQ)
        return;
    const int k = (i / XC_PQ) % XC_K;
    v[v_offset + i] = XC_EPI(v[v_offset + i], k);
}
#endif

#if XC_POOL_H
// y[i] = the max over output i's window of the convolution's output at in + in_offset: rows
// yr * XC_POOL_STRIDE_H - XC_POOL_PAD_H.. (XC_POOL_H of them), columns likewise; rows and
// columns outside P x Q are -infinity, a NaN gives NaN, ties keep the first (row-major).
XC_KERNEL void epilogue_pool(const XC_GLOBAL float *XC_RESTRICT in, const int in_offset,
                             XC_GLOBAL float *XC_RESTRICT y XC_BATCH_PARAM)
{
    const int i = XC_GLOBAL_ID(0);  // flat N x K x Y_H x Y_W index, bound N*K*Y_H*Y_W
    if (i >= XC_N * XC_K * XC_Y_H * XC_Y_W)
        return;
    const int yc = i % XC_Y_W;
    const int yr = (i / XC_Y_W) % XC_Y_H;
    const int plane = i / (XC_Y_W * XC_Y_H);  // n * K + k
    const XC_GLOBAL float *src = in + in_offset + plane * XC_PQ;
    const int r0 = yr * XC_POOL_STRIDE_H - XC_POOL_PAD_H;
    const int c0 = yc * XC_POOL_STRIDE_W - XC_POOL_PAD_W;
    float m = XC_EPI_NEG_INF;
#define XC_POOL_SRC(r, c) src[(r) * XC_Q + (c)]
    XC_POOL_WINDOW_MAX(m, r0, c0, XC_POOL_SRC)
#undef XC_POOL_SRC
    y[i] = m;
}
#endif
