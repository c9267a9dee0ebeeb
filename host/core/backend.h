// SPDX-License-Identifier: MIT
// The backend interface: one table of function pointers that each backend (OpenCL, CUDA) fills.
// Backends only build, free and launch; the core (host/) keeps the program cache, the buffer
// registry, the range checks and the compile-time accounting (internal header).
#ifndef XCONV_BACKEND_H
#define XCONV_BACKEND_H

#include <xconv/xconv.h>

#ifdef __cplusplus
extern "C" {
#endif

// The define of a program's options that caps the registers a work-item uses (program_build).
#define XCONV_REGISTER_CAP_NAME "XC_REGISTER_CAP"

// Opaque handles each backend defines for itself.
typedef struct xconv_backend_buffer xconv_backend_buffer;    // device memory (cl_mem, CUdeviceptr)
typedef struct xconv_backend_program xconv_backend_program;  // a built program/module

// ---------------------------------------------------------------------------------------------
// Kernel launches

typedef enum xconv_arg_kind {
    XCONV_ARG_BUFFER,   // a __global pointer: buf from byte `offset` (OpenCL: a sub-buffer, so
                        // offset must be a multiple of the device's base address alignment)
    XCONV_ARG_INT,      // an int: i
    XCONV_ARG_FLOAT,    // a float: f
    XCONV_ARG_CONSTANT, // a constant-memory buffer: `bytes` of buf from byte `offset`, and
                        // symbol. On OpenCL it is the __constant pointer argument (the bytes
                        // copied into a buffer of their own first when offset is not 0); on CUDA
                        // the backend copies the bytes into the module's __constant__ array named
                        // `symbol` before the launch and passes a null pointer for the argument
                        // (see common/xconv_dialect.h).
} xconv_arg_kind;

typedef struct xconv_arg {
    xconv_arg_kind kind;
    xconv_backend_buffer *buf;
    int32_t i;
    float f;
    size_t offset;
    size_t bytes;
    const char *symbol;
} xconv_arg;

#define XCONV_ARG_BUF(b) ((xconv_arg){.kind = XCONV_ARG_BUFFER, .buf = (b)})
#define XCONV_ARG_I32(v) ((xconv_arg){.kind = XCONV_ARG_INT, .i = (int32_t)(v)})
#define XCONV_ARG_F32(v) ((xconv_arg){.kind = XCONV_ARG_FLOAT, .f = (float)(v)})
#define XCONV_ARG_CONST(b, n, sym) \
    ((xconv_arg){.kind = XCONV_ARG_CONSTANT, .buf = (b), .bytes = (n), .symbol = (sym)})

#define XCONV_MAX_ARGS 16

// One launch: NDRange sizes in work-items (global is a multiple of local in each dimension).
typedef struct xconv_launch {
    const char *kernel;     // entry point name
    int dims;               // 1, 2 or 3
    size_t global[3];
    size_t local[3];
    const xconv_arg *args;
    int nargs;
} xconv_launch;

// ---------------------------------------------------------------------------------------------
// Vendor library calls (optional slots)

// C[b] = A[b] * B[b] for b < batch, all row-major, no transposes. A and B hold elements of
// dtype (an xconv_dtype), C fp32; math (an xconv_math) is the arithmetic allowed: both 0 is
// SGEMM with no reduced precision (no TF32). A slot that cannot run a pair refuses it with
// XCONV_ERR_NOT_APPLICABLE and the reason. Offsets and strides are in elements (of A's and B's
// type for A and B, floats for C); a stride of 0 reuses the same matrix.
typedef struct xconv_gemm_args {
    size_t m, n, k;
    xconv_backend_buffer *a; size_t a_offset, lda, a_stride;
    xconv_backend_buffer *b; size_t b_offset, ldb, b_stride;
    xconv_backend_buffer *c; size_t c_offset, ldc, c_stride;
    size_t batch;
    int64_t dtype, math;
} xconv_gemm_args;

// The buffers of a vendor convolution: x, w, y (the output from byte y_offset: a workspace
// region where the plan's epilogue steps follow), the bias (K floats, NULL when the problem adds
// none) and the workspace (NULL when none).
typedef struct xconv_vendor_conv_buffers {
    xconv_backend_buffer *x, *w, *y, *bias, *workspace;
    size_t y_offset;
} xconv_vendor_conv_buffers;

// ---------------------------------------------------------------------------------------------
// The table

// Every slot takes the context that `open` returned. Required slots are never NULL. The core
// checks ranges before it calls a buffer slot, and frees every buffer and program of a context
// before it closes it.
typedef struct xconv_backend_iface {
    xconv_backend_kind kind;

    // Lists up to `max` devices into infos and sets *count to the number present. Returns
    // XCONV_ERR_UNAVAILABLE with a reason (no platform installed, no driver) when none can be
    // listed; that is not fatal for the other backends.
    xconv_status (*enumerate)(xconv_device_info *infos, int max, int *count, xconv_error *err);

    // Optional: writes into buf lines of advice about what is installed but lists no device
    // ("platform 'rusticl' (Mesa's Rusticl) lists no device: ..."), "" when there is none. NULL
    // means the backend has no advice to give.
    void (*advice)(char *buf, size_t len);

    // Opens device `backend_index` and returns its context in *ctx.
    xconv_status (*open)(int backend_index, void **ctx, xconv_error *err);

    // Waits for the device and releases the context (its buffers and programs are freed first).
    void (*close)(void *ctx);

    // Allocates `bytes` of device memory; XCONV_ERR_OUT_OF_MEMORY past the device's limits.
    xconv_status (*buffer_alloc)(void *ctx, size_t bytes, xconv_backend_buffer **out,
                                 xconv_error *err);

    // Frees a buffer; NULL is ignored.
    void (*buffer_free)(void *ctx, xconv_backend_buffer *buf);

    // Blocking copies between host memory and a buffer, offsets in bytes.
    xconv_status (*buffer_write)(void *ctx, xconv_backend_buffer *buf, size_t offset,
                                 size_t bytes, const void *src, xconv_error *err);
    xconv_status (*buffer_read)(void *ctx, xconv_backend_buffer *buf, size_t offset, size_t bytes,
                                void *dst, xconv_error *err);

    // Fills `count` floats of buf from element 0 with `value` (NaN to poison an output).
    xconv_status (*buffer_fill)(void *ctx, xconv_backend_buffer *buf, size_t count, float value,
                                xconv_error *err);

    // Builds `source` (the dialect header is prepended by the backend) with `options`, a string
    // of "-DNAME=VALUE" defines. A define XCONV_REGISTER_CAP_NAME=N caps the registers a
    // work-item uses where the backend's compiler takes a cap, and is ignored elsewhere. No
    // cache: the core keeps one. A failed build returns
    // XCONV_ERR_BUILD with the start of the compiler's log in the message and, when log is not
    // NULL, the whole log in *log (malloc'd, the caller frees it; NULL when there is none).
    xconv_status (*program_build)(void *ctx, const char *source, const char *options,
                                  xconv_backend_program **out, char **log, xconv_error *err);

    // Optional: returns true when program_build (and program_load) may run on several threads
    // at once for this context, while no launch is enqueued. NULL: builds run one at a time on
    // the thread that uses the context.
    bool (*builds_concurrently)(void *ctx);

    // Frees a program and every kernel object made from it; NULL is ignored.
    void (*program_free)(void *ctx, xconv_backend_program *prog);

    // Optional: copies what the driver would need to remake prog without compiling (an OpenCL
    // program binary, a CUBIN or PTX) into a new malloc'd *data of *len bytes, for the core's
    // compiled-kernel cache on disk. NULL means this backend's programs are not kept on disk.
    xconv_status (*program_binary)(void *ctx, xconv_backend_program *prog, void **data,
                                   size_t *len, xconv_error *err);

    // Optional with program_binary: makes a program from bytes program_binary gave for a build
    // with the same options. Returns XCONV_ERR_BUILD when the driver refuses them (the core then
    // builds from source and replaces them).
    xconv_status (*program_load)(void *ctx, const void *data, size_t len, const char *options,
                                 xconv_backend_program **out, xconv_error *err);

    // Optional: writes what names the compiler beyond the device's driver version (CUDA:
    // NVRTC's version) into buf, for the keys of stored binaries. NULL: the driver's says all.
    void (*compiler_id)(void *ctx, char *buf, size_t len);

    // Enqueues one launch of a kernel of a built program (asynchronous).
    xconv_status (*launch)(void *ctx, xconv_backend_program *prog, const xconv_launch *launch,
                           xconv_error *err);

    // Marks the start of a timed region in the device's queue.
    xconv_status (*timer_start)(void *ctx, xconv_error *err);

    // Marks its end, waits for the device, and returns the device time between the marks in ms
    // (device events, not a host clock).
    xconv_status (*timer_stop)(void *ctx, double *ms, xconv_error *err);

    // Optional: how timer_start marks a region's start from now on (mode: an
    // xconv_timing_delay). NULL: the backend has one way only.
    void (*timer_delay)(void *ctx, int mode);

    // Waits until everything enqueued has finished.
    xconv_status (*finish)(void *ctx, xconv_error *err);

    // Any slot returns XCONV_ERR_DEVICE_LOST when the device's context is broken for good (a
    // kernel's fault: CUDA's sticky errors, OpenCL's lost device). The core then frees every
    // buffer and program of the context through buffer_free and program_free (which must
    // tolerate the broken context) and calls reset.

    // Optional: rebuilds a context after XCONV_ERR_DEVICE_LOST (its queue or stream, timers and
    // vendor handles), on the same device. Returns XCONV_OK, or the failure when the device
    // cannot be used again (the core tries again before the next call). NULL: a lost context
    // stays lost.
    xconv_status (*reset)(void *ctx, xconv_error *err);

    // Optional: fills the context's native handles (xconv/native.h; backend set by the core).
    // NULL: the backend gives none (xconv_device_native answers XCONV_ERR_UNAVAILABLE).
    void (*native)(void *ctx, xconv_native_device *out);

    // Optional with native: fills a buffer's native handle.
    void (*buffer_native)(void *ctx, const xconv_backend_buffer *buf, xconv_native_buffer *out);

    // Optional: writes the versions of the software under the backend ("OpenCL 3.0 PoCL 3.1,
    // CLBlast 1.5.3"; "CUDA driver 12.8, NVRTC 12.9, cuBLAS 12.9.1, cuDNN 9.19.0") into buf,
    // loading the vendor libraries to ask them. NULL: nothing to say.
    void (*libraries)(void *ctx, char *buf, size_t len);

    // Optional: the vendor BLAS (CLBlast, cuBLAS). NULL means the backend has none.
    xconv_status (*sgemm)(void *ctx, const xconv_gemm_args *args, xconv_error *err);

    // Optional: a vendor convolution named `algo` ("clblast_convgemm", "cudnn_fft", ...).
    // NULL means the backend has none. Returns true when it can run problem p, else false with a
    // reason; *workspace_bytes gets the scratch memory it needs. Only algorithms that apply an
    // epilogue themselves ("cudnn_fused_bias_act_pool") take problems with one.
    bool (*vendor_conv_supports)(void *ctx, const char *algo, const xconv_problem *p,
                                 size_t *workspace_bytes, char *reason, size_t reason_len);

    // Optional with vendor_conv_supports: runs vendor convolution `algo` y = conv(x, w) (and its
    // epilogue, for the algorithms that apply one) on the buffers b, with a workspace of at least
    // the bytes vendor_conv_supports asked for.
    xconv_status (*vendor_conv)(void *ctx, const char *algo, const xconv_problem *p,
                                const xconv_vendor_conv_buffers *b, xconv_error *err);
} xconv_backend_iface;

// Returns the table of a backend, or NULL when it was not built in.
const xconv_backend_iface *xconv_backend_get(xconv_backend_kind kind);

// The option every xconv kernel is built with through OpenCL, after its defines.
#define XCONV_OPENCL_BUILD_OPTIONS "-cl-std=CL1.2"

// Returns the embedded text of common/xconv_dialect.h, which backends prepend to every source.
const char *xconv_kernel_dialect(void);

// The registration functions of the backends (defined in cl/ and cuda/).
const xconv_backend_iface *xconv_backend_opencl(void);
const xconv_backend_iface *xconv_backend_cuda(void);

#ifdef __cplusplus
}
#endif

#endif // XCONV_BACKEND_H
