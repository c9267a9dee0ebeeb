// SPDX-License-Identifier: MIT
// sgemm: xconv's tiled single-precision matrix product C = A * B, and the GEMM convolutions
// built on its one body (im2col_gemm, gemm_1x1, implicit_gemm, implicit_precomp).
//
// Algorithm: each work-group computes a TILE_M x TILE_N block of C. It walks K in steps of
// TILE_K: the A block (TILE_M x TILE_K) and the B block (TILE_K x TILE_N) are staged in local
// memory, both stored k-major so that a work-item reads its rows and columns of one k as
// contiguous vectors; each work-item keeps a WPT_M x WPT_N block of C in registers and adds
// their outer product for every k with XC_FMA. Local memory is double-buffered: the next K step
// is loaded from global memory into registers while the current one is multiplied, so a K step
// costs one barrier. Every element of C is the sum over k = 0..K-1 in increasing order of one
// fma each, whatever the tiles, so results do not depend on the tile parameters.
//
// Operands. A is M x K row-major (lda) at a + group * A_GROUP_STRIDE: for convolutions it is the
// filter bank of one group. B is K x N and C is M x N, where a column index j of N may be split
// into segments of SEG columns (an image's P*Q outputs): column j lives at
// (j / SEG) * SEG_STRIDE + j % SEG, so a batch of images is one wide product. Where B comes from
// is XC_GEMM_B_MODE:
//   0  a matrix in memory (plain SGEMM, an im2col workspace, or the input itself for 1x1),
//   1  gathered from the image x on the fly: row (c, r, s), column (n, p, q) (implicit GEMM),
//   2  like 1, with each row's input offset read from a table built once per problem
//      (cl/implicit_precomp.cl) instead of dividing the row index by R*S and S.
// Work-group ids: 0 indexes column tiles, 1 row tiles, 2 the group (or the batch), times the
// K slice under split-K.
// The convolutions' entry points apply an epilogue's bias and activation in the store
// (common/xconv_epilogue.h): row r of group g's C is output channel g * M + r. The implicit GEMMs
// (B gathered) also pool, when windows are as wide as their stride, unpadded and of a size that
// divides VW: C's columns then enumerate pool windows, each window's outputs consecutive in
// row-major order, so a work-item's run of VW columns holds whole windows and its store writes
// their maxima into y (N x K x XC_Y_H x XC_Y_W); outputs no window covers are not computed.
// With XC_GEMM_REGIONS (mode 0) the entry point is sgemm_regions, which takes each operand as a
// (buffer, offset) pair: the batched GEMM of the non-fused Winograd variants, whose three
// operands are regions of one workspace (batch = tile position * groups + group).
//
// Split-K (XC_GEMM_SPLIT_K > 1, for products whose tiles alone leave compute units idle): the
// K steps are divided into SPLIT_K slices of SPLIT_STEPS steps (the last may have fewer); the
// work-group of slice s sums its slice's steps in order and stores that partial C, unmasked by
// any epilogue, into the partials buffer: slice s of group g is an M x PART_LD row-major matrix
// at c + (g * SPLIT_K + s) * M * PART_LD. cl/splitk_reduce.cl then adds the slices in order
// 0, 1, ..., so results are deterministic and the same on every backend (though not bitwise
// those of the unsplit product). Every entry point keeps its signature apart from the implicit
// ones' added offset of the partials, so sgemm and sgemm_regions (non-fused Winograd's batched
// product: C then names the partials' region) take it alike.
// Only the entry points' pointer parameters are restrict: Oclgrind 21.10 cannot run a kernel
// into which a helper taking restrict pointers was inlined (NVRTC's PTX is the same either way).

// ---------------------------------------------------------------------------------------------
// Tuning parameters (host/families/gemm/plan_gemm.c chooses them per device)

#ifndef XC_GEMM_TILE_M
#define XC_GEMM_TILE_M 64   // rows of C per work-group: 16..128
#endif
#ifndef XC_GEMM_TILE_N
#define XC_GEMM_TILE_N 64   // columns of C per work-group: 32..128
#endif
#ifndef XC_GEMM_TILE_K
#define XC_GEMM_TILE_K 16   // k per local-memory step: 8 or 16
#endif
#ifndef XC_GEMM_WPT_M
#define XC_GEMM_WPT_M 4     // rows of C per work-item (register blocking): 2..8
#endif
#ifndef XC_GEMM_WPT_N
#define XC_GEMM_WPT_N 4     // columns of C per work-item: 2..8
#endif
#ifndef XC_GEMM_VW
#define XC_GEMM_VW 4        // local-memory fragment reads as float4 (4) or floats (1); with 4 a
#endif                      // work-item's rows are VW-wide runs spaced THREADS_M * VW apart
#ifndef XC_GEMM_PAD
#define XC_GEMM_PAD 4       // floats of padding per local row against bank conflicts (VW | PAD)
#endif
#ifndef XC_GEMM_UNROLL_K
#define XC_GEMM_UNROLL_K 1  // unroll the k loop of a local step fully (0 where a compiler
#endif                      // chokes on it: PoCL's LLVM 15 crashes on some single-step builds)
#ifndef XC_GEMM_VEC_A
#define XC_GEMM_VEC_A 1     // global loads of A as float4 (4: lda, K, strides multiples of 4)
#endif
#ifndef XC_GEMM_VEC_B
#define XC_GEMM_VEC_B 1     // global loads of B as float4 (4: mode 0, ldb, SEG, strides of 4)
#endif
#ifndef XC_GEMM_VEC_C
#define XC_GEMM_VEC_C 1     // global stores of C as float4 (4: VW 4, ldc, SEG, strides of 4)
#endif
#ifndef XC_GEMM_SPLIT_K
#define XC_GEMM_SPLIT_K 1   // K slices (split-K): 1 none; 2..16 partial products to reduce
#endif
#ifndef XC_GEMM_ROLL_STEPS
#define XC_GEMM_ROLL_STEPS 0  // 1: keep the K-step loop rolled (a compiler that unrolls a few
#endif                        // steps whole holds every step's values at once, and may spill)

// ---------------------------------------------------------------------------------------------
// The product's shape (from the planner; M and K fixed per build, N's extent a kernel argument)

#ifndef XC_GEMM_B_MODE
#define XC_GEMM_B_MODE 0    // where B comes from: 0 memory, 1 gathered, 2 gathered by table
#endif
#ifndef XC_GEMM_REGIONS
#define XC_GEMM_REGIONS 0   // mode 0: the entry point is sgemm_regions, with an offset for A too
#endif
#ifndef XC_GEMM_TABLE_LOCAL
#define XC_GEMM_TABLE_LOCAL 0  // mode 2: each work-group copies the table to local memory first
#endif                         // (1) and reads it there, or reads it where it lies (0; PoCL)
#ifndef XC_GEMM_TABLE_CONST
#define XC_GEMM_TABLE_CONST 0  // mode 2: the table in constant memory (1; 2*K ints must fit)
#endif                         // or in global memory (0)
// With XC_DIMS_RUNTIME (common/xconv_dialect.h: the problem's sizes are kernel arguments) the
// product's shape follows from the sizes (a convolution's; not the Winograd regions' GEMM or a
// fused pool, whose steps keep the sizes compiled in). Mode 2's XC_GEMM_TABLE_LD stays a define:
// it sizes the table's constant array and local copy.
#if XC_DIMS_RUNTIME && (XC_GEMM_REGIONS || XC_POOL_H)
#error "sgemm.cl: run-time sizes for a convolution's unpooled product"
#endif
#include "xconv_gemm_sizes.h"
#if !defined(XC_GEMM_M) || !defined(XC_GEMM_K)
#error "sgemm.cl needs XC_GEMM_M and XC_GEMM_K"
#endif
#ifndef XC_GEMM_LDA
#define XC_GEMM_LDA XC_GEMM_K          // row stride of A
#endif
#ifndef XC_GEMM_SEG
#define XC_GEMM_SEG 1073741824         // columns per segment (default: one segment)
#endif
#ifndef XC_GEMM_LDB
#define XC_GEMM_LDB XC_GEMM_SEG        // row stride of B within a segment
#endif
#ifndef XC_GEMM_LDC
#define XC_GEMM_LDC XC_GEMM_SEG        // row stride of C within a segment
#endif
#ifndef XC_GEMM_B_SEG_STRIDE
#define XC_GEMM_B_SEG_STRIDE 0         // elements from one segment of B to the next
#endif
#ifndef XC_GEMM_C_SEG_STRIDE
#define XC_GEMM_C_SEG_STRIDE 0         // elements from one segment of C to the next
#endif
#ifndef XC_GEMM_A_GROUP_STRIDE
#define XC_GEMM_A_GROUP_STRIDE 0       // elements from one group's A to the next
#endif
#ifndef XC_GEMM_B_GROUP_STRIDE
#define XC_GEMM_B_GROUP_STRIDE 0
#endif
#ifndef XC_GEMM_C_GROUP_STRIDE
#define XC_GEMM_C_GROUP_STRIDE 0
#endif
#ifndef XC_GEMM_PART_LD
#define XC_GEMM_PART_LD XC_GEMM_N      // split-K: row stride of a partial C (N rounded up to 4)
#endif

#include "xconv_epilogue.h"
#include "xconv_local_frag.h"

// Columns of C for the implicit GEMMs: the convolution's outputs, or with a fused pool the
// outputs of every window (XC_GEMM_WINDOW consecutive columns each).
#if XC_POOL_H
#define XC_GEMM_WINDOW (XC_POOL_H * XC_POOL_W)
#define XC_GEMM_CONV_COLS (XC_N * XC_Y_H * XC_Y_W * XC_GEMM_WINDOW)
#if XC_GEMM_B_MODE == 0 || XC_GEMM_VW % XC_GEMM_WINDOW || XC_POOL_STRIDE_H != XC_POOL_H || \
    XC_POOL_STRIDE_W != XC_POOL_W || XC_POOL_PAD_H || XC_POOL_PAD_W
#error "sgemm.cl pools only gathered B, windows as wide as their stride dividing VW, unpadded"
#endif
#else
#define XC_GEMM_CONV_COLS (XC_N * XC_P * XC_Q)
#endif

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_GEMM_THREADS_M (XC_GEMM_TILE_M / XC_GEMM_WPT_M)     // work-items along M
#define XC_GEMM_THREADS_N (XC_GEMM_TILE_N / XC_GEMM_WPT_N)     // work-items along N
#define XC_GEMM_THREADS (XC_GEMM_THREADS_M * XC_GEMM_THREADS_N)
#define XC_GEMM_A_LD (XC_GEMM_TILE_M + XC_GEMM_PAD)            // local A: TILE_K rows of this
#define XC_GEMM_B_LD (XC_GEMM_TILE_N + XC_GEMM_PAD)            // local B: TILE_K rows of this
#define XC_GEMM_A_TILE (XC_GEMM_TILE_K * XC_GEMM_A_LD)
#define XC_GEMM_B_TILE (XC_GEMM_TILE_K * XC_GEMM_B_LD)
#define XC_GEMM_BUFFER (XC_GEMM_A_TILE + XC_GEMM_B_TILE)       // floats of one K step
#define XC_GEMM_LOCAL_FLOAT4 ((2 * XC_GEMM_BUFFER + 3) / 4)    // both buffers, as float4s
#define XC_GEMM_K_STEPS ((XC_GEMM_K + XC_GEMM_TILE_K - 1) / XC_GEMM_TILE_K)
#define XC_GEMM_A_VECS_K (XC_GEMM_TILE_K / XC_GEMM_VEC_A)      // loads along one row of A
#define XC_GEMM_A_LOADS (XC_GEMM_TILE_M * XC_GEMM_A_VECS_K / XC_GEMM_THREADS)
#define XC_GEMM_B_VECS_N (XC_GEMM_TILE_N / XC_GEMM_VEC_B)      // loads along one row of B
#define XC_GEMM_B_ROWS_PER_PASS (XC_GEMM_THREADS / XC_GEMM_B_VECS_N)
#define XC_GEMM_B_LOADS (XC_GEMM_TILE_K / XC_GEMM_B_ROWS_PER_PASS)
#ifndef XC_GEMM_SPLIT_STEPS
#define XC_GEMM_SPLIT_STEPS XC_GEMM_K_STEPS  // K steps of a slice (the planner leaves none empty)
#endif

#if (XC_GEMM_TILE_M * XC_GEMM_A_VECS_K) % XC_GEMM_THREADS != 0
#error "sgemm.cl: the A tile must split evenly over the work-items"
#endif
#if XC_GEMM_THREADS % XC_GEMM_B_VECS_N != 0 || XC_GEMM_TILE_K % XC_GEMM_B_ROWS_PER_PASS != 0
#error "sgemm.cl: the B tile must split evenly over the work-items, a fixed column each"
#endif
#if XC_GEMM_WPT_M % XC_GEMM_VW != 0 || XC_GEMM_WPT_N % XC_GEMM_VW != 0 || \
    XC_GEMM_PAD % XC_GEMM_VW != 0
#error "sgemm.cl: WPT_M, WPT_N and PAD must be multiples of VW"
#endif
#if XC_GEMM_VEC_B == 4 && XC_GEMM_PAD % 4 != 0
#error "sgemm.cl: float4 stores into the local B tile need PAD a multiple of 4"
#endif
#if XC_GEMM_B_MODE != 0 && XC_GEMM_VEC_B != 1
#error "sgemm.cl: gathered B is loaded one float at a time"
#endif
#if !XC_DIMS_RUNTIME && XC_GEMM_SPLIT_K > 1 && \
    (XC_GEMM_SPLIT_K - 1) * XC_GEMM_SPLIT_STEPS >= XC_GEMM_K_STEPS
#error "sgemm.cl: every K slice needs at least one K step"
#endif
// fp16 and bf16 storage (XC_DTYPE: x, w and y of a convolution's GEMM; common/xconv_dialect.h)
// go through XC_LD / XC_ST, four at a time through XC_LD4 / XC_ST4. C is y in that storage, or
// under split-K the fp32 partial sums (cl/splitk_reduce.cl rounds their sum into y). The
// Winograd GEMMs' regions are fp32.
#if XC_DTYPE && XC_GEMM_REGIONS
#error "sgemm.cl: the regions' GEMMs are fp32"
#endif
#if XC_GEMM_SPLIT_K > 1
#define XC_GEMM_C_T float
#define XC_GEMM_ST(ptr, i, v) ((ptr)[(i)] = (v))
#define XC_GEMM_ST4(ptr, i, v) (((XC_GLOBAL float4 *)((ptr) + (i)))[0] = (v))
#else
#define XC_GEMM_C_T XC_DATA
#define XC_GEMM_ST(ptr, i, v) XC_ST((ptr), (i), (v))
#define XC_GEMM_ST4(ptr, i, v) XC_ST4((ptr), (i), (v))
#endif
#if XC_GEMM_SPLIT_K > 1 && (XC_EPI_ANY || XC_POOL_H)
#error "sgemm.cl: split-K stores partial sums: the epilogue belongs to cl/splitk_reduce.cl"
#endif

// Mode 2's offset table (two runs of TABLE_LD ints, read as int4s): a constant-memory array or a
// global pointer, passed along as `xc_gemm_table` either way; modes 0 and 1 pass a null pointer.
#ifndef XC_GEMM_TABLE_LD
#define XC_GEMM_TABLE_LD ((XC_GEMM_K + XC_GEMM_TILE_K - 1) / XC_GEMM_TILE_K * XC_GEMM_TILE_K)
#endif                      // rows of the table: K rounded up to whole K steps
#if XC_GEMM_TABLE_LD % XC_GEMM_TILE_K != 0
#error "sgemm.cl: XC_GEMM_TABLE_LD must cover whole K steps"
#endif
#if XC_GEMM_B_MODE == 2 && XC_GEMM_TABLE_CONST
#define XC_GEMM_TABLE_ARRAY XC_CONSTANT_ARRAY(int4, xc_gemm_table, XC_GEMM_TABLE_LD / 2)
XC_GEMM_TABLE_ARRAY
#define XC_GEMM_TABLE_PARAM XC_CONSTANT_PARAM(int4, xc_gemm_table)
#else
#define XC_GEMM_TABLE_PARAM const XC_GLOBAL int4 *XC_RESTRICT xc_gemm_table
#endif
// What the GEMM body reads the table through: the local copy, or the table where it lies.
#if XC_GEMM_B_MODE == 2 && XC_GEMM_TABLE_LOCAL
#define XC_GEMM_TABLE_READ XC_LOCAL_PTR const int4 *xc_gemm_table
#elif XC_GEMM_B_MODE == 2 && XC_GEMM_TABLE_CONST
#define XC_GEMM_TABLE_READ XC_CONSTANT_ARG(int4, xc_gemm_table)
#else
#define XC_GEMM_TABLE_READ const XC_GLOBAL int4 *xc_gemm_table
#endif

// The local memory of both K-step buffers, declared in each entry point (OpenCL 1.2 allows
// local arrays only at kernel scope). float4 elements make the base 16-byte aligned.
#define XC_GEMM_DECLARE_LOCAL(name) XC_LOCAL float4 name[XC_GEMM_LOCAL_FLOAT4]

// The offset of column j of B or C from its segment split (SEG and strides are constants).
#define XC_GEMM_COL_OFFSET(j, seg_stride) (((j) / XC_GEMM_SEG) * (seg_stride) + (j) % XC_GEMM_SEG)

// Where element (row, column j) of this work-group's C goes: y's layout, or under split-K the
// slice's partial matrix (a sum left unparenthesised, so `c + XC_GEMM_C_AT` adds its terms to
// the pointer one by one, as the unsplit kernel always has); and where step `step` of the
// slice starts.
#if XC_GEMM_SPLIT_K > 1
#define XC_GEMM_C_AT(j, row) (j) + (row) * XC_GEMM_PART_LD
#define XC_GEMM_C_BASE (XC_GROUP_ID(2) * XC_GEMM_M * XC_GEMM_PART_LD)  // the slice's partial C
#define XC_GEMM_K_AT(step) ((step0 + (step)) * XC_GEMM_TILE_K)
#define XC_GEMM_STEPS steps
#else
#define XC_GEMM_C_AT(j, row) XC_GEMM_COL_OFFSET(j, XC_GEMM_C_SEG_STRIDE) + (row) * XC_GEMM_LDC
#define XC_GEMM_C_BASE (group * XC_GEMM_C_GROUP_STRIDE)  // the group's C
#define XC_GEMM_K_AT(step) ((step) * XC_GEMM_TILE_K)
#define XC_GEMM_STEPS XC_GEMM_K_STEPS
#endif

// ---------------------------------------------------------------------------------------------
// Loading one K step into registers

// Loads rows [row0, row0 + TILE_M) x k [k0, k0 + TILE_K) of A into regs (zeros outside A).
XC_FUNC void xc_gemm_load_a(const XC_GLOBAL XC_DATA *a, const int row0, const int k0,
                            const int tid, float *regs XC_BATCH_PARAM)
{
#pragma unroll
    for (int i = 0; i < XC_GEMM_A_LOADS; i++) {
        const int e = tid + i * XC_GEMM_THREADS;       // load index in the tile
        const int row = row0 + e / XC_GEMM_A_VECS_K;   // row of A, bound M
        const int k = k0 + (e % XC_GEMM_A_VECS_K) * XC_GEMM_VEC_A;  // first k, bound K
        const bool ok = row < XC_GEMM_M && k < XC_GEMM_K;
#if XC_GEMM_VEC_A == 4
        float4 v = XC_MAKE_FLOAT4(0.0f, 0.0f, 0.0f, 0.0f);
        if (ok)
            v = XC_LD4(a, row * XC_GEMM_LDA + k);
        regs[4 * i + 0] = v.x;
        regs[4 * i + 1] = v.y;
        regs[4 * i + 2] = v.z;
        regs[4 * i + 3] = v.w;
#else
        regs[i] = ok ? XC_LD(a, row * XC_GEMM_LDA + k) : 0.0f;
#endif
    }
}

// Stores the registers of xc_gemm_load_a into the k-major local A tile.
XC_FUNC void xc_gemm_store_a(XC_LOCAL_PTR float *a_tile, const int tid, const float *regs)
{
#pragma unroll
    for (int i = 0; i < XC_GEMM_A_LOADS; i++) {
        const int e = tid + i * XC_GEMM_THREADS;
        const int m = e / XC_GEMM_A_VECS_K;                      // row in the tile
        const int kk = (e % XC_GEMM_A_VECS_K) * XC_GEMM_VEC_A;   // k in the tile
#pragma unroll
        for (int v = 0; v < XC_GEMM_VEC_A; v++)
            a_tile[(kk + v) * XC_GEMM_A_LD + m] = regs[XC_GEMM_VEC_A * i + v];
    }
}

// Where this work-item's column of B starts: for memory B its offset, for gathered B the
// image's base offset and the window's top-left corner (ih0, iw0). A column past `cols` gets a
// corner far outside the image, so every gathered load from it is a zero.
typedef struct xc_gemm_col {
    int offset;
    int ih0, iw0;
    bool ok;
} xc_gemm_col;

XC_FUNC xc_gemm_col xc_gemm_b_column(const int j, const int cols XC_BATCH_PARAM)
{
    xc_gemm_col col;
    col.ok = j < cols;
#if XC_GEMM_B_MODE == 0
    col.offset = col.ok ? XC_GEMM_COL_OFFSET(j, XC_GEMM_B_SEG_STRIDE) : 0;
    col.ih0 = col.iw0 = 0;
#else
    const int jj = col.ok ? j : 0;
#if XC_POOL_H
    const int win = jj / XC_GEMM_WINDOW;   // pool window, bound N * Y_H * Y_W
    const int t = jj % XC_GEMM_WINDOW;     // the window's output, row-major
    const int n = win / (XC_Y_H * XC_Y_W);                          // image, bound N
    const int p = (win / XC_Y_W) % XC_Y_H * XC_POOL_H + t / XC_POOL_W;  // output row, < P
    const int q = win % XC_Y_W * XC_POOL_W + t % XC_POOL_W;          // output column, < Q
#else
    const int n = jj / (XC_P * XC_Q);      // image, bound N
    const int p = (jj / XC_Q) % XC_P;      // output row, bound P
    const int q = jj % XC_Q;               // output column, bound Q
#endif
    col.ih0 = col.ok ? p * XC_STRIDE_H - XC_PAD_H : -1073741824;
    col.iw0 = q * XC_STRIDE_W - XC_PAD_W;
    col.offset = n * XC_C * XC_H * XC_W + col.ih0 * XC_W + col.iw0;
    if (!col.ok)
        col.offset = 0;
#endif
    return col;
}

// The tile row of B load i of a work-item whose first row is `first` (< ROWS_PER_PASS): from
// memory, rows are spaced a pass apart; gathered, each work-item takes B_LOADS consecutive rows,
// so it decodes (c, r, s) once per K step, or reads its table entries as int4s.
#if XC_GEMM_B_MODE == 0
#define XC_GEMM_B_ROW(first, i) ((first) + (i) * XC_GEMM_B_ROWS_PER_PASS)
#else
#define XC_GEMM_B_ROW(first, i) ((first) * XC_GEMM_B_LOADS + (i))
#endif

#if XC_GEMM_B_MODE == 2 && XC_GEMM_B_LOADS % 4 != 0
#error "sgemm.cl: the table is read as int4s: B_LOADS must be a multiple of 4"
#endif

// One gathered element: x at the column's corner moved by the tap (dh, dw) and `offset`, or 0
// in the padding and past K. The tests are joined with `&`, not `&&`, whose short circuit
// NVIDIA's OpenCL compiler keeps as a branch per test: with one predicate, ptxas predicates
// the load on both backends (docs/cuda.md).
#define XC_GEMM_GATHER(reg, k, tap_offset, tap_dh, tap_dw)                                \
    reg = (((k) < XC_GEMM_K) & ((unsigned)(col.ih0 + (tap_dh)) < (unsigned)XC_H) &        \
           ((unsigned)(col.iw0 + (tap_dw)) < (unsigned)XC_W))                               \
              ? XC_LD(b, col.offset + (tap_offset))                                       \
              : 0.0f

// Loads rows [k0, k0 + TILE_K) of this work-item's column of B into regs (zeros outside B and
// in the padding). xc_gemm_table is mode 2's offset table, unused otherwise.
XC_FUNC void xc_gemm_load_b(const XC_GLOBAL XC_DATA *b,
                            XC_GEMM_TABLE_READ, const xc_gemm_col col,
                            const int k0, const int tid, float *regs XC_BATCH_PARAM)
{
    const int first_row = tid / XC_GEMM_B_VECS_N;  // bound ROWS_PER_PASS
#if XC_GEMM_B_MODE == 0
#pragma unroll
    for (int i = 0; i < XC_GEMM_B_LOADS; i++) {
        const int k = k0 + XC_GEMM_B_ROW(first_row, i);  // row of B, bound K
        const bool ok = col.ok && k < XC_GEMM_K;
#if XC_GEMM_VEC_B == 4
        float4 v = XC_MAKE_FLOAT4(0.0f, 0.0f, 0.0f, 0.0f);
        if (ok)
            v = XC_LD4(b, col.offset + k * XC_GEMM_LDB);
        regs[4 * i + 0] = v.x;
        regs[4 * i + 1] = v.y;
        regs[4 * i + 2] = v.z;
        regs[4 * i + 3] = v.w;
#else
        regs[i] = ok ? XC_LD(b, col.offset + k * XC_GEMM_LDB) : 0.0f;
#endif
    }
#elif XC_GEMM_B_MODE == 1
    const int k_first = k0 + XC_GEMM_B_ROW(first_row, 0);
    int c = k_first / (XC_R * XC_S);  // input channel within the group of row k_first
    int r = (k_first / XC_S) % XC_R;  // its filter row
    int s = k_first % XC_S;           // its filter column
#pragma unroll
    for (int i = 0; i < XC_GEMM_B_LOADS; i++) {
        const int dh = r * XC_DIL_H;
        const int dw = s * XC_DIL_W;
        XC_GEMM_GATHER(regs[i], k_first + i, c * XC_H * XC_W + dh * XC_W + dw, dh, dw);
        s++;  // the next row: (c, r, s + 1) with carries
        if (s == XC_S) {
            s = 0;
            r++;
            if (r == XC_R) {
                r = 0;
                c++;
            }
        }
    }
#else
    const int k_first = k0 + XC_GEMM_B_ROW(first_row, 0);  // a multiple of 4
#pragma unroll
    for (int v = 0; v < XC_GEMM_B_LOADS / 4; v++) {
        const int4 offset = xc_gemm_table[k_first / 4 + v];                      // c*H*W+dh*W+dw
        const int4 packed = xc_gemm_table[XC_GEMM_TABLE_LD / 4 + k_first / 4 + v];  // dh<<16|dw
        const int k = k_first + 4 * v;
        XC_GEMM_GATHER(regs[4 * v + 0], k + 0, offset.x, packed.x >> 16, packed.x & 0xffff);
        XC_GEMM_GATHER(regs[4 * v + 1], k + 1, offset.y, packed.y >> 16, packed.y & 0xffff);
        XC_GEMM_GATHER(regs[4 * v + 2], k + 2, offset.z, packed.z >> 16, packed.z & 0xffff);
        XC_GEMM_GATHER(regs[4 * v + 3], k + 3, offset.w, packed.w >> 16, packed.w & 0xffff);
    }
#endif
}

// Stores the registers of xc_gemm_load_b into the local B tile.
XC_FUNC void xc_gemm_store_b(XC_LOCAL_PTR float *b_tile, const int tid, const float *regs)
{
    const int first_row = tid / XC_GEMM_B_VECS_N;
    const int n = (tid % XC_GEMM_B_VECS_N) * XC_GEMM_VEC_B;  // column in the tile
#pragma unroll
    for (int i = 0; i < XC_GEMM_B_LOADS; i++) {
        const int kk = XC_GEMM_B_ROW(first_row, i);
#if XC_GEMM_VEC_B == 4
        ((XC_LOCAL_PTR float4 *)(b_tile + kk * XC_GEMM_B_LD + n))[0] =
            XC_MAKE_FLOAT4(regs[4 * i], regs[4 * i + 1], regs[4 * i + 2], regs[4 * i + 3]);
#else
        b_tile[kk * XC_GEMM_B_LD + n] = regs[i];
#endif
    }
}

// ---------------------------------------------------------------------------------------------
// Multiplying one K step

// Reads WPT floats of local row `row` for work-item t into frag: VW-wide runs spaced
// THREADS * VW apart (one float4 read each when VW is 4).
#if XC_GEMM_VW == 4
#define XC_GEMM_READ_FRAG XC_READ_FRAG_VEC4
#else
#define XC_GEMM_READ_FRAG XC_READ_FRAG_SCALAR
#endif

// acc += A_tile^T * B_tile for this work-item's rows (ty) and columns (tx).
XC_FUNC void xc_gemm_multiply(XC_LOCAL_PTR const float *a_tile,
                              XC_LOCAL_PTR const float *b_tile, const int tx, const int ty,
                              float *acc)
{
#if XC_GEMM_UNROLL_K
#pragma unroll
#endif
    for (int kk = 0; kk < XC_GEMM_TILE_K; kk++) {
        float a_frag[XC_GEMM_WPT_M];
        float b_frag[XC_GEMM_WPT_N];
        XC_GEMM_READ_FRAG(a_frag, a_tile + kk * XC_GEMM_A_LD, XC_GEMM_WPT_M, XC_GEMM_THREADS_M, ty)
        XC_GEMM_READ_FRAG(b_frag, b_tile + kk * XC_GEMM_B_LD, XC_GEMM_WPT_N, XC_GEMM_THREADS_N, tx)
#pragma unroll
        for (int i = 0; i < XC_GEMM_WPT_M; i++) {
#pragma unroll
            for (int j = 0; j < XC_GEMM_WPT_N; j++)
                acc[i * XC_GEMM_WPT_N + j] =
                    XC_FMA(a_frag[i], b_frag[j], acc[i * XC_GEMM_WPT_N + j]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Storing C

// The tile-relative index of fragment element e (VW-wide runs spaced THREADS * VW apart).
#define XC_GEMM_FRAG_POS(e, threads, t) \
    (((e) / XC_GEMM_VW) * (threads) * XC_GEMM_VW + (t) * XC_GEMM_VW + (e) % XC_GEMM_VW)

// With an epilogue the store takes the output channel of its first row (xc_k0) and the bias.
#if XC_EPI_ANY
#define XC_GEMM_EPI_PARAMS , const int xc_k0 XC_EPI_BIAS_FUNC_PARAM
#define XC_GEMM_EPI_ARGS(k0) , (k0) XC_EPI_BIAS_ARG
#else
#define XC_GEMM_EPI_PARAMS
#define XC_GEMM_EPI_ARGS(k0)
#endif

// Writes this work-item's block of C, skipping rows past M and columns past `cols` (row r of
// the block: XC_EPI of output channel xc_k0 + r).
XC_FUNC void xc_gemm_store_c(XC_GLOBAL XC_GEMM_C_T *c, const int row0, const int col0,
                             const int cols, const int tx, const int ty, const float *acc
                             XC_GEMM_EPI_PARAMS XC_BATCH_PARAM)
{
#pragma unroll
    for (int i = 0; i < XC_GEMM_WPT_M; i++) {
        const int row = row0 + XC_GEMM_FRAG_POS(i, XC_GEMM_THREADS_M, ty);  // bound M
        if (row >= XC_GEMM_M)
            continue;
#if XC_POOL_H
        // Each run of VW columns holds VW / WINDOW whole windows: their maxima go to y, channel
        // row of this group (c is y at the group's first channel), window win of image n.
#pragma unroll
        for (int v = 0; v < XC_GEMM_WPT_N; v += XC_GEMM_WINDOW) {
            const int j = col0 + XC_GEMM_FRAG_POS(v, XC_GEMM_THREADS_N, tx);  // bound cols
            float m = XC_EPI_NEG_INF;
#pragma unroll
            for (int t = 0; t < XC_GEMM_WINDOW; t++)
                m = xc_epi_max(m, XC_EPI(acc[i * XC_GEMM_WPT_N + v + t], xc_k0 + row));
            const int win = j / XC_GEMM_WINDOW;
            if (j < cols)
                XC_GEMM_ST(c, (win / (XC_Y_H * XC_Y_W) * XC_K + row) * (XC_Y_H * XC_Y_W) +
                             win % (XC_Y_H * XC_Y_W), m);
        }
#elif XC_GEMM_VEC_C == 4
#pragma unroll
        for (int v = 0; v < XC_GEMM_WPT_N / 4; v++) {
            const int j = col0 + XC_GEMM_FRAG_POS(4 * v, XC_GEMM_THREADS_N, tx);  // bound cols
            const float *a4 = acc + i * XC_GEMM_WPT_N + 4 * v;
            if (j < cols)
                XC_GEMM_ST4(c, XC_GEMM_C_AT(j, row),
                       XC_MAKE_FLOAT4(XC_EPI(a4[0], xc_k0 + row), XC_EPI(a4[1], xc_k0 + row),
                                      XC_EPI(a4[2], xc_k0 + row), XC_EPI(a4[3], xc_k0 + row)));
        }
#else
#pragma unroll
        for (int e = 0; e < XC_GEMM_WPT_N; e++) {
            const int j = col0 + XC_GEMM_FRAG_POS(e, XC_GEMM_THREADS_N, tx);
            if (j < cols)
                XC_GEMM_ST(c, XC_GEMM_C_AT(j, row),
                           XC_EPI(acc[i * XC_GEMM_WPT_N + e], xc_k0 + row));
        }
#endif
    }
}

// ---------------------------------------------------------------------------------------------
// The body

// C tile (group id 0: column tile, 1: row tile, 2: group, times the K slice under split-K) =
// A * B over all K steps (of the slice). Every work-item reaches every barrier: columns and rows
// out of range only mask loads and stores, and a slice's step count is the work-group's own.
XC_FUNC void xc_gemm_body(const XC_GLOBAL XC_DATA *a, const XC_GLOBAL XC_DATA *b,
                          XC_GEMM_TABLE_READ, XC_GLOBAL XC_GEMM_C_T *c,
                          const int cols, XC_LOCAL_PTR float *lds XC_EPI_BIAS_FUNC_PARAM
                          XC_BATCH_PARAM)
{
    const int tx = XC_LOCAL_ID(0);                     // column work-item, bound THREADS_N
    const int ty = XC_LOCAL_ID(1);                     // row work-item, bound THREADS_M
    const int tid = ty * XC_GEMM_THREADS_N + tx;       // bound THREADS
    const int col0 = XC_GROUP_ID(0) * XC_GEMM_TILE_N;  // first column of the tile
    const int row0 = XC_GROUP_ID(1) * XC_GEMM_TILE_M;  // first row of the tile
#if XC_GEMM_SPLIT_K > 1
    const int group = XC_GROUP_ID(2) / XC_GEMM_SPLIT_K;  // group, bound the launch's 3rd size
    const int step0 = XC_GROUP_ID(2) % XC_GEMM_SPLIT_K * XC_GEMM_SPLIT_STEPS;  // first K step
    const int steps = XC_GEMM_K_STEPS - step0 < XC_GEMM_SPLIT_STEPS  // of the slice, >= 1
                          ? XC_GEMM_K_STEPS - step0
                          : XC_GEMM_SPLIT_STEPS;
#else
    const int group = XC_GROUP_ID(2);                  // group, bound the launch's third size
#endif
    a += group * XC_GEMM_A_GROUP_STRIDE;
    b += group * XC_GEMM_B_GROUP_STRIDE;
    const xc_gemm_col col =
        xc_gemm_b_column(col0 + (tid % XC_GEMM_B_VECS_N) * XC_GEMM_VEC_B, cols XC_BATCH_ARG);

    float acc[XC_GEMM_WPT_M * XC_GEMM_WPT_N];
#pragma unroll
    for (int i = 0; i < XC_GEMM_WPT_M * XC_GEMM_WPT_N; i++)
        acc[i] = 0.0f;
    float a_regs[XC_GEMM_A_LOADS * XC_GEMM_VEC_A];
    float b_regs[XC_GEMM_B_LOADS * XC_GEMM_VEC_B];

    xc_gemm_load_a(a, row0, XC_GEMM_K_AT(0), tid, a_regs XC_BATCH_ARG);
    xc_gemm_load_b(b, xc_gemm_table, col, XC_GEMM_K_AT(0), tid, b_regs XC_BATCH_ARG);
    xc_gemm_store_a(lds, tid, a_regs);
    xc_gemm_store_b(lds + XC_GEMM_A_TILE, tid, b_regs);
    XC_BARRIER();
    // Every K step but the last: load the next step while multiplying this one.
#if XC_DIMS_RUNTIME || XC_GEMM_K_STEPS > 1
#if XC_GEMM_ROLL_STEPS
#pragma unroll 1
#endif
    for (int step = 0; step + 1 < XC_GEMM_STEPS; step++) {
        XC_LOCAL_PTR float *now = lds + (step % 2) * XC_GEMM_BUFFER;
        XC_LOCAL_PTR float *next = lds + ((step + 1) % 2) * XC_GEMM_BUFFER;
        xc_gemm_load_a(a, row0, XC_GEMM_K_AT(step + 1), tid, a_regs XC_BATCH_ARG);
        xc_gemm_load_b(b, xc_gemm_table, col, XC_GEMM_K_AT(step + 1), tid, b_regs XC_BATCH_ARG);
        xc_gemm_multiply(now, now + XC_GEMM_A_TILE, tx, ty, acc);
        xc_gemm_store_a(next, tid, a_regs);
        xc_gemm_store_b(next + XC_GEMM_A_TILE, tid, b_regs);
        XC_BARRIER();
    }
#endif
    XC_LOCAL_PTR float *last = lds + ((XC_GEMM_STEPS - 1) % 2) * XC_GEMM_BUFFER;
    xc_gemm_multiply(last, last + XC_GEMM_A_TILE, tx, ty, acc);
    xc_gemm_store_c(c + XC_GEMM_C_BASE, row0, col0, cols, tx, ty, acc
                    XC_GEMM_EPI_ARGS(group * XC_GEMM_M) XC_BATCH_ARG);
}

// ---------------------------------------------------------------------------------------------
// Entry points (one set per B mode)

// The implicit entry points' output: y, or under split-K the partials at y + c_offset (a
// workspace region, whose offset comes as an int since OpenCL cannot offset a buffer).
#if XC_GEMM_SPLIT_K > 1
#define XC_GEMM_C_OFFSET_PARAM , const int c_offset
#define XC_GEMM_C_ARG(y) ((y) + c_offset)
#else
#define XC_GEMM_C_OFFSET_PARAM
#define XC_GEMM_C_ARG(y) y
#endif

#if XC_GEMM_B_MODE == 0 && XC_GEMM_REGIONS
// C[g] = A[g] * B[g] where A starts at a + a_offset, B at b + b_offset and C at c + c_offset
// (elements), `cols` columns: operands that are workspace regions (the Winograd GEMMs).
XC_KERNEL void sgemm_regions(const XC_GLOBAL float *XC_RESTRICT a, const int a_offset,
                             const XC_GLOBAL float *XC_RESTRICT b, const int b_offset,
                             XC_GLOBAL float *XC_RESTRICT c, const int c_offset, const int cols
                             XC_BATCH_PARAM)
{
    XC_GEMM_DECLARE_LOCAL(lds);
    xc_gemm_body(a + a_offset, b + b_offset, (const XC_GLOBAL int4 *)0, c + c_offset, cols,
                 (XC_LOCAL_PTR float *)lds XC_BATCH_ARG);
}
#elif XC_GEMM_B_MODE == 0
// C[g] = A[g] * B[g] where B starts at b + b_offset and C at c + c_offset (elements), `cols`
// columns. im2col_gemm (B: the im2col workspace), gemm_1x1 (B: the input) and plain SGEMM.
XC_KERNEL void sgemm(const XC_GLOBAL XC_DATA *XC_RESTRICT a,
                     const XC_GLOBAL XC_DATA *XC_RESTRICT b, XC_GLOBAL XC_GEMM_C_T *XC_RESTRICT c,
                     const int b_offset, const int c_offset, const int cols XC_EPI_BIAS_PARAM
                     XC_BATCH_PARAM)
{
    XC_GEMM_DECLARE_LOCAL(lds);
    xc_gemm_body(a, b + b_offset, (const XC_GLOBAL int4 *)0, c + c_offset, cols,
                 (XC_LOCAL_PTR float *)lds XC_EPI_BIAS_ARG XC_BATCH_ARG);
}
#elif XC_GEMM_B_MODE == 1
// y = conv(x, w) with the input operand gathered from x: M = K/groups, N = N*P*Q.
XC_KERNEL void implicit_gemm(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                             const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                             XC_GLOBAL XC_GEMM_C_T *XC_RESTRICT y
                             XC_GEMM_C_OFFSET_PARAM XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    XC_GEMM_DECLARE_LOCAL(lds);
    xc_gemm_body(w, x, (const XC_GLOBAL int4 *)0, XC_GEMM_C_ARG(y), XC_GEMM_CONV_COLS,
                 (XC_LOCAL_PTR float *)lds XC_EPI_BIAS_ARG XC_BATCH_ARG);
}
#else
// implicit_gemm with each row's input offset from the table cl/implicit_precomp.cl builds.
XC_KERNEL void implicit_precomp(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                                const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                                XC_GLOBAL XC_GEMM_C_T *XC_RESTRICT y XC_GEMM_C_OFFSET_PARAM,
                                XC_GEMM_TABLE_PARAM XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
#if XC_GEMM_TABLE_LOCAL
    XC_GEMM_DECLARE_LOCAL(lds);
    XC_LOCAL int4 table_lds[XC_GEMM_TABLE_LD / 2];  // the whole table, both runs
    const int tid = XC_LOCAL_ID(1) * XC_GEMM_THREADS_N + XC_LOCAL_ID(0);  // bound THREADS
    for (int i = tid; i < XC_GEMM_TABLE_LD / 2; i += XC_GEMM_THREADS)
        table_lds[i] = xc_gemm_table[i];
    XC_BARRIER();
    xc_gemm_body(w, x, table_lds, XC_GEMM_C_ARG(y), XC_GEMM_CONV_COLS,
                 (XC_LOCAL_PTR float *)lds XC_EPI_BIAS_ARG XC_BATCH_ARG);
#else
    XC_GEMM_DECLARE_LOCAL(lds);
    xc_gemm_body(w, x, xc_gemm_table, XC_GEMM_C_ARG(y), XC_GEMM_CONV_COLS,
                 (XC_LOCAL_PTR float *)lds XC_EPI_BIAS_ARG XC_BATCH_ARG);
#endif
}
#endif
