// SPDX-License-Identifier: MIT
// Run-time loading of libcuda, NVRTC, cuBLAS and cuDNN: dlopen once per process, bind symbols.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuda_loader.h"

// ---------------------------------------------------------------------------------------------
// Generic loading

// One table slot: the symbol names to try in order (newest version first), where it goes, and
// whether the table works without it.
typedef struct symbol_row {
    const char *names[3];
    size_t offset;
    bool optional;
} symbol_row;

// The outcome of loading one library, kept for the life of the process.
typedef struct library_state {
    bool tried;
    bool ok;
    char reason[1024];
    char file[64];
} library_state;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

// Opens the first of the NULL-terminated `files` that loads. Returns the handle and copies its
// name into state->file, or NULL with every file's dlerror appended to `why`.
static void *open_first(const char *const *files, library_state *state, char *why, size_t len)
{
    size_t used = strlen(why);
    for (int i = 0; files[i]; i++) {
        void *lib = dlopen(files[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            snprintf(state->file, sizeof state->file, "%s", files[i]);
            return lib;
        }
        const char *e = dlerror();
        if (used < len)
            used += (size_t)snprintf(why + used, len - used, "%s%s", i ? "; " : "",
                                     e ? e : files[i]);
    }
    return NULL;
}

// Binds every row of rows into table. Returns true, or false naming the first required symbol
// that is missing in `why`.
static bool bind_symbols(void *lib, const symbol_row *rows, size_t nrows, void *table,
                         const char *file, char *why, size_t len)
{
    for (size_t r = 0; r < nrows; r++) {
        void *fn = NULL;
        for (int n = 0; n < 3 && rows[r].names[n] && !fn; n++)
            fn = dlsym(lib, rows[r].names[n]);
        if (!fn && !rows[r].optional) {
            snprintf(why, len, "%s lacks %s (too old?)", file, rows[r].names[0]);
            return false;
        }
        memcpy((char *)table + rows[r].offset, &fn, sizeof fn);
    }
    return true;
}

// Loads one library into table under the lock, once. Returns table, or NULL with
// XCONV_ERR_UNAVAILABLE and "<what> not found (...)" / the missing symbol.
static const void *load_library(library_state *state, const char *const *files,
                                const symbol_row *rows, size_t nrows, void *table,
                                const char *not_found, xconv_error *err)
{
    pthread_mutex_lock(&load_lock);
    if (!state->tried) {
        state->tried = true;
        char why[768] = "";
        void *lib = open_first(files, state, why, sizeof why);
        if (!lib)
            snprintf(state->reason, sizeof state->reason, "%s: %s", not_found, why);
        else if (!bind_symbols(lib, rows, nrows, table, state->file, why, sizeof why))
            snprintf(state->reason, sizeof state->reason, "%s", why);
        else
            state->ok = true;
        // A library that loaded but lacks symbols stays open: it costs nothing, and closing
        // libraries that start threads (libcuda) is not safe.
    }
    bool ok = state->ok;
    pthread_mutex_unlock(&load_lock);
    if (!ok) {
        xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "%s", state->reason);
        return NULL;
    }
    return table;
}

// ---------------------------------------------------------------------------------------------
// Driver API

#define CU_ROW(member, ...) {{__VA_ARGS__}, offsetof(xconv_cu_api, member), false}
#define CU_OPT(member, ...) {{__VA_ARGS__}, offsetof(xconv_cu_api, member), true}

static const symbol_row cu_rows[] = {
    CU_ROW(init, "cuInit"),
    CU_ROW(driver_get_version, "cuDriverGetVersion"),
    CU_ROW(get_error_name, "cuGetErrorName"),
    CU_ROW(get_error_string, "cuGetErrorString"),
    CU_ROW(device_get_count, "cuDeviceGetCount"),
    CU_ROW(device_get, "cuDeviceGet"),
    CU_ROW(device_get_name, "cuDeviceGetName"),
    CU_ROW(device_get_attribute, "cuDeviceGetAttribute"),
    CU_ROW(device_total_mem, "cuDeviceTotalMem_v2"),
    CU_ROW(device_primary_ctx_retain, "cuDevicePrimaryCtxRetain"),
    CU_ROW(device_primary_ctx_release, "cuDevicePrimaryCtxRelease_v2",
           "cuDevicePrimaryCtxRelease"),
    CU_OPT(device_primary_ctx_reset, "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset"),
    CU_ROW(ctx_set_current, "cuCtxSetCurrent"),
    CU_ROW(stream_create, "cuStreamCreate"),
    CU_ROW(stream_destroy, "cuStreamDestroy_v2"),
    CU_ROW(stream_synchronize, "cuStreamSynchronize"),
    CU_ROW(mem_alloc, "cuMemAlloc_v2"),
    CU_ROW(mem_free, "cuMemFree_v2"),
    CU_ROW(memcpy_htod_async, "cuMemcpyHtoDAsync_v2"),
    CU_ROW(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2"),
    CU_ROW(memcpy_dtod_async, "cuMemcpyDtoDAsync_v2"),
    CU_ROW(memset_d32_async, "cuMemsetD32Async"),
    CU_ROW(module_load_data_ex, "cuModuleLoadDataEx"),
    CU_ROW(module_unload, "cuModuleUnload"),
    CU_ROW(module_get_function, "cuModuleGetFunction"),
    CU_ROW(module_get_global, "cuModuleGetGlobal_v2"),
    CU_ROW(launch_kernel, "cuLaunchKernel"),
    CU_ROW(event_create, "cuEventCreate"),
    CU_ROW(event_destroy, "cuEventDestroy_v2"),
    CU_ROW(event_record, "cuEventRecord"),
    CU_ROW(event_synchronize, "cuEventSynchronize"),
    CU_ROW(event_elapsed_time, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    CU_OPT(module_get_function_count, "cuModuleGetFunctionCount"),
    CU_OPT(module_enumerate_functions, "cuModuleEnumerateFunctions"),
    CU_OPT(func_get_name, "cuFuncGetName"),
    CU_OPT(func_get_param_info, "cuFuncGetParamInfo"),
};

static library_state cu_state;
static xconv_cu_api cu_table;

const xconv_cu_api *xconv_cu_load(xconv_error *err)
{
    static const char *const files[] = {"libcuda.so.1", NULL};
    return load_library(&cu_state, files, cu_rows, sizeof cu_rows / sizeof cu_rows[0],
                        &cu_table, "libcuda.so.1 not found (no NVIDIA driver)", err);
}

// Names of the results a driver that cannot name them (the toolkit's stub libcuda) gives cuInit.
static const struct {
    CUresult r;
    const char *name;
} init_results[] = {
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY (the toolkit's stub libcuda, no driver)"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
};

const char *xconv_cu_result_name(CUresult r)
{
    const char *name = NULL;
    if (cu_state.ok && cu_table.get_error_name(r, &name) == CUDA_SUCCESS && name)
        return name;
    for (size_t i = 0; i < sizeof init_results / sizeof init_results[0]; i++)
        if (init_results[i].r == r)
            return init_results[i].name;
    static _Thread_local char unknown[32];
    snprintf(unknown, sizeof unknown, "CUresult %d", (int)r);
    return unknown;
}

// ---------------------------------------------------------------------------------------------
// NVRTC

#define NVRTC_ROW(member, ...) {{__VA_ARGS__}, offsetof(xconv_nvrtc_api, member), false}
#define NVRTC_OPT(member, ...) {{__VA_ARGS__}, offsetof(xconv_nvrtc_api, member), true}

static const symbol_row nvrtc_rows[] = {
    NVRTC_ROW(get_error_string, "nvrtcGetErrorString"),
    NVRTC_ROW(version, "nvrtcVersion"),
    NVRTC_OPT(get_num_supported_archs, "nvrtcGetNumSupportedArchs"),
    NVRTC_OPT(get_supported_archs, "nvrtcGetSupportedArchs"),
    NVRTC_ROW(create_program, "nvrtcCreateProgram"),
    NVRTC_ROW(destroy_program, "nvrtcDestroyProgram"),
    NVRTC_ROW(compile_program, "nvrtcCompileProgram"),
    NVRTC_ROW(get_program_log_size, "nvrtcGetProgramLogSize"),
    NVRTC_ROW(get_program_log, "nvrtcGetProgramLog"),
    NVRTC_ROW(get_ptx_size, "nvrtcGetPTXSize"),
    NVRTC_ROW(get_ptx, "nvrtcGetPTX"),
    NVRTC_OPT(get_cubin_size, "nvrtcGetCUBINSize"),
    NVRTC_OPT(get_cubin, "nvrtcGetCUBIN"),
};

static library_state nvrtc_state;
static xconv_nvrtc_api nvrtc_table;

const xconv_nvrtc_api *xconv_nvrtc_load(xconv_error *err)
{
    static const char *const files[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    const xconv_nvrtc_api *api = load_library(
        &nvrtc_state, files, nvrtc_rows, sizeof nvrtc_rows / sizeof nvrtc_rows[0], &nvrtc_table,
        "NVRTC not found (tried libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so)", err);
    if (api)
        snprintf(nvrtc_table.library, sizeof nvrtc_table.library, "%s", nvrtc_state.file);
    return api;
}

// ---------------------------------------------------------------------------------------------
// cuBLAS

#define CUBLAS_ROW(member, ...) {{__VA_ARGS__}, offsetof(xconv_cublas_api, member), false}

static const symbol_row cublas_rows[] = {
    CUBLAS_ROW(create, "cublasCreate_v2"),
    CUBLAS_ROW(destroy, "cublasDestroy_v2"),
    CUBLAS_ROW(set_stream, "cublasSetStream_v2"),
    CUBLAS_ROW(set_math_mode, "cublasSetMathMode"),
    CUBLAS_ROW(sgemm_strided_batched, "cublasSgemmStridedBatched"),
    {{"cublasGemmStridedBatchedEx"}, offsetof(xconv_cublas_api, gemm_strided_batched_ex),
     true},
    {{"cublasGetStatusName"}, offsetof(xconv_cublas_api, get_status_name), true},
    {{"cublasGetProperty"}, offsetof(xconv_cublas_api, get_property), true},
};

static library_state cublas_state;
static xconv_cublas_api cublas_table;

const xconv_cublas_api *xconv_cublas_load(xconv_error *err)
{
    static const char *const files[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                        NULL};
    return load_library(&cublas_state, files, cublas_rows,
                        sizeof cublas_rows / sizeof cublas_rows[0], &cublas_table,
                        "cuBLAS not found (tried libcublas.so.13, libcublas.so.12, libcublas.so)",
                        err);
}

// ---------------------------------------------------------------------------------------------
// cuDNN

#define CUDNN_ROW(member, ...) {{__VA_ARGS__}, offsetof(xconv_cudnn_api, member), false}
#define CUDNN_OPTIONAL(member, ...) {{__VA_ARGS__}, offsetof(xconv_cudnn_api, member), true}

static const symbol_row cudnn_rows[] = {
    CUDNN_ROW(get_version, "cudnnGetVersion"),
    CUDNN_ROW(get_error_string, "cudnnGetErrorString"),
    CUDNN_ROW(create, "cudnnCreate"),
    CUDNN_ROW(destroy, "cudnnDestroy"),
    CUDNN_ROW(set_stream, "cudnnSetStream"),
    CUDNN_ROW(create_tensor_descriptor, "cudnnCreateTensorDescriptor"),
    CUDNN_ROW(destroy_tensor_descriptor, "cudnnDestroyTensorDescriptor"),
    CUDNN_ROW(set_tensor_4d_descriptor, "cudnnSetTensor4dDescriptor"),
    CUDNN_ROW(create_filter_descriptor, "cudnnCreateFilterDescriptor"),
    CUDNN_ROW(destroy_filter_descriptor, "cudnnDestroyFilterDescriptor"),
    CUDNN_ROW(set_filter_4d_descriptor, "cudnnSetFilter4dDescriptor"),
    CUDNN_ROW(create_convolution_descriptor, "cudnnCreateConvolutionDescriptor"),
    CUDNN_ROW(destroy_convolution_descriptor, "cudnnDestroyConvolutionDescriptor"),
    CUDNN_ROW(set_convolution_2d_descriptor, "cudnnSetConvolution2dDescriptor"),
    CUDNN_ROW(set_convolution_group_count, "cudnnSetConvolutionGroupCount"),
    CUDNN_ROW(set_convolution_math_type, "cudnnSetConvolutionMathType"),
    CUDNN_ROW(get_convolution_2d_forward_output_dim, "cudnnGetConvolution2dForwardOutputDim"),
    CUDNN_ROW(get_convolution_forward_workspace_size, "cudnnGetConvolutionForwardWorkspaceSize"),
    CUDNN_ROW(get_convolution_forward_algorithm_max_count,
              "cudnnGetConvolutionForwardAlgorithmMaxCount"),
    CUDNN_ROW(find_convolution_forward_algorithm, "cudnnFindConvolutionForwardAlgorithm"),
    CUDNN_ROW(convolution_forward, "cudnnConvolutionForward"),
    CUDNN_OPTIONAL(convolution_bias_activation_forward, "cudnnConvolutionBiasActivationForward"),
    CUDNN_OPTIONAL(create_activation_descriptor, "cudnnCreateActivationDescriptor"),
    CUDNN_OPTIONAL(set_activation_descriptor, "cudnnSetActivationDescriptor"),
    CUDNN_OPTIONAL(destroy_activation_descriptor, "cudnnDestroyActivationDescriptor"),
    CUDNN_OPTIONAL(create_pooling_descriptor, "cudnnCreatePoolingDescriptor"),
    CUDNN_OPTIONAL(set_pooling_2d_descriptor, "cudnnSetPooling2dDescriptor"),
    CUDNN_OPTIONAL(destroy_pooling_descriptor, "cudnnDestroyPoolingDescriptor"),
    CUDNN_OPTIONAL(pooling_forward, "cudnnPoolingForward"),
};

static library_state cudnn_state;
static xconv_cudnn_api cudnn_table;

const xconv_cudnn_api *xconv_cudnn_load(xconv_error *err)
{
    static const char *const files[] = {"libcudnn.so.9", "libcudnn.so", NULL};
    return load_library(&cudnn_state, files, cudnn_rows, sizeof cudnn_rows / sizeof cudnn_rows[0],
                        &cudnn_table,
                        "cuDNN not found (libcudnn.so.9; put its folder, e.g. torch/lib, on "
                        "LD_LIBRARY_PATH)",
                        err);
}
