// SPDX-License-Identifier: MIT
// The Winograd family: F(2x2,3x3), F(4x4,3x3) and F(2x2,5x5), non-fused (filter, input and
// output transforms around our SGEMM batched over the alpha^2 tile positions) and fused (one
// kernel after the filter transform). Geometry and blocks come from host/families/winograd/plan_winograd.c; this
// file turns them into plan steps.
#include <stdio.h>
#include <string.h>

#include "plan/plan_epilogue.h"
#include "families/winograd/plan_winograd.h"
#include "plan/variant.h"
#include "xconv_winograd_params.h"

// ---------------------------------------------------------------------------------------------
// Steps

// Appends a kernel step running `kernel` of cl/<kernel>.cl with p's defines and launch l into
// *out, the batch compiled in when `bakes_n` (its other defines depend on it); returns XCONV_OK
// or the failure of an allocation or a define.
static xconv_status add_step(xconv_plan *plan, const char *label, const char *kernel,
                             const xconv_problem *p, const xconv_wino_launch *l, bool bakes_n,
                             xconv_step **out, xconv_error *err)
{
    xconv_step *s = xconv_plan_add_step(plan, label, kernel, kernel);
    if (!s)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    s->bake_batch = s->bake_batch || bakes_n;
    xconv_step_set_3d(s, l->global, l->local);
    s->dims = l->dims;
    s->local_mem_bytes = l->local_mem_bytes;
    *out = s;
    return xconv_step_define_problem(s, p, err);
}

// Appends the filter transform (w into region u) with parameters s; returns its status.
static xconv_status plan_filter(xconv_plan *plan, const xconv_problem *p,
                                const xconv_wino_filter_params *s, const xconv_wino_launch *l,
                                int u, xconv_error *err)
{
    xconv_step *step = NULL;
    xconv_status st = add_step(plan, "filter transform", "winograd_filter", p, l, false, &step,
                               err);
    XCONV_WINO_FILTER_DEFINES(XCONV_STEP_DEFINE_ROW)
    if (st != XCONV_OK)
        return st;
    xconv_step_arg_buffer(step, XCONV_REF_W);
    xconv_step_arg_region(step, plan, u);
    return XCONV_OK;
}

// Appends a tile transform (`kernel`: winograd_input or winograd_output) with parameters s and
// launch l into *out; the caller adds the arguments.
static xconv_status plan_tiles(xconv_plan *plan, const char *label, const char *kernel,
                               const xconv_problem *p, const xconv_wino_tile_params *s,
                               const xconv_wino_launch *l, xconv_step **out, xconv_error *err)
{
    xconv_step *step = NULL;
    // The columns of V and M (XC_WINO_T_LD) are a pass's tiles: N stays compiled in.
    xconv_status st = add_step(plan, label, kernel, p, l, true, &step, err);
    XCONV_WINO_TILE_DEFINES(XCONV_STEP_DEFINE_ROW)
    *out = step;
    return st;
}

// The parts of p's epilogue an output transform's store (xc_wino_store_tile) applies for m x m
// tiles: the bias and activation always; the pool when each tile holds whole windows (unpadded,
// as wide as their stride, dividing m: tiles start at multiples of m), else the reason in
// plan->epi_note and the pool stays a step.
static unsigned store_parts(const xconv_problem *p, int m, xconv_plan *plan)
{
    const xconv_epilogue *e = &p->epi;
    if (!e->pool_h || (e->pool_stride_h == e->pool_h && e->pool_stride_w == e->pool_w &&
                       !e->pool_pad_h && !e->pool_pad_w && m % e->pool_h == 0 &&
                       m % e->pool_w == 0))
        return XCONV_FUSED_BIAS_ACT | XCONV_FUSED_POOL;
    snprintf(plan->epi_note, sizeof plan->epi_note, "a Winograd tile (%dx%d outputs) holds "
             "whole pool windows only when they are unpadded, as wide as their stride and "
             "divide it", m, m);
    return XCONV_FUSED_BIAS_ACT;
}

// Appends the fused kernel (x and region u into y) with parameters s, applying p's epilogue in
// its store; returns its status.
static xconv_status plan_fused_step(xconv_plan *plan, const xconv_problem *p,
                                    const xconv_wino_fused_params *s, const xconv_wino_launch *l,
                                    int u, xconv_error *err)
{
    xconv_step *step = NULL;
    xconv_status st = add_step(plan, "fused Winograd", "winograd_fused", p, l, false, &step,
                               err);
    XCONV_WINO_FUSED_DEFINES(XCONV_STEP_DEFINE_ROW)
    if (st != XCONV_OK)
        return st;
    xconv_step_arg_buffer(step, XCONV_REF_X);
    xconv_step_arg_region(step, plan, u);
    xconv_step_arg_buffer(step, XCONV_REF_Y);
    return xconv_step_fuse_epilogue(step, p, store_parts(p, s->m, plan), plan, err);
}


// Appends the batched GEMM M[b] = U[b] * V[b] of one pass of `cols` columns into *out: the
// first pass plans it (`first` NULL), later ones copy the first's program and geometry. Split
// (nf->gemm.split_k > 1), it writes the partials' region P and a reduce step adds them into M.
static xconv_status plan_gemm(xconv_plan *plan, const xconv_device_info *info,
                              const xconv_wino_nonfused *nf, const xconv_step *first,
                              int64_t cols, const int region[XCONV_WINO_REGIONS],
                              xconv_step **out, xconv_error *err)
{
    xconv_step *g = NULL;
    xconv_status st;
    if (!first) {
        st = xconv_gemm_plan_step(info, NULL, &nf->gemm, &nf->gemm_tiles, "batched GEMM",
                                  "sgemm", "sgemm_regions", plan, &g, err);
        if (st == XCONV_OK)
            st = xconv_step_define(g, "XC_GEMM_REGIONS", 1, err);
    } else {
        g = xconv_plan_add_step(plan, first->label, first->source, first->kernel);
        st = g ? xconv_step_define_all(g, first, err)
               : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
        if (st == XCONV_OK) {
            xconv_step_set_3d(g, first->global, first->local);
            g->local_mem_bytes = first->local_mem_bytes;
        }
    }
    if (st != XCONV_OK)
        return st;
    if (cols < nf->gemm.n)
        xconv_gemm_step_set_cols(g, cols);
    bool split = nf->gemm.split_k > 1;
    xconv_step_arg_region(g, plan, region[XCONV_WINO_REGION_U]);
    xconv_step_arg_region(g, plan, region[XCONV_WINO_REGION_V]);
    xconv_step_arg_region(g, plan, region[split ? XCONV_WINO_REGION_P : XCONV_WINO_REGION_M]);
    xconv_step_arg_int(g, (int32_t)cols);
    *out = g;
    if (!split)
        return XCONV_OK;
    int64_t m_at = (int64_t)(plan->regions[region[XCONV_WINO_REGION_M]].offset / sizeof(float));
    return xconv_gemm_plan_reduce(info, NULL, &nf->gemm, plan, region[XCONV_WINO_REGION_P],
                                  XCONV_REF_WORKSPACE, m_at, cols, 0u, err);
}

// Appends one pass over `images` images from n0: input transform, batched GEMM, output
// transform (which applies p's epilogue); *gemm0 is the first pass's GEMM (set by the first
// pass).
static xconv_status plan_pass(xconv_plan *plan, const xconv_device_info *info,
                              const xconv_problem *p, const xconv_wino_nonfused *nf,
                              int64_t n0, int64_t images, const int region[XCONV_WINO_REGIONS],
                              xconv_step **gemm0, xconv_error *err)
{
    int64_t tiles = nf->tiles.tiles_h * nf->tiles.tiles_w;
    xconv_step *in, *g, *outs;
    xconv_status st = plan_tiles(plan, "input transform", "winograd_input", p, &nf->tiles,
                                 &nf->input_launch, &in, err);
    if (st != XCONV_OK)
        return st;
    xconv_step_arg_buffer(in, XCONV_REF_X);
    xconv_step_arg_region(in, plan, region[XCONV_WINO_REGION_V]);
    xconv_step_arg_int(in, (int32_t)n0);
    xconv_step_arg_int(in, (int32_t)images);
    st = plan_gemm(plan, info, nf, *gemm0, images * tiles, region, &g, err);
    if (st != XCONV_OK)
        return st;
    if (!*gemm0)
        *gemm0 = g;
    xconv_wino_launch out_launch = nf->output_launch;  // a partial pass launches its tiles
    out_launch.global[0] = xconv_round_up((size_t)(images * tiles), out_launch.local[0]);
    st = plan_tiles(plan, "output transform", "winograd_output", p, &nf->tiles, &out_launch,
                    &outs, err);
    if (st != XCONV_OK)
        return st;
    xconv_step_arg_region(outs, plan, region[XCONV_WINO_REGION_M]);
    xconv_step_arg_buffer(outs, XCONV_REF_Y);
    xconv_step_arg_int(outs, (int32_t)n0);
    xconv_step_arg_int(outs, (int32_t)images);
    return xconv_step_fuse_epilogue(outs, p, store_parts(p, (int)nf->tiles.m, plan), plan, err);
}

// ---------------------------------------------------------------------------------------------
// Plans

// Adds the summary line every Winograd plan starts with: the algorithm and its multiplies per
// output against direct convolution's; sets the plan's error block to the m x m output tile.
static void describe(xconv_plan *plan, const xconv_wino_algo *a)
{
    int alpha = a->m + a->r - 1;
    double wino = xconv_wino_mults_per_output(a->m, a->r), direct = (double)(a->r * a->r);
    xconv_plan_summarize(plan, "%sF(%dx%d,%dx%d): %d products per %dx%d output tile, %.3g "
                         "multiplies per output and input channel against %.0f for direct "
                         "(%.2fx fewer)", a->fused ? "fused " : "", a->m, a->m, a->r, a->r,
                         alpha * alpha, a->m, a->m, wino, direct, direct / wino);
    plan->error_block_h = plan->error_block_w = a->m;
}

// Plans the non-fused F(a->m, a->r): regions U, V and M; the filter transform, then per pass
// the input transform, the batched GEMM and the output transform.
static xconv_status plan_nonfused(const xconv_device *dev, const xconv_problem *p,
                                  const xconv_plan_options *opts, xconv_plan *plan,
                                  const xconv_wino_algo *a, xconv_error *err)
{
    xconv_wino_nonfused nf;
    xconv_status st = xconv_wino_plan_nonfused(&dev->info, p, a->m, opts, &nf, err);
    if (st != XCONV_OK)
        return st;
    describe(plan, a);
    int region[XCONV_WINO_REGIONS];
    for (int i = 0; i < XCONV_WINO_REGIONS; i++)  // the partials only when split
        region[i] = i != XCONV_WINO_REGION_P || nf.gemm.split_k > 1
                        ? xconv_plan_region(plan, xconv_wino_region_name(i), nf.region_bytes[i])
                        : -1;
    xconv_plan_summarize(plan, "%lld image%s a pass in %lld pass%s, %lld tiles an image; "
                         "workspace %.3g MiB", (long long)nf.chunk, nf.chunk == 1 ? "" : "s",
                         (long long)nf.passes, nf.passes == 1 ? "" : "es",
                         (long long)(nf.tiles.tiles_h * nf.tiles.tiles_w),
                         plan->workspace_bytes / 1048576.0);
    const xconv_gemm_tiles *t = &nf.gemm_tiles;
    xconv_plan_summarize(plan, "batched GEMM: %lld products of %lldx%lldx%lld, %dx%d tiles, k "
                         "step %d, %dx%d per work-item", (long long)nf.gemm.groups,
                         (long long)nf.gemm.m, (long long)nf.gemm.n, (long long)nf.gemm.k,
                         t->tile_m, t->tile_n, t->tile_k, t->wpt_m, t->wpt_n);
    xconv_gemm_summarize_split(plan, &nf.gemm, t, false);  // the output transform applies it
    st = plan_filter(plan, p, &nf.filter, &nf.filter_launch, region[XCONV_WINO_REGION_U], err);
    xconv_step *gemm0 = NULL;
    for (int64_t n0 = 0; st == XCONV_OK && n0 < p->n; n0 += nf.chunk) {
        int64_t images = p->n - n0 < nf.chunk ? p->n - n0 : nf.chunk;
        st = plan_pass(plan, &dev->info, p, &nf, n0, images, region, &gemm0, err);
    }
    return st;
}

// Plans the fused F(a->m, a->r): region U; the filter transform, then the fused kernel.
static xconv_status plan_fused(const xconv_device *dev, const xconv_problem *p,
                               const xconv_plan_options *opts, xconv_plan *plan,
                               const xconv_wino_algo *a, xconv_error *err)
{
    xconv_wino_fused fu;
    xconv_status st = xconv_wino_plan_fused(&dev->info, p, a->m, opts, &fu, err);
    if (st != XCONV_OK)
        return st;
    describe(plan, a);
    int u = xconv_plan_region(plan, xconv_wino_region_name(XCONV_WINO_REGION_U),
                              fu.region_bytes[XCONV_WINO_REGION_U]);
    const xconv_wino_fused_params *f = &fu.params;
    if (f->vec)
        xconv_plan_summarize(plan, "%d tiles as vector lanes x %d output channels a work-item, "
                             "%d input channels a step, %d channels a register block; "
                             "workspace %.3g MiB", f->vec, f->k_block, f->c_chunk, f->wpt_k,
                             plan->workspace_bytes / 1048576.0);
    else
        xconv_plan_summarize(plan, "%d tiles x %d output channels a work-group, %d input "
                             "channels a step, %dx%d per work-item (%zu work-items); workspace "
                             "%.3g MiB", f->tile_block, f->k_block, f->c_chunk, f->wpt_t,
                             f->wpt_k, fu.fused_launch.local[0],
                             plan->workspace_bytes / 1048576.0);
    st = plan_filter(plan, p, &fu.filter, &fu.filter_launch, u, err);
    if (st == XCONV_OK)
        st = plan_fused_step(plan, p, f, &fu.fused_launch, u, err);
    return st;
}

// ---------------------------------------------------------------------------------------------
// The family's table

// A variant's algorithm F(m x m, r x r), fused or not, as its kind (xconv_variant.kind) holds it.
#define WINO_KIND(m, r, fused) ((m) | (r) << 4 | (fused) << 8)

// Returns the algorithm of WINO_KIND kind.
static xconv_wino_algo algo_of(int kind)
{
    return (xconv_wino_algo){.m = kind & 15, .r = kind >> 4 & 15, .fused = kind >> 8 & 1};
}

// Whether v's algorithm applies to p on dev.
static bool winograd_applies(const xconv_variant *v, const xconv_device *dev,
                             const xconv_problem *p, char *reason, size_t len)
{
    const xconv_wino_algo a = algo_of(v->kind);
    return xconv_wino_applies(&dev->info, p, &a, reason, len);
}

// Plans the algorithm of plan->variant, fused or not.
static xconv_status winograd_plan(const xconv_device *dev, const xconv_problem *p,
                                  const xconv_plan_options *opts, xconv_plan *plan,
                                  xconv_error *err)
{
    const xconv_wino_algo a = algo_of(plan->variant->kind);
    return a.fused ? plan_fused(dev, p, opts, plan, &a, err)
                   : plan_nonfused(dev, p, opts, plan, &a, err);
}

// The storage types beside fp32 of the non-fused variants: their transforms read x and w and
// write y in the storage type (XC_LD, XC_ST); the workspace and its GEMMs are fp32. The fused
// kernels read x and write y as floats (fp32 only).
#define WINO_HALF (XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16))

// A row of the table: the fused and non-fused variants of one F(m, r) give the same bits
// (the same products summed in the same order), so they share the threshold entry `accuracy`;
// `storage` the storage types beside fp32; `runtime_n` the batch size at run time by default
// (xconv_variant.runtime_batch): where the H100 measured it at most 2% slower than baked
// (f23 1.014, f25 1.001, f25_fused 1.017 at worst), baked where it cost more (f43 1.024,
// f23_fused 1.032, f43_fused 1.031; docs/guide/compile.md, "What baking N buys").
#define WINO_ROW(ident, kind_of, accuracy_entry, storage, runtime_n, text)                  \
    {.info = {.name = #ident, .family = "winograd", .summary = text,                        \
              .accuracy = accuracy_entry, .notes = "winograd",                              \
              .backends = XCONV_ON_ALL_BACKENDS},                                           \
     .fuses = true, .dtypes = storage, .runtime_batch = runtime_n, .kind = kind_of,         \
     .applies = winograd_applies, .plan = winograd_plan}

static const xconv_variant winograd_variants[] = {
    WINO_ROW(winograd_f23_fused, WINO_KIND(2, 3, 1), "winograd_f23", 0, false,
             "Winograd F(2x2,3x3) in one kernel: tiles "
             "transformed in local memory, products in registers"),
    WINO_ROW(winograd_f43_fused, WINO_KIND(4, 3, 1), "winograd_f43", 0, false,
             "Winograd F(4x4,3x3) in one kernel: tiles "
             "transformed in local memory, products in registers"),
    WINO_ROW(winograd_f25_fused, WINO_KIND(2, 5, 1), "winograd_f25", 0, true,
             "Winograd F(2x2,5x5) in one kernel: tiles "
             "transformed in local memory, products in registers"),
    WINO_ROW(winograd_f23, WINO_KIND(2, 3, 0), "winograd_f23", WINO_HALF, true,
             "Winograd F(2x2,3x3): transforms into a "
             "workspace around 16 batched SGEMMs over channels"),
    WINO_ROW(winograd_f43, WINO_KIND(4, 3, 0), "winograd_f43", WINO_HALF, false,
             "Winograd F(4x4,3x3): transforms into a "
             "workspace around 36 batched SGEMMs over channels"),
    WINO_ROW(winograd_f25, WINO_KIND(2, 5, 0), "winograd_f25", WINO_HALF, true,
             "Winograd F(2x2,5x5): transforms into a "
             "workspace around 36 batched SGEMMs over channels"),
};

const xconv_variant *xconv_winograd_variants(int *count)
{
    *count = (int)(sizeof winograd_variants / sizeof winograd_variants[0]);
    return winograd_variants;
}
