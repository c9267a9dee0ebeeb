// SPDX-License-Identifier: MIT
// splitk_reduce: the second step of a split-K product (cl/sgemm.cl built with XC_GEMM_SPLIT_K >
// 1): C = the sum of the SPLIT_K partial products, added in slice order 0, 1, ..., SPLIT_K - 1,
// so the result does not depend on the run or the backend. The partials are fp32; C is in the
// storage type (XC_DATA: fp32, or fp16/bf16 under XC_DTYPE), the sum rounded once into it.
//
// The partials of group g are SPLIT_K row-major M x PART_LD matrices from part + part_offset +
// g * SPLIT_K * M * PART_LD; C has the product's own layout (the XC_GEMM_* defines of
// cl/sgemm.cl: columns in segments of SEG, LDC, segment and group strides) from c + c_offset.
// The store is where a fused epilogue goes (common/xconv_epilogue.h): it sees the whole sum, so
// under split-K the GEMM's partial stores carry none and it is applied here. Row r of group g is
// output channel g * M + r. With a pool (a convolution's product: the problem's defines, a
// column per output pixel, PQ columns an image) each work-item owns one pooled output: it sums
// the slices of every pixel of its window in the same order, applies the bias and activation
// to each and keeps their maximum, and C is y's pooled layout from c + c_offset.
// No tile parameters: one work-item per element of C (per pooled output with a pool),
// neighbouring work-items on neighbouring columns, so most reads of a partial and writes of C
// are coalesced.

// With XC_DIMS_RUNTIME the product's shape follows from the problem's sizes, as the GEMM's.
#if XC_DIMS_RUNTIME && XC_POOL_H
#error "splitk_reduce.cl: a pooled reduce keeps the sizes compiled in"
#endif
#include "xconv_gemm_sizes.h"
#if !defined(XC_GEMM_M) || !defined(XC_GEMM_SPLIT_K) || !defined(XC_GEMM_PART_LD)
#error "splitk_reduce.cl needs XC_GEMM_M, XC_GEMM_SPLIT_K and XC_GEMM_PART_LD"
#endif
#ifndef XC_GEMM_SEG
#define XC_GEMM_SEG 1073741824         // columns per segment of C (default: one segment)
#endif
#ifndef XC_GEMM_LDC
#define XC_GEMM_LDC XC_GEMM_SEG        // row stride of C within a segment
#endif
#ifndef XC_GEMM_C_SEG_STRIDE
#define XC_GEMM_C_SEG_STRIDE 0         // elements from one segment of C to the next
#endif
#ifndef XC_GEMM_C_GROUP_STRIDE
#define XC_GEMM_C_GROUP_STRIDE 0       // elements from one group's C to the next
#endif

#include "xconv_epilogue.h"

#define XC_SPLITK_SLICE (XC_GEMM_M * XC_GEMM_PART_LD)  // elements of one partial matrix

// The sum of the SPLIT_K partials at p, slice 0 first.
XC_FUNC float xc_splitk_sum(const XC_GLOBAL float *p XC_BATCH_PARAM)
{
    float sum = p[0];
    for (int s = 1; s < XC_GEMM_SPLIT_K; s++)
        sum = sum + p[s * XC_SPLITK_SLICE];
    return sum;
}

#if XC_POOL_H
// Pooled output j of (group, row): image j / (Y_H * Y_W)'s window j % (Y_H * Y_W); the window's
// pixels outside P x Q are skipped (its padding, -infinity), ties keep the first (row-major),
// as cl/epilogue.cl's pool.
XC_FUNC float xc_splitk_pool(const XC_GLOBAL float *rows, const int j, const int k
                             XC_EPI_BIAS_FUNC_PARAM XC_BATCH_PARAM)
{
    const int win = j % (XC_Y_H * XC_Y_W);  // window in its image, bound Y_H * Y_W
    const XC_GLOBAL float *img = rows + j / (XC_Y_H * XC_Y_W) * (XC_P * XC_Q);
    const int r0 = win / XC_Y_W * XC_POOL_STRIDE_H - XC_POOL_PAD_H;  // window's first row
    const int c0 = win % XC_Y_W * XC_POOL_STRIDE_W - XC_POOL_PAD_W;  // and column
    float m = XC_EPI_NEG_INF;
#define XC_SPLITK_VALUE(r, c) XC_EPI(xc_splitk_sum(img + (r) * XC_Q + (c) XC_BATCH_ARG), k)
    XC_POOL_WINDOW_MAX(m, r0, c0, XC_SPLITK_VALUE)
#undef XC_SPLITK_VALUE
    return m;
}
#endif

XC_KERNEL void splitk_reduce(const XC_GLOBAL float *XC_RESTRICT part,
                             XC_GLOBAL XC_DATA *XC_RESTRICT c, const int part_offset,
                             const int c_offset, const int cols XC_EPI_BIAS_PARAM
                             XC_BATCH_PARAM)
{
    const int j = XC_GLOBAL_ID(0);      // column of C (pooled output), bound cols
    const int row = XC_GLOBAL_ID(1);    // row of C, bound M
    const int group = XC_GLOBAL_ID(2);  // group (or batch entry), bound the launch's third size
    if (j >= cols || row >= XC_GEMM_M)
        return;
    const int k = group * XC_GEMM_M + row;  // output channel, for the epilogue
    (void)k;
    const XC_GLOBAL float *rows =
        part + part_offset + group * XC_GEMM_SPLIT_K * XC_SPLITK_SLICE + row * XC_GEMM_PART_LD;
    // Offsets are added to the pointer one at a time, each within the 32-bit index range.
#if XC_POOL_H
    XC_GLOBAL XC_DATA *out = c + c_offset;
    XC_ST(out, (j / (XC_Y_H * XC_Y_W) * XC_K + k) * (XC_Y_H * XC_Y_W) + j % (XC_Y_H * XC_Y_W),
          xc_splitk_pool(rows, j, k XC_EPI_BIAS_ARG XC_BATCH_ARG));
#else
    const float sum = xc_splitk_sum(rows + j XC_BATCH_ARG);
    XC_GLOBAL XC_DATA *out = c + c_offset + group * XC_GEMM_C_GROUP_STRIDE;
    XC_ST(out, (j / XC_GEMM_SEG) * XC_GEMM_C_SEG_STRIDE + j % XC_GEMM_SEG + row * XC_GEMM_LDC,
          XC_EPI(sum, k));
#endif
}
