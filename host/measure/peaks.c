// SPDX-License-Identifier: MIT
// The device's peaks: fp32 FMA throughput, memory bandwidth (copy, read-only) and the tensor
// cores' throughput per reduced math mode, measured with xconv's own micro-kernels
// (cl/peak_fma.cl, cl/peak_memory.cl, cl/peak_mma.cl) sized from the device's limits.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "caches/programs.h"

#include "core/contract.h"

#define PEAKS_WARMUP 2
#define PEAKS_CHAINS 32            // XC_PEAK_CHAINS: independent FMA chains per work-item
#define PEAKS_VEC_CHAINS 8         // the same with vector chains (a CPU's registers hold them)
#define PEAKS_MAX_LANES 16         // the widest OpenCL C vector
#define PEAKS_GROUP_ITEMS 256      // work-group size wanted (less when the device allows less)
#define PEAKS_GROUPS_PER_UNIT 8    // work-groups per compute unit for the FMA kernel
#define PEAKS_TARGET_MS 20.0       // the FMA kernel's iterations are scaled to a run this long
#define PEAKS_FIRST_ITERS 64
#define PEAKS_MAX_ITERS (1 << 24)
#define PEAKS_MIN_BYTES (256ull << 20)  // each memory buffer: at least this, and 8x the cache
#define PEAKS_CACHE_TIMES 8
#define PEAKS_MMA_CHAINS 8         // XC_PEAK_MMA_CHAINS: independent accumulator tiles a warp
#define PEAKS_WARP 32              // lanes of a warp: mma.sync is a warp's instruction (PTX)
#define PEAKS_MMA_MIN_CC_MAJOR 8   // NVIDIA compute capability with tf32 and bf16 mma.sync
                                   // (Ampere), as implicit_mma requires (plan_mma.h)

// ---------------------------------------------------------------------------------------------
// Sizes from the device's limits

// Returns the work-group size: PEAKS_GROUP_ITEMS or the device's limit, rounded down to a
// multiple of its preferred multiple when it has one that fits.
static size_t group_items(const xconv_device_info *info)
{
    size_t wg = PEAKS_GROUP_ITEMS;
    if (info->max_work_group_size && info->max_work_group_size < wg)
        wg = info->max_work_group_size;
    if (info->max_work_item_sizes[0] && info->max_work_item_sizes[0] < wg)
        wg = info->max_work_item_sizes[0];
    size_t pm = info->preferred_multiple;
    if (pm > 1 && pm <= wg)
        wg -= wg % pm;
    return wg ? wg : 1;
}

// Returns the bytes of each memory buffer: 8x the last-level cache and at least 256 MiB, within
// one allocation and an eighth of the device's memory, a multiple of wg float4s.
static uint64_t buffer_bytes(const xconv_device_info *info, size_t wg)
{
    uint64_t want = PEAKS_CACHE_TIMES * info->cache_bytes;
    if (want < PEAKS_MIN_BYTES)
        want = PEAKS_MIN_BYTES;
    uint64_t cap = info->global_mem_bytes / 8;
    if (info->max_alloc_bytes && info->max_alloc_bytes < cap)
        cap = info->max_alloc_bytes;
    uint64_t bytes = want < cap ? want : cap;
    uint64_t step = 16u * wg, most = (uint64_t)XCONV_MAX_INDEX * 16u;
    if (bytes > most)
        bytes = most;
    return bytes - bytes % step;
}

// ---------------------------------------------------------------------------------------------
// One micro-kernel launched through the backend

typedef struct peak_launch {
    xconv_device *dev;
    xconv_program *program;
    xconv_launch launch;
    xconv_arg args[5];
} peak_launch;

// Enqueues the launch (xconv_device_measure's callback); returns the backend's status.
static xconv_status enqueue_launch(void *user, int run, xconv_error *err)
{
    (void)run;
    peak_launch *l = user;
    xconv_device *dev = l->dev;
    if (!l->program->handle)  // dropped with a context lost at a fault in an earlier run
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "the peak kernel went with its "
                                                           "device's context, lost at a fault");
    return xconv_device_fault(dev, dev->be->launch(dev->ctx, l->program->handle, &l->launch,
                                                   err), err);
}

// Fills *l with a 1-D launch of `kernel` of cl/<source>.cl (built with ndefines defines) over
// items work-items in groups of wg; returns XCONV_OK or the build's failure.
static xconv_status launch_init(peak_launch *l, xconv_device *dev, const char *source,
                                const char *kernel, const xconv_define *defines, int ndefines,
                                size_t items, size_t wg, xconv_error *err)
{
    memset(l, 0, sizeof *l);
    l->dev = dev;
    l->launch = (xconv_launch){.kernel = kernel, .dims = 1, .global = {items, 1, 1},
                               .local = {wg, 1, 1}, .args = l->args};
    return xconv_program_get(dev, source, defines, ndefines, &l->program, NULL, err);
}

// Returns the lanes of each FMA chain: the device's native float vector width (a power of two
// up to 16) on OpenCL devices, whose CPUs run work-items as vector lanes only around loop-free
// code; 1 elsewhere (GPUs report 1, and CUDA's kernels have no OpenCL vector types).
static int fma_lanes(const xconv_device_info *info)
{
    int lanes = 1;
    if (info->backend != XCONV_BACKEND_OPENCL)
        return 1;
    while (lanes * 2 <= info->native_float_width && lanes * 2 <= PEAKS_MAX_LANES)
        lanes *= 2;
    return lanes;
}

// Times launch l (its iteration count is argument 1) with the iterations grown, then scaled,
// to a run of about PEAKS_TARGET_MS; fills *t with PEAKS_WARMUP and `repeat` timed runs and
// *iters with the count. Returns XCONV_OK or the first failure.
static xconv_status measure_calibrated(peak_launch *l, int repeat, xconv_timing *t, int *iters,
                                       xconv_error *err)
{
    xconv_status st = XCONV_OK;
    int n = PEAKS_FIRST_ITERS;
    xconv_timing probe;
    for (int step = 0; st == XCONV_OK; step++) {  // grow until a run is long enough to scale
        l->args[1] = XCONV_ARG_I32(n);
        st = xconv_device_measure(l->dev, enqueue_launch, l, step == 0, 1, &probe, NULL, err);
        if (st != XCONV_OK || probe.min_ms >= 2.0 || n >= PEAKS_MAX_ITERS / 8)
            break;
        n *= 8;
    }
    if (st != XCONV_OK)
        return st;
    double scaled = n * PEAKS_TARGET_MS / (probe.min_ms > 1e-6 ? probe.min_ms : 1e-6);
    n = scaled > PEAKS_MAX_ITERS ? PEAKS_MAX_ITERS : scaled < 1 ? 1 : (int)scaled;
    l->args[1] = XCONV_ARG_I32(n);
    *iters = n;
    return xconv_device_measure(l->dev, enqueue_launch, l, PEAKS_WARMUP, repeat, t, NULL, err);
}

// ---------------------------------------------------------------------------------------------
// The measurements

// Times the FMA kernel with iterations calibrated to about PEAKS_TARGET_MS a run; fills the
// FMA fields of *out. Returns XCONV_OK or the first failure.
static xconv_status measure_fma(xconv_device *dev, size_t wg, int repeat, xconv_peaks *out,
                                xconv_error *err)
{
    const xconv_device_info *info = xconv_device_get_info(dev);
    size_t groups = (size_t)(info->compute_units > 0 ? info->compute_units : 1) *
                    PEAKS_GROUPS_PER_UNIT;
    size_t items = groups * wg;
    xconv_buffer *sink = xconv_buffer_create(dev, items * sizeof(float), err);
    if (!sink)
        return err->status;
    peak_launch l;
    int lanes = fma_lanes(info), nchains = lanes > 1 ? PEAKS_VEC_CHAINS : PEAKS_CHAINS;
    const xconv_define defines[] = {{"XC_PEAK_CHAINS", nchains}, {"XC_PEAK_VEC", lanes}};
    xconv_status st = launch_init(&l, dev, "peak_fma", "peak_fma", defines, 2, items, wg, err);
    int iters = 0;
    l.args[0] = XCONV_ARG_BUF(xconv_buffer_handle(sink));
    l.args[2] = XCONV_ARG_F32(0.999f);  // acc converges to b / (1 - a) = 1: no overflow
    l.args[3] = XCONV_ARG_F32(0.001f);
    l.launch.nargs = 4;
    if (st == XCONV_OK)
        st = measure_calibrated(&l, repeat, &out->fma, &iters, err);
    xconv_buffer_destroy(sink);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "peak_fma");
    out->fma_items = items;
    out->fma_iters = iters;
    out->fma_lanes = lanes;
    out->fma_flops = 2.0 * nchains * lanes * (double)iters * (double)items;
    out->fp32_gflops = out->fma_flops / (out->fma.min_ms * 1e-3) * 1e-9;
    return XCONV_OK;
}

// The operand words of peak_mma in `math` (every lane's A and B elements: 2^-8 each, exact in
// tf32, fp16 and bf16, two 16-bit values a word for the latter) and the sum one instruction
// adds to each accumulator element, k * 2^-16 (the emulated kernel adds it; see the kernel).
static void mma_operands(int64_t math, uint32_t *word, float *step)
{
    const float v = 0x1p-8f;
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint16_t half = math == XCONV_MATH_F16 ? xconv_f32_to_f16(v) : xconv_f32_to_bf16(v);
    *word = math == XCONV_MATH_TF32 ? bits : (uint32_t)half << 16 | half;
    *step = (math == XCONV_MATH_TF32 ? 8.0f : 16.0f) * v * v;
}

// Times the tensor cores' kernel in reduced math mode `math` (tf32, f16, bf16) with iterations
// calibrated to about PEAKS_TARGET_MS a run, in whole warps; fills its entries of *out. Returns
// XCONV_OK or the first failure.
static xconv_status measure_mma(xconv_device *dev, size_t wg, int64_t math, int repeat,
                                xconv_peaks *out, xconv_error *err)
{
    const xconv_device_info *info = xconv_device_get_info(dev);
    size_t group = wg - wg % PEAKS_WARP;
    if (group == 0)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "peak_mma: a work-group of %zu work-items holds no warp", wg);
    size_t items = (size_t)(info->compute_units > 0 ? info->compute_units : 1) *
                   PEAKS_GROUPS_PER_UNIT * group;
    xconv_buffer *sink = xconv_buffer_create(dev, items * sizeof(float), err);
    if (!sink)
        return err->status;
    peak_launch l;
    const xconv_define defines[] = {{"XC_PEAK_MMA_MATH", math},
                                    {"XC_PEAK_MMA_CHAINS", PEAKS_MMA_CHAINS}};
    xconv_status st = launch_init(&l, dev, "peak_mma", "peak_mma", defines, 2, items, group,
                                  err);
    uint32_t word = 0;
    float step = 0;
    mma_operands(math, &word, &step);
    l.args[0] = XCONV_ARG_BUF(xconv_buffer_handle(sink));
    l.args[2] = XCONV_ARG_I32((int32_t)word);  // the kernel takes the bits as an int
    l.args[3] = XCONV_ARG_I32((int32_t)word);
    l.args[4] = XCONV_ARG_F32(step);
    l.launch.nargs = 5;
    int iters = 0;
    if (st == XCONV_OK)
        st = measure_calibrated(&l, repeat, &out->mma[math], &iters, err);
    xconv_buffer_destroy(sink);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "peak_mma (math=%s)", xconv_math_name(math));
    double k = math == XCONV_MATH_TF32 ? 8.0 : 16.0;
    out->mma_iters[math] = iters;
    out->mma_flops[math] = 2.0 * 16 * 8 * k * PEAKS_MMA_CHAINS * (double)iters *
                           (double)(items / PEAKS_WARP);
    out->mma_gflops[math] = out->mma_flops[math] / (out->mma[math].min_ms * 1e-3) * 1e-9;
    return XCONV_OK;
}

// Times the copy and the read kernels on two buffers of the size buffer_bytes gives; fills
// their fields of *out. Returns XCONV_OK or the first failure.
static xconv_status measure_memory(xconv_device *dev, size_t wg, int repeat, xconv_peaks *out,
                                   xconv_error *err)
{
    uint64_t bytes = buffer_bytes(xconv_device_get_info(dev), wg);
    if (bytes == 0)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "peaks: the device's memory holds no two buffers to copy");
    size_t count4 = (size_t)(bytes / 16);
    xconv_buffer *src = xconv_buffer_create(dev, (size_t)bytes, err);
    xconv_buffer *dst = src ? xconv_buffer_create(dev, (size_t)bytes, err) : NULL;
    xconv_status st = dst ? XCONV_OK : err->status;
    if (st == XCONV_OK)  // zeros: the read kernel's sums never equal -1; pages touched first
        st = xconv_buffer_fill_f32(src, count4 * 4, 0.0f, err);
    if (st == XCONV_OK)
        st = xconv_buffer_fill_f32(dst, count4 * 4, 0.0f, err);
    peak_launch copy, read;
    if (st == XCONV_OK &&
        (st = launch_init(&copy, dev, "peak_memory", "peak_copy", NULL, 0, count4, wg,
                            err)) == XCONV_OK) {
        copy.args[0] = XCONV_ARG_BUF(xconv_buffer_handle(src));
        copy.args[1] = XCONV_ARG_BUF(xconv_buffer_handle(dst));
        copy.args[2] = XCONV_ARG_I32(count4);
        copy.launch.nargs = 3;
        st = xconv_device_measure(dev, enqueue_launch, &copy, PEAKS_WARMUP, repeat, &out->copy,
                                  NULL, err);
        if (st != XCONV_OK)
            xconv_error_prefix(err, "peak_copy");
    }
    if (st == XCONV_OK &&
        (st = launch_init(&read, dev, "peak_memory", "peak_read", NULL, 0, count4, wg,
                            err)) == XCONV_OK) {
        read.args[0] = XCONV_ARG_BUF(xconv_buffer_handle(src));
        read.args[1] = XCONV_ARG_BUF(xconv_buffer_handle(dst));
        read.args[2] = XCONV_ARG_I32(count4);
        read.args[3] = XCONV_ARG_F32(-1.0f);
        read.launch.nargs = 4;
        st = xconv_device_measure(dev, enqueue_launch, &read, PEAKS_WARMUP, repeat, &out->read,
                                  NULL, err);
        if (st != XCONV_OK)
            xconv_error_prefix(err, "peak_read");
    }
    xconv_buffer_destroy(src);
    xconv_buffer_destroy(dst);
    if (st != XCONV_OK)
        return st;
    out->copy_bytes = 2.0 * (double)bytes;
    out->read_bytes = (double)bytes;
    out->gbps = out->copy_bytes / (out->copy.min_ms * 1e-3) * 1e-9;
    out->gbps_read = out->read_bytes / (out->read.min_ms * 1e-3) * 1e-9;
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The public call

xconv_status xconv_peaks_measure(xconv_device *dev, int repeat, xconv_peaks *out,
                                 xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (repeat < 1)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "peaks: at least 1 timed run is needed (got %d)", repeat);
    size_t wg = group_items(xconv_device_get_info(dev));
    out->work_group = wg;
    xconv_status st = measure_fma(dev, wg, repeat, out, err);
    if (st == XCONV_OK)
        st = measure_memory(dev, wg, repeat, out, err);
    if (st == XCONV_OK && xconv_device_get_info(dev)->cc_major < PEAKS_MMA_MIN_CC_MAJOR)
        snprintf(out->mma_note, sizeof out->mma_note,
                 "no NVIDIA tensor cores (compute capability 8.0 or later)");
    for (int64_t m = XCONV_MATH_TF32; st == XCONV_OK && !out->mma_note[0] &&
                                      m <= XCONV_MATH_BF16; m++) {
        st = measure_mma(dev, wg, m, repeat, out, err);
        if (st == XCONV_ERR_BUILD) {  // a compiler that refuses the inline PTX: the rest stands
            snprintf(out->mma_note, sizeof out->mma_note, "%.*s",
                     (int)sizeof out->mma_note - 1, err->msg);
            memset(out->mma_gflops, 0, sizeof out->mma_gflops);
            memset(out->mma_flops, 0, sizeof out->mma_flops);
            memset(out->mma_iters, 0, sizeof out->mma_iters);
            memset(out->mma, 0, sizeof out->mma);
            st = XCONV_OK;
        }
    }
    if (st == XCONV_OK && !(out->fp32_gflops > 0 && out->gbps > 0 && out->gbps_read > 0 &&
                            isfinite(out->fp32_gflops + out->gbps + out->gbps_read)))
        st = xconv_error_set(err, XCONV_ERR_DEVICE,
                             "peaks: the device's clock gave no usable times (%.3g, %.3g and "
                             "%.3g ms)", out->fma.min_ms, out->copy.min_ms, out->read.min_ms);
    return st;
}
