// SPDX-License-Identifier: MIT
// peak_mma: the tensor cores' throughput in one reduced math mode (`xconv peaks`), with the
// instruction implicit_mma uses: every warp runs XC_PEAK_MMA_CHAINS independent 16 x 8 fp32
// accumulator tiles through mma.sync (inline PTX, as in cl/implicit_mma.cl) `iters` times, so
// that the tensor cores always have independent instructions to issue whatever their latency.
// Every lane holds the same operand words a_bits and b_bits (A's element and B's, as an int's
// bits; two 16-bit values a word for f16 and bf16), so each instruction adds the same value, step =
// k * a * b, to every accumulator element; they arrive at run time, so nothing folds. A run
// does 2 * 16 * 8 * k FLOPs per instruction, XC_PEAK_MMA_CHAINS * iters instructions per warp,
// and writes one float per work-item (its accumulators' sum, so none is dead code).
// No tile parameters: the host sizes the NDRange from the device's compute units and work-group
// limit, whole warps (host/core/peaks.c), and runs it only on devices with tensor cores
// (NVIDIA compute capability 8.0 or later).

// ---------------------------------------------------------------------------------------------
// Tuning parameters

#ifndef XC_PEAK_MMA_MATH
#define XC_PEAK_MMA_MATH 1     // the xconv_math: 1 tf32 (m16n8k8), 2 f16, 3 bf16 (m16n8k16)
#endif
#ifndef XC_PEAK_MMA_CHAINS
#define XC_PEAK_MMA_CHAINS 8   // independent accumulator tiles per warp (4-16): enough to hide
#endif                         // the mma latency with a few warps per SM sub-partition
#ifndef XC_PEAK_MMA_PTX
#define XC_PEAK_MMA_PTX 1      // 1: mma.sync as inline PTX; 0: the same sums as fp32 adds of step
#endif                         // (CPU devices: tests of the kernel's structure, never a peak)

// ---------------------------------------------------------------------------------------------
// Derived parameters

#if XC_PEAK_MMA_MATH < 1 || XC_PEAK_MMA_MATH > 3
#error "peak_mma: XC_PEAK_MMA_MATH is 1 (tf32), 2 (f16) or 3 (bf16)"
#endif

#if XC_PEAK_MMA_MATH == 1
#define PM_OP "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
#elif XC_PEAK_MMA_MATH == 2
#define PM_OP "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#else
#define PM_OP "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#endif

// ---------------------------------------------------------------------------------------------
// One instruction: acc (a lane's 4 floats of a 16 x 8 tile) += A * B, A and B all a and b

#if XC_PEAK_MMA_PTX
XC_FUNC void pm_mma(float *acc, const unsigned int a, const unsigned int b, const float step)
{
    (void)step;
    float d0, d1, d2, d3;
    asm volatile(PM_OP " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b),
                   "f"(acc[0]), "f"(acc[1]), "f"(acc[2]), "f"(acc[3]));
    acc[0] = d0;
    acc[1] = d1;
    acc[2] = d2;
    acc[3] = d3;
}
#else
XC_FUNC void pm_mma(float *acc, const unsigned int a, const unsigned int b, const float step)
{
    (void)a;
    (void)b;
    for (int j = 0; j < 4; j++)
        acc[j] += step;  // every product of the tile's k is a * b: the row sums are step
}
#endif

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL void peak_mma(XC_GLOBAL float *XC_RESTRICT out, const int iters, const int a_bits,
                        const int b_bits, const float step)
{
    const unsigned int a_word = (unsigned int)a_bits, b_word = (unsigned int)b_bits;
    const int item = XC_GLOBAL_ID(0);  // work-item, bound: the NDRange (one float of out each)
    float acc[XC_PEAK_MMA_CHAINS][4];
#pragma unroll
    for (int c = 0; c < XC_PEAK_MMA_CHAINS; c++)
        for (int j = 0; j < 4; j++)
            acc[c][j] = (float)c + 0.25f * (float)j;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int c = 0; c < XC_PEAK_MMA_CHAINS; c++)
            pm_mma(acc[c], a_word, b_word, step);
    }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < XC_PEAK_MMA_CHAINS; c++)
        sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[item] = sum;
}
