// SPDX-License-Identifier: MIT
// The CUDA entry points VkFFT's adapter loads itself (cli/peers/vkfft_cuda_calls.h): where
// libcuda.so.1 and NVRTC load, every symbol binds and NVRTC and the driver name a result;
// without a driver, loading fails with XCONV_ERR_UNAVAILABLE naming libcuda.so.1, twice the same,
// and the test then skips (77), as it does after binding the toolkit's stub libcuda.
#include <stdio.h>
#include <string.h>

#include "tests/check.h"

#ifndef XCONV_HAVE_CUDA

int main(void)
{
    printf("SKIP: built without the CUDA toolkit's headers (no CUDA VkFFT adapter)\n");
    return CHECK_SKIP_CODE;
}

#else

#include "cli/peers/vkfft_cuda_calls.h"

// Every member of the table, as bytes: a loaded table has no NULL entry point.
static void check_all_bound(const xconv_vkfft_cuda_calls *calls)
{
    void *fns[sizeof *calls / sizeof(void *)];
    memcpy(fns, calls, sizeof fns);
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        CHECK_MSG(fns[i] != NULL, "entry point %zu of the table is NULL", i);
}

int main(void)
{
    xconv_error err = {0};
    const xconv_vkfft_cuda_calls *calls = xconv_vkfft_cuda_calls_load(&err);
    if (!calls) {
        CHECK(err.status == XCONV_ERR_UNAVAILABLE);
        CHECK_MSG(strstr(err.msg, "libcuda.so.1") || strstr(err.msg, "NVRTC"), "%s", err.msg);
        xconv_error again = {0};
        CHECK(!xconv_vkfft_cuda_calls_load(&again) && strcmp(again.msg, err.msg) == 0);
        if (check_summary("test_vkfft_cuda_calls") != 0)
            return 1;
        printf("SKIP: %s\n", err.msg);
        return CHECK_SKIP_CODE;
    }
    check_all_bound(calls);
    CHECK(xconv_vkfft_cuda_calls_load(&err) == calls);
    const char *text = calls->nvrtc_get_error_string(NVRTC_ERROR_OUT_OF_MEMORY);
    CHECK_MSG(text && strcmp(text, "NVRTC_ERROR_OUT_OF_MEMORY") == 0, "%s", text ? text : "NULL");
    const char *name = NULL;
    CUresult r = calls->get_error_name(CUDA_ERROR_OUT_OF_MEMORY, &name);
    if (r == CUDA_ERROR_STUB_LIBRARY) {  // the toolkit's stub as libcuda.so.1: no driver
        if (check_summary("test_vkfft_cuda_calls") != 0)
            return 1;
        printf("SKIP: libcuda.so.1 is the CUDA toolkit's stub (no driver)\n");
        return CHECK_SKIP_CODE;
    }
    CHECK_MSG(r == CUDA_SUCCESS && name && strcmp(name, "CUDA_ERROR_OUT_OF_MEMORY") == 0,
              "CUresult %d, %s", (int)r, name ? name : "NULL");
    return check_summary("test_vkfft_cuda_calls");
}

#endif
