// SPDX-License-Identifier: MIT
// The XMX implicit GEMM's planner: applicability from the device's sub-group matrix engines,
// tiles for cl/implicit_xmx.cl, and its one step.
#include <stdio.h>

#include "families/gemm/plan_xmx.h"

#define XMX_ROWS 8   // rows of C one built-in computes (its M)
#define XMX_SUB_GROUPS 4  // sub-groups a work-group

int xconv_xmx_sub_group(const xconv_device_info *info)
{
    return info && (info->intel_mma_sub_group == 8 || info->intel_mma_sub_group == 16)
               ? info->intel_mma_sub_group
               : 0;
}

void xconv_xmx_choose(const xconv_device_info *info, const xconv_problem *p,
                      xconv_xmx_tiles *t)
{
    int64_t kg = p->k / p->groups;
    // 8, 16, 32 or 64 rows a work-group: one or two 8-row blocks a sub-group (each block's
    // operand of A serves both column blocks), the four sub-groups spread over the rows first.
    int blocks_m = kg <= XMX_ROWS ? 1 : 2;
    int sub_groups_m = kg <= 2 * XMX_ROWS ? 1 : kg <= 4 * XMX_ROWS ? 2 : 4;
    *t = (xconv_xmx_tiles){.sub_group = xconv_xmx_sub_group(info), .blocks_m = blocks_m,
                           .blocks_n = 2, .sub_groups_m = sub_groups_m,
                           .sub_groups_n = XMX_SUB_GROUPS / sub_groups_m};
}

// Returns true when every element index the kernel forms (x, w and y, whole and per group)
// stays in 32 bits.
static bool xmx_fits_index(const xconv_problem *p)
{
    int64_t pq = xconv_problem_out_h(p) * xconv_problem_out_w(p);
    int64_t crs = p->c / p->groups * p->r * p->s;
    return p->n * p->c * p->h * p->w <= XCONV_MAX_INDEX && p->n * p->k * pq <= XCONV_MAX_INDEX &&
           p->k * crs <= XCONV_MAX_INDEX;
}

// Adds the step's defines: the problem's (the storage type among them), the math mode and t.
static xconv_status xmx_defines(xconv_step *s, const xconv_problem *p, const xconv_xmx_tiles *t,
                                xconv_error *err)
{
    xconv_status st = xconv_step_define_problem(s, p, err);
    const struct { const char *name; long long value; } defs[] = {
        {"XC_XMX_MATH", (long long)p->math}, {"XC_XMX_SG", t->sub_group},
        {"XC_XMX_NATIVE", 1}, {"XC_XMX_BLOCKS_M", t->blocks_m},
        {"XC_XMX_BLOCKS_N", t->blocks_n}, {"XC_XMX_SUB_GROUPS_M", t->sub_groups_m},
        {"XC_XMX_SUB_GROUPS_N", t->sub_groups_n},
    };
    for (size_t i = 0; st == XCONV_OK && i < sizeof defs / sizeof defs[0]; i++)
        st = xconv_step_define(s, defs[i].name, defs[i].value, err);
    return st;
}

xconv_status xconv_xmx_plan_step(const xconv_device_info *info, const xconv_problem *p,
                                 const xconv_xmx_tiles *t, xconv_plan *plan, xconv_error *err)
{
    if (!xmx_fits_index(p))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "implicit_xmx: x, w or y passes the kernel's 32-bit index range");
    size_t threads = (size_t)(t->sub_group * t->sub_groups_m * t->sub_groups_n);
    if (threads > info->max_work_group_size || threads > info->max_work_item_sizes[0])
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "implicit_xmx: %zu work-items pass the device's %zu", threads,
                               info->max_work_group_size);
    xconv_step *s = xconv_plan_add_step(plan, "XMX implicit GEMM", "implicit_xmx",
                                        "implicit_xmx");
    if (!s)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_status st = xmx_defines(s, p, t, err);
    if (st != XCONV_OK)
        return st;
    int64_t kg = p->k / p->groups, cols = p->n * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    int tile_m = XMX_ROWS * t->blocks_m * t->sub_groups_m;
    int tile_n = t->sub_group * t->blocks_n * t->sub_groups_n;
    size_t global[3] = {(size_t)((cols + tile_n - 1) / tile_n) * threads,
                        (size_t)((kg + tile_m - 1) / tile_m), (size_t)p->groups};
    size_t local[3] = {threads, 1, 1};
    xconv_step_set_3d(s, global, local);
    // The built-ins exchange operands within the sub-group: the kernel declares one word of
    // local memory (the emulation's exchange, 8 words a work-item, only where it is emulated).
    s->local_mem_bytes = sizeof(uint32_t);
    xconv_step_arg_buffer(s, XCONV_REF_X);
    xconv_step_arg_buffer(s, XCONV_REF_W);
    xconv_step_arg_buffer(s, XCONV_REF_Y);
    xconv_plan_summarize(plan, "Intel sub-group matrix multiply-accumulate 8x%dx16 %s, fp32 "
                         "accumulation: %lldx%lldx%lld x %lld group%s, %dx%d tiles of %dx%d "
                         "sub-groups, k step 16 walked as (c,r,s); unmeasured on hardware",
                         t->sub_group, p->math == XCONV_MATH_F16 ? "f16" : "bf16",
                         (long long)kg, (long long)cols,
                         (long long)(p->c / p->groups * p->r * p->s), (long long)p->groups,
                         p->groups == 1 ? "" : "s", tile_m, tile_n, t->sub_groups_m,
                         t->sub_groups_n);
    return XCONV_OK;
}
