// SPDX-License-Identifier: MIT
// Tests of random shapes: deterministic per (seed, index), always valid and small, and covering
// every key and kind of shape.
#include <string.h>

#include "check.h"
#include <xconv/xconv.h>

#define SEEDS 20
#define INDICES 200

// Returns true when a and b are the same problem.
static bool same(const xconv_problem *a, const xconv_problem *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

// Draws (seed, index), expecting success; returns the shape.
static xconv_problem draw(uint64_t seed, int index)
{
    xconv_problem p = {0};
    xconv_error err = {0};
    xconv_status st = xconv_shape_random(seed, index, &p, &err);
    CHECK_MSG(st == XCONV_OK, "seed %llu index %d: %s", (unsigned long long)seed, index, err.msg);
    return p;
}

// The same (seed, index) gives the same shape, drawn in any order; the sequence is pinned so
// that a seed names the same shapes on every platform.
static void test_deterministic(void)
{
    static const char *const pinned[] = {
        "n=3,c=15,h=9,w=7,k=9,r=4,s=1,stride_h=3,stride_w=1,pad_h=9,pad_w=0,dil_h=3,dil_w=1",
        "n=1,c=12,h=17,w=14,k=8,r=1,stride=3,dil=2,groups=4",
        "n=4,c=9,h=8,w=13,k=9,r=3,s=4,stride_h=2,stride_w=1,pad_h=5,pad_w=3,dil_h=3,dil_w=1,"
        "groups=9",
        "n=2,c=30,h=14,w=7,k=31,r=1,pad_h=0,pad_w=1,dil_h=2,dil_w=1",
    };
    for (int i = 0; i < 4; i++) {
        xconv_problem p = draw(1, i);
        char spec[256];
        xconv_shape_format(&p, spec, sizeof spec);
        CHECK_MSG(strcmp(spec, pinned[i]) == 0, "seed 1 index %d gave %s", i, spec);
    }
    for (int i = INDICES - 1; i >= 0; i--) {
        xconv_problem a = draw(7, i), b = draw(7, i);
        CHECK_MSG(same(&a, &b), "seed 7 index %d differs between two draws", i);
    }
    int differ = 0;
    for (int i = 0; i < INDICES; i++) {
        xconv_problem a = draw(1, i), b = draw(2, i);
        differ += !same(&a, &b);
    }
    CHECK_MSG(differ > INDICES * 9 / 10, "seeds 1 and 2 share %d of %d shapes",
              INDICES - differ, INDICES);
}

// Every shape passes the check, stays within the size limits, round-trips through its SPEC, and
// is of the kind its index names (plain, grouped, depthwise, 1x1 in turn).
static void test_valid_and_small(void)
{
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        for (int i = 0; i < INDICES; i++) {
            xconv_problem p = draw(seed, i), back;
            xconv_error err = {0};
            CHECK_MSG(xconv_problem_check(&p, &err) == XCONV_OK, "%s", err.msg);
            CHECK(xconv_problem_flops(&p) <= 4.0e6);
            CHECK(xconv_problem_x_elems(&p) <= 65536);
            char spec[256];
            xconv_shape_format(&p, spec, sizeof spec);
            CHECK_MSG(xconv_shape_parse(spec, &back, &err) == XCONV_OK && same(&p, &back),
                      "%s does not round-trip", spec);
            switch (i % 4) {
            case 0: CHECK_MSG(p.groups == 1 && p.r * p.s >= 1, "plain: %s", spec); break;
            case 1: CHECK_MSG(p.groups > 1 && p.c % p.groups == 0, "grouped: %s", spec); break;
            case 2: CHECK_MSG(p.groups == p.c && p.c > 1, "depthwise: %s", spec); break;
            default: CHECK_MSG(p.r == 1 && p.s == 1 && p.groups == 1, "1x1: %s", spec); break;
            }
        }
    }
}

// Across the draws, every key leaves its default and the two axes differ.
static void test_covers_keys(void)
{
    enum { N, C1, S_NE_R, STRIDE, STRIDE_HW, DIL, DIL_HW, PAD, PAD_HW, PAD_1X1, H_NE_W,
           GROUPED, DEPTH_MULT, BIG, COUNT };
    static const char *const names[COUNT] = {
        "n > 1", "c = 1", "s != r", "stride > 1", "stride_h != stride_w", "dil > 1",
        "dil_h != dil_w", "pad > 0", "pad_h != pad_w", "padding on a 1x1 filter", "h != w",
        "1 < groups < c", "depthwise k = 2c", "h or w past 20"};
    int seen[COUNT] = {0};
    for (int i = 0; i < INDICES; i++) {
        xconv_problem p = draw(1, i);
        seen[N] += p.n > 1;
        seen[C1] += p.c == 1;
        seen[S_NE_R] += p.s != p.r;
        seen[STRIDE] += p.stride_h > 1 || p.stride_w > 1;
        seen[STRIDE_HW] += p.stride_h != p.stride_w;
        seen[DIL] += p.dil_h > 1 || p.dil_w > 1;
        seen[DIL_HW] += p.dil_h != p.dil_w;
        seen[PAD] += p.pad_h > 0 || p.pad_w > 0;
        seen[PAD_HW] += p.pad_h != p.pad_w;
        seen[PAD_1X1] += p.r == 1 && p.s == 1 && (p.pad_h > 0 || p.pad_w > 0);
        seen[H_NE_W] += p.h != p.w;
        seen[GROUPED] += p.groups > 1 && p.groups < p.c;
        seen[DEPTH_MULT] += p.groups == p.c && p.k == 2 * p.c;
        seen[BIG] += p.h > 20 || p.w > 20;
    }
    for (int f = 0; f < COUNT; f++)
        CHECK_MSG(seen[f] > 0, "no shape of seed 1's first %d has %s", INDICES, names[f]);
}

// Bad arguments are refused with a message, leaving *p alone.
static void test_errors(void)
{
    xconv_problem p = xconv_problem_default();
    xconv_error err = {0};
    CHECK(xconv_shape_random(1, -1, &p, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "index");
    CHECK(p.n == 0);
    CHECK(xconv_shape_random(1, 0, NULL, &err) == XCONV_ERR_INVALID);
}

int main(void)
{
    test_deterministic();
    test_valid_and_small();
    test_covers_keys();
    test_errors();
    return check_summary("test_shape_random");
}
