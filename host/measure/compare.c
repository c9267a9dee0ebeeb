// SPDX-License-Identifier: MIT
// Element-by-element comparison of an output with a reference, in units of each element's scale.
#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "check.h"

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
// Whole outputs, in ranges spread over the host's cores

// One range [begin, end) of a whole comparison and its result. ref and norm are float or double
// arrays (ref64 says which).
typedef struct range_job {
    const float *y;
    const void *ref, *norm;
    bool ref64;
    int64_t begin, end;
    xconv_compare_result res;
} range_job;

// Folds the job's range into job->res as fold() would element by element, but divides only for
// an element that may beat the largest error so far (the test before the division has a margin
// that keeps every such element), which makes the common case a few compares.
static void fold_range(range_job *job)
{
    result_clear(&job->res);
    const float *rf = job->ref, *nf = job->norm;
    const double *rd = job->ref, *nd = job->norm;
    double best = -1.0;  // below any error: the first finite element takes its place
    int64_t worst = -1, nonfinite = 0, first_nonfinite = -1;
    for (int64_t i = job->begin; i < job->end; i++) {
        double y = job->y[i];
        double ref = job->ref64 ? rd[i] : (double)rf[i];
        double norm = job->ref64 ? nd[i] : (double)nf[i];
        if (!isfinite(y) || !isfinite(ref) || isnan(norm)) {
            if (nonfinite++ == 0)
                first_nonfinite = i;
            continue;
        }
        double diff = fabs(y - ref);
        double scale = norm == 0.0 ? 1.0 : norm > COMPARE_TINY ? norm : COMPARE_TINY;
        if (diff <= best * scale * (1.0 - 1e-9))  // cannot pass best, rounding included
            continue;
        double e = element_error(y, ref, norm);
        if (e > best) {
            best = e;
            worst = i;
        }
    }
    job->res.compared = job->end - job->begin;
    job->res.nonfinite = nonfinite;
    job->res.first_nonfinite = first_nonfinite;
    job->res.worst_index = worst;
    job->res.max_norm_err = worst >= 0 ? best : 0.0;
}

static void *fold_worker(void *arg)
{
    fold_range(arg);
    return NULL;
}

// Elements below which a comparison runs on the calling thread alone.
#define COMPARE_RANGE_MIN ((int64_t)1 << 20)
#define COMPARE_MAX_THREADS 64

// Compares count elements of y with ref and norm on up to every online core and merges the
// ranges' results in order into *out, so that it equals a comparison element by element.
static void compare_whole(const float *y, const void *ref, const void *norm, bool ref64,
                          int64_t count, xconv_compare_result *out)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t n = count / COMPARE_RANGE_MIN;
    n = n < cores ? n : cores;
    n = n < COMPARE_MAX_THREADS ? n : COMPARE_MAX_THREADS;
    n = n > 1 ? n : 1;
    range_job jobs[COMPARE_MAX_THREADS];
    pthread_t threads[COMPARE_MAX_THREADS];
    bool started[COMPARE_MAX_THREADS] = {false};
    for (int64_t t = 0; t < n; t++) {
        jobs[t] = (range_job){.y = y, .ref = ref, .norm = norm, .ref64 = ref64,
                              .begin = count * t / n, .end = count * (t + 1) / n};
        started[t] = t > 0 && pthread_create(&threads[t], NULL, fold_worker, &jobs[t]) == 0;
    }
    for (int64_t t = 0; t < n; t++)  // the ranges no thread took, this one's first
        if (!started[t])
            fold_range(&jobs[t]);
    result_clear(out);
    for (int64_t t = 0; t < n; t++) {
        if (started[t])
            pthread_join(threads[t], NULL);
        const xconv_compare_result *r = &jobs[t].res;
        if (r->worst_index >= 0 && (out->worst_index < 0 || r->max_norm_err > out->max_norm_err)) {
            out->max_norm_err = r->max_norm_err;
            out->worst_index = r->worst_index;
        }
        if (r->nonfinite && !out->nonfinite)
            out->first_nonfinite = r->first_nonfinite;
        out->nonfinite += r->nonfinite;
        out->compared += r->compared;
    }
}

// ---------------------------------------------------------------------------------------------
// Public functions

void xconv_compare_full(const float *y, const double *ref, const double *norm, int64_t count,
                        xconv_compare_result *out)
{
    if (y && ref && norm && out)
        compare_whole(y, ref, norm, true, count, out);
}

void xconv_compare_full_f32(const float *y, const float *ref_f, const float *norm_f,
                            int64_t count, xconv_compare_result *out)
{
    compare_whole(y, ref_f, norm_f, false, count, out);
}

void xconv_compare_sampled(const xconv_problem *p, const float *x, const float *w,
                           const float *bias, const float *y, const int64_t *indices, int count,
                           xconv_compare_result *out)
{
    if (p && x && w && y && indices && out)
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
    bh = bh < P ? bh : (P > 1 ? P : 1), bw = bw < Q ? bw : (Q > 1 ? Q : 1);                  \
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
    if (!p || !scale || !out)
        return;
    BLOCK_SCALE_BODY(double)
}

void xconv_block_scale_f32(const xconv_problem *p, int64_t block_h, int64_t block_w,
                           const float *scale, float *out)
{
    BLOCK_SCALE_BODY(float)
}
