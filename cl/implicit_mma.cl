// SPDX-License-Identifier: MIT
// implicit_mma: implicit GEMM convolution on NVIDIA tensor cores. The same product as
// implicit_gemm (cl/sgemm.cl, B mode 1): C (KG x N*P*Q) = A (the filters, KG x CG*R*S) times B
// (gathered from x: row (c, r, s), column (n, p, q)), one product per group, with the inner
// product as PTX `mma.sync.aligned` written inline, for NVIDIA's OpenCL and NVRTC alike.
//
// Math (XC_MMA_MATH, the host's xconv_math):
//   1 tf32: fp32 operands rounded to TF32 (cvt.rna.tf32.f32: 10 mantissa bits, to nearest, ties
//     away) as they are staged; mma.m16n8k8 with fp32 accumulation.
//   2 f16, 3 bf16: 16-bit operands as stored (XC_DTYPE 1 or 2); mma.m16n8k16, fp32 accumulation.
// The output is rounded once to the storage type (XC_ST).
//
// Tiling. A work-group of WARPS_M x WARPS_N warps computes a TILE_M x TILE_N block of C; each
// warp a (TILE_M / WARPS_M) x (TILE_N / WARPS_N) block as MMA_M x MMA_N tiles of 16 x 8, each
// tile's 4 fp32 sums spread over the warp's 32 lanes in the PTX fragment layout. K is walked in
// steps of TILE_K elements: the work-group stages the A block (TILE_M rows) and the B block
// (TILE_N columns) in local memory as 32-bit words (one TF32 value, or two 16-bit values: the
// lower k in the lower half). In word units the fragments of all three modes are alike: lane
// (g = lane / 4, t = lane % 4) reads A words (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) of a
// 16 x 8-word slice and B words (g, t), (g, t + 4) of an 8 x 8-word slice. Local memory holds
// the words in that fragment order: for each 8-word slice of k, each 16-row tile of A and each
// pair of 8-column tiles of B is a unit of 32 lanes x 4 words, a lane's four words side by side,
// so a lane reads its A fragment, or its B fragments of two tiles, with one 16-byte load.
// Lane L's four words sit at L ^ ((L >> 3) & 3) (an XOR swizzle): a quarter-warp's loads cover
// the 32 banks once, and a warp storing 32 consecutive columns at one k hits 16 banks (twice
// each) rather than 4. Local memory is double-buffered: the next step's words are loaded from
// global memory into registers while the current step is multiplied, one barrier a step.
//
// Order of the reduction (XC_MMA_RSC). 0: k = (c, r, s) as the filters are stored; each element
// of B finds its channel and filter tap by division. 1 (a group's channels a multiple of
// TILE_K): k = (r, s, c), channels fastest, so a K step lies inside one filter tap: a work-item
// finds the tap, its input position and the bounds once a step, and its B words are the same
// position in consecutive channels (a fixed stride); A's words are the filters' channels at
// that tap. Both operands are staged in the same order, so the product is unchanged.
//
// XC_MMA_PTX 0 replaces the mma instruction by an emulation through local memory (each lane
// publishes its fragments; each rebuilds the 16 x k and k x 8 operands from the PTX layout and
// sums its own four outputs with fp32 fmas): the tiling and fragment layouts can then be
// checked on any OpenCL device (the tests run it on PoCL). Plans for tensor cores use PTX (1).
//
// The tuning defines, the instruction and the store of C: common/xconv_mma.h.

#ifndef XC_MMA_RSC
#define XC_MMA_RSC 0        // 1: k walked as (r, s, c), one filter tap a K step (above)
#endif

#include "xconv_matrix_operands.h"
#include "xconv_mma.h"

// ---------------------------------------------------------------------------------------------
// Derived parameters of this kernel

#define XC_MMA_A_WORDS (XC_MMA_TILE_M * XC_MMA_KW)
#define XC_MMA_BUFFER (XC_MMA_A_WORDS + XC_MMA_TILE_N * XC_MMA_KW)  // words of one K step
#define XC_MMA_A_UNITS (XC_MMA_TILE_M / 16)                   // 16-row tiles of A a slice
#define XC_MMA_B_UNITS (XC_MMA_TILE_N / 16)                   // pairs of 8-column tiles of B
#define XC_MMA_A_LOADS (XC_MMA_TILE_M * XC_MMA_KW / XC_MMA_THREADS)  // words per work-item
#define XC_MMA_B_LOADS (XC_MMA_TILE_N * XC_MMA_KW / XC_MMA_THREADS)
#define XC_MMA_B_PASS (XC_MMA_THREADS / XC_MMA_TILE_N)        // work-items a column of B
#define XC_MMA_B_RUN (XC_MMA_KW / XC_MMA_B_PASS)              // its words each, consecutive

#define XC_MMA_GEMM_K (XC_CG * XC_R * XC_S)     // the reduction: (c, r, s)
#define XC_MMA_STEPS ((XC_MMA_GEMM_K + XC_MMA_TILE_K - 1) / XC_MMA_TILE_K)

#if XC_MMA_RSC && XC_CG % XC_MMA_TILE_K
#error "implicit_mma.cl: XC_MMA_RSC needs a group's channels in whole K steps"
#endif
#if (XC_MMA_TILE_M * XC_MMA_KW) % XC_MMA_THREADS || XC_MMA_THREADS % XC_MMA_TILE_N || \
    XC_MMA_KW % XC_MMA_B_PASS
#error "implicit_mma.cl: the A and B blocks must split evenly, a fixed B column per work-item"
#endif

// ---------------------------------------------------------------------------------------------
// Loading one K step into registers, as words

// The word of k elements [k, k + PACK) of row `row` (< M) of A: zeros past K.
XC_FUNC unsigned int xc_mma_word_a(const XC_GLOBAL XC_MMA_SRC *w, const int row, const int k)
{
    const XC_GLOBAL XC_MMA_SRC *at = w + row * XC_MMA_GEMM_K + k;
#if XC_MMA_PACK == 1
    return k < XC_MMA_GEMM_K ? xc_mma_tf32(at[0]) : 0u;
#else
    const unsigned int lo = k < XC_MMA_GEMM_K ? (unsigned int)at[0] : 0u;
    const unsigned int hi = k + 1 < XC_MMA_GEMM_K ? (unsigned int)at[1] : 0u;
    return XC_PACK16(lo, hi);
#endif
}

// The word of channels [c, c + PACK) at filter tap rs (r * S + s) of row `row` (< M) of A, k
// walked as (r, s, c): the filters stay (K, C, R, S) in memory.
XC_FUNC unsigned int xc_mma_word_a_rsc(const XC_GLOBAL XC_MMA_SRC *w, const int row, const int c,
                                       const int rs)
{
    const XC_GLOBAL XC_MMA_SRC *at = w + (row * XC_CG + c) * (XC_R * XC_S) + rs;
#if XC_MMA_PACK == 1
    return xc_mma_tf32(at[0]);
#else
    return XC_PACK16(at[0], at[XC_R * XC_S]);
#endif
}

// Loads this work-item's words of rows [row0, row0 + TILE_M) x k [k0, k0 + TILE_K) of A.
XC_FUNC void xc_mma_load_a(const XC_GLOBAL XC_MMA_SRC *w, const int row0, const int k0,
                           const int tid, unsigned int *regs)
{
#if XC_MMA_RSC
    const int rs = k0 / XC_CG, c0 = k0 % XC_CG;  // the step's filter tap and first channel
#endif
#pragma unroll
    for (int i = 0; i < XC_MMA_A_LOADS; i++) {
        const int e = tid + i * XC_MMA_THREADS;                  // word of the block
        const int row = row0 + e / XC_MMA_KW;                    // row of A, bound M
#if XC_MMA_RSC
        const int c = c0 + (e % XC_MMA_KW) * XC_MMA_PACK;        // channel, bound CG
        regs[i] = row < XC_MMA_GEMM_M ? xc_mma_word_a_rsc(w, row, c, rs) : 0u;
#else
        const int k = k0 + (e % XC_MMA_KW) * XC_MMA_PACK;        // first k, bound K
        regs[i] = row < XC_MMA_GEMM_M ? xc_mma_word_a(w, row, k) : 0u;
#endif
    }
}

// This work-item's column of B: xc_matrix_column (common/xconv_matrix_operands.h).
typedef xc_matrix_col xc_mma_col;

// Element k of the column (row (c, r, s) of B) as the mma reads it: its bits, 0 in the padding
// and past K.
XC_FUNC unsigned int xc_mma_gather(const XC_GLOBAL XC_MMA_SRC *x, const xc_mma_col col,
                                   const int k)
{
    const int c = k / (XC_R * XC_S);           // input channel within the group
    const int ih = col.ih0 + (k / XC_S) % XC_R * XC_DIL_H;
    const int iw = col.iw0 + k % XC_S * XC_DIL_W;
    if (k >= XC_MMA_GEMM_K || (unsigned)ih >= (unsigned)XC_H || (unsigned)iw >= (unsigned)XC_W)
        return 0u;
    const XC_MMA_SRC v = x[col.offset + (c * XC_H + ih) * XC_W + iw];
#if XC_MMA_PACK == 1
    return xc_mma_tf32(v);
#else
    return (unsigned int)v;
#endif
}

// Element (channel c + i * PASS * PACK + h of the tap's position) as the mma reads it, k
// walked as (r, s, c): `at` is the step's first channel at the position.
XC_FUNC unsigned int xc_mma_gather_rsc(const XC_GLOBAL XC_MMA_SRC *at, const int c)
{
    const XC_MMA_SRC v = at[c * (XC_H * XC_W)];
#if XC_MMA_PACK == 1
    return xc_mma_tf32(v);
#else
    return (unsigned int)v;
#endif
}

// Loads this work-item's words of k [k0, k0 + TILE_K) of its column of B: words kw0 + i, a run
// of B_RUN (kw0 a multiple of B_RUN, so a word's place in local memory is mostly known at
// compile time).
XC_FUNC void xc_mma_load_b(const XC_GLOBAL XC_MMA_SRC *x, const xc_mma_col col, const int k0,
                           const int kw0, unsigned int *regs)
{
#if XC_MMA_RSC
    // One filter tap a step: its input position, in the image or not, for every word.
    const int rs = k0 / XC_CG, c0 = k0 % XC_CG;
    const int ih = col.ih0 + rs / XC_S * XC_DIL_H, iw = col.iw0 + rs % XC_S * XC_DIL_W;
    const bool inside = (unsigned)ih < (unsigned)XC_H && (unsigned)iw < (unsigned)XC_W;
    const XC_GLOBAL XC_MMA_SRC *at = x + (inside ? col.offset + (c0 * XC_H + ih) * XC_W + iw : 0);
#pragma unroll
    for (int i = 0; i < XC_MMA_B_LOADS; i++) {
        const int c = (kw0 + i) * XC_MMA_PACK;  // channel past c0, bound TILE_K
#if XC_MMA_PACK == 1
        regs[i] = inside ? xc_mma_gather_rsc(at, c) : 0u;
#else
        regs[i] = inside ? XC_PACK16(xc_mma_gather_rsc(at, c), xc_mma_gather_rsc(at, c + 1))
                         : 0u;
#endif
    }
#else
#pragma unroll
    for (int i = 0; i < XC_MMA_B_LOADS; i++) {
        const int k = k0 + (kw0 + i) * XC_MMA_PACK;  // first k, bound K
#if XC_MMA_PACK == 1
        regs[i] = xc_mma_gather(x, col, k);
#else
        regs[i] = XC_PACK16(xc_mma_gather(x, col, k), xc_mma_gather(x, col, k + 1));
#endif
    }
#endif
}

// Where lane L's four words of a unit are (in 16-byte units): L ^ ((L >> 3) & 3), above.
XC_FUNC int xc_mma_swizzle(const int lane)
{
    return lane ^ ((lane >> 3) & 3);
}

// The local word of A's row m and k word kw: slice kw / 8, 16-row tile m / 16, lane
// (m % 8, kw % 4), word (m % 16 >= 8) + 2 (kw % 8 >= 4) of the lane's four.
XC_FUNC int xc_mma_at_a(const int m, const int kw)
{
    const int unit = kw / 8 * XC_MMA_A_UNITS + m / 16;
    const int lane = m % 8 * 4 + kw % 4;
    return (unit * 32 + xc_mma_swizzle(lane)) * 4 + (m % 16 >= 8) + 2 * (kw % 8 >= 4);
}

// The local word of B's column n and k word kw: slice kw / 8, pair of 8-column tiles n / 16,
// lane (n % 8, kw % 4), word 2 (n % 16 >= 8) + (kw % 8 >= 4) of the lane's four.
XC_FUNC int xc_mma_at_b(const int n, const int kw)
{
    const int unit = kw / 8 * XC_MMA_B_UNITS + n / 16;
    const int lane = n % 8 * 4 + kw % 4;
    return XC_MMA_A_WORDS + (unit * 32 + xc_mma_swizzle(lane)) * 4 + 2 * (n % 16 >= 8) +
           (kw % 8 >= 4);
}

// Stores the loaded words into one local buffer in fragment order.
XC_FUNC void xc_mma_store(XC_LOCAL_PTR unsigned int *buf, const int tid, const int col,
                          const int kw0, const unsigned int *a_regs, const unsigned int *b_regs)
{
#pragma unroll
    for (int i = 0; i < XC_MMA_A_LOADS; i++) {
        const int e = tid + i * XC_MMA_THREADS;
        buf[xc_mma_at_a(e / XC_MMA_KW, e % XC_MMA_KW)] = a_regs[i];
    }
#pragma unroll
    for (int i = 0; i < XC_MMA_B_LOADS; i++)
        buf[xc_mma_at_b(col, kw0 + i)] = b_regs[i];
}

// ---------------------------------------------------------------------------------------------
// Multiplying one K step

// acc += this warp's A rows times its B columns over one local buffer, 8 words of k at a time:
// one 16-byte load a 16-row tile of A and a pair of 8-column tiles of B.
XC_FUNC void xc_mma_multiply(XC_LOCAL_PTR const unsigned int *buf, const int warp_m,
                             const int warp_n, const int lane, XC_LOCAL_PTR unsigned int *scratch,
                             float *acc)
{
    XC_LOCAL_PTR const uint4 *units = (XC_LOCAL_PTR const uint4 *)buf;
    const int at = xc_mma_swizzle(lane);  // this lane's 16 bytes in every unit
    const int a_unit = warp_m * XC_MMA_M, b_unit = warp_n * (XC_MMA_N / 2);
#pragma unroll
    for (int slice = 0; slice < XC_MMA_KW / 8; slice++) {
        unsigned int a[XC_MMA_M][4], b[XC_MMA_N][2];
#pragma unroll
        for (int i = 0; i < XC_MMA_M; i++) {
            const uint4 v = units[(slice * XC_MMA_A_UNITS + a_unit + i) * 32 + at];
            a[i][0] = v.x;
            a[i][1] = v.y;
            a[i][2] = v.z;
            a[i][3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < XC_MMA_N / 2; j++) {
            const uint4 v =
                units[XC_MMA_A_WORDS / 4 + (slice * XC_MMA_B_UNITS + b_unit + j) * 32 + at];
            b[2 * j][0] = v.x;
            b[2 * j][1] = v.y;
            b[2 * j + 1][0] = v.z;
            b[2 * j + 1][1] = v.w;
        }
#pragma unroll
        for (int i = 0; i < XC_MMA_M; i++) {
#pragma unroll
            for (int j = 0; j < XC_MMA_N; j++)
                xc_mma(acc + (i * XC_MMA_N + j) * 4, a[i], b[j], scratch, lane);
        }
    }
}

// Words of local memory: the larger of the operands' two buffers and the staged sums, in whole
// 16-byte units.
#define XC_MMA_LOCAL_WORDS \
    ((2 * XC_MMA_BUFFER > XC_MMA_STAGE_WORDS ? 2 * XC_MMA_BUFFER : XC_MMA_STAGE_WORDS + 3) / 4 * 4)

// ---------------------------------------------------------------------------------------------
// The kernel

// y = conv(x, w): group id 0 indexes column tiles, 1 row tiles, 2 the group. Every work-item
// reaches every barrier and every mma: out-of-range rows and columns only mask loads and stores.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_MMA_THREADS, 1, 1)
void implicit_mma(const XC_GLOBAL XC_MMA_SRC *XC_RESTRICT x,
                  const XC_GLOBAL XC_MMA_SRC *XC_RESTRICT w, XC_GLOBAL XC_DATA *XC_RESTRICT y
                  XC_BATCH_PARAM)
{
    // lds: the operands' two buffers, and then the staged sums of C; scratch, tid, lane, warp.
    XC_MMA_KERNEL_LOCALS;
    const int col0 = XC_GROUP_ID(0) * XC_MMA_TILE_N;    // first column of the tile
    const int row0 = XC_GROUP_ID(1) * XC_MMA_TILE_M;    // first row of the tile
    const int group = XC_GROUP_ID(2);                   // bound GROUPS
    w += group * XC_MMA_GEMM_M * XC_MMA_GEMM_K;
    x += group * XC_CG * XC_H * XC_W;
    y += group * XC_MMA_GEMM_M * XC_P * XC_Q;
    const int col = tid % XC_MMA_TILE_N;                // B column this work-item loads
    const int kw0 = tid / XC_MMA_TILE_N * XC_MMA_B_RUN;  // its first word of k, bound KW
    const xc_mma_col column = xc_matrix_column(col0 + col XC_BATCH_ARG);

    float acc[XC_MMA_M * XC_MMA_N * 4];
#pragma unroll
    for (int i = 0; i < XC_MMA_M * XC_MMA_N * 4; i++)
        acc[i] = 0.0f;
    unsigned int a_regs[XC_MMA_A_LOADS], b_regs[XC_MMA_B_LOADS];

    xc_mma_load_a(w, row0, 0, tid, a_regs);
    xc_mma_load_b(x, column, 0, kw0, b_regs);
    xc_mma_store(lds, tid, col, kw0, a_regs, b_regs);
    XC_BARRIER();
    for (int step = 0; step + 1 < XC_MMA_STEPS; step++) {
        XC_LOCAL_PTR unsigned int *now = lds + (step % 2) * XC_MMA_BUFFER;
        XC_LOCAL_PTR unsigned int *next = lds + ((step + 1) % 2) * XC_MMA_BUFFER;
        xc_mma_load_a(w, row0, (step + 1) * XC_MMA_TILE_K, tid, a_regs);
        xc_mma_load_b(x, column, (step + 1) * XC_MMA_TILE_K, kw0, b_regs);
        xc_mma_multiply(now, warp_m, warp_n, lane, scratch, acc);
        xc_mma_store(next, tid, col, kw0, a_regs, b_regs);
        XC_BARRIER();
    }
    xc_mma_multiply(lds + ((XC_MMA_STEPS - 1) % 2) * XC_MMA_BUFFER, warp_m, warp_n, lane,
                    scratch, acc);
    xc_mma_store_c(y, (XC_LOCAL_PTR float *)lds + warp * 16 * XC_MMA_STAGE_LD,
                   row0 + warp_m * XC_MMA_WARP_M, col0 + warp_n * XC_MMA_WARP_N, lane,
                   acc XC_BATCH_ARG);
}
