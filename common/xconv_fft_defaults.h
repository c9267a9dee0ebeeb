// SPDX-License-Identifier: MIT
// The FFT family's parameter block as its kernels read it: every define of
// common/xconv_fft_params.h (which host/families/fft/plan_fft.c passes to each step of a plan,
// the same block for all of them) with a default that lets a kernel compile alone, then the
// sizes they imply. cl/fft_forward.cl, cl/fft_inverse.cl and cl/fft_cgemm.cl include it first;
// each reads the parameters of its own step. Names: the family's defines are XC_FFT_* and its
// helpers xc_fft_* (common/xconv_fft.h); other XC_* names are the dialect's, the problem's and
// the epilogue's, shared by every family.
#ifndef XCONV_FFT_DEFAULTS_H
#define XCONV_FFT_DEFAULTS_H

// ---------------------------------------------------------------------------------------------
// The transforms' size and tiles (every step)

#ifndef XC_FFT_LH
#define XC_FFT_LH 16         // transform height (rows): 2^a 3^b 5^c, up to 4096
#endif
#ifndef XC_FFT_RADIX_H
#define XC_FFT_RADIX_H 0x44  // radices of the height's DIF passes, one hex digit each
#endif
#ifndef XC_FFT_LW
#define XC_FFT_LW 16         // transform width (columns), as the height
#endif
#ifndef XC_FFT_RADIX_W
#define XC_FFT_RADIX_W 0x44
#endif
#ifndef XC_FFT_TILES_H
#define XC_FFT_TILES_H 1     // overlap-save tiles per image along the height (1: whole image)
#endif
#ifndef XC_FFT_TILES_W
#define XC_FFT_TILES_W 1
#endif
#ifndef XC_FFT_OUT_H
#define XC_FFT_OUT_H XC_P    // output rows per tile (whole image: P; tiles: LH - R + 1)
#endif
#ifndef XC_FFT_OUT_W
#define XC_FFT_OUT_W XC_Q
#endif
#ifndef XC_FFT_BATCH
#define XC_FFT_BATCH (XC_N * XC_FFT_TILES_H * XC_FFT_TILES_W)  // spectrum columns per pass
#endif

// ---------------------------------------------------------------------------------------------
// The transform steps' work-groups (fft_input, fft_filter, fft_output)

#ifndef XC_FFT_PLANES
#define XC_FFT_PLANES 2      // real planes per work-group, even: 2..8
#endif
#ifndef XC_FFT_PITCH
#define XC_FFT_PITCH XC_FFT_LW  // complex elements per local row (>= LW; padding spreads banks)
#endif
#ifndef XC_FFT_THREADS
#define XC_FFT_THREADS 64    // work-items per work-group (1-D): 32..256
#endif
#ifndef XC_FFT_INLINE
#define XC_FFT_INLINE 1      // 1: passes inlined (radices constant); 0: one out-of-line pass
#endif                       // function (PoCL 3.1: its LLVM 15 miscompiles or crashes on the
                             // inlined passes)

// ---------------------------------------------------------------------------------------------
// The channel sum's tiles (fft_cgemm)

#ifndef XC_FFT_GEMM_TILE_M
#define XC_FFT_GEMM_TILE_M 16  // output channels per work-group: 1..64
#endif
#ifndef XC_FFT_GEMM_TILE_N
#define XC_FFT_GEMM_TILE_N 64  // spectrum columns per work-group: 16..256
#endif
#ifndef XC_FFT_GEMM_TILE_K
#define XC_FFT_GEMM_TILE_K 8   // input channels per local-memory step: 1..16
#endif
#ifndef XC_FFT_GEMM_WPT_M
#define XC_FFT_GEMM_WPT_M 4    // output channels per work-item: 1..8
#endif
#ifndef XC_FFT_GEMM_WPT_N
#define XC_FFT_GEMM_WPT_N 4    // spectrum columns per work-item: 1..8
#endif

// ---------------------------------------------------------------------------------------------
// Derived sizes

#define XC_FFT_COLS (XC_FFT_LW / 2 + 1)  // stored spectrum columns (Hermitian half)
#define XC_FFT_FREQS (XC_FFT_LH * XC_FFT_COLS)  // stored frequencies per plane
#define XC_FFT_TILES (XC_FFT_TILES_H * XC_FFT_TILES_W)  // tiles per image
#define XC_FFT_PAIRS (XC_FFT_PLANES / 2)                // complex transforms per work-group
#define XC_FFT_PLANE_STRIDE (XC_FFT_LH * XC_FFT_PITCH)  // local complex elements per pair
#define XC_FFT_LOCAL (XC_FFT_PAIRS * XC_FFT_PLANE_STRIDE + XC_FFT_LH + XC_FFT_LW)

#endif // XCONV_FFT_DEFAULTS_H
