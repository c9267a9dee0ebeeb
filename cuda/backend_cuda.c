// SPDX-License-Identifier: MIT
// The CUDA backend: the driver API loaded at run time, devices, buffers and waiting (the primary
// context and its stream: cuda_context.c; NVRTC-built modules and their launches:
// cuda_programs.c; timed regions: cuda_timer.c; cuBLAS and cuDNN: cuda_libraries.c).
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "nvrtc_compile.h"

// ---------------------------------------------------------------------------------------------
// Helpers

// Whether r is one of the driver's sticky errors: a kernel faulted, and the context cannot be
// used again (every later call fails the same way) until it is destroyed and made anew.
bool cuda_sticky(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return true;
    default:
        return false;
    }
}

// Fills err for a failed driver call: XCONV_ERR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY,
// XCONV_ERR_DEVICE_LOST for a sticky error, else `status`, with "what: CUDA_ERROR_NAME
// (description)". Returns the status set.
xconv_status cuda_fail(xconv_error *err, xconv_status status, CUresult r, const char *what)
{
    const char *text = NULL;
    const xconv_cu_api *cu = xconv_cu_load(NULL);
    if (!cu || cu->get_error_string(r, &text) != CUDA_SUCCESS)
        text = NULL;
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        status = XCONV_ERR_OUT_OF_MEMORY;
    if (cuda_sticky(r))
        status = XCONV_ERR_DEVICE_LOST;
    return xconv_error_set(err, status, "%s: %s%s%s%s", what, xconv_cu_result_name(r),
                           text ? " (" : "", text ? text : "", text ? ")" : "");
}

// After a vendor library call failed with status st (cuBLAS and cuDNN report a kernel's fault
// as a failed execution): returns XCONV_ERR_DEVICE_LOST when the stream now holds a sticky
// error, with the driver's word added to err, else st.
xconv_status cuda_vendor_failure(cuda_ctx *ctx, xconv_status st, xconv_error *err)
{
    if (st == XCONV_OK || st == XCONV_ERR_DEVICE_LOST || ctx->lost || !ctx->stream)
        return st;
    CUresult r = ctx->cu->stream_synchronize(ctx->stream);
    if (!cuda_sticky(r))
        return st;
    xconv_error_prefix(err, "the device faulted (%s)", xconv_cu_result_name(r));
    if (err)
        err->status = XCONV_ERR_DEVICE_LOST;
    return XCONV_ERR_DEVICE_LOST;
}

// Returns a device attribute, or 0 when the driver does not report it.
static int attribute(const xconv_cu_api *cu, CUdevice dev, CUdevice_attribute a)
{
    int v = 0;
    return cu->device_get_attribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
}

// ---------------------------------------------------------------------------------------------
// Devices

// Loads the driver and runs cuInit. Returns the table, or NULL with XCONV_ERR_UNAVAILABLE.
static const xconv_cu_api *driver_init(xconv_error *err)
{
    const xconv_cu_api *cu = xconv_cu_load(err);
    if (!cu)
        return NULL;
    CUresult r = cu->init(0);
    if (r != CUDA_SUCCESS) {
        cuda_fail(err, XCONV_ERR_UNAVAILABLE, r, "cuInit failed");
        return NULL;
    }
    return cu;
}

// Fills *info for device `index`. Returns XCONV_OK or XCONV_ERR_DEVICE.
static xconv_status describe_device(const xconv_cu_api *cu, int index, xconv_device_info *info,
                                    xconv_error *err)
{
    CUdevice dev;
    size_t total = 0;
    int driver = 0;
    memset(info, 0, sizeof *info);
    CU_TRY(cu->device_get(&dev, index), "cuDeviceGet");
    CU_TRY(cu->device_get_name(info->name, (int)sizeof info->name, dev), "cuDeviceGetName");
    CU_TRY(cu->device_total_mem(&total, dev), "cuDeviceTotalMem");
    CU_TRY(cu->driver_get_version(&driver), "cuDriverGetVersion");
    info->backend = XCONV_BACKEND_CUDA;
    info->backend_index = index;
    snprintf(info->platform, sizeof info->platform, "CUDA");
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    snprintf(info->driver, sizeof info->driver, "%d.%d", driver / 1000, (driver % 1000) / 10);
    info->cc_major = attribute(cu, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info->cc_minor = attribute(cu, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    snprintf(info->version, sizeof info->version, "compute capability %d.%d", info->cc_major,
             info->cc_minor);
    info->is_gpu = true;
    info->compute_units = attribute(cu, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info->clock_mhz = attribute(cu, dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
    info->global_mem_bytes = total;
    info->max_alloc_bytes = total;
    // The static limit kernels can use without opting in to more (48 KiB).
    info->local_mem_bytes =
        (uint64_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    info->const_mem_bytes =
        (uint64_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    info->cache_bytes = (uint64_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    info->local_mem_per_unit_bytes = (uint64_t)attribute(
        cu, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    info->max_work_group_size =
        (size_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    info->max_work_item_sizes[0] = (size_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    info->max_work_item_sizes[1] = (size_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    info->max_work_item_sizes[2] = (size_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    info->preferred_multiple = (size_t)attribute(cu, dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    info->native_float_width = 1;  // one lane per thread
    info->max_registers_per_work_group =
        attribute(cu, dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    info->fp64 = true;
    // IEEE fp32 in hardware, and NVRTC's defaults beside our flags: --ftz=false (denormals
    // kept), --prec-div=true and --prec-sqrt=true (correctly rounded).
    info->fp32_config = XCONV_FP_DENORM | XCONV_FP_INF_NAN | XCONV_FP_ROUND_TO_NEAREST |
                        XCONV_FP_ROUND_TO_ZERO | XCONV_FP_ROUND_TO_INF | XCONV_FP_FMA |
                        XCONV_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
    snprintf(info->build_flags, sizeof info->build_flags,
             "%s (NVRTC defaults: --ftz=false --prec-div=true --prec-sqrt=true)",
             xconv_nvrtc_fixed_flags());
    return XCONV_OK;
}

static xconv_status cuda_enumerate(xconv_device_info *infos, int max, int *count,
                                   xconv_error *err)
{
    *count = 0;
    const xconv_cu_api *cu = driver_init(err);
    if (!cu)
        return XCONV_ERR_UNAVAILABLE;
    int n = 0;
    CUresult r = cu->device_get_count(&n);
    if (r != CUDA_SUCCESS)
        return cuda_fail(err, XCONV_ERR_UNAVAILABLE, r, "cuDeviceGetCount");
    for (int i = 0; i < n && i < max; i++) {
        xconv_status st = describe_device(cu, i, &infos[i], err);
        if (st != XCONV_OK)
            return xconv_error_prefix(err, "CUDA device %d", i);
    }
    *count = n;
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Context

static void cuda_close(void *vctx);

// Describes device `index` into ctx->info and starts making its context (on a thread of its
// own: cuda_context.c). Returns XCONV_OK or the first failure.
static xconv_status open_context(cuda_ctx *ctx, int index, xconv_error *err)
{
    const xconv_cu_api *cu = ctx->cu;
    xconv_status st = describe_device(cu, index, &ctx->info, err);
    if (st != XCONV_OK)
        return st;
    CU_TRY(cu->device_get(&ctx->dev, index), "cuDeviceGet");
    return cuda_context_start(ctx, err);
}

// The reset slot, after a sticky error. The driver cannot recover from one inside the process:
// measured on driver 580 (CUDA 13.0), cuDevicePrimaryCtxRelease and cuDevicePrimaryCtxReset
// succeed, but the next cuDevicePrimaryCtxRetain returns the same sticky error and every later
// call fails (NVIDIA's guide: the process must end). So nothing is tried: the context is marked
// lost for good, every slot then returns XCONV_ERR_DEVICE_LOST without calling the driver, and
// XCONV_ERR_DEVICE_LOST here tells the core not to ask again.
static xconv_status cuda_reset(void *vctx, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    cuda_context_ready(ctx, NULL);  // made long since: a fault came from using it
    ctx->lost = true;
    ctx->timing = false;
    return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, LOST_MESSAGE);
}

static xconv_status cuda_open(int backend_index, void **out, xconv_error *err)
{
    *out = NULL;
    const xconv_cu_api *cu = driver_init(err);
    if (!cu)
        return XCONV_ERR_UNAVAILABLE;
    int count = 0;
    if (cu->device_get_count(&count) != CUDA_SUCCESS || backend_index < 0 ||
        backend_index >= count)
        return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "no CUDA device %d (%d present)",
                               backend_index, count);
    cuda_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a CUDA context");
    ctx->cu = cu;
    ctx->delay_ns = XCONV_CUDA_DELAY_NS;
    pthread_mutex_init(&ctx->open_lock, NULL);
    if (open_context(ctx, backend_index, err) != XCONV_OK) {
        cuda_close(ctx);
        return xconv_error_prefix(err, "opening CUDA device %d", backend_index);
    }
    *out = ctx;
    return XCONV_OK;
}

static void cuda_close(void *vctx)
{
    cuda_ctx *ctx = vctx;
    if (!ctx)
        return;
    cuda_context_release(ctx, true);
    pthread_mutex_destroy(&ctx->open_lock);
    free(ctx);
}

// ---------------------------------------------------------------------------------------------
// Buffers

static xconv_status cuda_buffer_alloc(void *vctx, size_t bytes, xconv_backend_buffer **out,
                                      xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    *out = NULL;
    if (bytes > ctx->info.max_alloc_bytes)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "cannot allocate %zu bytes: the device's largest allocation is "
                               "%llu bytes", bytes,
                               (unsigned long long)ctx->info.max_alloc_bytes);
    CU_CURRENT(ctx);
    xconv_backend_buffer *buf = calloc(1, sizeof *buf);
    if (!buf)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for a buffer");
    CUresult r = ctx->cu->mem_alloc(&buf->ptr, bytes ? bytes : 4);  // CUDA refuses 0 bytes
    if (r != CUDA_SUCCESS) {
        free(buf);
        cuda_fail(err, XCONV_ERR_OUT_OF_MEMORY, r, "cuMemAlloc");
        return xconv_error_prefix(err, "allocating %zu bytes", bytes);
    }
    buf->bytes = bytes;
    *out = buf;
    return XCONV_OK;
}

static void cuda_buffer_free(void *vctx, xconv_backend_buffer *buf)
{
    cuda_ctx *ctx = vctx;
    if (!buf)
        return;
    cuda_context_ready(ctx, NULL);  // made before the buffer was: no wait
    if (!ctx->lost && ctx->pctx && ctx->cu->ctx_set_current(ctx->pctx) == CUDA_SUCCESS) {
        ctx->cu->stream_synchronize(ctx->stream);  // work still using it may be queued
        ctx->cu->mem_free(buf->ptr);
    }
    free(buf);
}

static xconv_status cuda_buffer_write(void *vctx, xconv_backend_buffer *buf, size_t offset,
                                      size_t bytes, const void *src, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    if (bytes == 0)
        return XCONV_OK;
    CU_CURRENT(ctx);
    // Queued on the stream after earlier work, then waited for: a blocking copy in order.
    CU_TRY(ctx->cu->memcpy_htod_async(buf->ptr + offset, src, bytes, ctx->stream),
           "cuMemcpyHtoDAsync");
    CU_TRY(ctx->cu->stream_synchronize(ctx->stream), "cuStreamSynchronize after a write");
    return XCONV_OK;
}

static xconv_status cuda_buffer_read(void *vctx, xconv_backend_buffer *buf, size_t offset,
                                     size_t bytes, void *dst, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    if (bytes == 0)
        return XCONV_OK;
    CU_CURRENT(ctx);
    CU_TRY(ctx->cu->memcpy_dtoh_async(dst, buf->ptr + offset, bytes, ctx->stream),
           "cuMemcpyDtoHAsync");
    CU_TRY(ctx->cu->stream_synchronize(ctx->stream), "cuStreamSynchronize after a read");
    return XCONV_OK;
}

static xconv_status cuda_buffer_fill(void *vctx, xconv_backend_buffer *buf, size_t count,
                                     float value, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    if (count == 0)
        return XCONV_OK;
    CU_CURRENT(ctx);
    unsigned int bits;
    memcpy(&bits, &value, sizeof bits);
    CU_TRY(ctx->cu->memset_d32_async(buf->ptr, bits, count, ctx->stream), "cuMemsetD32Async");
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Waiting

// (Timed regions: cuda_timer.c.)

static xconv_status cuda_finish(void *vctx, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    CU_CURRENT(ctx);
    CU_TRY(ctx->cu->stream_synchronize(ctx->stream), "cuStreamSynchronize");
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Handles for other libraries on the same stream (xconv/native.h)

static void cuda_native(void *vctx, xconv_native_device *out)
{
    cuda_ctx *ctx = vctx;
    cuda_context_ready(ctx, NULL);  // a context that could not be made gives NULL handles
    out->context = ctx->pctx;
    out->cuda_device = (int)ctx->dev;
    out->queue = ctx->stream;
}

static void cuda_buffer_native(void *vctx, const xconv_backend_buffer *buf,
                               xconv_native_buffer *out)
{
    (void)vctx;
    out->cu_deviceptr = (uint64_t)buf->ptr;
}

// ---------------------------------------------------------------------------------------------
// The table

static const xconv_backend_iface cuda_backend = {
    .kind = XCONV_BACKEND_CUDA,
    .enumerate = cuda_enumerate,
    .open = cuda_open,
    .close = cuda_close,
    .buffer_alloc = cuda_buffer_alloc,
    .buffer_free = cuda_buffer_free,
    .buffer_write = cuda_buffer_write,
    .buffer_read = cuda_buffer_read,
    .buffer_fill = cuda_buffer_fill,
    .program_build = cuda_program_build,
    .builds_concurrently = cuda_builds_concurrently,
    .program_binary = cuda_program_binary,
    .program_load = cuda_program_load,
    .compiler_id = cuda_compiler_id,
    .program_free = cuda_program_free,
    .launch = cuda_launch,
    .timer_start = cuda_timer_start,
    .timer_stop = cuda_timer_stop,
    .timer_delay = cuda_timer_mode,
    .finish = cuda_finish,
    .reset = cuda_reset,
    .native = cuda_native,
    .buffer_native = cuda_buffer_native,
    .libraries = cuda_libraries,
    .sgemm = cuda_sgemm,
    .vendor_conv_supports = cuda_vendor_conv_supports,
    .vendor_conv = cuda_vendor_conv,
};

const xconv_backend_iface *xconv_backend_cuda(void)
{
    return &cuda_backend;
}
