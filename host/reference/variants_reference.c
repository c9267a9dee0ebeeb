// SPDX-License-Identifier: MIT
// The references: the float64 host convolution, and im2col + the vendor's SGEMM on the device.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "plan/variant.h"

// ---------------------------------------------------------------------------------------------
// cpu_ref: float64 accumulation on the host

// Computes y (and the epilogue) in float64 on every host core and rounds it to float32.
static xconv_status run_cpu_ref(const xconv_problem *p, const float *x, const float *w,
                                const float *bias, float *y, xconv_error *err)
{
    int64_t count = xconv_problem_y_elems(p);
    double *acc = malloc((size_t)count * sizeof *acc);
    if (!acc)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "cpu_ref: no host memory for %lld float64 outputs",
                               (long long)count);
    xconv_status st = xconv_reference_forward(p, x, w, bias, acc, NULL, 0, err);
    for (int64_t i = 0; st == XCONV_OK && i < count; i++)
        y[i] = (float)acc[i];
    free(acc);
    return st;
}

// Returns true when the host's physical memory holds what cpu_ref works with: the caller's x, w
// and y in float32 and y again in float64; else false with the numbers in reason.
static bool cpu_ref_applies(const xconv_variant *v, const xconv_device *dev,
                            const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    (void)dev;
    double bytes = 4.0 * ((double)xconv_problem_x_elems(p) + (double)xconv_problem_w_elems(p) +
                          (double)xconv_problem_y_elems(p)) +
                   8.0 * (double)xconv_problem_y_elems(p);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    if (have == 0 || bytes <= have)
        return true;
    snprintf(reason, len, "cpu_ref needs %.1f GiB of host memory (x, w and y in float32, y again "
             "in float64); the host has %.1f GiB", bytes / 1073741824.0, have / 1073741824.0);
    return false;
}

// ---------------------------------------------------------------------------------------------
// vendor_gemm: im2col into a workspace, then the vendor's SGEMM (CLBlast, cuBLAS)

static bool vendor_gemm_applies(const xconv_variant *v, const xconv_device *dev,
                                const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    (void)p;
    if (!dev->be || !dev->be->sgemm) {
        snprintf(reason, len, "the %s backend has no vendor BLAS",
                 xconv_backend_name(dev->info.backend));
        return false;
    }
    return true;
}

// Plans, per chunk of images that fit the device (xconv_im2col_chunk), im2col into the
// workspace and then per group y[n][g] = w[g] * col[n][g] through the vendor's SGEMM batched
// over the chunk's images. Returns XCONV_ERR_NOT_APPLICABLE when one image's columns do not fit.
static xconv_status plan_vendor_gemm(const xconv_device *dev, const xconv_problem *p,
                                     const xconv_plan_options *opts, xconv_plan *plan,
                                     xconv_error *err)
{
    (void)opts;
    int64_t chunk = xconv_im2col_chunk(&dev->info, p);
    if (chunk < 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "one image's im2col columns pass the device's workspace budget");
    int region = xconv_plan_region(plan, "im2col columns", xconv_im2col_bytes(p, chunk));
    xconv_plan_summarize(plan,
                         "im2col of %lld image%s at a time (%.1f MiB), then %lld batched SGEMM "
                         "call%s",
                         (long long)chunk, chunk == 1 ? "" : "s",
                         plan->workspace_bytes / 1048576.0, (long long)p->groups,
                         p->groups == 1 ? "" : "s");
    size_t pq = (size_t)(xconv_problem_out_h(p) * xconv_problem_out_w(p));
    size_t kg = (size_t)(p->k / p->groups);
    size_t crs_g = (size_t)(p->c / p->groups * p->r * p->s);
    for (int64_t n0 = 0; n0 < p->n; n0 += chunk) {
        int64_t images = p->n - n0 < chunk ? p->n - n0 : chunk;
        xconv_status st = xconv_plan_im2col(&dev->info, p, chunk, n0, images, plan, err);
        if (st != XCONV_OK)
            return st;
        for (int64_t g = 0; g < p->groups; g++) {
            xconv_step *s = xconv_plan_add_vendor_sgemm(plan, "vendor SGEMM");
            if (!s)
                return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
            s->gemm = (xconv_vendor_gemm_step){
                .m = kg, .n = pq, .k = crs_g, .batch = (size_t)images,
                .a = {.ref = XCONV_REF_W, .region = -1, .offset = (size_t)g * kg * crs_g,
                      .ld = crs_g, .stride = 0},
                .b = {.ref = XCONV_REF_WORKSPACE, .region = region,
                      .offset = (size_t)g * crs_g * pq, .ld = pq,
                      .stride = (size_t)p->groups * crs_g * pq},
                .c = {.ref = XCONV_REF_Y, .region = -1,
                      .offset = ((size_t)n0 * (size_t)p->k + (size_t)g * kg) * pq, .ld = pq,
                      .stride = (size_t)p->k * pq},
            };
        }
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The family's table

static const xconv_variant reference_variants[] = {
    {
        .info = {.name = "cpu_ref", .family = "reference", .accuracy = "reference", .notes = "",
                 .summary = "float64 accumulation on the host, multithreaded", .backends = 0},
        .applies = cpu_ref_applies,
        .run_host = run_cpu_ref,
    },
    {
        .info = {.name = "clblast_gemm", .family = "reference", .accuracy = "reference",
                 .notes = "",
                 .summary = "im2col kernel + CLBlast SGEMM (the OpenCL reference path)",
                 .backends = XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL)},
        .applies = vendor_gemm_applies,
        .plan = plan_vendor_gemm,
    },
    {
        .info = {.name = "cublas_gemm", .family = "reference", .accuracy = "reference",
                 .notes = "",
                 .summary = "im2col kernel + cuBLAS SGEMM in strict fp32 (the CUDA reference "
                            "path)",
                 .backends = XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)},
        .applies = vendor_gemm_applies,
        .plan = plan_vendor_gemm,
    },
};

const xconv_variant *xconv_reference_variants(int *count)
{
    *count = (int)(sizeof reference_variants / sizeof reference_variants[0]);
    return reference_variants;
}
