// SPDX-License-Identifier: MIT
// The FFT planner: transform sizes, tiles, work-group shapes and images per pass of FFT
// convolution from a device's limits and a problem, and the plan's steps and regions.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan/plan_epilogue.h"
#include "plan/variant.h"
#include "families/fft/plan_fft.h"
#include "xconv_fft_params.h"

// ---------------------------------------------------------------------------------------------
// Transform sizes

bool xconv_fft_is_smooth(int64_t n)
{
    if (n < 1)
        return false;
    static const int primes[] = {2, 3, 5};
    for (int i = 0; i < 3; i++)
        while (n % primes[i] == 0)
            n /= primes[i];
    return n == 1;
}

int64_t xconv_fft_next_smooth(int64_t n)
{
    if (n <= 1)
        return 1;
    while (!xconv_fft_is_smooth(n))
        n++;
    return n;
}

int xconv_fft_radix_code(int n)
{
    if (n < 2 || n > XCONV_FFT_MAX_LENGTH || !xconv_fft_is_smooth(n))
        return 0;
    int twos = 0, fives = 0, threes = 0;
    for (; n % 2 == 0; n /= 2)
        twos++;
    for (; n % 5 == 0; n /= 5)
        fives++;
    for (; n % 3 == 0; n /= 3)
        threes++;
    int radices[16], count = 0;
    int eights = twos / 3, rest = twos % 3;
    if (rest == 1 && eights > 0) {  // 8 * 2 -> 4 * 4: the same passes, cheaper butterflies
        eights--;
        radices[count++] = 4;
        rest = 2;
    }
    for (int i = 0; i < eights; i++)
        radices[count++] = 8;
    if (rest)
        radices[count++] = 1 << rest;
    for (int i = 0; i < fives; i++)
        radices[count++] = 5;
    for (int i = 0; i < threes; i++)
        radices[count++] = 3;
    if (count > 8)  // the kernels read eight hex digits
        return 0;
    int code = 0;
    for (int i = 0; i < count; i++)
        code |= radices[i] << (4 * i);
    return code;
}

// The radices of a code as text ("4x4x3").
static void radices_text(int code, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < 8 && (code >> (4 * i)) & 15; i++)
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "x" : "",
                                     (code >> (4 * i)) & 15);
}

// ---------------------------------------------------------------------------------------------
// Defines

#define XCONV_FFT_DEFINE(name, expr, meaning)                         \
    if (st == XCONV_OK)                                               \
        st = xconv_step_define(s, #name, (long long)(expr), err);

xconv_status xconv_fft_define(xconv_step *s, const xconv_fft_params *t, xconv_error *err)
{
    xconv_status st = XCONV_OK;
    XCONV_FFT_DEFINES(XCONV_FFT_DEFINE)
    return st;
}
#undef XCONV_FFT_DEFINE

// ---------------------------------------------------------------------------------------------
// Choosing

#define MAX_TILE 64         // fft_tiled's largest tile side
#define MAX_GRID_YZ 65535   // work-groups along dimensions 1 and 2 (CUDA's limit)

// Local memory of a transform step: `pairs` complex lh x pitch frames and both twiddle tables.
static size_t transform_local_bytes(int lh, int pitch, int lw, int pairs)
{
    return ((size_t)pairs * (size_t)lh * (size_t)pitch + (size_t)lh + (size_t)lw) * 8;
}

// The device's FLOPs per byte of memory traffic (its peaks when known).
static double flops_per_byte(const xconv_device_info *info)
{
    if (info->peak_gflops > 0 && info->peak_gbps > 0)
        return info->peak_gflops / info->peak_gbps;
    return info->is_cpu ? 4.0 : 16.0;
}

// A relative time per image of transforms lh x lw over `tiles` tiles: bytes of spectra
// written and read (the filter spectra's share of the batch included), plus FLOPs of
// transforms and channel sum at the device's balance.
static double size_cost(const xconv_device_info *info, const xconv_problem *p, int lh, int lw,
                        int64_t tiles)
{
    double freqs = (double)lh * (lw / 2 + 1), spectral = (double)tiles * freqs;
    double cg = (double)(p->c / p->groups);
    double bytes = 8.0 * spectral * 2.0 * (double)(p->c + p->k) +
                   8.0 * freqs * 2.0 * (double)p->k * cg / (double)p->n;
    double transform = (double)tiles * (double)(p->c + p->k) * 2.5 * lh * lw * log2(lh * lw);
    double gemm = 8.0 * spectral * (double)p->k * cg;
    return bytes + (transform + gemm) / flops_per_byte(info);
}

// The smooth lengths from `from` up to `to` (at most `max` of them) into out; returns how many.
static int smooth_lengths(int64_t from, int64_t to, int *out, int max)
{
    int count = 0;
    for (int64_t n = xconv_fft_next_smooth(from < 2 ? 2 : from);
         n <= to && count < max && xconv_fft_radix_code((int)n);
         n = xconv_fft_next_smooth(n + 1))
        out[count++] = (int)n;
    return count;
}

// The tile or transform lengths to consider along one dimension: the whole image's first few
// smooth lengths from the padded size `need`; tiles' smooth lengths from the filter size
// `taps` + 1 up to MAX_TILE and the first one covering the padded image (one tile: on a small
// image the cheapest tiling can be the whole image); or a forced length only, when it holds
// the padded image (whole) or the filter (tiles). Returns how many it wrote into out.
static int candidate_lengths(xconv_fft_kind kind, int64_t need, int64_t taps, int forced,
                             int *out, int max)
{
    int64_t least = kind == XCONV_FFT_WHOLE ? need : taps;
    if (forced)
        return forced >= least && xconv_fft_radix_code(forced) ? (out[0] = forced, 1) : 0;
    if (kind == XCONV_FFT_WHOLE)
        return smooth_lengths(need, 2 * need, out, max < 4 ? max : 4);
    int64_t cover = xconv_fft_next_smooth(need);
    return smooth_lengths(taps + 1, cover < MAX_TILE ? cover : MAX_TILE, out, max);
}

// Picks the transform size among the candidate lengths by size_cost, among those whose one
// pair fits local memory. Returns false with the reason when none does.
static bool choose_size(xconv_fft_kind kind, const xconv_device_info *info,
                        const xconv_problem *p, const xconv_plan_options *opts,
                        xconv_fft_choice *plan, char *why, size_t len)
{
    int64_t need_h = p->h + 2 * p->pad_h, need_w = p->w + 2 * p->pad_w;
    int64_t out_h = xconv_problem_out_h(p), out_w = xconv_problem_out_w(p);
    int hs[64], ws[64];
    int nh = candidate_lengths(kind, need_h, p->r, opts ? opts->fft_tile_h : 0, hs, 64);
    int nw = candidate_lengths(kind, need_w, p->s, opts ? opts->fft_tile_w : 0, ws, 64);
    double best = INFINITY;
    size_t smallest = 0;
    for (int i = 0; i < nh; i++) {
        for (int j = 0; j < nw; j++) {
            size_t local = transform_local_bytes(hs[i], ws[j], ws[j], 1);
            if (!smallest || local < smallest)
                smallest = local;
            if (local > info->local_mem_bytes)
                continue;
            int th = kind == XCONV_FFT_WHOLE ? (int)out_h : hs[i] - (int)p->r + 1;
            int tw = kind == XCONV_FFT_WHOLE ? (int)out_w : ws[j] - (int)p->s + 1;
            if (th > out_h)
                th = (int)out_h;
            if (tw > out_w)
                tw = (int)out_w;
            int64_t tiles = xconv_ceil_div(out_h, th) * xconv_ceil_div(out_w, tw);
            double cost = size_cost(info, p, hs[i], ws[j], tiles);
            if (cost < best * 0.999) {
                best = cost;
                plan->lh = hs[i];
                plan->lw = ws[j];
                plan->out_h = th;
                plan->out_w = tw;
                plan->tiles_h = (int)xconv_ceil_div(out_h, th);
                plan->tiles_w = (int)xconv_ceil_div(out_w, tw);
            }
        }
    }
    if (best < INFINITY)
        return true;
    if (opts && (opts->fft_tile_h || opts->fft_tile_w) && (nh == 0 || nw == 0)) {
        snprintf(why, len, "the forced transform size %dx%d is not a smooth length (2^a 3^b 5^c, "
                 "at most %d) holding the %lldx%lld %s", opts->fft_tile_h, opts->fft_tile_w,
                 XCONV_FFT_MAX_LENGTH,
                 (long long)(kind == XCONV_FFT_WHOLE ? need_h : p->r),
                 (long long)(kind == XCONV_FFT_WHOLE ? need_w : p->s),
                 kind == XCONV_FFT_WHOLE ? "padded image" : "filter");
    } else if ((nh == 0 || nw == 0) && kind == XCONV_FFT_TILED &&
               (p->r >= MAX_TILE || p->s >= MAX_TILE)) {
        snprintf(why, len, "the %lldx%lld filter is larger than the largest tile (%dx%d)",
                 (long long)p->r, (long long)p->s, MAX_TILE, MAX_TILE);
    } else if ((nh == 0 || nw == 0) && kind == XCONV_FFT_TILED) {
        // A tile is longer than the filter; an image padded to no more than the filter has
        // room for none (a single output: nothing to tile).
        snprintf(why, len, "the padded image (%lldx%lld) is no larger than the %lldx%lld "
                 "filter: a tile must be longer than the filter, so there is nothing to tile",
                 (long long)need_h, (long long)need_w, (long long)p->r, (long long)p->s);
    } else if (nh == 0 || nw == 0) {
        snprintf(why, len, "no transform length of at most %d covers the padded image "
                 "(%lldx%lld)", XCONV_FFT_MAX_LENGTH, (long long)need_h, (long long)need_w);
    } else {
        snprintf(why, len, "the smallest %s transform (%dx%d) needs %zu bytes of local memory; "
                 "the device has %llu",
                 kind == XCONV_FFT_WHOLE ? "whole-image" : "tile", hs[0], ws[0], smallest,
                 (unsigned long long)info->local_mem_bytes);
    }
    return false;
}

// Work-items for a transform step: enough for the busiest pass's butterflies (up to 256), a
// multiple of the device's preferred size, within its work-group limits.
static int choose_threads(const xconv_device_info *info, int lh, int lw, int pairs)
{
    int64_t busiest = (int64_t)pairs * lh * lw / 2;  // a radix-2 pass over every line
    int64_t want = busiest < 256 ? busiest : 256;
    if (info->is_cpu && want > 64)
        want = 64;
    int64_t multiple = info->preferred_multiple ? (int64_t)info->preferred_multiple : 1;
    want = xconv_ceil_div(want, multiple) * multiple;
    int64_t limit = (int64_t)info->max_work_group_size;
    if (info->max_work_item_sizes[0] && (int64_t)info->max_work_item_sizes[0] < limit)
        limit = (int64_t)info->max_work_item_sizes[0];
    while (want > limit && want > 1)
        want /= 2;
    return want < 1 ? 1 : (int)want;
}

// The parameters shared by every step: the choice's transform size, tiles and batch, the local
// rows' pitch, and how the passes are compiled.
static xconv_fft_params shared_params(const xconv_device_info *info, const xconv_fft_choice *plan)
{
    xconv_fft_params t = {
        .lh = plan->lh, .radix_h = xconv_fft_radix_code(plan->lh),
        .lw = plan->lw, .radix_w = xconv_fft_radix_code(plan->lw),
        .tiles_h = plan->tiles_h, .tiles_w = plan->tiles_w,
        .out_h = plan->out_h, .out_w = plan->out_w,
        .batch = (int)plan->batch, .pitch = plan->lw,
    };
    // PoCL 3.1 (LLVM 15) miscompiles the inlined passes, or crashes on them: CPUs get the
    // out-of-line pass function, whose radix is then a run-time value.
    t.inline_passes = !info->is_cpu;
    return t;
}

// Sets t's planes and work-items per work-group for a transform step over `planes_max` planes
// at most, or `forced` planes (opts->fft_planes, 0: chosen). Returns false with the reason when
// the forced planes' frames pass the device's local memory.
static bool transform_work(const xconv_device_info *info, xconv_fft_params *t,
                           int64_t planes_max, int forced, char *why, size_t len)
{
    // GPUs: up to 4 pairs (8 planes: neighbouring work-items store 64-byte runs of spectra)
    // within half the local memory, and two pairs where two such work-groups fit a compute
    // unit's local memory (the device's per-unit amount where it says); CPUs: one pair. A pair
    // is 16 bytes of a frequency's run, so one pair a work-group writes (and the inverse reads)
    // half a 32-byte sector per access. On the H100 (48 KiB a work-group, 228 KiB an SM)
    // conv5x5's 32x60 tiles in two pairs (31456 bytes) ran 1.17x faster than in one, both
    // backends; big11x11's in four pairs 1.03x slower than in two
    // (2026-11-27-h100-09db270-fft_planes_*.json, 2026-11-27-h100-08c3a2a-fft_default_*.json).
    uint64_t unit = info->local_mem_per_unit_bytes ? info->local_mem_per_unit_bytes
                                                   : info->local_mem_bytes;
    int pairs = 1;
    for (int want = info->is_cpu ? 1 : 4; want > 1; want /= 2) {
        size_t bytes = transform_local_bytes(t->lh, t->pitch, t->lw, want);
        bool fits = bytes <= info->local_mem_bytes / 2 ||
                    (want == 2 && bytes <= info->local_mem_bytes && 2 * bytes <= unit);
        if (fits && 2 * (want / 2) < planes_max) {
            pairs = want;
            break;
        }
    }
    if (forced) {
        pairs = forced / 2;
        size_t local = transform_local_bytes(t->lh, t->pitch, t->lw, pairs);
        if (local > info->local_mem_bytes) {
            snprintf(why, len, "%d planes per work-group of %dx%d transforms need %zu bytes of "
                     "local memory; the device has %llu", forced, t->lh, t->lw, local,
                     (unsigned long long)info->local_mem_bytes);
            return false;
        }
    }
    t->planes = 2 * pairs;
    t->threads = choose_threads(info, t->lh, t->lw, pairs);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Images per pass and regions

// Images per pass: as many as fit the workspace budget (one allocation, at most a quarter of
// device memory) beside the filter spectra and the 32-bit index range, at most n. Returns < 1
// when one image does not fit, with the numbers in why.
static int64_t choose_chunk(const xconv_device_info *info, const xconv_fft_choice *c,
                            char *why, size_t len)
{
    const xconv_problem *p = &c->problem;
    double per_image = 8.0 * c->freqs * c->tiles_h * c->tiles_w * (double)(p->c + p->k);
    double filter = 8.0 * c->freqs * (double)p->k * (double)(p->c / p->groups);
    double budget = (double)info->max_alloc_bytes;
    if (info->global_mem_bytes && info->global_mem_bytes / 4 < info->max_alloc_bytes)
        budget = (double)(info->global_mem_bytes / 4);
    double index_bytes = 4.0 * (double)XCONV_MAX_INDEX;  // kernels index floats with an int
    double limit = fmin(budget, index_bytes);
    double room = limit - filter - 3.0 * XCONV_REGION_ALIGN;
    int64_t chunk = room > 0 ? (int64_t)(room / per_image) : 0;
    if (chunk > p->n)
        chunk = p->n;
    if (chunk < 1)
        snprintf(why, len, "the FFT workspace for one image needs %.1f MiB (%.1f MiB of input "
                 "and output spectra, %.1f MiB of filter spectra); the device allows %.1f MiB "
                 "(its largest allocation, a quarter of its memory and 2^31 floats)",
                 (per_image + filter) / 1048576.0, per_image / 1048576.0, filter / 1048576.0,
                 limit / 1048576.0);
    return chunk;
}

// Returns true when p's grid fits the launch limits, else false with the reason.
static bool fits_grid(const xconv_fft_choice *c, char *why, size_t len)
{
    const xconv_problem *p = &c->problem;
    if (p->c > MAX_GRID_YZ || p->k > MAX_GRID_YZ || c->freqs > MAX_GRID_YZ)
        return snprintf(why, len, "C=%lld, K=%lld or the %d frequencies pass the %d "
                        "work-groups of a grid dimension", (long long)p->c, (long long)p->k,
                        c->freqs, MAX_GRID_YZ), false;
    return true;
}

// Sets the images per pass (at most opts->fft_chunk), the passes and the regions' sizes;
// returns false with the reason when one image does not fit.
static bool choose_passes(const xconv_device_info *info, const xconv_plan_options *opts,
                          xconv_fft_choice *c, char *why, size_t len)
{
    const xconv_problem *p = &c->problem;
    c->chunk = choose_chunk(info, c, why, len);
    if (c->chunk < 1)
        return false;
    if (opts && opts->fft_chunk > 0 && opts->fft_chunk < c->chunk)
        c->chunk = opts->fft_chunk;
    int64_t tiles = (int64_t)c->tiles_h * c->tiles_w;
    // The transforms pair spectrum columns (2j, 2j + 1) of a pass, and a pair's rounding
    // depends on both: passes of an even number of columns keep the pairs, and so the results,
    // the same whatever the chunk (a device with smaller allocations gives the same bits).
    if (c->chunk < p->n && c->chunk > 1 && (c->chunk * tiles) % 2)
        c->chunk--;
    c->passes = xconv_ceil_div(p->n, c->chunk);
    c->batch = c->chunk * tiles;
    size_t f = (size_t)c->freqs * 8;
    c->input_bytes = f * (size_t)p->c * (size_t)c->batch;
    c->filter_bytes = f * (size_t)p->k * (size_t)(p->c / p->groups);
    c->output_bytes = f * (size_t)p->k * (size_t)c->batch;
    return true;
}

// ---------------------------------------------------------------------------------------------
// The choice

xconv_status xconv_fft_choose(xconv_fft_kind kind, const xconv_device_info *info,
                              const xconv_problem *p, const xconv_plan_options *opts,
                              xconv_fft_choice *c, xconv_error *err)
{
    memset(c, 0, sizeof *c);
    xconv_status st = xconv_problem_check(p, err);
    if (st != XCONV_OK)
        return st;
    const char *name = kind == XCONV_FFT_WHOLE ? "fft" : "fft_tiled";
    if (p->stride_h != 1 || p->stride_w != 1 || p->dil_h != 1 || p->dil_w != 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "%s needs stride 1 and dilation 1 (this problem has stride "
                               "%lldx%lld, dilation %lldx%lld)",
                               name, (long long)p->stride_h, (long long)p->stride_w,
                               (long long)p->dil_h, (long long)p->dil_w);
    if (p->r == 1 && p->s == 1)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "%s needs a filter larger than 1x1 (a 1x1 filter makes the "
                               "convolution a pointwise product over channels, which transforms "
                               "only slow down; gemm_1x1 or implicit_gemm compute it directly)",
                               name);
    c->kind = kind;
    c->problem = *p;
    char why[512];
    if (!choose_size(kind, info, p, opts, c, why, sizeof why))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s: %s", name, why);
    c->freqs = c->lh * (c->lw / 2 + 1);
    if (!fits_grid(c, why, sizeof why) || !choose_passes(info, opts, c, why, sizeof why))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s: %s", name, why);
    c->filter_scale = (float)(1.0 / ((double)c->lh * (double)c->lw));
    c->params = shared_params(info, c);
    int forced = opts ? opts->fft_planes : 0;
    if (!transform_work(info, &c->params, c->batch, forced, why, sizeof why))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s: %s", name, why);
    if (!xconv_fft_gemm_tiles(info, p, opts ? opts->fft_gemm : NULL, &c->params, why, sizeof why))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s: %s", name, why);
    c->filter = c->params;
    transform_work(info, &c->filter, p->k * (p->c / p->groups), forced, why, sizeof why);
    return XCONV_OK;
}

bool xconv_fft_applies(xconv_fft_kind kind, const xconv_device_info *info,
                       const xconv_problem *p, char *reason, size_t len)
{
    xconv_error err = {0};
    xconv_fft_choice c;
    xconv_status st = xconv_fft_choose(kind, info, p, NULL, &c, &err);
    if (st != XCONV_OK && reason && len)
        snprintf(reason, len, "%s", err.msg);
    return st == XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Steps

// Sets a transform step's geometry over `planes` planes: PLANES a work-group along dimension
// 0, `rows` (channels) along dimension 1; and its local memory.
static void transform_geometry(xconv_step *s, const xconv_fft_params *t,
                               int64_t planes, int64_t rows)
{
    size_t global[3] = {(size_t)xconv_ceil_div(planes, t->planes) * (size_t)t->threads,
                        (size_t)rows, 1};
    size_t local[3] = {(size_t)t->threads, 1, 1};
    xconv_step_set_3d(s, global, local);
    s->local_mem_bytes = transform_local_bytes(t->lh, t->pitch, t->lw, t->planes / 2);
}

// Sets the channel sum's geometry over `columns` spectrum columns: column blocks along
// dimension 0, groups x row blocks along 1, frequencies along 2; and its local memory.
static void gemm_geometry(xconv_step *s, const xconv_fft_choice *c, int64_t columns)
{
    const xconv_fft_params *g = &c->params;
    const xconv_problem *p = &c->problem;
    size_t tn = (size_t)(g->gemm_tile_n / g->gemm_wpt_n);
    size_t tm = (size_t)(g->gemm_tile_m / g->gemm_wpt_m);
    size_t global[3] = {(size_t)xconv_ceil_div(columns, g->gemm_tile_n) * tn,
                        (size_t)(p->groups * xconv_ceil_div(p->k / p->groups, g->gemm_tile_m)) * tm,
                        (size_t)c->freqs};
    size_t local[3] = {tn, tm, 1};
    xconv_step_set_3d(s, global, local);
    s->local_mem_bytes = xconv_fft_gemm_local_bytes(g);
}

// Appends a kernel step with the problem's defines and t's; returns it in *out, or the failure.
static xconv_status add_step(xconv_plan *plan, const xconv_fft_choice *c, const char *label,
                             const char *source, const char *kernel, const xconv_fft_params *t,
                             xconv_step **out, xconv_error *err)
{
    xconv_step *s = *out = xconv_plan_add_step(plan, label, source, kernel);
    if (!s)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    s->bake_batch = true;  // XC_FFT_BATCH, the spectrum's columns, are a pass's images x tiles
    xconv_status st = xconv_step_define_problem(s, &c->problem, err);
    if (st == XCONV_OK)
        st = xconv_fft_define(s, t, err);
    return st;
}

// Returns whether the frames of one direction (tiles of `out` outputs, `tiles` of them) hold
// whole pool windows (`window`, `stride`, `pad`): one frame holds all; several, when unpadded
// windows as wide as their stride divide the tile.
static bool frames_hold_windows(int tiles, int out, int64_t window, int64_t stride,
                                int64_t pad)
{
    return tiles == 1 || (!pad && stride == window && out % window == 0);
}

// The parts of p's epilogue the inverse transform's crop (cl/fft_inverse.cl) applies: the bias
// and activation always; the pool when the frames hold whole windows in both directions, else
// the reason in plan->epi_note and the pool stays a step.
static unsigned crop_parts(const xconv_fft_choice *c, xconv_plan *plan)
{
    const xconv_epilogue *e = &c->problem.epi;
    if (!e->pool_h ||
        (frames_hold_windows(c->tiles_h, c->out_h, e->pool_h, e->pool_stride_h, e->pool_pad_h) &&
         frames_hold_windows(c->tiles_w, c->out_w, e->pool_w, e->pool_stride_w, e->pool_pad_w)))
        return XCONV_FUSED_BIAS_ACT | XCONV_FUSED_POOL;
    snprintf(plan->epi_note, sizeof plan->epi_note, "the FFT crop's frames hold %dx%d tiles "
             "of %dx%d outputs: a pool crosses tiles unless its windows are unpadded, as wide as "
             "their stride and divide the tile", c->tiles_h, c->tiles_w, c->out_h, c->out_w);
    return XCONV_FUSED_BIAS_ACT;
}

// Appends the three steps of the pass over images n0 .. n0 + images - 1, the inverse
// transform's crop applying p's epilogue.
static xconv_status add_pass(xconv_plan *plan, const xconv_fft_choice *c, const int region[3],
                             int64_t n0, int64_t images, xconv_error *err)
{
    const xconv_problem *p = &c->problem;
    int64_t columns = images * c->tiles_h * c->tiles_w;
    xconv_step *s;
    xconv_status st = add_step(plan, c, "input transform", "fft_forward", "fft_input",
                               &c->params, &s, err);
    if (st != XCONV_OK)
        return st;
    transform_geometry(s, &c->params, columns, p->c);
    xconv_step_arg_buffer(s, XCONV_REF_X);
    xconv_step_arg_region(s, plan, region[0]);
    xconv_step_arg_int(s, (int32_t)n0);
    xconv_step_arg_int(s, (int32_t)images);
    st = add_step(plan, c, "channel sum", "fft_cgemm", "fft_cgemm", &c->params, &s, err);
    if (st != XCONV_OK)
        return st;
    gemm_geometry(s, c, columns);
    xconv_step_arg_region(s, plan, region[0]);
    xconv_step_arg_region(s, plan, region[1]);
    xconv_step_arg_region(s, plan, region[2]);
    xconv_step_arg_int(s, (int32_t)columns);
    st = add_step(plan, c, "inverse transform", "fft_inverse", "fft_output", &c->params, &s,
                  err);
    if (st != XCONV_OK)
        return st;
    transform_geometry(s, &c->params, columns, p->k);
    xconv_step_arg_region(s, plan, region[2]);
    xconv_step_arg_buffer(s, XCONV_REF_Y);
    xconv_step_arg_int(s, (int32_t)n0);
    xconv_step_arg_int(s, (int32_t)images);
    return xconv_step_fuse_epilogue(s, p, crop_parts(c, plan), plan, err);
}

// Appends the plan's summary line.
static void summarize(const xconv_fft_choice *c, xconv_plan *plan)
{
    char rh[32], rw[32];
    radices_text(c->params.radix_h, rh, sizeof rh);
    radices_text(c->params.radix_w, rw, sizeof rw);
    xconv_plan_summarize(plan, "%dx%d transforms (radices %s by %s), %dx%d tiles of %dx%d "
                         "outputs, %d planes per work-group, %lld image%s per pass, "
                         "workspace %.1f MiB",
                         c->lh, c->lw, rh, rw, c->tiles_h, c->tiles_w, c->out_h, c->out_w,
                         c->params.planes, (long long)c->chunk, c->chunk == 1 ? "" : "s",
                         plan->workspace_bytes / 1048576.0);
}

xconv_status xconv_fft_plan(const xconv_device_info *info, const xconv_problem *p,
                            xconv_fft_kind kind, const xconv_plan_options *opts,
                            xconv_plan *plan, xconv_error *err)
{
    xconv_fft_choice c;
    xconv_status st = xconv_fft_choose(kind, info, p, opts, &c, err);
    if (st != XCONV_OK)
        return st;
    int region[3] = {xconv_plan_region(plan, "input spectra", c.input_bytes),
                     xconv_plan_region(plan, "filter spectra", c.filter_bytes),
                     xconv_plan_region(plan, "output spectra", c.output_bytes)};
    xconv_step *s;
    st = add_step(plan, &c, "filter transform", "fft_forward", "fft_filter", &c.filter, &s, err);
    if (st != XCONV_OK)
        return st;
    transform_geometry(s, &c.filter, p->k * (p->c / p->groups), 1);
    xconv_step_arg_buffer(s, XCONV_REF_W);
    xconv_step_arg_region(s, plan, region[1]);
    xconv_step_arg_float(s, c.filter_scale);
    for (int64_t n0 = 0; st == XCONV_OK && n0 < p->n; n0 += c.chunk)
        st = add_pass(plan, &c, region, n0, p->n - n0 < c.chunk ? p->n - n0 : c.chunk, err);
    if (st != XCONV_OK)
        return st;
    plan->error_block_h = c.out_h;
    plan->error_block_w = c.out_w;
    summarize(&c, plan);
    return XCONV_OK;
}

bool xconv_fft_applies_variant(const xconv_variant *v, const xconv_device *dev,
                               const xconv_problem *p, char *reason, size_t len)
{
    return xconv_fft_applies((xconv_fft_kind)v->kind, &dev->info, p, reason, len);
}

xconv_status xconv_fft_plan_variant(const xconv_device *dev, const xconv_problem *p,
                                    const xconv_plan_options *opts, xconv_plan *plan,
                                    xconv_error *err)
{
    return xconv_fft_plan(&dev->info, p, (xconv_fft_kind)plan->variant->kind, opts, plan, err);
}

// ---------------------------------------------------------------------------------------------
// The transforms alone

xconv_problem xconv_fft_planes_problem(int64_t lh, int64_t lw, int64_t batch)
{
    xconv_problem p = xconv_problem_default();
    p.n = batch, p.c = 1, p.h = lh, p.w = lw, p.k = 1, p.r = 1, p.s = 1;
    return p;
}

xconv_status xconv_fft_plan_planes(const xconv_device_info *info, int64_t lh, int64_t lw,
                                   int64_t batch, bool inverse, xconv_plan *plan,
                                   xconv_error *err)
{
    if (lh < 2 || lw < 2 || lh > XCONV_FFT_MAX_LENGTH || lw > XCONV_FFT_MAX_LENGTH ||
        !xconv_fft_is_smooth(lh) || !xconv_fft_is_smooth(lw) || batch < 1)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "FFT of %lld planes of %lldx%lld: sizes must be 2^a 3^b 5^c "
                               "from 2 to %d and the batch at least 1",
                               (long long)batch, (long long)lh, (long long)lw,
                               XCONV_FFT_MAX_LENGTH);
    double floats = 2.0 * (double)lh * (double)(lw / 2 + 1) * (double)batch;
    if (floats > (double)XCONV_MAX_INDEX)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "the spectra of %lld planes of %lldx%lld hold %.0f floats, past "
                               "the kernels' 32-bit index range", (long long)batch,
                               (long long)lh, (long long)lw, floats);
    xconv_problem p = xconv_fft_planes_problem(lh, lw, batch);
    xconv_plan_options o;
    xconv_plan_options_default(&o);
    o.fft_tile_h = (int)lh, o.fft_tile_w = (int)lw;
    xconv_fft_choice c;
    char why[512];
    memset(&c, 0, sizeof c);
    c.kind = XCONV_FFT_WHOLE;
    c.problem = p;
    if (!choose_size(XCONV_FFT_WHOLE, info, &p, &o, &c, why, sizeof why))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "FFT of %lldx%lld: %s",
                               (long long)lh, (long long)lw, why);
    c.freqs = c.lh * (c.lw / 2 + 1);
    c.chunk = c.batch = batch;  // one pass over the caller's buffers: no workspace
    c.passes = 1;
    c.params = shared_params(info, &c);
    transform_work(info, &c.params, batch, 0, why, sizeof why);
    xconv_fft_gemm_tiles(info, &p, NULL, &c.params, why, sizeof why);
    xconv_step *s;
    xconv_status st = inverse ? add_step(plan, &c, "inverse transform", "fft_inverse",
                                         "fft_output", &c.params, &s, err)
                              : add_step(plan, &c, "forward transform", "fft_forward",
                                         "fft_input", &c.params, &s, err);
    if (st != XCONV_OK)
        return st;
    transform_geometry(s, &c.params, batch, 1);
    if (inverse) {  // fft_output(spectra, offset, planes, n0, images)
        xconv_step_arg_buffer(s, XCONV_REF_X);
        xconv_step_arg_int(s, 0);
        xconv_step_arg_buffer(s, XCONV_REF_Y);
    } else {        // fft_input(planes, spectra, offset, n0, images)
        xconv_step_arg_buffer(s, XCONV_REF_X);
        xconv_step_arg_buffer(s, XCONV_REF_Y);
        xconv_step_arg_int(s, 0);
    }
    xconv_step_arg_int(s, 0);
    xconv_step_arg_int(s, (int32_t)batch);
    char rh[32], rw[32];
    radices_text(c.params.radix_h, rh, sizeof rh);
    radices_text(c.params.radix_w, rw, sizeof rw);
    xconv_plan_summarize(plan, "%s of %lld planes of %dx%d (radices %s by %s), %d planes per "
                         "work-group of %d", inverse ? "C2R" : "R2C", (long long)batch, c.lh,
                         c.lw, rh, rw, c.params.planes, c.params.threads);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Work estimates

// FLOPs of the 2-D transforms of `planes` real planes: per pair of planes, `rows` row
// transforms of length lw and lw column transforms of length lh, 5 L log2 L each.
static double transform_flops(double planes, int lh, int lw, int rows)
{
    double row = 5.0 * lw * log2(lw), col = 5.0 * lh * log2(lh);
    return planes / 2.0 * (rows * row + lw * col);
}

void xconv_fft_choice_costs(const xconv_fft_choice *c, xconv_fft_costs *out)
{
    memset(out, 0, sizeof *out);
    const xconv_problem *p = &c->problem;
    double tiles = (double)c->tiles_h * c->tiles_w, cg = (double)(p->c / p->groups);
    double columns = (double)p->n * tiles, f = c->freqs;
    double filter_planes = (double)p->k * cg;
    int in_rows = c->kind == XCONV_FFT_WHOLE && p->h < c->lh ? (int)p->h : c->lh;
    int out_rows = c->out_h < c->lh ? c->out_h : c->lh;
    out->transform_flops =
        transform_flops(filter_planes, c->lh, c->lw, p->r < c->lh ? (int)p->r : c->lh) +
        transform_flops(columns * (double)p->c, c->lh, c->lw, in_rows) +
        transform_flops(columns * (double)p->k, c->lh, c->lw, out_rows);
    out->gemm_flops = 8.0 * f * columns * (double)p->k * cg;
    double x_bytes = 4.0 * (double)xconv_problem_x_elems(p);
    double y_bytes = 4.0 * (double)xconv_problem_y_elems(p);
    double xs = 8.0 * f * (double)p->c * columns, ys = 8.0 * f * (double)p->k * columns;
    double ws = 8.0 * f * filter_planes;
    out->filter_bytes = 4.0 * (double)xconv_problem_w_elems(p) + ws;
    out->input_bytes = x_bytes + xs;
    out->gemm_bytes = xs + ws * (double)c->passes + ys;
    out->inverse_bytes = ys + y_bytes;
}
