// SPDX-License-Identifier: MIT
// implicit_mma (NVIDIA tensor cores) planned on target profiles, no device: applicability from
// the device's compute capability and the problem's math mode, its plans and tiles on the sm_90
// profile in both pipelines (registers; packed operands through a cp.async ring), forced tiles,
// split-K and direct B, auto's choice, the math thresholds, and the planned kernels compiled for
// sm_90 through NVRTC and ptxas (mma.sync, cvt.rna.tf32, cp.async and ldmatrix in the PTX, no
// spills) when NVRTC loads. The kernels run emulated in tests/test_mma.c.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/device.h"
#include "../host/plan/variant.h"
#include "families/gemm/plan_mma.h"
#include "tests/check.h"
#include "tests/fixtures.h"
#include "tests/mma_shapes.h"
#include "measure/check.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/cuda_loader.h"
#include "cuda/nvrtc_compile.h"
#endif

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
    int split = 0;
    xconv_mma_packed_choose(&h100->info, &p, &t, &split);
    CHECK(t.tile_m == 128 && t.tile_n == 128 && t.warps_m == 2 && t.warps_n == 4);
    CHECK(split == xconv_mma_split_choose(&h100->info, &p, &t));
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
// units) and splits them three ways, and leaves vgg3x3 whole; a forced split is normalised;
// split-K with the register pipeline forced is refused.
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

int main(void)
{
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
    return check_summary("test_plan_mma");
}
