// SPDX-License-Identifier: MIT
// Our 2-D real FFTs on raw planes through the public API: the FFT family's forward and inverse
// transform steps (host/families/fft/plan_fft.c), each a one-step plan on the caller's buffers.
#include <stdlib.h>

#include "core/contract.h"
#include "families/fft/plan_fft.h"
#include "plan/variant.h"

struct xconv_fft2d {
    xconv_plan *forward;  // x = planes, y = spectra
    xconv_plan *inverse;  // x = spectra, y = planes
    int64_t lh, lw, batch;
};

// Makes one of f's plans on dev into *out; returns its status.
static xconv_status plan_one(xconv_device *dev, const xconv_fft2d *f, bool inverse,
                             const xconv_plan_options *opts, xconv_plan **out, xconv_error *err)
{
    xconv_problem p = xconv_fft_planes_problem(f->lh, f->lw, f->batch);
    xconv_plan *plan = xconv_plan_new(dev, NULL, &p, opts);
    if (!plan)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a plan");
    xconv_status st = xconv_fft_plan_planes(&dev->info, f->lh, f->lw, f->batch, inverse, plan,
                                            err);
    if (st == XCONV_OK) {
        xconv_plan_add_batch_args(plan);
        st = xconv_plan_check(plan, err);
    }
    if (st != XCONV_OK)
        xconv_plan_destroy(plan);
    else
        *out = plan;
    return st;
}

xconv_fft2d *xconv_fft2d_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                                const xconv_plan_options *opts, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev) || xconv_plan_options_check(opts, err) != XCONV_OK)
        return NULL;
    xconv_fft2d *f = calloc(1, sizeof *f);
    if (!f) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for an FFT");
        return NULL;
    }
    f->lh = lh, f->lw = lw, f->batch = batch;
    if (plan_one(dev, f, false, opts, &f->forward, err) != XCONV_OK ||
        plan_one(dev, f, true, opts, &f->inverse, err) != XCONV_OK) {
        xconv_fft2d_destroy(f);
        return NULL;
    }
    return f;
}

const char *xconv_fft2d_summary(const xconv_fft2d *f)
{
    return f ? f->forward->summary : "";
}

size_t xconv_fft2d_planes_bytes(const xconv_fft2d *f)
{
    return f ? (size_t)(f->batch * f->lh * f->lw) * sizeof(float) : 0;
}

size_t xconv_fft2d_spectra_bytes(const xconv_fft2d *f)
{
    return f ? (size_t)(f->batch * f->lh * (f->lw / 2 + 1)) * 2 * sizeof(float) : 0;
}

// The planes problem's w (one float) is never read: the input buffer stands in for it.
xconv_status xconv_fft2d_forward(xconv_fft2d *f, xconv_buffer *planes, xconv_buffer *spectra,
                                 xconv_error *err)
{
    if (XCONV_NULL_ARG(err, f) || XCONV_NULL_ARG(err, planes) || XCONV_NULL_ARG(err, spectra))
        return XCONV_ERR_INVALID;
    const xconv_tensors t = {.x = planes, .w = planes, .y = spectra};
    return xconv_plan_run(f->forward, &t, err);
}

xconv_status xconv_fft2d_inverse(xconv_fft2d *f, xconv_buffer *spectra, xconv_buffer *planes,
                                 xconv_error *err)
{
    if (XCONV_NULL_ARG(err, f) || XCONV_NULL_ARG(err, spectra) || XCONV_NULL_ARG(err, planes))
        return XCONV_ERR_INVALID;
    const xconv_tensors t = {.x = spectra, .w = spectra, .y = planes};
    return xconv_plan_run(f->inverse, &t, err);
}

void xconv_fft2d_destroy(xconv_fft2d *f)
{
    if (!f)
        return;
    xconv_plan_destroy(f->forward);
    xconv_plan_destroy(f->inverse);
    free(f);
}
