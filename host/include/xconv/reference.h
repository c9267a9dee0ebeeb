// SPDX-License-Identifier: MIT
// The float64 reference: convolutions and epilogues computed on the host, to check
// results against.
#ifndef XCONV_PUBLIC_REFERENCE_H
#define XCONV_PUBLIC_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/core.h>
#include <xconv/problem.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// ---------------------------------------------------------------------------------------------
// The float64 reference (to check results against)

// Computes p in float64 on the host: the convolution, each output the sum of its terms x*w (each
// product exact, summed in double), then p's epilogue (xconv_reference_epilogue) with bias (K
// floats; NULL when p adds none) into y64 (xconv_problem_y_elems values). norm64 (when not
// NULL) gets each output's scale: for the convolution the sum of |x*w| over the same terms, the
// scale of its rounding error; after an epilogue as xconv_reference_epilogue says. Spreads the
// convolution over `threads` host threads (<= 0: every online core). Returns XCONV_OK,
// XCONV_ERR_INVALID for a problem that fails xconv_problem_check or a bias missing, or
// XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_reference_forward(const xconv_problem *p, const float *x, const float *w,
                                     const float *bias, double *y64, double *norm64, int threads,
                                     xconv_error *err);

// xconv_reference_forward without a bias (a problem that adds one is XCONV_ERR_INVALID).
xconv_status xconv_reference_conv(const xconv_problem *p, const float *x, const float *w,
                                  double *y64, double *norm64, int threads, xconv_error *err);

// Applies p's epilogue on the host to the convolution's output conv (xconv_problem_conv_elems
// values, N x K x P x Q) whose elements have rounding scales conv_scale (NULL: 0): y[i] = the
// max over output i's pool window of act(conv + bias[k]), the window's padding -infinity and a
// NaN in it giving NaN; y_scale[i] (when not NULL) = the scale of that output: the largest
// (conv_scale + |bias[k]|) among the window's elements within 1e-3 of their scales below its
// maximum, which is the selected element's own unless values tie (docs/validation.md,
// "Epilogues"). Computed in float64 either way. Without a pool y may be conv itself. Returns
// XCONV_OK, XCONV_ERR_INVALID for a failing problem or a missing bias, or
// XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_reference_epilogue(const xconv_problem *p, const double *conv,
                                      const double *conv_scale, const float *bias, double *y,
                                      double *y_scale, xconv_error *err);
xconv_status xconv_reference_epilogue_f32(const xconv_problem *p, const float *conv,
                                          const float *conv_scale, const float *bias, float *y,
                                          float *y_scale, xconv_error *err);

// Returns output element `index` of y (the final output, flat) of p in float64, as
// xconv_reference_forward computes it (bit for bit); *norm64 (when not NULL) gets its scale;
// NaN for an index outside y, a missing bias, or a pool window of more than 64 elements.
double xconv_reference_forward_element(const xconv_problem *p, const float *x, const float *w,
                                       const float *bias, int64_t index, double *norm64);

// xconv_reference_forward_element without a bias.
double xconv_reference_element(const xconv_problem *p, const float *x, const float *w,
                               int64_t index, double *norm64);

XCONV_API_END

#endif // XCONV_PUBLIC_REFERENCE_H
