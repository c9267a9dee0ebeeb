// SPDX-License-Identifier: MIT
// The FFT family's parameter block as the kernels see it: one X-macro row per compile-time
// define. host/families/fft/plan_fft.c expands this list from one xconv_fft_params
// (host/families/fft/plan_fft.h) for every step of a plan; the kernels (cl/fft_forward.cl,
// cl/fft_inverse.cl, cl/fft_cgemm.cl) read the names, with their defaults, from
// common/xconv_fft_defaults.h, so host and kernels agree on them in one place. The problem's
// own fields come from xconv_problem_fields.h.
#ifndef XCONV_FFT_PARAMS_H
#define XCONV_FFT_PARAMS_H

// X(define name, expression over `const xconv_fft_params *t`, meaning)
#define XCONV_FFT_DEFINES(X)                                                             \
    X(XC_FFT_LH, t->lh, "transform height")                                              \
    X(XC_FFT_RADIX_H, t->radix_h, "radices of the height's passes, one hex digit each")  \
    X(XC_FFT_LW, t->lw, "transform width")                                               \
    X(XC_FFT_RADIX_W, t->radix_w, "radices of the width's passes, one hex digit each")   \
    X(XC_FFT_TILES_H, t->tiles_h, "overlap-save tiles per image along the height")       \
    X(XC_FFT_TILES_W, t->tiles_w, "overlap-save tiles per image along the width")        \
    X(XC_FFT_OUT_H, t->out_h, "output rows per tile")                                    \
    X(XC_FFT_OUT_W, t->out_w, "output columns per tile")                                 \
    X(XC_FFT_BATCH, t->batch, "spectrum columns per pass (images x tiles)")              \
    X(XC_FFT_PLANES, t->planes, "transforms: real planes per work-group (even)")         \
    X(XC_FFT_PITCH, t->pitch, "transforms: complex elements per local-memory row")       \
    X(XC_FFT_THREADS, t->threads, "transforms: work-items per work-group")               \
    X(XC_FFT_INLINE, t->inline_passes, "transforms: 1 passes inlined; 0 one function")   \
    X(XC_FFT_GEMM_TILE_M, t->gemm_tile_m, "channel sum: output channels per work-group") \
    X(XC_FFT_GEMM_TILE_N, t->gemm_tile_n, "channel sum: spectrum columns per work-group") \
    X(XC_FFT_GEMM_TILE_K, t->gemm_tile_k, "channel sum: input channels per local step")  \
    X(XC_FFT_GEMM_WPT_M, t->gemm_wpt_m, "channel sum: output channels per work-item")    \
    X(XC_FFT_GEMM_WPT_N, t->gemm_wpt_n, "channel sum: spectrum columns per work-item")

#endif // XCONV_FFT_PARAMS_H
