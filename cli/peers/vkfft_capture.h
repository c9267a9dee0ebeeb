// SPDX-License-Identifier: MIT
// Included by the VkFFT translation units (vkfft_opencl.c, vkfft_cuda.c) just
// before <vkFFT.h>: VkFFT's printf (the generated code and the compiler's log of a failed build)
// goes into a per-thread buffer whose tail the error message carries, never to stdout.
#ifndef XCONV_BENCH_VKFFT_CAPTURE_H
#define XCONV_BENCH_VKFFT_CAPTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// The tail of what VkFFT printed on this thread since the last xconv_vkfft_log_clear.
static _Thread_local char xconv_vkfft_log[768];

static void xconv_vkfft_log_clear(void)
{
    xconv_vkfft_log[0] = '\0';
}

// printf for VkFFT: appends to the log, keeping its last sizeof xconv_vkfft_log - 1 bytes;
// returns the length of the formatted text, as printf does.
static int xconv_vkfft_printf(const char *fmt, ...)
{
    char text[sizeof xconv_vkfft_log];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t have = strlen(xconv_vkfft_log), add = strlen(text), cap = sizeof text - 1;
    size_t keep = have + add > cap ? cap - add : have;  // the old log's last bytes that stay
    memmove(xconv_vkfft_log, xconv_vkfft_log + have - keep, keep);
    memcpy(xconv_vkfft_log + keep, text, add + 1);
    return n;
}

#define printf xconv_vkfft_printf

#endif // XCONV_BENCH_VKFFT_CAPTURE_H
