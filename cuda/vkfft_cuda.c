// SPDX-License-Identifier: MIT
// VkFFT's CUDA backend on an open xconv device: one application on the device's primary context
// and stream, in place on one of our buffers (cli/peers/vkfft.h). Not part of the library: CMake
// builds it into xconv_vkfft where it finds vkFFT.h and the CUDA toolkit's headers.
//
// VkFFT calls the driver API, the runtime API and NVRTC by name. Here every one of those calls
// is renamed, before <vkFFT.h> is read, to a static function of this file that goes through
// cuda/cuda_loader.c's tables (the runtime's calls become the driver's on the current context,
// the primary one), so nothing links libcuda, libcudart or libnvrtc at build time and xconv
// still starts on machines without them.
#include <stdint.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "../cli/peers/vkfft.h"
#include "cuda_loader.h"
#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// The calls VkFFT makes, through the loaded tables

static const xconv_cu_api *vk_cu;         // set before VkFFT runs (xconv_vkfft_cuda_create)
static const xconv_nvrtc_api *vk_nvrtc;

static CUresult vk_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    return vk_cu->device_get_attribute(v, a, d);
}

static CUresult vk_cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    return vk_cu->func_set_attribute(f, a, v);
}

static CUresult vk_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                  unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                  CUstream s, void **params, void **extra)
{
    return vk_cu->launch_kernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

static CUresult vk_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
    return vk_cu->memcpy_htod(dst, src, bytes);
}

static CUresult vk_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    return vk_cu->module_get_function(f, m, name);
}

static CUresult vk_cuModuleGetGlobal(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name)
{
    return vk_cu->module_get_global(p, bytes, m, name);
}

static CUresult vk_cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n,
                                      CUjit_option *opts, void **values)
{
    return vk_cu->module_load_data_ex(m, image, n, opts, values);
}

static CUresult vk_cuModuleUnload(CUmodule m)
{
    return vk_cu->module_unload(m);
}

// The runtime's calls, on the driver API of the current (primary) context.
static cudaError_t vk_status(CUresult r)
{
    return r == CUDA_SUCCESS ? cudaSuccess
           : r == CUDA_ERROR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation
                                           : cudaErrorUnknown;
}

static cudaError_t vk_cudaMalloc(void **p, size_t bytes)
{
    CUdeviceptr d = 0;
    CUresult r = vk_cu->mem_alloc(&d, bytes);
    *p = (void *)(uintptr_t)d;
    return vk_status(r);
}

static cudaError_t vk_cudaFree(void *p)
{
    return vk_status(vk_cu->mem_free((CUdeviceptr)(uintptr_t)p));
}

// VkFFT copies only host to device (its twiddle tables and Bluestein's vectors).
static cudaError_t vk_cudaMemcpy(void *dst, const void *src, size_t bytes,
                                 enum cudaMemcpyKind kind)
{
    if (kind != cudaMemcpyHostToDevice)
        return cudaErrorInvalidValue;
    return vk_status(vk_cu->memcpy_htod((CUdeviceptr)(uintptr_t)dst, src, bytes));
}

static cudaError_t vk_cudaDeviceSynchronize(void)
{
    return vk_status(vk_cu->ctx_synchronize());
}

static cudaError_t vk_cudaEventCreate(cudaEvent_t *e)
{
    return vk_status(vk_cu->event_create((CUevent *)e, CU_EVENT_DEFAULT));
}

static cudaError_t vk_cudaEventDestroy(cudaEvent_t e)
{
    return vk_status(vk_cu->event_destroy((CUevent)e));
}

static cudaError_t vk_cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    return vk_status(vk_cu->event_record((CUevent)e, (CUstream)s));
}

static cudaError_t vk_cudaEventSynchronize(cudaEvent_t e)
{
    return vk_status(vk_cu->event_synchronize((CUevent)e));
}

static nvrtcResult vk_nvrtcCreateProgram(nvrtcProgram *p, const char *src, const char *name,
                                         int nheaders, const char *const *headers,
                                         const char *const *include_names)
{
    return vk_nvrtc->create_program(p, src, name, nheaders, headers, include_names);
}

static nvrtcResult vk_nvrtcDestroyProgram(nvrtcProgram *p)
{
    return vk_nvrtc->destroy_program(p);
}

static nvrtcResult vk_nvrtcCompileProgram(nvrtcProgram p, int nopts, const char *const *opts)
{
    return vk_nvrtc->compile_program(p, nopts, opts);
}

static nvrtcResult vk_nvrtcGetPTXSize(nvrtcProgram p, size_t *bytes)
{
    return vk_nvrtc->get_ptx_size(p, bytes);
}

static nvrtcResult vk_nvrtcGetPTX(nvrtcProgram p, char *ptx)
{
    return vk_nvrtc->get_ptx(p, ptx);
}

static nvrtcResult vk_nvrtcGetProgramLog(nvrtcProgram p, char *log)
{
    return vk_nvrtc->get_program_log(p, log);
}

static const char *vk_nvrtcGetErrorString(nvrtcResult r)
{
    return vk_nvrtc->get_error_string(r);
}

// The headers above made some of these macros for versioned symbols; VkFFT gets ours instead.
#undef cuMemcpyHtoD
#undef cuModuleGetGlobal
#define cuDeviceGetAttribute vk_cuDeviceGetAttribute
#define cuFuncSetAttribute vk_cuFuncSetAttribute
#define cuLaunchKernel vk_cuLaunchKernel
#define cuMemcpyHtoD vk_cuMemcpyHtoD
#define cuModuleGetFunction vk_cuModuleGetFunction
#define cuModuleGetGlobal vk_cuModuleGetGlobal
#define cuModuleLoadDataEx vk_cuModuleLoadDataEx
#define cuModuleUnload vk_cuModuleUnload
#define cudaMalloc vk_cudaMalloc
#define cudaFree vk_cudaFree
#define cudaMemcpy vk_cudaMemcpy
#define cudaDeviceSynchronize vk_cudaDeviceSynchronize
#define cudaEventCreate vk_cudaEventCreate
#define cudaEventDestroy vk_cudaEventDestroy
#define cudaEventRecord vk_cudaEventRecord
#define cudaEventSynchronize vk_cudaEventSynchronize
#define nvrtcCreateProgram vk_nvrtcCreateProgram
#define nvrtcDestroyProgram vk_nvrtcDestroyProgram
#define nvrtcCompileProgram vk_nvrtcCompileProgram
#define nvrtcGetPTXSize vk_nvrtcGetPTXSize
#define nvrtcGetPTX vk_nvrtcGetPTX
#define nvrtcGetProgramLog vk_nvrtcGetProgramLog
#define nvrtcGetErrorString vk_nvrtcGetErrorString

#include "../cli/peers/vkfft_capture.h"
#define VKFFT_BACKEND 1
#include <vkFFT.h>
#undef printf
#include "../cli/peers/vkfft_calls.h"

// ---------------------------------------------------------------------------------------------
// The application

// One application and the handles its configuration points at (VkFFT keeps the pointers).
typedef struct vk_app {
    VkFFTApplication app;
    CUcontext context;
    CUdevice device;
    cudaStream_t stream;
    void *buffer;
    uint64_t bytes;
} vk_app;

// Makes a's context current on this thread; returns XCONV_ERR_DEVICE when the driver refuses.
static xconv_status make_current(const vk_app *a, xconv_error *err)
{
    CUresult r = vk_cu->ctx_set_current(a->context);
    return r == CUDA_SUCCESS ? XCONV_OK
                             : xconv_error_set(err, XCONV_ERR_DEVICE, "cuCtxSetCurrent: %s",
                                               xconv_cu_result_name(r));
}

void *xconv_vkfft_cuda_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                              xconv_buffer *buf, xconv_error *err)
{
    if (!(vk_cu = xconv_cu_load(err)) || !(vk_nvrtc = xconv_nvrtc_load(err)))
        return NULL;
    vk_app *a = calloc(1, sizeof *a);
    if (!a) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a VkFFT application");
        return NULL;
    }
    xconv_native_device nd;
    xconv_native_buffer nb;
    if (xconv_device_native(dev, &nd, err) != XCONV_OK ||
        xconv_buffer_native(buf, &nb, err) != XCONV_OK) {
        free(a);
        return NULL;
    }
    a->context = (CUcontext)nd.context;
    a->device = (CUdevice)nd.cuda_device;
    a->stream = (cudaStream_t)nd.queue;
    a->buffer = (void *)(uintptr_t)nb.cu_deviceptr;
    a->bytes = xconv_vkfft_buffer_bytes(lh, lw, batch);
    if (make_current(a, err) != XCONV_OK) {
        free(a);
        return NULL;
    }
    VkFFTConfiguration cfg = vk_plane_config(lh, lw, batch);
    cfg.device = &a->device;
    cfg.stream = &a->stream;
    cfg.num_streams = 1;
    cfg.buffer = &a->buffer;
    cfg.bufferSize = &a->bytes;
    if (vk_initialize(&a->app, cfg, err) != XCONV_OK) {
        free(a);
        return NULL;
    }
    return a;
}

xconv_status xconv_vkfft_cuda_run(void *app, int inverse, xconv_error *err)
{
    vk_app *a = app;
    xconv_status st = make_current(a, err);
    if (st != XCONV_OK)
        return st;
    VkFFTLaunchParams lp = {0};
    return vk_append(&a->app, inverse, &lp, err);
}

void xconv_vkfft_cuda_destroy(void *app)
{
    vk_app *a = app;
    if (!a)
        return;
    xconv_error ignored = {0};
    if (make_current(a, &ignored) == XCONV_OK)
        deleteVkFFT(&a->app);
    free(a);
}
