// SPDX-License-Identifier: MIT
// The float64 host reference: the convolution by direct summation over (c, r, s) per output
// element, spread over host threads by output row, then the epilogue (bias, activation,
// max-pool); one element at a time for sampled checks.
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <xconv/xconv.h>

#include "core/contract.h"

// Every output element sums its in-bounds terms in the same order, c outer, then r, then s, in
// both the full convolution and xconv_reference_element, so the two agree bit for bit and the
// result does not depend on the thread count. A product of two floats is exact in double, so
// the order only affects the rounding of the sums.
//
// Zero padding means the input is 0.0 where a tap lands outside the image, so such a tap adds
// w * 0.0 (IEEE 754): nothing for a finite weight, which is why the loops skip padded taps, but NaN
// for a NaN or infinite weight. Those NaNs are added after the in-bounds terms (add_padded_nans).

// ---------------------------------------------------------------------------------------------
// Geometry

// The problem's sizes as plain integers, with the output size and group sizes derived once.
typedef struct geom {
    int64_t n, c, h, w, k, r, s, p, q;
    int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
    int64_t cg, kg;  // input and output channels per group
} geom;

static geom geom_make(const xconv_problem *pr)
{
    geom g = {
        .n = pr->n, .c = pr->c, .h = pr->h, .w = pr->w, .k = pr->k, .r = pr->r, .s = pr->s,
        .p = xconv_problem_out_h(pr), .q = xconv_problem_out_w(pr),
        .stride_h = pr->stride_h, .stride_w = pr->stride_w, .pad_h = pr->pad_h,
        .pad_w = pr->pad_w, .dil_h = pr->dil_h, .dil_w = pr->dil_w,
        .cg = pr->c / pr->groups, .kg = pr->k / pr->groups,
    };
    return g;
}

// Sets [*lo, *hi) to the indices i in [0, count) with 0 <= origin + i * step < size: the taps of
// a window (step the dilation) or the outputs a tap reaches (step the stride) inside the image.
static void inside_range(int64_t origin, int64_t step, int64_t size, int64_t count, int64_t *lo,
                         int64_t *hi)
{
    int64_t l = origin < 0 ? (-origin + step - 1) / step : 0;
    int64_t h = origin < size ? (size - 1 - origin) / step + 1 : 0;
    if (h > count)
        h = count;
    *lo = l;
    *hi = h > l ? h : l;
}

// Returns true when every weight of filter k is finite (then no padded tap adds anything).
static bool filter_finite(const geom *g, const float *w, int64_t k)
{
    const float *wk = w + k * g->cg * g->r * g->s;
    for (int64_t i = 0; i < g->cg * g->r * g->s; i++)
        if (!isfinite(wk[i]))
            return false;
    return true;
}

// Adds w * 0.0 (NaN) to sum and nsum for each NaN or infinite weight of filter k's taps (c, r, s)
// that fall outside the image at input origin (h0, w0). Returns nothing; finite weights add 0.
static void add_padded_nans(const geom *g, const float *w, int64_t k, int64_t h0, int64_t w0,
                            double *sum, double *nsum)
{
    const float *wk = w + k * g->cg * g->r * g->s;
    for (int64_t i = 0; i < g->cg * g->r * g->s; i++) {
        if (isfinite(wk[i]))
            continue;
        int64_t ih = h0 + (i / g->s % g->r) * g->dil_h, iw = w0 + (i % g->s) * g->dil_w;
        if (ih < 0 || ih >= g->h || iw < 0 || iw >= g->w) {
            *sum += (double)wk[i] * 0.0;
            *nsum += fabs((double)wk[i] * 0.0);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One output row

// Per-thread scratch: a row of sums and norms, and each filter column's valid output range.
typedef struct row_scratch {
    double *acc, *nacc;    // q long
    int64_t *q_lo, *q_hi;  // s long
} row_scratch;

// Computes output row `row` (flat index over n, k, p) into y and norm (either may skip norm).
static void conv_row(const geom *g, const float *x, const float *w, int64_t row,
                     const row_scratch *sc, double *y, double *norm)
{
    int64_t p = row % g->p, nk = row / g->p, k = nk % g->k, n = nk / g->k;
    int64_t c0 = (k / g->kg) * g->cg, h0 = p * g->stride_h - g->pad_h;
    int64_t r_lo, r_hi;
    inside_range(h0, g->dil_h, g->h, g->r, &r_lo, &r_hi);
    double *acc = sc->acc, *nacc = sc->nacc;
    for (int64_t q = 0; q < g->q; q++)
        acc[q] = nacc[q] = 0.0;
    for (int64_t c = 0; c < g->cg; c++) {
        int64_t xc = (n * g->c + c0 + c) * g->h + h0;  // row h0 of channel c0 + c (may be < 0)
        const float *wc = w + (k * g->cg + c) * g->r * g->s;
        for (int64_t r = r_lo; r < r_hi; r++) {
            const float *xr = x + (xc + r * g->dil_h) * g->w;  // an in-bounds input row
            for (int64_t s = 0; s < g->s; s++) {
                double wv = wc[r * g->s + s];
                int64_t off = s * g->dil_w - g->pad_w;
                for (int64_t q = sc->q_lo[s]; q < sc->q_hi[s]; q++) {
                    double prod = wv * (double)xr[q * g->stride_w + off];
                    acc[q] += prod;
                    nacc[q] += fabs(prod);
                }
            }
        }
    }
    if (!filter_finite(g, w, k))
        for (int64_t q = 0; q < g->q; q++)
            add_padded_nans(g, w, k, h0, q * g->stride_w - g->pad_w, &acc[q], &nacc[q]);
    for (int64_t q = 0; q < g->q; q++) {
        y[row * g->q + q] = acc[q];
        if (norm)
            norm[row * g->q + q] = nacc[q];
    }
}

// ---------------------------------------------------------------------------------------------
// Threads

// What every worker shares: the problem, the tensors and the next row to take.
typedef struct conv_job {
    geom g;
    const float *x, *w;
    double *y, *norm;
    int64_t rows, chunk;
    atomic_int_fast64_t next;
    atomic_int failed;  // a worker could not allocate its scratch
} conv_job;

// Takes chunks of rows until none are left; returns NULL (the pthread signature).
static void *conv_worker(void *arg)
{
    conv_job *job = arg;
    const geom *g = &job->g;
    row_scratch sc = {
        .acc = malloc((size_t)g->q * sizeof(double)),
        .nacc = malloc((size_t)g->q * sizeof(double)),
        .q_lo = malloc((size_t)g->s * sizeof(int64_t)),
        .q_hi = malloc((size_t)g->s * sizeof(int64_t)),
    };
    if (!sc.acc || !sc.nacc || !sc.q_lo || !sc.q_hi) {
        atomic_store(&job->failed, 1);
    } else {
        for (int64_t s = 0; s < g->s; s++)
            inside_range(s * g->dil_w - g->pad_w, g->stride_w, g->w, g->q, &sc.q_lo[s],
                         &sc.q_hi[s]);
        for (;;) {
            int64_t first = atomic_fetch_add(&job->next, job->chunk);
            if (first >= job->rows)
                break;
            int64_t last = first + job->chunk < job->rows ? first + job->chunk : job->rows;
            for (int64_t row = first; row < last; row++)
                conv_row(g, job->x, job->w, row, &sc, job->y, job->norm);
        }
    }
    free(sc.acc);
    free(sc.nacc);
    free(sc.q_lo);
    free(sc.q_hi);
    return NULL;
}

// Returns how many threads to use: the request (<= 0: online cores), at most one per row and one
// per million multiply-adds so small problems do not pay for thread start-up.
static int thread_count(int requested, int64_t rows, double macs)
{
    long t = requested > 0 ? requested : sysconf(_SC_NPROCESSORS_ONLN);
    if (t < 1)
        t = 1;
    if (t > 256)
        t = 256;
    if (t > rows)
        t = (long)rows;
    double by_work = 1.0 + macs / 1048576.0;
    if (t > by_work)
        t = (long)by_work;
    return (int)t;
}

// ---------------------------------------------------------------------------------------------
// The convolution alone

// Computes the convolution of p (its epilogue ignored) into y and norm (conv_elems each; norm
// may be NULL) on `threads` host threads. Returns XCONV_OK or XCONV_ERR_OUT_OF_MEMORY.
static xconv_status reference_conv_only(const xconv_problem *p, const float *x, const float *w,
                                        double *y, double *norm, int threads, xconv_error *err)
{
    conv_job job = { .g = geom_make(p), .x = x, .w = w, .y = y, .norm = norm };
    job.rows = job.g.n * job.g.k * job.g.p;
    int nthreads = thread_count(threads, job.rows, xconv_problem_flops(p) / 2.0);
    job.chunk = job.rows / ((int64_t)nthreads * 16);
    if (job.chunk < 1)
        job.chunk = 1;
    atomic_init(&job.next, 0);
    atomic_init(&job.failed, 0);

    // The calling thread works too, so a thread that fails to start only costs speed.
    pthread_t tids[256];
    int started = 0;
    for (int i = 1; i < nthreads; i++) {
        if (pthread_create(&tids[started], NULL, conv_worker, &job) != 0)
            break;
        started++;
    }
    conv_worker(&job);
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    if (atomic_load(&job.failed))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "reference convolution: cannot allocate row scratch (q=%lld)",
                               (long long)job.g.q);
    return XCONV_OK;
}

// Returns convolution output (n, k, p, q) of g in float64 and its sum of |x*w| in *norm (when not
// NULL), summed in the order conv_row sums it.
static double conv_element(const geom *gp, const float *x, const float *w, int64_t n, int64_t k,
                           int64_t p, int64_t q, double *norm)
{
    const geom g = *gp;
    int64_t h0 = p * g.stride_h - g.pad_h, w0 = q * g.stride_w - g.pad_w;
    int64_t c0 = (k / g.kg) * g.cg, r_lo, r_hi, s_lo, s_hi;
    inside_range(h0, g.dil_h, g.h, g.r, &r_lo, &r_hi);
    inside_range(w0, g.dil_w, g.w, g.s, &s_lo, &s_hi);
    double sum = 0.0, nsum = 0.0;
    for (int64_t c = 0; c < g.cg; c++) {
        const float *xc = x + (n * g.c + c0 + c) * g.h * g.w;
        const float *wc = w + (k * g.cg + c) * g.r * g.s;
        for (int64_t r = r_lo; r < r_hi; r++) {
            for (int64_t s = s_lo; s < s_hi; s++) {
                double prod = (double)wc[r * g.s + s] *
                              (double)xc[(h0 + r * g.dil_h) * g.w + w0 + s * g.dil_w];
                sum += prod;
                nsum += fabs(prod);
            }
        }
    }
    add_padded_nans(&g, w, k, h0, w0, &sum, &nsum);
    if (norm)
        *norm = nsum;
    return sum;
}

// ---------------------------------------------------------------------------------------------
// The epilogue
//
// z = conv + bias[k], a = act(z), y = the max over the pool window of a, where the padding is
// -infinity and a NaN anywhere in the window makes y NaN. The scale of z and a is the
// convolution's plus |bias[k]| (the bias adds one rounding of at most that size, and the
// activations change no difference by more than it changed before). The scale of a pooled y is
// the largest scale among the window's elements the maximum could have been taken from in a
// correct kernel: the reference's choice j and every element i with a_i >= a_j - POOL_TIE *
// (scale_i + scale_j). A kernel whose values before the pool err by at most t * scale (t <=
// POOL_TIE) picks one of them, and then |y - y_ref| <= t * max(scale_i, scale_j); without a
// near tie the set is {j} and the scale is the selected element's own.

// Relative distance below the maximum within which a window's element may be the one a correct
// kernel selects: above every family's threshold (1e-4 at most), far below a bug's error.
#define POOL_TIE 1e-3

// Returns act(v) in double, NaN passed through (a comparison with NaN is false).
static double activate(double v, int64_t act)
{
    if (act == XCONV_ACT_NONE)
        return v;
    v = v < 0 ? 0.0 : v;
    return act == XCONV_ACT_RELU6 && v > 6 ? 6.0 : v;
}

// Where one pooled output's window lies in the convolution's output.
typedef struct pool_window {
    int64_t p0, p1, q0, q1;  // rows [p0, p1) and columns [q0, q1), cut to the output
} pool_window;

static pool_window window_of(const xconv_problem *p, int64_t yr, int64_t yc)
{
    const xconv_epilogue *e = &p->epi;
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    pool_window wnd = {yr, yr + 1, yc, yc + 1};
    if (e->pool_h) {
        wnd.p0 = yr * e->pool_stride_h - e->pool_pad_h;
        wnd.q0 = yc * e->pool_stride_w - e->pool_pad_w;
        wnd.p1 = wnd.p0 + e->pool_h;
        wnd.q1 = wnd.q0 + e->pool_w;
    }
    wnd.p0 = wnd.p0 < 0 ? 0 : wnd.p0;
    wnd.q0 = wnd.q0 < 0 ? 0 : wnd.q0;
    wnd.p1 = wnd.p1 > P ? P : wnd.p1;
    wnd.q1 = wnd.q1 > Q ? Q : wnd.q1;
    return wnd;
}

// One output of the epilogue over a window of activated values a[] with scales sc[] (count of
// them, row-major): sets *y (NaN when one is, the first maximum otherwise) and *scale.
static void pool_values(const double *a, const double *sc, int count, double *y, double *scale)
{
    int j = 0;
    for (int i = 1; i < count && !isnan(a[j]); i++)
        if (isnan(a[i]) || a[i] > a[j])
            j = i;
    *y = a[j];
    double s = sc[j];
    for (int i = 0; i < count && !isnan(a[j]); i++)
        if (a[i] >= a[j] - POOL_TIE * (sc[i] + sc[j]) && sc[i] > s)
            s = sc[i];
    *scale = isnan(a[j]) ? NAN : s;
}

// The most elements a pool window holds that the epilogue keeps on its stack; larger windows
// are gathered in heap memory.
#define WINDOW_STACK 64

// The body of xconv_reference_epilogue and _f32 for element type T: per final output, the
// window's activated values and scales gathered in double, then pooled.
#define EPILOGUE_BODY(T)                                                                     \
    if (XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, conv) || XCONV_NULL_ARG(err, y))        \
        return XCONV_ERR_INVALID;                                                            \
    if (p->epi.bias && !bias)                                                                \
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: bias is NULL and the problem "   \
                               "adds one", __func__);                                        \
    xconv_status st = xconv_problem_check(p, err);                                           \
    if (st != XCONV_OK)                                                                      \
        return st;                                                                           \
    const xconv_epilogue *e = &p->epi;                                                       \
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);                          \
    int64_t YH = xconv_problem_y_h(p), YW = xconv_problem_y_w(p);                            \
    int64_t most = e->pool_h ? e->pool_h * e->pool_w : 1;                                    \
    double stack[2 * WINDOW_STACK], *a = stack;                                              \
    if (most > WINDOW_STACK && !(a = malloc((size_t)most * 2 * sizeof *a)))                  \
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "reference epilogue: no memory " \
                               "for a %lld-element window", (long long)most);                \
    double *sc = a + most;                                                                   \
    for (int64_t plane = 0; plane < p->n * p->k; plane++) {                                  \
        int64_t k = plane % p->k;                                                            \
        double b = e->bias ? (double)bias[k] : 0.0;                                          \
        const T *cp = conv + plane * P * Q, *sp = conv_scale ? conv_scale + plane * P * Q : NULL; \
        for (int64_t yr = 0; yr < YH; yr++)                                                  \
            for (int64_t yc = 0; yc < YW; yc++) {                                            \
                pool_window wnd = window_of(p, yr, yc);                                      \
                int count = 0;                                                               \
                for (int64_t r = wnd.p0; r < wnd.p1; r++)                                    \
                    for (int64_t c = wnd.q0; c < wnd.q1; c++, count++) {                     \
                        double v = (double)cp[r * Q + c];                                    \
                        a[count] = activate(e->bias ? v + b : v, e->act);                    \
                        sc[count] = (sp ? (double)sp[r * Q + c] : 0.0) + fabs(b);            \
                    }                                                                        \
                double yv, sv;                                                               \
                pool_values(a, sc, count, &yv, &sv);                                         \
                int64_t at = (plane * YH + yr) * YW + yc;                                    \
                y[at] = (T)yv;                                                               \
                if (y_scale)                                                                 \
                    y_scale[at] = (T)sv;                                                     \
            }                                                                                \
    }                                                                                        \
    if (a != stack)                                                                          \
        free(a);                                                                             \
    return XCONV_OK;

xconv_status xconv_reference_epilogue(const xconv_problem *p, const double *conv,
                                      const double *conv_scale, const float *bias, double *y,
                                      double *y_scale, xconv_error *err)
{
    EPILOGUE_BODY(double)
}

xconv_status xconv_reference_epilogue_f32(const xconv_problem *p, const float *conv,
                                          const float *conv_scale, const float *bias, float *y,
                                          float *y_scale, xconv_error *err)
{
    EPILOGUE_BODY(float)
}

// ---------------------------------------------------------------------------------------------
// Public functions

xconv_status xconv_reference_forward(const xconv_problem *p, const float *x, const float *w,
                                     const float *bias, double *y, double *norm, int threads,
                                     xconv_error *err)
{
    if (XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, x) || XCONV_NULL_ARG(err, w) ||
        xconv_arg_null(err, __func__, "y64", !y))
        return XCONV_ERR_INVALID;
    xconv_status st = xconv_problem_check(p, err);
    if (st == XCONV_OK && p->epi.bias && !bias)
        st = xconv_error_set(err, XCONV_ERR_INVALID,
                             "reference: the problem adds a bias; give its K values");
    if (st != XCONV_OK || !xconv_problem_has_epilogue(p))
        return st == XCONV_OK ? reference_conv_only(p, x, w, y, norm, threads, err) : st;
    // Without a pool y has the convolution's size, and the epilogue works in place.
    bool pools = p->epi.pool_h != 0;
    size_t count = (size_t)xconv_problem_conv_elems(p);
    double *cy = pools ? malloc(count * sizeof *cy) : y;
    double *cn = pools || !norm ? malloc(count * sizeof *cn) : norm;
    if (!cy || !cn)
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                             "reference: no host memory for %zu float64 outputs", count);
    if (st == XCONV_OK)
        st = reference_conv_only(p, x, w, cy, cn, threads, err);
    if (st == XCONV_OK)
        st = xconv_reference_epilogue(p, cy, cn, bias, y, norm, err);
    if (cy != y)
        free(cy);
    if (cn != norm)
        free(cn);
    return st;
}

xconv_status xconv_reference_conv(const xconv_problem *p, const float *x, const float *w,
                                  double *y, double *norm, int threads, xconv_error *err)
{
    return xconv_reference_forward(p, x, w, NULL, y, norm, threads, err);
}

double xconv_reference_forward_element(const xconv_problem *p, const float *x, const float *w,
                                       const float *bias, int64_t index, double *norm)
{
    if (!p || !x || !w) {
        if (norm)
            *norm = NAN;
        return NAN;
    }
    geom g = geom_make(p);
    const xconv_epilogue *e = &p->epi;
    int64_t most = e->pool_h ? e->pool_h * e->pool_w : 1;
    if (index < 0 || index >= xconv_problem_y_elems(p) || (e->bias && !bias) ||
        most > WINDOW_STACK) {
        if (norm)
            *norm = NAN;
        return NAN;
    }
    int64_t at[4];
    xconv_index_split(p, index, at);
    pool_window wnd = window_of(p, at[2], at[3]);
    double b = e->bias ? (double)bias[at[1]] : 0.0, a[WINDOW_STACK], sc[WINDOW_STACK];
    int count = 0;
    for (int64_t r = wnd.p0; r < wnd.p1; r++)
        for (int64_t c = wnd.q0; c < wnd.q1; c++, count++) {
            double v = conv_element(&g, x, w, at[0], at[1], r, c, &sc[count]);
            a[count] = activate(e->bias ? v + b : v, e->act);
            sc[count] += fabs(b);
        }
    double yv, sv;
    pool_values(a, sc, count, &yv, &sv);
    if (norm)
        *norm = sv;
    return yv;
}

double xconv_reference_element(const xconv_problem *p, const float *x, const float *w,
                               int64_t index, double *norm)
{
    return xconv_reference_forward_element(p, x, w, NULL, index, norm);
}

void xconv_index_split(const xconv_problem *p, int64_t index, int64_t nkpq[4])
{
    if (!nkpq)
        return;
    if (!p) {
        nkpq[0] = nkpq[1] = nkpq[2] = nkpq[3] = -1;
        return;
    }
    int64_t q = xconv_problem_y_w(p), pp = xconv_problem_y_h(p);
    if (q < 1)
        q = 1;
    if (pp < 1)
        pp = 1;
    int64_t k = p->k > 0 ? p->k : 1;
    nkpq[3] = index % q;
    index /= q;
    nkpq[2] = index % pp;
    index /= pp;
    nkpq[1] = index % k;
    nkpq[0] = index / k;
}
