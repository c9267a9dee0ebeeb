// SPDX-License-Identifier: MIT
// Tests the plan model and the generic runner with a stub backend that records what it is
// asked to launch (no device needed): per-step defines (a duplicate is an error), any number of
// steps with stable pointers, workspace regions and their offsets as int arguments, constant
// arguments over regions, vendor steps' operands (and a typed GEMM's storage type and math), the
// plan's checks, and prepare building each distinct program once so that runs do no lookup.
#include <string.h>

#include "tests/check.h"
#include "../host/plan/variant.h"

// ---------------------------------------------------------------------------------------------
// A backend that records launches

struct xconv_backend_buffer {
    int id;
};

struct xconv_backend_program {
    int id;
};

static int builds;
static int nlaunches;
static xconv_arg launched[64][XCONV_MAX_ARGS];
static const xconv_backend_program *launched_prog[64];
static xconv_gemm_args last_gemm;
static const char *last_algo;
static xconv_backend_buffer *last_workspace;

static xconv_status stub_alloc(void *ctx, size_t bytes, xconv_backend_buffer **out,
                               xconv_error *err)
{
    (void)ctx, (void)bytes, (void)err;
    static int next_id = 1;
    *out = calloc(1, sizeof **out);
    (*out)->id = next_id++;
    return XCONV_OK;
}

static void stub_free(void *ctx, xconv_backend_buffer *buf)
{
    (void)ctx;
    free(buf);
}

static xconv_status stub_build(void *ctx, const char *source, const char *options,
                               xconv_backend_program **out, char **log, xconv_error *err)
{
    (void)ctx, (void)source, (void)options, (void)log, (void)err;
    *out = calloc(1, sizeof **out);
    (*out)->id = ++builds;
    return XCONV_OK;
}

static void stub_program_free(void *ctx, xconv_backend_program *prog)
{
    (void)ctx;
    free(prog);
}

static xconv_status stub_launch(void *ctx, xconv_backend_program *prog, const xconv_launch *l,
                                xconv_error *err)
{
    (void)ctx, (void)err;
    if (nlaunches < 64) {
        memcpy(launched[nlaunches], l->args, (size_t)l->nargs * sizeof l->args[0]);
        launched_prog[nlaunches] = prog;
    }
    nlaunches++;
    return XCONV_OK;
}

static xconv_status stub_sgemm(void *ctx, const xconv_gemm_args *args, xconv_error *err)
{
    (void)ctx, (void)err;
    last_gemm = *args;
    return XCONV_OK;
}

static bool stub_conv_supports(void *ctx, const char *algo, const xconv_problem *p,
                               size_t *workspace, char *reason, size_t len)
{
    (void)ctx, (void)algo, (void)p, (void)reason, (void)len;
    *workspace = 0;
    return true;
}

static xconv_status stub_conv(void *ctx, const char *algo, const xconv_problem *p,
                              const xconv_vendor_conv_buffers *b, xconv_error *err)
{
    (void)ctx, (void)p, (void)err;
    last_algo = algo;
    last_workspace = b->workspace;
    return XCONV_OK;
}

static xconv_status stub_finish(void *ctx, xconv_error *err)
{
    (void)ctx, (void)err;
    return XCONV_OK;
}

static void stub_close(void *ctx)
{
    (void)ctx;
}

static const xconv_backend_iface stub_backend = {
    .kind = XCONV_BACKEND_OPENCL, .close = stub_close, .buffer_alloc = stub_alloc,
    .buffer_free = stub_free, .program_build = stub_build, .program_free = stub_program_free,
    .launch = stub_launch, .finish = stub_finish, .sgemm = stub_sgemm,
    .vendor_conv_supports = stub_conv_supports, .vendor_conv = stub_conv,
};

// A device on the stub backend with room for anything.
static xconv_device *stub_device(void)
{
    xconv_device *dev = calloc(1, sizeof *dev);
    dev->be = &stub_backend;
    dev->info.max_alloc_bytes = 1 << 30;
    dev->info.local_mem_bytes = 1 << 16;
    return dev;
}

static xconv_problem small_problem(void)
{
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=2,c=4,h=8,w=8,k=4,r=3,pad=1", &p, &err) == XCONV_OK);
    return p;
}

// ---------------------------------------------------------------------------------------------
// Defines, steps and regions

static void test_defines(void)
{
    xconv_problem p = small_problem();
    xconv_plan *plan = xconv_plan_new(NULL, NULL, &p, NULL);
    xconv_step *a = xconv_plan_add_step(plan, "first", "direct_naive", "direct_naive");
    xconv_step *b = xconv_plan_add_step(plan, "second", "direct_naive", "direct_naive");
    xconv_error err = {0};
    CHECK(xconv_step_define(a, "XC_TILE", 4, &err) == XCONV_OK);
    CHECK(xconv_step_define(b, "XC_TILE", 8, &err) == XCONV_OK);  // each step its own
    CHECK(xconv_step_define(a, "XC_TILE", 5, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "defines XC_TILE twice");
    CHECK(xconv_step_value(a, "XC_TILE", 0) == 4 && xconv_step_value(b, "XC_TILE", 0) == 8);
    CHECK(xconv_step_define(a, "XC_A_NAME_FAR_TOO_LONG_FOR_THE_TABLE_OF_DEFINES", 1, &err) ==
          XCONV_ERR_INVALID);
    CHECK(xconv_step_define_problem(b, &p, &err) == XCONV_OK);
    CHECK(xconv_step_define_problem(b, &p, &err) == XCONV_ERR_INVALID);  // all twice
    char options[256];
    xconv_step_options(a, options, sizeof options);
    CHECK(strcmp(options, "-DXC_TILE=4") == 0);
    // Many steps: the first pointers stay valid while more are added.
    for (int i = 0; i < 100; i++)
        CHECK(xconv_plan_add_step(plan, "more", "im2col", "im2col") != NULL);
    CHECK(plan->nsteps == 102 && xconv_plan_step(plan, 0) == a && xconv_plan_step(plan, 1) == b);
    CHECK(xconv_step_value(a, "XC_TILE", 0) == 4);
    // Copying defines keeps their order.
    xconv_step *c = xconv_plan_step(plan, 2);
    CHECK(xconv_step_define_all(c, b, &err) == XCONV_OK && c->ndefines == b->ndefines);
    CHECK(strcmp(c->defines[0].name, "XC_TILE") == 0 && c->defines[1].value == p.n);
    CHECK(!c->batch_arg);  // baked (the default): no batch argument
    xconv_plan_destroy(plan);
    xconv_plan_destroy(NULL);
}

static void test_regions(void)
{
    xconv_problem p = small_problem();
    xconv_plan *plan = xconv_plan_new(NULL, NULL, &p, NULL);
    CHECK(xconv_plan_region(plan, "first", 100) == 0);
    CHECK(xconv_plan_region(plan, "second", 1000) == 1);
    CHECK(xconv_plan_region(plan, "third", 4) == 2);
    CHECK(plan->regions[0].offset == 0 && plan->regions[1].offset == 256);
    CHECK(plan->regions[2].offset == 1280 && plan->workspace_bytes == 1284);
    xconv_step *s = xconv_plan_add_step(plan, "uses regions", "direct_naive", "direct_naive");
    xconv_step_arg_region(s, plan, 1);
    CHECK(s->nargs == 2 && s->args[0].kind == XCONV_STEP_ARG_BUFFER &&
          s->args[0].ref == XCONV_REF_WORKSPACE && s->args[0].region == 1);
    CHECK(s->args[1].kind == XCONV_STEP_ARG_INT && s->args[1].i == 256 / 4);
    for (int i = 3; i < XCONV_MAX_REGIONS; i++)
        CHECK(xconv_plan_region(plan, "more", 8) == i);
    CHECK(xconv_plan_region(plan, "one too many", 8) == -1);
    const char *name = NULL;
    size_t offset = 0, bytes = 0;
    CHECK(xconv_plan_region_count(plan) == XCONV_MAX_REGIONS);
    CHECK(xconv_plan_region_get(plan, 1, &name, &offset, &bytes) == XCONV_OK);
    CHECK(strcmp(name, "second") == 0 && offset == 256 && bytes == 1000);
    CHECK(xconv_plan_region_get(plan, XCONV_MAX_REGIONS, &name, NULL, NULL) == XCONV_ERR_INVALID);
    xconv_device *dev = stub_device();
    plan->dev = dev;
    xconv_error err = {0};
    CHECK(xconv_plan_check(plan, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "regions");
    xconv_plan_destroy(plan);
    xconv_device_close(dev);
}

// The plan's checks name what is wrong.
static void test_checks(void)
{
    xconv_problem p = small_problem();
    xconv_device *dev = stub_device();
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_new(dev, NULL, &p, NULL);
    xconv_step *s = xconv_plan_add_step(plan, "args", "direct_naive", "direct_naive");
    for (int i = 0; i <= XCONV_MAX_ARGS; i++)
        xconv_step_arg_int(s, i);
    CHECK(xconv_plan_check(plan, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "more than 16 arguments");
    xconv_plan_destroy(plan);

    plan = xconv_plan_new(dev, NULL, &p, NULL);
    s = xconv_plan_add_step(plan, "workspace", "direct_naive", "direct_naive");
    xconv_step_arg_buffer(s, XCONV_REF_WORKSPACE);
    CHECK(xconv_plan_check(plan, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "no workspace");
    xconv_plan_region(plan, "table", 64);
    CHECK(xconv_plan_check(plan, &err) == XCONV_OK);
    xconv_step_arg_constant(s, XCONV_REF_WORKSPACE, 3, 64, "xc_table");
    CHECK(xconv_plan_check(plan, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "no region 3");
    xconv_plan_destroy(plan);

    plan = xconv_plan_new(dev, NULL, &p, NULL);
    s = xconv_plan_add_step(plan, "local", "direct_naive", "direct_naive");
    s->local_mem_bytes = (1 << 16) + 1;
    CHECK(xconv_plan_check(plan, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "local memory");
    s->local_mem_bytes = 0;
    xconv_plan_region(plan, "huge", (size_t)1 << 31);
    CHECK(xconv_plan_check(plan, &err) == XCONV_ERR_OUT_OF_MEMORY);
    xconv_plan_destroy(plan);
    xconv_device_close(dev);
}

// ---------------------------------------------------------------------------------------------
// The runner

static void test_runner(void)
{
    xconv_problem p = small_problem();
    xconv_device *dev = stub_device();
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_new(dev, NULL, &p, NULL);
    int table = xconv_plan_region(plan, "table", 64);
    int cols = xconv_plan_region(plan, "columns", 4096);
    // Three kernel steps: two share a program (same source and defines).
    for (int i = 0; i < 3; i++) {
        xconv_step *s = xconv_plan_add_step(plan, "kernel", "direct_naive", "direct_naive");
        CHECK(xconv_step_define(s, "XC_VALUE", i == 2 ? 2 : 1, &err) == XCONV_OK);
        xconv_step_set_1d(s, 64, 64);
        xconv_step_arg_buffer(s, XCONV_REF_X);
        xconv_step_arg_region(s, plan, cols);
        xconv_step_arg_constant(s, XCONV_REF_WORKSPACE, table, 64, "xc_table");
        xconv_step_arg_float(s, 0.5f);
    }
    xconv_step *g = xconv_plan_add_vendor_sgemm(plan, "vendor SGEMM");
    g->gemm = (xconv_vendor_gemm_step){
        .m = 4, .n = 8, .k = 2, .batch = 1,
        .a = {.ref = XCONV_REF_W, .region = -1, .offset = 3, .ld = 2},
        .b = {.ref = XCONV_REF_WORKSPACE, .region = cols, .offset = 5, .ld = 8},
        .c = {.ref = XCONV_REF_Y, .region = -1, .ld = 8},
    };
    CHECK(xconv_plan_add_vendor_conv(plan, "vendor conv", "stub_algo") != NULL);
    CHECK(xconv_plan_check(plan, &err) == XCONV_OK);
    double ms = -1;
    CHECK(xconv_plan_prepare(plan, &ms, &err) == XCONV_OK && ms >= 0);
    CHECK_MSG(builds == 2, "%d builds for 2 distinct programs", builds);
    CHECK(xconv_plan_step(plan, 0)->program == xconv_plan_step(plan, 1)->program);

    size_t xb = (size_t)xconv_problem_x_elems(&p) * 4;
    xconv_tensors t = {.x = xconv_buffer_create(dev, xb, &err),
                       .w = xconv_buffer_create(dev, (size_t)xconv_problem_w_elems(&p) * 4, &err),
                       .y = xconv_buffer_create(dev, (size_t)xconv_problem_y_elems(&p) * 4, &err),
                       .workspace = xconv_buffer_create(dev, plan->workspace_bytes, &err)};
    nlaunches = 0;
    CHECK(xconv_plan_run(plan, &t, &err) == XCONV_OK);
    CHECK(xconv_plan_run(plan, &t, &err) == XCONV_OK);
    CHECK(builds == 2 && nlaunches == 6);  // runs build nothing
    const xconv_arg *a = launched[0];
    CHECK(a[0].kind == XCONV_ARG_BUFFER && a[0].buf == t.x->handle);
    CHECK(a[1].kind == XCONV_ARG_BUFFER && a[1].buf == t.workspace->handle);
    CHECK(a[2].kind == XCONV_ARG_INT && a[2].i == 256 / 4);  // the columns' offset in floats
    CHECK(a[3].kind == XCONV_ARG_CONSTANT && a[3].buf == t.workspace->handle &&
          a[3].offset == 0 && a[3].bytes == 64 && strcmp(a[3].symbol, "xc_table") == 0);
    CHECK(a[4].kind == XCONV_ARG_FLOAT && a[4].f == 0.5f);
    CHECK(launched_prog[0] == launched_prog[1] && launched_prog[1] != launched_prog[2]);
    CHECK(last_gemm.a == t.w->handle && last_gemm.a_offset == 3);
    CHECK(last_gemm.b == t.workspace->handle && last_gemm.b_offset == 256 / 4 + 5);
    CHECK(last_gemm.c == t.y->handle && last_gemm.m == 4 && last_gemm.ldb == 8);
    CHECK(last_algo && strcmp(last_algo, "stub_algo") == 0 &&
          last_workspace == t.workspace->handle);

    // Tensors too small for the plan are refused before anything is launched.
    nlaunches = 0;
    xconv_tensors small = t;
    small.workspace = xconv_buffer_create(dev, 16, &err);
    CHECK(xconv_plan_run(plan, &small, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "workspace buffer holds 16 bytes");
    small.workspace = t.workspace;
    small.y = NULL;
    CHECK(xconv_plan_run(plan, &small, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "no y buffer");
    CHECK(nlaunches == 0);

    // What the public queries report.
    xconv_plan_step_info info;
    CHECK(xconv_plan_step_count(plan) == 5);
    CHECK(xconv_plan_step_get_info(plan, 2, &info, &err) == XCONV_OK);
    CHECK(strcmp(info.source, "direct_naive") == 0);
    char options[64], cut[5];  // the defines into the caller's buffer, cut to fit
    CHECK(xconv_plan_step_options(plan, 2, options, sizeof options) == 12);
    CHECK(strcmp(options, "-DXC_VALUE=2") == 0);
    CHECK(xconv_plan_step_options(plan, 2, cut, sizeof cut) == 12 && strcmp(cut, "-DXC") == 0);
    CHECK(info.global[0] == 64 && info.dims == 1);
    CHECK(xconv_plan_step_get_info(plan, 4, &info, &err) == XCONV_OK);
    CHECK(info.source == NULL && strcmp(info.kernel, "stub_algo") == 0);
    CHECK(xconv_plan_step_options(plan, 4, options, sizeof options) == 0 && options[0] == '\0');
    CHECK(xconv_plan_step_get_info(plan, 5, &info, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_plan_step_options(plan, 5, options, sizeof options) == -1);
    xconv_plan_destroy(plan);
    xconv_device_close(dev);
}

// A real variant's plan on the stub device: direct_const's filters are a constant argument.
static void test_variant_plan(void)
{
    xconv_problem p = small_problem();
    xconv_device *dev = stub_device();
    dev->info.max_work_group_size = 256;
    dev->info.max_work_item_sizes[0] = dev->info.max_work_item_sizes[1] = 256;
    dev->info.preferred_multiple = 32;
    dev->info.const_mem_bytes = 65536;
    dev->info.is_gpu = true;
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, &p, "direct_const", NULL, &err);
    CHECK_MSG(plan != NULL, "%s", err.msg);
    if (plan) {
        const xconv_step *s = xconv_plan_step(plan, 0);
        CHECK(s->args[1].kind == XCONV_STEP_ARG_CONSTANT && s->args[1].ref == XCONV_REF_W);
        CHECK(s->args[1].bytes == (size_t)xconv_problem_w_elems(&p) * 4);
        CHECK(strcmp(xconv_variant_get_info(xconv_plan_variant(plan))->name, "direct_const") == 0);
    }
    xconv_plan_destroy(plan);
    // "auto" on a GPU-like device and a small problem: direct_regblock.
    plan = xconv_plan_create(dev, &p, "auto", NULL, &err);
    CHECK_MSG(plan != NULL, "%s", err.msg);
    if (plan)
        CHECK(strcmp(xconv_variant_get_info(xconv_plan_variant(plan))->name,
                     "direct_regblock") == 0);
    xconv_plan_destroy(plan);
    // On a GPU (the stub says no compute units: all FLOPs count as one unit's), a wide 1x1
    // problem with 128 filters over 256 channels takes gemm_1x1 (over 64, implicit_gemm), a
    // small one direct_regblock, a wide 3x3 stride-1 product winograd_f43, a wide strided one
    // implicit_precomp.
    const struct {
        const char *spec, *variant;
    } cases[] = {{"n=8,c=256,h=32,w=32,k=128,r=1", "gemm_1x1"},
                 {"n=8,c=64,h=32,w=32,k=128,r=1", "implicit_gemm"},
                 {"n=2,c=64,h=8,w=8,k=32,r=1", "direct_regblock"},
                 {"n=8,c=64,h=32,w=32,k=64,r=3,pad=1", "winograd_f43"},
                 {"n=8,c=64,h=64,w=64,k=64,r=3,stride=2,pad=1", "implicit_precomp"},
                 {"n=8,c=1,h=32,w=32,k=6,r=5", "direct_regblock"}};
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        xconv_problem q;
        CHECK(xconv_shape_parse(cases[i].spec, &q, &err) == XCONV_OK);
        plan = xconv_plan_create(dev, &q, "auto", NULL, &err);
        const char *got = plan ? xconv_variant_get_info(xconv_plan_variant(plan))->name : "";
        CHECK_MSG(strcmp(got, cases[i].variant) == 0, "auto on %s: %s, expected %s",
                  cases[i].spec, got, cases[i].variant);
        xconv_plan_destroy(plan);
    }
    CHECK(xconv_plan_create(dev, &p, "no_such_variant", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_FOUND);
    CHECK(xconv_plan_create(dev, &p, "gemm_1x1", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_APPLICABLE);
    p.groups = 3;  // does not divide c
    CHECK(xconv_plan_create(dev, &p, "auto", NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    xconv_device_close(dev);
}

// A vendor GEMM of raw matrices (xconv_gemm_create_typed) reaches the backend's slot with its
// storage type and math mode: A and B sized in 16-bit elements, C in floats; strict fp32 on
// fp32 passes zeros (the SGEMM the slot ran before the modes).
static void test_typed_vendor_gemm(void)
{
    xconv_device *dev = stub_device();
    xconv_error err = {0};
    const struct {
        int64_t dtype, math;
        size_t elem;
    } modes[] = {{XCONV_DTYPE_F32, XCONV_MATH_F32, 4}, {XCONV_DTYPE_F32, XCONV_MATH_TF32, 4},
                 {XCONV_DTYPE_F16, XCONV_MATH_F16, 2}, {XCONV_DTYPE_BF16, XCONV_MATH_BF16, 2},
                 {XCONV_DTYPE_F16, XCONV_MATH_F32, 2}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        xconv_gemm *g = xconv_gemm_create_typed(dev, 4, 8, 2, modes[i].dtype, modes[i].math,
                                                "vendor", NULL, &err);
        CHECK_MSG(g != NULL, "%s", err.msg);
        if (!g)
            continue;
        CHECK(xconv_gemm_c_dtype(g) == XCONV_DTYPE_F32);
        xconv_buffer *a = xconv_buffer_create(dev, 4 * 2 * modes[i].elem, &err);
        xconv_buffer *b = xconv_buffer_create(dev, 2 * 8 * modes[i].elem, &err);
        xconv_buffer *c = xconv_buffer_create(dev, 4 * 8 * 4, &err);
        memset(&last_gemm, 0, sizeof last_gemm);
        last_gemm.dtype = last_gemm.math = -1;
        CHECK_MSG(xconv_gemm_run(g, a, b, c, &err) == XCONV_OK, "%s", err.msg);
        CHECK(last_gemm.dtype == modes[i].dtype && last_gemm.math == modes[i].math);
        CHECK(last_gemm.m == 4 && last_gemm.n == 8 && last_gemm.k == 2 && last_gemm.lda == 2 &&
              last_gemm.ldb == 8 && last_gemm.ldc == 8);
        CHECK(last_gemm.a == a->handle && last_gemm.b == b->handle && last_gemm.c == c->handle);
        xconv_buffer_destroy(a);
        xconv_buffer_destroy(b);
        xconv_buffer_destroy(c);
        xconv_gemm_destroy(g);
    }
    // A mode its storage cannot feed is refused before any plan.
    CHECK(xconv_gemm_create_typed(dev, 4, 8, 2, XCONV_DTYPE_F32, XCONV_MATH_F16, "vendor", NULL,
                                  &err) == NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "math=f16 needs dtype=f16");
    xconv_device_close(dev);
}

int main(void)
{
    test_defines();
    test_regions();
    test_checks();
    test_runner();
    test_variant_plan();
    test_typed_vendor_gemm();
    return check_summary("test_plan_model");
}
