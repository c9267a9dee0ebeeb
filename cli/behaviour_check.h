// SPDX-License-Identifier: MIT
// The behaviour report's measures (docs/behaviour.md): ULP distances, a histogram for medians, an
// IEEE float64 convolution over the zero-padded input, the probes' inputs and the checks that
// turn a probe's output into counts and a verdict.
#ifndef XCONV_BEHAVIOUR_CHECK_H
#define XCONV_BEHAVIOUR_CHECK_H

#include <xconv/xconv.h>

#include "report/behaviour.h"

// ---------------------------------------------------------------------------------------------
// ULPs

// Returns how many floats lie between a and b counting one of them (0 when equal, +0 and -0
// equal; adjacent floats 1, across zero too); UINT64_MAX when either is NaN.
uint64_t xconv_ulp_distance(float a, float b);

// Returns true and sets *ulp to the distance from y to the correctly rounded float32 result, ref
// rounded to float (to nearest, ties to even); false when it does not exist: y or ref is not
// finite, or ref rounds to an infinity.
bool xconv_ulp_to_rounded(float y, double ref, uint64_t *ulp);

// ---------------------------------------------------------------------------------------------
// Medians of many values, in bounded memory

// Non-negative values in bins of 1/32 of an octave from 2^-96 to 2^32 (below, above: the end
// bins), zero in a bin of its own; the maximum is kept exactly.
typedef struct xconv_hist {
    uint64_t *bins;
    uint64_t count;
    double max;
} xconv_hist;

// Allocates an empty histogram; returns false without memory.
bool xconv_hist_init(xconv_hist *h);

// Frees the bins (a zeroed histogram is fine).
void xconv_hist_free(xconv_hist *h);

// Adds v (NaN and negative values are ignored).
void xconv_hist_add(xconv_hist *h, double v);

// Returns the lower median of the values added, as the lower edge of its bin: exact for 0 and for
// integers below 64, within 1/32 of an octave (2.2%) otherwise; NAN when empty.
double xconv_hist_median(const xconv_hist *h);

// ---------------------------------------------------------------------------------------------
// The IEEE reference of the probes

// Computes p in float64 as IEEE arithmetic defines it over the zero-padded input: every tap adds
// x * w, with x = +0.0 on the padding, to a sum that starts at -0.0 (the additive identity, so
// the sum of terms that are all -0 is -0). y64[i] gets the sum, norm64[i] (when not NULL) the sum
// of |x * w|. NaN and Inf propagate as IEEE says; the sign of a zero result is IEEE's. Returns
// XCONV_OK, or XCONV_ERR_INVALID for a problem that fails xconv_problem_check.
xconv_status xconv_ieee_conv_f64(const xconv_problem *p, const float *x, const float *w,
                                 double *y64, double *norm64);

// ---------------------------------------------------------------------------------------------
// Probes

// A special value a probe puts into one element of its inputs.
typedef struct xconv_special_value {
    char tensor;              // 'x' or 'w'; 0: none
    int i0, i1, i2, i3;       // the element: x[n, c, h, w] or w[k, c, r, s] (c within the group)
    float value;              // NaN, +Inf, -Inf, ...
} xconv_special_value;

// One problem of a probe: its inputs are made by xconv_behaviour_case_fill, and its right
// answer is xconv_ieee_conv_f64 of them.
typedef struct xconv_behaviour_case {
    const char *probe;        // "nan_inf_weights", ...
    xconv_probe_kind kind;
    const char *spec;         // the problem
    const char *what;         // one line on what the inputs hold
    // Fills x and w of p (of xconv_problem_x_elems and _w_elems floats) from `seed`; NULL:
    // seeded random values in [-1, 1), none zero.
    void (*fill)(const xconv_problem *p, float *x, float *w, uint64_t seed);
    xconv_special_value put[2];  // then put into x and w
} xconv_behaviour_case;

// Fills x and w of p for case c from `seed`: c->fill, then c's special values.
void xconv_behaviour_case_fill(const xconv_behaviour_case *c, const xconv_problem *p, float *x,
                               float *w, uint64_t seed);

// Returns the probes' problems (*count of them), those of one probe next to each other, in the
// order the records list the probes.
const xconv_behaviour_case *xconv_behaviour_cases(int *count);

// Clears *pr to a probe named name of kind kind with no problem counted.
void xconv_probe_init(xconv_behaviour_probe *pr, const char *name, xconv_probe_kind kind);

// Folds the output y of one special-value problem p into *pr: each output's class (NaN, +Inf,
// -Inf, finite) against the class of ieee[i] (xconv_ieee_conv_f64), finite outputs against
// threshold * the largest norm in their block, and mismatches inside a block of block_h x block_w
// outputs (xconv_plan_error_block) that holds an expected special value told apart from the rest.
// Returns XCONV_OK, or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_probe_fold_special(xconv_behaviour_probe *pr, const xconv_problem *p,
                                      const float *y, const double *ieee, const double *norm,
                                      int64_t block_h, int64_t block_w, double threshold);

// Folds the output y of one signed-zero problem into *pr: every output whose IEEE result ieee[i]
// is zero counts as -0 or +0 (or non-zero), against the sign IEEE gives it.
void xconv_probe_fold_zero(xconv_behaviour_probe *pr, const xconv_problem *p, const float *y,
                           const double *ieee);

// Folds the output y of one denormal problem into *pr. With tolerance = threshold * norm[i] +
// terms * 2^-149 (terms the products per output: denormal products round to an absolute grid),
// each output whose reference ref[i] lies beyond the tolerance from zero is flushed (y is ±0),
// kept (|y - ref| <= tolerance) or wrong; the others, for which 0 is a right answer too, are
// not counted.
void xconv_probe_fold_denormal(xconv_behaviour_probe *pr, const xconv_problem *p, const float *y,
                               const double *ref, const double *norm, double threshold);

// Sets pr->verdict from its counts (docs/behaviour.md): "n/a" when nothing ran; "error" when a
// problem failed to run and nothing else decided; special values "exact", "block" or "wrong";
// signed zeros "ieee", "+0", "-0", "mixed" or "wrong"; denormals "kept", "flushed", "mixed" or
// "wrong".
void xconv_probe_settle(xconv_behaviour_probe *pr, bool had_error);

#endif // XCONV_BEHAVIOUR_CHECK_H
