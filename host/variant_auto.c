// SPDX-License-Identifier: MIT
// The "auto" rule: which variants xconv_plan_create tries, best first, when asked for "auto".
// A simple fixed rule until the automatic choice (find and its database) replaces it behind the
// same call.
#include <stddef.h>

#include "variant.h"

// Problems from this many FLOPs up take implicit_precomp on GPUs; smaller ones direct_regblock,
// whose single launch beats the table step and GEMM there (docs/direct_family.md,
// docs/gemm_family.md).
#define AUTO_GEMM_MIN_FLOPS 1e9

int xconv_variant_auto_candidates(const xconv_device_info *info, const xconv_problem *p,
                                  const xconv_variant **out, int max)
{
    bool pointwise = p->r == 1 && p->s == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                     p->pad_h == 0 && p->pad_w == 0;
    const char *names[6];
    int n = 0;
    if (pointwise)
        names[n++] = "gemm_1x1";
    if (info->is_cpu) {
        names[n++] = "direct_const";  // where the filters fit constant memory
        names[n++] = "direct_tiled";
    } else if (xconv_problem_flops(p) >= AUTO_GEMM_MIN_FLOPS) {
        names[n++] = "implicit_precomp";
        names[n++] = "direct_regblock";
    } else {
        names[n++] = "direct_regblock";
        names[n++] = "implicit_precomp";
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
