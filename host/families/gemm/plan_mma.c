// SPDX-License-Identifier: MIT
// The tensor-core implicit GEMM's planner: applicability from the device's compute capability,
// tiles for cl/implicit_mma.cl, and its one step.
#include <stdio.h>
#include <string.h>

#include "families/gemm/plan_gemm.h"
#include "families/gemm/plan_mma.h"
#include "plan/variant.h"

// Words of k per K step: two 8-word mma slices (16 TF32 or 32 fp16/bf16 elements).
#define MMA_K_WORDS 16
#define MMA_WARP 32  // lanes of a warp: mma.sync is a warp's instruction (PTX)

bool xconv_mma_supported(const xconv_device_info *info)
{
    return info && info->cc_major >= XCONV_MMA_MIN_CC_MAJOR;
}

// Elements per 32-bit word of the staged operands: one TF32, two fp16 or bf16.
static int mma_pack(int64_t math)
{
    return math == XCONV_MATH_TF32 ? 1 : 2;
}

void xconv_mma_choose(const xconv_device_info *info, const xconv_problem *p,
                      xconv_mma_tiles *t)
{
    int64_t kg = p->k / p->groups, cols = p->n * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    int tile_m = kg <= 16 ? 16 : kg <= 32 ? 32 : 64;
    // 128 columns: one row of four warps of 32 columns on 16- and 32-row tiles, 2 x 4 warps of
    // 32 x 32 on 64-row tiles (eight warps: about 90 registers a lane on sm_90, two
    // work-groups a compute unit to hide the loads' latency).
    *t = (xconv_mma_tiles){.tile_m = tile_m, .tile_n = 128,
                           .tile_k = MMA_K_WORDS * mma_pack(p->math),
                           .warps_m = tile_m == 64 ? 2 : 1, .warps_n = 4};
    // Wide products whose 128 x 128 tiles still make two waves over the compute units: 4 x 4
    // warps of 32 x 32, half the B words a mma of the 64-row tiles, where the device's local
    // memory and work-groups hold them.
    xconv_mma_tiles big = *t;
    big.tile_m = big.tile_n = 128;
    big.warps_m = big.warps_n = 4;
    int64_t big_tiles = (kg + 127) / 128 * ((cols + 127) / 128) * p->groups;
    if (kg > 64 && big_tiles >= 2 * (int64_t)info->compute_units &&
        xconv_mma_local_bytes(&big, p->math) <= info->local_mem_bytes &&
        (size_t)(big.warps_m * big.warps_n * MMA_WARP) <= info->max_work_group_size)
        *t = big;
}

bool xconv_mma_forced_tiles(const xconv_plan_options *opts, xconv_mma_tiles *t, int *stages)
{
    static const xconv_forced_mma_tiles none = {0};
    if (!opts || memcmp(&opts->mma_tiles, &none, sizeof none) == 0)
        return false;
    const xconv_forced_mma_tiles *f = &opts->mma_tiles;
    *t = (xconv_mma_tiles){.tile_m = f->tm, .tile_n = f->tn, .tile_k = f->tk, .warps_m = f->wm,
                           .warps_n = f->wn};
    *stages = f->stages;
    return true;
}

// The most warps of a work-group and fp32 sums of C a lane the kernels are given: 128 sums
// leave a lane's fragments and addresses the rest of its 255 registers (256 x 128 tiles on
// 4 x 2 warps: 217 registers, no spills, in test_mma's ptxas report for sm_90).
#define MMA_MAX_WARPS 32
#define MMA_MAX_LANE_SUMS 128
#define MMA_MAX_TILE 1024  // the most rows, columns or k elements of a tile

bool xconv_mma_tiles_take(const xconv_mma_tiles *t, int64_t math, bool packed, char *why,
                          size_t len)
{
    const char *bad = NULL;
    if (t->tile_m < 1 || t->tile_n < 1 || t->tile_k < 1 || t->warps_m < 1 || t->warps_n < 1 ||
        t->tile_m > MMA_MAX_TILE || t->tile_n > MMA_MAX_TILE || t->tile_k > MMA_MAX_TILE ||
        t->warps_m > MMA_MAX_WARPS || t->warps_n > MMA_MAX_WARPS)
        bad = "TM, TN and TK must be 1 to 1024, WM and WN 1 to 32";
    // In those ranges every product below fits an int.
    int pack = mma_pack(math), warps = bad ? 1 : t->warps_m * t->warps_n;
    int kw = t->tile_k / pack, threads = warps * MMA_WARP;
    if (!bad && (warps > MMA_MAX_WARPS || (warps & (warps - 1))))
        bad = "WM x WN warps must be a power of two, at most 32";
    if (!bad && (t->tile_m % (16 * t->warps_m) || t->tile_n % (16 * t->warps_n)))
        bad = "TM must be a multiple of 16 x WM and TN of 16 x WN (whole 16 x 16 warp tiles)";
    if (!bad && t->tile_m / t->warps_m * (t->tile_n / t->warps_n) > MMA_MAX_LANE_SUMS * MMA_WARP)
        bad = "a warp's block (TM/WM x TN/WN) holds at most 4096 sums (128 a lane)";
    if (!bad && (t->tile_k % pack || (kw != 8 && kw != 16 && kw != 32)))
        bad = pack == 1 ? "TK must be 8, 16 or 32 (tf32 elements a K step)"
                        : "TK must be 16, 32 or 64 (f16/bf16 elements a K step)";
    if (!bad && !packed &&
        ((t->tile_m * kw) % threads || threads % t->tile_n || kw % (threads / t->tile_n)))
        bad = "the register pipeline needs TM x TK words in whole rounds of the work-items, "
              "TN dividing the work-items and TK words a whole share of each column of B";
    if (bad)
        snprintf(why, len, "implicit_mma%s tiles %d,%d,%d,%d,%d: %s", packed ? " (packed)" : "",
                 t->tile_m, t->tile_n, t->tile_k, t->warps_m, t->warps_n, bad);
    return !bad;
}

bool xconv_mma_channels_first(const xconv_problem *p, const xconv_mma_tiles *t)
{
    return (p->c / p->groups) % t->tile_k == 0;
}

size_t xconv_mma_local_bytes(const xconv_mma_tiles *t, int64_t math)
{
    // The operands' two buffers, or the staged sums of C where they are larger: 16 rows of a
    // warp's columns a warp, padded by one float, in whole 16-byte units (cl/implicit_mma.cl).
    size_t words = (size_t)(t->tile_k / mma_pack(math));  // of k, per row of A or column of B
    size_t operands = 2 * (size_t)(t->tile_m + t->tile_n) * words;
    size_t staged = (size_t)(t->warps_m * t->warps_n) * 16 * (size_t)(t->tile_n / t->warps_n + 1);
    size_t larger = operands > staged ? operands : (staged + 3) / 4 * 4;
    return larger * sizeof(uint32_t);
}

// Returns true when every element index the kernel forms (x, w and y, whole and per group)
// stays in 32 bits.
static bool mma_fits_index(const xconv_problem *p)
{
    int64_t pq = xconv_problem_out_h(p) * xconv_problem_out_w(p);
    int64_t crs = p->c / p->groups * p->r * p->s;
    return p->n * p->c * p->h * p->w <= XCONV_MAX_INDEX && p->n * p->k * pq <= XCONV_MAX_INDEX &&
           p->k * crs <= XCONV_MAX_INDEX;
}

// Adds the step's defines: the problem's (the storage type among them), the math mode and t.
static xconv_status mma_defines(xconv_step *s, const xconv_problem *p, const xconv_mma_tiles *t,
                                xconv_error *err)
{
    xconv_status st = xconv_step_define_problem(s, p, err);
    const struct { const char *name; long long value; } defs[] = {
        {"XC_MMA_MATH", (long long)p->math}, {"XC_MMA_PTX", 1},
        {"XC_MMA_TILE_M", t->tile_m}, {"XC_MMA_TILE_N", t->tile_n},
        {"XC_MMA_TILE_K", t->tile_k}, {"XC_MMA_WARPS_M", t->warps_m},
        {"XC_MMA_WARPS_N", t->warps_n},
        {"XC_MMA_RSC", xconv_mma_channels_first(p, t)},
    };
    for (size_t i = 0; st == XCONV_OK && i < sizeof defs / sizeof defs[0]; i++)
        st = xconv_step_define(s, defs[i].name, defs[i].value, err);
    return st;
}

// The mma shape of each math mode, for the summary.
static const char *mma_shape(int64_t math)
{
    return math == XCONV_MATH_TF32 ? "m16n8k8 tf32" : math == XCONV_MATH_F16 ? "m16n8k16 f16"
                                                                            : "m16n8k16 bf16";
}

xconv_status xconv_mma_plan_step(const xconv_device_info *info, const xconv_problem *p,
                                 const xconv_mma_tiles *t, xconv_plan *plan, xconv_error *err)
{
    if (!mma_fits_index(p))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "implicit_mma: x, w or y passes the kernel's 32-bit index range");
    char why[256];
    if (!xconv_mma_tiles_take(t, p->math, false, why, sizeof why))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", why);
    size_t threads = (size_t)(t->warps_m * t->warps_n * MMA_WARP);
    size_t local_bytes = xconv_mma_local_bytes(t, p->math);
    if (threads > info->max_work_group_size || threads > info->max_work_item_sizes[0] ||
        local_bytes > info->local_mem_bytes)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "implicit_mma: %zu work-items and %zu bytes of local memory "
                               "pass the device's %zu and %llu", threads, local_bytes,
                               info->max_work_group_size,
                               (unsigned long long)info->local_mem_bytes);
    xconv_step *s = xconv_plan_add_step(plan, "tensor-core implicit GEMM", "implicit_mma",
                                        "implicit_mma");
    if (!s)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_status st = mma_defines(s, p, t, err);
    if (st != XCONV_OK)
        return st;
    int64_t kg = p->k / p->groups, cols = p->n * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    size_t global[3] = {(size_t)((cols + t->tile_n - 1) / t->tile_n) * threads,
                        (size_t)((kg + t->tile_m - 1) / t->tile_m), (size_t)p->groups};
    size_t local[3] = {threads, 1, 1};
    xconv_step_set_3d(s, global, local);
    s->local_mem_bytes = local_bytes;
    xconv_step_arg_buffer(s, XCONV_REF_X);
    xconv_step_arg_buffer(s, XCONV_REF_W);
    xconv_step_arg_buffer(s, XCONV_REF_Y);
    xconv_plan_summarize(plan, "mma.sync %s, fp32 accumulation: %lldx%lldx%lld x %lld group%s, "
                         "%dx%d tiles of %dx%d warps, k step %d walked as %s", mma_shape(p->math),
                         (long long)kg, (long long)cols,
                         (long long)(p->c / p->groups * p->r * p->s), (long long)p->groups,
                         p->groups == 1 ? "" : "s", t->tile_m, t->tile_n, t->warps_m,
                         t->warps_n, t->tile_k,
                         xconv_mma_channels_first(p, t) ? "(r,s,c)" : "(c,r,s)");
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The packed-operand pipeline (cl/implicit_mma_packed.cl)

#define MMA_MAX_STAGES 4  // the ring's most stages (the kernel takes 2 to 4)

// Where the packed pipeline runs when the options leave the choice to the planner: a filter of
// more than one tap (x is read R x S times, packed once), or output planes of at most 28x28
// with at least 256 filters a group (the product's columns long enough to repay the pass that
// packs x); and at least 32 channels a group (the packing pads them to 16-byte chunks). On the
// H100 (2026-11-27-h100-09db270-mma_pipeline_*.json, two runs of each) packed against registers:
// vgg3x3 1.30x (tf32) and 1.38x (f16); ResNet-50's batch-50 layers with 28x28 planes or less
// and >= 256 filters 1.32-2.52x in tf32 and 1.01-1.85x in f16; on its 56x56 1x1 layers 0.56-0.96x
// and on res3_reduce (128 filters) 0.79x in f16, which keep the register pipeline.
#define MMA_PACKED_MAX_PLANE (28 * 28)
#define MMA_PACKED_MIN_FILTERS 256
#define MMA_PACKED_MIN_CHANNELS 32

bool xconv_mma_packed_pays(const xconv_problem *p)
{
    int64_t kg = p->k / p->groups, cg = p->c / p->groups;
    int64_t plane = xconv_problem_out_h(p) * xconv_problem_out_w(p);
    return cg >= MMA_PACKED_MIN_CHANNELS &&
           (p->r * p->s > 1 || (plane <= MMA_PACKED_MAX_PLANE && kg >= MMA_PACKED_MIN_FILTERS));
}

int64_t xconv_mma_packed_channels(const xconv_problem *p)
{
    int64_t chunk = 4 * mma_pack(p->math);  // elements of a 16-byte chunk
    return (p->c / p->groups + chunk - 1) / chunk * chunk;
}

// The share of the device's local memory a tiled filter packing work-group takes at most: a
// quarter leaves room for several work-groups a compute unit to overlap their reads.
#define MMA_PACK_W_LOCAL_SHARE 4
#define MMA_PACK_W_THREADS 256  // work-items of a tiled filter packing work-group (at most)

size_t xconv_mma_pack_w_local_bytes(const xconv_problem *p, int chunks)
{
    return chunks ? (size_t)(p->r * p->s) * (size_t)(chunks + 1) * 16 : 0;
}

int xconv_mma_pack_w_chunks(const xconv_device_info *info, const xconv_problem *p)
{
    int64_t rs = p->r * p->s, chunks = xconv_mma_packed_channels(p) / (4 * mma_pack(p->math));
    uint64_t row_bytes = 16 * (uint64_t)rs;  // a chunk of every tap
    int64_t most = (int64_t)(info->local_mem_bytes / MMA_PACK_W_LOCAL_SHARE / row_bytes) - 1;
    if (rs == 1 || most < 1)
        return 0;
    int64_t blocks = (chunks + most - 1) / most;
    return (int)((chunks + blocks - 1) / blocks);
}

// Work-items of a tiled filter packing work-group on info's device: MMA_PACK_W_THREADS, or the
// largest power of two the device's work-groups take.
static int pack_w_threads(const xconv_device_info *info)
{
    int threads = MMA_PACK_W_THREADS;
    while (threads > 1 && ((size_t)threads > info->max_work_group_size ||
                           (size_t)threads > info->max_work_item_sizes[0]))
        threads /= 2;
    return threads;
}

size_t xconv_mma_packed_local_bytes(const xconv_mma_tiles *t, int64_t math, int stages)
{
    // The ring: each stage TILE_M rows of A and TILE_N columns of B of a K step's words; or
    // the staged sums of C where they are larger (as xconv_mma_local_bytes).
    size_t words = (size_t)(t->tile_k / mma_pack(math));
    size_t ring = (size_t)stages * (size_t)(t->tile_m + t->tile_n) * words;
    size_t staged = (size_t)(t->warps_m * t->warps_n) * 16 * (size_t)(t->tile_n / t->warps_n + 1);
    size_t larger = ring > staged ? ring : (staged + 3) / 4 * 4;
    return larger * sizeof(uint32_t);
}

int xconv_mma_packed_stages(const xconv_device_info *info, const xconv_mma_tiles *t,
                            int64_t math)
{
    for (int stages = MMA_MAX_STAGES; stages >= 2; stages--)
        if (xconv_mma_packed_local_bytes(t, math, stages) <= info->local_mem_bytes)
            return stages;
    return 0;
}

void xconv_mma_packed_choose(const xconv_device_info *info, const xconv_problem *p,
                             xconv_mma_tiles *t, int *split)
{
    xconv_mma_choose(info, p, t);
    *split = 0;
    // Where 128 x 128 tiles make less than two waves, split-K (xconv_mma_split_choose) can still
    // fill one with them: take them over 64 x 128 when their split grid covers every compute
    // unit. On the H100, ResNet-50's res5_3x3 at batch 50 in f16: 128 x 128 split 3 0.0846 ms
    // against 64 x 128 split 4 0.0943 (2026-11-28-h100-efba137-mma_res5_f16_*.json).
    xconv_mma_tiles big = *t;
    big.tile_m = big.tile_n = 128;
    big.warps_m = 2, big.warps_n = 4;
    if (t->tile_m == 64 && p->k / p->groups >= 128 &&
        xconv_mma_packed_local_bytes(&big, p->math, 2) <= info->local_mem_bytes &&
        (size_t)(big.warps_m * big.warps_n * MMA_WARP) <= info->max_work_group_size) {
        int64_t cols = p->n * xconv_problem_out_h(p) * xconv_problem_out_w(p);
        int64_t tiles = (p->k / p->groups + 127) / 128 * ((cols + 127) / 128) * p->groups;
        int big_split = xconv_mma_split_choose(info, p, &big);
        if (big_split > 1 && tiles * big_split >= (int64_t)info->compute_units)
            *t = big, *split = big_split;
    }
    // 128 x 128 tiles on 2 x 4 warps of 64 x 32 (256 work-items): per 8-word slice a warp's four
    // A and two B ldmatrix feed 16 mma rather than 2 + 2 feeding 8 (4 x 4 warps of 32 x 32).
    if (t->tile_m == 128 && t->tile_n == 128)
        t->warps_m = 2, t->warps_n = 4;
    if (!*split)  // the split depends on the tiles' sizes, not on their warps
        *split = xconv_mma_split_choose(info, p, t);
}

// ---------------------------------------------------------------------------------------------
// The packed pipeline's split-K

int64_t xconv_mma_packed_steps(const xconv_problem *p, const xconv_mma_tiles *t)
{
    int64_t words = p->r * p->s * xconv_mma_packed_channels(p) / mma_pack(p->math);
    int64_t kw = t->tile_k / mma_pack(p->math);
    return (words + kw - 1) / kw;
}

int xconv_mma_split_normalize(const xconv_problem *p, const xconv_mma_tiles *t, int parts)
{
    int64_t steps = xconv_mma_packed_steps(p, t);
    if (parts < 2 || steps < 2)
        return 1;
    if (parts > steps)
        parts = (int)steps;
    int64_t per = (steps + parts - 1) / parts;  // slices of whole steps, none empty
    return (int)((steps + per - 1) / per);
}

// The partials' product of p's packed product with tiles t split into `split` slices: C of a
// group's filters by the output positions, the layout cl/splitk_reduce.cl reads (y as C: a
// segment an image, one filter a row).
static xconv_gemm_layout split_layout(const xconv_problem *p, int split)
{
    int64_t pq = xconv_problem_out_h(p) * xconv_problem_out_w(p), kg = p->k / p->groups;
    return (xconv_gemm_layout){.m = kg, .n = p->n * pq, .ldc = pq, .seg = pq,
                               .c_seg_stride = p->k * pq, .c_group_stride = kg * pq,
                               .groups = p->groups, .split_k = split};
}

int xconv_mma_split_choose(const xconv_device_info *info, const xconv_problem *p,
                           const xconv_mma_tiles *t)
{
    int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    int64_t kg = p->k / p->groups, cols = p->n * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    int64_t tiles = (kg + t->tile_m - 1) / t->tile_m * ((cols + t->tile_n - 1) / t->tile_n) *
                    p->groups;
    int64_t steps = xconv_mma_packed_steps(p, t);
    if (2 * tiles >= 3 * units || steps < 2 * XCONV_MMA_SPLIT_MIN_STEPS)
        return 1;
    // A slice's partials, written and read once, in K steps of the same bytes: TM x TN floats
    // twice against (TM + TN) x TK elements of operands.
    double eb = p->math == XCONV_MATH_TF32 ? 4.0 : 2.0;
    double partial_steps = 2.0 * t->tile_m * t->tile_n * 4.0 /
                           ((double)(t->tile_m + t->tile_n) * t->tile_k * eb);
    int best = 1;
    double best_cost = (double)((tiles + units - 1) / units * steps);
    for (int parts = 2; parts <= XCONV_MMA_SPLIT_MAX; parts++) {
        int64_t per = (steps + parts - 1) / parts;
        xconv_gemm_layout L = split_layout(p, parts);
        if (xconv_mma_split_normalize(p, t, parts) != parts || per < XCONV_MMA_SPLIT_MIN_STEPS ||
            xconv_gemm_split_bytes(&L) > info->max_alloc_bytes / 4)
            continue;
        double cost = (double)((tiles * parts + units - 1) / units) * ((double)per + partial_steps);
        if (cost < best_cost * 0.999)
            best_cost = cost, best = parts;
    }
    return best;
}

// ---------------------------------------------------------------------------------------------
// The packed pipeline's steps

bool xconv_mma_direct_b_applies(const xconv_problem *p, const xconv_mma_tiles *t, char *why,
                                size_t len)
{
    int64_t pix = 4 * mma_pack(p->math);  // pixels of a 16-byte chunk of x
    const char *bad = p->r != 1 || p->s != 1 ? "the filter is not 1x1"
                      : p->stride_h != 1 || p->stride_w != 1 ? "the stride is not 1"
                      : p->pad_h || p->pad_w ? "the input is padded"
                      : p->groups != 1 ? "the convolution is grouped"
                      : (p->h * p->w) % pix ? (pix == 8 ? "H x W is not a multiple of 8"
                                                         : "H x W is not a multiple of 4")
                      : t->tile_n % (8 * pix) ? (pix == 8 ? "TN is not a multiple of 64"
                                                          : "TN is not a multiple of 32")
                                              : NULL;
    if (bad && why)
        snprintf(why, len, "implicit_mma: B read from x (mma_pipeline 3) needs a 1x1 filter, "
                 "stride 1, no padding, one group, H x W a multiple of a 16-byte chunk's pixels "
                 "and TN of 8 chunks: %s", bad);
    return bad == NULL;
}

// Adds the defines every step of the packed pipeline compiles with (one program): the batch
// baked in (the workspace's size depends on it), the problem's, the tiles', the stages, the
// filter packing's channel block and work-group on info's device, and the split (its slices'
// K steps and the partials' row stride when split).
static xconv_status packed_defines(xconv_step *s, const xconv_device_info *info,
                                   const xconv_problem *p, const xconv_mma_tiles *t,
                                   int stages, bool direct_b, const xconv_gemm_layout *L,
                                   xconv_error *err)
{
    s->bake_batch = true;
    xconv_status st = xconv_step_define_problem(s, p, err);
    int64_t steps = xconv_mma_packed_steps(p, t);
    const struct { const char *name; long long value; } defs[] = {
        {"XC_MMA_MATH", (long long)p->math}, {"XC_MMA_PTX", 1},
        {"XC_MMA_TILE_M", t->tile_m}, {"XC_MMA_TILE_N", t->tile_n},
        {"XC_MMA_TILE_K", t->tile_k}, {"XC_MMA_WARPS_M", t->warps_m},
        {"XC_MMA_WARPS_N", t->warps_n}, {"XC_MMA_STAGES", stages},
        {"XC_MMA_PACK_W_CHUNKS", xconv_mma_pack_w_chunks(info, p)},
        {"XC_MMA_PACK_W_THREADS", pack_w_threads(info)},
        {"XC_MMA_B_DIRECT", direct_b}, {"XC_MMA_SPLIT", L->split_k},
        {"XC_MMA_SPLIT_STEPS", (steps + L->split_k - 1) / L->split_k},
        {"XC_MMA_PART_LD", xconv_gemm_part_ld(L)},
    };
    size_t count = sizeof defs / sizeof defs[0] - (L->split_k > 1 ? 0 : 3);
    for (size_t i = 0; st == XCONV_OK && i < count; i++)
        st = xconv_step_define(s, defs[i].name, defs[i].value, err);
    return st;
}

// Refuses stages the kernel does not take or t's ring does not fit on info's device; else
// returns XCONV_OK with *stages the ring's (the most that fit when 0).
static xconv_status packed_ring(const xconv_device_info *info, const xconv_problem *p,
                                const xconv_mma_tiles *t, int *stages, xconv_error *err)
{
    size_t threads = (size_t)(t->warps_m * t->warps_n * MMA_WARP);
    int forced = *stages;
    if (forced && (forced < 2 || forced > MMA_MAX_STAGES))
        return xconv_error_set(err, XCONV_ERR_INVALID, "implicit_mma (packed): %d stages: the "
                               "ring takes 2 to %d", forced, MMA_MAX_STAGES);
    *stages = forced ? forced : xconv_mma_packed_stages(info, t, p->math);
    int shown = forced ? forced : 2;
    if (threads > info->max_work_group_size || threads > info->max_work_item_sizes[0] ||
        *stages < 2 || xconv_mma_packed_local_bytes(t, p->math, *stages) > info->local_mem_bytes)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "implicit_mma (packed): %dx%d tiles, k step %d: %zu work-items "
                               "and %zu bytes of local memory (%d stages) pass the device's %zu "
                               "and %llu", t->tile_m, t->tile_n, t->tile_k, threads,
                               xconv_mma_packed_local_bytes(t, p->math, shown), shown,
                               info->max_work_group_size,
                               (unsigned long long)info->local_mem_bytes);
    return XCONV_OK;
}

// Adds the packed product's summary lines: the product and, when split, its slices.
static void packed_summary(xconv_plan *plan, const xconv_problem *p, const xconv_mma_tiles *t,
                           int stages, bool direct_b, const xconv_gemm_layout *L)
{
    int64_t cp = xconv_mma_packed_channels(p), rs = p->r * p->s;
    xconv_plan_summarize(plan, "mma.sync %s, fp32 accumulation: %lldx%lldx%lld x %lld group%s, "
                         "%dx%d tiles of %dx%d warps, k step %d walked as (r,s,c) over %lld "
                         "packed channels, %d-stage cp.async ring", mma_shape(p->math),
                         (long long)L->m, (long long)L->n, (long long)(cp * rs),
                         (long long)p->groups, p->groups == 1 ? "" : "s", t->tile_m, t->tile_n,
                         t->warps_m, t->warps_n, t->tile_k,
                         (long long)cp, stages);
    if (direct_b)
        xconv_plan_summarize(plan, "B read from x as it lies (1x1, stride 1: rows of k along the "
                             "output positions, %s), x not packed",
                             p->math == XCONV_MATH_TF32 ? "fragments by 32-bit loads"
                                                        : "fragments by ldmatrix.trans");
    if (L->split_k > 1) {
        int64_t steps = xconv_mma_packed_steps(p, t);
        xconv_plan_summarize(plan, "split-K: %d K slices of %lld steps (%.1f MiB of fp32 "
                             "partials), then a reduce in slice order", L->split_k,
                             (long long)((steps + L->split_k - 1) / L->split_k),
                             xconv_gemm_split_bytes(L) / 1048576.0);
    }
}

xconv_status xconv_mma_plan_packed(const xconv_device_info *info, const xconv_problem *p,
                                   const xconv_mma_tiles *t, int stages, int split, bool direct_b,
                                   xconv_plan *plan, xconv_error *err)
{
    char why[320];
    if (!xconv_mma_tiles_take(t, p->math, true, why, sizeof why) ||
        (direct_b && !xconv_mma_direct_b_applies(p, t, why, sizeof why)))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", why);
    int64_t cp = xconv_mma_packed_channels(p), rs = p->r * p->s;
    int64_t pack = mma_pack(p->math);
    int64_t x_words = direct_b ? 0 : p->n * p->h * p->w * p->groups * cp / pack;
    int64_t w_words = p->k * rs * cp / pack;
    int64_t pq = xconv_problem_out_h(p) * xconv_problem_out_w(p);
    xconv_gemm_layout L = split_layout(p, xconv_mma_split_normalize(p, t, split));
    int64_t part_words = (int64_t)(xconv_gemm_split_bytes(&L) / 4);
    // Every word index of the workspace (offsets included, regions 256-byte aligned) and every
    // element index of x, w and y in 32 bits.
    if (x_words + w_words + part_words + 192 > XCONV_MAX_INDEX ||
        p->n * p->c * p->h * p->w > XCONV_MAX_INDEX || p->n * p->k * pq > XCONV_MAX_INDEX ||
        p->k * (p->c / p->groups) * rs > XCONV_MAX_INDEX)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "implicit_mma (packed): x, w, y, "
                               "the packed operands or the split-K partials pass the kernels' "
                               "32-bit index range");
    xconv_status st = packed_ring(info, p, t, &stages, err);
    if (st != XCONV_OK)
        return st;
    int w_region = xconv_plan_region(plan, "packed w", (size_t)w_words * 4);
    int x_region = direct_b ? -1 : xconv_plan_region(plan, "packed x", (size_t)x_words * 4);
    int part_region = L.split_k > 1 ? xconv_plan_region(plan, "split-K partials",
                                                         xconv_gemm_split_bytes(&L))
                                    : -1;
    xconv_step *pw = xconv_plan_add_step(plan, "pack filters (K,R,S,C)", "implicit_mma_packed",
                                         "implicit_mma_pack_w");
    xconv_step *px = pw && !direct_b ? xconv_plan_add_step(plan, "pack x (N,H,W,C)",
                                                           "implicit_mma_packed",
                                                           "implicit_mma_pack_x")
                                     : NULL;
    xconv_step *s = pw && (px || direct_b)
                        ? xconv_plan_add_step(plan, "tensor-core implicit GEMM (packed)",
                                              "implicit_mma_packed", "implicit_mma_packed")
                        : NULL;
    if (!s)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    st = packed_defines(pw, info, p, t, stages, direct_b, &L, err);
    st = st || !px ? st : packed_defines(px, info, p, t, stages, direct_b, &L, err);
    st = st ? st : packed_defines(s, info, p, t, stages, direct_b, &L, err);
    if (st != XCONV_OK)
        return st;
    // Packing w: a work-group a channel block of a filter (tiled), or a work-item a 16-byte
    // chunk (4 words); x (where it is packed): a work-item a chunk.
    int pw_chunks = xconv_mma_pack_w_chunks(info, p);
    if (pw_chunks) {
        int64_t blocks = (cp / (4 * pack) + pw_chunks - 1) / pw_chunks;
        size_t pw_threads = (size_t)pack_w_threads(info);
        xconv_step_set_2d(pw, (size_t)blocks * pw_threads, (size_t)p->k, pw_threads, 1);
        pw->local_mem_bytes = xconv_mma_pack_w_local_bytes(p, pw_chunks);
    } else
        xconv_step_set_1d(pw, xconv_round_up((size_t)(w_words / 4), 64), 64);
    xconv_step_arg_buffer(pw, XCONV_REF_W);
    xconv_step_arg_region(pw, plan, w_region);
    if (px) {
        xconv_step_set_2d(px, (size_t)(p->n * p->h * p->w), (size_t)(p->groups * cp / pack / 4),
                          8, 8);
        xconv_step_arg_buffer(px, XCONV_REF_X);
        xconv_step_arg_region(px, plan, x_region);
    }
    size_t threads = (size_t)(t->warps_m * t->warps_n * MMA_WARP);
    size_t global[3] = {(size_t)((L.n + t->tile_n - 1) / t->tile_n) * threads,
                        (size_t)((L.m + t->tile_m - 1) / t->tile_m),
                        (size_t)(p->groups * L.split_k)};
    size_t local[3] = {threads, 1, 1};
    xconv_step_set_3d(s, global, local);
    s->local_mem_bytes = xconv_mma_packed_local_bytes(t, p->math, stages);
    if (direct_b) {  // x itself, from element 0
        xconv_step_arg_buffer(s, XCONV_REF_X);
        xconv_step_arg_int(s, 0);
    } else
        xconv_step_arg_region(s, plan, x_region);
    xconv_step_arg_region(s, plan, w_region);
    if (L.split_k > 1)  // the partials, then their sum into y
        xconv_step_arg_region(s, plan, part_region);
    else {
        xconv_step_arg_buffer(s, XCONV_REF_Y);
        xconv_step_arg_int(s, 0);
    }
    st = L.split_k > 1 ? xconv_gemm_plan_reduce(info, p, &L, plan, part_region, XCONV_REF_Y, 0,
                                                L.n, 0, err)
                       : XCONV_OK;
    if (st == XCONV_OK)
        packed_summary(plan, p, t, stages, direct_b, &L);
    return st;
}
