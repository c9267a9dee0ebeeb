// SPDX-License-Identifier: MIT
// fft_cgemm: the channel sum of FFT convolution, a batched complex matrix product per
// frequency f and channel group g: Y_fg (K/groups x B) = W_fg (K/groups x C/groups) *
// X_fg (C/groups x B), B the pass's spectrum columns (images x tiles).
//
// Each work-group computes a TILE_M x TILE_N block of one Y_fg. It walks the input channels
// TILE_K at a time (all of them in one step when C/groups <= TILE_K: then W's and X's blocks are
// loaded once, with one barrier), staging the W block (TILE_M x TILE_K) and the X block
// (TILE_K x TILE_N) in local memory; each work-item keeps WPT_M x WPT_N complex sums in
// registers. Where WPT_M (WPT_N) is even, a work-item's rows (columns) come in neighbouring
// pairs, 2 * THREADS_M (2 * THREADS_N) apart, read from local memory as one float4 (two complex
// numbers), and its columns' sums are stored as float4 where the pass's columns are even; else
// single rows (columns) THREADS_M (THREADS_N) apart. Neighbouring work-items load and store
// neighbouring columns either way. Every sum adds c' = 0, 1, ... in order, four fused
// multiply-adds per complex product, so results do not depend on the tile parameters.
//
// Layouts (complex = two floats, real first), as cl/fft_forward.cl writes them:
//   X (f, c, b) at (f * C + c) * XC_FFT_BATCH + b          input spectra
//   W (f, k, c') at (f * K + k) * C/groups + c'             filter spectra (conjugated, scaled)
//   Y (f, k, b) at (f * K + k) * XC_FFT_BATCH + b          output spectra
// with c = g * C/groups + c' and k = g * K/groups + k'.
// Work-group ids: 0 indexes column blocks, 1 the group and row block (g * row blocks + block),
// 2 the frequency.

#include "xconv_fft_defaults.h"  // the family's parameters: XC_FFT_GEMM_* are this kernel's

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_FFT_GEMM_THREADS_M (XC_FFT_GEMM_TILE_M / XC_FFT_GEMM_WPT_M)
#define XC_FFT_GEMM_THREADS_N (XC_FFT_GEMM_TILE_N / XC_FFT_GEMM_WPT_N)
#define XC_FFT_GEMM_THREADS (XC_FFT_GEMM_THREADS_M * XC_FFT_GEMM_THREADS_N)
#define XC_FFT_GEMM_M_BLOCKS ((XC_KG + XC_FFT_GEMM_TILE_M - 1) / XC_FFT_GEMM_TILE_M)
// Complex numbers a work-item reads at once from the blocks (rows of W, columns of X): 2 (one
// float4) where its sums come in pairs along that direction, else 1.
#define XC_FFT_GEMM_VEC_M (XC_FFT_GEMM_WPT_M % 2 == 0 ? 2 : 1)
#define XC_FFT_GEMM_VEC_N (XC_FFT_GEMM_WPT_N % 2 == 0 ? 2 : 1)
// The pitch of the W block's local rows (one input channel's TILE_M output channels): two
// complex numbers past the row (even, so that pairs stay 16-byte aligned). Neighbouring
// work-items store a filter's run of input channels c' = 0, 1, ... of one k' down a column, and
// a pitch of TILE_M (32 or 16 complex numbers) put that run in one bank, 8 stores to a bank; two
// more staggers the rows by a bank pair each. The compute loop reads along rows (k' = ty, ty +
// 1, ...), conflict-free either way.
#define XC_FFT_GEMM_W_PITCH (XC_FFT_GEMM_TILE_M + 2)
#define XC_FFT_GEMM_W_ELEMS (XC_FFT_GEMM_TILE_M * XC_FFT_GEMM_TILE_K)  // the W block's
#define XC_FFT_GEMM_X_ELEMS (XC_FFT_GEMM_TILE_K * XC_FFT_GEMM_TILE_N)  // the X block's
// Input channels that fit one step: then the channel loop has one trip and no barrier between.
#define XC_FFT_GEMM_ONE_STEP (XC_CG <= XC_FFT_GEMM_TILE_K)
#define XC_FFT_GEMM_STEP_K (XC_FFT_GEMM_ONE_STEP ? XC_CG : XC_FFT_GEMM_TILE_K)  // its channels

#if XC_FFT_GEMM_TILE_M % XC_FFT_GEMM_WPT_M != 0 || XC_FFT_GEMM_TILE_N % XC_FFT_GEMM_WPT_N != 0
#error "fft_cgemm.cl: tiles must be multiples of the work per item"
#endif
#if XC_FFT_GEMM_WPT_M > 8 || XC_FFT_GEMM_WPT_N > 8
#error "fft_cgemm.cl: at most 8 x 8 sums a work-item"
#endif

// Row of the W block (k' - m0) of a work-item's sum row i, for work-item row ty: pairs
// 2 * THREADS_M apart, or single rows THREADS_M apart.
#define XC_FFT_GEMM_ROW(ty, i)                                                               \
    (XC_FFT_GEMM_VEC_M == 2                                                                  \
         ? 2 * (ty) + ((i) & 1) + ((i) >> 1) * 2 * XC_FFT_GEMM_THREADS_M                      \
         : (ty) + (i) * XC_FFT_GEMM_THREADS_M)
// Column of the X block (b - b0) of a work-item's sum column j, for work-item column tx.
#define XC_FFT_GEMM_COL(tx, j)                                                               \
    (XC_FFT_GEMM_VEC_N == 2                                                                  \
         ? 2 * (tx) + ((j) & 1) + ((j) >> 1) * 2 * XC_FFT_GEMM_THREADS_N                      \
         : (tx) + (j) * XC_FFT_GEMM_THREADS_N)

// ---------------------------------------------------------------------------------------------
// The kernel

// Y = W * X over the first `columns` spectrum columns of a pass (its images x tiles). Each
// workspace region is a (base, offset in floats) pair.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_FFT_GEMM_THREADS_N, XC_FFT_GEMM_THREADS_M, 1)
void fft_cgemm(const XC_GLOBAL float *XC_RESTRICT xf, const int xf_offset,
               const XC_GLOBAL float *XC_RESTRICT wf, const int wf_offset,
               XC_GLOBAL float *XC_RESTRICT yf, const int yf_offset, const int columns
               XC_BATCH_PARAM)
{
    // The blocks, declared as float4 so that pairs of complex numbers are 16-byte aligned.
    XC_LOCAL float4 w_tile4[(XC_FFT_GEMM_TILE_K * XC_FFT_GEMM_W_PITCH + 1) / 2];
    XC_LOCAL float4 x_tile4[(XC_FFT_GEMM_TILE_K * XC_FFT_GEMM_TILE_N + 1) / 2];
    XC_LOCAL_PTR float2 *w_tile = (XC_LOCAL_PTR float2 *)w_tile4;  // [c'][k']
    XC_LOCAL_PTR float2 *x_tile = (XC_LOCAL_PTR float2 *)x_tile4;  // [c'][b]
    const int tx = XC_LOCAL_ID(0);  // column work-item, bound THREADS_N
    const int ty = XC_LOCAL_ID(1);  // row work-item, bound THREADS_M
    const int tid = ty * XC_FFT_GEMM_THREADS_N + tx;
    const int b0 = XC_GROUP_ID(0) * XC_FFT_GEMM_TILE_N;                       // first column
    const int g = XC_GROUP_ID(1) / XC_FFT_GEMM_M_BLOCKS;                       // group
    const int m0 = (XC_GROUP_ID(1) % XC_FFT_GEMM_M_BLOCKS) * XC_FFT_GEMM_TILE_M;  // first k'
    const int f = XC_GROUP_ID(2);                                              // frequency
    const XC_GLOBAL float2 *x = (const XC_GLOBAL float2 *)(xf + xf_offset) +
                                (f * XC_C + g * XC_CG) * XC_FFT_BATCH;
    const XC_GLOBAL float2 *w = (const XC_GLOBAL float2 *)(wf + wf_offset) +
                                (f * XC_K + g * XC_KG) * XC_CG;

    float2 acc[XC_FFT_GEMM_WPT_M][XC_FFT_GEMM_WPT_N];
#pragma unroll
    for (int i = 0; i < XC_FFT_GEMM_WPT_M; i++)
#pragma unroll
        for (int j = 0; j < XC_FFT_GEMM_WPT_N; j++)
            acc[i][j] = XC_MAKE_FLOAT2(0.0f, 0.0f);

    for (int c0 = 0; c0 < XC_CG; c0 += XC_FFT_GEMM_TILE_K) {
#if !XC_FFT_GEMM_ONE_STEP
        if (c0 > 0)
            XC_BARRIER();  // the previous step's reads of the blocks are done
#endif
        // W: neighbouring work-items read neighbouring input channels of a filter (runs of
        // TILE_K) and store them down a column of the block.
#pragma unroll
        for (int e = tid; e < XC_FFT_GEMM_W_ELEMS; e += XC_FFT_GEMM_THREADS) {
            const int m = e / XC_FFT_GEMM_TILE_K, kk = e % XC_FFT_GEMM_TILE_K;  // k', c' in tile
            const int ok = m0 + m < XC_KG && c0 + kk < XC_CG;
            w_tile[kk * XC_FFT_GEMM_W_PITCH + m] =
                ok ? w[(m0 + m) * XC_CG + c0 + kk] : XC_MAKE_FLOAT2(0.0f, 0.0f);
        }
#pragma unroll
        for (int e = tid; e < XC_FFT_GEMM_X_ELEMS; e += XC_FFT_GEMM_THREADS) {
            const int kk = e / XC_FFT_GEMM_TILE_N, n = e % XC_FFT_GEMM_TILE_N;  // c', b in tile
            const int ok = c0 + kk < XC_CG && b0 + n < columns;
            x_tile[kk * XC_FFT_GEMM_TILE_N + n] =
                ok ? x[(c0 + kk) * XC_FFT_BATCH + b0 + n] : XC_MAKE_FLOAT2(0.0f, 0.0f);
        }
        XC_BARRIER();
        // The step's channels: those of the last step past C/groups (zeros in both blocks) are
        // skipped, so that every sum adds exactly c' = 0 .. C/groups - 1 whatever TILE_K (a
        // zero product could turn a sum's -0 into +0).
#pragma unroll
        for (int kk = 0; kk < XC_FFT_GEMM_STEP_K; kk++) {
#if XC_CG % XC_FFT_GEMM_TILE_K != 0 && !XC_FFT_GEMM_ONE_STEP
            if (c0 + kk >= XC_CG)
                break;
#endif
            float2 a[XC_FFT_GEMM_WPT_M], v[XC_FFT_GEMM_WPT_N];
            XC_LOCAL_PTR const float2 *wr = w_tile + kk * XC_FFT_GEMM_W_PITCH;
            XC_LOCAL_PTR const float2 *xr = x_tile + kk * XC_FFT_GEMM_TILE_N;
#pragma unroll
            for (int i = 0; i < XC_FFT_GEMM_WPT_M; i += XC_FFT_GEMM_VEC_M) {
#if XC_FFT_GEMM_VEC_M == 2
                const float4 q = *(XC_LOCAL_PTR const float4 *)(wr + XC_FFT_GEMM_ROW(ty, i));
                a[i] = XC_MAKE_FLOAT2(q.x, q.y);
                a[i + 1] = XC_MAKE_FLOAT2(q.z, q.w);
#else
                a[i] = wr[XC_FFT_GEMM_ROW(ty, i)];
#endif
            }
#pragma unroll
            for (int j = 0; j < XC_FFT_GEMM_WPT_N; j += XC_FFT_GEMM_VEC_N) {
#if XC_FFT_GEMM_VEC_N == 2
                const float4 q = *(XC_LOCAL_PTR const float4 *)(xr + XC_FFT_GEMM_COL(tx, j));
                v[j] = XC_MAKE_FLOAT2(q.x, q.y);
                v[j + 1] = XC_MAKE_FLOAT2(q.z, q.w);
#else
                v[j] = xr[XC_FFT_GEMM_COL(tx, j)];
#endif
            }
#pragma unroll
            for (int i = 0; i < XC_FFT_GEMM_WPT_M; i++)
#pragma unroll
                for (int j = 0; j < XC_FFT_GEMM_WPT_N; j++) {
                    float2 s = acc[i][j];
                    s.x = XC_FMA(a[i].x, v[j].x, s.x);
                    s.x = XC_FMA(-a[i].y, v[j].y, s.x);
                    s.y = XC_FMA(a[i].x, v[j].y, s.y);
                    s.y = XC_FMA(a[i].y, v[j].x, s.y);
                    acc[i][j] = s;
                }
        }
    }

    XC_GLOBAL float2 *yo =
        (XC_GLOBAL float2 *)(yf + yf_offset) + (f * XC_K + g * XC_KG) * XC_FFT_BATCH;
#pragma unroll
    for (int i = 0; i < XC_FFT_GEMM_WPT_M; i++) {
        const int m = m0 + XC_FFT_GEMM_ROW(ty, i);  // k', bound K/groups
        if (m >= XC_KG)
            continue;
#pragma unroll
        for (int j = 0; j < XC_FFT_GEMM_WPT_N; j += XC_FFT_GEMM_VEC_N) {
            const int b = b0 + XC_FFT_GEMM_COL(tx, j);  // column, bound columns
            XC_GLOBAL float2 *o = yo + m * XC_FFT_BATCH + b;
#if XC_FFT_GEMM_VEC_N == 2
            // b is even: with an even batch (and region offsets, in floats, multiples of 4),
            // the pair is 16-byte aligned.
            if (XC_FFT_BATCH % 2 == 0 && b + 1 < columns) {
                XC_STORE4(XC_MAKE_FLOAT4(acc[i][j].x, acc[i][j].y, acc[i][j + 1].x,
                                         acc[i][j + 1].y),
                          (XC_GLOBAL float *)o, 0);
                continue;
            }
            if (b + 1 < columns)
                o[1] = acc[i][j + 1];
#endif
            if (b < columns)
                o[0] = acc[i][j];
        }
    }
}
