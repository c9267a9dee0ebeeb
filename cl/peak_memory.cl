// SPDX-License-Identifier: MIT
// peak_memory: the device's memory bandwidth (`xconv peaks`). peak_copy copies a buffer of float4
// into another (each byte read once and written once); peak_read reads one and sums each float4,
// writing only when the sum equals `never`, a value the data never sums to (the host fills the
// buffer with zeros and passes -1), so the loads stay live and nothing is written. One float4 per
// work-item and consecutive work-items on consecutive float4: coalesced on GPUs, contiguous
// vector loads across work-items on CPUs (a grid-stride loop measured 5x slower on PoCL).
// No tile parameters: the host sizes the buffers from the device's memory and cache (host/core/peaks.c).

// ---------------------------------------------------------------------------------------------
// Copy: dst[i] = src[i]

XC_KERNEL void peak_copy(const XC_GLOBAL float *XC_RESTRICT src, XC_GLOBAL float *XC_RESTRICT dst,
                         const int count4)
{
    const int i = XC_GLOBAL_ID(0);  // float4 index, bound count4
    if (i < count4)
        XC_STORE4(XC_LOAD4(src, i), dst, i);
}

// ---------------------------------------------------------------------------------------------
// Read: sum each float4 of src; dst is written only when a sum equals never

XC_KERNEL void peak_read(const XC_GLOBAL float *XC_RESTRICT src, XC_GLOBAL float *XC_RESTRICT dst,
                         const int count4, const float never)
{
    const int i = XC_GLOBAL_ID(0);  // float4 index, bound count4
    if (i >= count4)
        return;
    const float4 v = XC_LOAD4(src, i);
    const float sum = (v.x + v.y) + (v.z + v.w);
    if (sum == never)
        dst[i] = sum;
}
