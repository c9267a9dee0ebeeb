// SPDX-License-Identifier: MIT
// VkFFT's OpenCL backend on an open xconv device: one application on the device's context and
// in-order queue (xconv_device_native), in place on one of our buffers (vkfft.h). Not part of
// the library, a client of its public headers: CMake builds it into xconv_vkfft where it finds
// vkFFT.h.
#include <stdint.h>
#include <stdlib.h>

#include <CL/cl.h>
#include <xconv/xconv.h>

#include "vkfft.h"

#include "vkfft_capture.h"
#define VKFFT_BACKEND 3
#include <vkFFT.h>
#undef printf
#include "vkfft_calls.h"

// One application and the handles its configuration points at (VkFFT keeps the pointers).
typedef struct vk_app {
    VkFFTApplication app;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_mem mem;
    uint64_t bytes;
} vk_app;

void *xconv_vkfft_opencl_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                                xconv_buffer *buf, xconv_error *err)
{
    xconv_native_device nd;
    xconv_native_buffer nb;
    if (xconv_device_native(dev, &nd, err) != XCONV_OK ||
        xconv_buffer_native(buf, &nb, err) != XCONV_OK)
        return NULL;
    vk_app *a = calloc(1, sizeof *a);
    if (!a) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a VkFFT application");
        return NULL;
    }
    a->device = (cl_device_id)nd.device;
    a->context = (cl_context)nd.context;
    a->queue = (cl_command_queue)nd.queue;
    a->mem = (cl_mem)nb.cl_mem;
    a->bytes = xconv_vkfft_buffer_bytes(lh, lw, batch);
    VkFFTConfiguration cfg = vk_plane_config(lh, lw, batch);
    cfg.device = &a->device;
    cfg.context = &a->context;
    cfg.commandQueue = &a->queue;
    cfg.buffer = &a->mem;
    cfg.bufferSize = &a->bytes;
    if (vk_initialize(&a->app, cfg, err) != XCONV_OK) {
        free(a);
        return NULL;
    }
    return a;
}

xconv_status xconv_vkfft_opencl_run(void *app, int inverse, xconv_error *err)
{
    vk_app *a = app;
    VkFFTLaunchParams lp = {0};
    lp.commandQueue = &a->queue;
    return vk_append(&a->app, inverse, &lp, err);
}

void xconv_vkfft_opencl_destroy(void *app)
{
    vk_app *a = app;
    if (!a)
        return;
    deleteVkFFT(&a->app);
    free(a);
}
