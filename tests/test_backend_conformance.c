// SPDX-License-Identifier: MIT
// Runs every backend table present through the same checks: listing, open and close, buffers,
// a build and launches through the dialect, constant arguments, programs remade from their
// binaries, a failing build's log, the timer and the vendor SGEMM against the host. OpenCL on its devices; CUDA where a GPU is, else
// that part skips with a message. Skips (77) when no backend has a device.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../host/core/backend.h"
#include "tests/check.h"

static const xconv_backend_iface *be;
static const char *be_name;

// ---------------------------------------------------------------------------------------------
// Host helpers

// Deterministic values in [-1, 1) from a small LCG.
static void fill_random(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// ---------------------------------------------------------------------------------------------
// Info and buffers

static void test_info(const xconv_device_info *info, int index)
{
    CHECK(info->backend == be->kind);
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
    CHECK(!(info->is_gpu && info->is_cpu));
    CHECK(info->peak_gflops == 0.0 && info->peak_gbps == 0.0);
}

static void test_buffers(void *ctx, const xconv_device_info *info)
{
    xconv_error err = {0};
    enum { N = 1000 };
    float in[N], out[N];
    fill_random(in, N, 1);
    xconv_backend_buffer *buf = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof in, &buf, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, buf, 0, sizeof in, in, &err) == XCONV_OK);
    memset(out, 0, sizeof out);
    CHECK(be->buffer_read(ctx, buf, 0, sizeof out, out, &err) == XCONV_OK);
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK(be->buffer_read(ctx, buf, 40, 8, out, &err) == XCONV_OK);
    CHECK(out[0] == in[10] && out[1] == in[11]);
    CHECK(be->buffer_write(ctx, buf, 8, 4, &in[500], &err) == XCONV_OK);
    CHECK(be->buffer_read(ctx, buf, 0, 12, out, &err) == XCONV_OK);
    CHECK(out[0] == in[0] && out[2] == in[500]);
    CHECK(be->buffer_write(ctx, buf, 8, 4, &in[2], &err) == XCONV_OK);

    CHECK(be->buffer_fill(ctx, buf, N - 1, NAN, &err) == XCONV_OK);
    CHECK(be->buffer_read(ctx, buf, 0, sizeof out, out, &err) == XCONV_OK);
    int nans = 0;
    for (int i = 0; i < N - 1; i++)
        nans += isnan(out[i]) != 0;
    CHECK_MSG(nans == N - 1, "%d NaNs after a NaN fill of %d", nans, N - 1);
    CHECK(out[N - 1] == in[N - 1]);
    CHECK(be->buffer_fill(ctx, buf, 3, -1.5f, &err) == XCONV_OK);
    CHECK(be->buffer_read(ctx, buf, 0, 16, out, &err) == XCONV_OK);
    CHECK(out[0] == -1.5f && out[2] == -1.5f && isnan(out[3]));
    be->buffer_free(ctx, buf);

    xconv_backend_buffer *empty = NULL;
    CHECK(be->buffer_alloc(ctx, 0, &empty, &err) == XCONV_OK && empty != NULL);
    be->buffer_free(ctx, empty);
    be->buffer_free(ctx, NULL);

    xconv_backend_buffer *huge = NULL;
    CHECK(be->buffer_alloc(ctx, (size_t)info->max_alloc_bytes + 1, &huge, &err) ==
          XCONV_ERR_OUT_OF_MEMORY);
    CHECK(huge == NULL);
    CHECK_CONTAINS(err.msg, "largest allocation");
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

// A 2-D launch that also checks the dialect's ids: y[row][col] = row * 1000 + col.
static const char ids_source[] =
    "XC_KERNEL void ids(XC_GLOBAL float *y, int width)\n"
    "{\n"
    "    int col = XC_GLOBAL_ID(0), row = XC_GLOBAL_ID(1);\n"
    "    int check = XC_GROUP_ID(0) * XC_LOCAL_SIZE(0) + XC_LOCAL_ID(0);\n"
    "    y[row * width + col] = check == col ? (float)(row * 1000 + col) : -1.0f;\n"
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

// Builds source with options; returns the program or NULL after a failed check.
static xconv_backend_program *build(void *ctx, const char *source, const char *options)
{
    xconv_error err = {0};
    xconv_backend_program *prog = NULL;
    xconv_status st = be->program_build(ctx, source, options, &prog, NULL, &err);
    CHECK_MSG(st == XCONV_OK && prog, "%s: %s", be_name, err.msg);
    return st == XCONV_OK ? prog : NULL;
}

// y = a * x + bias through XC_FMA, bitwise equal to the host's fmaf; two builds with different
// defines are two programs; the launch's error paths.
static void test_axpb(void *ctx, xconv_backend_buffer *bx, xconv_backend_buffer *by,
                      const float *x, float *y, int N)
{
    xconv_error err = {0};
    xconv_backend_program *prog = build(ctx, axpb_source, "-DXC_BIAS=3");
    xconv_backend_program *other = build(ctx, axpb_source, "-DXC_BIAS=4");
    if (!prog || !other)
        return;
    CHECK(prog != other);
    const int n = N - 5;  // not a multiple of the group: the kernel's bound check matters
    xconv_arg args[] = {XCONV_ARG_BUF(bx), XCONV_ARG_BUF(by), XCONV_ARG_I32(n),
                        XCONV_ARG_F32(-2.5f)};
    xconv_launch l = {.kernel = "axpb", .dims = 1, .global = {(size_t)N}, .local = {64},
                      .args = args, .nargs = 4};
    for (int bias = 3; bias <= 4; bias++) {
        CHECK(be->buffer_fill(ctx, by, (size_t)N, NAN, &err) == XCONV_OK);
        xconv_status st = be->launch(ctx, bias == 3 ? prog : other, &l, &err);
        CHECK_MSG(st == XCONV_OK, "%s", err.msg);
        CHECK(be->buffer_read(ctx, by, 0, (size_t)N * 4, y, &err) == XCONV_OK);
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += i < n ? y[i] != fmaf(-2.5f, x[i], (float)bias) : !isnan(y[i]);
        CHECK_MSG(bad == 0, "%s axpb bias %d: %d wrong elements (XC_FMA must match fmaf)",
                  be_name, bias, bad);
    }

    // The timer: a region of 20 launches takes some device time, no more than the host saw pass
    // around it; a second stop is refused; an empty region takes no more than the host saw pass.
    double host_start = now_ms();
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    for (int rep = 0; rep < 20; rep++)
        CHECK(be->launch(ctx, prog, &l, &err) == XCONV_OK);
    double region = 0.0;
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);
    double host_region = now_ms() - host_start;
    CHECK_MSG(region > 0.0 && region <= host_region, "region %g ms, host %g ms", region,
              host_region);
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_ERR_INVALID);
    double host_before = now_ms();
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    region = -1.0;
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);
    double host = now_ms() - host_before;
    CHECK_MSG(region >= 0.0 && region <= host, "region %g ms, host %g ms", region, host);

    // Error paths: a missing kernel (the message lists the ones there are), a wrong argument
    // count, a global size that is not a multiple of the local one.
    l.kernel = "no_such_kernel";
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.msg, "no_such_kernel");
    l.kernel = "axpb";
    l.nargs = 3;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "takes 4 arguments");
    l.nargs = 4;
    l.global[0] = (size_t)N + 1;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "axpb");
    CHECK(be->finish(ctx, &err) == XCONV_OK);
    be->program_free(ctx, prog);
    be->program_free(ctx, other);
    be->program_free(ctx, NULL);
}

static void test_ids(void *ctx, xconv_backend_buffer *by, float *y)
{
    xconv_error err = {0};
    enum { W = 96, H = 40 };
    xconv_backend_program *prog = build(ctx, ids_source, "");
    if (!prog)
        return;
    xconv_arg args[] = {XCONV_ARG_BUF(by), XCONV_ARG_I32(W)};
    xconv_launch l = {.kernel = "ids", .dims = 2, .global = {W, H}, .local = {32, 4},
                      .args = args, .nargs = 2};
    xconv_status st = be->launch(ctx, prog, &l, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(be->buffer_read(ctx, by, 0, W * H * 4, y, &err) == XCONV_OK);
    int bad = 0;
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++)
            bad += y[r * W + c] != (float)(r * 1000 + c);
    CHECK_MSG(bad == 0, "%s 2-D ids: %d wrong elements", be_name, bad);
    be->program_free(ctx, prog);
}

// A constant argument from the start of a buffer and from an offset into it (a workspace
// region): the kernel sees the four floats there.
static void test_constant(void *ctx, xconv_backend_buffer *by, float *y)
{
    xconv_error err = {0};
    enum { OFFSET = 256 };  // bytes: where a second workspace region would start
    float coef[OFFSET / 4 + 4];
    for (int i = 0; i < OFFSET / 4 + 4; i++)
        coef[i] = (float)(i % 7) - 2.5f;
    xconv_backend_buffer *bc = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof coef, &bc, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bc, 0, sizeof coef, coef, &err) == XCONV_OK);
    xconv_backend_program *weigh = build(ctx, weigh_source, "");
    for (int pass = 0; weigh && pass < 3; pass++) {
        size_t offset = pass == 0 ? 0 : OFFSET;
        if (pass == 2) {  // the same copy again, after the data under it changed
            coef[OFFSET / 4] = 40.0f;
            CHECK(be->buffer_write(ctx, bc, 0, sizeof coef, coef, &err) == XCONV_OK);
        }
        xconv_arg wargs[] = {XCONV_ARG_BUF(by), XCONV_ARG_CONST(bc, 4 * sizeof(float), "coef")};
        wargs[1].offset = offset;
        xconv_launch wl = {.kernel = "weigh", .dims = 1, .global = {256}, .local = {16},
                           .args = wargs, .nargs = 2};
        xconv_status st = be->launch(ctx, weigh, &wl, &err);
        CHECK_MSG(st == XCONV_OK, "%s", err.msg);
        CHECK(be->buffer_read(ctx, by, 0, 256 * sizeof(float), y, &err) == XCONV_OK);
        int bad = 0;
        for (int i = 0; i < 256; i++)
            bad += y[i] != coef[offset / 4 + (size_t)(i % 4)] * (float)i;
        CHECK_MSG(bad == 0, "%s constant argument at byte %zu (pass %d): %d wrong elements",
                  be_name, offset, pass, bad);
    }
    be->program_free(ctx, weigh);
    be->buffer_free(ctx, bc);
}

// A failing build returns XCONV_ERR_BUILD with the compiler's log and the options.
static void test_broken(void *ctx)
{
    xconv_error err = {0};
    xconv_backend_program *broken = NULL;
    xconv_status st = be->program_build(ctx, broken_source, "-DXC_UNUSED=1", &broken, NULL, &err);
    CHECK(st == XCONV_ERR_BUILD && broken == NULL);
    CHECK_CONTAINS(err.msg, "undefined_thing");
    CHECK_CONTAINS(err.msg, "-DXC_UNUSED=1");
}

// The optional binary slots: a program remade from its binary runs as the built one does, and
// bytes that are no binary are refused with a status, not a crash.
static void test_binary(void *ctx, xconv_backend_buffer *bx, xconv_backend_buffer *by,
                        const float *x, float *y, int N)
{
    xconv_error err = {0};
    CHECK(!be->program_binary == !be->program_load);
    if (!be->program_binary)
        return;
    if (be->compiler_id) {
        char id[256] = "";
        be->compiler_id(ctx, id, sizeof id);
        CHECK(id[0] != '\0');
    }
    xconv_backend_program *built = build(ctx, axpb_source, "-DXC_BIAS=7");
    void *data = NULL;
    size_t len = 0;
    xconv_backend_program *loaded = NULL;
    if (built)
        CHECK_MSG(be->program_binary(ctx, built, &data, &len, &err) == XCONV_OK && len > 0,
                  "%s", err.msg);
    if (data)
        CHECK_MSG(be->program_load(ctx, data, len, "-DXC_BIAS=7", &loaded, &err) == XCONV_OK,
                  "%s", err.msg);
    const int n = N;
    xconv_arg args[] = {XCONV_ARG_BUF(bx), XCONV_ARG_BUF(by), XCONV_ARG_I32(n),
                        XCONV_ARG_F32(1.5f)};
    xconv_launch l = {.kernel = "axpb", .dims = 1, .global = {(size_t)N}, .local = {64},
                      .args = args, .nargs = 4};
    if (loaded && be->launch(ctx, loaded, &l, &err) == XCONV_OK &&
        be->buffer_read(ctx, by, 0, (size_t)N * 4, y, &err) == XCONV_OK) {
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += y[i] != fmaf(1.5f, x[i], 7.0f);
        CHECK_MSG(bad == 0, "%s: the program from a binary: %d wrong elements", be_name, bad);
    } else {
        CHECK_MSG(false, "%s: the program from a binary did not run: %s", be_name, err.msg);
    }
    static const char garbage[] = "this is not a program binary";
    xconv_backend_program *refused = NULL;
    CHECK(be->program_load(ctx, garbage, sizeof garbage - 1, "", &refused, &err) != XCONV_OK);
    CHECK(refused == NULL);
    free(data);
    be->program_free(ctx, loaded);
    be->program_free(ctx, built);
}

static void test_programs(void *ctx)
{
    xconv_error err = {0};
    enum { N = 4096 };
    static float x[N], y[N];
    fill_random(x, N, 2);
    xconv_backend_buffer *bx = NULL, *by = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof x, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, sizeof y, &by, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bx, 0, sizeof x, x, &err) == XCONV_OK);
    test_axpb(ctx, bx, by, x, y, N);
    test_ids(ctx, by, y);
    test_constant(ctx, by, y);
    test_binary(ctx, bx, by, x, y, N);
    test_broken(ctx);
    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, by);
}

// ---------------------------------------------------------------------------------------------
// The vendor SGEMM

// C[b] = A[b] B[b] on the device with the given A stride, compared with the host in double.
static void test_sgemm(void *ctx, size_t a_stride_mats)
{
    xconv_error err = {0};
    enum { M = 13, NN = 9, K = 17, BATCH = 3, LDA = K + 3, LDB = NN + 1, LDC = NN + 2, OFF = 5 };
    size_t a_stride = a_stride_mats * M * LDA, b_stride = K * LDB, c_stride = M * LDC + 1;
    size_t a_len = OFF + (a_stride_mats ? BATCH : 1) * M * LDA;
    size_t b_len = OFF + BATCH * b_stride, c_len = OFF + BATCH * c_stride;
    float *a = malloc(a_len * sizeof *a), *b = malloc(b_len * sizeof *b);
    float *c = malloc(c_len * sizeof *c);
    fill_random(a, a_len, 3);
    fill_random(b, b_len, 4);
    xconv_backend_buffer *ba = NULL, *bb = NULL, *bc = NULL;
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
    double region = 0.0, host_before = now_ms();
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    xconv_status st = be->sgemm(ctx, &g, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_OK);
    double host = now_ms() - host_before;
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
        float got = c[OFF + bi * c_stride + i * LDC + j];
        bad += !(fabs((double)got - acc) <= 1e-5 * (mag > 1e-30 ? mag : 1e-30));
    }
    CHECK_MSG(bad == 0, "%s sgemm with A stride %zu: %d wrong elements", be_name, a_stride, bad);
    // Elements between the matrices stay untouched.
    CHECK(isnan(c[OFF + c_stride - 1]) && isnan(c[OFF + NN]));
    be->buffer_free(ctx, ba);
    be->buffer_free(ctx, bb);
    be->buffer_free(ctx, bc);
    free(a);
    free(b);
    free(c);
}

// ---------------------------------------------------------------------------------------------

static void test_device(const xconv_device_info *info)
{
    printf("%s:%d %s (%s, %s): %d units, preferred multiple %zu\n", be_name, info->backend_index,
           info->name, info->platform, info->driver, info->compute_units,
           info->preferred_multiple);
    xconv_error err = {0};
    void *ctx = NULL;
    xconv_status st = be->open(info->backend_index, &ctx, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    // A second context on the same device; closing it leaves the first one working.
    void *other = NULL;
    CHECK(be->open(info->backend_index, &other, &err) == XCONV_OK);
    be->close(other);
    test_buffers(ctx, info);
    test_programs(ctx);
    if (be->sgemm) {
        test_sgemm(ctx, 0);
        test_sgemm(ctx, 1);
    }
    CHECK((be->vendor_conv_supports == NULL) == (be->vendor_conv == NULL));
    be->close(ctx);
}

// Runs the checks on a backend's devices: every one when there are few, else the first CPU
// device (or device 0). Returns false when the backend lists none.
static bool test_backend(const xconv_backend_iface *table, bool every_device)
{
    be = table;
    be_name = xconv_backend_name(be->kind);
    CHECK(be->enumerate && be->open && be->close && be->buffer_alloc && be->buffer_free &&
          be->buffer_write && be->buffer_read && be->buffer_fill && be->program_build &&
          be->program_free && be->launch && be->timer_start && be->timer_stop && be->finish);
    static xconv_device_info infos[64];
    int count = 0;
    xconv_error err = {0};
    xconv_status st = be->enumerate(infos, 64, &count, &err);
    if (st == XCONV_ERR_UNAVAILABLE || (st == XCONV_OK && count == 0)) {
        printf("%s: no device (%s); its checks skipped\n", be_name,
               st == XCONV_OK ? "none listed" : err.msg);
        return false;
    }
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    count = count > 64 ? 64 : count;
    for (int i = 0; i < count; i++)
        test_info(&infos[i], i);
    void *ctx = NULL;
    CHECK(be->open(count, &ctx, &err) == XCONV_ERR_NOT_FOUND && ctx == NULL);
    int first_cpu = 0;
    for (int i = count - 1; i >= 0; i--)
        if (infos[i].is_cpu)
            first_cpu = i;
    for (int i = 0; i < count; i++)
        if ((every_device && count <= 2) || i == first_cpu)
            test_device(&infos[i]);
    return true;
}

int main(void)
{
    int tested = 0;
    tested += test_backend(xconv_backend_opencl(), true);
#ifdef XCONV_HAVE_CUDA
    tested += test_backend(xconv_backend_cuda(), false);
#else
    printf("cuda: not built in; its checks skipped\n");
#endif
    if (!tested) {
        printf("SKIP: no backend has a device\n");
        return CHECK_SKIP_CODE;
    }
    return check_summary("test_backend_conformance");
}
