// SPDX-License-Identifier: MIT
// Peers: vendor convolutions we measure against (CLBlast's convgemm in strict fp32, every cuDNN
// algorithm in each storage type and math mode: FMA math for math=f32, tensor-op math for the
// reduced modes, cuda/cudnn_types.c).
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

// Every peer's applies and plan: the vendor's algorithm is the variant's name.
static bool peer_applies(const xconv_variant *v, const xconv_device *dev, const xconv_problem *p,
                         char *reason, size_t len)
{
    size_t workspace = 0;
    return vendor_conv_applies(dev, v->info.name, p, &workspace, reason, len);
}

static xconv_status peer_plan(const xconv_device *dev, const xconv_problem *p,
                              const xconv_plan_options *opts, xconv_plan *plan, xconv_error *err)
{
    (void)opts;
    return plan_vendor_conv(dev, plan->variant->info.name, p, plan, err);
}

#define PEER_ROW(ident, backend_bit, types, fuses_epilogue, accuracy_family, numerics, text) \
    {.info = {.name = #ident, .family = "peer", .summary = text, .accuracy = accuracy_family, \
              .notes = numerics, .backends = backend_bit},                                  \
     .fuses = fuses_epilogue, types, .applies = peer_applies, .plan = peer_plan},

#define OPENCL_ONLY XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL)
#define CUDA_ONLY XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)

// The storage types and math modes a peer takes: strict fp32 only, or every one (cuDNN: the
// descriptors follow the problem; the core's check still refuses reduced storage with an
// epilogue, and math=f32 gets FMA math only).
#define FP32_ONLY .dtypes = 0, .maths = 0
#define EVERY_MODE                                                                          \
    .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),         \
    .maths = XCONV_MATH_BIT(XCONV_MATH_F32) | XCONV_MATH_BIT(XCONV_MATH_TF32) |              \
             XCONV_MATH_BIT(XCONV_MATH_F16) | XCONV_MATH_BIT(XCONV_MATH_BF16)

// name, backends, storage types and math modes, fuses the epilogue, accuracy family, numerical
// notes, summary ("math type": FMA for math=f32, tensor-op for tf32, f16 and bf16)
#define XCONV_PEERS(X)                                                                      \
    X(clblast_convgemm, OPENCL_ONLY, FP32_ONLY, false, "peer", "",                          \
      "CLBlast's Sconvgemm (im2col inside its GEMM), strict fp32")                          \
    X(cudnn_implicit_gemm, CUDA_ONLY, EVERY_MODE, false, "peer", "",                        \
      "cuDNN IMPLICIT_GEMM in the mode's math type (FMA math: strict fp32)")                \
    X(cudnn_implicit_precomp_gemm, CUDA_ONLY, EVERY_MODE, false, "peer", "",                \
      "cuDNN IMPLICIT_PRECOMP_GEMM in the mode's math type")                                \
    X(cudnn_gemm, CUDA_ONLY, EVERY_MODE, false, "peer", "",                                 \
      "cuDNN GEMM in the mode's math type")                                                 \
    X(cudnn_direct, CUDA_ONLY, EVERY_MODE, false, "peer", "",                               \
      "cuDNN DIRECT in the mode's math type")                                               \
    X(cudnn_fft, CUDA_ONLY, EVERY_MODE, false, "fft", "fft",                                \
      "cuDNN FFT in the mode's math type")                                                  \
    X(cudnn_fft_tiling, CUDA_ONLY, EVERY_MODE, false, "fft", "fft",                         \
      "cuDNN FFT_TILING in the mode's math type")                                           \
    X(cudnn_winograd, CUDA_ONLY, EVERY_MODE, false, "winograd", "winograd",                 \
      "cuDNN WINOGRAD (fused) in the mode's math type")                                     \
    X(cudnn_winograd_nonfused, CUDA_ONLY, EVERY_MODE, false, "winograd", "winograd",        \
      "cuDNN WINOGRAD_NONFUSED in the mode's math type")                                    \
    X(cudnn_find, CUDA_ONLY, EVERY_MODE, false, "winograd", "any cuDNN algorithm",          \
      "what cuDNN's own find picks among the algorithms that ran in the mode's math type "  \
      "(any kind: Winograd threshold)")                                                     \
    X(cudnn_fused_bias_act_pool, CUDA_ONLY, EVERY_MODE, true, "peer", "",                   \
      "cuDNN's ConvolutionBiasActivationForward (IMPLICIT_PRECOMP_GEMM, the mode's math "   \
      "type), then its PoolingForward: problems with a bias, fp32 storage")

static const xconv_variant peer_variants[] = {XCONV_PEERS(PEER_ROW)};

const xconv_variant *xconv_peer_variants(int *count)
{
    *count = (int)(sizeof peer_variants / sizeof peer_variants[0]);
    return peer_variants;
}
