// SPDX-License-Identifier: MIT
// NVRTC compilation of kernel text: prelude, parity flags, architecture choice, PTX or CUBIN.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/backend.h"
#include "cuda_loader.h"
#include "nvrtc_compile.h"

#define MAX_ARGS 160

// Flags every kernel gets. --fmad=false keeps NVCC from contracting a*b+c into an fma, as
// OpenCL's FP_CONTRACT OFF does; kernels that want an fma write XC_FMA.
static const char *const fixed_flags[] = {"--std=c++17", "--fmad=false"};

const char *xconv_nvrtc_fixed_flags(void)
{
    return "--std=c++17 --fmad=false";
}

// Puts the fixed flags into argv and returns how many. With NVRTC 12.4 or later --minimal
// comes too: it leaves out declarations no kernel uses (texture functions, the device runtime,
// the runtime API's types), a few milliseconds of the front end a build (3-4% of the CPU time
// of auto's programs on sm_90, docs/guide/compile.md). It changes no code, every CUBIN the same
// byte for byte, so it is not among the flags that name the compiler in keys.
static int put_fixed_flags(const xconv_nvrtc_api *nv, const char **argv)
{
    int argc = 0, major = 0, minor = 0;
    for (size_t i = 0; i < sizeof fixed_flags / sizeof fixed_flags[0]; i++)
        argv[argc++] = fixed_flags[i];
    if (nv->version && nv->version(&major, &minor) == NVRTC_SUCCESS &&
        (major > 12 || (major == 12 && minor >= 4)))
        argv[argc++] = "--minimal";
    return argc;
}

void xconv_nvrtc_compiler_id(char *buf, size_t len)
{
    const xconv_nvrtc_api *nv = xconv_nvrtc_load(NULL);
    int major = 0, minor = 0;
    if (nv && nv->version)
        nv->version(&major, &minor);
    snprintf(buf, len, "nvrtc %d.%d (%s) %s", major, minor, nv ? nv->library : "none",
             xconv_nvrtc_fixed_flags());
}

// ---------------------------------------------------------------------------------------------
// Options

// Splits `options` in place (it is a private copy) into "-DNAME[=VALUE]" and "-UNAME" arguments
// appended to argv; the register cap's define (XC_REGISTER_CAP=N) also appends
// "--maxrregcount=N", written into cap_flag. Returns XCONV_OK, or XCONV_ERR_INVALID naming a
// token that is not a define.
static xconv_status split_defines(char *options, const char **argv, int max, int *argc,
                                  char *cap_flag, size_t cap_len, xconv_error *err)
{
    static const char cap_define[] = "-D" XCONV_REGISTER_CAP_NAME "=";
    char *save = NULL;
    for (char *tok = strtok_r(options, " \t\r\n", &save); tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        bool define = (tok[0] == '-' && (tok[1] == 'D' || tok[1] == 'U') && tok[2] != '\0');
        if (!define)
            return xconv_error_set(err, XCONV_ERR_INVALID,
                                   "CUDA build option '%s' is not a define (-DNAME=VALUE or "
                                   "-UNAME)", tok);
        if (*argc >= max)
            return xconv_error_set(err, XCONV_ERR_INVALID, "more than %d build options", max);
        argv[(*argc)++] = tok;
        if (strncmp(tok, cap_define, sizeof cap_define - 1) == 0) {
            if (*argc >= max)
                return xconv_error_set(err, XCONV_ERR_INVALID, "more than %d build options", max);
            snprintf(cap_flag, cap_len, "--maxrregcount=%s", tok + sizeof cap_define - 1);
            argv[(*argc)++] = cap_flag;
        }
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Architecture

// Writes the --gpu-architecture value for compute capability cc (major*10 + minor) into arch:
// "sm_XY" when NVRTC knows it (*real = true), else "compute_ZW" for the newest architecture
// NVRTC supports below it. Returns XCONV_ERR_UNAVAILABLE when it supports none that low.
static xconv_status pick_arch(const xconv_nvrtc_api *nv, int cc, bool *real, char *arch,
                              size_t len, xconv_error *err)
{
    int count = 0;
    if (!nv->get_num_supported_archs || !nv->get_supported_archs ||
        nv->get_num_supported_archs(&count) != NVRTC_SUCCESS || count <= 0) {
        *real = true;  // NVRTC before 11.2 cannot list them: try the device's own
        snprintf(arch, len, "sm_%d", cc);
        return XCONV_OK;
    }
    int archs[256];
    if (count > 256)
        count = 256;
    if (nv->get_supported_archs(archs) != NVRTC_SUCCESS)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "nvrtcGetSupportedArchs failed");
    int best = -1;
    for (int i = 0; i < count; i++) {
        if (archs[i] == cc) {
            *real = true;
            snprintf(arch, len, "sm_%d", cc);
            return XCONV_OK;
        }
        if (archs[i] < cc && archs[i] > best)
            best = archs[i];
    }
    if (best < 0)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE,
                               "%s supports sm_%d..sm_%d; the device is sm_%d", nv->library,
                               archs[0], archs[count - 1], cc);
    *real = false;
    snprintf(arch, len, "compute_%d", best);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Compiling

// Returns dialect + "#line 1" + source as one malloc'd string, or NULL when out of memory.
static char *with_prelude(const char *source)
{
    const char *dialect = xconv_kernel_dialect();
    static const char line[] = "\n#line 1\n";
    size_t a = strlen(dialect), b = strlen(line), c = strlen(source);
    char *text = malloc(a + b + c + 1);
    if (!text)
        return NULL;
    memcpy(text, dialect, a);
    memcpy(text + a, line, b);
    memcpy(text + a + b, source, c + 1);
    return text;
}

// Fills err with XCONV_ERR_BUILD, NVRTC's result, the options and the start of the log; the
// whole log goes to *whole.
static xconv_status build_error(const xconv_nvrtc_api *nv, nvrtcProgram prog, nvrtcResult r,
                                const char **argv, int argc, char **whole, xconv_error *err)
{
    char opts[2048] = "";
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof opts; i++)
        used += (size_t)snprintf(opts + used, sizeof opts - used, "%s%s", i ? " " : "", argv[i]);
    size_t log_len = 0;
    char *log = NULL;
    if (nv->get_program_log_size(prog, &log_len) == NVRTC_SUCCESS && log_len > 0 &&
        (log = malloc(log_len + 1)) != NULL && nv->get_program_log(prog, log) == NVRTC_SUCCESS)
        log[log_len] = '\0';
    else if (log)
        log[0] = '\0';
    xconv_error_set(err, XCONV_ERR_BUILD, "NVRTC (%s) failed: %s\noptions: %s\n%s",
                    nv->library, nv->get_error_string(r), opts, log ? log : "(no log)");
    *whole = log;  // the message holds its start
    return XCONV_ERR_BUILD;
}

// Copies the compiled PTX (cubin false) or CUBIN of prog into a malloc'd, NUL-terminated
// *data and its length (PTX: without the NUL) into *len.
static xconv_status take_output(const xconv_nvrtc_api *nv, nvrtcProgram prog, bool cubin,
                                char **data, size_t *len, xconv_error *err)
{
    size_t n = 0;
    nvrtcResult r = cubin ? nv->get_cubin_size(prog, &n) : nv->get_ptx_size(prog, &n);
    if (r != NVRTC_SUCCESS || n == 0)
        return xconv_error_set(err, XCONV_ERR_BUILD, "NVRTC produced no %s: %s",
                               cubin ? "CUBIN" : "PTX", nv->get_error_string(r));
    char *buf = malloc(n + 1);
    if (!buf)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for %zu bytes", n);
    r = cubin ? nv->get_cubin(prog, buf) : nv->get_ptx(prog, buf);
    if (r != NVRTC_SUCCESS) {
        free(buf);
        return xconv_error_set(err, XCONV_ERR_BUILD, "NVRTC: %s", nv->get_error_string(r));
    }
    buf[n] = '\0';
    *data = buf;
    *len = (!cubin && buf[n - 1] == '\0') ? n - 1 : n;  // the PTX size counts its NUL
    return XCONV_OK;
}

// Fills *out with the PTX of prog and, when cubin, its CUBIN as the image to load.
static xconv_status take_image(const xconv_nvrtc_api *nv, nvrtcProgram prog, bool cubin,
                               xconv_nvrtc_image *out, xconv_error *err)
{
    xconv_status st = take_output(nv, prog, false, &out->ptx, &out->ptx_len, err);
    if (st == XCONV_OK && cubin)
        st = take_output(nv, prog, true, &out->data, &out->len, err);
    else if (st == XCONV_OK) {
        out->data = out->ptx;
        out->len = out->ptx_len;
    }
    out->is_cubin = cubin && st == XCONV_OK;
    if (st != XCONV_OK)
        xconv_nvrtc_image_free(out);
    return st;
}

// Runs NVRTC on text with argv; fills *out on success.
static xconv_status run_nvrtc(const xconv_nvrtc_api *nv, const char *text, const char **argv,
                              int argc, bool cubin, xconv_nvrtc_image *out, xconv_error *err)
{
    nvrtcProgram prog = NULL;
    nvrtcResult r = nv->create_program(&prog, text, "xconv_kernel.cu", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return xconv_error_set(err, XCONV_ERR_BUILD, "nvrtcCreateProgram: %s",
                               nv->get_error_string(r));
    r = nv->compile_program(prog, argc, argv);
    xconv_status st = r != NVRTC_SUCCESS ? build_error(nv, prog, r, argv, argc, &out->log, err)
                                         : take_image(nv, prog, cubin, out, err);
    nv->destroy_program(&prog);
    return st;
}

xconv_status xconv_nvrtc_compile(const char *source, const char *options, int cc_major,
                                 int cc_minor, bool want_cubin, xconv_nvrtc_image *out,
                                 xconv_error *err)
{
    memset(out, 0, sizeof *out);
    const xconv_nvrtc_api *nv = xconv_nvrtc_load(err);
    if (!nv)
        return XCONV_ERR_UNAVAILABLE;
    bool real = false;
    xconv_status st = pick_arch(nv, cc_major * 10 + cc_minor, &real, out->arch,
                                sizeof out->arch, err);
    if (st != XCONV_OK)
        return st;
    char arch_flag[64];
    snprintf(arch_flag, sizeof arch_flag, "--gpu-architecture=%s", out->arch);

    const char *argv[MAX_ARGS];
    char cap_flag[48];
    int argc = put_fixed_flags(nv, argv);
    argv[argc++] = arch_flag;
    char *opts = strdup(options ? options : "");
    char *text = with_prelude(source);
    if (!opts || !text)
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the kernel text");
    else
        st = split_defines(opts, argv, MAX_ARGS, &argc, cap_flag, sizeof cap_flag, err);
    if (st == XCONV_OK)
        st = run_nvrtc(nv, text, argv, argc, real && want_cubin && nv->get_cubin, out, err);
    free(opts);
    free(text);
    return st;
}

void xconv_nvrtc_image_free(xconv_nvrtc_image *img)
{
    if (img->data != img->ptx)
        free(img->data);
    free(img->ptx);
    free(img->log);
    img->data = img->ptx = img->log = NULL;
    img->len = img->ptx_len = 0;
}

xconv_status xconv_nvrtc_compile_ptx(const char *source, const char *options, int cc_major,
                                     int cc_minor, char **ptx_out, size_t *ptx_len,
                                     xconv_error *err)
{
    xconv_nvrtc_image img;
    xconv_status st = xconv_nvrtc_compile(source, options, cc_major, cc_minor, false, &img, err);
    *ptx_out = st == XCONV_OK ? img.ptx : NULL;  // data == ptx: nothing else to free
    *ptx_len = st == XCONV_OK ? img.ptx_len : 0;
    if (st != XCONV_OK)
        xconv_nvrtc_image_free(&img);  // a failed build's log
    return st;
}

// Copies prog's log into a malloc'd *log ("" when it has none).
static xconv_status take_log(const xconv_nvrtc_api *nv, nvrtcProgram prog, char **log,
                             xconv_error *err)
{
    size_t n = 0;
    if (nv->get_program_log_size(prog, &n) != NVRTC_SUCCESS)
        n = 0;
    if (!(*log = malloc(n + 1)))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for NVRTC's log");
    (*log)[0] = '\0';
    if (n > 0 && nv->get_program_log(prog, *log) == NVRTC_SUCCESS)
        (*log)[n] = '\0';
    return XCONV_OK;
}

xconv_status xconv_nvrtc_report(const char *source, const char *options, int cc_major,
                                int cc_minor, char **log, xconv_error *err)
{
    *log = NULL;
    const xconv_nvrtc_api *nv = xconv_nvrtc_load(err);
    if (!nv)
        return XCONV_ERR_UNAVAILABLE;
    char arch_flag[64];
    snprintf(arch_flag, sizeof arch_flag, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);
    const char *argv[MAX_ARGS];
    char cap_flag[48];
    int argc = put_fixed_flags(nv, argv);
    argv[argc++] = arch_flag;
    argv[argc++] = "--ptxas-options=-v";
    char *opts = strdup(options ? options : "");
    char *text = with_prelude(source);
    xconv_status st = !opts || !text ? xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory")
                                     : split_defines(opts, argv, MAX_ARGS, &argc, cap_flag,
                                                     sizeof cap_flag, err);
    nvrtcProgram prog = NULL;
    if (st == XCONV_OK &&
        nv->create_program(&prog, text, "xconv_kernel.cu", 0, NULL, NULL) != NVRTC_SUCCESS)
        st = xconv_error_set(err, XCONV_ERR_BUILD, "nvrtcCreateProgram failed");
    if (st == XCONV_OK) {
        nvrtcResult r = nv->compile_program(prog, argc, argv);
        st = take_log(nv, prog, log, err);
        if (st == XCONV_OK && r != NVRTC_SUCCESS)
            st = xconv_error_set(err, XCONV_ERR_BUILD, "NVRTC (%s) failed: %s", nv->library,
                                 nv->get_error_string(r));
        nv->destroy_program(&prog);
    }
    free(opts);
    free(text);
    return st;
}
