// SPDX-License-Identifier: MIT
// Interop: the backend's own handles of an open device (OpenCL context, device and queue; CUDA
// context, device and stream) and of a buffer (cl_mem; CUdeviceptr), for driving another
// library on the same context and queue (VkFFT beside xconv's FFTs, say). The handles stay
// xconv's: a caller neither releases nor frees them.
#ifndef XCONV_PUBLIC_NATIVE_H
#define XCONV_PUBLIC_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/core.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// A device's native handles (the fields of its backend; the others NULL or -1). Valid while the
// device is open and its context is not rebuilt (xconv_device_resets unchanged).
typedef struct xconv_native_device {
    xconv_backend_kind backend;
    void *context;    // OpenCL: cl_context; CUDA: CUcontext (the device's primary context)
    void *device;     // OpenCL: cl_device_id; CUDA: NULL
    int cuda_device;  // CUDA: the CUdevice; OpenCL: -1
    void *queue;      // OpenCL: the in-order cl_command_queue xconv enqueues on; CUDA: CUstream
} xconv_native_device;

// A buffer's native handle: the field of its device's backend (the other NULL or 0).
typedef struct xconv_native_buffer {
    void *cl_mem;           // OpenCL: the cl_mem (of xconv_buffer_size bytes)
    uint64_t cu_deviceptr;  // CUDA: the CUdeviceptr
} xconv_native_buffer;

// Fills *out with dev's native handles (a context lost at a fault is rebuilt first, as for any
// call that uses it). Returns XCONV_OK, XCONV_ERR_UNAVAILABLE for a device without a backend
// (a target profile's), XCONV_ERR_DEVICE_LOST for a lost one.
xconv_status xconv_device_native(xconv_device *dev, xconv_native_device *out,
                                 xconv_error *err);

// Fills *out with buf's native handle. Returns XCONV_OK, or XCONV_ERR_DEVICE_LOST for a buffer
// that went with a lost context.
xconv_status xconv_buffer_native(const xconv_buffer *buf, xconv_native_buffer *out,
                                 xconv_error *err);

XCONV_API_END

#endif // XCONV_PUBLIC_NATIVE_H
