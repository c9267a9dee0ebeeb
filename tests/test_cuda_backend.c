// SPDX-License-Identifier: MIT
// Tests the CUDA backend table on the devices present: info, buffers, NVRTC builds, launches,
// __constant__ symbols, contraction parity, timing, cuBLAS SGEMM and every cuDNN row against host
// computations, then every CUDA variant end to end. Skips (77) without a driver or a device.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"

#ifndef XCONV_HAVE_CUDA

int main(void)
{
    printf("SKIP: no CUDA device (built without the CUDA backend)\n");
    return CHECK_SKIP_CODE;
}

#else

#include "backend.h"
#include "clock.h"
#include "cuda/cudnn_conv.h"
#include "validate/harness.h"
#include "variant.h"

static const xconv_backend_iface *be;

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

// Returns true when |got - ref| <= tol * norm (norm: the sum of the terms' magnitudes).
static bool close_enough(float got, double ref, double norm, double tol)
{
    return fabs((double)got - ref) <= tol * (norm > 1e-30 ? norm : 1e-30);
}

static int64_t out_size(int64_t in, int64_t pad, int64_t dil, int64_t ksize, int64_t stride)
{
    return (in + 2 * pad - dil * (ksize - 1) - 1) / stride + 1;
}

// The naive float64 grouped cross-correlation: NCHW x, K x C/groups x R x S w, NKPQ y.
static void host_conv(const xconv_problem *p, const float *x, const float *w, double *y,
                      double *norm)
{
    int64_t P = out_size(p->h, p->pad_h, p->dil_h, p->r, p->stride_h);
    int64_t Q = out_size(p->w, p->pad_w, p->dil_w, p->s, p->stride_w);
    int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    for (int64_t n = 0; n < p->n; n++)
    for (int64_t k = 0; k < p->k; k++)
    for (int64_t oh = 0; oh < P; oh++)
    for (int64_t ow = 0; ow < Q; ow++) {
        double acc = 0.0, mag = 0.0;
        for (int64_t c = 0; c < cg; c++)
        for (int64_t r = 0; r < p->r; r++)
        for (int64_t s = 0; s < p->s; s++) {
            int64_t ih = oh * p->stride_h - p->pad_h + r * p->dil_h;
            int64_t iw = ow * p->stride_w - p->pad_w + s * p->dil_w;
            if (ih < 0 || ih >= p->h || iw < 0 || iw >= p->w)
                continue;
            int64_t ci = (k / kg) * cg + c;
            double t = (double)x[((n * p->c + ci) * p->h + ih) * p->w + iw] *
                       (double)w[((k * cg + c) * p->r + r) * p->s + s];
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
    printf("cuda:%d %s: %s, driver %s, %d SMs at %d MHz, %.1f GiB, shared %llu KiB/block, "
           "constant %llu KiB, L2 %.1f MiB, %zu threads/block, warp %zu\n",
           index, info->name, info->version, info->driver, info->compute_units, info->clock_mhz,
           (double)info->global_mem_bytes / (1u << 30),
           (unsigned long long)info->local_mem_bytes >> 10,
           (unsigned long long)info->const_mem_bytes >> 10,
           (double)info->cache_bytes / (1u << 20), info->max_work_group_size,
           info->preferred_multiple);
    CHECK(info->backend == XCONV_BACKEND_CUDA);
    CHECK(info->backend_index == index);
    CHECK(strcmp(info->platform, "CUDA") == 0);
    CHECK(strcmp(info->vendor, "NVIDIA") == 0);
    CHECK(info->name[0] != '\0');
    CHECK(strchr(info->driver, '.') != NULL);
    CHECK_CONTAINS(info->version, "compute capability");
    CHECK(info->is_gpu && !info->is_cpu && info->fp64);
    CHECK(info->cc_major >= 3);
    CHECK(info->compute_units > 0);
    CHECK(info->preferred_multiple == 32);
    CHECK(info->max_alloc_bytes > 0 && info->global_mem_bytes == info->max_alloc_bytes);
    CHECK(info->local_mem_bytes >= 16384);
    CHECK(info->const_mem_bytes >= 65536);
    CHECK(info->max_work_group_size >= 512);
    CHECK(info->max_work_item_sizes[0] >= 512 && info->max_work_item_sizes[2] >= 1);
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
    CHECK(be->buffer_write(ctx, buf, 8, 4, &in[500], &err) == XCONV_OK);
    CHECK(be->buffer_read(ctx, buf, 0, 12, out, &err) == XCONV_OK);
    CHECK(out[0] == in[0] && out[2] == in[500]);

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

// a * b + c without contraction: the device must round twice, like OpenCL's FP_CONTRACT OFF.
static const char contract_source[] =
    "XC_KERNEL void contract(XC_GLOBAL const float *a, XC_GLOBAL const float *b,\n"
    "                        XC_GLOBAL const float *c, XC_GLOBAL float *y)\n"
    "{\n"
    "    int i = XC_GLOBAL_ID(0);\n"
    "    y[i] = a[i] * b[i] + c[i];\n"
    "}\n";

static const char broken_source[] =
    "XC_KERNEL void broken(XC_GLOBAL float *y)\n"
    "{   y[0] = undefined_thing; }\n";

static void test_axpb(void *ctx, xconv_buffer *bx, xconv_buffer *by, const float *x, float *y,
                      int N)
{
    xconv_error err;
    xconv_program *prog = NULL, *again = NULL;
    double ms = -1.0;
    xconv_status st = be->program_build(ctx, axpb_source, "-DXC_BIAS=3", &prog, &ms, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    double miss_ms = ms;
    CHECK(ms > 0.0);
    CHECK(be->program_build(ctx, axpb_source, "-DXC_BIAS=3", &again, &ms, &err) == XCONV_OK);
    CHECK(again == prog && ms == 0.0);
    CHECK(be->program_build(ctx, axpb_source, "-DXC_BIAS=4", &again, &ms, &err) == XCONV_OK);
    CHECK(again != prog && ms > 0.0);
    printf("  build (NVRTC + module load): %.1f ms on a miss, %.1f on a cache hit\n", miss_ms,
           0.0);

    const int n = N - 5;  // not a multiple of the block: the kernel's bound check matters
    xconv_arg args[] = {XCONV_ARG_BUF(bx), XCONV_ARG_BUF(by), XCONV_ARG_I32(n),
                        XCONV_ARG_F32(-2.5f)};
    xconv_launch l = {.kernel = "axpb", .dims = 1, .global = {(size_t)N}, .local = {64},
                      .args = args, .nargs = 4};
    CHECK(be->buffer_fill(ctx, by, (size_t)N, NAN, &err) == XCONV_OK);
    st = be->launch(ctx, prog, &l, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(be->buffer_read(ctx, by, 0, (size_t)N * 4, y, &err) == XCONV_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += i < n ? y[i] != fmaf(-2.5f, x[i], 3.0f) : !isnan(y[i]);
    CHECK_MSG(bad == 0, "axpb: %d wrong elements (XC_FMA must match the host's fmaf bitwise)",
              bad);
    printf("  launch: 1-D axpb with XC_FMA bitwise equal to the host's fmaf: %s\n",
           bad ? "FAILED" : "ok");

    // Timing a region: several launches between the marks, inside what the host saw pass.
    double host_start = xconv_now_ms();
    CHECK(be->timer_start(ctx, &err) == XCONV_OK);
    for (int rep = 0; rep < 20; rep++)
        CHECK(be->launch(ctx, prog, &l, &err) == XCONV_OK);
    double region = 0.0;
    st = be->timer_stop(ctx, &region, &err);
    double host_region = xconv_now_ms() - host_start;
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK_MSG(region > 0.0 && region <= host_region, "region %g ms, host %g ms", region,
              host_region);
    printf("  timer: 20 launches in %.4f ms\n", region);
    CHECK(be->timer_stop(ctx, &region, &err) == XCONV_ERR_INVALID);

    // Error paths: missing kernel, wrong argument count, bad geometry.
    l.kernel = "no_such_kernel";
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.msg, "no_such_kernel");
    CHECK_CONTAINS(err.msg, "axpb");  // the module's kernels, listed by drivers of CUDA >= 12.4
    l.kernel = "axpb";
    l.nargs = 3;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "takes 4 arguments");
    l.nargs = 4;
    args[2] = XCONV_ARG_BUF(bx);  // a pointer where an int goes
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "argument 2");
    args[2] = XCONV_ARG_I32(n);
    l.global[0] = (size_t)N + 1;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "not a multiple");
    l.global[0] = 2048;
    l.local[0] = 2048;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK(be->finish(ctx, &err) == XCONV_OK);
}

static void test_ids(void *ctx, xconv_buffer *by, float *y)
{
    xconv_error err;
    enum { W = 96, H = 40 };
    xconv_program *prog = NULL;
    xconv_status st = be->program_build(ctx, ids_source, "", &prog, NULL, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    xconv_arg args[] = {XCONV_ARG_BUF(by), XCONV_ARG_I32(W)};
    xconv_launch l = {.kernel = "ids", .dims = 2, .global = {W, H}, .local = {32, 4},
                      .args = args, .nargs = 2};
    st = be->launch(ctx, prog, &l, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(be->buffer_read(ctx, by, 0, W * H * 4, y, &err) == XCONV_OK);
    int bad = 0;
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++)
            bad += y[r * W + c] != (float)(r * 1000 + c);
    CHECK_MSG(bad == 0, "2-D ids: %d wrong elements", bad);
    printf("  launch: 2-D grid of 3 x 10 blocks of 32 x 4, ids: %s\n", bad ? "FAILED" : "ok");
}

static void test_constant(void *ctx, xconv_buffer *by, float *y)
{
    xconv_error err;
    float coef[8] = {1.0f, -1.0f, 0.5f, 2.0f, 9.0f, 9.0f, 9.0f, 9.0f};
    xconv_buffer *bc = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof coef, &bc, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bc, 0, sizeof coef, coef, &err) == XCONV_OK);
    xconv_program *weigh = NULL;
    xconv_status st = be->program_build(ctx, weigh_source, "", &weigh, NULL, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st == XCONV_OK) {
        xconv_arg wargs[] = {XCONV_ARG_BUF(by), XCONV_ARG_CONST(bc, 4 * sizeof(float), "coef")};
        xconv_launch wl = {.kernel = "weigh", .dims = 1, .global = {256}, .local = {16},
                           .args = wargs, .nargs = 2};
        st = be->launch(ctx, weigh, &wl, &err);
        CHECK_MSG(st == XCONV_OK, "%s", err.msg);
        CHECK(be->buffer_read(ctx, by, 0, 256 * sizeof(float), y, &err) == XCONV_OK);
        int bad = 0;
        for (int i = 0; i < 256; i++)
            bad += y[i] != coef[i % 4] * (float)i;
        CHECK_MSG(bad == 0, "__constant__ coef: %d wrong elements", bad);
        printf("  constant memory: 16 bytes copied into __constant__ coef: %s\n",
               bad ? "FAILED" : "ok");

        wargs[1] = XCONV_ARG_CONST(bc, sizeof coef, "coef");  // 32 bytes into a 16-byte symbol
        CHECK(be->launch(ctx, weigh, &wl, &err) == XCONV_ERR_INVALID);
        CHECK_CONTAINS(err.msg, "do not fit");
        wargs[1] = XCONV_ARG_CONST(bc, 16, "no_such_symbol");
        CHECK(be->launch(ctx, weigh, &wl, &err) == XCONV_ERR_INVALID);
        CHECK_CONTAINS(err.msg, "no_such_symbol");
    }
    be->buffer_free(ctx, bc);
}

// The device's a * b + c must equal the host's with two roundings, for values where an fma
// would differ.
static void test_contraction(void *ctx)
{
    xconv_error err;
    enum { N = 4096 };
    static float a[N], b[N], c[N], y[N];
    fill_random(a, N, 7);
    fill_random(b, N, 8);
    int differs = 0;
    for (int i = 0; i < N; i++) {
        volatile float prod = a[i] * b[i];
        c[i] = -prod;  // a*b - round(a*b): exactly the product's rounding error under an fma
        differs += fmaf(a[i], b[i], c[i]) != prod + c[i];
    }
    xconv_buffer *bufs[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        CHECK(be->buffer_alloc(ctx, sizeof a, &bufs[i], &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs[0], 0, sizeof a, a, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs[1], 0, sizeof b, b, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs[2], 0, sizeof c, c, &err) == XCONV_OK);
    xconv_program *prog = NULL;
    xconv_status st = be->program_build(ctx, contract_source, "", &prog, NULL, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st == XCONV_OK) {
        xconv_arg args[] = {XCONV_ARG_BUF(bufs[0]), XCONV_ARG_BUF(bufs[1]),
                            XCONV_ARG_BUF(bufs[2]), XCONV_ARG_BUF(bufs[3])};
        xconv_launch l = {.kernel = "contract", .dims = 1, .global = {N}, .local = {128},
                          .args = args, .nargs = 4};
        CHECK(be->launch(ctx, prog, &l, &err) == XCONV_OK);
        CHECK(be->buffer_read(ctx, bufs[3], 0, sizeof y, y, &err) == XCONV_OK);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            volatile float prod = a[i] * b[i];
            bad += memcmp(&y[i], &(float){prod + c[i]}, sizeof(float)) != 0;
        }
        CHECK_MSG(bad == 0, "a * b + c: %d of %d results were contracted into an fma", bad, N);
        printf("  contraction: a * b + c rounded twice (as OpenCL's FP_CONTRACT OFF) in %d of %d "
               "cases, %d of which an fma would change: %s\n", N - bad, N, differs,
               bad ? "FAILED" : "ok");
    }
    for (int i = 0; i < 4; i++)
        be->buffer_free(ctx, bufs[i]);
}

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
    test_axpb(ctx, bx, by, x, y, N);
    test_ids(ctx, by, y);
    test_constant(ctx, by, y);
    test_contraction(ctx);

    xconv_program *broken = NULL;
    xconv_status st = be->program_build(ctx, broken_source, "-DXC_UNUSED=1", &broken, NULL,
                                        &err);
    CHECK(st == XCONV_ERR_BUILD && broken == NULL);
    CHECK_CONTAINS(err.msg, "undefined_thing");
    CHECK_CONTAINS(err.msg, "(2): error");  // #line 1: the log counts lines of our source
    CHECK_CONTAINS(err.msg, "-DXC_UNUSED=1");
    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, by);
}

// ---------------------------------------------------------------------------------------------
// cuBLAS

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
    xconv_status st = be->sgemm(ctx, &g, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
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
        bad += !close_enough(c[OFF + bi * c_stride + i * LDC + j], acc, mag, 1e-5);
    }
    CHECK_MSG(bad == 0, "sgemm with A stride %zu: %d wrong elements", a_stride, bad);
    printf("  cuBLAS: batched SGEMM, A stride %zu: %s\n", a_stride,
           st == XCONV_OK && bad == 0 ? "ok" : "FAILED");
    // Elements between the matrices stay untouched.
    CHECK(isnan(c[OFF + c_stride - 1]) && isnan(c[OFF + NN]));

    g.ldb = NN - 1;
    CHECK(be->sgemm(ctx, &g, &err) == XCONV_ERR_INVALID);
    g.ldb = LDB;
    g.batch = BATCH + 1;
    CHECK(be->sgemm(ctx, &g, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "reaches element");
    be->buffer_free(ctx, ba);
    be->buffer_free(ctx, bb);
    be->buffer_free(ctx, bc);
    free(a);
    free(b);
    free(c);
}

// ---------------------------------------------------------------------------------------------
// cuDNN

// Runs cuDNN row `algo` on p and compares with the host; prints one line. Returns false when
// cuDNN is not present at all.
static bool test_cudnn_algo(void *ctx, const char *algo, const xconv_problem *p,
                            const float *x, const float *w, const double *ref,
                            const double *norm, size_t nx, size_t nw, size_t ny)
{
    xconv_error err;
    size_t ws = 0;
    char reason[512] = "";
    if (!be->vendor_conv_supports(ctx, algo, p, &ws, reason, sizeof reason)) {
        printf("    %-28s not run: %s\n", algo, reason);
        CHECK_MSG(reason[0] != '\0', "%s: unsupported without a reason", algo);
        return strstr(reason, "cuDNN not found") == NULL;
    }
    xconv_buffer *bx = NULL, *bw = NULL, *by = NULL, *bws = NULL;
    CHECK(be->buffer_alloc(ctx, nx * 4, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, nw * 4, &bw, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, ny * 4, &by, &err) == XCONV_OK);
    if (ws > 0)
        CHECK(be->buffer_alloc(ctx, ws, &bws, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bx, 0, nx * 4, x, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bw, 0, nw * 4, w, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, by, ny, NAN, &err) == XCONV_OK);
    xconv_status st = be->vendor_conv(ctx, algo, p, bx, bw, by, bws, &err);
    if (st == XCONV_ERR_NOT_APPLICABLE) {  // refused only when run
        printf("    %-28s not run: %s\n", algo, err.msg);
        be->buffer_free(ctx, bx);
        be->buffer_free(ctx, bw);
        be->buffer_free(ctx, by);
        be->buffer_free(ctx, bws);
        return true;
    }
    CHECK_MSG(st == XCONV_OK, "%s: %s", algo, err.msg);
    float *y = malloc(ny * 4);
    CHECK(be->buffer_read(ctx, by, 0, ny * 4, y, &err) == XCONV_OK);
    bool transform = strstr(algo, "fft") || strstr(algo, "winograd");
    double tol = transform ? 1e-4 : 1e-5, worst = 0.0;
    int bad = 0;
    for (size_t i = 0; i < ny; i++) {
        double e = fabs((double)y[i] - ref[i]) / (norm[i] > 1e-30 ? norm[i] : 1e-30);
        worst = isnan(e) || e > worst ? e : worst;
        bad += !close_enough(y[i], ref[i], norm[i], tol);
    }
    CHECK_MSG(bad == 0, "%s: %d of %zu wrong (worst normalised error %g)", algo, bad, ny, worst);
    printf("    %-28s %s: workspace %zu bytes, worst normalised error %.2e%s%s\n", algo,
           st == XCONV_OK && bad == 0 ? "ok" : "FAILED", ws, worst,
           strcmp(algo, "cudnn_find") == 0 ? "; " : "", strcmp(algo, "cudnn_find") == 0
           ? reason : "");
    if (ws > 0 && st == XCONV_OK) {  // a workspace too small is refused
        CHECK(be->vendor_conv(ctx, algo, p, bx, bw, by, NULL, &err) == XCONV_ERR_INVALID);
        CHECK_CONTAINS(err.msg, "workspace");
    }
    free(y);
    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, bw);
    be->buffer_free(ctx, by);
    be->buffer_free(ctx, bws);
    return true;
}

// Every cuDNN row on p; false when cuDNN is not present.
static bool test_cudnn_problem(void *ctx, const xconv_problem *p, const char *label)
{
    int64_t P = out_size(p->h, p->pad_h, p->dil_h, p->r, p->stride_h);
    int64_t Q = out_size(p->w, p->pad_w, p->dil_w, p->s, p->stride_w);
    size_t nx = (size_t)(p->n * p->c * p->h * p->w);
    size_t nw = (size_t)(p->k * (p->c / p->groups) * p->r * p->s);
    size_t ny = (size_t)(p->n * p->k * P * Q);
    float *x = malloc(nx * 4), *w = malloc(nw * 4);
    double *ref = malloc(ny * sizeof *ref), *norm = malloc(ny * sizeof *norm);
    fill_random(x, nx, 5);
    fill_random(w, nw, 6);
    host_conv(p, x, w, ref, norm);
    printf("  cuDNN on %s:\n", label);
    bool present = true;
    for (const char *const *algo = xconv_cudnn_algo_names(); *algo && present; algo++)
        present = test_cudnn_algo(ctx, *algo, p, x, w, ref, norm, nx, nw, ny);
    if (present) {
        const char *choice = xconv_cuda_find_choice(ctx, p);
        CHECK_MSG(choice != NULL && strncmp(choice, "cudnn_", 6) == 0, "no cudnn_find choice");
        CHECK(choice == NULL || strcmp(xconv_cuda_last_find_choice(ctx), choice) == 0);
    }
    free(x);
    free(w);
    free(ref);
    free(norm);
    return present;
}

static void test_cudnn(void *ctx)
{
    char reason[512] = "";
    size_t ws = 7;
    xconv_problem p = {.n = 2, .c = 4, .h = 9, .w = 11, .k = 6, .r = 3, .s = 3,
                       .stride_h = 1, .stride_w = 1, .pad_h = 1, .pad_w = 1,
                       .dil_h = 1, .dil_w = 1, .groups = 1};
    CHECK(!be->vendor_conv_supports(ctx, "winograd", &p, &ws, reason, sizeof reason));
    CHECK_CONTAINS(reason, "unknown algorithm");
    CHECK(ws == 0);
    if (!test_cudnn_problem(ctx, &p, "n=2,c=4,h=9,w=11,k=6,r=3,pad=1")) {
        printf("  SKIP cuDNN checks: cuDNN is not on LD_LIBRARY_PATH (see docs/cuda.md)\n");
        return;
    }
    xconv_problem q = p;
    q.stride_h = 2;
    q.dil_w = 2;
    q.pad_w = 2;
    q.groups = 2;
    test_cudnn_problem(ctx, &q, "n=2,c=4,h=9,w=11,k=6,r=3,stride_h=2,pad_w=2,dil_w=2,groups=2");
}

// ---------------------------------------------------------------------------------------------
// Every CUDA variant end to end, through the harness

static void test_variants(const xconv_device_info *info)
{
    xconv_error err;
    xconv_device *dev = xconv_device_open(info, &err);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (!dev)
        return;
    static const char *const shapes[] = {"plain3x3", "stride2_3x3", "groups4", "asym_dil",
                                         "depthwise3x3", "pw1x1"};
    int count = 0, nshapes = 0;
    const xconv_variant *const *all = xconv_variants_all(&count);
    const xconv_named_shape *suite = xconv_suite_find("small", &nshapes);
    xconv_harness_opts opts;
    xconv_harness_opts_default(&opts);
    printf("  variants on the small suite (pass / n/a / FAIL / error):\n");
    for (int si = 0; si < nshapes; si++) {
        bool wanted = false;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            wanted = wanted || strcmp(suite[si].name, shapes[k]) == 0;
        xconv_problem p;
        if (!wanted || xconv_shape_parse(suite[si].spec, &p, &err) != XCONV_OK)
            continue;
        xconv_case *c = xconv_case_create(dev, &p, suite[si].name, &opts, &err);
        CHECK_MSG(c != NULL, "%s: %s", suite[si].name, err.msg);
        for (int i = 0; c && i < count; i++) {
            if (!(all[i]->backends & XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)))
                continue;
            static xconv_record rec;
            xconv_status st = xconv_case_run(c, all[i], &rec, &err);
            CHECK_MSG(st == XCONV_OK, "%s on %s: %s", all[i]->name, suite[si].name, err.msg);
            bool ok = rec.outcome == XCONV_OUTCOME_PASS ||
                      rec.outcome == XCONV_OUTCOME_NOT_APPLICABLE;
            CHECK_MSG(ok, "%s on %s: %s (%s)", all[i]->name, suite[si].name,
                      xconv_outcome_name(rec.outcome), rec.note);
            printf("    %-12s %-28s %-5s err %.2e  %s\n", suite[si].name, all[i]->name,
                   xconv_outcome_name(rec.outcome), rec.max_norm_err, rec.note);
        }
        xconv_case_destroy(c);
    }
    xconv_device_close(dev);
}

// ---------------------------------------------------------------------------------------------

static void test_device(const xconv_device_info *info)
{
    printf("testing cuda:%d %s\n", info->backend_index, info->name);
    xconv_error err;
    void *ctx = NULL;
    xconv_status st = be->open(info->backend_index, &ctx, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    // A second context on the same device shares the primary context; closing it must leave
    // the first one working.
    void *other = NULL;
    CHECK(be->open(info->backend_index, &other, &err) == XCONV_OK);
    be->close(other);
    test_buffers(ctx, info);
    test_programs(ctx);
    test_sgemm(ctx, 0);
    test_sgemm(ctx, 1);
    test_cudnn(ctx);
    be->close(ctx);
    test_variants(info);
}

int main(void)
{
    be = xconv_backend_cuda();
    CHECK(be != NULL && be->kind == XCONV_BACKEND_CUDA);
    static xconv_device_info infos[64];
    int count = 0;
    xconv_error err = {0};
    xconv_status st = be->enumerate(infos, 64, &count, &err);
    if (st == XCONV_ERR_UNAVAILABLE || (st == XCONV_OK && count == 0)) {
        printf("SKIP: no CUDA device (%s)\n", st == XCONV_OK ? "none listed" : err.msg);
        return CHECK_SKIP_CODE;
    }
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (count > 64)
        count = 64;
    for (int i = 0; i < count; i++)
        test_info(&infos[i], i);

    void *ctx = NULL;
    CHECK(be->open(count, &ctx, &err) == XCONV_ERR_NOT_FOUND && ctx == NULL);
    test_device(&infos[0]);
    return check_summary("test_cuda_backend");
}

#endif // XCONV_HAVE_CUDA
