// SPDX-License-Identifier: MIT
// The CUDA backend's own checks beside the shared ones (test_backend_conformance): what the
// device reports, argument and block checks, __constant__ symbols, contraction parity, the
// NVRTC log, cuBLAS's refusals, every cuDNN row against the host, then every CUDA variant end to
// end, and every cuDNN row in the reduced storage types and math modes. Skips (77) without a
// driver or a device.
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

#include "../host/core/backend.h"
#include "cuda/cudnn_conv.h"
#include "../host/plan/variant.h"

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
    CHECK(info->fp32_config & XCONV_FP_DENORM);
    CHECK_CONTAINS(info->build_flags, "--fmad=false");
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
    "XC_KERNEL void weigh(XC_GLOBAL float *y, XC_CONSTANT_PARAM(float, coef))\n"
    "{\n"
    "    int i = XC_GLOBAL_ID(0);\n"
    "    y[i] = coef[i % 4] * (float)i;\n"
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

// The launch's CUDA-specific refusals: a pointer where the kernel takes an int, a block past the
// device's threads.
static void test_axpb(void *ctx, xconv_backend_buffer *bx, xconv_backend_buffer *by, int N)
{
    xconv_error err = {0};
    xconv_backend_program *prog = NULL;
    xconv_status st = be->program_build(ctx, axpb_source, "-DXC_BIAS=3", &prog, NULL, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    xconv_arg args[] = {XCONV_ARG_BUF(bx), XCONV_ARG_BUF(by), XCONV_ARG_BUF(bx),
                        XCONV_ARG_F32(-2.5f)};
    xconv_launch l = {.kernel = "axpb", .dims = 1, .global = {(size_t)N}, .local = {64},
                      .args = args, .nargs = 4};
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);  // a pointer where an int goes
    CHECK_CONTAINS(err.msg, "argument 2");
    args[2] = XCONV_ARG_I32(N);
    l.global[0] = 2048;
    l.local[0] = 2048;
    CHECK(be->launch(ctx, prog, &l, &err) == XCONV_ERR_INVALID);
    CHECK(be->finish(ctx, &err) == XCONV_OK);
    be->program_free(ctx, prog);
}

// A constant argument larger than its __constant__ symbol, or naming a symbol the module lacks.
static void test_constant(void *ctx, xconv_backend_buffer *by)
{
    xconv_error err = {0};
    float coef[8] = {1.0f, -1.0f, 0.5f, 2.0f, 9.0f, 9.0f, 9.0f, 9.0f};
    xconv_backend_buffer *bc = NULL;
    CHECK(be->buffer_alloc(ctx, sizeof coef, &bc, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bc, 0, sizeof coef, coef, &err) == XCONV_OK);
    xconv_backend_program *weigh = NULL;
    xconv_status st = be->program_build(ctx, weigh_source, "", &weigh, NULL, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st == XCONV_OK) {
        xconv_arg wargs[] = {XCONV_ARG_BUF(by), XCONV_ARG_CONST(bc, sizeof coef, "coef")};
        xconv_launch wl = {.kernel = "weigh", .dims = 1, .global = {256}, .local = {16},
                           .args = wargs, .nargs = 2};
        CHECK(be->launch(ctx, weigh, &wl, &err) == XCONV_ERR_INVALID);  // 32 bytes into 16
        CHECK_CONTAINS(err.msg, "do not fit");
        wargs[1] = XCONV_ARG_CONST(bc, 16, "no_such_symbol");
        CHECK(be->launch(ctx, weigh, &wl, &err) == XCONV_ERR_INVALID);
        CHECK_CONTAINS(err.msg, "no_such_symbol");
        printf("  constant memory: oversized copies and unknown symbols refused\n");
    }
    be->program_free(ctx, weigh);
    be->buffer_free(ctx, bc);
}

// The device's a * b + c must equal the host's with two roundings, for values where an fma
// would differ.
static void test_contraction(void *ctx)
{
    xconv_error err = {0};
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
    xconv_backend_buffer *bufs[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        CHECK(be->buffer_alloc(ctx, sizeof a, &bufs[i], &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs[0], 0, sizeof a, a, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs[1], 0, sizeof b, b, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs[2], 0, sizeof c, c, &err) == XCONV_OK);
    xconv_backend_program *prog = NULL;
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
    be->program_free(ctx, prog);
    for (int i = 0; i < 4; i++)
        be->buffer_free(ctx, bufs[i]);
}

static void test_programs(void *ctx)
{
    xconv_error err = {0};
    enum { N = 4096 };
    xconv_backend_buffer *bx = NULL, *by = NULL;
    CHECK(be->buffer_alloc(ctx, N * 4, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, N * 4, &by, &err) == XCONV_OK);
    test_axpb(ctx, bx, by, N);
    test_constant(ctx, by);
    test_contraction(ctx);

    xconv_backend_program *broken = NULL;
    xconv_status st = be->program_build(ctx, broken_source, "-DXC_UNUSED=1", &broken, NULL, &err);
    CHECK(st == XCONV_ERR_BUILD && broken == NULL);
    CHECK_CONTAINS(err.msg, "(2): error");  // #line 1: the log counts lines of our source
    be->buffer_free(ctx, bx);
    be->buffer_free(ctx, by);
}

// ---------------------------------------------------------------------------------------------
// cuBLAS

// cuBLAS's own refusals: a leading dimension under the columns, a batch past the buffer.
static void test_sgemm(void *ctx)
{
    xconv_error err = {0};
    enum { M = 13, NN = 9, K = 17, BATCH = 3, LDA = K + 3, LDB = NN + 1, LDC = NN + 2 };
    size_t a_len = M * LDA, b_len = BATCH * K * LDB, c_len = BATCH * M * LDC;
    xconv_backend_buffer *ba = NULL, *bb = NULL, *bc = NULL;
    CHECK(be->buffer_alloc(ctx, a_len * 4, &ba, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, b_len * 4, &bb, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, c_len * 4, &bc, &err) == XCONV_OK);
    xconv_gemm_args g = {.m = M, .n = NN, .k = K,
                         .a = ba, .lda = LDA, .a_stride = 0,
                         .b = bb, .ldb = LDB, .b_stride = K * LDB,
                         .c = bc, .ldc = LDC, .c_stride = M * LDC,
                         .batch = BATCH};
    CHECK(be->sgemm(ctx, &g, &err) == XCONV_OK);
    g.ldb = NN - 1;
    CHECK(be->sgemm(ctx, &g, &err) == XCONV_ERR_INVALID);
    g.ldb = LDB;
    g.batch = BATCH + 1;
    CHECK(be->sgemm(ctx, &g, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "reaches element");
    printf("  cuBLAS: refusals of bad leading dimensions and batches: ok\n");
    be->buffer_free(ctx, ba);
    be->buffer_free(ctx, bb);
    be->buffer_free(ctx, bc);
}

// ---------------------------------------------------------------------------------------------
// cuDNN

// Runs cuDNN row `algo` on p and compares with the host; prints one line. Returns false when
// cuDNN is not present at all.
static bool test_cudnn_algo(void *ctx, const char *algo, const xconv_problem *p,
                            const float *x, const float *w, const double *ref,
                            const double *norm, size_t nx, size_t nw, size_t ny)
{
    xconv_error err = {0};
    size_t ws = 0;
    char reason[512] = "";
    if (!be->vendor_conv_supports(ctx, algo, p, &ws, reason, sizeof reason)) {
        printf("    %-28s not run: %s\n", algo, reason);
        CHECK_MSG(reason[0] != '\0', "%s: unsupported without a reason", algo);
        return strstr(reason, "cuDNN not found") == NULL;
    }
    xconv_backend_buffer *bx = NULL, *bw = NULL, *by = NULL, *bws = NULL;
    CHECK(be->buffer_alloc(ctx, nx * 4, &bx, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, nw * 4, &bw, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, ny * 4, &by, &err) == XCONV_OK);
    if (ws > 0)
        CHECK(be->buffer_alloc(ctx, ws, &bws, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bx, 0, nx * 4, x, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bw, 0, nw * 4, w, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, by, ny, NAN, &err) == XCONV_OK);
    xconv_vendor_conv_buffers b = {.x = bx, .w = bw, .y = by, .workspace = bws};
    xconv_status st = be->vendor_conv(ctx, algo, p, &b, &err);
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
        b.workspace = NULL;
        CHECK(be->vendor_conv(ctx, algo, p, &b, &err) == XCONV_ERR_INVALID);
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

// The fused row (convolution + bias + activation, then cuDNN's max-pool) on the epilogue `spec`
// against the float64 reference of the composed operation; cuDNN may refuse a combination
// (printed, not failed).
static void test_cudnn_fused(void *ctx, const char *spec)
{
    xconv_error err = {0};
    xconv_problem p;
    CHECK_MSG(xconv_shape_parse(spec, &p, &err) == XCONV_OK, "%s", err.msg);
    const char *algo = "cudnn_fused_bias_act_pool";
    size_t ws = 0, nx = (size_t)xconv_problem_x_elems(&p), nw = (size_t)xconv_problem_w_elems(&p);
    size_t ny = (size_t)xconv_problem_y_elems(&p), nb = (size_t)p.k;
    char reason[512] = "";
    if (!be->vendor_conv_supports(ctx, algo, &p, &ws, reason, sizeof reason)) {
        printf("    %s on %s not run: %s\n", algo, spec, reason);
        CHECK_MSG(reason[0] != '\0', "%s: unsupported without a reason", algo);
        return;
    }
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc(nb * 4), *y = malloc(ny * 4);
    double *ref = malloc(ny * sizeof *ref), *scale = malloc(ny * sizeof *scale);
    fill_random(x, nx, 5);
    fill_random(w, nw, 6);
    fill_random(b, nb, 7);
    CHECK(xconv_reference_forward(&p, x, w, b, ref, scale, 0, &err) == XCONV_OK);
    xconv_vendor_conv_buffers bufs = {0};
    CHECK(be->buffer_alloc(ctx, nx * 4, &bufs.x, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, nw * 4, &bufs.w, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, ny * 4, &bufs.y, &err) == XCONV_OK);
    CHECK(be->buffer_alloc(ctx, nb * 4, &bufs.bias, &err) == XCONV_OK);
    if (ws)
        CHECK(be->buffer_alloc(ctx, ws, &bufs.workspace, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs.x, 0, nx * 4, x, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs.w, 0, nw * 4, w, &err) == XCONV_OK);
    CHECK(be->buffer_write(ctx, bufs.bias, 0, nb * 4, b, &err) == XCONV_OK);
    CHECK(be->buffer_fill(ctx, bufs.y, ny, NAN, &err) == XCONV_OK);
    xconv_status st = be->vendor_conv(ctx, algo, &p, &bufs, &err);
    if (st == XCONV_ERR_NOT_APPLICABLE) {
        printf("    %s on %s not run: %s\n", algo, spec, err.msg);
    } else {
        CHECK_MSG(st == XCONV_OK, "%s on %s: %s", algo, spec, err.msg);
        CHECK(be->buffer_read(ctx, bufs.y, 0, ny * 4, y, &err) == XCONV_OK);
        int bad = 0;
        for (size_t i = 0; i < ny; i++)
            bad += !close_enough(y[i], ref[i], scale[i], 1e-5);
        CHECK_MSG(bad == 0, "%s on %s: %d of %zu outputs wrong", algo, spec, bad, ny);
        printf("    %s on %s: %s (workspace %zu bytes)\n", algo, spec, bad ? "FAILED" : "ok",
               ws);
    }
    be->buffer_free(ctx, bufs.x);
    be->buffer_free(ctx, bufs.w);
    be->buffer_free(ctx, bufs.y);
    be->buffer_free(ctx, bufs.bias);
    be->buffer_free(ctx, bufs.workspace);
    free(x), free(w), free(b), free(y), free(ref), free(scale);
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
    // The fused row takes problems with a bias, and refuses the bare convolution by name.
    CHECK(!be->vendor_conv_supports(ctx, "cudnn_fused_bias_act_pool", &p, &ws, reason,
                                    sizeof reason));
    CHECK_CONTAINS(reason, "epilogue");
    test_cudnn_fused(ctx, "n=2,c=4,h=9,w=11,k=6,r=3,pad=1,bias=1,act=relu,pool=2");
    test_cudnn_fused(ctx, "n=2,c=4,h=9,w=11,k=6,r=3,pad=1,bias=1,act=relu6");
    test_cudnn_fused(ctx, "n=2,c=4,h=9,w=11,k=6,r=3,pad=1,bias=1,pool=3,pool_stride=2,"
                          "pool_pad=1");
}

// ---------------------------------------------------------------------------------------------
// Every CUDA variant end to end, through the harness

static void test_variants(const xconv_device_info *info)
{
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open_info(info, &err);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (!dev)
        return;
    static const char *const shapes[] = {"plain3x3", "stride2_3x3", "groups4", "asym_dil",
                                         "depthwise3x3", "pw1x1"};
    int count = xconv_variant_count(), nshapes = 0;
    const xconv_named_shape *suite = xconv_suite_find("small", &nshapes);
    xconv_case_options opts;
    xconv_case_options_default(&opts);
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
            const xconv_variant *v = xconv_variant_at(i);
            const char *name = xconv_variant_get_info(v)->name;
            if (!(xconv_variant_get_info(v)->backends & XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)))
                continue;
            static xconv_result rec;
            xconv_status st = xconv_case_run(c, v, &rec, &err);
            CHECK_MSG(st == XCONV_OK, "%s on %s: %s", name, suite[si].name, err.msg);
            bool ok = rec.outcome == XCONV_OUTCOME_PASS ||
                      rec.outcome == XCONV_OUTCOME_NOT_APPLICABLE;
            CHECK_MSG(ok, "%s on %s: %s (%s)", name, suite[si].name,
                      xconv_outcome_name(rec.outcome), rec.note);
            printf("    %-12s %-28s %-5s err %.2e  %s\n", suite[si].name, name,
                   xconv_outcome_name(rec.outcome), rec.max_norm_err, rec.note);
        }
        xconv_case_destroy(c);
    }
    xconv_device_close(dev);
}

// Every cuDNN row in each storage type and math mode through the harness (the mode's threshold,
// the reference over the inputs rounded to the storage type): each passes or is n/a with
// cuDNN's reason, and what cudnn_find ran with is the mode's math type (FMA for math=f32).
static void test_cudnn_modes(const xconv_device_info *info)
{
    static const char *const modes[] = {"dtype=f16", "dtype=bf16", "math=tf32",
                                        "dtype=f16,math=f16", "dtype=bf16,math=bf16"};
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open_info(info, &err);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (!dev)
        return;
    xconv_case_options opts;
    xconv_case_options_default(&opts);
    printf("  cuDNN rows in the reduced modes (pass / n/a / FAIL / error):\n");
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        char spec[128];
        snprintf(spec, sizeof spec, "n=2,c=16,h=12,w=12,k=32,r=3,pad=1,%s", modes[m]);
        xconv_problem p;
        CHECK_MSG(xconv_shape_parse(spec, &p, &err) == XCONV_OK, "%s: %s", spec, err.msg);
        xconv_case *c = xconv_case_create(dev, &p, "modes", &opts, &err);
        CHECK_MSG(c != NULL, "%s: %s", spec, err.msg);
        const char *want = p.math == XCONV_MATH_F32 ? "CUDNN_FMA_MATH" : "CUDNN_TENSOR_OP_MATH";
        for (const char *const *algo = xconv_cudnn_algo_names(); c && *algo; algo++) {
            const xconv_variant *v = xconv_variant_find(*algo, &err);
            static xconv_result rec;
            CHECK(v && xconv_case_run(c, v, &rec, &err) == XCONV_OK);
            bool ok = rec.outcome == XCONV_OUTCOME_PASS ||
                      (rec.outcome == XCONV_OUTCOME_NOT_APPLICABLE && rec.note[0]);
            CHECK_MSG(ok, "%s [%s]: %s (%s)", *algo, modes[m],
                      xconv_outcome_name(rec.outcome), rec.note);
            if (rec.outcome == XCONV_OUTCOME_PASS)
                CHECK_MSG(strstr(rec.note, want) != NULL, "%s [%s]: %s", *algo, modes[m],
                          rec.note);
            printf("    %-20s %-28s %-5s err %.2e  %s\n", modes[m], *algo,
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
    xconv_error err = {0};
    void *ctx = NULL;
    xconv_status st = be->open(info->backend_index, &ctx, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    test_programs(ctx);
    test_sgemm(ctx);
    test_cudnn(ctx);
    be->close(ctx);
    test_variants(info);
    test_cudnn_modes(info);
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
