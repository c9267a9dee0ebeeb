// SPDX-License-Identifier: MIT
// Tests the FFT planner with synthetic devices: smooth lengths and radix codes, the defines'
// X-macro lists, refusals with their reasons (stride, dilation, local memory, workspace, forced
// sizes), every plan of the small and standard suites within the device's limits (steps,
// regions, geometry, error block), chunked passes and forced sizes through the planning
// options, the target shapes' choices (the plans run on a device: tests/test_plan_fft_runs.c);
// where NVRTC is present, the GPU plans of the target shapes compile for sm_90 and keep their
// arrays in registers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/families/fft/plan_fft.h"
#include "tests/check.h"
#include "tests/fft_fixtures.h"
#include "tests/synthetic_devices.h"
#include "measure/check.h"
#include "../host/plan/variant.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/nvrtc_compile.h"
#endif

// The variant an FFT kind plans as.
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
// else 8; 8 where the device does not say its per-unit memory. Its columns: the block computing
// the fewest past a pass's columns (big11x11's 96: 32). Forced tiles are taken as given,
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
    // The column block: of the powers of two from the one holding a pass's B (at most 128) down
    // to 32, the one computing the fewest columns, the wider on a tie. big11x11's fft_tiled
    // (B = 96): 32 x 32 blocks of 32 channels (128-column blocks computed 32 zero columns and,
    // at 41 KiB, took 8 channels a step); the whole-image passes (B = 16, 32) as wide as B;
    // then B = 4 tiles an image x a forced chunk (176: 64 and 32 both compute 192; 120: 128,
    // 64 and 32 all compute 128).
    static const struct {
        xconv_fft_kind kind;
        const char *spec;
        int64_t chunk;
        int batch, tile_n, tile_k;
    } columns[] = {
        {XCONV_FFT_TILED, "n=16,c=64,h=64,w=64,k=64,r=11,pad=5", 0, 96, 32, 32},  // big11x11
        {XCONV_FFT_WHOLE, "n=16,c=64,h=64,w=64,k=64,r=11,pad=5", 0, 16, 16, 32},
        {XCONV_FFT_WHOLE, "n=32,c=32,h=56,w=56,k=64,r=5,pad=2", 0, 32, 32, 32},   // conv5x5
        {XCONV_FFT_TILED, "n=48,c=64,h=64,w=64,k=64,r=11,pad=5", 44, 176, 64, 32},
        {XCONV_FFT_TILED, "n=48,c=64,h=64,w=64,k=64,r=11,pad=5", 30, 120, 128, 8},
        {XCONV_FFT_TILED, "n=48,c=64,h=64,w=64,k=64,r=11,pad=5", 21, 84, 32, 32},
        {XCONV_FFT_TILED, "n=48,c=64,h=64,w=64,k=64,r=11,pad=5", 3, 12, 16, 32},
        {XCONV_FFT_TILED, "n=48,c=64,h=64,w=64,k=64,r=11,pad=5", 1, 4, 4, 32},
    };
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++) {
        xconv_problem q = parse(columns[i].spec);
        xconv_plan_options o = forced(0, 0, columns[i].chunk);
        CHECK(plan_and_check(columns[i].kind, &h100, &q, &o, columns[i].spec, &c, &err) ==
              XCONV_OK);
        CHECK_MSG(c.batch == columns[i].batch && c.params.gemm_tile_m == 32 &&
                      c.params.gemm_tile_n == columns[i].tile_n &&
                      c.params.gemm_tile_k == columns[i].tile_k && c.params.gemm_wpt_m == 4 &&
                      c.params.gemm_wpt_n == 4,
                  "%s %s chunk %lld: B %lld, tiles %d,%d,%d,%d,%d", kind_name(columns[i].kind),
                  columns[i].spec, (long long)columns[i].chunk, (long long)c.batch,
                  c.params.gemm_tile_m, c.params.gemm_tile_n, c.params.gemm_tile_k,
                  c.params.gemm_wpt_m, c.params.gemm_wpt_n);
    }
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
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    return check_summary("test_plan_fft");
}
