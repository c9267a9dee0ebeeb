// SPDX-License-Identifier: MIT
// The plan model: a variant's plan made and checked, steps and their defines, arguments and
// geometry, workspace regions, and the im2col step the im2col + GEMM variants share.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_epilogue.h"
#include "plan/variant.h"
#include "xconv_problem_fields.h"

// ---------------------------------------------------------------------------------------------
// Plans and steps

xconv_plan *xconv_plan_new(xconv_device *dev, const xconv_variant *v, const xconv_problem *p,
                           const xconv_plan_options *opts)
{
    xconv_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return NULL;
    plan->dev = dev;
    plan->variant = v;
    plan->problem = *p;
    plan->conv = *p;
    plan->conv_region = -1;
    if (opts)
        plan->opts = *opts;
    else
        xconv_plan_options_default(&plan->opts);
    return plan;
}

void xconv_plan_destroy(xconv_plan *plan)
{
    if (!plan)
        return;
    for (int i = 0; i < plan->nsteps; i++) {
        free(plan->steps[i]->defines);
        free(plan->steps[i]);
    }
    free(plan->steps);
    free(plan);
}

xconv_status xconv_variant_plan(const xconv_variant *v, xconv_device *dev,
                                const xconv_problem *p, const xconv_plan_options *opts,
                                xconv_plan **out, xconv_error *err)
{
    *out = NULL;
    char reason[512] = "";
    // fp32_math plans a reduced math mode in strict fp32 math: more accurate than asked.
    xconv_problem fp32_math = *p;
    bool widened = opts && opts->fp32_math && p->math != XCONV_MATH_F32;
    if (widened) {
        fp32_math.math = XCONV_MATH_F32;
        p = &fp32_math;
    }
    xconv_plan *plan = xconv_plan_new(dev, v, p, opts);
    if (!plan)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a plan");
    // The variant's own steps see the whole problem when it fuses and is allowed to, else the
    // convolution alone (xconv_plan_epilogue appends the rest).
    bool epilogue = xconv_problem_has_epilogue(p);
    if (epilogue && (!v->fuses || plan->opts.epilogue == XCONV_EPILOGUE_UNFUSED))
        plan->conv = xconv_problem_conv_only(p);
    xconv_status st = XCONV_OK;
    if (!xconv_variant_types_apply(v, p, reason, sizeof reason) ||
        !xconv_variant_applies(v, dev, &plan->conv, reason, sizeof reason))
        st = xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", reason);
    if (st == XCONV_OK)
        st = v->plan(dev, &plan->conv, &plan->opts, plan, err);
    if (st == XCONV_OK && epilogue)
        st = xconv_plan_epilogue(&dev->info, p, plan, err);
    if (st == XCONV_OK) {
        char text[384];
        xconv_plan_add_batch_args(plan);
        const char *baked = xconv_plan_baked_values(plan, text, sizeof text);
        if (baked)
            xconv_plan_summarize(plan, "%s", baked);
        if (widened)
            xconv_plan_summarize(plan, "in fp32 math (more accurate than asked)");
        st = xconv_plan_check(plan, err);
    }
    if (st != XCONV_OK) {
        xconv_plan_destroy(plan);
        return st;
    }
    *out = plan;
    return XCONV_OK;
}

bool xconv_plan_runtime_batch(const xconv_plan *plan)
{
    switch (plan->opts.runtime_batch) {
    case XCONV_BATCH_RUNTIME:
        return true;
    case XCONV_BATCH_DEFAULT:
        return plan->variant && plan->variant->runtime_batch;
    default:
        return false;
    }
}

bool xconv_plan_runtime_dims(const xconv_plan *plan)
{
    return plan->opts.runtime_dims == XCONV_BATCH_RUNTIME;
}

// Appends a zeroed step of `kind`; returns it, or NULL without host memory.
static xconv_step *add_step(xconv_plan *plan, xconv_step_kind kind, const char *label)
{
    if (plan->nsteps == plan->cap_steps) {
        int cap = plan->cap_steps ? 2 * plan->cap_steps : 4;
        xconv_step **grown = realloc(plan->steps, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        plan->steps = grown;
        plan->cap_steps = cap;
    }
    xconv_step *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->kind = kind;
    s->bake_batch = !xconv_plan_runtime_batch(plan);
    s->bake_dims = true;
    snprintf(s->label, sizeof s->label, "%s", label ? label : "");
    plan->steps[plan->nsteps++] = s;
    return s;
}

xconv_step *xconv_plan_add_step(xconv_plan *plan, const char *label, const char *source,
                                const char *kernel)
{
    xconv_step *s = add_step(plan, XCONV_STEP_KERNEL, label);
    if (s) {
        s->source = source;
        s->kernel = kernel;
    }
    return s;
}

xconv_step *xconv_plan_add_vendor_sgemm(xconv_plan *plan, const char *label)
{
    return add_step(plan, XCONV_STEP_VENDOR_SGEMM, label);
}

xconv_step *xconv_plan_add_vendor_conv(xconv_plan *plan, const char *label, const char *algo)
{
    xconv_step *s = add_step(plan, XCONV_STEP_VENDOR_CONV, label);
    if (s) {
        s->vendor_algo = algo;
        s->out_region = -1;
    }
    return s;
}

int xconv_plan_region(xconv_plan *plan, const char *name, size_t bytes)
{
    return xconv_plan_region_aligned(plan, name, bytes, XCONV_REGION_ALIGN);
}

int xconv_plan_region_aligned(xconv_plan *plan, const char *name, size_t bytes, size_t align)
{
    if (plan->nregions == XCONV_MAX_REGIONS) {
        plan->too_many_regions = true;
        return -1;
    }
    xconv_region *r = &plan->regions[plan->nregions];
    r->offset = plan->nregions ? xconv_round_up(plan->workspace_bytes, align) : 0;
    r->bytes = bytes;
    snprintf(r->name, sizeof r->name, "%s", name);
    plan->workspace_bytes = r->offset + bytes;
    return plan->nregions++;
}

void xconv_plan_summarize(xconv_plan *plan, const char *fmt, ...)
{
    size_t used = strlen(plan->summary);
    if (used && used + 2 < sizeof plan->summary) {
        memcpy(plan->summary + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->summary + used, sizeof plan->summary - used, fmt, ap);
    va_end(ap);
}

// ---------------------------------------------------------------------------------------------
// Defines

xconv_status xconv_step_define(xconv_step *s, const char *name, long long value,
                               xconv_error *err)
{
    for (int i = 0; i < s->ndefines; i++)
        if (strcmp(s->defines[i].name, name) == 0)
            return xconv_error_set(err, XCONV_ERR_INVALID, "step '%s' defines %s twice",
                                   s->label, name);
    if (strlen(name) >= sizeof s->defines[0].name)
        return xconv_error_set(err, XCONV_ERR_INVALID, "define name '%s' is too long", name);
    if (s->ndefines == s->cap_defines) {
        int cap = s->cap_defines ? 2 * s->cap_defines : 32;
        xconv_define *grown = realloc(s->defines, (size_t)cap * sizeof *grown);
        if (!grown)
            return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for defines");
        s->defines = grown;
        s->cap_defines = cap;
    }
    xconv_define *d = &s->defines[s->ndefines++];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->value = value;
    return XCONV_OK;
}

// True when field `name` (a define of common/xconv_problem_fields.h) is left to the kernel's
// arguments in step: the batch unless it is baked, the sizes unless they are.
static bool runtime_field(const xconv_step *step, const char *name)
{
    if (!step->bake_batch && strcmp(name, "XC_N") == 0)
        return true;
    if (step->bake_dims)
        return false;
    static const char list[] = XCONV_PROBLEM_RUNTIME_FIELDS;
    size_t len = strlen(name);
    for (const char *f = list; (f = strstr(f, name)) != NULL; f += len)
        if ((f == list || f[-1] == ' ') && (f[len] == ' ' || !f[len]))
            return true;
    return false;
}

xconv_status xconv_step_define_problem(xconv_step *step, const xconv_problem *p,
                                       xconv_error *err)
{
    xconv_status st = XCONV_OK;
    step->bake_dims = step->bake_dims || step->bake_batch;  // the sizes come after the batch
    if (!step->bake_batch) {
        st = xconv_step_define(step, XCONV_BATCH_RUNTIME_DEFINE, 1, err);
        step->batch_arg = true;
        step->batch = (int32_t)p->n;
    }
    if (st == XCONV_OK && !step->bake_dims) {
        st = xconv_step_define(step, XCONV_DIMS_RUNTIME_DEFINE, 1, err);
        step->dims_arg = true;
        int i = 0;
#define XCONV_STEP_DIM(name, expr) step->sizes[i++] = (int32_t)(expr);
        XCONV_PROBLEM_RUNTIME_DIMS(XCONV_STEP_DIM)
#undef XCONV_STEP_DIM
    }
#define XCONV_STEP_DEFINE_FIELD(name, expr, meaning)                                        \
    if (st == XCONV_OK && !runtime_field(step, #name))                                      \
        st = xconv_step_define(step, #name, (long long)(expr), err);
    XCONV_PROBLEM_DEFINES(XCONV_STEP_DEFINE_FIELD)
#undef XCONV_STEP_DEFINE_FIELD
    // The storage type only when it is not fp32, so fp32 programs keep their options.
    if (st == XCONV_OK && p->dtype != XCONV_DTYPE_F32)
        st = xconv_step_define(step, XCONV_DTYPE_DEFINE, (long long)p->dtype, err);
    return st;
}

xconv_status xconv_step_define_all(xconv_step *s, const xconv_step *from, xconv_error *err)
{
    xconv_status st = XCONV_OK;
    for (int i = 0; st == XCONV_OK && i < from->ndefines; i++)
        st = xconv_step_define(s, from->defines[i].name, from->defines[i].value, err);
    s->bake_batch = from->bake_batch;  // the defines say whether it takes the batch argument
    s->batch_arg = from->batch_arg;
    s->batch = from->batch;
    s->bake_dims = from->bake_dims;
    s->dims_arg = from->dims_arg;
    memcpy(s->sizes, from->sizes, sizeof s->sizes);
    return st;
}

long long xconv_step_value(const xconv_step *s, const char *name, long long fallback)
{
    for (int i = 0; i < s->ndefines; i++)
        if (strcmp(s->defines[i].name, name) == 0)
            return s->defines[i].value;
    return fallback;
}

int xconv_step_options(const xconv_step *s, char *buf, size_t len)
{
    return xconv_defines_format(s->defines, s->ndefines, buf, len);
}

// ---------------------------------------------------------------------------------------------
// Arguments

// Appends a, or marks the step when it has XCONV_MAX_ARGS already.
static void add_arg(xconv_step *s, xconv_step_arg a)
{
    if (s->nargs == XCONV_MAX_ARGS) {
        s->too_many_args = true;
        return;
    }
    s->args[s->nargs++] = a;
}

void xconv_step_arg_buffer(xconv_step *s, xconv_tensor_ref ref)
{
    add_arg(s, (xconv_step_arg){.kind = XCONV_STEP_ARG_BUFFER, .ref = ref, .region = -1});
}

void xconv_step_arg_int(xconv_step *s, int32_t value)
{
    add_arg(s, (xconv_step_arg){.kind = XCONV_STEP_ARG_INT, .i = value, .region = -1});
}

void xconv_step_arg_float(xconv_step *s, float value)
{
    add_arg(s, (xconv_step_arg){.kind = XCONV_STEP_ARG_FLOAT, .f = value, .region = -1});
}

void xconv_step_arg_constant(xconv_step *s, xconv_tensor_ref ref, int region, size_t bytes,
                             const char *symbol)
{
    add_arg(s, (xconv_step_arg){.kind = XCONV_STEP_ARG_CONSTANT, .ref = ref,
                                .region = ref == XCONV_REF_WORKSPACE ? region : -1,
                                .bytes = bytes, .symbol = symbol});
}

void xconv_step_arg_region_base(xconv_step *s, int region)
{
    add_arg(s, (xconv_step_arg){.kind = XCONV_STEP_ARG_BUFFER, .ref = XCONV_REF_WORKSPACE,
                                .region = region, .based = true});
}

void xconv_step_arg_region(xconv_step *s, const xconv_plan *plan, int region)
{
    add_arg(s, (xconv_step_arg){.kind = XCONV_STEP_ARG_BUFFER, .ref = XCONV_REF_WORKSPACE,
                                .region = region});
    size_t offset = region >= 0 && region < plan->nregions ? plan->regions[region].offset : 0;
    xconv_step_arg_int(s, (int32_t)(offset / sizeof(float)));
}

void xconv_plan_add_batch_args(xconv_plan *plan)
{
    for (int i = 0; i < plan->nsteps; i++) {
        xconv_step *s = plan->steps[i];
        if (s->kind != XCONV_STEP_KERNEL || !s->batch_arg)
            continue;
        xconv_step_arg_int(s, s->batch);
        for (int d = 0; s->dims_arg && d < XCONV_RUNTIME_DIMS; d++)
            xconv_step_arg_int(s, s->sizes[d]);
    }
}

// Writes "; " and which kernel steps take the sizes C, H, W, K, P, Q as arguments (the plan's
// options asked for them at run time) into buf.
static void baked_dims(const xconv_plan *plan, char *buf, size_t len)
{
    char steps[192] = "";
    size_t used = 0;
    int runtime = 0, baked = 0;
    for (int i = 0; i < plan->nsteps; i++) {
        const xconv_step *s = plan->steps[i];
        if (s->kind != XCONV_STEP_KERNEL || (!s->batch_arg && xconv_step_value(s, "XC_N", -1) < 0))
            continue;  // not a step of the problem
        if (s->dims_arg) {
            runtime++;
            continue;
        }
        baked++;
        if (strstr(steps, s->label) || used >= sizeof steps)
            continue;
        int n = snprintf(steps + used, sizeof steps - used, "%s%s", used ? ", " : "", s->label);
        used += n > 0 ? (size_t)n : 0;
    }
    if (!runtime)
        snprintf(buf, len, "; C, H, W, K, P, Q: baked (the variant or its steps' defines need "
                           "them)");
    else if (!baked)
        snprintf(buf, len, "; C, H, W, K, P, Q: run-time arguments (R, S, strides, padding, "
                           "dilation and groups baked)");
    else
        snprintf(buf, len, "; C, H, W, K, P, Q: run-time arguments, baked in %s (its defines "
                           "need them)", steps);
}

const char *xconv_plan_baked_values(const xconv_plan *plan, char *buf, size_t len)
{
    char steps[192] = "";
    size_t used = 0;
    int runtime = 0, baked = 0;
    for (int i = 0; i < plan->nsteps; i++) {
        const xconv_step *s = plan->steps[i];
        if (s->kind != XCONV_STEP_KERNEL)
            continue;
        if (s->batch_arg) {
            runtime++;
            continue;
        }
        if (!s->bake_batch && xconv_step_value(s, "XC_N", -1) < 0)
            continue;  // nothing of the batch (the FFT API's planes)
        baked++;
        if (strstr(steps, s->label) || used >= sizeof steps)
            continue;  // named already (a later pass)
        int n = snprintf(steps + used, sizeof steps - used, "%s%s", used ? ", " : "", s->label);
        used += n > 0 ? (size_t)n : 0;
    }
    if (!runtime && !baked)
        return NULL;
    if (!runtime)
        snprintf(buf, len, "N: baked%s", !xconv_plan_runtime_batch(plan) ? "" : " (the steps' "
                                                                        "defines depend on it)");
    else if (!baked)
        snprintf(buf, len, "N: a run-time argument");
    else
        snprintf(buf, len, "N: a run-time argument, baked in %s (their defines depend on it)",
                 steps);
    if (xconv_plan_runtime_dims(plan)) {
        size_t at = strlen(buf);
        baked_dims(plan, buf + at, at < len ? len - at : 0);
    }
    return buf;
}

// ---------------------------------------------------------------------------------------------
// Geometry

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

bool xconv_registers_fit(const xconv_device_info *info, int64_t values)
{
    return info->max_registers_per_item <= 0 ||
           values + XCONV_REGISTERS_OTHER <= info->max_registers_per_item;
}

xconv_status xconv_step_cap_registers(xconv_step *s, const xconv_device_info *info, int groups,
                                      size_t threads, int64_t values, xconv_error *err)
{
    if (info->max_registers_per_work_group <= 0 || groups < 1 || threads == 0)
        return XCONV_OK;
    int64_t cap = (int64_t)info->max_registers_per_work_group /
                  ((int64_t)groups * (int64_t)threads);
    cap -= cap % 8;
    if (cap >= XCONV_REGISTER_CAP_NONE || cap < values + XCONV_REGISTERS_OTHER)
        return XCONV_OK;
    return xconv_step_define(s, XCONV_REGISTER_CAP_NAME, cap, err);
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

size_t xconv_im2col_bytes(const xconv_problem *p, int64_t chunk)
{
    size_t pq = (size_t)(xconv_problem_out_h(p) * xconv_problem_out_w(p));
    return (size_t)chunk * (size_t)(p->c * p->r * p->s) * pq * sizeof(float);
}

xconv_status xconv_plan_im2col(const xconv_device_info *info, const xconv_problem *p,
                               int64_t chunk, int64_t n0, int64_t images, xconv_plan *plan,
                               xconv_error *err)
{
    size_t pq = (size_t)(xconv_problem_out_h(p) * xconv_problem_out_w(p));
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    size_t local = xconv_fit_work_group(info, xconv_round_up(pq < 128 ? pq : 128, multiple));
    xconv_step *s = xconv_plan_add_step(plan, "im2col", "im2col", "im2col");
    if (!s)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_step_set_3d(s, (size_t[3]){pq, (size_t)(p->c * p->r), (size_t)chunk},
                      (size_t[3]){local, 1, 1});
    xconv_step_arg_buffer(s, XCONV_REF_X);
    xconv_step_arg_buffer(s, XCONV_REF_WORKSPACE);
    xconv_step_arg_int(s, (int32_t)n0);
    xconv_step_arg_int(s, (int32_t)images);
    return xconv_step_define_problem(s, p, err);
}

// ---------------------------------------------------------------------------------------------
// Checks

// Returns XCONV_OK when argument a of step s refers to something the plan has.
static xconv_status check_arg(const xconv_plan *plan, const xconv_step *s, int i,
                              const xconv_step_arg *a, xconv_error *err)
{
    if (a->kind != XCONV_STEP_ARG_BUFFER && a->kind != XCONV_STEP_ARG_CONSTANT)
        return XCONV_OK;
    if (a->ref == XCONV_REF_WORKSPACE && !plan->workspace_bytes)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "step '%s' argument %d: the plan has no workspace", s->label, i);
    if (a->ref == XCONV_REF_WORKSPACE && a->region >= plan->nregions)
        return xconv_error_set(err, XCONV_ERR_INVALID, "step '%s' argument %d: no region %d",
                               s->label, i, a->region);
    if (a->ref < XCONV_REF_X || a->ref > XCONV_REF_WORKSPACE)
        return xconv_error_set(err, XCONV_ERR_INVALID, "step '%s' argument %d: tensor %d",
                               s->label, i, (int)a->ref);
    if (a->based && (a->ref != XCONV_REF_WORKSPACE || a->region < 0))
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "step '%s' argument %d: a region's pointer needs a region",
                               s->label, i);
    if (a->ref == XCONV_REF_BIAS && !plan->problem.epi.bias)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "step '%s' argument %d: the problem adds no bias", s->label, i);
    return XCONV_OK;
}

xconv_status xconv_plan_check(const xconv_plan *plan, xconv_error *err)
{
    const xconv_device_info *info = &plan->dev->info;
    if (plan->too_many_regions)
        return xconv_error_set(err, XCONV_ERR_INVALID, "plan has more than %d workspace regions",
                               XCONV_MAX_REGIONS);
    for (int i = 0; i < plan->nsteps; i++) {
        const xconv_step *s = plan->steps[i];
        if (s->too_many_args)
            return xconv_error_set(err, XCONV_ERR_INVALID,
                                   "step '%s' has more than %d arguments", s->label,
                                   XCONV_MAX_ARGS);
        if (s->local_mem_bytes > info->local_mem_bytes)
            return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                                   "step %s needs %zu bytes of local memory; the device has "
                                   "%llu", s->kernel ? s->kernel : s->label, s->local_mem_bytes,
                                   (unsigned long long)info->local_mem_bytes);
        for (int a = 0; a < s->nargs; a++) {
            xconv_status st = check_arg(plan, s, a, &s->args[a], err);
            if (st != XCONV_OK)
                return st;
        }
    }
    if (plan->workspace_bytes > info->max_alloc_bytes)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "workspace of %zu bytes passes the device's largest allocation "
                               "of %llu bytes",
                               plan->workspace_bytes, (unsigned long long)info->max_alloc_bytes);
    return XCONV_OK;
}
