// SPDX-License-Identifier: MIT
// A case's reference (float64 on the host, or the device's GEMM path checked at float64
// samples) and the comparison of a variant's output with it, per element or over blocks.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/case.h"
#include "measure/check.h"

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
    c->ref64 = measure_host_alloc((size_t)c->y_n, sizeof(double), err);
    c->norm64 = c->ref64 ? measure_host_alloc((size_t)c->y_n, sizeof(double), err) : NULL;
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
    c->conv64 = measure_host_alloc((size_t)c->conv_n, sizeof(double), err);
    c->convnorm64 = c->conv64 ? measure_host_alloc((size_t)c->conv_n, sizeof(double), err) : NULL;
    if (!c->convnorm64)
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_problem conv = xconv_problem_conv_only(&c->p);
    return xconv_reference_conv(&conv, c->x, c->w, c->conv64, c->convnorm64, c->opts.host_threads,
                                err);
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
    c->ref32 = measure_host_alloc((size_t)c->y_n, sizeof(float), err);
    c->norm32 = c->ref32 ? measure_host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    if (c->norm32 && epi) {
        c->conv32 = measure_host_alloc((size_t)c->conv_n, sizeof(float), err);
        c->convnorm32 =
            c->conv32 ? measure_host_alloc((size_t)c->conv_n, sizeof(float), err) : NULL;
        if (!c->convnorm32)
            return XCONV_ERR_OUT_OF_MEMORY;
    }
    float *out = epi ? c->conv32 : c->ref32, *out_norm = epi ? c->convnorm32 : c->norm32;
    c->samples =
        c->norm32 ? measure_host_alloc((size_t)c->opts.samples, sizeof(int64_t), err) : NULL;
    float *abs_x = c->samples ? measure_host_alloc((size_t)c->x_n, sizeof(float), err) : NULL;
    float *abs_w = abs_x ? measure_host_alloc((size_t)c->w_n, sizeof(float), err) : NULL;
    if (!abs_w) {
        free(abs_x);
        return XCONV_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < c->x_n; i++)
        abs_x[i] = fabsf(c->x[i]);
    for (int64_t i = 0; i < c->w_n; i++)
        abs_w[i] = fabsf(c->w[i]);
    xconv_buffer *dax = NULL, *daw = NULL, *dx32 = NULL, *dw32 = NULL;
    xconv_plan *plan = xconv_plan_create(dev, &conv, ref, &c->opts.plan, err);
    xconv_status st = plan ? XCONV_OK : err->status;
    if (st == XCONV_OK)
        st = measure_ensure_output(c, err);
    // With an epilogue the reference's convolution output is larger than y: a buffer of its own.
    xconv_buffer *dy = epi || stored ? NULL : c->dy;
    if (st == XCONV_OK && stored &&
        (st = measure_upload(dev, c->x, c->x_n, &dx32, err)) == XCONV_OK)
        st = measure_upload(dev, c->w, c->w_n, &dw32, err);
    if (st == XCONV_OK)
        st = measure_run_device_variant(dev, plan, &conv, stored ? dx32 : c->dx,
                                        stored ? dw32 : c->dw, NULL, dy, out, err);
    if (st == XCONV_OK && (st = measure_upload(dev, abs_x, c->x_n, &dax, err)) == XCONV_OK &&
        (st = measure_upload(dev, abs_w, c->w_n, &daw, err)) == XCONV_OK)
        st = measure_run_device_variant(dev, plan, &conv, dax, daw, NULL, dy, out_norm, err);
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
    xconv_compare_result check = { 0 };
    xconv_compare_sampled(&c->p, c->x, c->w, c->bias, c->ref32, c->samples, c->nsamples, &check);
    double limit = xconv_threshold_for_family("reference");
    if (check.nonfinite || !(check.max_norm_err <= limit))
        return xconv_error_set(err, XCONV_ERR_DEVICE,
                               "reference %s disagrees with float64 at sampled elements "
                               "(max error %.3g, %lld non-finite)",
                               ref, check.max_norm_err, (long long)check.nonfinite);
    snprintf(c->ref_name, sizeof c->ref_name, "%s+%d samples", ref, c->nsamples);
    return XCONV_OK;
}

xconv_status measure_ensure_reference(xconv_case *c, xconv_error *err)
{
    if (c->ref_ready)
        return XCONV_OK;
    measure_free_reference(c);
    bool small = xconv_problem_flops(&c->p) <= c->opts.host_ref_max_gflop * 1e9;
    xconv_status st =
        (small || !c->dev) ? make_host_reference(c, err) : make_device_reference(c, err);
    c->ref_ready = st == XCONV_OK;
    return st;
}

// Compares c->y with the reference.
void measure_compare_output(const xconv_case *c, xconv_compare_result *res)
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
xconv_status measure_compare_output_blocked(xconv_case *c, int64_t block_h, int64_t block_w,
                                            xconv_compare_result *res, xconv_error *err)
{
    memset(res, 0, sizeof *res);
    xconv_problem conv = xconv_problem_conv_only(&c->p);
    bool pools = c->p.epi.pool_h != 0;
    xconv_status st = XCONV_OK;
    if (c->ref64) {
        double *blocked = measure_host_alloc((size_t)c->conv_n, sizeof(double), err);
        double *scale = blocked ? measure_host_alloc((size_t)c->y_n, sizeof(double), err) : NULL;
        double *y_ref =
            scale && pools ? measure_host_alloc((size_t)c->y_n, sizeof(double), err) : NULL;
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
    float *blocked = measure_host_alloc((size_t)c->conv_n, sizeof(float), err);
    float *scale = blocked ? measure_host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    float *y_ref = scale && pools ? measure_host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    if (!scale || (pools && !y_ref))
        st = XCONV_ERR_OUT_OF_MEMORY;
    if (st == XCONV_OK && pools) {
        xconv_block_scale_f32(&conv, block_h, block_w, c->convnorm32, blocked);
        st = xconv_reference_epilogue_f32(&c->p, c->conv32, blocked, c->bias, y_ref, scale, err);
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
