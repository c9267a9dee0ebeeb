// SPDX-License-Identifier: MIT
// The OpenCL timer's start delay: calibrating the steps of cl/timer_delay.cl against the
// device's profiling clock, and keeping them right as regions go by (cl/opencl_delay.h).
#include "opencl_delay.h"

// The two counts calibration starts from, and how much the second grows a round.
#define FIRST_ITERS 16u
#define SECOND_ITERS 1024u
#define GROWTH 8u
// Runs of each probe: the fastest is kept (a delay only ever runs longer than it should).
#define PROBE_RUNS 3

void xconv_delay_init(xconv_delay *d)
{
    *d = (xconv_delay){.target_ns = XCONV_DELAY_TARGET_NS};
}

// Returns x bounded to [1, XCONV_DELAY_MAX_ITERS] and to twice the longest target's steps.
static uint32_t bound_iters(const xconv_delay *d, double x)
{
    double most = XCONV_DELAY_MAX_ITERS;
    if (d->ns_per_iter > 0.0 && 2.0 * XCONV_DELAY_MAX_TARGET_NS / d->ns_per_iter < most)
        most = 2.0 * XCONV_DELAY_MAX_TARGET_NS / d->ns_per_iter;
    if (!(x >= 1.0))  // NaN too
        return 1;
    return (uint32_t)(x < most ? x : most);
}

// The fastest of PROBE_RUNS runs of `iters` steps, in *ns.
static xconv_status probe_min(xconv_delay_probe_fn probe, void *user, uint32_t iters,
                              double *ns, xconv_error *err)
{
    *ns = 0.0;
    for (int i = 0; i < PROBE_RUNS; i++) {
        double t = 0.0;
        xconv_status st = probe(user, iters, &t, err);
        if (st != XCONV_OK)
            return st;
        if (i == 0 || t < *ns)
            *ns = t;
    }
    return XCONV_OK;
}

xconv_status xconv_delay_calibrate(xconv_delay *d, xconv_delay_probe_fn probe, void *user,
                                   xconv_error *err)
{
    uint32_t n1 = FIRST_ITERS, n2 = SECOND_ITERS;
    double t1 = 0.0, t2 = 0.0;
    xconv_status st = probe_min(probe, user, n1, &t1, err);
    for (;;) {  // n2 grows until it adds a quarter of the target: at most 7 rounds
        if (st == XCONV_OK)
            st = probe_min(probe, user, n2, &t2, err);
        if (st != XCONV_OK)
            return st;
        if (t2 - t1 >= d->target_ns / 4.0 || n2 >= XCONV_DELAY_MAX_ITERS)
            break;
        n2 = n2 <= XCONV_DELAY_MAX_ITERS / GROWTH ? n2 * GROWTH : XCONV_DELAY_MAX_ITERS;
    }
    d->calibrated = true;
    d->iters = 0;
    d->ns_per_iter = 0.0;
    if (!(t2 - t1 >= d->target_ns / 8.0))  // the steps do not add time: no delay
        return XCONV_OK;
    d->ns_per_iter = (t2 - t1) / (double)(n2 - n1);
    double launch_ns = t1 - d->ns_per_iter * n1;  // what a run of no steps lasts
    d->iters = bound_iters(d, (d->target_ns - (launch_ns > 0.0 ? launch_ns : 0.0)) /
                                  d->ns_per_iter);
    double t = 0.0;
    st = probe_min(probe, user, d->iters, &t, err);
    if (st == XCONV_OK && t > 0.0 && (t < d->target_ns / 2.0 || t > 2.0 * d->target_ns))
        d->iters = bound_iters(d, (double)d->iters * d->target_ns / t);
    return st;
}

bool xconv_delay_observe(xconv_delay *d, double measured_ns, double host_ns)
{
    if (d->iters == 0 || !(measured_ns > 0.0))
        return false;
    if (measured_ns < d->target_ns / 2.0 || measured_ns > 2.0 * d->target_ns)
        d->iters = bound_iters(d, (double)d->iters * d->target_ns / measured_ns);
    if (!(host_ns > 0.75 * measured_ns) || d->target_ns >= XCONV_DELAY_MAX_TARGET_NS)
        return false;
    d->target_ns *= 2.0;
    d->iters = bound_iters(d, (double)d->iters * 2.0);
    return true;
}
