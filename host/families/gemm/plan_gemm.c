// SPDX-License-Identifier: MIT
// The GEMM planner's choice: candidate tiles for cl/sgemm.cl, the tiles and split-K that fit a
// device and a product, and the tuning space (gemm_step.c builds the steps from them).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_epilogue.h"
#include "families/gemm/plan_gemm.h"
#include "xconv_gemm_params.h"

// ---------------------------------------------------------------------------------------------
// Candidate tiles

// {tile_m, tile_n, tile_k, wpt_m, wpt_n, vw, pad}, best first: ties in the score keep the
// earlier one. GPUs: 2-D register blocking of 8x8 (64 accumulators) on 16x16 or 8x16 work-items
// for the big products, smaller blocks for narrow M (few filters) and for small products that
// would leave compute units idle. With 8x8 blocks a k step of 8 ran faster than 16 on an H100
// (fewer registers held for the next step's loads), so it comes first.
static const xconv_gemm_tiles gpu_tiles[] = {
    {128, 128, 8, 8, 8, 4, 4},  {64, 128, 8, 8, 8, 4, 4},  {128, 64, 8, 8, 8, 4, 4},
    {128, 128, 16, 8, 8, 4, 4}, {64, 128, 16, 8, 8, 4, 4}, {128, 64, 16, 8, 8, 4, 4},
    {64, 64, 16, 4, 4, 4, 4},   {32, 128, 16, 4, 8, 4, 4}, {32, 64, 16, 4, 4, 4, 4},
    {16, 128, 16, 4, 8, 4, 4},  {16, 64, 16, 4, 4, 4, 4},  {32, 32, 8, 4, 4, 4, 4},
    {16, 16, 8, 4, 4, 4, 4},
};

// Products with fewer tiles than compute units also try these (with a split of K): smaller
// blocks with their own register blocking, so more work-groups share the output.
static const xconv_gemm_tiles small_tiles[] = {
    {64, 64, 8, 8, 4, 4, 4}, {64, 32, 16, 4, 4, 4, 4}, {32, 64, 8, 4, 8, 4, 4},
};

// CPUs: a work-group runs on one core as a loop over its work-items, which the compiler
// vectorizes along dimension 0; 8 columns per work-item (two float4 fragment reads) ran about
// twice as fast as 4 under PoCL on a 2-core EPYC, and blocks stay small enough for L1/L2.
static const xconv_gemm_tiles cpu_tiles[] = {
    {32, 64, 16, 4, 8, 4, 4}, {32, 128, 16, 4, 8, 4, 4}, {64, 64, 16, 4, 8, 4, 4},
    {64, 128, 16, 8, 8, 4, 4}, {16, 64, 16, 4, 8, 4, 4}, {32, 32, 16, 4, 4, 4, 4},
    {16, 32, 16, 4, 4, 4, 4}, {16, 16, 8, 4, 4, 4, 4},
};

size_t xconv_gemm_threads(const xconv_gemm_tiles *t)
{
    return (size_t)(t->tile_m / t->wpt_m) * (size_t)(t->tile_n / t->wpt_n);
}

size_t xconv_gemm_local_bytes(const xconv_gemm_tiles *t)
{
    size_t floats = 2 * (size_t)t->tile_k * (size_t)(t->tile_m + t->pad + t->tile_n + t->pad);
    return (floats + 3) / 4 * 4 * sizeof(float);
}

bool xconv_gemm_tiles_fit(const xconv_device_info *info, const xconv_gemm_tiles *t,
                          xconv_gemm_mode mode, int vec_b, char *why, size_t len)
{
    if (t->tile_m <= 0 || t->tile_n <= 0 || t->tile_k <= 0 || t->wpt_m <= 0 || t->wpt_n <= 0 ||
        (t->vw != 1 && t->vw != 4) || t->pad < 0)
        return snprintf(why, len, "tile sizes must be positive and vw 1 or 4"), false;
    if (t->tile_m % t->wpt_m || t->tile_n % t->wpt_n || t->wpt_m % t->vw || t->wpt_n % t->vw ||
        t->pad % t->vw || t->tile_k % 4)
        return snprintf(why, len, "tiles must be multiples of the work per item, work per item "
                                  "and pad multiples of vw, tile_k a multiple of 4"), false;
    size_t threads = xconv_gemm_threads(t), tn = (size_t)(t->tile_n / t->wpt_n);
    size_t tm = (size_t)(t->tile_m / t->wpt_m);
    if (threads > info->max_work_group_size ||
        (info->max_work_item_sizes[0] && tn > info->max_work_item_sizes[0]) ||
        (info->max_work_item_sizes[1] && tm > info->max_work_item_sizes[1]))
        return snprintf(why, len, "%zux%zu work-items pass the device's work-group limits",
                        tn, tm), false;
    if (xconv_gemm_local_bytes(t) > info->local_mem_bytes)
        return snprintf(why, len, "%zu bytes of local memory pass the device's %llu",
                        xconv_gemm_local_bytes(t), (unsigned long long)info->local_mem_bytes),
               false;
    // A loads are float4s or floats along k: whole float4 rounds must cover the tile. B loads
    // keep one column per work-item: whole rows of the tile per round.
    size_t a_loads = (size_t)t->tile_m * (size_t)t->tile_k / 4;
    size_t b_vecs = (size_t)(t->tile_n / (mode == XCONV_GEMM_B_MEMORY ? vec_b : 1));
    if (a_loads % threads || threads % b_vecs || (size_t)t->tile_k % (threads / b_vecs))
        return snprintf(why, len, "the A and B tiles do not split evenly over %zu work-items",
                        threads), false;
    if (mode == XCONV_GEMM_B_TABLE && ((size_t)t->tile_k * (size_t)t->tile_n / threads) % 4)
        return snprintf(why, len, "table reads need B loads per work-item in fours"), false;
    return true;
}

int64_t xconv_gemm_tile_registers(const xconv_gemm_tiles *t, xconv_gemm_mode mode)
{
    int64_t threads = (int64_t)xconv_gemm_threads(t);
    int64_t a_loads = (int64_t)t->tile_m * t->tile_k / threads;
    int64_t b_loads = (int64_t)t->tile_k * t->tile_n / threads;
    return (int64_t)t->wpt_m * t->wpt_n + t->wpt_m + t->wpt_n + a_loads +
           (mode == XCONV_GEMM_B_MEMORY ? b_loads : 2 * b_loads);
}

bool xconv_gemm_roll_steps(const xconv_device_info *info, const xconv_gemm_tiles *t,
                           xconv_gemm_mode mode, int64_t steps)
{
    int64_t threads = (int64_t)xconv_gemm_threads(t);
    int64_t b_loads = (int64_t)t->tile_k * t->tile_n / threads;
    int64_t loads = (int64_t)t->tile_m * t->tile_k / threads +
                    (mode == XCONV_GEMM_B_MEMORY ? b_loads : 2 * b_loads);
    int64_t per_step = (int64_t)t->tile_k * (t->wpt_m + t->wpt_n) + loads;
    return steps > 1 &&
           !xconv_registers_fit(info, xconv_gemm_tile_registers(t, mode) + (steps - 1) * per_step);
}

// Fraction of a work-item's registers within which a candidate is at the register file's edge:
// there the vendors' schedulers decide whether it spills (dg2, 128 registers: the 8x8 blocks of
// 128x64x8, 64x128x8 and gathered 128x128x8 all count 92 values and 32 others; the first
// spilled 4 registers, the others none: bench/results/*-compile_vgg16.json).
#define REGISTERS_EDGE_FRACTION 16

// Returns true when t fits info's device for mode and vec_b and its registers with no margin.
static bool fits_plain(const xconv_device_info *info, const xconv_gemm_tiles *t,
                       xconv_gemm_mode mode, int vec_b)
{
    char why[256];
    return xconv_gemm_tiles_fit(info, t, mode, vec_b, why, sizeof why) &&
           xconv_registers_fit(info, xconv_gemm_tile_registers(t, mode));
}

// Returns the fewest values a work-item holds (xconv_gemm_tile_registers) among the GPU
// candidates (gpu_tiles and small_tiles) of t's block (WPT_M x WPT_N) that fit info's device
// for L, or INT64_MAX when none does.
static int64_t block_fewest_values(const xconv_device_info *info, const xconv_gemm_layout *L,
                                   const xconv_gemm_tiles *t);

// Returns true when candidate t fits info's device for L (xconv_gemm_tiles_fit) and its
// registers (xconv_gemm_tile_registers under xconv_registers_fit), else false with the reason
// in why. A candidate at the register file's edge (its values and the others within
// 1/REGISTERS_EDGE_FRACTION of the registers) is left out when a candidate of the same block
// holds fewer values: at the edge, the roomiest tiling of a block. Forced tiles skip the
// register rule: they may spill, and a user forcing them asks for exactly them.
static bool candidate_fits(const xconv_device_info *info, const xconv_gemm_layout *L,
                           const xconv_gemm_tiles *t, int vec_b, char *why, size_t len)
{
    if (!xconv_gemm_tiles_fit(info, t, L->mode, vec_b, why, len))
        return false;
    int64_t values = xconv_gemm_tile_registers(t, L->mode);
    int budget = info->max_registers_per_item;
    if (!xconv_registers_fit(info, values)) {
        snprintf(why, len, "%lld values a work-item and %d others pass the device's %d "
                 "registers a work-item", (long long)values, XCONV_REGISTERS_OTHER, budget);
        return false;
    }
    if (budget <= 0 || values + XCONV_REGISTERS_OTHER + budget / REGISTERS_EDGE_FRACTION <= budget)
        return true;
    int64_t fewest = block_fewest_values(info, L, t);
    if (values <= fewest)
        return true;
    snprintf(why, len, "%lld values a work-item and %d others are at the edge of the device's "
             "%d registers a work-item, where a tiling of the same %dx%d block holds %lld",
             (long long)values, XCONV_REGISTERS_OTHER, budget, t->wpt_m, t->wpt_n,
             (long long)fewest);
    return false;
}

// ---------------------------------------------------------------------------------------------
// Choosing

// A relative time for t on L: the busiest compute unit's tiles times each tile's padded work,
// over the tile's efficiency and over how well the work-groups resident on a compute unit fill
// it. On GPUs efficiency follows arithmetic intensity (a 128x128 tile's is 64 FLOP per loaded
// element) and a compute unit wants about 512 work-items; the exponent and constants were
// checked against a sweep of every candidate on the standard suite on an H100, where the
// choice landed within 3% of the best on average (git: docs/gemm_family.md). Where B's loads
// are cheap (read from memory, or gathered for a 1x1 filter), work-groups of more than
// GROUP_ITEMS_FULL work-items lose efficiency as the square root of the excess: each holds its
// items' accumulators at once, so fewer groups share a compute unit and a barrier stalls more
// of it (ncu on the H100: 138 registers a work-item of 8x8, one 256-item group a unit, 8
// warps; three 128-item groups, 12 warps). On the H100, 128x128 tiles of 256 items (8x8 each)
// ran 1.1-1.4x slower than 64x128 tiles of 128 items on every late ResNet-50 layer at batch
// 50, and on res1x1, in a sweep of tiles and splits forced through XCONV_GEMM_TILES (the
// planner's choice then came within 1.05x of the sweep's best on average, 1.25x before); where
// each B element costs a gather over several taps or a table read, 128x128's higher intensity
// won (dil3x3d2 1.22x, alex11x11s4 1.12x, implicit_precomp's 1x1 layers up to 1.25x slower
// with the term).
#define GROUP_ITEMS_FULL 128.0
static double tile_cost(const xconv_device_info *info, const xconv_gemm_layout *L,
                        const xconv_gemm_tiles *t)
{
    int64_t tiles = xconv_ceil_div(L->m, t->tile_m) * xconv_ceil_div(L->n, t->tile_n) * L->groups;
    int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    double per_unit = (double)xconv_ceil_div(tiles, units);
    double work =
        (double)t->tile_m * t->tile_n * (double)(xconv_ceil_div(L->k, t->tile_k) * t->tile_k);
    double intensity = (double)t->tile_m * t->tile_n / (t->tile_m + t->tile_n);
    double threads = (double)xconv_gemm_threads(t);
    double fill = 1.0;
    if (!info->is_cpu) {
        double resident = fmin(per_unit, fmax(1.0, floor(1024.0 / threads)));
        fill = fmin(1.0, resident * threads / 512.0);
    }
    double efficiency = pow(fmin(1.0, intensity / 64.0), 0.75);  // 64: a 128x128 tile's
    bool cheap_b = L->mode == XCONV_GEMM_B_MEMORY ||
                   (L->mode == XCONV_GEMM_B_GATHER && L->taps == 1);
    if (!info->is_cpu && cheap_b)
        efficiency *= sqrt(fmin(1.0, GROUP_ITEMS_FULL / threads));
    if (info->is_cpu)
        efficiency = t->wpt_n >= 8 ? 1.0 : 0.5;  // what counts on a CPU (see cpu_tiles)
    return per_unit * work / (efficiency * fill);
}

int xconv_gemm_b_vector(const xconv_gemm_layout *L, const xconv_gemm_tiles *t)
{
    return L->mode == XCONV_GEMM_B_MEMORY && L->ldb % 4 == 0 && L->seg % 4 == 0 &&
                   L->b_seg_stride % 4 == 0 && L->b_group_stride % 4 == 0 && t->pad % 4 == 0
               ? 4
               : 1;
}

static int64_t block_fewest_values(const xconv_device_info *info, const xconv_gemm_layout *L,
                                   const xconv_gemm_tiles *t)
{
    const xconv_gemm_tiles *lists[2] = {gpu_tiles, small_tiles};
    size_t counts[2] = {sizeof gpu_tiles / sizeof gpu_tiles[0],
                        sizeof small_tiles / sizeof small_tiles[0]};
    int64_t fewest = INT64_MAX;
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            const xconv_gemm_tiles *c = &lists[l][i];
            int64_t values = xconv_gemm_tile_registers(c, L->mode);
            if (c->wpt_m == t->wpt_m && c->wpt_n == t->wpt_n && values < fewest &&
                fits_plain(info, c, L->mode, xconv_gemm_b_vector(L, c)))
                fewest = values;
        }
    return fewest;
}

// Returns the tiles forced gives.
static xconv_gemm_tiles forced_tiles(const xconv_forced_gemm_tiles *f)
{
    return (xconv_gemm_tiles){f->tm, f->tn, f->tk, f->wm, f->wn, f->vw, f->pad};
}

xconv_status xconv_gemm_choose_tiles(const xconv_device_info *info, const xconv_gemm_layout *L,
                                     const xconv_forced_gemm_tiles *forced,
                                     xconv_gemm_tiles *out, xconv_error *err)
{
    char why[256];
    if (xconv_forced_gemm_tiles_set(forced)) {
        *out = forced_tiles(forced);
        int vec_b = xconv_gemm_b_vector(L, out);
        if (!xconv_gemm_tiles_fit(info, out, L->mode, vec_b, why, sizeof why)) {
            char text[96];
            xconv_gemm_tiles_format(out, text, sizeof text);
            return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                                   "the forced GEMM tiles %s do not fit: %s", text, why);
        }
        return XCONV_OK;
    }
    const xconv_gemm_tiles *list = info->is_cpu ? cpu_tiles : gpu_tiles;
    size_t count = info->is_cpu ? sizeof cpu_tiles / sizeof cpu_tiles[0]
                                : sizeof gpu_tiles / sizeof gpu_tiles[0];
    double best = INFINITY;
    for (size_t i = 0; i < count; i++) {
        if (!candidate_fits(info, L, &list[i], xconv_gemm_b_vector(L, &list[i]), why, sizeof why))
            continue;
        double cost = tile_cost(info, L, &list[i]);
        if (cost < best * 0.999) {
            best = cost;
            *out = list[i];
        }
    }
    if (best < INFINITY)
        return XCONV_OK;
    return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                           "no GEMM tiles fit the device's limits (work-group %zu, local "
                           "memory %llu bytes, %d registers a work-item; the last candidate: %s)",
                           info->max_work_group_size,
                           (unsigned long long)info->local_mem_bytes,
                           info->max_registers_per_item, why);
}

int xconv_gemm_tile_candidates(const xconv_device_info *info, xconv_gemm_tiles *out, int max)
{
    const struct {
        const xconv_gemm_tiles *list;
        size_t count;
    } lists[2] = {{cpu_tiles, sizeof cpu_tiles / sizeof cpu_tiles[0]},
                  {gpu_tiles, sizeof gpu_tiles / sizeof gpu_tiles[0]}};
    int n = 0;
    for (int l = 0; l < 2; l++) {
        int which = info->is_cpu ? l : 1 - l;  // the device's own kind first
        for (size_t i = 0; i < lists[which].count && n < max; i++) {
            const xconv_gemm_tiles *t = &lists[which].list[i];
            bool seen = false;
            for (int j = 0; j < n && !seen; j++)
                seen = memcmp(&out[j], t, sizeof *t) == 0;
            if (!seen)
                out[n++] = *t;
        }
    }
    return n;
}

int xconv_gemm_tiles_format(const xconv_gemm_tiles *t, char *buf, size_t len)
{
    return snprintf(buf, len, "%d,%d,%d,%d,%d,%d,%d", t->tile_m, t->tile_n, t->tile_k, t->wpt_m,
                    t->wpt_n, t->vw, t->pad);
}

// ---------------------------------------------------------------------------------------------
// Split-K

int xconv_gemm_split_normalize(const xconv_gemm_layout *L, const xconv_gemm_tiles *t, int parts)
{
    int64_t k_steps = xconv_ceil_div(L->k, t->tile_k);
    if (parts < 2 || k_steps < 2)
        return 1;
    if (parts > k_steps)
        parts = (int)k_steps;
    // slices of whole steps, none empty
    return (int)xconv_ceil_div(k_steps, xconv_ceil_div(k_steps, parts));
}

int64_t xconv_gemm_split_steps(const xconv_gemm_layout *L, const xconv_gemm_tiles *t)
{
    int64_t k_steps = xconv_ceil_div(L->k, t->tile_k);
    return L->split_k > 1 ? xconv_ceil_div(k_steps, L->split_k) : k_steps;
}

int64_t xconv_gemm_part_ld(const xconv_gemm_layout *L)
{
    return xconv_ceil_div(L->n, 4) * 4;
}

size_t xconv_gemm_split_bytes(const xconv_gemm_layout *L)
{
    if (L->split_k < 2)
        return 0;
    return (size_t)L->groups * (size_t)L->split_k * (size_t)L->m * (size_t)xconv_gemm_part_ld(L) *
           sizeof(float);
}

void xconv_gemm_summarize_split(xconv_plan *plan, const xconv_gemm_layout *L,
                                const xconv_gemm_tiles *t, bool epilogue)
{
    if (L->split_k > 1)
        xconv_plan_summarize(plan, "split-K: %d K slices of %lld steps (%.1f MiB of partials), "
                             "then a reduce in slice order%s", L->split_k,
                             (long long)xconv_gemm_split_steps(L, t),
                             xconv_gemm_split_bytes(L) / 1048576.0,
                             epilogue ? " that applies the epilogue" : "");
}

// Model constants of the split choice, in multiply-adds of one compute unit at full speed: what
// moving one float of the partials through memory costs (an FMA-to-bandwidth ratio typical of
// GPUs and CPUs alike; 80 rather than 32 since on the H100 res1x1 split 4 ways into 128x128
// tiles ran 10% slower than its unsplit 64x64 tiles, while the splits of ResNet-50's deep
// layers (bench/shapes/resnet50_b50_splitk.shapes), whose K is 2048 or more or whose tiles make
// 154 work-groups, ran 1.2-1.5x faster), and what one more launch costs (the reduce step).
#define SPLIT_FLOAT_COST 80.0
#define SPLIT_LAUNCH_COST 262144.0
// A slice keeps at least this many K steps, so the partials stay small beside the arithmetic.
#define SPLIT_MIN_STEPS 4

// A relative time for L with tiles t split into `parts` slices: the GEMM's as tile_cost counts
// it (the busiest compute unit's tiles of one slice's work) plus, when split, the partials'
// writes and reads and the reduce's launch.
static double split_cost(const xconv_device_info *info, const xconv_gemm_layout *L,
                         const xconv_gemm_tiles *t, int parts)
{
    xconv_gemm_layout S = *L;
    S.groups = L->groups * parts;                            // every slice is a work-group
    S.k = xconv_ceil_div(xconv_ceil_div(L->k, t->tile_k), parts) * t->tile_k;  // one slice's work
    double cost = tile_cost(info, &S, t);
    if (parts > 1) {
        int64_t units = info->compute_units > 0 ? info->compute_units : 1;
        double floats = (double)(2 * parts + 1) * (double)L->m * (double)L->n * (double)L->groups;
        cost += floats * SPLIT_FLOAT_COST / (double)units + SPLIT_LAUNCH_COST;
    }
    return cost;
}

// True when splitting L with tiles t may pay: its tiles do not fill one wave of the device,
// the work-groups every compute unit holds at once (one on a CPU core; on a GPU as many as fit
// tile_cost's 1024 resident work-items).
static bool underfilled(const xconv_device_info *info, const xconv_gemm_layout *L,
                        const xconv_gemm_tiles *t)
{
    int64_t tiles = xconv_ceil_div(L->m, t->tile_m) * xconv_ceil_div(L->n, t->tile_n) * L->groups;
    int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    int64_t resident = info->is_cpu ? 1 : 1024 / (int64_t)xconv_gemm_threads(t);
    return tiles < units * (resident > 1 ? resident : 1);
}

// The split of the planner's rule for L with tiles t: the cheapest by split_cost of 1 (unless
// only_split) and every split that leaves SPLIT_MIN_STEPS steps a slice and its partials under
// a quarter of the largest allocation, when t underfills the device; else 1. *cost gets its
// cost (INFINITY when only_split and none applies).
static int rule_split(const xconv_device_info *info, const xconv_gemm_layout *L,
                      const xconv_gemm_tiles *t, bool only_split, double *cost)
{
    int best = 1;
    *cost = only_split ? INFINITY : split_cost(info, L, t, 1);
    if (!underfilled(info, L, t))
        return best;
    int64_t k_steps = xconv_ceil_div(L->k, t->tile_k);
    for (int parts = 2; parts <= XCONV_GEMM_SPLIT_MAX; parts++) {
        xconv_gemm_layout S = *L;
        S.split_k = parts;
        if (xconv_gemm_split_normalize(L, t, parts) != parts ||
            xconv_ceil_div(k_steps, parts) < SPLIT_MIN_STEPS ||
            xconv_gemm_split_bytes(&S) > info->max_alloc_bytes / 4)
            continue;
        double c = split_cost(info, L, t, parts);
        if (c < *cost * 0.999) {
            *cost = c;
            best = parts;
        }
    }
    return best;
}

// Tries tiles t (when they fit) split in the small-output search; keeps them and the split in
// *best and *best_split when cheaper than *best_cost.
static void try_split(const xconv_device_info *info, const xconv_gemm_layout *L,
                      const xconv_gemm_tiles *t, double *best_cost, xconv_gemm_tiles *best,
                      int *best_split)
{
    char why[256];
    if (!candidate_fits(info, L, t, xconv_gemm_b_vector(L, t), why, sizeof why))
        return;
    double cost;
    int parts = rule_split(info, L, t, true, &cost);
    if (cost < *best_cost * 0.999) {
        *best_cost = cost;
        *best = *t;
        *best_split = parts;
    }
}

int xconv_gemm_forced_split(const xconv_plan_options *opts)
{
    return opts->gemm_split_k ? opts->gemm_split_k : opts->gemm_tiles.split;
}

xconv_forced_gemm_tiles xconv_gemm_forced(const xconv_gemm_tiles *t, int split)
{
    return (xconv_forced_gemm_tiles){t->tile_m, t->tile_n, t->tile_k, t->wpt_m, t->wpt_n,
                                     t->vw, t->pad, split < 1 ? 1 : split};
}

xconv_status xconv_gemm_choose(const xconv_device_info *info, xconv_gemm_layout *L,
                               const xconv_plan_options *opts, xconv_gemm_tiles *t,
                               xconv_error *err)
{
    const xconv_forced_gemm_tiles *forced = opts ? &opts->gemm_tiles : NULL;
    bool tiles_forced = xconv_forced_gemm_tiles_set(forced);
    int forced_split = opts ? opts->gemm_split_k : 0, tiles_split = forced ? forced->split : 0;
    if (tiles_forced && tiles_split) {
        if (forced_split && forced_split != tiles_split)
            return xconv_error_set(err, XCONV_ERR_INVALID, "the forced GEMM tiles force split %d "
                                   "but the split is forced to %d", tiles_split, forced_split);
        forced_split = tiles_split;
    }
    if (forced_split < 0 || forced_split > XCONV_GEMM_SPLIT_MAX)
        return xconv_error_set(err, XCONV_ERR_INVALID, "GEMM split %d: expected 1 to %d K "
                               "slices (0: chosen)", forced_split, XCONV_GEMM_SPLIT_MAX);
    xconv_status st = xconv_gemm_choose_tiles(info, L, forced, t, err);
    if (st != XCONV_OK)
        return st;
    double cost;
    if (forced_split)
        L->split_k = xconv_gemm_split_normalize(L, t, forced_split);
    else if (tiles_forced || !underfilled(info, L, t))
        L->split_k = rule_split(info, L, t, false, &cost);
    else {  // few tiles: the unsplit choice against every candidate split, small tiles too
        int best_split = 1;
        cost = split_cost(info, L, t, 1);
        const xconv_gemm_tiles *list = info->is_cpu ? cpu_tiles : gpu_tiles;
        size_t count = info->is_cpu ? sizeof cpu_tiles / sizeof cpu_tiles[0]
                                    : sizeof gpu_tiles / sizeof gpu_tiles[0];
        xconv_gemm_tiles chosen = *t;
        for (size_t i = 0; i < count; i++)
            try_split(info, L, &list[i], &cost, &chosen, &best_split);
        for (size_t i = 0; i < sizeof small_tiles / sizeof small_tiles[0]; i++)
            try_split(info, L, &small_tiles[i], &cost, &chosen, &best_split);
        *t = chosen;  // unsplit, the tiles of xconv_gemm_choose_tiles: plans stay as they were
        L->split_k = best_split;
    }
    return XCONV_OK;
}

xconv_status xconv_gemm_plan_reduce(const xconv_device_info *info, const xconv_problem *p,
                                    const xconv_gemm_layout *L, xconv_plan *plan, int region,
                                    xconv_tensor_ref c_ref, int64_t c_offset, int64_t cols,
                                    unsigned parts, xconv_error *err)
{
    parts = p ? parts & xconv_epilogue_parts(p) : 0u;
    if (parts & XCONV_FUSED_POOL) {  // whole images of the convolution's output: pooled y's
        int64_t pq = xconv_problem_out_h(p) * xconv_problem_out_w(p);
        int64_t yhw = xconv_problem_y_h(p) * xconv_problem_y_w(p);
        c_offset = c_offset / pq * yhw;
        cols = cols / pq * yhw;
    }
    xconv_step *step = xconv_plan_add_step(plan, "split-K reduce", "splitk_reduce",
                                           XCONV_SPLITK_REDUCE_KERNEL);
    if (!step)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    const xconv_gemm_derived derived = {.part_ld = xconv_gemm_part_ld(L)}, *d = &derived;
    // The partials' row stride (XC_GEMM_PART_LD) is N's columns: N is baked with it, unless
    // the product's sizes are arguments (cl/splitk_reduce.cl derives the stride from them).
    step->bake_batch = !xconv_gemm_takes_sizes(p, L);
    step->bake_dims = step->bake_batch;
    xconv_status st = p ? xconv_step_define_problem(step, p, err) : XCONV_OK;
#define XCONV_REDUCE_DEFINE(name, expr, meaning)                                            \
    if (st == XCONV_OK && !xconv_gemm_left_out(step, #name))                                \
        st = xconv_step_define(step, #name, (long long)(expr), err);
    XCONV_GEMM_REDUCE_DEFINES(XCONV_REDUCE_DEFINE)
#undef XCONV_REDUCE_DEFINE
    if (st != XCONV_OK)
        return st;
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    size_t lx = xconv_fit_work_group(info, xconv_round_up(64, multiple));
    size_t global[3] = {(size_t)cols, (size_t)L->m, (size_t)L->groups}, local[3] = {lx, 1, 1};
    xconv_step_set_3d(step, global, local);
    // (partials, C, the partials' first element, C's first element, columns of C)
    xconv_step_arg_buffer(step, XCONV_REF_WORKSPACE);
    xconv_step_arg_buffer(step, c_ref);
    xconv_step_arg_int(step, (int32_t)(plan->regions[region].offset / sizeof(float)));
    xconv_step_arg_int(step, (int32_t)c_offset);
    xconv_step_arg_int(step, (int32_t)cols);
    return parts ? xconv_step_fuse_epilogue(step, p, parts, plan, err) : XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The tuning space

// A point of the search space and its modelled cost (for sorting).
typedef struct space_point {
    xconv_gemm_tiles tiles;
    int split;
    double cost;
} space_point;

static int by_cost(const void *a, const void *b)
{
    const space_point *x = a, *y = b;
    return x->cost < y->cost ? -1 : x->cost > y->cost;
}

int xconv_gemm_search_space(const xconv_device_info *info, const xconv_gemm_layout *L,
                            xconv_gemm_tiles *tiles, int *splits, int max)
{
    static const int split_list[] = {1, 2, 3, 4, 6, 8, 12, 16};
    xconv_gemm_tiles list[64];
    int small = (int)(sizeof small_tiles / sizeof small_tiles[0]);
    int ntiles = xconv_gemm_tile_candidates(info, list, 64 - small);
    for (size_t i = 0; i < sizeof small_tiles / sizeof small_tiles[0]; i++)
        list[ntiles++] = small_tiles[i];
    space_point *points = malloc(sizeof *points * (size_t)ntiles * 8);
    if (!points)
        return 0;
    int n = 0;
    for (int i = 0; i < ntiles; i++) {
        char why[256];
        if (!candidate_fits(info, L, &list[i], xconv_gemm_b_vector(L, &list[i]), why, sizeof why))
            continue;
        for (size_t j = 0; j < sizeof split_list / sizeof split_list[0]; j++) {
            int split = xconv_gemm_split_normalize(L, &list[i], split_list[j]);
            bool seen = false;
            for (int q = 0; q < n && !seen; q++)
                seen = points[q].split == split &&
                       memcmp(&points[q].tiles, &list[i], sizeof list[i]) == 0;
            if (!seen)
                points[n++] = (space_point){list[i], split, split_cost(info, L, &list[i], split)};
        }
    }
    qsort(points, (size_t)n, sizeof points[0], by_cost);
    if (n > max)
        n = max;
    for (int i = 0; i < n; i++)
        tiles[i] = points[i].tiles, splits[i] = points[i].split;
    free(points);
    return n;
}

int xconv_gemm_tuning_format(const xconv_gemm_tiles *t, int split, char *buf, size_t len)
{
    return snprintf(buf, len, "%d,%d,%d,%d,%d,%d,%d,%d", t->tile_m, t->tile_n, t->tile_k,
                    t->wpt_m, t->wpt_n, t->vw, t->pad, split < 1 ? 1 : split);
}
