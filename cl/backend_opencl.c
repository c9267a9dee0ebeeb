// SPDX-License-Identifier: MIT
// The OpenCL backend: a context and profiling queue per device, buffers and waiting, in one
// table (programs and their launches, device listing, timed regions and CLBlast live in
// cl/opencl_*.c).
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

// Contexts open in this process; CLBlast's caches are dropped when it returns to 0.
static atomic_int open_contexts;

static void release_queue(opencl_context *ctx);   // Open and close, below
static cl_int create_queue(opencl_context *ctx);

// ---------------------------------------------------------------------------------------------
// Open and close

static void opencl_close(void *vctx)
{
    opencl_context *ctx = vctx;
    if (!ctx)
        return;
    if (ctx->queue)
        clFinish(ctx->queue);
    release_queue(ctx);
    free(ctx);
    if (atomic_fetch_sub(&open_contexts, 1) == 1)
        xconv_opencl_clblast_release();
}

// Creates ctx's context and profiling queue on its platform and device; returns CL_SUCCESS or
// the failing code.
static cl_int create_queue(opencl_context *ctx)
{
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform,
                                     0};
    cl_int rc;
    ctx->context = clCreateContext(props, 1, &ctx->device, NULL, NULL, &rc);
    if (ctx->context)
        ctx->queue = clCreateCommandQueue(ctx->context, ctx->device, CL_QUEUE_PROFILING_ENABLE,
                                          &rc);
    return ctx->queue ? CL_SUCCESS : rc;
}

// Releases ctx's queue, context and timer objects (after a fault: nothing is waited for).
static void release_queue(opencl_context *ctx)
{
    xconv_opencl_timer_release(ctx);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->context)
        clReleaseContext(ctx->context);
    ctx->queue = NULL;
    ctx->context = NULL;
}

// The reset slot: a new context and queue on the same device. CLBlast's caches hold the old
// context's programs, so they are dropped too (its other contexts rebuild theirs on demand).
static xconv_status opencl_reset(void *vctx, xconv_error *err)
{
    opencl_context *ctx = vctx;
    release_queue(ctx);
    xconv_opencl_clblast_release();
    cl_int rc = create_queue(ctx);
    if (rc != CL_SUCCESS) {
        release_queue(ctx);
        return xconv_opencl_fail(err, rc, "creating a new OpenCL context and queue");
    }
    return XCONV_OK;
}

static xconv_status opencl_open(int index, void **out, xconv_error *err)
{
    *out = NULL;
    opencl_device_list list;
    xconv_status st = xconv_opencl_devices(&list, err);
    if (st != XCONV_OK)
        return st;
    if (index < 0 || index >= list.count) {
        int count = list.count;
        xconv_opencl_devices_free(&list);
        return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "no OpenCL device %d (there are %d)",
                               index, count);
    }
    opencl_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        xconv_opencl_devices_free(&list);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    atomic_fetch_add(&open_contexts, 1);
    xconv_delay_init(&ctx->delay);
    ctx->device = list.devices[index];
    ctx->platform = list.platforms[index];
    xconv_opencl_devices_free(&list);
    cl_int rc = create_queue(ctx);
    if (rc != CL_SUCCESS) {
        opencl_close(ctx);
        return xconv_opencl_fail(err, rc, "creating an OpenCL context and profiling queue");
    }
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong),
                    &ctx->max_alloc_bytes, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof(cl_ulong),
                    &ctx->const_mem_bytes, NULL);
    cl_uint align_bits = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                    NULL);
    ctx->base_align_bytes = align_bits >= 8 ? align_bits / 8 : 1;
    cl_device_type type = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    ctx->region_events = (type & CL_DEVICE_TYPE_CPU) != 0;
    ctx->nv_register_cap = xconv_opencl_has_extension(ctx->device, "cl_nv_compiler_options");
    *out = ctx;
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Buffers

// OpenCL allocates lazily; a 4-byte fill waited on makes most drivers commit the buffer now,
// so a failure shows here rather than in a later launch. Returns CL_SUCCESS or the failure.
static cl_int touch_buffer(opencl_context *ctx, cl_mem mem)
{
    cl_float zero = 0.0f;
    cl_event ev = NULL;
    cl_int rc = clEnqueueFillBuffer(ctx->queue, mem, &zero, sizeof zero, 0, sizeof zero, 0,
                                    NULL, &ev);
    if (rc != CL_SUCCESS)
        return rc;
    rc = clWaitForEvents(1, &ev);
    cl_int exec = CL_COMPLETE;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    xconv_opencl_region_note(ctx, ev);
    return exec < 0 ? exec : rc;
}

static xconv_status opencl_buffer_alloc(void *vctx, size_t bytes, xconv_backend_buffer **out,
                                        xconv_error *err)
{
    opencl_context *ctx = vctx;
    *out = NULL;
    if (bytes > ctx->max_alloc_bytes)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "buffer of %zu bytes passes the device's largest allocation of "
                               "%llu bytes", bytes, (unsigned long long)ctx->max_alloc_bytes);
    xconv_backend_buffer *buf = calloc(1, sizeof *buf);
    if (!buf)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
    cl_int rc;
    buf->bytes = bytes;
    buf->mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes < 4 ? 4 : bytes, NULL, &rc);
    if (buf->mem)
        rc = touch_buffer(ctx, buf->mem);
    if (rc != CL_SUCCESS) {
        if (buf->mem)
            clReleaseMemObject(buf->mem);
        free(buf);
        xconv_opencl_fail(err, rc, "clCreateBuffer");
        return xconv_error_prefix(err, "allocating a buffer of %zu bytes", bytes);
    }
    *out = buf;
    return XCONV_OK;
}

static void opencl_buffer_free(void *vctx, xconv_backend_buffer *buf)
{
    (void)vctx;
    if (!buf)
        return;
    for (opencl_view *v = buf->views, *next; v; v = next) {
        next = v->next;
        clReleaseMemObject(v->mem);
        free(v);
    }
    clReleaseMemObject(buf->mem);
    free(buf);
}

// One blocking copy between host memory and buf: from src into buf when dst is NULL (a write),
// else from buf into dst (a read).
static xconv_status opencl_buffer_copy(opencl_context *ctx, xconv_backend_buffer *buf,
                                       size_t offset, size_t bytes, const void *src, void *dst,
                                       xconv_error *err)
{
    if (bytes == 0)
        return XCONV_OK;
    cl_event ev;
    cl_event *slot = xconv_opencl_region_slot(ctx, &ev);
    bool write = dst == NULL;
    cl_int rc = write ? clEnqueueWriteBuffer(ctx->queue, buf->mem, CL_TRUE, offset, bytes, src,
                                             0, NULL, slot)
                      : clEnqueueReadBuffer(ctx->queue, buf->mem, CL_TRUE, offset, bytes, dst, 0,
                                            NULL, slot);
    if (rc == CL_SUCCESS)
        xconv_opencl_region_note(ctx, ev);
    return rc == CL_SUCCESS ? XCONV_OK
                            : xconv_opencl_fail_wait(err, rc, write ? "clEnqueueWriteBuffer"
                                                                    : "clEnqueueReadBuffer");
}

static xconv_status opencl_buffer_write(void *vctx, xconv_backend_buffer *buf, size_t offset,
                                        size_t bytes, const void *src, xconv_error *err)
{
    return opencl_buffer_copy(vctx, buf, offset, bytes, src, NULL, err);
}

static xconv_status opencl_buffer_read(void *vctx, xconv_backend_buffer *buf, size_t offset,
                                       size_t bytes, void *dst, xconv_error *err)
{
    return opencl_buffer_copy(vctx, buf, offset, bytes, NULL, dst, err);
}

static xconv_status opencl_buffer_fill(void *vctx, xconv_backend_buffer *buf, size_t count,
                                       float value, xconv_error *err)
{
    opencl_context *ctx = vctx;
    if (count == 0)
        return XCONV_OK;
    cl_float pattern = value;
    cl_event ev;
    cl_int rc = clEnqueueFillBuffer(ctx->queue, buf->mem, &pattern, sizeof pattern, 0,
                                    count * sizeof pattern, 0, NULL,
                                    xconv_opencl_region_slot(ctx, &ev));
    if (rc == CL_SUCCESS)
        xconv_opencl_region_note(ctx, ev);
    return rc == CL_SUCCESS ? XCONV_OK : xconv_opencl_fail(err, rc, "clEnqueueFillBuffer");
}

// ---------------------------------------------------------------------------------------------
// Waiting (timed regions: cl/opencl_timer.c)

static xconv_status opencl_finish(void *vctx, xconv_error *err)
{
    opencl_context *ctx = vctx;
    cl_int rc = clFinish(ctx->queue);
    return rc == CL_SUCCESS ? XCONV_OK : xconv_opencl_fail_wait(err, rc, "clFinish");
}

// ---------------------------------------------------------------------------------------------
// The table

static void opencl_native(void *vctx, xconv_native_device *out)
{
    const opencl_context *ctx = vctx;
    out->context = ctx->context;
    out->device = ctx->device;
    out->queue = ctx->queue;
}

static void opencl_buffer_native(void *vctx, const xconv_backend_buffer *buf,
                                 xconv_native_buffer *out)
{
    (void)vctx;
    out->cl_mem = buf->mem;
}

static const xconv_backend_iface opencl_iface = {
    .kind = XCONV_BACKEND_OPENCL,
    .enumerate = xconv_opencl_enumerate,
    .advice = xconv_opencl_advice,
    .open = opencl_open,
    .close = opencl_close,
    .buffer_alloc = opencl_buffer_alloc,
    .buffer_free = opencl_buffer_free,
    .buffer_write = opencl_buffer_write,
    .buffer_read = opencl_buffer_read,
    .buffer_fill = opencl_buffer_fill,
    .program_build = xconv_opencl_program_build,
    .builds_concurrently = xconv_opencl_builds_concurrently,
    .program_free = xconv_opencl_program_free,
    .program_binary = xconv_opencl_program_binary,
    .program_load = xconv_opencl_program_load,
    .compiler_id = xconv_opencl_compiler_id,
    .launch = xconv_opencl_launch,
    .timer_start = xconv_opencl_timer_start,
    .timer_stop = xconv_opencl_timer_stop,
    .timer_delay = xconv_opencl_timer_mode,
    .finish = opencl_finish,
    .reset = opencl_reset,
    .native = opencl_native,
    .buffer_native = opencl_buffer_native,
    .libraries = xconv_opencl_libraries,
    .sgemm = xconv_opencl_sgemm,
    .vendor_conv_supports = xconv_opencl_conv_supports,
    .vendor_conv = xconv_opencl_conv,
};

const xconv_backend_iface *xconv_backend_opencl(void)
{
    return &opencl_iface;
}
