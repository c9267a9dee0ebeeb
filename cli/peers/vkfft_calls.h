// SPDX-License-Identifier: MIT
// Included by the VkFFT translation units (vkfft_opencl.c, vkfft_cuda.c) after
// <vkFFT.h> and vkfft.h: the calls into VkFFT both backends make the same way, compiled once in
// each against its backend's VkFFT types. Errors carry what VkFFT printed (vkfft_capture.h).
#ifndef XCONV_PEERS_VKFFT_CALLS_H
#define XCONV_PEERS_VKFFT_CALLS_H

// Sets err from a VkFFT result and what it printed; returns XCONV_ERR_DEVICE.
static xconv_status vk_fail(xconv_error *err, VkFFTResult r, const char *what)
{
    return xconv_error_set(err, XCONV_ERR_DEVICE, "VkFFT %s failed: VkFFTResult %d%s%.600s", what,
                           (int)r, xconv_vkfft_log[0] ? "; it printed: " : "", xconv_vkfft_log);
}

// Returns the configuration of batch in-place 2-D R2C transforms of lh x lw planes (the
// backend's handles still to be set).
static VkFFTConfiguration vk_plane_config(int64_t lh, int64_t lw, int64_t batch)
{
    VkFFTConfiguration cfg = {0};
    cfg.FFTdim = 2;
    cfg.size[0] = (uint64_t)lw;
    cfg.size[1] = (uint64_t)lh;
    cfg.numberBatches = (uint64_t)batch;
    cfg.performR2C = 1;
    return cfg;
}

// Initialises app with cfg. Returns XCONV_OK, or XCONV_ERR_DEVICE with what VkFFT printed (app
// then holds nothing: initializeVkFFT frees what it made before it fails).
static xconv_status vk_initialize(VkFFTApplication *app, VkFFTConfiguration cfg,
                                  xconv_error *err)
{
    xconv_vkfft_log_clear();
    VkFFTResult r = initializeVkFFT(app, cfg);
    return r == VKFFT_SUCCESS ? XCONV_OK : vk_fail(err, r, "initialisation");
}

// Appends app's R2C (inverse 0) or C2R (inverse 1) with launch parameters lp; returns XCONV_OK
// or XCONV_ERR_DEVICE.
static xconv_status vk_append(VkFFTApplication *app, int inverse, VkFFTLaunchParams *lp,
                              xconv_error *err)
{
    xconv_vkfft_log_clear();
    VkFFTResult r = VkFFTAppend(app, inverse ? 1 : -1, lp);
    return r == VKFFT_SUCCESS ? XCONV_OK : vk_fail(err, r, inverse ? "C2R" : "R2C");
}

#endif // XCONV_PEERS_VKFFT_CALLS_H
