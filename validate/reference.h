// SPDX-License-Identifier: MIT
// Host-side checking: seeded random data, sample indices and error measures (the float64
// reference convolution itself is in the library: xconv_reference_conv).
#ifndef XCONV_REFERENCE_H
#define XCONV_REFERENCE_H

#include <xconv/xconv.h>

// Fills out[0..count) with uniform values in [-1, 1) from a portable generator seeded by
// (seed, stream), so x and w drawn with different streams differ. Never zeros as a pattern.
// Each value depends on its index alone, so large arrays are filled in ranges on every core.
void xconv_random_fill(float *out, size_t count, uint64_t seed, uint64_t stream);

// Gives *p (a valid problem) an epilogue drawn from (seed, index): a bias one time in two, an
// activation among none, relu and relu6, and two times in three a max-pool of windows 1 to 3
// with strides 1 to 3 and padding below the window, fitting the output; never none at all. The
// result passes xconv_problem_check.
void xconv_random_epilogue(uint64_t seed, int index, xconv_problem *p);

// Picks `count` distinct-ish flat output indices spread over y (first, last, and seeded random
// ones between), for sampled checks of large problems.
void xconv_sample_indices(const xconv_problem *p, int64_t *out, int count, uint64_t seed);

// Result of comparing an output with a reference.
typedef struct xconv_compare_result {
    double max_norm_err;   // max over elements of |y - ref| / max(norm, tiny)
    int64_t worst_index;   // flat NKPQ index of that element (-1 when none compared)
    int64_t nonfinite;     // elements of y that are NaN or Inf (unwritten or broken)
    int64_t first_nonfinite;  // flat index of the first such element, -1 when none
    int64_t compared;      // elements compared
} xconv_compare_result;

// Compares y with ref element by element, with per-element scale norm (all `count` long). Large
// outputs are compared in ranges on every online core; the result is the same as in order.
void xconv_compare_full(const float *y, const double *ref, const double *norm, int64_t count,
                        xconv_compare_result *out);

// Compares y with a float32 reference ref_f and scale norm_f (e.g. from the device reference
// path run on |x|, |w|), element by element.
void xconv_compare_full_f32(const float *y, const float *ref_f, const float *norm_f,
                            int64_t count, xconv_compare_result *out);

// Compares y at the sampled indices with float64 values recomputed on the host (with the
// problem's epilogue and bias, NULL when it adds none), merging into *out (max of errors, sums
// of counts).
void xconv_compare_sampled(const xconv_problem *p, const float *x, const float *w,
                           const float *bias, const float *y, const int64_t *indices, int count,
                           xconv_compare_result *out);

// Writes into out[i] the largest of scale[] over the block of outputs holding element i: blocks
// of block_h x block_w positions of one plane of the convolution's output (one image, one output
// channel), aligned at row and column 0, cut at the plane's edges. out and scale are
// xconv_problem_conv_elems long (out may not alias scale). Used to normalise the error of
// algorithms that compute a block of outputs together (xconv_plan_error_block); with a pool the
// blocks are the convolution's, before the epilogue pools them (xconv_reference_epilogue).
void xconv_block_scale_f64(const xconv_problem *p, int64_t block_h, int64_t block_w,
                           const double *scale, double *out);
void xconv_block_scale_f32(const xconv_problem *p, int64_t block_h, int64_t block_w,
                           const float *scale, float *out);

// As xconv_compare_sampled, but each sampled element's error is normalised by the larger of its
// own scale and block_scale[index] (from xconv_block_scale_f32; NULL: its own scale alone).
void xconv_compare_sampled_scaled(const xconv_problem *p, const float *x, const float *w,
                                  const float *bias, const float *y, const int64_t *indices,
                                  int count, const float *block_scale,
                                  xconv_compare_result *out);

#endif // XCONV_REFERENCE_H
