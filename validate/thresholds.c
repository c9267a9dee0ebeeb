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
// rounding whose terms are scaled by the transform matrices, so the families get ten times more
// room, and each Winograd algorithm has its own entry from its measured error over its m x m
// output block (the harness applies thresholds to max_block_err; docs/validation.md). Largest
// measured on PoCL (the fused and non-fused variants of one F(m,r) give the same bits) over the
// small suite, 150 random 3x3/5x5 stride-1 shapes (every padding up to r, grouped, depthwise)
// and the standard suite's 3x3/5x5 layers (batch cut, device reference):
//     F(2x2,3x3) 4.2e-7, F(4x4,3x3) 3.1e-6, F(2x2,5x5) 2.1e-6 (direct float32: 3.2e-7).
// Each threshold is seven to ten times its worst, still four orders under a bug's error.

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
    { "winograd_f23", 3e-6 },
    { "winograd_f43", 3e-5 },
    { "winograd_f25", 2e-5 },
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
