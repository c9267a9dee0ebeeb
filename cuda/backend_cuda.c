// SPDX-License-Identifier: MIT
// The CUDA backend: the driver API loaded at run time, devices, buffers, launches and waiting
// (the primary context and its stream: cuda_context.c; NVRTC-built modules: cuda_programs.c;
// timed regions: cuda_timer.c; cuBLAS and cuDNN: cuda_libraries.c).
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "nvrtc_compile.h"

// ---------------------------------------------------------------------------------------------
// Helpers

// Whether r is one of the driver's sticky errors: a kernel faulted, and the context cannot be
// used again (every later call fails the same way) until it is destroyed and made anew.
bool cuda_sticky(CUresult r)
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
xconv_status cuda_fail(xconv_error *err, xconv_status status, CUresult r, const char *what)
{
    const char *text = NULL;
    const xconv_cu_api *cu = xconv_cu_load(NULL);
    if (!cu || cu->get_error_string(r, &text) != CUDA_SUCCESS)
        text = NULL;
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        status = XCONV_ERR_OUT_OF_MEMORY;
    if (cuda_sticky(r))
        status = XCONV_ERR_DEVICE_LOST;
    return xconv_error_set(err, status, "%s: %s%s%s%s", what, xconv_cu_result_name(r),
                           text ? " (" : "", text ? text : "", text ? ")" : "");
}

// After a vendor library call failed with status st (cuBLAS and cuDNN report a kernel's fault
// as a failed execution): returns XCONV_ERR_DEVICE_LOST when the stream now holds a sticky
// error, with the driver's word added to err, else st.
xconv_status cuda_vendor_failure(cuda_ctx *ctx, xconv_status st, xconv_error *err)
{
    if (st == XCONV_OK || st == XCONV_ERR_DEVICE_LOST || ctx->lost || !ctx->stream)
        return st;
    CUresult r = ctx->cu->stream_synchronize(ctx->stream);
    if (!cuda_sticky(r))
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
        cuda_fail(err, XCONV_ERR_UNAVAILABLE, r, "cuInit failed");
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
    info->local_mem_per_unit_bytes = (uint64_t)attribute(
        cu, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
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
        return cuda_fail(err, XCONV_ERR_UNAVAILABLE, r, "cuDeviceGetCount");
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

// Describes device `index` into ctx->info and starts making its context (on a thread of its
// own: cuda_context.c). Returns XCONV_OK or the first failure.
static xconv_status open_context(cuda_ctx *ctx, int index, xconv_error *err)
{
    const xconv_cu_api *cu = ctx->cu;
    xconv_status st = describe_device(cu, index, &ctx->info, err);
    if (st != XCONV_OK)
        return st;
    CU_TRY(cu->device_get(&ctx->dev, index), "cuDeviceGet");
    return cuda_context_start(ctx, err);
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
    cuda_context_ready(ctx, NULL);  // made long since: a fault came from using it
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
    ctx->delay_ns = XCONV_CUDA_DELAY_NS;
    pthread_mutex_init(&ctx->open_lock, NULL);
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
    cuda_context_release(ctx, true);
    pthread_mutex_destroy(&ctx->open_lock);
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
    CU_CURRENT(ctx);
    xconv_backend_buffer *buf = calloc(1, sizeof *buf);
    if (!buf)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for a buffer");
    CUresult r = ctx->cu->mem_alloc(&buf->ptr, bytes ? bytes : 4);  // CUDA refuses 0 bytes
    if (r != CUDA_SUCCESS) {
        free(buf);
        cuda_fail(err, XCONV_ERR_OUT_OF_MEMORY, r, "cuMemAlloc");
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
    cuda_context_ready(ctx, NULL);  // made before the buffer was: no wait
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
    CU_CURRENT(ctx);
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
    CU_CURRENT(ctx);
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
    CU_CURRENT(ctx);
    unsigned int bits;
    memcpy(&bits, &value, sizeof bits);
    CU_TRY(ctx->cu->memset_d32_async(buf->ptr, bits, count, ctx->stream), "cuMemsetD32Async");
    return XCONV_OK;
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
        cuda_fail(err, XCONV_ERR_INVALID, r, "cuModuleGetGlobal");
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
        st = cuda_make_current(ctx, err);
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
        cuda_fail(err, XCONV_ERR_DEVICE, r, "cuLaunchKernel");
        return xconv_error_prefix(err, "%s (grid %u x %u x %u, block %u x %u x %u)", l->kernel,
                                  grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Waiting

// (Timed regions: cuda_timer.c.)

static xconv_status cuda_finish(void *vctx, xconv_error *err)
{
    cuda_ctx *ctx = vctx;
    CU_CURRENT(ctx);
    CU_TRY(ctx->cu->stream_synchronize(ctx->stream), "cuStreamSynchronize");
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Handles for other libraries on the same stream (xconv/native.h)

static void cuda_native(void *vctx, xconv_native_device *out)
{
    cuda_ctx *ctx = vctx;
    cuda_context_ready(ctx, NULL);  // a context that could not be made gives NULL handles
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
    .timer_delay = cuda_timer_mode,
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
