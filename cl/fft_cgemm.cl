// SPDX-License-Identifier: MIT
// fft_cgemm: the channel sum of FFT convolution, a batched complex matrix product per
// frequency f and channel group g: Y_fg (K/groups x B) = W_fg (K/groups x C/groups) *
// X_fg (C/groups x B), B the pass's spectrum columns (images x tiles).
//
// Each work-group computes a TILE_M x TILE_N block of one Y_fg. It walks the input channels
// TILE_K at a time, staging the W block (TILE_M x TILE_K) and the X block (TILE_K x TILE_N)
// in local memory; each work-item keeps WPT_M x WPT_N complex sums in registers, its rows
// THREADS_M apart and its columns THREADS_N apart, so that neighbouring work-items load and
// store neighbouring columns. Every sum adds c' = 0, 1, ... in order, four fused multiply-adds
// per complex product, so results do not depend on the tile parameters.
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
// The pitch of the W block's local rows (one input channel's TILE_M output channels): two
// complex numbers past the row. Neighbouring work-items store a filter's run of input channels
// c' = 0, 1, ... of one k' down a column, and a pitch of TILE_M (32 or 16 complex numbers)
// put that run in one bank, 8 stores to a bank; two more staggers the rows by a bank pair
// each. The compute loop reads along rows (k' = ty, ty + 1, ...), conflict-free either way.
#define XC_FFT_GEMM_W_PITCH (XC_FFT_GEMM_TILE_M + 2)
#define XC_FFT_GEMM_W_ELEMS (XC_FFT_GEMM_TILE_M * XC_FFT_GEMM_TILE_K)  // the W block's
#define XC_FFT_GEMM_X_ELEMS (XC_FFT_GEMM_TILE_K * XC_FFT_GEMM_TILE_N)  // the X block's

#if XC_FFT_GEMM_TILE_M % XC_FFT_GEMM_WPT_M != 0 || XC_FFT_GEMM_TILE_N % XC_FFT_GEMM_WPT_N != 0
#error "fft_cgemm.cl: tiles must be multiples of the work per item"
#endif

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
    XC_LOCAL float2 w_tile[XC_FFT_GEMM_TILE_K * XC_FFT_GEMM_W_PITCH];  // [c'][k']
    XC_LOCAL float2 x_tile[XC_FFT_GEMM_TILE_K * XC_FFT_GEMM_TILE_N];  // [c'][b]
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
        // W: neighbouring work-items read neighbouring input channels of a filter (runs of
        // TILE_K) and store them down a column of the block.
        for (int e = tid; e < XC_FFT_GEMM_W_ELEMS; e += XC_FFT_GEMM_THREADS) {
            const int m = e / XC_FFT_GEMM_TILE_K, kk = e % XC_FFT_GEMM_TILE_K;  // k', c' in tile
            const int ok = m0 + m < XC_KG && c0 + kk < XC_CG;
            w_tile[kk * XC_FFT_GEMM_W_PITCH + m] =
                ok ? w[(m0 + m) * XC_CG + c0 + kk] : XC_MAKE_FLOAT2(0.0f, 0.0f);
        }
        for (int e = tid; e < XC_FFT_GEMM_X_ELEMS; e += XC_FFT_GEMM_THREADS) {
            const int kk = e / XC_FFT_GEMM_TILE_N, n = e % XC_FFT_GEMM_TILE_N;  // c', b in tile
            const int ok = c0 + kk < XC_CG && b0 + n < columns;
            x_tile[kk * XC_FFT_GEMM_TILE_N + n] =
                ok ? x[(c0 + kk) * XC_FFT_BATCH + b0 + n] : XC_MAKE_FLOAT2(0.0f, 0.0f);
        }
        XC_BARRIER();
#pragma unroll
        for (int kk = 0; kk < XC_FFT_GEMM_TILE_K; kk++) {
            float2 a[XC_FFT_GEMM_WPT_M], v[XC_FFT_GEMM_WPT_N];
#pragma unroll
            for (int i = 0; i < XC_FFT_GEMM_WPT_M; i++)
                a[i] = w_tile[kk * XC_FFT_GEMM_W_PITCH + ty + i * XC_FFT_GEMM_THREADS_M];
#pragma unroll
            for (int j = 0; j < XC_FFT_GEMM_WPT_N; j++)
                v[j] = x_tile[kk * XC_FFT_GEMM_TILE_N + tx + j * XC_FFT_GEMM_THREADS_N];
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
        XC_BARRIER();
    }

    XC_GLOBAL float2 *yo =
        (XC_GLOBAL float2 *)(yf + yf_offset) + (f * XC_K + g * XC_KG) * XC_FFT_BATCH;
#pragma unroll
    for (int i = 0; i < XC_FFT_GEMM_WPT_M; i++) {
        const int m = m0 + ty + i * XC_FFT_GEMM_THREADS_M;  // k', bound K/groups
        if (m >= XC_KG)
            continue;
#pragma unroll
        for (int j = 0; j < XC_FFT_GEMM_WPT_N; j++) {
            const int b = b0 + tx + j * XC_FFT_GEMM_THREADS_N;  // column, bound columns
            if (b < columns)
                yo[m * XC_FFT_BATCH + b] = acc[i][j];
        }
    }
}
