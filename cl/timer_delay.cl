// SPDX-License-Identifier: MIT
// timer_delay: the OpenCL timer's start mark (cl/opencl_timer.c). One work-item runs `iters`
// steps of a chain in which each step needs the one before (x = x * a + c on 32-bit integers),
// so the kernel lasts a time proportional to iters, and writes the chain's end (so the chain is
// not dead code). OpenCL C has no portable clock: the host calibrates iters against the
// device's profiling events. iters = 0 is a plain stamp that ends as soon as it starts.
// No tuning parameters: it is launched as one work-item.

XC_KERNEL void xconv_timer_delay(XC_GLOBAL unsigned int *sink, const unsigned int iters,
                                 const unsigned int seed)
{
    unsigned int x = seed;
    for (unsigned int i = 0; i < iters; i++)
        x = x * 1664525u + 1013904223u;
    sink[0] = x;
}
