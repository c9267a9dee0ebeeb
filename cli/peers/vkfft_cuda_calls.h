// SPDX-License-Identifier: MIT
// The CUDA driver and NVRTC calls VkFFT's CUDA backend makes (cli/peers/vkfft_cuda.c), loaded
// with dlopen when the first CUDA application is made, so that the xconv command links neither
// libcuda nor NVRTC and starts on machines without them. On a CUDA device the library has
// already loaded the same libcuda.so.1 (dlopen hands back that copy) and looks for NVRTC under
// the same names in the same order, so VkFFT runs on the driver and compiler xconv runs on.
#ifndef XCONV_PEERS_VKFFT_CUDA_CALLS_H
#define XCONV_PEERS_VKFFT_CUDA_CALLS_H

#include <cuda.h>
#include <nvrtc.h>
#include <xconv/xconv.h>

// One entry point per call, named after the call without its prefix (each bound to the symbol
// version cuda.h's macros name: cuMemAlloc is cuMemAlloc_v2).
typedef struct xconv_vkfft_cuda_calls {
    CUresult (*get_error_name)(CUresult r, const char **name);
    CUresult (*ctx_set_current)(CUcontext ctx);
    CUresult (*ctx_synchronize)(void);
    CUresult (*device_get_attribute)(int *value, CUdevice_attribute attr, CUdevice dev);
    CUresult (*func_set_attribute)(CUfunction fn, CUfunction_attribute attr, int value);
    CUresult (*launch_kernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned shared_bytes, CUstream s,
                              void **params, void **extra);
    CUresult (*mem_alloc)(CUdeviceptr *ptr, size_t bytes);
    CUresult (*mem_free)(CUdeviceptr ptr);
    CUresult (*memcpy_htod)(CUdeviceptr dst, const void *src, size_t bytes);
    CUresult (*module_get_function)(CUfunction *fn, CUmodule mod, const char *name);
    CUresult (*module_get_global)(CUdeviceptr *ptr, size_t *bytes, CUmodule mod,
                                  const char *name);
    CUresult (*module_load_data_ex)(CUmodule *mod, const void *image, unsigned nopts,
                                    CUjit_option *opts, void **values);
    CUresult (*module_unload)(CUmodule mod);
    CUresult (*event_create)(CUevent *ev, unsigned flags);
    CUresult (*event_destroy)(CUevent ev);
    CUresult (*event_record)(CUevent ev, CUstream s);
    CUresult (*event_synchronize)(CUevent ev);
    nvrtcResult (*nvrtc_create_program)(nvrtcProgram *prog, const char *src, const char *name,
                                        int nheaders, const char *const *headers,
                                        const char *const *include_names);
    nvrtcResult (*nvrtc_destroy_program)(nvrtcProgram *prog);
    nvrtcResult (*nvrtc_compile_program)(nvrtcProgram prog, int nopts, const char *const *opts);
    nvrtcResult (*nvrtc_get_ptx_size)(nvrtcProgram prog, size_t *bytes);
    nvrtcResult (*nvrtc_get_ptx)(nvrtcProgram prog, char *ptx);
    nvrtcResult (*nvrtc_get_program_log)(nvrtcProgram prog, char *log);
    const char *(*nvrtc_get_error_string)(nvrtcResult r);
} xconv_vkfft_cuda_calls;

// Loads libcuda.so.1 and NVRTC (libnvrtc.so.13, .12, then libnvrtc.so) once per process.
// Returns the calls, or NULL with XCONV_ERR_UNAVAILABLE naming the library or symbol missing.
const xconv_vkfft_cuda_calls *xconv_vkfft_cuda_calls_load(xconv_error *err);

#endif // XCONV_PEERS_VKFFT_CUDA_CALLS_H
