// SPDX-License-Identifier: MIT
// The thresholds table: how far from the float64 reference each variant family may land.
#include <string.h>

#include "thresholds.h"

// The error measure is |y - ref| / sum|x*w| per element (validate/compare.c), so it does not
// grow with the values' magnitude or with cancellation. Summing m float32 products in any order
// (sequential, tiled, tree) has a worst-case error of about m * 2^-24 * sum|x*w|, and a typical
// one near sqrt(m) * 2^-24: for the reduction sizes in the suites (m = C/groups * R * S up to a
// few thousand) that is 1e-7 to 1e-6, orders of magnitude under 1e-5. A wrong index, a missing
// tap or a stale tile moves an element by a whole term, on the order of 1e-1 of its scale, so
// 1e-5 separates right from wrong with room on both sides. Winograd and FFT add transform
// rounding whose terms are scaled by the transform matrices, so they get ten times more room.

typedef struct family_threshold {
    const char *family;
    double threshold;
} family_threshold;

static const family_threshold thresholds[] = {
    { "reference", 1e-5 },
    { "direct", 1e-5 },
    { "gemm", 1e-5 },
    { "peer", 1e-5 },
    { "winograd", 1e-4 },
    { "fft", 1e-4 },
};

// For a family not in the table: the strictest bound, so a new family must earn more room here.
#define DEFAULT_THRESHOLD 1e-5

double xconv_threshold_for_family(const char *family)
{
    if (family) {
        for (size_t i = 0; i < sizeof thresholds / sizeof thresholds[0]; i++)
            if (strcmp(family, thresholds[i].family) == 0)
                return thresholds[i].threshold;
    }
    return DEFAULT_THRESHOLD;
}

bool xconv_compare_passed(const xconv_compare_result *r, double threshold)
{
    return r->compared > 0 && r->nonfinite == 0 && r->max_norm_err <= threshold;
}
