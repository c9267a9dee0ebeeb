// SPDX-License-Identifier: MIT
// Tests of the direct family's planner on synthetic GPU-like and CPU-like device descriptions:
// every plan respects the device's limits and covers the output, for real and tiny shapes.
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../host/families/direct/plan_direct.h"

// ---------------------------------------------------------------------------------------------
// Devices and shapes

// A GPU-like device: 48 KiB of local memory, work-groups of 1024, warps of 32, 132 units.
static xconv_device_info gpu_info(void)
{
    xconv_device_info info;
    memset(&info, 0, sizeof info);
    info.is_gpu = true;
    info.compute_units = 132;
    info.local_mem_bytes = 48 * 1024;
    info.const_mem_bytes = 64 * 1024;
    info.max_work_group_size = 1024;
    info.max_work_item_sizes[0] = 1024, info.max_work_item_sizes[1] = 1024;
    info.max_work_item_sizes[2] = 64;
    info.preferred_multiple = 32;
    info.native_float_width = 1;
    info.max_alloc_bytes = 1ull << 34;
    return info;
}

// A CPU-like device (PoCL's figures on AVX-512): 2 units, work-groups in multiples of 8, native
// float vectors of 16, large work-groups and local memory.
static xconv_device_info cpu_info(void)
{
    xconv_device_info info;
    memset(&info, 0, sizeof info);
    info.backend = XCONV_BACKEND_OPENCL;
    info.is_cpu = true;
    info.native_float_width = 16;
    info.compute_units = 2;
    info.local_mem_bytes = 1024 * 1024;
    info.const_mem_bytes = 1024 * 1024;
    info.max_work_group_size = 4096;
    info.max_work_item_sizes[0] = info.max_work_item_sizes[1] = 4096;
    info.max_work_item_sizes[2] = 4096;
    info.preferred_multiple = 8;
    info.max_alloc_bytes = 1ull << 30;
    return info;
}

static const char *const shapes[] = {
    // the standard suite
    "n=10000,c=1,h=48,w=48,k=6,r=5",
    "n=10000,c=6,h=22,w=22,k=16,r=5",
    "n=16,c=64,h=224,w=224,k=64,r=3,pad=1",
    "n=32,c=256,h=14,w=14,k=256,r=3,pad=1",
    "n=32,c=1024,h=14,w=14,k=256,r=1",
    "n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3",
    "n=64,c=3,h=227,w=227,k=96,r=11,stride=4",
    "n=32,c=32,h=56,w=56,k=64,r=5,pad=2",
    "n=16,c=128,h=56,w=56,k=128,r=3,pad=2,dil=2",
    // tiny and odd ones
    "n=1,c=1,h=1,w=1,k=1,r=1",
    "n=2,c=3,h=4,w=4,k=4,r=5,pad=2",
    "n=3,c=5,h=31,w=17,k=7,r=4,s=2,stride_h=2,stride_w=3,pad_h=2,pad_w=1,dil_h=2,dil_w=1",
    "n=2,c=16,h=20,w=20,k=16,r=3,groups=16,pad=1",
    "n=1,c=3,h=33,w=65,k=9,r=3",
    "n=1,c=7,h=3,w=200,k=13,r=3,pad=1,groups=1",
    // VGG-11's first layer: flat regblock on GPUs, 11 channels a block for 32
    "n=64,c=3,h=100,w=100,k=32,r=3,pad=1",
};

static const xconv_direct_kind kinds[] = {XCONV_DIRECT_CONST, XCONV_DIRECT_TILED,
                                          XCONV_DIRECT_TILED_DB, XCONV_DIRECT_REGBLOCK};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// ---------------------------------------------------------------------------------------------
// Checks

// Checks one tiling of `kind` for p against the device's limits and the output's extent.
static void check_tiling(const xconv_device_info *info, const xconv_problem *p,
                         xconv_direct_kind kind, const xconv_direct_tiling *t, const char *spec)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p), kg = p->k / p->groups;
    size_t wg = (size_t)t->wg_w * t->wg_h;
    const char *name = xconv_direct_kind_name(kind);
    CHECK_MSG(wg >= 1 && wg <= info->max_work_group_size, "%s %s: work-group %zu", name, spec,
              wg);
    CHECK((size_t)t->wg_w <= info->max_work_item_sizes[0]);
    CHECK((size_t)t->wg_h <= info->max_work_item_sizes[1]);
    CHECK_MSG(t->local_mem_bytes <= info->local_mem_bytes, "%s %s: %zu bytes", name, spec,
              t->local_mem_bytes);
    CHECK_MSG(t->block_k >= 1 && t->block_k <= kg, "%s %s: block_k %d", name, spec, t->block_k);
    if (t->vec_q) {
        // Vector columns: direct_const on a CPU, one column of items per work-group, each item
        // one vector of consecutive columns by block_h rows by block_k channels.
        CHECK_MSG(kind == XCONV_DIRECT_CONST && info->is_cpu && !t->flat && t->strip &&
                      t->block_w == t->vec_q && t->vec_q <= info->native_float_width &&
                      t->vec_q <= 8 && t->wg_w == 1 && t->block_k * t->block_h <= 8,
                  "%s %s: vector columns %d", name, spec, t->vec_q);
    } else {
        CHECK(t->block_k * t->block_h * t->block_w <= (t->flat ? 48 : 32));
    }
    CHECK_MSG(t->chunk_c >= 1 && t->chunk_c <= p->c / p->groups, "%s %s: chunk %d", name, spec,
              t->chunk_c);
    if (t->flat) {
        // Flat work-groups (regblock on GPUs): 1-D, numbering one-row register blocks, all
        // filters in local memory at once, one or two blocks per work-item.
        CHECK_MSG(kind == XCONV_DIRECT_REGBLOCK && t->wg_h == 1 && info->is_gpu &&
                  t->block_h == 1 && t->repeat >= 1 && t->repeat <= 2 &&
                  t->chunk_c == p->c / p->groups,
                  "%s %s: flat", name, spec);
        // Past the filters, zeros for what a group's last k-block reads beyond them.
        int64_t pad = (kg + t->block_k - 1) / t->block_k * t->block_k - kg;
        CHECK_MSG(t->local_mem_bytes == (size_t)(p->k * t->chunk_c * p->r * p->s + pad) * 4,
                  "%s %s: flat, %zu bytes of local memory", name, spec, t->local_mem_bytes);
        int64_t blocks = (P + t->block_h - 1) / t->block_h * ((Q + t->block_w - 1) / t->block_w) *
                         ((kg + t->block_k - 1) / t->block_k) * p->groups * p->n;
        int64_t per_group = (int64_t)t->wg_w * t->repeat;
        CHECK_MSG((int64_t)t->work_groups == (blocks + per_group - 1) / per_group,
                  "%s %s: %zu flat work-groups", name, spec, t->work_groups);
        return;
    }
    CHECK_MSG(t->repeat == 1, "%s %s: repeat %d without flat", name, spec, t->repeat);
    int64_t tiles_h = (P + t->wg_h * t->block_h - 1) / (t->wg_h * t->block_h);
    int64_t tiles_w = (Q + t->wg_w * t->block_w - 1) / (t->wg_w * t->block_w);
    int64_t kblocks = (kg + t->block_k - 1) / t->block_k;
    CHECK_MSG((int64_t)t->work_groups == tiles_h * tiles_w * kblocks * p->groups * p->n,
              "%s %s: %zu work-groups", name, spec, t->work_groups);
    // No work-group so large that half of it would already cover the output.
    CHECK_MSG(t->wg_w == 1 || (int64_t)(t->wg_w / 2) * t->block_w < Q, "%s %s: wg_w %d", name,
              spec, t->wg_w);
    CHECK_MSG(t->wg_h == 1 || (int64_t)(t->wg_h / 2) * t->block_h < P, "%s %s: wg_h %d", name,
              spec, t->wg_h);
    if (kind == XCONV_DIRECT_TILED || kind == XCONV_DIRECT_TILED_DB) {
        int tile_h = t->wg_h * t->block_h, tile_w = t->wg_w * t->block_w;
        CHECK(t->in_tile_h == (tile_h - 1) * p->stride_h + (p->r - 1) * p->dil_h + 1);
        CHECK(t->in_tile_w == (tile_w - 1) * p->stride_w + (p->s - 1) * p->dil_w + 1);
    }
}

// An empty plan of p without a device (the planner reads the device's info only).
static xconv_plan *new_plan(const xconv_problem *p)
{
    xconv_plan *plan = xconv_plan_new(NULL, NULL, p, NULL);
    CHECK(plan != NULL);
    return plan;
}

// Plans every kind for every shape on info and checks the tilings and the plans.
static void check_device(const xconv_device_info *info, const char *label)
{
    for (int s = 0; s < COUNT(shapes); s++) {
        xconv_problem p;
        xconv_error err = {0};
        CHECK(xconv_shape_parse(shapes[s], &p, &err) == XCONV_OK);
        for (int k = 0; k < COUNT(kinds); k++) {
            char reason[256] = "";
            if (kinds[k] == XCONV_DIRECT_CONST &&
                !xconv_direct_const_fits(info, &p, reason, sizeof reason))
                continue;
            xconv_direct_tiling t;
            xconv_status st = xconv_direct_choose(info, &p, kinds[k], NULL, &t, &err);
            CHECK_MSG(st == XCONV_OK, "%s %s %s: %s", label, xconv_direct_kind_name(kinds[k]),
                      shapes[s], err.msg);
            if (st != XCONV_OK)
                continue;
            check_tiling(info, &p, kinds[k], &t, shapes[s]);

            xconv_plan *plan = new_plan(&p);
            CHECK(xconv_direct_plan(info, &p, kinds[k], NULL, plan, &err) == XCONV_OK);
            CHECK(plan->nsteps == 1);
            const xconv_step *step = xconv_plan_step(plan, 0);
            CHECK(strcmp(step->kernel, xconv_direct_kind_name(kinds[k])) == 0);
            CHECK(step->local[0] == (size_t)t.wg_w && step->local[1] == (size_t)t.wg_h);
            CHECK(step->global[0] == t.work_groups * (size_t)t.wg_w);
            CHECK(step->local_mem_bytes == t.local_mem_bytes);
            CHECK(strlen(plan->summary) > 20);
            char options[4096];
            xconv_step_options(step, options, sizeof options);
            // The problem's defines first, the batch baked (the default).
            CHECK(strstr(options, "-DXC_N=") == options);
            CHECK(!strstr(options, "XC_N_RUNTIME"));
            CHECK(!step->batch_arg);
            CHECK_CONTAINS(options, "-DXD_BLOCK_K=");
            CHECK_CONTAINS(options, "-DXD_CHUNK_C=");
            // Arguments: x, w (a constant for direct_const), y.
            CHECK(step->nargs == 3 && step->args[0].ref == XCONV_REF_X &&
                  step->args[2].ref == XCONV_REF_Y);
            CHECK((step->args[1].kind == XCONV_STEP_ARG_CONSTANT) ==
                  (kinds[k] == XCONV_DIRECT_CONST));
            xconv_plan_destroy(plan);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests

static void test_gpu_like(void)
{
    xconv_device_info info = gpu_info();
    check_device(&info, "gpu");
}

static void test_cpu_like(void)
{
    xconv_device_info info = cpu_info();
    check_device(&info, "cpu");
}

// The few-channel layers get register blocks over several channels and positions on a GPU.
static void test_gpu_few_channels(void)
{
    xconv_device_info info = gpu_info();
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=10000,c=6,h=22,w=22,k=16,r=5", &p, &err) == XCONV_OK);
    xconv_direct_tiling t;
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_REGBLOCK, NULL, &t, &err) == XCONV_OK);
    CHECK_MSG(t.block_k * t.block_h * t.block_w >= 8, "block %dx%dx%d", t.block_k, t.block_h,
              t.block_w);
    CHECK(t.wg_w * t.wg_h >= 64);  // a few warps per work-group
    // Flat, with rows of even width that tile the 18 output columns: input rows read as float2
    // pairs and outputs stored as float2 (8 x 1x6 x2 ran 2-4% faster than 16 x 1x3 x2 on the
    // H100, both backends).
    CHECK(t.flat);
    CHECK_MSG(t.block_w % 2 == 0 && 18 % t.block_w == 0, "block width %d", t.block_w);
}

// VGG-11's first layer with the flat regblock plan an H100 got for it: blocks of 11 channels do
// not divide 32, the last block reads 33 channels' filters, so one float of zeros follows the
// 32 x 3 x 3 x 3 staged; groups of 5 channels in blocks of 3 need one too.
static void test_flat_k_tail(void)
{
    xconv_device_info info = gpu_info();
    xconv_problem p;
    xconv_error err = {0};
    xconv_direct_tiling t;
    CHECK(xconv_shape_parse("n=64,c=3,h=100,w=100,k=32,r=3,pad=1", &p, &err) == XCONV_OK);
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_REGBLOCK,
                              &(xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_REGBLOCK, 128, 1,
                                                            4, 1, 11, 1, 1, 0, 2, 0},
                              &t, &err) == XCONV_OK);
    CHECK_MSG(t.local_mem_bytes == (32 * 3 * 3 * 3 + 1) * 4, "%zu bytes", t.local_mem_bytes);
    CHECK(xconv_shape_parse("n=2,c=4,h=12,w=14,k=10,r=3,groups=2", &p, &err) == XCONV_OK);
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_REGBLOCK,
                              &(xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_REGBLOCK, 32, 1,
                                                            4, 1, 3, 1, 1, 0, 2, 0},
                              &t, &err) == XCONV_OK);
    CHECK_MSG(t.local_mem_bytes == (10 * 2 * 3 * 3 + 1) * 4, "%zu bytes", t.local_mem_bytes);
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_REGBLOCK,
                              &(xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_REGBLOCK, 32, 1,
                                                            4, 1, 5, 1, 1, 0, 2, 0},
                              &t, &err) == XCONV_OK);  // no tail
    CHECK_MSG(t.local_mem_bytes == 10 * 2 * 3 * 3 * 4, "%zu bytes", t.local_mem_bytes);
}

// On a CPU with vector units, direct_const computes consecutive columns as one vector, 8 wide
// where most taps load as one (stride 1 or 2) and 4 wide where most load lane by lane (stride 4,
// rows narrower than 8); GPUs never get vector columns.
static void test_cpu_vector_columns(void)
{
    const struct {
        const char *spec;
        int vec_q;
    } cases[] = {
        {"n=16,c=64,h=224,w=224,k=64,r=3,pad=1", 8},
        {"n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3", 8},
        {"n=10000,c=6,h=22,w=22,k=16,r=5", 8},
        {"n=64,c=3,h=227,w=227,k=96,r=11,stride=4", 4},
        {"n=2,c=3,h=4,w=4,k=4,r=5,pad=2", 4},
    };
    xconv_device_info cpu = cpu_info(), gpu = gpu_info();
    for (int i = 0; i < COUNT(cases); i++) {
        xconv_problem p;
        xconv_error err = {0};
        CHECK(xconv_shape_parse(cases[i].spec, &p, &err) == XCONV_OK);
        xconv_direct_tiling t;
        CHECK(xconv_direct_choose(&cpu, &p, XCONV_DIRECT_CONST, NULL, &t, &err) == XCONV_OK);
        CHECK_MSG(t.vec_q == cases[i].vec_q, "%s: vector columns %d, expected %d",
                  cases[i].spec, t.vec_q, cases[i].vec_q);
        xconv_plan *plan = new_plan(&p);
        CHECK(xconv_direct_plan(&cpu, &p, XCONV_DIRECT_CONST, NULL, plan, &err) == XCONV_OK);
        char options[4096];
        xconv_step_options(xconv_plan_step(plan, 0), options, sizeof options);
        char expected[32];
        snprintf(expected, sizeof expected, "-DXD_VEC_Q=%d", cases[i].vec_q);
        CHECK_CONTAINS(options, expected);
        CHECK_CONTAINS(plan->summary, "columns as one vector");
        xconv_plan_destroy(plan);
        CHECK(xconv_direct_choose(&gpu, &p, XCONV_DIRECT_CONST, NULL, &t, &err) == XCONV_OK);
        CHECK(t.vec_q == 0);
    }
    // A CPU whose native float vectors are narrower than 4 gets none either.
    cpu.native_float_width = 1;
    xconv_problem p;
    xconv_error err = {0};
    xconv_direct_tiling t;
    CHECK(xconv_shape_parse(cases[0].spec, &p, &err) == XCONV_OK);
    CHECK(xconv_direct_choose(&cpu, &p, XCONV_DIRECT_CONST, NULL, &t, &err) == XCONV_OK);
    CHECK(t.vec_q == 0);
}

// On a CPU with many compute units a tiny problem gets fewer work-groups than units (each thread
// a launch wakes costs more than its share of the work), still as vector columns; a large one
// keeps several work-groups per unit, and two units see no such plan.
static void test_cpu_tiny_problems(void)
{
    xconv_device_info cpu = cpu_info();
    cpu.compute_units = 16;
    const char *tiny[] = {"n=2,c=3,h=4,w=4,k=4,r=5,pad=2",
                          "n=2,c=6,h=21,w=26,k=10,r=3,s=4,stride_h=2,stride_w=3,pad_h=1,pad_w=2",
                          "n=3,c=5,h=17,w=23,k=7,r=3,pad=1"};
    for (int i = 0; i < COUNT(tiny); i++) {
        xconv_problem p;
        xconv_error err = {0};
        xconv_direct_tiling t;
        CHECK(xconv_shape_parse(tiny[i], &p, &err) == XCONV_OK);
        CHECK(xconv_direct_choose(&cpu, &p, XCONV_DIRECT_CONST, NULL, &t, &err) == XCONV_OK);
        CHECK_MSG(t.work_groups < 16 && t.vec_q > 0, "%s: %zu work-groups, vector columns %d",
                  tiny[i], t.work_groups, t.vec_q);
    }
    xconv_problem p;
    xconv_error err = {0};
    xconv_direct_tiling t;
    CHECK(xconv_shape_parse("n=16,c=64,h=224,w=224,k=64,r=3,pad=1", &p, &err) == XCONV_OK);
    CHECK(xconv_direct_choose(&cpu, &p, XCONV_DIRECT_CONST, NULL, &t, &err) == XCONV_OK);
    CHECK_MSG(t.work_groups >= 4 * 16, "vgg3x3: %zu work-groups", t.work_groups);
    cpu.compute_units = 2;
    CHECK(xconv_shape_parse(tiny[1], &p, &err) == XCONV_OK);
    CHECK(xconv_direct_choose(&cpu, &p, XCONV_DIRECT_CONST, NULL, &t, &err) == XCONV_OK);
    CHECK_MSG(t.wg_h <= 4, "asym_stride_pad on 2 units: work-groups of %d items", t.wg_h);
}

// A device with little local memory gets smaller chunks, or a clear refusal.
static void test_small_local_memory(void)
{
    xconv_device_info info = gpu_info();
    info.local_mem_bytes = 2048;
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse("n=1,c=64,h=56,w=56,k=64,r=3,pad=1", &p, &err) == XCONV_OK);
    xconv_direct_tiling t;
    xconv_status st = xconv_direct_choose(&info, &p, XCONV_DIRECT_TILED_DB, NULL, &t, &err);
    if (st == XCONV_OK)
        CHECK(t.local_mem_bytes <= 2048);
    else
        CHECK_CONTAINS(err.msg, "local memory");
    info.local_mem_bytes = 16;
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_TILED, NULL, &t, &err) ==
          XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "16 bytes of local memory");
}

// A filter whose taps alone pass the unrolled loop's bound is refused for that reason on every
// kind and device, not for local memory (65x65: 4225 multiply-adds per channel; 64x64 fits).
static void test_unroll_limit(void)
{
    const xconv_device_info infos[] = {gpu_info(), cpu_info()};
    xconv_problem p;
    xconv_error err = {0};
    xconv_direct_tiling t;
    for (int d = 0; d < COUNT(infos); d++)
        for (int i = 0; i < COUNT(kinds); i++) {
            CHECK(xconv_shape_parse("n=1,c=1,h=70,w=70,k=1,r=65", &p, &err) == XCONV_OK);
            CHECK(xconv_direct_choose(&infos[d], &p, kinds[i], NULL, &t, &err) ==
                  XCONV_ERR_NOT_APPLICABLE);
            CHECK_CONTAINS(err.msg, xconv_direct_kind_name(kinds[i]));
            CHECK_CONTAINS(err.msg, "65x65 filter passes the unroll limit");
            CHECK_CONTAINS(err.msg, "4225");
            CHECK_MSG(strstr(err.msg, "local memory") == NULL, "%s", err.msg);
            CHECK(xconv_shape_parse("n=1,c=1,h=70,w=70,k=1,r=64", &p, &err) == XCONV_OK);
            CHECK_MSG(xconv_direct_choose(&infos[d], &p, kinds[i], NULL, &t, &err) == XCONV_OK,
                      "64x64 on %s: %s", xconv_direct_kind_name(kinds[i]), err.msg);
        }
}

// A device that says how many registers a work-item holds (AMD's 256 VGPRs): each chunk of
// channels the loop unrolls loads no more values (input rows and filter taps) than fit beside
// the accumulators; the small suite's many_channels took one chunk of 64 (576 loads) before,
// and AMD's compiler spilled it. Without the limit (0) the chunk is as before.
static void test_register_limit(void)
{
    static const char *const specs[] = {"n=2,c=64,h=8,w=8,k=64,r=3,pad=1",
                                        "n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3",
                                        "n=16,c=64,h=224,w=224,k=64,r=3,pad=1",
                                        "n=32,c=256,h=14,w=14,k=256,r=3,pad=1",
                                        "n=32,c=32,h=56,w=56,k=64,r=5,pad=2"};
    xconv_device_info amd = gpu_info(), plain = gpu_info();
    amd.max_registers_per_item = 256;
    amd.preferred_multiple = 64;
    plain.preferred_multiple = 64;
    xconv_error err = {0};
    for (int i = 0; i < COUNT(specs); i++) {
        xconv_problem p;
        CHECK(xconv_shape_parse(specs[i], &p, &err) == XCONV_OK);
        for (int k = 0; k < COUNT(kinds); k++) {
            if (kinds[k] == XCONV_DIRECT_CONST)
                continue;
            xconv_direct_tiling t, u;
            CHECK(xconv_direct_choose(&amd, &p, kinds[k], NULL, &t, &err) == XCONV_OK);
            CHECK(xconv_direct_choose(&plain, &p, kinds[k], NULL, &u, &err) == XCONV_OK);
            if (t.flat)
                continue;  // a rolled chunk loop: no limit
            int64_t row = (int64_t)(t.block_w - 1) * p.stride_w + (p.s - 1) * p.dil_w + 1;
            int64_t loads = t.block_h * p.r * row + (int64_t)p.r * p.s * t.block_k;
            int64_t acc = (int64_t)t.block_k * t.block_h * t.block_w;
            CHECK_MSG(t.chunk_c * loads <= 256 - acc,
                      "%s %s: chunk %d of %lld loads a channel, %lld accumulators",
                      xconv_direct_kind_name(kinds[k]), specs[i], t.chunk_c, (long long)loads,
                      (long long)acc);
        }
    }
    xconv_problem p;
    xconv_direct_tiling t;
    CHECK(xconv_shape_parse(specs[0], &p, &err) == XCONV_OK);
    CHECK(xconv_direct_choose(&plain, &p, XCONV_DIRECT_REGBLOCK, NULL, &t, &err) == XCONV_OK);
    CHECK_MSG(t.flat || t.chunk_c == 64, "no limit: chunk %d, not 64", t.chunk_c);
    // A flat work-item's loads, sums and the others fit too: a 5x5 filter's 50 loads do not
    // fit 64 registers (pvc's; they spilled 8), a 3x3 filter's 18 do.
    xconv_device_info few = gpu_info();
    few.max_registers_per_item = 64;
    for (int r = 3; r <= 5; r += 2) {
        char spec[64];
        snprintf(spec, sizeof spec, "n=4,c=32,h=64,w=64,k=32,r=%d,pad=%d", r, r / 2);
        CHECK(xconv_shape_parse(spec, &p, &err) == XCONV_OK);
        CHECK(xconv_direct_choose(&few, &p, XCONV_DIRECT_REGBLOCK, NULL, &t, &err) == XCONV_OK);
        int64_t loads = (int64_t)t.block_h * p.r * ((t.block_w - 1) * p.stride_w + p.s) +
                        (int64_t)p.r * p.s * t.block_k;
        int64_t acc = (int64_t)t.block_k * t.block_h * t.block_w;
        CHECK_MSG(!t.flat || loads + acc + XCONV_REGISTERS_OTHER <= 64,
                  "%s: flat with %lld loads", spec, (long long)loads);
    }
}

// A device with a scalar register file (AMD's SGPRs, 102 a wave on gfx90a): the tiled kernels'
// unrolled chunk of filter taps, with one address a filter row and the 60 others
// (plan_direct.c, SCALAR_OTHER), fits it, or is one channel of one output channel; VGG's 3x3
// layers took 2 channels of 8 output channels (144 taps) without it and AMD's compiler spilled
// them. Without the file (0) the plans are as before.
static void test_scalar_limit(void)
{
    static const char *const specs[] = {"n=16,c=64,h=224,w=224,k=64,r=3,pad=1",
                                        "n=32,c=1024,h=14,w=14,k=256,r=1",
                                        "n=32,c=32,h=56,w=56,k=64,r=5,pad=2",
                                        "n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3",
                                        "n=16,c=64,h=64,w=64,k=64,r=11,pad=5"};
    xconv_device_info amd = gpu_info(), plain = gpu_info();
    amd.max_registers_per_item = plain.max_registers_per_item = 256;
    amd.max_scalar_registers = 102;
    amd.preferred_multiple = plain.preferred_multiple = 64;
    xconv_error err = {0};
    int narrowed = 0;
    for (int i = 0; i < COUNT(specs); i++) {
        xconv_problem p;
        CHECK(xconv_shape_parse(specs[i], &p, &err) == XCONV_OK);
        for (int k = 1; k <= 2; k++) {  // direct_tiled, direct_tiled_db
            xconv_direct_tiling t, u;
            CHECK_MSG(xconv_direct_choose(&amd, &p, kinds[k], NULL, &t, &err) == XCONV_OK,
                      "%s %s: %s", xconv_direct_kind_name(kinds[k]), specs[i], err.msg);
            CHECK(xconv_direct_choose(&plain, &p, kinds[k], NULL, &u, &err) == XCONV_OK);
            int64_t taps = (int64_t)t.chunk_c * p.r * p.s * t.block_k;
            CHECK_MSG((t.chunk_c == 1 && t.block_k == 1) || taps + t.block_k + 60 <= 102,
                      "%s %s: chunk %d of %d output channels, %lld taps",
                      xconv_direct_kind_name(kinds[k]), specs[i], t.chunk_c, t.block_k,
                      (long long)taps);
            narrowed += (int64_t)u.chunk_c * p.r * p.s * u.block_k + u.block_k + 60 > 102;
        }
    }
    CHECK_MSG(narrowed > 0, "no plan without the scalar file passes it: the test shows nothing");
}

// direct_const applies only while the filters fit the constant buffer, and says the numbers.
static void test_const_fits(void)
{
    xconv_device_info info = gpu_info();
    xconv_problem p;
    xconv_error err = {0};
    char reason[256] = "";
    CHECK(xconv_shape_parse("n=1,c=16,h=8,w=8,k=64,r=3", &p, &err) == XCONV_OK);
    CHECK(xconv_direct_const_fits(&info, &p, reason, sizeof reason));  // 36864 bytes
    CHECK(xconv_shape_parse("n=1,c=256,h=8,w=8,k=256,r=3", &p, &err) == XCONV_OK);
    CHECK(!xconv_direct_const_fits(&info, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "2359296 bytes");
    CHECK_CONTAINS(reason, "65536");
}

// A forced tiling (the planning option) replaces the search for its kind only; one that does
// not fit is refused with a message.
static void test_forced(void)
{
    xconv_device_info info = gpu_info();
    xconv_problem p;
    xconv_error err = {0};
    xconv_direct_tiling t;
    CHECK(xconv_shape_parse("n=2,c=8,h=32,w=32,k=16,r=3,pad=1", &p, &err) == XCONV_OK);
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.direct_tiling[0] = (xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_TILED, 8, 4, 2, 1,
                                                         4, 1, 0, 0, 0, 0};
    opts.direct_tiling[1] = (xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_CONST, 16, 2, 1, 2,
                                                         0, 1, 0, 0, 0, 0};
    CHECK(xconv_plan_options_direct(&opts, XCONV_DIRECT_KERNEL_CONST) == &opts.direct_tiling[1]);
    CHECK(xconv_plan_options_direct(&opts, XCONV_DIRECT_KERNEL_REGBLOCK) == NULL);
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_CONST, &opts.direct_tiling[1], &t, &err) ==
          XCONV_OK);
    CHECK(t.forced && t.wg_w == 16 && t.wg_h == 2 && t.block_h == 2 && t.block_k == 16);
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_TILED, &opts.direct_tiling[0], &t, &err) ==
          XCONV_OK);
    CHECK(t.forced && t.wg_w == 8 && t.block_w == 2 && t.block_k == 4);
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_REGBLOCK, NULL, &t, &err) == XCONV_OK);
    CHECK(!t.forced);
    xconv_plan *plan = new_plan(&p);
    CHECK(xconv_direct_plan(&info, &p, XCONV_DIRECT_TILED, &opts, plan, &err) == XCONV_OK);
    CHECK_CONTAINS(plan->summary, "(forced tiling)");
    xconv_plan_destroy(plan);
    plan = new_plan(&p);  // the other kernels keep their search
    CHECK(xconv_direct_plan(&info, &p, XCONV_DIRECT_REGBLOCK, &opts, plan, &err) == XCONV_OK);
    CHECK(strstr(plan->summary, "(forced tiling)") == NULL);
    xconv_plan_destroy(plan);
    CHECK(xconv_direct_choose(&info, &p, XCONV_DIRECT_CONST,
                              &(xconv_forced_direct_tiling){XCONV_DIRECT_KERNEL_CONST, 4096, 1, 1,
                                                            1, 0, 1, 0, 0, 0, 0},
                              &t, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "does not fit");
}

int main(void)
{
    test_gpu_like();
    test_cpu_like();
    test_gpu_few_channels();
    test_flat_k_tail();
    test_cpu_vector_columns();
    test_cpu_tiny_problems();
    test_small_local_memory();
    test_unroll_limit();
    test_register_limit();
    test_scalar_limit();
    test_const_fits();
    test_forced();
    return check_summary("test_plan_direct");
}
