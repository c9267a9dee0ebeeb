// SPDX-License-Identifier: MIT
// The OpenCL timer's start delay (cl/opencl_delay.c) against fake device clocks: calibration
// finds the step count that lasts the target on fast, slow, noisy and launch-heavy devices,
// bounds it, gives up (no delay) where the steps add no time, and passes a probe's failure on;
// a region's observation rescales a delay that drifted and doubles one the host outlasted.
#include <math.h>
#include <stdint.h>

#include "cl/opencl_delay.h"
#include "tests/check.h"

// A device whose delay kernel lasts launch_ns + ns_per_iter * iters, plus noise: every run
// gets up to `jitter` of that time more, and every `outlier_every`-th run 20 times more.
typedef struct fake_clock {
    double launch_ns, ns_per_iter, jitter;
    int outlier_every;
    int runs;
    uint32_t seed;
    bool fail;
} fake_clock;

static xconv_status fake_probe(void *user, uint32_t iters, double *ns, xconv_error *err)
{
    fake_clock *c = user;
    c->runs++;
    if (c->fail)
        return xconv_error_set(err, XCONV_ERR_DEVICE, "fake device lost");
    double t = c->launch_ns + c->ns_per_iter * iters;
    c->seed = c->seed * 1664525u + 1013904223u;
    t *= 1.0 + c->jitter * (double)(c->seed >> 8) / 16777216.0;
    if (c->outlier_every && c->runs % c->outlier_every == 0)
        t *= 20.0;
    *ns = t;
    return XCONV_OK;
}

// What the calibrated delay lasts on c, without noise.
static double lasts(const fake_clock *c, const xconv_delay *d)
{
    return c->launch_ns + c->ns_per_iter * d->iters;
}

// Calibrates on c; checks the delay lasts within [lo, hi] of the target and took few runs.
static void check_calibrates(const char *what, fake_clock c, double lo, double hi)
{
    xconv_delay d;
    xconv_delay_init(&d);
    xconv_error err = {0};
    CHECK_MSG(xconv_delay_calibrate(&d, fake_probe, &c, &err) == XCONV_OK, "%s: %s", what,
              err.msg);
    double t = lasts(&c, &d);
    printf("  %-40s %8u steps, %8.1f us (%d runs)\n", what, d.iters, t * 1e-3, c.runs);
    CHECK_MSG(d.calibrated && d.iters > 0, "%s: not calibrated", what);
    CHECK_MSG(t >= lo * d.target_ns && t <= hi * d.target_ns, "%s: the delay lasts %.1f us for "
              "a target of %.1f us", what, t * 1e-3, d.target_ns * 1e-3);
    CHECK_MSG(c.runs <= 3 * 9, "%s: %d probe runs", what, c.runs);
}

static void test_calibration(void)
{
    // A GPU: 2.5 ns a step, 5 us a launch; a CPU thread: 0.3 ns a step.
    check_calibrates("GPU-like, exact clock", (fake_clock){.launch_ns = 5e3, .ns_per_iter = 2.5},
                     0.98, 1.02);
    check_calibrates("CPU-like, exact clock", (fake_clock){.launch_ns = 20e3, .ns_per_iter = 0.3},
                     0.98, 1.02);
    // A launch that is most of the target: the steps make up the rest.
    check_calibrates("launch of 80 us", (fake_clock){.launch_ns = 80e3, .ns_per_iter = 1.0},
                     0.98, 1.02);
    // Noise of up to 30%, and one run in 4 twenty times slower: the fastest of three counts.
    check_calibrates("noisy clock with outliers",
                     (fake_clock){.launch_ns = 5e3, .ns_per_iter = 2.5, .jitter = 0.3,
                                  .outlier_every = 4, .seed = 7}, 0.6, 1.6);
    // A slow device: a few steps suffice.
    check_calibrates("slow device (2 us a step)",
                     (fake_clock){.launch_ns = 5e3, .ns_per_iter = 2000.0}, 0.9, 1.1);
    // A launch longer than the target: one step, the shortest delay there is.
    fake_clock slow = {.launch_ns = 300e3, .ns_per_iter = 1.0};
    xconv_delay d;
    xconv_delay_init(&d);
    xconv_error err = {0};
    CHECK(xconv_delay_calibrate(&d, fake_probe, &slow, &err) == XCONV_OK);
    CHECK_MSG(d.iters == 1, "launch of 300 us: %u steps", d.iters);
}

static void test_bounds(void)
{
    xconv_error err = {0};
    // Steps that add no time (the compiler removed the loop, a clock that barely moves): no
    // delay, the plain stamp, and calibration is not tried again.
    fake_clock flat = {.launch_ns = 3e3, .ns_per_iter = 0.0};
    xconv_delay d;
    xconv_delay_init(&d);
    CHECK(xconv_delay_calibrate(&d, fake_probe, &flat, &err) == XCONV_OK);
    CHECK_MSG(d.calibrated && d.iters == 0, "flat clock: %u steps", d.iters);
    CHECK_MSG(flat.runs <= 3 * 9, "flat clock: %d probe runs", flat.runs);
    // Far too fast a step: the count stops at its bound.
    fake_clock fast = {.launch_ns = 1e3, .ns_per_iter = 1e-6};
    xconv_delay_init(&d);
    CHECK(xconv_delay_calibrate(&d, fake_probe, &fast, &err) == XCONV_OK);
    CHECK_MSG(d.iters <= XCONV_DELAY_MAX_ITERS, "fast clock: %u steps", d.iters);
    // A probe that fails: its status comes back.
    fake_clock broken = {.fail = true};
    xconv_delay_init(&d);
    CHECK(xconv_delay_calibrate(&d, fake_probe, &broken, &err) == XCONV_ERR_DEVICE);
    CHECK_CONTAINS(err.msg, "fake device lost");
}

static void test_observe(void)
{
    fake_clock c = {.launch_ns = 5e3, .ns_per_iter = 2.5};
    xconv_delay d;
    xconv_delay_init(&d);
    xconv_error err = {0};
    CHECK(xconv_delay_calibrate(&d, fake_probe, &c, &err) == XCONV_OK);
    uint32_t iters = d.iters;
    // A region whose delay lasted about the target, with the host done in a tenth of it.
    CHECK(!xconv_delay_observe(&d, 1.1 * d.target_ns, 0.1 * d.target_ns));
    CHECK(d.iters == iters && d.target_ns == XCONV_DELAY_TARGET_NS);
    // The device slowed to a third: the steps shrink to match.
    CHECK(!xconv_delay_observe(&d, 3.0 * d.target_ns, 0.1 * d.target_ns));
    CHECK_MSG(fabs((double)d.iters * 3.0 - iters) <= 3.0, "%u steps after 3x, from %u", d.iters,
              iters);
    // The host was still enqueuing when the delay may have ended: the target doubles, up to its
    // bound.
    xconv_delay_init(&d);
    CHECK(xconv_delay_calibrate(&d, fake_probe, &c, &err) == XCONV_OK);
    iters = d.iters;
    CHECK(xconv_delay_observe(&d, d.target_ns, 0.9 * d.target_ns));
    CHECK(d.target_ns == 2.0 * XCONV_DELAY_TARGET_NS && d.iters == 2 * iters);
    int doublings = 1;
    while (xconv_delay_observe(&d, d.target_ns, 10.0 * d.target_ns))
        doublings++;
    CHECK_MSG(d.target_ns == XCONV_DELAY_MAX_TARGET_NS, "target %.0f ns after %d doublings",
              d.target_ns, doublings);
    CHECK(lasts(&c, &d) <= 2.0 * XCONV_DELAY_MAX_TARGET_NS);
    // No delay (iters 0): nothing to observe.
    xconv_delay none = {.target_ns = XCONV_DELAY_TARGET_NS, .calibrated = true};
    CHECK(!xconv_delay_observe(&none, 1e3, 1e6) && none.iters == 0);
}

int main(void)
{
    test_calibration();
    test_bounds();
    test_observe();
    return check_summary("test_timer_delay");
}
