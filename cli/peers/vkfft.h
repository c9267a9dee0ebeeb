// SPDX-License-Identifier: MIT
// VkFFT (Debian's libvkfft-dev, header-only) on an open xconv device: batched 2-D real-to-complex
// and complex-to-real transforms in place in one buffer, on the device's own queue or stream, so
// `xconv bench --fft` times them beside ours. Kept out of the library: VkFFT prints on failed
// builds and sets the process's locale while it generates code. Built as the static library
// xconv_vkfft, with a backend where CMake found vkFFT.h (and, for CUDA, the toolkit's headers;
// the driver and NVRTC are loaded at run time, vkfft_cuda_calls.h).
#ifndef XCONV_BENCH_VKFFT_H
#define XCONV_BENCH_VKFFT_H

#include <xconv/xconv.h>

typedef struct xconv_vkfft xconv_vkfft;  // one VkFFT application on one buffer

// The bytes of the in-place buffer of `batch` planes of lh x lw: each plane holds lh rows of
// lw/2 + 1 complex numbers; as real input, row i of plane b is the first lw floats of that row.
size_t xconv_vkfft_buffer_bytes(int64_t lh, int64_t lw, int64_t batch);

// Returns NULL when VkFFT was built for the backend of dev, else why it was not ("VkFFT not
// built: ...").
const char *xconv_vkfft_missing(const xconv_device *dev);

// Plans VkFFT's transforms of `batch` planes of lh x lw in place in buf (at least
// xconv_vkfft_buffer_bytes), unnormalised, on dev's queue. Returns NULL with
// XCONV_ERR_UNAVAILABLE when VkFFT was not built for dev's backend, or with VkFFT's error code
// and what it printed.
xconv_vkfft *xconv_vkfft_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                                xconv_buffer *buf, xconv_error *err);

// Enqueues the forward (R2C, inverse 0) or inverse (C2R, inverse 1) transform on the buffer;
// returns XCONV_ERR_DEVICE with VkFFT's error code when it fails.
xconv_status xconv_vkfft_run(xconv_vkfft *v, int inverse, xconv_error *err);

// Frees the application; NULL is ignored.
void xconv_vkfft_destroy(xconv_vkfft *v);

// ---------------------------------------------------------------------------------------------
// The backends' halves (vkfft_opencl.c, vkfft_cuda.c): the same calls on an opaque
// application of one backend, and what VkFFT printed (captured, never shown on stdout).

void *xconv_vkfft_opencl_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                                xconv_buffer *buf, xconv_error *err);
xconv_status xconv_vkfft_opencl_run(void *app, int inverse, xconv_error *err);
void xconv_vkfft_opencl_destroy(void *app);

void *xconv_vkfft_cuda_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                              xconv_buffer *buf, xconv_error *err);
xconv_status xconv_vkfft_cuda_run(void *app, int inverse, xconv_error *err);
void xconv_vkfft_cuda_destroy(void *app);

#endif // XCONV_BENCH_VKFFT_H
