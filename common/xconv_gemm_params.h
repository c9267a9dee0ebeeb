// SPDX-License-Identifier: MIT
// The GEMM family's parameters as cl/sgemm.cl and cl/implicit_precomp.cl see them: one X-macro
// row per compile-time define. The host expands these lists from a product's layout and tiles
// (host/families/gemm/plan_gemm.c), and the kernels read these names, so host and kernels agree in one place.
#ifndef XCONV_GEMM_PARAMS_H
#define XCONV_GEMM_PARAMS_H

// X(define name, expression over `const xconv_gemm_layout *L`, `const xconv_gemm_tiles *t` and
//   `const xconv_gemm_derived *d`, meaning)

// The offset table of B mode 2 (implicit_precomp), defined first.
#define XCONV_GEMM_TABLE_DEFINES(X)                                                 \
    X(XC_GEMM_TABLE_LD, d->table_ld, "rows of the offset table (K in whole steps)") \
    X(XC_GEMM_TABLE_CONST, d->table_const, "1: the table is in constant memory")    \
    X(XC_GEMM_TABLE_LOCAL, d->table_local, "1: work-groups copy it to local memory")

// The product and its tiles.
#define XCONV_GEMM_DEFINES(X)                                                       \
    X(XC_GEMM_B_MODE, L->mode, "B from memory (0), gathered (1), through a table (2)") \
    X(XC_GEMM_M, L->m, "rows of A and C")                                           \
    X(XC_GEMM_N, L->n, "columns of B and C")                                        \
    X(XC_GEMM_K, L->k, "columns of A, rows of B")                                   \
    X(XC_GEMM_LDA, L->lda, "leading dimension of A")                                \
    X(XC_GEMM_LDB, L->ldb, "leading dimension of B")                                \
    X(XC_GEMM_LDC, L->ldc, "leading dimension of C")                                \
    X(XC_GEMM_SEG, L->seg, "columns of one segment of B and C")                     \
    X(XC_GEMM_B_SEG_STRIDE, L->b_seg_stride, "elements between segments of B")      \
    X(XC_GEMM_C_SEG_STRIDE, L->c_seg_stride, "elements between segments of C")      \
    X(XC_GEMM_A_GROUP_STRIDE, L->a_group_stride, "elements between groups' A")      \
    X(XC_GEMM_B_GROUP_STRIDE, L->b_group_stride, "elements between groups' B")      \
    X(XC_GEMM_C_GROUP_STRIDE, L->c_group_stride, "elements between groups' C")      \
    X(XC_GEMM_TILE_M, t->tile_m, "rows of C per work-group")                        \
    X(XC_GEMM_TILE_N, t->tile_n, "columns of C per work-group")                     \
    X(XC_GEMM_TILE_K, t->tile_k, "k per local-memory step")                         \
    X(XC_GEMM_WPT_M, t->wpt_m, "rows of C per work-item")                           \
    X(XC_GEMM_WPT_N, t->wpt_n, "columns of C per work-item")                        \
    X(XC_GEMM_VW, t->vw, "local fragment reads: 4 (float4) or 1")                   \
    X(XC_GEMM_PAD, t->pad, "floats of padding per local row")                       \
    X(XC_GEMM_VEC_A, d->vec_a, "A loaded as vectors of this many floats")           \
    X(XC_GEMM_VEC_B, d->vec_b, "B loaded as vectors of this many floats")           \
    X(XC_GEMM_VEC_C, d->vec_c, "C stored as vectors of this many floats")           \
    X(XC_GEMM_UNROLL_K, d->unroll_k, "1: the k loop of a step is unrolled")

// The defines of the product's shape that the kernels derive from the problem's sizes when
// they are kernel arguments (XC_DIMS_RUNTIME, common/xconv_gemm_sizes.h): left out of such a
// step's defines (a GEMM's or its split-K reduce's).
#define XCONV_GEMM_SHAPE_FIELDS                                                     \
    "XC_GEMM_M XC_GEMM_N XC_GEMM_K XC_GEMM_LDA XC_GEMM_LDB XC_GEMM_LDC XC_GEMM_SEG "  \
    "XC_GEMM_B_SEG_STRIDE XC_GEMM_C_SEG_STRIDE XC_GEMM_A_GROUP_STRIDE "             \
    "XC_GEMM_B_GROUP_STRIDE XC_GEMM_C_GROUP_STRIDE XC_GEMM_PART_LD XC_GEMM_SPLIT_STEPS"

// Split-K (only when the product is split): the GEMM step's slices and its partials' layout.
#define XCONV_GEMM_SPLIT_DEFINES(X)                                                 \
    X(XC_GEMM_SPLIT_K, L->split_k, "K slices, each summed into its own partial C")  \
    X(XC_GEMM_SPLIT_STEPS, d->split_steps, "K steps of one slice")                 \
    X(XC_GEMM_PART_LD, d->part_ld, "row stride of a partial C")

// Only where the planner keeps the K-step loop rolled (xconv_gemm_roll_steps).
#define XCONV_GEMM_ROLL_DEFINES(X) \
    X(XC_GEMM_ROLL_STEPS, d->roll_steps, "1: the K-step loop is not unrolled")

// The reduce step of a split product (cl/splitk_reduce.cl): the partials and C's layout.
#define XCONV_GEMM_REDUCE_DEFINES(X)                                                \
    X(XC_GEMM_M, L->m, "rows of C")                                                 \
    X(XC_GEMM_SPLIT_K, L->split_k, "partial products to add")                      \
    X(XC_GEMM_PART_LD, d->part_ld, "row stride of a partial C")                     \
    X(XC_GEMM_LDC, L->ldc, "leading dimension of C")                                \
    X(XC_GEMM_SEG, L->seg, "columns of one segment of C")                           \
    X(XC_GEMM_C_SEG_STRIDE, L->c_seg_stride, "elements between segments of C")      \
    X(XC_GEMM_C_GROUP_STRIDE, L->c_group_stride, "elements between groups' C")

#endif // XCONV_GEMM_PARAMS_H
