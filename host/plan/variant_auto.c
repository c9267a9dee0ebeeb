// SPDX-License-Identifier: MIT
// "auto": the find-db's fastest passing entry for the shape when the device has a cache with a
// usable record, else the rules, one table of lines each naming a variant, the kind of device
// and the problems it is for (a new family adds its lines); docs/find.md lists them.
#include <stdio.h>
#include <string.h>

#include "core/contract.h"
#include "caches/cache.h"
#include "plan/variant.h"

// ---------------------------------------------------------------------------------------------
// The rules

// The kinds of device a rule line is for (a device that is not a CPU counts as a GPU).
enum { ON_CPU = 1u << 0, ON_GPU = 1u << 1, ON_ANY = ON_CPU | ON_GPU };
// Beside ON_*: a line for a reduced math mode (tf32, f16, bf16) whose variant computes strict
// fp32, more accurately than asked; it plans the problem with math=f32 and the same storage.
enum { FP32_MATH = 1u << 2 };

// One line of the rules: the first line for the device's kind whose condition holds and whose
// variant applies and plans is the choice.
typedef struct auto_rule {
    const char *variant;
    unsigned on;                              // ON_CPU, ON_GPU or ON_ANY, and FP32_MATH
    bool (*when)(const xconv_device_info *dev, const xconv_problem *p);  // NULL: every problem
    const char *why;                          // what explain says about the choice
} auto_rule;

// On GPUs the GEMM-based and transform variants take products at least this wide (output
// channels per group and taps per output) and this large; the rest take direct_regblock. On the
// H100 the GEMM ran fastest on vgg3x3, stem7x7s2, conv5x5, dil3x3d2 and res3x3 and
// direct_regblock on ece408_c1 and ece408_c2 (6 and 16 output channels): bench/results' H100
// records of 6a04005 (CUDA, every variant) and 0a9177f (the direct family).
#define AUTO_GEMM_MIN_KG 32
#define AUTO_GEMM_MIN_TAPS 64
#define AUTO_GEMM_MIN_FLOPS 1e8

// A plan of several steps (Winograd's and the FFT's transforms, implicit_precomp's table) pays
// a launch and a pass through memory a step, which its savings repay only on a layer with at
// least this many FLOPs per compute unit of the device (on the H100's units, about 40 us of
// one unit's fp32 peak). In the H100 records ResNet-50's layers at batch 32 have 5.6e7 a unit
// and went to Winograd F(4x4,3x3) and implicit_precomp; the same layers at batch 1 (1.8e6 to
// 7.0e6) ran fastest as one implicit GEMM or F(2x2,3x3).
#define AUTO_BUSY_FLOPS_PER_UNIT 2e7

// implicit_precomp's offset table (two ints a row of B, a row per input channel and tap) is
// copied into local memory beside the GEMM's tiles; it repays that where it takes at most this
// share of the device's local memory (1/8: 768 rows in 48 KiB). In the H100 records it ran
// ahead of implicit_gemm with 147 and 363 rows (stem7x7s2, alex11x11s4) and behind from 1152.
#define AUTO_TABLE_LOCAL_SHARE 8

// A 1x1, stride-1, unpadded problem: one SGEMM over channels.
static bool pointwise(const xconv_problem *p)
{
    return p->r == 1 && p->s == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_h == 0 &&
           p->pad_w == 0;
}

// A product wide and large enough for the implicit GEMM's tiles on a GPU.
static bool wide(const xconv_device_info *dev, const xconv_problem *p)
{
    (void)dev;
    return p->k / p->groups >= AUTO_GEMM_MIN_KG &&
           p->c / p->groups * p->r * p->s >= AUTO_GEMM_MIN_TAPS &&
           xconv_problem_flops(p) >= AUTO_GEMM_MIN_FLOPS;
}

// Returns p's FLOPs per compute unit of dev (all of them where dev does not say its units).
static double flops_per_unit(const xconv_device_info *dev, const xconv_problem *p)
{
    return xconv_problem_flops(p) / (dev->compute_units > 0 ? dev->compute_units : 1);
}

// Returns the bytes of implicit_precomp's offset table for p (before rounding to K steps).
static int64_t table_bytes(const xconv_problem *p)
{
    return 2 * (int64_t)sizeof(int32_t) * (p->c / p->groups) * p->r * p->s;
}

// Whether p is a wide product (above) with a 1x1 filter: every row of the implicit GEMM's B is
// one input channel, so a table has nothing to precompute.
static bool wide_1x1(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide(dev, p) && p->r == 1 && p->s == 1;
}

// gemm_1x1 takes pointwise products with at least this many filters a group: each row of B
// read from memory then serves two 64-row tiles of filters or more. In the H100 records of
// ResNet-50 at batch 32 it ran 1-4% ahead of implicit_gemm with 128 to 1024 filters and 5-7%
// behind with 64.
#define AUTO_GEMM_1X1_MIN_KG 128

// ... and sums over at least this many input channels a group (the GEMM's K). With 512 to
// 1024 it ran ahead of implicit_gemm in 32 of the 36 H100 records of ResNet-50's res3_reduce,
// res4_reduce(_first) and res5_reduce_first (1-5%); with 64 and 128 (res2_expand_down,
// res3_expand at batches 1 and 32) behind in 12 of 14 (up to 11%); with 256 even.
#define AUTO_GEMM_1X1_MIN_CG 256

// Whether p is a wide pointwise product (above) with AUTO_GEMM_1X1_MIN_KG filters a group or
// more over AUTO_GEMM_1X1_MIN_CG input channels or more, whose input planes are whole float4s,
// so that gemm_1x1 reads B in vectors (the GEMM planner's condition for B from memory, in every
// storage type).
static bool wide_pointwise_vectors(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide(dev, p) && pointwise(p) && p->k / p->groups >= AUTO_GEMM_1X1_MIN_KG &&
           p->c / p->groups >= AUTO_GEMM_1X1_MIN_CG && p->h * p->w % 4 == 0;
}

// Whether p is a wide product with enough work per compute unit for a plan of several steps.
static bool wide_busy(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide(dev, p) && flops_per_unit(dev, p) >= AUTO_BUSY_FLOPS_PER_UNIT;
}

// Whether p is a wide busy product whose offset table fits its share of local memory.
static bool wide_busy_small_table(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_busy(dev, p) &&
           (uint64_t)table_bytes(p) * AUTO_TABLE_LOCAL_SHARE <= dev->local_mem_bytes;
}

// A stem over an image's few channels (at most this many a group) at a stride of at least
// AUTO_STEM_MIN_STRIDE both ways takes direct_regblock where it is busy: on alex11x11s4 (3
// channels, 11x11, stride 4) it ran ahead of implicit_precomp in all 16 H100 records that time
// both (8 a backend: 1-3% through CUDA, 5-7% through OpenCL). At stride 2 (stem7x7s2) it ran
// 8x behind, so the line asks for 4.
#define AUTO_STEM_MAX_CG 4
#define AUTO_STEM_MIN_STRIDE 4

// Whether p is a wide busy product over at most AUTO_STEM_MAX_CG input channels a group with a
// stride of at least AUTO_STEM_MIN_STRIDE in both directions.
static bool wide_busy_strided_stem(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_busy(dev, p) && p->c / p->groups <= AUTO_STEM_MAX_CG &&
           p->stride_h >= AUTO_STEM_MIN_STRIDE && p->stride_w >= AUTO_STEM_MIN_STRIDE;
}

// Depthwise layers (one input channel and one filter a group) go to direct_depthwise, whose
// work-items stream strips of outputs down a column (cl/direct_depthwise.cl): on a layer of
// about 2 FLOP/byte the time is the bytes moved, and the kernel reads each input row once a
// strip with neighbouring items on neighbouring columns. Not yet timed on a GPU: the line
// replaces one that took direct_tiled_db at stride 1 on outputs 28 or more wide with > 1e5
// FLOPs a compute unit, and the next line's direct_naive elsewhere (each within 3% of the
// direct family's fastest on MobileNet-v2's ten depthwise layers at batch 32, both backends:
// bench/results/2026-11-27-h100-3a64594-matrix_depthwise_b32_{1,2}.json; docs/find.md keeps
// that evidence). direct_regblock, with one filter a group to block over, ran 1.2-2.0x behind
// the fastest there. The direct_naive line stays for filters direct_depthwise does not take.

// Whether p is depthwise: one input channel and one filter a group.
static bool depthwise(const xconv_device_info *dev, const xconv_problem *p)
{
    (void)dev;
    return p->groups > 1 && p->c == p->groups && p->k == p->groups;
}

// Products that are not wide (few taps, or few filters on a 1x1 filter) but large: in the
// device-time matrices of the network files (2026-11-28-h100-b66cac2-matrix_rules_*.json, both
// backends) the implicit GEMM ran ahead of direct_regblock, or within 3% of the fastest, on every
// such layer: 3x3 stems over 3 channels with 32 or 64 filters (MobileNet v1/v2 1.37-1.42x,
// VGG-16's conv1_1 1.52-1.58x), 1x1 layers over 16 to 32 channels (MobileNet-v2's expands and
// v1's first pointwise, 1.12-1.30x), and 1x1 projections to 16 or 24 filters (1.04-1.59x), and
// ResNet-50's res2_reduce_first at batch 1 (2.6e7 FLOPs, 1.42-1.46x). direct_regblock stays the
// fastest on the ece408 layers (5x5 over 1 and 6 channels to 6 and 16 filters, 3-6x ahead: too
// few filters for the GEMM's 64-row tiles) and on 1x1 layers under 1e7 FLOPs (the cut
// MobileNet-v2 projection at batch 1, 7.2e6; pw1x1, 3.2e6).
#define AUTO_GEMM_1X1_NARROW_MIN_FLOPS 2e7

// Whether p is not depthwise and has >= AUTO_GEMM_MIN_KG filters a group and
// AUTO_GEMM_MIN_FLOPS, or is a 1x1 product with AUTO_GEMM_1X1_NARROW_MIN_FLOPS.
static bool large_not_wide(const xconv_device_info *dev, const xconv_problem *p)
{
    if (depthwise(dev, p))
        return false;
    double flops = xconv_problem_flops(p);
    return (p->k / p->groups >= AUTO_GEMM_MIN_KG && flops >= AUTO_GEMM_MIN_FLOPS) ||
           (p->r == 1 && p->s == 1 && flops >= AUTO_GEMM_1X1_NARROW_MIN_FLOPS);
}

// Whether p is a wide product (above) at stride 1 and dilation 1.
static bool wide_stride1(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide(dev, p) && p->stride_h == 1 && p->stride_w == 1 && p->dil_h == 1 &&
           p->dil_w == 1;
}

// Whether p is a wide stride-1 product with a 3x3 filter.
static bool wide_3x3(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_stride1(dev, p) && p->r == 3 && p->s == 3;
}

// Whether p is a wide busy stride-1 3x3 product.
static bool wide_3x3_busy(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_3x3(dev, p) && flops_per_unit(dev, p) >= AUTO_BUSY_FLOPS_PER_UNIT;
}

// Whether p is a wide stride-1 3x3 product with a quarter of the busy work a unit: F(2x2,3x3)
// makes a GEMM column of each 2x2 output tile, four times the columns of F(4x4,3x3), so its
// products fill the units at a quarter of the work.
static bool wide_3x3_quarter_busy(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_3x3(dev, p) && flops_per_unit(dev, p) >= AUTO_BUSY_FLOPS_PER_UNIT / 4;
}

// Below a quarter of the busy work, Winograd's products still fill the units where the output
// planes are large: each 2x2 tile of a 56x56 plane is a GEMM column, 784 of them an image. In
// the device-time region (the H100, both backends: 2026-11-28-h100-c029fce-matrix_rules_*.json)
// ResNet-50's res2_3x3 at batch 1 (1.8e6 FLOPs a unit) ran F(2x2,3x3) 1.19-1.20x ahead of the
// implicit GEMM; its 7x7 res5_3x3 (1.8e6) and AlexNet's 13x13 conv3 (2.3e6) 1.2-1.6x behind.
#define AUTO_WINO_LIGHT_FLOPS_PER_UNIT 1e6
#define AUTO_WINO_LIGHT_MIN_PLANE (56 * 56)

// Whether p has at least AUTO_WINO_LIGHT_FLOPS_PER_UNIT a unit and output planes of
// AUTO_WINO_LIGHT_MIN_PLANE or more.
static bool light_large_plane(const xconv_device_info *dev, const xconv_problem *p)
{
    return flops_per_unit(dev, p) >= AUTO_WINO_LIGHT_FLOPS_PER_UNIT &&
           xconv_problem_out_h(p) * xconv_problem_out_w(p) >= AUTO_WINO_LIGHT_MIN_PLANE;
}

// Whether p is a wide stride-1 3x3 product with a quarter of the busy work a unit, or less
// work on large planes (above).
static bool wide_3x3_quarter_busy_or_plane(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_3x3_quarter_busy(dev, p) || (wide_3x3(dev, p) && light_large_plane(dev, p));
}

// On CPUs F(4x4,3x3) takes outputs at least this wide; narrower ones take F(2x2,3x3).
#define AUTO_CPU_F43_MIN_OUT_W 28

// Whether p is a wide stride-1 3x3 product whose output is wide enough for 4x4 tiles on a CPU.
static bool wide_3x3_wide_out(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_3x3(dev, p) && xconv_problem_out_w(p) >= AUTO_CPU_F43_MIN_OUT_W;
}

// Whether p is a wide stride-1 product with a 5x5 filter.
static bool wide_5x5(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_stride1(dev, p) && p->r == 5 && p->s == 5;
}

// Whether p is a wide stride-1 5x5 product with at least AUTO_WINO_LIGHT_FLOPS_PER_UNIT a unit
// (the FFT's line takes the busy ones first). F(2x2,5x5) makes a GEMM column of each 2x2 tile:
// on AlexNet's conv2 at batch 1 (27x27 planes, 3.4e6 FLOPs a unit) it ran 1.24-1.26x ahead of
// the implicit GEMM through both backends (2026-11-28-h100-c029fce-matrix_rules_*.json).
static bool wide_5x5_light(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_5x5(dev, p) && flops_per_unit(dev, p) >= AUTO_WINO_LIGHT_FLOPS_PER_UNIT;
}

// Whether p is a wide stride-1 product with a filter of at least 7x7 in both directions.
static bool wide_7x7_up(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_stride1(dev, p) && p->r >= 7 && p->s >= 7;
}

// Whether p is a wide busy stride-1 product with a filter of at least 5x5.
static bool wide_5x5_up_busy(const xconv_device_info *dev, const xconv_problem *p)
{
    return wide_stride1(dev, p) && p->r >= 5 && p->s >= 5 &&
           flops_per_unit(dev, p) >= AUTO_BUSY_FLOPS_PER_UNIT;
}

// A group's filters that fill less than one 16-row tile of the tensor cores' mma (depthwise
// layers: one): implicit_mma would run its tensor cores at KG/16 of their rows.
#define AUTO_MMA_MIN_KG 16

// Whether p asks for a reduced math mode and is a wide busy stride-1 product with a filter of
// 7x7 or more (the FFT's line in fp32): implicit_mma's K of C x R x S taps per output.
static bool reduced_large_filter(const xconv_device_info *dev, const xconv_problem *p)
{
    return p->math != XCONV_MATH_F32 && wide_7x7_up(dev, p) &&
           flops_per_unit(dev, p) >= AUTO_BUSY_FLOPS_PER_UNIT;
}

// Output planes at most this wide and high for tf32's Winograd line below: on ResNet-50's
// stride-1 3x3 layers at batch 32 and 50 winograd_f43 in fp32 math ran 1.5-1.8x faster than
// implicit_mma in tf32 on 28x28, 14x14 and 7x7 planes, 1.26x slower on 56x56.
#define AUTO_TF32_WINOGRAD_MAX_PLANE 28

// Whether p asks for tf32 and is a wide 1x1 layer that reduces channels (filters a group at
// most half its input channels): there implicit_mma's blocks hold few rows over a long K, and
// the fp32 GEMMs ran 1.1-3x faster on ResNet-50's and MobileNet-v2's projections. Not where
// implicit_mma runs its packed pipeline (xconv_mma_packed_pays: on such a layer, output planes
// of at most 28x28 with at least 256 filters a group), which ran ResNet-50's channel-reducing
// 1x1 layers of that kind at batch 50 in tf32 1.4-2.0x faster than the fp32 GEMMs (res1x1,
// res4_reduce, res4_reduce_first, res5_reduce, res5_reduce_first:
// 2026-11-27-h100-08c3a2a-mma_new_tf32.json); res3_reduce (128 filters) kept the fp32 GEMM
// 1.10x ahead of implicit_mma's register pipeline.
static bool tf32_projection(const xconv_device_info *dev, const xconv_problem *p)
{
    return p->math == XCONV_MATH_TF32 && wide(dev, p) && pointwise(p) &&
           2 * (p->k / p->groups) <= p->c / p->groups && !xconv_mma_packed_pays(p);
}

// tf32_projection with gemm_1x1's condition (wide_pointwise_vectors).
static bool tf32_projection_vectors(const xconv_device_info *dev, const xconv_problem *p)
{
    return tf32_projection(dev, p) && wide_pointwise_vectors(dev, p);
}

// Whether p asks for tf32 and is Winograd's busy 3x3 layer with small output planes.
static bool tf32_winograd(const xconv_device_info *dev, const xconv_problem *p)
{
    return p->math == XCONV_MATH_TF32 && wide_3x3_busy(dev, p) &&
           xconv_problem_out_h(p) <= AUTO_TF32_WINOGRAD_MAX_PLANE &&
           xconv_problem_out_w(p) <= AUTO_TF32_WINOGRAD_MAX_PLANE;
}

// Whether p asks for a reduced math mode and has fewer than AUTO_MMA_MIN_KG filters a group.
static bool reduced_narrow_groups(const xconv_device_info *dev, const xconv_problem *p)
{
    (void)dev;
    return p->math != XCONV_MATH_F32 && p->k / p->groups < AUTO_MMA_MIN_KG;
}

// On CPUs (the H100 host's CPU through PoCL, 8 cores): the fused Winograd variants ran fastest
// on the cut vgg3x3 (F(4x4,3x3)), res3x3 (F(2x2,3x3): a 14x14 output has few 4x4 tiles) and
// conv5x5 (F(2x2,5x5)), fft_tiled on big11x11
// (bench/results/2026-11-23-h100-8d14d95-matrix_pocl_host8.json). On PoCL direct_const (vector
// columns, filters as constant offsets) ran fastest of the direct family on every small-suite
// shape and on the 8 cut standard shapes it applies to
// (bench/results/2026-11-22-pocl2core-0a9177f-bench_*.json); where the filters pass constant
// memory (res3x3) im2col_gemm ran ahead of the direct kernels.
// On GPUs (the H100 through CUDA and NVIDIA's OpenCL): the records every line's choice comes
// from are those scripts/auto_rules_check.py reads, every variant on the standard suite,
// ResNet-50's layers at batch 32, the small suite and ten network layers at batch 1;
// docs/find.md has the table with each line's evidence.
static const auto_rule rules[] = {
    {"winograd_f43_fused", ON_CPU, wide_3x3_wide_out,
     "a wide 3x3 stride-1 layer with outputs >= 28 wide on a CPU: fused Winograd F(4x4,3x3)"},
    {"winograd_f23_fused", ON_CPU, wide_3x3,
     "a wide 3x3 stride-1 layer with narrow outputs on a CPU: fused Winograd F(2x2,3x3)"},
    {"winograd_f25_fused", ON_CPU, wide_5x5,
     "a wide 5x5 stride-1 layer on a CPU: fused Winograd F(2x2,5x5)"},
    {"fft_tiled", ON_CPU, wide_7x7_up,
     "a wide stride-1 layer with a 7x7 or larger filter on a CPU: tiled FFT convolution"},
    {"direct_const", ON_CPU, NULL,
     "on a CPU the filters in constant memory run fastest where they fit"},
    {"im2col_gemm", ON_CPU, NULL,
     "on a CPU, with the filters too large for constant memory, im2col and our SGEMM"},
    {"gemm_1x1", ON_GPU, wide_pointwise_vectors,
     "a wide 1x1 stride-1 unpadded layer with >= 128 filters and >= 256 input channels a group "
     "and input planes of whole float4s on a GPU: one SGEMM over channels, B read in vectors"},
    {"implicit_gemm", ON_GPU, wide_1x1,
     "a wide 1x1 layer on a GPU, strided, padded, with < 128 filters or < 256 input channels a "
     "group or planes not whole float4s: the implicit GEMM (a 1x1 filter leaves a table nothing "
     "to precompute)"},
    {"winograd_f43", ON_GPU, wide_3x3_busy,
     "a wide 3x3 stride-1 layer with >= 2e7 FLOPs a compute unit on a GPU: Winograd F(4x4,3x3) "
     "(error checked over 4x4 blocks)"},
    {"winograd_f23", ON_GPU, wide_3x3_quarter_busy_or_plane,
     "a wide 3x3 stride-1 layer with 5e6 to 2e7 FLOPs a compute unit, or >= 1e6 on output "
     "planes of >= 56x56, on a GPU: Winograd F(2x2,3x3), whose GEMMs have 4x the columns of "
     "F(4x4,3x3)'s"},
    {"fft_tiled", ON_GPU, wide_5x5_up_busy,
     "a wide stride-1 layer with a 5x5 or larger filter and >= 2e7 FLOPs a compute unit on a "
     "GPU: tiled FFT convolution"},
    {"winograd_f25", ON_GPU, wide_5x5_light,
     "a wide 5x5 stride-1 layer with 1e6 to 2e7 FLOPs a compute unit on a GPU: Winograd "
     "F(2x2,5x5), a GEMM column each 2x2 output tile"},
    {"direct_regblock", ON_GPU, wide_busy_strided_stem,
     "a wide layer over <= 4 input channels a group at stride >= 4 with >= 2e7 FLOPs a compute "
     "unit on a GPU (an image's stem): register-blocked direct convolution"},
    {"implicit_precomp", ON_GPU, wide_busy_small_table,
     "a wide layer with >= 2e7 FLOPs a compute unit and an offset table of at most 1/8 of local "
     "memory on a GPU: implicit GEMM reading the table"},
    {"implicit_gemm", ON_GPU, wide_busy,
     "a wide layer with >= 2e7 FLOPs a compute unit on a GPU whose offset table would take more "
     "than 1/8 of local memory: the implicit GEMM, decoding each row's channel and tap itself"},
    {"implicit_gemm", ON_GPU, wide,
     "a wide layer with < 2e7 FLOPs a compute unit on a GPU: one implicit GEMM, one launch "
     "(Winograd's, the FFT's and implicit_precomp's plans take several)"},
    // The depthwise lines plan a reduced math mode in fp32 math too: the tensor cores' 16-row
    // tiles would hold one filter (in tf32 on MobileNet-v2's b3 layer at batch 32 direct_tiled_db
    // in fp32 math ran 0.063 ms, implicit_mma 0.281: 2026-11-27-h100-bc6674b-find_tf32_fp32_math;
    // direct_depthwise has taken the line since, untimed in tf32).
    {"direct_depthwise", ON_GPU | FP32_MATH, depthwise,
     "a depthwise layer on a GPU: strips of outputs down a column, each input row read once a "
     "strip (a reduced math mode in fp32 math: more accurate than asked)"},
    {"direct_naive", ON_GPU | FP32_MATH, depthwise,
     "a depthwise layer on a GPU whose filter direct_depthwise does not take: one work-item an "
     "output (a reduced math mode in fp32 math: more accurate than asked)"},
    {"implicit_gemm", ON_GPU, large_not_wide,
     "a large product that is not wide on a GPU (>= 32 filters a group and >= 1e8 FLOPs over "
     "< 64 taps, or a 1x1 filter and >= 2e7 FLOPs): the implicit GEMM"},
    {"direct_regblock", ON_GPU, NULL,
     "a narrow or small product on a GPU (< 32 filters a group, < 64 taps or < 1e8 FLOPs): "
     "register-blocked direct convolution"},
    {"implicit_precomp", ON_GPU, NULL, "on a GPU, where direct_regblock does not plan"},
    // Reduced math: of the lines above only the depthwise ones apply (the others' variants
    // compute strict fp32 only). The FP32_MATH lines below plan it in fp32 math where our
    // fp32 kernels ran faster than the tensor cores (docs/find.md has each line's evidence).
    // On big11x11 in tf32 fft_tiled ran 0.26 ms, implicit_mma 1.71 and cuDNN's find 0.39.
    {"fft_tiled", ON_GPU | FP32_MATH, reduced_large_filter,
     "math=tf32, f16 or bf16 on a wide busy stride-1 layer with a 7x7 or larger filter on a "
     "GPU: tiled FFT convolution in fp32 math (more accurate than asked), the same storage"},
    {"gemm_1x1", ON_GPU | FP32_MATH, tf32_projection_vectors,
     "math=tf32 on a wide 1x1 layer that halves its channels or more, planes of whole float4s, "
     "on a GPU: one SGEMM over channels in fp32 math (more accurate than asked)"},
    {"implicit_gemm", ON_GPU | FP32_MATH, tf32_projection,
     "math=tf32 on a wide 1x1 layer that halves its channels or more on a GPU: the implicit "
     "GEMM in fp32 math (more accurate than asked)"},
    {"winograd_f43", ON_GPU | FP32_MATH, tf32_winograd,
     "math=tf32 on a wide busy 3x3 stride-1 layer with outputs of at most 28x28 on a GPU: "
     "Winograd F(4x4,3x3) in fp32 math (more accurate than asked; error checked over 4x4 "
     "blocks)"},
    // Narrow groups that are not depthwise (the depthwise lines above take those). On
    // MobileNet-v2's depthwise layers in tf32, before those lines, this line ran 1.55x cuDNN's
    // find (geo-mean), implicit_mma 0.54-1.37x.
    {"direct_regblock", ON_GPU | FP32_MATH, reduced_narrow_groups,
     "math=tf32, f16 or bf16 with < 16 filters a group (depthwise) on a GPU: the tensor cores' "
     "16-row tiles would be mostly empty; register-blocked direct convolution in fp32 math "
     "(more accurate than asked), the same storage"},
    {"implicit_mma", ON_GPU, NULL,
     "math=tf32, f16 or bf16 on a GPU with NVIDIA tensor cores: implicit GEMM on mma.sync"},
    {"direct_naive", ON_ANY, NULL, "the baseline, where nothing else plans"},
};

// Writes the problem's features the GPU lines read into buf (len bytes): FLOPs per compute
// unit and the offset table's bytes beside local memory.
static void gpu_features(const xconv_device_info *dev, const xconv_problem *p, char *buf,
                         size_t len)
{
    snprintf(buf, len, " [%.3g FLOPs a compute unit of %d; offset table %lld of %llu local "
             "bytes]", flops_per_unit(dev, p), dev->compute_units, (long long)table_bytes(p),
             (unsigned long long)dev->local_mem_bytes);
}

// Families whose variants auto never chooses: references, and the vendors' libraries.
static const char *const not_chosen[] = {"reference", "peer"};

bool xconv_variant_auto_eligible(const xconv_variant *v)
{
    if (!v)
        return false;
    for (size_t i = 0; i < sizeof not_chosen / sizeof not_chosen[0]; i++)
        if (strcmp(v->info.family, not_chosen[i]) == 0)
            return false;
    return v->info.backends != 0;
}

const char *xconv_auto_source_name(xconv_auto_source source)
{
    switch (source) {
    case XCONV_AUTO_DB: return "find-db";
    case XCONV_AUTO_DB_STALE: return "find-db (stale)";
    case XCONV_AUTO_RULES: break;
    }
    return "rules";
}

// ---------------------------------------------------------------------------------------------
// Choosing

// Plans by the first rule line that plans p on dev; fills info (its why: the line, `note`, the
// GPU features, db_note). Returns XCONV_OK, or the failure of a line's planning that was not
// XCONV_ERR_NOT_APPLICABLE, or that status.
static xconv_status first_rule(xconv_device *dev, const xconv_problem *p,
                               const xconv_plan_options *opts, const char *note,
                               const char *db_note, xconv_auto_info *info, xconv_plan **plan,
                               xconv_error *err)
{
    unsigned kind = dev->info.is_cpu ? ON_CPU : ON_GPU;
    xconv_status st = xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "auto: no variant plans");
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const auto_rule *r = &rules[i];
        const xconv_variant *v = xconv_variant_find(r->variant, NULL);
        if (!(r->on & kind) || (r->when && !r->when(&dev->info, p)) || !v)
            continue;
        xconv_problem fp32_math = *p;
        if (r->on & FP32_MATH)
            fp32_math.math = XCONV_MATH_F32;
        st = xconv_variant_plan(v, dev, &fp32_math, opts, plan, err);
        if (st == XCONV_ERR_NOT_APPLICABLE)
            continue;
        if (st == XCONV_OK) {
            char features[128] = "";
            if (kind == ON_GPU)
                gpu_features(&dev->info, p, features, sizeof features);
            info->variant = v;
            info->source = XCONV_AUTO_RULES;
            snprintf(info->why, sizeof info->why, "rules, line %zu: %s%s%s%s", i + 1, r->why,
                     note, features, db_note);
        }
        break;
    }
    return st;
}

// Plans by the rules (first_rule). A reduced math mode that no line plans (a device without
// the matrix engines of any variant auto picks: CPUs, AMD GPUs, Intel's, whose implicit_xmx is
// unmeasured) is planned by the rules in fp32 math: more accurate than asked, never less, in
// the same storage.
static xconv_status from_rules(xconv_device *dev, const xconv_problem *p,
                               const xconv_plan_options *opts, xconv_auto_info *info,
                               xconv_plan **plan, xconv_error *err)
{
    char db_note[sizeof info->why / 2];
    snprintf(db_note, sizeof db_note, "%s%.*s",
             !dev->cache || (dev->cache->flags & XCONV_CACHE_NO_FIND_DB) ? ""
             : info->stale_ignored ? "; the find-db's record is stale (re-time it: xconv find)"
             : info->why[0] ? "; " : "; the find-db has no record of the shape",
             (int)sizeof db_note - 64, info->why);
    xconv_status st = first_rule(dev, p, opts, "", db_note, info, plan, err);
    if (st != XCONV_ERR_NOT_APPLICABLE || p->math == XCONV_MATH_F32)
        return st;
    xconv_problem fp32_math = *p;
    fp32_math.math = XCONV_MATH_F32;
    char note[96];
    snprintf(note, sizeof note, " (in fp32 math: no variant auto picks computes math=%s here)",
             xconv_math_name(p->math));
    return first_rule(dev, &fp32_math, opts, note, db_note, info, plan, err);
}

// Writes the why of a find-db choice: entry `at` of rec (of `passing` passing ones).
static void db_why(const xconv_find_record *rec, int at, int passing, bool stale,
                   const xconv_device_info *dev_info, xconv_auto_info *info)
{
    const xconv_find_entry *e = &rec->entries[at];
    int n = snprintf(info->why, sizeof info->why, "find-db: fastest of %d passing in a %s find "
                     "of %s, %.4g ms%s%s%s%s%s", passing, rec->mode, rec->date, e->median_ms,
                     e->tuning.math[0] ? ", in fp32 math (more accurate than asked)" : "",
                     e->tuning.direct_tiling[0] || e->tuning.gemm_tiles[0] ? ", tuned " : "",
                     e->tuning.direct_tiling, e->tuning.direct_tiling[0] &&
                     e->tuning.gemm_tiles[0] ? " " : "", e->tuning.gemm_tiles);
    if (at > 0 && n > 0 && (size_t)n < sizeof info->why)
        n += snprintf(info->why + n, sizeof info->why - (size_t)n,
                      " (the %d faster do not plan now)", at);
    if (stale && n > 0 && (size_t)n < sizeof info->why)
        snprintf(info->why + n, sizeof info->why - (size_t)n,
                 "; stale, trusted: made under driver '%s', xconv %s, kernels %s (now '%s', "
                 "%s, %s)", rec->driver, rec->xconv, rec->kernels, dev_info->driver,
                 XCONV_VERSION, xconv_kernels_hash());
}

// Plans the fastest passing entry of dev's find-db record for p that plans; fills info and
// *plan, or leaves *plan NULL (no usable record: info->stale_ignored says whether one was
// stale).
static void from_db(xconv_device *dev, const xconv_problem *p, const xconv_plan_options *opts,
                    xconv_auto_info *info, xconv_plan **plan)
{
    xconv_error err = {0};  // what does not plan falls back, unreported
    xconv_cache *cache = dev->cache;
    xconv_find_record rec;
    bool stale = false;
    *plan = NULL;
    if (!cache || (cache->flags & XCONV_CACHE_NO_FIND_DB))
        return;
    xconv_status st = xconv_find_db_lookup(cache, &dev->info, p, &rec, &stale, &err);
    if (st != XCONV_OK) {
        if (st != XCONV_ERR_NOT_FOUND) {
            pthread_mutex_lock(&cache->mutex);
            xconv_cache_warn(cache, "the find-db could not be read: %s", err.msg);
            pthread_mutex_unlock(&cache->mutex);
        }
        return;
    }
    info->stale_ignored = stale && !(cache->flags & XCONV_CACHE_TRUST_STALE);
    int passing = 0;
    for (int i = 0; i < rec.count; i++)
        passing += rec.entries[i].passed;
    for (int i = 0; !info->stale_ignored && i < rec.count && !*plan; i++) {
        const xconv_find_entry *e = &rec.entries[i];
        const xconv_variant *v = xconv_variant_find(e->variant, NULL);
        if (!e->passed || !v || !xconv_variant_auto_eligible(v))
            continue;
        xconv_plan_options o;
        if (opts)
            o = *opts;
        else
            xconv_plan_options_default(&o);
        xconv_tuning t = e->tuning;  // fills only what the caller left to the planner
        xconv_tuning_keep_forced(&o, &t);
        if (xconv_tuning_apply(&t, &o, &err) != XCONV_OK ||
            xconv_variant_plan(v, dev, p, &o, plan, &err) != XCONV_OK)
            continue;
        info->variant = v;
        info->source = stale ? XCONV_AUTO_DB_STALE : XCONV_AUTO_DB;
        info->tuning = t;
        info->db_ms = e->median_ms;
        db_why(&rec, i, passing, stale, &dev->info, info);
    }
    if (!*plan && !info->stale_ignored)
        snprintf(info->why, sizeof info->why, "%s",
                 passing ? "no passing entry of the find-db's record plans now"
                         : "no variant passed in the find-db's record");
    xconv_find_record_free(&rec);
}

xconv_status xconv_auto_plan(xconv_device *dev, const xconv_problem *p,
                             const xconv_plan_options *opts, xconv_auto_info *info,
                             xconv_plan **out, xconv_error *err)
{
    memset(info, 0, sizeof *info);
    xconv_plan *plan = NULL;
    from_db(dev, p, opts, info, &plan);
    xconv_status st = plan ? XCONV_OK : from_rules(dev, p, opts, info, &plan, err);
    if (plan) {
        plan->is_auto = true;
        plan->auto_info = *info;
    }
    if (out)
        *out = plan;
    else
        xconv_plan_destroy(plan);
    return st;
}

xconv_status xconv_auto_choose(xconv_device *dev, const xconv_problem *p,
                               const xconv_plan_options *opts, xconv_auto_info *out,
                               xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    memset(out, 0, sizeof *out);
    xconv_status st = xconv_problem_check(p, err);
    if (st == XCONV_OK)
        st = xconv_plan_options_check(opts, err);
    if (st == XCONV_OK)
        st = xconv_auto_plan(dev, p, opts, out, NULL, err);
    return st == XCONV_OK ? xconv_error_clear(err) : st;
}

bool xconv_plan_auto_info(const xconv_plan *plan, xconv_auto_info *out)
{
    if (!plan || !out || !plan->is_auto)
        return false;
    *out = plan->auto_info;
    return true;
}
