// SPDX-License-Identifier: MIT
// GEMM on raw row-major matrices through the public API: ours (cl/sgemm.cl on fp32, split-K
// adding a reduce step and a workspace the handle owns; gemm_1x1 on 16-bit storage, implicit_mma
// on tensor cores in the reduced math modes) or the vendor's (CLBlast, cuBLAS), each a plan on
// the matrices as tensors.
#include <stdlib.h>
#include <string.h>

#include "core/contract.h"
#include "families/gemm/plan_gemm.h"

struct xconv_gemm {
    xconv_plan *plan;          // x = B, w = A, y = C (xconv_sgemm_problem)
    xconv_buffer *workspace;   // the split-K partials; NULL unsplit
    int64_t c_dtype;           // C's storage type
};

// Plans ours for the product of p (dtype and math set) into *out, with C's storage type:
// cl/sgemm.cl for fp32 in strict fp32; otherwise the 1x1 convolution p, which stores y (C) in
// p's storage type: gemm_1x1 (the same SGEMM body reading and writing 16-bit storage) in strict
// fp32 math, implicit_mma (tensor cores) in the reduced math modes.
static xconv_status plan_ours(xconv_device *dev, const xconv_problem *p,
                              const xconv_plan_options *opts, xconv_plan **out,
                              int64_t *c_dtype, xconv_error *err)
{
    *c_dtype = p->dtype;
    if (p->math == XCONV_MATH_F32 && p->dtype == XCONV_DTYPE_F32)
        return xconv_sgemm_plan(dev, p->k, p->w, p->c, opts, out, err);
    const char *variant = p->math == XCONV_MATH_F32 ? "gemm_1x1" : "implicit_mma";
    *out = xconv_plan_create(dev, p, variant, opts, err);
    return *out ? XCONV_OK : err ? err->status : XCONV_ERR_NOT_APPLICABLE;
}

xconv_gemm *xconv_gemm_create_typed(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                                    int64_t dtype, int64_t math, const char *impl,
                                    const xconv_plan_options *opts, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, impl) ||
        xconv_plan_options_check(opts, err) != XCONV_OK)
        return NULL;
    bool ours = strcmp(impl, "xconv") == 0, vendor = strcmp(impl, "vendor") == 0;
    if (!ours && !vendor) {
        xconv_error_set(err, XCONV_ERR_INVALID,
                        "gemm: impl must be \"xconv\" or \"vendor\", not '%s'", impl);
        return NULL;
    }
    xconv_problem p = xconv_sgemm_problem(1, 1, 1);  // the types first, then the sizes
    p.dtype = dtype, p.math = math;
    if (xconv_problem_check(&p, err) != XCONV_OK ||
        xconv_gemm_check_size(dev, m, n, k, err) != XCONV_OK)
        return NULL;
    p = xconv_sgemm_problem(m, n, k);
    p.dtype = dtype, p.math = math;
    xconv_gemm *g = calloc(1, sizeof *g);
    if (!g) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a GEMM");
        return NULL;
    }
    g->c_dtype = XCONV_DTYPE_F32;
    xconv_status st = ours ? plan_ours(dev, &p, opts, &g->plan, &g->c_dtype, err)
                           : xconv_vendor_gemm_plan(dev, m, n, k, dtype, math, &g->plan, err);
    size_t bytes = st == XCONV_OK ? xconv_plan_workspace_size(g->plan) : 0;
    if (bytes && !(g->workspace = xconv_buffer_create(dev, bytes, err)))
        st = err ? err->status : XCONV_ERR_OUT_OF_MEMORY;
    if (st != XCONV_OK) {
        xconv_gemm_destroy(g);
        return NULL;
    }
    return g;
}

xconv_gemm *xconv_gemm_create(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              const char *impl, const xconv_plan_options *opts,
                              xconv_error *err)
{
    return xconv_gemm_create_typed(dev, m, n, k, XCONV_DTYPE_F32, XCONV_MATH_F32, impl, opts,
                                   err);
}

const char *xconv_gemm_summary(const xconv_gemm *g)
{
    return g ? g->plan->summary : "";
}

int64_t xconv_gemm_c_dtype(const xconv_gemm *g)
{
    return g ? g->c_dtype : -1;
}

xconv_status xconv_gemm_run(xconv_gemm *g, xconv_buffer *a, xconv_buffer *b, xconv_buffer *c,
                            xconv_error *err)
{
    if (XCONV_NULL_ARG(err, g) || XCONV_NULL_ARG(err, a) || XCONV_NULL_ARG(err, b) ||
        XCONV_NULL_ARG(err, c))
        return XCONV_ERR_INVALID;
    const xconv_tensors t = {.x = b, .w = a, .y = c, .workspace = g->workspace};
    return xconv_plan_run(g->plan, &t, err);
}

void xconv_gemm_destroy(xconv_gemm *g)
{
    if (!g)
        return;
    xconv_plan_destroy(g->plan);
    xconv_buffer_destroy(g->workspace);
    free(g);
}
