// SPDX-License-Identifier: MIT
// implicit_mma's kernels, both pipelines' tiling and PTX fragment layouts, run on an OpenCL CPU
// device (PoCL) with the mma emulated (XC_MMA_PTX 0), against the float64 reference over the
// operands as the tensor cores read them (the plans themselves: tests/test_plan_mma.c). `oclgrind
// --local-mem-size 65536 --data-races build/test_mma` runs the emulated kernels under
// Oclgrind's memory checker and race detector instead (no reports; the emulation's exchange
// buffer beside the eight- and sixteen-warp tiles passes Oclgrind's default 32 KiB); with the
// argument `packed` only the packed pipeline's emulated checks run, with `forced` only those of
// forced tiles (XCONV_MMA_TILES) and split-K, with `pack_w` only those of the filter packing
// (its workspace words against a model). Every output of the packed pipeline, split or not,
// must equal to the bit a model of the emulation's fp32 sums (slices added in order).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/device.h"
#include "../host/plan/variant.h"
#include "families/gemm/plan_mma.h"
#include "tests/check.h"
#include "tests/fixtures.h"
#include "tests/mma_shapes.h"
#include "measure/check.h"

// ---------------------------------------------------------------------------------------------
// The kernel on an OpenCL CPU device, the mma emulated

// Rounds n fp32 values to TF32 as cvt.rna.tf32.f32 does (to nearest, ties away from zero).
static void round_tf32(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        if ((u & 0x7f800000u) != 0x7f800000u)
            u = (u + 0x1000u) & 0xffffe000u;
        memcpy(&v[i], &u, 4);
    }
}

// The packed pipeline's sums as the emulated kernels form them (XC_MMA_PTX 0), for the bitwise
// check: output (n, k, p, q) walks k as (r, s, c) over a group's channels padded to whole
// 16-byte chunks (the padding and taps outside the image add products of zero), one fp32 fma a
// term in k order; under split-K the walk is cut every slice_k elements, each slice summed from
// zero and the slices added in order (cl/splitk_reduce.cl); y is then rounded to the storage
// type. xt and wt hold the operands as the mma reads them.
static void model_packed(const xconv_problem *p, const float *xt, const float *wt,
                         int64_t slice_k, float *y)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    int64_t cg = p->c / p->groups, kg = p->k / p->groups, cp = xconv_mma_packed_channels(p);
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t k = 0; k < p->k; k++)
            for (int64_t oh = 0; oh < P; oh++)
                for (int64_t ow = 0; ow < Q; ow++) {
                    int64_t g = k / kg;
                    float total = 0.0f, sum = 0.0f;
                    for (int64_t kk = 0; kk < p->r * p->s * cp; kk++) {
                        if (kk && kk % slice_k == 0)
                            total = kk == slice_k ? sum : total + sum, sum = 0.0f;
                        int64_t r = kk / cp / p->s, sc = kk / cp % p->s, c = kk % cp;
                        int64_t ih = oh * p->stride_h - p->pad_h + r * p->dil_h;
                        int64_t iw = ow * p->stride_w - p->pad_w + sc * p->dil_w;
                        bool in = c < cg && ih >= 0 && ih < p->h && iw >= 0 && iw < p->w;
                        float xv = in ? xt[((n * p->c + g * cg + c) * p->h + ih) * p->w + iw] : 0;
                        float wv = c < cg ? wt[((k * cg + c) * p->r + r) * p->s + sc] : 0;
                        sum = fmaf(wv, xv, sum);
                    }
                    bool split = slice_k < p->r * p->s * cp;
                    y[((n * p->k + k) * P + oh) * Q + ow] = split ? total + sum : sum;
                }
    xconv_dtype_round(p->dtype, y, (size_t)(p->n * p->k * P * Q));
}

// One shape in one math mode: the emulated kernel against float64 over the operands the
// tensor cores read (rounded to the storage type, and for tf32 to TF32): every product is then
// exact and the sums are fp32, so the family's threshold plus the output's rounding holds, a
// wrong fragment index is off by whole terms. Also within the mode's own threshold against
// the reference over the stored (unrounded-to-TF32) operands.
// The packed pipeline (XC_MMA_PIPELINE 2) is planned with the device's local memory capped at
// local_cap bytes (0: as it reports), which sets the ring's stages, and expects `stages` (0: any);
// its y must equal model_packed's to the bit in every element. tiles (NULL: none) forces the
// tiles (either pipeline); split is the packed pipeline's forced split-K (0: the planner's).
static void check_emulated_with(xconv_device *dev, const xconv_variant *v, int index,
                                const char *types, int pipeline, size_t local_cap, int stages,
                                const xconv_forced_mma_tiles *tiles, int split)
{
    xconv_problem p;
    xconv_error err;
    const char *spec = run_specs[index];
    if (!parse_with(spec, types, &p))
        return;
    xconv_plan *plan = NULL;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    bool direct = pipeline == XCONV_MMA_PIPELINE_DIRECT_B;
    bool packed = pipeline == XCONV_MMA_PIPELINE_PACKED || direct;
    opts.mma_pipeline = packed ? pipeline : XCONV_MMA_PIPELINE_REGISTERS;
    if (tiles)
        opts.mma_tiles = *tiles;
    if (packed)
        opts.mma_split_k = split;
    xconv_device_info saved = dev->info;
    dev->info.compute_units = run_units[index];
    // The emulation's exchange buffer (6 words a work-item, at most 512) sits beside the ring,
    // which the planner sizes for the PTX kernel: leave it room (Oclgrind's 64 KiB).
    size_t cap = local_cap, room = dev->info.local_mem_bytes - 512 * 6 * 4;
    if (packed && room < dev->info.local_mem_bytes)
        cap = cap && cap < room ? cap : room;
    if (cap && cap < dev->info.local_mem_bytes)
        dev->info.local_mem_bytes = cap;
    xconv_status st = xconv_variant_plan(v, dev, &p, &opts, &plan, &err);
    dev->info = saved;
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
    if (st != XCONV_OK)
        return;
    // The product: the last step, or the one before the split's reduce (direct B: no step
    // packs x).
    bool split_planned = packed && plan->nsteps == (direct ? 3 : 4);
    xconv_step *s = xconv_plan_step(plan, plan->nsteps - 1 - split_planned);
    CHECK(plan->nsteps == (packed ? 3 - direct + split_planned : 1) &&
          strcmp(s->source, packed ? "implicit_mma_packed" : "implicit_mma") == 0);
    CHECK(xconv_step_value(s, "XC_MMA_B_DIRECT", 0) == direct);
    long long slices = xconv_step_value(s, "XC_MMA_SPLIT", 1);
    CHECK_MSG(split_planned == (slices > 1) && (split < 2 || slices > 1) && (split != 1 ||
              slices == 1), "%s %s: split %d forced, %lld slices planned", spec, types, split,
              slices);
    if (split_planned)
        CHECK(strcmp(xconv_plan_step(plan, plan->nsteps - 1)->kernel, "splitk_reduce") == 0 &&
              xconv_step_value(xconv_plan_step(plan, plan->nsteps - 1), "XC_GEMM_SPLIT_K", 0) ==
                  slices);
    if (tiles) {
        const long long want_tiles[5] = {tiles->tm, tiles->tn, tiles->tk, tiles->wm, tiles->wn};
        const char *names[5] = {"XC_MMA_TILE_M", "XC_MMA_TILE_N", "XC_MMA_TILE_K",
                                "XC_MMA_WARPS_M", "XC_MMA_WARPS_N"};
        for (int i = 0; i < 5; i++)
            CHECK_MSG(xconv_step_value(s, names[i], 0) == want_tiles[i], "%s: %s %lld, forced "
                      "%lld", spec, names[i], xconv_step_value(s, names[i], 0), want_tiles[i]);
        CHECK_CONTAINS(xconv_plan_summary(plan), "tiles forced by the options");
    }
    int want = run_tile_m[index] == 128 && dev->info.local_mem_bytes < 40960 ? 64  // Oclgrind
                                                                              : run_tile_m[index];
    if (!local_cap && !tiles)
        CHECK_MSG(xconv_step_value(s, "XC_MMA_TILE_M", 0) == want, "%s: %lld-row tiles", spec,
                  xconv_step_value(s, "XC_MMA_TILE_M", 0));
    long long k_step = xconv_step_value(s, "XC_MMA_TILE_K", 0);
    if (!packed)
        CHECK_MSG(k_step > 0 &&
                      xconv_step_value(s, "XC_MMA_RSC", -1) == ((p.c / p.groups) % k_step == 0),
                  "%s %s: k walked as (r, s, c) exactly when a group's channels fill whole K "
                  "steps", spec, types);
    long long got_stages = xconv_step_value(s, "XC_MMA_STAGES", 0);
    if (packed) {
        // The workspace: packed filters and (unless direct) x, channels padded to whole
        // 16-byte chunks; direct, the filters (and any partials) only.
        int64_t cp = xconv_mma_packed_channels(&p), eb = p.math == XCONV_MATH_TF32 ? 4 : 2;
        CHECK(cp % (16 / eb) == 0 && cp >= p.c / p.groups && cp < p.c / p.groups + 16 / eb);
        CHECK_MSG(xconv_plan_workspace_size(plan) >=
                      (size_t)((p.k * p.r * p.s + !direct * p.n * p.h * p.w * p.groups) * cp * eb),
                  "%s: workspace %zu", spec, xconv_plan_workspace_size(plan));
        if (direct && !split_planned)
            CHECK_MSG(xconv_plan_workspace_size(plan) == (size_t)(p.k * cp * eb),
                      "%s: direct B's workspace %zu", spec, xconv_plan_workspace_size(plan));
        CHECK_MSG(got_stages >= 2 && got_stages <= 4 && (!stages || got_stages == stages),
                  "%s %s: %lld stages, expected %d", spec, types, got_stages, stages);
    }
    for (int j = 0; j < plan->nsteps; j++) {
        xconv_step *sj = xconv_plan_step(plan, j);
        for (int i = 0; i < sj->ndefines; i++)
            if (strcmp(sj->defines[i].name, "XC_MMA_PTX") == 0)
                sj->defines[i].value = 0;
    }
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4);
    float *xt = malloc(xn * 4), *wt = malloc(wn * 4);
    double *ref = malloc(yn * 8), *norm = malloc(yn * 8);
    CHECK(x && w && y && xt && wt && ref && norm);
    if (x && w && y && xt && wt && ref && norm) {
        xconv_random_fill(x, xn, 5, 1);
        xconv_random_fill(w, wn, 5, 2);
        xconv_dtype_round(p.dtype, x, xn);
        xconv_dtype_round(p.dtype, w, wn);
        memcpy(xt, x, xn * 4), memcpy(wt, w, wn * 4);
        if (p.math == XCONV_MATH_TF32)
            round_tf32(xt, xn), round_tf32(wt, wn);
        st = run_stored(dev, plan, &p, x, w, y, &err);
        CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
        xconv_compare_result exact, mode;
        CHECK(xconv_reference_conv(&p, xt, wt, ref, norm, 1, &err) == XCONV_OK);
        xconv_compare_full(y, ref, norm, (int64_t)yn, &exact);
        CHECK(xconv_reference_conv(&p, x, w, ref, norm, 1, &err) == XCONV_OK);
        xconv_compare_full(y, ref, norm, (int64_t)yn, &mode);
        double storage = xconv_threshold_storage(p.dtype);
        double limit = xconv_threshold_for_family("gemm") + storage + xconv_threshold_math(p.math);
        char how[64];
        int at = snprintf(how, sizeof how,
                          direct ? "direct B, %lld stages" : packed ? "packed, %lld stages"
                                                                    : "registers",
                          got_stages);
        if (tiles)
            at += snprintf(how + at, sizeof how - (size_t)at, ", %dx%dx%d on %dx%d", tiles->tm,
                           tiles->tn, tiles->tk, tiles->wm, tiles->wn);
        if (slices > 1)
            snprintf(how + at, sizeof how - (size_t)at, ", split %lld", slices);
        printf("  %-44s %-21s %-17s error %.2g over the operands read (%.2g over the stored)\n",
               spec, types, how, exact.max_norm_err, mode.max_norm_err);
        // Every element to the bit: the emulation's fp32 fmas, slices in order. Not under
        // Oclgrind: there f16 runs of shape 8 differ from PoCL's (and the model) in the last
        // bit of 8 or 9 of 28000 outputs, split or not, with the same largest error; that run
        // is for its memory checker and race detector (no reports).
        bool oclgrind = strstr(dev->info.name, "Oclgrind") != NULL;
        if (packed && !oclgrind) {
            float *model = malloc(yn * 4);
            int64_t slice_k = xconv_step_value(s, "XC_MMA_SPLIT_STEPS", 0) *
                              xconv_step_value(s, "XC_MMA_TILE_K", 0);
            CHECK(model != NULL);
            if (model) {
                model_packed(&p, xt, wt, slices > 1 ? slice_k : INT64_MAX, model);
                size_t differ = 0;
                for (size_t i = 0; i < yn; i++)
                    differ += memcmp(&model[i], &y[i], 4) != 0;
                CHECK_MSG(differ == 0, "%s %s: %zu of %zu outputs differ from the fp32 model",
                          spec, types, differ, yn);
            }
            free(model);
        }
        CHECK_MSG(st != XCONV_OK || xconv_compare_passed(&exact, 1e-5 + storage),
                  "%s %s: %lld non-finite, error %.3g at %lld", spec, types,
                  (long long)exact.nonfinite, exact.max_norm_err, (long long)exact.worst_index);
        CHECK_MSG(st != XCONV_OK || xconv_compare_passed(&mode, limit), "%s %s: error %.3g",
                  spec, types, mode.max_norm_err);
    }
    free(x), free(w), free(y), free(xt), free(wt), free(ref), free(norm);
    xconv_plan_destroy(plan);
}

// Where a group's channels fill whole K steps both pipelines walk k as (r, s, c) in the same
// steps and slices, so each output's sums are the same mma in the same order: y must be the
// same to the bit (on the tensor cores too). So must the packed pipeline's and direct B's on
// every 1x1 layer direct B takes (the same fragments in the same steps). pipes: the two
// pipelines compared, unsplit.
static void check_same_bits_of(xconv_device *dev, const xconv_variant *v, int index,
                               const char *types, const int pipes[2])
{
    xconv_problem p;
    xconv_error err;
    if (!parse_with(run_specs[index], types, &p))
        return;
    size_t xn = (size_t)xconv_problem_x_elems(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t yn = (size_t)xconv_problem_y_elems(&p);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y[2] = {malloc(yn * 4), malloc(yn * 4)};
    CHECK(x && w && y[0] && y[1]);
    for (int k = 0; x && w && y[0] && y[1] && k < 2; k++) {
        xconv_random_fill(x, xn, 5, 1);
        xconv_random_fill(w, wn, 5, 2);
        xconv_dtype_round(p.dtype, x, xn);
        xconv_dtype_round(p.dtype, w, wn);
        xconv_plan_options opts;
        xconv_plan_options_default(&opts);
        bool packed = pipes[k] != XCONV_MMA_PIPELINE_REGISTERS;
        opts.mma_pipeline = pipes[k];
        opts.mma_split_k = packed ? 1 : 0;  // unsplit: the same sums in the same order
        xconv_plan *plan = NULL;
        xconv_device_info saved = dev->info;
        dev->info.compute_units = run_units[index];
        if (packed && dev->info.local_mem_bytes > 512 * 6 * 4)  // room for the exchange buffer
            dev->info.local_mem_bytes -= 512 * 6 * 4;       // (as check_emulated_with)
        xconv_status st = xconv_variant_plan(v, dev, &p, &opts, &plan, &err);
        dev->info = saved;
        for (int j = 0; st == XCONV_OK && j < plan->nsteps; j++) {
            xconv_step *sj = xconv_plan_step(plan, j);
            for (int i = 0; i < sj->ndefines; i++)
                if (strcmp(sj->defines[i].name, "XC_MMA_PTX") == 0)
                    sj->defines[i].value = 0;
        }
        st = st ? st : run_stored(dev, plan, &p, x, w, y[k], &err);
        CHECK_MSG(st == XCONV_OK, "%s %s: %s", run_specs[index], types, err.msg);
        xconv_plan_destroy(plan);
    }
    if (x && w && y[0] && y[1]) {
        size_t differ = 0;
        for (size_t i = 0; i < yn; i++)
            differ += memcmp(&y[0][i], &y[1][i], 4) != 0;
        static const char *const names[] = {"auto", "registers", "packed", "direct B"};
        printf("  %-44s %-21s %s vs %s: %zu of %zu outputs differ in their bits\n",
               run_specs[index], types, names[pipes[0]], names[pipes[1]], differ, yn);
        CHECK(differ == 0);
    }
    free(x), free(w), free(y[0]), free(y[1]);
}

// The packed filters (K, R, S, CP) as implicit_mma_pack_w writes them, from w as stored
// (storage bits; tf32 rounded to TF32): word (k, rs, cw) holds channels cw * PACK.. of tap rs,
// zeros past a group's channels.
static void model_packed_w(const xconv_problem *p, const float *w, uint32_t *words)
{
    int64_t cg = p->c / p->groups, rs_n = p->r * p->s, wn = xconv_problem_w_elems(p);
    int pack = p->math == XCONV_MATH_TF32 ? 1 : 2;
    int64_t cpw = xconv_mma_packed_channels(p) / pack;
    uint16_t *half = malloc((size_t)wn * 2);
    float *tf = malloc((size_t)wn * 4);
    CHECK(half && tf);
    if (half && tf) {
        if (pack == 2)
            CHECK(xconv_dtype_from_f32(p->dtype, w, half, (size_t)wn));
        memcpy(tf, w, (size_t)wn * 4);
        round_tf32(tf, (size_t)wn);
        for (int64_t k = 0; k < p->k; k++)
            for (int64_t rs = 0; rs < rs_n; rs++)
                for (int64_t cw = 0; cw < cpw; cw++) {
                    uint32_t word = 0;
                    for (int h = 0; h < pack; h++) {
                        int64_t c = cw * pack + h, at = (k * cg + c) * rs_n + rs;
                        uint32_t bits = 0;
                        if (c < cg && pack == 1)
                            memcpy(&bits, &tf[at], 4);
                        else if (c < cg)
                            bits = half[at];
                        word |= bits << (16 * h);
                    }
                    words[(k * rs_n + rs) * cpw + cw] = word;
                }
    }
    free(half), free(tf);
}

// The packed pipeline of spec in `types` emulated on dev with its local memory capped at
// local_cap bytes: the packed filters in the workspace (filled with all-ones words first) must
// equal model_packed_w's words, padding included, and y model_packed's, to the bit; the filter
// packing tiled (in `blocks` channel blocks: 0 untiled) as expected.
static void check_packed_filters(xconv_device *dev, const xconv_variant *v, const char *spec,
                                 const char *types, size_t local_cap, int blocks)
{
    xconv_problem p;
    xconv_error err;
    if (!parse_with(spec, types, &p))
        return;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.mma_pipeline = XCONV_MMA_PIPELINE_PACKED;
    opts.mma_split_k = 1;
    xconv_plan *plan = NULL;
    xconv_device_info saved = dev->info;
    size_t room = dev->info.local_mem_bytes - 512 * 6 * 4;  // the emulation's exchange buffer
    dev->info.local_mem_bytes = local_cap < room ? local_cap : room;  // (as check_emulated_with)
    xconv_status st = xconv_variant_plan(v, dev, &p, &opts, &plan, &err);
    dev->info = saved;
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
    if (st != XCONV_OK)
        return;
    for (int j = 0; j < plan->nsteps; j++) {
        xconv_step *sj = xconv_plan_step(plan, j);
        for (int i = 0; i < sj->ndefines; i++)
            if (strcmp(sj->defines[i].name, "XC_MMA_PTX") == 0)
                sj->defines[i].value = 0;
    }
    const xconv_step *pw = xconv_plan_step(plan, 0);
    int pack = p.math == XCONV_MATH_TF32 ? 1 : 2;
    long long chunks = xconv_step_value(pw, "XC_MMA_PACK_W_CHUNKS", -1);
    long long cp_chunks = xconv_mma_packed_channels(&p) / (4 * pack);
    long long got_blocks = chunks > 0 ? (cp_chunks + chunks - 1) / chunks : 0;
    CHECK_MSG(strcmp(pw->kernel, "implicit_mma_pack_w") == 0 && got_blocks == blocks,
              "%s %s: %lld-chunk blocks (%lld), expected %d blocks", spec, types, chunks,
              got_blocks, blocks);
    int region = -1;
    for (int r = 0; r < plan->nregions; r++)
        if (strcmp(plan->regions[r].name, "packed w") == 0)
            region = r;
    CHECK(region >= 0);
    size_t eb = xconv_problem_elem_bytes(&p), wn = (size_t)xconv_problem_w_elems(&p);
    size_t xn = (size_t)xconv_problem_x_elems(&p), yn = (size_t)xconv_problem_y_elems(&p);
    size_t nwords = region >= 0 ? plan->regions[region].bytes / 4 : 0;
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4), *model = malloc(yn * 4);
    float *xt = malloc(xn * 4), *wt = malloc(wn * 4);
    void *xs = malloc(xn * eb), *wsd = malloc(wn * eb), *ys = malloc(yn * eb);
    uint32_t *got = malloc(nwords * 4 + 4), *want = malloc(nwords * 4 + 4);
    xconv_tensors t = {.x = xconv_buffer_create(dev, xn * eb, &err),
                       .w = xconv_buffer_create(dev, wn * eb, &err),
                       .y = xconv_buffer_create(dev, (yn * eb + 3) / 4 * 4, &err),
                       .workspace = xconv_buffer_create(dev, xconv_plan_workspace_size(plan),
                                                        &err)};
    st = x && w && y && model && xt && wt && xs && wsd && ys && got && want && t.x && t.w &&
                 t.y && t.workspace && region >= 0
             ? XCONV_OK
             : XCONV_ERR_OUT_OF_MEMORY;
    if (st == XCONV_OK) {
        xconv_random_fill(x, xn, 5, 1);
        xconv_random_fill(w, wn, 5, 2);
        xconv_dtype_round(p.dtype, x, xn);
        xconv_dtype_round(p.dtype, w, wn);
        CHECK(xconv_dtype_from_f32(p.dtype, x, xs, xn) &&
              xconv_dtype_from_f32(p.dtype, w, wsd, wn));
        uint32_t ones = 0xffffffffu;
        float poison;
        memcpy(&poison, &ones, 4);
        st = xconv_buffer_fill_f32(t.workspace, xconv_plan_workspace_size(plan) / 4, poison,
                                   &err);
        st = st ? st : xconv_buffer_upload(t.x, 0, xn * eb, xs, &err);
        st = st ? st : xconv_buffer_upload(t.w, 0, wn * eb, wsd, &err);
        st = st ? st : xconv_plan_run(plan, &t, &err);
        st = st ? st : xconv_device_wait(dev, &err);
        st = st ? st : xconv_buffer_download(t.workspace, plan->regions[region].offset,
                                             nwords * 4, got, &err);
        st = st ? st : xconv_buffer_download(t.y, 0, yn * eb, ys, &err);
    }
    CHECK_MSG(st == XCONV_OK, "%s %s: %s", spec, types, err.msg);
    if (st == XCONV_OK) {
        int64_t w_words = p.k * p.r * p.s * xconv_mma_packed_channels(&p) / pack;
        model_packed_w(&p, w, want);
        size_t differ = 0;
        for (int64_t i = 0; i < w_words; i++)
            differ += got[i] != want[i];
        xconv_dtype_to_f32(p.dtype, ys, y, yn);
        memcpy(xt, x, xn * 4), memcpy(wt, w, wn * 4);
        if (p.math == XCONV_MATH_TF32)
            round_tf32(xt, xn), round_tf32(wt, wn);
        model_packed(&p, xt, wt, INT64_MAX, model);
        size_t y_differ = 0;
        for (size_t i = 0; i < yn; i++)
            y_differ += memcmp(&model[i], &y[i], 4) != 0;
        printf("  %-44s %-21s pack_w %lld block%s of %lld chunks: %zu of %lld words, %zu of "
               "%zu outputs differ\n", spec, types, got_blocks, got_blocks == 1 ? "" : "s",
               chunks, differ, (long long)w_words, y_differ, yn);
        CHECK(differ == 0 && y_differ == 0);
    }
    xconv_buffer_destroy(t.x), xconv_buffer_destroy(t.w), xconv_buffer_destroy(t.y);
    xconv_buffer_destroy(t.workspace);
    free(x), free(w), free(y), free(model), free(xt), free(wt), free(xs), free(wsd), free(ys);
    free(got), free(want);
    xconv_plan_destroy(plan);
}

// The tiled filter packing on dev: taps of 9, 25 and 49 (and a 1x1 filter, untiled), odd
// channel counts padded, groups, one block and several (local memory capped at 48 KiB: a
// quarter of it holds 14 chunks of 49 taps), in every math mode.
static void test_packed_filters(xconv_device *dev, const xconv_variant *v)
{
    const size_t all = (size_t)-1, kib48 = 48 << 10;
    check_packed_filters(dev, v, "n=1,c=5,h=3,w=3,k=3,r=3,pad=1", math_specs[1], all, 1);
    check_packed_filters(dev, v, "n=1,c=13,h=5,w=5,k=3,r=5,pad=2", math_specs[0], all, 1);
    check_packed_filters(dev, v, "n=1,c=13,h=5,w=5,k=3,r=5,pad=2", math_specs[2], all, 1);
    check_packed_filters(dev, v, "n=1,c=3,h=7,w=7,k=2,r=7,pad=3", math_specs[2], all, 1);
    check_packed_filters(dev, v, "n=1,c=6,h=3,w=3,k=4,r=3,pad=1,groups=2", math_specs[0], all,
                         1);
    check_packed_filters(dev, v, "n=1,c=130,h=7,w=7,k=3,r=7,pad=3", math_specs[0], kib48, 3);
    check_packed_filters(dev, v, "n=1,c=130,h=7,w=7,k=3,r=7,pad=3", math_specs[1], kib48, 2);
    check_packed_filters(dev, v, "n=1,c=9,h=4,w=4,k=3,r=1", math_specs[1], all, 0);
}

static void check_same_bits(xconv_device *dev, const xconv_variant *v, int index,
                            const char *types)
{
    const int pipes[2] = {XCONV_MMA_PIPELINE_REGISTERS, XCONV_MMA_PIPELINE_PACKED};
    check_same_bits_of(dev, v, index, types, pipes);
}

// Direct B (1x1 layers, B copied from x as it lies, x not packed) emulated: every mode on the
// 1x1 shapes whose H W it takes (tf32 also 36 pixels), every element to the bit against the
// fp32 model and against the packed pipeline; forced tiles of 64 and 32 columns, a K step of 8
// TF32 words, 2-4 stages and a forced split; the shape it refuses in f16 through packed x.
static void test_direct_emulated(xconv_device *dev, const xconv_variant *v)
{
    const int direct = XCONV_MMA_PIPELINE_DIRECT_B;
    const int versus[2] = {XCONV_MMA_PIPELINE_PACKED, XCONV_MMA_PIPELINE_DIRECT_B};
    for (int m = 0; m < 3; m++)
        for (int i = DIRECT_FIRST; i < ALL_SPECS - (m > 0); i++) {
            check_emulated_with(dev, v, i, math_specs[m], direct, 0, 0, NULL, 1);
            check_same_bits_of(dev, v, i, math_specs[m], versus);
        }
    const xconv_forced_mma_tiles f16_64 = {64, 64, 32, 2, 2, 3}, tf32_32 = {32, 32, 8, 1, 2, 2};
    const xconv_forced_mma_tiles tf32_4 = {128, 64, 16, 4, 2, 4};
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[1], direct, 0, 3, &f16_64, 1);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[0], direct, 0, 2, &tf32_32, 1);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[0], direct, 0, 4, &tf32_4, 1);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[0], direct, 0, 0, NULL, 3);
    check_emulated_with(dev, v, DIRECT_FIRST + 1, math_specs[2], direct, 0, 0, NULL, 2);
    check_emulated_with(dev, v, DIRECT_FIRST + 2, math_specs[1], XCONV_MMA_PIPELINE_PACKED, 0, 0,
                        NULL, 1);
}

static void check_emulated(xconv_device *dev, const xconv_variant *v, int index,
                           const char *types)
{
    check_emulated_with(dev, v, index, types, XCONV_MMA_PIPELINE_AUTO, 0, 0, NULL, 1);
}

// Forced tiles (XCONV_MMA_TILES) and split-K (XCONV_MMA_SPLIT) emulated on dev: K steps of 8, 16
// and 32 words, 2 to 8 warps in both orientations, forced stages, the register pipeline too;
// slices of several steps and of one (a half step last), groups, forced tiles with a split, and
// the planner's own split of a one-tile grid (shape 7 on 64 compute units).
static void test_forced_emulated(xconv_device *dev, const xconv_variant *v)
{
    const int packed_pipe = XCONV_MMA_PIPELINE_PACKED, registers = XCONV_MMA_PIPELINE_REGISTERS;
    const xconv_forced_mma_tiles narrow_k = {32, 64, 8, 2, 2, 2}, wide_k = {128, 64, 64, 4, 2, 2};
    const xconv_forced_mma_tiles wide_n = {64, 128, 32, 2, 4, 3}, deep = {16, 32, 32, 1, 2, 2};
    const xconv_forced_mma_tiles reg_a = {32, 64, 16, 1, 2, 0}, reg_b = {64, 64, 32, 2, 2, 0};
    const xconv_forced_mma_tiles quad = {64, 64, 32, 2, 2, 3};
    check_emulated_with(dev, v, 0, math_specs[0], packed_pipe, 0, 0, &narrow_k, 1);
    check_emulated_with(dev, v, 8, math_specs[1], packed_pipe, 0, 0, &wide_k, 1);
    check_emulated_with(dev, v, 1, math_specs[2], packed_pipe, 0, 3, &wide_n, 1);
    check_emulated_with(dev, v, 4, math_specs[0], packed_pipe, 0, 2, &deep, 1);
    check_emulated_with(dev, v, 1, math_specs[0], registers, 0, 0, &reg_a, 1);
    check_emulated_with(dev, v, 0, math_specs[1], registers, 0, 0, &reg_b, 1);
    check_emulated_with(dev, v, 8, math_specs[0], packed_pipe, 0, 0, NULL, 3);
    check_emulated_with(dev, v, 3, math_specs[0], packed_pipe, 0, 0, NULL, 5);
    check_emulated_with(dev, v, 0, math_specs[1], packed_pipe, 0, 0, NULL, 2);
    check_emulated_with(dev, v, 2, math_specs[2], packed_pipe, 0, 0, NULL, 3);
    check_emulated_with(dev, v, 8, math_specs[1], packed_pipe, 0, 3, &quad, 4);
    check_emulated_with(dev, v, 7, math_specs[0], packed_pipe, 0, 0, NULL, 0);
}

// packed_only: only the packed pipeline's checks (`test_mma packed`, for Oclgrind); forced_only:
// only the forced tiles and split-K (`test_mma forced`).
static void test_emulated(bool packed_only, bool forced_only)
{
    xconv_device *dev = open_cpu();
    if (!dev) {
        printf("  no OpenCL CPU device: the emulated kernel is not run\n");
        return;
    }
    xconv_error err;
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    char reason[512];
    xconv_problem p;
    CHECK(parse_with(run_specs[0], "math=tf32", &p));
    CHECK(!xconv_variant_applies(v, dev, &p, reason, sizeof reason));  // no tensor cores
    CHECK_CONTAINS(reason, "needs NVIDIA tensor cores");
    dev->info.cc_major = XCONV_MMA_MIN_CC_MAJOR;  // planned as for tensor cores, run emulated
    // Every shape in tf32; fp16 and bf16 (the same word layout, two elements a word) on the
    // 32-row tiles with a K tail and on the 128 x 128 tiles (PoCL's builds of the emulation,
    // a barrier pair per mma, dominate the test's time).
    for (int i = 0; v && !packed_only && i < RUN_SPECS; i++)
        check_emulated(dev, v, i, math_specs[0]);
    for (int m = 1; v && !packed_only && m < 3; m++) {
        check_emulated(dev, v, 0, math_specs[m]);
        check_emulated(dev, v, 3, math_specs[m]);
        check_emulated(dev, v, 7, math_specs[m]);  // k walked as (r, s, c)
        check_emulated(dev, v, 8, math_specs[m]);
    }
    // The packed pipeline (x and w packed, a cp.async ring emulated by loads and stores): every
    // shape in tf32, with the ring's 2, 3 and 4 stages (local memory capped as on a 48 KiB
    // device and below); fp16 and bf16 (8 channels a chunk: 5, 12, 40 and 1 channel padded) on
    // a spread of them.
    const int packed_pipe = XCONV_MMA_PIPELINE_PACKED;
    if (v && forced_only) {
        test_forced_emulated(dev, v);
        dev->info.cc_major = 0;
        xconv_device_close(dev);
        return;
    }
    for (int i = 0; v && i < RUN_SPECS; i++)
        check_emulated_with(dev, v, i, math_specs[0], packed_pipe, 0, 0, NULL, 1);
    check_emulated_with(dev, v, 3, math_specs[0], packed_pipe, 48 << 10, 3, NULL, 1);  // 128x128
    check_emulated_with(dev, v, 8, math_specs[0], packed_pipe, 33 << 10, 2, NULL, 1);  // 128x128
    check_emulated_with(dev, v, 1, math_specs[0], packed_pipe, 48 << 10, 4, NULL, 1);  // 64x128
    for (int m = 1; v && m < 3; m++) {
        check_emulated_with(dev, v, 0, math_specs[m], packed_pipe, 0, 0, NULL, 1);
        check_emulated_with(dev, v, 2, math_specs[m], packed_pipe, 0, 0, NULL, 1);  // groups
        check_emulated_with(dev, v, 5, math_specs[m], packed_pipe, 0, 0, NULL, 1);  // 40 chans
        check_emulated_with(dev, v, 6, math_specs[m], packed_pipe, 0, 0, NULL, 1);  // 1 chan
        check_emulated_with(dev, v, 8, math_specs[m], packed_pipe, 48 << 10, 3, NULL, 1);
    }
    if (v)
        test_packed_filters(dev, v);
    if (v)
        test_forced_emulated(dev, v);
    if (v)
        test_direct_emulated(dev, v);
    for (int m = 0; v && m < 3; m++) {
        check_same_bits(dev, v, 7, math_specs[m]);  // 32 channels: whole K steps in every mode
        check_same_bits(dev, v, 8, math_specs[m]);  // 64, stride, dilation, padding
    }
    dev->info.cc_major = 0;
    xconv_device_close(dev);
}

// Only the tiled filter packing's checks (`test_mma pack_w`).
static void test_pack_w_only(void)
{
    xconv_error err;
    xconv_device *dev = open_cpu();
    const xconv_variant *v = xconv_variant_find("implicit_mma", &err);
    if (!dev || !v) {
        printf("  no OpenCL CPU device: the emulated kernel is not run\n");
        xconv_device_close(dev);
        return;
    }
    dev->info.cc_major = XCONV_MMA_MIN_CC_MAJOR;  // planned as for tensor cores, run emulated
    test_packed_filters(dev, v);
    dev->info.cc_major = 0;
    xconv_device_close(dev);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "pack_w") == 0) {
        test_pack_w_only();
        return check_summary("test_mma pack_w");
    }
    if (argc > 1 && (strcmp(argv[1], "packed") == 0 || strcmp(argv[1], "forced") == 0)) {
        bool forced = strcmp(argv[1], "forced") == 0;
        test_emulated(true, forced);
        return check_summary(forced ? "test_mma forced" : "test_mma packed");
    }
    test_emulated(false, false);
    return check_summary("test_mma");
}
