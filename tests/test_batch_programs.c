// SPDX-License-Identifier: MIT
// The batch size at run time (xconv_plan_options.runtime_batch = 1): plans of one shape at batch 1
// and batch 32 compile the same programs wherever the planner chose the same tiles (forced here
// for the tiled families), and baked (the default) none. Planned on the sm_90 target profile (no
// GPU, nothing compiled).
// With arguments (suite names, or shape files) it prints instead how many distinct
// programs every variant's plans of those shapes at batch 1 plus batch 32 compile, baked and not.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xconv/xconv.h"

#define MAX_PROGRAMS 20000
#define MAX_SHAPES 512

// The distinct programs seen: kernel source and options, one string each.
typedef struct program_set {
    char *keys[MAX_PROGRAMS];
    int count;
} program_set;

static int failures;
static char last_error[512];  // why the last plan that failed failed

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            failures++;                                                         \
        }                                                                       \
    } while (0)

// Adds key to set unless it holds it; returns true when it was new.
static bool add_key(program_set *set, const char *key)
{
    for (int i = 0; i < set->count; i++)
        if (strcmp(set->keys[i], key) == 0)
            return false;
    if (set->count < MAX_PROGRAMS)
        set->keys[set->count++] = strdup(key);
    return true;
}

static void free_set(program_set *set)
{
    for (int i = 0; i < set->count; i++)
        free(set->keys[i]);
    set->count = 0;
}

// Plans variant v for p at batch n with options base (NULL: the defaults) and the batch baked
// (bake) or not, on dev, and adds its programs to set (and to *plan_set, when not NULL);
// returns false when it does not plan.
static bool add_plan(xconv_device *dev, const char *v, xconv_problem p, int64_t n, int bake,
                     const xconv_plan_options *base, program_set *set, program_set *plan_set)
{
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    if (base)
        opts = *base;
    opts.runtime_batch = !bake;
    p.n = n;
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, &p, v, &opts, &err);
    if (!plan) {
        snprintf(last_error, sizeof last_error, "%s", err.msg);
        return false;
    }
    for (int i = 0; i < xconv_plan_step_count(plan); i++) {
        char *text = NULL, options[4096], key[4200];
        xconv_plan_step_info info;
        if (xconv_plan_step_get_info(plan, i, &info, &err) != XCONV_OK || !info.source ||
            xconv_plan_step_build_input(plan, i, &text, options, sizeof options, &err) !=
                XCONV_OK)
            continue;  // a vendor library step
        free(text);
        snprintf(key, sizeof key, "%s %s", info.source, options);
        add_key(set, key);
        if (plan_set)
            add_key(plan_set, key);
    }
    xconv_plan_destroy(plan);
    return true;
}

// Counts the distinct programs of every variant's plans of shapes at their own batch sizes,
// and at batch 1 and 32.
static void count_programs(xconv_device *dev, const xconv_problem *shapes, int nshapes)
{
    for (int bake = 0; bake <= 1; bake++) {
        program_set own = {0}, two = {0};
        for (int s = 0; s < nshapes; s++)
            for (int v = 0; v < xconv_variant_count(); v++) {
                const char *name = xconv_variant_get_info(xconv_variant_at(v))->name;
                add_plan(dev, name, shapes[s], shapes[s].n, bake, NULL, &own, NULL);
                add_plan(dev, name, shapes[s], 1, bake, NULL, &two, NULL);
                add_plan(dev, name, shapes[s], 32, bake, NULL, &two, NULL);
            }
        printf("bake_batch=%d: %d shapes: %d distinct programs at their own batch, %d at batch 1 "
               "and 32\n", bake, nshapes, own.count, two.count);
        free_set(&own);
        free_set(&two);
    }
}

// Checks that variant v's plans of p at batch 1 and 32 under opts share their programs without
// baking (when `shares`) and share none baked.
static void check_sharing(xconv_device *dev, const char *v, const xconv_problem *p,
                          const xconv_plan_options *opts, bool shares)
{
    for (int bake = 0; bake <= 1; bake++) {
        program_set all = {0}, one = {0}, other = {0};
        bool planned = add_plan(dev, v, *p, 1, bake, opts, &all, &one) &&
                       add_plan(dev, v, *p, 32, bake, opts, &all, &other);
        CHECK(planned, "%s does not plan: %s", v, last_error);
        if (!planned)
            continue;
        if (bake)
            CHECK(all.count == one.count + other.count,
                  "%s baked: %d programs at batch 1 and 32 together, %d + %d apart", v,
                  all.count, one.count, other.count);
        else if (shares)
            CHECK(all.count == one.count && one.count == other.count,
                  "%s at run time: %d programs at batch 1 and 32 together, %d and %d apart", v,
                  all.count, one.count, other.count);
        free_set(&all);
        free_set(&one);
        free_set(&other);
    }
}

int main(int argc, char **argv)
{
    xconv_error err = {0};
    const xconv_target *t = xconv_target_find("sm_90", &err);
    xconv_device *dev = t ? xconv_device_open_target(t, &err) : NULL;
    if (!dev) {
        fprintf(stderr, "no sm_90 profile: %s\n", err.msg);
        return 1;
    }
    if (argc > 1) {
        static xconv_problem shapes[MAX_SHAPES];
        int count = 0;
        for (int a = 1; a < argc; a++) {
            int n = 0;
            const xconv_named_shape *suite = xconv_suite_find(argv[a], &n);
            xconv_shape_entry *entries = NULL;
            if (!suite && xconv_shapes_read(argv[a], &entries, &n, &err) != XCONV_OK) {
                fprintf(stderr, "%s: %s\n", argv[a], err.msg);
                return 2;
            }
            for (int i = 0; i < n && count < MAX_SHAPES; i++)
                if (entries)
                    shapes[count++] = entries[i].problem;
                else if (xconv_shape_parse(suite[i].spec, &shapes[count], &err) == XCONV_OK)
                    count++;
            xconv_shapes_free(entries);
        }
        count_programs(dev, shapes, count);
        xconv_device_close(dev);
        return 0;
    }
    // ResNet-50's conv1 (7x7, stride 2), a 3x3 and a 1x1 layer.
    const char *specs[] = {"n=1,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3",
                           "n=1,c=64,h=56,w=56,k=64,r=3,pad=1", "n=1,c=256,h=14,w=14,k=1024,r=1"};
    // The tiles forced, so that both batches plan the same: each family's kernels share.
    xconv_plan_options forced;
    xconv_plan_options_default(&forced);
    forced.direct_tiling[0] = (xconv_forced_direct_tiling){
        .kernel = XCONV_DIRECT_KERNEL_TILED, .wg_w = 8, .wg_h = 8, .block_w = 2, .block_h = 2,
        .block_k = 4, .strip = 1};
    forced.direct_tiling[1] = forced.direct_tiling[0];
    forced.direct_tiling[1].kernel = XCONV_DIRECT_KERNEL_REGBLOCK;
    forced.gemm_tiles = (xconv_forced_gemm_tiles){64, 64, 16, 4, 4, 4, 4, 1};
    forced.winograd_fused = (xconv_forced_wino_block){.tb = 8, .kb = 16, .cc = 8, .wt = 2,
                                                      .wk = 4};
    const char *shared[] = {"direct_naive", "direct_tiled", "direct_regblock", "im2col_gemm",
                            "implicit_gemm", "implicit_precomp"};
    const char *fused3x3[] = {"winograd_f23_fused", "winograd_f43_fused"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        xconv_problem p;
        if (xconv_shape_parse(specs[s], &p, &err) != XCONV_OK) {
            fprintf(stderr, "%s: %s\n", specs[s], err.msg);
            return 1;
        }
        for (size_t v = 0; v < sizeof shared / sizeof shared[0]; v++)
            check_sharing(dev, shared[v], &p, &forced, true);
        if (p.r == 1)
            check_sharing(dev, "gemm_1x1", &p, &forced, true);
        // implicit_mma (reduced math only) has no forced tiles; its planner chooses the same
        // for both batches of the 7x7 and 3x3 layers (the 1x1's batch 1 gets a smaller tile).
        xconv_problem reduced = p;
        reduced.math = XCONV_MATH_TF32;
        if (p.r > 1)
            check_sharing(dev, "implicit_mma", &reduced, NULL, true);
        for (size_t v = 0; p.r == 3 && v < sizeof fused3x3 / sizeof fused3x3[0]; v++)
            check_sharing(dev, fused3x3[v], &p, &forced, true);
        // The FFT's steps keep N compiled in (XC_FFT_BATCH): nothing to share.
        if (p.r == 3)
            check_sharing(dev, "fft", &p, NULL, false);
    }
    xconv_device_close(dev);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
