// SPDX-License-Identifier: MIT
// The CUDA backend's timed regions: two events on the stream, the start one recorded after a
// short delay kernel (CUDA only, below) so that the host has launched the whole region before
// the region starts.
#include <time.h>

#include "cuda_internal.h"

// On a GPU the start event completes at once on the idle device, which then waits while the
// host launches the region's kernels, and that wait would be timed. So the start event goes
// after a kernel of one thread that spins for ctx->delay_ns (100 us at first) of the GPU's
// global timer: the host launches the region meanwhile, and the region holds the device's work.
// The kernel is CUDA only, and lives here rather than in cl/: it reads the GPU's clocks, which
// OpenCL C has no portable way to (the OpenCL backend calibrates a loop instead:
// cl/opencl_delay.c). It is bounded twice: by the global timer, and by 4 times the delay's
// cycles at the device's clock rate, should the global timer not advance. A region whose host
// work outlasts the delay (a library that synchronizes) is timed as without it, host work
// inside; timer_stop notices and doubles the delay, up to XCONV_CUDA_DELAY_MAX_NS.
static const char delay_source[] =
    "extern \"C\" __global__ void xconv_timer_delay(unsigned long long ns, long long max_cycles)\n"
    "{\n"
    "    unsigned long long t0, t;\n"
    "    long long c0 = clock64();\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    "    do {\n"
    "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "    } while (t - t0 < ns && clock64() - c0 < max_cycles);\n"
    "}\n";

// Nanoseconds of the host's monotonic clock.
static double host_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

// Builds the delay kernel on first use. Returns true when it is there; false when it cannot be
// built (no NVRTC, say: a peer library can still be timed), and then regions start without it.
static bool delay_ready(cuda_ctx *ctx)
{
    if (ctx->delay_fn)
        return true;
    if (ctx->delay_failed)
        return false;
    xconv_error ignored = {0};
    if (cuda_program_build(ctx, delay_source, "", &ctx->delay_prog, NULL, &ignored) != XCONV_OK ||
        ctx->cu->module_get_function(&ctx->delay_fn, ctx->delay_prog->module,
                                     "xconv_timer_delay") != CUDA_SUCCESS) {
        cuda_program_free(ctx, ctx->delay_prog);
        ctx->delay_prog = NULL;
        ctx->delay_fn = NULL;
        ctx->delay_failed = true;
    }
    return ctx->delay_fn != NULL;
}

// Launches the delay kernel for ctx->delay_ns on the stream.
static xconv_status launch_delay(cuda_ctx *ctx, xconv_error *err)
{
    unsigned long long ns = (unsigned long long)ctx->delay_ns;
    double mhz = ctx->info.clock_mhz > 0 ? ctx->info.clock_mhz : 2000.0;
    long long max_cycles = (long long)(4.0 * ctx->delay_ns * mhz * 1e-3);
    void *params[] = {&ns, &max_cycles};
    CU_TRY(ctx->cu->launch_kernel(ctx->delay_fn, 1, 1, 1, 1, 1, 1, 0, ctx->stream, params, NULL),
           "cuLaunchKernel (the timer's delay)");
    return XCONV_OK;
}

void cuda_timer_mode(void *vctx, int mode)
{
    cuda_ctx *ctx = vctx;
    ctx->delay_off = mode == XCONV_TIMING_DELAY_OFF;
}

void cuda_timer_release(cuda_ctx *ctx)
{
    cuda_program_free(ctx, ctx->delay_prog);
    ctx->delay_prog = NULL;
    ctx->delay_fn = NULL;
}

xconv_status cuda_timer_start(void *vctx, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    CU_CURRENT(ctx);
    ctx->timing = false;
    ctx->delayed = !ctx->delay_off && delay_ready(ctx);
    ctx->region_host_start_ns = host_ns();
    if (ctx->delayed) {
        xconv_status st = launch_delay(ctx, err);
        if (st != XCONV_OK)
            return st;
    }
    CU_TRY(ctx->cu->event_record(ctx->start, ctx->stream), "cuEventRecord (start)");
    ctx->timing = true;
    return XCONV_OK;
}

xconv_status cuda_timer_stop(void *vctx, double *ms, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    *ms = 0.0;
    if (ctx->lost)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, LOST_MESSAGE);
    if (!ctx->timing)
        return xconv_error_set(err, XCONV_ERR_INVALID, "timer_stop without timer_start");
    ctx->timing = false;
    CU_CURRENT(ctx);
    float elapsed = 0.0f;
    CU_TRY(ctx->cu->event_record(ctx->stop, ctx->stream), "cuEventRecord (stop)");
    // The device may have ended the delay before the host had launched the whole region: the
    // delay started no earlier than region_host_start_ns.
    double launch_ns = host_ns() - ctx->region_host_start_ns;
    if (ctx->delayed && launch_ns > 0.75 * ctx->delay_ns &&
        ctx->delay_ns < XCONV_CUDA_DELAY_MAX_NS)
        ctx->delay_ns *= 2.0;
    CU_TRY(ctx->cu->event_synchronize(ctx->stop), "cuEventSynchronize");
    CU_TRY(ctx->cu->event_elapsed_time(&elapsed, ctx->start, ctx->stop), "cuEventElapsedTime");
    *ms = elapsed;
    return XCONV_OK;
}
