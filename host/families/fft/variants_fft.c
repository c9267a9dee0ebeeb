// SPDX-License-Identifier: MIT
// The FFT convolution family: real-to-complex FFTs of inputs and filters, a complex product
// over channels per frequency, inverse FFTs cropped to the outputs, the crop applying the
// epilogue (host/families/fft/plan_fft.c).
#include "families/fft/plan_fft.h"
#include "plan/variant.h"

// ---------------------------------------------------------------------------------------------
// One applies/plan pair per kind

#define FFT_PLANNER(ident, kind)                                                            \
    static bool applies_##ident(const xconv_device *dev, const xconv_problem *p,            \
                                char *reason, size_t len)                                   \
    {                                                                                       \
        return xconv_fft_applies(kind, &dev->info, p, reason, len);                         \
    }                                                                                       \
    static xconv_status plan_##ident(const xconv_device *dev, const xconv_problem *p,       \
                                     const xconv_plan_options *opts, xconv_plan *plan,      \
                                     xconv_error *err)                                      \
    {                                                                                       \
        return xconv_fft_plan(&dev->info, p, kind, opts, plan, err);                        \
    }
FFT_PLANNER(fft, XCONV_FFT_WHOLE)
FFT_PLANNER(fft_tiled, XCONV_FFT_TILED)

// ---------------------------------------------------------------------------------------------
// The family's table

#define FFT_INFO(ident, text) \
    {.name = #ident, .family = "fft", .summary = text, .accuracy = "fft", .notes = "fft", \
     .backends = XCONV_ON_ALL_BACKENDS}

// runtime_batch: every FFT step's defines depend on N (XC_FFT_BATCH), so its programs are the
// same either way; the plan's summary then says why N is baked.
static const xconv_variant fft_variants[] = {
    {
        .info = FFT_INFO(fft, "FFT convolution over the whole padded image: R2C of inputs and "
                              "filters, complex GEMM over channels, C2R and crop"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .applies = applies_fft,
        .plan = plan_fft,
        .runtime_batch = true,
    },
    {
        .info = FFT_INFO(fft_tiled, "FFT convolution on overlap-save tiles that stay in local "
                                    "memory (tile size from the filter size)"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .applies = applies_fft_tiled,
        .plan = plan_fft_tiled,
        .runtime_batch = true,
    },
};

const xconv_variant *xconv_fft_variants(int *count)
{
    *count = (int)(sizeof fft_variants / sizeof fft_variants[0]);
    return fft_variants;
}
