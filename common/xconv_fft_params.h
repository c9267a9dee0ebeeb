// SPDX-License-Identifier: MIT
// The FFT family's step parameters as the kernels see them: one X-macro row per compile-time
// define. host/families/fft/plan_fft.c expands these lists from its typed parameter structs; the kernels
// (cl/fft_forward.cl, cl/fft_inverse.cl, cl/fft_cgemm.cl) read the names, so host and kernels
// agree on them in one place. The problem's own fields come from xconv_problem_fields.h.
#ifndef XCONV_FFT_PARAMS_H
#define XCONV_FFT_PARAMS_H

// The transform steps (fft_input, fft_filter, fft_output):
// X(define name, expression over `const xconv_fft_transform_params *t`, meaning)
#define XCONV_FFT_TRANSFORM_DEFINES(X)                                                   \
    X(XC_FFT_LH, t->lh, "transform height")                                              \
    X(XC_FFT_RADIX_H, t->radix_h, "radices of the height's passes, one hex digit each")  \
    X(XC_FFT_LW, t->lw, "transform width")                                               \
    X(XC_FFT_RADIX_W, t->radix_w, "radices of the width's passes, one hex digit each")   \
    X(XC_FFT_TILES_H, t->tiles_h, "overlap-save tiles per image along the height")       \
    X(XC_FFT_TILES_W, t->tiles_w, "overlap-save tiles per image along the width")        \
    X(XC_FFT_OUT_H, t->out_h, "output rows per tile")                                    \
    X(XC_FFT_OUT_W, t->out_w, "output columns per tile")                                 \
    X(XC_FFT_PLANES, t->planes, "real planes per work-group (even)")                     \
    X(XC_FFT_PITCH, t->pitch, "complex elements per local-memory row")                   \
    X(XC_FFT_THREADS, t->threads, "work-items per work-group")                           \
    X(XC_FFT_INLINE, t->inline_passes, "1: passes inlined; 0: one out-of-line function")  \
    X(XC_FFT_BATCH, t->batch, "spectrum columns per pass (images x tiles)")

// The channel sum (fft_cgemm):
// X(define name, expression over `const xconv_fft_gemm_params *t`, meaning)
#define XCONV_FFT_GEMM_DEFINES(X)                                                        \
    X(XC_FFT_GEMM_TILE_M, t->tile_m, "output channels per work-group")                   \
    X(XC_FFT_GEMM_TILE_N, t->tile_n, "spectrum columns per work-group")                  \
    X(XC_FFT_GEMM_TILE_K, t->tile_k, "input channels per local-memory step")             \
    X(XC_FFT_GEMM_WPT_M, t->wpt_m, "output channels per work-item")                      \
    X(XC_FFT_GEMM_WPT_N, t->wpt_n, "spectrum columns per work-item")                     \
    X(XC_FFT_BATCH, t->batch, "spectrum columns per pass (images x tiles)")

#endif // XCONV_FFT_PARAMS_H
