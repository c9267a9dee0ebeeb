// SPDX-License-Identifier: MIT
// The references: the float64 host convolution, and im2col + the vendor's SGEMM on the device.
#include <stdio.h>
#include <stdlib.h>

#include "../validate/reference.h"
#include "variant.h"

// ---------------------------------------------------------------------------------------------
// cpu_ref: float64 accumulation on the host

// Computes y in float64 on every host core and rounds it to float32.
static xconv_status run_cpu_ref(const xconv_problem *p, const float *x, const float *w, float *y,
                                xconv_error *err)
{
    int64_t count = xconv_problem_y_elems(p);
    double *acc = malloc((size_t)count * sizeof *acc);
    if (!acc)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "cpu_ref: no host memory for %lld float64 outputs",
                               (long long)count);
    xconv_status st = xconv_reference_conv(p, x, w, acc, NULL, 0, err);
    for (int64_t i = 0; st == XCONV_OK && i < count; i++)
        y[i] = (float)acc[i];
    free(acc);
    return st;
}

// ---------------------------------------------------------------------------------------------
// vendor_gemm: im2col into a workspace, then the vendor's SGEMM (CLBlast, cuBLAS)

static bool vendor_gemm_applies(const xconv_device *dev, const xconv_problem *p, char *reason,
                                size_t len)
{
    (void)p;
    if (!dev->be->sgemm) {
        snprintf(reason, len, "the %s backend has no vendor BLAS",
                 xconv_backend_name(dev->info.backend));
        return false;
    }
    return true;
}

// Plans im2col in chunks of images that fit the device (xconv_im2col_chunk). Returns
// XCONV_ERR_NOT_APPLICABLE when one image's columns do not fit.
static xconv_status plan_vendor_gemm(const xconv_device *dev, const xconv_problem *p,
                                     xconv_plan *plan, xconv_error *err)
{
    xconv_status st = xconv_plan_define_problem(plan, p, err);
    if (st != XCONV_OK)
        return st;
    int64_t chunk = xconv_im2col_chunk(&dev->info, p);
    if (chunk < 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "one image's im2col columns pass the device's workspace budget");
    xconv_plan_im2col(&dev->info, p, chunk, plan);
    snprintf(plan->summary, sizeof plan->summary,
             "im2col of %lld images at a time (%.1f MiB), then %lld batched SGEMM call(s)",
             (long long)chunk, plan->workspace_bytes / 1048576.0, (long long)p->groups);
    return XCONV_OK;
}

// Per chunk of images: im2col, then per group y[n][g] = w[g] * col[n][g] batched over images.
static xconv_status run_vendor_gemm(xconv_device *dev, const xconv_problem *p,
                                    const xconv_plan *plan, const xconv_tensors *t,
                                    xconv_error *err)
{
    size_t pq = (size_t)(xconv_problem_out_h(p) * xconv_problem_out_w(p));
    size_t kg = (size_t)(p->k / p->groups);
    size_t crs_g = (size_t)(p->c / p->groups * p->r * p->s);
    for (int64_t n0 = 0; n0 < p->n; n0 += plan->batch_chunk) {
        int64_t images = p->n - n0 < plan->batch_chunk ? p->n - n0 : plan->batch_chunk;
        const xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->x)), XCONV_ARG_BUF(xconv_buffer_handle(t->workspace)),
                                  XCONV_ARG_I32(n0), XCONV_ARG_I32(images)};
        xconv_status st = xconv_plan_launch(dev, plan, 0, args, 4, err);
        if (st != XCONV_OK)
            return st;
        for (int64_t g = 0; g < p->groups; g++) {
            xconv_gemm_args gemm = {
                .m = kg, .n = pq, .k = crs_g,
                .a = xconv_buffer_handle(t->w), .a_offset = (size_t)g * kg * crs_g, .lda = crs_g, .a_stride = 0,
                .b = xconv_buffer_handle(t->workspace), .b_offset = (size_t)g * crs_g * pq, .ldb = pq,
                .b_stride = (size_t)p->groups * crs_g * pq,
                .c = xconv_buffer_handle(t->y), .c_offset = ((size_t)n0 * (size_t)p->k + (size_t)g * kg) * pq,
                .ldc = pq, .c_stride = (size_t)p->k * pq,
                .batch = (size_t)images,
            };
            st = dev->be->sgemm(dev->ctx, &gemm, err);
            if (st != XCONV_OK)
                return xconv_error_prefix(err, "vendor SGEMM");
        }
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The family's table

static const xconv_variant reference_variants[] = {
    {
        .name = "cpu_ref",
        .family = "reference",
        .summary = "float64 accumulation on the host, multithreaded",
        .backends = 0,
        .run_host = run_cpu_ref,
    },
    {
        .name = "clblast_gemm",
        .family = "reference",
        .summary = "im2col kernel + CLBlast SGEMM (the OpenCL reference path)",
        .backends = XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL),
        .applies = vendor_gemm_applies,
        .plan = plan_vendor_gemm,
        .run = run_vendor_gemm,
    },
    {
        .name = "cublas_gemm",
        .family = "reference",
        .summary = "im2col kernel + cuBLAS SGEMM in strict fp32 (the CUDA reference path)",
        .backends = XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA),
        .applies = vendor_gemm_applies,
        .plan = plan_vendor_gemm,
        .run = run_vendor_gemm,
    },
};

const xconv_variant *xconv_reference_variants(int *count)
{
    *count = (int)(sizeof reference_variants / sizeof reference_variants[0]);
    return reference_variants;
}
