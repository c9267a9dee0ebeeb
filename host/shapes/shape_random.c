// SPDX-License-Identifier: MIT
// Random shapes: a seeded, numbered sequence of small valid problems that vary every key, for
// validating variants beyond the named suites.
#include <xconv/xconv.h>

#include "core/contract.h"

// ---------------------------------------------------------------------------------------------
// Limits: small enough that a CPU device runs every variant on a shape in about a second

#define RAND_MAX_FLOPS 4.0e6     // work of one shape (FLOPs, multiply-adds counted twice)
#define RAND_MAX_X_ELEMS 65536   // elements of the input x
#define RAND_EXTENT_SPAN 24      // h and w reach up to this much past the smallest valid value
#define RAND_TRIES 64            // draws before falling back to the smallest image

// ---------------------------------------------------------------------------------------------
// The generator (splitmix64, counter-based: shape `index` does not depend on the ones before)

typedef struct rng {
    uint64_t state;
} rng;

// splitmix64's step: advances the state and returns the next 64 random bits.
static uint64_t next64(rng *g)
{
    uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Returns a uniform integer in [lo, hi] (hi >= lo; the modulo bias is below 2^-50 here).
static int64_t uniform(rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next64(g) % (uint64_t)(hi - lo + 1));
}

// Returns one of the `count` values, uniformly.
static int64_t pick(rng *g, const int64_t *values, int count)
{
    return values[uniform(g, 0, count - 1)];
}

// Returns true with probability num/den.
static bool chance(rng *g, int num, int den)
{
    return uniform(g, 1, den) <= num;
}

// ---------------------------------------------------------------------------------------------
// Drawing

// The kinds of shape, taken in turn by index so that any four consecutive shapes hold each.
enum { KIND_PLAIN, KIND_GROUPED, KIND_DEPTHWISE, KIND_POINTWISE, KIND_COUNT };

// Draws the channels, groups and filter size of a shape of `kind` into *p.
static void draw_channels(rng *g, int kind, xconv_problem *p)
{
    p->groups = 1;
    p->r = p->s = 1;
    if (kind == KIND_PLAIN) {
        p->c = uniform(g, 1, 16);
        p->k = uniform(g, 1, 16);
    } else if (kind == KIND_GROUPED) {
        p->groups = uniform(g, 2, 4);
        p->c = p->groups * uniform(g, 1, 4);
        p->k = p->groups * uniform(g, 1, 4);
    } else if (kind == KIND_DEPTHWISE) {
        p->c = p->groups = uniform(g, 2, 16);
        p->k = p->c * uniform(g, 1, 2);  // a channel multiplier of 1 or 2
    } else {
        p->c = uniform(g, 1, 32);
        p->k = uniform(g, 1, 32);
    }
    if (kind != KIND_POINTWISE) {
        p->r = uniform(g, 1, 5);
        p->s = chance(g, 1, 2) ? p->r : uniform(g, 1, 5);
    }
}

// Draws one axis: stride, dilation, padding and input extent, for a filter of `taps` taps.
// `same` (the other axis's values, or NULL) is copied with probability 2/3 where it fits.
static void draw_axis(rng *g, int64_t taps, const int64_t *same, int64_t *stride, int64_t *dil,
                      int64_t *pad, int64_t *extent)
{
    static const int64_t strides[] = {1, 1, 2, 3}, dils[] = {1, 1, 1, 2, 3};
    bool copy = same && chance(g, 2, 3);
    *stride = copy ? same[0] : pick(g, strides, 4);
    *dil = copy ? same[1] : pick(g, dils, 5);
    int64_t reach = *dil * (taps - 1) + 1;  // the dilated filter's extent
    int64_t pad_max = taps > 1 ? reach - 1 : 1;  // a 1-tap filter may still pad by one
    *pad = copy && same[2] <= pad_max ? same[2] : uniform(g, 0, pad_max);
    if (taps == 1 && chance(g, 2, 3))
        *pad = 0;
    int64_t lo = reach - 2 * *pad > 1 ? reach - 2 * *pad : 1;  // a non-empty output
    *extent = uniform(g, lo, lo + RAND_EXTENT_SPAN);
}

// Draws a whole shape into *p (not yet checked against the size limits).
static void draw_shape(rng *g, int kind, xconv_problem *p)
{
    *p = xconv_problem_default();
    p->n = uniform(g, 1, 4);
    draw_channels(g, kind, p);
    draw_axis(g, p->r, NULL, &p->stride_h, &p->dil_h, &p->pad_h, &p->h);
    int64_t h_values[3] = {p->stride_h, p->dil_h, p->pad_h};
    draw_axis(g, p->s, h_values, &p->stride_w, &p->dil_w, &p->pad_w, &p->w);
}

// Returns true when p is within the size limits.
static bool small_enough(const xconv_problem *p)
{
    return xconv_problem_flops(p) <= RAND_MAX_FLOPS &&
           xconv_problem_x_elems(p) <= RAND_MAX_X_ELEMS;
}

// ---------------------------------------------------------------------------------------------
// Public function

xconv_status xconv_shape_random(uint64_t seed, int index, xconv_problem *p, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, p))
        return XCONV_ERR_INVALID;
    if (index < 0)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "random shape: index must be >= 0 (got %d)", index);
    rng g = {.state = seed};
    g.state = next64(&g) ^ ((uint64_t)index * 0xD1B54A32D192ED03ull);
    int kind = index % KIND_COUNT;
    xconv_problem drawn;
    for (int t = 0; t < RAND_TRIES; t++) {
        draw_shape(&g, kind, &drawn);
        if (small_enough(&drawn))
            break;
    }
    if (!small_enough(&drawn)) {  // the smallest image that keeps the rest of the last draw
        drawn.n = 1;
        drawn.h = drawn.dil_h * (drawn.r - 1) + 1 - 2 * drawn.pad_h;
        drawn.w = drawn.dil_w * (drawn.s - 1) + 1 - 2 * drawn.pad_w;
        drawn.h = drawn.h > 1 ? drawn.h : 1;
        drawn.w = drawn.w > 1 ? drawn.w : 1;
    }
    xconv_status st = xconv_problem_check(&drawn, err);
    if (st == XCONV_OK)
        *p = drawn;
    return st;
}
