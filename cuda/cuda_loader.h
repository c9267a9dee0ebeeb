// SPDX-License-Identifier: MIT
// Run-time loading of the CUDA libraries: function tables for the driver API, NVRTC, cuBLAS and
// cuDNN, filled with dlopen/dlsym so that xconv starts on machines without them.
#ifndef XCONV_CUDA_LOADER_H
#define XCONV_CUDA_LOADER_H

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>
#include <nvrtc.h>

#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// Driver API (libcuda.so.1). Members are named after the API call without its "cu" prefix; each
// is bound to the newest symbol version the header's macro names (cuMemAlloc -> cuMemAlloc_v2).

typedef struct xconv_cu_api {
    CUresult (*init)(unsigned int flags);
    CUresult (*driver_get_version)(int *version);
    CUresult (*get_error_name)(CUresult r, const char **name);
    CUresult (*get_error_string)(CUresult r, const char **text);
    CUresult (*device_get_count)(int *count);
    CUresult (*device_get)(CUdevice *dev, int ordinal);
    CUresult (*device_get_name)(char *name, int len, CUdevice dev);
    CUresult (*device_get_attribute)(int *value, CUdevice_attribute attr, CUdevice dev);
    CUresult (*device_total_mem)(size_t *bytes, CUdevice dev);
    CUresult (*device_primary_ctx_retain)(CUcontext *ctx, CUdevice dev);
    CUresult (*device_primary_ctx_release)(CUdevice dev);
    CUresult (*device_primary_ctx_reset)(CUdevice dev);  // optional (NULL: cannot recover)
    CUresult (*ctx_set_current)(CUcontext ctx);
    CUresult (*stream_create)(CUstream *stream, unsigned int flags);
    CUresult (*stream_destroy)(CUstream stream);
    CUresult (*stream_synchronize)(CUstream stream);
    CUresult (*mem_alloc)(CUdeviceptr *ptr, size_t bytes);
    CUresult (*mem_free)(CUdeviceptr ptr);
    CUresult (*memcpy_htod_async)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
    CUresult (*memcpy_dtoh_async)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
    CUresult (*memcpy_dtod_async)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
    CUresult (*memset_d32_async)(CUdeviceptr dst, unsigned int value, size_t count, CUstream s);
    CUresult (*module_load_data_ex)(CUmodule *mod, const void *image, unsigned int nopts,
                                    CUjit_option *opts, void **values);
    CUresult (*module_unload)(CUmodule mod);
    CUresult (*module_get_function)(CUfunction *fn, CUmodule mod, const char *name);
    CUresult (*module_get_global)(CUdeviceptr *ptr, size_t *bytes, CUmodule mod,
                                  const char *name);
    CUresult (*launch_kernel)(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
                              unsigned int bx, unsigned int by, unsigned int bz,
                              unsigned int shared_bytes, CUstream s, void **params,
                              void **extra);
    CUresult (*event_create)(CUevent *ev, unsigned int flags);
    CUresult (*event_destroy)(CUevent ev);
    CUresult (*event_record)(CUevent ev, CUstream s);
    CUresult (*event_synchronize)(CUevent ev);
    CUresult (*event_elapsed_time)(float *ms, CUevent start, CUevent stop);
    // Optional (drivers of CUDA 12.4 and later; NULL before): kernel listing and parameters.
    CUresult (*module_get_function_count)(unsigned int *count, CUmodule mod);
    CUresult (*module_enumerate_functions)(CUfunction *fns, unsigned int count, CUmodule mod);
    CUresult (*func_get_name)(const char **name, CUfunction fn);
    CUresult (*func_get_param_info)(CUfunction fn, size_t index, size_t *offset, size_t *size);
} xconv_cu_api;

// Loads libcuda.so.1 once per process. Returns the table, or NULL with XCONV_ERR_UNAVAILABLE
// ("libcuda.so.1 not found (no NVIDIA driver): <dlerror>") when it or a symbol is missing.
const xconv_cu_api *xconv_cu_load(xconv_error *err);

// Returns the enum name of r ("CUDA_ERROR_OUT_OF_MEMORY") from the driver, or from a short table
// of cuInit's failures, else "CUresult <n>" (a thread-local buffer).
const char *xconv_cu_result_name(CUresult r);

// ---------------------------------------------------------------------------------------------
// NVRTC (libnvrtc.so.13, .12, then libnvrtc.so)

typedef struct xconv_nvrtc_api {
    const char *(*get_error_string)(nvrtcResult r);
    nvrtcResult (*version)(int *major, int *minor);
    nvrtcResult (*get_num_supported_archs)(int *count);  // NULL in NVRTC < 11.2
    nvrtcResult (*get_supported_archs)(int *archs);      // NULL in NVRTC < 11.2
    nvrtcResult (*create_program)(nvrtcProgram *prog, const char *src, const char *name,
                                  int nheaders, const char *const *headers,
                                  const char *const *include_names);
    nvrtcResult (*destroy_program)(nvrtcProgram *prog);
    nvrtcResult (*compile_program)(nvrtcProgram prog, int nopts, const char *const *opts);
    nvrtcResult (*get_program_log_size)(nvrtcProgram prog, size_t *size);
    nvrtcResult (*get_program_log)(nvrtcProgram prog, char *log);
    nvrtcResult (*get_ptx_size)(nvrtcProgram prog, size_t *size);
    nvrtcResult (*get_ptx)(nvrtcProgram prog, char *ptx);
    nvrtcResult (*get_cubin_size)(nvrtcProgram prog, size_t *size);  // NULL in NVRTC < 11.1
    nvrtcResult (*get_cubin)(nvrtcProgram prog, char *cubin);        // NULL in NVRTC < 11.1
    char library[64];  // the file name that loaded ("libnvrtc.so.13")
} xconv_nvrtc_api;

// Loads NVRTC once per process; NULL with XCONV_ERR_UNAVAILABLE naming the files tried.
const xconv_nvrtc_api *xconv_nvrtc_load(xconv_error *err);

// ---------------------------------------------------------------------------------------------
// cuBLAS (libcublas.so.13, .12, then libcublas.so)

typedef struct xconv_cublas_api {
    cublasStatus_t (*create)(cublasHandle_t *handle);
    cublasStatus_t (*destroy)(cublasHandle_t handle);
    cublasStatus_t (*set_stream)(cublasHandle_t handle, cudaStream_t stream);
    cublasStatus_t (*set_math_mode)(cublasHandle_t handle, cublasMath_t mode);
    cublasStatus_t (*sgemm_strided_batched)(cublasHandle_t handle, cublasOperation_t ta,
                                            cublasOperation_t tb, int m, int n, int k,
                                            const float *alpha, const float *a, int lda,
                                            long long stride_a, const float *b, int ldb,
                                            long long stride_b, const float *beta, float *c,
                                            int ldc, long long stride_c, int batch);
    // Optional (NULL where the library lacks it; before cuBLAS 11.0 it took a cudaDataType
    // as compute type): the typed GEMM of the reduced modes (tf32, fp16 or bf16 A and B).
    cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t handle, cublasOperation_t ta,
                                              cublasOperation_t tb, int m, int n, int k,
                                              const void *alpha, const void *a, cudaDataType a_type,
                                              int lda, long long stride_a, const void *b,
                                              cudaDataType b_type, int ldb, long long stride_b,
                                              const void *beta, void *c, cudaDataType c_type,
                                              int ldc, long long stride_c, int batch,
                                              cublasComputeType_t compute, cublasGemmAlgo_t algo);
    const char *(*get_status_name)(cublasStatus_t s);  // NULL in cuBLAS < 11.4
    cublasStatus_t (*get_property)(libraryPropertyType type, int *value);  // optional
} xconv_cublas_api;

// Loads cuBLAS once per process; NULL with XCONV_ERR_UNAVAILABLE naming the files tried.
const xconv_cublas_api *xconv_cublas_load(xconv_error *err);

// ---------------------------------------------------------------------------------------------
// cuDNN 9's legacy convolution API (libcudnn.so.9, then libcudnn.so)

typedef struct cudnnConvolutionFwdAlgoPerfStruct xconv_cudnn_fwd_perf;

typedef struct xconv_cudnn_api {
    size_t (*get_version)(void);
    const char *(*get_error_string)(cudnnStatus_t s);
    cudnnStatus_t (*create)(cudnnHandle_t *handle);
    cudnnStatus_t (*destroy)(cudnnHandle_t handle);
    cudnnStatus_t (*set_stream)(cudnnHandle_t handle, cudaStream_t stream);
    cudnnStatus_t (*create_tensor_descriptor)(cudnnTensorDescriptor_t *desc);
    cudnnStatus_t (*destroy_tensor_descriptor)(cudnnTensorDescriptor_t desc);
    cudnnStatus_t (*set_tensor_4d_descriptor)(cudnnTensorDescriptor_t desc,
                                              cudnnTensorFormat_t format,
                                              cudnnDataType_t type, int n, int c, int h, int w);
    cudnnStatus_t (*create_filter_descriptor)(cudnnFilterDescriptor_t *desc);
    cudnnStatus_t (*destroy_filter_descriptor)(cudnnFilterDescriptor_t desc);
    cudnnStatus_t (*set_filter_4d_descriptor)(cudnnFilterDescriptor_t desc, cudnnDataType_t type,
                                              cudnnTensorFormat_t format, int k, int c, int h,
                                              int w);
    cudnnStatus_t (*create_convolution_descriptor)(cudnnConvolutionDescriptor_t *desc);
    cudnnStatus_t (*destroy_convolution_descriptor)(cudnnConvolutionDescriptor_t desc);
    cudnnStatus_t (*set_convolution_2d_descriptor)(cudnnConvolutionDescriptor_t desc, int pad_h,
                                                   int pad_w, int u, int v, int dil_h,
                                                   int dil_w, cudnnConvolutionMode_t mode,
                                                   cudnnDataType_t compute_type);
    cudnnStatus_t (*set_convolution_group_count)(cudnnConvolutionDescriptor_t desc, int groups);
    cudnnStatus_t (*set_convolution_math_type)(cudnnConvolutionDescriptor_t desc,
                                               cudnnMathType_t math);
    cudnnStatus_t (*get_convolution_2d_forward_output_dim)(
        const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t x,
        const cudnnFilterDescriptor_t w, int *n, int *c, int *h, int *wo);
    cudnnStatus_t (*get_convolution_forward_workspace_size)(
        cudnnHandle_t handle, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
        const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t y,
        cudnnConvolutionFwdAlgo_t algo, size_t *bytes);
    cudnnStatus_t (*get_convolution_forward_algorithm_max_count)(cudnnHandle_t handle,
                                                                 int *count);
    cudnnStatus_t (*find_convolution_forward_algorithm)(
        cudnnHandle_t handle, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
        const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t y, int requested,
        int *returned, xconv_cudnn_fwd_perf *results);
    cudnnStatus_t (*convolution_forward)(
        cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t x_desc,
        const void *x, const cudnnFilterDescriptor_t w_desc, const void *w,
        const cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
        void *workspace, size_t workspace_bytes, const void *beta,
        const cudnnTensorDescriptor_t y_desc, void *y);
    // Optional (NULL when missing): the fused convolution, bias and activation, and pooling,
    // for the cudnn_fused_bias_act_pool row.
    cudnnStatus_t (*convolution_bias_activation_forward)(
        cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t x_desc,
        const void *x, const cudnnFilterDescriptor_t w_desc, const void *w,
        const cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
        void *workspace, size_t workspace_bytes, const void *alpha2,
        const cudnnTensorDescriptor_t z_desc, const void *z,
        const cudnnTensorDescriptor_t bias_desc, const void *bias,
        const cudnnActivationDescriptor_t act_desc, const cudnnTensorDescriptor_t y_desc,
        void *y);
    cudnnStatus_t (*create_activation_descriptor)(cudnnActivationDescriptor_t *desc);
    cudnnStatus_t (*set_activation_descriptor)(cudnnActivationDescriptor_t desc,
                                               cudnnActivationMode_t mode,
                                               cudnnNanPropagation_t nan, double coef);
    cudnnStatus_t (*destroy_activation_descriptor)(cudnnActivationDescriptor_t desc);
    cudnnStatus_t (*create_pooling_descriptor)(cudnnPoolingDescriptor_t *desc);
    cudnnStatus_t (*set_pooling_2d_descriptor)(cudnnPoolingDescriptor_t desc,
                                               cudnnPoolingMode_t mode,
                                               cudnnNanPropagation_t nan, int window_h,
                                               int window_w, int pad_h, int pad_w, int stride_h,
                                               int stride_w);
    cudnnStatus_t (*destroy_pooling_descriptor)(cudnnPoolingDescriptor_t desc);
    cudnnStatus_t (*pooling_forward)(cudnnHandle_t handle, const cudnnPoolingDescriptor_t pool,
                                     const void *alpha, const cudnnTensorDescriptor_t x_desc,
                                     const void *x, const void *beta,
                                     const cudnnTensorDescriptor_t y_desc, void *y);
} xconv_cudnn_api;

// Loads cuDNN once per process; NULL with XCONV_ERR_UNAVAILABLE, whose message starts with
// "cuDNN not found (libcudnn.so.9)".
const xconv_cudnn_api *xconv_cudnn_load(xconv_error *err);

#endif // XCONV_CUDA_LOADER_H
