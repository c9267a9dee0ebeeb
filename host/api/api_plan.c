// SPDX-License-Identifier: MIT
// Plans through the public API: creating one for a variant name or "auto", what it chose, and
// the host-array convenience path.
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
        snprintf(reason, sizeof reason, "%s runs on a device (dev is NULL)",
                 v->info.name);
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

// ---------------------------------------------------------------------------------------------
// Host arrays

// Creates a buffer of `bytes` into *out and uploads src into it (when src is not NULL);
// returns XCONV_OK or the failure.
static xconv_status upload(xconv_device *dev, size_t bytes, const void *src, xconv_buffer **out,
                           xconv_error *err)
{
    *out = xconv_buffer_create(dev, bytes, err);
    if (!*out)
        return err->status;
    return src ? xconv_buffer_upload(*out, 0, bytes, src, err) : XCONV_OK;
}

// Creates a buffer of count elements of p's storage type into *out and uploads the fp32 values
// src into it rounded to that type (src NULL: uninitialised); returns XCONV_OK or the failure.
static xconv_status upload_tensor(xconv_device *dev, const xconv_problem *p, int64_t count,
                                  const float *src, xconv_buffer **out, xconv_error *err)
{
    size_t bytes = (size_t)count * xconv_problem_elem_bytes(p);
    if (!src || p->dtype == XCONV_DTYPE_F32)
        return upload(dev, bytes, src, out, err);
    void *stored = malloc(bytes ? bytes : 1);
    if (!stored)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for %zu bytes",
                               bytes);
    xconv_dtype_from_f32(p->dtype, src, stored, (size_t)count);
    xconv_status st = upload(dev, bytes, stored, out, err);
    free(stored);
    return st;
}

// Downloads count elements of p's storage type from buf into dst as fp32 values; returns
// XCONV_OK or the failure.
static xconv_status download_tensor(xconv_buffer *buf, const xconv_problem *p, int64_t count,
                                    float *dst, xconv_error *err)
{
    size_t bytes = (size_t)count * xconv_problem_elem_bytes(p);
    if (p->dtype == XCONV_DTYPE_F32)
        return xconv_buffer_download(buf, 0, bytes, dst, err);
    void *stored = malloc(bytes ? bytes : 1);
    if (!stored)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for %zu bytes",
                               bytes);
    xconv_status st = xconv_buffer_download(buf, 0, bytes, stored, err);
    if (st == XCONV_OK)
        xconv_dtype_to_f32(p->dtype, stored, dst, (size_t)count);
    free(stored);
    return st;
}

// Runs plan on the host arrays: a host variant's on the host; a device plan builds its programs, uploads x, w and the bias, runs, waits
// and reads y back. The builds come first: they need no memory of the device, and a backend
// whose context is still starting (CUDA's) compiles beside that start instead of after it.
static xconv_status forward_plan(xconv_plan *plan, const float *x, const float *w,
                                 const float *bias, float *y, xconv_error *err)
{
    if (!plan->dev)  // a host variant's plan (xconv_plan_create with dev NULL)
        return plan->variant->run_host(&plan->problem, x, w, bias, y, err);
    xconv_device *dev = plan->dev;
    const xconv_problem *p = &plan->problem;
    int64_t y_n = xconv_problem_y_elems(p);
    xconv_tensors t = {0};
    xconv_status st = xconv_device_usable(dev, err);  // a profile's or a lost device's word
    if (st == XCONV_OK)
        st = xconv_plan_prepare(plan, NULL, err);
    if (st == XCONV_OK)
        st = upload_tensor(dev, p, xconv_problem_x_elems(p), x, &t.x, err);
    if (st == XCONV_OK)
        st = upload_tensor(dev, p, xconv_problem_w_elems(p), w, &t.w, err);
    if (st == XCONV_OK)
        st = upload_tensor(dev, p, y_n, NULL, &t.y, err);
    if (st == XCONV_OK && p->epi.bias)
        st = upload(dev, (size_t)p->k * sizeof(float), bias, &t.bias, err);
    if (st == XCONV_OK && plan->workspace_bytes)
        st = upload(dev, plan->workspace_bytes, NULL, &t.workspace, err);
    if (st == XCONV_OK)
        st = xconv_plan_run(plan, &t, err);
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, err);
    if (st == XCONV_OK)
        st = download_tensor(t.y, p, y_n, y, err);
    xconv_buffer_destroy(t.workspace);
    xconv_buffer_destroy(t.bias);
    xconv_buffer_destroy(t.y);
    xconv_buffer_destroy(t.w);
    xconv_buffer_destroy(t.x);
    return st;
}

xconv_status xconv_forward(xconv_device *dev, const xconv_problem *p, const char *variant,
                           const xconv_plan_options *opts, const float *x, const float *w,
                           const float *bias, float *y, xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, variant) || XCONV_NULL_ARG(err, x) ||
        XCONV_NULL_ARG(err, w) || XCONV_NULL_ARG(err, y))
        return XCONV_ERR_INVALID;
    if (p->epi.bias && !bias)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "the problem adds a bias: give its K values");
    xconv_plan *plan = xconv_plan_create(dev, p, variant, opts, err);
    if (!plan)
        return err->status;
    xconv_status st = forward_plan(plan, x, w, bias, y, err);
    xconv_plan_destroy(plan);
    return st == XCONV_OK ? xconv_error_clear(err) : st;
}

xconv_status xconv_plan_forward(xconv_plan *plan, const float *x, const float *w,
                                const float *bias, float *y, xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, plan) || XCONV_NULL_ARG(err, x) || XCONV_NULL_ARG(err, w) ||
        XCONV_NULL_ARG(err, y))
        return XCONV_ERR_INVALID;
    if (plan->problem.epi.bias && !bias)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "the problem adds a bias: give its K values");
    xconv_status st = forward_plan(plan, x, w, bias, y, err);
    return st == XCONV_OK ? xconv_error_clear(err) : st;
}

xconv_status xconv_convolve(xconv_device *dev, const xconv_problem *p, const char *variant,
                            const float *x, const float *w, float *y, xconv_error *err)
{
    return xconv_forward(dev, p, variant, NULL, x, w, NULL, y, err);
}
