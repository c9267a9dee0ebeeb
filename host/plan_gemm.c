// SPDX-License-Identifier: MIT
// The GEMM planner: tiles for cl/sgemm.cl from a device's limits, a product's defines and
// geometry, the im2col chunk, and our SGEMM on raw matrices.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_gemm.h"

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

// ---------------------------------------------------------------------------------------------
// Choosing

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

// A relative time for t on L: the busiest compute unit's tiles times each tile's padded work,
// over the tile's efficiency and over how well the work-groups resident on a compute unit fill
// it. On GPUs efficiency follows arithmetic intensity (a 128x128 tile's is 64 FLOP per loaded
// element) and a compute unit wants about 512 work-items; the exponent and constants were
// checked against a sweep of every candidate on the standard suite on an H100, where the
// choice landed within 3% of the best on average (docs/gemm_family.md).
static double tile_cost(const xconv_device_info *info, const xconv_gemm_layout *L,
                        const xconv_gemm_tiles *t)
{
    int64_t tiles = ceil_div(L->m, t->tile_m) * ceil_div(L->n, t->tile_n) * L->groups;
    int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    double per_unit = (double)ceil_div(tiles, units);
    double work = (double)t->tile_m * t->tile_n * (double)(ceil_div(L->k, t->tile_k) * t->tile_k);
    double intensity = (double)t->tile_m * t->tile_n / (t->tile_m + t->tile_n);
    double threads = (double)xconv_gemm_threads(t);
    double fill = 1.0;
    if (!info->is_cpu) {
        double resident = fmin(per_unit, fmax(1.0, floor(1024.0 / threads)));
        fill = fmin(1.0, resident * threads / 512.0);
    }
    double efficiency = pow(fmin(1.0, intensity / 64.0), 0.75);  // 64: a 128x128 tile's
    if (info->is_cpu)
        efficiency = t->wpt_n >= 8 ? 1.0 : 0.5;  // what counts on a CPU (see cpu_tiles)
    return per_unit * work / (efficiency * fill);
}

// The vector width of B's global loads for L with tiles t: 4 when every column run of 4 is
// contiguous and 16-byte aligned in memory and in the local tile, else 1.
static int b_vector(const xconv_gemm_layout *L, const xconv_gemm_tiles *t)
{
    return L->mode == XCONV_GEMM_B_MEMORY && L->ldb % 4 == 0 && L->seg % 4 == 0 &&
                   L->b_seg_stride % 4 == 0 && L->b_group_stride % 4 == 0 && t->pad % 4 == 0
               ? 4
               : 1;
}

// Parses XCONV_GEMM_TILES="TM,TN,TK,WM,WN[,VW[,PAD]]" (a tuning override) into *t.
static bool tiles_from_env(xconv_gemm_tiles *t)
{
    const char *env = getenv("XCONV_GEMM_TILES");
    if (!env || !*env)
        return false;
    *t = (xconv_gemm_tiles){0, 0, 0, 0, 0, 4, 4};
    int n = sscanf(env, "%d,%d,%d,%d,%d,%d,%d", &t->tile_m, &t->tile_n, &t->tile_k, &t->wpt_m,
                   &t->wpt_n, &t->vw, &t->pad);
    if (n == 6)
        t->pad = t->vw;
    return n >= 5;
}

bool xconv_gemm_choose_tiles(const xconv_device_info *info, const xconv_gemm_layout *L,
                             xconv_gemm_tiles *out)
{
    char why[256];
    if (tiles_from_env(out))
        return xconv_gemm_tiles_fit(info, out, L->mode, b_vector(L, out), why, sizeof why);
    const xconv_gemm_tiles *list = info->is_cpu ? cpu_tiles : gpu_tiles;
    size_t count = info->is_cpu ? sizeof cpu_tiles / sizeof cpu_tiles[0]
                                : sizeof gpu_tiles / sizeof gpu_tiles[0];
    double best = INFINITY;
    for (size_t i = 0; i < count; i++) {
        if (!xconv_gemm_tiles_fit(info, &list[i], L->mode, b_vector(L, &list[i]), why,
                                  sizeof why))
            continue;
        double cost = tile_cost(info, L, &list[i]);
        if (cost < best * 0.999) {
            best = cost;
            *out = list[i];
        }
    }
    return best < INFINITY;
}

// ---------------------------------------------------------------------------------------------
// Defines and geometry

// Returns the value of define `name` in plan, or `fallback`.
static long long plan_value(const xconv_plan *plan, const char *name, long long fallback)
{
    for (int i = 0; i < plan->ndefines; i++)
        if (strcmp(plan->defines[i].name, name) == 0)
            return plan->defines[i].value;
    return fallback;
}

// True when every element offset the kernel forms for L stays in the 32-bit index range.
static bool fits_index(const xconv_gemm_layout *L)
{
    int64_t segs = ceil_div(L->n, L->seg);
    int64_t b_end = (L->groups - 1) * L->b_group_stride + (segs - 1) * L->b_seg_stride +
                    L->k * L->ldb + L->seg;
    int64_t c_end = (L->groups - 1) * L->c_group_stride + (segs - 1) * L->c_seg_stride +
                    L->m * L->ldc + L->seg;
    int64_t a_end = L->groups * L->a_group_stride + L->m * L->lda;
    return L->n <= XCONV_MAX_INDEX && a_end <= XCONV_MAX_INDEX && c_end <= XCONV_MAX_INDEX &&
           (L->mode != XCONV_GEMM_B_MEMORY || b_end <= XCONV_MAX_INDEX);
}

xconv_status xconv_gemm_plan_step(const xconv_device_info *info, const xconv_gemm_layout *L,
                                  const xconv_gemm_tiles *t, const char *source,
                                  const char *kernel, xconv_plan *plan, xconv_error *err)
{
    if (!fits_index(L))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "the %lld x %lld x %lld product passes the kernels' 32-bit "
                               "index range",
                               (long long)L->m, (long long)L->n, (long long)L->k);
    int vec_a = L->lda % 4 == 0 && L->k % 4 == 0 && L->a_group_stride % 4 == 0 ? 4 : 1;
    int vec_b = b_vector(L, t);
    int vec_c = t->vw == 4 && L->ldc % 4 == 0 && L->seg % 4 == 0 && L->c_seg_stride % 4 == 0 &&
                        L->c_group_stride % 4 == 0
                    ? 4
                    : 1;
    // CPU compilers vectorize across work-items and do better on a rolled k loop; PoCL's LLVM
    // also crashes on some fully unrolled single-step builds.
    int unroll = info->is_cpu ? 0 : 1;
    const struct {
        const char *name;
        long long value;
    } defines[] = {
        {"XC_GEMM_B_MODE", L->mode},
        {"XC_GEMM_M", L->m},
        {"XC_GEMM_N", L->n},
        {"XC_GEMM_K", L->k},
        {"XC_GEMM_LDA", L->lda},
        {"XC_GEMM_LDB", L->ldb},
        {"XC_GEMM_LDC", L->ldc},
        {"XC_GEMM_SEG", L->seg},
        {"XC_GEMM_B_SEG_STRIDE", L->b_seg_stride},
        {"XC_GEMM_C_SEG_STRIDE", L->c_seg_stride},
        {"XC_GEMM_A_GROUP_STRIDE", L->a_group_stride},
        {"XC_GEMM_B_GROUP_STRIDE", L->b_group_stride},
        {"XC_GEMM_C_GROUP_STRIDE", L->c_group_stride},
        {"XC_GEMM_TILE_M", t->tile_m},
        {"XC_GEMM_TILE_N", t->tile_n},
        {"XC_GEMM_TILE_K", t->tile_k},
        {"XC_GEMM_WPT_M", t->wpt_m},
        {"XC_GEMM_WPT_N", t->wpt_n},
        {"XC_GEMM_VW", t->vw},
        {"XC_GEMM_PAD", t->pad},
        {"XC_GEMM_VEC_A", vec_a},
        {"XC_GEMM_VEC_B", vec_b},
        {"XC_GEMM_VEC_C", vec_c},
        {"XC_GEMM_UNROLL_K", unroll},
    };
    if (L->mode == XCONV_GEMM_B_TABLE) {
        xconv_status st = xconv_plan_define(plan, "XC_GEMM_TABLE_LD",
                                            xconv_gemm_table_rows(L, t), err);
        if (st == XCONV_OK)
            st = xconv_plan_define(plan, "XC_GEMM_TABLE_CONST",
                                   xconv_gemm_table_const(info, L, t), err);
        if (st == XCONV_OK)
            st = xconv_plan_define(plan, "XC_GEMM_TABLE_LOCAL",
                                   xconv_gemm_table_local(info, L, t), err);
        if (st != XCONV_OK)
            return st;
    }
    for (size_t i = 0; i < sizeof defines / sizeof defines[0]; i++) {
        xconv_status st = xconv_plan_define(plan, defines[i].name, defines[i].value, err);
        if (st != XCONV_OK)
            return st;
    }
    xconv_step *step = xconv_plan_add_step(plan, source, kernel);
    if (!step)
        return xconv_error_set(err, XCONV_ERR_INVALID, "plan has too many steps");
    size_t threads_n = (size_t)(t->tile_n / t->wpt_n), threads_m = (size_t)(t->tile_m / t->wpt_m);
    size_t global[3] = {(size_t)ceil_div(L->n, t->tile_n) * threads_n,
                        (size_t)ceil_div(L->m, t->tile_m) * threads_m, (size_t)L->groups};
    size_t local[3] = {threads_n, threads_m, 1};
    xconv_step_set_3d(step, global, local);
    step->local_mem_bytes = xconv_gemm_local_bytes(t);
    if (xconv_gemm_table_local(info, L, t))
        step->local_mem_bytes += 2 * (size_t)xconv_gemm_table_rows(L, t) * sizeof(int32_t);
    return XCONV_OK;
}

int64_t xconv_gemm_table_rows(const xconv_gemm_layout *L, const xconv_gemm_tiles *t)
{
    return ceil_div(L->k, t->tile_k) * t->tile_k;
}

bool xconv_gemm_table_const(const xconv_device_info *info, const xconv_gemm_layout *L,
                            const xconv_gemm_tiles *t)
{
    uint64_t bytes = 2 * (uint64_t)xconv_gemm_table_rows(L, t) * sizeof(int32_t);
    return L->mode == XCONV_GEMM_B_TABLE && bytes <= info->const_mem_bytes &&
           bytes <= XCONV_GEMM_CONST_TABLE_MAX;
}

bool xconv_gemm_table_local(const xconv_device_info *info, const xconv_gemm_layout *L,
                            const xconv_gemm_tiles *t)
{
    uint64_t bytes = 2 * (uint64_t)xconv_gemm_table_rows(L, t) * sizeof(int32_t);
    return L->mode == XCONV_GEMM_B_TABLE && info->is_gpu &&
           xconv_gemm_local_bytes(t) + bytes <= info->local_mem_bytes;
}

void xconv_gemm_step_set_cols(xconv_step *step, const xconv_plan *plan, int64_t cols)
{
    long long tile_n = plan_value(plan, "XC_GEMM_TILE_N", 1);
    step->global[0] = (size_t)ceil_div(cols, tile_n) * step->local[0];
}

// ---------------------------------------------------------------------------------------------
// Our SGEMM on raw matrices

xconv_status xconv_sgemm_plan(const xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              xconv_plan *plan, xconv_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (m < 1 || n < 1 || k < 1)
        return xconv_error_set(err, XCONV_ERR_INVALID, "GEMM sizes must be positive");
    double dm = (double)m, dn = (double)n, dk = (double)k;  // products in double: no overflow
    double largest = fmax(dm * dk, fmax(dk * dn, dm * dn)), all = dm * dk + dk * dn + dm * dn;
    if (largest > (double)XCONV_MAX_INDEX || largest * 4 > (double)dev->info.max_alloc_bytes ||
        (dev->info.global_mem_bytes && all * 4 > (double)dev->info.global_mem_bytes))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "GEMM m=%lld,n=%lld,k=%lld needs a %.1f MiB matrix (%.1f MiB "
                               "for all three); the device allows %.1f MiB per allocation and "
                               "has %.1f MiB, and indices must stay under 2^31",
                               (long long)m, (long long)n, (long long)k, largest * 4 / 1048576.0,
                               all * 4 / 1048576.0, dev->info.max_alloc_bytes / 1048576.0,
                               dev->info.global_mem_bytes / 1048576.0);
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = m, .n = n, .k = k, .lda = k,
                           .ldb = n, .ldc = n, .seg = n, .groups = 1};
    xconv_gemm_tiles t;
    if (!xconv_gemm_choose_tiles(&dev->info, &L, &t))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "no SGEMM tiles fit the device's limits");
    xconv_status st = xconv_gemm_plan_step(&dev->info, &L, &t, "sgemm", "sgemm", plan, err);
    if (st == XCONV_OK)
        snprintf(plan->summary, sizeof plan->summary,
                 "SGEMM %lldx%lldx%lld: %dx%d tiles, k step %d, %dx%d per work-item",
                 (long long)m, (long long)n, (long long)k, t.tile_m, t.tile_n, t.tile_k,
                 t.wpt_m, t.wpt_n);
    return st;
}

xconv_status xconv_sgemm_run(xconv_device *dev, const xconv_plan *plan, xconv_buffer *a,
                             xconv_buffer *b, xconv_buffer *c, xconv_error *err)
{
    const xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(a)), XCONV_ARG_BUF(xconv_buffer_handle(b)), XCONV_ARG_BUF(xconv_buffer_handle(c)),
                              XCONV_ARG_I32(0), XCONV_ARG_I32(0),
                              XCONV_ARG_I32(plan_value(plan, "XC_GEMM_N", 0))};
    return xconv_plan_launch(dev, plan, 0, args, 6, err);
}
