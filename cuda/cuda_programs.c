// SPDX-License-Identifier: MIT
// The CUDA backend's programs: kernel text compiled by NVRTC (nvrtc_compile.c) and loaded as a
// module, the image kept for the compiled-kernel cache, and modules loaded from it.
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

