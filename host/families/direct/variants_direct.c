// SPDX-License-Identifier: MIT
// The direct convolution family: kernels that compute each output from its input window.
#include <stdio.h>
#include <string.h>

#include "families/direct/plan_depthwise.h"
#include "families/direct/plan_direct.h"
#include "plan/plan_epilogue.h"
#include "plan/variant.h"

// ---------------------------------------------------------------------------------------------
// direct_naive: one work-item per output element

// Plans one work-item per output element (of the pooled output when p pools: each item then
// computes its window) in work-groups of about 256, a multiple of the device's preferred size,
// with the whole epilogue fused. Returns XCONV_OK or a define's failure.
static xconv_status plan_direct_naive(const xconv_device *dev, const xconv_problem *p,
                                      const xconv_plan_options *opts, xconv_plan *plan,
                                      xconv_error *err)
{
    (void)opts;
    size_t multiple = dev->info.preferred_multiple ? dev->info.preferred_multiple : 1;
    size_t local = xconv_fit_work_group(&dev->info, xconv_round_up(256, multiple));
    xconv_step *step = xconv_plan_add_step(plan, "direct_naive", "direct_naive", "direct_naive");
    if (!step)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_step_set_1d(step, (size_t)xconv_problem_y_elems(p), local);
    xconv_step_arg_buffer(step, XCONV_REF_X);
    xconv_step_arg_buffer(step, XCONV_REF_W);
    xconv_step_arg_buffer(step, XCONV_REF_Y);
    xconv_plan_summarize(plan, "one work-item per output element, work-groups of %zu", local);
    xconv_status st = xconv_step_define_problem(step, p, err);
    if (st == XCONV_OK)
        st = xconv_step_fuse_epilogue(step, p, XCONV_FUSED_BIAS_ACT | XCONV_FUSED_POOL, plan,
                                      err);
    return st;
}

// ---------------------------------------------------------------------------------------------
// direct_depthwise: strips of outputs down a column, one input channel per output channel

// direct_depthwise applies where every output channel reads one input channel.
static bool applies_direct_depthwise(const xconv_variant *v, const xconv_device *dev,
                                     const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    return xconv_depthwise_applies(&dev->info, p, reason, len);
}

// Plans direct_depthwise (host/families/direct/plan_depthwise.c).
static xconv_status plan_direct_depthwise(const xconv_device *dev, const xconv_problem *p,
                                          const xconv_plan_options *opts, xconv_plan *plan,
                                          xconv_error *err)
{
    (void)opts;
    return xconv_depthwise_plan(&dev->info, p, plan, err);
}

// ---------------------------------------------------------------------------------------------
// The tiled variants: one planner (xconv_direct_plan_variant, host/families/direct/plan_direct.c)
// of their kind (xconv_variant.kind), one kernel each

// direct_const applies while the whole filter tensor fits the device's constant buffer.
static bool applies_direct_const(const xconv_variant *v, const xconv_device *dev,
                                 const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    return xconv_direct_const_fits(&dev->info, p, reason, len);
}

// The most tilings of one kind a tuning times: the planner's choice and the model's next best.
#define DIRECT_TUNINGS_MAX 8

// Fills out with the tilings of v's kind to time for p on dev as forced-tiling strings; returns
// their count.
static int tunings_direct_kind(const xconv_variant *v, xconv_device *dev,
                                const xconv_problem *p, xconv_tuning *out, int max)
{
    xconv_direct_kind kind = (xconv_direct_kind)v->kind;
    xconv_direct_tiling t[DIRECT_TUNINGS_MAX];
    int n = xconv_direct_candidates(&dev->info, p, kind, t,
                                    max < DIRECT_TUNINGS_MAX ? max : DIRECT_TUNINGS_MAX);
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        xconv_direct_tiling_format(kind, &t[i], out[i].direct_tiling,
                                   sizeof out[i].direct_tiling);
    }
    return n;
}

// ---------------------------------------------------------------------------------------------
// The family's table

#define DIRECT_INFO(ident, text) \
    {.name = #ident, .family = "direct", .summary = text, .accuracy = "direct", .notes = "", \
     .backends = XCONV_ON_ALL_BACKENDS}

// Every direct kernel fuses the epilogue into its store (the pool where blocks hold windows).
// runtime_batch: the batch size at run time by default where the H100 measured it at most 2%
// slower than baked (direct_tiled_db, 1.007 at worst over the standard suite); baked where it
// cost more: direct_const 1.036, direct_tiled 1.030 (ResNet-50's layers), direct_regblock
// 1.25; direct_naive was not measured (docs/guide/compile.md, "What baking N buys").
// direct_depthwise takes N at run time unmeasured: N bounds its plane index and enters no
// address arithmetic (cl/direct_depthwise.cl), so its program serves every batch.

static const xconv_variant direct_variants[] = {
    {
        .info = DIRECT_INFO(direct_naive,
                            "one work-item per output, everything from global memory (baseline)"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .plan = plan_direct_naive,
    },
    {
        .info = DIRECT_INFO(direct_const, "filters in constant memory, register blocks of "
                                          "channels x positions"),
        .applies = applies_direct_const,
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .kind = XCONV_DIRECT_CONST,
        .plan = xconv_direct_plan_variant,
        .tunings = tunings_direct_kind,
    },
    {
        .info = DIRECT_INFO(direct_tiled, "input tile + halo in local memory per channel chunk, "
                                          "register blocks"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .kind = XCONV_DIRECT_TILED,
        .plan = xconv_direct_plan_variant,
        .tunings = tunings_direct_kind,
    },
    {
        .info = DIRECT_INFO(direct_tiled_db, "as direct_tiled with two tile buffers: one barrier "
                                             "per channel chunk"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .kind = XCONV_DIRECT_TILED_DB,
        .plan = xconv_direct_plan_variant,
        .tunings = tunings_direct_kind,
        .runtime_batch = true,
    },
    {
        .info = DIRECT_INFO(direct_depthwise, "one input channel per output channel "
                                              "(depthwise): strips of outputs down a column"),
        .applies = applies_direct_depthwise,
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .plan = plan_direct_depthwise,
        .runtime_batch = true,
    },
    {
        .info = DIRECT_INFO(direct_regblock, "large register blocks of channels x positions, "
                                             "filters staged in local memory"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .kind = XCONV_DIRECT_REGBLOCK,
        .plan = xconv_direct_plan_variant,
        .tunings = tunings_direct_kind,
    },
};

const xconv_variant *xconv_direct_variants(int *count)
{
    *count = (int)(sizeof direct_variants / sizeof direct_variants[0]);
    return direct_variants;
}
