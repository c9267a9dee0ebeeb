// SPDX-License-Identifier: MIT
// The OpenCL backend's timed regions: the start mark (a plain stamp, or on GPUs a calibrated
// delay kernel, cl/timer_delay.cl), the end mark, and the check that the device's clock advances.
#include <time.h>

#include "core/program.h"
#include "opencl_internal.h"

// A timed region may hold several of our launches and CLBlast calls, and CLBlast enqueues
// kernels (several per call: im2col, pad, transpose, gemm) of which it returns only the last
// one's event. timer_start enqueues a one-work-item kernel, cl/timer_delay.cl, on the in-order
// queue, and the region's time runs from its END to the region's end as the device reports it:
// - on a CPU device, the END of the region's last command: every command in the region keeps
//   its event (each CLBlast call the one it returns). A host thread runs the queue there, and
//   notices a command's end only later (15-25 us on PoCL's 16 threads), so any mark enqueued
//   after the region (a marker, a second stamp) completes that much after the region did;
// - on other devices, the END of a marker enqueued after the region, which completes only once
//   every command before it has (2 us after the last kernel on NVIDIA's OpenCL). There our
//   commands carry no events: NVIDIA's OpenCL starts a kernel that returns an event 6-8 us later.
// On a CPU device the start kernel runs no steps (a stamp): its queue's threads start a command
// the host hands over at once, but one queued behind the delay only once they notice the delay
// ended, which would put that lag in the region. On other devices it spins for about
// XCONV_DELAY_TARGET_NS (cl/opencl_delay.c calibrates the steps), so that the host has enqueued
// the whole region before the region starts, and the region holds the device's work, not the
// host's launch path. The delay is bounded by its step count: a region whose host work outlasts
// it (a library that waits for the device) is timed as before, with that host work inside, and
// timer_stop doubles later regions' delay (up to XCONV_DELAY_MAX_TARGET_NS). The region is charged
// one gap between commands, the device starting its first command after the mark, as CUDA's
// start event charges it. docs/guide/reading-results.md ("What is timed") says why.

// Nanoseconds of the host's monotonic clock.
static double host_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

cl_event *xconv_opencl_region_slot(opencl_context *ctx, cl_event *ev)
{
    *ev = NULL;
    return ctx->timer_event && ctx->region_events ? ev : NULL;
}

void xconv_opencl_region_note(opencl_context *ctx, cl_event ev)
{
    if (!ev)
        return;
    if (!ctx->timer_event || !ctx->region_events) {
        clReleaseEvent(ev);
        return;
    }
    if (ctx->region_last)
        clReleaseEvent(ctx->region_last);
    ctx->region_last = ev;
}

// Whether regions start with the delay on this context (else with a plain stamp).
static bool use_delay(const opencl_context *ctx)
{
    return ctx->delay_mode == XCONV_TIMING_DELAY_ON ||
           (ctx->delay_mode == XCONV_TIMING_DELAY_AUTO && !ctx->region_events);
}

// Builds the start kernel and its one-word output on first use.
static xconv_status build_start_kernel(opencl_context *ctx, xconv_error *err)
{
    if (!ctx->delay_program) {
        xconv_status st = xconv_opencl_program_build(ctx, xconv_kernel_source("timer_delay"),
                                                     "", &ctx->delay_program, NULL, err);
        if (st != XCONV_OK)
            return xconv_error_prefix(err, "building the timer's start kernel");
    }
    cl_int rc = CL_SUCCESS;
    if (!ctx->delay_kernel)
        ctx->delay_kernel = clCreateKernel(ctx->delay_program->program, "xconv_timer_delay", &rc);
    if (rc == CL_SUCCESS && !ctx->delay_sink)
        ctx->delay_sink = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL,
                                         &rc);
    return rc == CL_SUCCESS ? XCONV_OK
                            : xconv_opencl_fail(err, rc, "creating the timer's start kernel");
}

// Enqueues the start kernel with `iters` steps into ctx->timer_event.
static xconv_status enqueue_stamp(opencl_context *ctx, cl_uint iters, xconv_error *err)
{
    xconv_status st = build_start_kernel(ctx, err);
    if (st != XCONV_OK)
        return st;
    cl_uint seed = 1;
    cl_int rc = clSetKernelArg(ctx->delay_kernel, 0, sizeof ctx->delay_sink, &ctx->delay_sink);
    if (rc == CL_SUCCESS)
        rc = clSetKernelArg(ctx->delay_kernel, 1, sizeof iters, &iters);
    if (rc == CL_SUCCESS)
        rc = clSetKernelArg(ctx->delay_kernel, 2, sizeof seed, &seed);
    size_t one = 1;
    if (rc == CL_SUCCESS)
        rc = clEnqueueNDRangeKernel(ctx->queue, ctx->delay_kernel, 1, NULL, &one, &one, 0, NULL,
                                    &ctx->timer_event);
    if (rc == CL_SUCCESS)
        return XCONV_OK;
    ctx->timer_event = NULL;
    return xconv_opencl_fail(err, rc, "enqueueing the timer's start kernel");
}

// Ends any region: releases its start kernel's event and last command.
static void region_release(opencl_context *ctx)
{
    if (ctx->region_last)
        clReleaseEvent(ctx->region_last);
    if (ctx->timer_event)
        clReleaseEvent(ctx->timer_event);
    ctx->region_last = NULL;
    ctx->timer_event = NULL;
}

void xconv_opencl_timer_release(opencl_context *ctx)
{
    region_release(ctx);
    if (ctx->delay_kernel)
        clReleaseKernel(ctx->delay_kernel);
    if (ctx->delay_sink)
        clReleaseMemObject(ctx->delay_sink);
    xconv_opencl_program_free(ctx, ctx->delay_program);
    ctx->delay_kernel = NULL;
    ctx->delay_sink = NULL;
    ctx->delay_program = NULL;
}

// Runs the start kernel alone with `iters` steps, waits, and reads its profiling START and END
// into start and end (either may be NULL). Leaves no region open.
static xconv_status run_stamp(opencl_context *ctx, cl_uint iters, cl_ulong *start,
                              cl_ulong *end, xconv_error *err)
{
    xconv_status st = enqueue_stamp(ctx, iters, err);
    if (st != XCONV_OK)
        return st;
    cl_int rc = clWaitForEvents(1, &ctx->timer_event);
    if (rc == CL_SUCCESS && start)
        rc = clGetEventProfilingInfo(ctx->timer_event, CL_PROFILING_COMMAND_START, sizeof *start,
                                     start, NULL);
    if (rc == CL_SUCCESS && end)
        rc = clGetEventProfilingInfo(ctx->timer_event, CL_PROFILING_COMMAND_END, sizeof *end, end,
                                     NULL);
    region_release(ctx);
    if (rc != CL_SUCCESS)
        return xconv_opencl_fail_wait(err, rc, "reading the timer's profiling events");
    return XCONV_OK;
}

// Checks that the device's profiling clock advances: of two stamps, the second enqueued after
// the first has finished, the second must end later. Returns XCONV_OK, or XCONV_ERR_UNAVAILABLE
// when both report the same time (Mesa 22.3's Rusticl answers fixed placeholders, 0 to 3 ns).
static xconv_status check_clock(opencl_context *ctx, xconv_error *err)
{
    cl_ulong end[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        xconv_status st = run_stamp(ctx, 0, NULL, &end[i], err);
        if (st != XCONV_OK)
            return st;
    }
    if (end[1] == end[0])
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE,
                               "the device's profiling clock does not advance (two kernels run "
                               "one after the other both end at %llu ns), so xconv cannot time "
                               "work on it", (unsigned long long)end[0]);
    ctx->clock_checked = true;
    return XCONV_OK;
}

// The calibration's probe (xconv_delay_probe_fn): the start kernel's own device time.
static xconv_status probe_delay(void *user, uint32_t iters, double *ns, xconv_error *err)
{
    cl_ulong start = 0, end = 0;
    xconv_status st = run_stamp(user, iters, &start, &end, err);
    *ns = end > start ? (double)(end - start) : 0.0;
    return st;
}

void xconv_opencl_timer_mode(void *vctx, int mode)
{
    opencl_context *ctx = vctx;
    ctx->delay_mode = mode;
}

xconv_status xconv_opencl_timer_start(void *vctx, xconv_error *err)
{
    opencl_context *ctx = vctx;
    region_release(ctx);
    xconv_status st = ctx->clock_checked ? XCONV_OK : check_clock(ctx, err);
    bool delay = use_delay(ctx);
    if (st == XCONV_OK && delay && !ctx->delay.calibrated)
        st = xconv_delay_calibrate(&ctx->delay, probe_delay, ctx, err);
    if (st != XCONV_OK)
        return st;
    cl_uint iters = delay ? ctx->delay.iters : 0;
    ctx->region_host_start_ns = host_ns();
    ctx->region_delayed = iters > 0;
    st = enqueue_stamp(ctx, iters, err);
    if (st == XCONV_OK && iters > 0)
        clFlush(ctx->queue);  // the delay runs while the host enqueues the region
    return st;
}

xconv_status xconv_opencl_timer_stop(void *vctx, double *ms, xconv_error *err)
{
    opencl_context *ctx = vctx;
    *ms = 0.0;
    if (!ctx->timer_event)
        return xconv_error_set(err, XCONV_ERR_INVALID, "timer_stop without timer_start");
    // The region's end: its last command's event, or a marker after it.
    cl_event end_event = ctx->region_last, marker = NULL;
    cl_int rc = CL_SUCCESS;
    const char *what = "reading the timer's profiling events";
    if (!end_event) {
        rc = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &marker);
        end_event = marker;
        if (rc != CL_SUCCESS)
            what = "enqueueing the timer's end marker";
    }
    double enqueue_ns = 0.0;  // the host's time from before the delay to the region handed over
    if (rc == CL_SUCCESS && ctx->region_delayed) {
        rc = clFlush(ctx->queue);
        enqueue_ns = host_ns() - ctx->region_host_start_ns;
    }
    if (rc == CL_SUCCESS)
        rc = clWaitForEvents(1, &end_event);
    cl_ulong delay_start = 0, begin = 0, end = 0;
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ctx->timer_event, CL_PROFILING_COMMAND_END, sizeof begin,
                                     &begin, NULL);
    if (rc == CL_SUCCESS && ctx->region_delayed)
        rc = clGetEventProfilingInfo(ctx->timer_event, CL_PROFILING_COMMAND_START,
                                     sizeof delay_start, &delay_start, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(end_event, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                     NULL);
    if (marker)
        clReleaseEvent(marker);
    region_release(ctx);
    if (rc != CL_SUCCESS)
        return xconv_opencl_fail_wait(err, rc, what);
    if (ctx->region_delayed && begin > delay_start)
        xconv_delay_observe(&ctx->delay, (double)(begin - delay_start), enqueue_ns);
    ctx->region_delayed = false;
    *ms = end > begin ? (double)(end - begin) * 1e-6 : 0.0;
    return XCONV_OK;
}
