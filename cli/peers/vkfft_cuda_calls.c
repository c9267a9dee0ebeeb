// SPDX-License-Identifier: MIT
// Loads the CUDA driver and NVRTC calls of VkFFT's CUDA backend (vkfft_cuda_calls.h) with
// dlopen and dlsym, once per process.
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vkfft_cuda_calls.h"

// ---------------------------------------------------------------------------------------------
// What is loaded

// One entry point: the symbol the library exports and the table's member it fills.
typedef struct call_row {
    const char *symbol;
    size_t member;
} call_row;

#define ROW(member, symbol) {symbol, offsetof(xconv_vkfft_cuda_calls, member)}

static const call_row driver_rows[] = {
    ROW(get_error_name, "cuGetErrorName"),
    ROW(ctx_set_current, "cuCtxSetCurrent"),
    ROW(ctx_synchronize, "cuCtxSynchronize"),
    ROW(device_get_attribute, "cuDeviceGetAttribute"),
    ROW(func_set_attribute, "cuFuncSetAttribute"),
    ROW(launch_kernel, "cuLaunchKernel"),
    ROW(mem_alloc, "cuMemAlloc_v2"),
    ROW(mem_free, "cuMemFree_v2"),
    ROW(memcpy_htod, "cuMemcpyHtoD_v2"),
    ROW(module_get_function, "cuModuleGetFunction"),
    ROW(module_get_global, "cuModuleGetGlobal_v2"),
    ROW(module_load_data_ex, "cuModuleLoadDataEx"),
    ROW(module_unload, "cuModuleUnload"),
    ROW(event_create, "cuEventCreate"),
    ROW(event_destroy, "cuEventDestroy_v2"),
    ROW(event_record, "cuEventRecord"),
    ROW(event_synchronize, "cuEventSynchronize"),
};

static const call_row nvrtc_rows[] = {
    ROW(nvrtc_create_program, "nvrtcCreateProgram"),
    ROW(nvrtc_destroy_program, "nvrtcDestroyProgram"),
    ROW(nvrtc_compile_program, "nvrtcCompileProgram"),
    ROW(nvrtc_get_ptx_size, "nvrtcGetPTXSize"),
    ROW(nvrtc_get_ptx, "nvrtcGetPTX"),
    ROW(nvrtc_get_program_log, "nvrtcGetProgramLog"),
    ROW(nvrtc_get_error_string, "nvrtcGetErrorString"),
};

// The files tried, in the library's order (cuda/cuda_loader.c), so that both get the same ones.
static const char *const driver_files[] = {"libcuda.so.1", NULL};
static const char *const nvrtc_files[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                          NULL};

// ---------------------------------------------------------------------------------------------
// Loading, once

static xconv_vkfft_cuda_calls calls;
static char failure[768];  // why the calls did not load; empty once they did
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// Opens the first of files that loads and sets *file to its name; or returns NULL with failure
// set to `missing` and what dlopen said of each file.
static void *open_first(const char *const *files, const char **file, const char *missing)
{
    size_t used = (size_t)snprintf(failure, sizeof failure, "%s:", missing);
    for (int i = 0; files[i]; i++) {
        void *lib = dlopen(files[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            *file = files[i];
            failure[0] = '\0';
            return lib;
        }
        const char *said = dlerror();
        if (used < sizeof failure)
            used += (size_t)snprintf(failure + used, sizeof failure - used, "%s %s",
                                     i ? ";" : "", said ? said : files[i]);
    }
    return NULL;
}

// Fills the members of rows from lib (named file). Returns false, with failure naming the first
// symbol lib lacks, when one is missing.
static bool bind_rows(void *lib, const char *file, const call_row *rows, size_t nrows)
{
    for (size_t i = 0; i < nrows; i++) {
        void *fn = dlsym(lib, rows[i].symbol);
        if (!fn) {
            snprintf(failure, sizeof failure, "%s lacks %s (too old?)", file, rows[i].symbol);
            return false;
        }
        memcpy((char *)&calls + rows[i].member, &fn, sizeof fn);
    }
    return true;
}

// Loads both libraries into calls, or leaves failure set. They stay open for the process's life:
// closing libcuda, which starts threads, is not safe.
static void load_calls(void)
{
    const char *file = NULL;
    void *driver = open_first(driver_files, &file, "libcuda.so.1 not found (no NVIDIA driver)");
    if (!driver || !bind_rows(driver, file, driver_rows, sizeof driver_rows / sizeof *driver_rows))
        return;
    void *nvrtc = open_first(nvrtc_files, &file,
                             "NVRTC not found (tried libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so)");
    if (nvrtc)
        bind_rows(nvrtc, file, nvrtc_rows, sizeof nvrtc_rows / sizeof *nvrtc_rows);
}

const xconv_vkfft_cuda_calls *xconv_vkfft_cuda_calls_load(xconv_error *err)
{
    pthread_once(&load_once, load_calls);
    if (failure[0]) {
        xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "%s", failure);
        return NULL;
    }
    return &calls;
}
