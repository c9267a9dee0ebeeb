// SPDX-License-Identifier: MIT
// The GEMM family's plans run on an OpenCL device against float64: a chunked im2col_gemm (split-K
// in every pass), split-K bitwise the same run after run, and GPU-sized tiles, forced through the
// planning options, on odd sizes and on raw matrices through the public GEMM calls. Skips (77)
// without an OpenCL device.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../host/families/gemm/plan_gemm.h"
#include "tests/check.h"
#include "tests/gemm_fixtures.h"
#include "measure/check.h"
#include "../host/plan/variant.h"

// ---------------------------------------------------------------------------------------------
// Running on a device

// Opens the default OpenCL device, or returns NULL (the run tests are then skipped).
static xconv_device *open_device(void)
{
    xconv_error err = {0};
    return xconv_device_open("opencl:0", &err);
}

// Runs variant `name` for spec on dev under opts and checks every element against float64.
static void check_variant_run(xconv_device *dev, const char *name, const char *spec,
                              const xconv_plan_options *opts)
{
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse(spec, &p, &err) == XCONV_OK);
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * sizeof *x), *w = malloc(wn * sizeof *w), *y = malloc(yn * sizeof *y);
    double *ref = malloc(yn * sizeof *ref), *norm = malloc(yn * sizeof *norm);
    CHECK(x && w && y && ref && norm);
    if (x && w && y && ref && norm) {
        xconv_random_fill(x, xn, 7, 1);
        xconv_random_fill(w, wn, 7, 2);
        xconv_status st = xconv_forward(dev, &p, name, opts, x, w, NULL, y, &err);
        CHECK_MSG(st == XCONV_OK, "%s %s: %s", name, spec, err.msg);
        CHECK(xconv_reference_conv(&p, x, w, ref, norm, 0, &err) == XCONV_OK);
        xconv_compare_result res;
        xconv_compare_full(y, ref, norm, (int64_t)yn, &res);
        CHECK_MSG(st != XCONV_OK || (res.nonfinite == 0 && res.max_norm_err <= 1e-5),
                  "%s %s: %lld non-finite, error %.3g", name, spec, (long long)res.nonfinite,
                  res.max_norm_err);
    }
    free(x), free(w), free(y), free(ref), free(norm);
}

// im2col_gemm over 5 images, 2 a pass (the last pass partial), against float64.
static void test_chunked_run(xconv_device *dev)
{
    const char *spec = "n=5,c=3,h=13,w=11,k=7,r=3,stride=2,pad=1";
    uint64_t saved = dev->info.max_alloc_bytes;
    size_t image_bytes = 3 * 9 * 7 * 6 * sizeof(float);
    dev->info.max_alloc_bytes = 2 * image_bytes + 100;  // x (8580 bytes) still fits
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse(spec, &p, &err) == XCONV_OK);
    xconv_plan *plan = xconv_plan_create(dev, &p, "im2col_gemm", NULL, &err);
    CHECK_MSG(plan && steps_of(plan, "im2col") == 3, "%d steps", plan ? plan->nsteps : 0);
    xconv_plan_destroy(plan);
    check_variant_run(dev, "im2col_gemm", spec, NULL);
    dev->info.max_alloc_bytes = saved;
    // Split-K in every pass: the partials region is reused, each pass reduces its own images.
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.batch_chunk = 2;
    opts.gemm_split_k = 2;
    check_variant_run(dev, "im2col_gemm", "n=5,c=8,h=13,w=11,k=7,r=3,stride=2,pad=1", &opts);
}

// A split-K plan gives bitwise the same y run after run (the reduce adds slices in order).
static void test_split_deterministic(xconv_device *dev)
{
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=2,c=40,h=9,w=9,k=24,r=3,pad=1", &p, &err) == XCONV_OK);
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y0 = malloc(yn * 4), *y1 = malloc(yn * 4);
    xconv_random_fill(x, xn, 11, 1);
    xconv_random_fill(w, wn, 11, 2);
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.gemm_split_k = 4;
    for (size_t v = 0; v < 3; v++) {  // gemm_1x1 does not apply to a 3x3 filter
        CHECK(xconv_forward(dev, &p, gemm_names[v], &opts, x, w, NULL, y0, &err) == XCONV_OK);
        CHECK(xconv_forward(dev, &p, gemm_names[v], &opts, x, w, NULL, y1, &err) == XCONV_OK);
        CHECK_MSG(memcmp(y0, y1, yn * 4) == 0, "%s split 4: two runs differ", gemm_names[v]);
    }
    free(x), free(w), free(y0), free(y1);
}

// Our SGEMM on raw odd-sized matrices against float64, through the public GEMM calls.
static void check_sgemm_run(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                            const xconv_plan_options *opts)
{
    xconv_error err = {0};
    xconv_gemm *g = xconv_gemm_create(dev, m, n, k, "xconv", opts, &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    if (!g)
        return;
    xconv_problem p = xconv_sgemm_problem(m, n, k);  // C = A*B as a 1x1 convolution
    size_t an = (size_t)(m * k), bn = (size_t)(k * n), cn = (size_t)(m * n);
    float *a = malloc(an * 4), *b = malloc(bn * 4), *c = malloc(cn * 4);
    double *ref = malloc(cn * 8), *norm = malloc(cn * 8);
    xconv_buffer *da = xconv_buffer_create(dev, an * 4, &err);
    xconv_buffer *db = xconv_buffer_create(dev, bn * 4, &err);
    xconv_buffer *dc = xconv_buffer_create(dev, cn * 4, &err);
    xconv_random_fill(a, an, 3, 2);
    xconv_random_fill(b, bn, 3, 1);
    xconv_status st = da && db && dc ? XCONV_OK : err.status;
    st = st ? st : xconv_buffer_upload(da, 0, an * 4, a, &err);
    st = st ? st : xconv_buffer_upload(db, 0, bn * 4, b, &err);
    st = st ? st : xconv_buffer_fill_f32(dc, cn, NAN, &err);
    st = st ? st : xconv_gemm_run(g, da, db, dc, &err);
    st = st ? st : xconv_buffer_download(dc, 0, cn * 4, c, &err);
    CHECK_MSG(st == XCONV_OK, "sgemm %lldx%lldx%lld: %s", (long long)m, (long long)n,
              (long long)k, err.msg);
    CHECK(xconv_reference_conv(&p, b, a, ref, norm, 0, &err) == XCONV_OK);
    xconv_compare_result res;
    xconv_compare_full(c, ref, norm, (int64_t)cn, &res);
    CHECK_MSG(res.nonfinite == 0 && res.max_norm_err <= 1e-5,
              "sgemm %lldx%lldx%lld (%s): %lld non-finite, error %.3g", (long long)m,
              (long long)n, (long long)k, xconv_gemm_summary(g), (long long)res.nonfinite,
              res.max_norm_err);
    int forced = opts ? xconv_gemm_forced_split(opts) : 0;
    if (forced > 1 && (k + 15) / 16 > 1)  // K steps to split: the summary says so
        CHECK_MSG(strstr(xconv_gemm_summary(g), "split-K") != NULL, "sgemm %lldx%lldx%lld: %s",
                  (long long)m, (long long)n, (long long)k, xconv_gemm_summary(g));
    // A matrix buffer too small for the product is refused before anything runs.
    CHECK(xconv_gemm_run(g, dc, db, da, &err) == XCONV_ERR_INVALID);
    xconv_buffer_destroy(da), xconv_buffer_destroy(db), xconv_buffer_destroy(dc);
    xconv_gemm_destroy(g);
    free(a), free(b), free(c), free(ref), free(norm);
}

// The GPU's large tiles (forced through the planning options) on sizes that are not multiples
// of them, and the edge shapes every variant must handle; the small-output tiles with split-K
// forced (3 slices of K steps that do not divide K, and 5 of 8-steps over K's of 1 to 5 steps).
static void test_runs(xconv_device *dev)
{
    static const char *const tiles[] = {NULL, "128,128,16,8,8", "64,128,8,8,8", "16,64,16,4,4",
                                        "32,32,16,4,4,1", "64,32,16,4,4,4,4,3",
                                        "32,64,8,4,8,4,4,5"};
    static const char *const specs[] = {
        "n=3,c=5,h=31,w=17,k=7,r=4,s=2,stride_h=2,stride_w=3,pad_h=2,pad_w=1,dil_h=2,dil_w=1",
        "n=2,c=16,h=20,w=20,k=16,r=3,groups=16,pad=1",
        "n=1,c=3,h=33,w=65,k=129,r=3",
        "n=2,c=67,h=9,w=13,k=33,r=1",
    };
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
        opts.gemm_tiles = tiles_text(tiles[t]);
        check_sgemm_run(dev, 131, 67, 45, &opts);
        check_sgemm_run(dev, 64, 128, 32, &opts);
        for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
            for (size_t v = 0; v < sizeof gemm_names / sizeof gemm_names[0]; v++)
                if (v != 3 || s == 3)
                    check_variant_run(dev, gemm_names[v], specs[s], &opts);
    }
}

int main(void)
{
    xconv_device *dev = open_device();
    if (!dev) {
        printf("no OpenCL device: run tests skipped\n");
        return CHECK_SKIP_CODE;
    }
    test_chunked_run(dev);
    test_split_deterministic(dev);
    test_runs(dev);
    xconv_device_close(dev);
    return check_summary("test_plan_gemm_runs");
}
