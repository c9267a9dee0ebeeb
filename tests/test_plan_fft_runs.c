// SPDX-License-Identifier: MIT
// The FFT family's plans run on an OpenCL device: forced tiles and chunks against float64 over
// their error block, the same bits whatever the chunk or planes a work-group, and the transforms
// on raw planes (xconv_fft2d) against a float64 DFT. Skips (77) without an OpenCL device.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/families/fft/plan_fft.h"
#include "tests/check.h"
#include "tests/fft_fixtures.h"
#include "measure/check.h"
#include "../host/plan/variant.h"

// ---------------------------------------------------------------------------------------------
// Running on a device: forced tiles and chunks against float64 over their error block

// Opens the first OpenCL device, or returns NULL (the run tests are then skipped).
static xconv_device *open_device(void)
{
    xconv_error err = {0};
    return xconv_device_open("opencl:0", &err);
}

// The inputs, output and float64 reference of one problem.
typedef struct run_case {
    xconv_problem p;
    float *x, *w, *y;
    double *ref, *norm, *block;
    size_t yn;
} run_case;

static bool case_init(run_case *rc, const char *spec)
{
    memset(rc, 0, sizeof *rc);
    rc->p = parse(spec);
    size_t xn = (size_t)xconv_problem_x_elems(&rc->p), wn = (size_t)xconv_problem_w_elems(&rc->p);
    rc->yn = (size_t)xconv_problem_y_elems(&rc->p);
    rc->x = malloc(xn * 4), rc->w = malloc(wn * 4), rc->y = malloc(rc->yn * 4);
    rc->ref = malloc(rc->yn * 8), rc->norm = malloc(rc->yn * 8), rc->block = malloc(rc->yn * 8);
    xconv_error err = {0};
    if (!rc->x || !rc->w || !rc->y || !rc->ref || !rc->norm || !rc->block)
        return false;
    xconv_random_fill(rc->x, xn, 11, 1);
    xconv_random_fill(rc->w, wn, 11, 2);
    return xconv_reference_conv(&rc->p, rc->x, rc->w, rc->ref, rc->norm, 0, &err) == XCONV_OK;
}

static void case_free(run_case *rc)
{
    free(rc->x), free(rc->w), free(rc->y), free(rc->ref), free(rc->norm), free(rc->block);
}

// Runs `name` on rc under opts and checks y against float64 over the plan's error block, with
// the variant's threshold; returns false when it did not run.
static bool check_run(xconv_device *dev, run_case *rc, const char *name,
                      const xconv_plan_options *opts, const char *what)
{
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, &rc->p, name, opts, &err);
    CHECK_MSG(plan != NULL, "%s %s: %s", name, what, err.msg);
    if (!plan)
        return false;
    int64_t bh, bw;
    xconv_plan_error_block(plan, &bh, &bw);
    xconv_status st = xconv_plan_forward(plan, rc->x, rc->w, NULL, rc->y, &err);
    xconv_plan_destroy(plan);
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", name, what, err.msg);
    if (st != XCONV_OK)
        return false;
    xconv_block_scale_f64(&rc->p, bh, bw, rc->norm, rc->block);
    xconv_compare_result res;
    xconv_compare_full(rc->y, rc->ref, rc->block, (int64_t)rc->yn, &res);
    const xconv_variant *v = xconv_variant_find(name, &err);
    double limit = xconv_threshold_for_variant(xconv_variant_get_info(v));
    CHECK_MSG(res.nonfinite == 0 && res.max_norm_err <= limit,
              "%s %s: %lld non-finite, error %.3g over %lldx%lld blocks (threshold %.1g)", name,
              what, (long long)res.nonfinite, res.max_norm_err, (long long)bh, (long long)bw,
              limit);
    return true;
}

// Forced tiles (square, not square, with partial tiles at the edges, on grouped filters and
// even filter sizes) and forced whole-image sizes against float64.
static void test_forced_runs(xconv_device *dev)
{
    static const struct {
        const char *name, *spec;
        int tile_h, tile_w;
    } cases[] = {
        {"fft_tiled", "n=3,c=5,h=19,w=23,k=6,r=3,s=5,pad_h=1,pad_w=2", 8, 12},
        {"fft_tiled", "n=2,c=8,h=20,w=20,k=12,r=4,pad=1,groups=4", 16, 16},
        {"fft_tiled", "n=2,c=3,h=30,w=17,k=4,r=5,pad=2", 27, 10},
        {"fft", "n=2,c=3,h=20,w=24,k=5,r=5,pad=2", 27, 32},
        {"fft", "n=1,c=2,h=9,w=7,k=3,r=2,s=3", 10, 15},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case rc;
        xconv_plan_options o = forced(cases[i].tile_h, cases[i].tile_w, 0);
        char what[256];
        snprintf(what, sizeof what, "%s with %dx%d transforms", cases[i].spec, cases[i].tile_h,
                 cases[i].tile_w);
        if (case_init(&rc, cases[i].spec))
            check_run(dev, &rc, cases[i].name, &o, what);
        else
            CHECK_MSG(false, "no host memory for %s", cases[i].spec);
        case_free(&rc);
    }
}

// Passes of 4, 2 and 1 image(s), the last one shorter, against float64; passes of an even
// number of spectrum columns give the same bits as one pass.
static void test_chunked_runs(xconv_device *dev)
{
    static const char *const names[] = {"fft", "fft_tiled"};
    for (int v = 0; v < 2; v++) {
        run_case rc;
        if (!case_init(&rc, "n=5,c=3,h=14,w=13,k=4,r=3,pad=1")) {
            CHECK_MSG(false, "no host memory");
            case_free(&rc);
            continue;
        }
        float *whole = malloc(rc.yn * 4);
        xconv_plan_options o = forced(v ? 8 : 0, v ? 8 : 0, 0);
        bool ran = whole && check_run(dev, &rc, names[v], &o, "in one pass");
        if (ran)
            memcpy(whole, rc.y, rc.yn * 4);
        static const int64_t chunks[] = {4, 2, 1};
        for (int i = 0; ran && i < 3; i++) {
            o.fft_chunk = chunks[i];
            char what[64];
            snprintf(what, sizeof what, "in passes of %lld image(s)", (long long)chunks[i]);
            if (check_run(dev, &rc, names[v], &o, what) && chunks[i] > 1)
                CHECK_MSG(memcmp(whole, rc.y, rc.yn * 4) == 0,
                          "%s %s: not the bits of one pass", names[v], what);
        }
        free(whole);
        case_free(&rc);
    }
}

// Two, four and eight planes a work-group give the same bits (each pair's transform is the
// same arithmetic whichever work-group holds it), with a last work-group of fewer columns.
static void test_planes_runs(xconv_device *dev)
{
    static const char *const names[] = {"fft", "fft_tiled"};
    for (int v = 0; v < 2; v++) {
        run_case rc;
        if (!case_init(&rc, "n=3,c=5,h=14,w=13,k=6,r=3,s=4,pad=1")) {
            CHECK_MSG(false, "no host memory");
            case_free(&rc);
            continue;
        }
        float *two = malloc(rc.yn * 4);
        xconv_plan_options o = forced(v ? 8 : 0, v ? 8 : 0, 0);
        o.fft_planes = 2;
        bool ran = two && check_run(dev, &rc, names[v], &o, "with 2 planes a work-group");
        if (ran)
            memcpy(two, rc.y, rc.yn * 4);
        for (int planes = 4; ran && planes <= 8; planes *= 2) {
            o.fft_planes = planes;
            char what[64];
            snprintf(what, sizeof what, "with %d planes a work-group", planes);
            if (check_run(dev, &rc, names[v], &o, what))
                CHECK_MSG(memcmp(two, rc.y, rc.yn * 4) == 0, "%s %s: not the bits of 2 planes",
                          names[v], what);
        }
        free(two);
        case_free(&rc);
    }
}

// The transforms on raw planes (xconv_fft2d): the forward against a float64 DFT, the inverse
// of the forward as lh * lw times the planes, for radices 4, 3, 5 and 2 and an odd batch.
static void test_planes(xconv_device *dev)
{
    const int64_t lh = 12, lw = 10, batch = 3;
    xconv_error err = {0};
    xconv_fft2d *f = xconv_fft2d_create(dev, lh, lw, batch, NULL, &err);
    CHECK_MSG(f != NULL, "%s", err.msg);
    if (!f)
        return;
    size_t pn = xconv_fft2d_planes_bytes(f) / 4, sn = xconv_fft2d_spectra_bytes(f) / 4;
    CHECK(pn == (size_t)(batch * lh * lw) && sn == (size_t)(batch * lh * (lw / 2 + 1) * 2));
    float *x = malloc(pn * 4), *spec = malloc(sn * 4), *back = malloc(pn * 4);
    xconv_buffer *dx = xconv_buffer_create(dev, pn * 4, &err);
    xconv_buffer *ds = xconv_buffer_create(dev, sn * 4, &err);
    xconv_buffer *db = xconv_buffer_create(dev, pn * 4, &err);
    CHECK(x && spec && back && dx && ds && db);
    xconv_status st = XCONV_ERR_OUT_OF_MEMORY;
    if (x && spec && back && dx && ds && db) {
        xconv_random_fill(x, pn, 5, 1);
        st = xconv_buffer_upload(dx, 0, pn * 4, x, &err);
        if (st == XCONV_OK)
            st = xconv_fft2d_forward(f, dx, ds, &err);
        if (st == XCONV_OK)
            st = xconv_fft2d_inverse(f, ds, db, &err);
        if (st == XCONV_OK)
            st = xconv_buffer_download(ds, 0, sn * 4, spec, &err);
        if (st == XCONV_OK)
            st = xconv_buffer_download(db, 0, pn * 4, back, &err);
    }
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    double worst = 0, worst_back = 0, pi = acos(-1.0);
    for (int64_t b = 0; st == XCONV_OK && b < batch; b++) {
        const float *plane = x + b * lh * lw;
        double sum_abs = 0, max_abs = 0;
        for (int64_t i = 0; i < lh * lw; i++) {
            sum_abs += fabs(plane[i]);
            max_abs = fmax(max_abs, fabs(plane[i]));
        }
        for (int64_t u = 0; u < lh; u++)
            for (int64_t v = 0; v <= lw / 2; v++) {
                double re = 0, im = 0;
                for (int64_t i = 0; i < lh; i++)
                    for (int64_t j = 0; j < lw; j++) {
                        double a = -2 * pi * ((double)(u * i) / lh + (double)(v * j) / lw);
                        re += plane[i * lw + j] * cos(a);
                        im += plane[i * lw + j] * sin(a);
                    }
                const float *z = spec + 2 * ((u * (lw / 2 + 1) + v) * batch + b);
                double e = fmax(fabs(z[0] - re), fabs(z[1] - im)) / sum_abs;
                worst = e > worst ? e : worst;
            }
        for (int64_t i = 0; i < lh * lw; i++) {
            double e = fabs(back[b * lh * lw + i] / (double)(lh * lw) - plane[i]) / max_abs;
            worst_back = e > worst_back ? e : worst_back;
        }
    }
    CHECK_MSG(worst < 1e-6 && worst_back < 1e-6, "%s: forward error %.3g, round trip %.3g",
              xconv_fft2d_summary(f), worst, worst_back);
    printf("  %s: error %.2g of sum |x|, round trip %.2g of max |x|\n", xconv_fft2d_summary(f),
           worst, worst_back);
    CHECK(xconv_fft2d_create(dev, 14, 10, 3, NULL, &err) == NULL &&
          err.status == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "2^a 3^b 5^c");
    free(x), free(spec), free(back);
    xconv_buffer_destroy(dx), xconv_buffer_destroy(ds), xconv_buffer_destroy(db);
    xconv_fft2d_destroy(f);
}

int main(void)
{
    xconv_device *dev = open_device();
    if (!dev) {
        printf("no OpenCL device: forced tiles and chunks not run\n");
        return CHECK_SKIP_CODE;
    }
    test_forced_runs(dev);
    test_chunked_runs(dev);
    test_planes_runs(dev);
    test_planes(dev);
    xconv_device_close(dev);
    return check_summary("test_plan_fft_runs");
}
