// SPDX-License-Identifier: MIT
// implicit_xmx (Intel's matrix engines): applicability from the device's sub-group matrix
// multiply-accumulate and the problem's math mode, its plans on the dg2 (sub-group 8) and pvc
// (16) profiles, auto never choosing it (unmeasured), the emulated kernel compiled through NVRTC
// for sm_90 when NVRTC loads (the portable subset outside the built-ins), and the kernel's
// tiling and the extension's operand layouts run on an OpenCL CPU device (PoCL) with the
// built-ins emulated (XC_XMX_NATIVE 0) at both sub-group sizes, every element checked against
// the float64 reference. `oclgrind --data-races build/test_xmx` runs the emulated kernels under
// Oclgrind's memory checker and race detector instead (no reports). Its compilation by ocloc
// (and the dpas in it) is tests/cli/xmx_compile.sh's.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/device.h"
#include "../host/caches/programs.h"
#include "../host/plan/variant.h"
#include "families/gemm/plan_xmx.h"
#include "tests/check.h"
#include "tests/fixtures.h"
#include "measure/check.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/cuda_loader.h"
#include "cuda/nvrtc_compile.h"
#endif

// Shapes of every kind the kernel's edges meet: rows, columns and K not multiples of any tile
// (8-, 16-, 32- and 64-row tiles, two row tiles), groups, stride, dilation, padding on one side,
// rectangular filters, a 1x1 filter, K below one step of 16.
static const char *const run_specs[] = {
    "n=2,c=5,h=7,w=9,k=20,r=3,pad=1",
    "n=1,c=8,h=10,w=10,k=70,r=3,stride=2,pad=1",
    "n=2,c=12,h=6,w=6,k=6,r=3,groups=3,pad=1",
    "n=1,c=3,h=9,w=11,k=17,r=2,s=3,dil=2,pad_w=2",
    "n=3,c=40,h=5,w=5,k=33,r=1",
    "n=1,c=1,h=12,w=12,k=4,r=3",
    "n=4,c=24,h=20,w=18,k=12,r=3,s=2,stride=2,dil=2,pad=2",
};
// The rows of C a work-group is expected to take for each shape (a group's filters).
static const int run_tile_m[] = {32, 64, 8, 32, 64, 8, 16};
#define RUN_SPECS ((int)(sizeof run_specs / sizeof run_specs[0]))

static const char *const math_specs[] = {"dtype=f16,math=f16", "dtype=bf16,math=bf16"};

// Returns the rows of C a work-group of s computes.
static long long tile_rows(const xconv_step *s)
{
    return 8 * xconv_step_value(s, "XC_XMX_BLOCKS_M", 0) *
           xconv_step_value(s, "XC_XMX_SUB_GROUPS_M", 0);
}

// ---------------------------------------------------------------------------------------------
// Applicability, planning and auto (target profiles: no device)

static void test_applicability(void)
{
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_xmx", &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    xconv_device *dg2 = open_target("dg2"), *pvc = open_target("pvc");
    xconv_device *amd = open_target("gfx90a"), *h100 = open_target("sm_90");
    if (!v || !dg2 || !pvc || !amd || !h100)
        return;
    CHECK(xconv_xmx_sub_group(&dg2->info) == 8 && xconv_xmx_sub_group(&pvc->info) == 16);
    CHECK(xconv_xmx_sub_group(&amd->info) == 0 && xconv_xmx_sub_group(&h100->info) == 0);
    char reason[512];
    xconv_problem p;
    for (int m = 0; m < 2; m++) {
        CHECK(parse_with(run_specs[0], math_specs[m], &p));
        CHECK_MSG(xconv_variant_applies(v, dg2, &p, reason, sizeof reason), "%s", reason);
        CHECK_MSG(xconv_variant_applies(v, pvc, &p, reason, sizeof reason), "%s", reason);
        CHECK(!xconv_variant_applies(v, amd, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, "implicit_xmx needs Intel's matrix engines "
                               "(cl_intel_subgroup_matrix_multiply_accumulate at sub-group size "
                               "8 or 16); AMD Instinct MI250X");
        CHECK(!xconv_variant_applies(v, h100, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, "implicit_xmx does not run on the cuda backend");
    }
    // A sub-group size the extension does not have is no engine.
    xconv_device odd = *dg2;
    odd.info.intel_mma_sub_group = 32;
    CHECK(!xconv_variant_applies(v, &odd, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "needs Intel's matrix engines");
    // Strict fp32 never gets reduced math; tf32 is not in this extension.
    CHECK(parse_with(run_specs[0], "", &p));
    CHECK(!xconv_variant_applies(v, dg2, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "math=f32 is strict fp32");
    CHECK(parse_with(run_specs[0], "math=tf32", &p));
    CHECK(!xconv_variant_applies(v, dg2, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "math=tf32: implicit_xmx does not implement this math mode");
    // fp16 storage with an epilogue is not implemented (any variant).
    CHECK(parse_with(run_specs[0], "dtype=f16,math=f16,bias=1", &p));
    CHECK(!xconv_variant_applies(v, dg2, &p, reason, sizeof reason));
    xconv_device_close(dg2);
    xconv_device_close(pvc);
    xconv_device_close(amd);
    xconv_device_close(h100);
}

// Every small-suite shape plans in f16 and bf16 on both Intel profiles: one step of four
// sub-groups of the profile's size, the built-ins (not the emulation) in its defines, the rows
// of a work-group the fewest 8-row blocks that hold a group's filters (up to 64).
static void test_plans(void)
{
    static const char *const targets[] = {"dg2", "pvc"};
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_xmx", &err);
    int count = 0, planned = 0;
    const xconv_named_shape *suite = xconv_suite_find("small", &count);
    CHECK(suite && count > 0 && v);
    for (int t = 0; t < 2; t++) {
        xconv_device *dev = open_target(targets[t]);
        for (int m = 0; dev && v && suite && m < 2; m++)
            for (int i = 0; i < count; i++) {
                xconv_problem p;
                if (!parse_with(suite[i].spec, math_specs[m], &p))
                    continue;
                xconv_plan *plan = NULL;
                xconv_status st = xconv_variant_plan(v, dev, &p, NULL, &plan, &err);
                CHECK_MSG(st == XCONV_OK, "%s %s %s: %s", targets[t], suite[i].name,
                          math_specs[m], err.msg);
                if (st != XCONV_OK)
                    continue;
                planned++;
                const xconv_step *s = xconv_plan_step(plan, 0);
                long long sg = dev->info.intel_mma_sub_group;
                CHECK(plan->nsteps == 1 && strcmp(s->source, "implicit_xmx") == 0);
                CHECK(xconv_step_value(s, "XC_XMX_MATH", 0) == p.math);
                CHECK(xconv_step_value(s, "XC_DTYPE", 0) == p.dtype);
                CHECK(xconv_step_value(s, "XC_XMX_SG", 0) == sg);
                CHECK(xconv_step_value(s, "XC_XMX_NATIVE", 0) == 1);
                CHECK(s->local[0] == (size_t)(4 * sg) && s->local[1] == 1 &&
                      s->global[2] == (size_t)p.groups);
                int64_t kg = p.k / p.groups;
                long long rows = tile_rows(s);
                CHECK_MSG(rows == (kg <= 8 ? 8 : kg <= 16 ? 16 : kg <= 32 ? 32 : 64),
                          "%s: %lld rows for %lld filters", suite[i].name, rows, (long long)kg);
                CHECK_CONTAINS(plan->summary, "unmeasured on hardware");
                xconv_plan_destroy(plan);
            }
        xconv_device_close(dev);
    }
    printf("  implicit_xmx: %d plans on dg2 and pvc (small suite x f16, bf16)\n", planned);
    CHECK(planned == 2 * 2 * count);
}

// auto never takes implicit_xmx from its rules: no line names it, since it has not been timed
// on an Intel GPU (a find-db record, timed there, is the only way auto could pick it).
static void test_auto(void)
{
    static const char *const shapes[] = {"n=8,c=64,h=28,w=28,k=128,r=3,pad=1",
                                         "n=32,c=256,h=14,w=14,k=1024,r=1"};
    static const char *const targets[] = {"dg2", "pvc"};
    int planned = 0;
    for (int t = 0; t < 2; t++) {
        xconv_device *dev = open_target(targets[t]);
        for (int i = 0; dev && i < 2; i++)
            for (int m = 0; m < 2; m++) {
                xconv_problem p;
                xconv_error err;
                xconv_auto_info info;
                CHECK(parse_with(shapes[i], math_specs[m], &p));
                xconv_status st = xconv_auto_plan(dev, &p, NULL, &info, NULL, &err);
                CHECK_MSG(st == XCONV_OK || st == XCONV_ERR_NOT_APPLICABLE, "%s", err.msg);
                CHECK_MSG(st != XCONV_OK || strcmp(info.variant->info.name, "implicit_xmx"),
                          "auto chose implicit_xmx on %s: %s", targets[t], info.why);
                planned += st == XCONV_OK;
            }
        xconv_device_close(dev);
    }
    printf("  auto on dg2 and pvc in f16 and bf16: %d of 8 planned, none implicit_xmx\n",
           planned);
}

// ---------------------------------------------------------------------------------------------
// The emulated kernel through NVRTC: the portable subset holds outside the built-ins

#ifdef XCONV_HAVE_CUDA
// Compiles the dg2 and pvc plans of one shape, emulated, in f16 and bf16 for sm_90.
static void test_nvrtc(void)
{
    xconv_error err;
    if (!xconv_nvrtc_load(&err)) {
        printf("  NVRTC not loaded (%s): the emulation's CUDA compile not checked\n", err.msg);
        return;
    }
    static const char *const targets[] = {"dg2", "pvc"};
    const xconv_variant *v = xconv_variant_find("implicit_xmx", &err);
    int compiled = 0;
    for (int t = 0; v && t < 2; t++) {
        xconv_device *dev = open_target(targets[t]);
        for (int m = 0; dev && m < 2; m++) {
            xconv_problem p;
            xconv_plan *plan = NULL;
            if (!parse_with(run_specs[1], math_specs[m], &p) ||
                xconv_variant_plan(v, dev, &p, NULL, &plan, &err) != XCONV_OK)
                continue;
            xconv_step *s = xconv_plan_step(plan, 0);
            for (int i = 0; i < s->ndefines; i++)
                if (strcmp(s->defines[i].name, "XC_XMX_NATIVE") == 0)
                    s->defines[i].value = 0;
            char options[4096];
            xconv_step_options(s, options, sizeof options);
            char *ptx = NULL;
            size_t len = 0;
            xconv_status st = xconv_nvrtc_compile_ptx(xconv_kernel_source("implicit_xmx"),
                                                      options, 9, 0, &ptx, &len, &err);
            CHECK_MSG(st == XCONV_OK, "%s %s: %s", targets[t], math_specs[m], err.msg);
            CHECK(st != XCONV_OK || strstr(ptx, ".entry implicit_xmx(") != NULL);
            compiled += st == XCONV_OK;
            free(ptx);
            xconv_plan_destroy(plan);
        }
        xconv_device_close(dev);
    }
    printf("  implicit_xmx emulated through NVRTC for sm_90: %d of 4 compiled\n", compiled);
}
#endif

// ---------------------------------------------------------------------------------------------
// The kernel on an OpenCL CPU device, the built-ins emulated

// One shape in one math mode at sub-group size sg: the emulated kernel against float64 over
// the stored operands. Every product of two 16-bit values is exact in fp32 and the sums are
// fp32, so the error is the sums' and the output's rounding: within 1e-5 of the scale plus
// the storage's threshold (a wrong operand index is off by whole terms), and within the mode's
// own threshold. y starts as NaN, so an element never written fails.
static void check_emulated(xconv_device *dev, const xconv_variant *v, int index,
                           const char *types, int sg)
{
    xconv_problem p;
    xconv_error err;
    const char *spec = run_specs[index];
    if (!parse_with(spec, types, &p))
        return;
    xconv_plan *plan = NULL;
    xconv_status st = xconv_variant_plan(v, dev, &p, NULL, &plan, &err);
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
    if (st != XCONV_OK)
        return;
    xconv_step *s = xconv_plan_step(plan, 0);
    CHECK_MSG(tile_rows(s) == run_tile_m[index] && xconv_step_value(s, "XC_XMX_SG", 0) == sg,
              "%s: %lld-row tiles at sub-group %lld", spec, tile_rows(s),
              xconv_step_value(s, "XC_XMX_SG", 0));
    for (int i = 0; i < s->ndefines; i++)  // the emulation, and its exchange's local memory
        if (strcmp(s->defines[i].name, "XC_XMX_NATIVE") == 0)
            s->defines[i].value = 0;
    s->local_mem_bytes = s->local[0] * 8 * sizeof(uint32_t);
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4);
    double *ref = malloc(yn * 8), *norm = malloc(yn * 8);
    CHECK(x && w && y && ref && norm);
    if (x && w && y && ref && norm) {
        xconv_random_fill(x, xn, 7, 1);
        xconv_random_fill(w, wn, 7, 2);
        xconv_dtype_round(p.dtype, x, xn);
        xconv_dtype_round(p.dtype, w, wn);
        st = run_stored(dev, plan, &p, x, w, y, &err);
        CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
        xconv_compare_result r;
        CHECK(xconv_reference_conv(&p, x, w, ref, norm, 1, &err) == XCONV_OK);
        xconv_compare_full(y, ref, norm, (int64_t)yn, &r);
        double storage = xconv_threshold_storage(p.dtype);
        double limit = xconv_threshold_for_family("gemm") + storage + xconv_threshold_math(p.math);
        printf("  sub-group %2d %-46s %-21s error %.2g over %lld outputs\n", sg, spec, types,
               r.max_norm_err, (long long)yn);
        CHECK_MSG(st != XCONV_OK || xconv_compare_passed(&r, 1e-5 + storage),
                  "%s %s sub-group %d: %lld non-finite, error %.3g at %lld", spec, types, sg,
                  (long long)r.nonfinite, r.max_norm_err, (long long)r.worst_index);
        CHECK(st != XCONV_OK || xconv_compare_passed(&r, limit));
    }
    free(x), free(w), free(y), free(ref), free(norm);
    xconv_plan_destroy(plan);
}

static void test_emulated(void)
{
    xconv_device *dev = open_cpu();
    if (!dev) {
        printf("  no OpenCL CPU device: the emulated kernel is not run\n");
        return;
    }
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_xmx", &err);
    char reason[512];
    xconv_problem p;
    CHECK(parse_with(run_specs[0], math_specs[0], &p));
    CHECK(!xconv_variant_applies(v, dev, &p, reason, sizeof reason));  // no matrix engines
    CHECK_CONTAINS(reason, "needs Intel's matrix engines");
    // Planned as for each sub-group size of the extension, run emulated: every shape in f16
    // and bf16.
    static const int sizes[] = {8, 16};
    for (int g = 0; v && g < 2; g++) {
        dev->info.intel_mma_sub_group = sizes[g];
        for (int m = 0; m < 2; m++)
            for (int i = 0; i < RUN_SPECS; i++)
                check_emulated(dev, v, i, math_specs[m], sizes[g]);
    }
    dev->info.intel_mma_sub_group = 0;
    xconv_device_close(dev);
}

int main(void)
{
    test_applicability();
    test_plans();
    test_auto();
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    test_emulated();
    return check_summary("test_xmx");
}
