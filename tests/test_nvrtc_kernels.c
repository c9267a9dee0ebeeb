// SPDX-License-Identifier: MIT
// Compiles every embedded kernel through NVRTC for sm_90 with no GPU: the dialect's own macros,
// every CUDA variant's planned steps on the small suite and a few epilogue shapes (PTX, plus
// CUBIN so ptxas checks the device's limits), the Winograd variants' plans for the layers
// docs/teaching/winograd.md measures, and each cl/*.cl source no plan uses with fixed problem
// defines. Skips when NVRTC is missing.
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"

#ifndef XCONV_HAVE_CUDA

int main(void)
{
    printf("SKIP: built without the CUDA backend (configure with -DXCONV_CUDA=ON and a CUDA "
           "toolkit)\n");
    return CHECK_SKIP_CODE;
}

#else

#include "../host/core/clock.h"
#include "cuda/cuda_loader.h"
#include "cuda/nvrtc_compile.h"
#include "../host/plan/variant.h"
#include "xconv_problem_fields.h"

#define CC_MAJOR 9
#define CC_MINOR 0

static int programs_compiled;

// The sources some plan compiled (the rest get fixed defines).
static const char *planned_sources[64];
static int nplanned_sources;

static void note_planned(const char *stem)
{
    for (int i = 0; i < nplanned_sources; i++)
        if (strcmp(planned_sources[i], stem) == 0)
            return;
    if (nplanned_sources < 64)
        planned_sources[nplanned_sources++] = stem;
}

static bool was_planned(const char *stem)
{
    for (int i = 0; i < nplanned_sources; i++)
        if (strcmp(planned_sources[i], stem) == 0)
            return true;
    return false;
}

// ---------------------------------------------------------------------------------------------
// Source and PTX inspection

// Returns true when source declares a __constant__ array (XC_CONSTANT_ARRAY opening a line).
static bool uses_constant(const char *source)
{
    for (const char *s = source; (s = strstr(s, "XC_CONSTANT_ARRAY(")); s++) {
        const char *line = s;
        while (line > source && (line[-1] == ' ' || line[-1] == '\t'))
            line--;
        if (line == source || line[-1] == '\n')
            return true;
    }
    return false;
}

// Checks that ptx has the unmangled entry point `kernel`, or any entry point when kernel is NULL
// (sources choose their kernels with #if on the defines).
static void check_entry(const char *label, const char *kernel, const char *ptx)
{
    char entry[160];
    snprintf(entry, sizeof entry, ".entry %s(", kernel ? kernel : "");
    CHECK_MSG(strstr(ptx, kernel ? entry : ".entry ") != NULL, "%s: PTX lacks \"%s\"", label,
              kernel ? entry : ".entry");
}

// ---------------------------------------------------------------------------------------------
// Compiling

// Compiles source with options to PTX and checks it: entry point `kernel` present (any when
// NULL), .const when the source declares constant memory. With cubin, also builds the sm_90
// CUBIN program_build would load.
// With needs_ok, a build stopped by the source's own #error (a define only a planner gives) is
// reported, not failed. Returns false when it did not compile.
static bool compile_and_check(const char *label, const char *source, const char *kernel,
                              const char *options, bool cubin, bool needs_ok)
{
    xconv_error err = {0};
    xconv_nvrtc_image img;
    xconv_status st = xconv_nvrtc_compile(source, options, CC_MAJOR, CC_MINOR, cubin, &img,
                                          &err);
    const char *directive = st == XCONV_ERR_BUILD ? strstr(err.msg, "#error directive: ") : NULL;
    if (needs_ok && directive) {
        printf("  %s: not compiled: %.*s\n", label, (int)strcspn(directive, "\n"), directive);
        return false;
    }
    CHECK_MSG(st == XCONV_OK, "%s: %s", label, err.msg);
    if (st != XCONV_OK)
        return false;
    programs_compiled++;
    const char *ptx = img.ptx;
    CHECK_MSG(img.ptx_len > 0 && strlen(ptx) == img.ptx_len, "%s: PTX of %zu bytes", label,
              img.ptx_len);
    CHECK_MSG(strstr(ptx, ".target sm_90") != NULL, "%s: PTX is not for sm_90", label);
    check_entry(label, kernel, ptx);
    if (uses_constant(source))
        CHECK_MSG(strstr(ptx, ".const") != NULL, "%s: declares XC_CONSTANT_ARRAY but its PTX "
                  "has no .const", label);
    if (cubin)
        CHECK_MSG(img.is_cubin && img.len > 4 && memcmp(img.data, "\x7f" "ELF", 4) == 0 &&
                  strcmp(img.arch, "sm_90") == 0, "%s: no sm_90 CUBIN (arch %s)", label,
                  img.arch);
    xconv_nvrtc_image_free(&img);
    return true;
}

// Writes a problem's defines ("-DXC_N=2 ...") into buf.
static void problem_options(const xconv_problem *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
#define XCONV_WRITE_DEFINE(name, expr, meaning)                                         \
    if (used < len)                                                                      \
        used += (size_t)snprintf(buf + used, len - used, "%s-D" #name "=%lld",          \
                                 used ? " " : "", (long long)(expr));
    XCONV_PROBLEM_DEFINES(XCONV_WRITE_DEFINE)
#undef XCONV_WRITE_DEFINE
}

// ---------------------------------------------------------------------------------------------
// The dialect itself

// Every dialect name in one kernel, so the prelude is checked even where no kernel uses a name.
static const char dialect_source[] =
    "XC_CONSTANT_ARRAY(float, xc_taps, 64)\n"
    "XC_FUNC float twice(float v) { return v + v; }\n"
    "XC_FUNC float tap(XC_CONSTANT_ARG(float, xc_taps), int i) { return xc_taps[i % 64]; }\n"
    "XC_KERNEL void every_macro(const XC_GLOBAL float *XC_RESTRICT x, XC_GLOBAL float *y,\n"
    "                           XC_CONSTANT_PARAM(float, xc_taps), const int n, const float a)\n"
    "{\n"
    "    XC_LOCAL float tile[64];\n"
    "    XC_LOCAL_PTR float *t = tile;\n"
    "    const int i = XC_GLOBAL_ID(0) + XC_GLOBAL_ID(1) + XC_GLOBAL_ID(2);\n"
    "    const int l = XC_LOCAL_ID(0) + XC_LOCAL_ID(1) + XC_LOCAL_ID(2);\n"
    "    const int g = XC_GROUP_ID(0) + XC_NUM_GROUPS(1) + XC_LOCAL_SIZE(2);\n"
    "    t[l % 64] = x[i % n];\n"
    "    XC_BARRIER();\n"
    "    float4 v = XC_LOAD4(x, g % 4);\n"
    "    float4 u = XC_MAKE_FLOAT4(v.x, v.y, v.z, XC_FABS(v.w));\n"
    "    XC_STORE4(u, y, g % 4);\n"
    "    y[i % n] = XC_FMA(a, t[(l + 1) % 64], twice(tap(xc_taps, i)))\n"
    "               + (n < 0 ? XC_NAN : 0.0f);\n"
    "}\n";

static const char contract_source[] =
    "XC_KERNEL void plain(XC_GLOBAL float *y, const float a, const float b, const float c)\n"
    "{ y[XC_GLOBAL_ID(0)] = a * b + c; }\n";

static const char fused_source[] =
    "XC_KERNEL void fused(XC_GLOBAL float *y, const float a, const float b, const float c)\n"
    "{ y[XC_GLOBAL_ID(0)] = XC_FMA(a, b, c); }\n";

static const char broken_source[] =
    "XC_KERNEL void broken(XC_GLOBAL float *y)\n"
    "{   y[0] = undefined_thing; }\n";

static void test_dialect(void)
{
    compile_and_check("dialect (every macro)", dialect_source, "every_macro", "", true, false);

    // --fmad=false: a * b + c stays two roundings; only XC_FMA fuses (as FP_CONTRACT OFF).
    xconv_error err = {0};
    char *ptx = NULL;
    size_t len = 0;
    CHECK(xconv_nvrtc_compile_ptx(contract_source, "", CC_MAJOR, CC_MINOR, &ptx, &len, &err) ==
          XCONV_OK);
    CHECK_MSG(ptx && strstr(ptx, "fma.rn.f32") == NULL && strstr(ptx, "mul.rn.f32") != NULL,
              "a * b + c was contracted:\n%s", ptx ? ptx : "");
    free(ptx);
    CHECK(xconv_nvrtc_compile_ptx(fused_source, "", CC_MAJOR, CC_MINOR, &ptx, &len, &err) ==
          XCONV_OK);
    CHECK_MSG(ptx && strstr(ptx, "fma.rn.f32") != NULL, "XC_FMA did not give an fma");
    free(ptx);

    // A failed build names the error, its line in our source (#line 1) and the options.
    ptx = NULL;
    CHECK(xconv_nvrtc_compile_ptx(broken_source, "-DXC_UNUSED=1", CC_MAJOR, CC_MINOR, &ptx, &len,
                                  &err) == XCONV_ERR_BUILD);
    CHECK(ptx == NULL && len == 0);
    CHECK_CONTAINS(err.msg, "undefined_thing");
    CHECK_CONTAINS(err.msg, "(2): error");
    CHECK_CONTAINS(err.msg, "--fmad=false");
    CHECK_CONTAINS(err.msg, "-DXC_UNUSED=1");
    CHECK(xconv_nvrtc_compile_ptx(fused_source, "-O3", CC_MAJOR, CC_MINOR, &ptx, &len, &err) ==
          XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "'-O3' is not a define");

    // A device newer than NVRTC falls back to PTX for NVRTC's newest architecture below it.
    xconv_nvrtc_image img;
    xconv_status st = xconv_nvrtc_compile(fused_source, "", 99, 9, true, &img, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st == XCONV_OK) {
        CHECK(!img.is_cubin && strncmp(img.arch, "compute_", 8) == 0);
        printf("  cc 99.9 (unknown to NVRTC): PTX for %s, JIT-compiled by the driver\n",
               img.arch);
        xconv_nvrtc_image_free(&img);
    }
}

// ---------------------------------------------------------------------------------------------
// Raw sources

// Each embedded source that no plan compiled, with the defines of two problems (tile parameters
// keep their defaults). A source that stops at its own #error for a planner-only define is
// reported and left for the planned pass, once a CUDA variant uses it.
static void test_unplanned_sources(void)
{
    xconv_problem probs[2] = {
        {.n = 2, .c = 8, .h = 12, .w = 12, .k = 16, .r = 3, .s = 3, .stride_h = 1,
         .stride_w = 1, .pad_h = 1, .pad_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1},
        {.n = 3, .c = 6, .h = 17, .w = 23, .k = 9, .r = 3, .s = 5, .stride_h = 2,
         .stride_w = 3, .pad_h = 1, .pad_w = 2, .dil_h = 2, .dil_w = 1, .groups = 3},
    };
    const char *const *names = xconv_kernel_source_names();
    int count = 0, unplanned = 0;
    for (int i = 0; names[i]; i++, count++) {
        const char *source = xconv_kernel_source(names[i]);
        CHECK_MSG(source != NULL, "no text for kernel source %s", names[i]);
        if (!source || was_planned(names[i]))
            continue;
        unplanned++;
        for (int j = 0; j < 2; j++) {
            char options[1024], label[160];
            problem_options(&probs[j], options, sizeof options);
            snprintf(label, sizeof label, "cl/%s.cl (no CUDA plan; fixed defines %d)", names[i],
                     j);
            if (!compile_and_check(label, source, NULL, options, j == 0, true))
                break;
        }
    }
    printf("  kernel sources: %d embedded, %d compiled through plans, %d with fixed defines\n",
           count, count - unplanned, unplanned);
    CHECK_MSG(count > 0, "no embedded kernel sources");
}

// ---------------------------------------------------------------------------------------------
// Planned variants

// Never called: a vendor BLAS slot, so variants that need one plan as they would on the GPU.
static xconv_status stub_sgemm(void *ctx, const xconv_gemm_args *args, xconv_error *err)
{
    (void)ctx;
    (void)args;
    return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "no device in this test");
}

// A CUDA table with no device behind it: planners read its slots, nothing is run. The vendor
// convolution slots stay NULL, so the cuDNN rows report themselves not applicable.
static const xconv_backend_iface stub_backend = {.kind = XCONV_BACKEND_CUDA, .sgemm = stub_sgemm};

// An H100 (sm_90) as the CUDA backend describes it.
static xconv_device synthetic_h100(void)
{
    xconv_device dev = {.be = &stub_backend};
    xconv_device_info *i = &dev.info;
    i->backend = XCONV_BACKEND_CUDA;
    snprintf(i->platform, sizeof i->platform, "CUDA");
    snprintf(i->vendor, sizeof i->vendor, "NVIDIA");
    snprintf(i->name, sizeof i->name, "synthetic H100 (sm_90)");
    snprintf(i->version, sizeof i->version, "compute capability 9.0");
    i->is_gpu = true;
    i->compute_units = 132;
    i->clock_mhz = 1980;
    i->global_mem_bytes = i->max_alloc_bytes = 80ull << 30;
    i->local_mem_bytes = 48 << 10;
    i->const_mem_bytes = 64 << 10;
    i->cache_bytes = 50ull << 20;
    i->max_work_group_size = 1024;
    i->max_work_item_sizes[0] = i->max_work_item_sizes[1] = 1024;
    i->max_work_item_sizes[2] = 64;
    i->preferred_multiple = 32;
    i->max_registers_per_work_group = 65536;
    i->fp64 = true;
    i->cc_major = CC_MAJOR;
    i->cc_minor = CC_MINOR;
    return dev;
}

// The epilogue suite's shapes a CUDA variant is also compiled for: fused stores (bias and
// activation, 2x2/2 pools, odd and 1x1 shapes) and the unfused steps (overlapping, padded pools).
static const char *const epilogue_shapes[] = {"bias_relu_pool2", "all_odd", "pool3s2p1",
                                              "pw_pool2", "bias_relu6"};
#define EPILOGUE_SHAPES ((int)(sizeof epilogue_shapes / sizeof epilogue_shapes[0]))
#define MAX_PLANNED_SHAPES 64

// Fills out with the small suite's shapes followed by the epilogue shapes above; returns their
// count.
static int planned_shapes(xconv_named_shape out[MAX_PLANNED_SHAPES])
{
    int small = 0, epi = 0, n = 0;
    const xconv_named_shape *suite = xconv_suite_find("small", &small);
    const xconv_named_shape *epis = xconv_suite_find("epilogue", &epi);
    for (int i = 0; suite && i < small && n < MAX_PLANNED_SHAPES; i++)
        out[n++] = suite[i];
    for (int k = 0; k < EPILOGUE_SHAPES; k++) {
        bool found = false;
        for (int j = 0; epis && j < epi && !found; j++)
            if (strcmp(epis[j].name, epilogue_shapes[k]) == 0 && n < MAX_PLANNED_SHAPES) {
                out[n++] = epis[j];
                found = true;
            }
        CHECK_MSG(found, "the epilogue suite lacks %s", epilogue_shapes[k]);
    }
    return n;
}

// Compiles one variant's plan for each of the `shapes` shapes of suite, each distinct program
// once, and checks that a variant that fuses and planned a shape with an epilogue compiles a step
// applying it (its defines: the bias, or the pool); returns the number of shapes it planned.
static int test_variant(const xconv_variant *v, xconv_device *dev,
                         const xconv_named_shape *suite, int shapes)
{
    int applied = 0, before = programs_compiled, fused = 0, with_epilogue = 0;
    CHECK(suite != NULL && shapes > 0);
    char skipped[512] = "";
    uint64_t seen[128];
    int nseen = 0;
    for (int s = 0; s < shapes; s++) {
        const xconv_named_shape *shape = &suite[s];
        xconv_error err = {0};
        xconv_problem p;
        CHECK_MSG(xconv_shape_parse(shape->spec, &p, &err) == XCONV_OK, "%s", err.msg);
        xconv_plan *plan = NULL;
        xconv_status st = xconv_variant_plan(v, dev, &p, NULL, &plan, &err);
        if (st == XCONV_ERR_NOT_APPLICABLE) {
            if (!skipped[0])
                snprintf(skipped, sizeof skipped, " (not applicable to %s: %.300s)",
                         shape->name, err.msg);
            continue;
        }
        CHECK_MSG(st == XCONV_OK, "%s on %s: %s", v->info.name, shape->name, err.msg);
        if (st != XCONV_OK)
            continue;
        applied++;
        with_epilogue += p.epi.bias || p.epi.act || p.epi.pool_h;
        for (int i = 0; i < plan->nsteps; i++) {
            const xconv_step *step = xconv_plan_step(plan, i);
            if (step->kind != XCONV_STEP_KERNEL)
                continue;
            char options[4096];
            xconv_step_options(step, options, sizeof options);
            const char *source = xconv_kernel_source(step->source);
            CHECK_MSG(source != NULL, "%s plans source '%s', which is not embedded",
                      v->info.name, step->source);
            if (!source)
                continue;
            uint64_t h = 1469598103934665603ull;  // FNV-1a of stem and options
            for (const char *c = step->source; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ull;
            for (const char *c = options; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ull;
            bool dup = false;
            for (int j = 0; j < nseen; j++)
                dup = dup || seen[j] == h;
            if (dup)
                continue;
            if (nseen < 128)
                seen[nseen++] = h;
            char label[256];
            snprintf(label, sizeof label, "%s on %s, step %d (cl/%s.cl, %s)", v->info.name,
                     shape->name, i, step->source, step->kernel);
            compile_and_check(label, source, step->kernel, options, true, false);
            note_planned(step->source);
            fused += xconv_step_value(step, "XC_EPI_BIAS", 0) > 0 ||
                     xconv_step_value(step, "XC_POOL_H", 0) > 0;
        }
        xconv_plan_destroy(plan);
    }
    printf("  %-28s %2d of %d shapes planned, %2d programs compiled (%d fused epilogues)%s\n",
           v->info.name, applied, shapes, programs_compiled - before, fused, skipped);
    CHECK_MSG(!v->fuses || !with_epilogue || fused > 0,
              "%s fuses, yet none of its steps applies an epilogue", v->info.name);
    return applied;
}

static void test_planned(void)
{
    xconv_device dev = synthetic_h100();
    xconv_named_shape suite[MAX_PLANNED_SHAPES];
    int shapes = planned_shapes(suite);
    int count = xconv_variant_count(), cuda_variants = 0;
    char vendor_rows[1024] = "";
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        const xconv_variant *v = xconv_variant_at(i);
        if (!(v->info.backends & XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)))
            continue;
        cuda_variants++;
        if (strcmp(v->info.family, "peer") == 0) {  // vendor library calls: no kernel text
            if (used < sizeof vendor_rows)
                used += (size_t)snprintf(vendor_rows + used, sizeof vendor_rows - used, " %s",
                                         v->info.name);
            continue;
        }
        test_variant(v, &dev, suite, shapes);
    }
    CHECK_MSG(cuda_variants > 0, "no variant runs on CUDA");
    if (vendor_rows[0])
        printf("  vendor rows, no kernels to compile:%s\n", vendor_rows);
}

// The Winograd variants' plans for the layers docs/teaching/winograd.md measures on the H100
// (the standard suite's vgg3x3, res3x3 and conv5x5, ResNet-50's 3x3 layers at batch 50): their
// fused blocks and GEMM tiles differ from the small suite's, and ptxas checks them against the
// register file.
static void test_winograd_targets(void)
{
    static const xconv_named_shape targets[] = {
        {"vgg3x3", "n=16,c=64,h=224,w=224,k=64,r=3,pad=1"},
        {"res3x3", "n=32,c=256,h=14,w=14,k=256,r=3,pad=1"},
        {"conv5x5", "n=32,c=32,h=56,w=56,k=64,r=5,pad=2"},
        {"resnet50_c2", "n=50,c=64,h=56,w=56,k=64,r=3,pad=1"},
        {"resnet50_c4", "n=50,c=256,h=14,w=14,k=256,r=3,pad=1"},
        {"resnet50_c5", "n=50,c=512,h=7,w=7,k=512,r=3,pad=1"},
    };
    static const char *const names[] = {"winograd_f23", "winograd_f43", "winograd_f25",
                                        "winograd_f23_fused", "winograd_f43_fused",
                                        "winograd_f25_fused"};
    xconv_device dev = synthetic_h100();
    printf("  the Winograd variants on the measured 3x3 and 5x5 layers:\n");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        xconv_error err = {0};
        const xconv_variant *v = xconv_variant_find(names[i], &err);
        CHECK_MSG(v != NULL, "%s", err.msg);
        if (!v)
            continue;
        int planned = test_variant(v, &dev, targets, (int)(sizeof targets / sizeof targets[0]));
        int expected = strstr(names[i], "f25") ? 1 : 5;  // conv5x5; the five 3x3 layers
        CHECK_MSG(planned == expected, "%s planned %d of the measured layers, not %d", names[i],
                  planned, expected);
    }
}

// VGG-11's first layer with the flat direct_regblock plan the H100 got for it (blocks of 11 of
// 32 output channels): the last block's reads past the filters land in zeros staged after them,
// so the shared array holds 32 x 3 x 3 x 3 floats and one more.
static void test_flat_k_tail(void)
{
    xconv_device dev = synthetic_h100();
    xconv_error err = {0};
    xconv_problem p;
    CHECK(xconv_shape_parse("n=64,c=3,h=100,w=100,k=32,r=3,pad=1", &p, &err) == XCONV_OK);
    const xconv_variant *v = xconv_variant_find("direct_regblock", &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    if (!v)
        return;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.direct_tiling[0] = (xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_REGBLOCK, 128, 1, 4,
                                                         1, 11, 1, 1, 0, 2, 0};
    xconv_plan *plan = NULL;
    xconv_status st = xconv_variant_plan(v, &dev, &p, &opts, &plan, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st != XCONV_OK)
        return;
    char options[4096];
    xconv_step_options(xconv_plan_step(plan, 0), options, sizeof options);
    xconv_plan_destroy(plan);
    char *ptx = NULL;
    size_t len = 0;
    st = xconv_nvrtc_compile_ptx(xconv_kernel_source("direct_regblock"), options, CC_MAJOR,
                                 CC_MINOR, &ptx, &len, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK_MSG(ptx && strstr(ptx, "wl[3460];") != NULL, "no 3460-byte shared filter array");
    free(ptx);
}

// The GEMM family's split-K plans: the planner's own on ResNet-50's late layers (too few
// 128x128 tiles for the H100's 132 units), on the last 3x3 layer at batch 4 (the non-fused
// Winograd variants' batched GEMMs split there too) and on res3x3 with a fused bias, relu and
// 2x2 pool (the reduce applies them), the small-output tiles with a split forced on a small
// shape whose K steps the split does not divide, and one forced with an overlapping padded pool
// and relu6; every kernel step (the reduce's epilogue too) to PTX and CUBIN.
static void test_split_plans(void)
{
    xconv_device dev = synthetic_h100();
    static const char *const specs[] = {
        "n=50,c=2048,h=7,w=7,k=512,r=1", "n=50,c=1024,h=14,w=14,k=256,r=1",
        "n=50,c=512,h=7,w=7,k=512,r=3,pad=1", "n=4,c=512,h=7,w=7,k=512,r=3,pad=1",
        "n=3,c=37,h=11,w=13,k=70,r=3,pad=1",
        "n=8,c=256,h=14,w=14,k=256,r=3,pad=1,bias=1,act=relu,pool=2",
        "n=3,c=37,h=11,w=13,k=70,r=3,pad=1,bias=1,act=relu6,pool=3,pool_stride=2,pool_pad=1"};
    static const char *const tiles[] = {NULL, NULL, NULL, NULL, NULL, "64,32,16,4,4,4,4,3",
                                        "32,64,8,4,8,4,4,5", "64,64,8,8,4,4,4,2",
                                        "64,32,16,4,4,4,4,3"};
    static const int spec_of[] = {0, 1, 2, 3, 5, 4, 4, 4, 6};
    static const char *const variants[] = {"gemm_1x1", "implicit_gemm", "implicit_precomp",
                                           "im2col_gemm", "winograd_f23", "winograd_f43"};
    int split_plans = 0, before = programs_compiled, nseen = 0;
    uint64_t seen[128];  // FNV-1a of each compiled step's source and options: each once
    for (size_t c = 0; c < sizeof tiles / sizeof tiles[0]; c++) {
        xconv_error err = {0};
        xconv_problem p;
        const char *spec = specs[spec_of[c]];
        CHECK(xconv_shape_parse(spec, &p, &err) == XCONV_OK);
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        xconv_tuning tuning = {.gemm_tiles = ""};
        snprintf(tuning.gemm_tiles, sizeof tuning.gemm_tiles, "%s", tiles[c] ? tiles[c] : "");
        CHECK(xconv_tuning_apply(&tuning, &opts, &err) == XCONV_OK);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            const xconv_variant *var = xconv_variant_find(variants[v], &err);
            xconv_plan *plan = NULL;
            if ((spec_of[c] < 3 || spec_of[c] == 5) && strncmp(variants[v], "winograd", 8) == 0)
                continue;  // batch 50 and res3x3: Winograd's GEMMs have tiles for every unit
            if (!var || xconv_variant_plan(var, &dev, &p, &opts, &plan, &err) != XCONV_OK)
                continue;  // gemm_1x1 on 3x3 filters
            bool split = false;
            for (int i = 0; i < plan->nsteps; i++) {
                const xconv_step *step = xconv_plan_step(plan, i);
                split = split || xconv_step_value(step, "XC_GEMM_SPLIT_K", 1) > 1;
                char options[4096], label[256];
                xconv_step_options(step, options, sizeof options);
                uint64_t h = 1469598103934665603ull;
                for (const char *t = step->source; *t; t++)
                    h = (h ^ (unsigned char)*t) * 1099511628211ull;
                for (const char *t = options; *t; t++)
                    h = (h ^ (unsigned char)*t) * 1099511628211ull;
                bool dup = false;
                for (int j = 0; j < nseen; j++)
                    dup = dup || seen[j] == h;
                if (dup)
                    continue;
                if (nseen < 128)
                    seen[nseen++] = h;
                snprintf(label, sizeof label, "%s on %s (tiles %s), step %d (cl/%s.cl)",
                         variants[v], spec, tiles[c] ? tiles[c] : "planned", i, step->source);
                compile_and_check(label, xconv_kernel_source(step->source), step->kernel,
                                  options, true, false);
            }
            CHECK_MSG(split, "%s on %s (tiles %s) is not split: %s", variants[v], spec,
                      tiles[c] ? tiles[c] : "planned", plan->summary);
            split_plans += split;
            xconv_plan_destroy(plan);
        }
    }
    printf("  split-K: %d plans, %d programs compiled\n", split_plans,
           programs_compiled - before);
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Reduced storage

// Every variant with fp16 or bf16 kernels, planned on four small-suite shapes (plain, depthwise,
// 1x1, odd sizes) in each storage type it declares: the CUBIN builds, and the fp16 plan's PTX
// converts through cvt (f16 -> f32 on loads, round to nearest even on stores, in one step or
// two: a split-K GEMM reads fp16 and its reduce writes it; a step that reads no tensor, as
// implicit_precomp's table or a Winograd GEMM over the workspace, has none) while bf16's needs
// none.
static void test_reduced_storage(void)
{
    static const char *const names[] = {"plain3x3", "depthwise3x3", "pw1x1", "odd_sizes"};
    xconv_device dev = synthetic_h100();
    int small = 0, variants = 0;
    const xconv_named_shape *suite = xconv_suite_find("small", &small);
    for (int i = 0; i < xconv_variant_count(); i++) {
        const xconv_variant *v = xconv_variant_at(i);
        if (!v->dtypes || !(v->info.backends & XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA)))
            continue;
        variants++;
        for (int64_t dtype = XCONV_DTYPE_F16; dtype <= XCONV_DTYPE_BF16; dtype++)
            for (int j = 0; suite && j < small; j++) {
                bool named = false;
                for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                    named = named || strcmp(suite[j].name, names[k]) == 0;
                xconv_error err = {0};
                xconv_problem p;
                if (!named || xconv_shape_parse(suite[j].spec, &p, &err) != XCONV_OK ||
                    !(v->dtypes & XCONV_DTYPE_BIT(dtype)))
                    continue;
                p.dtype = dtype;
                xconv_plan *plan = NULL;
                // Some step's PTX widens fp16 and some step's rounds to it (under split-K the
                // GEMM reads fp16 and writes fp32 partials, the reduce rounds their sum).
                bool widens = false, rounds = false;
                xconv_status st = xconv_variant_plan(v, &dev, &p, NULL, &plan, &err);
                if (st == XCONV_ERR_NOT_APPLICABLE) {  // only where fp32 does not apply either
                    char reason[512];
                    xconv_problem p32 = p;
                    p32.dtype = XCONV_DTYPE_F32;
                    CHECK_MSG(!xconv_variant_applies(v, &dev, &p32, reason, sizeof reason),
                              "%s dtype=%s on %s: %s", v->info.name, xconv_dtype_name(dtype),
                              suite[j].name, err.msg);
                    continue;
                }
                CHECK_MSG(st == XCONV_OK, "%s dtype=%s on %s: %s", v->info.name,
                          xconv_dtype_name(dtype), suite[j].name, err.msg);
                for (int k = 0; st == XCONV_OK && k < plan->nsteps; k++) {
                    const xconv_step *step = xconv_plan_step(plan, k);
                    char options[4096];
                    xconv_step_options(step, options, sizeof options);
                    // Every step carries the storage type but the Winograd GEMMs over the
                    // workspace's fp32 regions.
                    if (!strstr(options, "-DXC_GEMM_REGIONS=1"))
                        CHECK_CONTAINS(options, "-DXC_DTYPE=");
                    xconv_nvrtc_image img;
                    st = xconv_nvrtc_compile(xconv_kernel_source(step->source), options,
                                             CC_MAJOR, CC_MINOR, true, &img, &err);
                    CHECK_MSG(st == XCONV_OK, "%s dtype=%s on %s: %s", v->info.name,
                              xconv_dtype_name(dtype), suite[j].name, err.msg);
                    if (st != XCONV_OK)
                        break;
                    programs_compiled++;
                    widens = widens || strstr(img.ptx, "cvt.f32.f16");
                    rounds = rounds || strstr(img.ptx, "cvt.rn.f16.f32");
                    CHECK_MSG(dtype == XCONV_DTYPE_F16 || !strstr(img.ptx, "cvt.f32.f16"),
                              "%s dtype=bf16 on %s: the PTX converts fp16", v->info.name,
                              suite[j].name);
                    CHECK(img.is_cubin);
                    xconv_nvrtc_image_free(&img);
                }
                CHECK_MSG(st != XCONV_OK || dtype != XCONV_DTYPE_F16 || (widens && rounds),
                          "%s dtype=f16 on %s: no step's PTX converts through cvt", v->info.name,
                          suite[j].name);
                xconv_plan_destroy(plan);
            }
    }
    printf("  reduced storage: %d variants with fp16/bf16 kernels compiled\n", variants);
    CHECK_MSG(variants >= 3, "fewer than three variants declare fp16 or bf16 storage");
}

int main(void)
{
    xconv_error err = {0};
    const xconv_nvrtc_api *nv = xconv_nvrtc_load(&err);
    if (!nv) {
        printf("SKIP: NVRTC cannot be loaded (%s)\n", err.msg);
        return CHECK_SKIP_CODE;
    }
    int major = 0, minor = 0;
    nv->version(&major, &minor);
    printf("NVRTC %d.%d (%s), target sm_%d%d, flags %s\n", major, minor, nv->library, CC_MAJOR,
           CC_MINOR, xconv_nvrtc_fixed_flags());
    double t0 = xconv_now_ms();
    test_dialect();
    test_reduced_storage();
    test_planned();
    test_flat_k_tail();
    test_split_plans();
    test_winograd_targets();
    test_unplanned_sources();
    printf("  %d programs compiled in %.1f s\n", programs_compiled,
           (xconv_now_ms() - t0) * 1e-3);
    return check_summary("test_nvrtc_kernels");
}

#endif // XCONV_HAVE_CUDA
