// SPDX-License-Identifier: MIT
// The host's whole-output comparison and random fill spread over threads give what one thread
// element by element gives: the largest error and its first index, the non-finite count and the
// first of them, across range boundaries; random values depend on their index alone.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "measure/check.h"

// The comparison element by element, as the measure is defined (host/measure/compare.c).
static void compare_plain(const float *y, const float *ref, const float *norm, int64_t count,
                          xconv_compare_result *out)
{
    *out = (xconv_compare_result){.worst_index = -1, .first_nonfinite = -1};
    bool any = false;
    for (int64_t i = 0; i < count; i++) {
        out->compared++;
        if (!isfinite(y[i]) || !isfinite(ref[i]) || isnan(norm[i])) {
            if (out->nonfinite++ == 0)
                out->first_nonfinite = i;
            continue;
        }
        double d = fabs((double)y[i] - (double)ref[i]), n = norm[i];
        double e = n == 0.0 ? d : d / (n > 1e-30 ? n : 1e-30);
        if (!any || e > out->max_norm_err) {
            out->max_norm_err = e;
            out->worst_index = i;
            any = true;
        }
    }
}

// Checks that the threaded comparison of the arrays equals the plain one.
static void check_same(const char *what, const float *y, const float *ref, const float *norm,
                       int64_t count)
{
    xconv_compare_result a, b;
    compare_plain(y, ref, norm, count, &a);
    xconv_compare_full_f32(y, ref, norm, count, &b);
    CHECK_MSG(a.max_norm_err == b.max_norm_err && a.worst_index == b.worst_index,
              "%s: error %.17g at %lld, threaded %.17g at %lld", what, a.max_norm_err,
              (long long)a.worst_index, b.max_norm_err, (long long)b.worst_index);
    CHECK_MSG(a.nonfinite == b.nonfinite && a.first_nonfinite == b.first_nonfinite &&
                  a.compared == b.compared,
              "%s: %lld non-finite from %lld of %lld, threaded %lld from %lld of %lld", what,
              (long long)a.nonfinite, (long long)a.first_nonfinite, (long long)a.compared,
              (long long)b.nonfinite, (long long)b.first_nonfinite, (long long)b.compared);
    // The float64 reference's path gives the same.
    double *r64 = malloc((size_t)count * sizeof *r64), *n64 = malloc((size_t)count * sizeof *n64);
    for (int64_t i = 0; r64 && n64 && i < count; i++) {
        r64[i] = ref[i];
        n64[i] = norm[i];
    }
    xconv_compare_full(y, r64, n64, count, &b);
    CHECK_MSG(a.max_norm_err == b.max_norm_err && a.worst_index == b.worst_index &&
                  a.nonfinite == b.nonfinite && a.first_nonfinite == b.first_nonfinite,
              "%s: the float64 path differs", what);
    free(r64);
    free(n64);
}

static void test_compare_ranges(void)
{
    const int64_t count = (int64_t)5 << 20;  // several ranges on any machine with 2+ cores
    float *y = malloc((size_t)count * sizeof *y), *ref = malloc((size_t)count * sizeof *ref);
    float *norm = malloc((size_t)count * sizeof *norm);
    CHECK(y && ref && norm);
    if (!y || !ref || !norm)
        return;
    xconv_random_fill(ref, (size_t)count, 3, 1);
    xconv_random_fill(norm, (size_t)count, 3, 2);
    for (int64_t i = 0; i < count; i++) {
        norm[i] = fabsf(norm[i]) + 0.5f;
        y[i] = ref[i] + (float)(i % 1000) * 1e-9f;  // small errors everywhere
    }
    check_same("small errors", y, ref, norm, count);

    // The largest error twice, in different ranges: the first index wins.
    y[count - 10] = ref[count - 10] + 0.25f * norm[count - 10];
    y[count / 3] = ref[count / 3] + 0.25f * norm[count / 3];
    check_same("a tie in two ranges", y, ref, norm, count);

    // Zero norms (every term padding) and non-finite values in late and early ranges.
    norm[7] = 0.0f;
    y[7] = ref[7] + 0.5f;
    y[count - 3] = NAN;
    ref[count / 2 + 1] = INFINITY;
    norm[count / 4] = NAN;
    check_same("non-finite values", y, ref, norm, count);

    // Nothing finite at all.
    for (int64_t i = 0; i < 3000000 && i < count; i++)
        y[i] = NAN;
    check_same("no finite element", y, ref, norm, 3000000);
    free(y);
    free(ref);
    free(norm);
}

// A fill spread over threads gives the values one thread gives (each depends on its index).
static void test_fill_ranges(void)
{
    const size_t big = (size_t)5 << 20, small = ((size_t)4 << 20) - 1;  // threads; one thread
    float *a = malloc(big * sizeof *a), *b = malloc(small * sizeof *b);
    CHECK(a && b);
    if (!a || !b)
        return;
    xconv_random_fill(a, big, 11, 1);
    xconv_random_fill(b, small, 11, 1);
    CHECK(memcmp(a, b, small * sizeof *a) == 0);
    free(a);
    free(b);
}

int main(void)
{
    test_compare_ranges();
    test_fill_ranges();
    return check_summary("test_compare");
}
