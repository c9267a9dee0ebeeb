// SPDX-License-Identifier: MIT
// Tests the Winograd transforms of common/xconv_winograd_transforms.h on the host: the matrices
// satisfy y = A^T [(G g) .* (B^T d)] exactly (integer arithmetic), the 1-D macros the kernels
// use compute exactly those matrices, the scale tables are the scales' products rounded to
// float, and the kernels' float32 evaluation order stays within the accuracy the points were
// chosen for.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/check.h"

// The kernels' arithmetic in float: XC_FMA as fmaf, before the header picks its default.
#define XC_FMA(a, b, c) fmaf((a), (b), (c))
#include "xconv_winograd_transforms.h"

// ---------------------------------------------------------------------------------------------
// One F(m, r): its matrices and macros, as plain data and function pointers

#define MAX_A 6

typedef void (*transform_fn)(float *out, int os, const float *in, int is);

typedef struct wino_set {
    const char *name;
    int m, r, alpha;
    const int *bt, *at, *g_int, *num, *den;
    const float *s2;
    transform_fn bt_1d, at_1d, g_1d;
} wino_set;

static void bt4(float *out, int os, const float *in, int is) { XC_WINO_BT4_1D(out, os, in, is); }
static void bt6(float *out, int os, const float *in, int is) { XC_WINO_BT6_1D(out, os, in, is); }
static void at23(float *out, int os, const float *in, int is) { XC_WINO_F23_AT_1D(out, os, in, is); }
static void at43(float *out, int os, const float *in, int is) { XC_WINO_F43_AT_1D(out, os, in, is); }
static void at25(float *out, int os, const float *in, int is) { XC_WINO_F25_AT_1D(out, os, in, is); }
static void g23(float *out, int os, const float *in, int is) { XC_WINO_F23_G_1D(out, os, in, is); }
static void g43(float *out, int os, const float *in, int is) { XC_WINO_F43_G_1D(out, os, in, is); }
static void g25(float *out, int os, const float *in, int is) { XC_WINO_F25_G_1D(out, os, in, is); }

static const int bt4_m[] = XC_WINO_BT4, bt6_m[] = XC_WINO_BT6;
static const int at23_m[] = XC_WINO_F23_AT, at43_m[] = XC_WINO_F43_AT, at25_m[] = XC_WINO_F25_AT;
static const int g23_m[] = XC_WINO_F23_G_INT, g43_m[] = XC_WINO_F43_G_INT;
static const int g25_m[] = XC_WINO_F25_G_INT;
static const int num23[] = XC_WINO_F23_G_NUM, den23[] = XC_WINO_F23_G_DEN;
static const int num43[] = XC_WINO_F43_G_NUM, den43[] = XC_WINO_F43_G_DEN;
static const int num25[] = XC_WINO_F25_G_NUM, den25[] = XC_WINO_F25_G_DEN;
static const float s23[] = XC_WINO_F23_S2, s43[] = XC_WINO_F43_S2, s25[] = XC_WINO_F25_S2;

static const wino_set sets[] = {
    {"F(2x2,3x3)", 2, 3, 4, bt4_m, at23_m, g23_m, num23, den23, s23, bt4, at23, g23},
    {"F(4x4,3x3)", 4, 3, 6, bt6_m, at43_m, g43_m, num43, den43, s43, bt6, at43, g43},
    {"F(2x2,5x5)", 2, 5, 6, bt6_m, at25_m, g25_m, num25, den25, s25, bt6, at25, g25},
};

// A small deterministic generator (xorshift64).
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

// Uniform in [-1, 1) on a grid of 2^-24, like the harness's data.
static float uniform(void)
{
    return (float)((int32_t)(next_u64() >> 40) - (1 << 23)) * 0x1p-23f;
}

static int64_t lcm64(int64_t a, int64_t b)
{
    int64_t x = a, y = b;
    while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

// ---------------------------------------------------------------------------------------------
// Tests

// y = A^T [(G g) .* (B^T d)] for integer d and g, exactly: both sides times the scales' lcm.
static void test_identity(const wino_set *s)
{
    int64_t l = 1;
    for (int i = 0; i < s->alpha; i++)
        l = lcm64(l, s->den[i]);
    int bad = 0;
    for (int trial = 0; trial < 200; trial++) {
        int64_t d[MAX_A], g[MAX_A], gi[MAX_A], bd[MAX_A];
        for (int i = 0; i < s->alpha; i++)
            d[i] = (int64_t)(next_u64() % 41) - 20;
        for (int k = 0; k < s->r; k++)
            g[k] = (int64_t)(next_u64() % 41) - 20;
        for (int i = 0; i < s->alpha; i++) {
            gi[i] = bd[i] = 0;
            for (int k = 0; k < s->r; k++)
                gi[i] += s->g_int[i * s->r + k] * g[k];
            for (int k = 0; k < s->alpha; k++)
                bd[i] += s->bt[i * s->alpha + k] * d[k];
        }
        for (int o = 0; o < s->m; o++) {
            int64_t lhs = 0, rhs = 0;
            for (int i = 0; i < s->alpha; i++)
                lhs += s->at[o * s->alpha + i] * s->num[i] * (l / s->den[i]) * gi[i] * bd[i];
            for (int k = 0; k < s->r; k++)
                rhs += d[o + k] * g[k];
            bad += lhs != l * rhs;
        }
    }
    CHECK_MSG(bad == 0, "%s: %d outputs differ from the correlation", s->name, bad);
}

// Each 1-D macro applied to unit vectors gives its matrix's columns (exact: small integers).
static void check_macro(const char *label, transform_fn fn, const int *mat, int rows, int cols)
{
    int bad = 0;
    for (int j = 0; j < cols; j++) {
        float in[2 * MAX_A] = {0}, out[2 * MAX_A];
        in[2 * j] = 1.0f;  // stride 2 on both sides, to check the strides too
        fn(out, 2, in, 2);
        for (int i = 0; i < rows; i++)
            bad += out[2 * i] != (float)mat[i * cols + j];
    }
    CHECK_MSG(bad == 0, "%s: %d entries differ from the matrix", label, bad);
}

static void test_macros(const wino_set *s)
{
    char label[64];
    snprintf(label, sizeof label, "%s B^T", s->name);
    check_macro(label, s->bt_1d, s->bt, s->alpha, s->alpha);
    snprintf(label, sizeof label, "%s A^T", s->name);
    check_macro(label, s->at_1d, s->at, s->m, s->alpha);
    snprintf(label, sizeof label, "%s G_INT", s->name);
    check_macro(label, s->g_1d, s->g_int, s->alpha, s->r);
}

// S2[i][j] is scale_i * scale_j rounded to float: within half an ulp of the exact quotient.
static void test_scales(const wino_set *s)
{
    int bad = 0;
    for (int i = 0; i < s->alpha; i++)
        for (int j = 0; j < s->alpha; j++) {
            double exact = (double)(s->num[i] * s->num[j]) / (double)(s->den[i] * s->den[j]);
            double got = s->s2[i * s->alpha + j];
            bad += fabs(got - exact) > fabs(exact) * 0x1p-24;
        }
    CHECK_MSG(bad == 0, "%s: %d scale products are not rounded to nearest", s->name, bad);
}

// The kernels' float32 pipeline (filter transform, input transform, products summed over
// `channels` with fma, output transform) on random tiles: the largest error over |x||w| stays
// under `bound` (docs/teaching/winograd.md has the measured errors of these points).
static void test_accuracy(const wino_set *s, int channels, double bound)
{
    enum { TRIALS = 300 };
    int a = s->alpha, aa = a * a, m = s->m, r = s->r;
    double worst = 0.0;
    for (int trial = 0; trial < TRIALS; trial++) {
        float prod[MAX_A * MAX_A] = {0};
        double ref[16] = {0}, norm[16] = {0};
        for (int c = 0; c < channels; c++) {
            float d[MAX_A * MAX_A], g[25], t[MAX_A * MAX_A], u[MAX_A * MAX_A], v[MAX_A * MAX_A];
            for (int i = 0; i < aa; i++)
                d[i] = uniform();
            for (int i = 0; i < r * r; i++)
                g[i] = uniform();
            for (int j = 0; j < r; j++)  // U = S2 .* (G_INT g G_INT^T), as cl/winograd_filter.cl
                s->g_1d(t + j, r, g + j, r);
            for (int i = 0; i < a; i++)
                s->g_1d(u + i * a, 1, t + i * r, 1);
            for (int i = 0; i < aa; i++)
                u[i] *= s->s2[i];
            for (int j = 0; j < a; j++)  // V = B^T d B, as cl/winograd_input.cl
                s->bt_1d(t + j, a, d + j, a);
            for (int i = 0; i < a; i++)
                s->bt_1d(v + i * a, 1, t + i * a, 1);
            for (int i = 0; i < aa; i++)
                prod[i] = fmaf(u[i], v[i], prod[i]);
            for (int o = 0; o < m * m; o++)
                for (int k = 0; k < r * r; k++) {
                    double term = (double)d[(o / m + k / r) * a + o % m + k % r] * g[k];
                    ref[o] += term;
                    norm[o] += fabs(term);
                }
        }
        float t[MAX_A * MAX_A], y[16];  // Y = A^T M A, as cl/winograd_output.cl
        for (int j = 0; j < a; j++)
            s->at_1d(t + j, a, prod + j, a);
        for (int i = 0; i < m; i++)
            s->at_1d(y + i * m, 1, t + i * a, 1);
        for (int o = 0; o < m * m; o++)
            worst = fmax(worst, fabs(y[o] - ref[o]) / norm[o]);
    }
    printf("  %s, %3d channels: max normalised error %.2e over %d tiles (bound %.0e)\n",
           s->name, channels, worst, TRIALS, bound);
    CHECK_MSG(worst < bound, "%s: error %.2e with %d channels passes %.0e", s->name, worst,
              channels, bound);
}

int main(void)
{
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        test_identity(&sets[i]);
        test_macros(&sets[i]);
        test_scales(&sets[i]);
    }
    // Bounds about three times what this (deterministic) data gives: 7.2e-8, 5.4e-7, 2.1e-7.
    // A wrong coefficient or a lost term gives errors near 1e-1.
    test_accuracy(&sets[0], 16, 2.5e-7);
    test_accuracy(&sets[1], 16, 2e-6);
    test_accuracy(&sets[2], 16, 7e-7);
    return check_summary("test_winograd_transforms");
}
