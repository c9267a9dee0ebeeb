// SPDX-License-Identifier: MIT
// The CUDA backend's context: the device's primary context, its stream, the timer's events and
// the cuDNN state, made on a thread of their own while the caller goes on. The driver's start of
// a context takes a few tenths of a second; what comes before a program's first load (planning,
// NVRTC's compile, which needs only the device's description) runs beside it. Every use of the
// context waits for that thread first (cuda_context_ready), and closing joins it.
#include <pthread.h>

#include "cuda_internal.h"

// Retains the device's primary context, makes it current and creates the stream, the timer's
// events and the cuDNN state in ctx. Returns XCONV_OK or the first failure.
static xconv_status retain_context(cuda_ctx *ctx, xconv_error *err)
{
    const xconv_cu_api *cu = ctx->cu;
    CU_TRY(cu->device_primary_ctx_retain(&ctx->pctx, ctx->dev), "cuDevicePrimaryCtxRetain");
    ctx->retained = true;
    CU_TRY(cu->ctx_set_current(ctx->pctx), "cuCtxSetCurrent");
    CU_TRY(cu->stream_create(&ctx->stream, CU_STREAM_DEFAULT), "cuStreamCreate");
    CU_TRY(cu->event_create(&ctx->start, CU_EVENT_DEFAULT), "cuEventCreate");
    CU_TRY(cu->event_create(&ctx->stop, CU_EVENT_DEFAULT), "cuEventCreate");
    if (!(ctx->dnn = xconv_cudnn_create(ctx->stream, ctx->info.cc_major)))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the cuDNN state");
    return XCONV_OK;
}

// The opener thread: it alone writes the context's handles and open_status until joined.
static void *opener_main(void *arg)
{
    cuda_ctx *ctx = arg;
    ctx->open_status = retain_context(ctx, &ctx->open_err);
    return NULL;
}

xconv_status cuda_context_start(cuda_ctx *ctx, xconv_error *err)
{
    if (pthread_create(&ctx->opener, NULL, opener_main, ctx) == 0) {
        ctx->opening = true;
        return XCONV_OK;
    }
    // No thread to be had: the context is made now, the caller waiting, as before threads.
    ctx->open_status = retain_context(ctx, &ctx->open_err);
    if (ctx->open_status != XCONV_OK)
        xconv_error_set(err, ctx->open_status, "%s", ctx->open_err.msg);
    return ctx->open_status;
}

xconv_status cuda_context_ready(cuda_ctx *ctx, xconv_error *err)
{
    // Slots may be called from several threads (builds ahead): the first one joins the opener,
    // the others wait for it on the lock; the join orders the opener's writes before all reads.
    pthread_mutex_lock(&ctx->open_lock);
    if (ctx->opening) {
        pthread_join(ctx->opener, NULL);
        ctx->opening = false;
    }
    pthread_mutex_unlock(&ctx->open_lock);
    if (ctx->open_status == XCONV_OK)
        return XCONV_OK;
    return xconv_error_set(err, ctx->open_status, "opening CUDA device %d: %s",
                           ctx->info.backend_index, ctx->open_err.msg);
}

xconv_status cuda_make_current(cuda_ctx *ctx, xconv_error *err)
{
    xconv_status st = cuda_context_ready(ctx, err);
    if (st != XCONV_OK)
        return st;
    if (ctx->lost || !ctx->pctx)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, LOST_MESSAGE);
    CU_TRY(ctx->cu->ctx_set_current(ctx->pctx), "cuCtxSetCurrent");
    return XCONV_OK;
}

void cuda_context_release(cuda_ctx *ctx, bool wait)
{
    cuda_context_ready(ctx, NULL);  // a context still being made is waited for, then released
    cuda_timer_release(ctx);
    const xconv_cu_api *cu = ctx->cu;
    if (ctx->retained && !ctx->lost && cu->ctx_set_current(ctx->pctx) == CUDA_SUCCESS) {
        if (ctx->stream && wait)
            cu->stream_synchronize(ctx->stream);
        xconv_cudnn_destroy(ctx->dnn);
        if (ctx->blas)
            ctx->blas_api->destroy(ctx->blas);
        if (ctx->start)
            cu->event_destroy(ctx->start);
        if (ctx->stop)
            cu->event_destroy(ctx->stop);
        if (ctx->stream)
            cu->stream_destroy(ctx->stream);
    }
    if (ctx->retained)
        cu->device_primary_ctx_release(ctx->dev);
    ctx->dnn = NULL;
    ctx->blas = NULL;
    ctx->start = ctx->stop = NULL;
    ctx->stream = NULL;
    ctx->pctx = NULL;
    ctx->retained = false;
    ctx->timing = false;
}
