// SPDX-License-Identifier: MIT
// The OpenCL timer's start delay: how many steps of cl/timer_delay.cl last a target time on a
// device, found from the device's own profiling clock and kept right as regions go by. Pure
// arithmetic over a probe the caller supplies, so a test can drive it with a fake clock.
#ifndef XCONV_OPENCL_DELAY_H
#define XCONV_OPENCL_DELAY_H

#include <stdbool.h>
#include <stdint.h>

#include <xconv/xconv.h>

// What a region's start delay first aims at, and the longest its doubling reaches.
#define XCONV_DELAY_TARGET_NS 100000.0
#define XCONV_DELAY_MAX_TARGET_NS 1600000.0
// The most steps a delay runs, whatever the calibration says (a bound on its time).
#define XCONV_DELAY_MAX_ITERS (1u << 26)

// Runs the delay kernel with `iters` steps, waits for it and stores its device time (profiling
// END - START) in *ns. Returns XCONV_OK or the failure.
typedef xconv_status (*xconv_delay_probe_fn)(void *user, uint32_t iters, double *ns,
                                             xconv_error *err);

typedef struct xconv_delay {
    double target_ns;     // what the delay should last
    uint32_t iters;       // the steps that last about target_ns; 0: no delay (a plain stamp)
    double ns_per_iter;   // the calibrated time of one step (0 before, or when unusable)
    bool calibrated;      // calibration ran (iters 0 after it: the device's time does not grow
                          // with the steps, so the region keeps the plain stamp)
} xconv_delay;

// Sets d to its state before calibration (target XCONV_DELAY_TARGET_NS).
void xconv_delay_init(xconv_delay *d);

// Times the delay at two step counts (the second grown until it adds a quarter of the target),
// solves the line through them for the count that lasts d->target_ns, bounds it, runs that count
// once more and corrects it once when it is off by more than 2x. Returns XCONV_OK (d calibrated,
// iters 0 when the time does not grow with the count) or the probe's failure.
xconv_status xconv_delay_calibrate(xconv_delay *d, xconv_delay_probe_fn probe, void *user,
                                   xconv_error *err);

// After a region: its delay lasted measured_ns on the device, and the host took host_ns from
// just before enqueuing the delay to having flushed the region's last command. Rescales iters
// when measured_ns is off the target by more than 2x; doubles the target (up to
// XCONV_DELAY_MAX_TARGET_NS) when host_ns passed 3/4 of measured_ns, that is, when the device
// may have finished the delay before the host had handed it the whole region. Returns true when
// it doubled the target.
bool xconv_delay_observe(xconv_delay *d, double measured_ns, double host_ns);

#endif // XCONV_OPENCL_DELAY_H
