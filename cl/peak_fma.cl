// SPDX-License-Identifier: MIT
// peak_fma: the device's fp32 FMA throughput (`xconv peaks`). Each work-item runs XC_PEAK_CHAINS
// independent chains acc = acc * a + b of fused multiply-adds (each XC_PEAK_VEC lanes wide),
// `iters` times, so that every compute unit always has independent FMAs to issue whatever their
// latency; a and b arrive at run time, so the compiler can fold nothing. A run does
// 2 * XC_PEAK_CHAINS * XC_PEAK_VEC * iters FLOPs per work-item and writes one float per
// work-item (the chains' sum, so none is dead code).
// No tile parameters: the host sizes the NDRange from the device's compute units and work-group
// limit (host/core/peaks.c).

// ---------------------------------------------------------------------------------------------
// Tuning parameters

#ifndef XC_PEAK_CHAINS
#define XC_PEAK_CHAINS 32  // independent accumulators per work-item (16-64): enough to hide the
#endif                     // FMA latency on GPUs and, vectorised across work-items, on CPUs

#ifndef XC_PEAK_VEC
#define XC_PEAK_VEC 1      // lanes of each chain: 1, or 2, 4, 8, 16 as an OpenCL C vector (CPUs,
#endif                     // whose work-items become vector lanes only around loop-free code)

// ---------------------------------------------------------------------------------------------
// Derived parameters

#if XC_PEAK_VEC > 1
#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_C_VERSION__)
#error "peak_fma: XC_PEAK_VEC > 1 needs OpenCL C's vector types"
#endif
#define PK_CAT2(a, b) a##b
#define PK_CAT(a, b) PK_CAT2(a, b)
#define PK_FLOAT PK_CAT(float, XC_PEAK_VEC)        // one chain's lanes
#define PK_VSTORE PK_CAT(vstore, XC_PEAK_VEC)
#else
#define PK_FLOAT float
#endif

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL void peak_fma(XC_GLOBAL float *XC_RESTRICT out, const int iters, const float a,
                        const float b)
{
    const int item = XC_GLOBAL_ID(0);  // work-item, bound: the NDRange (one float of out each)
    PK_FLOAT acc[XC_PEAK_CHAINS];
#pragma unroll
    for (int c = 0; c < XC_PEAK_CHAINS; c++)
        acc[c] = (PK_FLOAT)((float)(item & 7) * 0.125f + (float)c);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int c = 0; c < XC_PEAK_CHAINS; c++)
            acc[c] = XC_FMA(acc[c], a, b);
    }
    PK_FLOAT lanes = acc[0];
#pragma unroll
    for (int c = 1; c < XC_PEAK_CHAINS; c++)
        lanes += acc[c];
#if XC_PEAK_VEC > 1
    float lane[XC_PEAK_VEC];
    PK_VSTORE(lanes, 0, lane);
    float sum = 0.0f;
    for (int l = 0; l < XC_PEAK_VEC; l++)
        sum += lane[l];
#else
    float sum = lanes;
#endif
    out[item] = sum;
}
