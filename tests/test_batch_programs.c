// SPDX-License-Identifier: MIT
// The batch size at run time (xconv_plan_options.runtime_batch = XCONV_BATCH_RUNTIME): plans of
// one shape at batch 1 and batch 32 compile the same programs wherever the planner chose the
// same tiles (forced here for the tiled families), and baked (XCONV_BATCH_BAKED) none. Left to
// the default, each variant plans as its runtime_batch field says, and the forced settings
// win over it. Planned on the sm_90 target profile (no GPU, nothing compiled).
// With arguments (suite names, or shape files) it prints instead how many distinct programs
// every variant's plans of those shapes at batch 1 plus batch 32 compile: baked, as each
// variant's default, and at run time.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/gemm/plan_mma.h"
#include "plan/variant.h"
#include "xconv/xconv.h"
#include "tests/program_counting.h"

static char last_error[512];  // why the last plan that failed failed

// Plans variant v for p at batch n with options base (NULL: the defaults) and the batch mode
// `mode` (an xconv_batch_mode) on dev, and adds its programs to set (and to *plan_set, when not
// NULL); returns false when it does not plan.
static bool add_plan(xconv_device *dev, const char *v, xconv_problem p, int64_t n, int mode,
                     const xconv_plan_options *base, program_set *set, program_set *plan_set)
{
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    if (base)
        opts = *base;
    opts.runtime_batch = mode;
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
// and at batch 1 and 32, under each batch mode.
static void count_programs(xconv_device *dev, const xconv_problem *shapes, int nshapes)
{
    static const int modes[] = {XCONV_BATCH_BAKED, XCONV_BATCH_DEFAULT, XCONV_BATCH_RUNTIME};
    static const char *const names[] = {"baked", "default", "run time"};
    for (int m = 0; m < 3; m++) {
        program_set own = {0}, two = {0}, auto_own = {0}, auto_two = {0};
        for (int s = 0; s < nshapes; s++) {
            for (int v = 0; v < xconv_variant_count(); v++) {
                const char *name = xconv_variant_get_info(xconv_variant_at(v))->name;
                add_plan(dev, name, shapes[s], shapes[s].n, modes[m], NULL, &own, NULL);
                add_plan(dev, name, shapes[s], 1, modes[m], NULL, &two, NULL);
                add_plan(dev, name, shapes[s], 32, modes[m], NULL, &two, NULL);
            }
            add_plan(dev, "auto", shapes[s], shapes[s].n, modes[m], NULL, &auto_own, NULL);
            add_plan(dev, "auto", shapes[s], 1, modes[m], NULL, &auto_two, NULL);
            add_plan(dev, "auto", shapes[s], 32, modes[m], NULL, &auto_two, NULL);
        }
        printf("N %s: %d shapes: %d distinct programs at their own batch, %d at batch 1 "
               "and 32; auto's choices %d and %d\n", names[m], nshapes, own.count, two.count,
               auto_own.count, auto_two.count);
        free_set(&own);
        free_set(&two);
        free_set(&auto_own);
        free_set(&auto_two);
    }
}

// Checks that variant v's plans of p at batch 1 and 32 under opts share their programs without
// baking (when `shares`) and share none baked.
static void check_sharing(xconv_device *dev, const char *v, const xconv_problem *p,
                          const xconv_plan_options *opts, bool shares)
{
    for (int bake = 0; bake <= 1; bake++) {
        int mode = bake ? XCONV_BATCH_BAKED : XCONV_BATCH_RUNTIME;
        program_set all = {0}, one = {0}, other = {0};
        bool planned = add_plan(dev, v, *p, 1, mode, opts, &all, &one) &&
                       add_plan(dev, v, *p, 32, mode, opts, &all, &other);
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

// Returns true when sets a and b hold the same programs.
static bool same_set(const program_set *a, const program_set *b)
{
    if (a->count != b->count)
        return false;
    for (int i = 0; i < a->count; i++) {
        bool found = false;
        for (int j = 0; j < b->count && !found; j++)
            found = strcmp(a->keys[i], b->keys[j]) == 0;
        if (!found)
            return false;
    }
    return true;
}

// Returns how many of set's programs take N at run time.
static int runtime_programs(const program_set *set)
{
    int n = 0;
    for (int i = 0; i < set->count; i++)
        n += strstr(set->keys[i], "XC_N_RUNTIME") != NULL;
    return n;
}

// Checks, for every variant with kernels of ours that plans one of shapes (the first that
// does, at batch 8), that the default plans as its runtime_batch field says (the programs of
// XCONV_BATCH_RUNTIME where it is true, of XCONV_BATCH_BAKED where false), that the forced
// modes win over the field, and that the plan's summary says which. Returns how many
// variants it checked with each value of the field (runtime[1] true, runtime[0] false).
static void check_defaults(xconv_device *dev, const xconv_problem *shapes, int nshapes,
                           int runtime[2])
{
    for (int v = 0; v < xconv_variant_count(); v++) {
        const xconv_variant *variant = xconv_variant_at(v);
        const char *name = xconv_variant_get_info(variant)->name;
        for (int s = 0; s < nshapes; s++) {
            program_set baked = {0}, def = {0}, run = {0};
            bool planned = add_plan(dev, name, shapes[s], 8, XCONV_BATCH_BAKED, NULL, &baked,
                                    NULL) &&
                           add_plan(dev, name, shapes[s], 8, XCONV_BATCH_DEFAULT, NULL, &def,
                                    NULL) &&
                           add_plan(dev, name, shapes[s], 8, XCONV_BATCH_RUNTIME, NULL, &run,
                                    NULL);
            bool ours = planned && baked.count > 0;  // kernels of ours, not a library's
            if (ours) {
                CHECK(runtime_programs(&baked) == 0, "%s baked: %d programs take N at run time",
                      name, runtime_programs(&baked));
                CHECK(same_set(&def, variant->runtime_batch ? &run : &baked),
                      "%s (runtime_batch %d): the default's %d programs are not those of %s", name,
                      variant->runtime_batch, def.count,
                      variant->runtime_batch ? "XCONV_BATCH_RUNTIME" : "XCONV_BATCH_BAKED");
                // The summary names the batch as the programs take it.
                xconv_plan_options opts;
                xconv_plan_options_default(&opts);
                xconv_problem p = shapes[s];
                p.n = 8;
                xconv_error err = {0};
                xconv_plan *plan = xconv_plan_create(dev, &p, name, &opts, &err);
                const char *summary = plan ? xconv_plan_summary(plan) : "";
                CHECK(strstr(summary, runtime_programs(&def) ? "N: a run-time argument"
                                                             : "N: baked"),
                      "%s: the summary '%s' does not say how N is taken", name, summary);
                xconv_plan_destroy(plan);
                runtime[variant->runtime_batch]++;
            }
            free_set(&baked);
            free_set(&def);
            free_set(&run);
            if (ours)
                break;
        }
    }
}

int main(int argc, char **argv)
{
    xconv_device *dev = open_sm90_profile();
    if (!dev)
        return 1;
    if (argc > 1)
        return count_shape_args(dev, argc, argv, count_programs);
    xconv_error err = {0};
    // Every variant of ours: the default follows its field, the forced modes win.
    const char *default_specs[] = {"n=8,c=16,h=20,w=20,k=16,r=3,pad=1",
                                   "n=8,c=16,h=20,w=20,k=16,r=5,pad=2",
                                   "n=8,c=16,h=20,w=20,k=16,r=1"};
    xconv_problem defaults[3];
    for (int s = 0; s < 3; s++)
        if (xconv_shape_parse(default_specs[s], &defaults[s], &err) != XCONV_OK) {
            fprintf(stderr, "%s: %s\n", default_specs[s], err.msg);
            return 1;
        }
    int checked[2] = {0, 0};
    check_defaults(dev, defaults, 3, checked);
    CHECK(checked[0] > 0 && checked[1] > 0,
          "variants checked: %d baking N by default, %d taking it at run time", checked[0],
          checked[1]);
    // A variant that bakes N by default takes it at run time when forced, and one that takes it
    // at run time bakes it when forced (checked above through the program sets; here the
    // count of run-time programs, so that the forcing is seen to change something).
    for (int v = 0; v < xconv_variant_count(); v++) {
        const xconv_variant *variant = xconv_variant_at(v);
        const char *name = xconv_variant_get_info(variant)->name;
        if (strcmp(name, "direct_tiled") != 0 && strcmp(name, "direct_tiled_db") != 0)
            continue;
        program_set def = {0}, forced = {0};
        int other = variant->runtime_batch ? XCONV_BATCH_BAKED : XCONV_BATCH_RUNTIME;
        add_plan(dev, name, defaults[0], 8, XCONV_BATCH_DEFAULT, NULL, &def, NULL);
        add_plan(dev, name, defaults[0], 8, other, NULL, &forced, NULL);
        CHECK(def.count == 1 && forced.count == 1 &&
                  (runtime_programs(&def) == 1) == variant->runtime_batch &&
                  (runtime_programs(&forced) == 1) == !variant->runtime_batch,
              "%s: the default and the forced mode plan the same way", name);
        free_set(&def);
        free_set(&forced);
    }
    printf("defaults: %d variants bake N, %d take it at run time\n", checked[0], checked[1]);

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
        // Its register pipeline takes N at run time; the packed one bakes N in every step
        // (its summary says so), so the register pipeline is forced here.
        xconv_problem reduced = p;
        reduced.math = XCONV_MATH_TF32;
        xconv_plan_options registers;
        xconv_plan_options_default(&registers);
        registers.mma_pipeline = XCONV_MMA_PIPELINE_REGISTERS;
        if (p.r > 1)
            check_sharing(dev, "implicit_mma", &reduced, &registers, true);
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
