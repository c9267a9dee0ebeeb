// SPDX-License-Identifier: MIT
// Tests the public API as another program sees it (only <xconv/xconv.h>) on the default OpenCL
// CPU device: devices, buffers and their range checks, the registry, plans by name and "auto",
// their steps and regions, prepare's cache, runs against the float64 reference, the host-array
// path, the measuring primitive, SGEMM on raw matrices, and two threads each on a device of its
// own. Skips (77) without a device.
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <xconv/xconv.h>

#include "tests/check.h"

// ---------------------------------------------------------------------------------------------
// Helpers

// Deterministic values in [-1, 1).
static void fill(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

// The largest normalised error of y against the float64 reference of p on (x, w).
static double max_error(const xconv_problem *p, const float *x, const float *w, const float *y)
{
    size_t n = (size_t)xconv_problem_y_elems(p);
    double *ref = malloc(n * sizeof *ref), *norm = malloc(n * sizeof *norm), worst = 0;
    xconv_error err = {0};
    if (xconv_reference_conv(p, x, w, ref, norm, 1, &err) != XCONV_OK)
        worst = INFINITY;
    for (size_t i = 0; i < n && isfinite(worst); i++) {
        double e = fabs(y[i] - ref[i]) / (norm[i] > 0 ? norm[i] : 1);
        worst = e > worst || isnan(e) ? e : worst;
    }
    free(ref);
    free(norm);
    return worst;
}

static xconv_problem shape(const char *spec)
{
    xconv_problem p;
    xconv_error err = {0};
    CHECK_MSG(xconv_shape_parse(spec, &p, &err) == XCONV_OK, "%s", err.msg);
    return p;
}

// ---------------------------------------------------------------------------------------------
// Registry and devices

static void test_registry(void)
{
    int count = xconv_variant_count();
    CHECK(count >= 12);
    CHECK(xconv_variant_at(-1) == NULL && xconv_variant_at(count) == NULL);
    bool seen_naive = false;
    for (int i = 0; i < count; i++) {
        const xconv_variant_info *info = xconv_variant_get_info(xconv_variant_at(i));
        CHECK(info->name && info->family && info->summary && info->accuracy && info->notes);
        seen_naive = seen_naive || strcmp(info->name, "direct_naive") == 0;
    }
    CHECK(seen_naive);
    xconv_error err = {0};
    CHECK(xconv_variant_find("no_such", &err) == NULL && err.status == XCONV_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.msg, "direct_naive");
    const xconv_variant *ref = xconv_variant_find("cpu_ref", &err);
    CHECK(ref && xconv_variant_get_info(ref)->backends == 0);
    xconv_problem p = shape("n=1,c=2,h=5,w=5,k=3,r=3");
    char reason[256];
    CHECK(xconv_variant_applies(ref, NULL, &p, reason, sizeof reason));
    const xconv_variant *naive = xconv_variant_find("direct_naive", &err);
    CHECK(!xconv_variant_applies(naive, NULL, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "needs a device");
}

static void test_devices(xconv_device *dev)
{
    xconv_error err = {0};
    xconv_devices *list = xconv_devices_enumerate(XCONV_BACKENDS_ALL, &err);
    CHECK(list && xconv_devices_count(list) > 0);
    CHECK(xconv_devices_select(list, "no such device at all", &err) < 0);
    CHECK(err.status == XCONV_ERR_NOT_FOUND);
    CHECK(xconv_devices_select(list, "opencl:0", &err) >= 0);
    CHECK(xconv_devices_info_at(list, -1) == NULL);
    CHECK(xconv_devices_info_at(list, xconv_devices_count(list)) == NULL);
    const xconv_device_info *info = xconv_device_get_info(dev);
    char label[320];
    xconv_device_label(info, label, sizeof label);
    CHECK(strncmp(label, "opencl:", 7) == 0);
    CHECK(xconv_device_open("no such device at all", &err) == NULL);
    CHECK_CONTAINS(err.msg, "matches no device");

    CHECK_CONTAINS(err.msg, "opencl:0");  // the valid choices

    // Listing OpenCL alone gives its devices in the same order, the rest "not listed".
    xconv_devices *only =
        xconv_devices_enumerate(XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL), &err);
    int opencl = 0;
    for (int i = 0; i < xconv_devices_count(list); i++)
        opencl += xconv_devices_info_at(list, i)->backend == XCONV_BACKEND_OPENCL;
    CHECK(xconv_devices_count(only) == opencl && opencl > 0);
    const xconv_device_info *a = xconv_devices_info_at(only, 0);
    const xconv_device_info *b = xconv_devices_info_at(list, 0);
    CHECK(a && b && strcmp(a->name, b->name) == 0);
    CHECK(a && b && a->preferred_multiple == b->preferred_multiple);
    char reason[512];
    CHECK(xconv_devices_backend_status(only, XCONV_BACKEND_CUDA, reason, sizeof reason) ==
          XCONV_ERR_UNAVAILABLE);
    CHECK(strcmp(reason, "not listed") == 0);
    CHECK(xconv_devices_backend_status(only, XCONV_BACKEND_OPENCL, reason, sizeof reason) ==
          XCONV_OK);
    CHECK(xconv_devices_select(only, "opencl:0", &err) == 0);
    xconv_devices_free(only);
    only = xconv_devices_enumerate(0, &err);
    CHECK(only && xconv_devices_count(only) == 0);
    xconv_devices_free(only);
    xconv_devices_free(list);
}

// ---------------------------------------------------------------------------------------------
// Buffers

static void test_buffers(xconv_device *dev)
{
    xconv_error err = {0};
    float in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    xconv_buffer *b = xconv_buffer_create(dev, sizeof in, &err);
    CHECK(b && xconv_buffer_size(b) == sizeof in);
    CHECK(xconv_buffer_upload(b, 0, sizeof in, in, &err) == XCONV_OK);
    CHECK(xconv_buffer_download(b, 8, 8, out, &err) == XCONV_OK && out[0] == 3 && out[1] == 4);
    CHECK(xconv_buffer_download(b, 4, sizeof in, out, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "passes the buffer");
    CHECK(xconv_buffer_fill_f32(b, 9, 0.0f, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_buffer_fill_f32(b, 8, -2.0f, &err) == XCONV_OK);
    CHECK(xconv_device_wait(dev, &err) == XCONV_OK);
    CHECK(xconv_buffer_download(b, 28, 4, out, &err) == XCONV_OK && out[0] == -2.0f);
    xconv_buffer_destroy(b);
    const xconv_device_info *info = xconv_device_get_info(dev);
    CHECK(xconv_buffer_create(dev, (size_t)info->max_alloc_bytes + 1, &err) == NULL);
    CHECK(err.status == XCONV_ERR_OUT_OF_MEMORY);
    CHECK(xconv_buffer_create(dev, 64, &err) != NULL);  // left for close to free
}

// ---------------------------------------------------------------------------------------------
// Plans

// Plans `variant` for p, runs it on buffers and checks y against the reference.
static void check_plan_run(xconv_device *dev, const char *spec, const char *variant)
{
    xconv_problem p = shape(spec);
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, &p, variant, NULL, &err);
    CHECK_MSG(plan != NULL, "%s %s: %s", variant, spec, err.msg);
    if (!plan)
        return;
    CHECK(xconv_plan_summary(plan)[0] != '\0' && xconv_plan_step_count(plan) >= 1);
    double ms = -1;
    CHECK(xconv_plan_prepare(plan, &ms, &err) == XCONV_OK && ms >= 0);
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p), ws = xconv_plan_workspace_size(plan);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4);
    fill(x, xn, 1);
    fill(w, wn, 2);
    xconv_tensors t = {.x = xconv_buffer_create(dev, xn * 4, &err),
                       .w = xconv_buffer_create(dev, wn * 4, &err),
                       .y = xconv_buffer_create(dev, yn * 4, &err),
                       .workspace = ws ? xconv_buffer_create(dev, ws, &err) : NULL};
    CHECK(xconv_buffer_upload(t.x, 0, xn * 4, x, &err) == XCONV_OK);
    CHECK(xconv_buffer_upload(t.w, 0, wn * 4, w, &err) == XCONV_OK);
    CHECK(xconv_buffer_fill_f32(t.y, yn, NAN, &err) == XCONV_OK);
    CHECK_MSG(xconv_plan_run(plan, &t, &err) == XCONV_OK, "%s", err.msg);
    CHECK(xconv_device_wait(dev, &err) == XCONV_OK);
    CHECK(xconv_buffer_download(t.y, 0, yn * 4, y, &err) == XCONV_OK);
    double e = max_error(&p, x, w, y);
    CHECK_MSG(e <= 1e-5, "%s %s: error %g", variant, spec, e);
    // A second prepare builds nothing: the device's cache has every program.
    CHECK(xconv_plan_prepare(plan, &ms, &err) == XCONV_OK && ms == 0);
    xconv_tensors small = t;
    small.y = xconv_buffer_create(dev, 4, &err);  // too small for y
    CHECK(xconv_plan_run(plan, &small, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "the y buffer holds 4 bytes");
    xconv_buffer_destroy(small.y);
    xconv_buffer_destroy(t.x);
    xconv_buffer_destroy(t.w);
    xconv_buffer_destroy(t.y);
    xconv_buffer_destroy(t.workspace);
    xconv_plan_destroy(plan);
    free(x);
    free(w);
    free(y);
}

static void test_plans(xconv_device *dev)
{
    check_plan_run(dev, "n=2,c=3,h=9,w=11,k=4,r=3,pad=1", "direct_naive");
    check_plan_run(dev, "n=2,c=8,h=12,w=12,k=8,r=3,stride=2,pad=1", "auto");
    check_plan_run(dev, "n=3,c=6,h=7,w=7,k=5,r=3", "im2col_gemm");
    check_plan_run(dev, "n=2,c=8,h=9,w=9,k=8,r=3,pad=1", "implicit_precomp");
    check_plan_run(dev, "n=2,c=8,h=6,w=6,k=4,r=1", "auto");

    xconv_error err = {0};
    xconv_problem p = shape("n=2,c=8,h=6,w=6,k=4,r=1");
    // The rule (host/plan/variant_auto.c): on a CPU direct_const, 1x1 problems too; on a GPU
    // gemm_1x1 for 1x1 and direct_regblock for a product this small.
    bool cpu = xconv_device_get_info(dev)->is_cpu;
    xconv_plan *plan = xconv_plan_create(dev, &p, "auto", NULL, &err);
    CHECK(plan && strcmp(xconv_variant_get_info(xconv_plan_variant(plan))->name,
                         cpu ? "direct_const" : "gemm_1x1") == 0);
    xconv_plan_destroy(plan);
    p = shape("n=2,c=8,h=9,w=9,k=8,r=3,pad=1");
    const char *want = cpu ? "direct_const" : "direct_regblock";
    plan = xconv_plan_create(dev, &p, "auto", NULL, &err);
    CHECK(plan && strcmp(xconv_variant_get_info(xconv_plan_variant(plan))->name, want) == 0);
    xconv_plan_step_info info;
    CHECK(plan && xconv_plan_step_get_info(plan, 0, &info, &err) == XCONV_OK);
    char options[1024];
    CHECK(plan && strcmp(info.source, want) == 0 &&
          xconv_plan_step_options(plan, 0, options, sizeof options) > 0 &&
          strstr(options, "-DXC_N=2") && !strstr(options, "XC_N_RUNTIME"));
    xconv_plan_destroy(plan);
    plan = xconv_plan_create(dev, &p, "im2col_gemm", NULL, &err);
    const char *name = NULL;
    size_t offset = 1, bytes = 0;
    CHECK(plan && xconv_plan_region_count(plan) == 1);
    CHECK(plan && xconv_plan_region_get(plan, 0, &name, &offset, &bytes) == XCONV_OK);
    CHECK(plan && offset == 0 && bytes == xconv_plan_workspace_size(plan) && name[0]);
    xconv_plan_destroy(plan);
    // Planning options: a forced field out of its range is refused by name, by every variant;
    // one in range that does not fit by the variant it forces.
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.direct_tiling[1] = (xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_TILED, 1, 2, 1, 1,
                                                         0, 1, 0, 0, 0, 3};
    CHECK(xconv_plan_create(dev, &p, "direct_naive", &opts, &err) == NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "direct_tiling[1].vec_q");
    opts.direct_tiling[1].vec_q = 0;
    opts.direct_tiling[0] = opts.direct_tiling[1];  // two entries for one kernel
    CHECK(xconv_plan_create(dev, &p, "direct_naive", &opts, &err) == NULL);
    CHECK_CONTAINS(err.msg, "direct_tiling[1].kernel");
    xconv_plan_options_default(&opts);
    opts.direct_tiling[3].wg_h = 2;  // a field of an unused entry
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "direct_tiling[3].kernel");
    xconv_plan_options_default(&opts);
    opts.gemm_tiles = (xconv_forced_gemm_tiles){32, 32, 16, 4, 4, 4, -4, 0};
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "gemm_tiles.pad");
    xconv_plan_options_default(&opts);
    opts.winograd_fused = (xconv_forced_wino_block){16, 8, 4, 4, 2, 4};
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "winograd_fused.vec");
    opts.winograd_fused.vec = 0;
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_OK);
    xconv_plan_options_default(&opts);
    opts.direct_tiling[2] = (xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_TILED, 8192, 1, 1,
                                                         1, 0, 1, 0, 0, 0, 0};
    CHECK(xconv_plan_create(dev, &p, "direct_tiled", &opts, &err) == NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "does not fit");
    xconv_plan *naive = xconv_plan_create(dev, &p, "direct_naive", &opts, &err);
    CHECK_MSG(naive != NULL, "%s", err.msg);  // another kernel's tiling leaves it alone
    xconv_plan_destroy(naive);
    // A find-db's tuning text read into the typed fields.
    xconv_plan_options_default(&opts);
    xconv_tuning tuning = {.direct_tiling = "direct_regblock:32,1,4,1,3,1,1,0,2;"
                                            "direct_const:16,2,1,2,0,1,0,0",
                           .gemm_tiles = "64,32,16,4,4,1"};
    CHECK(xconv_tuning_apply(&tuning, &opts, &err) == XCONV_OK);
    CHECK(opts.direct_tiling[0].kernel == XCONV_DIRECT_KERNEL_REGBLOCK &&
          opts.direct_tiling[0].block_k == 3 && opts.direct_tiling[0].repeat == 2 &&
          opts.direct_tiling[0].vec_q == 0);
    CHECK(opts.direct_tiling[1].kernel == XCONV_DIRECT_KERNEL_CONST &&
          opts.direct_tiling[1].wg_w == 16 && opts.direct_tiling[1].block_h == 2);
    CHECK(opts.gemm_tiles.tm == 64 && opts.gemm_tiles.vw == 1 && opts.gemm_tiles.pad == 1 &&
          opts.gemm_tiles.split == 0);
    xconv_plan_options before = opts;
    snprintf(tuning.gemm_tiles, sizeof tuning.gemm_tiles, "64,32");
    CHECK(xconv_tuning_apply(&tuning, &opts, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "'64,32'");
    CHECK(memcmp(&before, &opts, sizeof opts) == 0);  // unchanged
    snprintf(tuning.gemm_tiles, sizeof tuning.gemm_tiles, "64,32,16,4,4,1");
    snprintf(tuning.math, sizeof tuning.math, "f16");  // only "f32" (or "") is a tuning's math
    CHECK(xconv_tuning_apply(&tuning, &opts, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "'f16'");
    snprintf(tuning.math, sizeof tuning.math, "f32");
    CHECK(xconv_tuning_apply(&tuning, &opts, &err) == XCONV_OK && opts.fp32_math == 1);
    // fp32_math: a variant that computes only strict fp32 plans a tf32 problem in fp32 math
    // and says so; without it the problem's math mode refuses it.
    xconv_problem tf32 = p;
    tf32.math = XCONV_MATH_TF32;
    xconv_plan_options_default(&opts);
    CHECK(xconv_plan_create(dev, &tf32, "direct_naive", &opts, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "math=tf32");
    opts.fp32_math = 1;
    xconv_plan *widened = xconv_plan_create(dev, &tf32, "direct_naive", &opts, &err);
    CHECK_MSG(widened && strstr(xconv_plan_summary(widened), "in fp32 math") != NULL, "%s",
              widened ? xconv_plan_summary(widened) : err.msg);
    xconv_plan_destroy(widened);
    opts.fp32_math = 2;
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "fp32_math");
    CHECK(xconv_plan_create(dev, &p, "gemm_1x1", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_APPLICABLE);
    CHECK(xconv_plan_create(dev, &p, "cpu_ref", NULL, &err) == NULL);
    CHECK_CONTAINS(err.msg, "runs on the host");
    p.groups = 3;
    CHECK(xconv_plan_create(dev, &p, "auto", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    xconv_plan_destroy(NULL);
}

// The host-array path, on a device and on the host.
static void test_convolve(xconv_device *dev)
{
    xconv_problem p = shape("n=2,c=4,h=10,w=8,k=6,r=3,s=2,pad=1");
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4), *h = malloc(yn * 4);
    fill(x, xn, 3);
    fill(w, wn, 4);
    xconv_error err = {0};
    CHECK(xconv_convolve(dev, &p, "auto", x, w, y, &err) == XCONV_OK);
    CHECK(max_error(&p, x, w, y) <= 1e-5);
    CHECK(xconv_convolve(NULL, &p, "cpu_ref", x, w, h, &err) == XCONV_OK);
    CHECK(max_error(&p, x, w, h) <= 1e-5);
    CHECK(xconv_convolve(NULL, &p, "direct_naive", x, w, h, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "direct_naive runs on a device");
    // A host variant's plan: made with no device, checked there, run on the host.
    xconv_plan *plan = xconv_plan_create(NULL, &p, "cpu_ref", NULL, &err);
    CHECK(plan != NULL && xconv_plan_step_count(plan) == 0);
    CHECK(strcmp(xconv_variant_get_info(xconv_plan_variant(plan))->name, "cpu_ref") == 0);
    memset(h, 0, yn * 4);
    CHECK(xconv_plan_forward(plan, x, w, NULL, h, &err) == XCONV_OK);
    CHECK(max_error(&p, x, w, h) <= 1e-5);
    CHECK(xconv_plan_prepare(plan, NULL, &err) == XCONV_ERR_INVALID);  // nothing to build
    xconv_plan_destroy(plan);
    xconv_problem bad = p;
    bad.groups = 3;  // 3 does not divide c=4: refused by the plan's check
    CHECK(xconv_plan_create(NULL, &bad, "cpu_ref", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    CHECK(xconv_plan_create(NULL, &p, "auto", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_FOUND);
    CHECK(xconv_convolve(dev, &p, "no_such", x, w, y, &err) == XCONV_ERR_NOT_FOUND);
    free(x);
    free(w);
    free(y);
    free(h);
}

// ---------------------------------------------------------------------------------------------
// Measuring and SGEMM

typedef struct gemm_run {
    xconv_gemm *g;
    xconv_buffer *a, *b, *c;
    int runs;
} gemm_run;

static xconv_status enqueue_gemm(void *user, int run, xconv_error *err)
{
    gemm_run *r = user;
    CHECK(run == r->runs);
    r->runs++;
    return xconv_gemm_run(r->g, r->a, r->b, r->c, err);
}

static void test_gemm(xconv_device *dev)
{
    enum { M = 37, N = 29, K = 19 };
    xconv_error err = {0};
    float a[M * K], b[K * N], c[M * N];
    fill(a, M * K, 5);
    fill(b, K * N, 6);
    gemm_run r = {.a = xconv_buffer_create(dev, sizeof a, &err),
                  .b = xconv_buffer_create(dev, sizeof b, &err),
                  .c = xconv_buffer_create(dev, sizeof c, &err)};
    CHECK(xconv_buffer_upload(r.a, 0, sizeof a, a, &err) == XCONV_OK);
    CHECK(xconv_buffer_upload(r.b, 0, sizeof b, b, &err) == XCONV_OK);
    for (int which = 0; which < 2; which++) {
        r.g = xconv_gemm_create(dev, M, N, K, which ? "vendor" : "xconv", NULL, &err);
        CHECK_MSG(r.g != NULL, "%s", err.msg);
        if (!r.g)
            continue;
        CHECK(strstr(xconv_gemm_summary(r.g), "SGEMM") != NULL);
        CHECK(xconv_buffer_fill_f32(r.c, M * N, NAN, &err) == XCONV_OK);
        xconv_timing t;
        double samples[3];
        r.runs = 0;
        CHECK(xconv_device_measure(dev, enqueue_gemm, &r, 2, 3, &t, samples, &err) == XCONV_OK);
        CHECK(r.runs == 5 && t.repeat == 3 && t.warmup == 2);
        CHECK(t.min_ms > 0 && t.min_ms <= t.median_ms && t.median_ms <= t.max_ms);
        CHECK(xconv_buffer_download(r.c, 0, sizeof c, c, &err) == XCONV_OK);
        int bad = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0, mag = 0;
                for (int l = 0; l < K; l++) {
                    acc += (double)a[i * K + l] * b[l * N + j];
                    mag += fabs((double)a[i * K + l] * b[l * N + j]);
                }
                bad += !(fabs(c[i * N + j] - acc) <= 1e-5 * mag);
            }
        CHECK_MSG(bad == 0, "%s SGEMM: %d wrong", which ? "vendor" : "our", bad);
        xconv_gemm_destroy(r.g);
    }
    CHECK(xconv_gemm_create(dev, M, N, K, "cublas", NULL, &err) == NULL);
    CHECK(xconv_gemm_create(dev, 0, N, K, "xconv", NULL, &err) == NULL);
    xconv_buffer_destroy(r.a);
    xconv_buffer_destroy(r.b);
    xconv_buffer_destroy(r.c);
}

// ---------------------------------------------------------------------------------------------
// Threads

// Opens its own device and runs a few convolutions on it; returns the worst error as a double*.
static void *thread_main(void *arg)
{
    static const char *const variants[] = {"direct_tiled", "implicit_gemm", "auto"};
    double *worst = arg;
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open("opencl:0", &err);
    *worst = dev ? 0 : INFINITY;
    xconv_problem p = shape("n=2,c=5,h=11,w=9,k=7,r=3,pad=1");
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4);
    fill(x, xn, 7);
    fill(w, wn, 8);
    for (int i = 0; dev && i < 3; i++) {
        double e = xconv_convolve(dev, &p, variants[i], x, w, y, &err) == XCONV_OK
                       ? max_error(&p, x, w, y)
                       : INFINITY;
        *worst = e > *worst || isnan(e) ? e : *worst;
    }
    xconv_device_close(dev);
    free(x);
    free(w);
    free(y);
    return NULL;
}

// The contract beyond NULL arguments: a success leaves no stale message, a failure writes no
// output, and a buffer of another device is refused by name.
static void test_contract(xconv_device *dev)
{
    xconv_error err = {0};
    xconv_problem p = shape("n=1,c=2,h=6,w=6,k=2,r=3");
    CHECK(xconv_plan_create(dev, &p, "no such variant", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_FOUND);
    xconv_plan *plan = xconv_plan_create(dev, &p, "auto", NULL, &err);
    CHECK(plan != NULL);
    CHECK(err.status == XCONV_OK && err.msg[0] == '\0');
    float x[72] = {1}, w[36] = {1}, y[32];
    for (int i = 0; i < 32; i++)
        y[i] = -7.0f;
    CHECK(xconv_convolve(dev, &p, "auto", NULL, w, y, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "x is NULL");
    CHECK(xconv_convolve(dev, &p, "auto", x, NULL, y, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "w is NULL");
    CHECK(y[0] == -7.0f && y[31] == -7.0f);  // nothing written
    CHECK(xconv_convolve(dev, &p, "auto", x, w, y, &err) == XCONV_OK);
    CHECK(err.status == XCONV_OK && err.msg[0] == '\0' && y[0] == 1.0f);
    xconv_device *other = xconv_device_open("opencl:0", &err);
    CHECK(other != NULL);
    xconv_buffer *bx = xconv_buffer_create(other, sizeof x, &err);
    xconv_buffer *bw = xconv_buffer_create(dev, sizeof w, &err);
    xconv_buffer *by = xconv_buffer_create(dev, sizeof y, &err);
    xconv_tensors t = {.x = bx, .w = bw, .y = by};
    CHECK(xconv_plan_run(plan, &t, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "x buffer belongs to another device");
    CHECK(xconv_buffer_upload(by, 0, 4, NULL, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "src is NULL");
    xconv_buffer_destroy(bw);
    xconv_buffer_destroy(by);
    xconv_plan_destroy(plan);
    xconv_device_close(other);  // frees bx
}

static void test_threads(void)
{
    pthread_t tids[2];
    double worst[2] = {INFINITY, INFINITY};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&tids[i], NULL, thread_main, &worst[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(tids[i], NULL);
    CHECK_MSG(worst[0] <= 1e-5 && worst[1] <= 1e-5, "threads: errors %g and %g", worst[0],
              worst[1]);
}

int main(void)
{
    test_registry();
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open("opencl:0", &err);
    if (!dev) {
        printf("SKIP: no OpenCL device (%s)\n", err.msg);
        return CHECK_SKIP_CODE;
    }
    test_devices(dev);
    test_buffers(dev);
    test_plans(dev);
    test_convolve(dev);
    test_gemm(dev);
    test_contract(dev);
    xconv_device_close(dev);
    test_threads();
    return check_summary("test_api");
}
