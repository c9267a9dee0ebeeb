// SPDX-License-Identifier: MIT
// SGEMM on raw row-major matrices through the public API: ours (cl/sgemm.cl, split-K adding a
// reduce step and a workspace the handle owns) or the vendor's (CLBlast, cuBLAS), each a plan on
// the matrices as tensors.
#include <stdlib.h>
#include <string.h>

#include "core/contract.h"
#include "families/gemm/plan_gemm.h"

struct xconv_gemm {
    xconv_plan *plan;          // x = B, w = A, y = C (xconv_sgemm_problem)
    xconv_buffer *workspace;   // the split-K partials; NULL unsplit
};

xconv_gemm *xconv_gemm_create(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              const char *impl, const xconv_plan_options *opts,
                              xconv_error *err)
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
    xconv_gemm *g = calloc(1, sizeof *g);
    if (!g) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a GEMM");
        return NULL;
    }
    xconv_status st = ours ? xconv_sgemm_plan(dev, m, n, k, opts, &g->plan, err)
                           : xconv_vendor_sgemm_plan(dev, m, n, k, &g->plan, err);
    size_t bytes = st == XCONV_OK ? xconv_plan_workspace_size(g->plan) : 0;
    if (bytes && !(g->workspace = xconv_buffer_create(dev, bytes, err)))
        st = err ? err->status : XCONV_ERR_OUT_OF_MEMORY;
    if (st != XCONV_OK) {
        xconv_gemm_destroy(g);
        return NULL;
    }
    return g;
}

const char *xconv_gemm_summary(const xconv_gemm *g)
{
    return g ? g->plan->summary : "";
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
