// SPDX-License-Identifier: MIT
// The CUDA backend's vendor libraries: cuBLAS SGEMM (and its typed GEMM for the reduced modes)
// on the backend's stream, the cuDNN rows (cudnn_conv.c), and the versions of the driver and
// libraries that records name.
#include <stdio.h>
#include <string.h>

#include "cublas_types.h"
#include "cuda_internal.h"
#include "nvrtc_compile.h"

// ---------------------------------------------------------------------------------------------
// cuBLAS

// Returns a cuBLAS status as text.
static const char *blas_status(const cuda_ctx *ctx, cublasStatus_t s)
{
    if (ctx->blas_api && ctx->blas_api->get_status_name)
        return ctx->blas_api->get_status_name(s);
    static _Thread_local char text[32];
    snprintf(text, sizeof text, "cublasStatus %d", (int)s);
    return text;
}

// Makes the cuBLAS handle on first use: our stream, default math (fp32 FMA, no TF32).
static xconv_status ensure_blas(cuda_ctx *ctx, xconv_error *err)
{
    if (ctx->blas)
        return XCONV_OK;
    if (!ctx->blas_api && !(ctx->blas_api = xconv_cublas_load(err)))
        return XCONV_ERR_UNAVAILABLE;
    cublasHandle_t h = NULL;
    cublasStatus_t s = ctx->blas_api->create(&h);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = ctx->blas_api->set_stream(h, (cudaStream_t)ctx->stream);
    // CUBLAS_DEFAULT_MATH keeps fp32's mantissa for SGEMM; TF32 only comes with
    // CUBLAS_TF32_TENSOR_OP_MATH, which is never set. (PEDANTIC would also forbid the faster
    // fp32 kernels, which is not what a vendor baseline should measure.)
    if (s == CUBLAS_STATUS_SUCCESS)
        s = ctx->blas_api->set_math_mode(h, CUBLAS_DEFAULT_MATH);
    if (s != CUBLAS_STATUS_SUCCESS) {
        if (h)
            ctx->blas_api->destroy(h);
        return xconv_error_set(err, XCONV_ERR_DEVICE, "cuBLAS handle: %s", blas_status(ctx, s));
    }
    ctx->blas = h;
    return XCONV_OK;
}

// Checks one operand: rows x cols row-major elements of elem bytes with leading dimension ld,
// `batch` copies `stride` apart from element `offset`, must fit buf and cuBLAS's int arguments.
static xconv_status check_matrix(const char *name, const xconv_backend_buffer *buf, size_t elem,
                                 size_t offset, size_t rows, size_t cols, size_t ld,
                                 size_t stride, size_t batch, xconv_error *err)
{
    if (!buf)
        return xconv_error_set(err, XCONV_ERR_INVALID, "sgemm: %s is NULL", name);
    if (ld < cols || ld > INT_MAX || rows > INT_MAX || cols > INT_MAX)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "sgemm: %s is %zu x %zu with leading dimension %zu", name, rows,
                               cols, ld);
    if (rows == 0 || cols == 0 || batch == 0)
        return XCONV_OK;
    double last = (double)offset + (double)(batch - 1) * (double)stride +
                  (double)(rows - 1) * (double)ld + (double)cols;
    if (last * (double)elem > (double)buf->bytes)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "sgemm: %s reaches element %.0f of a buffer of %zu elements",
                               name, last, buf->bytes / elem);
    return XCONV_OK;
}

// Returns XCONV_OK when ctx's cuBLAS runs g's storage type and math mode with
// cublasGemmStridedBatchedEx on this device, filling *types; else XCONV_ERR_NOT_APPLICABLE with
// the reason (a mode the device's tensor cores lack, a cuBLAS without the call or before its
// compute types).
static xconv_status typed_gemm_types(const cuda_ctx *ctx, const xconv_gemm_args *g,
                                     xconv_cublas_types *types, xconv_error *err)
{
    char reason[256];
    if (!xconv_cublas_types_of(g->dtype, g->math, ctx->info.cc_major, types, reason,
                               sizeof reason))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", reason);
    int major = 0;
    if (!ctx->blas_api->gemm_strided_batched_ex)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "this cuBLAS has no cublasGemmStridedBatchedEx (the reduced modes "
                               "need it)");
    if (ctx->blas_api->get_property && ctx->blas_api->get_property(MAJOR_VERSION, &major) == 0 &&
        major < 11)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "cuBLAS %d predates the compute types of cuBLAS 11 (the reduced "
                               "modes need CUBLAS_COMPUTE_32F*)", major);
    return XCONV_OK;
}

// Enqueues g through cublasGemmStridedBatchedEx with types (row-major C = A B as column-major
// C^T = B^T A^T, as in cuda_sgemm).
static xconv_status typed_gemm(cuda_ctx *ctx, const xconv_gemm_args *g,
                               const xconv_cublas_types *types, xconv_error *err)
{
    const float one = 1.0f, zero = 0.0f;
    size_t elem = g->dtype == XCONV_DTYPE_F32 ? sizeof(float) : sizeof(uint16_t);
    const void *a = (const void *)(uintptr_t)(g->a->ptr + g->a_offset * elem);
    const void *b = (const void *)(uintptr_t)(g->b->ptr + g->b_offset * elem);
    void *c = (void *)(uintptr_t)(g->c->ptr + g->c_offset * sizeof(float));
    cublasStatus_t s = ctx->blas_api->gemm_strided_batched_ex(
        ctx->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)g->n, (int)g->m, (int)g->k, &one, b, types->ab,
        (int)g->ldb, (long long)g->b_stride, a, types->ab, (int)g->lda, (long long)g->a_stride,
        &zero, c, types->c, (int)g->ldc, (long long)g->c_stride, (int)g->batch, types->compute,
        CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
        return cuda_vendor_failure(
            ctx,
            xconv_error_set(err, XCONV_ERR_DEVICE,
                            "cublasGemmStridedBatchedEx (m %zu, n %zu, k %zu, batch %zu, A and B "
                            "%s, %s): %s", g->m, g->n, g->k, g->batch,
                            xconv_cublas_data_name(types->ab),
                            xconv_cublas_compute_name(types->compute), blas_status(ctx, s)),
            err);
    return XCONV_OK;
}

xconv_status cuda_sgemm(void *vctx, const xconv_gemm_args *g, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    bool typed = g->dtype != XCONV_DTYPE_F32 || g->math != XCONV_MATH_F32;
    size_t elem = g->dtype == XCONV_DTYPE_F32 ? sizeof(float) : sizeof(uint16_t);
    xconv_status st = check_matrix("A", g->a, elem, g->a_offset, g->m, g->k, g->lda, g->a_stride,
                                   g->batch, err);
    if (st == XCONV_OK)
        st = check_matrix("B", g->b, elem, g->b_offset, g->k, g->n, g->ldb, g->b_stride, g->batch,
                          err);
    if (st == XCONV_OK)
        st = check_matrix("C", g->c, sizeof(float), g->c_offset, g->m, g->n, g->ldc, g->c_stride,
                          g->batch, err);
    if (st == XCONV_OK && g->batch > 1 && g->c_stride == 0)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "sgemm: C stride 0 with batch %zu",
                             g->batch);
    if (st == XCONV_OK && g->batch > INT_MAX)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "sgemm: batch %zu", g->batch);
    if (st == XCONV_OK)
        st = cuda_make_current(ctx, err);
    if (st == XCONV_OK)
        st = ensure_blas(ctx, err);
    xconv_cublas_types types;
    if (st == XCONV_OK && typed)
        st = typed_gemm_types(ctx, g, &types, err);
    if (st != XCONV_OK || g->batch == 0 || g->m == 0 || g->n == 0)
        return st;
    if (typed)
        return typed_gemm(ctx, g, &types, err);
    // Row-major C = A B is column-major C^T = B^T A^T: pass B first and swap m and n.
    const float one = 1.0f, zero = 0.0f;
    const float *a = (const float *)(uintptr_t)(g->a->ptr + g->a_offset * sizeof(float));
    const float *b = (const float *)(uintptr_t)(g->b->ptr + g->b_offset * sizeof(float));
    float *c = (float *)(uintptr_t)(g->c->ptr + g->c_offset * sizeof(float));
    cublasStatus_t s = ctx->blas_api->sgemm_strided_batched(
        ctx->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)g->n, (int)g->m, (int)g->k, &one, b,
        (int)g->ldb, (long long)g->b_stride, a, (int)g->lda, (long long)g->a_stride, &zero, c,
        (int)g->ldc, (long long)g->c_stride, (int)g->batch);
    if (s != CUBLAS_STATUS_SUCCESS)
        return cuda_vendor_failure(
            ctx,
            xconv_error_set(err, XCONV_ERR_DEVICE,
                            "cublasSgemmStridedBatched (m %zu, n %zu, k %zu, batch %zu): %s",
                            g->m, g->n, g->k, g->batch, blas_status(ctx, s)),
            err);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// cuDNN

bool cuda_vendor_conv_supports(void *vctx, const char *algo, const xconv_problem *p,
                               size_t *workspace_bytes, char *reason, size_t reason_len)
{
    cuda_ctx *ctx = vctx;
    xconv_error err = {0};
    if (cuda_make_current(ctx, &err) != XCONV_OK) {
        snprintf(reason, reason_len, "%s", err.msg);
        if (workspace_bytes)
            *workspace_bytes = 0;
        return false;
    }
    return xconv_cudnn_supports(ctx->dnn, algo, p, workspace_bytes, reason, reason_len);
}

xconv_status cuda_vendor_conv(void *vctx, const char *algo, const xconv_problem *p,
                              const xconv_vendor_conv_buffers *b, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    if (!b->x || !b->w || !b->y)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: x, w and y must be buffers", algo);
    xconv_status st = cuda_make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    st = xconv_cudnn_forward(ctx->dnn, algo, p, b->x->ptr, b->w->ptr, b->y->ptr + b->y_offset,
                             b->bias ? b->bias->ptr : 0, b->workspace ? b->workspace->ptr : 0,
                             b->workspace ? b->workspace->bytes : 0, err);
    return st == XCONV_ERR_DEVICE ? cuda_vendor_failure(ctx, st, err) : st;
}

// ---------------------------------------------------------------------------------------------
// Versions

// Appends ", <name> <major>.<minor>.<patch>" of a version number v = major * scale + minor *
// 100 + patch to buf (used bytes so far in *used); nothing when v is 0.
static void append_version(char *buf, size_t len, size_t *used, const char *name, long v,
                           long scale)
{
    if (v <= 0 || *used >= len)
        return;
    *used += (size_t)snprintf(buf + *used, len - *used, ", %s %ld.%ld.%ld", name, v / scale,
                              v % scale / 100, v % 100);
}

// The libraries slot: the driver's CUDA version, NVRTC's, cuBLAS's and cuDNN's (each loaded to
// ask it; one that is missing is left out).
void cuda_libraries(void *vctx, char *buf, size_t len)
{
    cuda_ctx *ctx = vctx;
    int driver = 0;
    ctx->cu->driver_get_version(&driver);
    size_t used = (size_t)snprintf(buf, len, "CUDA driver %d.%d", driver / 1000,
                                   driver % 1000 / 10);
    const xconv_nvrtc_api *nvrtc = xconv_nvrtc_load(NULL);
    int major = 0, minor = 0;
    if (nvrtc && nvrtc->version(&major, &minor) == NVRTC_SUCCESS && used < len)
        used += (size_t)snprintf(buf + used, len - used, ", NVRTC %d.%d", major, minor);
    const xconv_cublas_api *blas = xconv_cublas_load(NULL);
    int v[3] = {0, 0, 0};
    if (blas && blas->get_property && blas->get_property(MAJOR_VERSION, &v[0]) == 0 &&
        blas->get_property(MINOR_VERSION, &v[1]) == 0 &&
        blas->get_property(PATCH_LEVEL, &v[2]) == 0)
        append_version(buf, len, &used, "cuBLAS", (long)v[0] * 100000 + v[1] * 100 + v[2],
                       100000);
    const xconv_cudnn_api *dnn = xconv_cudnn_load(NULL);
    long dv = dnn ? (long)dnn->get_version() : 0;
    append_version(buf, len, &used, "cuDNN", dv, dv >= 90000 ? 10000 : 1000);
}

const char *xconv_cuda_find_choice(void *vctx, const xconv_problem *p)
{
    cuda_ctx *ctx = vctx;
    if (ctx)
        cuda_context_ready(ctx, NULL);
    return ctx && !ctx->lost ? xconv_cudnn_find_choice(ctx->dnn, p) : NULL;
}

const char *xconv_cuda_last_find_choice(void *vctx)
{
    cuda_ctx *ctx = vctx;
    if (ctx)
        cuda_context_ready(ctx, NULL);
    return ctx && !ctx->lost ? xconv_cudnn_last_find_choice(ctx->dnn) : NULL;
}

