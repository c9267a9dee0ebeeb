// SPDX-License-Identifier: MIT
// Tests of the host references: random data, the float64 convolution, sampling and comparisons.
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "../host/core/clock.h"
#include "measure/check.h"

// ---------------------------------------------------------------------------------------------
// Helpers

// Returns a problem with the given sizes and the defaults for everything else.
static xconv_problem make(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                          int64_t s)
{
    xconv_problem p = xconv_problem_default();
    p.n = n, p.c = c, p.h = h, p.w = w, p.k = k, p.r = r, p.s = s;
    return p;
}

// The textbook loop nest with a bounds check per term, in the same (c, r, s) order.
static void naive_conv(const xconv_problem *pr, const float *x, const float *w, double *y,
                       double *norm)
{
    int64_t P = xconv_problem_out_h(pr), Q = xconv_problem_out_w(pr);
    int64_t cg = pr->c / pr->groups, kg = pr->k / pr->groups;
    for (int64_t n = 0; n < pr->n; n++)
        for (int64_t k = 0; k < pr->k; k++)
            for (int64_t p = 0; p < P; p++)
                for (int64_t q = 0; q < Q; q++) {
                    double sum = 0, nsum = 0;
                    for (int64_t c = 0; c < cg; c++)
                        for (int64_t r = 0; r < pr->r; r++)
                            for (int64_t s = 0; s < pr->s; s++) {
                                int64_t h = p * pr->stride_h - pr->pad_h + r * pr->dil_h;
                                int64_t ww = q * pr->stride_w - pr->pad_w + s * pr->dil_w;
                                if (h < 0 || h >= pr->h || ww < 0 || ww >= pr->w)
                                    continue;
                                int64_t ci = (k / kg) * cg + c;
                                int64_t wi = ((k * cg + c) * pr->r + r) * pr->s + s;
                                int64_t xi = ((n * pr->c + ci) * pr->h + h) * pr->w + ww;
                                double prod = (double)w[wi] * (double)x[xi];
                                sum += prod;
                                nsum += fabs(prod);
                            }
                    int64_t i = ((n * pr->k + k) * P + p) * Q + q;
                    y[i] = sum;
                    norm[i] = nsum;
                }
}

// Runs the reference on p with x and w and checks y (and norm when given) against expected
// values exactly.
static void check_exact(const char *what, const xconv_problem *p, const float *x, const float *w,
                        const double *want_y, const double *want_norm)
{
    int64_t ny = xconv_problem_y_elems(p);
    double *y = malloc((size_t)ny * sizeof *y), *norm = malloc((size_t)ny * sizeof *norm);
    xconv_error err = { 0 };
    xconv_status st = xconv_reference_conv(p, x, w, y, norm, 2, &err);
    CHECK_MSG(st == XCONV_OK, "%s: %s", what, err.msg);
    for (int64_t i = 0; st == XCONV_OK && i < ny; i++) {
        CHECK_MSG(y[i] == want_y[i], "%s: y[%lld] = %g, want %g", what, (long long)i, y[i],
                  want_y[i]);
        if (want_norm)
            CHECK_MSG(norm[i] == want_norm[i], "%s: norm[%lld] = %g, want %g", what,
                      (long long)i, norm[i], want_norm[i]);
    }
    free(y);
    free(norm);
}

// Returns a float array of count values from the seeded generator (caller frees).
static float *random_array(int64_t count, uint64_t seed, uint64_t stream)
{
    float *a = malloc((size_t)count * sizeof *a);
    xconv_random_fill(a, (size_t)count, seed, stream);
    return a;
}

// ---------------------------------------------------------------------------------------------
// Random data

static void test_random(void)
{
    enum { LONG = 1 << 20 };
    float *a = random_array(LONG, 42, 0), *b = random_array(LONG, 42, 0);
    float *c = random_array(LONG, 42, 1), *d = random_array(LONG, 43, 0);
    CHECK(memcmp(a, b, LONG * sizeof *a) == 0);
    int64_t zeros = 0, out_of_range = 0, same_stream = 0, same_seed = 0;
    double sum = 0, lo = 1, hi = -1;
    for (int i = 0; i < LONG; i++) {
        zeros += a[i] == 0.0f;
        out_of_range += !(a[i] >= -1.0f && a[i] < 1.0f);
        same_stream += a[i] == c[i];
        same_seed += a[i] == d[i];
        sum += a[i];
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    CHECK_MSG(zeros == 0, "%lld zeros", (long long)zeros);
    CHECK(out_of_range == 0);
    CHECK_MSG(same_stream < 64, "streams 0 and 1 agree in %lld places", (long long)same_stream);
    CHECK_MSG(same_seed < 64, "seeds 42 and 43 agree in %lld places", (long long)same_seed);
    CHECK_MSG(fabs(sum / LONG) < 0.01, "mean %g", sum / LONG);
    CHECK(lo < -0.999 && hi > 0.999);

    // Counter-based: a shorter fill is a prefix of a longer one.
    float head[100];
    xconv_random_fill(head, 100, 42, 0);
    CHECK(memcmp(head, a, sizeof head) == 0);

    // Pinned values, so the sequence cannot change silently between platforms or versions.
    float pin[3];
    xconv_random_fill(pin, 3, 1, 0);
    printf("random_fill(seed 1, stream 0): %.9g %.9g %.9g\n", pin[0], pin[1], pin[2]);
    free(a);
    free(b);
    free(c);
    free(d);
}

// ---------------------------------------------------------------------------------------------
// Hand-computed cases

static void test_hand_cases(void)
{
    // 3x3 input 1..9, 2x2 filter [[1, 0], [0, 1]]: y = x[p][q] + x[p+1][q+1].
    float x9[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    float diag[4] = { 1, 0, 0, 1 };
    xconv_problem p = make(1, 1, 3, 3, 1, 2, 2);
    check_exact("basic", &p, x9, diag, (double[]){ 6, 8, 12, 14 }, (double[]){ 6, 8, 12, 14 });

    // Stride 2, pad 1, 3x3 ones: each output sums the 2x2 corner window it overlaps.
    float ones9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    p = make(1, 1, 3, 3, 1, 3, 3);
    p.stride_h = p.stride_w = 2;
    p.pad_h = p.pad_w = 1;
    check_exact("stride+pad", &p, x9, ones9, (double[]){ 12, 16, 24, 28 }, NULL);

    // Dilation 2 on a 5x5 ramp x[h][w] = 5h + w with a 2x2 ones filter (3x3 footprint):
    // y[p][q] = x[p][q] + x[p][q+2] + x[p+2][q] + x[p+2][q+2] = 4 (5p + q) + 24.
    float ramp[25], ones4[4] = { 1, 1, 1, 1 };
    for (int i = 0; i < 25; i++)
        ramp[i] = (float)i;
    p = make(1, 1, 5, 5, 1, 2, 2);
    p.dil_h = p.dil_w = 2;
    double dil_y[9];
    for (int i = 0; i < 9; i++)
        dil_y[i] = 4 * (5 * (i / 3) + i % 3) + 24;
    check_exact("dilation", &p, ramp, ones4, dil_y, NULL);

    // Two groups of two channels on a 1x1 image, 1x1 filters: k0 sees channels 0-1 only,
    // k1 channels 2-3 only. Channel c holds c + 1.
    float xg[4] = { 1, 2, 3, 4 }, wg[4] = { 1, 10, 100, 1000 };
    p = make(1, 4, 1, 1, 2, 1, 1);
    p.groups = 2;
    check_exact("groups", &p, xg, wg, (double[]){ 21, 4300 }, NULL);

    // Depthwise, 3 channels of 2x2 holding c + 1, filters 2, 3, 4.
    float xd[12] = { 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3 }, wd[3] = { 2, 3, 4 };
    p = make(1, 3, 2, 2, 3, 1, 1);
    p.groups = 3;
    check_exact("depthwise", &p, xd, wd,
                (double[]){ 2, 2, 2, 2, 6, 6, 6, 6, 12, 12, 12, 12 }, NULL);

    // Asymmetric: 2x4 input, 1x2 filter [1, -1], stride_w 2, pad_h 1: P = 4, Q = 2. Rows 0 and 3
    // read only padding (y = norm = 0); the others are differences of neighbours.
    float xa[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, wa[2] = { 1, -1 };
    p = make(1, 1, 2, 4, 1, 1, 2);
    p.stride_w = 2;
    p.pad_h = 1;
    check_exact("asymmetric", &p, xa, wa, (double[]){ 0, 0, -1, -1, -1, -1, 0, 0 },
                (double[]){ 0, 0, 3, 7, 11, 15, 0, 0 });

    // Mixed signs: the norm sums magnitudes while y cancels.
    float xm[2] = { 3, -2 }, wm[2] = { 2, 3 };
    p = make(1, 2, 1, 1, 1, 1, 1);
    check_exact("norm", &p, xm, wm, (double[]){ 0 }, (double[]){ 12 });
}

// ---------------------------------------------------------------------------------------------
// Against the loop nest, element by element and across thread counts

// Shapes covering every index path: stride, pad, dilation, groups, depthwise, asymmetric.
static const char *const shapes[] = {
    "n=2,c=3,h=9,w=7,k=4,r=3,s=3",
    "n=1,c=4,h=11,w=13,k=6,r=3,s=5,stride_h=2,stride_w=3,pad_h=1,pad_w=2",
    "n=2,c=6,h=10,w=10,k=4,r=3,s=3,dil_h=2,dil_w=3,pad=2,groups=2",
    "n=1,c=8,h=12,w=9,k=8,r=3,s=3,stride=2,pad=1,groups=8",
    "n=3,c=5,h=6,w=17,k=2,r=2,s=4,stride_h=3,stride_w=1,pad_h=3,pad_w=0,dil_h=1,dil_w=2",
    "n=1,c=3,h=4,w=4,k=2,r=5,s=5,pad=3",
    "n=2,c=16,h=7,w=7,k=32,r=1,s=1",
};

static void test_against_naive(void)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        xconv_problem p;
        xconv_error err = { 0 };
        if (xconv_shape_parse(shapes[i], &p, &err) != XCONV_OK) {
            CHECK_MSG(0, "parse %s: %s", shapes[i], err.msg);
            continue;
        }
        int64_t ny = xconv_problem_y_elems(&p);
        float *x = random_array(xconv_problem_x_elems(&p), 7, 0);
        float *w = random_array(xconv_problem_w_elems(&p), 7, 1);
        size_t bytes = (size_t)ny * sizeof(double);
        double *y1 = malloc(bytes), *n1 = malloc(bytes), *y4 = malloc(bytes);
        double *n4 = malloc(bytes), *yn = malloc(bytes), *nn = malloc(bytes);
        naive_conv(&p, x, w, yn, nn);
        CHECK(xconv_reference_conv(&p, x, w, y1, n1, 1, &err) == XCONV_OK);
        CHECK(xconv_reference_conv(&p, x, w, y4, n4, 4, &err) == XCONV_OK);
        CHECK_MSG(memcmp(y1, yn, (size_t)ny * sizeof *y1) == 0, "%s: y differs from loop nest",
                  shapes[i]);
        CHECK_MSG(memcmp(n1, nn, (size_t)ny * sizeof *n1) == 0, "%s: norm differs", shapes[i]);
        CHECK_MSG(memcmp(y1, y4, (size_t)ny * sizeof *y1) == 0, "%s: 1 vs 4 threads", shapes[i]);
        CHECK_MSG(memcmp(n1, n4, (size_t)ny * sizeof *n1) == 0, "%s: 1 vs 4 threads", shapes[i]);

        // Every element through the one-element path, bit for bit.
        int64_t bad = 0;
        for (int64_t e = 0; e < ny; e++) {
            double en;
            double ev = xconv_reference_element(&p, x, w, e, &en);
            bad += ev != y1[e] || en != n1[e];
        }
        CHECK_MSG(bad == 0, "%s: %lld elements differ from reference_element", shapes[i],
                  (long long)bad);
        free(x), free(w), free(y1), free(n1), free(y4), free(n4), free(yn), free(nn);
    }
}

// The reference on a shape the size of the small suite's larger ones: the same values on all
// cores, on 3 and on 2 threads, with and without the norms (its time is printed, not checked:
// speed belongs in benchmarks).
static void test_threads(void)
{
    xconv_problem p;
    xconv_error err = { 0 };
    CHECK(xconv_shape_parse("n=2,c=32,h=56,w=56,k=32,r=3,s=3,pad=1", &p, &err) == XCONV_OK);
    int64_t ny = xconv_problem_y_elems(&p);
    float *x = random_array(xconv_problem_x_elems(&p), 3, 0);
    float *w = random_array(xconv_problem_w_elems(&p), 3, 1);
    double *ya = malloc((size_t)ny * sizeof(double)), *yb = malloc((size_t)ny * sizeof(double));
    double *na = malloc((size_t)ny * sizeof(double)), *nb = malloc((size_t)ny * sizeof(double));
    double t0 = xconv_now_ms();
    CHECK(xconv_reference_conv(&p, x, w, ya, na, 0, &err) == XCONV_OK);
    double ms = xconv_now_ms() - t0;
    printf("reference %.1f MFLOP on all cores: %.1f ms\n", xconv_problem_flops(&p) * 1e-6, ms);
    CHECK(xconv_reference_conv(&p, x, w, yb, nb, 3, &err) == XCONV_OK);
    CHECK(memcmp(ya, yb, (size_t)ny * sizeof *ya) == 0);
    CHECK(memcmp(na, nb, (size_t)ny * sizeof *na) == 0);
    CHECK(xconv_reference_conv(&p, x, w, yb, NULL, 2, &err) == XCONV_OK);
    CHECK(memcmp(ya, yb, (size_t)ny * sizeof *ya) == 0);
    free(x), free(w), free(ya), free(yb), free(na), free(nb);
}

static void test_invalid(void)
{
    xconv_problem p = make(1, 3, 4, 4, 2, 5, 5);  // filter larger than the input: empty output
    float v[64] = { 0 };
    double y[64];
    xconv_error err = { 0 };
    CHECK(xconv_reference_conv(&p, v, v, y, NULL, 1, &err) == XCONV_ERR_INVALID);
    CHECK(err.msg[0] != '\0');
    p = make(1, 3, 4, 4, 2, 1, 1);
    p.groups = 2;  // does not divide c
    err.msg[0] = '\0';
    CHECK(xconv_reference_conv(&p, v, v, y, NULL, 1, &err) == XCONV_ERR_INVALID);
    CHECK(err.msg[0] != '\0');
    p = make(1, 1, 4, 4, 1, 1, 1);
    CHECK(xconv_reference_conv(&p, NULL, v, y, NULL, 1, &err) == XCONV_ERR_INVALID);
    double en;
    CHECK(isnan(xconv_reference_element(&p, v, v, 16, &en)) && isnan(en));
}

// ---------------------------------------------------------------------------------------------
// Sampling and comparisons

static void test_sample_indices(void)
{
    xconv_problem p = make(2, 3, 20, 20, 5, 3, 3);
    int64_t total = xconv_problem_y_elems(&p), a[1000], b[1000], c[1000];
    xconv_sample_indices(&p, a, 1000, 9);
    xconv_sample_indices(&p, b, 1000, 9);
    xconv_sample_indices(&p, c, 1000, 10);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(memcmp(a, c, sizeof a) != 0);
    CHECK(a[0] == 0 && a[999] == total - 1);
    int64_t outside = 0, upper_half = 0;
    for (int i = 0; i < 1000; i++) {
        outside += a[i] < 0 || a[i] >= total;
        upper_half += a[i] >= total / 2;
    }
    CHECK(outside == 0);
    CHECK_MSG(upper_half > 400 && upper_half < 600, "%lld in the upper half",
              (long long)upper_half);
    int64_t one;
    xconv_sample_indices(&p, &one, 1, 9);
    CHECK(one == 0);
}

static void test_index_split(void)
{
    xconv_problem p = make(3, 2, 6, 7, 5, 3, 2);  // P = 4, Q = 6
    int64_t nkpq[4];
    int64_t idx = ((2 * 5 + 3) * 4 + 1) * 6 + 5;
    xconv_index_split(&p, idx, nkpq);
    CHECK(nkpq[0] == 2 && nkpq[1] == 3 && nkpq[2] == 1 && nkpq[3] == 5);
    xconv_index_split(&p, 0, nkpq);
    CHECK(nkpq[0] == 0 && nkpq[1] == 0 && nkpq[2] == 0 && nkpq[3] == 0);
}

static void test_compare(void)
{
    xconv_problem p;
    xconv_error err = { 0 };
    CHECK(xconv_shape_parse("n=2,c=8,h=12,w=12,k=6,r=3,s=3,pad=1", &p, &err) == XCONV_OK);
    int64_t ny = xconv_problem_y_elems(&p);
    float *x = random_array(xconv_problem_x_elems(&p), 5, 0);
    float *w = random_array(xconv_problem_w_elems(&p), 5, 1);
    double *ref = malloc((size_t)ny * sizeof *ref), *norm = malloc((size_t)ny * sizeof *norm);
    float *y = malloc((size_t)ny * sizeof *y), *ref_f = malloc((size_t)ny * sizeof *ref_f);
    float *norm_f = malloc((size_t)ny * sizeof *norm_f);
    CHECK(xconv_reference_conv(&p, x, w, ref, norm, 2, &err) == XCONV_OK);
    for (int64_t i = 0; i < ny; i++) {
        y[i] = ref_f[i] = (float)ref[i];
        norm_f[i] = (float)norm[i];
    }
    double threshold = xconv_threshold_for_family("direct");
    xconv_compare_result r;

    // A copy rounded to float32 passes with room to spare.
    xconv_compare_full(y, ref, norm, ny, &r);
    CHECK(r.compared == ny && r.nonfinite == 0 && r.first_nonfinite == -1);
    CHECK_MSG(r.max_norm_err < 1e-6, "copy error %g", r.max_norm_err);
    CHECK(xconv_compare_passed(&r, threshold));

    // A planted error is found at its index.
    int64_t planted = ny / 3 + 7;
    y[planted] += 0.25f;
    xconv_compare_full(y, ref, norm, ny, &r);
    CHECK_MSG(r.worst_index == planted, "worst %lld, planted %lld", (long long)r.worst_index,
              (long long)planted);
    CHECK(r.max_norm_err > 1e-3);
    CHECK(!xconv_compare_passed(&r, threshold));
    xconv_compare_full_f32(y, ref_f, norm_f, ny, &r);
    CHECK(r.worst_index == planted && !xconv_compare_passed(&r, threshold));

    // Sampled: the planted element among the samples is found; the others pass.
    int64_t idx[100];
    xconv_sample_indices(&p, idx, 100, 1);
    idx[50] = planted;
    xconv_compare_result s = { .worst_index = -1, .first_nonfinite = -1 };
    xconv_compare_sampled(&p, x, w, NULL, y, idx, 100, &s);
    CHECK(s.compared == 100 && s.worst_index == planted && s.nonfinite == 0);
    y[planted] = (float)ref[planted];
    s = (xconv_compare_result){ .worst_index = -1, .first_nonfinite = -1 };
    xconv_compare_sampled(&p, x, w, NULL, y, idx, 100, &s);
    CHECK(xconv_compare_passed(&s, threshold));

    // NaN and Inf in y count as nonfinite, with the first index, and fail.
    y[10] = NAN;
    y[20] = INFINITY;
    xconv_compare_full(y, ref, norm, ny, &r);
    CHECK(r.nonfinite == 2 && r.first_nonfinite == 10);
    CHECK(!xconv_compare_passed(&r, threshold));
    xconv_compare_full_f32(y, ref_f, norm_f, ny, &r);
    CHECK(r.nonfinite == 2 && r.first_nonfinite == 10);
    s = (xconv_compare_result){ .worst_index = -1, .first_nonfinite = -1 };
    int64_t two[2] = { 20, 10 };
    xconv_compare_sampled(&p, x, w, NULL, y, two, 2, &s);
    CHECK(s.nonfinite == 2 && s.first_nonfinite == 10);
    y[10] = (float)ref[10];
    y[20] = (float)ref[20];

    // A NaN in the reference is nonfinite too.
    double saved = ref[30];
    ref[30] = NAN;
    xconv_compare_full(y, ref, norm, ny, &r);
    CHECK(r.nonfinite == 1 && r.first_nonfinite == 30);
    ref[30] = saved;

    // Nothing compared does not pass.
    xconv_compare_full(y, ref, norm, 0, &r);
    CHECK(r.compared == 0 && r.worst_index == -1 && !xconv_compare_passed(&r, threshold));
    free(x), free(w), free(ref), free(norm), free(y), free(ref_f), free(norm_f);
}

// All-padding elements: norm 0, the error is |y - ref| itself.
static void test_all_padding(void)
{
    float xa[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, wa[2] = { 1, -1 };
    xconv_problem p = make(1, 1, 2, 4, 1, 1, 2);
    p.stride_w = 2;
    p.pad_h = 1;
    double ref[8], norm[8];
    xconv_error err = { 0 };
    CHECK(xconv_reference_conv(&p, xa, wa, ref, norm, 1, &err) == XCONV_OK);
    CHECK(norm[0] == 0 && ref[0] == 0);
    float y[8];
    for (int i = 0; i < 8; i++)
        y[i] = (float)ref[i];
    xconv_compare_result r;
    xconv_compare_full(y, ref, norm, 8, &r);
    CHECK(r.max_norm_err == 0 && r.nonfinite == 0);
    y[7] = 1e-3f;  // a padding-only element written with garbage
    xconv_compare_full(y, ref, norm, 8, &r);
    CHECK(r.worst_index == 7 && fabs(r.max_norm_err - 1e-3) < 1e-9);
}

// A NaN or infinite weight whose tap lands on the zero padding adds w * 0.0 = NaN (IEEE 754), in
// the full reference and the one-element path alike; outputs it never touches stay finite, and
// finite weights give the same bits as before (padded taps add nothing).
static void test_padded_special_weights(void)
{
    // A NaN weight where padding meets a 1x1 filter: n=2,c=5,h=6,w=7,k=3,r=1,pad=1 with a NaN
    // at w[1,2,0,0].
    xconv_problem p = make(2, 5, 6, 7, 3, 1, 1);
    p.pad_h = p.pad_w = 1;
    float *x = random_array(xconv_problem_x_elems(&p), 5, 1);
    float w[15];
    xconv_random_fill(w, 15, 5, 2);
    int64_t ny = xconv_problem_y_elems(&p), P = 8, Q = 9;
    double *y = malloc((size_t)ny * sizeof *y), *norm = malloc((size_t)ny * sizeof *norm);
    double *base = malloc((size_t)ny * sizeof *base);
    xconv_error err = { 0 };
    CHECK(xconv_reference_conv(&p, x, w, base, norm, 1, &err) == XCONV_OK);
    CHECK(base[(0 * 3 + 1) * P * Q] == 0.0);  // y[0,1,0,0] lies wholly in the padding
    w[1 * 5 + 2] = NAN;
    w[2 * 5 + 0] = INFINITY;
    CHECK(xconv_reference_conv(&p, x, w, y, norm, 2, &err) == XCONV_OK);
    int wrong = 0;
    for (int64_t i = 0; i < ny; i++) {
        int64_t nkpq[4], k;
        xconv_index_split(&p, i, nkpq);
        k = nkpq[1];
        bool border = nkpq[2] == 0 || nkpq[2] == P - 1 || nkpq[3] == 0 || nkpq[3] == Q - 1;
        double one, one_norm;
        one = xconv_reference_element(&p, x, w, i, &one_norm);
        // k = 0: finite, as before; k = 1: NaN everywhere; k = 2: NaN on the padding, +-Inf inside.
        bool ok = k == 0 ? y[i] == base[i] : k == 1 || border ? isnan(y[i]) : isinf(y[i]);
        ok = ok && (isnan(y[i]) ? isnan(one) : one == y[i]);
        wrong += !ok;
    }
    CHECK_MSG(wrong == 0, "%d of %lld elements break IEEE zero padding", wrong, (long long)ny);
    CHECK(isnan(y[(0 * 3 + 1) * P * Q]));
    free(x), free(y), free(norm), free(base);
}

// Block scales: the largest scale of each block of a plane, blocks cut at the plane's edges, NaN
// kept where the scale is NaN; a blocked comparison divides by them.
static void test_block_scales(void)
{
    xconv_problem p = xconv_problem_default();
    p.n = 1, p.c = 1, p.h = 5, p.w = 5, p.k = 2, p.r = 1, p.s = 1;  // two 5x5 output planes
    double scale[50], out[50];
    for (int i = 0; i < 50; i++)
        scale[i] = i;
    scale[7] = NAN;
    xconv_block_scale_f64(&p, 2, 2, scale, out);
    CHECK(out[0] == 6 && out[1] == 6 && out[5] == 6 && out[6] == 6);   // block (0,0): 0 1 5 6
    CHECK(isnan(out[7]) && out[2] == 8 && out[3] == 8 && out[8] == 8);  // block (0,1): NaN kept
    CHECK(out[4] == 9 && out[9] == 9);                                  // cut at the right edge
    CHECK(out[24] == 24 && out[20] == 21 && out[21] == 21);             // bottom row and corner
    CHECK(out[25] == 31 && out[49] == 49);                              // second plane alone
    float scale32[50], out32[50];
    for (int i = 0; i < 50; i++)
        scale32[i] = (float)(50 - i);
    xconv_block_scale_f32(&p, 5, 5, scale32, out32);                      // one block per plane
    CHECK(out32[0] == 50.0f && out32[24] == 50.0f && out32[25] == 25.0f && out32[49] == 25.0f);
    // An error of 0.5 on an element of scale 1 whose block holds a scale of 100 reads 0.005.
    double ref[4] = {0, 0, 0, 0}, norm[4] = {1, 100, 1, 1}, blocked[4];
    float y[4] = {0.5f, 0, 0, 0};
    xconv_problem q = p;
    q.h = q.w = 2, q.k = 1;
    xconv_block_scale_f64(&q, 2, 2, norm, blocked);
    xconv_compare_result r;
    xconv_compare_full(y, ref, blocked, 4, &r);
    CHECK(fabs(r.max_norm_err - 0.005) < 1e-12 && r.worst_index == 0);
    xconv_compare_full(y, ref, norm, 4, &r);
    CHECK(fabs(r.max_norm_err - 0.5) < 1e-12);
}

static void test_thresholds(void)
{
    CHECK(xconv_threshold_for_family("reference") == 1e-5);
    CHECK(xconv_threshold_for_family("direct") == 1e-5);
    CHECK(xconv_threshold_for_family("gemm") == 1e-5);
    CHECK(xconv_threshold_for_family("peer") == 1e-5);
    CHECK(xconv_threshold_for_family("winograd") == 1e-4);
    CHECK(xconv_threshold_for_family("fft") == 1e-4);
    CHECK(xconv_threshold_for_family("winograd_f23") == 3e-6);
    CHECK(xconv_threshold_for_family("winograd_f43") == 3e-5);
    CHECK(xconv_threshold_for_family("winograd_f25") == 2e-5);
    CHECK(xconv_threshold_for_family("no such family") == 1e-5);
    CHECK(xconv_threshold_for_family(NULL) == 1e-5);
    // Variants with their own threshold (measured over their error block), and the rest by
    // their accuracy family: cuDNN's FFT rows keep the family's.
    xconv_error err = {0};
    static const struct {
        const char *variant;
        double threshold;
    } by_variant[] = {{"fft", 1e-5}, {"fft_tiled", 5e-6}, {"direct_naive", 1e-5},
                      {"cudnn_fft", 1e-4}, {"cudnn_winograd", 1e-4}};
    for (size_t i = 0; i < sizeof by_variant / sizeof by_variant[0]; i++) {
        const xconv_variant *v = xconv_variant_find(by_variant[i].variant, &err);
        CHECK_MSG(v && xconv_threshold_for_variant(xconv_variant_get_info(v)) ==
                           by_variant[i].threshold,
                  "%s", by_variant[i].variant);
    }
    CHECK(isnan(xconv_threshold_for_variant(NULL)));
}

// ---------------------------------------------------------------------------------------------
// The epilogue (bias, activation, max-pool) on top of the convolution

// The 1x1 convolution of one 4x4 image x[i][j] = (4i + j - 7.5) / 8 with two filters w = 1 and
// -0.5, the bias 0.25 and 1: values worked out by hand in the comments (all exact in binary).
static void hand_epilogue_problem(xconv_problem *p, float x[16], float w[2], float bias[2])
{
    *p = make(1, 1, 4, 4, 2, 1, 1);
    for (int i = 0; i < 16; i++)
        x[i] = (float)(i - 7.5) / 8.0f;
    w[0] = 1.0f, w[1] = -0.5f;
    bias[0] = 0.25f, bias[1] = 1.0f;
}

// Runs the full and the one-element reference on p; checks y and its scale against want (the
// element path bit for bit with the full one).
static void check_epilogue(const char *what, const xconv_problem *p, const float *x,
                           const float *w, const float *bias, const double *want_y,
                           const double *want_scale)
{
    int64_t ny = xconv_problem_y_elems(p);
    double y[64], sc[64];
    xconv_error err = {0};
    xconv_status st = xconv_reference_forward(p, x, w, bias, y, sc, 1, &err);
    CHECK_MSG(st == XCONV_OK, "%s: %s", what, err.msg);
    for (int64_t i = 0; st == XCONV_OK && i < ny; i++) {
        bool same_y = want_y[i] == y[i] || (isnan(want_y[i]) && isnan(y[i]));
        CHECK_MSG(same_y, "%s: y[%lld] = %g, want %g", what, (long long)i, y[i], want_y[i]);
        if (want_scale)
            CHECK_MSG(sc[i] == want_scale[i] || (isnan(sc[i]) && isnan(want_scale[i])),
                      "%s: scale[%lld] = %g, want %g", what, (long long)i, sc[i],
                      want_scale[i]);
        double en, e = xconv_reference_forward_element(p, x, w, bias, i, &en);
        CHECK_MSG(memcmp(&e, &y[i], sizeof e) == 0 && memcmp(&en, &sc[i], sizeof en) == 0,
                  "%s: element %lld: %g (scale %g) against %g (%g)", what, (long long)i, e, en,
                  y[i], sc[i]);
    }
}

static void test_epilogue_hand(void)
{
    xconv_problem p;
    float x[16], w[2], bias[2];
    hand_epilogue_problem(&p, x, w, bias);
    // Bias and relu, then 2x2 windows of stride 2. Channel 0, z = x + 0.25 then relu:
    //   0       0       0       0        windows: max(0, 0, 0, 0)             = 0
    //   0       0       0.0625  0.1875            max(0, 0, 0.0625, 0.1875)   = 0.1875
    //   0.3125  0.4375  0.5625  0.6875            max(0.3125, ..., 0.9375)     = 0.9375
    //   0.8125  0.9375  1.0625  1.1875            max(0.5625, ..., 1.1875)     = 1.1875
    // Channel 1, z = -x/2 + 1, all positive: windows' maxima at their top-left elements,
    // 1.46875, 1.34375, 0.96875, 0.84375.
    // Scales are |w*x| + |bias| of the element the maximum selected; the all-zero window of
    // channel 0 ties its four elements, so it takes the largest of their scales (x = -0.9375:
    // 0.9375 + 0.25).
    p.epi = (xconv_epilogue){.bias = 1, .act = XCONV_ACT_RELU, .pool_h = 2, .pool_w = 2,
                             .pool_stride_h = 2, .pool_stride_w = 2};
    const double y1[8] = {0, 0.1875, 0.9375, 1.1875, 1.46875, 1.34375, 0.96875, 0.84375};
    const double s1[8] = {1.1875, 0.25 + 0.0625, 0.25 + 0.6875, 0.25 + 0.9375,
                          1 + 0.46875, 1 + 0.34375, 1 + 0.03125, 1 + 0.15625};
    check_epilogue("bias + relu + pool 2x2/2", &p, x, w, bias, y1, s1);
    // 3x3 windows of stride 2 with padding 1 (the padding -infinity): windows start at rows and
    // columns -1 and 1. Channel 0 (no bias, no activation: x itself): max over rows 0..1,
    // columns 0..1 is -0.3125; over rows 0..1, columns 1..3 is -0.0625; rows 1..3 give 0.6875
    // and 0.9375. Channel 1: -x/2, largest at the smallest x: 0.46875, 0.40625, 0.21875,
    // 0.15625.
    p.epi = (xconv_epilogue){.pool_h = 3, .pool_w = 3, .pool_stride_h = 2, .pool_stride_w = 2,
                             .pool_pad_h = 1, .pool_pad_w = 1};
    CHECK(xconv_problem_y_h(&p) == 2 && xconv_problem_y_w(&p) == 2);
    const double y2[8] = {-0.3125, -0.0625, 0.6875, 0.9375, 0.46875, 0.40625, 0.21875, 0.15625};
    check_epilogue("pool 3x3/2 pad 1", &p, x, w, NULL, y2, NULL);
    // relu6 clamps at 6: bias 5.5 on channel 0 lifts x = 0.5625.. to 6.0625.. -> 6.
    bias[0] = 5.5f;
    p.epi = (xconv_epilogue){.bias = 1, .act = XCONV_ACT_RELU6};
    double y3[32];
    for (int i = 0; i < 16; i++) {
        double z0 = x[i] + 5.5, z1 = -0.5 * x[i] + 1.0;
        y3[i] = z0 < 0 ? 0 : z0 > 6 ? 6 : z0;
        y3[16 + i] = z1 < 0 ? 0 : z1 > 6 ? 6 : z1;
    }
    CHECK(y3[15] == 6.0 && y3[12] == 6.0 && y3[11] < 6.0);
    check_epilogue("bias + relu6", &p, x, w, bias, y3, NULL);
    // A NaN input gives NaN through relu and the pool's window, and nowhere else.
    bias[0] = 0.25f;
    x[0] = NAN;
    p.epi = (xconv_epilogue){.bias = 1, .act = XCONV_ACT_RELU, .pool_h = 2, .pool_w = 2,
                             .pool_stride_h = 2, .pool_stride_w = 2};
    double y4[8];
    memcpy(y4, y1, sizeof y4);
    y4[0] = y4[4] = NAN;
    check_epilogue("NaN through the epilogue", &p, x, w, bias, y4, NULL);
}

// The full and one-element paths agree bit for bit on random problems with random epilogues;
// the epilogue of the float32 path equals the float64 one's rounding when its inputs are
// float32; a missing bias is refused.
static void test_epilogue_random(void)
{
    int checked = 0;
    for (int i = 0; i < 24; i++) {
        xconv_problem p;
        xconv_error err = {0};
        CHECK(xconv_shape_random(7, i, &p, &err) == XCONV_OK);
        xconv_random_epilogue(7, i, &p);
        CHECK_MSG(xconv_problem_check(&p, &err) == XCONV_OK, "%s", err.msg);
        CHECK(xconv_problem_has_epilogue(&p));
        int64_t nx = xconv_problem_x_elems(&p), nw = xconv_problem_w_elems(&p);
        int64_t ny = xconv_problem_y_elems(&p), nc = xconv_problem_conv_elems(&p);
        float *x = random_array(nx, 3, 1), *w = random_array(nw, 3, 2);
        float *b = random_array(p.k, 3, 3);
        double *y = malloc((size_t)ny * sizeof *y), *sc = malloc((size_t)ny * sizeof *sc);
        double *cv = malloc((size_t)nc * sizeof *cv), *cn = malloc((size_t)nc * sizeof *cn);
        float *cv32 = malloc((size_t)nc * 4), *cn32 = malloc((size_t)nc * 4);
        float *y32 = malloc((size_t)ny * 4), *sc32 = malloc((size_t)ny * 4);
        CHECK(xconv_reference_forward(&p, x, w, b, y, sc, 2, &err) == XCONV_OK);
        for (int64_t j = 0; j < ny; j += 1 + ny / 97, checked++) {
            double en, e = xconv_reference_forward_element(&p, x, w, b, j, &en);
            CHECK_MSG(memcmp(&e, &y[j], sizeof e) == 0 && memcmp(&en, &sc[j], sizeof en) == 0,
                      "random %d element %lld", i, (long long)j);
        }
        // |y| never passes its scale: |act(z)| <= |z| <= sum |x*w| + |bias|.
        for (int64_t j = 0; j < ny; j++)
            CHECK_MSG(sc[j] >= fabs(y[j]), "random %d: scale %g under |y| %g", i, sc[j], y[j]);
        // The epilogue alone, float64 and float32 paths, from the convolution's values.
        xconv_problem conv = xconv_problem_conv_only(&p);
        CHECK(xconv_reference_conv(&conv, x, w, cv, cn, 2, &err) == XCONV_OK);
        for (int64_t j = 0; j < nc; j++)
            cv32[j] = (float)cv[j], cn32[j] = (float)cn[j], cv[j] = cv32[j], cn[j] = cn32[j];
        CHECK(xconv_reference_epilogue(&p, cv, cn, b, y, sc, &err) == XCONV_OK);
        CHECK(xconv_reference_epilogue_f32(&p, cv32, cn32, b, y32, sc32, &err) == XCONV_OK);
        for (int64_t j = 0; j < ny; j++)
            CHECK_MSG(y32[j] == (float)y[j] && sc32[j] == (float)sc[j],
                      "random %d: float32 epilogue %g against %g", i, y32[j], y[j]);
        if (p.epi.bias) {
            CHECK(xconv_reference_conv(&p, x, w, y, NULL, 1, &err) == XCONV_ERR_INVALID);
            CHECK_CONTAINS(err.msg, "bias");
            CHECK(isnan(xconv_reference_element(&p, x, w, 0, NULL)));
        }
        free(x), free(w), free(b), free(y), free(sc), free(cv), free(cn);
        free(cv32), free(cn32), free(y32), free(sc32);
    }
    printf("epilogue: %d random elements equal in the full and one-element paths\n", checked);
}

int main(void)
{
    test_random();
    test_hand_cases();
    test_against_naive();
    test_threads();
    test_invalid();
    test_sample_indices();
    test_index_split();
    test_compare();
    test_all_padding();
    test_padded_special_weights();
    test_block_scales();
    test_thresholds();
    test_epilogue_hand();
    test_epilogue_random();
    return check_summary("test_reference");
}
