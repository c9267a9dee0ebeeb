// SPDX-License-Identifier: MIT
// A plan's life through the public API: creating one for a variant name, "auto" or a host
// variant, and what it chose; the generic runner (prepare resolves every kernel step's program
// once; run checks the tensors once and enqueues the steps in order, resolving arguments from
// small arrays: no string formatting, hashing or lookup on the launch path); forward runs a
// plan on host arrays.
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

// ---------------------------------------------------------------------------------------------
// Preparing

// Builds the programs of plan's kernel steps not built yet on as many threads at once, where
// there are two or more and the device builds on several threads (NVRTC does): a cold run then
// waits for its slowest build, not for their sum. Failures are left to the prepare that follows.
static void build_steps_at_once(xconv_plan *plan)
{
    enum { MAX_AT_ONCE = 16 };
    xconv_program_request requests[MAX_AT_ONCE];
    int n = 0;
    for (int i = 0; i < plan->nsteps && n < MAX_AT_ONCE; i++) {
        const xconv_step *s = plan->steps[i];
        if (s->kind == XCONV_STEP_KERNEL && !(s->program && s->program->handle))
            requests[n++] = (xconv_program_request){.dev = plan->dev, .source = s->source,
                                                    .defines = s->defines,
                                                    .ndefines = s->ndefines};
    }
    xconv_error ignored = {0};
    if (n >= 2)
        xconv_program_build_ahead(requests, n, n, NULL, NULL, NULL, &ignored);
}

xconv_status xconv_plan_prepare(xconv_plan *plan, double *compile_ms, xconv_error *err)
{
    if (compile_ms)
        *compile_ms = 0;
    if (XCONV_NULL_ARG(err, plan))
        return XCONV_ERR_INVALID;
    if (!plan->dev || !plan->dev->be || !plan->dev->be->program_build)
        return xconv_error_set(err, XCONV_ERR_INVALID, "plan has no open device to build on");
    plan->resets = plan->dev->resets;
    build_steps_at_once(plan);
    for (int i = 0; i < plan->nsteps; i++) {
        xconv_step *s = plan->steps[i];
        if (s->kind != XCONV_STEP_KERNEL || (s->program && s->program->handle))
            continue;
        xconv_status st = xconv_program_get(plan->dev, s->source, s->defines, s->ndefines,
                                            &s->program, compile_ms, err);
        if (st != XCONV_OK)
            return st;
    }
    plan->prepared = true;
    return XCONV_OK;
}

// Returns a new array of the programs the kernel steps of plans need (*count of them), or NULL
// without memory.
static xconv_program_request *kernel_requests(xconv_plan *const *plans, int nplans, int *count)
{
    size_t steps = 1;
    for (int i = 0; i < nplans; i++)
        steps += (size_t)plans[i]->nsteps;
    xconv_program_request *requests = malloc(steps * sizeof *requests);
    *count = 0;
    for (int i = 0; requests && i < nplans; i++)
        for (int j = 0; j < plans[i]->nsteps; j++) {
            const xconv_step *s = plans[i]->steps[j];
            if (s->kind == XCONV_STEP_KERNEL)
                requests[(*count)++] = (xconv_program_request){
                    .dev = plans[i]->dev, .source = s->source, .defines = s->defines,
                    .ndefines = s->ndefines};
        }
    return requests;
}

xconv_status xconv_plans_build(xconv_plan *const *plans, int nplans, int threads,
                               xconv_build_progress_fn progress, void *user,
                               xconv_build_stats *stats, xconv_error *err)
{
    if (nplans > 0 && XCONV_NULL_ARG(err, plans))
        return XCONV_ERR_INVALID;
    if (nplans < 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "xconv_plans_build: nplans is %d",
                               nplans);
    for (int i = 0; i < nplans; i++)
        if (!plans[i])
            return xconv_error_set(err, XCONV_ERR_INVALID, "xconv_plans_build: plans[%d] is NULL",
                                   i);
    int nrequests = 0;
    xconv_program_request *requests = kernel_requests(plans, nplans, &nrequests);
    if (!requests)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "xconv_plans_build: no memory");
    xconv_status st = xconv_program_build_ahead(requests, nrequests, threads, progress, user,
                                                stats, err);
    free(requests);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Resolving arguments

// Returns the tensor ref of t (NULL when the caller gave none).
static xconv_buffer *tensor(const xconv_tensors *t, xconv_tensor_ref ref)
{
    switch (ref) {
    case XCONV_REF_X: return t->x;
    case XCONV_REF_W: return t->w;
    case XCONV_REF_Y: return t->y;
    case XCONV_REF_BIAS: return t->bias;
    case XCONV_REF_WORKSPACE: return t->workspace;
    }
    return NULL;
}

// Byte offset of workspace region `region` (0 for -1, the whole workspace).
static size_t region_offset(const xconv_plan *plan, xconv_tensor_ref ref, int region)
{
    return ref == XCONV_REF_WORKSPACE && region >= 0 ? plan->regions[region].offset : 0;
}

// Fills *out with the backend argument of step argument a; checks a constant's range.
static xconv_status resolve_arg(const xconv_plan *plan, const xconv_step_arg *a,
                                const xconv_tensors *t, xconv_arg *out, xconv_error *err)
{
    switch (a->kind) {
    case XCONV_STEP_ARG_BUFFER:
        *out = (xconv_arg){.kind = XCONV_ARG_BUFFER,
                           .buf = xconv_buffer_handle(tensor(t, a->ref)),
                           .offset = a->based ? region_offset(plan, a->ref, a->region) : 0};
        return XCONV_OK;
    case XCONV_STEP_ARG_INT:
        *out = (xconv_arg){.kind = XCONV_ARG_INT, .i = a->i};
        return XCONV_OK;
    case XCONV_STEP_ARG_FLOAT:
        *out = (xconv_arg){.kind = XCONV_ARG_FLOAT, .f = a->f};
        return XCONV_OK;
    case XCONV_STEP_ARG_CONSTANT: {
        const xconv_buffer *buf = tensor(t, a->ref);
        size_t offset = region_offset(plan, a->ref, a->region);
        xconv_status st = xconv_buffer_check_range(buf, offset, a->bytes, "constant argument",
                                                   err);
        *out = (xconv_arg){.kind = XCONV_ARG_CONSTANT, .buf = xconv_buffer_handle(buf),
                           .offset = offset, .bytes = a->bytes, .symbol = a->symbol};
        return st;
    }
    }
    return xconv_error_set(err, XCONV_ERR_INVALID, "argument kind %d", (int)a->kind);
}

// ---------------------------------------------------------------------------------------------
// Running steps

// Enqueues kernel step s with its arguments resolved against t.
static xconv_status run_kernel(const xconv_plan *plan, const xconv_step *s,
                               const xconv_tensors *t, xconv_error *err)
{
    xconv_arg args[XCONV_MAX_ARGS];
    for (int i = 0; i < s->nargs; i++) {
        xconv_status st = resolve_arg(plan, &s->args[i], t, &args[i], err);
        if (st != XCONV_OK)
            return xconv_error_prefix(err, "step '%s' argument %d", s->label, i);
    }
    xconv_launch launch = {.kernel = s->kernel, .dims = s->dims, .args = args,
                           .nargs = s->nargs};
    memcpy(launch.global, s->global, sizeof launch.global);
    memcpy(launch.local, s->local, sizeof launch.local);
    xconv_device *dev = plan->dev;
    xconv_status st =
        xconv_device_fault(dev, dev->be->launch(dev->ctx, s->program->handle, &launch, err), err);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "launching %s", s->kernel);
    return XCONV_OK;
}

// Fills the buffer and element offset of one vendor SGEMM operand.
static void resolve_operand(const xconv_plan *plan, const xconv_gemm_operand *op,
                            const xconv_tensors *t, xconv_backend_buffer **buf, size_t *offset)
{
    *buf = xconv_buffer_handle(tensor(t, op->ref));
    *offset = op->offset + region_offset(plan, op->ref, op->region) / sizeof(float);
}

// Enqueues vendor SGEMM step s through the backend's BLAS.
static xconv_status run_vendor_sgemm(const xconv_plan *plan, const xconv_step *s,
                                     const xconv_tensors *t, xconv_error *err)
{
    const xconv_device *dev = plan->dev;
    if (!dev->be->sgemm)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "the %s backend has no vendor BLAS",
                               xconv_backend_name(dev->info.backend));
    const xconv_vendor_gemm_step *g = &s->gemm;
    xconv_gemm_args args = {.m = g->m, .n = g->n, .k = g->k, .batch = g->batch,
                            .lda = g->a.ld, .a_stride = g->a.stride,
                            .ldb = g->b.ld, .b_stride = g->b.stride,
                            .ldc = g->c.ld, .c_stride = g->c.stride,
                            .dtype = g->dtype, .math = g->math};
    resolve_operand(plan, &g->a, t, &args.a, &args.a_offset);
    resolve_operand(plan, &g->b, t, &args.b, &args.b_offset);
    resolve_operand(plan, &g->c, t, &args.c, &args.c_offset);
    xconv_status st = xconv_device_fault(plan->dev, dev->be->sgemm(dev->ctx, &args, err), err);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "%s", s->label);
    return XCONV_OK;
}

// Enqueues vendor convolution step s on the tensors.
static xconv_status run_vendor_conv(const xconv_plan *plan, const xconv_step *s,
                                    const xconv_tensors *t, xconv_error *err)
{
    const xconv_device *dev = plan->dev;
    if (!dev->be->vendor_conv)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE,
                               "the %s backend has no vendor convolution",
                               xconv_backend_name(dev->info.backend));
    bool redirected = s->out_region >= 0;
    xconv_vendor_conv_buffers b = {
        .x = xconv_buffer_handle(t->x), .w = xconv_buffer_handle(t->w),
        .y = xconv_buffer_handle(redirected ? t->workspace : t->y),
        .y_offset = redirected ? region_offset(plan, XCONV_REF_WORKSPACE, s->out_region) : 0,
        .bias = xconv_buffer_handle(t->bias), .workspace = xconv_buffer_handle(t->workspace),
    };
    // The problem its step computes: the convolution alone unless the vendor fuses.
    xconv_status st = dev->be->vendor_conv(dev->ctx, s->vendor_algo, &plan->conv, &b, err);
    return xconv_device_fault(plan->dev, st, err);
}

// Returns XCONV_OK when buf holds at least `bytes` (and is there when bytes > 0) and belongs to
// dev.
static xconv_status check_tensor(const xconv_device *dev, const xconv_buffer *buf, size_t bytes,
                                 const char *name, xconv_error *err)
{
    if (bytes && !buf)
        return xconv_error_set(err, XCONV_ERR_INVALID, "run: no %s buffer", name);
    if (buf && buf->dev != dev)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "run: the %s buffer belongs to another device than the plan's",
                               name);
    if (buf && buf->lost)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST,
                               "run: the %s buffer went with its device's context, lost at a "
                               "fault (create it again)", name);
    if (bytes && buf->bytes < bytes)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "run: the %s buffer holds %zu bytes; the plan needs %zu", name,
                               buf->bytes, bytes);
    return XCONV_OK;
}

// Checks t against the plan's problem and workspace once per run.
static xconv_status check_tensors(const xconv_plan *plan, const xconv_tensors *t,
                                  xconv_error *err)
{
    const xconv_problem *p = &plan->problem;
    const xconv_device *dev = plan->dev;
    size_t size = xconv_problem_elem_bytes(p);  // x, w and y in the storage type
    xconv_status st = check_tensor(dev, t->x, (size_t)xconv_problem_x_elems(p) * size, "x", err);
    if (st == XCONV_OK)
        st = check_tensor(dev, t->w, (size_t)xconv_problem_w_elems(p) * size, "w", err);
    if (st == XCONV_OK)
        st = check_tensor(dev, t->y, (size_t)xconv_problem_y_elems(p) * size, "y", err);
    if (st == XCONV_OK && p->epi.bias)
        st = check_tensor(dev, t->bias, (size_t)p->k * 4, "bias", err);
    if (st == XCONV_OK)
        st = check_tensor(dev, t->workspace, plan->workspace_bytes, "workspace", err);
    return st;
}

xconv_status xconv_plan_run(xconv_plan *plan, const xconv_tensors *t, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, plan) || XCONV_NULL_ARG(err, t))
        return XCONV_ERR_INVALID;
    // A context rebuilt since prepare dropped the programs: they are built again.
    bool ready = plan->prepared && plan->dev && plan->resets == plan->dev->resets &&
                 !plan->dev->lost;
    xconv_status st = ready ? XCONV_OK : xconv_plan_prepare(plan, NULL, err);
    if (st == XCONV_OK)
        st = check_tensors(plan, t, err);
    if (st != XCONV_OK)
        return st;
    if (plan->test_fault != 0)
        return xconv_test_fault_run(plan, t, err);
    if (plan->variant && plan->variant->run)
        return plan->variant->run(plan, t, err);
    for (int i = 0; st == XCONV_OK && i < plan->nsteps; i++) {
        const xconv_step *s = plan->steps[i];
        switch (s->kind) {
        case XCONV_STEP_KERNEL: st = run_kernel(plan, s, t, err); break;
        case XCONV_STEP_VENDOR_SGEMM: st = run_vendor_sgemm(plan, s, t, err); break;
        case XCONV_STEP_VENDOR_CONV: st = run_vendor_conv(plan, s, t, err); break;
        }
    }
    return st;
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

// Runs plan on the host arrays: a host variant's on the host; a device plan builds its
// programs, uploads x, w and the bias, runs, waits and reads y back. The builds come first:
// they need no memory of the device, and a backend whose context is still starting (CUDA's)
// compiles beside that start instead of after it.
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
