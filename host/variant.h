// SPDX-License-Identifier: MIT
// The variant registry: each convolution algorithm's description, applicability and planner
// (internal header; the public header has the queries).
#ifndef XCONV_VARIANT_H
#define XCONV_VARIANT_H

#include "plan.h"

#define XCONV_ON_ALL_BACKENDS (XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL) | \
                               XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA))

struct xconv_variant {
    xconv_variant_info info;

    // Returns true when the variant can run p on dev, else false with the reason in `reason`.
    // NULL means it applies to every valid problem.
    bool (*applies)(const xconv_device *dev, const xconv_problem *p, char *reason, size_t len);

    // Fills plan (its steps, regions and summary) for p on dev under opts; returns XCONV_OK or
    // a negative status with a message.
    xconv_status (*plan)(const xconv_device *dev, const xconv_problem *p,
                         const xconv_plan_options *opts, xconv_plan *plan, xconv_error *err);

    // Optional. NULL: the generic runner enqueues every step in order, resolving arguments
    // against the tensors. A variant needs its own run only for something steps cannot say.
    xconv_status (*run)(xconv_plan *plan, const xconv_tensors *t, xconv_error *err);

    // Host variants only (info.backends == 0): computes y on the host.
    xconv_status (*run_host)(const xconv_problem *p, const float *x, const float *w, float *y,
                             xconv_error *err);
};

// Each family's table (host/variants_<family>.c).
const xconv_variant *xconv_reference_variants(int *count);
const xconv_variant *xconv_direct_variants(int *count);
const xconv_variant *xconv_gemm_variants(int *count);
const xconv_variant *xconv_fft_variants(int *count);
const xconv_variant *xconv_peer_variants(int *count);

// Plans v for p on dev under opts (NULL: defaults) after checking that it applies
// (XCONV_ERR_NOT_APPLICABLE with the reason); checks the plan (xconv_plan_check). dev may be a
// device description without a context (planning alone). Returns XCONV_OK and *out, or the
// failure with *out NULL.
xconv_status xconv_variant_plan(const xconv_variant *v, xconv_device *dev,
                                const xconv_problem *p, const xconv_plan_options *opts,
                                xconv_plan **out, xconv_error *err);

// The variants the "auto" rule tries for p on a device described by info, best first, into
// out (at most max); returns their number (host/variant_auto.c). The first that plans wins.
int xconv_variant_auto_candidates(const xconv_device_info *info, const xconv_problem *p,
                                  const xconv_variant **out, int max);

#endif // XCONV_VARIANT_H
