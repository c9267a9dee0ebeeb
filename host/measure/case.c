// SPDX-License-Identifier: MIT
// A case's inputs: seeded random x, w and bias on the host and on the device, the buffers
// runs share, and running a plan once on poisoned outputs.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/contract.h"
#include "measure/case.h"

void xconv_case_options_default(xconv_case_options *opts)
{
    if (!opts)
        return;
    *opts = (xconv_case_options){ .seed = 1,
                                  .repeat = 0,
                                  .warmup = 2,
                                  .samples = 1000,
                                  .host_ref_max_gflop = 1.0,
                                  .host_threads = 0 };
    xconv_plan_options_default(&opts->plan);
}

// The epilogue parts a host variant applies: all of the problem's (it computes the whole
// operation).
unsigned measure_epilogue_parts_host(const xconv_problem *p)
{
    return (p->epi.bias || p->epi.act ? XCONV_FUSED_BIAS_ACT : 0u) |
           (p->epi.pool_h ? XCONV_FUSED_POOL : 0u);
}

// Returns the host's monotonic clock in milliseconds (for wall times).
double measure_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// ---------------------------------------------------------------------------------------------
// Device memory helpers

// Allocates a buffer for count floats into *out; returns XCONV_OK or the failure.
xconv_status measure_alloc(xconv_device *dev, int64_t count, xconv_buffer **out, xconv_error *err)
{
    *out = xconv_buffer_create(dev, (size_t)count * sizeof(float), err);
    return *out ? XCONV_OK : err->status;
}

// Allocates a buffer for count floats and copies host into it; returns XCONV_OK or the failure.
xconv_status measure_upload(xconv_device *dev, const float *host, int64_t count, xconv_buffer **out,
                            xconv_error *err)
{
    xconv_status st = measure_alloc(dev, count, out, err);
    if (st == XCONV_OK &&
        (st = xconv_buffer_upload(*out, 0, (size_t)count * sizeof(float), host, err)))
        xconv_buffer_destroy(*out), *out = NULL;
    return st;
}

void *measure_host_alloc(size_t count, size_t size, xconv_error *err)
{
    void *ptr = calloc(count ? count : 1, size);
    if (!ptr)
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for %zu bytes", count * size);
    return ptr;
}

// Tensors in the problem's storage type (x, w and y; the bias is always fp32). Their buffers are
// rounded up to whole floats, so that a NaN fill of fp32 words poisons every element.

// Bytes of the buffer of count elements of p's dtype.
static size_t tensor_bytes(const xconv_problem *p, int64_t count)
{
    return ((size_t)count * xconv_problem_elem_bytes(p) + 3) / 4 * 4;
}

// Allocates a buffer for count elements of p's dtype; returns XCONV_OK or the failure.
xconv_status measure_alloc_tensor(xconv_device *dev, const xconv_problem *p, int64_t count,
                                  xconv_buffer **out, xconv_error *err)
{
    *out = xconv_buffer_create(dev, tensor_bytes(p, count), err);
    return *out ? XCONV_OK : err->status;
}

// Allocates a buffer for count elements of p's dtype and copies the fp32 values host into it,
// converted (exactly: the case's inputs are rounded to the dtype already); returns XCONV_OK or
// the failure.
xconv_status measure_upload_tensor(xconv_device *dev, const xconv_problem *p, const float *host,
                                   int64_t count, xconv_buffer **out, xconv_error *err)
{
    if (p->dtype == XCONV_DTYPE_F32)
        return measure_upload(dev, host, count, out, err);
    size_t bytes = tensor_bytes(p, count);
    void *stored = measure_host_alloc(bytes / 4, 4, err);
    if (!stored)
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_dtype_from_f32(p->dtype, host, stored, (size_t)count);
    xconv_status st = measure_alloc_tensor(dev, p, count, out, err);
    if (st == XCONV_OK && (st = xconv_buffer_upload(*out, 0, bytes, stored, err)))
        xconv_buffer_destroy(*out), *out = NULL;
    free(stored);
    return st;
}

// Reads count elements of p's dtype from buf into host as fp32 values; returns XCONV_OK or the
// failure.
xconv_status measure_download_tensor(xconv_buffer *buf, const xconv_problem *p, int64_t count,
                                     float *host, xconv_error *err)
{
    if (p->dtype == XCONV_DTYPE_F32)
        return xconv_buffer_download(buf, 0, (size_t)count * sizeof(float), host, err);
    size_t bytes = tensor_bytes(p, count);
    void *stored = measure_host_alloc(bytes / 4, 4, err);
    if (!stored)
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_status st = xconv_buffer_download(buf, 0, bytes, stored, err);
    if (st == XCONV_OK)
        xconv_dtype_to_f32(p->dtype, stored, host, (size_t)count);
    free(stored);
    return st;
}

// Fills the buffer of count elements of p's dtype with NaN: fp32's quiet NaN, else all ones
// (a NaN in fp16 and bf16 alike).
xconv_status measure_poison_tensor(xconv_buffer *buf, const xconv_problem *p, int64_t count,
                                   xconv_error *err)
{
    float value = NAN;
    if (p->dtype != XCONV_DTYPE_F32) {
        uint32_t ones = 0xffffffffu;
        memcpy(&value, &ones, sizeof value);
    }
    return xconv_buffer_fill_f32(buf, tensor_bytes(p, count) / 4, value, err);
}

// ---------------------------------------------------------------------------------------------
// Creating a case

// (Re)uploads the case's inputs: at creation, and after the device's context was rebuilt at a
// fault (which lost every buffer). Returns XCONV_OK or the failure.
xconv_status measure_upload_inputs(xconv_case *c, xconv_error *err)
{
    measure_rotation_destroy(&c->rot);
    xconv_buffer_destroy(c->dx);
    xconv_buffer_destroy(c->dw);
    xconv_buffer_destroy(c->dy);
    xconv_buffer_destroy(c->dbias);
    c->dx = c->dw = c->dy = c->dbias = NULL;
    unsigned resets = xconv_device_resets(c->dev);
    xconv_status st = measure_upload_tensor(c->dev, &c->p, c->x, c->x_n, &c->dx, err);
    if (st == XCONV_OK)
        st = measure_upload_tensor(c->dev, &c->p, c->w, c->w_n, &c->dw, err);
    if (st == XCONV_OK && c->bias)
        st = measure_upload(c->dev, c->bias, c->p.k, &c->dbias, err);
    if (st == XCONV_OK)
        c->resets = resets;  // else the next run tries again
    return st;
}

// Returns XCONV_OK when the host's physical memory holds what a case of p keeps there: x, w and
// y in float32 (y twice when timed) and the reference (float64 values and scales on the host,
// else float32 ones from the device and |x|, |w| for a while), else XCONV_ERR_OUT_OF_MEMORY
// with the numbers.
static xconv_status check_host_memory(const xconv_problem *p, bool host_reference, bool timed,
                                      xconv_error *err)
{
    double x = (double)xconv_problem_x_elems(p), w = (double)xconv_problem_w_elems(p);
    double y = (double)xconv_problem_y_elems(p);
    // An epilogue's reference keeps the convolution's output and its scale too.
    double conv = xconv_problem_has_epilogue(p) ? (double)xconv_problem_conv_elems(p) : 0.0;
    double bytes = 4.0 * (x + w + y) +
                   (host_reference ? 16.0 * (y + conv) : 8.0 * (y + conv) + 4.0 * (x + w)) +
                   (timed ? 4.0 * y : 0.0);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    if (have == 0 || bytes <= have)
        return XCONV_OK;
    return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                           "the case needs %.1f GiB of host memory (x, w, y and the reference); "
                           "the host has %.1f GiB",
                           bytes / 1073741824.0, have / 1073741824.0);
}

xconv_case *xconv_case_create(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                              const xconv_case_options *opts, xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, opts))
        return NULL;
    if (opts->repeat < 0 || opts->warmup < 0 || opts->samples < 0 ||
        opts->pitfall < XCONV_PITFALL_NONE || opts->pitfall > XCONV_PITFALL_MEAN) {
        xconv_error_set(err, XCONV_ERR_INVALID,
                        "xconv_case_create: opts has repeat %d, warmup %d, samples %d, pitfall "
                        "%d (counts must be >= 0, the pitfall an xconv_pitfall)",
                        opts->repeat, opts->warmup, opts->samples, opts->pitfall);
        return NULL;
    }
    if ((dev ? xconv_problem_check_device(p, xconv_device_get_info(dev), err)
             : xconv_problem_check(p, err)) != XCONV_OK)  // the first checks p too
        return NULL;
    bool host_reference = !dev || xconv_problem_flops(p) <= opts->host_ref_max_gflop * 1e9;
    if (check_host_memory(p, host_reference, opts->repeat > 0, err) != XCONV_OK)
        return NULL;
    xconv_case *c = calloc(1, sizeof *c);
    if (!c) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory");
        return NULL;
    }
    c->dev = dev;
    c->p = *p;
    c->opts = *opts;
    snprintf(c->shape_name, sizeof c->shape_name, "%s", shape_name ? shape_name : "");
    xconv_shape_format(p, c->spec, sizeof c->spec);
    if (dev)
        xconv_device_libraries(dev, c->libraries, sizeof c->libraries);
    c->x_n = xconv_problem_x_elems(p);
    c->w_n = xconv_problem_w_elems(p);
    c->y_n = xconv_problem_y_elems(p);
    c->conv_n = xconv_problem_conv_elems(p);
    c->x = measure_host_alloc((size_t)c->x_n, sizeof(float), err);
    c->w = c->x ? measure_host_alloc((size_t)c->w_n, sizeof(float), err) : NULL;
    c->y = c->w ? measure_host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    if (c->y && p->epi.bias)
        c->bias = measure_host_alloc((size_t)p->k, sizeof(float), err);
    if (!c->y || (p->epi.bias && !c->bias)) {
        xconv_case_destroy(c);
        return NULL;
    }
    xconv_random_fill(c->x, (size_t)c->x_n, opts->seed, 1);
    xconv_random_fill(c->w, (size_t)c->w_n, opts->seed, 2);
    // The inputs as stored: the reference then computes over exactly what the kernels read.
    xconv_dtype_round(p->dtype, c->x, (size_t)c->x_n);
    xconv_dtype_round(p->dtype, c->w, (size_t)c->w_n);
    if (c->bias)
        xconv_random_fill(c->bias, (size_t)p->k, opts->seed, 3);
    if (dev && measure_upload_inputs(c, err) != XCONV_OK) {
        xconv_case_destroy(c);
        return NULL;
    }
    return c;
}

xconv_status xconv_case_set_bias(xconv_case *c, const float *bias, xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, c) || XCONV_NULL_ARG(err, bias))
        return XCONV_ERR_INVALID;
    if (!c->bias)
        return xconv_error_set(err, XCONV_ERR_INVALID, "the case's problem adds no bias");
    memcpy(c->bias, bias, (size_t)c->p.k * sizeof(float));
    c->ref_ready = false;
    if (c->dbias)
        return xconv_buffer_upload(c->dbias, 0, (size_t)c->p.k * sizeof(float), bias, err);
    return XCONV_OK;
}

// Frees the case's reference arrays (it is computed again on the next run).
void measure_free_reference(xconv_case *c)
{
    free(c->ref64);
    free(c->norm64);
    free(c->ref32);
    free(c->norm32);
    free(c->conv64);
    free(c->convnorm64);
    free(c->conv32);
    free(c->convnorm32);
    c->ref64 = c->norm64 = c->conv64 = c->convnorm64 = NULL;
    c->ref32 = c->norm32 = c->conv32 = c->convnorm32 = NULL;
}

void xconv_case_destroy(xconv_case *c)
{
    if (!c)
        return;
    measure_rotation_destroy(&c->rot);
    xconv_buffer_destroy(c->dx);
    xconv_buffer_destroy(c->dw);
    xconv_buffer_destroy(c->dbias);
    xconv_buffer_destroy(c->dy);
    free(c->x);
    free(c->w);
    free(c->y);
    free(c->y_timed);
    free(c->bias);
    measure_free_reference(c);
    free(c->samples);
    free(c);
}

// ---------------------------------------------------------------------------------------------
// Running a device variant once

// Runs the plan once on NaN-poisoned y (dy, or a buffer of its own when dy is NULL) with a
// workspace of its own, and reads y back into y_host.
xconv_status measure_run_device_variant(xconv_device *dev, xconv_plan *plan, const xconv_problem *p,
                                        xconv_buffer *dx, xconv_buffer *dw, xconv_buffer *dbias,
                                        xconv_buffer *dy, float *y_host, xconv_error *err)
{
    size_t y_n = (size_t)xconv_problem_y_elems(p), ws = xconv_plan_workspace_size(plan);
    xconv_tensors t = { .x = dx, .w = dw, .y = dy, .bias = dbias };
    xconv_buffer *own_y = NULL;
    xconv_status st = dy ? XCONV_OK : measure_alloc_tensor(dev, p, (int64_t)y_n, &own_y, err);
    if (!dy)
        t.y = own_y;
    if (st == XCONV_OK && ws && !(t.workspace = xconv_buffer_create(dev, ws, err)))
        st = err->status;
    if (st == XCONV_OK)
        st = measure_poison_tensor(t.y, p, (int64_t)y_n, err);
    if (st == XCONV_OK)
        st = xconv_plan_run(plan, &t, err);
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, err);
    if (st == XCONV_OK)
        st = measure_download_tensor(t.y, p, (int64_t)y_n, y_host, err);
    xconv_buffer_destroy(t.workspace);
    xconv_buffer_destroy(own_y);
    return st;
}

// Makes the case's device output on first use (kept for every run: allocating and freeing a
// large buffer per variant costs more host time than the check). Returns XCONV_OK or why not.
xconv_status measure_ensure_output(xconv_case *c, xconv_error *err)
{
    return c->dy ? XCONV_OK : measure_alloc_tensor(c->dev, &c->p, c->y_n, &c->dy, err);
}
