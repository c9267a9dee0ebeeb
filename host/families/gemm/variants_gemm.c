// SPDX-License-Identifier: MIT
// The GEMM convolution family: convolution as a matrix product (im2col, implicit, 1x1), all on
// our tiled SGEMM body (cl/sgemm.cl) with tiles from host/families/gemm/plan_gemm.c.
#include <stdio.h>
#include <string.h>

#include "plan/plan_epilogue.h"
#include "families/gemm/plan_gemm.h"
#include "plan/variant.h"

// ---------------------------------------------------------------------------------------------
// Shared planning

// The product of one group: M = K/groups filters, K = C/groups * R * S taps, N = images * P * Q
// output positions in segments of P*Q (one per image), y's layout for C, and the filters as A.
static xconv_gemm_layout conv_layout(const xconv_problem *p, xconv_gemm_mode mode, int64_t images)
{
    int64_t pq = xconv_problem_out_h(p) * xconv_problem_out_w(p);
    int64_t kg = p->k / p->groups, crs = p->c / p->groups * p->r * p->s;
    return (xconv_gemm_layout){
        .mode = mode, .m = kg, .n = images * pq, .k = crs,
        .lda = crs, .ldb = pq, .ldc = pq, .seg = pq,
        .b_seg_stride = p->c * p->r * p->s * pq, .c_seg_stride = p->k * pq,
        .a_group_stride = kg * crs, .b_group_stride = crs * pq, .c_group_stride = kg * pq,
        .groups = p->groups,
    };
}

// A fused epilogue (bias, activation, pool) is applied by the store that sees whole sums: the
// GEMM's, or under split-K (whose GEMM stores partial sums) the reduce step's, which applies all
// of it (cl/splitk_reduce.cl): these are its parts.
#define SPLIT_EPILOGUE (XCONV_FUSED_BIAS_ACT | XCONV_FUSED_POOL)

// Appends the GEMM step for L with tiles t (chosen here with L's split when t is NULL) running
// `kernel` of cl/sgemm.cl with p's defines, into *out; appends `what`, the tiles and the split
// to the summary.
static xconv_status plan_gemm_step(const xconv_device *dev, const xconv_problem *p,
                                   xconv_gemm_layout *L, const xconv_gemm_tiles *t,
                                   const char *kernel, const char *what, xconv_plan *plan,
                                   xconv_step **out, xconv_error *err)
{
    xconv_gemm_tiles chosen;
    if (!t) {
        xconv_status st = xconv_gemm_choose(&dev->info, L, &plan->opts, &chosen, err);
        if (st != XCONV_OK)
            return st;
        t = &chosen;
    }
    xconv_status st = xconv_gemm_plan_step(&dev->info, p, L, t, what, "sgemm", kernel, plan, out,
                                           err);
    if (st != XCONV_OK)
        return st;
    xconv_plan_summarize(plan, "%s: %lldx%lldx%lld x %lld group%s, %dx%d tiles, k step %d, "
                         "%dx%d per work-item", what, (long long)L->m, (long long)L->n,
                         (long long)L->k, (long long)L->groups, L->groups == 1 ? "" : "s",
                         t->tile_m, t->tile_n, t->tile_k,
                         t->wpt_m, t->wpt_n);
    xconv_gemm_summarize_split(plan, L, t, xconv_problem_has_epilogue(p));
    return XCONV_OK;
}

// Adds the workspace region of split product L's partials; returns its index, or -1 when L is
// not split.
static int split_region(xconv_plan *plan, const xconv_gemm_layout *L)
{
    return L->split_k > 1 ? xconv_plan_region(plan, "split-K partials", xconv_gemm_split_bytes(L))
                          : -1;
}

// The element offset of workspace region `region` (the partials), as a kernel's int argument.
static int64_t region_floats(const xconv_plan *plan, int region)
{
    return (int64_t)(plan->regions[region].offset / sizeof(float));
}

// Adds the arguments of a GEMM step of a convolution: (A = w, B, C = y, A's first element, C's
// first element, columns of C); under split-K C is the partials' region `region` instead, and
// the reduce step that follows writes y from c_offset, applying p's epilogue. Returns the
// reduce's status (XCONV_OK).
static xconv_status gemm_args(const xconv_device *dev, const xconv_problem *p,
                              const xconv_gemm_layout *L, xconv_plan *plan, int region,
                              xconv_step *s, xconv_tensor_ref b, int64_t c_offset, int64_t cols,
                              xconv_error *err)
{
    bool split = L->split_k > 1;
    xconv_step_arg_buffer(s, XCONV_REF_W);
    xconv_step_arg_buffer(s, b);
    xconv_step_arg_buffer(s, split ? XCONV_REF_WORKSPACE : XCONV_REF_Y);
    xconv_step_arg_int(s, 0);
    xconv_step_arg_int(s, (int32_t)(split ? region_floats(plan, region) : c_offset));
    xconv_step_arg_int(s, (int32_t)cols);
    return split ? xconv_gemm_plan_reduce(&dev->info, p, L, plan, region, XCONV_REF_Y, c_offset,
                                          cols, SPLIT_EPILOGUE, err)
                 : XCONV_OK;
}

// Adds the output arguments of an implicit GEMM step: y, or the partials' region `region`
// under split-K (its workspace pointer and offset), whose reduce step then writes y.
static void implicit_output_args(const xconv_gemm_layout *L, const xconv_plan *plan, int region,
                                 xconv_step *s)
{
    if (L->split_k > 1)
        xconv_step_arg_region(s, plan, region);
    else
        xconv_step_arg_buffer(s, XCONV_REF_Y);
}

// Fuses p's bias and activation into GEMM step s, whose arguments are complete (the bias comes
// last), and the pool when `pooled` (the implicit GEMMs' layout of windows). Otherwise the pool
// stays a step: a work-item's columns of C are output positions VW at a time, and a window's
// rows lie Q columns apart, in another work-item's. A split product's (L) reduce step has
// applied the epilogue already: nothing to do. Returns the hook's status.
static xconv_status fuse_store(xconv_step *s, const xconv_gemm_layout *L, const xconv_problem *p,
                               bool pooled, xconv_plan *plan, xconv_error *err)
{
    if (L->split_k > 1)
        return XCONV_OK;
    if (p->epi.pool_h && !pooled && !plan->epi_note[0])
        snprintf(plan->epi_note, sizeof plan->epi_note,
                 "a GEMM work-item's columns of C do not hold whole pool windows");
    return xconv_step_fuse_epilogue(s, p, XCONV_FUSED_BIAS_ACT |
                                              (pooled ? XCONV_FUSED_POOL : 0u), plan, err);
}

// The largest pool window the implicit GEMMs fuse: a window's outputs fill part of a run of VW
// (4) columns of C.
#define GEMM_POOL_WINDOW_MAX 4

// Returns true when the implicit GEMMs can pool p in their store: windows as wide as their
// stride, unpadded, of at most GEMM_POOL_WINDOW_MAX outputs dividing it; else false with the
// reason in plan->epi_note (nothing to say when p does not pool).
static bool gemm_pool_fits(const xconv_problem *p, xconv_plan *plan)
{
    const xconv_epilogue *e = &p->epi;
    if (!e->pool_h)
        return false;
    const char *why = NULL;
    if (e->pool_stride_h != e->pool_h || e->pool_stride_w != e->pool_w || e->pool_pad_h ||
        e->pool_pad_w)
        why = "the implicit GEMMs pool only unpadded windows as wide as their stride";
    else if (GEMM_POOL_WINDOW_MAX % (e->pool_h * e->pool_w))
        why = "the implicit GEMMs pool only windows of 1, 2 or 4 outputs (a run of 4 columns)";
    if (why)
        snprintf(plan->epi_note, sizeof plan->epi_note, "%s", why);
    return !why;
}

// Lays out L's columns as p's pool windows (each window's outputs consecutive, row-major): N is
// every window's outputs, and C is y at the group's first channel, one segment.
static void pool_layout(const xconv_problem *p, xconv_gemm_layout *L)
{
    int64_t yhw = xconv_problem_y_h(p) * xconv_problem_y_w(p);
    L->n = p->n * yhw * p->epi.pool_h * p->epi.pool_w;
    L->seg = L->n;
    L->ldc = yhw;
    L->c_seg_stride = 0;
    L->c_group_stride = L->m * yhw;
}

// ---------------------------------------------------------------------------------------------
// im2col_gemm: our im2col kernel into a workspace, then our SGEMM, chunked along the batch

// Images per im2col pass on dev under opts; returns XCONV_ERR_NOT_APPLICABLE when one image
// does not fit.
static xconv_status im2col_chunk(const xconv_device *dev, const xconv_problem *p,
                                 const xconv_plan_options *opts, int64_t *chunk,
                                 xconv_error *err)
{
    *chunk = xconv_im2col_chunk(&dev->info, p);
    if (opts->batch_chunk > 0 && opts->batch_chunk < *chunk)
        *chunk = opts->batch_chunk;
    if (*chunk >= 1)
        return XCONV_OK;
    int64_t image_elems = p->c * p->r * p->s * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                           "one image's im2col columns (%lld floats) pass the workspace "
                           "budget (largest allocation %llu bytes)",
                           (long long)image_elems, (unsigned long long)dev->info.max_alloc_bytes);
}

// Plans, per chunk of as many images as fit the workspace budget, im2col into the workspace
// and one SGEMM over the chunk's columns (images side by side) into y's chunk; a last partial
// chunk's SGEMM launches only the column tiles it has.
static xconv_status plan_im2col_gemm(const xconv_device *dev, const xconv_problem *p,
                                     const xconv_plan_options *opts, xconv_plan *plan,
                                     xconv_error *err)
{
    int64_t chunk, pq = xconv_problem_out_h(p) * xconv_problem_out_w(p);
    xconv_status st = im2col_chunk(dev, p, opts, &chunk, err);
    if (st != XCONV_OK)
        return st;
    xconv_plan_region(plan, "im2col columns", xconv_im2col_bytes(p, chunk));
    xconv_plan_summarize(plan, "im2col of %lld image%s a pass (%.1f MiB)", (long long)chunk,
                         chunk == 1 ? "" : "s", plan->workspace_bytes / 1048576.0);
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_MEMORY, chunk);
    // The split's partials share the largest allocation with the im2col columns.
    xconv_device_info room = dev->info;
    size_t used = plan->workspace_bytes + XCONV_REGION_ALIGN;
    room.max_alloc_bytes = room.max_alloc_bytes > used ? room.max_alloc_bytes - used : 0;
    xconv_gemm_tiles t;
    st = xconv_gemm_choose(&room, &L, &plan->opts, &t, err);
    xconv_step *first = NULL;
    int region = -1;
    for (int64_t n0 = 0; st == XCONV_OK && n0 < p->n; n0 += chunk) {
        int64_t images = p->n - n0 < chunk ? p->n - n0 : chunk;
        st = xconv_plan_im2col(&dev->info, p, chunk, n0, images, plan, err);
        xconv_step *gemm = NULL;
        if (st == XCONV_OK && !first) {
            st = plan_gemm_step(dev, p, &L, &t, "sgemm", "SGEMM", plan, &first, err);
            gemm = first;
            region = split_region(plan, &L);
        } else if (st == XCONV_OK) {  // the same program as the first chunk's
            gemm = xconv_plan_add_step(plan, first->label, first->source, first->kernel);
            st = gemm ? xconv_step_define_all(gemm, first, err)
                      : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
            if (st == XCONV_OK) {
                xconv_step_set_3d(gemm, first->global, first->local);
                gemm->local_mem_bytes = first->local_mem_bytes;
            }
        }
        if (st != XCONV_OK)
            break;
        if (images < chunk)
            xconv_gemm_step_set_cols(gemm, images * pq);
        st = gemm_args(dev, p, &L, plan, region, gemm, XCONV_REF_WORKSPACE, n0 * p->k * pq,
                       images * pq, err);
        if (st == XCONV_OK && gemm == first)  // later chunks copied its defines; bias too
            st = fuse_store(gemm, &L, p, false, plan, err);
        else if (st == XCONV_OK && L.split_k < 2 && p->epi.bias &&
                 (plan->fused & XCONV_FUSED_BIAS_ACT))
            xconv_step_arg_buffer(gemm, XCONV_REF_BIAS);
    }
    return st;
}

// ---------------------------------------------------------------------------------------------
// gemm_1x1: a 1x1, stride-1, unpadded convolution is y[n][g] = w[g] * x[n][g] over channels

static bool gemm_1x1_applies(const xconv_variant *v, const xconv_device *dev,
                             const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    (void)dev;
    if (p->r == 1 && p->s == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_h == 0 &&
        p->pad_w == 0)
        return true;
    snprintf(reason, len, "gemm_1x1 needs a 1x1 filter, stride 1 and no padding");
    return false;
}

// Plans the SGEMM over the input itself: B rows are channels, columns the images' pixels.
static xconv_status plan_gemm_1x1(const xconv_device *dev, const xconv_problem *p,
                                  const xconv_plan_options *opts, xconv_plan *plan,
                                  xconv_error *err)
{
    (void)opts;
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_MEMORY, p->n);
    L.runtime_dims = xconv_plan_runtime_dims(plan);  // B is x: sgemm.cl's strides for mode 0
    xconv_step *step = NULL;
    xconv_status st =
        plan_gemm_step(dev, p, &L, NULL, "sgemm", "SGEMM on the input", plan, &step, err);
    if (st == XCONV_OK)
        st = gemm_args(dev, p, &L, plan, split_region(plan, &L), step, XCONV_REF_X, 0,
                       p->n * xconv_problem_out_h(p) * xconv_problem_out_w(p), err);
    return st == XCONV_OK ? fuse_store(step, &L, p, false, plan, err) : st;
}

// ---------------------------------------------------------------------------------------------
// implicit_gemm and implicit_precomp: B gathered from x inside the GEMM, no im2col workspace

// Plans one GEMM step gathering B from x, with arguments (x, w, y).
static xconv_status plan_implicit_gemm(const xconv_device *dev, const xconv_problem *p,
                                       const xconv_plan_options *opts, xconv_plan *plan,
                                       xconv_error *err)
{
    (void)opts;  // &plan->opts are the options
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_GATHER, p->n);
    L.b_group_stride = p->c / p->groups * p->h * p->w;  // a group's first channel in x
    L.taps = p->r * p->s;
    L.runtime_dims = xconv_plan_runtime_dims(plan);
    xconv_gemm_tiles t;
    xconv_status st = xconv_gemm_choose(&dev->info, &L, &plan->opts, &t, err);
    bool pooled = st == XCONV_OK && L.split_k < 2 && gemm_pool_fits(p, plan) &&
                  t.vw % (p->epi.pool_h * p->epi.pool_w) == 0;
    if (pooled)
        pool_layout(p, &L);
    xconv_step *step = NULL;
    if (st == XCONV_OK)
        st = plan_gemm_step(dev, p, &L, &t, "implicit_gemm", "implicit GEMM", plan, &step, err);
    if (st != XCONV_OK)
        return st;
    int region = split_region(plan, &L);
    xconv_step_arg_buffer(step, XCONV_REF_X);
    xconv_step_arg_buffer(step, XCONV_REF_W);
    implicit_output_args(&L, plan, region, step);
    st = fuse_store(step, &L, p, pooled, plan, err);
    if (st == XCONV_OK && L.split_k > 1)
        st = xconv_gemm_plan_reduce(&dev->info, p, &L, plan, region, XCONV_REF_Y, 0, L.n,
                                    SPLIT_EPILOGUE, err);
    return st;
}

// The table packs each tap's displacement as dh << 16 | dw.
static bool implicit_precomp_applies(const xconv_variant *v, const xconv_device *dev,
                                     const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    (void)dev;
    if ((p->r - 1) * p->dil_h < 32768 && (p->s - 1) * p->dil_w < 32768)
        return true;
    snprintf(reason, len, "implicit_precomp's table needs (R-1)*dil_h and (S-1)*dil_w < 32768");
    return false;
}

// Plans the offset table (2 ints per row of B, K rounded up to whole K steps: the workspace,
// written by a table step with the GEMM's defines) and the GEMM reading it from constant or
// global memory.
static xconv_status plan_implicit_precomp(const xconv_device *dev, const xconv_problem *p,
                                          const xconv_plan_options *opts, xconv_plan *plan,
                                          xconv_error *err)
{
    (void)opts;  // &plan->opts are the options
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_TABLE, p->n);
    L.b_group_stride = p->c / p->groups * p->h * p->w;
    L.runtime_dims = xconv_plan_runtime_dims(plan);  // XC_GEMM_TABLE_LD stays baked
    xconv_gemm_tiles t;
    xconv_status st = xconv_gemm_choose(&dev->info, &L, &plan->opts, &t, err);
    if (st != XCONV_OK)
        return st;
    bool pooled = L.split_k < 2 && gemm_pool_fits(p, plan) &&
                  t.vw % (p->epi.pool_h * p->epi.pool_w) == 0;
    if (pooled)
        pool_layout(p, &L);
    int64_t rows = xconv_gemm_table_rows(&L, &t);
    int region = xconv_plan_region(plan, "offset table", (size_t)(2 * rows) * sizeof(int32_t));
    size_t multiple = dev->info.preferred_multiple ? dev->info.preferred_multiple : 1;
    xconv_step *table = xconv_plan_add_step(plan, "offset table", "implicit_precomp",
                                            "implicit_precomp_table");
    if (!table)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_step_set_1d(table, (size_t)rows,
                      xconv_fit_work_group(&dev->info, xconv_round_up(64, multiple)));
    xconv_step_arg_buffer(table, XCONV_REF_WORKSPACE);
    bool constant = xconv_gemm_table_const(&dev->info, &L, &t);
    xconv_plan_summarize(plan, "offset table of %lld rows (%zu bytes, %s%s)", (long long)rows,
                         plan->workspace_bytes, constant ? "constant memory" : "global memory",
                         xconv_gemm_table_local(&dev->info, &L, &t) ? ", read from a local copy"
                                                                    : "");
    xconv_step *gemm = NULL;
    st = plan_gemm_step(dev, p, &L, &t, "implicit_precomp", "implicit GEMM", plan, &gemm, err);
    if (st == XCONV_OK)
        st = xconv_step_define_all(table, gemm, err);  // the table step reads the GEMM's
    if (st != XCONV_OK)
        return st;
    int partials = split_region(plan, &L);
    xconv_step_arg_buffer(gemm, XCONV_REF_X);
    xconv_step_arg_buffer(gemm, XCONV_REF_W);
    implicit_output_args(&L, plan, partials, gemm);
    if (constant)
        xconv_step_arg_constant(gemm, XCONV_REF_WORKSPACE, region, plan->regions[region].bytes,
                                "xc_gemm_table");
    else
        xconv_step_arg_buffer(gemm, XCONV_REF_WORKSPACE);  // the table: region 0, offset 0
    st = fuse_store(gemm, &L, p, pooled, plan, err);
    if (st == XCONV_OK && L.split_k > 1)
        st = xconv_gemm_plan_reduce(&dev->info, p, &L, plan, partials, XCONV_REF_Y, 0, L.n,
                                    SPLIT_EPILOGUE, err);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Tuning: the planner's tiles and split, then the search space in the order of its model

#define GEMM_TUNINGS_MAX 64

// Returns the columns of GEMM step s: XC_GEMM_N, or where the batch is a run-time argument (no
// XC_GEMM_N) its segments of XC_GEMM_SEG columns, one an image.
static int64_t gemm_cols(const xconv_step *s)
{
    long long seg = xconv_step_value(s, "XC_GEMM_SEG", 1);
    return xconv_step_value(s, "XC_GEMM_N", s->batch_arg ? seg * s->batch : 1);
}

// The product of a GEMM step that takes the problem's sizes at run time (no shape defines),
// from the plan's problem as its planner laid it out (plan_gemm_1x1, plan_implicit_gemm,
// plan_implicit_precomp; for the latter the first such step is the table's, with its defines).
static xconv_gemm_layout runtime_layout(const xconv_plan *plan, const xconv_step *s)
{
    const xconv_problem *p = &plan->conv;
    xconv_gemm_mode mode = (xconv_gemm_mode)xconv_step_value(s, "XC_GEMM_B_MODE", 0);
    xconv_gemm_layout L = conv_layout(p, mode, p->n);
    if (mode != XCONV_GEMM_B_MEMORY)
        L.b_group_stride = p->c / p->groups * p->h * p->w;
    return L;
}

// Reads the tiles, the split and the product of plan's first GEMM step into *t, *split and *L
// (enough of L for the search space: mode, sizes, B's layout); returns false when it has none.
static bool planned_gemm(const xconv_plan *plan, xconv_gemm_tiles *t, int *split,
                         xconv_gemm_layout *L)
{
    for (int i = 0; i < plan->nsteps; i++) {
        const xconv_step *s = plan->steps[i];
        if (xconv_step_value(s, "XC_GEMM_TILE_M", 0) <= 0)
            continue;
        *t = (xconv_gemm_tiles){
            (int)xconv_step_value(s, "XC_GEMM_TILE_M", 0),
            (int)xconv_step_value(s, "XC_GEMM_TILE_N", 0),
            (int)xconv_step_value(s, "XC_GEMM_TILE_K", 0),
            (int)xconv_step_value(s, "XC_GEMM_WPT_M", 0),
            (int)xconv_step_value(s, "XC_GEMM_WPT_N", 0),
            (int)xconv_step_value(s, "XC_GEMM_VW", 0),
            (int)xconv_step_value(s, "XC_GEMM_PAD", 0)};
        *split = (int)xconv_step_value(s, "XC_GEMM_SPLIT_K", 1);
        if (s->dims_arg) {
            *L = runtime_layout(plan, s);
            return true;
        }
        *L = (xconv_gemm_layout){
            .mode = (xconv_gemm_mode)xconv_step_value(s, "XC_GEMM_B_MODE", 0),
            .m = xconv_step_value(s, "XC_GEMM_M", 1), .n = gemm_cols(s),
            .k = xconv_step_value(s, "XC_GEMM_K", 1), .ldb = xconv_step_value(s, "XC_GEMM_LDB", 1),
            .seg = xconv_step_value(s, "XC_GEMM_SEG", 1),
            .b_seg_stride = xconv_step_value(s, "XC_GEMM_B_SEG_STRIDE", 0),
            .b_group_stride = xconv_step_value(s, "XC_GEMM_B_GROUP_STRIDE", 0),
            .groups = plan->problem.groups};
        return true;
    }
    return false;
}

// Fills out with the tunings to time for v on p: the planner's own tiles and split first, then
// the points of the search space (xconv_gemm_search_space: tiles x splits, cheapest by the
// planner's model first) with which v plans, as forced tiles with a split field. Returns their
// count.
static int gemm_tunings(const xconv_variant *v, xconv_device *dev, const xconv_problem *p,
                        xconv_tuning *out, int max)
{
    xconv_error err = {0};  // refusals are expected and not reported
    xconv_plan *plan = NULL;
    xconv_gemm_tiles own, list[GEMM_TUNINGS_MAX];
    int own_split = 1, splits[GEMM_TUNINGS_MAX];
    xconv_gemm_layout L;
    if (max < 1 || xconv_variant_plan(v, dev, p, NULL, &plan, &err) != XCONV_OK)
        return 0;
    bool has = planned_gemm(plan, &own, &own_split, &L);
    xconv_plan_destroy(plan);
    if (!has)
        return 0;
    memset(&out[0], 0, sizeof out[0]);
    xconv_gemm_tuning_format(&own, own_split, out[0].gemm_tiles, sizeof out[0].gemm_tiles);
    int n = 1, count = xconv_gemm_search_space(&dev->info, &L, list, splits, GEMM_TUNINGS_MAX);
    for (int i = 0; i < count && n < max; i++) {
        if (memcmp(&list[i], &own, sizeof own) == 0 && splits[i] == own_split)
            continue;
        memset(&out[n], 0, sizeof out[n]);
        xconv_gemm_tuning_format(&list[i], splits[i], out[n].gemm_tiles,
                                 sizeof out[n].gemm_tiles);
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        opts.gemm_tiles = xconv_gemm_forced(&list[i], splits[i]);
        if (xconv_variant_plan(v, dev, p, &opts, &plan, &err) == XCONV_OK)
            n++;
        xconv_plan_destroy(plan);
    }
    return n;
}

// ---------------------------------------------------------------------------------------------
// The family's table

#define GEMM_INFO(ident, text) \
    {.name = #ident, .family = "gemm", .summary = text, .accuracy = "gemm", .notes = "", \
     .backends = XCONV_ON_ALL_BACKENDS}

// runtime_batch: the batch size at run time by default where the H100 measured it at most 2%
// slower than baked (im2col_gemm, 1.002 at worst over the standard suite); baked where it cost
// more on ResNet-50's layers: implicit_gemm 1.0205, implicit_precomp 1.43, gemm_1x1 1.048
// (docs/guide/compile.md, "What baking N buys"; scripts/bake_batch_cost.py).
static const xconv_variant gemm_variants[] = {
    {
        .info = GEMM_INFO(im2col_gemm, "im2col kernel into a workspace (batch in chunks), then "
                                       "our tiled SGEMM"),
        .fuses = true,
        .plan = plan_im2col_gemm,
        .tunings = gemm_tunings,
        .runtime_batch = true,
    },
    {
        .info = GEMM_INFO(implicit_gemm, "our SGEMM with the input operand gathered from x on "
                                         "the fly, no workspace"),
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .plan = plan_implicit_gemm,
        .tunings = gemm_tunings,
    },
    {
        .info = GEMM_INFO(implicit_precomp, "implicit_gemm reading a per-(c,r,s) input offset "
                                            "table built per problem"),
        .applies = implicit_precomp_applies,
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .plan = plan_implicit_precomp,
        .tunings = gemm_tunings,
    },
    {
        .info = GEMM_INFO(gemm_1x1, "1x1 stride-1 unpadded convolution as our SGEMM over "
                                    "channels, no im2col"),
        .applies = gemm_1x1_applies,
        .fuses = true,
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .plan = plan_gemm_1x1,
        .tunings = gemm_tunings,
    },
};

const xconv_variant *xconv_gemm_variants(int *count)
{
    *count = (int)(sizeof gemm_variants / sizeof gemm_variants[0]);
    return gemm_variants;
}
