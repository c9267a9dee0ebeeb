// SPDX-License-Identifier: MIT
// The Winograd planner: applicability with its reason, tile geometry, image chunks and
// workspace regions of the non-fused variants, and the fused kernel's blocks searched under the
// device's local-memory and work-group limits with a small cost model.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "families/winograd/plan_winograd.h"

// ---------------------------------------------------------------------------------------------
// Constants (properties of the kernels and of the backends' launch mapping, not of a device)

// Work-group counts of dimensions 1 and 2 become CUDA's grid y and z, which are 16-bit.
#define MAX_GRID_YZ 65535
// Work-items per work-group of the transform kernels (fewer where the device allows fewer).
#define TRANSFORM_WG 128
// Fused kernel, work-group path: the most accumulators a work-item keeps (64 keeps a 512-item
// work-group within 128 registers).
#define FUSED_ACC_MAX_GPU 64
// GPUs: registers a fused work-item holds beyond its accumulators (its staged tile and the
// transform's temporaries, both live beside the accumulators, plus fragments and addresses;
// ptxas for sm_90 confirmed the estimate: no spills where it fits, spills where it does not).
#define FUSED_REGS_OVER_ACC(aa) ((aa) + 32)
// GPUs whose register file per work-group is unknown (OpenCL without NVIDIA's extension): the
// planner assumes 32K 32-bit registers, the smallest per-work-group file of the GPUs it targets
// (NVIDIA's since Fermi hold 32K or 64K), so a plan never asks for more than the device has.
#define FUSED_GROUP_REGS_UNKNOWN 32768
// Fused kernel cost model, in units of one multiply-add of a work-item: staging one transformed
// input value (its share of the tile's loads and transform, a local store), copying one filter
// value (global load, local store), one output value's share of the exchange and transform, and
// one barrier.
#define FUSED_INPUT_COST 4.0
#define FUSED_FILTER_COST 2.0
#define FUSED_OUTPUT_COST 4.0
#define FUSED_BARRIER_COST 64.0
// Vector path (CPUs) cost model, in vector multiply-adds: gathering one input value into its
// lane (a scalar load and store), one vector operation of a transform per tile position, and
// storing one output value from its lane.
#define VEC_GATHER_COST 1.0
#define VEC_TRANSFORM_COST 8.0
#define VEC_STORE_COST 1.0
// Vector path: the most bytes of sums and staged tiles one work-item keeps (in its core's L2).
#define VEC_LOCAL_MAX (256u << 10)

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

// ---------------------------------------------------------------------------------------------
// Regions

const char *xconv_wino_region_name(int region)
{
    static const char *const names[XCONV_WINO_REGIONS] = {
        "transformed filters", "transformed input", "element-wise products",
        "split-K partials"};
    return region >= 0 && region < XCONV_WINO_REGIONS ? names[region] : "?";
}

uint64_t xconv_wino_region_offset(const uint64_t region_bytes[XCONV_WINO_REGIONS], int region)
{
    uint64_t offset = 0;
    for (int i = 0; i < region && i < XCONV_WINO_REGIONS; i++)
        offset += align_up(region_bytes[i], XCONV_REGION_ALIGN);
    return offset;
}

// Returns the total bytes of a workspace holding region_bytes in order, each aligned.
static uint64_t workspace_total(const uint64_t region_bytes[XCONV_WINO_REGIONS])
{
    return xconv_wino_region_offset(region_bytes, XCONV_WINO_REGIONS);
}

// ---------------------------------------------------------------------------------------------
// Shape rules

double xconv_wino_mults_per_output(int m, int r)
{
    double alpha = m + r - 1;
    return alpha * alpha / ((double)m * m);
}

// Returns true when F(m, r) has transforms in common/xconv_winograd_transforms.h.
static bool known_algo(int m, int r)
{
    return (r == 3 && (m == 2 || m == 4)) || (r == 5 && m == 2);
}

// Checks what every Winograd variant needs of the problem's shape; returns XCONV_OK or
// XCONV_ERR_NOT_APPLICABLE with the reason.
static xconv_status check_shape(const xconv_problem *p, int m, int r, xconv_error *err)
{
    if (!known_algo(m, r))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "Winograd F(%dx%d,%dx%d) has no transforms here (F(2x2,3x3), "
                               "F(4x4,3x3), F(2x2,5x5))", m, m, r, r);
    if (p->r != p->s)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "Winograd needs a square filter; this one is %lldx%lld",
                               (long long)p->r, (long long)p->s);
    if (p->r != r)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "Winograd F(%dx%d,%dx%d) needs a %dx%d filter, not %lldx%lld", m,
                               m, r, r, r, r, (long long)p->r, (long long)p->s);
    if (p->stride_h != 1 || p->stride_w != 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "Winograd needs stride 1 (this problem has stride %lldx%lld)",
                               (long long)p->stride_h, (long long)p->stride_w);
    if (p->dil_h != 1 || p->dil_w != 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "Winograd needs dilation 1 (this problem has dilation %lldx%lld)",
                               (long long)p->dil_h, (long long)p->dil_w);
    return XCONV_OK;
}

// Returns XCONV_ERR_NOT_APPLICABLE naming `what` when count work-groups pass a grid dimension
// that the backends map to CUDA's 16-bit y or z, else XCONV_OK.
static xconv_status check_grid(int64_t count, const char *what, xconv_error *err)
{
    if (count > MAX_GRID_YZ)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "%lld %s pass a launch dimension's %d work-groups",
                               (long long)count, what, MAX_GRID_YZ);
    return XCONV_OK;
}

// The device's budget for one workspace: its largest allocation, and a quarter of its memory.
static uint64_t workspace_budget(const xconv_device_info *info)
{
    uint64_t budget = info->max_alloc_bytes;
    if (info->global_mem_bytes && info->global_mem_bytes / 4 < budget)
        budget = info->global_mem_bytes / 4;
    return budget;
}

// A 1-D launch of `items` work-items in work-groups of at most TRANSFORM_WG (rounded to the
// device's preferred multiple), `rows` along dimension 1.
static xconv_wino_launch transform_launch(const xconv_device_info *info, int64_t items,
                                          int64_t rows)
{
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    size_t want = (size_t)items < TRANSFORM_WG ? (size_t)items : TRANSFORM_WG;
    size_t local = xconv_fit_work_group(info, xconv_round_up(want, multiple));
    xconv_wino_launch l = {.dims = rows > 1 ? 2 : 1};
    l.global[0] = xconv_round_up((size_t)items, local);
    l.global[1] = (size_t)rows;
    l.global[2] = 1;
    l.local[0] = local;
    l.local[1] = l.local[2] = 1;
    return l;
}

// ---------------------------------------------------------------------------------------------
// Non-fused

// Fills the region sizes of the non-fused variants for chunks of `chunk` images (P: none).
static void nonfused_regions(const xconv_problem *p, int alpha, int64_t tiles, int64_t chunk,
                             uint64_t bytes[XCONV_WINO_REGIONS], int64_t *t_ld)
{
    int64_t aa = (int64_t)alpha * alpha;
    *t_ld = (int64_t)align_up((uint64_t)(chunk * tiles), 4);
    bytes[XCONV_WINO_REGION_U] = (uint64_t)(aa * p->k * (p->c / p->groups)) * sizeof(float);
    bytes[XCONV_WINO_REGION_V] = (uint64_t)(aa * p->c * *t_ld) * sizeof(float);
    bytes[XCONV_WINO_REGION_M] = (uint64_t)(aa * p->k * *t_ld) * sizeof(float);
    bytes[XCONV_WINO_REGION_P] = 0;  // sized once the GEMM's split is chosen (choose_gemm)
}

// True when chunks of `chunk` images fit the budget and every offset the kernels form (a region's
// offset plus an index in it, in floats) stays in the 32-bit range.
static bool chunk_fits(const xconv_problem *p, int alpha, int64_t tiles, int64_t chunk,
                       uint64_t budget)
{
    uint64_t bytes[XCONV_WINO_REGIONS];
    int64_t t_ld;
    nonfused_regions(p, alpha, tiles, chunk, bytes, &t_ld);
    uint64_t total = workspace_total(bytes);
    return total <= budget && total / sizeof(float) <= (uint64_t)XCONV_MAX_INDEX;
}

// On GPUs that give their register file a work-group, the products' k step of 8 becomes 16
// where the same tiles fit: the products read B from the workspace as it lies (K = C channels,
// N = the pass's tiles), and on an H100 a k step of 16 ran res3x3 and vgg3x3's products 2.5%
// faster than 8 (half the barriers a K step; the GEMM family's gathered B prefers 8,
// plan_gemm.c). There the GEMM step caps the block's registers (gemm_step.c). Devices that give
// only a bound a work-item keep 8: for gfx1030 clang spilled 76 registers of the deeper step's
// 8x8 blocks (`xconv compile --target gfx1030`, tests/cli/vendor_compile.sh).
static void deepen_k_step(const xconv_device_info *info, const xconv_gemm_layout *L,
                          xconv_gemm_tiles *t)
{
    if (info->is_cpu || info->max_registers_per_work_group <= 0 || t->tile_k != 8 ||
        L->split_k > 1)
        return;
    xconv_forced_gemm_tiles deeper = {t->tile_m, t->tile_n, 16, t->wpt_m, t->wpt_n, t->vw,
                                      t->pad, 0};
    xconv_gemm_tiles chosen;
    if (xconv_gemm_choose_tiles(info, L, &deeper, &chosen, NULL) == XCONV_OK)
        *t = chosen;
}

// Chooses the batched GEMM's tiles and split (xconv_gemm_choose, under opts) for out->gemm and
// sizes the partials' region P: a split whose partials would pass the workspace budget or the
// 32-bit index range, or whose slices pass the launch's 16-bit third dimension, is dropped when
// the planner chose it and refused when it was forced.
// Returns XCONV_OK, the GEMM planner's failure, or XCONV_ERR_NOT_APPLICABLE for such a forced
// split.
static xconv_status choose_gemm(const xconv_device_info *info, const xconv_plan_options *opts,
                                uint64_t budget, xconv_wino_nonfused *out, xconv_error *err)
{
    xconv_status st = xconv_gemm_choose(info, &out->gemm, opts, &out->gemm_tiles, err);
    if (st == XCONV_OK && !(opts && xconv_forced_gemm_tiles_set(&opts->gemm_tiles)))
        deepen_k_step(info, &out->gemm, &out->gemm_tiles);
    if (st != XCONV_OK || out->gemm.split_k < 2)
        return st;
    out->region_bytes[XCONV_WINO_REGION_P] = xconv_gemm_split_bytes(&out->gemm);
    uint64_t total = workspace_total(out->region_bytes);
    int64_t launched = out->gemm.groups * out->gemm.split_k;  // work-groups along dimension 2
    if (total <= budget && total / sizeof(float) <= (uint64_t)XCONV_MAX_INDEX &&
        launched <= MAX_GRID_YZ)
        return XCONV_OK;
    if (opts && xconv_gemm_forced_split(opts) > 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "the batched GEMM's %d K slices need %.3g MiB of partials and "
                               "%lld work-groups along a launch dimension; the device allows "
                               "%.3g MiB of workspace (2^31 floats) and %d work-groups",
                               out->gemm.split_k,
                               out->region_bytes[XCONV_WINO_REGION_P] / 1048576.0,
                               (long long)launched, budget / 1048576.0, MAX_GRID_YZ);
    out->region_bytes[XCONV_WINO_REGION_P] = 0;
    out->gemm.split_k = 1;
    return xconv_gemm_choose_tiles(info, &out->gemm, opts ? &opts->gemm_tiles : NULL,
                                   &out->gemm_tiles, err);
}

xconv_status xconv_wino_plan_nonfused(const xconv_device_info *info, const xconv_problem *p,
                                      int m, const xconv_plan_options *opts,
                                      xconv_wino_nonfused *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    int r = (int)p->r, alpha = m + r - 1;
    xconv_status st = check_shape(p, m, r, err);
    if (st != XCONV_OK)
        return st;
    int64_t groups = p->groups, cg = p->c / groups, kg = p->k / groups, aa = alpha * alpha;
    int64_t tiles_h = xconv_ceil_div(xconv_problem_out_h(p), m);
    int64_t tiles_w = xconv_ceil_div(xconv_problem_out_w(p), m);
    int64_t tiles = tiles_h * tiles_w;
    if ((st = check_grid(p->c, "input channels", err)) != XCONV_OK ||
        (st = check_grid(p->k, "output channels", err)) != XCONV_OK ||
        (st = check_grid(aa * groups, "GEMMs (tile positions x groups)", err)) != XCONV_OK)
        return st;

    // The most images per pass that fit: binary search (the size grows with the chunk).
    uint64_t budget = workspace_budget(info);
    if (!chunk_fits(p, alpha, tiles, 1, budget)) {
        uint64_t bytes[XCONV_WINO_REGIONS];
        int64_t t_ld;
        nonfused_regions(p, alpha, tiles, 1, bytes, &t_ld);
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "Winograd F(%dx%d,%dx%d) needs %.3g MiB of workspace for one "
                               "image; the device allows %.3g MiB (its largest allocation, at "
                               "most a quarter of its memory) and indices stay under 2^31",
                               m, m, r, r, workspace_total(bytes) / 1048576.0,
                               budget / 1048576.0);
    }
    int64_t lo = 1, hi = p->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (chunk_fits(p, alpha, tiles, mid, budget))
            lo = mid;
        else
            hi = mid - 1;
    }
    if (opts && opts->winograd_chunk > 0 && opts->winograd_chunk < lo)
        lo = opts->winograd_chunk;
    out->chunk = lo;
    out->passes = xconv_ceil_div(p->n, lo);
    nonfused_regions(p, alpha, tiles, lo, out->region_bytes, &out->tiles.t_ld);
    out->filter = (xconv_wino_filter_params){.m = m, .u_ck = 0};
    out->tiles.m = m;
    out->tiles.tiles_h = tiles_h;
    out->tiles.tiles_w = tiles_w;

    // Batch b = xi * groups + g: U[xi][g] is kg x cg, V[xi][g] cg x t_ld, M[xi][g] kg x t_ld.
    int64_t t_ld = out->tiles.t_ld;
    out->gemm = (xconv_gemm_layout){
        .mode = XCONV_GEMM_B_MEMORY, .m = kg, .n = lo * tiles, .k = cg, .lda = cg, .ldb = t_ld,
        .ldc = t_ld, .seg = t_ld, .a_group_stride = kg * cg, .b_group_stride = cg * t_ld,
        .c_group_stride = kg * t_ld, .groups = aa * groups};
    if ((st = choose_gemm(info, opts, budget, out, err)) != XCONV_OK)
        return st;
    out->workspace_bytes = workspace_total(out->region_bytes);
    const xconv_gemm_tiles *t = &out->gemm_tiles;
    int64_t slices = out->gemm.split_k > 1 ? out->gemm.split_k : 1;
    size_t threads_n = (size_t)(t->tile_n / t->wpt_n), threads_m = (size_t)(t->tile_m / t->wpt_m);
    if ((st = check_grid(xconv_ceil_div(kg, t->tile_m), "GEMM row tiles", err)) != XCONV_OK)
        return st;
    out->gemm_launch = (xconv_wino_launch){
        .dims = 3,
        .global = {(size_t)xconv_ceil_div(out->gemm.n, t->tile_n) * threads_n,
                   (size_t)xconv_ceil_div(kg, t->tile_m) * threads_m,
                   (size_t)(aa * groups * slices)},
        .local = {threads_n, threads_m, 1},
        .local_mem_bytes = xconv_gemm_local_bytes(t)};
    out->filter_launch = transform_launch(info, p->k * cg, 1);
    out->input_launch = transform_launch(info, t_ld, p->c);
    out->output_launch = transform_launch(info, lo * tiles, p->k);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Fused

size_t xconv_wino_fused_threads(const xconv_wino_fused_params *f, int r)
{
    size_t alpha = (size_t)(f->m + r - 1);
    if (f->vec)
        return 1;
    return alpha * alpha * (size_t)(f->tile_block / f->wpt_t) * (size_t)(f->k_block / f->wpt_k);
}

size_t xconv_wino_fused_local_bytes(const xconv_wino_fused_params *f, int r)
{
    size_t alpha = (size_t)(f->m + r - 1), aa = alpha * alpha;
    if (f->vec)  // the sums [xi][k] and a chunk's input tiles [c][xi], vectors of vec floats
        return aa * (size_t)(f->k_block + f->c_chunk) * (size_t)f->vec * sizeof(float);
    size_t stage = aa * (size_t)f->c_chunk * (size_t)(f->tile_block + f->k_block);
    size_t exchange = aa * (size_t)(f->k_block / f->wpt_k) * (size_t)(f->tile_block + 1);
    size_t floats = stage > exchange ? stage : exchange;
    return (floats + 3) / 4 * 4 * sizeof(float);
}

// Block sizes searched (each combination whose work-items and local memory fit).
static const int tile_blocks[] = {8, 16, 32, 64};
static const int k_blocks[] = {4, 8, 16, 32, 64};
static const int c_chunks[] = {4, 8, 16};
static const int wpts_t[] = {2, 4, 8};
static const int wpts_k[] = {1, 2, 4, 8};

uint64_t xconv_wino_register_budget(const xconv_device_info *info)
{
    return info->max_registers_per_work_group > 0 ? (uint64_t)info->max_registers_per_work_group
                                                  : FUSED_GROUP_REGS_UNKNOWN;
}

// Registers a fused work-item of f is estimated to hold (GPUs).
static size_t fused_regs(const xconv_wino_fused_params *f, int r)
{
    size_t alpha = (size_t)(f->m + r - 1);
    return (size_t)(f->wpt_t * f->wpt_k) + FUSED_REGS_OVER_ACC(alpha * alpha);
}

// Returns true when f compiles and launches on info's device for F(f->m, r) on p (block
// multiples, work-group limits, local memory, registers on GPUs, the launch grid), else false
// with the reason in why.
static bool fused_valid(const xconv_device_info *info, const xconv_problem *p,
                        const xconv_wino_fused_params *f, int r, char *why, size_t len)
{
    if (f->tile_block < 1 || f->k_block < 1 || f->c_chunk < 1 || f->wpt_t < 1 || f->wpt_k < 1 ||
        f->tile_block % f->wpt_t || f->k_block % f->wpt_k)
        return snprintf(why, len, "blocks must be positive multiples of the work per item"),
               false;
    if (f->vec && (info->backend != XCONV_BACKEND_OPENCL || (f->vec != 8 && f->vec != 16) ||
                   f->tile_block != f->vec || f->wpt_t != 1 || f->k_block > p->k / p->groups))
        return snprintf(why, len, "vector lanes need OpenCL C, 8 or 16 lanes as the tile block, "
                                  "1 tile per item and at most K/groups channels"), false;
    size_t threads = xconv_wino_fused_threads(f, r);
    if (threads > info->max_work_group_size ||
        (info->max_work_item_sizes[0] && threads > info->max_work_item_sizes[0]))
        return snprintf(why, len, "%zu work-items pass the device's work-group limit", threads),
               false;
    if (xconv_wino_fused_local_bytes(f, r) > info->local_mem_bytes)
        return snprintf(why, len, "%zu bytes of local memory pass the device's %llu",
                        xconv_wino_fused_local_bytes(f, r),
                        (unsigned long long)info->local_mem_bytes), false;
    uint64_t regs = (uint64_t)threads * fused_regs(f, r);
    if (!info->is_cpu && regs > xconv_wino_register_budget(info))
        return snprintf(why, len, "about %llu registers pass the device's %llu per work-group",
                        (unsigned long long)regs,
                        (unsigned long long)xconv_wino_register_budget(info)), false;
    if (p->groups * xconv_ceil_div(p->k / p->groups, f->k_block) > MAX_GRID_YZ)
        return snprintf(why, len, "%lld channel blocks pass a launch dimension's %d",
                        (long long)(p->groups * xconv_ceil_div(p->k / p->groups, f->k_block)),
                        MAX_GRID_YZ), false;
    return true;
}

// Returns true when the GPU search may choose f: valid, within FUSED_ACC_MAX_GPU accumulators
// and at least two warps' work-items.
static bool fused_fits(const xconv_device_info *info, const xconv_problem *p,
                       const xconv_wino_fused_params *f, int r)
{
    char why[256];
    size_t threads = xconv_wino_fused_threads(f, r);
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    return fused_valid(info, p, f, r, why, sizeof why) &&
           f->wpt_t * f->wpt_k <= FUSED_ACC_MAX_GPU && threads >= 2 * multiple;
}

// A relative time for f on p (GPUs): the busiest compute unit's work-groups, each costing its
// padded multiply-adds over their register-blocking efficiency plus its staging and output work
// spread over its work-items, divided by how well resident work-groups fill a unit.
static double fused_cost(const xconv_device_info *info, const xconv_problem *p,
                         const xconv_wino_fused_params *f, int r)
{
    double alpha = f->m + r - 1, aa = alpha * alpha;
    int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    int64_t all_tiles = p->n * f->tiles_h * f->tiles_w;
    int64_t groups =
        xconv_ceil_div(all_tiles, f->tile_block) * p->groups * xconv_ceil_div(kg, f->k_block);
    int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    double per_unit = (double)xconv_ceil_div(groups, units);
    double c_pad = (double)(xconv_ceil_div(cg, f->c_chunk) * f->c_chunk);
    double threads = (double)xconv_wino_fused_threads(f, r);
    double fma = aa * f->tile_block * f->k_block * c_pad;
    double stage = c_pad * aa * (f->tile_block * FUSED_INPUT_COST + f->k_block * FUSED_FILTER_COST);
    double output = aa * f->tile_block * f->k_block * FUSED_OUTPUT_COST / alpha;
    double barriers = 2.0 * (double)xconv_ceil_div(cg, f->c_chunk) + 2.0 * f->wpt_k;
    double intensity = (double)f->wpt_t * f->wpt_k / (f->wpt_t + f->wpt_k);
    double efficiency = pow(fmin(1.0, intensity / 4.0), 0.75);
    // A unit runs the work-items at once, as many work-groups as its registers hold.
    double group_regs = (double)xconv_wino_register_budget(info);
    double by_regs = floor(group_regs / (threads * (double)fused_regs(f, r)));
    double resident = fmin(per_unit, fmax(1.0, fmin(by_regs, floor(1024.0 / threads))));
    double fill = fmin(1.0, resident * threads / 512.0);
    return per_unit * ((fma / efficiency + stage + output) / threads +
                       barriers * FUSED_BARRIER_COST) / fill;
}

// Takes the forced block (xconv_plan_options.winograd_fused) into f (vw follows from the work
// per item; vec 8 or 16 forces the vector path, 0 the work-group path); returns XCONV_OK, or
// XCONV_ERR_NOT_APPLICABLE when it does not fit the device.
static xconv_status forced_block(const xconv_device_info *info, const xconv_problem *p,
                                 const xconv_forced_wino_block *forced,
                                 xconv_wino_fused_params *f, xconv_error *err)
{
    f->tile_block = forced->tb, f->k_block = forced->kb, f->c_chunk = forced->cc;
    f->wpt_t = forced->wt, f->wpt_k = forced->wk, f->vec = forced->vec;
    f->vw = !f->vec && f->wpt_t % 4 == 0 && f->wpt_k % 4 == 0 ? 4 : 1;
    f->unroll_c = f->vec ? 0 : f->unroll_c;
    char why[256];
    if (!fused_valid(info, p, f, (int)p->r, why, sizeof why))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "the forced fused Winograd block %d,%d,%d,%d,%d,%d does not fit: "
                               "%s", forced->tb, forced->kb, forced->cc, forced->wt, forced->wk,
                               forced->vec, why);
    return XCONV_OK;
}

// Makes t the best block so far (*best_f, costing *best) when it costs clearly less (by 0.1%:
// near-ties keep the block found first).
static void keep_cheaper(double cost, const xconv_wino_fused_params *t, double *best,
                         xconv_wino_fused_params *best_f)
{
    if (cost < *best * 0.999) {
        *best = cost;
        *best_f = *t;
    }
}

// Searches the work-group path's block sizes (GPUs) for the cheapest that fits into f; returns
// false when none fits.
static bool search_block(const xconv_device_info *info, const xconv_problem *p,
                         xconv_wino_fused_params *f)
{
    int r = (int)p->r;
    int64_t cg = p->c / p->groups;
    xconv_wino_fused_params best_f = *f, t = *f;
    double best = INFINITY;
    for (int a = 0; a < COUNT(tile_blocks); a++)
        for (int b = 0; b < COUNT(k_blocks); b++)
            for (int c = 0; c < COUNT(c_chunks); c++)
                for (int d = 0; d < COUNT(wpts_t); d++)
                    for (int e = 0; e < COUNT(wpts_k); e++) {
                        t.tile_block = tile_blocks[a];
                        t.k_block = k_blocks[b];
                        t.c_chunk = (int)(cg < c_chunks[c] ? cg : c_chunks[c]);
                        t.wpt_t = wpts_t[d];
                        t.wpt_k = wpts_k[e];
                        t.vw = t.wpt_t % 4 == 0 && t.wpt_k % 4 == 0 ? 4 : 1;
                        if (!fused_fits(info, p, &t, r))
                            continue;
                        keep_cheaper(fused_cost(info, p, &t, r), &t, &best, &best_f);
                    }
    *f = best_f;
    return best < INFINITY;
}

// The vector path's (CPUs) lanes, channels per register block, and chunks searched; channels
// per work-item are multiples of the register block up to K/groups.
static const int vec_lanes[] = {16, 8};
static const int vec_k_regs[] = {16, 12, 8, 4};
static const int vec_c_chunks[] = {16, 8, 4};

// A relative time for the vector path's f on p, in vector multiply-adds of the busiest core:
// its work-items' multiply-adds, the loads of the staged tiles and of the sums around each
// register block, the lane-by-lane gathers and vector transforms of the input tiles (once per
// work-item: fewer the more channels an item computes), and the output transforms and stores.
static double vec_cost(const xconv_device_info *info, const xconv_problem *p,
                       const xconv_wino_fused_params *f, int r)
{
    double alpha = f->m + r - 1, aa = alpha * alpha, m2 = (double)f->m * f->m;
    int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    int64_t all_tiles = p->n * f->tiles_h * f->tiles_w;
    int64_t items = xconv_ceil_div(all_tiles, f->vec) * p->groups * xconv_ceil_div(kg, f->k_block);
    int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    double per_unit = (double)xconv_ceil_div(items, units);
    double kb = f->k_block, blocks = kb / f->wpt_k, chunks = (double)xconv_ceil_div(cg, f->c_chunk);
    double fma = aa * kb * (double)cg;
    double loads = aa * blocks * (double)cg + 2.0 * aa * kb * chunks;
    double input = (double)cg * (aa * f->vec * VEC_GATHER_COST + aa * VEC_TRANSFORM_COST);
    double output = kb * (aa * VEC_TRANSFORM_COST + m2 * f->vec * VEC_STORE_COST);
    return per_unit * (fma + loads + input + output);
}

// Searches the vector path's blocks (CPUs) for the cheapest that fits into f; returns false
// when none fits.
static bool search_vec(const xconv_device_info *info, const xconv_problem *p,
                       xconv_wino_fused_params *f)
{
    int r = (int)p->r;
    int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    xconv_wino_fused_params best_f = *f, t = *f;
    double best = INFINITY;
    char why[256];
    t.wpt_t = 1;
    t.vw = 1;
    for (int a = 0; a < COUNT(vec_lanes); a++)
        for (int b = 0; b < COUNT(vec_k_regs); b++)
            for (int c = 0; c < COUNT(vec_c_chunks); c++) {
                t.vec = t.tile_block = vec_lanes[a];
                t.wpt_k = (int)(kg < vec_k_regs[b] ? kg : vec_k_regs[b]);
                t.c_chunk = (int)(cg < vec_c_chunks[c] ? cg : vec_c_chunks[c]);
                for (t.k_block = t.wpt_k; t.k_block <= kg; t.k_block += t.wpt_k) {
                    if (xconv_wino_fused_local_bytes(&t, r) > VEC_LOCAL_MAX ||
                        !fused_valid(info, p, &t, r, why, sizeof why))
                        break;
                    keep_cheaper(vec_cost(info, p, &t, r), &t, &best, &best_f);
                }
            }
    *f = best_f;
    return best < INFINITY;
}

xconv_status xconv_wino_plan_fused(const xconv_device_info *info, const xconv_problem *p, int m,
                                   const xconv_plan_options *opts, xconv_wino_fused *out,
                                   xconv_error *err)
{
    memset(out, 0, sizeof *out);
    int r = (int)p->r;
    int alpha = m + r - 1;
    xconv_status st = check_shape(p, m, r, err);
    if (st != XCONV_OK)
        return st;
    int64_t cg = p->c / p->groups;
    out->region_bytes[XCONV_WINO_REGION_U] =
        (uint64_t)alpha * alpha * (uint64_t)(p->k * cg) * sizeof(float);
    out->workspace_bytes = workspace_total(out->region_bytes);
    if (out->workspace_bytes > workspace_budget(info) ||
        out->workspace_bytes / sizeof(float) > (uint64_t)XCONV_MAX_INDEX)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "the transformed filters need %.3g MiB; the device allows %.3g "
                               "MiB and indices stay under 2^31",
                               out->workspace_bytes / 1048576.0,
                               workspace_budget(info) / 1048576.0);
    xconv_wino_fused_params f = {.m = m,
                                 .tiles_h = xconv_ceil_div(xconv_problem_out_h(p), m),
                                 .tiles_w = xconv_ceil_div(xconv_problem_out_w(p), m),
                                 .unroll_c = info->is_cpu ? 0 : 1};
    if (opts && xconv_forced_wino_block_set(&opts->winograd_fused)) {
        st = forced_block(info, p, &opts->winograd_fused, &f, err);
        if (st != XCONV_OK)
            return st;
    } else if (info->is_cpu ? !search_vec(info, p, &f) : !search_block(info, p, &f)) {
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "no fused Winograd block sizes fit the device's limits (local "
                               "memory %llu bytes, %zu work-items per work-group, %llu "
                               "registers)",
                               (unsigned long long)info->local_mem_bytes,
                               info->max_work_group_size,
                               (unsigned long long)xconv_wino_register_budget(info));
    }
    out->params = f;
    const xconv_wino_fused_params *fp = &out->params;
    out->filter = (xconv_wino_filter_params){.m = m, .u_ck = 1};
    out->filter_launch = transform_launch(info, p->k * cg, 1);
    size_t threads = xconv_wino_fused_threads(fp, r);
    int64_t all_tiles = p->n * fp->tiles_h * fp->tiles_w;
    out->fused_launch = (xconv_wino_launch){
        .dims = 2,
        .global = {(size_t)xconv_ceil_div(all_tiles, fp->tile_block) * threads,
                   (size_t)(p->groups * xconv_ceil_div(p->k / p->groups, fp->k_block)), 1},
        .local = {threads, 1, 1},
        .local_mem_bytes = xconv_wino_fused_local_bytes(fp, r)};
    return XCONV_OK;
}

bool xconv_wino_applies(const xconv_device_info *info, const xconv_problem *p,
                        const xconv_wino_algo *a, char *reason, size_t len)
{
    xconv_error err = {0};
    xconv_status st = check_shape(p, a->m, a->r, &err);
    if (st == XCONV_OK && a->fused) {
        xconv_wino_fused plan;
        st = xconv_wino_plan_fused(info, p, a->m, NULL, &plan, &err);
    } else if (st == XCONV_OK) {
        xconv_wino_nonfused plan;
        st = xconv_wino_plan_nonfused(info, p, a->m, NULL, &plan, &err);
    }
    if (st != XCONV_OK && reason && len)
        snprintf(reason, len, "%s", err.msg);
    return st == XCONV_OK;
}
