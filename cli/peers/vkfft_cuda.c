// SPDX-License-Identifier: MIT
// VkFFT's CUDA backend on an open xconv device: one application on the device's primary context
// and stream (xconv_device_native), in place on one of our buffers (vkfft.h). Not part of the
// library, a client of its public headers: CMake builds it into xconv_vkfft where it finds
// vkFFT.h and the CUDA toolkit's headers.
//
// VkFFT calls the driver API, the runtime API and NVRTC by name. Here every one of those calls
// is renamed, before <vkFFT.h> is read, to an entry point loaded with dlopen (vkfft_cuda_calls.h;
// the runtime's calls become the driver's on the current context, the primary one), so the xconv
// command links neither libcuda, libcudart nor libnvrtc and starts on machines without them.
#include <stdint.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <xconv/xconv.h>

#include "vkfft.h"
#include "vkfft_cuda_calls.h"

// ---------------------------------------------------------------------------------------------
// The calls VkFFT makes, through the loaded entry points

static const xconv_vkfft_cuda_calls *vk_cu;  // set before VkFFT runs (xconv_vkfft_cuda_create)

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

// VkFFT's names for the calls: the loaded entry points, the runtime's on the driver's above.
// cuda.h made two of them macros for versioned symbols, which the loaded entry points replace.
#undef cuMemcpyHtoD
#undef cuModuleGetGlobal
#define cuDeviceGetAttribute (vk_cu->device_get_attribute)
#define cuFuncSetAttribute (vk_cu->func_set_attribute)
#define cuLaunchKernel (vk_cu->launch_kernel)
#define cuMemcpyHtoD (vk_cu->memcpy_htod)
#define cuModuleGetFunction (vk_cu->module_get_function)
#define cuModuleGetGlobal (vk_cu->module_get_global)
#define cuModuleLoadDataEx (vk_cu->module_load_data_ex)
#define cuModuleUnload (vk_cu->module_unload)
#define cudaMalloc vk_cudaMalloc
#define cudaFree vk_cudaFree
#define cudaMemcpy vk_cudaMemcpy
#define cudaDeviceSynchronize vk_cudaDeviceSynchronize
#define cudaEventCreate vk_cudaEventCreate
#define cudaEventDestroy vk_cudaEventDestroy
#define cudaEventRecord vk_cudaEventRecord
#define cudaEventSynchronize vk_cudaEventSynchronize
#define nvrtcCreateProgram (vk_cu->nvrtc_create_program)
#define nvrtcDestroyProgram (vk_cu->nvrtc_destroy_program)
#define nvrtcCompileProgram (vk_cu->nvrtc_compile_program)
#define nvrtcGetPTXSize (vk_cu->nvrtc_get_ptx_size)
#define nvrtcGetPTX (vk_cu->nvrtc_get_ptx)
#define nvrtcGetProgramLog (vk_cu->nvrtc_get_program_log)
#define nvrtcGetErrorString (vk_cu->nvrtc_get_error_string)

#include "vkfft_capture.h"
#define VKFFT_BACKEND 1
#include <vkFFT.h>
#undef printf
#include "vkfft_calls.h"

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
    const char *name = NULL;
    if (r == CUDA_SUCCESS)
        return XCONV_OK;
    if (vk_cu->get_error_name(r, &name) == CUDA_SUCCESS && name)
        return xconv_error_set(err, XCONV_ERR_DEVICE, "cuCtxSetCurrent: %s", name);
    return xconv_error_set(err, XCONV_ERR_DEVICE, "cuCtxSetCurrent: CUresult %d", (int)r);
}

void *xconv_vkfft_cuda_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                              xconv_buffer *buf, xconv_error *err)
{
    if (!(vk_cu = xconv_vkfft_cuda_calls_load(err)))
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
