// SPDX-License-Identifier: MIT
// The CUDA backend: the driver API loaded at run time, the device's primary context and one
// stream, NVRTC-built modules, cuBLAS SGEMM and the cuDNN rows.
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/backend.h"
#include "cuda_loader.h"
#include "cudnn_conv.h"
#include "nvrtc_compile.h"

// ---------------------------------------------------------------------------------------------
// Types

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
    CUcontext pctx;            // the device's primary context, shared with cuBLAS and cuDNN
    bool retained;
    CUstream stream;
    CUevent start, stop;       // the timer's marks
    bool timing;               // start was recorded and stop not yet
    bool lost;                 // a sticky error broke the context for good (see cuda_reset):
                               // no slot calls the driver on it again but close
    xconv_device_info info;
    const xconv_cublas_api *blas_api;
    cublasHandle_t blas;       // made on the first sgemm
    xconv_cudnn *dnn;
} cuda_ctx;

// ---------------------------------------------------------------------------------------------
// Helpers

// Whether r is one of the driver's sticky errors: a kernel faulted, and the context cannot be
// used again (every later call fails the same way) until it is destroyed and made anew.
static bool sticky(CUresult r)
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
static xconv_status cu_fail(xconv_error *err, xconv_status status, CUresult r, const char *what)
{
    const char *text = NULL;
    const xconv_cu_api *cu = xconv_cu_load(NULL);
    if (!cu || cu->get_error_string(r, &text) != CUDA_SUCCESS)
        text = NULL;
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        status = XCONV_ERR_OUT_OF_MEMORY;
    if (sticky(r))
        status = XCONV_ERR_DEVICE_LOST;
    return xconv_error_set(err, status, "%s: %s%s%s%s", what, xconv_cu_result_name(r),
                           text ? " (" : "", text ? text : "", text ? ")" : "");
}

// Returns from the calling function with XCONV_ERR_DEVICE when a driver call fails.
#define CU_TRY(call, what)                                                     \
    do {                                                                       \
        CUresult try_r_ = (call);                                              \
        if (try_r_ != CUDA_SUCCESS)                                            \
            return cu_fail(err, XCONV_ERR_DEVICE, try_r_, (what));             \
    } while (0)

// What every call on a context lost at a sticky error says.
#define LOST_MESSAGE "the CUDA context cannot be recovered in this process after a sticky error"

// Makes the context current on the calling thread (every slot starts with this). Returns
// XCONV_ERR_DEVICE_LOST without a driver call when the context was lost for good.
static xconv_status make_current(cuda_ctx *ctx, xconv_error *err)
{
    if (ctx->lost || !ctx->pctx)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, LOST_MESSAGE);
    CU_TRY(ctx->cu->ctx_set_current(ctx->pctx), "cuCtxSetCurrent");
    return XCONV_OK;
}

// After a vendor library call failed with status st (cuBLAS and cuDNN report a kernel's fault
// as a failed execution): returns XCONV_ERR_DEVICE_LOST when the stream now holds a sticky
// error, with the driver's word added to err, else st.
static xconv_status vendor_failure(cuda_ctx *ctx, xconv_status st, xconv_error *err)
{
    if (st == XCONV_OK || st == XCONV_ERR_DEVICE_LOST || ctx->lost || !ctx->stream)
        return st;
    CUresult r = ctx->cu->stream_synchronize(ctx->stream);
    if (!sticky(r))
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
        cu_fail(err, XCONV_ERR_UNAVAILABLE, r, "cuInit failed");
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
        return cu_fail(err, XCONV_ERR_UNAVAILABLE, r, "cuDeviceGetCount");
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
    if (!(ctx->dnn = xconv_cudnn_create(ctx->stream)))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the cuDNN state");
    return XCONV_OK;
}

// Frees what retain_context made (cuDNN and cuBLAS handles, events, stream) and releases the
// primary context; `wait` first waits for the stream. On a context lost for good nothing is
// asked of the broken context: the vendor handles are left to the process's end (destroying
// them would call into it), and the primary context is released.
static void release_context(cuda_ctx *ctx, bool wait)
{
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

// Describes device `index` into ctx->info and opens its context. Returns XCONV_OK or the first
// failure.
static xconv_status open_context(cuda_ctx *ctx, int index, xconv_error *err)
{
    const xconv_cu_api *cu = ctx->cu;
    xconv_status st = describe_device(cu, index, &ctx->info, err);
    if (st != XCONV_OK)
        return st;
    CU_TRY(cu->device_get(&ctx->dev, index), "cuDeviceGet");
    return retain_context(ctx, err);
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
    release_context(ctx, true);
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
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    xconv_backend_buffer *buf = calloc(1, sizeof *buf);
    if (!buf)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for a buffer");
    CUresult r = ctx->cu->mem_alloc(&buf->ptr, bytes ? bytes : 4);  // CUDA refuses 0 bytes
    if (r != CUDA_SUCCESS) {
        free(buf);
        cu_fail(err, XCONV_ERR_OUT_OF_MEMORY, r, "cuMemAlloc");
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
    if (!ctx->lost && ctx->pctx && ctx->cu->ctx_set_current(ctx->pctx) == CUDA_SUCCESS) {
        ctx->cu->stream_synchronize(ctx->stream);  // work still using it may be queued
        ctx->cu->mem_free(buf->ptr);
    }
    free(buf);
}

// Returns XCONV_ERR_INVALID unless [offset, offset + bytes) lies inside buf.
static xconv_status check_range(const xconv_backend_buffer *buf, size_t offset, size_t bytes,
                                const char *what, xconv_error *err)
{
    if (!buf || offset > buf->bytes || bytes > buf->bytes - offset)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "%s of %zu bytes at offset %zu passes the buffer's %zu bytes", what,
                               bytes, offset, buf ? buf->bytes : 0);
    return XCONV_OK;
}

static xconv_status cuda_buffer_write(void *vctx, xconv_backend_buffer *buf, size_t offset,
                                      size_t bytes, const void *src, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    if (bytes == 0)
        return XCONV_OK;
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
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
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
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
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    unsigned int bits;
    memcpy(&bits, &value, sizeof bits);
    CU_TRY(ctx->cu->memset_d32_async(buf->ptr, bits, count, ctx->stream), "cuMemsetD32Async");
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Programs

// Loads a compiled image into a module; the driver JIT-compiles PTX. Returns XCONV_ERR_BUILD with
// the JIT log on failure.
static xconv_status load_module(cuda_ctx *ctx, const xconv_nvrtc_image *img, CUmodule *module,
                                xconv_error *err)
{
    char log[8192] = "";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = ctx->cu->module_load_data_ex(module, img->data, 2, opts, values);
    if (r != CUDA_SUCCESS) {
        *module = NULL;
        cu_fail(err, XCONV_ERR_BUILD, r, "cuModuleLoadDataEx");
        return xconv_error_prefix(err, "loading the %s %s%s%s", img->arch,
                                  img->is_cubin ? "CUBIN" : "PTX", log[0] ? "\n" : "", log);
    }
    return XCONV_OK;
}

static xconv_status cuda_program_build(void *vctx, const char *source, const char *options,
                                       xconv_backend_program **out, char **log,
                                       xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    options = options ? options : "";
    *out = NULL;
    if (log)
        *log = NULL;
    xconv_nvrtc_image img;
    xconv_status st = xconv_nvrtc_compile(source, options, ctx->info.cc_major,
                                          ctx->info.cc_minor, true, &img, err);
    if (st != XCONV_OK) {
        if (log) {  // the whole log of a failed build, which the message only begins
            *log = img.log;
            img.log = NULL;
        }
        xconv_nvrtc_image_free(&img);
        return st;
    }
    CUmodule module = NULL;
    st = make_current(ctx, err);
    if (st == XCONV_OK)
        st = load_module(ctx, &img, &module, err);
    xconv_backend_program *prog = st == XCONV_OK ? calloc(1, sizeof *prog) : NULL;
    if (st == XCONV_OK && !prog) {
        ctx->cu->module_unload(module);
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a program");
    }
    if (st != XCONV_OK) {
        xconv_nvrtc_image_free(&img);
        return st;
    }
    prog->module = module;
    // The image stays with the program for program_binary: a CUBIN as it is, PTX with the NUL
    // the driver needs to load it again.
    prog->image_len = img.is_cubin ? img.len : img.len + 1;
    prog->image = img.data;
    if (img.data != img.ptx)
        free(img.ptx);
    *out = prog;
    return XCONV_OK;
}

// NVRTC compiles independent programs on any thread, and each module load makes the context
// current on its own thread.
static bool cuda_builds_concurrently(void *vctx)
{
    (void)vctx;
    return true;
}

// A copy of the image the program was loaded from.
static xconv_status cuda_program_binary(void *vctx, xconv_backend_program *prog, void **data,
                                        size_t *len, xconv_error *err)
{
    (void)vctx;
    *data = NULL;
    *len = 0;
    if (!prog->image)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "the program keeps no image");
    *data = malloc(prog->image_len);
    if (!*data)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for an image");
    memcpy(*data, prog->image, prog->image_len);
    *len = prog->image_len;
    return XCONV_OK;
}

// Loads a stored image (a CUBIN, or PTX ending in its NUL) into a module; the options were part
// of its compilation, so they are not needed again.
static xconv_status cuda_program_load(void *vctx, const void *data, size_t len,
                                      const char *options, xconv_backend_program **out,
                                      xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    (void)options;
    *out = NULL;
    bool cubin = len >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0;
    if (!cubin && (len == 0 || ((const char *)data)[len - 1] != '\0'))
        return xconv_error_set(err, XCONV_ERR_BUILD, "a stored image is neither CUBIN nor PTX");
    xconv_nvrtc_image img = {.data = (char *)data, .len = len, .is_cubin = cubin};
    snprintf(img.arch, sizeof img.arch, "stored");
    CUmodule module = NULL;
    xconv_status st = make_current(ctx, err);
    if (st == XCONV_OK)
        st = load_module(ctx, &img, &module, err);
    if (st != XCONV_OK)
        return st;
    xconv_backend_program *prog = calloc(1, sizeof *prog);
    if (!prog) {
        ctx->cu->module_unload(module);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a program");
    }
    prog->module = module;
    *out = prog;
    return XCONV_OK;
}

// NVRTC's version and library and the flags every kernel gets, for the keys of stored images.
static void cuda_compiler_id(void *vctx, char *buf, size_t len)
{
    (void)vctx;
    xconv_nvrtc_compiler_id(buf, len);
}

static void cuda_program_free(void *vctx, xconv_backend_program *prog)
{
    cuda_ctx *ctx = vctx;
    if (!prog)
        return;
    while (prog->functions) {
        cuda_function *f = prog->functions;
        prog->functions = f->next;
        free(f);
    }
    if (prog->module && !ctx->lost && ctx->pctx &&
        ctx->cu->ctx_set_current(ctx->pctx) == CUDA_SUCCESS)
        ctx->cu->module_unload(prog->module);
    free(prog->image);
    free(prog);
}

// ---------------------------------------------------------------------------------------------
// Launches

// Writes ", kernels in the module: a, b" into buf when the driver can list them.
static void list_kernels(const cuda_ctx *ctx, const xconv_backend_program *prog, char *buf,
                         size_t len)
{
    const xconv_cu_api *cu = ctx->cu;
    unsigned int count = 0;
    buf[0] = '\0';
    if (!cu->module_get_function_count || !cu->module_enumerate_functions || !cu->func_get_name ||
        cu->module_get_function_count(&count, prog->module) != CUDA_SUCCESS || count == 0)
        return;
    CUfunction fns[64];
    count = count < 64 ? count : 64;
    if (cu->module_enumerate_functions(fns, count, prog->module) != CUDA_SUCCESS)
        return;
    size_t used = (size_t)snprintf(buf, len, "; kernels in the module:");
    for (unsigned int i = 0; i < count && used < len; i++) {
        const char *name = NULL;
        if (cu->func_get_name(&name, fns[i]) == CUDA_SUCCESS && name)
            used += (size_t)snprintf(buf + used, len - used, " %s", name);
    }
}

// Reads the sizes of fn's parameters into f (nparams -1 when the driver cannot tell).
static void read_params(const cuda_ctx *ctx, cuda_function *f)
{
    f->nparams = -1;
    if (!ctx->cu->func_get_param_info)
        return;
    int n = 0;
    size_t offset = 0, bytes = 0;
    CUresult r;
    while ((r = ctx->cu->func_get_param_info(f->fn, (size_t)n, &offset, &bytes)) ==
           CUDA_SUCCESS && n <= XCONV_MAX_ARGS) {
        if (n < XCONV_MAX_ARGS)
            f->param_bytes[n] = bytes;
        n++;
    }
    // CUDA_ERROR_INVALID_VALUE marks the index past the last parameter; anything else means
    // the driver cannot tell, and the arguments go unchecked.
    f->nparams = r == CUDA_ERROR_INVALID_VALUE ? n : -1;
}

// Returns the function `name` of prog (looked up once), or NULL with XCONV_ERR_NOT_FOUND naming
// the kernels the module has.
static cuda_function *program_function(cuda_ctx *ctx, xconv_backend_program *prog,
                                       const char *name, xconv_error *err)
{
    for (cuda_function *f = prog->functions; f; f = f->next)
        if (strcmp(f->name, name) == 0)
            return f;
    cuda_function *f = calloc(1, sizeof *f);
    if (!f || strlen(name) >= sizeof f->name) {
        free(f);
        xconv_error_set(err, XCONV_ERR_INVALID, "kernel name '%s' is too long or no memory",
                        name);
        return NULL;
    }
    CUresult r = ctx->cu->module_get_function(&f->fn, prog->module, name);
    if (r != CUDA_SUCCESS) {
        free(f);
        char kernels[1024];
        list_kernels(ctx, prog, kernels, sizeof kernels);
        xconv_error_set(err, XCONV_ERR_NOT_FOUND, "no kernel '%s' (cuModuleGetFunction: %s)%s",
                        name, xconv_cu_result_name(r), kernels);
        return NULL;
    }
    snprintf(f->name, sizeof f->name, "%s", name);
    read_params(ctx, f);
    f->next = prog->functions;
    prog->functions = f;
    return f;
}

// Checks the arguments' count and sizes against the kernel's parameters when they are known.
static xconv_status check_args(const cuda_function *f, const xconv_launch *l, xconv_error *err)
{
    if (f->nparams < 0)
        return XCONV_OK;
    if (f->nparams != l->nargs)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s takes %d arguments, %d given",
                               l->kernel, f->nparams, l->nargs);
    for (int i = 0; i < l->nargs; i++) {
        bool pointer = l->args[i].kind == XCONV_ARG_BUFFER ||
                       l->args[i].kind == XCONV_ARG_CONSTANT;
        size_t want = pointer ? sizeof(CUdeviceptr) : 4;
        if (f->param_bytes[i] != want)
            return xconv_error_set(err, XCONV_ERR_INVALID,
                                   "%s: argument %d is a %s of %zu bytes; the parameter has %zu",
                                   l->kernel, i, pointer ? "pointer" : "scalar", want,
                                   f->param_bytes[i]);
    }
    return XCONV_OK;
}

// Computes the grid and block of a launch into grid[3] and block[3], checking the device's
// limits. Returns XCONV_OK or XCONV_ERR_INVALID naming the broken rule.
static xconv_status launch_geometry(const cuda_ctx *ctx, const xconv_launch *l,
                                    unsigned int grid[3], unsigned int block[3],
                                    xconv_error *err)
{
    static const size_t grid_max[3] = {2147483647u, 65535u, 65535u};
    if (l->dims < 1 || l->dims > 3)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: %d dimensions", l->kernel, l->dims);
    size_t threads = 1;
    for (int d = 0; d < 3; d++) {
        size_t g = d < l->dims ? l->global[d] : 1, b = d < l->dims ? l->local[d] : 1;
        if (b == 0 || g % b != 0)
            return xconv_error_set(err, XCONV_ERR_INVALID,
                                   "%s: global size %zu is not a multiple of local size %zu in "
                                   "dimension %d", l->kernel, g, b, d);
        if (b > ctx->info.max_work_item_sizes[d] || g / b > grid_max[d])
            return xconv_error_set(err, XCONV_ERR_INVALID,
                                   "%s: %zu blocks of %zu threads in dimension %d pass the "
                                   "device's limits (%zu blocks, %zu threads)", l->kernel,
                                   g / b, b, d, grid_max[d], ctx->info.max_work_item_sizes[d]);
        threads *= b;
        grid[d] = (unsigned int)(g / b);
        block[d] = (unsigned int)b;
    }
    if (threads > ctx->info.max_work_group_size)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "%s: a block of %zu threads passes the device's %zu", l->kernel,
                               threads, ctx->info.max_work_group_size);
    return XCONV_OK;
}

// Copies a constant argument into its module's __constant__ symbol on the stream.
static xconv_status upload_constant(cuda_ctx *ctx, xconv_backend_program *prog,
                                    const xconv_launch *l, int i, xconv_error *err)
{
    const xconv_arg *a = &l->args[i];
    if (!a->symbol || !a->buf)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "%s: constant argument %d needs a buffer and a symbol", l->kernel,
                               i);
    CUdeviceptr sym = 0;
    size_t sym_bytes = 0;
    CUresult r = ctx->cu->module_get_global(&sym, &sym_bytes, prog->module, a->symbol);
    if (r != CUDA_SUCCESS) {
        cu_fail(err, XCONV_ERR_INVALID, r, "cuModuleGetGlobal");
        return xconv_error_prefix(err, "%s: constant argument %d: no __constant__ symbol '%s' in "
                                  "the module (declare it with XC_CONSTANT_ARRAY and read it)",
                                  l->kernel, i, a->symbol);
    }
    if (a->bytes > sym_bytes)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "%s: constant argument %d: %zu bytes do not fit __constant__ %s "
                               "of %zu bytes", l->kernel, i, a->bytes, a->symbol, sym_bytes);
    xconv_status st = check_range(a->buf, a->offset, a->bytes, "constant copy", err);
    if (st != XCONV_OK || a->bytes == 0)
        return st;
    CU_TRY(ctx->cu->memcpy_dtod_async(sym, a->buf->ptr + a->offset, a->bytes, ctx->stream),
           "cuMemcpyDtoDAsync into a __constant__ symbol");
    return XCONV_OK;
}

static xconv_status cuda_launch(void *vctx, xconv_backend_program *prog, const xconv_launch *l,
                                xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    if (l->nargs < 0 || l->nargs > XCONV_MAX_ARGS || (l->nargs > 0 && !l->args))
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: %d arguments", l->kernel, l->nargs);
    unsigned int grid[3], block[3];
    xconv_status st = launch_geometry(ctx, l, grid, block, err);
    if (st == XCONV_OK)
        st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    const cuda_function *f = program_function(ctx, prog, l->kernel, err);
    if (!f)
        return err ? err->status : XCONV_ERR_NOT_FOUND;
    st = check_args(f, l, err);
    if (st != XCONV_OK)
        return st;
    union {
        CUdeviceptr ptr;
        int32_t i;
        float f;
    } values[XCONV_MAX_ARGS];
    void *params[XCONV_MAX_ARGS];
    memset(values, 0, sizeof values);
    for (int i = 0; i < XCONV_MAX_ARGS; i++)
        params[i] = &values[i];  // zeros past nargs when the driver cannot count parameters
    for (int i = 0; i < l->nargs; i++) {
        const xconv_arg *a = &l->args[i];
        switch (a->kind) {
        case XCONV_ARG_BUFFER: values[i].ptr = a->buf ? a->buf->ptr + a->offset : 0; break;
        case XCONV_ARG_INT: values[i].i = a->i; break;
        case XCONV_ARG_FLOAT: values[i].f = a->f; break;
        case XCONV_ARG_CONSTANT:
            st = upload_constant(ctx, prog, l, i, err);
            if (st != XCONV_OK)
                return st;
            values[i].ptr = 0;  // the dialect's unused pointer parameter
            break;
        default:
            return xconv_error_set(err, XCONV_ERR_INVALID, "%s: argument %d has kind %d",
                                   l->kernel, i, (int)a->kind);
        }
    }
    CUresult r = ctx->cu->launch_kernel(f->fn, grid[0], grid[1], grid[2], block[0], block[1],
                                        block[2], 0, ctx->stream, params, NULL);
    if (r != CUDA_SUCCESS) {
        cu_fail(err, XCONV_ERR_DEVICE, r, "cuLaunchKernel");
        return xconv_error_prefix(err, "%s (grid %u x %u x %u, block %u x %u x %u)", l->kernel,
                                  grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Timing and waiting

static xconv_status cuda_timer_start(void *vctx, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    CU_TRY(ctx->cu->event_record(ctx->start, ctx->stream), "cuEventRecord (start)");
    ctx->timing = true;
    return XCONV_OK;
}

static xconv_status cuda_timer_stop(void *vctx, double *ms, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    *ms = 0.0;
    if (ctx->lost)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, LOST_MESSAGE);
    if (!ctx->timing)
        return xconv_error_set(err, XCONV_ERR_INVALID, "timer_stop without timer_start");
    ctx->timing = false;
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    float elapsed = 0.0f;
    CU_TRY(ctx->cu->event_record(ctx->stop, ctx->stream), "cuEventRecord (stop)");
    CU_TRY(ctx->cu->event_synchronize(ctx->stop), "cuEventSynchronize");
    CU_TRY(ctx->cu->event_elapsed_time(&elapsed, ctx->start, ctx->stop), "cuEventElapsedTime");
    *ms = elapsed;
    return XCONV_OK;
}

static xconv_status cuda_finish(void *vctx, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    CU_TRY(ctx->cu->stream_synchronize(ctx->stream), "cuStreamSynchronize");
    return XCONV_OK;
}

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

// Checks one operand: rows x cols row-major with leading dimension ld, `batch` copies `stride`
// apart from element `offset`, must fit buf and cuBLAS's int arguments.
static xconv_status check_matrix(const char *name, const xconv_backend_buffer *buf, size_t offset,
                                 size_t rows, size_t cols, size_t ld, size_t stride,
                                 size_t batch, xconv_error *err)
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
    if (last * sizeof(float) > (double)buf->bytes)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "sgemm: %s reaches element %.0f of a buffer of %zu floats", name,
                               last, buf->bytes / sizeof(float));
    return XCONV_OK;
}

static xconv_status cuda_sgemm(void *vctx, const xconv_gemm_args *g, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    xconv_status st = check_matrix("A", g->a, g->a_offset, g->m, g->k, g->lda, g->a_stride,
                                   g->batch, err);
    if (st == XCONV_OK)
        st = check_matrix("B", g->b, g->b_offset, g->k, g->n, g->ldb, g->b_stride, g->batch, err);
    if (st == XCONV_OK)
        st = check_matrix("C", g->c, g->c_offset, g->m, g->n, g->ldc, g->c_stride, g->batch, err);
    if (st == XCONV_OK && g->batch > 1 && g->c_stride == 0)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "sgemm: C stride 0 with batch %zu",
                             g->batch);
    if (st == XCONV_OK && g->batch > INT_MAX)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "sgemm: batch %zu", g->batch);
    if (st == XCONV_OK)
        st = make_current(ctx, err);
    if (st == XCONV_OK)
        st = ensure_blas(ctx, err);
    if (st != XCONV_OK || g->batch == 0 || g->m == 0 || g->n == 0)
        return st;
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
        return vendor_failure(
            ctx,
            xconv_error_set(err, XCONV_ERR_DEVICE,
                            "cublasSgemmStridedBatched (m %zu, n %zu, k %zu, batch %zu): %s",
                            g->m, g->n, g->k, g->batch, blas_status(ctx, s)),
            err);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// cuDNN

static bool cuda_vendor_conv_supports(void *vctx, const char *algo, const xconv_problem *p,
                                      size_t *workspace_bytes, char *reason, size_t reason_len)
{
    cuda_ctx *ctx = vctx;
    xconv_error err = {0};
    if (make_current(ctx, &err) != XCONV_OK) {
        snprintf(reason, reason_len, "%s", err.msg);
        if (workspace_bytes)
            *workspace_bytes = 0;
        return false;
    }
    return xconv_cudnn_supports(ctx->dnn, algo, p, workspace_bytes, reason, reason_len);
}

static xconv_status cuda_vendor_conv(void *vctx, const char *algo, const xconv_problem *p,
                                     const xconv_vendor_conv_buffers *b, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    if (!b->x || !b->w || !b->y)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: x, w and y must be buffers", algo);
    xconv_status st = make_current(ctx, err);
    if (st != XCONV_OK)
        return st;
    st = xconv_cudnn_forward(ctx->dnn, algo, p, b->x->ptr, b->w->ptr, b->y->ptr + b->y_offset,
                             b->bias ? b->bias->ptr : 0, b->workspace ? b->workspace->ptr : 0,
                             b->workspace ? b->workspace->bytes : 0, err);
    return st == XCONV_ERR_DEVICE ? vendor_failure(ctx, st, err) : st;
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
static void cuda_libraries(void *vctx, char *buf, size_t len)
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
    const cuda_ctx *ctx = vctx;
    return ctx && !ctx->lost ? xconv_cudnn_find_choice(ctx->dnn, p) : NULL;
}

const char *xconv_cuda_last_find_choice(void *vctx)
{
    const cuda_ctx *ctx = vctx;
    return ctx && !ctx->lost ? xconv_cudnn_last_find_choice(ctx->dnn) : NULL;
}

// ---------------------------------------------------------------------------------------------
// Handles for other libraries on the same stream (xconv/native.h)

static void cuda_native(void *vctx, xconv_native_device *out)
{
    const cuda_ctx *ctx = vctx;
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
