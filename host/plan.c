// SPDX-License-Identifier: MIT
// Plan helpers: defines, steps and their geometry, compiler options, and launching a step.
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "xconv_problem_fields.h"

// ---------------------------------------------------------------------------------------------
// Defines

xconv_status xconv_plan_define(xconv_plan *plan, const char *name, long long value,
                               xconv_error *err)
{
    for (int i = 0; i < plan->ndefines; i++) {
        if (strcmp(plan->defines[i].name, name) == 0) {
            plan->defines[i].value = value;
            return XCONV_OK;
        }
    }
    if (plan->ndefines == XCONV_MAX_DEFINES)
        return xconv_error_set(err, XCONV_ERR_INVALID, "plan has more than %d defines",
                               XCONV_MAX_DEFINES);
    if (strlen(name) >= sizeof plan->defines[0].name)
        return xconv_error_set(err, XCONV_ERR_INVALID, "define name '%s' is too long", name);
    xconv_define *d = &plan->defines[plan->ndefines++];
    strcpy(d->name, name);
    d->value = value;
    return XCONV_OK;
}

xconv_status xconv_plan_define_problem(xconv_plan *plan, const xconv_problem *p,
                                       xconv_error *err)
{
    xconv_status st = XCONV_OK;
#define XCONV_DEFINE_FIELD(name, expr, meaning)                       \
    if (st == XCONV_OK)                                               \
        st = xconv_plan_define(plan, #name, (long long)(expr), err);
    XCONV_PROBLEM_DEFINES(XCONV_DEFINE_FIELD)
#undef XCONV_DEFINE_FIELD
    return st;
}

int xconv_plan_options(const xconv_plan *plan, char *buf, size_t len)
{
    return xconv_defines_format(plan->defines, plan->ndefines, buf, len);
}

// ---------------------------------------------------------------------------------------------
// Steps

xconv_step *xconv_plan_add_step(xconv_plan *plan, const char *source, const char *kernel)
{
    if (plan->nsteps == XCONV_MAX_STEPS)
        return NULL;
    xconv_step *step = &plan->steps[plan->nsteps++];
    memset(step, 0, sizeof *step);
    step->source = source;
    step->kernel = kernel;
    return step;
}

size_t xconv_round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

void xconv_step_set_3d(xconv_step *step, const size_t g[3], const size_t l[3])
{
    step->dims = 3;
    for (int d = 0; d < 3; d++) {
        step->local[d] = l[d] ? l[d] : 1;
        step->global[d] = xconv_round_up(g[d] ? g[d] : 1, step->local[d]);
    }
}

void xconv_step_set_2d(xconv_step *step, size_t gx, size_t gy, size_t lx, size_t ly)
{
    xconv_step_set_3d(step, (size_t[3]){gx, gy, 1}, (size_t[3]){lx, ly, 1});
    step->dims = 2;
}

void xconv_step_set_1d(xconv_step *step, size_t g, size_t l)
{
    xconv_step_set_3d(step, (size_t[3]){g, 1, 1}, (size_t[3]){l, 1, 1});
    step->dims = 1;
}

size_t xconv_fit_work_group(const xconv_device_info *info, size_t want)
{
    size_t limit = info->max_work_group_size ? info->max_work_group_size : 1;
    if (info->max_work_item_sizes[0] && info->max_work_item_sizes[0] < limit)
        limit = info->max_work_item_sizes[0];
    return want < limit ? want : limit;
}

// ---------------------------------------------------------------------------------------------
// The im2col step shared by the im2col + GEMM variants

int64_t xconv_im2col_chunk(const xconv_device_info *info, const xconv_problem *p)
{
    int64_t image_elems = p->c * p->r * p->s * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    uint64_t budget = info->max_alloc_bytes;
    if (info->global_mem_bytes && info->global_mem_bytes / 4 < budget)
        budget = info->global_mem_bytes / 4;
    int64_t chunk = (int64_t)(budget / ((uint64_t)image_elems * sizeof(float)));
    if (chunk > XCONV_MAX_INDEX / image_elems)
        chunk = XCONV_MAX_INDEX / image_elems;
    if (chunk > 65535)  // the image index is a grid dimension (CUDA's z is 16-bit)
        chunk = 65535;
    return chunk > p->n ? p->n : chunk;
}

xconv_step *xconv_plan_im2col(const xconv_device_info *info, const xconv_problem *p,
                              int64_t chunk, xconv_plan *plan)
{
    size_t pq = (size_t)(xconv_problem_out_h(p) * xconv_problem_out_w(p));
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    size_t local = xconv_fit_work_group(info, xconv_round_up(pq < 128 ? pq : 128, multiple));
    xconv_step *step = xconv_plan_add_step(plan, "im2col", "im2col");
    if (!step)
        return NULL;
    xconv_step_set_3d(step, (size_t[3]){pq, (size_t)(p->c * p->r), (size_t)chunk},
                      (size_t[3]){local, 1, 1});
    plan->batch_chunk = chunk;
    plan->workspace_bytes = (size_t)chunk * (size_t)(p->c * p->r * p->s) * pq * sizeof(float);
    return step;
}

// ---------------------------------------------------------------------------------------------
// Launching

xconv_status xconv_plan_launch(xconv_device *dev, const xconv_plan *plan, int step,
                               const xconv_arg *args, int nargs, xconv_error *err)
{
    if (step < 0 || step >= plan->nsteps)
        return xconv_error_set(err, XCONV_ERR_INVALID, "plan has no step %d", step);
    const xconv_step *s = &plan->steps[step];
    xconv_program *prog = NULL;
    xconv_status st =
        xconv_program_get(dev, s->source, plan->defines, plan->ndefines, &prog, NULL, err);
    if (st != XCONV_OK)
        return st;
    xconv_launch launch = {.kernel = s->kernel, .dims = s->dims, .args = args, .nargs = nargs};
    memcpy(launch.global, s->global, sizeof launch.global);
    memcpy(launch.local, s->local, sizeof launch.local);
    st = dev->be->launch(dev->ctx, prog->handle, &launch, err);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "launching %s", s->kernel);
    return XCONV_OK;
}
