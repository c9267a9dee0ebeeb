// SPDX-License-Identifier: MIT
// The OpenCL backend's programs: kernel text built for the context's device with the build
// options every kernel gets, its log on failure, binaries for the compiled-kernel cache, and
// launches of their kernels (kernel objects made once per program, arguments, geometry).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

// ---------------------------------------------------------------------------------------------
// Programs

// Returns the device's build log of prog (malloc'd, "" when empty), or NULL without memory.
static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t len = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = calloc(len + 1, 1);
    if (log && len > 0 &&
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) != CL_SUCCESS)
        log[0] = '\0';
    return log;
}

// Returns the line of the compiled text where the caller's source begins: the dialect's lines,
// the blank line and the #line directive come first.
static int source_first_line(void)
{
    int line = 3;
    for (const char *c = xconv_kernel_dialect(); *c; c++)
        line += *c == '\n';
    return line;
}

// Fills err with a failed build's status, a header and the start of the device's log; the
// whole log goes to *whole (when whole is not NULL). Some compilers (NVIDIA's, Oclgrind's)
// ignore #line, so the header says where the source begins.
static xconv_status build_failure(cl_program prog, cl_device_id dev, cl_int rc,
                                  const char *options, char **whole, xconv_error *err)
{
    char *log = prog ? build_log(prog, dev) : NULL;
    xconv_error_set(err, XCONV_ERR_BUILD, "clBuildProgram failed: %s (%d) with options \"%s\"; "
                    "build log (source line 1 is line %d where the log ignores #line; the whole "
                    "log: xconv_device_build_log):\n%s",
                    xconv_opencl_status_name(rc), (int)rc, options, source_first_line(),
                    log && log[0] ? log : "(empty)");
    if (whole)
        *whole = log;
    else
        free(log);
    return XCONV_ERR_BUILD;
}

// Compiles text with options for the context's device; returns XCONV_OK and the program in
// *out, or XCONV_ERR_BUILD with the log (the whole of it in *log, when log is not NULL).
xconv_status xconv_opencl_compile(opencl_context *ctx, const char *text, const char *options,
                                  cl_program *out, char **log, xconv_error *err)
{
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx->context, 1, &text, NULL, &rc);
    if (!prog)
        return xconv_opencl_fail(err, rc, "clCreateProgramWithSource");
    rc = clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        build_failure(prog, ctx->device, rc, options, log, err);
        clReleaseProgram(prog);
        return XCONV_ERR_BUILD;
    }
    *out = prog;
    return XCONV_OK;
}

// Returns a malloc'd concatenation of a, b and c, or NULL without memory.
static char *concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb);
        memcpy(s + la + lb, c, lc + 1);
    }
    return s;
}

void xconv_opencl_program_free(void *vctx, xconv_backend_program *prog)
{
    (void)vctx;
    if (!prog)
        return;
    for (opencl_kernel *k = prog->kernels, *next; k; k = next) {
        next = k->next;
        clReleaseKernel(k->kernel);
        free(k->name);
        free(k);
    }
    if (prog->program)
        clReleaseProgram(prog->program);
    free(prog);
}

// Returns the build options of a program: the caller's defines, XCONV_OPENCL_BUILD_OPTIONS and,
// where the defines cap the registers (XCONV_REGISTER_CAP_NAME) and the compiler takes NVIDIA's
// cl_nv_compiler_options, -cl-nv-maxrregcount (malloc'd), or NULL without memory.
static char *full_options(const opencl_context *ctx, const char *options)
{
    static const char cap_define[] = "-D" XCONV_REGISTER_CAP_NAME "=";
    const char *cap = options ? strstr(options, cap_define) : NULL;
    char tail[96];
    if (cap && ctx->nv_register_cap)
        snprintf(tail, sizeof tail, "%s -cl-nv-maxrregcount=%d", XCONV_OPENCL_BUILD_OPTIONS,
                 atoi(cap + sizeof cap_define - 1));
    else
        snprintf(tail, sizeof tail, "%s", XCONV_OPENCL_BUILD_OPTIONS);
    return concat3(options ? options : "", options && options[0] ? " " : "", tail);
}

xconv_status xconv_opencl_program_build(void *vctx, const char *source, const char *options,
                                        xconv_backend_program **out, char **log,
                                        xconv_error *err)
{
    opencl_context *ctx = vctx;
    *out = NULL;
    if (log)
        *log = NULL;
    if (!source)
        return xconv_error_set(err, XCONV_ERR_INVALID, "program_build: source is NULL");
    // #line 1 makes the compiler's log count lines from the caller's source.
    char *text = concat3(xconv_kernel_dialect(), "\n#line 1\n", source);
    char *full = full_options(ctx, options);
    xconv_backend_program *prog = text && full ? calloc(1, sizeof *prog) : NULL;
    xconv_status st = prog ? xconv_opencl_compile(ctx, text, full, &prog->program, log, err)
                           : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
    free(text);
    free(full);
    if (st != XCONV_OK) {
        xconv_opencl_program_free(ctx, prog);
        return st;
    }
    *out = prog;
    return XCONV_OK;
}

// OpenCL builds are thread-safe by the standard; Oclgrind's runtime crashes when two threads
// build at once, so its programs are built one at a time.
bool xconv_opencl_builds_concurrently(void *vctx)
{
    opencl_context *ctx = vctx;
    char name[256] = "";
    clGetPlatformInfo(ctx->platform, CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
    return strstr(name, "Oclgrind") == NULL;
}

// The program's binary for the context's device (what clCreateProgramWithBinary takes).
xconv_status xconv_opencl_program_binary(void *vctx, xconv_backend_program *prog, void **data,
                                         size_t *len, xconv_error *err)
{
    (void)vctx;
    *data = NULL;
    *len = 0;
    size_t size = 0;
    cl_int rc = clGetProgramInfo(prog->program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                                 NULL);
    if (rc != CL_SUCCESS || size == 0)
        return rc != CL_SUCCESS ? xconv_opencl_fail(err, rc, "clGetProgramInfo")
                                : xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "no binary");
    unsigned char *bin = malloc(size);
    if (!bin)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a binary");
    rc = clGetProgramInfo(prog->program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    if (rc != CL_SUCCESS) {
        free(bin);
        return xconv_opencl_fail(err, rc, "clGetProgramInfo (binaries)");
    }
    *data = bin;
    *len = size;
    return XCONV_OK;
}

// Makes a program from a binary of the context's device, built with the same options.
xconv_status xconv_opencl_program_load(void *vctx, const void *data, size_t len,
                                       const char *options, xconv_backend_program **out,
                                       xconv_error *err)
{
    opencl_context *ctx = vctx;
    *out = NULL;
    const unsigned char *bin = data;
    cl_int status = CL_SUCCESS, rc = CL_SUCCESS;
    cl_program program =
        clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &len, &bin, &status, &rc);
    if (!program || rc != CL_SUCCESS || status != CL_SUCCESS) {
        if (program)
            clReleaseProgram(program);
        return xconv_opencl_fail(err, rc != CL_SUCCESS ? rc : status,
                                 "clCreateProgramWithBinary");
    }
    char *full = full_options(ctx, options);
    xconv_backend_program *prog = full ? calloc(1, sizeof *prog) : NULL;
    rc = prog ? clBuildProgram(program, 1, &ctx->device, full, NULL, NULL) : CL_OUT_OF_HOST_MEMORY;
    free(full);
    if (rc != CL_SUCCESS) {
        free(prog);
        clReleaseProgram(program);
        return xconv_error_set(err, XCONV_ERR_BUILD, "building a stored binary failed: %s (%d)",
                               xconv_opencl_status_name(rc), (int)rc);
    }
    prog->program = program;
    *out = prog;
    return XCONV_OK;
}

// The options every program gets beside its defines, for the keys of stored binaries.
void xconv_opencl_compiler_id(void *vctx, char *buf, size_t len)
{
    (void)vctx;
    snprintf(buf, len, "-cl-std=CL1.2");
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

xconv_status xconv_opencl_launch(void *vctx, xconv_backend_program *prog,
                                 const xconv_launch *l, xconv_error *err)
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
