// SPDX-License-Identifier: MIT
// The behaviour report's probes: small problems whose inputs hold NaN, Inf, -0.0 or values around
// the float32 denormal range (below 2^-126), each with the idea it tests. Four problem sizes are
// shared between the probes, so a kernel is built once per size.
#include <math.h>

#include "behaviour_check.h"

// The problems: a padded 3x3 (its corner taps lie on the padding for the edge outputs), groups
// with stride, dilation and padding, and a 1x1 problem without padding (gemm_1x1 and its peers).
#define STRIDED "n=2,c=4,h=9,w=11,k=4,r=3,s=2,stride_h=2,pad=1,dil_w=2,groups=2"
#define PLAIN_1X1 "n=2,c=6,h=5,w=7,k=4,r=1"
#define PADDED_3X3 "n=2,c=4,h=7,w=9,k=4,r=3,pad=1"

// ---------------------------------------------------------------------------------------------
// Helpers

// Fills x (stream 1) and w (stream 2) with seeded values in [-1, 1), none zero.
static void fill_random(const xconv_problem *p, float *x, float *w, uint64_t seed)
{
    xconv_random_fill(x, (size_t)xconv_problem_x_elems(p), seed, 1);
    xconv_random_fill(w, (size_t)xconv_problem_w_elems(p), seed, 2);
}

// Returns the flat index of x[n, c, h, w].
static int64_t x_at(const xconv_problem *p, int64_t n, int64_t c, int64_t h, int64_t w)
{
    return ((n * p->c + c) * p->h + h) * p->w + w;
}

// Returns the flat index of w[k, c, r, s] (c within the group).
static int64_t w_at(const xconv_problem *p, int64_t k, int64_t c, int64_t r, int64_t s)
{
    return ((k * (p->c / p->groups) + c) * p->r + r) * p->s + s;
}

// Sets each of the count values v to sign(v) * (1 + |v|) * 2^exp: magnitudes in [2^exp,
// 2^(exp+1)), rounded to the denormal grid below 2^-126.
static void scale_values(float *v, int64_t count, int exp)
{
    for (int64_t i = 0; i < count; i++)
        v[i] = copysignf(ldexpf(1.0f + fabsf(v[i]), exp), v[i]);
}

// ---------------------------------------------------------------------------------------------
// Signed zeros

static void fill_minus_zero(const xconv_problem *p, float *x, float *w, uint64_t seed)
{
    fill_random(p, x, w, seed);
    for (int64_t i = 0; i < xconv_problem_x_elems(p); i++)
        x[i] = -0.0f;
    for (int64_t i = 0; i < xconv_problem_w_elems(p); i++)
        w[i] = 0.25f + 0.75f * fabsf(w[i]);
}

// ---------------------------------------------------------------------------------------------
// Denormals

// x denormal in [2^-130, 2^-129), w in [2^20, 2^21): the products are normal, so only reading x
// as zero (denormals-are-zero) loses them.
static void fill_denormal_inputs(const xconv_problem *p, float *x, float *w, uint64_t seed)
{
    fill_random(p, x, w, seed);
    scale_values(x, xconv_problem_x_elems(p), -130);
    scale_values(w, xconv_problem_w_elems(p), 20);
}

// The same with the roles swapped: denormal weights, large inputs.
static void fill_denormal_weights(const xconv_problem *p, float *x, float *w, uint64_t seed)
{
    fill_random(p, x, w, seed);
    scale_values(x, xconv_problem_x_elems(p), 20);
    scale_values(w, xconv_problem_w_elems(p), -130);
}

// x and w normal in [2^-71, 2^-70): the products lie in [2^-142, 2^-140) and their sums stay
// below 2^-126, so flushing products or results to zero loses them.
static void fill_denormal_products(const xconv_problem *p, float *x, float *w, uint64_t seed)
{
    fill_random(p, x, w, seed);
    scale_values(x, xconv_problem_x_elems(p), -71);
    scale_values(w, xconv_problem_w_elems(p), -71);
}

// Channels in pairs (2i, 2i+1) whose values differ by j * 2^-145 (1 <= j < 2^16) near 2^-125,
// and weights of +1 and -1 on a pair at the filter's centre tap (0 elsewhere): every product is
// normal and exact, every partial sum exact in any order, and each output is a sum of the pairs'
// differences, which lies below 2^-126: only flushing results to zero loses it.
static void fill_denormal_sums(const xconv_problem *p, float *x, float *w, uint64_t seed)
{
    fill_random(p, x, w, seed);
    int64_t plane = p->h * p->w;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t c = 0; c + 1 < p->c; c += 2)
            for (int64_t i = 0; i < plane; i++) {
                float *even = &x[x_at(p, n, c, 0, 0) + i], *odd = &x[x_at(p, n, c + 1, 0, 0) + i];
                int64_t j = 1 + (int64_t)(fabsf(*odd) * 65534.0f);
                *even = ldexpf(1.0f + 0.5f * fabsf(*even), -125);
                *odd = (float)((double)*even + ldexp((double)j, -145));
            }
    int64_t cg = p->c / p->groups;
    for (int64_t i = 0; i < xconv_problem_w_elems(p); i++)
        w[i] = 0.0f;
    for (int64_t k = 0; k < p->k; k++)
        for (int64_t c = 0; c + 1 < cg; c += 2) {
            float sign = (float)((k + c / 2) % 3 - 1);
            w[w_at(p, k, c, p->r / 2, p->s / 2)] = sign;
            w[w_at(p, k, c + 1, p->r / 2, p->s / 2)] = sign != 0 ? -sign : 0.0f;
        }
}

// ---------------------------------------------------------------------------------------------
// The table

#define NO_PUT {{0}}  // no special values

static const xconv_behaviour_case cases[] = {
    // Corner taps: on the padding for the outputs of the first (last) row or column, where only
    // x = 0.0 meets them.
    {"nan_inf_weights", XCONV_PROBE_SPECIAL, PADDED_3X3,
     "NaN at w[1,2,0,0], +Inf at w[2,0,2,2]: corner taps, NaN where they lie on the padding",
     NULL, {{'w', 1, 2, 0, 0, NAN}, {'w', 2, 0, 2, 2, INFINITY}}},
    {"nan_inf_weights", XCONV_PROBE_SPECIAL, PLAIN_1X1,
     "NaN at w[1,2,0,0], -Inf at w[3,5,0,0]; no padding", NULL,
     {{'w', 1, 2, 0, 0, NAN}, {'w', 3, 5, 0, 0, -INFINITY}}},
    {"nan_inf_inputs", XCONV_PROBE_SPECIAL, STRIDED,
     "+Inf at x[0,3,4,5], NaN at x[1,0,0,10]; groups, stride, dilation, padding", NULL,
     {{'x', 0, 3, 4, 5, INFINITY}, {'x', 1, 0, 0, 10, NAN}}},
    {"nan_inf_inputs", XCONV_PROBE_SPECIAL, PLAIN_1X1, "NaN at x[0,1,2,3], -Inf at x[1,4,0,6]",
     NULL, {{'x', 0, 1, 2, 3, NAN}, {'x', 1, 4, 0, 6, -INFINITY}}},
    {"minus_zero", XCONV_PROBE_ZERO, PADDED_3X3,
     "x = -0.0, w > 0: products -0, and +0 where a tap lies on the padding", fill_minus_zero,
     NO_PUT},
    {"minus_zero", XCONV_PROBE_ZERO, PLAIN_1X1, "x = -0.0, w > 0: every product -0",
     fill_minus_zero, NO_PUT},
    {"denormal_inputs", XCONV_PROBE_DENORMAL, PADDED_3X3,
     "x denormal in [2^-130, 2^-129), w in [2^20, 2^21): normal products",
     fill_denormal_inputs, NO_PUT},
    {"denormal_inputs", XCONV_PROBE_DENORMAL, PLAIN_1X1,
     "x denormal in [2^-130, 2^-129), w in [2^20, 2^21): normal products",
     fill_denormal_inputs, NO_PUT},
    {"denormal_weights", XCONV_PROBE_DENORMAL, PADDED_3X3,
     "w denormal in [2^-130, 2^-129), x in [2^20, 2^21): normal products",
     fill_denormal_weights, NO_PUT},
    {"denormal_weights", XCONV_PROBE_DENORMAL, PLAIN_1X1,
     "w denormal in [2^-130, 2^-129), x in [2^20, 2^21): normal products",
     fill_denormal_weights, NO_PUT},
    {"denormal_products", XCONV_PROBE_DENORMAL, PADDED_3X3,
     "x and w in [2^-71, 2^-70): denormal products and results", fill_denormal_products, NO_PUT},
    {"denormal_products", XCONV_PROBE_DENORMAL, PLAIN_1X1,
     "x and w in [2^-71, 2^-70): denormal products and results", fill_denormal_products, NO_PUT},
    {"denormal_sums", XCONV_PROBE_DENORMAL, PADDED_3X3,
     "channel pairs 2^-145 apart near 2^-125 times +1 and -1: normal products, denormal sums",
     fill_denormal_sums, NO_PUT},
    {"denormal_sums", XCONV_PROBE_DENORMAL, PLAIN_1X1,
     "channel pairs 2^-145 apart near 2^-125 times +1 and -1: normal products, denormal sums",
     fill_denormal_sums, NO_PUT},
};

void xconv_behaviour_case_fill(const xconv_behaviour_case *c, const xconv_problem *p, float *x,
                               float *w, uint64_t seed)
{
    if (c->fill)
        c->fill(p, x, w, seed);
    else
        fill_random(p, x, w, seed);
    for (size_t i = 0; i < sizeof c->put / sizeof c->put[0]; i++) {
        const xconv_special_value *s = &c->put[i];
        if (s->tensor == 'x')
            x[x_at(p, s->i0, s->i1, s->i2, s->i3)] = s->value;
        else if (s->tensor == 'w')
            w[w_at(p, s->i0, s->i1, s->i2, s->i3)] = s->value;
    }
}

const xconv_behaviour_case *xconv_behaviour_cases(int *count)
{
    *count = (int)(sizeof cases / sizeof cases[0]);
    return cases;
}
