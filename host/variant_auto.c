// SPDX-License-Identifier: MIT
// The "auto" rule: which variants xconv_plan_create tries, best first, when asked for "auto".
// A simple fixed rule drawn from the committed measurements, until the automatic choice (find
// and its database) replaces it behind the same call.
#include <stddef.h>

#include "variant.h"

// On GPUs implicit_precomp takes products at least this wide (output channels per group and
// taps per output) and this large; the rest take direct_regblock. On the H100 the GEMM ran
// fastest on vgg3x3, stem7x7s2, conv5x5, dil3x3d2 and res3x3 and direct_regblock on ece408_c1
// and ece408_c2 (6 and 16 output channels): bench/results' H100 records of 6a04005 (CUDA, every
// variant) and 0a9177f (the direct family).
#define AUTO_GEMM_MIN_KG 32
#define AUTO_GEMM_MIN_TAPS 64
#define AUTO_GEMM_MIN_FLOPS 1e8

int xconv_variant_auto_candidates(const xconv_device_info *info, const xconv_problem *p,
                                  const xconv_variant **out, int max)
{
    bool pointwise = p->r == 1 && p->s == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                     p->pad_h == 0 && p->pad_w == 0;
    bool wide = p->k / p->groups >= AUTO_GEMM_MIN_KG &&
                p->c / p->groups * p->r * p->s >= AUTO_GEMM_MIN_TAPS &&
                xconv_problem_flops(p) >= AUTO_GEMM_MIN_FLOPS;
    const char *names[6];
    int n = 0;
    if (info->is_cpu) {
        // On PoCL direct_const ran fastest on every small-suite shape, 1x1 ones included, and
        // im2col_gemm next where the filters pass constant memory (res3x3: 8.7 ms against 14.6
        // for direct_regblock and 28 for direct_tiled on the 2-core machine).
        names[n++] = "direct_const";
        names[n++] = "im2col_gemm";
    } else {
        if (pointwise)
            names[n++] = "gemm_1x1";
        names[n++] = wide ? "implicit_precomp" : "direct_regblock";
        names[n++] = wide ? "direct_regblock" : "implicit_precomp";
    }
    names[n++] = "direct_naive";
    int count = 0;
    for (int i = 0; i < n && count < max; i++) {
        const xconv_variant *v = xconv_variant_find(names[i], NULL);
        if (v)
            out[count++] = v;
    }
    return count;
}
