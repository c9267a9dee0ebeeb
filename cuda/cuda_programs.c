// SPDX-License-Identifier: MIT
// The CUDA backend's programs: kernel text compiled by NVRTC (nvrtc_compile.c) and loaded as a
// module, the image kept for the compiled-kernel cache, modules loaded from it, and launches of
// their functions (looked up once per module, arguments checked, grid and block).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "nvrtc_compile.h"

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
        cuda_fail(err, XCONV_ERR_BUILD, r, "cuModuleLoadDataEx");
        return xconv_error_prefix(err, "loading the %s %s%s%s", img->arch,
                                  img->is_cubin ? "CUBIN" : "PTX", log[0] ? "\n" : "", log);
    }
    return XCONV_OK;
}

xconv_status cuda_program_build(void *vctx, const char *source, const char *options,
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
    st = cuda_make_current(ctx, err);
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
bool cuda_builds_concurrently(void *vctx)
{
    (void)vctx;
    return true;
}

// A copy of the image the program was loaded from.
xconv_status cuda_program_binary(void *vctx, xconv_backend_program *prog, void **data,
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
xconv_status cuda_program_load(void *vctx, const void *data, size_t len,
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
    xconv_status st = cuda_make_current(ctx, err);
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
void cuda_compiler_id(void *vctx, char *buf, size_t len)
{
    (void)vctx;
    xconv_nvrtc_compiler_id(buf, len);
}

void cuda_program_free(void *vctx, xconv_backend_program *prog)
{
    cuda_ctx *ctx = vctx;
    if (!prog)
        return;
    cuda_context_ready(ctx, NULL);  // made before the module was loaded: no wait
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

xconv_status cuda_launch(void *vctx, xconv_backend_program *prog, const xconv_launch *l,
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
