// SPDX-License-Identifier: MIT
// Tests the FFT planner with synthetic devices: smooth lengths and radix codes, the defines'
// X-macro lists, refusals with their reasons (stride, dilation, local memory, workspace,
// forced sizes), every plan of the small and standard suites within the device's limits and
// covering the output, chunked passes, the target shapes' choices, and, where NVRTC is
// present, that the GPU plans' kernels compile for sm_90 and keep their arrays in registers.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan_fft.h"
#include "plan.h"
#include "tests/check.h"
#include "xconv_problem_fields.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/nvrtc_compile.h"
#endif

// ---------------------------------------------------------------------------------------------
// Synthetic devices

// A GPU like an H100: 48 KiB local memory per work-group, 1024 work-items, warps of 32.
static xconv_device_info gpu_info(void)
{
    xconv_device_info i = {.is_gpu = true, .compute_units = 132, .local_mem_bytes = 48 << 10,
                           .max_alloc_bytes = 20ull << 30, .global_mem_bytes = 80ull << 30,
                           .const_mem_bytes = 64 << 10, .max_work_group_size = 1024,
                           .max_work_item_sizes = {1024, 1024, 64}, .preferred_multiple = 32};
    snprintf(i.name, sizeof i.name, "synthetic GPU");
    return i;
}

// A CPU as PoCL reports one: 2 cores, 1 MiB "local" memory, work-groups up to 4096.
static xconv_device_info cpu_info(void)
{
    xconv_device_info i = {.is_cpu = true, .compute_units = 2, .local_mem_bytes = 1 << 20,
                           .max_alloc_bytes = 1ull << 30, .global_mem_bytes = 4ull << 30,
                           .max_work_group_size = 4096,
                           .max_work_item_sizes = {4096, 4096, 4096}, .preferred_multiple = 8};
    snprintf(i.name, sizeof i.name, "synthetic CPU");
    return i;
}

// A small GPU: 16 KiB local memory, 256 work-items, 128 MiB allocations.
static xconv_device_info small_gpu_info(void)
{
    xconv_device_info i = gpu_info();
    i.compute_units = 8;
    i.local_mem_bytes = 16 << 10;
    i.max_work_group_size = 256;
    i.max_work_item_sizes[0] = i.max_work_item_sizes[1] = 128;
    i.max_alloc_bytes = 128ull << 20;
    i.global_mem_bytes = 1ull << 30;
    snprintf(i.name, sizeof i.name, "synthetic small GPU");
    return i;
}

static xconv_problem parse(const char *spec)
{
    xconv_problem p;
    xconv_error err;
    CHECK_MSG(xconv_shape_parse(spec, &p, &err) == XCONV_OK, "%s: %s", spec, err.msg);
    return p;
}

static const char *kind_name(xconv_fft_kind kind)
{
    return kind == XCONV_FFT_WHOLE ? "fft" : "fft_tiled";
}

// ---------------------------------------------------------------------------------------------
// Lengths

// The product of a radix code's digits, or 0 when a digit is not 2, 3, 4, 5 or 8 or two
// digits are 2 or 4 (the planner uses at most one).
static int code_product(int code)
{
    int product = 1, small_twos = 0;
    for (int i = 0; i < 8 && (code >> (4 * i)) & 15; i++) {
        int r = (code >> (4 * i)) & 15;
        if (r != 2 && r != 3 && r != 4 && r != 5 && r != 8)
            return 0;
        small_twos += r == 2 || r == 4;
        product *= r;
    }
    return small_twos > 2 ? 0 : product;
}

static void test_lengths(void)
{
    static const struct {
        int64_t n, next;
    } cases[] = {{1, 1}, {2, 2}, {7, 8}, {11, 12}, {13, 15}, {14, 15}, {17, 18}, {22, 24},
                 {26, 27}, {31, 32}, {44, 45}, {46, 48}, {49, 50}, {61, 64}, {74, 75},
                 {97, 100}, {226, 240}, {1025, 1080}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_MSG(xconv_fft_next_smooth(cases[i].n) == cases[i].next, "next smooth of %lld: %lld",
                  (long long)cases[i].n, (long long)xconv_fft_next_smooth(cases[i].n));
    CHECK(!xconv_fft_is_smooth(0) && !xconv_fft_is_smooth(7) && !xconv_fft_is_smooth(-4));
    CHECK(xconv_fft_is_smooth(1) && xconv_fft_is_smooth(2 * 3 * 5 * 4) && xconv_fft_is_smooth(81));
    int smooth = 0;
    for (int n = 1; n <= XCONV_FFT_MAX_LENGTH + 8; n++) {
        int code = xconv_fft_radix_code(n);
        bool want = n >= 2 && n <= XCONV_FFT_MAX_LENGTH && xconv_fft_is_smooth(n);
        CHECK_MSG((code != 0) == want, "radix code of %d: %#x", n, code);
        if (code) {
            smooth++;
            CHECK_MSG(code_product(code) == n, "radix code %#x of %d multiplies to %d", code, n,
                      code_product(code));
        }
    }
    CHECK(xconv_fft_radix_code(24) == 0x38);   // 8, then 3
    CHECK(xconv_fft_radix_code(48) == 0x344);  // 4 x 4 (not 8 x 2), then 3
    CHECK(xconv_fft_radix_code(60) == 0x354);  // 4, 5, 3
    CHECK(xconv_fft_radix_code(75) == 0x355);  // 5, 5, 3
    CHECK_MSG(smooth > 100, "%d smooth lengths", smooth);
}

// ---------------------------------------------------------------------------------------------
// Defines

// The X-macro lists give one define per struct field, named as the kernels read them.
static void test_defines(void)
{
    xconv_fft_transform_params t = {.lh = 24, .radix_h = 0x38, .lw = 20, .radix_w = 0x54,
                                    .tiles_h = 3, .tiles_w = 2, .out_h = 20, .out_w = 16,
                                    .planes = 4, .pitch = 21, .threads = 128,
                                    .inline_passes = 1, .batch = 600};
    xconv_fft_define d[32];
    int n = xconv_fft_transform_defines(&t, d, 32);
    CHECK(n == 13);
    static const struct {
        const char *name;
        long long value;
    } want[] = {{"XC_FFT_LH", 24}, {"XC_FFT_RADIX_H", 0x38}, {"XC_FFT_LW", 20},
                {"XC_FFT_RADIX_W", 0x54}, {"XC_FFT_TILES_H", 3}, {"XC_FFT_TILES_W", 2},
                {"XC_FFT_OUT_H", 20}, {"XC_FFT_OUT_W", 16}, {"XC_FFT_PLANES", 4},
                {"XC_FFT_PITCH", 21}, {"XC_FFT_THREADS", 128}, {"XC_FFT_INLINE", 1},
                {"XC_FFT_BATCH", 600}};
    for (int i = 0; i < n && i < 13; i++)
        CHECK_MSG(strcmp(d[i].name, want[i].name) == 0 && d[i].value == want[i].value,
                  "define %d: %s=%lld", i, d[i].name, d[i].value);
    CHECK(xconv_fft_transform_defines(&t, d, 3) == 13);  // the count, whatever fits
    xconv_fft_gemm_params g = {.tile_m = 16, .tile_n = 64, .tile_k = 8, .wpt_m = 4,
                               .wpt_n = 4, .batch = 600};
    n = xconv_fft_gemm_defines(&g, d, 32);
    CHECK(n == 6 && strcmp(d[0].name, "XC_FFT_GEMM_TILE_M") == 0 && d[0].value == 16 &&
          strcmp(d[5].name, "XC_FFT_BATCH") == 0 && d[5].value == 600);
}

// ---------------------------------------------------------------------------------------------
// Refusals

// Plans kind for spec on info; checks it is refused as not applicable with every `needles`
// string (NULL-terminated) in the message.
static void check_refused(xconv_fft_kind kind, const xconv_device_info *info, const char *spec,
                          const xconv_fft_options *opts, const char *const *needles)
{
    xconv_problem p = parse(spec);
    static xconv_fft_plan plan;
    xconv_error err;
    xconv_status st = xconv_fft_plan_make(kind, info, &p, opts, &plan, &err);
    CHECK_MSG(st == XCONV_ERR_NOT_APPLICABLE, "%s %s: status %d", kind_name(kind), spec, st);
    if (st == XCONV_ERR_NOT_APPLICABLE)
        for (int i = 0; needles[i]; i++)
            CHECK_CONTAINS(err.msg, needles[i]);
    char reason[512] = "";
    CHECK(!xconv_fft_applies(kind, info, &p, reason, sizeof reason) || opts);
}

static void test_refusals(void)
{
    xconv_device_info gpu = gpu_info(), small = small_gpu_info();
    for (int k = 0; k < 2; k++) {
        xconv_fft_kind kind = (xconv_fft_kind)k;
        check_refused(kind, &gpu, "n=1,c=3,h=33,w=33,k=4,r=3,stride=2",  NULL,
                      (const char *const[]){"stride 1", "stride 2x2", NULL});
        check_refused(kind, &gpu, "n=1,c=3,h=33,w=33,k=4,r=3,dil_w=2", NULL,
                      (const char *const[]){"dilation 1x2", NULL});
        check_refused(kind, &gpu, "n=1,c=3,h=33,w=33,k=4,r=1", NULL,
                      (const char *const[]){"larger than 1x1", NULL});
        check_refused(kind, &gpu, "n=1,c=4,h=33,w=33,k=4,r=2,groups=4", NULL,
                      (const char *const[]){"at least 8 products", "1 x 2 x 2 = 4", NULL});
    }
    // The whole 224x224 image's transform (240x240) passes 48 KiB of local memory.
    check_refused(XCONV_FFT_WHOLE, &gpu, "n=1,c=3,h=224,w=224,k=4,r=3,pad=1", NULL,
                  (const char *const[]){"240x240", "local memory", "49152", NULL});
    // No tile of at most 64 holds a 65-tap filter; a 48-tap one needs a 50x50 tile, whose
    // pair of planes (20 KB) passes the small GPU's 16 KiB.
    check_refused(XCONV_FFT_TILED, &gpu, "n=1,c=1,h=200,w=200,k=1,r=65", NULL,
                  (const char *const[]){"65x65 filter is larger than the largest tile", NULL});
    check_refused(XCONV_FFT_TILED, &small, "n=1,c=1,h=200,w=200,k=1,r=48", NULL,
                  (const char *const[]){"tile transform", "local memory", "16384", NULL});
    // Filter spectra alone pass a 128 MiB allocation: 40x40 transforms, 4096 x 512 planes.
    check_refused(XCONV_FFT_WHOLE, &small, "n=1,c=512,h=38,w=38,k=4096,r=3,pad=1", NULL,
                  (const char *const[]){"workspace", "MiB", "filter spectra", NULL});
    xconv_fft_options odd = {.tile_h = 14, .tile_w = 14};
    check_refused(XCONV_FFT_TILED, &gpu, "n=1,c=1,h=40,w=40,k=1,r=5", &odd,
                  (const char *const[]){"forced transform size 14x14", NULL});
    xconv_fft_options small_whole = {.tile_h = 16, .tile_w = 16};
    check_refused(XCONV_FFT_WHOLE, &gpu, "n=1,c=1,h=40,w=40,k=1,r=5", &small_whole,
                  (const char *const[]){"padded image", NULL});
}

// ---------------------------------------------------------------------------------------------
// Plans within limits

// Checks every invariant of a plan for p on info.
static void check_plan(const char *label, const xconv_device_info *info, const xconv_problem *p,
                       const xconv_fft_plan *plan)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    CHECK_MSG(plan->lh >= p->r && plan->lw >= p->s && xconv_fft_radix_code(plan->lh) &&
                  xconv_fft_radix_code(plan->lw),
              "%s: %dx%d transforms", label, plan->lh, plan->lw);
    if (plan->kind == XCONV_FFT_WHOLE)
        CHECK_MSG(plan->lh >= p->h + 2 * p->pad_h && plan->lw >= p->w + 2 * p->pad_w &&
                      plan->tiles_h == 1 && plan->tiles_w == 1 && plan->out_h == P &&
                      plan->out_w == Q,
                  "%s: %dx%d whole-image transforms", label, plan->lh, plan->lw);
    // Overlap-save: each tile's valid outputs, and the tiles cover the output.
    CHECK_MSG(plan->out_h >= 1 && plan->out_h <= plan->lh - p->r + 1 && plan->out_w >= 1 &&
                  plan->out_w <= plan->lw - p->s + 1,
              "%s: %dx%d outputs per %dx%d tile", label, plan->out_h, plan->out_w, plan->lh,
              plan->lw);
    CHECK_MSG((int64_t)plan->tiles_h * plan->out_h >= P &&
                  (int64_t)plan->tiles_w * plan->out_w >= Q &&
                  (int64_t)(plan->tiles_h - 1) * plan->out_h < P &&
                  (int64_t)(plan->tiles_w - 1) * plan->out_w < Q,
              "%s: %dx%d tiles of %dx%d for %lldx%lld outputs", label, plan->tiles_h,
              plan->tiles_w, plan->out_h, plan->out_w, (long long)P, (long long)Q);
    CHECK(plan->freqs == plan->lh * (plan->lw / 2 + 1));
    CHECK_MSG(plan->chunk >= 1 && plan->chunk <= p->n && plan->passes * plan->chunk >= p->n &&
                  (plan->passes - 1) * plan->chunk < p->n,
              "%s: %lld passes of %lld images", label, (long long)plan->passes,
              (long long)plan->chunk);
    CHECK_MSG(plan->passes == 1 || plan->chunk == 1 || plan->batch % 2 == 0,
              "%s: passes of %lld columns split the transforms' pairs", label,
              (long long)plan->batch);
    CHECK(plan->batch == plan->chunk * plan->tiles_h * plan->tiles_w);
    CHECK(fabsf(plan->filter_scale * (float)plan->lh * (float)plan->lw - 1.0f) < 1e-6f);
    // Regions: sizes as the layouts say, aligned, within one allocation and int indexing.
    size_t f8 = (size_t)plan->freqs * 8, total = 0;
    CHECK(plan->region_bytes[XCONV_FFT_REGION_INPUT] == f8 * (size_t)p->c * (size_t)plan->batch);
    CHECK(plan->region_bytes[XCONV_FFT_REGION_FILTER] ==
          f8 * (size_t)p->k * (size_t)(p->c / p->groups));
    CHECK(plan->region_bytes[XCONV_FFT_REGION_OUTPUT] == f8 * (size_t)p->k * (size_t)plan->batch);
    for (int r = 0; r < XCONV_FFT_REGIONS; r++)
        total += (plan->region_bytes[r] + 255) / 256 * 256;
    CHECK_MSG(plan->workspace_bytes == total && total <= info->max_alloc_bytes &&
                  total / 4 <= (size_t)XCONV_MAX_INDEX,
              "%s: workspace %zu bytes", label, plan->workspace_bytes);
    // Parameters consistent across the steps.
    const xconv_fft_transform_params *ts[3] = {&plan->filter, &plan->input, &plan->inverse};
    for (int i = 0; i < 3; i++) {
        CHECK(ts[i]->lh == plan->lh && ts[i]->lw == plan->lw && ts[i]->pitch >= ts[i]->lw);
        CHECK(ts[i]->radix_h == xconv_fft_radix_code(plan->lh) &&
              ts[i]->radix_w == xconv_fft_radix_code(plan->lw));
        CHECK(ts[i]->planes >= 2 && ts[i]->planes % 2 == 0 && ts[i]->batch == plan->batch);
        CHECK(ts[i]->inline_passes == !info->is_cpu);
    }
    CHECK(plan->gemm.batch == plan->batch && plan->gemm.tile_m % plan->gemm.wpt_m == 0 &&
          plan->gemm.tile_n % plan->gemm.wpt_n == 0 && plan->gemm.tile_k >= 1);
    // Launches within the device's limits, global a multiple of local.
    for (int s = 0; s < XCONV_FFT_STEPS; s++) {
        const xconv_fft_launch *l = &plan->launch[s];
        size_t volume = l->local[0] * l->local[1] * l->local[2];
        CHECK_MSG(volume >= 1 && volume <= info->max_work_group_size, "%s step %d: %zu items",
                  label, s, volume);
        for (int d = 0; d < 3; d++)
            CHECK_MSG(l->local[d] >= 1 && l->global[d] % l->local[d] == 0 &&
                          (!info->max_work_item_sizes[d] ||
                           l->local[d] <= info->max_work_item_sizes[d]) &&
                          (d == 0 || l->global[d] / l->local[d] <= 65535),
                      "%s step %d dim %d: global %zu, local %zu", label, s, d, l->global[d],
                      l->local[d]);
        CHECK_MSG(l->local_mem_bytes <= info->local_mem_bytes, "%s step %d: %zu local bytes",
                  label, s, l->local_mem_bytes);
        CHECK(l->label && l->source && l->kernel);
    }
    // The transform steps' work-groups cover every plane.
    const xconv_fft_launch *in = &plan->launch[XCONV_FFT_STEP_INPUT];
    CHECK(in->global[0] / in->local[0] * (size_t)plan->input.planes >= (size_t)plan->batch &&
          in->global[1] == (size_t)p->c);
    const xconv_fft_launch *fi = &plan->launch[XCONV_FFT_STEP_FILTER];
    CHECK(fi->global[0] / fi->local[0] * (size_t)plan->filter.planes >=
          (size_t)(p->k * (p->c / p->groups)));
    const xconv_fft_launch *gm = &plan->launch[XCONV_FFT_STEP_GEMM];
    CHECK(gm->global[2] == (size_t)plan->freqs &&
          gm->global[0] / gm->local[0] * (size_t)plan->gemm.tile_n >= (size_t)plan->batch);
    CHECK(strstr(plan->summary, kind_name(plan->kind)) == plan->summary);
}

// Plans every stride-1, dilation-1 shape of the small and standard suites on info, and checks
// the plans; the others must be refused.
static void test_suites_fit(const xconv_device_info *info)
{
    const char *suites[] = {"small", "standard"};
    int planned = 0, refused = 0;
    for (int s = 0; s < 2; s++) {
        int count = 0;
        const xconv_named_shape *shapes = xconv_suite_find(suites[s], &count);
        for (int i = 0; i < count; i++) {
            xconv_problem p = parse(shapes[i].spec);
            bool simple = p.stride_h == 1 && p.stride_w == 1 && p.dil_h == 1 && p.dil_w == 1 &&
                          p.r * p.s > 1 && p.c / p.groups * p.r * p.s >= XCONV_FFT_MIN_PRODUCTS;
            for (int k = 0; k < 2; k++) {
                static xconv_fft_plan plan;
                xconv_error err;
                xconv_status st = xconv_fft_plan_make((xconv_fft_kind)k, info, &p, NULL, &plan,
                                                      &err);
                char label[400];
                snprintf(label, sizeof label, "%s %s on %s", kind_name((xconv_fft_kind)k),
                         shapes[i].name, info->name);
                if (!simple) {
                    CHECK_MSG(st == XCONV_ERR_NOT_APPLICABLE, "%s: planned", label);
                    continue;
                }
                // Refusals for size: only the whole 224x224 image on a GPU's local memory; on
                // the small GPU also whole-image transforms of 48 and more.
                bool big_image = k == XCONV_FFT_WHOLE && p.h > 100;
                bool small_device = info->local_mem_bytes < (32 << 10);
                if (st == XCONV_ERR_NOT_APPLICABLE && (big_image || small_device) &&
                    (strstr(err.msg, "local memory") || strstr(err.msg, "workspace"))) {
                    refused++;
                    continue;
                }
                CHECK_MSG(st == XCONV_OK, "%s: %s", label, err.msg);
                if (st == XCONV_OK) {
                    check_plan(label, info, &p, &plan);
                    planned++;
                }
            }
        }
    }
    printf("  %s: %d plans checked, %d refused for size\n", info->name, planned, refused);
}

// ---------------------------------------------------------------------------------------------
// Chunks, forced tiles and the target shapes

static void test_chunks(void)
{
    xconv_device_info gpu = gpu_info();
    xconv_problem p = parse("n=10,c=4,h=20,w=20,k=8,r=3,pad=1");
    static xconv_fft_plan plan;
    xconv_error err;
    CHECK(xconv_fft_plan_make(XCONV_FFT_WHOLE, &gpu, &p, NULL, &plan, &err) == XCONV_OK);
    CHECK(plan.chunk == 10 && plan.passes == 1 && plan.lh == 24);
    // Room for the filter spectra and five images: passes of 4, 4, 2 (an even number of
    // spectrum columns a pass keeps the transforms' pairs of columns).
    size_t per_image = (size_t)plan.freqs * 8 * (4 + 8), filter = (size_t)plan.freqs * 8 * 32;
    gpu.max_alloc_bytes = filter + 5 * per_image + 3 * 256;
    CHECK(xconv_fft_plan_make(XCONV_FFT_WHOLE, &gpu, &p, NULL, &plan, &err) == XCONV_OK);
    CHECK_MSG(plan.chunk == 4 && plan.passes == 3, "chunk %lld", (long long)plan.chunk);
    check_plan("chunked fft", &gpu, &p, &plan);
    xconv_fft_launch full = plan.launch[XCONV_FFT_STEP_INVERSE], last;
    xconv_fft_launch_for(&plan, XCONV_FFT_STEP_INVERSE, 1, &last);
    CHECK(last.global[0] == (size_t)plan.inverse.threads && last.global[1] == full.global[1]);
    CHECK(full.global[0] == (size_t)((4 + plan.inverse.planes - 1) / plan.inverse.planes) *
                                (size_t)plan.inverse.threads);
    // A caller may ask for smaller passes, not larger ones.
    xconv_fft_options opts = {.chunk = 2};
    CHECK(xconv_fft_plan_make(XCONV_FFT_WHOLE, &gpu, &p, &opts, &plan, &err) == XCONV_OK);
    CHECK(plan.chunk == 2 && plan.passes == 5);
    opts.chunk = 8;
    CHECK(xconv_fft_plan_make(XCONV_FFT_WHOLE, &gpu, &p, &opts, &plan, &err) == XCONV_OK);
    CHECK(plan.chunk == 4);
    opts.chunk = 3;  // odd: 2
    CHECK(xconv_fft_plan_make(XCONV_FFT_WHOLE, &gpu, &p, &opts, &plan, &err) == XCONV_OK);
    CHECK(plan.chunk == 2);
    // Forced tiles.
    opts = (xconv_fft_options){.tile_h = 8, .tile_w = 12};
    CHECK(xconv_fft_plan_make(XCONV_FFT_TILED, &gpu, &p, &opts, &plan, &err) == XCONV_OK);
    CHECK(plan.lh == 8 && plan.lw == 12 && plan.out_h == 6 && plan.out_w == 10 &&
          plan.tiles_h == 4 && plan.tiles_w == 2);
    check_plan("forced tiles", &gpu, &p, &plan);
}

// The transform sizes the planner picks for the target shapes on a GPU.
static void test_targets(void)
{
    xconv_device_info gpu = gpu_info();
    static const struct {
        const char *spec;
        xconv_fft_kind kind;
        int lh, lw;  // expected transform size
        bool tiled;  // more than one tile
    } cases[] = {
        {"n=10000,c=1,h=48,w=48,k=6,r=5", XCONV_FFT_WHOLE, 48, 48, false},   // ece408_c1
        {"n=10000,c=6,h=22,w=22,k=16,r=5", XCONV_FFT_WHOLE, 24, 24, false},  // ece408_c2
        {"n=32,c=32,h=56,w=56,k=64,r=5,pad=2", XCONV_FFT_WHOLE, 60, 60, false},   // conv5x5
        {"n=16,c=64,h=64,w=64,k=64,r=11,pad=5", XCONV_FFT_WHOLE, 75, 75, false},  // 11x11
        {"n=10000,c=1,h=48,w=48,k=6,r=5", XCONV_FFT_TILED, 48, 48, false},  // one tile
        {"n=32,c=32,h=56,w=56,k=64,r=5,pad=2", XCONV_FFT_TILED, 0, 0, true},
        {"n=16,c=64,h=224,w=224,k=64,r=3,pad=1", XCONV_FFT_TILED, 0, 0, true},  // vgg3x3
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xconv_problem p = parse(cases[i].spec);
        static xconv_fft_plan plan;
        xconv_error err;
        xconv_status st = xconv_fft_plan_make(cases[i].kind, &gpu, &p, NULL, &plan, &err);
        CHECK_MSG(st == XCONV_OK, "%s: %s", cases[i].spec, err.msg);
        if (st != XCONV_OK)
            continue;
        printf("  %s\n", plan.summary);
        if (cases[i].lh)
            CHECK_MSG(plan.lh == cases[i].lh && plan.lw == cases[i].lw, "%s: %dx%d",
                      cases[i].spec, plan.lh, plan.lw);
        CHECK(cases[i].tiled == (plan.tiles_h * plan.tiles_w > 1));
        xconv_fft_costs c;
        xconv_fft_plan_costs(&plan, &p, &c);
        CHECK(c.transform_flops > 0 && c.bytes[XCONV_FFT_STEP_INPUT] > 0);
        double tiles = (double)plan.tiles_h * plan.tiles_w;
        CHECK(fabs(c.gemm_flops - 8.0 * plan.freqs * (double)p.n * tiles * (double)p.k *
                                      (double)(p.c / p.groups)) <= 1e-6 * c.gemm_flops);
    }
}

// ---------------------------------------------------------------------------------------------
// NVRTC: the GPU plans compile and keep their arrays in registers

#ifdef XCONV_HAVE_CUDA
// Writes a problem's and a step's defines into buf.
static void step_options(const xconv_problem *p, const xconv_fft_define *d, int nd, char *buf,
                         size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
#define XCONV_WRITE_DEFINE(name, expr, meaning)                                         \
    used += (size_t)snprintf(buf + used, len - used, "-D" #name "=%lld ", (long long)(expr));
    XCONV_PROBLEM_DEFINES(XCONV_WRITE_DEFINE)
#undef XCONV_WRITE_DEFINE
    for (int i = 0; i < nd && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "-D%s=%lld ", d[i].name, d[i].value);
}

// Compiles the four steps of kind's plan for spec (sm_90 CUBIN); returns false when NVRTC is
// missing.
static bool check_nvrtc(xconv_fft_kind kind, const char *spec, bool out_of_line)
{
    xconv_device_info gpu = gpu_info();
    xconv_problem p = parse(spec);
    static xconv_fft_plan plan;
    xconv_error err;
    CHECK(xconv_fft_plan_make(kind, &gpu, &p, NULL, &plan, &err) == XCONV_OK);
    for (int s = 0; s < XCONV_FFT_STEPS; s++) {
        xconv_fft_define d[32];
        int nd;
        if (s == XCONV_FFT_STEP_GEMM) {
            nd = xconv_fft_gemm_defines(&plan.gemm, d, 32);
        } else {
            xconv_fft_transform_params t = s == XCONV_FFT_STEP_FILTER  ? plan.filter
                                           : s == XCONV_FFT_STEP_INPUT ? plan.input
                                                                       : plan.inverse;
            t.inline_passes = !out_of_line;
            nd = xconv_fft_transform_defines(&t, d, 32);
        }
        char options[4096];
        step_options(&p, d, nd, options, sizeof options);
        const xconv_fft_launch *l = &plan.launch[s];
        xconv_nvrtc_image img;
        xconv_status st = xconv_nvrtc_compile(xconv_kernel_source(l->source), options, 9, 0,
                                              true, &img, &err);
        if (st == XCONV_ERR_UNAVAILABLE)
            return false;
        CHECK_MSG(st == XCONV_OK, "%s %s step %d: %s", kind_name(kind), spec, s, err.msg);
        if (st != XCONV_OK)
            continue;
        char entry[128];
        snprintf(entry, sizeof entry, ".entry %s(", l->kernel);
        CHECK_MSG(strstr(img.ptx, entry) != NULL, "%s: PTX lacks %s", spec, entry);
        if (!out_of_line)
            CHECK_MSG(strstr(img.ptx, "__local_depot") == NULL,
                      "%s %s step %d: private arrays spill to local memory", kind_name(kind),
                      spec, s);
        xconv_nvrtc_image_free(&img);
    }
    return true;
}

static void test_nvrtc(void)
{
    // Radices 4 and 3; 5 and 3 on a one-pair 75x75 transform; a tile; odd sizes out of line
    // (the CPUs' choice) compile through NVRTC too.
    static const struct {
        xconv_fft_kind kind;
        const char *spec;
        bool out_of_line;
    } cases[] = {
        {XCONV_FFT_WHOLE, "n=10000,c=1,h=48,w=48,k=6,r=5", false},
        {XCONV_FFT_WHOLE, "n=16,c=64,h=64,w=64,k=64,r=11,pad=5", false},
        {XCONV_FFT_TILED, "n=32,c=32,h=56,w=56,k=64,r=5,pad=2", false},
        {XCONV_FFT_WHOLE, "n=3,c=5,h=17,w=23,k=7,r=3,pad=1", true},
    };
    int compiled = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!check_nvrtc(cases[i].kind, cases[i].spec, cases[i].out_of_line)) {
            printf("NVRTC not available: GPU plans not compiled\n");
            return;
        }
        compiled += 4;
    }
    printf("  NVRTC: %d FFT steps compiled for sm_90\n", compiled);
}
#endif

int main(void)
{
    test_lengths();
    test_defines();
    test_refusals();
    xconv_device_info gpu = gpu_info(), cpu = cpu_info(), small = small_gpu_info();
    test_suites_fit(&gpu);
    test_suites_fit(&cpu);
    test_suites_fit(&small);
    test_chunks();
    test_targets();
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    return check_summary("test_plan_fft");
}
