// SPDX-License-Identifier: MIT
// Peers: vendor convolutions we measure against (CLBlast's convgemm, every cuDNN algorithm).
#include <stdio.h>

#include "variant.h"

// Asks the backend whether its vendor library runs this algorithm (the variant's name) on p.
static bool vendor_conv_applies(const xconv_device *dev, const xconv_variant *v,
                                const xconv_problem *p, size_t *workspace, char *reason,
                                size_t len)
{
    if (!dev->be->vendor_conv_supports || !dev->be->vendor_conv) {
        snprintf(reason, len, "the %s backend has no vendor convolution",
                 xconv_backend_name(dev->info.backend));
        return false;
    }
    return dev->be->vendor_conv_supports(dev->ctx, v->name, p, workspace, reason, len);
}

// Plans only the workspace the vendor library asks for.
static xconv_status plan_vendor_conv(const xconv_device *dev, const char *algo,
                                     const xconv_problem *p, xconv_plan *plan, xconv_error *err)
{
    char reason[512] = "";
    size_t workspace = 0;
    if (!vendor_conv_applies(dev, &(xconv_variant){.name = algo}, p, &workspace, reason,
                             sizeof reason))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", reason);
    plan->workspace_bytes = workspace;
    // The backend's word on its choice (what cudnn_find picked), cut to the summary's size.
    if (reason[0])
        snprintf(plan->summary, sizeof plan->summary, "%.*s", (int)sizeof plan->summary - 1,
                 reason);
    else
        snprintf(plan->summary, sizeof plan->summary,
                 "vendor library call %s, workspace %zu bytes", algo, workspace);
    return XCONV_OK;
}

static xconv_status run_vendor_conv(xconv_device *dev, const char *algo, const xconv_problem *p,
                                    const xconv_tensors *t, xconv_error *err)
{
    return dev->be->vendor_conv(dev->ctx, algo, p, xconv_buffer_handle(t->x),
                                xconv_buffer_handle(t->w), xconv_buffer_handle(t->y),
                                xconv_buffer_handle(t->workspace), err);
}

// One applies/plan/run triple per peer, each passing its own algorithm name to the backend.
#define PEER(ident, backend_bit, accuracy_family, text)                                                       \
    static bool applies_##ident(const xconv_device *dev, const xconv_problem *p,            \
                                char *reason, size_t len)                                   \
    {                                                                                       \
        size_t workspace = 0;                                                               \
        return vendor_conv_applies(dev, &(xconv_variant){.name = #ident}, p, &workspace,    \
                                   reason, len);                                            \
    }                                                                                       \
    static xconv_status plan_##ident(const xconv_device *dev, const xconv_problem *p,       \
                                     xconv_plan *plan, xconv_error *err)                    \
    {                                                                                       \
        return plan_vendor_conv(dev, #ident, p, plan, err);                                 \
    }                                                                                       \
    static xconv_status run_##ident(xconv_device *dev, const xconv_problem *p,              \
                                    const xconv_plan *plan, const xconv_tensors *t,         \
                                    xconv_error *err)                                       \
    {                                                                                       \
        (void)plan;                                                                         \
        return run_vendor_conv(dev, #ident, p, t, err);                                     \
    }
#define PEER_ROW(ident, backend_bit, accuracy_family, text)                                  \
    {.name = #ident, .family = "peer", .summary = text, .accuracy = accuracy_family,        \
     .backends = backend_bit, .applies = applies_##ident, .plan = plan_##ident,             \
     .run = run_##ident},

#define OPENCL_ONLY XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL)
#define CUDA_ONLY XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)

// name, backends, accuracy family (NULL: "peer"), summary
#define XCONV_PEERS(X)                                                                       \
    X(clblast_convgemm, OPENCL_ONLY, NULL, "CLBlast's Sconvgemm (im2col inside its GEMM)")    \
    X(cudnn_implicit_gemm, CUDA_ONLY, NULL, "cuDNN IMPLICIT_GEMM, FMA math (strict fp32)")   \
    X(cudnn_implicit_precomp_gemm, CUDA_ONLY, NULL, "cuDNN IMPLICIT_PRECOMP_GEMM, FMA math") \
    X(cudnn_gemm, CUDA_ONLY, NULL, "cuDNN GEMM, FMA math")                                   \
    X(cudnn_direct, CUDA_ONLY, NULL, "cuDNN DIRECT, FMA math")                               \
    X(cudnn_fft, CUDA_ONLY, "fft", "cuDNN FFT, FMA math")                                    \
    X(cudnn_fft_tiling, CUDA_ONLY, "fft", "cuDNN FFT_TILING, FMA math")                      \
    X(cudnn_winograd, CUDA_ONLY, "winograd", "cuDNN WINOGRAD (fused), FMA math")             \
    X(cudnn_winograd_nonfused, CUDA_ONLY, "winograd", "cuDNN WINOGRAD_NONFUSED, FMA math")   \
    X(cudnn_find, CUDA_ONLY, "winograd",                                                     \
      "what cuDNN's own find picks among FMA-math algorithms (any kind: Winograd threshold)")

XCONV_PEERS(PEER)

static const xconv_variant peer_variants[] = {XCONV_PEERS(PEER_ROW)};

const xconv_variant *xconv_peer_variants(int *count)
{
    *count = (int)(sizeof peer_variants / sizeof peer_variants[0]);
    return peer_variants;
}
