// SPDX-License-Identifier: MIT
// Plans through the public API: creating one for a variant name, "auto" or a host variant, and
// what it chose. (Running one, host arrays included, is plan/plan_run.c's.)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contract.h"
#include "plan/variant.h"
#ifdef XCONV_HAVE_CUDA
#include "../../cuda/nvrtc_compile.h"
#endif

// ---------------------------------------------------------------------------------------------
// Creation

// Plans host variant `variant` for p (checked): a plan of no steps, which xconv_plan_forward
// runs on the host. Returns it, or NULL after filling err.
static xconv_plan *create_host(const xconv_problem *p, const char *variant,
                               const xconv_plan_options *opts, xconv_error *err)
{
    const xconv_variant *v = xconv_variant_find(variant, err);
    if (!v)
        return NULL;
    char reason[512] = "";
    if (!v->run_host)
        snprintf(reason, sizeof reason, "%s runs on a device (dev is NULL)", v->info.name);
    if (!v->run_host || !xconv_variant_applies(v, NULL, p, reason, sizeof reason)) {
        xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", reason);
        return NULL;
    }
    xconv_plan *plan = xconv_plan_new(NULL, v, p, opts);
    if (!plan)
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a plan");
    return plan;
}

xconv_plan *xconv_plan_create(xconv_device *dev, const xconv_problem *p, const char *variant,
                              const xconv_plan_options *opts, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, variant))
        return NULL;
    // The problem is checked here once, against the device's largest allocation too.
    xconv_status st = dev ? xconv_problem_check_device(p, &dev->info, err)
                          : xconv_problem_check(p, err);
    if (st != XCONV_OK || xconv_plan_options_check(opts, err) != XCONV_OK)
        return NULL;
    xconv_plan *plan = NULL;
    if (!dev) {
        plan = create_host(p, variant, opts, err);
    } else if (xconv_device_lost(dev)) {  // planning asks vendor libraries on the device
        xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "%s", dev->gone_msg);
    } else if (strcmp(variant, "auto") == 0) {
        xconv_auto_info info;
        xconv_auto_plan(dev, p, opts, &info, &plan, err);
    } else {
        const xconv_variant *v = xconv_variant_find(variant, err);
        if (v)
            xconv_variant_plan(v, dev, p, opts, &plan, err);
    }
    if (plan)
        xconv_error_clear(err);
    return plan;
}

// ---------------------------------------------------------------------------------------------
// What a plan chose

const xconv_variant *xconv_plan_variant(const xconv_plan *plan)
{
    return plan ? plan->variant : NULL;
}

size_t xconv_plan_workspace_size(const xconv_plan *plan)
{
    return plan ? plan->workspace_bytes : 0;
}

const char *xconv_plan_summary(const xconv_plan *plan)
{
    return plan ? plan->summary : "";
}

void xconv_plan_error_block(const xconv_plan *plan, int64_t *block_h, int64_t *block_w)
{
    if (block_h)
        *block_h = plan && plan->error_block_h > 1 ? plan->error_block_h : 1;
    if (block_w)
        *block_w = plan && plan->error_block_w > 1 ? plan->error_block_w : 1;
}

unsigned xconv_plan_fused(const xconv_plan *plan)
{
    return plan ? plan->fused : 0;
}

int xconv_plan_step_count(const xconv_plan *plan)
{
    return plan ? plan->nsteps : 0;
}

xconv_status xconv_plan_step_get_info(const xconv_plan *plan, int step, xconv_plan_step_info *out,
                                      xconv_error *err)
{
    if (XCONV_NULL_ARG(err, plan) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    if (step < 0 || step >= plan->nsteps)
        return xconv_error_set(err, XCONV_ERR_INVALID, "the plan has no step %d (it has %d)",
                               step, plan->nsteps);
    const xconv_step *s = plan->steps[step];
    *out = (xconv_plan_step_info){
        .label = s->label, .source = s->kind == XCONV_STEP_KERNEL ? s->source : NULL,
        .kernel = s->kind == XCONV_STEP_KERNEL ? s->kernel
                  : s->kind == XCONV_STEP_VENDOR_CONV ? s->vendor_algo : "sgemm",
        .dims = s->dims, .local_mem_bytes = s->local_mem_bytes,
    };
    memcpy(out->global, s->global, sizeof out->global);
    memcpy(out->local, s->local, sizeof out->local);
    return XCONV_OK;
}

int xconv_plan_step_options(const xconv_plan *plan, int step, char *buf, size_t len)
{
    if (!plan || !buf || step < 0 || step >= plan->nsteps)
        return -1;
    return xconv_step_options(plan->steps[step], buf, len);
}

xconv_status xconv_plan_step_build_input(const xconv_plan *plan, int step, char **text,
                                         char *options, size_t len, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, plan) || XCONV_NULL_ARG(err, text) || XCONV_NULL_ARG(err, options))
        return XCONV_ERR_INVALID;
    *text = NULL;
    if (step < 0 || step >= plan->nsteps || plan->steps[step]->kind != XCONV_STEP_KERNEL)
        return xconv_error_set(err, XCONV_ERR_INVALID, "the plan has no kernel step %d", step);
    const xconv_step *s = plan->steps[step];
    const char *source = xconv_kernel_source(s->source);
    if (!source)
        return xconv_error_set(err, XCONV_ERR_INVALID, "kernel source %s is not embedded",
                               s->source);
    int used = xconv_step_options(s, options, len);
    if (plan->dev && plan->dev->info.backend == XCONV_BACKEND_OPENCL && used >= 0 &&
        (size_t)used < len)
        snprintf(options + used, len - (size_t)used, "%s%s", used ? " " : "",
                 XCONV_OPENCL_BUILD_OPTIONS);
    const char *dialect = xconv_kernel_dialect(), *line = "\n#line 1\n";
    size_t a = strlen(dialect), b = strlen(line), c = strlen(source);
    if (!(*text = malloc(a + b + c + 1)))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for kernel text");
    memcpy(*text, dialect, a);
    memcpy(*text + a, line, b);
    memcpy(*text + a + b, source, c + 1);
    return XCONV_OK;
}

xconv_status xconv_plan_step_nvrtc_report(const xconv_plan *plan, int step, char **log,
                                          xconv_error *err)
{
    if (XCONV_NULL_ARG(err, plan) || XCONV_NULL_ARG(err, log))
        return XCONV_ERR_INVALID;
    *log = NULL;
    if (step < 0 || step >= plan->nsteps || plan->steps[step]->kind != XCONV_STEP_KERNEL ||
        !plan->dev || plan->dev->info.backend != XCONV_BACKEND_CUDA)
        return xconv_error_set(err, XCONV_ERR_INVALID, "step %d is not a kernel of a CUDA plan",
                               step);
#ifdef XCONV_HAVE_CUDA
    const xconv_step *s = plan->steps[step];
    const char *source = xconv_kernel_source(s->source);
    char options[4096];
    xconv_step_options(s, options, sizeof options);
    if (!source)
        return xconv_error_set(err, XCONV_ERR_INVALID, "kernel source %s is not embedded",
                               s->source);
    return xconv_nvrtc_report(source, options, plan->dev->info.cc_major,
                              plan->dev->info.cc_minor, log, err);
#else
    return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "built without the CUDA backend");
#endif
}

int xconv_plan_region_count(const xconv_plan *plan)
{
    return plan ? plan->nregions : 0;
}

xconv_status xconv_plan_region_get(const xconv_plan *plan, int i, const char **name,
                                   size_t *offset, size_t *bytes)
{
    if (!plan || i < 0 || i >= plan->nregions)
        return XCONV_ERR_INVALID;
    if (name)
        *name = plan->regions[i].name;
    if (offset)
        *offset = plan->regions[i].offset;
    if (bytes)
        *bytes = plan->regions[i].bytes;
    return XCONV_OK;
}
