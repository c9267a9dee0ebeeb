// SPDX-License-Identifier: MIT
// implicit_xmx: implicit GEMM convolution on Intel's matrix engines (XMX). The same product as
// implicit_gemm (cl/sgemm.cl, B mode 1): C (KG x N*P*Q) = A (the filters, KG x CG*R*S) times B
// (gathered from x: row (c, r, s), column (n, p, q)), one product per group, with the inner
// product as cl_intel_subgroup_matrix_multiply_accumulate's f16 or bf16 built-in (DPAS: 8 rows
// x 16 k x one column a lane, fp32 sums; common/xconv_xmx.h).
//
// Math (XC_XMX_MATH, the host's xconv_math): 2 f16 or 3 bf16, the operands as stored (XC_DTYPE
// 1 or 2), fp32 accumulation; the output is rounded once to the storage type (XC_ST).
//
// Tiling. A sub-group of SG lanes (XC_XMX_SG: the device's, 8 on Xe-HPG, 16 on Xe-HPC) computes
// BLOCKS_M x BLOCKS_N blocks of 8 rows x SG columns of C; a work-group of SUB_GROUPS_M x
// SUB_GROUPS_N sub-groups a TILE_M x TILE_N tile. Lane j of a block is column j: it gathers its
// own 16 k of B from x a step (no local memory), and the lanes load A's 8 rows x 16 k between
// them, each its k of every row, as the built-in takes them. k is walked 16 at a time, (c, r, s)
// as the filters are stored; past K and in the padding the operands are zeros.
//
// XC_XMX_NATIVE 0 replaces the built-in by common/xconv_xmx.h's emulation through local memory,
// so that the same tiling and operand layout run on any OpenCL device (the tests run it on
// PoCL). Plans for a device with the extension use the built-in (1).

// ---------------------------------------------------------------------------------------------
// Tuning parameters (host/families/gemm/plan_xmx.c)

#ifndef XC_XMX_MATH
#error "implicit_xmx.cl needs XC_XMX_MATH (2 f16, 3 bf16)"
#endif
#ifndef XC_XMX_SG
#error "implicit_xmx.cl needs XC_XMX_SG (the device's sub-group size for the built-ins: 8, 16)"
#endif
#ifndef XC_XMX_NATIVE
#define XC_XMX_NATIVE 1        // 1: the extension's built-ins; 0: emulated (tests on CPUs)
#endif
#ifndef XC_XMX_BLOCKS_M
#define XC_XMX_BLOCKS_M 2      // 8-row blocks of C a sub-group: 1 or 2
#endif
#ifndef XC_XMX_BLOCKS_N
#define XC_XMX_BLOCKS_N 2      // SG-column blocks of C a sub-group: 1 or 2
#endif
#ifndef XC_XMX_SUB_GROUPS_M
#define XC_XMX_SUB_GROUPS_M 1  // sub-groups of a work-group along M: 1, 2 or 4
#endif
#ifndef XC_XMX_SUB_GROUPS_N
#define XC_XMX_SUB_GROUPS_N 4  // sub-groups along N: 1, 2 or 4
#endif

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_XMX_THREADS (XC_XMX_SG * XC_XMX_SUB_GROUPS_M * XC_XMX_SUB_GROUPS_N)
#define XC_XMX_SG_M (8 * XC_XMX_BLOCKS_M)                  // rows of C a sub-group
#define XC_XMX_SG_N (XC_XMX_SG * XC_XMX_BLOCKS_N)          // columns of C a sub-group
#define XC_XMX_TILE_M (XC_XMX_SG_M * XC_XMX_SUB_GROUPS_M)  // rows of C a work-group
#define XC_XMX_TILE_N (XC_XMX_SG_N * XC_XMX_SUB_GROUPS_N)  // columns of C a work-group
#define XC_XMX_K 16                                        // k of one built-in

#define XC_XMX_GEMM_M XC_KG                     // rows of C: a group's filters
#define XC_XMX_GEMM_K (XC_CG * XC_R * XC_S)     // the reduction: (c, r, s)
#define XC_XMX_COLS (XC_N * XC_P * XC_Q)        // columns of C: output positions
#define XC_XMX_STEPS ((XC_XMX_GEMM_K + XC_XMX_K - 1) / XC_XMX_K)

#if (XC_XMX_MATH == 2 && XC_DTYPE != 1) || (XC_XMX_MATH == 3 && XC_DTYPE != 2)
#error "implicit_xmx.cl: f16 reads fp16 storage and bf16 bf16 storage"
#endif

#include "xconv_matrix_operands.h"
#include "xconv_xmx.h"

// ---------------------------------------------------------------------------------------------
// Loading one step's operands (16-bit elements as raw bits: OpenCL needs no half arithmetic)

// Element (row, k) of A, 0 past K (row < M).
XC_FUNC unsigned int xc_xmx_a(const XC_GLOBAL unsigned short *w, const int row, const int k)
{
    return k < XC_XMX_GEMM_K ? (unsigned int)w[row * XC_XMX_GEMM_K + k] : 0u;
}

// This lane's words of the 8 rows [row0, row0 + 8) of A at k [k0, k0 + 16): with SG 8 its two
// k (2 lane, 2 lane + 1) a row, with SG 16 its one (lane). Rows past M are zeros.
XC_FUNC void xc_xmx_load_a(const XC_GLOBAL unsigned short *w, const int row0, const int k0,
                           const int lane, unsigned int *a)
{
#pragma unroll
    for (int m = 0; m < 8; m++) {
        const int row = row0 + m;  // row of A, bound M
#if XC_XMX_SG == 8
        const int k = k0 + 2 * lane;
        a[m] = row < XC_XMX_GEMM_M ? XC_PACK16(xc_xmx_a(w, row, k), xc_xmx_a(w, row, k + 1))
                                   : 0u;
#else
        a[m] = row < XC_XMX_GEMM_M ? xc_xmx_a(w, row, k0 + lane) : 0u;
#endif
    }
}

// A lane's column of B: xc_matrix_column (common/xconv_matrix_operands.h).
typedef xc_matrix_col xc_xmx_col;

// Element k (row (c, r, s)) of the column: its bits, 0 in the padding and past K.
XC_FUNC unsigned int xc_xmx_gather(const XC_GLOBAL unsigned short *x, const xc_xmx_col col,
                                   const int k)
{
    const int c = k / (XC_R * XC_S);           // input channel within the group
    const int ih = col.ih0 + (k / XC_S) % XC_R * XC_DIL_H;
    const int iw = col.iw0 + k % XC_S * XC_DIL_W;
    if (k >= XC_XMX_GEMM_K || (unsigned)ih >= (unsigned)XC_H || (unsigned)iw >= (unsigned)XC_W)
        return 0u;
    return (unsigned int)x[col.offset + (c * XC_H + ih) * XC_W + iw];
}

// The lane's 8 words of its column at k [k0, k0 + 16).
XC_FUNC void xc_xmx_load_b(const XC_GLOBAL unsigned short *x, const xc_xmx_col col,
                           const int k0, unsigned int *b)
{
#pragma unroll
    for (int i = 0; i < 8; i++)
        b[i] = XC_PACK16(xc_xmx_gather(x, col, k0 + 2 * i), xc_xmx_gather(x, col, k0 + 2 * i + 1));
}

// ---------------------------------------------------------------------------------------------
// The kernel

// y = conv(x, w): group id 0 indexes column tiles, 1 row tiles, 2 the group. Every work-item
// reaches every built-in (and, emulated, every barrier): rows and columns past C's only mask
// loads and stores.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_XMX_THREADS, 1, 1) XC_XMX_SUB_GROUP_SIZE
void implicit_xmx(const XC_GLOBAL unsigned short *XC_RESTRICT x,
                  const XC_GLOBAL unsigned short *XC_RESTRICT w, XC_GLOBAL XC_DATA *XC_RESTRICT y
                  XC_BATCH_PARAM)
{
    XC_LOCAL unsigned int scratch_all[XC_XMX_SCRATCH_WORDS];  // the emulation's exchange
    const int tid = XC_LOCAL_ID(0);                  // bound THREADS
    const int lane = XC_XMX_LANE(tid);               // lane: the column of each block, bound SG
    const int sub_group = XC_XMX_SUB_GROUP(tid);     // bound SUB_GROUPS_M * SUB_GROUPS_N
    XC_LOCAL_PTR unsigned int *scratch =  // its sub-group's part (emulated)
        scratch_all + (XC_XMX_NATIVE ? 0 : sub_group * XC_XMX_SG * 8);
    const int sg_m = sub_group / XC_XMX_SUB_GROUPS_N, sg_n = sub_group % XC_XMX_SUB_GROUPS_N;
    const int row0 = XC_GROUP_ID(1) * XC_XMX_TILE_M + sg_m * XC_XMX_SG_M;  // first row, bound M
    const int col0 = XC_GROUP_ID(0) * XC_XMX_TILE_N + sg_n * XC_XMX_SG_N;  // first column
    const int group = XC_GROUP_ID(2);                // bound GROUPS
    w += group * XC_XMX_GEMM_M * XC_XMX_GEMM_K;
    x += group * XC_CG * XC_H * XC_W;
    y += group * XC_XMX_GEMM_M * XC_P * XC_Q;

    xc_xmx_col cols[XC_XMX_BLOCKS_N];
#pragma unroll
    for (int j = 0; j < XC_XMX_BLOCKS_N; j++)
        cols[j] = xc_matrix_column(col0 + j * XC_XMX_SG + lane XC_BATCH_ARG);
    float acc[XC_XMX_BLOCKS_M * XC_XMX_BLOCKS_N * 8];
#pragma unroll
    for (int i = 0; i < XC_XMX_BLOCKS_M * XC_XMX_BLOCKS_N * 8; i++)
        acc[i] = 0.0f;

    for (int step = 0; step < XC_XMX_STEPS; step++) {
        const int k0 = step * XC_XMX_K;
        unsigned int a[XC_XMX_BLOCKS_M][8], b[XC_XMX_BLOCKS_N][8];
#pragma unroll
        for (int i = 0; i < XC_XMX_BLOCKS_M; i++)
            xc_xmx_load_a(w, row0 + 8 * i, k0, lane, a[i]);
#pragma unroll
        for (int j = 0; j < XC_XMX_BLOCKS_N; j++)
            xc_xmx_load_b(x, cols[j], k0, b[j]);
#pragma unroll
        for (int i = 0; i < XC_XMX_BLOCKS_M; i++) {
#pragma unroll
            for (int j = 0; j < XC_XMX_BLOCKS_N; j++)
                xc_xmx_mad(acc + (i * XC_XMX_BLOCKS_N + j) * 8, a[i], b[j], scratch, lane);
        }
    }

    // Lane j of each block writes column j of its 8 rows: a sub-group's store is SG
    // consecutive output positions of one filter (contiguous within an image).
#pragma unroll
    for (int j = 0; j < XC_XMX_BLOCKS_N; j++) {
        const int col = col0 + j * XC_XMX_SG + lane;  // column of C, bound COLS
        if (col >= XC_XMX_COLS)
            continue;
        const int n = col / (XC_P * XC_Q), pq = col % (XC_P * XC_Q);
#pragma unroll
        for (int i = 0; i < XC_XMX_BLOCKS_M; i++) {
#pragma unroll
            for (int m = 0; m < 8; m++) {
                const int row = row0 + 8 * i + m;  // row of C, bound M
                if (row < XC_XMX_GEMM_M)
                    XC_ST(y, (n * XC_K + row) * (XC_P * XC_Q) + pq,
                          acc[(i * XC_XMX_BLOCKS_N + j) * 8 + m]);
            }
        }
    }
}
