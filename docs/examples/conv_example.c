// SPDX-License-Identifier: MIT
// One convolution through xconv's public API: open a device and the default cache (the command
// line's, so "auto" reads the find-db `xconv find` writes), plan the problem with "auto", run it
// on device buffers, and check every output against the float64 reference.
// Usage: conv_example [DEVICE [SPEC]]   (DEVICE: "0", "opencl:1", "cuda:0" or a name; default:
// the first GPU, else the first CPU; SPEC: the shape, default n=2,c=16,h=28,w=28,k=32,r=3,pad=1).
// Prints the variant chosen, why, and the largest normalised error; exits 0 when every element
// is within 1e-5 of the reference.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <xconv/xconv.h>

// Fills v with n values in [-1, 1) from a small generator.
static void fill(float *v, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

// Prints what failed and returns the exit code 1.
static int fail(const char *what, const xconv_error *err)
{
    fprintf(stderr, "conv_example: %s: %s\n", what, err->msg);
    return 1;
}

// Runs plan on x and w (host arrays) and reads y back; returns the first failure.
static xconv_status run(xconv_device *dev, xconv_plan *plan, const xconv_problem *p,
                        const float *x, const float *w, float *y, xconv_error *err)
{
    size_t xb = (size_t)xconv_problem_x_elems(p) * sizeof(float);
    size_t wb = (size_t)xconv_problem_w_elems(p) * sizeof(float);
    size_t yb = (size_t)xconv_problem_y_elems(p) * sizeof(float);
    size_t ws = xconv_plan_workspace_size(plan);
    xconv_tensors t = {
        .x = xconv_buffer_create(dev, xb, err),
        .w = xconv_buffer_create(dev, wb, err),
        .y = xconv_buffer_create(dev, yb, err),
        .workspace = ws ? xconv_buffer_create(dev, ws, err) : NULL,
    };
    xconv_status st = t.x && t.w && t.y && (t.workspace || !ws) ? XCONV_OK : err->status;
    if (st == XCONV_OK)
        st = xconv_buffer_upload(t.x, 0, xb, x, err);
    if (st == XCONV_OK)
        st = xconv_buffer_upload(t.w, 0, wb, w, err);
    if (st == XCONV_OK)
        st = xconv_plan_run(plan, &t, err);  // enqueued: runs while the host goes on
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, err);
    if (st == XCONV_OK)
        st = xconv_buffer_download(t.y, 0, yb, y, err);
    xconv_buffer_destroy(t.x);
    xconv_buffer_destroy(t.w);
    xconv_buffer_destroy(t.y);
    xconv_buffer_destroy(t.workspace);
    return st;
}

int main(int argc, char **argv)
{
    xconv_error err;
    xconv_problem p;
    const char *spec = argc > 2 ? argv[2] : "n=2,c=16,h=28,w=28,k=32,r=3,pad=1";
    if (xconv_shape_parse(spec, &p, &err) != XCONV_OK)
        return fail("shape", &err);
    xconv_device *dev = xconv_device_open(argc > 1 ? argv[1] : NULL, &err);
    if (!dev)
        return fail("device", &err);
    // The command line's cache: compiled kernels kept, and the find-db for "auto". NULL (no
    // folder, or it cannot be made) is fine: kernels are then compiled every run and "auto"
    // uses its rules.
    xconv_error cache_err;
    xconv_cache *cache = xconv_cache_open_default(getenv("XCONV_CACHE_DIR"),
                                                  getenv("XDG_CACHE_HOME"), getenv("HOME"), 0,
                                                  &cache_err);
    xconv_device_set_cache(dev, cache);
    char label[320];
    xconv_device_label(xconv_device_get_info(dev), label, sizeof label);

    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * sizeof *x), *w = malloc(wn * sizeof *w), *y = malloc(yn * sizeof *y);
    double *ref = malloc(yn * sizeof *ref), *norm = malloc(yn * sizeof *norm);
    if (!x || !w || !y || !ref || !norm) {
        fprintf(stderr, "conv_example: out of host memory\n");
        return 1;
    }
    fill(x, xn, 1);
    fill(w, wn, 2);

    int rc = 0;
    xconv_plan *plan = xconv_plan_create(dev, &p, "auto", NULL, &err);
    if (!plan)
        rc = fail("plan", &err);
    else if (run(dev, plan, &p, x, w, y, &err) != XCONV_OK)
        rc = fail("run", &err);
    else if (xconv_reference_conv(&p, x, w, ref, norm, 0, &err) != XCONV_OK)
        rc = fail("reference", &err);
    if (rc == 0) {
        // The error of each element in units of its own scale, the sum of |x*w| of its terms.
        double worst = 0.0;
        for (size_t i = 0; i < yn; i++) {
            double e = fabs((double)y[i] - ref[i]) / (norm[i] > 0 ? norm[i] : 1.0);
            worst = e > worst || isnan(e) ? e : worst;
        }
        rc = worst <= 1e-5 ? 0 : 1;
        printf("%s on %s: %s\n  max normalised error %.3g: %s\n",
               xconv_variant_get_info(xconv_plan_variant(plan))->name, label,
               xconv_plan_summary(plan), worst, rc == 0 ? "pass" : "FAIL");
        xconv_auto_info why;  // how "auto" chose: the find-db's record or the rules
        if (xconv_plan_auto_info(plan, &why))
            printf("auto: %s\n", why.why);
    }
    xconv_plan_destroy(plan);
    xconv_device_close(dev);
    xconv_cache_close(cache);
    free(x);
    free(w);
    free(y);
    free(ref);
    free(norm);
    return rc;
}
