// SPDX-License-Identifier: MIT
// The OpenCL backend's vendor slots through CLBlast: batched SGEMM and the convgemm convolution.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clblast_c.h>

#include "opencl_internal.h"

#define CONVGEMM_ALGO "clblast_convgemm"

// Each CLBlast call returns the event of the last kernel it enqueued; inside a timed region that
// event ends the region (xconv_opencl_region_note), so the region covers the whole call.

// ---------------------------------------------------------------------------------------------
// Status codes

// Returns the name of a common CLBlast status code, or "" for the rest.
static const char *clblast_status_name(CLBlastStatusCode code)
{
    switch (code) {
#define NAME(c) case c: return #c;
    NAME(CLBlastSuccess) NAME(CLBlastOpenCLCompilerNotAvailable)
    NAME(CLBlastTempBufferAllocFailure) NAME(CLBlastOpenCLOutOfResources)
    NAME(CLBlastOpenCLOutOfHostMemory) NAME(CLBlastOpenCLBuildProgramFailure)
    NAME(CLBlastInvalidValue) NAME(CLBlastInvalidCommandQueue) NAME(CLBlastInvalidMemObject)
    NAME(CLBlastInvalidLocalThreadsTotal) NAME(CLBlastInvalidLocalThreadsDim)
    NAME(CLBlastInvalidOperation) NAME(CLBlastInvalidBufferSize)
    NAME(CLBlastInvalidGlobalWorkSize) NAME(CLBlastNotImplemented)
    NAME(CLBlastInvalidMatrixA) NAME(CLBlastInvalidMatrixB) NAME(CLBlastInvalidMatrixC)
    NAME(CLBlastInvalidDimension) NAME(CLBlastInvalidLeadDimA) NAME(CLBlastInvalidLeadDimB)
    NAME(CLBlastInvalidLeadDimC) NAME(CLBlastInsufficientMemoryA)
    NAME(CLBlastInsufficientMemoryB) NAME(CLBlastInsufficientMemoryC)
    NAME(CLBlastInsufficientMemoryTemp) NAME(CLBlastInvalidBatchCount)
    NAME(CLBlastInvalidLocalMemUsage) NAME(CLBlastDatabaseError) NAME(CLBlastUnknownError)
    NAME(CLBlastUnexpectedError)
#undef NAME
    default:
        break;
    }
    return "";
}

// Fills err with "<what> failed: CLBlast status N (name)"; returns the mapped status.
static xconv_status clblast_fail(xconv_error *err, CLBlastStatusCode code, const char *what)
{
    xconv_status st = XCONV_ERR_DEVICE;
    switch (code) {
    case CLBlastTempBufferAllocFailure:
    case CLBlastOpenCLOutOfResources:
    case CLBlastOpenCLOutOfHostMemory:
        st = XCONV_ERR_OUT_OF_MEMORY;
        break;
    case CLBlastInvalidDimension: case CLBlastInvalidLeadDimA: case CLBlastInvalidLeadDimB:
    case CLBlastInvalidLeadDimC: case CLBlastInsufficientMemoryA:
    case CLBlastInsufficientMemoryB: case CLBlastInsufficientMemoryC:
    case CLBlastInvalidBatchCount: case CLBlastInvalidValue:
        st = XCONV_ERR_INVALID;
        break;
    default:
        break;
    }
    const char *name = clblast_status_name(code);
    return xconv_error_set(err, st, "%s failed: CLBlast status %d%s%s%s", what, (int)code,
                           name[0] ? " (" : "", name, name[0] ? ")" : "");
}

void xconv_opencl_clblast_release(void)
{
    CLBlastClearCache();
}

// Writes CLBlast's version into buf: from the file name of the shared library that holds it
// ("libclblast.so.1.5.3"), else from the headers xconv was built with.
static void clblast_version(char *buf, size_t len)
{
    Dl_info where;
    char *path = dladdr((void *)CLBlastSgemm, &where) && where.dli_fname
                     ? realpath(where.dli_fname, NULL)
                     : NULL;
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    if (base && strncmp(base, "libclblast.so.", 14) == 0 && strchr(base + 14, '.'))
        snprintf(buf, len, "CLBlast %s", base + 14);
    else
        snprintf(buf, len, "CLBlast %d.%d.%d (headers)", CLBLAST_VERSION_MAJOR,
                 CLBLAST_VERSION_MINOR, CLBLAST_VERSION_PATCH);
    free(path);
}

void xconv_opencl_libraries(void *vctx, char *buf, size_t len)
{
    const opencl_context *ctx = vctx;
    char name[128] = "", version[256] = "", clblast[64];
    clGetPlatformInfo(ctx->platform, CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
    clGetPlatformInfo(ctx->platform, CL_PLATFORM_VERSION, sizeof version - 1, version, NULL);
    clblast_version(clblast, sizeof clblast);
    // Runs of spaces (PoCL pads its version string) become one.
    for (char *r = version, *w = version;; r++) {
        if (!(*r == ' ' && w > version && w[-1] == ' '))
            *w++ = *r;
        if (!*r)
            break;
    }
    snprintf(buf, len, "OpenCL platform %s (%s), %s", name, version, clblast);
}

// ---------------------------------------------------------------------------------------------
// SGEMM

// C[b] = A[b] B[b] as a loop of single SGEMMs (for strides CLBlast's batched call refuses).
static CLBlastStatusCode sgemm_loop(opencl_context *ctx, const xconv_gemm_args *g)
{
    for (size_t b = 0; b < g->batch; b++) {
        cl_event ev = NULL;
        CLBlastStatusCode rc = CLBlastSgemm(
            CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, g->m, g->n, g->k, 1.0f,
            g->a->mem, g->a_offset + b * g->a_stride, g->lda,
            g->b->mem, g->b_offset + b * g->b_stride, g->ldb, 0.0f,
            g->c->mem, g->c_offset + b * g->c_stride, g->ldc, &ctx->queue, &ev);
        xconv_opencl_region_note(ctx, ev);
        if (rc != CLBlastSuccess)
            return rc;
    }
    return CLBlastSuccess;
}

xconv_status xconv_opencl_sgemm(void *vctx, const xconv_gemm_args *g, xconv_error *err)
{
    opencl_context *ctx = vctx;
    if (!g || !g->a || !g->b || !g->c)
        return xconv_error_set(err, XCONV_ERR_INVALID, "sgemm: a buffer is NULL");
    if (g->dtype != XCONV_DTYPE_F32 || g->math != XCONV_MATH_F32) {
        const char *dtype = xconv_dtype_name(g->dtype), *math = xconv_math_name(g->math);
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "CLBlast runs SGEMM only here (fp32 operands, strict fp32 math), "
                               "not dtype=%s math=%s", dtype ? dtype : "?", math ? math : "?");
    }
    if (g->m == 0 || g->n == 0 || g->batch == 0)
        return XCONV_OK;
    cl_event ev = NULL;
    CLBlastStatusCode rc = CLBlastSgemmStridedBatched(
        CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, g->m, g->n, g->k, 1.0f,
        g->a->mem, g->a_offset, g->lda, g->a_stride,
        g->b->mem, g->b_offset, g->ldb, g->b_stride, 0.0f,
        g->c->mem, g->c_offset, g->ldc, g->c_stride, g->batch, &ctx->queue, &ev);
    xconv_opencl_region_note(ctx, ev);
    // A shared (stride 0) operand is legal here; should a CLBlast version refuse it, a loop of
    // single calls computes the same product.
    if (rc != CLBlastSuccess && g->batch > 1 && (g->a_stride == 0 || g->b_stride == 0))
        rc = sgemm_loop(ctx, g);
    if (rc == CLBlastSuccess)
        return XCONV_OK;
    clblast_fail(err, rc, "CLBlastSgemmStridedBatched");
    return xconv_error_prefix(err, "sgemm m=%zu n=%zu k=%zu batch=%zu", g->m, g->n, g->k,
                              g->batch);
}

// ---------------------------------------------------------------------------------------------
// Convolution

bool xconv_opencl_conv_supports(void *vctx, const char *algo, const xconv_problem *p,
                                size_t *workspace_bytes, char *reason, size_t reason_len)
{
    (void)vctx;
    if (workspace_bytes)
        *workspace_bytes = 0;
    if (!algo || strcmp(algo, CONVGEMM_ALGO) != 0) {
        snprintf(reason, reason_len, "unknown algorithm '%s'", algo ? algo : "(null)");
        return false;
    }
    if (p->groups != 1) {
        snprintf(reason, reason_len, "CLBlast's convgemm has no groups");
        return false;
    }
    if (xconv_problem_has_epilogue(p)) {
        snprintf(reason, reason_len, "CLBlast's convgemm computes the convolution alone");
        return false;
    }
    return true;
}

xconv_status xconv_opencl_conv(void *vctx, const char *algo, const xconv_problem *p,
                               const xconv_vendor_conv_buffers *b, xconv_error *err)
{
    opencl_context *ctx = vctx;
    xconv_backend_buffer *x = b->x, *w = b->w, *y = b->y;
    char reason[256];
    if (!xconv_opencl_conv_supports(ctx, algo, p, NULL, reason, sizeof reason))
        return xconv_error_set(err, strcmp(algo ? algo : "", CONVGEMM_ALGO) == 0
                                        ? XCONV_ERR_NOT_APPLICABLE : XCONV_ERR_NOT_FOUND,
                               "%s", reason);
    if (!x || !w || !y)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: a buffer is NULL", algo);
    // Input N x C x H x W, kernels K x C x R x S, result N x K x P x Q: xconv's layouts, as the
    // backend test checks against a host convolution.
    cl_event ev = NULL;
    CLBlastStatusCode rc = CLBlastSconvgemm(
        CLBlastKernelModeCrossCorrelation, (size_t)p->c, (size_t)p->h, (size_t)p->w,
        (size_t)p->r, (size_t)p->s, (size_t)p->pad_h, (size_t)p->pad_w, (size_t)p->stride_h,
        (size_t)p->stride_w, (size_t)p->dil_h, (size_t)p->dil_w, (size_t)p->k, (size_t)p->n,
        x->mem, 0, w->mem, 0, y->mem, b->y_offset / sizeof(float), &ctx->queue, &ev);
    xconv_opencl_region_note(ctx, ev);
    return rc == CLBlastSuccess ? XCONV_OK : clblast_fail(err, rc, "CLBlastSconvgemm");
}
