// SPDX-License-Identifier: MIT
// Tests the GEMM planner with synthetic devices (tiles within every limit, narrow products get
// narrow tiles, im2col chunks under small allocations, huge SGEMMs refused), and, where NVRTC is
// present, compiles the GPU plans and checks they keep their accumulators in registers (the
// plans run on a device: tests/test_plan_gemm_runs.c).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../host/families/gemm/plan_gemm.h"
#include "tests/check.h"
#include "tests/gemm_fixtures.h"
#include "tests/synthetic_devices.h"
#include "measure/check.h"
#include "../host/plan/variant.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/nvrtc_compile.h"
#endif

// ---------------------------------------------------------------------------------------------
// Plans within limits

// Returns the plan's last GEMM step (cl/sgemm.cl; a split-K reduce may follow it).
static const xconv_step *gemm_step(const xconv_plan *plan)
{
    for (int i = plan->nsteps - 1; i > 0; i--)
        if (!strcmp(xconv_plan_step(plan, i)->source, "sgemm"))
            return xconv_plan_step(plan, i);
    return xconv_plan_step(plan, 0);
}

// Returns the value of define `name` of the plan's GEMM step, or -1.
static long long define_of(const xconv_plan *plan, const char *name)
{
    return xconv_step_value(gemm_step(plan), name, -1);
}

// The tiles a plan's defines describe.
static xconv_gemm_tiles tiles_of(const xconv_plan *plan)
{
    return (xconv_gemm_tiles){
        (int)define_of(plan, "XC_GEMM_TILE_M"), (int)define_of(plan, "XC_GEMM_TILE_N"),
        (int)define_of(plan, "XC_GEMM_TILE_K"), (int)define_of(plan, "XC_GEMM_WPT_M"),
        (int)define_of(plan, "XC_GEMM_WPT_N"), (int)define_of(plan, "XC_GEMM_VW"),
        (int)define_of(plan, "XC_GEMM_PAD")};
}

// Checks every step of plan against info's limits.
static void check_plan_limits(const char *label, const xconv_device_info *info,
                              const xconv_plan *plan)
{
    for (int s = 0; s < plan->nsteps; s++) {
        const xconv_step *step = xconv_plan_step(plan, s);
        size_t volume = step->local[0] * step->local[1] * step->local[2];
        CHECK_MSG(volume <= info->max_work_group_size, "%s step %d: %zu work-items", label, s,
                  volume);
        for (int d = 0; d < 3; d++) {
            CHECK_MSG(step->local[d] >= 1 && step->global[d] % step->local[d] == 0,
                      "%s step %d dim %d: global %zu, local %zu", label, s, d, step->global[d],
                      step->local[d]);
            CHECK_MSG(!info->max_work_item_sizes[d] ||
                          step->local[d] <= info->max_work_item_sizes[d],
                      "%s step %d dim %d: local %zu", label, s, d, step->local[d]);
        }
        CHECK_MSG(step->local_mem_bytes <= info->local_mem_bytes, "%s step %d: %zu local bytes",
                  label, s, step->local_mem_bytes);
    }
    CHECK_MSG(plan->workspace_bytes <= info->max_alloc_bytes, "%s: workspace %zu", label,
              plan->workspace_bytes);
    xconv_gemm_tiles t = tiles_of(plan);
    char why[256] = "";
    CHECK_MSG(xconv_gemm_tiles_fit(info, &t, (xconv_gemm_mode)define_of(plan, "XC_GEMM_B_MODE"),
                                   (int)define_of(plan, "XC_GEMM_VEC_B"), why, sizeof why),
              "%s: %s", label, why);
}

// Plans every GEMM variant for every shape of both suites on info and checks the limits.
static void test_suites_fit(const xconv_device_info *info)
{
    xconv_device dev = {.info = *info};
    const char *suites[] = {"small", "standard"};
    int planned = 0;
    for (size_t s = 0; s < 2; s++) {
        int count = 0;
        const xconv_named_shape *shapes = xconv_suite_find(suites[s], &count);
        for (int i = 0; i < count; i++) {
            xconv_problem p;
            xconv_error err = {0};
            CHECK(xconv_shape_parse(shapes[i].spec, &p, &err) == XCONV_OK);
            for (size_t v = 0; v < sizeof gemm_names / sizeof gemm_names[0]; v++) {
                const xconv_variant *var = xconv_variant_find(gemm_names[v], &err);
                CHECK(var != NULL);
                char reason[256], label[384];
                if (!var || !xconv_variant_applies(var, &dev, &p, reason, sizeof reason))
                    continue;
                snprintf(label, sizeof label, "%s %s on %s", gemm_names[v], shapes[i].name,
                         info->name);
                xconv_plan *plan = NULL;
                xconv_status st = xconv_variant_plan(var, &dev, &p, NULL, &plan, &err);
                CHECK_MSG(st == XCONV_OK, "%s: %s", label, err.msg);
                if (st == XCONV_OK)
                    check_plan_limits(label, info, plan), planned++;
                xconv_plan_destroy(plan);
            }
        }
    }
    CHECK(planned > 40);
}

// ---------------------------------------------------------------------------------------------
// Tile choices

static xconv_gemm_tiles choose(const xconv_device_info *info, int64_t m, int64_t n, int64_t k)
{
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = m, .n = n, .k = k, .lda = k,
                           .ldb = n, .ldc = n, .seg = n, .groups = 1};
    xconv_gemm_tiles t = {0};
    xconv_error err = {0};
    CHECK_MSG(xconv_gemm_choose_tiles(info, &L, NULL, &t, &err) == XCONV_OK,
              "no tiles for %lldx%lldx%lld on %s", (long long)m, (long long)n, (long long)k,
              info->name);
    return t;
}

static void test_tile_choices(void)
{
    xconv_device_info gpu = gpu_info(), cpu = cpu_info(), small = small_gpu_info();
    xconv_gemm_tiles t = choose(&gpu, 8192, 8192, 8192);  // big: the 8x8 register blocks
    CHECK_MSG(t.tile_m >= 64 && t.tile_n == 128 && t.wpt_m == 8 && t.wpt_n == 8,
              "8192^3 on a GPU got %dx%d tiles, %dx%d per work-item", t.tile_m, t.tile_n,
              t.wpt_m, t.wpt_n);
    t = choose(&gpu, 6, 1936 * 10000, 25);  // ece408_c1: 6 filters
    CHECK_MSG(t.tile_m <= 16, "6 rows got tile_m %d", t.tile_m);
    t = choose(&gpu, 64, 64, 64);  // one small product: keep compute units busy
    CHECK_MSG(t.tile_m * t.tile_n <= 64 * 64, "64^3 got %dx%d tiles", t.tile_m, t.tile_n);
    t = choose(&small, 4096, 4096, 4096);
    CHECK_MSG(xconv_gemm_threads(&t) <= 256 && xconv_gemm_local_bytes(&t) <= 16 << 10,
              "small GPU got %zu work-items, %zu local bytes", xconv_gemm_threads(&t),
              xconv_gemm_local_bytes(&t));
    t = choose(&cpu, 1024, 1024, 1024);
    CHECK(xconv_gemm_threads(&t) <= 4096);

    xconv_device_info none = small;
    none.local_mem_bytes = 256;
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = 64, .n = 64, .k = 64, .lda = 64,
                           .ldb = 64, .ldc = 64, .seg = 64, .groups = 1};
    xconv_error err = {0};
    CHECK(xconv_gemm_choose_tiles(&none, &L, NULL, &t, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "no GEMM tiles fit");
    // Forced tiles replace the choice, and are refused when malformed or too large.
    xconv_forced_gemm_tiles forced = tiles_text("32,32,16,4,4,1");
    CHECK(xconv_gemm_choose_tiles(&gpu, &L, &forced, &t, &err) == XCONV_OK);
    CHECK(t.tile_m == 32 && t.wpt_n == 4 && t.vw == 1 && t.pad == 1);
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    xconv_tuning bad = {.gemm_tiles = "32,32"};
    CHECK(xconv_tuning_apply(&bad, &opts, &err) == XCONV_ERR_PARSE);
    forced = tiles_text("128,128,16,8,8");
    CHECK(xconv_gemm_choose_tiles(&small, &L, &forced, &t, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "forced GEMM tiles");
    char why[256] = "";
    xconv_gemm_tiles big = {128, 128, 16, 8, 8, 4, 4};
    CHECK(!xconv_gemm_tiles_fit(&small, &big, XCONV_GEMM_B_MEMORY, 4, why, sizeof why));
    CHECK_CONTAINS(why, "local memory");
}

// The register rule: candidates whose values pass a work-item's registers are left out where
// the device says how many it holds (AMD's and Intel's profiles); NVIDIA's plans are unchanged.
static void test_register_rule(void)
{
    xconv_gemm_tiles t88 = {128, 128, 8, 8, 8, 4, 4};  // 64 sums, 16 fragments, 4 + 4 loads
    CHECK(xconv_gemm_tile_registers(&t88, XCONV_GEMM_B_MEMORY) == 88);
    CHECK(xconv_gemm_tile_registers(&t88, XCONV_GEMM_B_GATHER) == 92);
    xconv_device_info gpu = gpu_info(), wide = gpu, narrow = gpu, tiny = gpu;
    wide.max_registers_per_item = 256;   // an AMD lane: every candidate fits, as without a limit
    narrow.max_registers_per_item = 128;
    tiny.max_registers_per_item = 64;
    xconv_gemm_tiles a = choose(&gpu, 8192, 8192, 8192), b = choose(&wide, 8192, 8192, 8192);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    const xconv_device_info *limited[] = {&narrow, &tiny};
    for (int d = 0; d < 2; d++) {
        for (int mode = XCONV_GEMM_B_MEMORY; mode <= XCONV_GEMM_B_TABLE; mode++) {
            xconv_gemm_layout L = {.mode = (xconv_gemm_mode)mode, .m = 256, .n = 50176,
                                   .k = 1152, .lda = 1152, .ldb = 50176, .ldc = 50176,
                                   .seg = 50176, .groups = 1, .taps = mode ? 9 : 0};
            xconv_gemm_tiles t;
            xconv_error err;
            xconv_status st = xconv_gemm_choose_tiles(limited[d], &L, NULL, &t, &err);
            int64_t values = st == XCONV_OK ? xconv_gemm_tile_registers(&t, L.mode) : 0;
            CHECK_MSG(st == XCONV_OK ? values + XCONV_REGISTERS_OTHER <=
                                           limited[d]->max_registers_per_item
                                     : strstr(err.msg, "registers a work-item") != NULL,
                      "%d registers, mode %d: %s (%lld values)",
                      limited[d]->max_registers_per_item, mode,
                      st == XCONV_OK ? "chosen" : err.msg, (long long)values);
        }
    }
    xconv_gemm_tiles t = choose(&tiny, 8192, 8192, 8192);  // memory mode fits 4x4 blocks
    CHECK(t.wpt_m * t.wpt_n <= 16);
    // Forced tiles are the user's: the rule does not refuse them.
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = 64, .n = 64, .k = 64, .lda = 64,
                           .ldb = 64, .ldc = 64, .seg = 64, .groups = 1};
    xconv_error err;
    xconv_forced_gemm_tiles forced = tiles_text("64,128,8,8,8");
    CHECK(xconv_gemm_choose_tiles(&tiny, &L, &forced, &t, &err) == XCONV_OK);
}

// At the register file's edge the roomiest tiling of a block: on a 128-register work-item the
// Winograd GEMM of VGG-16's conv3_1 (36 products of 256x3136x128) took 128x64x8 tiles of 8x8,
// 92 values and 32 others, which IGC spilled on dg2; 128x128x8 holds 88.
static void test_register_edge(void)
{
    xconv_device_info narrow = gpu_info();
    narrow.max_registers_per_item = 128;
    narrow.compute_units = 512;
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = 256, .n = 3136, .k = 128,
                           .lda = 128, .ldb = 3136, .ldc = 3136, .seg = 3136, .groups = 36};
    xconv_gemm_tiles t;
    xconv_error err = {0};
    CHECK(xconv_gemm_choose_tiles(&narrow, &L, NULL, &t, &err) == XCONV_OK);
    CHECK_MSG(xconv_gemm_tile_registers(&t, L.mode) + XCONV_REGISTERS_OTHER + 128 / 16 <= 128,
              "%dx%dx%d tiles of %dx%d", t.tile_m, t.tile_n, t.tile_k, t.wpt_m, t.wpt_n);
    // Gathered B: 128x128x8 (92 values) is the 8x8 block's roomiest, kept at the edge.
    L.mode = XCONV_GEMM_B_GATHER, L.taps = 9;
    xconv_gemm_tiles t88 = {128, 128, 8, 8, 8, 4, 4};
    CHECK(xconv_gemm_choose_tiles(&narrow, &L, NULL, &t, &err) == XCONV_OK);
    CHECK(t.wpt_m * t.wpt_n < 64 || memcmp(&t, &t88, sizeof t) == 0);
}

// The K-step loop stays rolled where a whole unroll's values would pass the registers: 4x4
// blocks of 32x32x8 tiles hold 32 values and 72 more a further step (gemm_1x1 on pw1x1 on
// gfx1030 spilled with 2 slices of 4 steps unrolled); never where the device does not say.
static void test_roll_steps(void)
{
    xconv_device_info gpu = gpu_info(), amd = gpu;
    amd.max_registers_per_item = 256;
    xconv_gemm_tiles t = {32, 32, 8, 4, 4, 4, 4};
    CHECK(xconv_gemm_roll_steps(&amd, &t, XCONV_GEMM_B_MEMORY, 4));
    CHECK(!xconv_gemm_roll_steps(&amd, &t, XCONV_GEMM_B_MEMORY, 3));  // 32 + 2 x 72 + 32 = 208
    CHECK(!xconv_gemm_roll_steps(&amd, &t, XCONV_GEMM_B_MEMORY, 1));
    CHECK(!xconv_gemm_roll_steps(&gpu, &t, XCONV_GEMM_B_MEMORY, 64));
}

// ---------------------------------------------------------------------------------------------
// Split-K choices

// Chooses tiles and split for an m x n x k product on info under opts (NULL: defaults); returns
// the split (0 when the choice fails) and the tiles in *t.
static int choose_split(const xconv_device_info *info, int64_t m, int64_t n, int64_t k,
                        const xconv_plan_options *opts, xconv_gemm_tiles *t)
{
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = m, .n = n, .k = k, .lda = k,
                           .ldb = n, .ldc = n, .seg = n, .groups = 1};
    xconv_error err = {0};
    xconv_status st = xconv_gemm_choose(info, &L, opts, t, &err);
    CHECK_MSG(st == XCONV_OK, "%lldx%lldx%lld on %s: %s", (long long)m, (long long)n,
              (long long)k, info->name, err.msg);
    return st == XCONV_OK ? L.split_k : 0;
}

static void test_split_choices(void)
{
    xconv_device_info gpu = gpu_info(), cpu = cpu_info();
    xconv_gemm_tiles t;
    // ResNet-50's late layers on a 132-unit GPU: too few tiles for one wave, so the K
    // reduction is split until the work-groups fill the device (large tiles kept).
    int split = choose_split(&gpu, 512, 50 * 49, 2048, NULL, &t);
    int64_t groups = (512 + t.tile_m - 1) / t.tile_m * ((2450 + t.tile_n - 1) / t.tile_n);
    CHECK_MSG(split >= 2 && groups * split >= 132, "512x2450x2048 on a GPU: split %d of %lld "
              "tiles of %dx%d", split, (long long)groups, t.tile_m, t.tile_n);
    split = choose_split(&gpu, 512, 50 * 49, 4608, NULL, &t);
    CHECK_MSG(split >= 2, "512x2450x4608 on a GPU: split %d", split);
    split = choose_split(&gpu, 256, 50 * 196, 1024, NULL, &t);
    CHECK_MSG(split >= 2, "256x9800x1024 on a GPU: split %d", split);
    // res1x1 of the standard suite on the H100: unsplit 64x64 tiles of 4x4 ran in 0.110 ms,
    // 4 slices of 128x128 in 0.122 ms (the partials' traffic, SPLIT_FLOAT_COST, outweighs the
    // larger tiles' gain), 4 slices of 64x128 tiles of 128 work-items in 0.099 ms: groups of
    // fewer items (GROUP_ITEMS_FULL) make up for the partials.
    split = choose_split(&gpu, 256, 32 * 196, 1024, NULL, &t);
    CHECK_MSG(split == 4 && t.tile_m == 64 && t.tile_n == 128, "res1x1 on a GPU: split %d of "
              "%dx%d tiles", split, t.tile_m, t.tile_n);
    // Products that fill the device, or whose K is short, stay unsplit.
    CHECK(choose_split(&gpu, 8192, 8192, 8192, NULL, &t) == 1);
    CHECK(choose_split(&gpu, 64, 200704, 576, NULL, &t) == 1);  // vgg-like: many columns
    CHECK(choose_split(&gpu, 512, 2450, 24, NULL, &t) == 1);    // 3 K steps: nothing to split
    // A 2-core CPU: the same layers have tiles for both cores; one tile with a long K splits.
    CHECK(choose_split(&cpu, 512, 50 * 49, 2048, NULL, &t) == 1);
    split = choose_split(&cpu, 16, 16, 8192, NULL, &t);
    CHECK_MSG(split == 2, "16x16x8192 on a 2-core CPU: split %d", split);
    // Forced splits, normalised so that no slice is empty: 7 K steps of 16 in 5 slices is 4
    // slices of 2 steps; 16 slices of 3 steps is 3.
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.gemm_tiles = tiles_text("32,32,16,4,4");
    opts.gemm_split_k = 5;
    CHECK(choose_split(&gpu, 40, 40, 100, &opts, &t) == 4);
    opts.gemm_split_k = 16;
    CHECK(choose_split(&gpu, 40, 40, 48, &opts, &t) == 3);
    opts.gemm_split_k = 1;  // forced off where the planner would split
    CHECK(choose_split(&gpu, 512, 50 * 49, 2048, &opts, &t) == 1);
    // The tiles' eighth field forces the split too; a conflict or a split past 16 is refused.
    opts.gemm_split_k = 0;
    opts.gemm_tiles = tiles_text("64,32,16,4,4,4,4,3");
    CHECK(choose_split(&gpu, 40, 40, 100, &opts, &t) == 3 && t.tile_m == 64 && t.tile_n == 32);
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = 40, .n = 40, .k = 100, .lda = 100,
                           .ldb = 40, .ldc = 40, .seg = 40, .groups = 1};
    xconv_error err = {0};
    opts.gemm_split_k = 2;
    CHECK(xconv_gemm_choose(&gpu, &L, &opts, &t, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "split");
    opts.gemm_tiles = tiles_text(NULL);
    opts.gemm_split_k = 17;
    CHECK(xconv_gemm_choose(&gpu, &L, &opts, &t, &err) == XCONV_ERR_INVALID);
}

// A split plan: the GEMM writes partials into a workspace region, a reduce step writes y.
static void test_split_plan(void)
{
    xconv_device dev = {.info = gpu_info()};
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=50,c=2048,h=7,w=7,k=512,r=1", &p, &err) == XCONV_OK);
    for (size_t v = 0; v < sizeof gemm_names / sizeof gemm_names[0]; v++) {
        const xconv_variant *var = xconv_variant_find(gemm_names[v], &err);
        xconv_plan *plan = NULL;
        CHECK(var && xconv_variant_plan(var, &dev, &p, NULL, &plan, &err) == XCONV_OK);
        if (!plan)
            continue;
        long long split = define_of(plan, "XC_GEMM_SPLIT_K");
        const xconv_step *reduce = xconv_plan_step(plan, plan->nsteps - 1);
        CHECK_MSG(split >= 2 && !strcmp(reduce->kernel, "splitk_reduce"), "%s: %s",
                  gemm_names[v], plan->summary);
        CHECK_CONTAINS(plan->summary, "split-K");
        CHECK(xconv_step_value(reduce, "XC_GEMM_SPLIT_K", -1) == split);
        CHECK(xconv_step_value(reduce, "XC_GEMM_PART_LD", -1) == 2452);  // 2450 rounded to 4
        int r = plan->nregions - 1;
        CHECK(!strcmp(plan->regions[r].name, "split-K partials"));
        CHECK(plan->regions[r].bytes == (size_t)split * 512 * 2452 * sizeof(float));
        CHECK(reduce->args[0].ref == XCONV_REF_WORKSPACE && reduce->args[1].ref == XCONV_REF_Y);
        CHECK(reduce->args[2].i == (int32_t)(plan->regions[r].offset / sizeof(float)));
        CHECK(gemm_step(plan)->global[2] == (size_t)split);  // one group, split slices
        check_plan_limits(gemm_names[v], &dev.info, plan);
        xconv_plan_destroy(plan);
    }
    // Our SGEMM on the same product (bench --gemm) takes the planner's split too, with its
    // partials in the plan's workspace; forced off, one step and no workspace.
    xconv_plan *plan = NULL;
    CHECK(xconv_sgemm_plan(&dev, 512, 2450, 2048, NULL, &plan, &err) == XCONV_OK);
    if (plan) {
        long long split = define_of(plan, "XC_GEMM_SPLIT_K");
        const xconv_step *reduce = xconv_plan_step(plan, plan->nsteps - 1);
        CHECK_MSG(split >= 2 && plan->nsteps == 2 && !strcmp(reduce->kernel, "splitk_reduce"),
                  "sgemm: %s", plan->summary);
        CHECK_CONTAINS(plan->summary, "split-K");
        CHECK(plan->nregions == 1 && plan->workspace_bytes == (size_t)split * 512 * 2452 * 4);
        CHECK(gemm_step(plan)->args[2].ref == XCONV_REF_WORKSPACE);
        CHECK(reduce->args[1].ref == XCONV_REF_Y && reduce->args[4].i == 2450);
        xconv_plan_destroy(plan);
    }
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.gemm_split_k = 1;
    CHECK(xconv_sgemm_plan(&dev, 512, 2450, 2048, &opts, &plan, &err) == XCONV_OK);
    if (plan) {
        CHECK(plan->nsteps == 1 && plan->workspace_bytes == 0);
        CHECK(gemm_step(plan)->args[2].ref == XCONV_REF_Y);
        xconv_plan_destroy(plan);
    }
}

// A fused epilogue moves into the reduce step under split-K: a problem with a bias and relu
// splits as the layer without them does (its GEMM step carries no epilogue, the reduce the
// defines and the bias as its last argument); with a 2x2 pool too, a forced split pools in the
// reduce, one work-item per pooled output written into y's pooled layout.
static void test_split_epilogue(void)
{
    xconv_device dev = {.info = gpu_info()};
    xconv_problem p, bare, pooled;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=50,c=2048,h=7,w=7,k=512,r=1,bias=1,act=relu", &p, &err) ==
          XCONV_OK);
    CHECK(xconv_shape_parse("n=50,c=2048,h=7,w=7,k=512,r=1", &bare, &err) == XCONV_OK);
    CHECK(xconv_shape_parse("n=3,c=64,h=12,w=10,k=24,r=3,pad=1,bias=1,act=relu6,pool=2", &pooled,
                            &err) == XCONV_OK);
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    for (size_t v = 0; v < sizeof gemm_names / sizeof gemm_names[0]; v++) {
        const xconv_variant *var = xconv_variant_find(gemm_names[v], &err);
        xconv_plan *plan = NULL, *bare_plan = NULL;
        opts.gemm_split_k = 0;
        CHECK(var && xconv_variant_plan(var, &dev, &p, &opts, &plan, &err) == XCONV_OK);
        CHECK(xconv_variant_plan(var, &dev, &bare, &opts, &bare_plan, &err) == XCONV_OK);
        if (!plan || !bare_plan) {
            xconv_plan_destroy(plan);
            xconv_plan_destroy(bare_plan);
            continue;
        }
        CHECK_MSG(define_of(plan, "XC_GEMM_SPLIT_K") == define_of(bare_plan, "XC_GEMM_SPLIT_K") &&
                      define_of(plan, "XC_GEMM_SPLIT_K") > 1,
                  "%s: split %lld with the epilogue, %lld without", gemm_names[v],
                  define_of(plan, "XC_GEMM_SPLIT_K"), define_of(bare_plan, "XC_GEMM_SPLIT_K"));
        CHECK(plan->fused == XCONV_FUSED_BIAS_ACT);
        CHECK(xconv_step_value(gemm_step(plan), "XC_EPI_ACT", -1) == -1);
        const xconv_step *reduce = xconv_plan_step(plan, plan->nsteps - 1);
        CHECK(!strcmp(reduce->kernel, "splitk_reduce"));
        CHECK(xconv_step_value(reduce, "XC_EPI_BIAS", -1) == 1 &&
              xconv_step_value(reduce, "XC_EPI_ACT", -1) == 1);
        CHECK(reduce->nargs == 6 && reduce->args[5].ref == XCONV_REF_BIAS);
        CHECK_CONTAINS(plan->summary, "reduce in slice order that applies the epilogue");
        xconv_plan_destroy(plan);
        xconv_plan_destroy(bare_plan);

        opts.gemm_split_k = 3;  // forced, with a pool: the reduce pools
        CHECK(xconv_variant_plan(var, &dev, &pooled, &opts, &plan, &err) ==
              (v == 3 ? XCONV_ERR_NOT_APPLICABLE : XCONV_OK));  // gemm_1x1: a 3x3 filter
        if (!plan)
            continue;
        reduce = xconv_plan_step(plan, plan->nsteps - 1);
        CHECK(plan->fused == (XCONV_FUSED_BIAS_ACT | XCONV_FUSED_POOL));
        CHECK(xconv_step_value(gemm_step(plan), "XC_POOL_H", -1) == -1);
        CHECK(!strcmp(reduce->kernel, "splitk_reduce") &&
              xconv_step_value(reduce, "XC_POOL_H", -1) == 2);
        CHECK(reduce->global[0] >= (size_t)(6 * 5) && reduce->args[4].i == 6 * 5 * 3);
        xconv_plan_destroy(plan);
    }
}

// The GEMM variants' tunings (what `xconv find --mode exhaustive` times): the planner's own
// tiles and split first, then tiles x splits in the model's order, each one that plans.
static void test_tunings(void)
{
    xconv_device dev = {.info = gpu_info()};
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=50,c=2048,h=7,w=7,k=512,r=1", &p, &err) == XCONV_OK);
    xconv_tuning tunings[64];
    for (size_t v = 0; v < sizeof gemm_names / sizeof gemm_names[0]; v++) {
        const xconv_variant *var = xconv_variant_find(gemm_names[v], &err);
        int n = xconv_variant_tunings(var, &dev, &p, tunings, 64), split = 0, unsplit = 0;
        CHECK_MSG(n >= 20, "%s: %d tunings", gemm_names[v], n);
        xconv_plan *plan = NULL;
        CHECK(xconv_variant_plan(var, &dev, &p, NULL, &plan, &err) == XCONV_OK);
        char own[64] = "";
        if (plan) {
            xconv_gemm_tiles planned = tiles_of(plan);
            xconv_gemm_tuning_format(&planned, (int)define_of(plan, "XC_GEMM_SPLIT_K"), own,
                                     sizeof own);
        }
        xconv_plan_destroy(plan);
        CHECK_MSG(n > 0 && !strcmp(tunings[0].gemm_tiles, own), "%s: first tuning %s, planned %s",
                  gemm_names[v], n > 0 ? tunings[0].gemm_tiles : "-", own);
        for (int i = 0; i < n; i++) {
            xconv_gemm_tiles t;
            int s = 0;
            CHECK(sscanf(tunings[i].gemm_tiles, "%d,%d,%d,%d,%d,%d,%d,%d", &t.tile_m, &t.tile_n,
                         &t.tile_k, &t.wpt_m, &t.wpt_n, &t.vw, &t.pad, &s) == 8);
            split += s > 1, unsplit += s == 1;
            xconv_plan_options opts;
            xconv_plan_options_default(&opts);
            CHECK(xconv_tuning_apply(&tunings[i], &opts, &err) == XCONV_OK);
            CHECK(xconv_variant_plan(var, &dev, &p, &opts, &plan, &err) == XCONV_OK);
            if (plan)
                CHECK(define_of(plan, "XC_GEMM_SPLIT_K") == (s > 1 ? s : -1));
            xconv_plan_destroy(plan);
        }
        CHECK_MSG(split > 0 && unsplit > 0, "%s: %d split and %d unsplit tunings",
                  gemm_names[v], split, unsplit);
    }
}

// ---------------------------------------------------------------------------------------------
// Chunks and refusals

static void test_chunks(void)
{
    xconv_device dev = {.info = gpu_info()};
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=8,c=16,h=32,w=32,k=8,r=3,pad=1", &p, &err) == XCONV_OK);
    size_t image_bytes = 16 * 9 * 32 * 32 * sizeof(float);
    dev.info.max_alloc_bytes = 3 * image_bytes + 100;  // three images a pass: 3, 3, 2
    const xconv_variant *v = xconv_variant_find("im2col_gemm", &err);
    xconv_plan *plan = NULL;
    xconv_plan_options runtime;
    xconv_plan_options_default(&runtime);
    runtime.runtime_batch = XCONV_BATCH_RUNTIME;
    CHECK(v && xconv_variant_plan(v, &dev, &p, &runtime, &plan, &err) == XCONV_OK);
    if (plan) {
        CHECK_MSG(steps_of(plan, "im2col") == 3 && steps_of(plan, "sgemm") == 3,
                  "%d steps", plan->nsteps);
        CHECK(plan->workspace_bytes == 3 * image_bytes && plan->nregions == 1);
        // N reaches the kernels as an argument: XC_GEMM_N, which they never read, is left out.
        CHECK(define_of(plan, "XC_GEMM_N") == -1 && define_of(plan, "XC_GEMM_SEG") == 32 * 32);
        // The last pass has two images: its im2col says so, its SGEMM covers fewer columns.
        const xconv_step *col = xconv_plan_step(plan, 4), *last = xconv_plan_step(plan, 5);
        const xconv_step *first = xconv_plan_step(plan, 1);
        CHECK(col->args[2].i == 6 && col->args[3].i == 2);
        CHECK(last->global[0] < first->global[0] && last->args[5].i == 2 * 32 * 32);
        CHECK(last->args[4].i == 6 * 8 * 32 * 32);  // y's first element of image 6
        // The im2col steps see only the problem's defines; the SGEMM steps the GEMM's as well.
        CHECK(xconv_step_value(col, "XC_GEMM_N", -1) == -1);
        CHECK(xconv_step_value(col, "XC_N", -1) == -1 && col->batch_arg && col->batch == 8 &&
              col->args[col->nargs - 1].i == 8);
        xconv_plan_destroy(plan);
    }
    // The planning option caps the images a pass.
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.batch_chunk = 2;
    CHECK(xconv_variant_plan(v, &dev, &p, &opts, &plan, &err) == XCONV_OK);
    if (plan)
        CHECK(steps_of(plan, "im2col") == 4 && plan->regions[0].bytes == 2 * image_bytes);
    xconv_plan_destroy(plan);
    // The batch baked (forced: im2col_gemm takes it at run time by default): XC_N and the
    // product's columns are defines, and no step takes N.
    xconv_plan_options_default(&opts);
    opts.runtime_batch = XCONV_BATCH_BAKED;
    CHECK(xconv_variant_plan(v, &dev, &p, &opts, &plan, &err) == XCONV_OK);
    if (plan) {
        CHECK(define_of(plan, "XC_GEMM_N") == 3 * 32 * 32);
        CHECK(xconv_step_value(xconv_plan_step(plan, 0), "XC_N", -1) == 8);
        for (int i = 0; i < plan->nsteps; i++)
            CHECK(!xconv_plan_step(plan, i)->batch_arg);
    }
    xconv_plan_destroy(plan);

    dev.info.max_alloc_bytes = image_bytes - 1;  // not even one image
    CHECK(xconv_variant_plan(v, &dev, &p, NULL, &plan, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "workspace");

    dev.info = small_gpu_info();
    CHECK(xconv_sgemm_plan(&dev, 8192, 8192, 8192, NULL, &plan, &err) ==
          XCONV_ERR_OUT_OF_MEMORY);
    CHECK_CONTAINS(err.msg, "per allocation");
    dev.info = gpu_info();
    CHECK(xconv_sgemm_plan(&dev, 70000, 70000, 70000, NULL, &plan, &err) ==
          XCONV_ERR_OUT_OF_MEMORY);
    CHECK(xconv_sgemm_plan(&dev, 8192, 8192, 8192, NULL, &plan, &err) == XCONV_OK);
    xconv_plan_destroy(plan);
    CHECK(xconv_sgemm_plan(&dev, 0, 8, 8, NULL, &plan, &err) == XCONV_ERR_INVALID);
}

// ---------------------------------------------------------------------------------------------
// NVRTC: the GPU plans compile and keep their accumulators in registers

#ifdef XCONV_HAVE_CUDA
// Compiles the GEMM step of plan for sm_90; returns false when NVRTC is missing.
static bool check_ptx(const char *label, const xconv_plan *plan)
{
    const xconv_step *step = gemm_step(plan);
    char options[4096];
    xconv_step_options(step, options, sizeof options);
    xconv_nvrtc_image img;
    xconv_error err = {0};
    xconv_status st = xconv_nvrtc_compile(xconv_kernel_source(step->source), options, 9, 0,
                                          false, &img, &err);
    if (st == XCONV_ERR_UNAVAILABLE)
        return false;
    CHECK_MSG(st == XCONV_OK, "%s: %s", label, err.msg);
    if (st == XCONV_OK)
        CHECK_MSG(strstr(img.ptx, "__local_depot") == NULL,
                  "%s: private arrays spill to local memory (%s)", label, plan->summary);
    xconv_nvrtc_image_free(&img);
    return true;
}

static void test_nvrtc(void)
{
    xconv_device dev = {.info = gpu_info()};
    dev.info.backend = XCONV_BACKEND_CUDA;
    xconv_plan *plan = NULL;
    xconv_error err = {0};
    CHECK(xconv_sgemm_plan(&dev, 4096, 4096, 4096, NULL, &plan, &err) == XCONV_OK);
    bool present = plan && check_ptx("sgemm 4096^3", plan);
    xconv_plan_destroy(plan);
    if (!present) {
        printf("NVRTC not available: GPU plans not compiled\n");
        return;
    }
    int count = 0, compiled = 1;
    const xconv_named_shape *shapes = xconv_suite_find("standard", &count);
    for (int i = 0; i < count; i++) {
        xconv_problem p;
        CHECK(xconv_shape_parse(shapes[i].spec, &p, &err) == XCONV_OK);
        for (size_t v = 0; v < sizeof gemm_names / sizeof gemm_names[0]; v++) {
            const xconv_variant *var = xconv_variant_find(gemm_names[v], &err);
            char label[128];
            snprintf(label, sizeof label, "%s %s", gemm_names[v], shapes[i].name);
            if (xconv_variant_plan(var, &dev, &p, NULL, &plan, &err) == XCONV_OK)
                compiled += check_ptx(label, plan);
            xconv_plan_destroy(plan);
        }
    }
    printf("NVRTC: %d GPU plans compiled for sm_90\n", compiled);
}
#endif

int main(void)
{
    xconv_device_info gpu = gpu_info(), cpu = cpu_info(), small = small_gpu_info();
    test_suites_fit(&gpu);
    test_suites_fit(&cpu);
    test_suites_fit(&small);
    test_tile_choices();
    test_register_rule();
    test_register_edge();
    test_roll_steps();
    test_split_choices();
    test_split_plan();
    test_split_epilogue();
    test_tunings();
    test_chunks();
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    return check_summary("test_plan_gemm");
}
