// SPDX-License-Identifier: MIT
// The harness: inputs, the reference, and running a variant with poisoning, checking and timing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "reference.h"
#include "thresholds.h"

#define MAX_ROTATION_SETS 8

// The sets of buffers timed runs rotate over (set 0: the case's own inputs and output).
typedef struct rotation {
    xconv_tensors sets[MAX_ROTATION_SETS];
    int count;                   // 0 until the case is first timed
} rotation;

struct xconv_case {
    xconv_device *dev;
    xconv_problem p;
    char shape_name[XCONV_SHAPE_NAME_MAX];
    char spec[256];
    char libraries[256];         // what the device runs on (xconv_device_libraries)
    xconv_harness_opts opts;
    int64_t x_n, w_n, y_n, conv_n;
    float *x, *w, *y;            // host inputs, and the output read back
    float *bias;                 // K floats when the problem adds a bias, else NULL
    float *y_timed;              // the last timed run's output (made when first timing)
    xconv_buffer *dx, *dw, *dbias;  // device inputs (dbias: with a bias)
    xconv_buffer *dy;            // device output, made on the first run and kept
    rotation rot;                // timed runs' sets of buffers, made when first timing
    unsigned resets;             // the device's context rebuilds when the inputs were uploaded
    bool ref_ready;
    char ref_name[48];
    double *ref64, *norm64;      // full float64 host reference (small problems)
    float *ref32, *norm32;       // device reference path and its scale (large problems)
    // The convolution before a pooling epilogue and its scale (conv_n each), for checking
    // variants that compute blocks of outputs together: their blocks are the convolution's.
    double *conv64, *convnorm64;
    float *conv32, *convnorm32;
    int64_t *samples;            // indices recomputed in float64 (large problems)
    int nsamples;
    unsigned last_fused;         // XCONV_FUSED_* parts the last run's plan fused
};

void xconv_harness_opts_default(xconv_harness_opts *opts)
{
    *opts = (xconv_harness_opts){.seed = 1, .repeat = 0, .warmup = 2, .samples = 1000,
                                 .host_ref_max_gflop = 1.0, .host_threads = 0};
    xconv_plan_options_default(&opts->plan);
}

// The epilogue parts a host variant applies: all of the problem's (it computes the whole
// operation).
static unsigned xconv_epilogue_parts_host(const xconv_problem *p)
{
    return (p->epi.bias || p->epi.act ? XCONV_FUSED_BIAS_ACT : 0u) |
           (p->epi.pool_h ? XCONV_FUSED_POOL : 0u);
}

// Returns the host's monotonic clock in milliseconds (for wall times).
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// ---------------------------------------------------------------------------------------------
// Device memory helpers

// Allocates a buffer for count floats into *out; returns XCONV_OK or the failure.
static xconv_status alloc(xconv_device *dev, int64_t count, xconv_buffer **out, xconv_error *err)
{
    *out = xconv_buffer_create(dev, (size_t)count * sizeof(float), err);
    return *out ? XCONV_OK : err->status;
}

// Allocates a buffer for count floats and copies host into it; returns XCONV_OK or the failure.
static xconv_status upload(xconv_device *dev, const float *host, int64_t count,
                           xconv_buffer **out, xconv_error *err)
{
    xconv_status st = alloc(dev, count, out, err);
    if (st == XCONV_OK &&
        (st = xconv_buffer_upload(*out, 0, (size_t)count * sizeof(float), host, err)))
        xconv_buffer_destroy(*out), *out = NULL;
    return st;
}

static void *host_alloc(size_t count, size_t size, xconv_error *err)
{
    void *ptr = calloc(count ? count : 1, size);
    if (!ptr)
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for %zu bytes",
                        count * size);
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
static xconv_status alloc_tensor(xconv_device *dev, const xconv_problem *p, int64_t count,
                                 xconv_buffer **out, xconv_error *err)
{
    *out = xconv_buffer_create(dev, tensor_bytes(p, count), err);
    return *out ? XCONV_OK : err->status;
}

// Allocates a buffer for count elements of p's dtype and copies the fp32 values host into it,
// converted (exactly: the case's inputs are rounded to the dtype already); returns XCONV_OK or
// the failure.
static xconv_status upload_tensor(xconv_device *dev, const xconv_problem *p, const float *host,
                                  int64_t count, xconv_buffer **out, xconv_error *err)
{
    if (p->dtype == XCONV_DTYPE_F32)
        return upload(dev, host, count, out, err);
    size_t bytes = tensor_bytes(p, count);
    void *stored = host_alloc(bytes / 4, 4, err);
    if (!stored)
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_dtype_from_f32(p->dtype, host, stored, (size_t)count);
    xconv_status st = alloc_tensor(dev, p, count, out, err);
    if (st == XCONV_OK && (st = xconv_buffer_upload(*out, 0, bytes, stored, err)))
        xconv_buffer_destroy(*out), *out = NULL;
    free(stored);
    return st;
}

// Reads count elements of p's dtype from buf into host as fp32 values; returns XCONV_OK or the
// failure.
static xconv_status download_tensor(xconv_buffer *buf, const xconv_problem *p, int64_t count,
                                    float *host, xconv_error *err)
{
    if (p->dtype == XCONV_DTYPE_F32)
        return xconv_buffer_download(buf, 0, (size_t)count * sizeof(float), host, err);
    size_t bytes = tensor_bytes(p, count);
    void *stored = host_alloc(bytes / 4, 4, err);
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
static xconv_status poison_tensor(xconv_buffer *buf, const xconv_problem *p, int64_t count,
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
static void rotation_destroy(rotation *rot);

static xconv_status upload_inputs(xconv_case *c, xconv_error *err)
{
    rotation_destroy(&c->rot);
    xconv_buffer_destroy(c->dx);
    xconv_buffer_destroy(c->dw);
    xconv_buffer_destroy(c->dy);
    xconv_buffer_destroy(c->dbias);
    c->dx = c->dw = c->dy = c->dbias = NULL;
    unsigned resets = xconv_device_resets(c->dev);
    xconv_status st = upload_tensor(c->dev, &c->p, c->x, c->x_n, &c->dx, err);
    if (st == XCONV_OK)
        st = upload_tensor(c->dev, &c->p, c->w, c->w_n, &c->dw, err);
    if (st == XCONV_OK && c->bias)
        st = upload(c->dev, c->bias, c->p.k, &c->dbias, err);
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
                           "the host has %.1f GiB", bytes / 1073741824.0, have / 1073741824.0);
}

xconv_case *xconv_case_create(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                              const xconv_harness_opts *opts, xconv_error *err)
{
    if (xconv_problem_check(p, err) != XCONV_OK)
        return NULL;
    if (dev && xconv_problem_check_device(p, xconv_device_get_info(dev), err) != XCONV_OK)
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
    c->x = host_alloc((size_t)c->x_n, sizeof(float), err);
    c->w = c->x ? host_alloc((size_t)c->w_n, sizeof(float), err) : NULL;
    c->y = c->w ? host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    if (c->y && p->epi.bias)
        c->bias = host_alloc((size_t)p->k, sizeof(float), err);
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
    if (dev && upload_inputs(c, err) != XCONV_OK) {
        xconv_case_destroy(c);
        return NULL;
    }
    return c;
}

xconv_status xconv_case_set_bias(xconv_case *c, const float *bias, xconv_error *err)
{
    if (!c->bias)
        return xconv_error_set(err, XCONV_ERR_INVALID, "the case's problem adds no bias");
    memcpy(c->bias, bias, (size_t)c->p.k * sizeof(float));
    c->ref_ready = false;
    if (c->dbias)
        return xconv_buffer_upload(c->dbias, 0, (size_t)c->p.k * sizeof(float), bias, err);
    return XCONV_OK;
}

// Frees the case's reference arrays (it is computed again on the next run).
static void free_reference(xconv_case *c)
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
    rotation_destroy(&c->rot);
    xconv_buffer_destroy(c->dx);
    xconv_buffer_destroy(c->dw);
    xconv_buffer_destroy(c->dbias);
    xconv_buffer_destroy(c->dy);
    free(c->x);
    free(c->w);
    free(c->y);
    free(c->y_timed);
    free(c->bias);
    free_reference(c);
    free(c->samples);
    free(c);
}

// ---------------------------------------------------------------------------------------------
// Running a device variant once

// Runs the plan once on NaN-poisoned y (dy, or a buffer of its own when dy is NULL) with a
// workspace of its own, and reads y back into y_host.
static xconv_status run_device_variant(xconv_device *dev, xconv_plan *plan,
                                       const xconv_problem *p, xconv_buffer *dx,
                                       xconv_buffer *dw, xconv_buffer *dbias, xconv_buffer *dy,
                                       float *y_host, xconv_error *err)
{
    size_t y_n = (size_t)xconv_problem_y_elems(p), ws = xconv_plan_workspace_size(plan);
    xconv_tensors t = {.x = dx, .w = dw, .y = dy, .bias = dbias};
    xconv_buffer *own_y = NULL;
    xconv_status st = dy ? XCONV_OK : alloc_tensor(dev, p, (int64_t)y_n, &own_y, err);
    if (!dy)
        t.y = own_y;
    if (st == XCONV_OK && ws && !(t.workspace = xconv_buffer_create(dev, ws, err)))
        st = err->status;
    if (st == XCONV_OK)
        st = poison_tensor(t.y, p, (int64_t)y_n, err);
    if (st == XCONV_OK)
        st = xconv_plan_run(plan, &t, err);
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, err);
    if (st == XCONV_OK)
        st = download_tensor(t.y, p, (int64_t)y_n, y_host, err);
    xconv_buffer_destroy(t.workspace);
    xconv_buffer_destroy(own_y);
    return st;
}

// Makes the case's device output on first use (kept for every run: allocating and freeing a
// large buffer per variant costs more host time than the check). Returns XCONV_OK or why not.
static xconv_status ensure_output(xconv_case *c, xconv_error *err)
{
    return c->dy ? XCONV_OK : alloc_tensor(c->dev, &c->p, c->y_n, &c->dy, err);
}

// ---------------------------------------------------------------------------------------------
// The reference

// The device reference path for a backend.
static const char *device_reference_name(const xconv_device *dev)
{
    return xconv_device_get_info(dev)->backend == XCONV_BACKEND_CUDA ? "cublas_gemm"
                                                                     : "clblast_gemm";
}

// Full float64 host reference.
static xconv_status make_host_reference(xconv_case *c, xconv_error *err)
{
    c->ref64 = host_alloc((size_t)c->y_n, sizeof(double), err);
    c->norm64 = c->ref64 ? host_alloc((size_t)c->y_n, sizeof(double), err) : NULL;
    if (!c->norm64)
        return XCONV_ERR_OUT_OF_MEMORY;
    snprintf(c->ref_name, sizeof c->ref_name, "cpu_ref");
    return xconv_reference_forward(&c->p, c->x, c->w, c->bias, c->ref64, c->norm64,
                                   c->opts.host_threads, err);
}

// The float64 convolution before the epilogue pools, and its scale, for blocked checks.
static xconv_status make_host_conv(xconv_case *c, xconv_error *err)
{
    if (c->conv64)
        return XCONV_OK;
    c->conv64 = host_alloc((size_t)c->conv_n, sizeof(double), err);
    c->convnorm64 = c->conv64 ? host_alloc((size_t)c->conv_n, sizeof(double), err) : NULL;
    if (!c->convnorm64)
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_problem conv = xconv_problem_conv_only(&c->p);
    return xconv_reference_conv(&conv, c->x, c->w, c->conv64, c->convnorm64,
                                c->opts.host_threads, err);
}

// The device reference path on (x, w), its scale from a run on (|x|, |w|), and float64 samples
// that both the reference and every variant are checked against. With an epilogue the path
// computes the convolution alone (kept in conv32 and convnorm32) and the epilogue is applied on
// the host (xconv_reference_epilogue_f32). With fp16 or bf16 storage the path runs in fp32 over
// the inputs as rounded to it (uploaded again as fp32).
static xconv_status make_device_reference(xconv_case *c, xconv_error *err)
{
    xconv_device *dev = c->dev;
    const char *ref = device_reference_name(dev);
    bool epi = xconv_problem_has_epilogue(&c->p);
    xconv_problem conv = xconv_problem_conv_only(&c->p);
    bool stored = c->p.dtype != XCONV_DTYPE_F32;  // the case's buffers are not fp32
    conv.dtype = XCONV_DTYPE_F32;
    conv.math = XCONV_MATH_F32;
    c->ref32 = host_alloc((size_t)c->y_n, sizeof(float), err);
    c->norm32 = c->ref32 ? host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    if (c->norm32 && epi) {
        c->conv32 = host_alloc((size_t)c->conv_n, sizeof(float), err);
        c->convnorm32 = c->conv32 ? host_alloc((size_t)c->conv_n, sizeof(float), err) : NULL;
        if (!c->convnorm32)
            return XCONV_ERR_OUT_OF_MEMORY;
    }
    float *out = epi ? c->conv32 : c->ref32, *out_norm = epi ? c->convnorm32 : c->norm32;
    c->samples = c->norm32 ? host_alloc((size_t)c->opts.samples, sizeof(int64_t), err) : NULL;
    float *abs_x = c->samples ? host_alloc((size_t)c->x_n, sizeof(float), err) : NULL;
    float *abs_w = abs_x ? host_alloc((size_t)c->w_n, sizeof(float), err) : NULL;
    if (!abs_w) {
        free(abs_x);
        return XCONV_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < c->x_n; i++)
        abs_x[i] = fabsf(c->x[i]);
    for (int64_t i = 0; i < c->w_n; i++)
        abs_w[i] = fabsf(c->w[i]);
    xconv_buffer *dax = NULL, *daw = NULL, *dx32 = NULL, *dw32 = NULL;
    xconv_plan_options ref_opts = c->opts.plan;
    ref_opts.test_fault = XCONV_TEST_FAULT_NONE;  // a test's fault is for the variant's run
    xconv_plan *plan = xconv_plan_create(dev, &conv, ref, &ref_opts, err);
    xconv_status st = plan ? XCONV_OK : err->status;
    if (st == XCONV_OK)
        st = ensure_output(c, err);
    // With an epilogue the reference's convolution output is larger than y: a buffer of its own.
    xconv_buffer *dy = epi || stored ? NULL : c->dy;
    if (st == XCONV_OK && stored && (st = upload(dev, c->x, c->x_n, &dx32, err)) == XCONV_OK)
        st = upload(dev, c->w, c->w_n, &dw32, err);
    if (st == XCONV_OK)
        st = run_device_variant(dev, plan, &conv, stored ? dx32 : c->dx, stored ? dw32 : c->dw,
                                NULL, dy, out, err);
    if (st == XCONV_OK && (st = upload(dev, abs_x, c->x_n, &dax, err)) == XCONV_OK &&
        (st = upload(dev, abs_w, c->w_n, &daw, err)) == XCONV_OK)
        st = run_device_variant(dev, plan, &conv, dax, daw, NULL, dy, out_norm, err);
    xconv_plan_destroy(plan);
    xconv_buffer_destroy(dax);
    xconv_buffer_destroy(daw);
    xconv_buffer_destroy(dx32);
    xconv_buffer_destroy(dw32);
    free(abs_x);
    free(abs_w);
    if (st == XCONV_OK && epi)
        st = xconv_reference_epilogue_f32(&c->p, c->conv32, c->convnorm32, c->bias, c->ref32,
                                          c->norm32, err);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "reference %s", ref);
    c->nsamples = c->opts.samples;
    xconv_sample_indices(&c->p, c->samples, c->nsamples, c->opts.seed);
    xconv_compare_result check = {0};
    xconv_compare_sampled(&c->p, c->x, c->w, c->bias, c->ref32, c->samples, c->nsamples,
                          &check);
    double limit = xconv_threshold_for_family("reference");
    if (check.nonfinite || !(check.max_norm_err <= limit))
        return xconv_error_set(err, XCONV_ERR_DEVICE,
                               "reference %s disagrees with float64 at sampled elements "
                               "(max error %.3g, %lld non-finite)",
                               ref, check.max_norm_err, (long long)check.nonfinite);
    snprintf(c->ref_name, sizeof c->ref_name, "%s+%d samples", ref, c->nsamples);
    return XCONV_OK;
}

static xconv_status ensure_reference(xconv_case *c, xconv_error *err)
{
    if (c->ref_ready)
        return XCONV_OK;
    free_reference(c);
    bool small = xconv_problem_flops(&c->p) <= c->opts.host_ref_max_gflop * 1e9;
    xconv_status st = (small || !c->dev) ? make_host_reference(c, err)
                                         : make_device_reference(c, err);
    c->ref_ready = st == XCONV_OK;
    return st;
}

// Compares c->y with the reference.
static void compare_output(const xconv_case *c, xconv_compare_result *res)
{
    memset(res, 0, sizeof *res);
    if (c->ref64) {
        xconv_compare_full(c->y, c->ref64, c->norm64, c->y_n, res);
        return;
    }
    xconv_compare_full_f32(c->y, c->ref32, c->norm32, c->y_n, res);
    xconv_compare_sampled(&c->p, c->x, c->w, c->bias, c->y, c->samples, c->nsamples, res);
}

// Compares c->y with the reference, each element's error divided by the largest scale in its
// block of block_h x block_w outputs (xconv_plan_error_block). Returns XCONV_ERR_OUT_OF_MEMORY
// when the block scales cannot be held, else XCONV_OK with *res filled.
// With a pool the blocks are the convolution's: its scales are taken over the blocks, then
// pooled as the epilogue pools them (xconv_reference_epilogue). Without one, y is laid out as the
// convolution's output and the bias adds the same |bias[k]| to every scale of a block.
static xconv_status compare_output_blocked(xconv_case *c, int64_t block_h, int64_t block_w,
                                           xconv_compare_result *res, xconv_error *err)
{
    memset(res, 0, sizeof *res);
    xconv_problem conv = xconv_problem_conv_only(&c->p);
    bool pools = c->p.epi.pool_h != 0;
    xconv_status st = XCONV_OK;
    if (c->ref64) {
        double *blocked = host_alloc((size_t)c->conv_n, sizeof(double), err);
        double *scale = blocked ? host_alloc((size_t)c->y_n, sizeof(double), err) : NULL;
        double *y_ref = scale && pools ? host_alloc((size_t)c->y_n, sizeof(double), err) : NULL;
        if (!scale || (pools && !y_ref))
            st = XCONV_ERR_OUT_OF_MEMORY;
        if (st == XCONV_OK && pools && (st = make_host_conv(c, err)) == XCONV_OK) {
            xconv_block_scale_f64(&conv, block_h, block_w, c->convnorm64, blocked);
            st = xconv_reference_epilogue(&c->p, c->conv64, blocked, c->bias, y_ref, scale, err);
        } else if (st == XCONV_OK) {
            xconv_block_scale_f64(&conv, block_h, block_w, c->norm64, scale);
        }
        if (st == XCONV_OK)
            xconv_compare_full(c->y, c->ref64, scale, c->y_n, res);
        free(blocked);
        free(scale);
        free(y_ref);
        return st;
    }
    float *blocked = host_alloc((size_t)c->conv_n, sizeof(float), err);
    float *scale = blocked ? host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    float *y_ref = scale && pools ? host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    if (!scale || (pools && !y_ref))
        st = XCONV_ERR_OUT_OF_MEMORY;
    if (st == XCONV_OK && pools) {
        xconv_block_scale_f32(&conv, block_h, block_w, c->convnorm32, blocked);
        st = xconv_reference_epilogue_f32(&c->p, c->conv32, blocked, c->bias, y_ref, scale,
                                          err);
    } else if (st == XCONV_OK) {
        xconv_block_scale_f32(&conv, block_h, block_w, c->norm32, scale);
    }
    if (st == XCONV_OK) {
        xconv_compare_full_f32(c->y, c->ref32, scale, c->y_n, res);
        xconv_compare_sampled_scaled(&c->p, c->x, c->w, c->bias, c->y, c->samples, c->nsamples,
                                     scale, res);
    }
    free(blocked);
    free(scale);
    free(y_ref);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Timing

// Makes the case's sets on first use: set 0 is the case's inputs and output; when x + w + y fit
// twice in the last-level cache, more sets of copies follow so that consecutive runs read
// inputs that are not cached. They are kept for every variant timed. Returns XCONV_OK or why
// not (with no sets made).
static xconv_status rotation_ensure(xconv_case *c, xconv_error *err)
{
    rotation *rot = &c->rot;
    if (rot->count)
        return XCONV_OK;
    xconv_device *dev = c->dev;
    double ws = xconv_problem_min_bytes(&c->p);
    double cache = (double)xconv_device_get_info(dev)->cache_bytes;
    int count = 1;
    if (cache > 0 && ws < 2.0 * cache)
        count = (int)ceil(2.0 * cache / ws) + 1;
    if (count > MAX_ROTATION_SETS)
        count = MAX_ROTATION_SETS;
    xconv_status st = ensure_output(c, err);
    if (st == XCONV_OK)
        rot->sets[rot->count++] =
            (xconv_tensors){.x = c->dx, .w = c->dw, .y = c->dy, .bias = c->dbias};
    while (st == XCONV_OK && rot->count < count) {
        xconv_tensors *t = &rot->sets[rot->count++];
        t->bias = c->dbias;  // K floats: shared by the sets
        st = upload_tensor(dev, &c->p, c->x, c->x_n, &t->x, err);
        if (st == XCONV_OK)
            st = upload_tensor(dev, &c->p, c->w, c->w_n, &t->w, err);
        if (st == XCONV_OK)
            st = alloc_tensor(dev, &c->p, c->y_n, &t->y, err);
    }
    // Every output is written once now (set 0's with NaN, for the final check): a device that
    // commits memory on first touch (PoCL) would otherwise charge that to the first timed runs
    // of each set, more of them than the warm-up runs reach.
    for (int i = 0; st == XCONV_OK && i < rot->count; i++)
        st = poison_tensor(rot->sets[i].y, &c->p, c->y_n, err);
    if (st != XCONV_OK)
        rotation_destroy(rot);  // the next timing tries again
    return st;
}

// Frees the sets' buffers but set 0's (the case's own) and empties rot.
static void rotation_destroy(rotation *rot)
{
    for (int i = 1; i < rot->count; i++) {
        xconv_buffer_destroy(rot->sets[i].x);
        xconv_buffer_destroy(rot->sets[i].w);
        xconv_buffer_destroy(rot->sets[i].y);
    }
    memset(rot, 0, sizeof *rot);
}

// What the measuring primitive's enqueue callback needs: the case, the plan and the sets.
typedef struct timed_runs {
    xconv_case *c;
    xconv_plan *plan;
    const rotation *rot;
} timed_runs;

// Enqueues run `run` (warm-up runs first, then the timed ones) on the set it rotates to: the
// timed runs start at set 1 and the last one writes set 0, whose y was poisoned, for the final
// check.
static xconv_status enqueue_run(void *user, int run, xconv_error *err)
{
    const timed_runs *r = user;
    int warmup = r->c->opts.warmup, count = r->rot->count, set = run % count;
    if (run >= warmup)
        set = run - warmup == r->c->opts.repeat - 1 ? 0 : (run - warmup + 1) % count;
    return xconv_plan_run(r->plan, &r->rot->sets[set], err);
}

// ---------------------------------------------------------------------------------------------
// Pitfalls: wrong ways of timing, reproduced on purpose (bench --pitfall)

static const char *const pitfall_names[] = {"none", "first-run", "no-sync", "host-sync", "mean"};

int xconv_pitfall_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof pitfall_names / sizeof pitfall_names[0]); i++)
        if (strcmp(name, pitfall_names[i]) == 0)
            return i;
    return -1;
}

// Orders doubles ascending for qsort.
static int cmp_ms(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double xconv_times_median(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_ms);
    return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

// Times runs with the host clock as pitfall `which` says (no-sync: around each enqueue alone;
// host-sync: around each enqueue and a wait) into ms[0..repeat-1]; returns a status.
static xconv_status host_clock_runs(timed_runs *runs, int which, double *ms, xconv_error *err)
{
    xconv_case *c = runs->c;
    xconv_status st = XCONV_OK;
    for (int i = 0; st == XCONV_OK && i < c->opts.warmup; i++)
        st = enqueue_run(runs, i, err);
    if (st == XCONV_OK)
        st = xconv_device_wait(c->dev, err);
    for (int i = 0; st == XCONV_OK && i < c->opts.repeat; i++) {
        double t0 = now_ms();
        st = enqueue_run(runs, c->opts.warmup + i, err);
        if (st == XCONV_OK && which == XCONV_PITFALL_HOST_SYNC)
            st = xconv_device_wait(c->dev, err);
        ms[i] = now_ms() - t0;
    }
    return st == XCONV_OK ? xconv_device_wait(c->dev, err) : st;
}

// Times runs as pitfall c->opts.pitfall says and fills *out (its median_ms holds the mean for
// the mean pitfall); returns a status.
static xconv_status time_pitfall(timed_runs *runs, xconv_timing *out, xconv_error *err)
{
    xconv_case *c = runs->c;
    int n = c->opts.repeat, which = c->opts.pitfall;
    double *ms = malloc((size_t)n * sizeof *ms);
    if (!ms)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "pitfall: no host memory");
    xconv_status st;
    if (which == XCONV_PITFALL_MEAN)
        st = xconv_device_measure(c->dev, enqueue_run, runs, c->opts.warmup, n, out, ms, err);
    else
        st = host_clock_runs(runs, which, ms, err);
    if (st == XCONV_OK) {
        double median = xconv_times_median(ms, n), sum = 0;  // ms now sorted
        for (int i = 0; i < n; i++)
            sum += ms[i];
        out->min_ms = ms[0];
        out->max_ms = ms[n - 1];
        out->median_ms = which == XCONV_PITFALL_MEAN ? sum / n : median;
    }
    free(ms);
    return st;
}

// Puts what pitfall c->opts.pitfall timed in front of rec's note.
static void note_pitfall(const xconv_case *c, xconv_record *rec)
{
    static const char *const what[] = {
        "", "host clock around planning, building and the first run (median = that one time)",
        "host clock around each enqueue, no wait", "host clock around each enqueue and a wait",
        "device events, median_ms holds the mean"};
    char plan[sizeof rec->note];
    snprintf(plan, sizeof plan, "%s", rec->note);
    snprintf(rec->note, sizeof rec->note, "PITFALL %s: %s; %.*s", pitfall_names[c->opts.pitfall],
             what[c->opts.pitfall], (int)(sizeof rec->note / 2), plan);
}

// Warm-up runs, then opts.repeat timed runs of plan rotating the sets; the last output of set 0
// is read into c->y_timed for a second check, and *same is set when its bits are those of the
// checked output in c->y (else it is copied there). Fills the timing fields of rec.
static xconv_status time_variant(xconv_case *c, xconv_plan *plan, xconv_record *rec,
                                 bool *same, xconv_error *err)
{
    *same = false;
    if (!c->y_timed && !(c->y_timed = host_alloc((size_t)c->y_n, sizeof(float), err)))
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_status st = rotation_ensure(c, err);
    xconv_buffer *workspace = NULL;  // the plan's own, shared by the sets
    size_t workspace_bytes = xconv_plan_workspace_size(plan);
    if (st == XCONV_OK && workspace_bytes &&
        !(workspace = xconv_buffer_create(c->dev, workspace_bytes, err)))
        st = err->status;
    for (int i = 0; st == XCONV_OK && i < c->rot.count; i++)
        c->rot.sets[i].workspace = workspace;
    if (st == XCONV_OK)
        st = poison_tensor(c->dy, &c->p, c->y_n, err);
    timed_runs runs = {.c = c, .plan = plan, .rot = &c->rot};
    xconv_timing timing;
    bool pitfall = c->opts.pitfall == XCONV_PITFALL_NO_SYNC ||
                   c->opts.pitfall == XCONV_PITFALL_HOST_SYNC ||
                   c->opts.pitfall == XCONV_PITFALL_MEAN;
    if (st == XCONV_OK && pitfall)
        st = time_pitfall(&runs, &timing, err);
    else if (st == XCONV_OK)
        st = xconv_device_measure(c->dev, enqueue_run, &runs, c->opts.warmup, c->opts.repeat,
                                  &timing, NULL, err);
    if (st == XCONV_OK) {
        rec->median_ms = timing.median_ms;
        rec->min_ms = timing.min_ms;
        rec->max_ms = timing.max_ms;
        rec->repeat = c->opts.repeat;
        double seconds = rec->median_ms * 1e-3;
        rec->gflops = seconds > 0 ? xconv_problem_flops(&c->p) / seconds * 1e-9 : NAN;
        rec->gbps = seconds > 0 ? xconv_problem_min_bytes(&c->p) / seconds * 1e-9 : NAN;
        size_t bytes = (size_t)c->y_n * sizeof(float);
        st = download_tensor(c->dy, &c->p, c->y_n, c->y_timed, err);
        // Bits equal to the checked output need no second comparison (it would find the same).
        *same = st == XCONV_OK && memcmp(c->y_timed, c->y, bytes) == 0;
        if (st == XCONV_OK && !*same)
            memcpy(c->y, c->y_timed, bytes);
    }
    for (int i = 0; i < c->rot.count; i++)
        c->rot.sets[i].workspace = NULL;
    xconv_buffer_destroy(workspace);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Running a variant against the case

static void record_init(const xconv_case *c, const xconv_variant_info *v, xconv_record *rec)
{
    xconv_record_clear(rec);
    if (c->dev) {
        const xconv_device_info *info = xconv_device_get_info(c->dev);
        xconv_device_label(info, rec->device, sizeof rec->device);
        snprintf(rec->backend, sizeof rec->backend, "%s", xconv_backend_name(info->backend));
        snprintf(rec->driver, sizeof rec->driver, "%s", info->driver);
        snprintf(rec->libraries, sizeof rec->libraries, "%s", c->libraries);
    }
    if (v->backends == 0) {
        snprintf(rec->device, sizeof rec->device, "host");
        snprintf(rec->backend, sizeof rec->backend, "host");
        rec->driver[0] = rec->libraries[0] = '\0';
    }
    // An unfused plan of a problem with an epilogue is its own row: VARIANT+unfused.
    bool unfused = c->opts.plan.epilogue == XCONV_EPILOGUE_UNFUSED &&
                   xconv_problem_has_epilogue(&c->p);
    snprintf(rec->variant, sizeof rec->variant, "%s%s", v->name, unfused ? "+unfused" : "");
    snprintf(rec->family, sizeof rec->family, "%s", v->family);
    snprintf(rec->shape_name, sizeof rec->shape_name, "%s", c->shape_name);
    snprintf(rec->shape, sizeof rec->shape, "%s", c->spec);
    snprintf(rec->dtype, sizeof rec->dtype, "%s", xconv_dtype_name(c->p.dtype));
    snprintf(rec->math, sizeof rec->math, "%s", xconv_math_name(c->p.math));
    rec->seed = c->opts.seed;
    rec->threshold = xconv_threshold_for_variant(v) + xconv_threshold_storage(c->p.dtype) +
                     xconv_threshold_math(c->p.math);
}

static void record_outcome(xconv_record *rec, xconv_status st, const xconv_error *err)
{
    rec->outcome = st == XCONV_ERR_NOT_APPLICABLE ? XCONV_OUTCOME_NOT_APPLICABLE
                                                  : XCONV_OUTCOME_ERROR;
    snprintf(rec->note, sizeof rec->note, "%.*s", (int)sizeof rec->note - 1, err->msg);
}

// Checks c->y against the reference and folds the result into rec.
static void record_check(xconv_case *c, xconv_record *rec)
{
    xconv_compare_result res, elem;
    compare_output(c, &elem);
    if (isnan(rec->max_norm_err) || elem.max_norm_err > rec->max_norm_err)
        rec->max_norm_err = elem.max_norm_err;
    res = elem;
    xconv_error block_err = {0};
    if ((rec->error_block_h > 1 || rec->error_block_w > 1) &&
        compare_output_blocked(c, rec->error_block_h, rec->error_block_w, &res,
                               &block_err) != XCONV_OK)
        res = elem;  // without memory for the block scales, the stricter element check decides
    if (isnan(rec->max_block_err) || res.max_norm_err > rec->max_block_err) {
        rec->max_block_err = res.max_norm_err;
        rec->worst_index = res.worst_index;
    }
    bool pass = res.nonfinite == 0 && res.max_norm_err <= rec->threshold;
    if (pass && rec->outcome != XCONV_OUTCOME_FAIL) {
        rec->outcome = XCONV_OUTCOME_PASS;
        return;
    }
    rec->outcome = XCONV_OUTCOME_FAIL;
    char before[sizeof rec->note];  // what the run noted (a vendor's choice) goes after the error
    snprintf(before, sizeof before, "%s", rec->note);
    int64_t at[4];
    if (res.nonfinite) {
        xconv_index_split(&c->p, res.first_nonfinite, at);
        snprintf(rec->note, sizeof rec->note,
                 "%lld non-finite outputs (unwritten or NaN), first at n=%lld k=%lld p=%lld "
                 "q=%lld",
                 (long long)res.nonfinite, (long long)at[0], (long long)at[1], (long long)at[2],
                 (long long)at[3]);
    } else if (res.worst_index >= 0) {
        xconv_index_split(&c->p, res.worst_index, at);
        snprintf(rec->note, sizeof rec->note,
                 "error %.3g > %.1g at n=%lld k=%lld p=%lld q=%lld%s", res.max_norm_err,
                 rec->threshold, (long long)at[0], (long long)at[1], (long long)at[2],
                 (long long)at[3],
                 rec->error_block_h > 1 || rec->error_block_w > 1 ? " (over its output block)"
                                                                   : "");
    }
    if (before[0] && !strstr(rec->note, before)) {
        size_t used = strlen(rec->note);
        snprintf(rec->note + used, sizeof rec->note - used, "; %s", before);
    }
}

// Runs variant `variant` planned by name `plan_name` (its own, or "auto" resolved to it) as
// xconv_case_run describes.
static xconv_status case_run(xconv_case *c, const xconv_variant *variant, const char *plan_name,
                             xconv_record *rec, xconv_error *err)
{
    const xconv_variant_info *v = xconv_variant_get_info(variant);
    record_init(c, v, rec);
    c->last_fused = 0;
    // A device lost for good takes no more work: the record says why.
    xconv_error run_err = {0};  // the variant's own failure goes into the record, not to the caller
    if (v->backends && c->dev && xconv_device_lost(c->dev)) {
        record_outcome(rec, xconv_device_wait(c->dev, &run_err), &run_err);
        return XCONV_OK;
    }
    char reason[512] = "";
    if (v->backends && (!c->dev || !xconv_variant_applies(variant, c->dev, &c->p, reason,
                                                          sizeof reason))) {
        rec->outcome = XCONV_OUTCOME_NOT_APPLICABLE;
        snprintf(rec->note, sizeof rec->note, "%s", c->dev ? reason : "needs a device");
        return XCONV_OK;
    }
    if (!v->backends && xconv_problem_flops(&c->p) > c->opts.host_ref_max_gflop * 1e9) {
        rec->outcome = XCONV_OUTCOME_NOT_APPLICABLE;
        snprintf(rec->note, sizeof rec->note,
                 "larger than the host reference limit of %.3g GFLOP",
                 c->opts.host_ref_max_gflop);
        return XCONV_OK;
    }
    // A fault in an earlier run lost the inputs with the context: the case uploads them again.
    xconv_status st = c->dev && xconv_device_resets(c->dev) != c->resets ? upload_inputs(c, err)
                                                                          : XCONV_OK;
    if (st == XCONV_OK)
        st = ensure_reference(c, err);
    if (st != XCONV_OK)
        return st;
    snprintf(rec->reference, sizeof rec->reference, "%s", c->ref_name);
    if (c->dev)
        xconv_device_reset_compile_ms(c->dev);
    xconv_plan *plan = NULL;  // planned once: for the checked run and for timing
    double first_ms = now_ms(), check_start = first_ms, built_ms = 0;
    if (v->backends) {
        plan = xconv_plan_create(c->dev, &c->p, plan_name, &c->opts.plan, &run_err);
        st = plan ? ensure_output(c, &run_err) : run_err.status;
        double prepare_start = now_ms();
        if (st == XCONV_OK)
            st = xconv_plan_prepare(plan, NULL, &run_err);
        built_ms = now_ms() - prepare_start;  // builds on this thread (not those made ahead)
        if (st == XCONV_OK)
            st = run_device_variant(c->dev, plan, &c->p, c->dx, c->dw, c->dbias, c->dy, c->y,
                                    &run_err);
        first_ms = now_ms() - first_ms;
    } else {
        st = xconv_forward(NULL, &c->p, v->name, NULL, c->x, c->w, c->bias, c->y, &run_err);
    }
    if (st != XCONV_OK) {
        record_outcome(rec, st, &run_err);
        xconv_plan_destroy(plan);
        return XCONV_OK;
    }
    if (c->dev && v->backends)
        rec->compile_ms = xconv_device_compile_ms(c->dev);
    c->last_fused = plan ? xconv_plan_fused(plan) : xconv_epilogue_parts_host(&c->p);
    if (plan) {  // the plan chosen (ours), or what the vendor chose (cudnn_find)
        snprintf(rec->note, sizeof rec->note, "%s", xconv_plan_summary(plan));
        xconv_plan_error_block(plan, &rec->error_block_h, &rec->error_block_w);
    }
    record_check(c, rec);
    double run_start = now_ms();
    if (c->opts.totals) {
        c->opts.totals->compile_ms += c->dev && v->backends ? rec->compile_ms : 0;
        c->opts.totals->check_ms += run_start - check_start - built_ms;
    }
    // A peer outside the threshold is still timed (its speed is the comparison, its outcome
    // says it failed); our own variants are timed only when correct.
    bool timeable = rec->outcome == XCONV_OUTCOME_PASS ||
                    (rec->outcome == XCONV_OUTCOME_FAIL && strcmp(v->family, "peer") == 0);
    if (c->opts.repeat > 0 && plan && timeable) {
        bool same = false;
        st = time_variant(c, plan, rec, &same, &run_err);
        if (st != XCONV_OK)
            record_outcome(rec, st, &run_err);
        else if (!same)
            record_check(c, rec);
        if (st == XCONV_OK && c->opts.pitfall == XCONV_PITFALL_FIRST_RUN) {
            rec->median_ms = rec->min_ms = rec->max_ms = first_ms;
            rec->gflops = xconv_problem_flops(&c->p) / (first_ms * 1e-3) * 1e-9;
            rec->gbps = xconv_problem_min_bytes(&c->p) / (first_ms * 1e-3) * 1e-9;
        }
        if (st == XCONV_OK && c->opts.pitfall != XCONV_PITFALL_NONE)
            note_pitfall(c, rec);
    }
    if (c->opts.totals)
        c->opts.totals->run_ms += now_ms() - run_start;
    xconv_plan_destroy(plan);
    return XCONV_OK;
}

// Plans each variant (and "auto" when with_auto) for p on dev into plans from *n on (at most
// max), leaving out host variants, peers and pairs that do not plan.
static void prebuild_plans(xconv_device *dev, const xconv_problem *p,
                           const xconv_variant *const *variants, int nvariants, bool with_auto,
                           const xconv_plan_options *opts, xconv_plan **plans, int *n, int max)
{
    xconv_error *scratch = malloc(sizeof *scratch);
    for (int v = -1; scratch && v < nvariants && *n < max; v++) {
        const char *name = "auto";
        if (v >= 0) {
            const xconv_variant_info *info = xconv_variant_get_info(variants[v]);
            if (!info->backends || strcmp(info->family, "peer") == 0)
                continue;
            name = info->name;
        } else if (!with_auto) {
            continue;
        }
        xconv_plan *plan = xconv_plan_create(dev, p, name, opts, scratch);
        if (plan)
            plans[(*n)++] = plan;
    }
    free(scratch);
}

xconv_status xconv_prebuild(xconv_device *dev, const xconv_problem *const *problems,
                            int nproblems, const xconv_variant *const *variants, int nvariants,
                            bool with_auto, const xconv_plan_options *opts, int threads,
                            xconv_build_progress_fn progress, void *user,
                            xconv_build_stats *stats, xconv_error *err)
{
    int max = nproblems * (nvariants + 1);
    xconv_plan **plans = max > 0 ? calloc((size_t)max, sizeof *plans) : NULL;
    if (max > 0 && !plans)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the plans");
    int n = 0;
    for (int i = 0; i < nproblems; i++)
        prebuild_plans(dev, problems[i], variants, nvariants, with_auto, opts, plans, &n, max);
    xconv_status st = xconv_plans_build(plans, n, threads, progress, user, stats, err);
    for (int i = 0; i < n; i++)
        xconv_plan_destroy(plans[i]);
    free(plans);
    return st;
}

xconv_status xconv_case_run(xconv_case *c, const xconv_variant *variant, xconv_record *rec,
                            xconv_error *err)
{
    return case_run(c, variant, xconv_variant_get_info(variant)->name, rec, err);
}

xconv_status xconv_case_run_auto(xconv_case *c, xconv_record *rec, xconv_error *err)
{
    xconv_error why = {0};  // auto's own refusal goes into the record
    static const xconv_variant_info auto_row = {.name = "auto", .family = "auto",
                                                .accuracy = "direct", .notes = "",
                                                .backends = 1};
    xconv_auto_info info;
    xconv_status st = c->dev ? xconv_auto_choose(c->dev, &c->p, &c->opts.plan, &info, &why)
                             : xconv_error_set(&why, XCONV_ERR_NOT_APPLICABLE,
                                               "auto needs a device");
    if (st != XCONV_OK) {
        record_init(c, &auto_row, rec);
        record_outcome(rec, st, &why);
        return XCONV_OK;
    }
    st = case_run(c, info.variant, "auto", rec, err);
    char note[sizeof rec->note];
    snprintf(note, sizeof note, "%s", rec->note);
    snprintf(rec->variant, sizeof rec->variant, "auto");
    snprintf(rec->note, sizeof rec->note, "auto -> %s (%s)%s%.*s",
             xconv_variant_get_info(info.variant)->name, xconv_auto_source_name(info.source),
             note[0] ? ": " : "", (int)sizeof rec->note - 96, note);
    return st;
}

void xconv_case_set_plan_options(xconv_case *c, const xconv_plan_options *plan)
{
    c->opts.plan = *plan;
}

const float *xconv_case_output(const xconv_case *c)
{
    return c->y;
}

void xconv_case_set_epilogue_mode(xconv_case *c, int mode)
{
    c->opts.plan.epilogue = mode;
}

unsigned xconv_case_fused(const xconv_case *c)
{
    return c->last_fused;
}

// ---------------------------------------------------------------------------------------------
// One run for `xconv run`

xconv_status xconv_run_once(xconv_device *dev, const char *variant, const xconv_problem *p,
                            const xconv_plan_options *opts, const float *x, const float *w,
                            const float *bias, float *y, double *ms,
                            const xconv_variant **chosen, xconv_error *err)
{
    *ms = 0;
    if (chosen)
        *chosen = NULL;
    if (!dev) {
        if (chosen)
            *chosen = xconv_variant_find(variant, NULL);
        return xconv_forward(NULL, p, variant, opts, x, w, bias, y, err);
    }
    xconv_status st = xconv_problem_check_device(p, xconv_device_get_info(dev), err);
    xconv_buffer *dx = NULL, *dw = NULL, *db = NULL;
    if (st == XCONV_OK && p->epi.bias && !bias)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "the problem adds a bias: none given");
    if (st == XCONV_OK)
        st = upload_tensor(dev, p, x, xconv_problem_x_elems(p), &dx, err);
    if (st == XCONV_OK)
        st = upload_tensor(dev, p, w, xconv_problem_w_elems(p), &dw, err);
    if (st == XCONV_OK && p->epi.bias)
        st = upload(dev, bias, p->k, &db, err);
    xconv_plan *plan = NULL;
    if (st == XCONV_OK && !(plan = xconv_plan_create(dev, p, variant, opts, err)))
        st = err->status;
    if (plan && chosen)
        *chosen = xconv_plan_variant(plan);
    double t0 = now_ms();
    if (st == XCONV_OK)
        st = run_device_variant(dev, plan, p, dx, dw, db, NULL, y, err);
    *ms = now_ms() - t0;
    xconv_plan_destroy(plan);
    xconv_buffer_destroy(dx);
    xconv_buffer_destroy(dw);
    xconv_buffer_destroy(db);
    return st;
}
