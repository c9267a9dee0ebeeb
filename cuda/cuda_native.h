// SPDX-License-Identifier: MIT
// The CUDA backend's own handles of an open device and of its buffers, for code that drives
// another library on the same context and stream (VkFFT in bench --fft; internal header).
#ifndef XCONV_CUDA_NATIVE_H
#define XCONV_CUDA_NATIVE_H

#include <cuda.h>

#include "../host/core/backend.h"

// Fills the device's primary context, its CUdevice and the backend's stream, for a context
// that the CUDA backend's `open` returned.
void xconv_cuda_native(const void *ctx, CUcontext *context, CUdevice *device, CUstream *stream);

// Returns the device address of a CUDA backend buffer.
CUdeviceptr xconv_cuda_buffer_ptr(const xconv_backend_buffer *buf);

#endif // XCONV_CUDA_NATIVE_H
