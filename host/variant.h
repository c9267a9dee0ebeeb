// SPDX-License-Identifier: MIT
// The variant registry: each convolution algorithm's name, family, applicability, planner and run.
#ifndef XCONV_VARIANT_H
#define XCONV_VARIANT_H

#include "plan.h"

// The device buffers of one convolution.
typedef struct xconv_tensors {
    xconv_buffer *x;          // N x C x H x W
    xconv_buffer *w;          // K x C/groups x R x S
    xconv_buffer *y;          // N x K x P x Q
    xconv_buffer *workspace;  // plan->workspace_bytes of scratch, NULL when 0
} xconv_tensors;

#define XCONV_BACKEND_BIT(kind) (1u << (kind))
#define XCONV_ON_ALL_BACKENDS (XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL) | \
                               XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA))

typedef struct xconv_variant {
    const char *name;      // "direct_tiled"
    const char *family;    // "reference", "direct", "gemm", "peer"
    const char *summary;   // one line for listings
    const char *accuracy;  // the family whose error threshold applies (validate/thresholds.c);
                           // NULL: family. cuDNN's Winograd and FFT rows use "winograd", "fft".
    unsigned backends;     // XCONV_BACKEND_BIT of each backend it runs on; 0: runs on the host

    // Returns true when the variant can run p on dev, else false with the reason in `reason`.
    // NULL means it applies to every valid problem.
    bool (*applies)(const xconv_device *dev, const xconv_problem *p, char *reason, size_t len);

    // Fills *plan for p on dev; returns XCONV_OK or a negative status with a message.
    xconv_status (*plan)(const xconv_device *dev, const xconv_problem *p, xconv_plan *plan,
                         xconv_error *err);

    // Enqueues y = conv(x, w) as planned (asynchronously); returns a status.
    xconv_status (*run)(xconv_device *dev, const xconv_problem *p, const xconv_plan *plan,
                        const xconv_tensors *t, xconv_error *err);

    // Host variants only (backends == 0): computes y on the host.
    xconv_status (*run_host)(const xconv_problem *p, const float *x, const float *w, float *y,
                             xconv_error *err);
} xconv_variant;

// Each family's table (host/variants_<family>.c).
const xconv_variant *xconv_reference_variants(int *count);
const xconv_variant *xconv_direct_variants(int *count);
const xconv_variant *xconv_gemm_variants(int *count);
const xconv_variant *xconv_peer_variants(int *count);

// Returns every registered variant in listing order; *count gets their number.
const xconv_variant *const *xconv_variants_all(int *count);

// Returns the variant called name, or NULL with a message listing the valid names.
const xconv_variant *xconv_variant_find(const char *name, xconv_error *err);

// Returns true when v runs on dev's backend and applies to p, else false with the reason.
bool xconv_variant_applies(const xconv_variant *v, const xconv_device *dev,
                           const xconv_problem *p, char *reason, size_t len);

// Plans v for p on dev after checking that it applies (XCONV_ERR_NOT_APPLICABLE with the reason)
// and that the workspace fits the device's largest allocation.
xconv_status xconv_variant_plan(const xconv_variant *v, const xconv_device *dev,
                                const xconv_problem *p, xconv_plan *plan, xconv_error *err);

#endif // XCONV_VARIANT_H
