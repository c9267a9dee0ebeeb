// SPDX-License-Identifier: MIT
// Peers: vendor convolutions we measure against (CLBlast's convgemm, every cuDNN algorithm).
#include <stdio.h>

#include "plan/plan_epilogue.h"
#include "plan/variant.h"

// Asks the backend whether its vendor library runs algorithm `algo` on p.
static bool vendor_conv_applies(const xconv_device *dev, const char *algo, const xconv_problem *p,
                                size_t *workspace, char *reason, size_t len)
{
    if (!dev->be || !dev->be->vendor_conv_supports || !dev->be->vendor_conv) {
        snprintf(reason, len, "the %s backend has no vendor convolution",
                 xconv_backend_name(dev->info.backend));
        return false;
    }
    if (dev->gone) {
        snprintf(reason, len, "%.*s", len > 0 ? (int)len - 1 : 0, dev->gone_msg);
        return false;
    }
    return dev->be->vendor_conv_supports(dev->ctx, algo, p, workspace, reason, len);
}

// Plans one vendor convolution step and the workspace the vendor library asks for.
static xconv_status plan_vendor_conv(const xconv_device *dev, const char *algo,
                                     const xconv_problem *p, xconv_plan *plan, xconv_error *err)
{
    char reason[512] = "";
    size_t workspace = 0;
    if (!vendor_conv_applies(dev, algo, p, &workspace, reason, sizeof reason))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", reason);
    if (workspace)
        xconv_plan_region(plan, "vendor workspace", workspace);
    if (!xconv_plan_add_vendor_conv(plan, algo, algo))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    // A fusing vendor call (given the whole problem) applies every part of its epilogue.
    plan->fused = xconv_epilogue_parts(p);
    // The backend's word on its choice (what cudnn_find picked), cut to the summary's size.
    if (reason[0])
        snprintf(plan->summary, sizeof plan->summary, "%.*s", (int)sizeof plan->summary - 1,
                 reason);
    else
        snprintf(plan->summary, sizeof plan->summary,
                 "vendor library call %s, workspace %zu bytes", algo, workspace);
    return XCONV_OK;
}

// One applies/plan pair per peer, each passing its own algorithm name to the backend.
#define PEER(ident, backend_bit, fuses_epilogue, accuracy_family, numerics, text)           \
    static bool applies_##ident(const xconv_device *dev, const xconv_problem *p,            \
                                char *reason, size_t len)                                   \
    {                                                                                       \
        size_t workspace = 0;                                                               \
        return vendor_conv_applies(dev, #ident, p, &workspace, reason, len);                \
    }                                                                                       \
    static xconv_status plan_##ident(const xconv_device *dev, const xconv_problem *p,       \
                                     const xconv_plan_options *opts, xconv_plan *plan,      \
                                     xconv_error *err)                                      \
    {                                                                                       \
        (void)opts;                                                                         \
        return plan_vendor_conv(dev, #ident, p, plan, err);                                 \
    }
#define PEER_ROW(ident, backend_bit, fuses_epilogue, accuracy_family, numerics, text)       \
    {.info = {.name = #ident, .family = "peer", .summary = text, .accuracy = accuracy_family, \
              .notes = numerics, .backends = backend_bit},                                  \
     .fuses = fuses_epilogue, .applies = applies_##ident, .plan = plan_##ident},

#define OPENCL_ONLY XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL)
#define CUDA_ONLY XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)

// name, backends, fuses the epilogue, accuracy family, numerical notes, summary
#define XCONV_PEERS(X)                                                                      \
    X(clblast_convgemm, OPENCL_ONLY, false, "peer", "",                                     \
      "CLBlast's Sconvgemm (im2col inside its GEMM)")                                       \
    X(cudnn_implicit_gemm, CUDA_ONLY, false, "peer", "",                                    \
      "cuDNN IMPLICIT_GEMM, FMA math (strict fp32)")                                        \
    X(cudnn_implicit_precomp_gemm, CUDA_ONLY, false, "peer", "",                            \
      "cuDNN IMPLICIT_PRECOMP_GEMM, FMA math")                                              \
    X(cudnn_gemm, CUDA_ONLY, false, "peer", "", "cuDNN GEMM, FMA math")                     \
    X(cudnn_direct, CUDA_ONLY, false, "peer", "", "cuDNN DIRECT, FMA math")                 \
    X(cudnn_fft, CUDA_ONLY, false, "fft", "fft", "cuDNN FFT, FMA math")                     \
    X(cudnn_fft_tiling, CUDA_ONLY, false, "fft", "fft", "cuDNN FFT_TILING, FMA math")       \
    X(cudnn_winograd, CUDA_ONLY, false, "winograd", "winograd",                             \
      "cuDNN WINOGRAD (fused), FMA math")                                                   \
    X(cudnn_winograd_nonfused, CUDA_ONLY, false, "winograd", "winograd",                    \
      "cuDNN WINOGRAD_NONFUSED, FMA math")                                                  \
    X(cudnn_find, CUDA_ONLY, false, "winograd", "any cuDNN algorithm",                      \
      "what cuDNN's own find picks among FMA-math algorithms (any kind: Winograd threshold)") \
    X(cudnn_fused_bias_act_pool, CUDA_ONLY, true, "peer", "",                               \
      "cuDNN's ConvolutionBiasActivationForward (IMPLICIT_PRECOMP_GEMM, FMA math), then its "\
      "PoolingForward: problems with a bias")

XCONV_PEERS(PEER)

static const xconv_variant peer_variants[] = {XCONV_PEERS(PEER_ROW)};

const xconv_variant *xconv_peer_variants(int *count)
{
    *count = (int)(sizeof peer_variants / sizeof peer_variants[0]);
    return peer_variants;
}
