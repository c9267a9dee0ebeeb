// SPDX-License-Identifier: MIT
// Tests the epilogue through the public API on the default OpenCL device: each variant's fused
// plan (bias and activation, and the pool where it fuses it) against its unfused plan (the same
// convolution, then the epilogue's steps), bit for bit; what each family fuses; the fused mode's
// refusal; the buffers a run needs; and the composed result against the float64 reference.
// Skips (77) without a device.
#include <math.h>
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

// One problem's host inputs.
typedef struct inputs {
    xconv_problem p;
    float *x, *w, *bias;
    size_t ny;
} inputs;

static inputs make_inputs(const char *spec)
{
    inputs in = {0};
    xconv_error err = {0};
    CHECK_MSG(xconv_shape_parse(spec, &in.p, &err) == XCONV_OK, "%s", err.msg);
    size_t nx = (size_t)xconv_problem_x_elems(&in.p), nw = (size_t)xconv_problem_w_elems(&in.p);
    in.ny = (size_t)xconv_problem_y_elems(&in.p);
    in.x = malloc(nx * sizeof(float));
    in.w = malloc(nw * sizeof(float));
    in.bias = malloc((size_t)in.p.k * sizeof(float));
    fill(in.x, nx, 1);
    fill(in.w, nw, 2);
    fill(in.bias, (size_t)in.p.k, 3);
    return in;
}

static void free_inputs(inputs *in)
{
    free(in->x);
    free(in->w);
    free(in->bias);
}

// Runs variant v on in under epilogue mode `mode` into y; returns its status (the plan's fused
// parts in *fused).
static xconv_status run_mode(xconv_device *dev, const inputs *in, const char *v, int mode,
                             float *y, unsigned *fused, xconv_error *err)
{
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.epilogue = mode;
    xconv_plan *plan = xconv_plan_create(dev, &in->p, v, &opts, err);
    if (!plan)
        return err->status;
    *fused = xconv_plan_fused(plan);
    xconv_plan_destroy(plan);
    return xconv_forward(dev, &in->p, v, &opts, in->x, in->w, in->bias, y, err);
}

// The largest normalised error of y against the float64 reference of the composed operation.
static double max_error(const inputs *in, const float *y)
{
    double *ref = malloc(in->ny * sizeof *ref), *scale = malloc(in->ny * sizeof *scale);
    double worst = 0;
    xconv_error err = {0};
    if (xconv_reference_forward(&in->p, in->x, in->w, in->bias, ref, scale, 0, &err) != XCONV_OK)
        worst = INFINITY;
    for (size_t i = 0; i < in->ny && isfinite(worst); i++) {
        double e = fabs(y[i] - ref[i]) / (scale[i] > 0 ? scale[i] : 1);
        worst = e > worst || isnan(e) ? e : worst;
    }
    free(ref);
    free(scale);
    return worst;
}

// ---------------------------------------------------------------------------------------------
// Fused against unfused

// The parts each variant fuses into its store on spec's problem (bias + act, pool).
typedef struct expectation {
    const char *variant;
    unsigned fused;
} expectation;

// Every variant that fuses gives the same bits fused and unfused: its convolution sums each
// output's taps in the same order whatever its tiling, and both paths then round the bias and
// activation the same way and take the same maximum.
static void test_fused_equals_unfused(xconv_device *dev)
{
    const char *specs[] = {
        "n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu,pool=2",
        "n=3,c=5,h=17,w=23,k=7,r=3,pad=1,bias=1,act=relu6,pool=3,pool_stride=2,pool_pad=1",
        "n=2,c=16,h=14,w=14,k=16,r=3,pad=1,groups=16,act=relu,pool=2",
        "n=2,c=32,h=14,w=14,k=32,r=1,bias=1,act=relu,pool=2",
    };
    const char *variants[] = {"direct_naive", "direct_const", "direct_tiled", "direct_tiled_db",
                              "direct_regblock", "im2col_gemm", "implicit_gemm",
                              "implicit_precomp", "gemm_1x1"};
    int pairs = 0, identical = 0;
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        inputs in = make_inputs(specs[s]);
        float *fused_y = malloc(in.ny * sizeof(float)), *unfused_y = malloc(in.ny * 4);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            xconv_error err = {0};
            unsigned fused = 0, none = 0;
            xconv_status st = run_mode(dev, &in, variants[v], XCONV_EPILOGUE_AUTO, fused_y,
                                       &fused, &err);
            if (st == XCONV_ERR_NOT_APPLICABLE)
                continue;
            CHECK_MSG(st == XCONV_OK, "%s on %s: %s", variants[v], specs[s], err.msg);
            st = run_mode(dev, &in, variants[v], XCONV_EPILOGUE_UNFUSED, unfused_y, &none, &err);
            CHECK_MSG(st == XCONV_OK, "%s unfused on %s: %s", variants[v], specs[s], err.msg);
            CHECK_MSG(fused != 0 && none == 0, "%s on %s fused %u, unfused %u", variants[v],
                      specs[s], fused, none);
            double e = max_error(&in, fused_y);
            CHECK_MSG(e <= 1e-5, "%s on %s: error %g", variants[v], specs[s], e);
            bool same = memcmp(fused_y, unfused_y, in.ny * sizeof(float)) == 0;
            CHECK_MSG(same, "%s on %s: fused and unfused outputs differ", variants[v], specs[s]);
            pairs++;
            identical += same;
        }
        free(fused_y);
        free(unfused_y);
        free_inputs(&in);
    }
    printf("fused against unfused: %d of %d variant x shape pairs bitwise identical\n",
           identical, pairs);
    CHECK(pairs >= 30);
}

// What each family fuses on a 2x2/2 pool (whole windows), on a 3x3/2 one (overlapping), and
// the fused mode's refusal naming what is left.
static void test_what_fuses(xconv_device *dev)
{
    const unsigned all = XCONV_FUSED_BIAS_ACT | XCONV_FUSED_POOL;
    const struct {
        const char *spec, *variant;
        unsigned fused;
    } cases[] = {
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu,pool=2", "direct_const", all},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu,pool=2", "direct_regblock", all},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu,pool=2", "im2col_gemm",
         XCONV_FUSED_BIAS_ACT},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu,pool=2", "clblast_convgemm", 0},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,pool=3,pool_stride=2,pool_pad=1",
         "direct_tiled", XCONV_FUSED_BIAS_ACT},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,pool=3,pool_stride=2,pool_pad=1",
         "direct_naive", all},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,pool=2", "implicit_gemm", XCONV_FUSED_POOL},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu,pool=2", "implicit_precomp", all},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1,pool=3,pool_stride=2", "implicit_gemm", 0},
        {"n=2,c=8,h=16,w=16,k=16,r=3,pad=1", "direct_const", 0},
    };
    xconv_error err = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xconv_problem p;
        CHECK(xconv_shape_parse(cases[i].spec, &p, &err) == XCONV_OK);
        xconv_plan *plan = xconv_plan_create(dev, &p, cases[i].variant, NULL, &err);
        CHECK_MSG(plan != NULL, "%s: %s", cases[i].variant, err.msg);
        if (!plan)
            continue;
        CHECK_MSG(xconv_plan_fused(plan) == cases[i].fused, "%s on %s fuses %u, want %u",
                  cases[i].variant, cases[i].spec, xconv_plan_fused(plan), cases[i].fused);
        // The parts p has: a plan that fuses all of them is "fused".
        unsigned parts = (p.epi.bias || p.epi.act ? XCONV_FUSED_BIAS_ACT : 0u) |
                         (p.epi.pool_h ? XCONV_FUSED_POOL : 0u);
        const char *summary = xconv_plan_summary(plan);
        if (parts)
            CHECK_CONTAINS(summary, cases[i].fused == parts ? "epilogue fused"
                                    : cases[i].fused ? "epilogue partly fused"
                                                     : "epilogue unfused");
        // A plan that leaves a part to the steps says why, in parentheses after what it left.
        if (parts && cases[i].fused != parts)
            CHECK_MSG(strstr(summary, "after the convolution (") ||
                          strstr(summary, "after it ("),
                      "%s on %s does not say why: %s", cases[i].variant, cases[i].spec, summary);
        xconv_plan_destroy(plan);
        // Asked for a fused plan, a variant that leaves a part says which.
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        opts.epilogue = XCONV_EPILOGUE_FUSED;
        plan = xconv_plan_create(dev, &p, cases[i].variant, &opts, &err);
        bool complete = cases[i].fused == parts;
        CHECK_MSG((plan != NULL) == complete, "%s fused mode on %s", cases[i].variant,
                  cases[i].spec);
        if (!plan) {
            CHECK(err.status == XCONV_ERR_NOT_APPLICABLE);
            CHECK_CONTAINS(err.msg, "does not fuse");
        }
        xconv_plan_destroy(plan);
    }
}

// A run checks the bias buffer (and y is sized by the pooled output); the unfused plan's
// workspace holds the convolution's output in a region of its own.
static void test_buffers(xconv_device *dev)
{
    inputs in = make_inputs("n=2,c=4,h=12,w=12,k=6,r=3,pad=1,bias=1,act=relu,pool=2");
    xconv_error err = {0};
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.epilogue = XCONV_EPILOGUE_UNFUSED;
    xconv_plan *plan = xconv_plan_create(dev, &in.p, "im2col_gemm", &opts, &err);
    CHECK_MSG(plan != NULL, "%s", err.msg);
    if (!plan) {
        free_inputs(&in);
        return;
    }
    const char *name = NULL;
    size_t offset = 0, bytes = 0;
    int last = xconv_plan_region_count(plan) - 1;
    CHECK(last >= 1 && xconv_plan_region_get(plan, last, &name, &offset, &bytes) == XCONV_OK);
    CHECK(name && strcmp(name, "convolution output") == 0 && offset % 4096 == 0);
    CHECK(bytes == (size_t)xconv_problem_conv_elems(&in.p) * sizeof(float));
    CHECK(in.ny == 2 * 6 * 6 * 6);
    xconv_tensors t = {
        .x = xconv_buffer_create(dev, (size_t)xconv_problem_x_elems(&in.p) * 4, &err),
        .w = xconv_buffer_create(dev, (size_t)xconv_problem_w_elems(&in.p) * 4, &err),
        .y = xconv_buffer_create(dev, in.ny * 4, &err),
        .workspace = xconv_buffer_create(dev, xconv_plan_workspace_size(plan), &err),
    };
    CHECK(xconv_plan_run(plan, &t, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "no bias buffer");
    t.bias = xconv_buffer_create(dev, 4, &err);
    CHECK(xconv_plan_run(plan, &t, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "the bias buffer holds 4 bytes; the plan needs 24");
    xconv_buffer_destroy(t.bias);
    xconv_buffer_destroy(t.y);
    t.y = xconv_buffer_create(dev, in.ny * 4 - 4, &err);
    t.bias = xconv_buffer_create(dev, 24, &err);
    CHECK(xconv_plan_run(plan, &t, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "the y buffer");
    // The host-array path needs the bias too.
    float *y = malloc(in.ny * sizeof(float));
    CHECK(xconv_forward(dev, &in.p, "direct_const", NULL, in.x, in.w, NULL, y, &err) ==
          XCONV_ERR_INVALID);
    CHECK(xconv_convolve(dev, &in.p, "direct_const", in.x, in.w, y, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "bias");
    // cpu_ref computes the composed operation on the host.
    CHECK(xconv_forward(NULL, &in.p, "cpu_ref", NULL, in.x, in.w, in.bias, y, &err) == XCONV_OK);
    CHECK_MSG(max_error(&in, y) <= 1e-6, "cpu_ref error %g", max_error(&in, y));
    free(y);
    xconv_buffer_destroy(t.x);
    xconv_buffer_destroy(t.w);
    xconv_buffer_destroy(t.y);
    xconv_buffer_destroy(t.bias);
    xconv_buffer_destroy(t.workspace);
    xconv_plan_destroy(plan);
    free_inputs(&in);
}

int main(void)
{
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open("opencl:0", &err);
    if (!dev) {
        printf("SKIP: no OpenCL device (%s)\n", err.msg);
        return CHECK_SKIP_CODE;
    }
    test_what_fuses(dev);
    test_buffers(dev);
    test_fused_equals_unfused(dev);
    xconv_device_close(dev);
    return check_summary("test_epilogue");
}
