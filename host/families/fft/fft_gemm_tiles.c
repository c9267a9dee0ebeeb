// SPDX-License-Identifier: MIT
// The FFT family's channel sum (cl/fft_cgemm.cl): its tiles (output channels, spectrum columns
// and input channels a work-group, sums a work-item) from a device's limits and a pass, or as
// forced (xconv_plan_options.fft_gemm), and their local memory.
#include <stdio.h>

#include "families/fft/plan_fft.h"

static int next_pow2(int64_t v)
{
    int p = 1;
    while (p < v && p < (1 << 20))
        p *= 2;
    return p;
}

// 32-bit values a work-item of t's channel sum holds at once: its WPT_M x WPT_N complex sums
// and one channel's W and X fragments, two floats each.
static int64_t gemm_registers(const xconv_fft_params *t)
{
    return 2 * ((int64_t)t->gemm_wpt_m * t->gemm_wpt_n + t->gemm_wpt_m + t->gemm_wpt_n);
}

// Local memory of the channel sum's blocks (cl/fft_cgemm.cl): TILE_K rows of W, TILE_M + 2
// long, and of X, TILE_N long, each rounded up to 16 bytes.
size_t xconv_fft_gemm_local_bytes(const xconv_fft_params *t)
{
    size_t w = (size_t)t->gemm_tile_k * (size_t)(t->gemm_tile_m + 2) * 8;
    size_t x = (size_t)t->gemm_tile_k * (size_t)t->gemm_tile_n * 8;
    return (w + 15) / 16 * 16 + (x + 15) / 16 * 16;
}

// Input channels per step of the channel sum: all of a group's up to 32 (one step, one
// barrier, every block loaded at once), where the blocks take at most an eighth of a compute
// unit's local memory (on the H100, 228 KiB an SM: conv5x5's 32 x 64 block over 32 channels
// takes 25 KiB, as many work-groups an SM as its registers allow), else 8 (two barriers per 8
// channels); devices that do not say their per-unit memory keep 8. XCONV_FFT_GEMM
// (xconv_plan_options.fft_gemm) reaches the others, 8 included.
static int gemm_step_channels(const xconv_device_info *info, const xconv_fft_params *t,
                              int64_t cg)
{
    xconv_fft_params whole = *t;
    whole.gemm_tile_k = (int)(cg < 32 ? cg : 32);
    uint64_t unit = info->local_mem_per_unit_bytes;
    if (unit && xconv_fft_gemm_local_bytes(&whole) <= unit / 8 &&
        xconv_fft_gemm_local_bytes(&whole) <= info->local_mem_bytes)
        return whole.gemm_tile_k;
    return (int)(cg < 8 ? cg : 8);
}

// Takes forced channel sum tiles `v` (TM, TN, TK, WM, WN) into t; returns false with the reason
// when the kernel or the device does not take them.
static bool gemm_forced(const xconv_device_info *info, const int v[5], xconv_fft_params *t,
                        char *why, size_t len)
{
    xconv_fft_params f = *t;
    f.gemm_tile_m = v[0], f.gemm_tile_n = v[1], f.gemm_tile_k = v[2];
    f.gemm_wpt_m = v[3], f.gemm_wpt_n = v[4];
    size_t tm = v[3] > 0 ? (size_t)(v[0] / v[3]) : 0, tn = v[4] > 0 ? (size_t)(v[1] / v[4]) : 0;
    size_t item0 = info->max_work_item_sizes[0], item1 = info->max_work_item_sizes[1];
    if (v[0] < 1 || v[1] < 1 || v[2] < 1 || v[3] < 1 || v[4] < 1 || v[0] > 256 || v[1] > 512 ||
        v[2] > 64 || v[3] > 8 || v[4] > 8)
        snprintf(why, len, "the forced channel-sum tiles (fft_gemm %d,%d,%d,%d,%d) must be TM "
                 "1..256, TN 1..512, TK 1..64, WM and WN 1..8", v[0], v[1], v[2], v[3], v[4]);
    else if (v[0] % v[3] || v[1] % v[4])
        snprintf(why, len, "the forced channel-sum tiles (fft_gemm %d,%d,%d,%d,%d): TM must be "
                 "a multiple of WM and TN of WN", v[0], v[1], v[2], v[3], v[4]);
    else if (tm * tn > info->max_work_group_size || (item0 && tn > item0) ||
             (item1 && tm > item1))
        snprintf(why, len, "the forced channel-sum tiles (fft_gemm %d,%d,%d,%d,%d) make "
                 "work-groups of %zu x %zu work-items; the device takes %zu (%zu x %zu)", v[0],
                 v[1], v[2], v[3], v[4], tn, tm, info->max_work_group_size, item0, item1);
    else if (xconv_fft_gemm_local_bytes(&f) > info->local_mem_bytes)
        snprintf(why, len, "the forced channel-sum tiles (fft_gemm %d,%d,%d,%d,%d) need %zu bytes "
                 "of local memory; the device has %llu", v[0], v[1], v[2], v[3], v[4],
                 xconv_fft_gemm_local_bytes(&f), (unsigned long long)info->local_mem_bytes);
    else if (!xconv_registers_fit(info, gemm_registers(&f)))
        snprintf(why, len, "the forced channel-sum tiles (fft_gemm %d,%d,%d,%d,%d) hold %lld "
                 "values a work-item, past the device's registers", v[0], v[1], v[2], v[3],
                 v[4], (long long)gemm_registers(&f));
    else
        return *t = f, true;
    return false;
}

// Columns of the channel sum's block for a pass of `batch` columns: among the powers of two from
// the one holding the batch (at most 128, at least 4) down to 32 (the narrowest timed), the one
// whose blocks compute the fewest columns, ceil(batch / TN) * TN, the wider on a tie (each W
// block it loads serves more columns).
// Columns past the batch are zeros that every work-item of their block still sums. On the H100,
// big11x11's fft_tiled (96 columns a pass: 16 images of 3x2 tiles; 736 frequencies, K = C = 64)
// had 128-column blocks: 128 columns computed, 1472 work-groups of 256 work-items, a quarter of
// them summing zeros, and 8 channels a step (32 x 128 blocks of 32 channels take 41 KiB, past
// an eighth of an SM's 228). 32-column blocks compute the 96: 4416 work-groups of 64 (282624
// work-items against 376832), 32 channels a step in 16.5 KiB, 216.6 -> 191.7 us through CUDA,
// 219.0 -> 188.7 through OpenCL (of that, 8 -> 32 channels a step on 32 x 64 blocks 214.7 ->
// 199.1, 64 -> 32 columns 199.1 -> 191.7, CUDA). Waves do not tell them apart: at sm_90's 76
// and 72 registers a work-item, 3 work-groups an SM (by registers) and 13 (by local memory)
// make 3.7 and 2.6 waves over 132 SMs, the last 72% and 57% full: the fewer, emptier won.
// Where both compute every column (conv5x5's fft_tiled, 64 a pass) the wider block won, 120.4
// against 126.1 us (117.6 against 123.4), though its 1984 work-groups of 128 make 1.9 waves to
// 32 x 32's 2.3: each W block serves twice the columns. The whole-image passes keep one block
// as wide as the batch: conv5x5's 32 columns, 32 x 32 (187.1 us); big11x11's 16, 32 x 16
// (405.2 us against 32 x 32's 423.7, half of whose columns are zeros). Records:
// bench/results/2026-11-28-h100-4bbf516-fft_gemm_{planner,32x32x32x4x4,32x64x8x4x4,
// 64x64x32x4x4}_{cuda,nvidia}.json and ..._fft_gemm_sweep.log (every candidate).
static int gemm_block_columns(int64_t batch)
{
    int widest = next_pow2(batch < 128 ? batch : 128);
    if (widest < 4)
        widest = 4;
    int narrowest = widest < 32 ? widest : 32, best = widest;
    for (int tn = widest / 2; tn >= narrowest; tn /= 2)
        if (xconv_ceil_div(batch, tn) * tn < xconv_ceil_div(batch, best) * best)
            best = tn;
    return best;
}

// Sets t's channel sum tiles: every output channel of a group up to 32 per work-group, columns
// by gemm_block_columns, four by four complex sums per work-item, fewer (columns first) where
// those pass the registers of a work-item (xconv_registers_fit), input channels per step by
// gemm_step_channels; or the forced tiles `forced` (TM, TN, TK, WM, WN; NULL or zeros: chosen).
// Returns false with the reason when forced tiles do not fit.
bool xconv_fft_gemm_tiles(const xconv_device_info *info, const xconv_problem *p,
                          const int *forced, xconv_fft_params *t, char *why, size_t len)
{
    if (forced && (forced[0] || forced[1] || forced[2] || forced[3] || forced[4]))
        return gemm_forced(info, forced, t, why, len);
    int64_t kg = p->k / p->groups, cg = p->c / p->groups, batch = t->batch;
    t->gemm_tile_m = next_pow2(kg < 32 ? kg : 32);
    t->gemm_wpt_m = t->gemm_tile_m < 4 ? t->gemm_tile_m : 4;
    t->gemm_tile_n = gemm_block_columns(batch);
    t->gemm_wpt_n = 4;
    while (!xconv_registers_fit(info, gemm_registers(t)) &&
           (t->gemm_wpt_n > 1 || t->gemm_wpt_m > 1)) {
        if (t->gemm_wpt_n >= t->gemm_wpt_m)
            t->gemm_wpt_n /= 2;
        else
            t->gemm_wpt_m /= 2;
    }
    // Fewer work-items than the limits allow: narrow the column block.
    while ((size_t)(t->gemm_tile_m / t->gemm_wpt_m) * (size_t)(t->gemm_tile_n / t->gemm_wpt_n) >
               info->max_work_group_size &&
           t->gemm_tile_n > t->gemm_wpt_n)
        t->gemm_tile_n /= 2;
    t->gemm_tile_k = gemm_step_channels(info, t, cg);
    return true;
}
