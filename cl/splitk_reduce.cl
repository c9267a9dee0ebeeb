// SPDX-License-Identifier: MIT
// splitk_reduce: the second step of a split-K product (cl/sgemm.cl built with XC_GEMM_SPLIT_K >
// 1): C = the sum of the SPLIT_K partial products, added in slice order 0, 1, ..., SPLIT_K - 1,
// so the result does not depend on the run or the backend.
//
// The partials of group g are SPLIT_K row-major M x PART_LD matrices from part + part_offset +
// g * SPLIT_K * M * PART_LD; C has the product's own layout (the XC_GEMM_* defines of
// cl/sgemm.cl: columns in segments of SEG, LDC, segment and group strides) from c + c_offset.
// The store is where a fused epilogue (bias, activation, pooling) goes: it must see the whole
// sum, so under split-K the GEMM's partial stores carry none and it is applied here.
// No tile parameters: one work-item per element of C, neighbouring work-items on neighbouring
// columns, so every read of a partial and most writes of C are coalesced.

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

#define XC_SPLITK_SLICE (XC_GEMM_M * XC_GEMM_PART_LD)  // elements of one partial matrix

XC_KERNEL void splitk_reduce(const XC_GLOBAL float *XC_RESTRICT part,
                             XC_GLOBAL float *XC_RESTRICT c, const int part_offset,
                             const int c_offset, const int cols)
{
    const int j = XC_GLOBAL_ID(0);      // column of C, bound cols
    const int row = XC_GLOBAL_ID(1);    // row of C, bound M
    const int group = XC_GLOBAL_ID(2);  // group (or batch entry), bound the launch's third size
    if (j >= cols || row >= XC_GEMM_M)
        return;
    const XC_GLOBAL float *p =
        part + part_offset + group * XC_GEMM_SPLIT_K * XC_SPLITK_SLICE + row * XC_GEMM_PART_LD + j;
    float sum = p[0];
    for (int s = 1; s < XC_GEMM_SPLIT_K; s++)
        sum = sum + p[s * XC_SPLITK_SLICE];
    // Epilogue hook: the complete sum of output (group, row, column j) is stored here. Offsets
    // are added to the pointer one at a time, each within the 32-bit index range.
    XC_GLOBAL float *out = c + c_offset + group * XC_GEMM_C_GROUP_STRIDE;
    out[(j / XC_GEMM_SEG) * XC_GEMM_C_SEG_STRIDE + j % XC_GEMM_SEG + row * XC_GEMM_LDC] = sum;
}
