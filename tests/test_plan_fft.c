// SPDX-License-Identifier: MIT
// Tests the FFT planner with synthetic devices: smooth lengths and radix codes, the defines'
// X-macro lists, refusals with their reasons (stride, dilation, local memory, workspace, forced
// sizes), every plan of the small and standard suites within the device's limits (steps,
// regions, geometry, error block), chunked passes and forced sizes through the planning
// options, the target shapes' choices; where an OpenCL device is present, forced tiles and
// chunks run against float64 over their error block and give the same bits whatever the chunk,
// and the transforms on raw planes match a float64 DFT;
// where NVRTC is present, the GPU plans of the target shapes compile for sm_90 and keep their
// arrays in registers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/families/fft/plan_fft.h"
#include "tests/check.h"
#include "measure/check.h"
#include "../host/plan/variant.h"
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
    xconv_error err = {0};
    CHECK_MSG(xconv_shape_parse(spec, &p, &err) == XCONV_OK, "%s: %s", spec, err.msg);
    return p;
}

static const char *kind_name(xconv_fft_kind kind)
{
    return kind == XCONV_FFT_WHOLE ? "fft" : "fft_tiled";
}

// Planning options forcing a transform size and images per pass (0: chosen).
static xconv_plan_options forced(int tile_h, int tile_w, int64_t chunk)
{
    xconv_plan_options o;
    xconv_plan_options_default(&o);
    o.fft_tile_h = tile_h;
    o.fft_tile_w = tile_w;
    o.fft_chunk = chunk;
    return o;
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

// The X-macro list gives one define per field of the family's parameter block, named as the
// kernels read them; a name defined twice in one step is refused.
static void test_defines(void)
{
    xconv_problem p = parse("n=1,c=1,h=8,w=8,k=1,r=3");
    xconv_plan *plan = xconv_plan_new(NULL, NULL, &p, NULL);
    xconv_step *s = plan ? xconv_plan_add_step(plan, "t", "fft_forward", "fft_input") : NULL;
    CHECK(s != NULL);
    if (!s) {
        xconv_plan_destroy(plan);
        return;
    }
    xconv_fft_params t = {.lh = 24, .radix_h = 0x38, .lw = 20, .radix_w = 0x54,
                          .tiles_h = 3, .tiles_w = 2, .out_h = 20, .out_w = 16, .batch = 600,
                          .planes = 4, .pitch = 21, .threads = 128, .inline_passes = 1,
                          .gemm_tile_m = 16, .gemm_tile_n = 64, .gemm_tile_k = 8,
                          .gemm_wpt_m = 4, .gemm_wpt_n = 2};
    xconv_error err = {0};
    CHECK(xconv_fft_define(s, &t, &err) == XCONV_OK && s->ndefines == 18);
    static const struct {
        const char *name;
        long long value;
    } want[] = {{"XC_FFT_LH", 24}, {"XC_FFT_RADIX_H", 0x38}, {"XC_FFT_LW", 20},
                {"XC_FFT_RADIX_W", 0x54}, {"XC_FFT_TILES_H", 3}, {"XC_FFT_TILES_W", 2},
                {"XC_FFT_OUT_H", 20}, {"XC_FFT_OUT_W", 16}, {"XC_FFT_BATCH", 600},
                {"XC_FFT_PLANES", 4}, {"XC_FFT_PITCH", 21}, {"XC_FFT_THREADS", 128},
                {"XC_FFT_INLINE", 1}, {"XC_FFT_GEMM_TILE_M", 16}, {"XC_FFT_GEMM_TILE_N", 64},
                {"XC_FFT_GEMM_TILE_K", 8}, {"XC_FFT_GEMM_WPT_M", 4}, {"XC_FFT_GEMM_WPT_N", 2}};
    for (int i = 0; i < 18; i++)
        CHECK_MSG(xconv_step_value(s, want[i].name, -1) == want[i].value, "%s=%lld",
                  want[i].name, xconv_step_value(s, want[i].name, -1));
    CHECK(xconv_fft_define(s, &t, &err) == XCONV_ERR_INVALID);  // XC_FFT_LH again
    CHECK_CONTAINS(err.msg, "XC_FFT_LH");
    xconv_plan_destroy(plan);
}

// ---------------------------------------------------------------------------------------------
// Refusals

// Plans kind for spec on info under opts (NULL: defaults); checks it is refused as not
// applicable with every `needles` string (NULL-terminated) in the message.
static void check_refused(xconv_fft_kind kind, const xconv_device_info *info, const char *spec,
                          const xconv_plan_options *opts, const char *const *needles)
{
    xconv_problem p = parse(spec);
    xconv_fft_choice c;
    xconv_error err = {0};
    xconv_status st = xconv_fft_choose(kind, info, &p, opts, &c, &err);
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
        // A 1x1 filter is a pointwise product: refused for speed, not accuracy. A 1x3 filter
        // and a single product per output are planned: over its error block the transforms'
        // rounding is as small as elsewhere (docs/validation.md).
        check_refused(kind, &gpu, "n=1,c=1,h=33,w=33,k=4,r=1", NULL,
                      (const char *const[]){"1x1 filter", "pointwise", "gemm_1x1", NULL});
        xconv_problem p = parse("n=1,c=1,h=33,w=33,k=4,r=1,s=3");
        CHECK(xconv_fft_applies(kind, &gpu, &p, NULL, 0));
    }
    // The whole 224x224 image's transform (240x240) passes 48 KiB of local memory.
    check_refused(XCONV_FFT_WHOLE, &gpu, "n=1,c=3,h=224,w=224,k=4,r=3,pad=1", NULL,
                  (const char *const[]){"240x240", "local memory", "49152", NULL});
    // No tile of at most 64 holds a 65-tap filter; a 48-tap one needs a 50x50 tile, whose
    // pair of planes (20 KB) passes the small GPU's 16 KiB.
    check_refused(XCONV_FFT_TILED, &gpu, "n=1,c=1,h=200,w=200,k=1,r=65", NULL,
                  (const char *const[]){"65x65 filter is larger than the largest tile", NULL});
    // An image padded to the filter's size has room for no tile: said as that, not as a filter
    // too large for the largest tile.
    check_refused(XCONV_FFT_TILED, &gpu, "n=1,c=2,h=3,w=3,k=2,r=3", NULL,
                  (const char *const[]){"padded image (3x3) is no larger than the 3x3 filter",
                                        NULL});
    check_refused(XCONV_FFT_TILED, &small, "n=1,c=1,h=200,w=200,k=1,r=48", NULL,
                  (const char *const[]){"tile transform", "local memory", "16384", NULL});
    // Filter spectra alone pass a 128 MiB allocation: 40x40 transforms, 4096 x 512 planes.
    check_refused(XCONV_FFT_WHOLE, &small, "n=1,c=512,h=38,w=38,k=4096,r=3,pad=1", NULL,
                  (const char *const[]){"workspace", "MiB", "filter spectra", NULL});
    xconv_plan_options odd = forced(14, 14, 0), small_whole = forced(16, 16, 0);
    check_refused(XCONV_FFT_TILED, &gpu, "n=1,c=1,h=40,w=40,k=1,r=5", &odd,
                  (const char *const[]){"forced transform size 14x14", NULL});
    check_refused(XCONV_FFT_WHOLE, &gpu, "n=1,c=1,h=40,w=40,k=1,r=5", &small_whole,
                  (const char *const[]){"padded image", NULL});
    xconv_plan_options negative = forced(-1, -1, 0);  // what XCONV_FFT_TILE=junk gives
    check_refused(XCONV_FFT_TILED, &gpu, "n=1,c=1,h=40,w=40,k=1,r=5", &negative,
                  (const char *const[]){"forced transform size -1x-1", NULL});
}

// ---------------------------------------------------------------------------------------------
// Plans within limits

// Returns the number of steps of plan labelled `label`.
static int steps_labelled(const xconv_plan *plan, const char *label)
{
    int n = 0;
    for (int i = 0; i < plan->nsteps; i++)
        n += strcmp(xconv_plan_step(plan, i)->label, label) == 0;
    return n;
}

// Checks the invariants of a choice for p on info.
static void check_choice(const char *label, const xconv_problem *p, const xconv_fft_choice *c)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    CHECK_MSG(c->lh >= p->r && c->lw >= p->s && xconv_fft_radix_code(c->lh) &&
                  xconv_fft_radix_code(c->lw),
              "%s: %dx%d transforms", label, c->lh, c->lw);
    if (c->kind == XCONV_FFT_WHOLE)
        CHECK_MSG(c->lh >= p->h + 2 * p->pad_h && c->lw >= p->w + 2 * p->pad_w &&
                      c->tiles_h == 1 && c->tiles_w == 1 && c->out_h == P && c->out_w == Q,
                  "%s: %dx%d whole-image transforms", label, c->lh, c->lw);
    // Overlap-save: each tile's valid outputs, and the tiles cover the output.
    CHECK_MSG(c->out_h >= 1 && c->out_h <= c->lh - p->r + 1 && c->out_w >= 1 &&
                  c->out_w <= c->lw - p->s + 1,
              "%s: %dx%d outputs per %dx%d tile", label, c->out_h, c->out_w, c->lh, c->lw);
    CHECK_MSG((int64_t)c->tiles_h * c->out_h >= P && (int64_t)c->tiles_w * c->out_w >= Q &&
                  (int64_t)(c->tiles_h - 1) * c->out_h < P &&
                  (int64_t)(c->tiles_w - 1) * c->out_w < Q,
              "%s: %dx%d tiles of %dx%d for %lldx%lld outputs", label, c->tiles_h, c->tiles_w,
              c->out_h, c->out_w, (long long)P, (long long)Q);
    CHECK(c->freqs == c->lh * (c->lw / 2 + 1));
    CHECK_MSG(c->chunk >= 1 && c->chunk <= p->n && c->passes * c->chunk >= p->n &&
                  (c->passes - 1) * c->chunk < p->n,
              "%s: %lld passes of %lld images", label, (long long)c->passes, (long long)c->chunk);
    CHECK_MSG(c->passes == 1 || c->chunk == 1 || c->batch % 2 == 0,
              "%s: passes of %lld columns split the transforms' pairs", label,
              (long long)c->batch);
    CHECK(c->batch == c->chunk * c->tiles_h * c->tiles_w);
    CHECK(fabsf(c->filter_scale * (float)c->lh * (float)c->lw - 1.0f) < 1e-6f);
    size_t f8 = (size_t)c->freqs * 8;
    CHECK(c->input_bytes == f8 * (size_t)p->c * (size_t)c->batch);
    CHECK(c->filter_bytes == f8 * (size_t)p->k * (size_t)(p->c / p->groups));
    CHECK(c->output_bytes == f8 * (size_t)p->k * (size_t)c->batch);
    const xconv_fft_params *ts[2] = {&c->params, &c->filter};
    for (int i = 0; i < 2; i++) {
        CHECK(ts[i]->lh == c->lh && ts[i]->lw == c->lw && ts[i]->pitch >= ts[i]->lw);
        CHECK(ts[i]->radix_h == xconv_fft_radix_code(c->lh) &&
              ts[i]->radix_w == xconv_fft_radix_code(c->lw));
        CHECK(ts[i]->planes >= 2 && ts[i]->planes % 2 == 0 && ts[i]->batch == c->batch);
    }
    // The filter transform's block differs only in its work-groups.
    xconv_fft_params f = c->filter;
    f.planes = c->params.planes, f.threads = c->params.threads;
    CHECK(memcmp(&f, &c->params, sizeof f) == 0);
    const xconv_fft_params *g = &c->params;
    CHECK(g->gemm_tile_m % g->gemm_wpt_m == 0 && g->gemm_tile_n % g->gemm_wpt_n == 0 &&
          g->gemm_tile_k >= 1);
}

// Checks a plan's steps and regions against its choice and info's limits.
static void check_plan(const char *label, const xconv_device_info *info, const xconv_problem *p,
                       const xconv_fft_choice *c, const xconv_plan *plan)
{
    CHECK_MSG(plan->nsteps == 1 + 3 * (int)c->passes &&
                  steps_labelled(plan, "filter transform") == 1 &&
                  steps_labelled(plan, "inverse transform") == (int)c->passes,
              "%s: %d steps for %lld passes", label, plan->nsteps, (long long)c->passes);
    CHECK_MSG(plan->error_block_h == c->out_h && plan->error_block_w == c->out_w,
              "%s: error block %lldx%lld", label, (long long)plan->error_block_h,
              (long long)plan->error_block_w);
    CHECK(plan->nregions == 3 && strcmp(plan->regions[0].name, "input spectra") == 0 &&
          strcmp(plan->regions[1].name, "filter spectra") == 0 &&
          strcmp(plan->regions[2].name, "output spectra") == 0);
    CHECK(plan->regions[0].bytes == c->input_bytes && plan->regions[1].bytes == c->filter_bytes &&
          plan->regions[2].bytes == c->output_bytes);
    CHECK_MSG(plan->workspace_bytes <= info->max_alloc_bytes &&
                  plan->workspace_bytes / 4 <= (size_t)XCONV_MAX_INDEX,
              "%s: workspace %zu bytes", label, plan->workspace_bytes);
    int64_t images = 0;
    for (int i = 0; i < plan->nsteps; i++) {
        const xconv_step *s = xconv_plan_step(plan, i);
        size_t volume = s->local[0] * s->local[1] * s->local[2];
        CHECK_MSG(volume >= 1 && volume <= info->max_work_group_size, "%s step %d: %zu items",
                  label, i, volume);
        for (int d = 0; d < 3; d++)
            CHECK_MSG(s->local[d] >= 1 && s->global[d] % s->local[d] == 0 &&
                          (!info->max_work_item_sizes[d] ||
                           s->local[d] <= info->max_work_item_sizes[d]) &&
                          (d == 0 || s->global[d] / s->local[d] <= 65535),
                      "%s step %d dim %d: global %zu, local %zu", label, i, d, s->global[d],
                      s->local[d]);
        CHECK_MSG(s->local_mem_bytes <= info->local_mem_bytes, "%s step %d: %zu local bytes",
                  label, i, s->local_mem_bytes);
        long long planes = xconv_step_value(s, "XC_FFT_PLANES", 0);
        if (strcmp(s->label, "filter transform") == 0) {
            CHECK(s->global[0] / s->local[0] * (size_t)planes >= (size_t)(p->k * (p->c / p->groups)));
        } else if (strcmp(s->label, "input transform") == 0) {
            // Arguments (x, workspace, offset, n0, images): the passes cover the batch in order.
            CHECK_MSG(s->nargs == 5 && s->args[3].i == images && s->args[4].i >= 1 &&
                          s->args[4].i <= c->chunk,
                      "%s step %d: pass from image %d", label, i, s->args[3].i);
            images += s->args[4].i;
            CHECK(s->global[0] / s->local[0] * (size_t)planes >=
                      (size_t)(s->args[4].i * c->tiles_h * c->tiles_w) &&
                  s->global[1] == (size_t)p->c);
        } else if (strcmp(s->label, "channel sum") == 0) {
            CHECK(s->global[2] == (size_t)c->freqs && s->nargs == 7 &&
                  s->global[0] / s->local[0] * (size_t)c->params.gemm_tile_n >= (size_t)s->args[6].i);
        } else {
            CHECK(strcmp(s->label, "inverse transform") == 0 && s->global[1] == (size_t)p->k);
        }
    }
    CHECK_MSG(images == p->n, "%s: the passes cover %lld of %lld images", label,
              (long long)images, (long long)p->n);
}

// Chooses and plans kind for p on info under opts; checks both. Returns the status.
static xconv_status plan_and_check(xconv_fft_kind kind, const xconv_device_info *info,
                                   const xconv_problem *p, const xconv_plan_options *opts,
                                   const char *label, xconv_fft_choice *c, xconv_error *err)
{
    xconv_device dev = {.info = *info};
    const xconv_variant *v = xconv_variant_find(kind_name(kind), err);
    CHECK(v != NULL);
    xconv_status st = xconv_fft_choose(kind, info, p, opts, c, err);
    xconv_plan *plan = NULL;
    xconv_error perr = {0};
    xconv_status pst = v ? xconv_variant_plan(v, &dev, p, opts, &plan, &perr) : st;
    CHECK_MSG(st == pst, "%s: choose %d, plan %d", label, st, pst);
    if (st == XCONV_OK && plan) {
        check_choice(label, p, c);
        check_plan(label, info, p, c, plan);
    }
    xconv_plan_destroy(plan);
    return st;
}

// Plans every stride-1, dilation-1 shape of the small and standard suites with a filter larger
// than 1x1 on info, and checks the plans; the others must be refused.
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
                          (p.r > 1 || p.s > 1);
            for (int k = 0; k < 2; k++) {
                xconv_fft_choice c;
                xconv_error err = {0};
                char label[400];
                snprintf(label, sizeof label, "%s %s on %s", kind_name((xconv_fft_kind)k),
                         shapes[i].name, info->name);
                xconv_status st =
                    plan_and_check((xconv_fft_kind)k, info, &p, NULL, label, &c, &err);
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
                planned += st == XCONV_OK;
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
    xconv_fft_choice c;
    xconv_error err = {0};
    CHECK(plan_and_check(XCONV_FFT_WHOLE, &gpu, &p, NULL, "fft", &c, &err) == XCONV_OK);
    CHECK(c.chunk == 10 && c.passes == 1 && c.lh == 24);
    // Room for the filter spectra and five images: passes of 4, 4, 2 (an even number of
    // spectrum columns a pass keeps the transforms' pairs of columns).
    size_t per_image = (size_t)c.freqs * 8 * (4 + 8), filter = (size_t)c.freqs * 8 * 32;
    gpu.max_alloc_bytes = filter + 5 * per_image + 3 * 256;
    CHECK(plan_and_check(XCONV_FFT_WHOLE, &gpu, &p, NULL, "chunked fft", &c, &err) == XCONV_OK);
    CHECK_MSG(c.chunk == 4 && c.passes == 3, "chunk %lld", (long long)c.chunk);
    // A caller may ask for smaller passes, not larger ones; an odd one loses an image.
    static const struct {
        int64_t ask, chunk, passes;
    } asks[] = {{2, 2, 5}, {8, 4, 3}, {3, 2, 5}, {1, 1, 10}};
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
        xconv_plan_options o = forced(0, 0, asks[i].ask);
        CHECK(plan_and_check(XCONV_FFT_WHOLE, &gpu, &p, &o, "forced chunk", &c, &err) ==
              XCONV_OK);
        CHECK_MSG(c.chunk == asks[i].chunk && c.passes == asks[i].passes,
                  "asked %lld: chunk %lld, %lld passes", (long long)asks[i].ask,
                  (long long)c.chunk, (long long)c.passes);
    }
    // Forced tiles, square (one length) and not.
    xconv_plan_options o = forced(8, 12, 0);
    CHECK(plan_and_check(XCONV_FFT_TILED, &gpu, &p, &o, "forced tiles", &c, &err) == XCONV_OK);
    CHECK(c.lh == 8 && c.lw == 12 && c.out_h == 6 && c.out_w == 10 && c.tiles_h == 4 &&
          c.tiles_w == 2);
    o = forced(27, 27, 3);
    CHECK(plan_and_check(XCONV_FFT_WHOLE, &gpu, &p, &o, "forced whole", &c, &err) == XCONV_OK);
    CHECK(c.lh == 27 && c.lw == 27 && c.chunk == 2);
}

// Forced planes per work-group: every transform step takes them (conv5x5's 32x60 tiles on the
// H100-like GPU: one pair chosen, two or four asked), refused with the bytes where the frames
// pass the local memory; out-of-range values are the options check's.
static void test_forced_planes(void)
{
    xconv_device_info gpu = gpu_info();
    const char *spec = "n=32,c=32,h=56,w=56,k=64,r=5,pad=2";
    xconv_problem p = parse(spec);
    xconv_fft_choice c;
    xconv_error err = {0};
    CHECK(plan_and_check(XCONV_FFT_TILED, &gpu, &p, NULL, spec, &c, &err) == XCONV_OK);
    CHECK_MSG(c.lh == 32 && c.lw == 60 && c.params.planes == 2 && c.filter.planes == 2,
              "%dx%d, planes %d and %d", c.lh, c.lw, c.params.planes, c.filter.planes);
    xconv_plan_options o = forced(0, 0, 0);
    o.fft_planes = 4;
    CHECK(plan_and_check(XCONV_FFT_TILED, &gpu, &p, &o, "4 planes", &c, &err) == XCONV_OK);
    CHECK_MSG(c.params.planes == 4 && c.filter.planes == 4 && c.params.threads == 256,
              "planes %d and %d, %d work-items", c.params.planes, c.filter.planes,
              c.params.threads);
    o.fft_planes = 8;  // 4 x 32 x 60 x 8 + (32 + 60) x 8 = 62176 bytes
    check_refused(XCONV_FFT_TILED, &gpu, spec, &o,
                  (const char *const[]){"8 planes per work-group", "32x60", "62176",
                                        "49152", NULL});
    static const int bad[] = {-2, 1, 3, 6, 16};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.fft_planes = bad[i];
        CHECK_MSG(xconv_plan_options_check(&o, &err) == XCONV_ERR_INVALID, "%d", bad[i]);
        CHECK_CONTAINS(err.msg, "fft_planes");
    }
}

// The transform sizes the planner picks for the FFT chapter's measured shapes on a GPU.
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
        {"n=16,c=64,h=64,w=64,k=64,r=11,pad=5", XCONV_FFT_WHOLE, 75, 75, false},  // big11x11
        {"n=10000,c=1,h=48,w=48,k=6,r=5", XCONV_FFT_TILED, 48, 48, false},  // one tile
        {"n=32,c=32,h=56,w=56,k=64,r=5,pad=2", XCONV_FFT_TILED, 0, 0, true},
        {"n=16,c=64,h=224,w=224,k=64,r=3,pad=1", XCONV_FFT_TILED, 0, 0, true},  // vgg3x3
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xconv_problem p = parse(cases[i].spec);
        xconv_fft_choice c;
        xconv_error err = {0};
        xconv_status st = plan_and_check(cases[i].kind, &gpu, &p, NULL, cases[i].spec, &c, &err);
        CHECK_MSG(st == XCONV_OK, "%s: %s", cases[i].spec, err.msg);
        if (st != XCONV_OK)
            continue;
        printf("  %s %s: %dx%d transforms, %dx%d tiles of %dx%d\n", kind_name(cases[i].kind),
               cases[i].spec, c.lh, c.lw, c.tiles_h, c.tiles_w, c.out_h, c.out_w);
        if (cases[i].lh)
            CHECK_MSG(c.lh == cases[i].lh && c.lw == cases[i].lw, "%s: %dx%d", cases[i].spec,
                      c.lh, c.lw);
        CHECK(cases[i].tiled == (c.tiles_h * c.tiles_w > 1));
        xconv_fft_costs costs;
        xconv_fft_choice_costs(&c, &costs);
        CHECK(costs.transform_flops > 0 && costs.input_bytes > 0);
        double tiles = (double)c.tiles_h * c.tiles_w;
        CHECK(fabs(costs.gemm_flops - 8.0 * c.freqs * (double)p.n * tiles * (double)p.k *
                                          (double)(p.c / p.groups)) <= 1e-6 * costs.gemm_flops);
    }
}

// The channel sum's block a work-item holds narrows where the device's registers a work-item
// are few (as pvc's profile: 64); unchanged where the device does not say.
static void test_register_rule(void)
{
    xconv_device_info gpu = gpu_info(), few = gpu;
    few.max_registers_per_item = 64;
    const char *spec = "n=32,c=32,h=56,w=56,k=64,r=5,pad=2";  // conv5x5
    xconv_problem p = parse(spec);
    for (int kind = XCONV_FFT_WHOLE; kind <= XCONV_FFT_TILED; kind++) {
        xconv_fft_choice a, b;
        xconv_error err;
        CHECK(plan_and_check((xconv_fft_kind)kind, &gpu, &p, NULL, spec, &a, &err) == XCONV_OK);
        CHECK(plan_and_check((xconv_fft_kind)kind, &few, &p, NULL, spec, &b, &err) == XCONV_OK);
        const xconv_fft_params *t = &b.params;
        CHECK(a.params.gemm_wpt_m == 4 && a.params.gemm_wpt_n == 4);
        int values = 2 * (t->gemm_wpt_m * t->gemm_wpt_n + t->gemm_wpt_m + t->gemm_wpt_n);
        CHECK_MSG(values + XCONV_REGISTERS_OTHER <= 64 && t->gemm_wpt_m * t->gemm_wpt_n >= 4,
                  "%dx%d complex sums a work-item under 64 registers", t->gemm_wpt_m,
                  t->gemm_wpt_n);
    }
}

// The channel sum's channels a step: all of a group's up to 32 where the blocks take at most an
// eighth of a compute unit's local memory (228 KiB on an H100: conv5x5's 32 x 64 block, 25 KiB),
// else 8; 8 where the device does not say its per-unit memory. Forced tiles are taken as given,
// and refused with the reason where they pass the kernel's or the device's limits.
static void test_gemm_tiles(void)
{
    xconv_device_info gpu = gpu_info(), h100 = gpu;
    h100.local_mem_per_unit_bytes = 228 << 10;
    const char *spec = "n=32,c=32,h=56,w=56,k=64,r=5,pad=2";  // conv5x5
    xconv_problem p = parse(spec);
    xconv_fft_choice c;
    xconv_error err;
    CHECK(plan_and_check(XCONV_FFT_TILED, &gpu, &p, NULL, spec, &c, &err) == XCONV_OK);
    CHECK(c.params.gemm_tile_k == 8);
    CHECK(plan_and_check(XCONV_FFT_TILED, &h100, &p, NULL, spec, &c, &err) == XCONV_OK);
    CHECK(c.params.gemm_tile_m == 32 && c.params.gemm_tile_n == 64 &&
          c.params.gemm_tile_k == 32 && c.params.gemm_wpt_m == 4 && c.params.gemm_wpt_n == 4);
    xconv_device_info small_unit = h100;  // 25 KiB of blocks pass an eighth of 128 KiB
    small_unit.local_mem_per_unit_bytes = 128 << 10;
    CHECK(plan_and_check(XCONV_FFT_TILED, &small_unit, &p, NULL, spec, &c, &err) == XCONV_OK);
    CHECK(c.params.gemm_tile_k == 8);
    const char *few = "n=4,c=6,h=20,w=20,k=8,r=3,pad=1";  // 6 channels: one step of 6
    xconv_problem q = parse(few);
    CHECK(plan_and_check(XCONV_FFT_TILED, &h100, &q, NULL, few, &c, &err) == XCONV_OK);
    CHECK(c.params.gemm_tile_k == 6);

    xconv_plan_options o;
    xconv_plan_options_default(&o);
    const int taken[5] = {64, 64, 32, 8, 4};
    memcpy(o.fft_gemm, taken, sizeof taken);
    CHECK(plan_and_check(XCONV_FFT_TILED, &h100, &p, &o, spec, &c, &err) == XCONV_OK);
    CHECK(c.params.gemm_tile_m == 64 && c.params.gemm_tile_n == 64 &&
          c.params.gemm_tile_k == 32 && c.params.gemm_wpt_m == 8 && c.params.gemm_wpt_n == 4);
    static const struct {
        int v[5];
        const char *why;
    } bad[] = {
        {{30, 64, 8, 4, 4}, "multiple of WM"},
        {{64, 64, 8, 16, 4}, "WM and WN 1..8"},
        {{-1, 64, 8, 4, 4}, "WM and WN 1..8"},
        {{256, 512, 8, 1, 1}, "work-groups of"},
        {{64, 512, 64, 8, 8}, "bytes of local memory"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(o.fft_gemm, bad[i].v, sizeof bad[i].v);
        CHECK(plan_and_check(XCONV_FFT_TILED, &h100, &p, &o, spec, &c, &err) ==
              XCONV_ERR_NOT_APPLICABLE);
        CHECK_CONTAINS(err.msg, bad[i].why);
        CHECK_CONTAINS(err.msg, "fft_gemm");
    }
    xconv_device_info narrow = h100;  // 64 registers a work-item: 8x8 sums do not fit
    narrow.max_registers_per_item = 64;
    const int wide[5] = {64, 64, 32, 8, 8};
    memcpy(o.fft_gemm, wide, sizeof wide);
    CHECK(plan_and_check(XCONV_FFT_TILED, &narrow, &p, &o, spec, &c, &err) ==
          XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "registers");
}

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
    CHECK(xconv_fft2d_create(dev, 14, 10, 3, NULL, &err) == NULL && err.status == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "2^a 3^b 5^c");
    free(x), free(spec), free(back);
    xconv_buffer_destroy(dx), xconv_buffer_destroy(ds), xconv_buffer_destroy(db);
    xconv_fft2d_destroy(f);
}

// ---------------------------------------------------------------------------------------------
// NVRTC: the GPU plans compile and keep their arrays in registers

#ifdef XCONV_HAVE_CUDA
// Compiles the distinct steps of kind's GPU plan for spec (sm_90 CUBIN), out of line when asked
// (the CPUs' passes); returns false when NVRTC is missing.
static bool check_nvrtc(xconv_fft_kind kind, const char *spec, bool out_of_line)
{
    xconv_device dev = {.info = gpu_info()};
    xconv_problem p = parse(spec);
    xconv_error err = {0};
    xconv_plan *plan = NULL;
    const xconv_variant *v = xconv_variant_find(kind_name(kind), &err);
    CHECK(v && xconv_variant_plan(v, &dev, &p, NULL, &plan, &err) == XCONV_OK);
    for (int i = 0; plan && i < plan->nsteps && i < 4; i++) {  // the filter step and a pass
        const xconv_step *s = xconv_plan_step(plan, i);
        char options[4096];
        xconv_step_options(s, options, sizeof options);
        if (out_of_line) {
            char *at = strstr(options, "-DXC_FFT_INLINE=1");
            if (at)
                at[strlen("-DXC_FFT_INLINE=")] = '0';
        }
        xconv_nvrtc_image img;
        xconv_status st = xconv_nvrtc_compile(xconv_kernel_source(s->source), options, 9, 0,
                                              true, &img, &err);
        if (st == XCONV_ERR_UNAVAILABLE) {
            xconv_plan_destroy(plan);
            return false;
        }
        CHECK_MSG(st == XCONV_OK, "%s %s step %d: %s", kind_name(kind), spec, i, err.msg);
        if (st != XCONV_OK)
            continue;
        char entry[128];
        snprintf(entry, sizeof entry, ".entry %s(", s->kernel);
        CHECK_MSG(strstr(img.ptx, entry) != NULL, "%s: PTX lacks %s", spec, entry);
        if (!out_of_line)
            CHECK_MSG(strstr(img.ptx, "__local_depot") == NULL,
                      "%s %s step %d: private arrays spill to local memory", kind_name(kind),
                      spec, i);
        xconv_nvrtc_image_free(&img);
    }
    xconv_plan_destroy(plan);
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
    test_forced_planes();
    test_targets();
    test_register_rule();
    test_gemm_tiles();
    xconv_device *dev = open_device();
    if (dev) {
        test_forced_runs(dev);
        test_chunked_runs(dev);
        test_planes_runs(dev);
        test_planes(dev);
        xconv_device_close(dev);
    } else {
        printf("no OpenCL device: forced tiles and chunks not run\n");
    }
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    return check_summary("test_plan_fft");
}
