// SPDX-License-Identifier: MIT
// implicit_mma: the GEMM family's tensor-core variant (cl/implicit_mma.cl), for the reduced math
// modes on devices with NVIDIA tensor cores (host/families/gemm/plan_mma.c plans it).
#include <stdio.h>

#include "families/gemm/plan_mma.h"
#include "plan/variant.h"

// Tensor cores from the device's capabilities: compute capability 8.0 or later, as the CUDA
// backend and NVIDIA's OpenCL (cl_nv_device_attribute_query) report it. The math mode (tf32,
// f16 or bf16; never strict fp32) was checked by the core.
static bool implicit_mma_applies(const xconv_variant *v, const xconv_device *dev,
                                 const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    (void)p;
    if (xconv_mma_supported(&dev->info))
        return true;
    if (dev->info.cc_major > 0)
        snprintf(reason, len, "implicit_mma needs NVIDIA tensor cores (compute capability "
                 "%d.0+); %s is %d.%d", XCONV_MMA_MIN_CC_MAJOR, dev->info.name,
                 dev->info.cc_major, dev->info.cc_minor);
    else
        snprintf(reason, len, "implicit_mma needs NVIDIA tensor cores (compute capability "
                 "%d.0+); %s reports none", XCONV_MMA_MIN_CC_MAJOR, dev->info.name);
    return false;
}

// One step: the product on tensor cores, gathering B from x, storing y; or the packed
// pipeline (asked for, a split asked for, or where it pays: xconv_mma_packed_pays), x and w
// packed first (x not where the product can read B from x as it lies: 1x1, stride 1, unpadded,
// ungrouped, unless mma_pipeline 2 forces the packing) and the product fed by a cp.async ring,
// split over K where its tiles leave the device's compute units idle (xconv_mma_split_choose)
// or as forced. Forced tiles (opts->mma_tiles) replace the planner's in either pipeline.
static xconv_status plan_implicit_mma(const xconv_device *dev, const xconv_problem *p,
                                      const xconv_plan_options *opts, xconv_plan *plan,
                                      xconv_error *err)
{
    xconv_mma_tiles t, forced_t;
    int pipeline = opts ? opts->mma_pipeline : 0, split = opts ? opts->mma_split_k : 0;
    int stages = 0;
    bool forced = xconv_mma_forced_tiles(opts, &forced_t, &stages);
    if (pipeline == XCONV_MMA_PIPELINE_REGISTERS && (split > 1 || stages))
        return xconv_error_set(err, XCONV_ERR_INVALID, "implicit_mma: %s is the packed "
                               "pipeline's, and the register pipeline is forced",
                               split > 1 ? "split-K (mma_split_k)" : "a ring's stages");
    xconv_status st;
    bool packed = pipeline == XCONV_MMA_PIPELINE_PACKED ||
                  pipeline == XCONV_MMA_PIPELINE_DIRECT_B ||
                  (pipeline == XCONV_MMA_PIPELINE_AUTO &&
                   (split > 1 || stages || xconv_mma_packed_pays(p)));
    if (packed) {
        char why[256];
        int chosen_split = 0;  // the planner's tiles come with their split
        if (forced)
            t = forced_t;
        else
            xconv_mma_packed_choose(&dev->info, p, &t, &chosen_split);
        if (!xconv_mma_tiles_take(&t, p->math, true, why, sizeof why))  // before the split's
            return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", why);  // model uses t
        if (!split)  // the planner's split: the one chosen with its tiles, else for the forced
            split = forced ? xconv_mma_split_choose(&dev->info, p, &t) : chosen_split;
        // B straight from x where it applies, unless the packing of x is forced (2).
        bool direct_b = pipeline == XCONV_MMA_PIPELINE_DIRECT_B ||
                        (pipeline == XCONV_MMA_PIPELINE_AUTO &&
                         xconv_mma_direct_b_applies(p, &t, NULL, 0));
        st = xconv_mma_plan_packed(&dev->info, p, &t, stages, split, direct_b, plan, err);
    } else {
        if (forced)
            t = forced_t;
        else
            xconv_mma_choose(&dev->info, p, &t);
        st = xconv_mma_plan_step(&dev->info, p, &t, plan, err);
    }
    if (st == XCONV_OK && forced)
        xconv_plan_summarize(plan, "tiles forced by the options (mma_tiles %d,%d,%d,%d,%d,%d)",
                             forced_t.tile_m, forced_t.tile_n, forced_t.tile_k, forced_t.warps_m,
                             forced_t.warps_n, stages);
    if (st == XCONV_OK && packed && opts->mma_split_k)
        xconv_plan_summarize(plan, "split forced by the options (mma_split_k %d)",
                             opts->mma_split_k);
    return st;
}

static const xconv_variant mma_variants[] = {
    {
        .info = {.name = "implicit_mma", .family = "gemm", .accuracy = "gemm", .notes = "",
                 .summary = "implicit GEMM on NVIDIA tensor cores (mma.sync, inline PTX), "
                            "math=tf32, f16 or bf16 with fp32 accumulation",
                 .backends = XCONV_ON_ALL_BACKENDS},
        .maths = XCONV_MATH_BIT(XCONV_MATH_TF32) | XCONV_MATH_BIT(XCONV_MATH_F16) |
                 XCONV_MATH_BIT(XCONV_MATH_BF16),
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .applies = implicit_mma_applies,
        .plan = plan_implicit_mma,
    },
};

const xconv_variant *xconv_mma_variants(int *count)
{
    *count = (int)(sizeof mma_variants / sizeof mma_variants[0]);
    return mma_variants;
}
