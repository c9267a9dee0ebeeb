// SPDX-License-Identifier: MIT
// The CUDA backend's internals shared by its files: backend_cuda.c (devices, buffers, launches,
// waiting), cuda_context.c (the context, made on a thread of its own), cuda_programs.c (NVRTC
// builds and modules), cuda_timer.c (timed regions) and cuda_libraries.c (cuBLAS, the cuDNN
// rows, versions).
#ifndef XCONV_CUDA_INTERNAL_H
#define XCONV_CUDA_INTERNAL_H

#include <pthread.h>

#include "../host/core/backend.h"
#include "cuda_loader.h"
#include "cudnn_conv.h"

struct xconv_backend_buffer {
    CUdeviceptr ptr;
    size_t bytes;
};

// A kernel entry point looked up once per module, with its parameters' sizes when the driver
// can tell them (nparams < 0: unknown).
typedef struct cuda_function {
    char name[128];
    CUfunction fn;
    int nparams;
    size_t param_bytes[XCONV_MAX_ARGS];
    struct cuda_function *next;
} cuda_function;

struct xconv_backend_program {
    CUmodule module;
    cuda_function *functions;
    char *image;        // what the module was loaded from (CUBIN, or PTX with its NUL), for
    size_t image_len;   // the compiled-kernel cache; NULL for a module loaded from it
};

typedef struct cuda_ctx {
    const xconv_cu_api *cu;
    CUdevice dev;
    // The context is made by the opener thread (cuda_context_start); until it is joined only
    // that thread touches the fields from pctx to dnn and open_status, open_err. Every use of
    // them goes through cuda_context_ready (cuda_make_current calls it).
    pthread_t opener;
    bool opening;              // the opener was started and not joined yet
    pthread_mutex_t open_lock; // guards the join
    xconv_status open_status;  // how making the context went
    xconv_error open_err;      // why it failed
    CUcontext pctx;            // the device's primary context, shared with cuBLAS and cuDNN
    bool retained;
    CUstream stream;
    CUevent start, stop;       // the timer's marks
    bool timing;               // start was recorded and stop not yet
    xconv_backend_program *delay_prog;  // the timer's delay kernel (cuda_timer.c), built on the
    CUfunction delay_fn;                // first timer_start
    bool delay_failed;         // it could not be built: regions start without it
    bool delay_off;            // XCONV_TIMING_DELAY_OFF: regions start without it
    bool delayed;              // the region now open started after the delay
    double delay_ns;           // how long the delay lasts (doubled when the host outlasts it)
    double region_host_start_ns;  // the host's clock just before the open region's delay
    bool lost;                 // a sticky error broke the context for good (see cuda_reset):
                               // no slot calls the driver on it again but close
    xconv_device_info info;
    const xconv_cublas_api *blas_api;
    cublasHandle_t blas;       // made on the first sgemm
    xconv_cudnn *dnn;
} cuda_ctx;

// Whether r is one of the driver's sticky errors: a kernel faulted, and the context cannot be
// used again (every later call fails the same way) until it is destroyed and made anew.
bool cuda_sticky(CUresult r);

// Fills err for a failed driver call: XCONV_ERR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY,
// XCONV_ERR_DEVICE_LOST for a sticky error, else `status`, with "what: CUDA_ERROR_NAME
// (description)". Returns the status set.
xconv_status cuda_fail(xconv_error *err, xconv_status status, CUresult r, const char *what);

// Returns from the calling function with XCONV_ERR_DEVICE when a driver call fails.
#define CU_TRY(call, what)                                                     \
    do {                                                                       \
        CUresult try_r_ = (call);                                              \
        if (try_r_ != CUDA_SUCCESS)                                            \
            return cuda_fail(err, XCONV_ERR_DEVICE, try_r_, (what));           \
    } while (0)

// What every call on a context lost at a sticky error says.
#define LOST_MESSAGE "the CUDA context cannot be recovered in this process after a sticky error"

// Starts making the context of ctx->dev (primary context, stream, events, cuDNN state) on a
// thread of its own and returns; where no thread can be started, makes it now and returns how
// that went. ctx->open_lock must be initialised and ctx->info filled.
xconv_status cuda_context_start(cuda_ctx *ctx, xconv_error *err);

// Waits until the context is made. Returns XCONV_OK, or the failure of making it ("opening CUDA
// device N: cuDevicePrimaryCtxRetain: ...") on every call. Safe from any thread.
xconv_status cuda_context_ready(cuda_ctx *ctx, xconv_error *err);

// Waits for the context, then frees what making it made (cuDNN and cuBLAS handles, events,
// stream) and releases the primary context; `wait` first waits for the stream. On a context
// lost for good nothing is asked of the broken context: the vendor handles are left to the
// process's end (destroying them would call into it), and the primary context is released.
void cuda_context_release(cuda_ctx *ctx, bool wait);

// Waits for the context and makes it current on the calling thread (every slot starts with
// this). Returns XCONV_ERR_DEVICE_LOST without a driver call when the context was lost for good.
xconv_status cuda_make_current(cuda_ctx *ctx, xconv_error *err);

// Returns from the calling function (which has an xconv_error *err) when ctx cannot be made
// current.
#define CU_CURRENT(ctx)                                                        \
    do {                                                                       \
        xconv_status current_st_ = cuda_make_current((ctx), err);              \
        if (current_st_ != XCONV_OK)                                           \
            return current_st_;                                                \
    } while (0)

// After a vendor library call failed with status st (cuBLAS and cuDNN report a kernel's fault
// as a failed execution): returns XCONV_ERR_DEVICE_LOST when the stream now holds a sticky
// error, with the driver's word added to err, else st.
xconv_status cuda_vendor_failure(cuda_ctx *ctx, xconv_status st, xconv_error *err);

// The program slots of the backend's table (cuda_programs.c).
xconv_status cuda_program_build(void *vctx, const char *source, const char *options,
                                xconv_backend_program **out, char **log,
                                xconv_error *err);
bool cuda_builds_concurrently(void *vctx);
xconv_status cuda_program_binary(void *vctx, xconv_backend_program *prog, void **data,
                                 size_t *len, xconv_error *err);
xconv_status cuda_program_load(void *vctx, const void *data, size_t len,
                               const char *options, xconv_backend_program **out,
                               xconv_error *err);
void cuda_compiler_id(void *vctx, char *buf, size_t len);
void cuda_program_free(void *vctx, xconv_backend_program *prog);

// The launch slot (cuda_programs.c): launches function l->kernel of prog with l's arguments and
// geometry on the context's stream; returns XCONV_OK, XCONV_ERR_INVALID or XCONV_ERR_NOT_FOUND
// naming what is wrong, or the driver's failure.
xconv_status cuda_launch(void *vctx, xconv_backend_program *prog, const xconv_launch *l,
                         xconv_error *err);

// How long the timer's delay lasts at first, and at most (cuda_timer.c).
#define XCONV_CUDA_DELAY_NS 100000.0
#define XCONV_CUDA_DELAY_MAX_NS 1600000.0

// The timer slots (cuda_timer.c): timer_start, timer_stop and timer_delay (mode: an
// xconv_timing_delay). cuda_timer_release frees the delay kernel (before the context goes).
xconv_status cuda_timer_start(void *vctx, xconv_error *err);
xconv_status cuda_timer_stop(void *vctx, double *ms, xconv_error *err);
void cuda_timer_mode(void *vctx, int mode);
void cuda_timer_release(cuda_ctx *ctx);

// The library slots of the backend's table (cuda_libraries.c).
xconv_status cuda_sgemm(void *vctx, const xconv_gemm_args *g, xconv_error *err);
bool cuda_vendor_conv_supports(void *vctx, const char *algo, const xconv_problem *p,
                               size_t *workspace_bytes, char *reason, size_t reason_len);
xconv_status cuda_vendor_conv(void *vctx, const char *algo, const xconv_problem *p,
                              const xconv_vendor_conv_buffers *b, xconv_error *err);
void cuda_libraries(void *vctx, char *buf, size_t len);

#endif // XCONV_CUDA_INTERNAL_H
