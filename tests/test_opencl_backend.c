// SPDX-License-Identifier: MIT
// The OpenCL backend's own checks beside the shared ones (test_backend_conformance): which
// event ends a timed region and how the start delay keeps host work out of it (white-box), the
// build options and log, and CLBlast's convgemm against the host's convolution.
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "../host/core/backend.h"
#include "cl/opencl_internal.h"
#include "tests/check.h"

static const xconv_backend_iface *be;

// ---------------------------------------------------------------------------------------------
// Host helpers

// White-box: what will end the timed region now open. On a CPU device it is the event of the
// region's latest command; elsewhere no command carries an event and a marker ends the region.
static void check_region_end(void *ctx, const char *after)
{
    const opencl_context *oc = ctx;
    cl_device_type type = 0;
    clGetDeviceInfo(oc->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    bool cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    CHECK_MSG((oc->region_last != NULL) == cpu, "after %s: %s region end event on a %s device",
              after, oc->region_last ? "a" : "no", cpu ? "CPU" : "non-CPU");
}

// Deterministic values in [-1, 1) from a small LCG.
static void fill_random(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

// Returns true when |got - ref| <= 1e-5 * norm (norm: the sum of the terms' magnitudes).
static bool close_enough(float got, double ref, double norm)
{
    return fabs((double)got - ref) <= 1e-5 * (norm > 1e-30 ? norm : 1e-30);
}

static int64_t out_size(int64_t in, int64_t pad, int64_t dil, int64_t ksize, int64_t stride)
{
    return (in + 2 * pad - dil * (ksize - 1) - 1) / stride + 1;
}

// The naive float64 cross-correlation of an NCHW input with KCRS weights, NKPQ output.
static void host_conv(const xconv_problem *p, const float *x, const float *w, double *y,
                      double *norm)
{
    int64_t P = out_size(p->h, p->pad_h, p->dil_h, p->r, p->stride_h);
    int64_t Q = out_size(p->w, p->pad_w, p->dil_w, p->s, p->stride_w);
    for (int64_t n = 0; n < p->n; n++)
    for (int64_t k = 0; k < p->k; k++)
    for (int64_t oh = 0; oh < P; oh++)
    for (int64_t ow = 0; ow < Q; ow++) {
        double acc = 0.0, mag = 0.0;
        for (int64_t c = 0; c < p->c; c++)
        for (int64_t r = 0; r < p->r; r++)
        for (int64_t s = 0; s < p->s; s++) {
            int64_t ih = oh * p->stride_h - p->pad_h + r * p->dil_h;
            int64_t iw = ow * p->stride_w - p->pad_w + s * p->dil_w;
            if (ih < 0 || ih >= p->h || iw < 0 || iw >= p->w)
                continue;
            double t = (double)x[((n * p->c + c) * p->h + ih) * p->w + iw] *
                       (double)w[((k * p->c + c) * p->r + r) * p->s + s];
            acc += t;
            mag += fabs(t);
        }
        int64_t i = ((n * p->k + k) * P + oh) * Q + ow;
        y[i] = acc;
        norm[i] = mag;
    }
}

// ---------------------------------------------------------------------------------------------
// Timed regions and builds

static const char axpb_source[] =
    "XC_KERNEL void axpb(XC_GLOBAL const float *x, XC_GLOBAL float *y, int n, float a)\n"
    "{\n"
    "    int i = XC_GLOBAL_ID(0);\n"
    "    if (i < n)\n"
    "        y[i] = XC_FMA(a, x[i], 3.0f);\n"
    "}\n";

static const char broken_source[] =
    "XC_KERNEL void broken(XC_GLOBAL float *y)\n"
    "{   y[0] = undefined_thing; }\n";

// What ends a region of launches, and of a CLBlast call; what a failed build reports.
static void test_regions(void *ctx)
{
    xconv_error err = {0};
    enum { N = 4096 };
    xconv_backend_buffer *bx = NULL, *by = NULL;
    CHECK(be->buffer_alloc(ctx, N * 4, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, N * 4, &by, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, bx, N, 1.0f, &err) == XCONV_OK);
    xconv_backend_program *prog = NULL;
    xconv_status st = be->program_build(ctx, axpb_source, "", &prog, NULL, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    xconv_arg args[] = {XCONV_ARG_BUF(bx), XCONV_ARG_BUF(by), XCONV_ARG_I32(N),
                        XCONV_ARG_F32(2.0f)};
    xconv_launch l = {.kernel = "axpb", .dims = 1, .global = {N}, .local = {64},
                      .args = args, .nargs = 4};
    double region = 0.0;
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    for (int rep = 0; prog && rep < 5; rep++)
        CHECK(be->launch(ctx, prog, &l, &err) == XCONV_OK);
    check_region_end(ctx, "launches");
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);

    xconv_gemm_args g = {.m = 8, .n = 8, .k = 8, .a = bx, .lda = 8, .a_stride = 64, .b = bx,
                         .ldb = 8, .b_stride = 64, .c = by, .ldc = 8, .c_stride = 64,
                         .batch = 1};
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    st = be->sgemm(ctx, &g, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    check_region_end(ctx, "a CLBlast call");
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);
    be->program_free(ctx, prog);
    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, by);

    xconv_backend_program *broken = NULL;
    st = be->program_build(ctx, broken_source, "-DXC_UNUSED=1", &broken, NULL, &err);
    CHECK(st == XCONV_ERR_BUILD && broken == NULL);
    // #line 1 makes PoCL's log count lines of our source; NVIDIA and Oclgrind count lines of
    // the compiled text, and the header gives the offset.
    if (!strstr(err.msg, ":2:"))
        printf("note: this compiler's log ignores #line (no \":2:\" in it):\n%s\n", err.msg);
    CHECK_CONTAINS(err.msg, "source line 1 is line ");
    CHECK_CONTAINS(err.msg, "-DXC_UNUSED=1 -cl-std=CL1.2");

    // The whole log comes back on its own, when asked for.
    char *log = NULL;
    st = be->program_build(ctx, broken_source, "", &broken, &log, &err);
    CHECK(st == XCONV_ERR_BUILD && broken == NULL);
    CHECK_MSG(log && log[0], "log: '%s'", log ? log : "(NULL)");
    free(log);
}

// One region: the start mark, `sleep_us` of host work, one launch of l, the end. Returns its ms.
static double region_with_host_work(void *ctx, xconv_backend_program *prog,
                                    const xconv_launch *l, long sleep_us)
{
    xconv_error err = {0};
    double ms = -1.0;
    CHECK_MSG(be->timer_start(ctx, &err) == XCONV_OK, "%s", err.msg);
    struct timespec nap = {.tv_sec = 0, .tv_nsec = sleep_us * 1000};
    nanosleep(&nap, NULL);
    CHECK_MSG(be->launch(ctx, prog, l, &err) == XCONV_OK, "%s", err.msg);
    CHECK_MSG(be->timer_stop(ctx, &ms, &err) == XCONV_OK, "%s", err.msg);
    return ms;
}

// The start delay (cl/opencl_timer.c), forced on (it is on by default on GPUs only): it is
// calibrated to a time that grows with its steps, and host work shorter than the delay stays out
// of the region, where the plain stamp lets it in.
static void test_delay(void *ctx)
{
    opencl_context *oc = ctx;
    xconv_error err = {0};
    enum { N = 64 };
    xconv_backend_buffer *bx = NULL, *by = NULL;
    CHECK(be->buffer_alloc(ctx, N * 4, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, N * 4, &by, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, bx, N, 1.0f, &err) == XCONV_OK);
    xconv_backend_program *prog = NULL;
    CHECK(be->program_build(ctx, axpb_source, "", &prog, NULL, &err) == XCONV_OK);
    xconv_arg args[] = {XCONV_ARG_BUF(bx), XCONV_ARG_BUF(by), XCONV_ARG_I32(N),
                        XCONV_ARG_F32(2.0f)};
    xconv_launch l = {.kernel = "axpb", .dims = 1, .global = {N}, .local = {64},
                      .args = args, .nargs = 4};
    CHECK(be->timer_delay != NULL);
    if (!prog || !be->timer_delay)
        return;

    // A delay of 3 ms (white-box: past the doubling's bound, so that no region of the test
    // doubles it) against 1 ms of host work between the mark and the launch. Up to ten regions
    // each, until one shows it: with the delay the host work stays out, without it it is in (a
    // busy machine's threads may hold up a region's commands, or its host work, in some).
    enum { HOST_US = 1000, REGIONS = 10 };
    be->timer_delay(ctx, XCONV_TIMING_DELAY_ON);
    oc->delay.target_ns = 3e6;
    double on_ms = 1e9, off_ms = 0.0;
    int on_regions = 0, off_regions = 0;
    while (on_regions++ < REGIONS && !(on_ms < 0.5 * HOST_US * 1e-3))
        on_ms = fmin(on_ms, region_with_host_work(ctx, prog, &l, HOST_US));
    CHECK_MSG(oc->delay.calibrated && oc->delay.iters > 0 && oc->delay.ns_per_iter > 0.0,
              "calibrated: %d, %u steps of %g ns", oc->delay.calibrated, oc->delay.iters,
              oc->delay.ns_per_iter);
    double steps_ms = oc->delay.iters * oc->delay.ns_per_iter * 1e-6;
    CHECK_MSG(steps_ms > 1.5 && steps_ms < 6.0, "%u steps of %g ns: %.2f ms for a target of 3 ms",
              oc->delay.iters, oc->delay.ns_per_iter, steps_ms);
    be->timer_delay(ctx, XCONV_TIMING_DELAY_OFF);
    while (off_regions++ < REGIONS && !(off_ms >= 0.9 * HOST_US * 1e-3))
        off_ms = fmax(off_ms, region_with_host_work(ctx, prog, &l, HOST_US));
    printf("  %d us of host work in the region: %.3f ms timed after the delay (%u steps, "
           "region %d), %.3f ms after a plain stamp (region %d)\n", HOST_US, on_ms,
           oc->delay.iters, on_regions - 1, off_ms, off_regions - 1);
    CHECK_MSG(on_ms >= 0.0 && on_ms < 0.5 * HOST_US * 1e-3, "after the delay: %.3f ms", on_ms);
    CHECK_MSG(off_ms >= 0.9 * HOST_US * 1e-3, "after a plain stamp: %.3f ms", off_ms);

    // Back to the default: a CPU device starts regions with the plain stamp again.
    be->timer_delay(ctx, XCONV_TIMING_DELAY_AUTO);
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    CHECK_MSG(oc->region_delayed == !oc->region_events, "auto on a %s device: %s delay",
              oc->region_events ? "CPU" : "non-CPU", oc->region_delayed ? "a" : "no");
    double ms = 0.0;
    CHECK(be->timer_stop(ctx, &ms, &err) == XCONV_OK);
    be->program_free(ctx, prog);
    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, by);
}

// ---------------------------------------------------------------------------------------------
// CLBlast

// clblast_convgemm on p compared with the host's naive convolution.
static void test_convgemm(void *ctx, xconv_problem p)
{
    xconv_error err = {0};
    int64_t P = out_size(p.h, p.pad_h, p.dil_h, p.r, p.stride_h);
    int64_t Q = out_size(p.w, p.pad_w, p.dil_w, p.s, p.stride_w);
    size_t nx = (size_t)(p.n * p.c * p.h * p.w), nw = (size_t)(p.k * p.c * p.r * p.s);
    size_t ny = (size_t)(p.n * p.k * P * Q);
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *y = malloc(ny * 4);
    double *ref = malloc(ny * sizeof *ref), *norm = malloc(ny * sizeof *norm);
    fill_random(x, nx, 5);
    fill_random(w, nw, 6);
    host_conv(&p, x, w, ref, norm);

    size_t ws = 99;
    char reason[128] = "";
    CHECK(be->vendor_conv_supports(ctx, "clblast_convgemm", &p, &ws, reason, sizeof reason));
    CHECK(ws == 0);
    xconv_backend_buffer *bx = NULL, *bw = NULL, *by = NULL;
    CHECK(be->buffer_alloc(ctx, nx * 4, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, nw * 4, &bw, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, ny * 4, &by, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bx, 0, nx * 4, x, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bw, 0, nw * 4, w, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, by, ny, NAN, &err) == XCONV_OK);
    xconv_vendor_conv_buffers b = {.x = bx, .w = bw, .y = by};
    xconv_status st = be->vendor_conv(ctx, "clblast_convgemm", &p, &b, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(be->buffer_read(ctx, by, 0, ny * 4, y, &err) == XCONV_OK);
    int bad = 0;
    size_t first_bad = 0;
    for (size_t i = 0; i < ny; i++) {
        if (!close_enough(y[i], ref[i], norm[i]) && bad++ == 0)
            first_bad = i;
    }
    CHECK_MSG(bad == 0, "convgemm dil %lld: %d of %zu wrong, first at %zu: %g, expected %g",
              (long long)p.dil_h, bad, ny, first_bad, y[first_bad], ref[first_bad]);
    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, bw);
    be->buffer_free(ctx, by);
    free(x);
    free(w);
    free(y);
    free(ref);
    free(norm);
}

static void test_vendor(void *ctx)
{
    xconv_problem p = {.n = 2, .c = 3, .h = 9, .w = 11, .k = 4, .r = 3, .s = 3,
                       .stride_h = 2, .stride_w = 2, .pad_h = 1, .pad_w = 1,
                       .dil_h = 1, .dil_w = 1, .groups = 1};
    test_convgemm(ctx, p);
    p.dil_h = p.dil_w = 2;
    test_convgemm(ctx, p);
    p.stride_h = 1;
    p.pad_w = 2;
    test_convgemm(ctx, p);

    char reason[128] = "";
    size_t ws = 0;
    p.groups = 3;
    CHECK(!be->vendor_conv_supports(ctx, "clblast_convgemm", &p, &ws, reason, sizeof reason));
    CHECK_CONTAINS(reason, "no groups");
    p.groups = 1;
    CHECK(!be->vendor_conv_supports(ctx, "winograd", &p, &ws, reason, sizeof reason));
    CHECK_CONTAINS(reason, "unknown algorithm");
}

// ---------------------------------------------------------------------------------------------

static void test_device(const xconv_device_info *info)
{
    printf("testing opencl:%d %s (%s, %s): %d units, preferred multiple %zu, max alloc %llu\n",
           info->backend_index, info->name, info->platform, info->driver, info->compute_units,
           info->preferred_multiple, (unsigned long long)info->max_alloc_bytes);
    // Every full-profile device rounds to nearest and has Inf and NaN (CL_DEVICE_SINGLE_FP_CONFIG);
    // the build flags say how contraction is kept off.
    CHECK(info->fp32_config & XCONV_FP_ROUND_TO_NEAREST);
    CHECK(info->fp32_config & XCONV_FP_INF_NAN);
    CHECK_CONTAINS(info->build_flags, "-cl-std=CL1.2; #pragma OPENCL FP_CONTRACT OFF");
    xconv_error err = {0};
    void *ctx = NULL;
    xconv_status st = be->open(info->backend_index, &ctx, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    test_regions(ctx);
    test_delay(ctx);
    test_vendor(ctx);
    be->close(ctx);
}

int main(void)
{
    be = xconv_backend_opencl();
    CHECK(be != NULL && be->kind == XCONV_BACKEND_OPENCL);
    static xconv_device_info infos[64];
    int count = 0;
    xconv_error err = {0};
    xconv_status st = be->enumerate(infos, 64, &count, &err);
    if (st == XCONV_ERR_UNAVAILABLE || (st == XCONV_OK && count == 0)) {
        printf("SKIP: no OpenCL device (%s)\n", st == XCONV_OK ? "none listed" : err.msg);
        return CHECK_SKIP_CODE;
    }
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (count > 64)
        count = 64;

    // Every device when there are few; else only the first CPU device (or device 0).
    int first_cpu = 0;
    for (int i = count - 1; i >= 0; i--)
        if (infos[i].is_cpu)
            first_cpu = i;
    for (int i = 0; i < count; i++)
        if (count <= 2 || i == first_cpu)
            test_device(&infos[i]);
    return check_summary("test_opencl_backend");
}
