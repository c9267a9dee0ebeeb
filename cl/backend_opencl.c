// SPDX-License-Identifier: MIT
// The OpenCL backend: a context and profiling queue per device, buffers and launches, in one
// table (programs, device listing, timed regions and CLBlast live in cl/opencl_*.c).
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
// Launches

// Whether `name` is one of the ';'-separated names in `names`.
static bool name_listed(const char *names, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = names; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : "") {
        if (strncmp(p, name, len) == 0 && (p[len] == ';' || p[len] == '\0'))
            return true;
    }
    return false;
}

// Fills err after clCreateKernel answered CL_INVALID_KERNEL_NAME: "no kernel named X" and the
// names the program does have, or, where the program lists X (Oclgrind does so for kernels it
// cannot run), that the implementation refused to create it.
static xconv_status missing_kernel(const xconv_backend_program *prog, const char *name,
                                   xconv_error *err)
{
    size_t len = 0;
    clGetProgramInfo(prog->program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &len);
    char *names = calloc(len + 1, 1);
    if (names && len > 0 &&
        clGetProgramInfo(prog->program, CL_PROGRAM_KERNEL_NAMES, len, names, NULL) != CL_SUCCESS)
        names[0] = '\0';
    xconv_status st =
        name_listed(names, name)
            ? xconv_error_set(err, XCONV_ERR_DEVICE,
                              "the OpenCL implementation lists kernel '%s' but refused to "
                              "create it (CL_INVALID_KERNEL_NAME)", name)
            : xconv_error_set(err, XCONV_ERR_NOT_FOUND,
                              "the program has no kernel named '%s' (its kernels: %s)", name,
                              names && names[0] ? names : "unknown");
    free(names);
    return st;
}

// Returns XCONV_OK and the program's kernel `name` (created once, then cached) in *out.
static xconv_status find_kernel(xconv_backend_program *prog, const char *name, opencl_kernel **out,
                                xconv_error *err)
{
    for (opencl_kernel *k = prog->kernels; k; k = k->next) {
        if (strcmp(k->name, name) == 0) {
            *out = k;
            return XCONV_OK;
        }
    }
    cl_int rc;
    cl_kernel kernel = clCreateKernel(prog->program, name, &rc);
    if (!kernel)
        return rc == CL_INVALID_KERNEL_NAME ? missing_kernel(prog, name, err)
                                            : xconv_opencl_fail(err, rc, "clCreateKernel");
    opencl_kernel *k = calloc(1, sizeof *k);
    if (k)
        k->name = strdup(name);
    if (!k || !k->name) {
        free(k);
        clReleaseKernel(kernel);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    k->kernel = kernel;
    clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof k->nargs, &k->nargs, NULL);
    k->next = prog->kernels;
    prog->kernels = k;
    *out = k;
    return XCONV_OK;
}

// Returns a buffer holding `bytes` of buf from byte `offset`, copied there by a command
// enqueued now (after the work before it, as CUDA copies a constant argument into its
// __constant__ symbol); the copy's buffer is made once and kept with buf. Returns NULL with err
// filled on failure.
static cl_mem constant_copy(opencl_context *ctx, xconv_backend_buffer *buf, size_t offset,
                            size_t bytes, xconv_error *err)
{
    opencl_view *v = buf->views;
    while (v && !(!v->sub && v->offset == offset && v->bytes == bytes))
        v = v->next;
    cl_int rc = CL_SUCCESS;
    if (!v && (v = calloc(1, sizeof *v)) != NULL) {
        v->mem = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, bytes ? bytes : 4, NULL, &rc);
        if (!v->mem) {
            free(v);
            xconv_opencl_fail(err, rc, "clCreateBuffer (constant copy)");
            return NULL;
        }
        v->offset = offset;
        v->bytes = bytes;
        v->next = buf->views;
        buf->views = v;
    }
    if (!v) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
        return NULL;
    }
    cl_event ev;
    if (bytes)
        rc = clEnqueueCopyBuffer(ctx->queue, buf->mem, v->mem, offset, 0, bytes, 0, NULL,
                                 xconv_opencl_region_slot(ctx, &ev));
    if (rc != CL_SUCCESS) {
        xconv_opencl_fail(err, rc, "clEnqueueCopyBuffer (constant copy)");
        return NULL;
    }
    if (bytes)
        xconv_opencl_region_note(ctx, ev);
    return v->mem;
}

// Returns the sub-buffer of buf from byte `offset` to its end, made once and kept with buf (the
// view of a workspace region for a kernel's bare pointer). Returns NULL with err filled when
// offset is not a multiple of the device's base address alignment or the call fails.
static cl_mem sub_buffer(opencl_context *ctx, xconv_backend_buffer *buf, size_t offset,
                         xconv_error *err)
{
    opencl_view *v = buf->views;
    while (v && !(v->sub && v->offset == offset))
        v = v->next;
    if (v)
        return v->mem;
    if (offset % ctx->base_align_bytes || offset >= buf->bytes) {
        xconv_error_set(err, XCONV_ERR_INVALID, "a buffer argument at byte %zu of %zu: not a "
                        "multiple of the device's base address alignment (%u bytes) or past the "
                        "end", offset, buf->bytes, ctx->base_align_bytes);
        return NULL;
    }
    cl_buffer_region region = {.origin = offset, .size = buf->bytes - offset};
    cl_int rc = CL_SUCCESS;
    cl_mem mem = clCreateSubBuffer(buf->mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                   &region, &rc);
    if (!mem) {
        xconv_opencl_fail(err, rc, "clCreateSubBuffer");
        return NULL;
    }
    if (!(v = calloc(1, sizeof *v))) {
        clReleaseMemObject(mem);
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
        return NULL;
    }
    *v = (opencl_view){.offset = offset, .bytes = region.size, .sub = true, .mem = mem,
                       .next = buf->views};
    buf->views = v;
    return mem;
}

// Sets argument i of kernel k from a; returns XCONV_OK or XCONV_ERR_INVALID naming it.
static xconv_status set_arg(opencl_context *ctx, opencl_kernel *k, cl_uint i, const xconv_arg *a,
                            xconv_error *err)
{
    cl_int rc;
    cl_int iv = a->i;
    cl_float fv = a->f;
    cl_mem mem = a->buf ? a->buf->mem : NULL;
    switch (a->kind) {
    case XCONV_ARG_CONSTANT:
        if (a->bytes > ctx->const_mem_bytes)
            return xconv_error_set(err, XCONV_ERR_INVALID, "kernel '%s' argument %u: constant "
                                   "data of %zu bytes passes the device's constant memory "
                                   "(%llu)", k->name, i, a->bytes,
                                   (unsigned long long)ctx->const_mem_bytes);
        // On OpenCL a __constant argument is set like any other buffer; a part of one from an
        // offset is copied into a buffer of its own first.
        if (a->buf && a->offset && !(mem = constant_copy(ctx, a->buf, a->offset, a->bytes, err)))
            return xconv_error_prefix(err, "kernel '%s' argument %u", k->name, i);
        /* fall through */
    case XCONV_ARG_BUFFER:
        if (a->kind == XCONV_ARG_BUFFER && a->buf && a->offset &&
            !(mem = sub_buffer(ctx, a->buf, a->offset, err)))
            return xconv_error_prefix(err, "kernel '%s' argument %u", k->name, i);
        if (!mem)
            return xconv_error_set(err, XCONV_ERR_INVALID, "kernel '%s' argument %u: buffer "
                                   "is NULL", k->name, i);
        rc = clSetKernelArg(k->kernel, i, sizeof(cl_mem), &mem);
        break;
    case XCONV_ARG_INT:
        rc = clSetKernelArg(k->kernel, i, sizeof iv, &iv);
        break;
    case XCONV_ARG_FLOAT:
        rc = clSetKernelArg(k->kernel, i, sizeof fv, &fv);
        break;
    default:
        return xconv_error_set(err, XCONV_ERR_INVALID, "kernel '%s' argument %u: unknown kind %d",
                               k->name, i, (int)a->kind);
    }
    if (rc == CL_SUCCESS)
        return XCONV_OK;
    return xconv_error_set(err, XCONV_ERR_INVALID, "kernel '%s' argument %u: clSetKernelArg "
                           "failed: %s (%d)", k->name, i, xconv_opencl_status_name(rc), (int)rc);
}

// Writes "(a, b, c)" of the first dims sizes into buf.
static const char *sizes_text(const size_t *v, int dims, char *buf, size_t len)
{
    int n = snprintf(buf, len, "(%zu", v[0]);
    for (int d = 1; d < dims && n > 0 && (size_t)n < len; d++)
        n += snprintf(buf + n, len - (size_t)n, ", %zu", v[d]);
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
    return buf;
}

// Checks dims and that global is a positive multiple of local; returns XCONV_ERR_INVALID if not.
static xconv_status check_geometry(const xconv_launch *l, xconv_error *err)
{
    char g[96], lo[96];
    if (l->dims < 1 || l->dims > 3)
        return xconv_error_set(err, XCONV_ERR_INVALID, "kernel '%s': %d dimensions (1 to 3)",
                               l->kernel, l->dims);
    for (int d = 0; d < l->dims; d++) {
        if (l->global[d] == 0 || l->local[d] == 0 || l->global[d] % l->local[d] != 0)
            return xconv_error_set(err, XCONV_ERR_INVALID, "kernel '%s': global size %s is not "
                                   "a positive multiple of local size %s", l->kernel,
                                   sizes_text(l->global, l->dims, g, sizeof g),
                                   sizes_text(l->local, l->dims, lo, sizeof lo));
    }
    return XCONV_OK;
}

// Explains a failed enqueue with the sizes used and the kernel's limits on this device.
static xconv_status enqueue_failure(opencl_context *ctx, const opencl_kernel *k,
                                    const xconv_launch *l, cl_int rc, xconv_error *err)
{
    char g[96], lo[96];
    size_t kernel_max = 0;
    cl_ulong local_mem = 0;
    clGetKernelWorkGroupInfo(k->kernel, ctx->device, CL_KERNEL_WORK_GROUP_SIZE,
                             sizeof kernel_max, &kernel_max, NULL);
    clGetKernelWorkGroupInfo(k->kernel, ctx->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem,
                             &local_mem, NULL);
    bool sizes = rc == CL_INVALID_WORK_GROUP_SIZE || rc == CL_INVALID_WORK_ITEM_SIZE ||
                 rc == CL_OUT_OF_RESOURCES;
    return xconv_error_set(err, sizes ? XCONV_ERR_NOT_APPLICABLE : xconv_opencl_status_map(rc),
                           "kernel '%s' with global size %s and local size %s: "
                           "clEnqueueNDRangeKernel failed: %s (%d); this compiled kernel allows "
                           "at most %zu work-items per group on this device and uses %llu bytes "
                           "of local memory", k->name,
                           sizes_text(l->global, l->dims, g, sizeof g),
                           sizes_text(l->local, l->dims, lo, sizeof lo),
                           xconv_opencl_status_name(rc), (int)rc, kernel_max,
                           (unsigned long long)local_mem);
}

static xconv_status opencl_launch(void *vctx, xconv_backend_program *prog, const xconv_launch *l,
                                  xconv_error *err)
{
    opencl_context *ctx = vctx;
    if (!prog || !l || !l->kernel)
        return xconv_error_set(err, XCONV_ERR_INVALID, "launch: no program or kernel name");
    xconv_status st = check_geometry(l, err);
    opencl_kernel *k = NULL;
    if (st == XCONV_OK)
        st = find_kernel(prog, l->kernel, &k, err);
    if (st != XCONV_OK)
        return st;
    if (l->nargs < 0 || (cl_uint)l->nargs != k->nargs)
        return xconv_error_set(err, XCONV_ERR_INVALID, "kernel '%s' takes %u arguments; the "
                               "launch passes %d", k->name, k->nargs, l->nargs);
    for (int i = 0; i < l->nargs; i++) {
        st = set_arg(ctx, k, (cl_uint)i, &l->args[i], err);
        if (st != XCONV_OK)
            return st;
    }
    cl_event ev;
    cl_int rc = clEnqueueNDRangeKernel(ctx->queue, k->kernel, (cl_uint)l->dims, NULL, l->global,
                                       l->local, 0, NULL, xconv_opencl_region_slot(ctx, &ev));
    if (rc != CL_SUCCESS)
        return enqueue_failure(ctx, k, l, rc, err);
    xconv_opencl_region_note(ctx, ev);
    return XCONV_OK;
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
    .launch = opencl_launch,
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
