// SPDX-License-Identifier: MIT
// Element-by-element comparison of an output with a reference, in units of each element's scale.
#include <math.h>

#include "reference.h"

// The smallest scale an error is divided by, so a near-zero norm cannot overflow the quotient.
#define COMPARE_TINY 1e-30

// ---------------------------------------------------------------------------------------------
// One element

// Returns the normalised error |y - ref| / max(norm, tiny); when norm is 0 (every term was
// padding, so ref is exactly 0) the error is |y - ref| itself.
static double element_error(double y, double ref, double norm)
{
    double diff = fabs(y - ref);
    if (norm == 0.0)
        return diff;
    return diff / (norm > COMPARE_TINY ? norm : COMPARE_TINY);
}

// Folds element `index` into *out: non-finite y or reference counts as nonfinite, anything
// else updates the max error and where it was. Works on a zeroed result as well as a cleared one.
static void fold(xconv_compare_result *out, int64_t index, double y, double ref, double norm)
{
    bool none_finite_yet = out->compared == out->nonfinite;
    out->compared++;
    if (!isfinite(y) || !isfinite(ref) || isnan(norm)) {
        if (out->nonfinite == 0 || index < out->first_nonfinite)
            out->first_nonfinite = index;
        out->nonfinite++;
        return;
    }
    double e = element_error(y, ref, norm);
    if (none_finite_yet || e > out->max_norm_err) {
        out->max_norm_err = e;
        out->worst_index = index;
    }
}

// Resets *out to "nothing compared".
static void result_clear(xconv_compare_result *out)
{
    *out = (xconv_compare_result){ .max_norm_err = 0.0, .worst_index = -1, .nonfinite = 0,
                                   .first_nonfinite = -1, .compared = 0 };
}

// ---------------------------------------------------------------------------------------------
// Public functions

void xconv_compare_full(const float *y, const double *ref, const double *norm, int64_t count,
                        xconv_compare_result *out)
{
    result_clear(out);
    for (int64_t i = 0; i < count; i++)
        fold(out, i, y[i], ref[i], norm[i]);
}

void xconv_compare_full_f32(const float *y, const float *ref_f, const float *norm_f,
                            int64_t count, xconv_compare_result *out)
{
    result_clear(out);
    for (int64_t i = 0; i < count; i++)
        fold(out, i, y[i], ref_f[i], norm_f[i]);
}

void xconv_compare_sampled(const xconv_problem *p, const float *x, const float *w,
                           const float *bias, const float *y, const int64_t *indices, int count,
                           xconv_compare_result *out)
{
    xconv_compare_sampled_scaled(p, x, w, bias, y, indices, count, NULL, out);
}

void xconv_compare_sampled_scaled(const xconv_problem *p, const float *x, const float *w,
                                  const float *bias, const float *y, const int64_t *indices,
                                  int count, const float *block_scale,
                                  xconv_compare_result *out)
{
    for (int i = 0; i < count; i++) {
        double norm;
        double ref = xconv_reference_forward_element(p, x, w, bias, indices[i], &norm);
        // An index outside y gives a NaN reference, counted as nonfinite without reading y.
        double yv = isnan(ref) ? NAN : y[indices[i]];
        if (block_scale && !isnan(ref) && (double)block_scale[indices[i]] > norm)
            norm = block_scale[indices[i]];
        fold(out, indices[i], yv, ref, norm);
    }
}

// ---------------------------------------------------------------------------------------------
// Block scales

// The body of xconv_block_scale_f64/_f32 for element type T: per plane, per block, the maximum
// of scale over the block, written to every element of the block.
#define BLOCK_SCALE_BODY(T)                                                                  \
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);                          \
    int64_t bh = block_h > 1 ? block_h : 1, bw = block_w > 1 ? block_w : 1;                  \
    int64_t planes = p->n * p->k;                                                            \
    for (int64_t plane = 0; plane < planes; plane++) {                                       \
        const T *s = scale + plane * P * Q;                                                  \
        T *o = out + plane * P * Q;                                                          \
        for (int64_t r0 = 0; r0 < P; r0 += bh)                                               \
            for (int64_t c0 = 0; c0 < Q; c0 += bw) {                                         \
                int64_t r1 = r0 + bh < P ? r0 + bh : P, c1 = c0 + bw < Q ? c0 + bw : Q;      \
                T m = 0;                                                                     \
                for (int64_t r = r0; r < r1; r++)                                            \
                    for (int64_t c = c0; c < c1; c++)                                        \
                        m = s[r * Q + c] > m ? s[r * Q + c] : m;                             \
                for (int64_t r = r0; r < r1; r++)                                            \
                    for (int64_t c = c0; c < c1; c++)                                        \
                        o[r * Q + c] = isnan(s[r * Q + c]) ? s[r * Q + c] : m;               \
            }                                                                                \
    }

void xconv_block_scale_f64(const xconv_problem *p, int64_t block_h, int64_t block_w,
                           const double *scale, double *out)
{
    BLOCK_SCALE_BODY(double)
}

void xconv_block_scale_f32(const xconv_problem *p, int64_t block_h, int64_t block_w,
                           const float *scale, float *out)
{
    BLOCK_SCALE_BODY(float)
}
