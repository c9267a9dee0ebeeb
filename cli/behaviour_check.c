// SPDX-License-Identifier: MIT
// The behaviour report's measures: ULP distances, histograms for medians, the IEEE float64
// convolution of the probes, and the checks that turn a probe's output into counts and a verdict.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "behaviour_check.h"

// ---------------------------------------------------------------------------------------------
// ULPs

// Maps a float's bits onto a line where adjacent floats differ by 1 (+0 and -0 both at 0).
static int64_t ordered_bits(float f)
{
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - (int64_t)i : (int64_t)i;
}

uint64_t xconv_ulp_distance(float a, float b)
{
    if (isnan(a) || isnan(b))
        return UINT64_MAX;
    int64_t d = ordered_bits(a) - ordered_bits(b);
    return (uint64_t)(d < 0 ? -d : d);
}

bool xconv_ulp_to_rounded(float y, double ref, uint64_t *ulp)
{
    if (!isfinite(y) || !isfinite(ref))
        return false;
    float rounded = (float)ref;
    if (isinf(rounded))
        return false;
    *ulp = xconv_ulp_distance(y, rounded);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Histograms

#define HIST_SUB 32                          // bins per octave
#define HIST_LOW (-96)                       // the first octave: [2^-96, 2^-95)
#define HIST_OCTAVES 128                     // up to 2^32
#define HIST_BINS (2 + HIST_OCTAVES * HIST_SUB)  // zero, the octaves, and at or above 2^32

bool xconv_hist_init(xconv_hist *h)
{
    *h = (xconv_hist){0};
    h->bins = calloc(HIST_BINS, sizeof *h->bins);
    return h->bins != NULL;
}

void xconv_hist_free(xconv_hist *h)
{
    free(h->bins);
    *h = (xconv_hist){0};
}

// Returns the bin of v >= 0.
static int hist_bin(double v)
{
    if (v == 0)
        return 0;
    int e = ilogb(v);
    if (e < HIST_LOW)
        return 1;
    if (e >= HIST_LOW + HIST_OCTAVES)
        return HIST_BINS - 1;
    int sub = (int)((ldexp(v, -e) - 1.0) * HIST_SUB);
    return 1 + (e - HIST_LOW) * HIST_SUB + (sub < HIST_SUB ? sub : HIST_SUB - 1);
}

// Returns the lower edge of bin b.
static double hist_edge(int b)
{
    if (b == 0)
        return 0;
    if (b == HIST_BINS - 1)
        return ldexp(1.0, HIST_LOW + HIST_OCTAVES);
    int e = (b - 1) / HIST_SUB + HIST_LOW, sub = (b - 1) % HIST_SUB;
    return ldexp(1.0 + (double)sub / HIST_SUB, e);
}

void xconv_hist_add(xconv_hist *h, double v)
{
    if (!h->bins || !(v >= 0))
        return;
    h->bins[hist_bin(v)]++;
    if (h->count++ == 0 || v > h->max)
        h->max = v;
}

double xconv_hist_median(const xconv_hist *h)
{
    if (!h->bins || h->count == 0)
        return NAN;
    uint64_t rank = (h->count - 1) / 2, seen = 0;
    for (int b = 0; b < HIST_BINS; b++) {
        seen += h->bins[b];
        if (seen > rank)
            return hist_edge(b);
    }
    return h->max;
}

// ---------------------------------------------------------------------------------------------
// The IEEE reference

xconv_status xconv_ieee_conv_f64(const xconv_problem *p, const float *x, const float *w,
                                 double *y64, double *norm64)
{
    xconv_error err = {0};
    if (xconv_problem_check(p, &err) != XCONV_OK)
        return XCONV_ERR_INVALID;
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    int64_t i = 0;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t k = 0; k < p->k; k++)
            for (int64_t oh = 0; oh < P; oh++)
                for (int64_t ow = 0; ow < Q; ow++, i++) {
                    double acc = -0.0, norm = 0.0;
                    for (int64_t c = 0; c < cg; c++) {
                        int64_t ch = k / kg * cg + c;
                        for (int64_t r = 0; r < p->r; r++)
                            for (int64_t s = 0; s < p->s; s++) {
                                int64_t ih = oh * p->stride_h - p->pad_h + r * p->dil_h;
                                int64_t iw = ow * p->stride_w - p->pad_w + s * p->dil_w;
                                bool inside = ih >= 0 && ih < p->h && iw >= 0 && iw < p->w;
                                double xv = inside ? x[((n * p->c + ch) * p->h + ih) * p->w + iw]
                                                   : 0.0;
                                double term = xv * w[((k * cg + c) * p->r + r) * p->s + s];
                                acc += term;
                                norm += fabs(term);
                            }
                    }
                    y64[i] = acc;
                    if (norm64)
                        norm64[i] = norm;
                }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Probes

void xconv_probe_init(xconv_behaviour_probe *pr, const char *name, xconv_probe_kind kind)
{
    memset(pr, 0, sizeof *pr);
    snprintf(pr->name, sizeof pr->name, "%s", name);
    pr->kind = kind;
    snprintf(pr->verdict, sizeof pr->verdict, "n/a");
}

// The class of a value: 0 finite, 1 NaN, 2 +Inf, 3 -Inf.
static int value_class(double v)
{
    return isnan(v) ? 1 : isinf(v) ? (v > 0 ? 2 : 3) : 0;
}

xconv_status xconv_probe_fold_special(xconv_behaviour_probe *pr, const xconv_problem *p,
                                      const float *y, const double *ieee, const double *norm,
                                      int64_t block_h, int64_t block_w, double threshold)
{
    int64_t n = xconv_problem_y_elems(p);
    double *special = malloc((size_t)n * sizeof *special);
    double *holds = malloc((size_t)n * sizeof *holds);
    double *scale = malloc((size_t)n * sizeof *scale);
    if (!special || !holds || !scale) {
        free(special);
        free(holds);
        free(scale);
        return XCONV_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < n; i++)
        special[i] = value_class(ieee[i]) ? 1.0 : 0.0;
    // Per block: whether it holds an expected special value, and its largest finite scale.
    xconv_block_scale_f64(p, block_h, block_w, special, holds);
    xconv_block_scale_f64(p, block_h, block_w, norm, scale);
    bool blocks = block_h * block_w > 1;
    for (int64_t i = 0; i < n; i++) {
        int want = value_class(ieee[i]), got = value_class(y[i]);
        pr->outputs++;
        pr->expected_special += want != 0;
        if (want == 0 && got == 0) {
            double s = isfinite(scale[i]) ? scale[i] : norm[i];
            pr->finite_off += fabs((double)y[i] - ieee[i]) > threshold * s + 1e-30;
        } else if (want != 0 && got == 0) {
            pr->missing++;
        } else if (want != got) {
            if (want == 0)
                pr->extra++;
            else
                pr->wrong_kind++;
            pr->beyond_block += !(blocks && holds[i] > 0);
        }
    }
    free(special);
    free(holds);
    free(scale);
    return XCONV_OK;
}

void xconv_probe_fold_zero(xconv_behaviour_probe *pr, const xconv_problem *p, const float *y,
                           const double *ieee)
{
    int64_t n = xconv_problem_y_elems(p);
    for (int64_t i = 0; i < n; i++) {
        if (ieee[i] != 0)
            continue;
        pr->outputs++;
        pr->zeros++;
        bool want_minus = signbit(ieee[i]) != 0;
        pr->ieee_minus += want_minus;
        if (y[i] != 0 || isnan(y[i])) {
            pr->nonzero++;
            continue;
        }
        bool minus = signbit(y[i]) != 0;
        pr->got_minus += minus;
        pr->got_plus += !minus;
        pr->sign_mismatch += minus != want_minus;
    }
}

void xconv_probe_fold_denormal(xconv_behaviour_probe *pr, const xconv_problem *p, const float *y,
                               const double *ref, const double *norm, double threshold)
{
    int64_t n = xconv_problem_y_elems(p);
    double terms = (double)(p->c / p->groups * p->r * p->s);
    for (int64_t i = 0; i < n; i++) {
        double tolerance = threshold * norm[i] + terms * 0x1p-149;
        if (!(fabs(ref[i]) > tolerance))
            continue;  // 0 is a right answer too: it tells nothing
        pr->outputs++;
        if (y[i] == 0)
            pr->flushed++;
        else if (fabs((double)y[i] - ref[i]) <= tolerance)
            pr->kept++;
        else
            pr->wrong++;
    }
}

// Writes the verdict word.
static void verdict(xconv_behaviour_probe *pr, const char *word)
{
    snprintf(pr->verdict, sizeof pr->verdict, "%s", word);
}

void xconv_probe_settle(xconv_behaviour_probe *pr, bool had_error)
{
    if (pr->ran == 0 || pr->outputs == 0) {
        verdict(pr, had_error ? "error" : "n/a");
        return;
    }
    switch (pr->kind) {
    case XCONV_PROBE_SPECIAL:
        if (pr->missing || pr->finite_off || pr->beyond_block)
            verdict(pr, "wrong");
        else
            verdict(pr, pr->extra || pr->wrong_kind ? "block" : "exact");
        return;
    case XCONV_PROBE_ZERO:
        if (pr->nonzero)
            verdict(pr, "wrong");
        else if (pr->sign_mismatch == 0)
            verdict(pr, "ieee");
        else
            verdict(pr, pr->got_minus == 0 ? "+0" : pr->got_plus == 0 ? "-0" : "mixed");
        return;
    case XCONV_PROBE_DENORMAL:
        if (pr->wrong)
            verdict(pr, "wrong");
        else
            verdict(pr, pr->flushed == 0 ? "kept" : pr->kept == 0 ? "flushed" : "mixed");
        return;
    }
}
