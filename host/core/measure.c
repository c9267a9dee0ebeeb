// SPDX-License-Identifier: MIT
// The measuring primitive: warm-up runs, then timed runs each between two marks in the
// device's queue, and the median, min and max of their device times.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"

#include "core/contract.h"

// Orders doubles ascending for qsort.
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Sorts ms (n > 0) in place and fills the median, min and max of out.
static void fill_stats(double *ms, int n, xconv_timing *out)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    out->min_ms = ms[0];
    out->max_ms = ms[n - 1];
    out->median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

xconv_status xconv_device_measure(xconv_device *dev, xconv_enqueue_fn enqueue, void *user,
                                  int warmup, int repeat, xconv_timing *out, double *samples,
                                  xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, enqueue) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    *out = (xconv_timing){.warmup = warmup, .repeat = repeat, .median_ms = NAN, .min_ms = NAN,
                          .max_ms = NAN};
    if (repeat < 1 || warmup < 0)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "measure: %d warm-up and %d timed runs (at least 1)", warmup,
                               repeat);
    const xconv_backend_iface *be = dev->be;
    xconv_status st = xconv_device_usable(dev, err);
    for (int i = 0; st == XCONV_OK && i < warmup; i++)
        st = enqueue(user, i, err);
    if (st == XCONV_OK)
        st = xconv_device_fault(dev, be->finish(dev->ctx, err), err);
    double *ms = st == XCONV_OK ? malloc((size_t)repeat * sizeof *ms) : NULL;
    if (!ms && st == XCONV_OK)
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "measure: no host memory");
    for (int i = 0; st == XCONV_OK && i < repeat; i++) {
        st = xconv_device_fault(dev, be->timer_start(dev->ctx, err), err);
        if (st == XCONV_OK)
            st = enqueue(user, warmup + i, err);
        if (st == XCONV_OK)
            st = xconv_device_fault(dev, be->timer_stop(dev->ctx, &ms[i], err), err);
    }
    if (st == XCONV_OK) {
        if (samples)
            memcpy(samples, ms, (size_t)repeat * sizeof *ms);
        fill_stats(ms, repeat, out);
    }
    free(ms);
    return st;
}

xconv_status xconv_device_set_timing_delay(xconv_device *dev, xconv_timing_delay mode,
                                           xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev))
        return XCONV_ERR_INVALID;
    if (mode != XCONV_TIMING_DELAY_AUTO && mode != XCONV_TIMING_DELAY_OFF &&
        mode != XCONV_TIMING_DELAY_ON)
        return xconv_error_set(err, XCONV_ERR_INVALID, "mode: %d is not an xconv_timing_delay "
                               "(auto 0, off 1, on 2)", (int)mode);
    if (dev->be && dev->be->timer_delay && dev->ctx)
        dev->be->timer_delay(dev->ctx, (int)mode);
    return XCONV_OK;
}
