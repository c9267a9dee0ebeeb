// SPDX-License-Identifier: MIT
// implicit_mma (NVIDIA tensor cores): applicability from the device's compute capability and the
// problem's math mode, its plans and tiles on the sm_90 profile in both pipelines (registers;
// packed operands through a cp.async ring), auto's choice, the math thresholds, the planned
// kernels compiled for sm_90 through NVRTC and ptxas (mma.sync, cvt.rna.tf32, cp.async and
// ldmatrix in the PTX, no spills) when NVRTC loads, and both pipelines' tiling and PTX fragment
// layouts run on an OpenCL CPU device (PoCL) with the mma emulated (XC_MMA_PTX 0), against the
// float64 reference over the operands as the tensor cores read them. `oclgrind
// --local-mem-size 65536 --data-races build/test_mma` runs the emulated kernels under
// Oclgrind's memory checker and race detector instead (no reports; the emulation's exchange
// buffer beside the eight- and sixteen-warp tiles passes Oclgrind's default 32 KiB); with the
// argument `packed` only the packed pipeline's emulated checks run, with `forced` only those of
// forced tiles (XCONV_MMA_TILES) and split-K, with `pack_w` only those of the filter packing
// (its workspace words against a model). Every output of the packed pipeline, split or not,
// must equal to the bit a model of the emulation's fp32 sums (slices added in order).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/device.h"
#include "../host/plan/variant.h"
#include "families/gemm/plan_mma.h"
#include "tests/check.h"
#include "tests/fixtures.h"
#include "measure/check.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/cuda_loader.h"
#include "cuda/nvrtc_compile.h"
#endif

// Shapes of every kind the kernel's edges meet: rows, columns and K not multiples of the tiles,
// two row tiles (64 x 128, the device given many compute units), 128 x 128 tiles (given one),
// groups (one filter a group: 16-row tiles), stride, dilation, rectangular filters, a 1x1 filter,
// K below one K step, and channels in whole K steps (k walked as (r, s, c)) on 32-row and
// 128 x 128 tiles with stride, dilation and padding.
static const char *const run_specs[] = {
    "n=2,c=5,h=7,w=9,k=20,r=3,pad=1",
    "n=1,c=8,h=10,w=10,k=70,r=3,stride=2,pad=1",
    "n=2,c=12,h=6,w=6,k=6,r=3,groups=3,pad=1",
    "n=2,c=6,h=12,w=12,k=130,r=3,pad=1",
    "n=1,c=3,h=9,w=11,k=17,r=2,s=3,dil=2,pad_w=2",
    "n=3,c=40,h=5,w=5,k=33,r=1",
    "n=1,c=1,h=12,w=12,k=4,r=3",
    "n=2,c=32,h=7,w=9,k=20,r=3,pad=1",
    "n=4,c=64,h=20,w=18,k=70,r=3,s=2,stride=2,dil=2,pad=2",
    // 1x1, stride 1, unpadded (B read from x where H W allows, DIRECT_FIRST on): H W of 16
    // (every mode, one partial column tile), 120 (two column tiles, an image boundary inside
    // the first), 36 (tf32 only: not a multiple of 8); K and C off the tiles, batches of 2-3.
    "n=2,c=40,h=4,w=4,k=33,r=1",
    "n=2,c=72,h=10,w=12,k=130,r=1",
    "n=3,c=20,h=6,w=6,k=70,r=1",
};
// The compute units the device reports while each shape is planned (tile choice).
static const int run_units[] = {64, 1000, 64, 1, 64, 64, 64, 64, 1, 64, 64, 64};
// The row tile each shape is expected to get.
static const int run_tile_m[] = {32, 64, 16, 128, 32, 64, 16, 32, 128, 64, 64, 64};
#define RUN_SPECS 9     // the general shapes (every check runs them)
#define DIRECT_FIRST 9  // the 1x1 shapes of direct B, to the end of run_specs
#define ALL_SPECS ((int)(sizeof run_specs / sizeof run_specs[0]))

static const char *const math_specs[] = {"math=tf32", "dtype=f16,math=f16",
                                         "dtype=bf16,math=bf16"};

// ---------------------------------------------------------------------------------------------
// Applicability, planning and auto (target profiles: no device)

static void test_applicability(void)
{
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    xconv_device *h100 = open_target("sm_90"), *amd = open_target("gfx90a");
    if (!v || !h100 || !amd)
        return;
    char reason[512];
    xconv_problem p;
    CHECK(xconv_mma_supported(&h100->info) && !xconv_mma_supported(&amd->info));
    for (int m = 0; m < 3; m++) {
        CHECK(parse_with(run_specs[0], math_specs[m], &p));
        CHECK_MSG(xconv_variant_applies(v, h100, &p, reason, sizeof reason), "%s", reason);
        CHECK(!xconv_variant_applies(v, amd, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, "needs NVIDIA tensor cores (compute capability 8.0+)");
    }
    // An NVIDIA device before Ampere: its compute capability is named.
    xconv_device turing = *h100;
    turing.info.cc_major = 7, turing.info.cc_minor = 5;
    CHECK(!xconv_variant_applies(v, &turing, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "is 7.5");
    // Strict fp32 never gets TF32, and the FMA variants never run a reduced mode.
    CHECK(parse_with(run_specs[0], "", &p));
    CHECK(!xconv_variant_applies(v, h100, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "math=f32 is strict fp32");
    CHECK(parse_with(run_specs[0], "math=tf32", &p));
    const xconv_variant *fma = xconv_variant_find("implicit_precomp", &err);
    CHECK(fma && !xconv_variant_applies(fma, h100, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "math=tf32: implicit_precomp does not implement this math mode");
    // fp16 storage with an epilogue is not implemented (any variant); tf32 with one is, unfused.
    CHECK(parse_with(run_specs[0], "dtype=f16,math=f16,bias=1", &p));
    CHECK(!xconv_variant_applies(v, h100, &p, reason, sizeof reason));
    CHECK(parse_with(run_specs[0], "math=tf32,bias=1,act=relu", &p));
    xconv_plan *plan = NULL;
    CHECK(xconv_variant_plan(v, h100, &p, NULL, &plan, &err) == XCONV_OK);
    CHECK_MSG(plan && plan->nsteps == 2, "%d steps", plan ? plan->nsteps : 0);
    xconv_plan_destroy(plan);
    xconv_device_close(h100);
    xconv_device_close(amd);
}

// The tiled filter packing's channel blocks and launch on the sm_90 profile (48 KiB of local
// memory, a quarter for a block): res5_3x3's 512 channels whole in f16 (64 chunks, 9 taps:
// 9360 bytes), in two blocks of 64 chunks in tf32; 49 taps of 3 channels one chunk; a 1x1
// filter untiled (a work-item a chunk, no local memory).
static void test_pack_w_plan(void)
{
    xconv_device *h100 = open_target("sm_90");
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    static const struct {
        const char *spec, *types;
        int chunks;
        size_t blocks, local_bytes;
    } cases[] = {{"n=50,c=512,h=7,w=7,k=512,r=3,pad=1", "dtype=f16,math=f16", 64, 1, 9360},
                 {"n=50,c=512,h=7,w=7,k=512,r=3,pad=1", "math=tf32", 64, 2, 9360},
                 {"n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3", "math=tf32", 1, 1, 1568},
                 {"n=50,c=1024,h=14,w=14,k=256,r=1", "dtype=f16,math=f16", 0, 0, 0}};
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.mma_pipeline = XCONV_MMA_PIPELINE_PACKED;
    for (size_t i = 0; h100 && v && i < sizeof cases / sizeof cases[0]; i++) {
        xconv_problem p;
        xconv_plan *plan = NULL;
        CHECK(parse_with(cases[i].spec, cases[i].types, &p));
        CHECK(xconv_mma_pack_w_chunks(&h100->info, &p) == cases[i].chunks);
        if (xconv_variant_plan(v, h100, &p, &opts, &plan, &err) != XCONV_OK) {
            CHECK_MSG(false, "%s %s: %s", cases[i].spec, cases[i].types, err.msg);
            continue;
        }
        const xconv_step *pw = xconv_plan_step(plan, 0);
        CHECK(strcmp(pw->kernel, "implicit_mma_pack_w") == 0 &&
              xconv_step_value(pw, "XC_MMA_PACK_W_CHUNKS", -1) == cases[i].chunks &&
              pw->local_mem_bytes == cases[i].local_bytes);
        if (cases[i].chunks)
            CHECK_MSG(pw->dims == 2 && pw->local[0] == 256 && pw->local[1] == 1 &&
                          pw->global[0] == cases[i].blocks * 256 &&
                          pw->global[1] == (size_t)p.k,
                      "%s %s: pack_w %zux%zu over %zux%zu", cases[i].spec, cases[i].types,
                      pw->global[0], pw->global[1], pw->local[0], pw->local[1]);
        else
            CHECK(pw->dims == 1 && pw->local[0] == 64);
        xconv_plan_destroy(plan);
    }
    xconv_device_close(h100);
}

// Every small-suite shape plans in every math mode on the sm_90 profile with the register
// pipeline: one step of 4 warps, the math and storage in its defines, PTX chosen, local memory
// within the device's. Left to the planner, the packed pipeline (three steps) where it pays: a
// filter of several taps or planes of at most 28x28 with >= 256 filters, >= 32 channels.
static void test_plans(void)
{
    xconv_device *h100 = open_target("sm_90");
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    xconv_plan_options registers;
    xconv_plan_options_default(&registers);
    registers.mma_pipeline = XCONV_MMA_PIPELINE_REGISTERS;
    static const struct {
        const char *spec;
        int steps;
    } chosen[] = {{"n=16,c=64,h=224,w=224,k=64,r=3,pad=1", 3},  // vgg3x3: 9 taps
                  {"n=50,c=1024,h=14,w=14,k=256,r=1", 3},       // 14x14, 256 filters
                  {"n=50,c=256,h=56,w=56,k=64,r=1", 1},         // 56x56 planes
                  {"n=50,c=512,h=28,w=28,k=128,r=1", 1},        // 128 filters
                  {"n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3", 1}};  // 3 channels
    for (size_t i = 0; h100 && v && i < sizeof chosen / sizeof chosen[0]; i++) {
        xconv_problem p;
        xconv_plan *plan = NULL;
        CHECK(parse_with(chosen[i].spec, "dtype=f16,math=f16", &p));
        xconv_status st = xconv_variant_plan(v, h100, &p, NULL, &plan, &err);
        CHECK_MSG(st == XCONV_OK && plan->nsteps == chosen[i].steps, "%s: %d steps, want %d",
                  chosen[i].spec, st == XCONV_OK ? plan->nsteps : -1, chosen[i].steps);
        xconv_plan_destroy(plan);
    }
    int count = 0, planned = 0;
    const xconv_named_shape *suite = xconv_suite_find("small", &count);
    CHECK(suite && count > 0 && h100 && v);
    for (int m = 0; h100 && v && m < 3; m++)
        for (int i = 0; suite && i < count; i++) {
            xconv_problem p;
            if (!parse_with(suite[i].spec, math_specs[m], &p))
                continue;
            xconv_plan *plan = NULL;
            xconv_status st = xconv_variant_plan(v, h100, &p, &registers, &plan, &err);
            CHECK_MSG(st == XCONV_OK, "%s %s: %s", suite[i].name, math_specs[m], err.msg);
            if (st != XCONV_OK)
                continue;
            planned++;
            const xconv_step *s = xconv_plan_step(plan, 0);
            CHECK(plan->nsteps == 1 && strcmp(s->source, "implicit_mma") == 0);
            CHECK(xconv_step_value(s, "XC_MMA_MATH", 0) == p.math);
            CHECK(xconv_step_value(s, "XC_MMA_PTX", 0) == 1);
            CHECK(xconv_step_value(s, "XC_DTYPE", 0) == p.dtype);
            CHECK(s->local[0] == (size_t)(32 * xconv_step_value(s, "XC_MMA_WARPS_M", 0) *
                                          xconv_step_value(s, "XC_MMA_WARPS_N", 0)) &&
                  s->local[1] == 1 && s->global[2] == (size_t)p.groups);
            CHECK(s->local_mem_bytes <= h100->info.local_mem_bytes);
            long long tile_m = xconv_step_value(s, "XC_MMA_TILE_M", 0);
            int64_t kg = p.k / p.groups;
            CHECK_MSG(tile_m == (kg <= 16 ? 16 : kg <= 32 ? 32 : kg <= 64 ? 64 : tile_m) &&
                      tile_m >= (kg > 64 ? 64 : 16), "%s: tile %lld for %lld filters",
                      suite[i].name, tile_m, (long long)kg);
            CHECK(xconv_step_value(s, "XC_MMA_TILE_K", 0) == (p.math == XCONV_MATH_TF32 ? 16 : 32));
            xconv_plan_destroy(plan);
        }
    printf("  implicit_mma: %d plans on sm_90 (small suite x tf32, f16, bf16)\n", planned);
    CHECK(planned == 3 * count);
    // A wide product takes 128 x 128 tiles on 4 x 4 warps (33 KiB of local memory: the staged
    // sums of C) where they make two waves over the compute units, else 64 x 128 on 2 x 4
    // warps, as where the device's local memory is smaller.
    xconv_problem p;
    xconv_mma_tiles t;
    if (!h100 || !parse_with("n=50,c=256,h=14,w=14,k=256,r=3,pad=1", "math=tf32", &p))
        return;
    xconv_mma_choose(&h100->info, &p, &t);  // 154 tiles of 128 x 128 on 132 compute units
    CHECK(t.tile_m == 64 && t.tile_n == 128 && t.warps_m == 2 && t.warps_n == 4);
    CHECK(parse_with("n=50,c=256,h=28,w=28,k=256,r=3,pad=1", "math=tf32", &p));
    xconv_mma_choose(&h100->info, &p, &t);  // 614 tiles
    CHECK(t.tile_m == 128 && t.tile_n == 128 && t.warps_m == 4 && t.warps_n == 4);
    CHECK(xconv_mma_local_bytes(&t, p.math) == 33792);
    xconv_device_info small_local = h100->info;
    small_local.local_mem_bytes = 24 << 10;
    xconv_mma_choose(&small_local, &p, &t);
    CHECK(t.tile_m == 64 && t.tile_n == 128 && t.warps_m == 2 && t.warps_n == 4);
    CHECK(xconv_mma_channels_first(&p, &t));  // 256 channels: k walked as (r, s, c)
    // The packed pipeline: 128 x 128 tiles on 2 x 4 warps with a 3-stage ring (48 KiB), 64 x
    // 128 with 4 stages; x and w packed in the workspace, three steps.
    xconv_mma_packed_choose(&h100->info, &p, &t);
    CHECK(t.tile_m == 128 && t.tile_n == 128 && t.warps_m == 2 && t.warps_n == 4);
    CHECK(xconv_mma_packed_stages(&h100->info, &t, p.math) == 3);
    CHECK(xconv_mma_packed_local_bytes(&t, p.math, 3) == 49152);
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.mma_pipeline = XCONV_MMA_PIPELINE_PACKED;
    xconv_error err2;
    xconv_plan *plan = NULL;
    CHECK(parse_with("n=8,c=64,h=28,w=28,k=128,r=3,pad=1", "dtype=f16,math=f16", &p));
    CHECK(v && xconv_variant_plan(v, h100, &p, &opts, &plan, &err2) == XCONV_OK);
    if (plan) {
        const xconv_step *s = xconv_plan_step(plan, plan->nsteps - 1);
        CHECK(plan->nsteps == 3 && strcmp(s->kernel, "implicit_mma_packed") == 0 &&
              strcmp(xconv_plan_step(plan, 0)->kernel, "implicit_mma_pack_w") == 0 &&
              strcmp(xconv_plan_step(plan, 1)->kernel, "implicit_mma_pack_x") == 0);
        CHECK(xconv_step_value(s, "XC_MMA_TILE_M", 0) == 64 &&
              xconv_step_value(s, "XC_MMA_STAGES", 0) == 4 && s->local_mem_bytes == 49152);
        // 128 x 9 x 64 filter words and 8 x 28 x 28 x 64 input words of 2 bytes, aligned.
        CHECK(xconv_plan_workspace_size(plan) == 147456 + 802816);
        CHECK_CONTAINS(plan->summary, "4-stage cp.async ring");
    }
    xconv_plan_destroy(plan);
    // A pipeline out of range is refused by the options' check.
    opts.mma_pipeline = 4;
    CHECK(xconv_plan_options_check(&opts, &err2) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err2.msg, "mma_pipeline");
    xconv_device_close(h100);
}

// Plans p (spec in f16) on dev with opts; returns the plan or NULL, with the error in *err.
static xconv_plan *plan_f16(xconv_device *dev, const char *spec, const xconv_plan_options *opts,
                            xconv_error *err)
{
    xconv_problem p;
    xconv_plan *plan = NULL;
    const xconv_variant *v = xconv_variant_find("implicit_mma", err);
    if (!v || !parse_with(spec, "dtype=f16,math=f16", &p) ||
        xconv_variant_plan(v, dev, &p, opts, &plan, err) != XCONV_OK)
        return NULL;
    return plan;
}

// Forced tiles and split-K on the sm_90 profile: the tiles of the lead's sweep plan in both
// pipelines, tiles the kernels cannot take and rings past the local memory are refused saying
// why; the planner takes 128 x 128 tiles for res5_3x3 at batch 50 (80 of them for 132 compute
// units) and splits them three ways, and leaves vgg3x3 whole; a forced split is normalised; split-K with the register
// pipeline forced is refused.
// Direct B (mma_pipeline 3; the planner's packed pipeline wherever it applies): on a 1x1,
// stride-1, unpadded layer the filters are packed and the product reads B from x (two steps, no
// packed x in the workspace), in every mode; mma_pipeline 2 still packs x. Where it does not
// apply, forcing it is refused naming what fails, and the planner packs x.
static void test_direct_b_plans(void)
{
    xconv_device *h100 = open_target("sm_90");
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    CHECK(h100 && v);
    const int pipes[] = {XCONV_MMA_PIPELINE_AUTO, XCONV_MMA_PIPELINE_PACKED,
                         XCONV_MMA_PIPELINE_DIRECT_B};
    for (int m = 0; h100 && v && m < 3; m++)
        for (int k = 0; k < 3; k++) {
            xconv_plan_options opts;
            xconv_plan_options_default(&opts);
            opts.mma_pipeline = pipes[k];
            xconv_problem p;
            xconv_plan *plan = NULL;
            CHECK(parse_with("n=50,c=512,h=28,w=28,k=256,r=1", math_specs[m], &p));
            xconv_status st = xconv_variant_plan(v, h100, &p, &opts, &plan, &err);
            CHECK_MSG(st == XCONV_OK, "res4_reduce_first %s: %s", math_specs[m], err.msg);
            if (st != XCONV_OK)
                continue;
            bool direct = pipes[k] != XCONV_MMA_PIPELINE_PACKED;
            const xconv_step *s = xconv_plan_step(plan, plan->nsteps - 1);
            CHECK_MSG(plan->nsteps == (direct ? 2 : 3) &&
                          strcmp(s->kernel, "implicit_mma_packed") == 0 &&
                          strcmp(xconv_plan_step(plan, 0)->kernel, "implicit_mma_pack_w") == 0,
                      "%s pipeline %d: %d steps", math_specs[m], pipes[k], plan->nsteps);
            CHECK(xconv_step_value(s, "XC_MMA_B_DIRECT", -1) == direct);
            // Packed w (256 x 512 elements), and packed x (50 x 28 x 28 x 512) unless direct.
            size_t eb = m == 0 ? 4 : 2, wb = 256 * 512 * eb, xb = (size_t)50 * 784 * 512 * eb;
            CHECK_MSG(xconv_plan_workspace_size(plan) == wb + (direct ? 0 : xb),
                      "%s pipeline %d: workspace %zu", math_specs[m], pipes[k],
                      xconv_plan_workspace_size(plan));
            CHECK((strstr(xconv_plan_summary(plan), "B read from x as it lies") != NULL) ==
                  direct);
            xconv_plan_destroy(plan);
        }
    // Forced where it does not apply: refused, naming the condition.
    static const struct {
        const char *spec;
        int math;
        const char *why;
    } refused[] = {{"n=2,c=64,h=8,w=8,k=256,r=3,pad=1", 1, "the filter is not 1x1"},
                   {"n=2,c=64,h=8,w=8,k=256,r=1,stride=2", 0, "the stride is not 1"},
                   {"n=2,c=64,h=8,w=8,k=256,r=1,pad=1", 2, "the input is padded"},
                   {"n=2,c=64,h=8,w=8,k=512,r=1,groups=2", 1, "the convolution is grouped"},
                   {"n=2,c=64,h=6,w=6,k=256,r=1", 1, "H x W is not a multiple of 8"},
                   {"n=2,c=64,h=6,w=6,k=256,r=1", 2, "H x W is not a multiple of 8"},
                   {"n=2,c=64,h=5,w=5,k=256,r=1", 0, "H x W is not a multiple of 4"}};
    for (size_t i = 0; h100 && v && i < sizeof refused / sizeof refused[0]; i++) {
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        xconv_problem p;
        xconv_plan *plan = NULL;
        CHECK(parse_with(refused[i].spec, math_specs[refused[i].math], &p));
        opts.mma_pipeline = XCONV_MMA_PIPELINE_DIRECT_B;
        CHECK_MSG(xconv_variant_plan(v, h100, &p, &opts, &plan, &err) ==
                      XCONV_ERR_NOT_APPLICABLE && plan == NULL,
                  "%s: direct B planned", refused[i].spec);
        CHECK_CONTAINS(err.msg, refused[i].why);
        // The planner's choice: the packed pipeline with x packed (these all pay: >= 256
        // filters on small planes, or 9 taps).
        opts.mma_pipeline = XCONV_MMA_PIPELINE_AUTO;
        xconv_status st = xconv_variant_plan(v, h100, &p, &opts, &plan, &err);
        CHECK_MSG(st == XCONV_OK && plan->nsteps == 3 &&
                      xconv_step_value(xconv_plan_step(plan, 2), "XC_MMA_B_DIRECT", -1) == 0,
                  "%s: %s", refused[i].spec, st == XCONV_OK ? "not packed" : err.msg);
        xconv_plan_destroy(plan);
    }
    // The same in tf32 on 6 x 6 (36 pixels: whole 4-pixel chunks) applies; forced tiles of 32
    // columns are 4 chunks of f16, refused, 8 of fp32, taken.
    const xconv_forced_mma_tiles narrow = {64, 32, 32, 2, 2, 0};
    const xconv_forced_mma_tiles narrow_tf32 = {64, 32, 16, 2, 2, 0};
    for (int m = 0; h100 && v && m < 2; m++) {
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        opts.mma_pipeline = XCONV_MMA_PIPELINE_DIRECT_B;
        opts.mma_tiles = m ? narrow : narrow_tf32;
        xconv_problem p;
        xconv_plan *plan = NULL;
        CHECK(parse_with(m ? "n=2,c=64,h=8,w=8,k=256,r=1" : "n=2,c=64,h=6,w=6,k=256,r=1",
                         math_specs[m], &p));
        xconv_status st = xconv_variant_plan(v, h100, &p, &opts, &plan, &err);
        if (m)
            CHECK(st == XCONV_ERR_NOT_APPLICABLE && strstr(err.msg, "TN is not a multiple of 64"));
        else
            CHECK_MSG(st == XCONV_OK && plan->nsteps == 2, "%s", err.msg);
        xconv_plan_destroy(plan);
    }
    xconv_device_close(h100);
}

static void test_forced_and_split(void)
{
    xconv_device *h100 = open_target("sm_90");
    if (!h100)
        return;
    const char *res5 = "n=50,c=512,h=7,w=7,k=512,r=3,pad=1";
    const char *vgg = "n=16,c=64,h=224,w=224,k=64,r=3,pad=1";
    xconv_error err;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    xconv_plan *plan = plan_f16(h100, res5, &opts, &err);
    CHECK_MSG(plan && plan->nsteps == 4, "res5_3x3: %s", plan ? "not split" : err.msg);
    if (plan && plan->nsteps == 4) {
        const xconv_step *s = xconv_plan_step(plan, 2), *reduce = xconv_plan_step(plan, 3);
        CHECK(strcmp(reduce->kernel, "splitk_reduce") == 0 &&
              xconv_step_value(reduce, "XC_GEMM_SPLIT_K", 0) == 3);
        CHECK(xconv_step_value(s, "XC_MMA_TILE_M", 0) == 128 &&
              xconv_step_value(s, "XC_MMA_TILE_N", 0) == 128);
        CHECK(xconv_step_value(s, "XC_MMA_SPLIT", 0) == 3 &&
              xconv_step_value(s, "XC_MMA_SPLIT_STEPS", 0) == 48 &&
              xconv_step_value(s, "XC_MMA_PART_LD", 0) == 2452 && s->global[2] == 3);
        CHECK_CONTAINS(plan->summary, "128x128 tiles of 2x4 warps");
        CHECK_CONTAINS(plan->summary, "split-K: 3 K slices of 48 steps");
        // 3 slices of 512 x 2452 floats beside the packed operands.
        CHECK(xconv_plan_workspace_size(plan) >= (size_t)3 * 512 * 2452 * 4);
    }
    xconv_plan_destroy(plan);
    plan = plan_f16(h100, vgg, &opts, &err);
    CHECK(plan && plan->nsteps == 3);  // 12544 column tiles: no split
    xconv_plan_destroy(plan);
    const int forced[][2] = {{1, 1}, {16, 16}, {200, 0}};  // {split, slices}; 200: refused
    for (int i = 0; i < 3; i++) {
        opts.mma_split_k = forced[i][0];
        if (forced[i][1] == 0) {
            CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
            CHECK_CONTAINS(err.msg, "mma_split_k");
            continue;
        }
        plan = plan_f16(h100, res5, &opts, &err);
        const xconv_step *s = plan ? xconv_plan_step(plan, 2) : NULL;
        CHECK_MSG(s && xconv_step_value(s, "XC_MMA_SPLIT", 1) == forced[i][1],
                  "split %d forced: %s", forced[i][0], plan ? "other slices" : err.msg);
        CHECK(plan && (forced[i][1] == 1 || strstr(plan->summary, "mma_split_k")));
        xconv_plan_destroy(plan);
    }
    opts.mma_split_k = 4;
    opts.mma_pipeline = XCONV_MMA_PIPELINE_REGISTERS;
    plan = plan_f16(h100, res5, &opts, &err);
    CHECK(!plan);
    CHECK_CONTAINS(err.msg, "packed pipeline");
    xconv_plan_destroy(plan);
    // The sweep's tiles: {TM, TN, TK, WM, WN, STAGES} and the pipeline; the ring's stages
    // (the most in 48 KiB when not forced).
    static const struct {
        xconv_forced_mma_tiles t;
        int pipeline, stages;
    } good[] = {{{128, 128, 32, 2, 4, 0}, 2, 3}, {{128, 128, 32, 4, 2, 0}, 2, 3},
                {{64, 128, 64, 2, 4, 0}, 2, 2},  {{128, 64, 32, 4, 2, 0}, 2, 4},
                {{256, 128, 32, 4, 2, 2}, 2, 2}, {{64, 128, 32, 2, 4, 4}, 2, 4},
                {{128, 128, 32, 4, 4, 0}, 1, 0}, {{64, 128, 32, 2, 4, 0}, 1, 0},
                {{64, 64, 64, 2, 2, 0}, 1, 0}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        xconv_plan_options_default(&opts);
        opts.mma_tiles = good[i].t;
        opts.mma_pipeline = good[i].pipeline;
        opts.mma_split_k = 1;
        if (good[i].pipeline == XCONV_MMA_PIPELINE_REGISTERS)
            opts.mma_split_k = 0;
        plan = plan_f16(h100, res5, &opts, &err);
        const xconv_step *s = plan ? xconv_plan_step(plan, plan->nsteps - 1) : NULL;
        CHECK_MSG(s && xconv_step_value(s, "XC_MMA_TILE_M", 0) == good[i].t.tm &&
                      xconv_step_value(s, "XC_MMA_TILE_N", 0) == good[i].t.tn &&
                      xconv_step_value(s, "XC_MMA_TILE_K", 0) == good[i].t.tk &&
                      xconv_step_value(s, "XC_MMA_WARPS_M", 0) == good[i].t.wm &&
                      xconv_step_value(s, "XC_MMA_WARPS_N", 0) == good[i].t.wn &&
                      xconv_step_value(s, "XC_MMA_STAGES", 0) == good[i].stages &&
                      s->local_mem_bytes <= h100->info.local_mem_bytes,
                  "tiles %zu: %s", i, plan ? "other defines" : err.msg);
        if (plan)
            CHECK_CONTAINS(plan->summary, "tiles forced by the options");
        xconv_plan_destroy(plan);
    }
    // Refused, saying why: {tiles, pipeline, what the message names}.
    static const struct {
        xconv_forced_mma_tiles t;
        int pipeline;
        const char *why;
    } bad[] = {
        {{128, 128, 64, 2, 4, 0}, 2, "bytes of local memory"},  // 64 KiB in two stages
        {{128, 128, 32, 2, 4, 4}, 2, "bytes of local memory"},  // 64 KiB in four
        {{48, 128, 32, 2, 4, 0}, 2, "multiple of 16 x WM"},
        {{64, 128, 48, 2, 4, 0}, 2, "TK must be 16, 32 or 64"},
        {{256, 256, 32, 2, 4, 0}, 2, "at most 4096 sums"},
        {{64, 128, 32, 3, 2, 0}, 2, "power of two"},
        {{64, 256, 32, 1, 4, 0}, 1, "register pipeline needs"},  // 128 work-items, 256 columns
        {{1 << 30, 1 << 30, 32, 1 << 20, 1 << 20, 0}, 2, "TM, TN and TK must be 1 to 1024"},
        {{64, 128, 1, 2, 4, 0}, 2, "TK must be 16, 32 or 64"},  // 0 words: no split model
        {{64, 128, 32, 2, 4, 3}, 1, "ring's stages"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xconv_plan_options_default(&opts);
        opts.mma_tiles = bad[i].t;
        opts.mma_pipeline = bad[i].pipeline;
        plan = plan_f16(h100, res5, &opts, &err);
        CHECK_MSG(!plan, "tiles %zu planned", i);
        CHECK_CONTAINS(err.msg, bad[i].why);
        xconv_plan_destroy(plan);
    }
    // tf32 counts TK in its own elements: 8, 16 or 32.
    xconv_problem p;
    xconv_mma_tiles t = {64, 128, 64, 2, 4};
    char why[256];
    CHECK(parse_with(res5, "math=tf32", &p));
    CHECK(!xconv_mma_tiles_take(&t, p.math, true, why, sizeof why));
    CHECK_CONTAINS(why, "TK must be 8, 16 or 32");
    t.tile_k = 8;
    CHECK(xconv_mma_tiles_take(&t, p.math, true, why, sizeof why));
    // The options' own ranges.
    xconv_plan_options_default(&opts);
    opts.mma_tiles = (xconv_forced_mma_tiles){64, 128, 32, 2, 4, 1};
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "mma_tiles.stages");
    opts.mma_tiles = (xconv_forced_mma_tiles){64, 0, 32, 2, 4, 0};
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "mma_tiles.tn");
    xconv_device_close(h100);
}

// auto takes implicit_mma for a reduced math mode where tensor cores exist, never for strict
// fp32.
static void test_auto(void)
{
    xconv_device *h100 = open_target("sm_90");
    if (!h100)
        return;
    const char *types[] = {"math=tf32", "dtype=bf16,math=bf16", ""};
    for (int i = 0; i < 3; i++) {
        xconv_problem p;
        xconv_error err;
        xconv_auto_info info;
        CHECK(parse_with("n=8,c=64,h=28,w=28,k=128,r=3,pad=1", types[i], &p));
        xconv_status st = xconv_auto_plan(h100, &p, NULL, &info, NULL, &err);
        CHECK_MSG(st == XCONV_OK, "%s", err.msg);
        bool mma = st == XCONV_OK && strcmp(info.variant->info.name, "implicit_mma") == 0;
        CHECK_MSG(mma == (types[i][0] != '\0'), "auto with '%s' chose %s", types[i],
                  st == XCONV_OK ? info.variant->info.name : "nothing");
    }
    // A large filter in a reduced mode: the FFT in fp32 math, the storage kept.
    const char *large[] = {"math=tf32", "dtype=f16,math=f16"};
    const char *large_pick[] = {"fft_tiled", "fft_tiled"};
    for (int i = 0; i < 2; i++) {
        xconv_problem p;
        xconv_error err;
        xconv_auto_info info;
        CHECK(parse_with("n=16,c=64,h=64,w=64,k=64,r=11,pad=5", large[i], &p));
        xconv_status st = xconv_auto_plan(h100, &p, NULL, &info, NULL, &err);
        CHECK_MSG(st == XCONV_OK && strcmp(info.variant->info.name, large_pick[i]) == 0,
                  "big11x11 with '%s': %s", large[i],
                  st == XCONV_OK ? info.variant->info.name : err.msg);
    }
    // tf32 where the fp32 kernels ran faster: channel-reducing 1x1 layers where implicit_mma
    // does not run its packed pipeline (fewer than 256 filters or planes over 28x28) and
    // Winograd's busy 3x3 layers with small planes; in fp16 and on large planes the tensor cores.
    const struct { const char *spec, *types, *pick; } tf32_lines[] = {
        {"n=32,c=2048,h=7,w=7,k=512,r=1", "math=tf32", "implicit_mma"},
        {"n=32,c=1024,h=14,w=14,k=256,r=1", "math=tf32", "implicit_mma"},
        {"n=32,c=512,h=28,w=28,k=128,r=1", "math=tf32", "gemm_1x1"},
        {"n=32,c=512,h=27,w=27,k=128,r=1", "math=tf32", "implicit_gemm"},
        {"n=32,c=1024,h=14,w=14,k=256,r=1", "dtype=f16,math=f16", "implicit_mma"},
        {"n=32,c=256,h=14,w=14,k=1024,r=1", "math=tf32", "implicit_mma"},
        {"n=32,c=256,h=14,w=14,k=256,r=3,pad=1", "math=tf32", "winograd_f43"},
        {"n=32,c=64,h=56,w=56,k=64,r=3,pad=1", "math=tf32", "implicit_mma"},
    };
    for (size_t i = 0; i < sizeof tf32_lines / sizeof tf32_lines[0]; i++) {
        xconv_problem p;
        xconv_error err;
        xconv_auto_info info;
        CHECK(parse_with(tf32_lines[i].spec, tf32_lines[i].types, &p));
        xconv_status st = xconv_auto_plan(h100, &p, NULL, &info, NULL, &err);
        CHECK_MSG(st == XCONV_OK && strcmp(info.variant->info.name, tf32_lines[i].pick) == 0,
                  "%s with '%s': %s", tf32_lines[i].spec, tf32_lines[i].types,
                  st == XCONV_OK ? info.variant->info.name : err.msg);
    }
    // Depthwise layers in a reduced mode: direct_depthwise in fp32 math, and
    // other groups of fewer than 16 filters direct_regblock in fp32 math; the storage kept.
    const char *modes[] = {"math=tf32", "dtype=f16,math=f16", "dtype=bf16,math=bf16"};
    static const struct {
        const char *spec, *pick;
    } narrow[] = {{"n=8,c=64,h=28,w=28,k=64,r=3,pad=1,groups=64", "direct_depthwise"},
                  {"n=32,c=64,h=56,w=56,k=64,r=3,pad=1,groups=64", "direct_depthwise"},
                  {"n=8,c=64,h=28,w=28,k=128,r=3,pad=1,groups=16", "direct_regblock"}};
    for (int i = 0; i < 9; i++) {
        xconv_problem p;
        xconv_error err;
        xconv_auto_info info;
        xconv_plan *plan = NULL;
        const char *spec = narrow[i / 3].spec, *pick = narrow[i / 3].pick, *mode = modes[i % 3];
        CHECK(parse_with(spec, mode, &p));
        xconv_status st = xconv_auto_plan(h100, &p, NULL, &info, &plan, &err);
        CHECK_MSG(st == XCONV_OK && strcmp(info.variant->info.name, pick) == 0,
                  "%s with '%s': %s", spec, mode,
                  st == XCONV_OK ? info.variant->info.name : err.msg);
        CHECK_CONTAINS(info.why, "in fp32 math");
        const xconv_step *s = plan ? xconv_plan_step(plan, 0) : NULL;
        CHECK(s && xconv_step_value(s, "XC_DTYPE", 0) == p.dtype);
        xconv_plan_destroy(plan);
    }
    xconv_device_close(h100);
}

static void test_thresholds(void)
{
    CHECK(xconv_threshold_math(XCONV_MATH_F32) == 0.0);
    CHECK(xconv_threshold_math(XCONV_MATH_TF32) == 0x1p-10 + 0x1p-12);
    CHECK(xconv_threshold_math(XCONV_MATH_F16) == 0x1p-12);
    CHECK(xconv_threshold_math(XCONV_MATH_BF16) == 0x1p-12);
}

// ---------------------------------------------------------------------------------------------
// The planned kernels through NVRTC and ptxas for sm_90

#ifdef XCONV_HAVE_CUDA
// Returns true when every function of a ptxas report (-v) spills nothing.
static bool no_spills(const char *log)
{
    int functions = 0;
    for (const char *at = strstr(log, " bytes spill stores"); at;
         at = strstr(at + 1, " bytes spill stores"), functions++)
        if (at == log || at[-1] != '0' || (at - 1 > log && at[-2] != ' '))
            return false;
    return functions > 0;
}

static const char *const mma_ops[] = {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                                     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"};

// What the packed pipeline's PTX holds: its copies, fragment loads and packing kernels.
static const char *const packed_ops[] = {"cp.async.cg.shared.global", "cp.async.commit_group",
                                         "cp.async.wait_group",
                                         "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                                         ".entry implicit_mma_pack_w",
                                         ".entry implicit_mma_pack_x"};

// Compiles the plan of spec in math mode m (pipeline `pipe`: 0 the default, 2 packed; tiles
// forced unless NULL; split-K forced unless 0) to CUBIN; checks the PTX has the mode's mma,
// (tf32) the rounding of its operands, (packed) the copies, ldmatrix and packing kernels, and,
// where `report`, ptxas's report no spills.
static void nvrtc_one(xconv_device *h100, const xconv_variant *v, const char *spec, int m,
                      int pipe, bool report, const xconv_forced_mma_tiles *tiles, int split)
{
    xconv_error err;
    xconv_problem p;
    xconv_plan *plan = NULL;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.mma_pipeline = pipe;
    if (tiles)
        opts.mma_tiles = *tiles;
    opts.mma_split_k = split;
    if (!parse_with(spec, math_specs[m], &p) ||
        xconv_variant_plan(v, h100, &p, &opts, &plan, &err) != XCONV_OK) {
        CHECK_MSG(false, "%s %s: %s", spec, math_specs[m], err.msg);
        return;
    }
    // The product's step (the last, or the one before a split's reduce); the packing steps
    // share its program.
    const xconv_step *step = xconv_plan_step(plan, plan->nsteps - 1);
    if (strcmp(step->kernel, "splitk_reduce") == 0)
        step = xconv_plan_step(plan, plan->nsteps - 2);
    char options[4096];
    xconv_step_options(step, options, sizeof options);
    const char *source = xconv_kernel_source(step->source);
    xconv_nvrtc_image img;
    xconv_status st = xconv_nvrtc_compile(source, options, 9, 0, true, &img, &err);
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, math_specs[m], err.msg);
    if (st == XCONV_OK) {
        CHECK_MSG(strstr(img.ptx, mma_ops[m]) != NULL, "%s: no %s", math_specs[m], mma_ops[m]);
        CHECK((strstr(img.ptx, "cvt.rna.tf32.f32") != NULL) == (m == 0));
        for (int o = 0; pipe && o < (int)(sizeof packed_ops / sizeof packed_ops[0]); o++)
            CHECK_MSG(strstr(img.ptx, packed_ops[o]) != NULL, "%s %s: no %s in the PTX", spec,
                      math_specs[m], packed_ops[o]);
        // Direct B's fragments of 16-bit B: ldmatrix .trans from rows of k (tf32: plain loads).
        bool direct = xconv_step_value(step, "XC_MMA_B_DIRECT", 0) == 1;
        CHECK_MSG((strstr(img.ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") != NULL) ==
                      (direct && m > 0), "%s %s: ldmatrix.trans %s", spec, math_specs[m],
                  direct && m > 0 ? "missing" : "unexpected");
        CHECK(img.is_cubin && strcmp(img.arch, "sm_90") == 0);
        xconv_nvrtc_image_free(&img);
    }
    char *log = NULL;
    if (report && xconv_nvrtc_report(source, options, 9, 0, &log, &err) == XCONV_OK) {
        char entry[64];
        snprintf(entry, sizeof entry, "entry function '%s'", step->kernel);
        const char *at = strstr(log, entry);
        const char *regs = strstr(at ? at : log, "Used ");
        printf("  %s%s, %lldx%lldx%lld tiles on %lldx%lld warps, %lld stages, split %lld: "
               "%.*s\n",
               xconv_step_value(step, "XC_MMA_B_DIRECT", 0) ? "direct B, "
               : pipe                                      ? "packed, "
                                                           : "",
               math_specs[m],
               xconv_step_value(step, "XC_MMA_TILE_M", 0),
               xconv_step_value(step, "XC_MMA_TILE_N", 0),
               xconv_step_value(step, "XC_MMA_TILE_K", 0),
               xconv_step_value(step, "XC_MMA_WARPS_M", 0),
               xconv_step_value(step, "XC_MMA_WARPS_N", 0),
               xconv_step_value(step, "XC_MMA_STAGES", 0),
               xconv_step_value(step, "XC_MMA_SPLIT", 1), regs ? (int)strcspn(regs, "\n") : 0,
               regs ? regs : "");
        CHECK_MSG(no_spills(log), "%s spills:\n%s", math_specs[m], log);
    }
    free(log);
    xconv_plan_destroy(plan);
}

// Both pipelines' planned kernels through NVRTC for sm_90, in every math mode, on 128 x 128 and
// 64 x 128 tiles (with ptxas's report), groups and a rectangular dilated filter.
static void test_nvrtc(void)
{
    xconv_error err;
    if (!xconv_nvrtc_load(&err)) {
        printf("  NVRTC not loaded (%s): sm_90 compilation not checked\n", err.msg);
        return;
    }
    static const char *const specs[] = {"n=50,c=256,h=28,w=28,k=256,r=3,pad=1",  // 128 x 128
                                        "n=8,c=64,h=28,w=28,k=128,r=3,pad=1",     // 64 x 128
                                        "n=2,c=12,h=6,w=6,k=6,r=3,groups=3,pad=1",
                                        "n=1,c=3,h=9,w=11,k=17,r=2,s=3,dil=2,pad_w=2"};
    xconv_device *h100 = open_target("sm_90");
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    const int pipes[] = {XCONV_MMA_PIPELINE_AUTO, XCONV_MMA_PIPELINE_PACKED};
    for (int k = 0; h100 && v && k < 2; k++)
        for (int m = 0; m < 3; m++)
            for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
                nvrtc_one(h100, v, specs[i], m, pipes[k], i < 2, NULL, 0);
    // The tiles the lead's sweep forces (XCONV_MMA_TILES), and split-K, on res5_3x3 at batch
    // 50 in f16 (with ptxas's report: no spills).
    static const xconv_forced_mma_tiles sweep[] = {
        {128, 128, 32, 2, 4, 0}, {128, 128, 32, 4, 2, 0}, {64, 128, 64, 2, 4, 0},
        {128, 64, 32, 4, 2, 0},  {256, 128, 32, 4, 2, 2}, {64, 128, 32, 2, 4, 4}};
    const char *res5 = "n=50,c=512,h=7,w=7,k=512,r=3,pad=1";
    for (size_t i = 0; h100 && v && i < sizeof sweep / sizeof sweep[0]; i++)
        nvrtc_one(h100, v, res5, 1, XCONV_MMA_PIPELINE_PACKED, true, &sweep[i], 1);
    nvrtc_one(h100, v, res5, 1, XCONV_MMA_PIPELINE_PACKED, true, NULL, 4);
    const xconv_forced_mma_tiles tf32_tiles = {128, 128, 16, 2, 4, 0};  // k step: 16 words
    nvrtc_one(h100, v, res5, 0, XCONV_MMA_PIPELINE_PACKED, true, &tf32_tiles, 3);
    // Direct B (the planner's choice on 1x1 layers at 28x28 and 56x56, tf32 at 14x14 too), with
    // ptxas's report: the planner's tiles, 64 x 128, forced 64- and 32-column tiles, split-K.
    // Not the report of bf16 on 64 x 128 tiles with 4 stages: there ptxas (CUDA 12, sm_90)
    // allots 64 registers and spills 8-12 bytes (f16, the same code but the mma, 69-72 and no
    // spill; bf16 with 3 stages 104 and none): a known gap, compiled and checked otherwise.
    const char *res4 = "n=50,c=512,h=28,w=28,k=256,r=1", *res2 = "n=50,c=256,h=56,w=56,k=64,r=1";
    const int direct = XCONV_MMA_PIPELINE_DIRECT_B;
    const xconv_forced_mma_tiles cols64 = {64, 64, 32, 2, 2, 3}, cols32 = {32, 32, 8, 1, 2, 2};
    for (int m = 0; h100 && v && m < 3; m++) {
        nvrtc_one(h100, v, res4, m, XCONV_MMA_PIPELINE_AUTO, true, NULL, 0);
        nvrtc_one(h100, v, res2, m, direct, m < 2, NULL, 0);
        nvrtc_one(h100, v, res4, m, direct, true, &cols64, 0);
    }
    if (h100 && v) {
        nvrtc_one(h100, v, res2, 0, direct, true, &cols32, 0);
        nvrtc_one(h100, v, "n=50,c=1024,h=14,w=14,k=512,r=1", 0, direct, true, NULL, 2);
    }
    xconv_device_close(h100);
}
#endif

// ---------------------------------------------------------------------------------------------
// The kernel on an OpenCL CPU device, the mma emulated

// Rounds n fp32 values to TF32 as cvt.rna.tf32.f32 does (to nearest, ties away from zero).
static void round_tf32(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        if ((u & 0x7f800000u) != 0x7f800000u)
            u = (u + 0x1000u) & 0xffffe000u;
        memcpy(&v[i], &u, 4);
    }
}

// The packed pipeline's sums as the emulated kernels form them (XC_MMA_PTX 0), for the bitwise
// check: output (n, k, p, q) walks k as (r, s, c) over a group's channels padded to whole
// 16-byte chunks (the padding and taps outside the image add products of zero), one fp32 fma a
// term in k order; under split-K the walk is cut every slice_k elements, each slice summed from
// zero and the slices added in order (cl/splitk_reduce.cl); y is then rounded to the storage
// type. xt and wt hold the operands as the mma reads them.
static void model_packed(const xconv_problem *p, const float *xt, const float *wt,
                         int64_t slice_k, float *y)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    int64_t cg = p->c / p->groups, kg = p->k / p->groups, cp = xconv_mma_packed_channels(p);
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t k = 0; k < p->k; k++)
            for (int64_t oh = 0; oh < P; oh++)
                for (int64_t ow = 0; ow < Q; ow++) {
                    int64_t g = k / kg;
                    float total = 0.0f, sum = 0.0f;
                    for (int64_t kk = 0; kk < p->r * p->s * cp; kk++) {
                        if (kk && kk % slice_k == 0)
                            total = kk == slice_k ? sum : total + sum, sum = 0.0f;
                        int64_t r = kk / cp / p->s, sc = kk / cp % p->s, c = kk % cp;
                        int64_t ih = oh * p->stride_h - p->pad_h + r * p->dil_h;
                        int64_t iw = ow * p->stride_w - p->pad_w + sc * p->dil_w;
                        bool in = c < cg && ih >= 0 && ih < p->h && iw >= 0 && iw < p->w;
                        float xv = in ? xt[((n * p->c + g * cg + c) * p->h + ih) * p->w + iw] : 0;
                        float wv = c < cg ? wt[((k * cg + c) * p->r + r) * p->s + sc] : 0;
                        sum = fmaf(wv, xv, sum);
                    }
                    bool split = slice_k < p->r * p->s * cp;
                    y[((n * p->k + k) * P + oh) * Q + ow] = split ? total + sum : sum;
                }
    xconv_dtype_round(p->dtype, y, (size_t)(p->n * p->k * P * Q));
}

// One shape in one math mode: the emulated kernel against float64 over the operands the
// tensor cores read (rounded to the storage type, and for tf32 to TF32): every product is then
// exact and the sums are fp32, so the family's threshold plus the output's rounding holds, a
// wrong fragment index is off by whole terms. Also within the mode's own threshold against
// the reference over the stored (unrounded-to-TF32) operands.
// The packed pipeline (XC_MMA_PIPELINE 2) is planned with the device's local memory capped at
// local_cap bytes (0: as it reports), which sets the ring's stages, and expects `stages` (0: any);
// its y must equal model_packed's to the bit in every element. tiles (NULL: none) forces the
// tiles (either pipeline); split is the packed pipeline's forced split-K (0: the planner's).
static void check_emulated_with(xconv_device *dev, const xconv_variant *v, int index,
                                const char *types, int pipeline, size_t local_cap, int stages,
                                const xconv_forced_mma_tiles *tiles, int split)
{
    xconv_problem p;
    xconv_error err;
    const char *spec = run_specs[index];
    if (!parse_with(spec, types, &p))
        return;
    xconv_plan *plan = NULL;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    bool direct = pipeline == XCONV_MMA_PIPELINE_DIRECT_B;
    bool packed = pipeline == XCONV_MMA_PIPELINE_PACKED || direct;
    opts.mma_pipeline = packed ? pipeline : XCONV_MMA_PIPELINE_REGISTERS;
    if (tiles)
        opts.mma_tiles = *tiles;
    if (packed)
        opts.mma_split_k = split;
    xconv_device_info saved = dev->info;
    dev->info.compute_units = run_units[index];
    // The emulation's exchange buffer (6 words a work-item, at most 512) sits beside the ring,
    // which the planner sizes for the PTX kernel: leave it room (Oclgrind's 64 KiB).
    size_t cap = local_cap, room = dev->info.local_mem_bytes - 512 * 6 * 4;
    if (packed && room < dev->info.local_mem_bytes)
        cap = cap && cap < room ? cap : room;
    if (cap && cap < dev->info.local_mem_bytes)
        dev->info.local_mem_bytes = cap;
    xconv_status st = xconv_variant_plan(v, dev, &p, &opts, &plan, &err);
    dev->info = saved;
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
    if (st != XCONV_OK)
        return;
    // The product: the last step, or the one before the split's reduce (direct B: no step
    // packs x).
    bool split_planned = packed && plan->nsteps == (direct ? 3 : 4);
    xconv_step *s = xconv_plan_step(plan, plan->nsteps - 1 - split_planned);
    CHECK(plan->nsteps == (packed ? 3 - direct + split_planned : 1) &&
          strcmp(s->source, packed ? "implicit_mma_packed" : "implicit_mma") == 0);
    CHECK(xconv_step_value(s, "XC_MMA_B_DIRECT", 0) == direct);
    long long slices = xconv_step_value(s, "XC_MMA_SPLIT", 1);
    CHECK_MSG(split_planned == (slices > 1) && (split < 2 || slices > 1) && (split != 1 ||
              slices == 1), "%s %s: split %d forced, %lld slices planned", spec, types, split,
              slices);
    if (split_planned)
        CHECK(strcmp(xconv_plan_step(plan, plan->nsteps - 1)->kernel, "splitk_reduce") == 0 &&
              xconv_step_value(xconv_plan_step(plan, plan->nsteps - 1), "XC_GEMM_SPLIT_K", 0) ==
                  slices);
    if (tiles) {
        const long long want_tiles[5] = {tiles->tm, tiles->tn, tiles->tk, tiles->wm, tiles->wn};
        const char *names[5] = {"XC_MMA_TILE_M", "XC_MMA_TILE_N", "XC_MMA_TILE_K",
                                "XC_MMA_WARPS_M", "XC_MMA_WARPS_N"};
        for (int i = 0; i < 5; i++)
            CHECK_MSG(xconv_step_value(s, names[i], 0) == want_tiles[i], "%s: %s %lld, forced "
                      "%lld", spec, names[i], xconv_step_value(s, names[i], 0), want_tiles[i]);
        CHECK_CONTAINS(xconv_plan_summary(plan), "tiles forced by the options");
    }
    int want = run_tile_m[index] == 128 && dev->info.local_mem_bytes < 40960 ? 64  // Oclgrind
                                                                              : run_tile_m[index];
    if (!local_cap && !tiles)
        CHECK_MSG(xconv_step_value(s, "XC_MMA_TILE_M", 0) == want, "%s: %lld-row tiles", spec,
                  xconv_step_value(s, "XC_MMA_TILE_M", 0));
    long long k_step = xconv_step_value(s, "XC_MMA_TILE_K", 0);
    if (!packed)
        CHECK_MSG(k_step > 0 &&
                      xconv_step_value(s, "XC_MMA_RSC", -1) == ((p.c / p.groups) % k_step == 0),
                  "%s %s: k walked as (r, s, c) exactly when a group's channels fill whole K "
                  "steps", spec, types);
    long long got_stages = xconv_step_value(s, "XC_MMA_STAGES", 0);
    if (packed) {
        // The workspace: packed filters and (unless direct) x, channels padded to whole
        // 16-byte chunks; direct, the filters (and any partials) only.
        int64_t cp = xconv_mma_packed_channels(&p), eb = p.math == XCONV_MATH_TF32 ? 4 : 2;
        CHECK(cp % (16 / eb) == 0 && cp >= p.c / p.groups && cp < p.c / p.groups + 16 / eb);
        CHECK_MSG(xconv_plan_workspace_size(plan) >=
                      (size_t)((p.k * p.r * p.s + !direct * p.n * p.h * p.w * p.groups) * cp * eb),
                  "%s: workspace %zu", spec, xconv_plan_workspace_size(plan));
        if (direct && !split_planned)
            CHECK_MSG(xconv_plan_workspace_size(plan) == (size_t)(p.k * cp * eb),
                      "%s: direct B's workspace %zu", spec, xconv_plan_workspace_size(plan));
        CHECK_MSG(got_stages >= 2 && got_stages <= 4 && (!stages || got_stages == stages),
                  "%s %s: %lld stages, expected %d", spec, types, got_stages, stages);
    }
    for (int j = 0; j < plan->nsteps; j++) {
        xconv_step *sj = xconv_plan_step(plan, j);
        for (int i = 0; i < sj->ndefines; i++)
            if (strcmp(sj->defines[i].name, "XC_MMA_PTX") == 0)
                sj->defines[i].value = 0;
    }
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4);
    float *xt = malloc(xn * 4), *wt = malloc(wn * 4);
    double *ref = malloc(yn * 8), *norm = malloc(yn * 8);
    CHECK(x && w && y && xt && wt && ref && norm);
    if (x && w && y && xt && wt && ref && norm) {
        xconv_random_fill(x, xn, 5, 1);
        xconv_random_fill(w, wn, 5, 2);
        xconv_dtype_round(p.dtype, x, xn);
        xconv_dtype_round(p.dtype, w, wn);
        memcpy(xt, x, xn * 4), memcpy(wt, w, wn * 4);
        if (p.math == XCONV_MATH_TF32)
            round_tf32(xt, xn), round_tf32(wt, wn);
        st = run_stored(dev, plan, &p, x, w, y, &err);
        CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
        xconv_compare_result exact, mode;
        CHECK(xconv_reference_conv(&p, xt, wt, ref, norm, 1, &err) == XCONV_OK);
        xconv_compare_full(y, ref, norm, (int64_t)yn, &exact);
        CHECK(xconv_reference_conv(&p, x, w, ref, norm, 1, &err) == XCONV_OK);
        xconv_compare_full(y, ref, norm, (int64_t)yn, &mode);
        double storage = xconv_threshold_storage(p.dtype);
        double limit = xconv_threshold_for_family("gemm") + storage + xconv_threshold_math(p.math);
        char how[64];
        int at = snprintf(how, sizeof how,
                          direct ? "direct B, %lld stages" : packed ? "packed, %lld stages"
                                                                    : "registers",
                          got_stages);
        if (tiles)
            at += snprintf(how + at, sizeof how - (size_t)at, ", %dx%dx%d on %dx%d", tiles->tm,
                           tiles->tn, tiles->tk, tiles->wm, tiles->wn);
        if (slices > 1)
            snprintf(how + at, sizeof how - (size_t)at, ", split %lld", slices);
        printf("  %-44s %-21s %-17s error %.2g over the operands read (%.2g over the stored)\n",
               spec, types, how, exact.max_norm_err, mode.max_norm_err);
        // Every element to the bit: the emulation's fp32 fmas, slices in order. Not under
        // Oclgrind: there f16 runs of shape 8 differ from PoCL's (and the model) in the last
        // bit of 8 or 9 of 28000 outputs, split or not, with the same largest error; that run
        // is for its memory checker and race detector (no reports).
        bool oclgrind = strstr(dev->info.name, "Oclgrind") != NULL;
        if (packed && !oclgrind) {
            float *model = malloc(yn * 4);
            int64_t slice_k = xconv_step_value(s, "XC_MMA_SPLIT_STEPS", 0) *
                              xconv_step_value(s, "XC_MMA_TILE_K", 0);
            CHECK(model != NULL);
            if (model) {
                model_packed(&p, xt, wt, slices > 1 ? slice_k : INT64_MAX, model);
                size_t differ = 0;
                for (size_t i = 0; i < yn; i++)
                    differ += memcmp(&model[i], &y[i], 4) != 0;
                CHECK_MSG(differ == 0, "%s %s: %zu of %zu outputs differ from the fp32 model",
                          spec, types, differ, yn);
            }
            free(model);
        }
        CHECK_MSG(st != XCONV_OK || xconv_compare_passed(&exact, 1e-5 + storage),
                  "%s %s: %lld non-finite, error %.3g at %lld", spec, types,
                  (long long)exact.nonfinite, exact.max_norm_err, (long long)exact.worst_index);
        CHECK_MSG(st != XCONV_OK || xconv_compare_passed(&mode, limit), "%s %s: error %.3g",
                  spec, types, mode.max_norm_err);
    }
    free(x), free(w), free(y), free(xt), free(wt), free(ref), free(norm);
    xconv_plan_destroy(plan);
}

// Where a group's channels fill whole K steps both pipelines walk k as (r, s, c) in the same
// steps and slices, so each output's sums are the same mma in the same order: y must be the
// same to the bit (on the tensor cores too). So must the packed pipeline's and direct B's on
// every 1x1 layer direct B takes (the same fragments in the same steps). pipes: the two
// pipelines compared, unsplit.
static void check_same_bits_of(xconv_device *dev, const xconv_variant *v, int index,
                               const char *types, const int pipes[2])
{
    xconv_problem p;
    xconv_error err;
    if (!parse_with(run_specs[index], types, &p))
        return;
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y[2] = {malloc(yn * 4), malloc(yn * 4)};
    CHECK(x && w && y[0] && y[1]);
    for (int k = 0; x && w && y[0] && y[1] && k < 2; k++) {
        xconv_random_fill(x, xn, 5, 1);
        xconv_random_fill(w, wn, 5, 2);
        xconv_dtype_round(p.dtype, x, xn);
        xconv_dtype_round(p.dtype, w, wn);
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        bool packed = pipes[k] != XCONV_MMA_PIPELINE_REGISTERS;
        opts.mma_pipeline = pipes[k];
        opts.mma_split_k = packed ? 1 : 0;  // unsplit: the same sums in the same order
        xconv_plan *plan = NULL;
        xconv_device_info saved = dev->info;
        dev->info.compute_units = run_units[index];
        if (packed && dev->info.local_mem_bytes > 512 * 6 * 4)  // room for the exchange buffer
            dev->info.local_mem_bytes -= 512 * 6 * 4;       // (as check_emulated_with)
        xconv_status st = xconv_variant_plan(v, dev, &p, &opts, &plan, &err);
        dev->info = saved;
        for (int j = 0; st == XCONV_OK && j < plan->nsteps; j++) {
            xconv_step *sj = xconv_plan_step(plan, j);
            for (int i = 0; i < sj->ndefines; i++)
                if (strcmp(sj->defines[i].name, "XC_MMA_PTX") == 0)
                    sj->defines[i].value = 0;
        }
        st = st ? st : run_stored(dev, plan, &p, x, w, y[k], &err);
        CHECK_MSG(st == XCONV_OK, "%s %s: %s", run_specs[index], types, err.msg);
        xconv_plan_destroy(plan);
    }
    if (x && w && y[0] && y[1]) {
        size_t differ = 0;
        for (size_t i = 0; i < yn; i++)
            differ += memcmp(&y[0][i], &y[1][i], 4) != 0;
        static const char *const names[] = {"auto", "registers", "packed", "direct B"};
        printf("  %-44s %-21s %s vs %s: %zu of %zu outputs differ in their bits\n",
               run_specs[index], types, names[pipes[0]], names[pipes[1]], differ, yn);
        CHECK(differ == 0);
    }
    free(x), free(w), free(y[0]), free(y[1]);
}

// The packed filters (K, R, S, CP) as implicit_mma_pack_w writes them, from w as stored
// (storage bits; tf32 rounded to TF32): word (k, rs, cw) holds channels cw * PACK.. of tap rs,
// zeros past a group's channels.
static void model_packed_w(const xconv_problem *p, const float *w, uint32_t *words)
{
    int64_t cg = p->c / p->groups, rs_n = p->r * p->s, wn = xconv_problem_w_elems(p);
    int pack = p->math == XCONV_MATH_TF32 ? 1 : 2;
    int64_t cpw = xconv_mma_packed_channels(p) / pack;
    uint16_t *half = malloc((size_t)wn * 2);
    float *tf = malloc((size_t)wn * 4);
    CHECK(half && tf);
    if (half && tf) {
        if (pack == 2)
            CHECK(xconv_dtype_from_f32(p->dtype, w, half, (size_t)wn));
        memcpy(tf, w, (size_t)wn * 4);
        round_tf32(tf, (size_t)wn);
        for (int64_t k = 0; k < p->k; k++)
            for (int64_t rs = 0; rs < rs_n; rs++)
                for (int64_t cw = 0; cw < cpw; cw++) {
                    uint32_t word = 0;
                    for (int h = 0; h < pack; h++) {
                        int64_t c = cw * pack + h, at = (k * cg + c) * rs_n + rs;
                        uint32_t bits = 0;
                        if (c < cg && pack == 1)
                            memcpy(&bits, &tf[at], 4);
                        else if (c < cg)
                            bits = half[at];
                        word |= bits << (16 * h);
                    }
                    words[(k * rs_n + rs) * cpw + cw] = word;
                }
    }
    free(half), free(tf);
}

// The packed pipeline of spec in `types` emulated on dev with its local memory capped at
// local_cap bytes: the packed filters in the workspace (filled with all-ones words first) must
// equal model_packed_w's words, padding included, and y model_packed's, to the bit; the filter
// packing tiled (in `blocks` channel blocks: 0 untiled) as expected.
static void check_packed_filters(xconv_device *dev, const xconv_variant *v, const char *spec,
                                 const char *types, size_t local_cap, int blocks)
{
    xconv_problem p;
    xconv_error err;
    if (!parse_with(spec, types, &p))
        return;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.mma_pipeline = XCONV_MMA_PIPELINE_PACKED;
    opts.mma_split_k = 1;
    xconv_plan *plan = NULL;
    xconv_device_info saved = dev->info;
    size_t room = dev->info.local_mem_bytes - 512 * 6 * 4;  // the emulation's exchange buffer
    dev->info.local_mem_bytes = local_cap < room ? local_cap : room;  // (as check_emulated_with)
    xconv_status st = xconv_variant_plan(v, dev, &p, &opts, &plan, &err);
    dev->info = saved;
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
    if (st != XCONV_OK)
        return;
    for (int j = 0; j < plan->nsteps; j++) {
        xconv_step *sj = xconv_plan_step(plan, j);
        for (int i = 0; i < sj->ndefines; i++)
            if (strcmp(sj->defines[i].name, "XC_MMA_PTX") == 0)
                sj->defines[i].value = 0;
    }
    const xconv_step *pw = xconv_plan_step(plan, 0);
    int pack = p.math == XCONV_MATH_TF32 ? 1 : 2;
    long long chunks = xconv_step_value(pw, "XC_MMA_PACK_W_CHUNKS", -1);
    long long cp_chunks = xconv_mma_packed_channels(&p) / (4 * pack);
    long long got_blocks = chunks > 0 ? (cp_chunks + chunks - 1) / chunks : 0;
    CHECK_MSG(strcmp(pw->kernel, "implicit_mma_pack_w") == 0 && got_blocks == blocks,
              "%s %s: %lld-chunk blocks (%lld), expected %d blocks", spec, types, chunks,
              got_blocks, blocks);
    int region = -1;
    for (int r = 0; r < plan->nregions; r++)
        if (strcmp(plan->regions[r].name, "packed w") == 0)
            region = r;
    CHECK(region >= 0);
    size_t eb = xconv_problem_elem_bytes(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t xn = (size_t)xconv_problem_x_elems(&p), yn = (size_t)xconv_problem_y_elems(&p);
    size_t nwords = region >= 0 ? plan->regions[region].bytes / 4 : 0;
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4), *model = malloc(yn * 4);
    float *xt = malloc(xn * 4), *wt = malloc(wn * 4);
    void *xs = malloc(xn * eb), *wsd = malloc(wn * eb), *ys = malloc(yn * eb);
    uint32_t *got = malloc(nwords * 4 + 4), *want = malloc(nwords * 4 + 4);
    xconv_tensors t = {.x = xconv_buffer_create(dev, xn * eb, &err),
                       .w = xconv_buffer_create(dev, wn * eb, &err),
                       .y = xconv_buffer_create(dev, (yn * eb + 3) / 4 * 4, &err),
                       .workspace = xconv_buffer_create(dev, xconv_plan_workspace_size(plan),
                                                        &err)};
    st = x && w && y && model && xt && wt && xs && wsd && ys && got && want && t.x && t.w &&
                 t.y && t.workspace && region >= 0
             ? XCONV_OK
             : XCONV_ERR_OUT_OF_MEMORY;
    if (st == XCONV_OK) {
        xconv_random_fill(x, xn, 5, 1);
        xconv_random_fill(w, wn, 5, 2);
        xconv_dtype_round(p.dtype, x, xn);
        xconv_dtype_round(p.dtype, w, wn);
        CHECK(xconv_dtype_from_f32(p.dtype, x, xs, xn) &&
              xconv_dtype_from_f32(p.dtype, w, wsd, wn));
        uint32_t ones = 0xffffffffu;
        float poison;
        memcpy(&poison, &ones, 4);
        st = xconv_buffer_fill_f32(t.workspace, xconv_plan_workspace_size(plan) / 4, poison,
                                   &err);
        st = st ? st : xconv_buffer_upload(t.x, 0, xn * eb, xs, &err);
        st = st ? st : xconv_buffer_upload(t.w, 0, wn * eb, wsd, &err);
        st = st ? st : xconv_plan_run(plan, &t, &err);
        st = st ? st : xconv_device_wait(dev, &err);
        st = st ? st : xconv_buffer_download(t.workspace, plan->regions[region].offset,
                                             nwords * 4, got, &err);
        st = st ? st : xconv_buffer_download(t.y, 0, yn * eb, ys, &err);
    }
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
    if (st == XCONV_OK) {
        int64_t w_words = p.k * p.r * p.s * xconv_mma_packed_channels(&p) / pack;
        model_packed_w(&p, w, want);
        size_t differ = 0;
        for (int64_t i = 0; i < w_words; i++)
            differ += got[i] != want[i];
        xconv_dtype_to_f32(p.dtype, ys, y, yn);
        memcpy(xt, x, xn * 4), memcpy(wt, w, wn * 4);
        if (p.math == XCONV_MATH_TF32)
            round_tf32(xt, xn), round_tf32(wt, wn);
        model_packed(&p, xt, wt, INT64_MAX, model);
        size_t y_differ = 0;
        for (size_t i = 0; i < yn; i++)
            y_differ += memcmp(&model[i], &y[i], 4) != 0;
        printf("  %-44s %-21s pack_w %lld block%s of %lld chunks: %zu of %lld words, %zu of "
               "%zu outputs differ\n", spec, types, got_blocks, got_blocks == 1 ? "" : "s",
               chunks, differ, (long long)w_words, y_differ, yn);
        CHECK(differ == 0 && y_differ == 0);
    }
    xconv_buffer_destroy(t.x), xconv_buffer_destroy(t.w), xconv_buffer_destroy(t.y);
    xconv_buffer_destroy(t.workspace);
    free(x), free(w), free(y), free(model), free(xt), free(wt), free(xs), free(wsd), free(ys);
    free(got), free(want);
    xconv_plan_destroy(plan);
}

// The tiled filter packing on dev: taps of 9, 25 and 49 (and a 1x1 filter, untiled), odd
// channel counts padded, groups, one block and several (local memory capped at 48 KiB: a
// quarter of it holds 14 chunks of 49 taps), in every math mode.
static void test_packed_filters(xconv_device *dev, const xconv_variant *v)
{
    const size_t all = (size_t)-1, kib48 = 48 << 10;
    check_packed_filters(dev, v, "n=1,c=5,h=3,w=3,k=3,r=3,pad=1", math_specs[1], all, 1);
    check_packed_filters(dev, v, "n=1,c=13,h=5,w=5,k=3,r=5,pad=2", math_specs[0], all, 1);
    check_packed_filters(dev, v, "n=1,c=13,h=5,w=5,k=3,r=5,pad=2", math_specs[2], all, 1);
    check_packed_filters(dev, v, "n=1,c=3,h=7,w=7,k=2,r=7,pad=3", math_specs[2], all, 1);
    check_packed_filters(dev, v, "n=1,c=6,h=3,w=3,k=4,r=3,pad=1,groups=2", math_specs[0], all,
                         1);
    check_packed_filters(dev, v, "n=1,c=130,h=7,w=7,k=3,r=7,pad=3", math_specs[0], kib48, 3);
    check_packed_filters(dev, v, "n=1,c=130,h=7,w=7,k=3,r=7,pad=3", math_specs[1], kib48, 2);
    check_packed_filters(dev, v, "n=1,c=9,h=4,w=4,k=3,r=1", math_specs[1], all, 0);
}

static void check_same_bits(xconv_device *dev, const xconv_variant *v, int index,
                            const char *types)
{
    const int pipes[2] = {XCONV_MMA_PIPELINE_REGISTERS, XCONV_MMA_PIPELINE_PACKED};
    check_same_bits_of(dev, v, index, types, pipes);
}

// Direct B (1x1 layers, B copied from x as it lies, x not packed) emulated: every mode on the
// 1x1 shapes whose H W it takes (tf32 also 36 pixels), every element to the bit against the
// fp32 model and against the packed pipeline; forced tiles of 64 and 32 columns, a K step of 8
// TF32 words, 2-4 stages and a forced split; the shape it refuses in f16 through packed x.
static void test_direct_emulated(xconv_device *dev, const xconv_variant *v)
{
    const int direct = XCONV_MMA_PIPELINE_DIRECT_B;
    const int versus[2] = {XCONV_MMA_PIPELINE_PACKED, XCONV_MMA_PIPELINE_DIRECT_B};
    for (int m = 0; m < 3; m++)
        for (int i = DIRECT_FIRST; i < ALL_SPECS - (m > 0); i++) {
            check_emulated_with(dev, v, i, math_specs[m], direct, 0, 0, NULL, 1);
            check_same_bits_of(dev, v, i, math_specs[m], versus);
        }
    const xconv_forced_mma_tiles f16_64 = {64, 64, 32, 2, 2, 3}, tf32_32 = {32, 32, 8, 1, 2, 2};
    const xconv_forced_mma_tiles tf32_4 = {128, 64, 16, 4, 2, 4};
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[1], direct, 0, 3, &f16_64, 1);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[0], direct, 0, 2, &tf32_32, 1);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[0], direct, 0, 4, &tf32_4, 1);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[0], direct, 0, 0, NULL, 3);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[2], direct, 0, 0, NULL, 2);
    check_emulated_with(dev, v, DIRECT_FIRST + 2, math_specs[1], XCONV_MMA_PIPELINE_PACKED, 0, 0,
                        NULL, 1);
}

static void check_emulated(xconv_device *dev, const xconv_variant *v, int index,
                           const char *types)
{
    check_emulated_with(dev, v, index, types, XCONV_MMA_PIPELINE_AUTO, 0, 0, NULL, 1);
}

// Forced tiles (XCONV_MMA_TILES) and split-K (XCONV_MMA_SPLIT) emulated on dev: K steps of 8, 16
// and 32 words, 2 to 8 warps in both orientations, forced stages, the register pipeline too;
// slices of several steps and of one (a half step last), groups, forced tiles with a split, and
// the planner's own split of a one-tile grid (shape 7 on 64 compute units).
static void test_forced_emulated(xconv_device *dev, const xconv_variant *v)
{
    const int packed_pipe = XCONV_MMA_PIPELINE_PACKED, registers = XCONV_MMA_PIPELINE_REGISTERS;
    const xconv_forced_mma_tiles narrow_k = {32, 64, 8, 2, 2, 2}, wide_k = {128, 64, 64, 4, 2, 2};
    const xconv_forced_mma_tiles wide_n = {64, 128, 32, 2, 4, 3}, deep = {16, 32, 32, 1, 2, 2};
    const xconv_forced_mma_tiles reg_a = {32, 64, 16, 1, 2, 0}, reg_b = {64, 64, 32, 2, 2, 0};
    const xconv_forced_mma_tiles quad = {64, 64, 32, 2, 2, 3};
    check_emulated_with(dev, v, 0, math_specs[0], packed_pipe, 0, 0, &narrow_k, 1);
    check_emulated_with(dev, v, 8, math_specs[1], packed_pipe, 0, 0, &wide_k, 1);
    check_emulated_with(dev, v, 1, math_specs[2], packed_pipe, 0, 3, &wide_n, 1);
    check_emulated_with(dev, v, 4, math_specs[0], packed_pipe, 0, 2, &deep, 1);
    check_emulated_with(dev, v, 1, math_specs[0], registers, 0, 0, &reg_a, 1);
    check_emulated_with(dev, v, 0, math_specs[1], registers, 0, 0, &reg_b, 1);
    check_emulated_with(dev, v, 8, math_specs[0], packed_pipe, 0, 0, NULL, 3);
    check_emulated_with(dev, v, 3, math_specs[0], packed_pipe, 0, 0, NULL, 5);
    check_emulated_with(dev, v, 0, math_specs[1], packed_pipe, 0, 0, NULL, 2);
    check_emulated_with(dev, v, 2, math_specs[2], packed_pipe, 0, 0, NULL, 3);
    check_emulated_with(dev, v, 8, math_specs[1], packed_pipe, 0, 3, &quad, 4);
    check_emulated_with(dev, v, 7, math_specs[0], packed_pipe, 0, 0, NULL, 0);
}

// packed_only: only the packed pipeline's checks (`test_mma packed`, for Oclgrind); forced_only:
// only the forced tiles and split-K (`test_mma forced`).
static void test_emulated(bool packed_only, bool forced_only)
{
    xconv_device *dev = open_cpu();
    if (!dev) {
        printf("  no OpenCL CPU device: the emulated kernel is not run\n");
        return;
    }
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    char reason[512];
    xconv_problem p;
    CHECK(parse_with(run_specs[0], "math=tf32", &p));
    CHECK(!xconv_variant_applies(v, dev, &p, reason, sizeof reason));  // no tensor cores
    CHECK_CONTAINS(reason, "needs NVIDIA tensor cores");
    dev->info.cc_major = XCONV_MMA_MIN_CC_MAJOR;  // planned as for tensor cores, run emulated
    // Every shape in tf32; fp16 and bf16 (the same word layout, two elements a word) on the
    // 32-row tiles with a K tail and on the 128 x 128 tiles (PoCL's builds of the emulation,
    // a barrier pair per mma, dominate the test's time).
    for (int i = 0; v && !packed_only && i < RUN_SPECS; i++)
        check_emulated(dev, v, i, math_specs[0]);
    for (int m = 1; v && !packed_only && m < 3; m++) {
        check_emulated(dev, v, 0, math_specs[m]);
        check_emulated(dev, v, 3, math_specs[m]);
        check_emulated(dev, v, 7, math_specs[m]);  // k walked as (r, s, c)
        check_emulated(dev, v, 8, math_specs[m]);
    }
    // The packed pipeline (x and w packed, a cp.async ring emulated by loads and stores): every
    // shape in tf32, with the ring's 2, 3 and 4 stages (local memory capped as on a 48 KiB
    // device and below); fp16 and bf16 (8 channels a chunk: 5, 12, 40 and 1 channel padded) on
    // a spread of them.
    const int packed_pipe = XCONV_MMA_PIPELINE_PACKED;
    if (v && forced_only) {
        test_forced_emulated(dev, v);
        dev->info.cc_major = 0;
        xconv_device_close(dev);
        return;
    }
    for (int i = 0; v && i < RUN_SPECS; i++)
        check_emulated_with(dev, v, i, math_specs[0], packed_pipe, 0, 0, NULL, 1);
    check_emulated_with(dev, v, 3, math_specs[0], packed_pipe, 48 << 10, 3, NULL, 1);  // 128x128
    check_emulated_with(dev, v, 8, math_specs[0], packed_pipe, 33 << 10, 2, NULL, 1);  // 128x128
    check_emulated_with(dev, v, 1, math_specs[0], packed_pipe, 48 << 10, 4, NULL, 1);  // 64x128
    for (int m = 1; v && m < 3; m++) {
        check_emulated_with(dev, v, 0, math_specs[m], packed_pipe, 0, 0, NULL, 1);
        check_emulated_with(dev, v, 2, math_specs[m], packed_pipe, 0, 0, NULL, 1);  // groups
        check_emulated_with(dev, v, 5, math_specs[m], packed_pipe, 0, 0, NULL, 1);  // 40 chans
        check_emulated_with(dev, v, 6, math_specs[m], packed_pipe, 0, 0, NULL, 1);  // 1 chan
        check_emulated_with(dev, v, 8, math_specs[m], packed_pipe, 48 << 10, 3, NULL, 1);
    }
    if (v)
        test_packed_filters(dev, v);
    if (v)
        test_forced_emulated(dev, v);
    if (v)
        test_direct_emulated(dev, v);
    for (int m = 0; v && m < 3; m++) {
        check_same_bits(dev, v, 7, math_specs[m]);  // 32 channels: whole K steps in every mode
        check_same_bits(dev, v, 8, math_specs[m]);  // 64, stride, dilation, padding
    }
    dev->info.cc_major = 0;
    xconv_device_close(dev);
}

// Only the tiled filter packing's checks (`test_mma pack_w`).
static void test_pack_w_only(void)
{
    xconv_error err;
    xconv_device *dev = open_cpu();
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    if (!dev || !v) {
        printf("  no OpenCL CPU device: the emulated kernel is not run\n");
        xconv_device_close(dev);
        return;
    }
    dev->info.cc_major = XCONV_MMA_MIN_CC_MAJOR;  // planned as for tensor cores, run emulated
    test_packed_filters(dev, v);
    dev->info.cc_major = 0;
    xconv_device_close(dev);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "pack_w") == 0) {
        test_pack_w_only();
        return check_summary("test_mma pack_w");
    }
    if (argc > 1 && (strcmp(argv[1], "packed") == 0 || strcmp(argv[1], "forced") == 0)) {
        bool forced = strcmp(argv[1], "forced") == 0;
        test_emulated(true, forced);
        return check_summary(forced ? "test_mma forced" : "test_mma packed");
    }
    test_applicability();
    test_plans();
    test_pack_w_plan();
    test_forced_and_split();
    test_direct_b_plans();
    test_auto();
    test_thresholds();
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    test_emulated(false, false);
    return check_summary("test_mma");
}
