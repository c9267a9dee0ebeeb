// SPDX-License-Identifier: MIT
// The FFT convolution family: real-to-complex FFTs of inputs and filters, a complex product
// over channels per frequency, inverse FFTs cropped to the outputs, the crop applying the
// epilogue (host/families/fft/plan_fft.c).
#include "families/fft/plan_fft.h"
#include "plan/variant.h"

// ---------------------------------------------------------------------------------------------
// The family's table: one planner of the variant's kind (xconv_variant.kind)

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
        .kind = XCONV_FFT_WHOLE,
        .applies = xconv_fft_applies_variant,
        .plan = xconv_fft_plan_variant,
        .runtime_batch = true,
    },
    {
        .info = FFT_INFO(fft_tiled, "FFT convolution on overlap-save tiles that stay in local "
                                    "memory (tile size from the filter size)"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .kind = XCONV_FFT_TILED,
        .applies = xconv_fft_applies_variant,
        .plan = xconv_fft_plan_variant,
        .runtime_batch = true,
    },
};

const xconv_variant *xconv_fft_variants(int *count)
{
    *count = (int)(sizeof fft_variants / sizeof fft_variants[0]);
    return fft_variants;
}
