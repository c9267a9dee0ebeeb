// SPDX-License-Identifier: MIT
// The checking internals of the measuring module beside the public helpers
// (<xconv/measure.h>): float32 references, block scales and scaled sampled checks.
#ifndef XCONV_MEASURE_CHECK_H
#define XCONV_MEASURE_CHECK_H

#include <xconv/xconv.h>

// Compares y with a float32 reference ref_f and scale norm_f (e.g. from the device reference
// path run on |x|, |w|), element by element.
void xconv_compare_full_f32(const float *y, const float *ref_f, const float *norm_f,
                            int64_t count, xconv_compare_result *out);

// Writes into out[i] the largest of scale[] over the block of outputs holding element i: blocks
// of block_h x block_w positions of one plane of the convolution's output (one image, one output
// channel), aligned at row and column 0, cut at the plane's edges. out and scale are
// xconv_problem_conv_elems long (out may not alias scale). Used to normalise the error of
// algorithms that compute a block of outputs together (xconv_plan_error_block); with a pool the
// blocks are the convolution's, before the epilogue pools them (xconv_reference_epilogue).
// (xconv_block_scale_f64 is public: <xconv/measure.h>.)
void xconv_block_scale_f32(const xconv_problem *p, int64_t block_h, int64_t block_w,
                           const float *scale, float *out);

// As xconv_compare_sampled, but each sampled element's error is normalised by the larger of its
// own scale and block_scale[index] (from xconv_block_scale_f32; NULL: its own scale alone).
void xconv_compare_sampled_scaled(const xconv_problem *p, const float *x, const float *w,
                                  const float *bias, const float *y, const int64_t *indices,
                                  int count, const float *block_scale,
                                  xconv_compare_result *out);

// Returns true when r compared at least one element, found none non-finite and its largest
// normalised error is at most threshold.
bool xconv_compare_passed(const xconv_compare_result *r, double threshold);

#endif // XCONV_MEASURE_CHECK_H
