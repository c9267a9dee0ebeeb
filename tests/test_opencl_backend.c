// SPDX-License-Identifier: MIT
// Tests the OpenCL backend table on the devices present: info, buffers, builds, launches,
// timing, CLBlast's SGEMM and convgemm against host computations, and the error paths.
#include <math.h>
#include <stdint.h>

#include "backend.h"
#include "cl/opencl_internal.h"
#include "clock.h"
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
// Info and buffers

static void test_info(const xconv_device_info *info, int index)
{
    CHECK(info->backend == XCONV_BACKEND_OPENCL);
    CHECK(info->backend_index == index);
    CHECK(info->name[0] != '\0');
    CHECK(info->platform[0] != '\0');
    CHECK(info->version[0] != '\0');
    CHECK(info->compute_units > 0);
    CHECK(info->preferred_multiple > 0);
    CHECK(info->max_alloc_bytes > 0);
    CHECK(info->global_mem_bytes >= info->max_alloc_bytes);
    CHECK(info->local_mem_bytes > 0);
    CHECK(info->const_mem_bytes > 0);
    CHECK(info->max_work_group_size > 0);
    CHECK(info->max_work_item_sizes[0] > 0);
    CHECK(info->peak_gflops == 0.0 && info->peak_gbps == 0.0);
}

static void test_buffers(void *ctx, const xconv_device_info *info)
{
    xconv_error err;
    enum { N = 1000 };
    float in[N], out[N];
    fill_random(in, N, 1);
    xconv_buffer *buf = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof in, &buf, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, buf, 0, sizeof in, in, &err) == XCONV_OK);
    memset(out, 0, sizeof out);
    CHECK(be->buffer_read(ctx, buf, 0, sizeof out, out, &err) == XCONV_OK);
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK(be->buffer_read(ctx, buf, 40, 8, out, &err) == XCONV_OK);
    CHECK(out[0] == in[10] && out[1] == in[11]);

    CHECK(be->buffer_fill(ctx, buf, N - 1, NAN, &err) == XCONV_OK);
    CHECK(be->buffer_read(ctx, buf, 0, sizeof out, out, &err) == XCONV_OK);
    int nans = 0;
    for (int i = 0; i < N - 1; i++)
        nans += isnan(out[i]) != 0;
    CHECK(nans == N - 1);
    CHECK(out[N - 1] == in[N - 1]);

    CHECK(be->buffer_read(ctx, buf, 4, sizeof out, out, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "passes the buffer");
    CHECK(be->buffer_fill(ctx, buf, N + 1, 0.0f, &err) == XCONV_ERR_INVALID);
    be->buffer_free(ctx, buf);

    xconv_buffer *empty = NULL;
    CHECK(be->buffer_alloc(ctx, 0, &empty, &err) == XCONV_OK && empty != NULL);
    be->buffer_free(ctx, empty);
    be->buffer_free(ctx, NULL);

    xconv_buffer *huge = NULL;
    CHECK(be->buffer_alloc(ctx, (size_t)info->max_alloc_bytes + 1, &huge, &err) ==
          XCONV_ERR_OUT_OF_MEMORY);
    CHECK(huge == NULL);
    CHECK_CONTAINS(err.msg, "largest allocation");

    // Left allocated on purpose: close must free it.
    xconv_buffer *leak = NULL;
    CHECK(be->buffer_alloc(ctx, 64, &leak, &err) == XCONV_OK);
}

// ---------------------------------------------------------------------------------------------
// Programs and launches

static const char axpb_source[] =
    "// y = a * x + XC_BIAS, fused\n"
    "XC_KERNEL void axpb(XC_GLOBAL const float *x, XC_GLOBAL float *y, int n, float a)\n"
    "{\n"
    "    int i = XC_GLOBAL_ID(0);  // element, < n\n"
    "    if (i < n)\n"
    "        y[i] = XC_FMA(a, x[i], (float)XC_BIAS);\n"
    "}\n";

static const char weigh_source[] =
    "XC_CONSTANT_ARRAY(float, coef, 4)\n"
    "XC_FUNC float coef_at(XC_CONSTANT_ARG(float, coef), int i) { return coef[i % 4]; }\n"
    "XC_KERNEL void weigh(XC_GLOBAL float *y, XC_CONSTANT_PARAM(float, coef))\n"
    "{\n"
    "    int i = XC_GLOBAL_ID(0);\n"
    "    y[i] = coef_at(coef, i) * (float)i;\n"
    "}\n";

static const char broken_source[] =
    "XC_KERNEL void broken(XC_GLOBAL float *y)\n"
    "{   y[0] = undefined_thing; }\n";

static void test_programs(void *ctx)
{
    xconv_error err;
    enum { N = 4096 };
    static float x[N], y[N];
    fill_random(x, N, 2);
    xconv_buffer *bx = NULL, *by = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof x, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, sizeof y, &by, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bx, 0, sizeof x, x, &err) == XCONV_OK);

    xconv_program *prog = NULL, *again = NULL;
    double ms = -1.0;
    xconv_status st = be->program_build(ctx, axpb_source, "-DXC_BIAS=3", &prog, &ms, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(ms > 0.0);
    CHECK(be->program_build(ctx, axpb_source, "-DXC_BIAS=3", &again, &ms, &err) == XCONV_OK);
    CHECK(again == prog && ms == 0.0);
    CHECK(be->program_build(ctx, axpb_source, "-DXC_BIAS=4", &again, &ms, &err) == XCONV_OK);
    CHECK(again != prog && ms > 0.0);

    const int n = N - 5;  // not a multiple of the group: the kernel's bound check matters
    xconv_arg args[] = {XCONV_ARG_BUF(bx), XCONV_ARG_BUF(by), XCONV_ARG_I32(n),
                        XCONV_ARG_F32(-2.5f)};
    xconv_launch l = {.kernel = "axpb", .dims = 1, .global = {N}, .local = {64},
                      .args = args, .nargs = 4};
    CHECK(be->buffer_fill(ctx, by, N, NAN, &err) == XCONV_OK);
    st = be->launch(ctx, prog, &l, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(be->buffer_read(ctx, by, 0, sizeof y, y, &err) == XCONV_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += i < n ? y[i] != fmaf(-2.5f, x[i], 3.0f) : !isnan(y[i]);
    CHECK_MSG(bad == 0, "%d wrong elements", bad);

    // Timing a region: several launches between the stamps, inside what the host saw pass.
    double host_start = xconv_now_ms();
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    for (int rep = 0; rep < 20; rep++)
        CHECK(be->launch(ctx, prog, &l, &err) == XCONV_OK);
    check_region_end(ctx, "launches");
    double region = 0.0;
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);
    double host_region = xconv_now_ms() - host_start;
    CHECK_MSG(region > 0.0 && region <= host_region, "region %g ms, host %g ms", region,
              host_region);
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_ERR_INVALID);
    // An empty region is the gap between the two marks, no more than the host saw pass.
    double host_before = xconv_now_ms();
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    region = -1.0;
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);
    double host = xconv_now_ms() - host_before;
    CHECK_MSG(region >= 0.0 && region <= host, "region %g ms, host %g ms", region, host);

    // Error paths: missing kernel, wrong argument count, bad geometry.
    l.kernel = "no_such_kernel";
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.msg, "no_such_kernel");
    CHECK_CONTAINS(err.msg, "axpb");
    l.kernel = "axpb";
    l.nargs = 3;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "takes 4 arguments");
    l.nargs = 4;
    l.global[0] = N + 1;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "(4097)");
    CHECK(be->finish(ctx, &err) == XCONV_OK);

    xconv_program *broken = NULL;
    st = be->program_build(ctx, broken_source, "-DXC_UNUSED=1", &broken, NULL, &err);
    CHECK(st == XCONV_ERR_BUILD && broken == NULL);
    CHECK_CONTAINS(err.msg, "undefined_thing");
    // #line 1 makes PoCL's log count lines of our source; NVIDIA and Oclgrind count lines of
    // the compiled text, and the header gives the offset.
    if (!strstr(err.msg, ":2:"))
        printf("note: this compiler's log ignores #line (no \":2:\" in it):\n%s\n", err.msg);
    CHECK_CONTAINS(err.msg, "source line 1 is line ");
    CHECK_CONTAINS(err.msg, "-DXC_UNUSED=1 -cl-std=CL1.2");

    // A __constant array parameter.
    float coef[4] = {1.0f, -1.0f, 0.5f, 2.0f};
    xconv_buffer *bc = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof coef, &bc, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bc, 0, sizeof coef, coef, &err) == XCONV_OK);
    xconv_program *weigh = NULL;
    st = be->program_build(ctx, weigh_source, "", &weigh, NULL, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    xconv_arg wargs[] = {XCONV_ARG_BUF(by), XCONV_ARG_CONST(bc, sizeof coef, "coef")};
    xconv_launch wl = {.kernel = "weigh", .dims = 1, .global = {256}, .local = {16},
                       .args = wargs, .nargs = 2};
    st = be->launch(ctx, weigh, &wl, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(be->buffer_read(ctx, by, 0, 256 * sizeof(float), y, &err) == XCONV_OK);
    bad = 0;
    for (int i = 0; i < 256; i++)
        bad += y[i] != coef[i % 4] * (float)i;
    CHECK_MSG(bad == 0, "%d wrong elements", bad);

    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, by);
    be->buffer_free(ctx, bc);
}

// ---------------------------------------------------------------------------------------------
// CLBlast

// C[b] = A[b] B[b] on the device with the given A stride, compared with the host in double.
static void test_sgemm(void *ctx, size_t a_stride_mats)
{
    xconv_error err;
    enum { M = 13, NN = 9, K = 17, BATCH = 3, LDA = K + 3, LDB = NN + 1, LDC = NN + 2, OFF = 5 };
    size_t a_stride = a_stride_mats * M * LDA, b_stride = K * LDB, c_stride = M * LDC + 1;
    size_t a_len = OFF + (a_stride_mats ? BATCH : 1) * M * LDA;
    size_t b_len = OFF + BATCH * b_stride, c_len = OFF + BATCH * c_stride;
    float *a = malloc(a_len * sizeof *a), *b = malloc(b_len * sizeof *b);
    float *c = malloc(c_len * sizeof *c);
    fill_random(a, a_len, 3);
    fill_random(b, b_len, 4);
    xconv_buffer *ba = NULL, *bb = NULL, *bc = NULL;
    CHECK(be->buffer_alloc(ctx, a_len * 4, &ba, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, b_len * 4, &bb, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, c_len * 4, &bc, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, ba, 0, a_len * 4, a, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bb, 0, b_len * 4, b, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, bc, c_len, NAN, &err) == XCONV_OK);
    xconv_gemm_args g = {.m = M, .n = NN, .k = K,
                         .a = ba, .a_offset = OFF, .lda = LDA, .a_stride = a_stride,
                         .b = bb, .b_offset = OFF, .ldb = LDB, .b_stride = b_stride,
                         .c = bc, .c_offset = OFF, .ldc = LDC, .c_stride = c_stride,
                         .batch = BATCH};
    // Timed as a region, it takes some time, and no more than the host saw pass around it.
    double region = 0.0, host_before = xconv_now_ms();
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    xconv_status st = be->sgemm(ctx, &g, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    check_region_end(ctx, "a CLBlast call");
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);
    double host = xconv_now_ms() - host_before;
    CHECK_MSG(region > 0.0 && region <= host, "region %g ms, host %g ms", region, host);
    CHECK(be->buffer_read(ctx, bc, 0, c_len * 4, c, &err) == XCONV_OK);
    int bad = 0;
    for (size_t bi = 0; bi < BATCH; bi++)
    for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j < NN; j++) {
        double acc = 0.0, mag = 0.0;
        for (size_t l = 0; l < K; l++) {
            double t = (double)a[OFF + bi * a_stride + i * LDA + l] *
                       (double)b[OFF + bi * b_stride + l * LDB + j];
            acc += t;
            mag += fabs(t);
        }
        bad += !close_enough(c[OFF + bi * c_stride + i * LDC + j], acc, mag);
    }
    CHECK_MSG(bad == 0, "sgemm with A stride %zu: %d wrong elements", a_stride, bad);
    be->buffer_free(ctx, ba);
    be->buffer_free(ctx, bb);
    be->buffer_free(ctx, bc);
    free(a);
    free(b);
    free(c);
}

// clblast_convgemm on p compared with the host's naive convolution.
static void test_convgemm(void *ctx, xconv_problem p)
{
    xconv_error err;
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
    xconv_buffer *bx = NULL, *bw = NULL, *by = NULL;
    CHECK(be->buffer_alloc(ctx, nx * 4, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, nw * 4, &bw, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, ny * 4, &by, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bx, 0, nx * 4, x, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bw, 0, nw * 4, w, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, by, ny, NAN, &err) == XCONV_OK);
    xconv_status st = be->vendor_conv(ctx, "clblast_convgemm", &p, bx, bw, by, NULL, &err);
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
    test_sgemm(ctx, 0);
    test_sgemm(ctx, 1);

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
    xconv_error err;
    void *ctx = NULL;
    xconv_status st = be->open(info->backend_index, &ctx, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    test_buffers(ctx, info);
    test_programs(ctx);
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
    for (int i = 0; i < count; i++)
        test_info(&infos[i], i);

    void *ctx = NULL;
    CHECK(be->open(count, &ctx, &err) == XCONV_ERR_NOT_FOUND && ctx == NULL);

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
