// SPDX-License-Identifier: MIT
// Tests the Winograd planner on synthetic GPU-like and CPU-like devices: applicability and its
// reasons, workspace regions and image chunks, every plan within the device's limits and
// covering the output, the step defines from the X-macro lists, and (where NVRTC is present) the
// planned kernels compiling for sm_90 with every private array in registers.
#include <string.h>

#include "../host/families/winograd/plan_winograd.h"
#include "tests/check.h"
#include "xconv_problem_fields.h"
#include "xconv_winograd_params.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/nvrtc_compile.h"
#endif

// ---------------------------------------------------------------------------------------------
// Devices and shapes

// A GPU like an H100 as the CUDA backend describes it: 48 KiB of local memory per work-group.
static xconv_device_info gpu_info(void)
{
    xconv_device_info i;
    memset(&i, 0, sizeof i);
    i.is_gpu = true;
    i.compute_units = 132;
    i.local_mem_bytes = 48 << 10;
    i.const_mem_bytes = 64 << 10;
    i.max_work_group_size = 1024;
    i.max_work_item_sizes[0] = i.max_work_item_sizes[1] = 1024;
    i.max_work_item_sizes[2] = 64;
    i.preferred_multiple = 32;
    i.max_registers_per_work_group = 65536;
    i.max_alloc_bytes = i.global_mem_bytes = 80ull << 30;
    return i;
}

// A CPU as PoCL describes one: 2 units, 1 MiB of "local" memory, 1 GiB allocations.
static xconv_device_info cpu_info(void)
{
    xconv_device_info i;
    memset(&i, 0, sizeof i);
    i.is_cpu = true;
    i.compute_units = 2;
    i.local_mem_bytes = 1 << 20;
    i.const_mem_bytes = 1 << 20;
    i.max_work_group_size = 4096;
    i.max_work_item_sizes[0] = i.max_work_item_sizes[1] = i.max_work_item_sizes[2] = 4096;
    i.preferred_multiple = 8;
    i.max_alloc_bytes = 1ull << 30;
    i.global_mem_bytes = 4ull << 30;
    return i;
}

// A small GPU: 16 KiB of local memory, 256 work-items, 128 MiB allocations, and a register
// file it does not report (OpenCL without NVIDIA's extension).
static xconv_device_info small_gpu_info(void)
{
    xconv_device_info i = gpu_info();
    i.max_registers_per_work_group = 0;
    i.compute_units = 8;
    i.local_mem_bytes = 16 << 10;
    i.max_work_group_size = 256;
    i.max_work_item_sizes[0] = i.max_work_item_sizes[1] = 256;
    i.max_alloc_bytes = 128ull << 20;
    i.global_mem_bytes = 1ull << 30;
    return i;
}

// 3x3 and 5x5 stride-1 shapes: the standard suite's, ResNet-50's and the small suite's kinds.
static const char *const shapes[] = {
    "n=16,c=64,h=224,w=224,k=64,r=3,pad=1",    "n=32,c=256,h=14,w=14,k=256,r=3,pad=1",
    "n=32,c=32,h=56,w=56,k=64,r=5,pad=2",      "n=10000,c=6,h=22,w=22,k=16,r=5",
    "n=10000,c=1,h=48,w=48,k=6,r=5",           "n=50,c=512,h=7,w=7,k=512,r=3,pad=1",
    "n=4,c=16,h=16,w=16,k=32,r=3,pad=1,groups=4", "n=4,c=32,h=28,w=28,k=32,r=3,pad=1,groups=32",
    "n=3,c=5,h=17,w=23,k=7,r=3,pad=1",         "n=8,c=1,h=28,w=28,k=8,r=3",
    "n=2,c=4,h=10,w=13,k=6,r=3,pad_h=0,pad_w=2", "n=1,c=1,h=5,w=5,k=1,r=5",
};

static xconv_problem parse(const char *spec)
{
    xconv_problem p;
    xconv_error err = {0};
    CHECK_MSG(xconv_shape_parse(spec, &p, &err) == XCONV_OK, "%s: %s", spec, err.msg);
    return p;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

// ---------------------------------------------------------------------------------------------
// Applicability

// Checks that algorithm (m, r, fused) does not apply to spec and that the reason names `want`.
static void check_refused(const xconv_device_info *info, const char *spec, int m, int r,
                          bool fused, const char *want)
{
    xconv_problem p = parse(spec);
    xconv_wino_algo a = {m, r, fused};
    char reason[512] = "";
    CHECK_MSG(!xconv_wino_applies(info, &p, &a, reason, sizeof reason),
              "F(%d,%d)%s applies to %s", m, r, fused ? " fused" : "", spec);
    CHECK_CONTAINS(reason, want);
}

static void test_applicability(void)
{
    xconv_device_info gpu = gpu_info();
    char reason[512];
    xconv_wino_algo f23 = {2, 3, false}, f43 = {4, 3, true}, f25 = {2, 5, false};
    xconv_problem p = parse(shapes[0]);
    CHECK(xconv_wino_applies(&gpu, &p, &f23, reason, sizeof reason));
    CHECK(xconv_wino_applies(&gpu, &p, &f43, reason, sizeof reason));
    p = parse(shapes[2]);
    CHECK(xconv_wino_applies(&gpu, &p, &f25, reason, sizeof reason));

    check_refused(&gpu, "n=2,c=4,h=20,w=20,k=8,r=3,s=5", 2, 3, false, "square filter");
    check_refused(&gpu, "n=2,c=4,h=20,w=20,k=8,r=5", 2, 3, true, "needs a 3x3 filter");
    check_refused(&gpu, "n=2,c=4,h=20,w=20,k=8,r=3", 2, 5, false, "needs a 5x5 filter");
    check_refused(&gpu, "n=2,c=4,h=20,w=20,k=8,r=3,stride=2", 2, 3, false, "stride 1");
    check_refused(&gpu, "n=2,c=4,h=20,w=20,k=8,r=3,pad=2,dil=2", 4, 3, true, "dilation 1");
    check_refused(&gpu, "n=2,c=4,h=20,w=20,k=8,r=5", 4, 5, false, "no transforms");
    check_refused(&gpu, "n=2,c=4,h=20,w=20,k=8,r=1", 2, 1, false, "no transforms");
    // 36 GEMMs per group: depthwise with 2048 channels passes a 16-bit launch dimension.
    check_refused(&gpu, "n=1,c=2048,h=8,w=8,k=2048,r=3,groups=2048", 4, 3, false, "65535");
    // One image's workspace beyond the largest allocation.
    xconv_device_info tiny = gpu_info();
    tiny.max_alloc_bytes = 1 << 20;
    check_refused(&tiny, "n=2,c=64,h=56,w=56,k=64,r=3,pad=1", 2, 3, false, "workspace");
    check_refused(&tiny, "n=2,c=512,h=8,w=8,k=512,r=5,pad=2", 2, 5, true, "transformed filters");
    // Local memory too small for any fused block.
    xconv_device_info no_local = gpu_info();
    no_local.local_mem_bytes = 3000;  // the smallest GEMM tiles fit (2560 bytes), no fused block
    check_refused(&no_local, shapes[0], 2, 3, true, "no fused Winograd block sizes fit");
    p = parse(shapes[0]);
    CHECK(xconv_wino_applies(&no_local, &p, &f23, reason, sizeof reason));  // non-fused still
}

// ---------------------------------------------------------------------------------------------
// Workspace and chunks

static void test_workspace(void)
{
    xconv_device_info gpu = gpu_info();
    xconv_error err = {0};
    xconv_wino_nonfused nf;
    // res3x3 under F(2x2,3x3): 7x7 tiles per image, 32 images, 16 positions.
    xconv_problem p = parse(shapes[1]);
    CHECK(xconv_wino_plan_nonfused(&gpu, &p, 2, NULL, &nf, &err) == XCONV_OK);
    CHECK(nf.chunk == 32 && nf.passes == 1);
    CHECK(nf.tiles.tiles_h == 7 && nf.tiles.tiles_w == 7 && nf.tiles.t_ld == 32 * 49);
    CHECK(nf.region_bytes[XCONV_WINO_REGION_U] == 16ull * 256 * 256 * 4);
    CHECK(nf.region_bytes[XCONV_WINO_REGION_V] == 16ull * 256 * 1568 * 4);
    CHECK(nf.region_bytes[XCONV_WINO_REGION_M] == 16ull * 256 * 1568 * 4);
    CHECK(nf.workspace_bytes == nf.region_bytes[0] + nf.region_bytes[1] + nf.region_bytes[2]);
    CHECK(xconv_wino_region_offset(nf.region_bytes, XCONV_WINO_REGION_V) == nf.region_bytes[0]);
    CHECK(strcmp(xconv_wino_region_name(XCONV_WINO_REGION_M), "element-wise products") == 0);

    // Odd sizes: regions start 256-byte aligned and t_ld rounds up to 4.
    p = parse("n=3,c=5,h=17,w=23,k=7,r=3,pad=1");
    CHECK(xconv_wino_plan_nonfused(&gpu, &p, 4, NULL, &nf, &err) == XCONV_OK);
    CHECK(nf.tiles.tiles_h == 5 && nf.tiles.tiles_w == 6 && nf.tiles.t_ld == 92);
    CHECK(nf.region_bytes[XCONV_WINO_REGION_U] == 36ull * 7 * 5 * 4);
    uint64_t v_at = xconv_wino_region_offset(nf.region_bytes, XCONV_WINO_REGION_V);
    uint64_t m_at = xconv_wino_region_offset(nf.region_bytes, XCONV_WINO_REGION_M);
    CHECK(v_at == 5120 && m_at % 256 == 0 && m_at >= v_at + nf.region_bytes[1]);
    CHECK(nf.workspace_bytes >= m_at + nf.region_bytes[2]);

    // A small allocation limit: the batch goes in the most images that fit.
    xconv_device_info small = gpu_info();
    small.max_alloc_bytes = 512ull << 20;  // one image of vgg3x3 needs 103 MB
    p = parse(shapes[0]);
    CHECK(xconv_wino_plan_nonfused(&small, &p, 2, NULL, &nf, &err) == XCONV_OK);
    CHECK_MSG(nf.chunk >= 1 && nf.chunk < p.n && nf.passes == ceil_div(p.n, nf.chunk),
              "chunk %lld, passes %lld", (long long)nf.chunk, (long long)nf.passes);
    CHECK(nf.workspace_bytes <= small.max_alloc_bytes);
    xconv_wino_nonfused bigger;
    small.max_alloc_bytes = nf.workspace_bytes;  // exactly this chunk's workspace: same chunk
    CHECK(xconv_wino_plan_nonfused(&small, &p, 2, NULL, &bigger, &err) == XCONV_OK);
    CHECK(bigger.chunk == nf.chunk);
    small.max_alloc_bytes = nf.workspace_bytes - 1;  // one byte less: a smaller chunk
    CHECK(xconv_wino_plan_nonfused(&small, &p, 2, NULL, &bigger, &err) == XCONV_OK);
    CHECK(bigger.chunk < nf.chunk);

    // Fused: the transformed filters only.
    xconv_wino_fused fu;
    p = parse(shapes[2]);
    CHECK(xconv_wino_plan_fused(&gpu, &p, 2, NULL, &fu, &err) == XCONV_OK);
    CHECK(fu.region_bytes[XCONV_WINO_REGION_U] == 36ull * 64 * 32 * 4);
    CHECK(fu.region_bytes[XCONV_WINO_REGION_V] == 0 && fu.region_bytes[XCONV_WINO_REGION_M] == 0);
    CHECK(fu.filter.u_ck == 1);
}

// ---------------------------------------------------------------------------------------------
// Plans within limits

// Checks that a launch fits info's work-group limits and has global a multiple of local.
static void check_launch(const xconv_device_info *info, const xconv_wino_launch *l,
                         const char *label)
{
    size_t volume = l->local[0] * l->local[1] * l->local[2];
    CHECK_MSG(volume >= 1 && volume <= info->max_work_group_size, "%s: %zu work-items", label,
              volume);
    for (int d = 0; d < 3; d++)
        CHECK_MSG(l->local[d] >= 1 && l->global[d] % l->local[d] == 0, "%s: dim %d %zu / %zu",
                  label, d, l->global[d], l->local[d]);
    CHECK_MSG(l->global[1] / l->local[1] <= 65535 && l->global[2] / l->local[2] <= 65535,
              "%s: grid dimensions", label);
    CHECK_MSG(l->local_mem_bytes <= info->local_mem_bytes, "%s: %zu bytes of local memory", label,
              l->local_mem_bytes);
}

static void check_nonfused(const xconv_device_info *info, const xconv_problem *p, int m,
                           const char *spec)
{
    xconv_wino_nonfused nf;
    xconv_error err = {0};
    if (xconv_wino_plan_nonfused(info, p, m, NULL, &nf, &err) != XCONV_OK) {
        CHECK_MSG(false, "F(%d,%lld) on %s (%s): %s", m, (long long)p->r, spec, info->name,
                  err.msg);
        return;
    }
    int64_t tiles = nf.tiles.tiles_h * nf.tiles.tiles_w, a = m + p->r - 1;
    CHECK(nf.tiles.tiles_h * m >= xconv_problem_out_h(p) && nf.tiles.tiles_w * m >=
          xconv_problem_out_w(p));
    CHECK(nf.tiles.t_ld % 4 == 0 && nf.tiles.t_ld >= nf.chunk * tiles);
    CHECK(nf.workspace_bytes <= info->max_alloc_bytes);
    CHECK(nf.gemm.groups == a * a * p->groups && nf.gemm.m == p->k / p->groups &&
          nf.gemm.k == p->c / p->groups && nf.gemm.n == nf.chunk * tiles);
    char why[256];  // B rows of t_ld (a multiple of 4) are loaded as float4s
    CHECK_MSG(xconv_gemm_tiles_fit(info, &nf.gemm_tiles, nf.gemm.mode, 4, why, sizeof why),
              "%s: %s", spec, why);
    check_launch(info, &nf.filter_launch, "filter transform");
    check_launch(info, &nf.input_launch, "input transform");
    check_launch(info, &nf.gemm_launch, "GEMM");
    check_launch(info, &nf.output_launch, "output transform");
    CHECK(nf.filter_launch.global[0] >= (size_t)(p->k * (p->c / p->groups)));
    CHECK(nf.input_launch.global[0] >= (size_t)nf.tiles.t_ld &&
          nf.input_launch.global[1] == (size_t)p->c);
    CHECK(nf.output_launch.global[0] >= (size_t)(nf.chunk * tiles) &&
          nf.output_launch.global[1] == (size_t)p->k);
}

static void check_fused(const xconv_device_info *info, const xconv_problem *p, int m,
                        const char *spec)
{
    xconv_wino_fused fu;
    xconv_error err = {0};
    if (xconv_wino_plan_fused(info, p, m, NULL, &fu, &err) != XCONV_OK) {
        CHECK_MSG(false, "fused F(%d,%lld) on %s (%s): %s", m, (long long)p->r, spec, info->name,
                  err.msg);
        return;
    }
    const xconv_wino_fused_params *f = &fu.params;
    int r = (int)p->r;
    size_t threads = xconv_wino_fused_threads(f, r);
    int64_t all_tiles = p->n * f->tiles_h * f->tiles_w;
    CHECK(f->tile_block % f->wpt_t == 0 && f->k_block % f->wpt_k == 0);
    CHECK_MSG(info->is_cpu == (f->vec != 0), "%s on %s: vec %d", spec, info->name, f->vec);
    if (f->vec) {  // CPUs: VEC tiles as lanes x k_block channels per work-item, groups of one
        CHECK((f->vec == 8 || f->vec == 16) && f->tile_block == f->vec && f->wpt_t == 1);
        CHECK(f->k_block >= 1 && f->k_block <= p->k / p->groups && threads == 1);
        CHECK(fu.fused_launch.local_mem_bytes ==
              (size_t)(m + r - 1) * (m + r - 1) * (size_t)(f->k_block + f->c_chunk) *
                  (size_t)f->vec * 4);
        CHECK(fu.fused_launch.local_mem_bytes <= 256u << 10);
        CHECK(fu.fused_launch.global[0] == (size_t)ceil_div(all_tiles, f->vec));
        CHECK(fu.fused_launch.global[1] ==
              (size_t)(p->groups * ceil_div(p->k / p->groups, f->k_block)));
        check_launch(info, &fu.fused_launch, "fused");
        return;
    }
    CHECK(f->wpt_t % f->vw == 0 && f->wpt_k % f->vw == 0 && (f->vw == 1 || f->vw == 4));
    CHECK(f->c_chunk >= 1 && f->c_chunk <= p->c / p->groups);
    CHECK(f->wpt_t * f->wpt_k <= 64);
    if (info->is_gpu)  // accumulators and the staged tile within the register file
        CHECK(threads * (size_t)(f->wpt_t * f->wpt_k + (m + r - 1) * (m + r - 1) + 32) <=
              xconv_wino_register_budget(info));
    CHECK(fu.fused_launch.local[0] == threads);
    CHECK(fu.fused_launch.local_mem_bytes == xconv_wino_fused_local_bytes(f, r));
    check_launch(info, &fu.fused_launch, "fused");
    check_launch(info, &fu.filter_launch, "filter transform");
    CHECK(fu.fused_launch.global[0] / threads * (size_t)f->tile_block >= (size_t)all_tiles);
    CHECK(fu.fused_launch.global[1] * (size_t)f->k_block >= (size_t)p->k);
}

static void test_limits(const xconv_device_info *info)
{
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        xconv_problem p = parse(shapes[s]);
        for (int m = 2; m <= 4; m += 2) {
            if (p.r == 5 && m == 4)
                continue;
            check_nonfused(info, &p, m, shapes[s]);
            check_fused(info, &p, m, shapes[s]);
        }
    }
}

// On a GPU the big layers get big register blocks and the whole batch in one pass.
static void test_gpu_choices(void)
{
    xconv_device_info gpu = gpu_info();
    xconv_error err = {0};
    xconv_wino_fused fu;
    xconv_wino_nonfused nf;
    xconv_problem p = parse(shapes[0]);
    CHECK(xconv_wino_plan_fused(&gpu, &p, 2, NULL, &fu, &err) == XCONV_OK);
    CHECK_MSG(fu.params.wpt_t * fu.params.wpt_k >= 32 && fu.params.vw == 4,
              "vgg3x3 fused: %dx%d per work-item", fu.params.wpt_t, fu.params.wpt_k);
    CHECK(xconv_wino_plan_nonfused(&gpu, &p, 4, NULL, &nf, &err) == XCONV_OK);
    CHECK(nf.chunk == p.n && nf.gemm_tiles.tile_m * nf.gemm_tiles.tile_n >= 64 * 64);
}

// The register file bounds the fused blocks: the device's own figure, else 32K registers.
static void test_registers(void)
{
    xconv_device_info gpu = gpu_info(), unknown = gpu_info(), small = gpu_info();
    unknown.max_registers_per_work_group = 0;
    small.max_registers_per_work_group = 16384;
    CHECK(xconv_wino_register_budget(&gpu) == 65536);
    CHECK(xconv_wino_register_budget(&unknown) == 32768);
    xconv_problem p = parse(shapes[0]);
    xconv_error err = {0};
    xconv_wino_fused fu;
    const xconv_device_info *infos[] = {&gpu, &unknown, &small};
    size_t used[3] = {0};
    for (int i = 0; i < 3; i++) {
        CHECK(xconv_wino_plan_fused(infos[i], &p, 2, NULL, &fu, &err) == XCONV_OK);
        const xconv_wino_fused_params *f = &fu.params;
        used[i] = xconv_wino_fused_threads(f, 3) * (size_t)(f->wpt_t * f->wpt_k + 16 + 32);
        CHECK_MSG(used[i] <= xconv_wino_register_budget(infos[i]), "%zu registers", used[i]);
    }
    CHECK_MSG(used[0] > 32768, "vgg3x3 fused on a 64K file uses %zu registers", used[0]);
    // A forced block past the file is refused with the numbers.
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    // 16 x 8 x 8 = 1024 items x 80 registers
    opts.winograd_fused = (xconv_forced_wino_block){64, 32, 4, 8, 4, 0};
    CHECK(xconv_wino_plan_fused(&gpu, &p, 2, &opts, &fu, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "registers");
}

// ---------------------------------------------------------------------------------------------
// Forced blocks and chunks

static void test_forced(void)
{
    xconv_device_info gpu = gpu_info(), cpu = cpu_info();
    xconv_problem p = parse("n=5,c=6,h=9,w=11,k=10,r=3,pad=1");
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    xconv_error err = {0};
    xconv_wino_fused fu;
    opts.winograd_fused = (xconv_forced_wino_block){16, 8, 4, 4, 2, 0};
    CHECK(xconv_wino_plan_fused(&cpu, &p, 4, &opts, &fu, &err) == XCONV_OK);
    CHECK(fu.params.tile_block == 16 && fu.params.k_block == 8 && fu.params.c_chunk == 4 &&
          fu.params.wpt_t == 4 && fu.params.wpt_k == 2 && fu.params.vw == 1);
    CHECK(fu.fused_launch.local[0] == 36u * 4 * 4);
    opts.winograd_fused = (xconv_forced_wino_block){16, 8, 4, 4, 0, 0};  // wk missing
    CHECK(xconv_plan_options_check(&opts, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "winograd_fused.wk");
    // The vector path forced: 8 lanes, 6 channels in blocks of 3, chunks of 4.
    opts.winograd_fused = (xconv_forced_wino_block){8, 6, 4, 1, 3, 8};
    CHECK(xconv_wino_plan_fused(&cpu, &p, 4, &opts, &fu, &err) == XCONV_OK);
    CHECK(fu.params.vec == 8 && fu.params.k_block == 6 && fu.params.wpt_k == 3 &&
          fu.params.c_chunk == 4 && fu.fused_launch.local[0] == 1);
    CHECK(fu.fused_launch.global[0] == (size_t)ceil_div(5 * 3 * 3, 8) &&
          fu.fused_launch.global[1] == 2);
    // more channels than K/groups
    opts.winograd_fused = (xconv_forced_wino_block){8, 12, 4, 1, 3, 8};
    CHECK(xconv_wino_plan_fused(&cpu, &p, 4, &opts, &fu, &err) == XCONV_ERR_NOT_APPLICABLE);
    // 4 lanes: not a vector width of the path (xconv_plan_options_check refuses it first)
    opts.winograd_fused = (xconv_forced_wino_block){4, 4, 4, 1, 2, 4};
    CHECK(xconv_wino_plan_fused(&cpu, &p, 4, &opts, &fu, &err) == XCONV_ERR_NOT_APPLICABLE);
    xconv_device_info cuda = gpu;
    cuda.backend = XCONV_BACKEND_CUDA;  // no OpenCL C vector types
    opts.winograd_fused = (xconv_forced_wino_block){8, 6, 4, 1, 3, 8};
    CHECK(xconv_wino_plan_fused(&cuda, &p, 4, &opts, &fu, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "OpenCL C");
    // 16 tiles do not split in runs of 3
    opts.winograd_fused = (xconv_forced_wino_block){16, 8, 4, 3, 2, 0};
    CHECK(xconv_wino_plan_fused(&gpu, &p, 2, &opts, &fu, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "multiples");

    xconv_wino_nonfused nf;
    opts.winograd_fused = (xconv_forced_wino_block){0};
    opts.winograd_chunk = 2;  // 5 images in passes of 2, 2 and 1
    CHECK(xconv_wino_plan_nonfused(&gpu, &p, 2, &opts, &nf, &err) == XCONV_OK);
    CHECK(nf.chunk == 2 && nf.passes == 3 && nf.gemm.n == 2 * 5 * 6);
    opts.winograd_chunk = 99;  // more than the batch: the batch
    CHECK(xconv_wino_plan_nonfused(&gpu, &p, 2, &opts, &nf, &err) == XCONV_OK);
    CHECK(nf.chunk == 5 && nf.passes == 1);
    opts.winograd_chunk = 0;
    opts.gemm_tiles = (xconv_forced_gemm_tiles){16, 16, 8, 4, 4, 4, 4, 0};
    CHECK(xconv_wino_plan_nonfused(&gpu, &p, 2, &opts, &nf, &err) == XCONV_OK);
    CHECK(nf.gemm_tiles.tile_m == 16 && nf.gemm_tiles.tile_n == 16 && nf.gemm_tiles.tile_k == 8);
}

// ---------------------------------------------------------------------------------------------
// Split-K of the batched GEMM

// Plans the non-fused F(m, 3) of spec on info under opts (NULL: defaults) into *nf; returns
// the GEMM's split (0 when planning fails).
static int wino_split(const xconv_device_info *info, const char *spec, int m,
                      const xconv_plan_options *opts, xconv_wino_nonfused *nf)
{
    xconv_problem p = parse(spec);
    xconv_error err = {0};
    xconv_status st = xconv_wino_plan_nonfused(info, &p, m, opts, nf, &err);
    CHECK_MSG(st == XCONV_OK, "F(%d) of %s: %s", m, spec, err.msg);
    return st == XCONV_OK ? nf->gemm.split_k : 0;
}

// The batched GEMM takes the GEMM planner's split: ResNet-50's last 3x3 layer at batch 4 (few
// tiles, C = 512) splits on a 132-unit GPU, vgg3x3 and CPUs do not (at batch 50 the layer's
// 288 or 448 128x128 tiles already keep the units busy, by the rule); the partials get region P
// and the launch's third dimension runs over products x slices; forcing applies, and a forced
// split whose partials pass the workspace budget is refused.
static void test_split(void)
{
    xconv_device_info gpu = gpu_info(), cpu = cpu_info(), small = small_gpu_info();
    const char *late = "n=50,c=512,h=7,w=7,k=512,r=3,pad=1";
    const char *few = "n=4,c=512,h=7,w=7,k=512,r=3,pad=1";
    xconv_wino_nonfused nf;
    for (int m = 2; m <= 4; m += 2) {
        int split = wino_split(&gpu, few, m, NULL, &nf);
        CHECK_MSG(split >= 2, "F(%d) of %s on a 132-unit GPU: split %d", m, few, split);
        CHECK(nf.region_bytes[XCONV_WINO_REGION_P] == xconv_gemm_split_bytes(&nf.gemm) &&
              nf.region_bytes[XCONV_WINO_REGION_P] > 0);
        CHECK(nf.workspace_bytes >= xconv_wino_region_offset(nf.region_bytes,
                                                             XCONV_WINO_REGION_P) +
                                        nf.region_bytes[XCONV_WINO_REGION_P]);
        CHECK(nf.gemm_launch.global[2] == (size_t)(nf.gemm.groups * split));
        CHECK(wino_split(&cpu, few, m, NULL, &nf) == 1);
        CHECK(nf.region_bytes[XCONV_WINO_REGION_P] == 0);
    }
    CHECK(wino_split(&gpu, shapes[0], 2, NULL, &nf) == 1);  // vgg3x3: many tiles
    CHECK(nf.region_bytes[XCONV_WINO_REGION_P] == 0 && nf.gemm_launch.global[2] == 16);
    CHECK(strcmp(xconv_wino_region_name(XCONV_WINO_REGION_P), "split-K partials") == 0);

    // Forced: 3 slices of 40 channels in k steps of 16 (3 steps); forced off; and the tiles'
    // eighth field. 5 images in passes of 2: the partials hold a full pass.
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.gemm_split_k = 3;
    opts.winograd_chunk = 2;
    const char *tail = "n=5,c=40,h=9,w=11,k=10,r=3,pad=1";
    CHECK(wino_split(&cpu, tail, 4, &opts, &nf) == 3);
    CHECK(nf.region_bytes[XCONV_WINO_REGION_P] == 3ull * 36 * 10 * nf.tiles.t_ld * 4);
    CHECK(nf.gemm_launch.global[2] == 36u * 3);
    opts.gemm_split_k = 1;
    CHECK(wino_split(&gpu, few, 4, &opts, &nf) == 1);
    opts.gemm_split_k = 0;
    opts.gemm_tiles = (xconv_forced_gemm_tiles){32, 64, 8, 4, 8, 4, 4, 2};
    CHECK(wino_split(&cpu, tail, 2, &opts, &nf) == 2 && nf.gemm_tiles.tile_m == 32);
    // 16 slices of the late layer's F(2x2) GEMMs need 16 x 26 MB of partials: past the small
    // GPU's 128 MiB, refused when forced.
    opts.gemm_tiles = (xconv_forced_gemm_tiles){0};
    opts.winograd_chunk = 0;
    opts.gemm_split_k = 16;
    xconv_problem p = parse(late);
    xconv_error err = {0};
    CHECK(xconv_wino_plan_nonfused(&small, &p, 2, &opts, &nf, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "partials");
}

// ---------------------------------------------------------------------------------------------
// Defines

// Appends "-DNAME=value " per row of an X-macro list to buf.
#define APPEND_DEFINE(name, expr, meaning)                                                  \
    used += (size_t)snprintf(buf + used, sizeof buf - used, "-D" #name "=%lld ",            \
                             (long long)(expr));

static void test_defines(void)
{
    xconv_device_info gpu = gpu_info();
    xconv_error err = {0};
    xconv_problem p = parse("n=3,c=5,h=17,w=23,k=7,r=3,pad=1");
    xconv_wino_nonfused nf;
    CHECK(xconv_wino_plan_nonfused(&gpu, &p, 4, NULL, &nf, &err) == XCONV_OK);
    char buf[1024];
    size_t used = 0;
    {
        const xconv_wino_tile_params *s = &nf.tiles;
        XCONV_WINO_TILE_DEFINES(APPEND_DEFINE)
    }
    CHECK_CONTAINS(buf, "-DXC_WINO_M=4 -DXC_WINO_TILES_H=5 -DXC_WINO_TILES_W=6 -DXC_WINO_T_LD=92");
    used = 0;
    {
        const xconv_wino_filter_params *s = &nf.filter;
        XCONV_WINO_FILTER_DEFINES(APPEND_DEFINE)
    }
    CHECK_CONTAINS(buf, "-DXC_WINO_M=4 -DXC_WINO_U_CK=0");
    xconv_wino_fused fu;
    CHECK(xconv_wino_plan_fused(&gpu, &p, 2, NULL, &fu, &err) == XCONV_OK);
    used = 0;
    {
        const xconv_wino_fused_params *s = &fu.params;
        XCONV_WINO_FUSED_DEFINES(APPEND_DEFINE)
    }
    CHECK_CONTAINS(buf, "-DXC_WINO_M=2 -DXC_WINO_TILES_H=9 -DXC_WINO_TILES_W=12");
    CHECK_CONTAINS(buf, "-DXC_WINO_TILE_BLOCK=");
    CHECK_CONTAINS(buf, "-DXC_WINO_UNROLL_C=1");
}

// ---------------------------------------------------------------------------------------------
// NVRTC: the planned kernels compile for sm_90 and keep their private arrays in registers

#ifdef XCONV_HAVE_CUDA
// Compiles cl/<stem>.cl with the problem's defines and `step` (more defines); returns false when
// NVRTC is missing.
static bool compile_step(const char *label, const xconv_problem *p, const char *stem,
                         const char *kernel, const char *step)
{
    char options[4096];
    size_t used = 0;
#define PROBLEM_DEFINE(name, expr, meaning)                                                 \
    used += (size_t)snprintf(options + used, sizeof options - used, "-D" #name "=%lld ",    \
                             (long long)(expr));
    XCONV_PROBLEM_DEFINES(PROBLEM_DEFINE)
#undef PROBLEM_DEFINE
    snprintf(options + used, sizeof options - used, "%s", step);
    xconv_nvrtc_image img;
    xconv_error err = {0};
    xconv_status st = xconv_nvrtc_compile(xconv_kernel_source(stem), options, 9, 0, true, &img,
                                          &err);
    if (st == XCONV_ERR_UNAVAILABLE)
        return false;
    CHECK_MSG(st == XCONV_OK, "%s: %s", label, err.msg);
    if (st == XCONV_OK) {
        char entry[96];
        snprintf(entry, sizeof entry, ".entry %s(", kernel);
        CHECK_MSG(strstr(img.ptx, entry) != NULL, "%s: PTX lacks %s", label, entry);
        CHECK_MSG(strstr(img.ptx, "__local_depot") == NULL,
                  "%s: private arrays spill to local memory", label);
    }
    xconv_nvrtc_image_free(&img);
    return true;
}

static void test_nvrtc(void)
{
    static const struct {
        const char *spec;
        int m;
    } plans[] = {{"n=16,c=64,h=224,w=224,k=64,r=3,pad=1", 2},
                 {"n=32,c=256,h=14,w=14,k=256,r=3,pad=1", 4},
                 {"n=32,c=32,h=56,w=56,k=64,r=5,pad=2", 2}};
    xconv_device_info gpu = gpu_info();
    int compiled = 0;
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        xconv_problem p = parse(plans[i].spec);
        xconv_error err = {0};
        xconv_wino_nonfused nf;
        xconv_wino_fused fu;
        CHECK(xconv_wino_plan_nonfused(&gpu, &p, plans[i].m, NULL, &nf, &err) == XCONV_OK);
        CHECK(xconv_wino_plan_fused(&gpu, &p, plans[i].m, NULL, &fu, &err) == XCONV_OK);
        char buf[1024];
        size_t used = 0;
        {
            const xconv_wino_filter_params *s = &nf.filter;
            XCONV_WINO_FILTER_DEFINES(APPEND_DEFINE)
        }
        if (!compile_step("filter transform", &p, "winograd_filter", "winograd_filter", buf)) {
            printf("NVRTC not available: Winograd plans not compiled\n");
            return;
        }
        used = 0;
        {
            const xconv_wino_tile_params *s = &nf.tiles;
            XCONV_WINO_TILE_DEFINES(APPEND_DEFINE)
        }
        compile_step("input transform", &p, "winograd_input", "winograd_input", buf);
        compile_step("output transform", &p, "winograd_output", "winograd_output", buf);
        used = 0;
        {
            const xconv_wino_fused_params *s = &fu.params;
            XCONV_WINO_FUSED_DEFINES(APPEND_DEFINE)
        }
        compile_step("fused", &p, "winograd_fused", "winograd_fused", buf);
        compiled += 4;
    }
    printf("NVRTC: %d planned Winograd kernels compiled for sm_90\n", compiled);
}
#endif

int main(void)
{
    xconv_device_info gpu = gpu_info(), cpu = cpu_info(), small = small_gpu_info();
    snprintf(gpu.name, sizeof gpu.name, "synthetic GPU");
    snprintf(cpu.name, sizeof cpu.name, "synthetic CPU");
    snprintf(small.name, sizeof small.name, "synthetic small GPU");
    test_applicability();
    test_workspace();
    test_limits(&gpu);
    test_limits(&cpu);
    test_limits(&small);
    test_gpu_choices();
    test_registers();
    test_forced();
    test_split();
    test_defines();
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    return check_summary("test_plan_winograd");
}
