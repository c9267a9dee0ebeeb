// SPDX-License-Identifier: MIT
// VkFFT beside our transforms: the backend dispatch of cli/peers/vkfft.h. The backends' halves are
// compiled in where CMake found vkFFT.h (XCONV_HAVE_VKFFT_OPENCL, XCONV_HAVE_VKFFT_CUDA).
#include <stdlib.h>

#include "vkfft.h"

struct xconv_vkfft {
    xconv_backend_kind backend;
    void *app;  // the backend half's application
};

size_t xconv_vkfft_buffer_bytes(int64_t lh, int64_t lw, int64_t batch)
{
    return (size_t)(batch * lh * (lw / 2 + 1)) * 2 * sizeof(float);
}

// Returns whether VkFFT was built for backend b.
static bool built_for(xconv_backend_kind b)
{
#ifdef XCONV_HAVE_VKFFT_OPENCL
    if (b == XCONV_BACKEND_OPENCL)
        return true;
#endif
#ifdef XCONV_HAVE_VKFFT_CUDA
    if (b == XCONV_BACKEND_CUDA)
        return true;
#endif
    (void)b;
    return false;
}

const char *xconv_vkfft_missing(const xconv_device *dev)
{
    xconv_backend_kind b = xconv_device_get_info(dev)->backend;
    if (built_for(b))
        return NULL;
#if defined(XCONV_HAVE_VKFFT_OPENCL) || defined(XCONV_HAVE_VKFFT_CUDA)
    return b == XCONV_BACKEND_CUDA
               ? "VkFFT not built for CUDA: the CUDA toolkit's headers were not found when "
                 "xconv was configured"
               : "VkFFT not built for this backend";
#else
    return "VkFFT not built: vkFFT.h (Debian's libvkfft-dev) was not found when xconv was "
           "configured";
#endif
}

xconv_vkfft *xconv_vkfft_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                                xconv_buffer *buf, xconv_error *err)
{
    const char *missing = xconv_vkfft_missing(dev);
    if (missing) {
        xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "%s", missing);
        return NULL;
    }
    xconv_vkfft *v = calloc(1, sizeof *v);
    if (!v) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a VkFFT application");
        return NULL;
    }
    v->backend = xconv_device_get_info(dev)->backend;
#ifdef XCONV_HAVE_VKFFT_OPENCL
    if (v->backend == XCONV_BACKEND_OPENCL)
        v->app = xconv_vkfft_opencl_create(dev, lh, lw, batch, buf, err);
#endif
#ifdef XCONV_HAVE_VKFFT_CUDA
    if (v->backend == XCONV_BACKEND_CUDA)
        v->app = xconv_vkfft_cuda_create(dev, lh, lw, batch, buf, err);
#endif
    (void)lh, (void)lw, (void)batch, (void)buf;
    if (!v->app) {
        free(v);
        return NULL;
    }
    return v;
}

xconv_status xconv_vkfft_run(xconv_vkfft *v, int inverse, xconv_error *err)
{
#ifdef XCONV_HAVE_VKFFT_OPENCL
    if (v->backend == XCONV_BACKEND_OPENCL)
        return xconv_vkfft_opencl_run(v->app, inverse, err);
#endif
#ifdef XCONV_HAVE_VKFFT_CUDA
    if (v->backend == XCONV_BACKEND_CUDA)
        return xconv_vkfft_cuda_run(v->app, inverse, err);
#endif
    (void)inverse;
    return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "VkFFT not built");
}

void xconv_vkfft_destroy(xconv_vkfft *v)
{
    if (!v)
        return;
#ifdef XCONV_HAVE_VKFFT_OPENCL
    if (v->backend == XCONV_BACKEND_OPENCL)
        xconv_vkfft_opencl_destroy(v->app);
#endif
#ifdef XCONV_HAVE_VKFFT_CUDA
    if (v->backend == XCONV_BACKEND_CUDA)
        xconv_vkfft_cuda_destroy(v->app);
#endif
    free(v);
}
