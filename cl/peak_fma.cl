// SPDX-License-Identifier: MIT
// peak_fma: the device's fp32 FMA throughput (`xconv peaks`). Each work-item runs XC_PEAK_CHAINS
// independent chains acc = acc * a + b of fused multiply-adds, `iters` times, so that every
// compute unit always has independent FMAs to issue whatever their latency; a and b arrive at
// run time, so the compiler can fold nothing. A run does 2 * XC_PEAK_CHAINS * iters FLOPs per
// work-item and writes one float per work-item (the chains' sum, so none is dead code).
// No tile parameters: the host sizes the NDRange from the device's compute units and work-group
// limit (host/peaks.c).

// ---------------------------------------------------------------------------------------------
// Tuning parameters

#ifndef XC_PEAK_CHAINS
#define XC_PEAK_CHAINS 32  // independent accumulators per work-item (16-64): enough to hide the
#endif                     // FMA latency on GPUs and, vectorised across work-items, on CPUs

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL void peak_fma(XC_GLOBAL float *XC_RESTRICT out, const int iters, const float a,
                        const float b)
{
    const int item = XC_GLOBAL_ID(0);  // work-item, bound: the NDRange (one float of out each)
    float acc[XC_PEAK_CHAINS];
#pragma unroll
    for (int c = 0; c < XC_PEAK_CHAINS; c++)
        acc[c] = (float)(item & 7) * 0.125f + (float)c;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int c = 0; c < XC_PEAK_CHAINS; c++)
            acc[c] = XC_FMA(acc[c], a, b);
    }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < XC_PEAK_CHAINS; c++)
        sum += acc[c];
    out[item] = sum;
}
