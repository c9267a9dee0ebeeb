// SPDX-License-Identifier: MIT
// The OpenCL backend's programs: kernel text built for the context's device with the build
// options every kernel gets, its log on failure, and binaries for the compiled-kernel cache.
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

