// SPDX-License-Identifier: MIT
// The GEMM convolution family: convolution as a matrix product (im2col, implicit, 1x1), all on
// our tiled SGEMM body (cl/sgemm.cl) with tiles from host/plan_gemm.c.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_gemm.h"
#include "variant.h"

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

// Chooses tiles for L into *t; returns XCONV_ERR_NOT_APPLICABLE when none fit the device.
static xconv_status choose_tiles(const xconv_device *dev, const xconv_gemm_layout *L,
                                 xconv_gemm_tiles *t, xconv_error *err)
{
    if (xconv_gemm_choose_tiles(&dev->info, L, t))
        return XCONV_OK;
    return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                           "no GEMM tiles fit the device's limits (work-group %zu, local "
                           "memory %llu bytes)",
                           dev->info.max_work_group_size,
                           (unsigned long long)dev->info.local_mem_bytes);
}

// Adds the GEMM step for L with tiles t (chosen here when t is NULL); appends `what` and the
// tiles to the summary.
static xconv_status plan_gemm_step(const xconv_device *dev, const xconv_gemm_layout *L,
                                   const xconv_gemm_tiles *t, const char *kernel,
                                   const char *what, xconv_plan *plan, xconv_error *err)
{
    xconv_gemm_tiles chosen;
    if (!t) {
        xconv_status st = choose_tiles(dev, L, &chosen, err);
        if (st != XCONV_OK)
            return st;
        t = &chosen;
    }
    xconv_status st = xconv_gemm_plan_step(&dev->info, L, t, "sgemm", kernel, plan, err);
    if (st != XCONV_OK)
        return st;
    int used = (int)strlen(plan->summary);
    snprintf(plan->summary + used, sizeof plan->summary - (size_t)used,
             "%s%s: %lldx%lldx%lld x %lld group(s), %dx%d tiles, k step %d, %dx%d per work-item",
             used ? "; " : "", what, (long long)L->m, (long long)L->n, (long long)L->k,
             (long long)L->groups, t->tile_m, t->tile_n, t->tile_k, t->wpt_m, t->wpt_n);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// im2col_gemm: our im2col kernel into a workspace, then our SGEMM, chunked along the batch

// Plans im2col of as many images as fit the workspace budget, then one SGEMM over the chunk's
// columns (images side by side). Returns XCONV_ERR_NOT_APPLICABLE when one image does not fit.
static xconv_status plan_im2col_gemm(const xconv_device *dev, const xconv_problem *p,
                                     xconv_plan *plan, xconv_error *err)
{
    xconv_status st = xconv_plan_define_problem(plan, p, err);
    if (st != XCONV_OK)
        return st;
    int64_t chunk = xconv_im2col_chunk(&dev->info, p);
    const char *env = getenv("XCONV_GEMM_CHUNK");  // tuning override: images per pass
    if (env && atoll(env) > 0 && atoll(env) < chunk)
        chunk = atoll(env);
    int64_t image_elems = p->c * p->r * p->s * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    if (chunk < 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "one image's im2col columns (%lld floats) pass the workspace "
                               "budget (largest allocation %llu bytes)",
                               (long long)image_elems,
                               (unsigned long long)dev->info.max_alloc_bytes);
    xconv_plan_im2col(&dev->info, p, chunk, plan);
    snprintf(plan->summary, sizeof plan->summary, "im2col of %lld image(s) a pass (%.1f MiB)",
             (long long)chunk, plan->workspace_bytes / 1048576.0);
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_MEMORY, chunk);
    return plan_gemm_step(dev, &L, NULL, "sgemm", "SGEMM", plan, err);
}

// Per chunk of images: im2col into the workspace, then the SGEMM into y's chunk. A last partial
// chunk launches only the column tiles it has.
static xconv_status run_im2col_gemm(xconv_device *dev, const xconv_problem *p,
                                    const xconv_plan *plan, const xconv_tensors *t,
                                    xconv_error *err)
{
    int64_t pq = xconv_problem_out_h(p) * xconv_problem_out_w(p);
    xconv_plan part;  // the plan with the GEMM step narrowed to a partial chunk
    for (int64_t n0 = 0; n0 < p->n; n0 += plan->batch_chunk) {
        int64_t images = p->n - n0 < plan->batch_chunk ? p->n - n0 : plan->batch_chunk;
        const xconv_plan *use = plan;
        if (images < plan->batch_chunk) {
            part = *plan;
            xconv_gemm_step_set_cols(&part.steps[1], plan, images * pq);
            use = &part;
        }
        const xconv_arg col_args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->x)), XCONV_ARG_BUF(xconv_buffer_handle(t->workspace)),
                                      XCONV_ARG_I32(n0), XCONV_ARG_I32(images)};
        xconv_status st = xconv_plan_launch(dev, use, 0, col_args, 4, err);
        if (st != XCONV_OK)
            return st;
        const xconv_arg gemm_args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->w)), XCONV_ARG_BUF(xconv_buffer_handle(t->workspace)),
                                       XCONV_ARG_BUF(xconv_buffer_handle(t->y)), XCONV_ARG_I32(0),
                                       XCONV_ARG_I32(n0 * p->k * pq), XCONV_ARG_I32(images * pq)};
        st = xconv_plan_launch(dev, use, 1, gemm_args, 6, err);
        if (st != XCONV_OK)
            return st;
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// gemm_1x1: a 1x1, stride-1, unpadded convolution is y[n][g] = w[g] * x[n][g] over channels

static bool gemm_1x1_applies(const xconv_device *dev, const xconv_problem *p, char *reason,
                             size_t len)
{
    (void)dev;
    if (p->r == 1 && p->s == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_h == 0 &&
        p->pad_w == 0)
        return true;
    snprintf(reason, len, "gemm_1x1 needs a 1x1 filter, stride 1 and no padding");
    return false;
}

// Plans the SGEMM over the input itself: B rows are channels, columns the images' pixels.
static xconv_status plan_gemm_1x1(const xconv_device *dev, const xconv_problem *p,
                                  xconv_plan *plan, xconv_error *err)
{
    xconv_status st = xconv_plan_define_problem(plan, p, err);
    if (st != XCONV_OK)
        return st;
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_MEMORY, p->n);
    return plan_gemm_step(dev, &L, NULL, "sgemm", "SGEMM on the input", plan, err);
}

static xconv_status run_gemm_1x1(xconv_device *dev, const xconv_problem *p,
                                 const xconv_plan *plan, const xconv_tensors *t,
                                 xconv_error *err)
{
    int64_t cols = p->n * xconv_problem_out_h(p) * xconv_problem_out_w(p);
    const xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->w)), XCONV_ARG_BUF(xconv_buffer_handle(t->x)), XCONV_ARG_BUF(xconv_buffer_handle(t->y)),
                              XCONV_ARG_I32(0), XCONV_ARG_I32(0), XCONV_ARG_I32(cols)};
    return xconv_plan_launch(dev, plan, 0, args, 6, err);
}

// ---------------------------------------------------------------------------------------------
// implicit_gemm and implicit_precomp: B gathered from x inside the GEMM, no im2col workspace

static xconv_status plan_implicit_gemm(const xconv_device *dev, const xconv_problem *p,
                                       xconv_plan *plan, xconv_error *err)
{
    xconv_status st = xconv_plan_define_problem(plan, p, err);
    if (st != XCONV_OK)
        return st;
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_GATHER, p->n);
    L.b_group_stride = p->c / p->groups * p->h * p->w;  // a group's first channel in x
    return plan_gemm_step(dev, &L, NULL, "implicit_gemm", "implicit GEMM", plan, err);
}

// Launches the single step with (x, w, y).
static xconv_status run_implicit_gemm(xconv_device *dev, const xconv_problem *p,
                                      const xconv_plan *plan, const xconv_tensors *t,
                                      xconv_error *err)
{
    (void)p;
    const xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->x)), XCONV_ARG_BUF(xconv_buffer_handle(t->w)), XCONV_ARG_BUF(xconv_buffer_handle(t->y))};
    return xconv_plan_launch(dev, plan, 0, args, 3, err);
}

// The table packs each tap's displacement as dh << 16 | dw.
static bool implicit_precomp_applies(const xconv_device *dev, const xconv_problem *p,
                                     char *reason, size_t len)
{
    (void)dev;
    if ((p->r - 1) * p->dil_h < 32768 && (p->s - 1) * p->dil_w < 32768)
        return true;
    snprintf(reason, len, "implicit_precomp's table needs (R-1)*dil_h and (S-1)*dil_w < 32768");
    return false;
}

// Plans the offset table (2 ints per row of B, K rounded up to whole K steps: the workspace) and
// the GEMM reading it.
static xconv_status plan_implicit_precomp(const xconv_device *dev, const xconv_problem *p,
                                          xconv_plan *plan, xconv_error *err)
{
    xconv_status st = xconv_plan_define_problem(plan, p, err);
    if (st != XCONV_OK)
        return st;
    xconv_gemm_layout L = conv_layout(p, XCONV_GEMM_B_TABLE, p->n);
    L.b_group_stride = p->c / p->groups * p->h * p->w;
    xconv_gemm_tiles t;
    st = choose_tiles(dev, &L, &t, err);
    if (st != XCONV_OK)
        return st;
    int64_t rows = xconv_gemm_table_rows(&L, &t);
    plan->workspace_bytes = (size_t)(2 * rows) * sizeof(int32_t);
    size_t multiple = dev->info.preferred_multiple ? dev->info.preferred_multiple : 1;
    xconv_step *step = xconv_plan_add_step(plan, "implicit_precomp", "implicit_precomp_table");
    xconv_step_set_1d(step, (size_t)rows,
                      xconv_fit_work_group(&dev->info, xconv_round_up(64, multiple)));
    snprintf(plan->summary, sizeof plan->summary, "offset table of %lld rows (%zu bytes, %s%s)",
             (long long)rows, plan->workspace_bytes,
             xconv_gemm_table_const(&dev->info, &L, &t) ? "constant memory" : "global memory",
             xconv_gemm_table_local(&dev->info, &L, &t) ? ", read from a local copy" : "");
    return plan_gemm_step(dev, &L, &t, "implicit_precomp", "implicit GEMM", plan, err);
}

// Returns true when the plan keeps the table in constant memory (XC_GEMM_TABLE_CONST).
static bool plan_constant_table(const xconv_plan *plan)
{
    for (int i = 0; i < plan->ndefines; i++)
        if (strcmp(plan->defines[i].name, "XC_GEMM_TABLE_CONST") == 0)
            return plan->defines[i].value != 0;
    return false;
}

// Builds the table into the workspace, then runs the GEMM that reads it.
static xconv_status run_implicit_precomp(xconv_device *dev, const xconv_problem *p,
                                         const xconv_plan *plan, const xconv_tensors *t,
                                         xconv_error *err)
{
    (void)p;
    const xconv_arg table_args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->workspace))};
    xconv_status st = xconv_plan_launch(dev, plan, 0, table_args, 1, err);
    if (st != XCONV_OK)
        return st;
    xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(t->x)), XCONV_ARG_BUF(xconv_buffer_handle(t->w)), XCONV_ARG_BUF(xconv_buffer_handle(t->y)),
                        XCONV_ARG_BUF(xconv_buffer_handle(t->workspace))};
    if (plan_constant_table(plan))
        args[3] = XCONV_ARG_CONST(xconv_buffer_handle(t->workspace), plan->workspace_bytes, "xc_gemm_table");
    return xconv_plan_launch(dev, plan, 1, args, 4, err);
}

// ---------------------------------------------------------------------------------------------
// The family's table

static const xconv_variant gemm_variants[] = {
    {
        .name = "im2col_gemm",
        .family = "gemm",
        .summary = "im2col kernel into a workspace (batch in chunks), then our tiled SGEMM",
        .backends = XCONV_ON_ALL_BACKENDS,
        .plan = plan_im2col_gemm,
        .run = run_im2col_gemm,
    },
    {
        .name = "implicit_gemm",
        .family = "gemm",
        .summary = "our SGEMM with the input operand gathered from x on the fly, no workspace",
        .backends = XCONV_ON_ALL_BACKENDS,
        .plan = plan_implicit_gemm,
        .run = run_implicit_gemm,
    },
    {
        .name = "implicit_precomp",
        .family = "gemm",
        .summary = "implicit_gemm reading a per-(c,r,s) input offset table built per problem",
        .backends = XCONV_ON_ALL_BACKENDS,
        .applies = implicit_precomp_applies,
        .plan = plan_implicit_precomp,
        .run = run_implicit_precomp,
    },
    {
        .name = "gemm_1x1",
        .family = "gemm",
        .summary = "1x1 stride-1 unpadded convolution as our SGEMM over channels, no im2col",
        .backends = XCONV_ON_ALL_BACKENDS,
        .applies = gemm_1x1_applies,
        .plan = plan_gemm_1x1,
        .run = run_gemm_1x1,
    },
};

const xconv_variant *xconv_gemm_variants(int *count)
{
    *count = (int)(sizeof gemm_variants / sizeof gemm_variants[0]);
    return gemm_variants;
}
