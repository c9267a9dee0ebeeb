// SPDX-License-Identifier: MIT
// The thresholds table: how far from the float64 reference each variant family may land.
#include <math.h>
#include <string.h>

#include "measure/check.h"

// The error measure is |y - ref| / sum|x*w| per element (host/measure/compare.c), so it does not
// grow with the values' magnitude or with cancellation. Summing m float32 products in any order
// (sequential, tiled, tree) has a worst-case error of about m * 2^-24 * sum|x*w|, and a typical
// one near sqrt(m) * 2^-24: for the reduction sizes in the suites (m = C/groups * R * S up to a
// few thousand) that is 1e-7 to 1e-6, orders of magnitude under 1e-5. A wrong index, a missing
// tap or a stale tile moves an element by a whole term, on the order of 1e-1 of its scale, so
// 1e-5 separates right from wrong with room on both sides. Winograd and FFT add transform
// rounding whose terms are scaled by the transform matrices, so the families get ten times more
// room, and each Winograd algorithm has its own entry from its measured error over its m x m
// output block (the harness applies thresholds to max_block_err; docs/validation.md). Largest
// measured on PoCL (the fused and non-fused variants of one F(m,r) give the same bits) over the
// small suite, 150 random 3x3/5x5 stride-1 shapes (every padding up to r, grouped, depthwise)
// and the standard suite's 3x3/5x5 layers (batch cut, device reference):
//     F(2x2,3x3) 4.2e-7, F(4x4,3x3) 3.1e-6, F(2x2,5x5) 2.1e-6 (direct float32: 3.2e-7).
// Each threshold is seven to ten times its worst, still four orders under a bug's error.

typedef struct family_threshold {
    const char *family;
    double threshold;
} family_threshold;

static const family_threshold thresholds[] = {
    { "reference", 1e-5 },
    { "direct", 1e-5 },
    { "gemm", 1e-5 },
    { "peer", 1e-5 },
    { "winograd", 1e-4 },
    { "winograd_f23", 3e-6 },
    { "winograd_f43", 3e-5 },
    { "winograd_f25", 2e-5 },
    { "fft", 1e-4 },
};

// For a family not in the table: the strictest bound, so a new family must earn more room here.
#define DEFAULT_THRESHOLD 1e-5

// Variants with a threshold of their own, on the error over their block of outputs
// (xconv_plan_error_block; docs/validation.md): the family's entry above then does not apply.
//
// fft and fft_tiled: the largest block-normalised errors measured on PoCL are 3.0e-7 against
// the float64 host reference (small suite, 200 random shapes of which 80 are stride 1 and
// dilation 1, 1x1 filters and single-product outputs included; whole-image transforms of 8 to
// 256 with 1, 8 and 64 channels; tiles of 8 to 64) and 3.7e-7 on the standard suite, where
// the float32 device reference's own rounding is part of it. The block error does not grow
// with the transform size over that range (2.3e-7 at 8, 2.8e-7 at 256: rounding grows with
// log L), while a wrong index, tile or crop moves outputs by whole terms, 1e-2 to 1e-1 of
// their block's scale. fft_tiled's tiles stay at most 64 wide: 5e-6 is 13 times its largest measurement.
// fft's transforms reach up to 4096 where local memory allows, with up to 1.5 times the
// rounding of 256 (log2 L^2 from 16 to 24): 1e-5.
typedef struct variant_threshold {
    const char *variant;
    double threshold;
} variant_threshold;

static const variant_threshold variant_thresholds[] = {
    { "fft", 1e-5 },
    { "fft_tiled", 5e-6 },
};

double xconv_threshold_for_family(const char *family)
{
    if (family) {
        for (size_t i = 0; i < sizeof thresholds / sizeof thresholds[0]; i++)
            if (strcmp(family, thresholds[i].family) == 0)
                return thresholds[i].threshold;
    }
    return DEFAULT_THRESHOLD;
}

double xconv_threshold_for_variant(const xconv_variant_info *v)
{
    if (!v)
        return NAN;
    for (size_t i = 0; i < sizeof variant_thresholds / sizeof variant_thresholds[0]; i++)
        if (strcmp(v->name, variant_thresholds[i].variant) == 0)
            return variant_thresholds[i].threshold;
    return xconv_threshold_for_family(v->accuracy);
}

// Reduced storage (dtype f16 or bf16, fp32 math). The harness rounds the random inputs to the
// storage type before anything uses them, so the float64 reference runs over exactly the values
// the kernel reads, and input rounding is no part of the measured error. The products of two
// fp16 values (11-bit significands) or two bf16 values (8-bit) are exact in fp32 (24 bits), so
// the sum carries the same fp32 rounding as an fp32 kernel's: the family's threshold. What is
// new is the output's own rounding to the storage type: at most half an ulp, 2^-11 of |y| for
// fp16 and 2^-8 for bf16 (round to nearest, normal range), and since |y| <= sum|x*w| that is at
// most the same share of the error measure's scale. The threshold is the family's plus it
// (fp16: 1e-5 + 4.9e-4). Outputs past fp16's largest finite value (65504) become infinite and
// fail as non-finite; outputs under its normal range (6.1e-5) round to a subnormal whose error
// may pass 2^-11 of |y|, which the suites' inputs (uniform in [-1, 1)) do not reach.
double xconv_threshold_storage(int64_t dtype)
{
    switch (dtype) {
    case XCONV_DTYPE_F16: return 0x1p-11;
    case XCONV_DTYPE_BF16: return 0x1p-8;
    default: return 0.0;
    }
}

// Reduced math (math tf32, f16 or bf16: NVIDIA tensor cores' mma.sync, implicit_mma). Two
// parts, both bounds on the error measure (|y - ref| / sum|x*w|), whatever the inputs:
// - Operands: tf32 keeps 10 of fp32's 23 mantissa bits, each operand rounded to nearest (ties
//   away): a relative error of at most 2^-11 each, so every product is off by at most
//   (1 + 2^-11)^2 - 1 < 2^-10 + 2^-22 of |x*w|, and the sum of those errors is at most that
//   share of sum|x*w|. fp16 and bf16 operands are the stored values: their products are exact.
// - Accumulation: the tensor cores add each instruction's products (8 for tf32, 16 for fp16 and
//   bf16) to the fp32 accumulator with truncation rather than round-to-nearest (Fasi et al.,
//   "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021: A100), up to about 2^-22 of the
//   running magnitude an instruction, which is at most sum|x*w|. Over K / 8 instructions that
//   is K * 2^-25, 2^-12 (2.4e-4) for K up to 4096 (the standard suite's largest reduction is
//   512 * 3 * 3 = 4608 at k 16 a step: 288 instructions, 6.9e-5).
// The family's fp32 threshold stays beside them (it covers the emulated path's fp32 sums). The
// check stays sensitive: a wrong term moves an output by about 1/m of its scale, still caught
// by the tf32 threshold (1.2e-3 over the family's) for reductions of m up to about 800 terms
// of similar size, and by the f16/bf16 math term alone up to about 4000.
double xconv_threshold_math(int64_t math)
{
    switch (math) {
    case XCONV_MATH_TF32: return 0x1p-10 + 0x1p-12;
    case XCONV_MATH_F16:
    case XCONV_MATH_BF16: return 0x1p-12;
    default: return 0.0;
    }
}

bool xconv_compare_passed(const xconv_compare_result *r, double threshold)
{
    return r->compared > 0 && r->nonfinite == 0 && r->max_norm_err <= threshold;
}
