// SPDX-License-Identifier: MIT
// The direct family's planner: a small cost model searched over work-group shapes, register
// blocks and channel chunks, bounded by the device's local memory and work-group limits.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/direct/plan_direct.h"
#include "plan/plan_epilogue.h"
#include "plan/variant.h"
#include "xconv_direct_params.h"

// ---------------------------------------------------------------------------------------------
// Model constants (properties of the kernels, not of any vendor's device)

// Most accumulators a work-item keeps in registers: past this GPUs lose occupancy and CPUs
// (where PoCL maps work-items to vector lanes, one register per accumulator) spill.
#define ACC_MAX_GPU 32
#define ACC_MAX_CPU 16
// Most accumulators of a flat direct_regblock work-item (GPUs only). Measured on the H200 with
// ece408_c1/c2: blocks of 48 ran fastest; 64 and 96 lost more to fewer resident threads than
// they gained in reuse (git: docs/direct_family.md, "Flat regblock").
#define ACC_MAX_FLAT 48
// Widest block of consecutive columns a flat work-item takes (flat blocks are one row: taller
// ones hold more hoisted input rows in registers and ran slower).
#define FLAT_BLOCK_W_MAX 12
// Relative cost of a flat work-item's input load against a filter load: a warp's input loads
// spread over several rows and images (more sectors per load), its filter loads are broadcasts.
#define FLAT_INPUT_LOAD_COST 2.0
// Relative cost of storing one output of a flat work-item, times how many more sectors than
// needed a warp's store touches (columns XD_BLOCK_W floats apart, unless one vector store per
// row covers them: cl/direct_regblock.cl, XD_STORE_VEC).
#define FLAT_STORE_COST 2.0
// Scalar registers a tiled kernel's wave keeps beside its chunk's filter taps and one address
// a filter row (kernel arguments, group indices, loop state), where the device has a scalar
// file (max_scalar_registers): what AMD's compiler needed over the direct_tiled and
// direct_tiled_db plans of every shape file for gfx90a and gfx1030, 56 leaving two spilling
// (docs/guide/vendors.md, "The tiled kernels' scalar registers").
#define SCALAR_OTHER 60
// Most multiply-adds of one fully unrolled channel chunk (keeps compile times in seconds).
#define UNROLL_MAX 4096
// Relative cost of one cooperative element load into local memory (global load, local store,
// index arithmetic) and of one barrier, in units of one multiply-add of a work-item.
#define STAGE_LOAD_COST 4.0
#define BARRIER_COST 64.0
// Vector columns (direct_const on CPUs, XD_VEC_Q): the widest vector used (float16 ran slower
// than float8 under PoCL on AVX-512: git: docs/direct_family.md), the tallest work-group (1x8 and
// 1x32 ran slower than 1x2 and 1x4), the most vector accumulators of an item, the cost of one
// lane loaded alone (where a tap's window crosses the input's edge) and the loop's own
// instructions per tap (address, branch), in units of one vector multiply-add.
#define VEC_Q_MAX 8
#define VEC_WG_H_MAX 4
#define VEC_ACC_MAX 8
#define VEC_LANE_LOAD_COST 3.0
#define VEC_TAP_OVERHEAD 2.0
// What waking one more CPU thread for a launch costs, in units of one vector multiply-add (about
// 10 us on a 2 GHz core). On the H100 host's 16-core PoCL (a virtual machine), direct_const on
// tiny shapes ran 10-20% faster in work-groups that cover whole images (6-9 of them) than in
// the 64-150 its work-group target gave (git: docs/direct_family.md, eighth round).
#define THREAD_WAKE_COST 20000.0

static const int wg_sizes[] = {1, 2, 4, 8, 16, 32, 64};
static const int block_sizes[] = {1, 2, 3, 4};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// Vector widths cl/direct_const.cl takes (0: scalar columns).
static bool valid_vec_q(int v)
{
    return v == 0 || v == 4 || v == 8 || v == 16;
}

const char *xconv_direct_kind_name(xconv_direct_kind kind)
{
    const char *name = xconv_direct_kernel_name(xconv_direct_kernel_of(kind));
    return name ? name : "direct_unknown";
}

bool xconv_direct_const_fits(const xconv_device_info *info, const xconv_problem *p, char *reason,
                             size_t len)
{
    uint64_t bytes = (uint64_t)xconv_problem_w_elems(p) * xconv_problem_elem_bytes(p);
    if (bytes <= info->const_mem_bytes)
        return true;
    snprintf(reason, len,
             "the filters take %llu bytes (%lld x %lld x %lld x %lld %s); the device's "
             "constant buffer holds %llu",
             (unsigned long long)bytes, (long long)p->k, (long long)(p->c / p->groups),
             (long long)p->r, (long long)p->s, xconv_dtype_name(p->dtype),
             (unsigned long long)info->const_mem_bytes);
    return false;
}

// ---------------------------------------------------------------------------------------------
// The cost model

static int ceil_div(int64_t a, int64_t b)
{
    return (int)((a + b - 1) / b);
}

// Input extent that `outputs` consecutive outputs with filter size f need.
static int input_extent(int outputs, int64_t stride, int64_t f, int64_t dil)
{
    return (int)((outputs - 1) * stride + (f - 1) * dil + 1);
}

// Whether flat regblock candidate t reads its input row segments as float2 pairs: blocks of even
// width over unit-stride, undilated, unpadded columns that they tile exactly, in an input of even
// width (cl/direct_regblock.cl, XD_ROW_VEC2).
static bool flat_rows_paired(const xconv_problem *p, const xconv_direct_tiling *t)
{
    return t->flat && t->block_w % 2 == 0 && p->pad_w == 0 && p->stride_w == 1 &&
           p->dil_w == 1 && p->w % 2 == 0 && xconv_problem_out_w(p) % t->block_w == 0;
}

// Floats a flat regblock work-group stages as zeros after the filters: what a group's last
// k-block reads past the last output channel where block_k does not divide K/groups
// (cl/direct_regblock.cl, XD_STAGE_PAD).
static int64_t flat_stage_pad(const xconv_problem *p, const xconv_direct_tiling *t)
{
    int64_t kg = p->k / p->groups;
    return (kg + t->block_k - 1) / t->block_k * t->block_k - kg;
}

// Local memory of one candidate in bytes.
static size_t local_bytes(xconv_direct_kind kind, const xconv_problem *p,
                          const xconv_direct_tiling *t)
{
    switch (kind) {
    case XCONV_DIRECT_TILED:
        return (size_t)t->chunk_c * t->in_tile_h * t->in_tile_w * sizeof(float);
    case XCONV_DIRECT_TILED_DB:
        return 2 * (size_t)t->chunk_c * t->in_tile_h * t->in_tile_w * sizeof(float);
    case XCONV_DIRECT_REGBLOCK:  // flat: every output channel's filters at once, then zeros
        return ((size_t)(t->flat ? p->k : t->block_k) * t->chunk_c * p->r * p->s +
                (size_t)(t->flat ? flat_stage_pad(p, t) : 0)) *
               sizeof(float);
    case XCONV_DIRECT_CONST:
        return 0;
    }
    return 0;
}

// Values a work-item loads for one channel of its unrolled chunk loop: its block's input rows
// (cl/direct_regblock.cl: XD_BLOCK_H x R rows of XD_BLOCK_W + S - 1 floats, strided wider) and
// its filter taps. A compiler may hoist every load of the unrolled body ahead of its
// multiply-adds (AMD's does, spilling past 256 VGPRs), so a chunk's loads, with the
// accumulators, must fit the registers a work-item holds.
static int64_t chunk_loads(const xconv_problem *p, const xconv_direct_tiling *t)
{
    int64_t row = (int64_t)(t->block_w - 1) * p->stride_w + (p->s - 1) * p->dil_w + 1;
    return (int64_t)t->block_h * p->r * row + (int64_t)p->r * p->s * t->block_k;
}

// Largest channel chunk (<= c per group) whose unrolled body and local memory fit, and whose
// loads fit the registers of a work-item where the device says how many (max_registers_per_
// item); 0 if none (a block too large for the registers even one channel at a time).
static int pick_chunk(xconv_direct_kind kind, const xconv_device_info *info,
                      const xconv_problem *p, xconv_direct_tiling *t)
{
    int cg = (int)(p->c / p->groups);
    if (kind == XCONV_DIRECT_CONST)
        return cg;
    int64_t acc = (int64_t)t->block_k * t->block_h * t->block_w;
    int64_t loads = chunk_loads(p, t), budget = info->max_registers_per_item - acc;
    if (t->flat) {  // flat regblock: one chunk of every channel, its loop rolled; its loads
        t->chunk_c = cg;  // and sums beside the others a work-item holds (xconv_registers_fit):
                          // a 5x5 filter's 50 loads spilled 8 registers on pvc's 64 without them
        return acc * p->r * p->s <= UNROLL_MAX && xconv_registers_fit(info, acc + loads) &&
                       local_bytes(kind, p, t) <= info->local_mem_bytes
                   ? cg
                   : 0;
    }
    // The tiled kernels read their filter taps at addresses the whole work-group shares: AMD's
    // compiler loads them into scalar registers, every tap of the unrolled chunk ahead, and
    // spilled them past its 102-106 (3x3 filters, 8 output channels, 2 channels: 144 taps). A
    // chunk of one channel for one output channel is left to it: it streamed the taps of 7x7
    // to 11x11 filters (49-121) without spilling.
    bool scalar_taps = kind != XCONV_DIRECT_REGBLOCK && info->max_scalar_registers > 0;
    int64_t taps = (int64_t)p->r * p->s * t->block_k;
    for (int chunk = cg; chunk >= 1; chunk--) {
        int chunks = ceil_div(cg, chunk);
        if (chunk > 1 && ceil_div(cg, chunk - 1) == chunks)
            continue;  // a smaller chunk with the same count wastes less: try it
        t->chunk_c = chunk;
        if (acc * chunk * p->r * p->s <= UNROLL_MAX &&
            (info->max_registers_per_item <= 0 || chunk * loads <= budget) &&
            (!scalar_taps || (chunk == 1 && t->block_k == 1) ||
             chunk * taps + t->block_k + SCALAR_OTHER <= info->max_scalar_registers) &&
            local_bytes(kind, p, t) <= info->local_mem_bytes)
            return chunk;
    }
    return 0;
}

// Share of (item, tap) pairs of an output row whose vec_q input columns are not one vector load
// (cl/direct_const.cl, tap_end): the window of the lanes that are stored crosses the row's edge,
// or the stride is above 2.
static double vec_edge_taps(const xconv_problem *p, int vec_q)
{
    int64_t Q = xconv_problem_out_w(p);
    if (p->stride_w > 2 || (p->stride_w == 2 && vec_q > 8))
        return 1.0;
    int64_t crossing = 0, pairs = 0;
    for (int64_t q0 = 0; q0 < Q; q0 += vec_q)
        for (int64_t s = 0; s < p->s; s++, pairs++) {
            int64_t first = q0 * p->stride_w - p->pad_w + s * p->dil_w;
            int64_t lanes = Q - q0 < vec_q ? Q - q0 : vec_q;
            int64_t needed = first + (lanes - 1) * p->stride_w;
            crossing += first < 0 || needed >= p->w;
        }
    return (double)crossing / (double)pairs;
}

// Multiply-adds of one work-item per input channel.
static double fmas_per_channel(const xconv_problem *p, const xconv_direct_tiling *t)
{
    return (double)t->block_k * t->block_h * t->block_w * p->r * p->s;
}

// Output channels whose filters a regblock work-group stages: every one for flat plans.
static int staged_k(xconv_direct_kind kind, const xconv_problem *p, const xconv_direct_tiling *t)
{
    return kind == XCONV_DIRECT_REGBLOCK && t->flat ? (int)p->k : t->block_k;
}

// Relative cost per multiply-add of scalar plans: the multiply-add itself, input loads (rows
// shared between a work-item's outputs are loaded once) and filter loads (shared by its
// positions), per input channel of one work-item, and flat regblock's scattered stores.
static double scalar_cost_per_fma(xconv_direct_kind kind, const xconv_device_info *info,
                                  const xconv_problem *p, const xconv_direct_tiling *t)
{
    int64_t Q = xconv_problem_out_w(p);
    int cg = (int)(p->c / p->groups);
    double fmas = fmas_per_channel(p, t);
    double rows = input_extent(t->block_h, p->stride_h, p->r, p->dil_h);
    // Consecutive columns share inputs: the compiler loads each distinct one once.
    bool consecutive = t->flat || t->strip;
    double in_loads = rows * (consecutive ? input_extent(t->block_w, p->stride_w, p->s, p->dil_w)
                                          : (double)p->s * t->block_w);
    if (t->flat && !info->is_cpu)
        in_loads *= FLAT_INPUT_LOAD_COST;
    if (kind == XCONV_DIRECT_REGBLOCK && flat_rows_paired(p, t))
        in_loads /= 2;  // one load per two columns
    // direct_const's flat plans and its unrolled channel loop are only forced
    // (XCONV_DIRECT_PLAN): on the H100 they did not beat the searched plans.
    double filter_weight = info->is_cpu ? 1.0 : kind == XCONV_DIRECT_CONST ? 0.25 : 0.5;
    // regblock's staged filters are consecutive in k and 16-byte aligned: on GPUs, groups of 4
    // (or 2) are one load.
    int stage_k = staged_k(kind, p, t);
    int vector = kind != XCONV_DIRECT_REGBLOCK || info->is_cpu ? 1
                 : stage_k % 4 == 0                             ? 4
                 : stage_k % 2 == 0                             ? 2
                                                                : 1;
    double f_loads = (double)t->block_k * p->r * p->s * filter_weight / vector;
    double per_fma = 1.0 + (in_loads + f_loads) / fmas;
    if (t->flat && kind == XCONV_DIRECT_REGBLOCK && !info->is_cpu) {
        // Rows of even width that tile the output row are stored as float4 or float2 pieces
        // (XD_STORE_VEC): a warp's store then spreads over block_w / piece as many sectors.
        bool vector_store = t->block_w % 2 == 0 && Q % t->block_w == 0;
        double piece = t->block_w % 4 == 0 ? 4.0 : 2.0;
        double spread = vector_store ? t->block_w / piece : fmin(t->block_w, 8.0);
        per_fma += spread * FLAT_STORE_COST / ((double)cg * p->r * p->s);
    }
    return per_fma;
}

// Relative cost per multiply-add of vector-column plans: per tap and channel, block_k x block_h
// vector multiply-adds, block_h vector loads (lane by lane where the window crosses an edge) and
// the loop's overhead.
static double vector_cost_per_fma(const xconv_problem *p, const xconv_direct_tiling *t)
{
    double taps = vec_edge_taps(p, t->vec_q);
    double vfmas = (double)t->block_k * t->block_h;
    double cost = vfmas + VEC_TAP_OVERHEAD +
                  t->block_h * (1 + taps * (VEC_LANE_LOAD_COST * t->vec_q - 1));
    return cost / (vfmas * t->vec_q);
}

// Relative time of candidate t (lower is better): wasted outputs, loads per multiply-add,
// staging and barriers, work-group rounding and parallelism.
static double model_cost(xconv_direct_kind kind, const xconv_device_info *info,
                         const xconv_problem *p, const xconv_direct_tiling *t)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p), kg = p->k / p->groups;
    int cg = (int)(p->c / p->groups);
    int tile_h = t->flat ? t->block_h : t->wg_h * t->block_h;
    int tile_w = t->flat ? t->block_w : t->wg_w * t->block_w;
    double waste = (double)ceil_div(P, tile_h) * tile_h * ceil_div(Q, tile_w) * tile_w /
                   ((double)P * Q) * (double)ceil_div(kg, t->block_k) * t->block_k / kg *
                   (double)ceil_div(cg, t->chunk_c) * t->chunk_c / cg;
    double per_fma = t->vec_q ? vector_cost_per_fma(p, t)
                              : scalar_cost_per_fma(kind, info, p, t);

    // Staging into local memory, per channel, spread over the work-group.
    double wg = (double)t->wg_w * t->wg_h;
    double stage = 0;
    if (kind == XCONV_DIRECT_TILED || kind == XCONV_DIRECT_TILED_DB)
        stage = (double)t->in_tile_h * t->in_tile_w / wg * STAGE_LOAD_COST;
    else if (kind == XCONV_DIRECT_REGBLOCK)
        stage = (double)staged_k(kind, p, t) * p->r * p->s / wg * STAGE_LOAD_COST;
    int barriers = kind == XCONV_DIRECT_TILED_DB ? 1 : kind == XCONV_DIRECT_CONST ? 0 : 2;
    stage += barriers * BARRIER_COST / t->chunk_c;
    stage /= t->repeat;  // staged once for all of a flat work-item's blocks
    per_fma += stage / fmas_per_channel(p, t);

    // Neighbouring work-items along q read neighbouring addresses: fewer than 8 of them waste
    // most of each memory transaction (GPUs) or vector (CPUs, where PoCL vectorizes along q).
    // Flat regblock: a row's work-items read one run of consecutive inputs between them.
    int along_q = !t->flat                         ? t->wg_w
                  : kind == XCONV_DIRECT_REGBLOCK ? (int)fmin(t->wg_w, ceil_div(Q, t->block_w)) *
                                                        t->block_w
                                                  : (int)fmin(t->wg_w, ceil_div(Q, t->block_w));
    if (!t->vec_q)  // vector items hold their own lanes
        per_fma *= 1.0 + 2.0 / along_q;

    // Work-groups rounded up to the device's preferred multiple, and too little parallelism.
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    double wg_eff = t->vec_q ? 1.0 : wg / (double)xconv_round_up((size_t)wg, multiple);
    double groups = (double)t->work_groups;
    double cus = info->compute_units > 0 ? info->compute_units : 1;
    double par = info->is_cpu ? fmin(1.0, groups / (4 * cus))
                              : fmin(1.0, groups * wg / (cus * 1024.0)) *
                                    fmin(1.0, groups / (2 * cus));
    // Past half the local memory a GPU holds one work-group per compute unit.
    // Small work-groups leave a GPU's units short of threads (they hold a bounded number of
    // work-groups each).
    double occupancy = !info->is_cpu && t->local_mem_bytes * 2 > info->local_mem_bytes ? 1.3 : 1.0;
    if (!info->is_cpu && wg < 4.0 * (double)multiple)
        occupancy *= 1.0 + (4.0 * (double)multiple - wg) / (16.0 * (double)multiple);
    double cost = waste * per_fma * occupancy / (wg_eff * fmax(par, 1e-3));
    if (info->is_cpu) {
        // Each thread a launch engages (one per work-group, up to one per compute unit) costs
        // THREAD_WAKE_COST against the launch's own work shared by cus threads: tiny problems
        // run faster on fewer work-groups.
        cost += THREAD_WAKE_COST * fmin(groups, cus) * cus / (xconv_problem_flops(p) / 2);
    }
    return cost;
}

// ---------------------------------------------------------------------------------------------
// The search

// Tiles of t over the whole problem (n, channel group, k-block, tile row, tile column): the
// work-groups of a tiled plan, the work-items' blocks of a flat one.
static int64_t tile_count(const xconv_problem *p, const xconv_direct_tiling *t)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p), kg = p->k / p->groups;
    int tile_h = t->flat ? t->block_h : t->wg_h * t->block_h;
    int tile_w = t->flat ? t->block_w : t->wg_w * t->block_w;
    return (int64_t)ceil_div(P, tile_h) * ceil_div(Q, tile_w) * p->groups *
           ceil_div(kg, t->block_k) * p->n;
}

// Fills the derived fields of candidate t and returns true when it fits the device.
static bool candidate_fits(xconv_direct_kind kind, const xconv_device_info *info,
                           const xconv_problem *p, xconv_direct_tiling *t)
{
    int64_t kg = p->k / p->groups;
    // Sizes inside the problem and the device's work-group limits.
    size_t max_wg = info->max_work_group_size ? info->max_work_group_size : 1;
    if (t->wg_w < 1 || t->wg_h < 1 || t->block_w < 1 || t->block_h < 1 || t->block_k < 1 ||
        t->block_k > kg || (size_t)t->wg_w * t->wg_h > max_wg ||
        (size_t)t->wg_w > info->max_work_item_sizes[0] ||
        (size_t)t->wg_h > info->max_work_item_sizes[1])
        return false;
    if (t->repeat < 1)
        t->repeat = 1;
    // Vector columns: direct_const's tiled items with consecutive columns, OpenCL C only, fp32
    // storage only (its vector loads and stores are float vectors).
    if (t->vec_q && (kind != XCONV_DIRECT_CONST || t->flat || !t->strip ||
                     p->dtype != XCONV_DTYPE_F32 ||
                     t->block_w != t->vec_q || info->backend != XCONV_BACKEND_OPENCL))
        return false;
    if (t->repeat > 1 && (!t->flat || kind != XCONV_DIRECT_REGBLOCK))
        return false;  // only flat regblock work-items take several blocks
    // A fused pool: each block whole windows, its columns consecutive when windows are wider.
    if (t->pool_h && (t->block_h % t->pool_h || t->block_w % t->pool_w ||
                      (t->pool_w > 1 && !t->strip && !t->flat)))
        return false;
    // Flat: 1-D work-groups (regblock stages every output channel's filters).
    if (t->flat && ((kind != XCONV_DIRECT_CONST && kind != XCONV_DIRECT_REGBLOCK) ||
                    t->wg_h != 1))
        return false;
    int tile_h = t->flat ? t->block_h : t->wg_h * t->block_h;
    int tile_w = t->flat ? t->block_w : t->wg_w * t->block_w;
    bool tiled = kind == XCONV_DIRECT_TILED || kind == XCONV_DIRECT_TILED_DB;
    t->in_tile_h = tiled ? input_extent(tile_h, p->stride_h, p->r, p->dil_h) : 0;
    t->in_tile_w = tiled ? input_extent(tile_w, p->stride_w, p->s, p->dil_w) : 0;
    t->chunk_c = pick_chunk(kind, info, p, t);
    if (t->chunk_c == 0)
        return false;
    int64_t unrolled = (int64_t)t->block_k * t->block_h * t->block_w * p->r * p->s;
    if (kind == XCONV_DIRECT_CONST &&
        (unrolled > UNROLL_MAX || (t->unroll_c && unrolled * t->chunk_c > UNROLL_MAX)))
        return false;
    t->local_mem_bytes = local_bytes(kind, p, t);
    int64_t groups = tile_count(p, t);
    if (groups > XCONV_MAX_INDEX || (t->flat && groups * t->wg_w > XCONV_MAX_INDEX))
        return false;
    if (t->flat)
        groups = ceil_div(groups, (int64_t)t->wg_w * t->repeat);
    t->work_groups = (size_t)groups;
    t->cost = model_cost(kind, info, p, t);
    return true;
}

// A search's state: the best candidate so far and, when top is not NULL, the `cap` cheapest
// distinct ones, cheapest first (for tuning).
typedef struct direct_search {
    xconv_direct_tiling best;
    bool found;
    xconv_direct_tiling *top;
    int ntop, cap;
} direct_search;

// Whether a and b are the same tiling (their searched fields).
static bool same_tiling(const xconv_direct_tiling *a, const xconv_direct_tiling *b)
{
    return a->wg_w == b->wg_w && a->wg_h == b->wg_h && a->block_w == b->block_w &&
           a->block_h == b->block_h && a->block_k == b->block_k && a->strip == b->strip &&
           a->flat == b->flat && a->unroll_c == b->unroll_c && a->repeat == b->repeat &&
           a->vec_q == b->vec_q;
}

// Inserts fitted candidate t into s's list of the cheapest, when it has one.
static void keep_top(direct_search *s, const xconv_direct_tiling *t)
{
    if (!s->top || s->cap < 1)
        return;
    for (int i = 0; i < s->ntop; i++)
        if (same_tiling(&s->top[i], t))
            return;
    int at = s->ntop;
    while (at > 0 && t->cost < s->top[at - 1].cost)
        at--;
    if (at >= s->cap)
        return;
    int last = s->ntop < s->cap ? s->ntop : s->cap - 1;
    memmove(&s->top[at + 1], &s->top[at], (size_t)(last - at) * sizeof *t);
    s->top[at] = *t;
    if (s->ntop < s->cap)
        s->ntop++;
}

// Keeps candidate t as s's best when it fits and costs less (ties: the larger work-group, then
// the larger block).
static void consider(xconv_direct_kind kind, const xconv_device_info *info,
                     const xconv_problem *p, xconv_direct_tiling t, direct_search *s)
{
    if (!candidate_fits(kind, info, p, &t))
        return;
    keep_top(s, &t);
    const xconv_direct_tiling *best = &s->best;
    size_t size = (size_t)t.wg_w * t.wg_h * t.block_k * t.block_h * t.block_w;
    size_t best_size = s->found ? (size_t)best->wg_w * best->wg_h * best->block_k *
                                      best->block_h * best->block_w
                                : 0;
    if (!s->found || t.cost < best->cost * (1 - 1e-9) ||
        (t.cost <= best->cost * (1 + 1e-9) && size > best_size))
        s->best = t;
    s->found = true;
}

// Returns XCONV_ERR_NOT_APPLICABLE with the limit that even the smallest tiling of `kind` (one
// output of one channel per work-item, one input channel per chunk, work-groups of one) passes:
// the unrolled loop's size, then local memory, else the work-group and 32-bit index limits.
static xconv_status no_tiling(xconv_direct_kind kind, const xconv_device_info *info,
                              const xconv_problem *p, xconv_error *err)
{
    const char *name = xconv_direct_kind_name(kind);
    if (p->r * p->s > UNROLL_MAX)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "%s: a %lldx%lld filter passes the unroll limit (%lld "
                               "multiply-adds per channel; at most %d)",
                               name, (long long)p->r, (long long)p->s,
                               (long long)(p->r * p->s), UNROLL_MAX);
    bool tiled = kind == XCONV_DIRECT_TILED || kind == XCONV_DIRECT_TILED_DB;
    xconv_direct_tiling t = {.wg_w = 1, .wg_h = 1, .block_w = 1, .block_h = 1, .block_k = 1,
                             .chunk_c = 1};
    t.in_tile_h = tiled ? input_extent(1, p->stride_h, p->r, p->dil_h) : 0;
    t.in_tile_w = tiled ? input_extent(1, p->stride_w, p->s, p->dil_w) : 0;
    size_t bytes = local_bytes(kind, p, &t);
    if (bytes > info->local_mem_bytes)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "%s: no tiling fits %llu bytes of local memory (one output of one "
                               "channel stages %zu)",
                               name, (unsigned long long)info->local_mem_bytes, bytes);
    return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                           "%s: no tiling keeps the launch within work-groups of %zu items and "
                           "32-bit indices",
                           name, info->max_work_group_size);
}

// Returns the tiling forced (NULL: none) gives as a tiling to check and launch.
static xconv_direct_tiling forced_tiling(const xconv_forced_direct_tiling *f)
{
    return (xconv_direct_tiling){.wg_w = f->wg_w, .wg_h = f->wg_h, .block_w = f->block_w,
                                 .block_h = f->block_h, .block_k = f->block_k,
                                 .strip = f->strip, .flat = f->flat, .unroll_c = f->unroll_c,
                                 .repeat = f->repeat, .vec_q = f->vec_q, .forced = true};
}

// Runs the search of `kind`'s tilings for p on info's device into *s, for blocks that hold
// whole pool windows of pool_h x pool_w (0: no pool): it also tries consecutive columns (and
// flat regblock blocks of pool_h rows) then.
static void search(xconv_direct_kind kind, const xconv_device_info *info, const xconv_problem *p,
                   int pool_h, int pool_w, direct_search *s)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p), kg = p->k / p->groups;
    int acc_max = info->is_cpu ? ACC_MAX_CPU : ACC_MAX_GPU;
    // Work-group sides: powers of two, and (index COUNT(wg_sizes)) the one that covers the
    // output exactly with the block size at hand.
    for (int a = 0; a <= COUNT(wg_sizes); a++)
        for (int b = 0; b <= COUNT(wg_sizes); b++)
            for (int bw = 0; bw < COUNT(block_sizes); bw++)
                for (int bh = 0; bh < COUNT(block_sizes); bh++)
                    for (int bk = 1; bk <= kg && bk <= acc_max; bk++) {
                        int exact_w = ceil_div(Q, block_sizes[bw]);
                        int exact_h = ceil_div(P, block_sizes[bh]);
                        if ((a == COUNT(wg_sizes) && exact_w > wg_sizes[COUNT(wg_sizes) - 1]) ||
                            (b == COUNT(wg_sizes) && exact_h > wg_sizes[COUNT(wg_sizes) - 1]))
                            continue;
                        xconv_direct_tiling t = {
                            .wg_w = a < COUNT(wg_sizes) ? wg_sizes[a] : exact_w,
                            .wg_h = b < COUNT(wg_sizes) ? wg_sizes[b] : exact_h,
                            .block_w = block_sizes[bw], .block_h = block_sizes[bh],
                            .block_k = bk, .pool_h = pool_h, .pool_w = pool_w};
                        if (bk * t.block_h * t.block_w > acc_max)
                            continue;
                        // No work-group wider or taller than the output it covers.
                        if ((t.wg_w > 1 && (int64_t)(t.wg_w / 2) * t.block_w >= Q) ||
                            (t.wg_h > 1 && (int64_t)(t.wg_h / 2) * t.block_h >= P))
                            continue;
                        consider(kind, info, p, t, s);
                        // Pooled windows wider than a column need consecutive columns.
                        t.strip = 1;
                        if (pool_w > 1 && t.block_w > 1)
                            consider(kind, info, p, t, s);
                    }
    // Vector columns on CPUs (direct_const): items of vec_q (4 or 8) consecutive columns, one
    // column of up to VEC_WG_H_MAX items per work-group (wider ones let PoCL vectorize across
    // items over our vectors; taller ones ran slower), or of all the block rows of an image
    // where that leaves fewer work-groups than compute units (tiny problems: each thread a
    // launch wakes costs more than the work it takes, model_cost). Since each FMA's filter
    // operand is a constant offset, they beat the scalar plans even where every tap loads lane
    // by lane (stride 4: alex11x11s4 17 ms against 40 ms on one thread), so every shape gets
    // them; the narrower vector wins where the wider one's windows cross the row's edges more
    // often.
    int cus = info->compute_units > 0 ? (int)info->compute_units : 1;
    for (int vec_q = 4; kind == XCONV_DIRECT_CONST && info->is_cpu && vec_q <= VEC_Q_MAX &&
                        vec_q <= info->native_float_width;
         vec_q *= 2)
        for (int b = 0; b <= COUNT(wg_sizes); b++)  // the last: a whole image's block rows
            for (int bh = 1; bh <= 2; bh++)
                for (int bk = 1; bk <= kg && bk * bh <= VEC_ACC_MAX; bk++) {
                    int64_t rows = ceil_div(P, bh);  // block rows of an image
                    bool whole = b == COUNT(wg_sizes);
                    xconv_direct_tiling t = {.wg_w = 1, .wg_h = whole ? (int)rows : wg_sizes[b],
                                             .block_w = vec_q, .block_h = bh, .block_k = bk,
                                             .strip = 1, .vec_q = vec_q, .pool_h = pool_h,
                                             .pool_w = pool_w};
                    if (whole ? rows <= VEC_WG_H_MAX || tile_count(p, &t) >= cus
                              : t.wg_h > VEC_WG_H_MAX)
                        continue;  // whole-image columns only for tiny problems
                    if (t.wg_h > 1 && (int64_t)(t.wg_h / 2) * bh >= P)
                        continue;  // no work-group taller than the output
                    consider(kind, info, p, t, s);
                }
    // Flat regblock on GPUs: work-groups of 1, 2 or 4 times the preferred multiple, blocks of
    // up to K/groups channels by one row by up to FLAT_BLOCK_W_MAX columns, 1 or 2 blocks per
    // work-item.
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    for (size_t wg = multiple; kind == XCONV_DIRECT_REGBLOCK && !info->is_cpu &&
                               wg <= 4 * multiple;
         wg *= 2)
        for (int bk = 1; bk <= kg; bk++)
            for (int bw = 1; bw <= FLAT_BLOCK_W_MAX && bw <= Q; bw++)
                for (int repeat = 1; repeat <= 2 && bk * bw <= ACC_MAX_FLAT; repeat++)
                    for (int rows = 0; rows < (pool_h > 1 ? 2 : 1); rows++) {
                        // Blocks are one row, or a pool's window of rows.
                        xconv_direct_tiling t = {.wg_w = (int)wg, .wg_h = 1, .block_w = bw,
                                                 .block_h = rows ? pool_h : 1, .block_k = bk,
                                                 .strip = 1,
                                                 .flat = 1, .repeat = repeat, .pool_h = pool_h,
                                                 .pool_w = pool_w};
                        if (bk * bw * t.block_h <= ACC_MAX_FLAT)
                            consider(kind, info, p, t, s);
                    }
}

// xconv_direct_choose for blocks that hold whole pool windows of pool_h x pool_w (0: no pool).
static xconv_status choose(const xconv_device_info *info, const xconv_problem *p,
                           xconv_direct_kind kind, const xconv_forced_direct_tiling *forced,
                           int pool_h, int pool_w, xconv_direct_tiling *best, xconv_error *err)
{
    int64_t kg = p->k / p->groups;
    if (forced) {
        *best = forced_tiling(forced);
        best->pool_h = pool_h, best->pool_w = pool_w;
        if (best->block_k == 0)  // 0: every output channel of a group
            best->block_k = (int)kg;
        // Flags 0 or 1 and a bounded repeat; candidate_fits checks sizes and device limits.
        bool in_range = (best->strip | best->flat | best->unroll_c) <= 1 && best->strip >= 0 &&
                        best->flat >= 0 && best->unroll_c >= 0 && best->repeat >= 0 &&
                        best->repeat <= 64 && valid_vec_q(best->vec_q);
        if (in_range && candidate_fits(kind, info, p, best))
            return XCONV_OK;
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: the forced tiling does not fit",
                               xconv_direct_kind_name(kind));
    }
    direct_search s = {.found = false};
    search(kind, info, p, pool_h, pool_w, &s);
    if (!s.found)
        return no_tiling(kind, info, p, err);
    *best = s.best;
    return XCONV_OK;
}

xconv_status xconv_direct_choose(const xconv_device_info *info, const xconv_problem *p,
                                 xconv_direct_kind kind, const xconv_forced_direct_tiling *forced,
                                 xconv_direct_tiling *best, xconv_error *err)
{
    return choose(info, p, kind, forced, 0, 0, best, err);
}

int xconv_direct_tiling_format(xconv_direct_kind kind, const xconv_direct_tiling *t, char *buf,
                               size_t len)
{
    return snprintf(buf, len, "%s:%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", xconv_direct_kind_name(kind),
                    t->wg_w, t->wg_h, t->block_w, t->block_h, t->block_k, t->strip, t->flat,
                    t->unroll_c, t->repeat, t->vec_q);
}

int xconv_direct_candidates(const xconv_device_info *info, const xconv_problem *p,
                            xconv_direct_kind kind, xconv_direct_tiling *out, int max)
{
    if (max < 1)
        return 0;
    direct_search s = {.top = out + 1, .cap = max - 1};
    search(kind, info, p, 0, 0, &s);
    if (!s.found)
        return 0;
    out[0] = s.best;  // the planner's own choice first, then the cheapest others
    int n = 1;
    for (int i = 0; i < s.ntop; i++)
        if (!same_tiling(&s.top[i], &s.best))
            out[n++] = s.top[i];
    return n;
}

// ---------------------------------------------------------------------------------------------
// The plan

// Adds the tiling's defines (common/xconv_direct_params.h) to step; returns the first failure.
static xconv_status define_tiling(xconv_step *step, const xconv_direct_tiling *t,
                                  xconv_error *err)
{
    xconv_status st = XCONV_OK;
    XCONV_DIRECT_DEFINES(XCONV_STEP_DEFINE_ROW)
    return st;
}

// Writes the plan's summary line for tiling t of `kind`.
static void summarize(xconv_direct_kind kind, const xconv_direct_tiling *t, xconv_plan *plan)
{
    char line[sizeof plan->summary];
    int n = t->flat ? snprintf(line, sizeof line,
                               "flat work-groups of %d items, each item %d x (%d channels x "
                               "%dx%d outputs)%s",
                               t->wg_w, t->repeat, t->block_k, t->block_h,
                               t->block_w, t->unroll_c ? ", channel loop unrolled" : "")
                    : snprintf(line, sizeof line,
                               "work-groups of %dx%d items, each item %d channels x %dx%d "
                               "outputs%s; tile %dx%d outputs%s",
                               t->wg_w, t->wg_h, t->block_k, t->block_h, t->block_w,
                               t->vec_q ? " (columns as one vector)" : "",
                               t->wg_h * t->block_h, t->wg_w * t->block_w,
                               t->unroll_c ? ", channel loop unrolled" : "");
    size_t left = sizeof line - (size_t)n;
    if (kind == XCONV_DIRECT_TILED || kind == XCONV_DIRECT_TILED_DB)
        n += snprintf(line + n, left,
                      " from a %dx%d input tile x %d channels%s in local memory; %zu work-groups",
                      t->in_tile_h, t->in_tile_w, t->chunk_c,
                      kind == XCONV_DIRECT_TILED_DB ? " (x2 buffers)" : "", t->work_groups);
    else if (kind == XCONV_DIRECT_REGBLOCK && t->flat)
        n += snprintf(line + n, left, "; all filters staged at once; %zu work-groups",
                      t->work_groups);
    else if (kind == XCONV_DIRECT_REGBLOCK)
        n += snprintf(line + n, left, "; filters staged %d channels at a time; %zu work-groups",
                      t->chunk_c, t->work_groups);
    else
        n += snprintf(line + n, left, "; filters in constant memory; %zu work-groups",
                      t->work_groups);
    xconv_plan_summarize(plan, "%s%s", line, t->forced ? " (forced tiling)" : "");
}

// Returns why the direct kernels cannot pool p's windows in their store (NULL when they can
// where a tiling gives each work-item whole windows).
static const char *pool_refusal(const xconv_problem *p)
{
    const xconv_epilogue *e = &p->epi;
    if (e->pool_stride_h < e->pool_h || e->pool_stride_w < e->pool_w)
        return "pool windows overlap: a work-item would need its neighbours' outputs";
    if (e->pool_stride_h != e->pool_h || e->pool_stride_w != e->pool_w)
        return "pool windows skip outputs: blocks cannot tile them";
    if (e->pool_pad_h || e->pool_pad_w)
        return "padded pool windows straddle the blocks";
    return NULL;
}

// Chooses the tiling of `kind` for p into *t: one whose blocks hold whole pool windows when p
// pools and the kernels can, else the plain search with the reason in plan->epi_note.
static xconv_status choose_for_epilogue(const xconv_device_info *info, const xconv_problem *p,
                                        xconv_direct_kind kind,
                                        const xconv_forced_direct_tiling *forced,
                                        xconv_plan *plan, xconv_direct_tiling *t,
                                        xconv_error *err)
{
    const char *why = p->epi.pool_h ? pool_refusal(p) : NULL;
    if (p->epi.pool_h && !why) {
        xconv_error pooled_err = {0};
        xconv_status st = choose(info, p, kind, forced, (int)p->epi.pool_h, (int)p->epi.pool_w,
                                 t, &pooled_err);
        if (st == XCONV_OK)
            return st;
        why = forced ? "the forced tiling does not hold whole pool windows"
                  : "no tiling of this kind holds whole pool windows";
    }
    if (why)
        snprintf(plan->epi_note, sizeof plan->epi_note, "%s", why);
    return choose(info, p, kind, forced, 0, 0, t, err);
}

xconv_status xconv_direct_plan(const xconv_device_info *info, const xconv_problem *p,
                               xconv_direct_kind kind, const xconv_plan_options *opts,
                               xconv_plan *plan, xconv_error *err)
{
    xconv_direct_tiling t;
    xconv_status st = choose_for_epilogue(
        info, p, kind, xconv_plan_options_direct(opts, xconv_direct_kernel_of(kind)), plan, &t,
        err);
    if (st != XCONV_OK)
        return st;
    const char *name = xconv_direct_kind_name(kind);
    xconv_step *step = xconv_plan_add_step(plan, name, name, name);
    if (!step)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    st = xconv_step_define_problem(step, p, err);
    if (st == XCONV_OK)
        st = define_tiling(step, &t, err);
    if (st != XCONV_OK)
        return st;
    xconv_step_set_2d(step, t.work_groups * (size_t)t.wg_w, (size_t)t.wg_h, (size_t)t.wg_w,
                      (size_t)t.wg_h);
    step->local_mem_bytes = t.local_mem_bytes;
    xconv_step_arg_buffer(step, XCONV_REF_X);
    if (kind == XCONV_DIRECT_CONST)
        xconv_step_arg_constant(step, XCONV_REF_W, -1,
                                (size_t)xconv_problem_w_elems(p) * xconv_problem_elem_bytes(p),
                                "xd_filter");
    else
        xconv_step_arg_buffer(step, XCONV_REF_W);
    xconv_step_arg_buffer(step, XCONV_REF_Y);
    summarize(kind, &t, plan);
    // The bias and activation always; the pool when the tiling holds its windows.
    return xconv_step_fuse_epilogue(step, p, XCONV_FUSED_BIAS_ACT |
                                                 (t.pool_h ? XCONV_FUSED_POOL : 0u),
                                    plan, err);
}

xconv_status xconv_direct_plan_variant(const xconv_device *dev, const xconv_problem *p,
                                       const xconv_plan_options *opts, xconv_plan *plan,
                                       xconv_error *err)
{
    return xconv_direct_plan(&dev->info, p, (xconv_direct_kind)plan->variant->kind, opts, plan,
                             err);
}
