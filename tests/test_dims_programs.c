// SPDX-License-Identifier: MIT
// The problem's sizes at run time (xconv_plan_options.runtime_dims = XCONV_BATCH_RUNTIME):
// the plans of implicit_gemm, implicit_precomp and gemm_1x1 of two different layers with the
// same plan parameters
// (tiles forced, the same filter, stride, padding, dilation, groups and vector widths) compile
// one program (the same kernel text and defines, the backends' program key) whose defines
// name no size, and the sizes reach the kernel as its last arguments; baked (the default and
// XCONV_BATCH_BAKED) they compile two. Split-K and pooled products, and the other variants,
// keep the sizes compiled in. Planned on the sm_90 target profile (no GPU, nothing compiled).
// With arguments (suite names, or shape files) it prints instead how many distinct programs
// every variant's plans (and auto's) of those shapes compile, the sizes baked and at run time.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "xconv/xconv.h"
#include "tests/program_counting.h"

// Plans variant v for spec with opts (its runtime_dims set to `mode`); returns the plan, or
// NULL after a failed check.
static xconv_plan *plan_of(xconv_device *dev, const char *v, const char *spec,
                           const xconv_plan_options *opts, int mode)
{
    xconv_error err = {0};
    xconv_problem p;
    if (xconv_shape_parse(spec, &p, &err) != XCONV_OK) {
        CHECK(false, "%s: %s", spec, err.msg);
        return NULL;
    }
    xconv_plan_options o = *opts;
    o.runtime_dims = mode;
    xconv_plan *plan = xconv_plan_create(dev, &p, v, &o, &err);
    CHECK(plan, "%s on %s does not plan: %s", v, spec, err.msg);
    return plan;
}

// Adds every kernel step's program of plan (its kernel text and options) to set.
static void add_programs(const xconv_plan *plan, program_set *set)
{
    xconv_error err = {0};
    for (int i = 0; i < xconv_plan_step_count(plan); i++) {
        char *text = NULL, options[4096];
        if (xconv_plan_step_build_input(plan, i, &text, options, sizeof options, &err) !=
            XCONV_OK)
            continue;  // a vendor library step
        size_t len = strlen(text) + strlen(options) + 2;
        char *key = malloc(len);
        if (key) {
            snprintf(key, len, "%s\n%s", options, text);
            add_key(set, key);
        }
        free(key);
        free(text);
    }
}

// Checks that kernel step i of the plan (its GEMM or split-K reduce) takes the problem's batch
// and sizes as its last 7 arguments and defines none of them.
static void check_arguments(const xconv_plan *plan, int step, const char *what)
{
    const xconv_step *s = plan->steps[step];
    const xconv_problem *p = &plan->problem;
    int32_t want[7] = {(int32_t)p->n, (int32_t)p->c, (int32_t)p->h, (int32_t)p->w, (int32_t)p->k,
                       (int32_t)xconv_problem_out_h(p), (int32_t)xconv_problem_out_w(p)};
    CHECK(s->nargs >= 7, "%s: %d arguments", what, s->nargs);
    for (int i = 0; s->nargs >= 7 && i < 7; i++) {
        const xconv_step_arg *a = &s->args[s->nargs - 7 + i];
        CHECK(a->kind == XCONV_STEP_ARG_INT && a->i == want[i],
              "%s: argument %d is %d, not the size %d", what, s->nargs - 7 + i, (int)a->i,
              (int)want[i]);
    }
    char options[4096];
    xconv_plan_step_options(plan, step, options, sizeof options);
    static const char *const sizes[] = {"-DXC_N=", "-DXC_C=", "-DXC_H=", "-DXC_W=", "-DXC_K=",
                                        "-DXC_P=", "-DXC_Q=", "-DXC_GEMM_M=", "-DXC_GEMM_K="};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        CHECK(!strstr(options, sizes[i]), "%s: defines %s (%s)", what, sizes[i], options);
    CHECK(strstr(options, "-DXC_DIMS_RUNTIME=1"), "%s: no XC_DIMS_RUNTIME (%s)", what, options);
    CHECK(strstr(xconv_plan_summary(plan), "C, H, W, K, P, Q: run-time arguments"),
          "%s: the summary '%s' does not say the sizes are arguments", what,
          xconv_plan_summary(plan));
}

// Checks that variant v's plans of layers a and b under opts compile the programs of one with
// the sizes at run time (each of their steps taking them as arguments) and twice as many
// baked, as forced and by default; `steps` is the number of kernel steps each plan has.
static void check_pair(xconv_device *dev, const char *v, const char *a, const char *b,
                       const xconv_plan_options *opts, int steps)
{
    static const int modes[] = {XCONV_BATCH_RUNTIME, XCONV_BATCH_BAKED, XCONV_BATCH_DEFAULT};
    for (int m = 0; m < 3; m++) {
        program_set set = {0};
        xconv_plan *pa = plan_of(dev, v, a, opts, modes[m]);
        xconv_plan *pb = plan_of(dev, v, b, opts, modes[m]);
        if (pa && pb) {
            add_programs(pa, &set);
            add_programs(pb, &set);
            int want = modes[m] == XCONV_BATCH_RUNTIME ? steps : 2 * steps;
            CHECK(xconv_plan_step_count(pa) == steps && xconv_plan_step_count(pb) == steps,
                  "%s: %d and %d steps, not %d", v, xconv_plan_step_count(pa),
                  xconv_plan_step_count(pb), steps);
            CHECK(set.count == want, "%s, %s and %s, runtime_dims %d: %d programs, not %d", v,
                  a, b, modes[m], set.count, want);
            if (modes[m] == XCONV_BATCH_RUNTIME) {
                for (int i = 0; i < steps && i < xconv_plan_step_count(pa) &&
                                i < xconv_plan_step_count(pb);
                     i++) {
                    check_arguments(pa, i, a);
                    check_arguments(pb, i, b);
                }
            } else {
                CHECK(!strstr(xconv_plan_summary(pa), "C, H, W, K, P, Q"),
                      "%s baked: the summary '%s' speaks of the sizes", v,
                      xconv_plan_summary(pa));
            }
        }
        xconv_plan_destroy(pa);
        xconv_plan_destroy(pb);
        free_set(&set);
    }
}

// Checks that variant v's plan of spec under opts with the sizes asked at run time keeps them
// compiled in (every step), and that its summary says so.
static void check_baked(xconv_device *dev, const char *v, const char *spec,
                        const xconv_plan_options *opts, const char *why)
{
    xconv_plan *plan = plan_of(dev, v, spec, opts, XCONV_BATCH_RUNTIME);
    if (!plan)
        return;
    for (int i = 0; i < xconv_plan_step_count(plan); i++) {
        char options[4096];
        xconv_plan_step_options(plan, i, options, sizeof options);
        CHECK(!strstr(options, "XC_DIMS_RUNTIME"), "%s on %s (%s): step %d takes the sizes",
              v, spec, why, i);
    }
    const char *summary = xconv_plan_summary(plan);
    if (strcmp(v, "gemm_1x1") == 0 || strcmp(v, "implicit_gemm") == 0 ||
        strcmp(v, "implicit_precomp") == 0)
        CHECK(strstr(summary, "C, H, W, K, P, Q: baked"),
              "%s on %s (%s): the summary '%s' does not say the sizes are baked", v, spec, why,
              summary);
    xconv_plan_destroy(plan);
}

// Prints the distinct programs of every variant's plans and auto's of shapes, the sizes baked
// and at run time.
static void count_programs(xconv_device *dev, const xconv_problem *shapes, int nshapes)
{
    static const int modes[] = {XCONV_BATCH_BAKED, XCONV_BATCH_RUNTIME};
    static const char *const names[] = {"baked", "at run time"};
    for (int m = 0; m < 2; m++) {
        program_set all = {0}, chosen = {0}, gemm = {0};
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        opts.runtime_dims = modes[m];
        for (int s = 0; s < nshapes; s++) {
            for (int v = -1; v < xconv_variant_count(); v++) {
                const char *name =
                    v < 0 ? "auto" : xconv_variant_get_info(xconv_variant_at(v))->name;
                xconv_error err = {0};
                xconv_plan *plan = xconv_plan_create(dev, &shapes[s], name, &opts, &err);
                if (!plan)
                    continue;
                add_programs(plan, v < 0 ? &chosen : &all);
                if (!strcmp(name, "implicit_gemm") || !strcmp(name, "gemm_1x1") ||
                    !strcmp(name, "implicit_precomp"))
                    add_programs(plan, &gemm);
                xconv_plan_destroy(plan);
            }
        }
        printf("sizes %s: %d shapes: %d distinct programs of every variant, %d of "
               "implicit_gemm, implicit_precomp and gemm_1x1, %d of auto's choices\n", names[m], nshapes,
               all.count, gemm.count, chosen.count);
        free_set(&all);
        free_set(&chosen);
        free_set(&gemm);
    }
}

int main(int argc, char **argv)
{
    xconv_device *dev = open_sm90_profile();
    if (!dev)
        return 1;
    if (argc > 1)
        return count_shape_args(dev, argc, argv, count_programs);
    xconv_plan_options forced;
    xconv_plan_options_default(&forced);
    forced.gemm_tiles = (xconv_forced_gemm_tiles){64, 64, 16, 4, 4, 4, 4, 1};
    // Two 3x3 layers of ResNet-50 (other C, H, W, K; the same filter, stride and padding), a
    // strided, dilated, grouped pair, and two 1x1 layers.
    check_pair(dev, "implicit_gemm", "n=32,c=64,h=56,w=56,k=64,r=3,pad=1",
               "n=8,c=128,h=28,w=28,k=128,r=3,pad=1", &forced, 1);
    check_pair(dev, "implicit_gemm", "n=3,c=8,h=31,w=17,k=20,r=3,stride=2,pad=2,dil=2,groups=2",
               "n=1,c=40,h=9,w=23,k=8,r=3,stride=2,pad=2,dil=2,groups=2", &forced, 1);
    check_pair(dev, "gemm_1x1", "n=32,c=256,h=56,w=56,k=64,r=1",
               "n=4,c=1024,h=14,w=14,k=256,r=1", &forced, 1);
    check_pair(dev, "implicit_gemm", "n=32,c=256,h=56,w=56,k=64,r=1",
               "n=4,c=1024,h=14,w=14,k=256,r=1", &forced, 1);
    // Split-K: the GEMM and its reduce step take the sizes too, with a bias and activation.
    xconv_plan_options split = forced;
    split.gemm_tiles.split = 3;
    check_pair(dev, "implicit_gemm", "n=2,c=256,h=14,w=14,k=256,r=3,pad=1,bias=1,act=relu",
               "n=1,c=512,h=7,w=7,k=512,r=3,pad=1,bias=1,act=relu", &split, 2);
    check_pair(dev, "gemm_1x1", "n=2,c=1024,h=14,w=14,k=256,r=1",
               "n=1,c=2048,h=12,w=12,k=512,r=1", &split, 2);
    // implicit_precomp: its offset table and GEMM, the layers' C/groups x R x S alike (the
    // table's rows stay a define), split too.
    check_pair(dev, "implicit_precomp", "n=32,c=64,h=56,w=56,k=64,r=3,pad=1",
               "n=8,c=64,h=28,w=20,k=128,r=3,pad=1", &forced, 2);
    check_pair(dev, "implicit_precomp", "n=2,c=256,h=14,w=14,k=256,r=3,pad=1",
               "n=1,c=256,h=12,w=12,k=512,r=3,pad=1", &split, 3);
    // A fused pool keeps the sizes compiled in, as do the variants that do not take them.
    check_baked(dev, "implicit_gemm", "n=2,c=16,h=16,w=16,k=16,r=3,pad=1,pool=2", &forced,
                "pooled");
    check_baked(dev, "implicit_gemm", "n=2,c=64,h=16,w=16,k=64,r=3,pad=1,pool=3", &split,
                "split and pooled");
    check_baked(dev, "direct_tiled", "n=2,c=16,h=16,w=16,k=16,r=3,pad=1", &forced, "direct");
    check_baked(dev, "im2col_gemm", "n=2,c=16,h=16,w=16,k=16,r=3,pad=1", &forced, "im2col");
    xconv_device_close(dev);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
