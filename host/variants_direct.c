// SPDX-License-Identifier: MIT
// The direct convolution family: kernels that compute each output from its input window.
#include <stdio.h>

#include "plan_direct.h"
#include "variant.h"

// ---------------------------------------------------------------------------------------------
// direct_naive: one work-item per output element

// Plans one work-item per output element in work-groups of about 256, a multiple of the
// device's preferred size. Returns XCONV_OK or a define-table error.
static xconv_status plan_direct_naive(const xconv_device *dev, const xconv_problem *p,
                                      xconv_plan *plan, xconv_error *err)
{
    xconv_status st = xconv_plan_define_problem(plan, p, err);
    if (st != XCONV_OK)
        return st;
    size_t multiple = dev->info.preferred_multiple ? dev->info.preferred_multiple : 1;
    size_t local = xconv_fit_work_group(&dev->info, xconv_round_up(256, multiple));
    xconv_step *step = xconv_plan_add_step(plan, "direct_naive", "direct_naive");
    xconv_step_set_1d(step, (size_t)xconv_problem_y_elems(p), local);
    snprintf(plan->summary, sizeof plan->summary,
             "one work-item per output element, work-groups of %zu", local);
    return XCONV_OK;
}

// Launches the single step with (x, w, y).
static xconv_status run_single_step(xconv_device *dev, const xconv_problem *p,
                                    const xconv_plan *plan, const xconv_tensors *t,
                                    xconv_error *err)
{
    (void)p;
    const xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->x)), XCONV_ARG_BUF(xconv_buffer_handle(t->w)), XCONV_ARG_BUF(xconv_buffer_handle(t->y))};
    return xconv_plan_launch(dev, plan, 0, args, 3, err);
}

// ---------------------------------------------------------------------------------------------
// The tiled variants: one planner (host/plan_direct.c), one kernel each

// direct_const applies while the whole filter tensor fits the device's constant buffer.
static bool applies_direct_const(const xconv_device *dev, const xconv_problem *p, char *reason,
                                 size_t len)
{
    return xconv_direct_const_fits(&dev->info, p, reason, len);
}

static xconv_status plan_direct_const(const xconv_device *dev, const xconv_problem *p,
                                      xconv_plan *plan, xconv_error *err)
{
    return xconv_direct_plan(&dev->info, p, XCONV_DIRECT_CONST, plan, err);
}

static xconv_status plan_direct_tiled(const xconv_device *dev, const xconv_problem *p,
                                      xconv_plan *plan, xconv_error *err)
{
    return xconv_direct_plan(&dev->info, p, XCONV_DIRECT_TILED, plan, err);
}

static xconv_status plan_direct_tiled_db(const xconv_device *dev, const xconv_problem *p,
                                         xconv_plan *plan, xconv_error *err)
{
    return xconv_direct_plan(&dev->info, p, XCONV_DIRECT_TILED_DB, plan, err);
}

static xconv_status plan_direct_regblock(const xconv_device *dev, const xconv_problem *p,
                                         xconv_plan *plan, xconv_error *err)
{
    return xconv_direct_plan(&dev->info, p, XCONV_DIRECT_REGBLOCK, plan, err);
}

// Launches the single step with (x, filters in constant memory, y).
static xconv_status run_const_step(xconv_device *dev, const xconv_problem *p,
                                   const xconv_plan *plan, const xconv_tensors *t,
                                   xconv_error *err)
{
    size_t bytes = (size_t)xconv_problem_w_elems(p) * sizeof(float);
    const xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->x)), XCONV_ARG_CONST(xconv_buffer_handle(t->w), bytes, "xc_filter"),
                              XCONV_ARG_BUF(xconv_buffer_handle(t->y))};
    return xconv_plan_launch(dev, plan, 0, args, 3, err);
}

// ---------------------------------------------------------------------------------------------
// The family's table

static const xconv_variant direct_variants[] = {
    {
        .name = "direct_naive",
        .family = "direct",
        .summary = "one work-item per output, everything from global memory (baseline)",
        .backends = XCONV_ON_ALL_BACKENDS,
        .plan = plan_direct_naive,
        .run = run_single_step,
    },
    {
        .name = "direct_const",
        .family = "direct",
        .summary = "filters in constant memory, register blocks of channels x positions",
        .backends = XCONV_ON_ALL_BACKENDS,
        .applies = applies_direct_const,
        .plan = plan_direct_const,
        .run = run_const_step,
    },
    {
        .name = "direct_tiled",
        .family = "direct",
        .summary = "input tile + halo in local memory per channel chunk, register blocks",
        .backends = XCONV_ON_ALL_BACKENDS,
        .plan = plan_direct_tiled,
        .run = run_single_step,
    },
    {
        .name = "direct_tiled_db",
        .family = "direct",
        .summary = "as direct_tiled with two tile buffers: one barrier per channel chunk",
        .backends = XCONV_ON_ALL_BACKENDS,
        .plan = plan_direct_tiled_db,
        .run = run_single_step,
    },
    {
        .name = "direct_regblock",
        .family = "direct",
        .summary = "large register blocks of channels x positions, filters staged in local memory",
        .backends = XCONV_ON_ALL_BACKENDS,
        .plan = plan_direct_regblock,
        .run = run_single_step,
    },
};

const xconv_variant *xconv_direct_variants(int *count)
{
    *count = (int)(sizeof direct_variants / sizeof direct_variants[0]);
    return direct_variants;
}
