// SPDX-License-Identifier: MIT
// GEMM steps: the defines and launch geometry of one product on cl/sgemm.cl with the tiles
// plan_gemm.c chose, its offset table's place, and our SGEMM on raw matrices.
#include <math.h>
#include <string.h>

#include "families/gemm/plan_gemm.h"
#include "xconv_gemm_params.h"

// ---------------------------------------------------------------------------------------------
// Defines and geometry

// True when every element offset the kernel forms for L stays in the 32-bit index range.
static bool fits_index(const xconv_gemm_layout *L)
{
    int64_t segs = xconv_ceil_div(L->n, L->seg);
    int64_t b_end = (L->groups - 1) * L->b_group_stride + (segs - 1) * L->b_seg_stride +
                    L->k * L->ldb + L->seg;
    int64_t c_end = (L->groups - 1) * L->c_group_stride + (segs - 1) * L->c_seg_stride +
                    L->m * L->ldc + L->seg;
    int64_t a_end = L->groups * L->a_group_stride + L->m * L->lda;
    int64_t part_end = (int64_t)(xconv_gemm_split_bytes(L) / sizeof(float));  // + its region
    return L->n <= XCONV_MAX_INDEX && a_end <= XCONV_MAX_INDEX && c_end <= XCONV_MAX_INDEX &&
           (L->mode != XCONV_GEMM_B_MEMORY || b_end <= XCONV_MAX_INDEX) &&
           part_end <= XCONV_MAX_INDEX / 2;
}

bool xconv_gemm_takes_sizes(const xconv_problem *p, const xconv_gemm_layout *L)
{
    return p && L->runtime_dims && !p->epi.pool_h;
}

// The defines L and t derive (vector widths, unrolling, the table's place) on info's device for
// p (NULL: raw matrices).
static xconv_gemm_derived derive(const xconv_device_info *info, const xconv_problem *p,
                                 const xconv_gemm_layout *L, const xconv_gemm_tiles *t)
{
    bool split = L->split_k > 1;  // C: the partials, rows of part_ld floats at 16-byte offsets
    xconv_gemm_derived d = {
        .vec_a = L->lda % 4 == 0 && L->k % 4 == 0 && L->a_group_stride % 4 == 0 ? 4 : 1,
        .vec_b = xconv_gemm_b_vector(L, t),
        .vec_c = t->vw == 4 && (split || (L->ldc % 4 == 0 && L->seg % 4 == 0 &&
                                          L->c_seg_stride % 4 == 0 && L->c_group_stride % 4 == 0))
                     ? 4
                     : 1,
        // CPU compilers vectorize across work-items and do better on a rolled k loop; PoCL's
        // LLVM also crashes on some fully unrolled single-step builds.
        .unroll_k = info->is_cpu ? 0 : 1,
    };
    if (L->mode == XCONV_GEMM_B_TABLE) {
        d.table_ld = xconv_gemm_table_rows(L, t);
        d.table_const = xconv_gemm_table_const(info, L, t);
        d.table_local = xconv_gemm_table_local(info, L, t);
    }
    if (split) {
        d.split_steps = xconv_gemm_split_steps(L, t);
        d.part_ld = xconv_gemm_part_ld(L);
    }
    // With the sizes at run time the K steps are not known when compiling: the loop is kept
    // rolled wherever a long one would be (the programs of every K alike).
    int64_t steps = xconv_gemm_takes_sizes(p, L) ? INT32_MAX : xconv_gemm_split_steps(L, t);
    d.roll_steps = xconv_gemm_roll_steps(info, t, L->mode, steps);
    return d;
}

// True when the kernels read a define of L that depends on the batch: a split product's
// partials (XC_GEMM_PART_LD, N's columns rounded up) or pool windows' columns as one segment
// (XC_GEMM_SEG). Otherwise XC_GEMM_N, which the kernels never read (the columns reach them as
// an argument or from XC_N), is the only one.
static bool reads_batch_define(const xconv_gemm_layout *L)
{
    return L->split_k > 1 || (L->seg == L->n && L->c_seg_stride == 0);
}

bool xconv_gemm_left_out(const xconv_step *s, const char *name)
{
    if (!s->bake_batch && strcmp(name, "XC_GEMM_N") == 0)
        return true;
    if (s->bake_dims)
        return false;
    static const char list[] = XCONV_GEMM_SHAPE_FIELDS;
    size_t len = strlen(name);
    for (const char *f = list; (f = strstr(f, name)) != NULL; f += len)
        if ((f == list || f[-1] == ' ') && (f[len] == ' ' || !f[len]))
            return true;
    return false;
}

// Adds the defines of L and t (common/xconv_gemm_params.h) to s, but those s takes at run time
// (xconv_gemm_left_out); returns the first failure.
static xconv_status define_gemm(xconv_step *s, const xconv_gemm_layout *L,
                                const xconv_gemm_tiles *t, const xconv_gemm_derived *d,
                                xconv_error *err)
{
    xconv_status st = XCONV_OK;
#define XCONV_DEFINE_PARAM(name, expr, meaning)                       \
    if (st == XCONV_OK && !xconv_gemm_left_out(s, #name))             \
        st = xconv_step_define(s, #name, (long long)(expr), err);
    if (L->mode == XCONV_GEMM_B_TABLE) {
        XCONV_GEMM_TABLE_DEFINES(XCONV_DEFINE_PARAM)
    }
    XCONV_GEMM_DEFINES(XCONV_DEFINE_PARAM)
    if (L->split_k > 1) {
        XCONV_GEMM_SPLIT_DEFINES(XCONV_DEFINE_PARAM)
    }
    if (d->roll_steps) {
        XCONV_GEMM_ROLL_DEFINES(XCONV_DEFINE_PARAM)
    }
#undef XCONV_DEFINE_PARAM
    return st;
}

xconv_status xconv_gemm_plan_step(const xconv_device_info *info, const xconv_problem *p,
                                  const xconv_gemm_layout *L, const xconv_gemm_tiles *t,
                                  const char *label, const char *source, const char *kernel,
                                  xconv_plan *plan, xconv_step **out, xconv_error *err)
{
    if (!fits_index(L))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "the %lld x %lld x %lld product passes the kernels' 32-bit "
                               "index range",
                               (long long)L->m, (long long)L->n, (long long)L->k);
    xconv_step *step = xconv_plan_add_step(plan, label, source, kernel);
    if (!step)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_gemm_derived d = derive(info, p, L, t);
    step->bake_batch = step->bake_batch || !p || reads_batch_define(L);
    if (xconv_gemm_takes_sizes(p, L))  // the batch with them
        step->bake_batch = step->bake_dims = false;
    xconv_status st = p ? xconv_step_define_problem(step, p, err) : XCONV_OK;
    if (st == XCONV_OK)
        st = define_gemm(step, L, t, &d, err);
    if (st != XCONV_OK)
        return st;
    size_t threads_n = (size_t)(t->tile_n / t->wpt_n), threads_m = (size_t)(t->tile_m / t->wpt_m);
    size_t global[3] = {(size_t)xconv_ceil_div(L->n, t->tile_n) * threads_n,
                        (size_t)xconv_ceil_div(L->m, t->tile_m) * threads_m,
                        (size_t)L->groups * (size_t)(L->split_k > 1 ? L->split_k : 1)};
    size_t local[3] = {threads_n, threads_m, 1};
    // Two work-groups a compute unit, so that one's FMAs run while the other waits at the k
    // step's barrier: where the register file is known, the block's registers are capped at
    // half of it (128 a work-item for 256 work-items on NVIDIA GPUs). Without the cap NVIDIA's
    // OpenCL compiler gave the 128x128 blocks 130-137 registers and one work-group an SM, where
    // NVRTC gave the same text 119-128 and two. Split-K blocks (132-136 registers uncapped)
    // spill 3-5 registers under the cap on sm_90 and still ran 1.12-1.19x faster through CUDA
    // with two work-groups an SM (ResNet-50's split 3x3 and 1x1 layers, both backends, never
    // slower: bench/results/2026-11-27-h100-*-gemm_splitk_cap_*.json).
    st = xconv_step_cap_registers(step, info, 2, threads_n * threads_m,
                                  xconv_gemm_tile_registers(t, L->mode), err);
    if (st != XCONV_OK)
        return st;
    xconv_step_set_3d(step, global, local);
    step->local_mem_bytes = xconv_gemm_local_bytes(t);
    if (d.table_local)
        step->local_mem_bytes += 2 * (size_t)d.table_ld * sizeof(int32_t);
    *out = step;
    return XCONV_OK;
}

int64_t xconv_gemm_table_rows(const xconv_gemm_layout *L, const xconv_gemm_tiles *t)
{
    return xconv_ceil_div(L->k, t->tile_k) * t->tile_k;
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

void xconv_gemm_step_set_cols(xconv_step *step, int64_t cols)
{
    long long tile_n = xconv_step_value(step, "XC_GEMM_TILE_N", 1);
    step->global[0] = (size_t)xconv_ceil_div(cols, tile_n) * step->local[0];
}

// ---------------------------------------------------------------------------------------------
// Our SGEMM on raw matrices

xconv_problem xconv_sgemm_problem(int64_t m, int64_t n, int64_t k)
{
    xconv_problem p = xconv_problem_default();
    p.n = 1, p.c = k, p.h = 1, p.w = n, p.k = m, p.r = 1, p.s = 1;
    return p;
}

xconv_status xconv_gemm_check_size(const xconv_device *dev, int64_t m, int64_t n, int64_t k,
                                   xconv_error *err)
{
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
    return XCONV_OK;
}

xconv_status xconv_sgemm_plan(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              const xconv_plan_options *opts, xconv_plan **out,
                              xconv_error *err)
{
    *out = NULL;
    xconv_status st = xconv_gemm_check_size(dev, m, n, k, err);
    if (st != XCONV_OK)
        return st;
    xconv_problem p = xconv_sgemm_problem(m, n, k);
    xconv_plan *plan = xconv_plan_new(dev, NULL, &p, opts);
    if (!plan)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a plan");
    xconv_gemm_layout L = {.mode = XCONV_GEMM_B_MEMORY, .m = m, .n = n, .k = k, .lda = k,
                           .ldb = n, .ldc = n, .seg = n, .groups = 1};
    xconv_gemm_tiles t;
    xconv_step *step = NULL;
    st = xconv_gemm_choose(&dev->info, &L, &plan->opts, &t, err);
    if (st == XCONV_OK)
        st = xconv_gemm_plan_step(&dev->info, NULL, &L, &t, "SGEMM", "sgemm", "sgemm", plan,
                                  &step, err);
    int region = st == XCONV_OK && L.split_k > 1
                     ? xconv_plan_region(plan, "split-K partials", xconv_gemm_split_bytes(&L))
                     : -1;
    if (st == XCONV_OK) {
        // (A, B, C, B's first element, C's first element, columns of C); split, C is the
        // partials' region and the reduce step writes C.
        xconv_step_arg_buffer(step, XCONV_REF_W);
        xconv_step_arg_buffer(step, XCONV_REF_X);
        xconv_step_arg_buffer(step, region >= 0 ? XCONV_REF_WORKSPACE : XCONV_REF_Y);
        xconv_step_arg_int(step, 0);
        xconv_step_arg_int(step, region >= 0 ? (int32_t)(plan->regions[region].offset / 4) : 0);
        xconv_step_arg_int(step, (int32_t)n);
        if (region >= 0)
            st = xconv_gemm_plan_reduce(&dev->info, NULL, &L, plan, region, XCONV_REF_Y, 0, n,
                                        0u, err);
    }
    if (st != XCONV_OK) {
        xconv_plan_destroy(plan);
        return st;
    }
    xconv_plan_summarize(plan, "SGEMM %lldx%lldx%lld: %dx%d tiles, k step %d, %dx%d per "
                         "work-item", (long long)m, (long long)n, (long long)k, t.tile_m,
                         t.tile_n, t.tile_k, t.wpt_m, t.wpt_n);
    if (region >= 0)
        xconv_plan_summarize(plan, "split-K: %d K slices of %lld steps (%.1f MiB of partials), "
                             "then a reduce in slice order", L.split_k,
                             (long long)xconv_gemm_split_steps(&L, &t),
                             xconv_gemm_split_bytes(&L) / 1048576.0);
    *out = plan;
    return XCONV_OK;
}

xconv_status xconv_vendor_gemm_plan(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                                    int64_t dtype, int64_t math, xconv_plan **out,
                                    xconv_error *err)
{
    *out = NULL;
    if (!dev->be || !dev->be->sgemm)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "the %s backend has no vendor BLAS",
                               xconv_backend_name(dev->info.backend));
    xconv_status st = xconv_gemm_check_size(dev, m, n, k, err);
    if (st != XCONV_OK)
        return st;
    // A and B in the storage type (the plan's problem sizes x = B and w = A by it; C, fp32, is
    // at least as large as y of that type).
    xconv_problem p = xconv_sgemm_problem(m, n, k);
    p.dtype = dtype, p.math = math;
    st = xconv_problem_check(&p, err);
    if (st != XCONV_OK)
        return st;
    bool typed = dtype != XCONV_DTYPE_F32 || math != XCONV_MATH_F32;
    xconv_plan *plan = xconv_plan_new(dev, NULL, &p, NULL);
    xconv_step *step =
        plan ? xconv_plan_add_vendor_sgemm(plan, typed ? "vendor GEMM" : "vendor SGEMM") : NULL;
    if (!step) {
        xconv_plan_destroy(plan);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a plan");
    }
    // Strides of whole matrices: CLBlast refuses stride 0 on a batch of one.
    size_t um = (size_t)m, un = (size_t)n, uk = (size_t)k;
    step->gemm = (xconv_vendor_gemm_step){
        .m = um, .n = un, .k = uk, .batch = 1,
        .a = {.ref = XCONV_REF_W, .region = -1, .ld = uk, .stride = um * uk},
        .b = {.ref = XCONV_REF_X, .region = -1, .ld = un, .stride = uk * un},
        .c = {.ref = XCONV_REF_Y, .region = -1, .ld = un, .stride = um * un},
        .dtype = dtype, .math = math,
    };
    if (typed)
        xconv_plan_summarize(plan, "vendor GEMM %lldx%lldx%lld: A and B %s, C f32, math %s",
                             (long long)m, (long long)n, (long long)k, xconv_dtype_name(dtype),
                             xconv_math_name(math));
    else
        xconv_plan_summarize(plan, "vendor SGEMM %lldx%lldx%lld", (long long)m, (long long)n,
                             (long long)k);
    *out = plan;
    return XCONV_OK;
}
