// SPDX-License-Identifier: MIT
// The epilogue in plans: the fusing hook (defines and the bias argument of a store step), and
// the unfused path the core appends for the parts a variant did not fuse: the convolution's
// output redirected into a workspace region, a bias+activation step and a max-pool step
// (cl/epilogue.cl).
#include <stdio.h>
#include <string.h>

#include "plan/plan_epilogue.h"
#include "plan/variant.h"
#include "xconv_problem_fields.h"

// ---------------------------------------------------------------------------------------------
// Parts and their names

unsigned xconv_epilogue_parts(const xconv_problem *p)
{
    unsigned parts = 0;
    if (p->epi.bias || p->epi.act)
        parts |= XCONV_FUSED_BIAS_ACT;
    if (p->epi.pool_h)
        parts |= XCONV_FUSED_POOL;
    return parts;
}

const char *xconv_epilogue_describe(const xconv_problem *p, unsigned parts, char *buf,
                                    size_t len)
{
    const xconv_epilogue *e = &p->epi;
    int n = 0;
    buf[0] = '\0';
    if ((parts & XCONV_FUSED_BIAS_ACT) && e->bias)
        n += snprintf(buf + n, len - (size_t)n, "bias");
    if ((parts & XCONV_FUSED_BIAS_ACT) && e->act && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "%s%s", n ? " + " : "",
                      xconv_activation_name(e->act));
    if ((parts & XCONV_FUSED_POOL) && e->pool_h && (size_t)n < len) {
        n += snprintf(buf + n, len - (size_t)n, "%smax-pool %lldx%lld/%lld", n ? ", " : "",
                      (long long)e->pool_h, (long long)e->pool_w, (long long)e->pool_stride_h);
        if (e->pool_stride_w != e->pool_stride_h && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n, "x%lld", (long long)e->pool_stride_w);
        if ((e->pool_pad_h || e->pool_pad_w) && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " pad %lldx%lld", (long long)e->pool_pad_h,
                     (long long)e->pool_pad_w);
    }
    return buf;
}

// ---------------------------------------------------------------------------------------------
// The hook

// Adds the defines of the epilogue's parts (bias and activation, pool) of p to step s.
static xconv_status define_parts(xconv_step *s, const xconv_problem *p, unsigned parts,
                                 xconv_error *err)
{
    xconv_status st = XCONV_OK;
#define XCONV_DEFINE_FIELD(name, expr, meaning)                       \
    if (st == XCONV_OK)                                               \
        st = xconv_step_define(s, #name, (long long)(expr), err);
    if (parts & XCONV_FUSED_BIAS_ACT) {
        XCONV_EPILOGUE_ACT_DEFINES(XCONV_DEFINE_FIELD)
    }
    if (parts & XCONV_FUSED_POOL) {
        XCONV_EPILOGUE_POOL_DEFINES(XCONV_DEFINE_FIELD)
    }
#undef XCONV_DEFINE_FIELD
    return st;
}

xconv_status xconv_step_fuse_epilogue(xconv_step *s, const xconv_problem *p, unsigned parts,
                                      xconv_plan *plan, xconv_error *err)
{
    parts &= xconv_epilogue_parts(p);
    xconv_status st = define_parts(s, p, parts, err);
    if (st == XCONV_OK && (parts & XCONV_FUSED_BIAS_ACT) && p->epi.bias)
        xconv_step_arg_buffer(s, XCONV_REF_BIAS);
    if (st == XCONV_OK)
        plan->fused |= parts;
    return st;
}

// ---------------------------------------------------------------------------------------------
// The unfused path

// Points every reference of the plan's steps to y at workspace region `region` instead: the
// convolution's output then lands there for the steps that follow.
static void redirect_output(xconv_plan *plan, int region)
{
    for (int i = 0; i < plan->nsteps; i++) {
        xconv_step *s = xconv_plan_step(plan, i);
        for (int a = 0; a < s->nargs; a++) {
            xconv_step_arg *arg = &s->args[a];
            if ((arg->kind == XCONV_STEP_ARG_BUFFER || arg->kind == XCONV_STEP_ARG_CONSTANT) &&
                arg->ref == XCONV_REF_Y) {
                arg->ref = XCONV_REF_WORKSPACE;
                arg->region = region;
                arg->based = arg->kind == XCONV_STEP_ARG_BUFFER;
            }
        }
        xconv_gemm_operand *ops[] = {&s->gemm.a, &s->gemm.b, &s->gemm.c};
        for (int o = 0; s->kind == XCONV_STEP_VENDOR_SGEMM && o < 3; o++)
            if (ops[o]->ref == XCONV_REF_Y) {
                ops[o]->ref = XCONV_REF_WORKSPACE;
                ops[o]->region = region;
            }
        if (s->kind == XCONV_STEP_VENDOR_CONV)
            s->out_region = region;
    }
}

// Appends a step of cl/epilogue.cl running `kernel` over `count` work-items with p's defines and
// those of `parts`; returns it in *out. Returns XCONV_OK or a failure.
static xconv_status add_epilogue_step(const xconv_device_info *info, const xconv_problem *p,
                                      const char *label, const char *kernel, unsigned parts,
                                      int64_t count, xconv_plan *plan, xconv_step **out,
                                      xconv_error *err)
{
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    size_t local = xconv_fit_work_group(info, xconv_round_up(256, multiple));
    xconv_step *s = xconv_plan_add_step(plan, label, "epilogue", kernel);
    if (!s)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_step_set_1d(s, (size_t)count, local);
    xconv_status st = xconv_step_define_problem(s, p, err);
    if (st == XCONV_OK)
        st = define_parts(s, p, parts, err);
    *out = s;
    return st;
}

// Appends the bias+activation step over the convolution's output, in place: at workspace region
// `region`, or in y when region is -1.
static xconv_status add_bias_act(const xconv_device_info *info, const xconv_problem *p,
                                 int region, xconv_plan *plan, xconv_error *err)
{
    char label[48];
    xconv_epilogue_describe(p, XCONV_FUSED_BIAS_ACT, label, sizeof label);
    xconv_step *s = NULL;
    xconv_status st = add_epilogue_step(info, p, label, "epilogue_bias_act",
                                        XCONV_FUSED_BIAS_ACT, xconv_problem_conv_elems(p), plan,
                                        &s, err);
    if (st != XCONV_OK)
        return st;
    if (region >= 0) {
        xconv_step_arg_region(s, plan, region);
    } else {
        xconv_step_arg_buffer(s, XCONV_REF_Y);
        xconv_step_arg_int(s, 0);
    }
    if (p->epi.bias)
        xconv_step_arg_buffer(s, XCONV_REF_BIAS);
    return XCONV_OK;
}

// Appends the max-pool step from workspace region `region` into y.
static xconv_status add_pool(const xconv_device_info *info, const xconv_problem *p, int region,
                             xconv_plan *plan, xconv_error *err)
{
    xconv_step *s = NULL;
    xconv_status st = add_epilogue_step(info, p, "max-pool", "epilogue_pool", XCONV_FUSED_POOL,
                                        xconv_problem_y_elems(p), plan, &s, err);
    if (st != XCONV_OK)
        return st;
    xconv_step_arg_region(s, plan, region);
    xconv_step_arg_buffer(s, XCONV_REF_Y);
    return XCONV_OK;
}

xconv_status xconv_plan_epilogue(const xconv_device_info *info, const xconv_problem *p,
                                 xconv_plan *plan, xconv_error *err)
{
    unsigned parts = xconv_epilogue_parts(p), left = parts & ~plan->fused;
    const char *name = plan->variant ? plan->variant->info.name : "the plan";
    char fused[96], rest[96];
    xconv_epilogue_describe(p, plan->fused, fused, sizeof fused);
    xconv_epilogue_describe(p, left, rest, sizeof rest);
    if (left && !plan->epi_note[0])  // the variant does not fuse, or was not allowed to
        snprintf(plan->epi_note, sizeof plan->epi_note, "%s",
                 plan->opts.epilogue == XCONV_EPILOGUE_UNFUSED
                     ? "the unfused path was asked for"
                     : "the variant's store takes no epilogue (a vendor library's stores its "
                       "own output)");
    if (left && plan->opts.epilogue == XCONV_EPILOGUE_FUSED)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s does not fuse %s%s%s", name,
                               rest, plan->epi_note[0] ? ": " : "", plan->epi_note);
    if ((plan->fused & XCONV_FUSED_POOL) && (left & XCONV_FUSED_BIAS_ACT))
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s fuses the pool but not the bias and "
                               "activation before it", name);
    // The step that stores the output: the convolution's, or under split-K the reduce's.
    const xconv_step *last = plan->nsteps > 0 ? xconv_plan_step(plan, plan->nsteps - 1) : NULL;
    const char *store = last && last->kernel && strcmp(last->kernel, XCONV_SPLITK_REDUCE_KERNEL) == 0
                            ? "the split-K reduce's store"
                            : "the store";
    xconv_status st = XCONV_OK;
    if (left & XCONV_FUSED_POOL) {
        int region = xconv_plan_region_aligned(plan, "convolution output",
                                               (size_t)xconv_problem_conv_elems(p) *
                                                   sizeof(float),
                                               XCONV_EPILOGUE_REGION_ALIGN);
        if (region < 0)
            return xconv_error_set(err, XCONV_ERR_INVALID, "plan has more than %d workspace "
                                   "regions", XCONV_MAX_REGIONS);
        redirect_output(plan, region);
        plan->conv_region = region;
        if (left & XCONV_FUSED_BIAS_ACT)
            st = add_bias_act(info, p, region, plan, err);
        if (st == XCONV_OK)
            st = add_pool(info, p, region, plan, err);
    } else if (left & XCONV_FUSED_BIAS_ACT) {
        st = add_bias_act(info, p, -1, plan, err);
    }
    if (st != XCONV_OK)
        return st;
    char note[sizeof plan->epi_note + 4] = "";
    if (plan->epi_note[0])
        snprintf(note, sizeof note, " (%s)", plan->epi_note);
    if (!left)
        xconv_plan_summarize(plan, "epilogue fused: %s in %s", fused, store);
    else if (plan->fused)
        xconv_plan_summarize(plan, "epilogue partly fused: %s in %s, %s as steps after it%s",
                             fused, store, rest, note);
    else
        xconv_plan_summarize(plan, "epilogue unfused: %s as steps after the convolution%s",
                             rest, note);
    return XCONV_OK;
}
