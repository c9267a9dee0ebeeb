// SPDX-License-Identifier: MIT
// The cuDNN rows: NCHW descriptors per problem in its storage type and math mode (FMA math for
// strict fp32, tensor-op math for tf32, f16 and bf16), one named algorithm or find, and the
// fused convolution + bias + activation followed by cuDNN's max-pool.
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_loader.h"
#include "cudnn_conv.h"
#include "cudnn_types.h"

// Copies src into dst[len], truncating, always terminated (len > 0).
static void copy_text(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

// ---------------------------------------------------------------------------------------------
// Algorithm names

#define FIND_NAME "cudnn_find"
// cudnnConvolutionBiasActivationForward, then cudnnPoolingForward when the problem pools.
#define FUSED_NAME "cudnn_fused_bias_act_pool"
// The fused call's algorithm: the only one its identity activation runs with, and the one that
// takes every activation it supports.
#define FUSED_ALGO CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM

static const struct {
    const char *name;
    cudnnConvolutionFwdAlgo_t algo;
} algo_rows[] = {
    {"cudnn_implicit_gemm", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
    {"cudnn_implicit_precomp_gemm", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
    {"cudnn_gemm", CUDNN_CONVOLUTION_FWD_ALGO_GEMM},
    {"cudnn_direct", CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
    {"cudnn_fft", CUDNN_CONVOLUTION_FWD_ALGO_FFT},
    {"cudnn_fft_tiling", CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING},
    {"cudnn_winograd", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD},
    {"cudnn_winograd_nonfused", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED},
};
#define ALGO_COUNT (sizeof algo_rows / sizeof algo_rows[0])

const char *const *xconv_cudnn_algo_names(void)
{
    static const char *names[ALGO_COUNT + 3];
    for (size_t i = 0; i < ALGO_COUNT; i++)
        names[i] = algo_rows[i].name;
    names[ALGO_COUNT] = FIND_NAME;
    names[ALGO_COUNT + 1] = FUSED_NAME;
    names[ALGO_COUNT + 2] = NULL;
    return names;
}

// Returns the row name of a cuDNN algorithm ("cudnn_fft"), or "cudnn algo <n>".
static const char *algo_name(cudnnConvolutionFwdAlgo_t algo)
{
    for (size_t i = 0; i < ALGO_COUNT; i++)
        if (algo_rows[i].algo == algo)
            return algo_rows[i].name;
    return "cudnn (unknown algorithm)";
}

// Sets *algo for a row name; returns false when name is not one of ours (find excluded).
static bool algo_from_name(const char *name, cudnnConvolutionFwdAlgo_t *algo)
{
    for (size_t i = 0; i < ALGO_COUNT; i++)
        if (strcmp(algo_rows[i].name, name) == 0) {
            *algo = algo_rows[i].algo;
            return true;
        }
    return false;
}

// ---------------------------------------------------------------------------------------------
// State

// The descriptors of one problem, and what find chose for it. y_desc describes the
// convolution's output; the epilogue's descriptors are made for the fused row only.
typedef struct dnn_entry {
    xconv_problem p;
    xconv_cudnn_types types;             // data, compute and math types of p
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv_desc;
    cudnnTensorDescriptor_t bias_desc, out_desc;  // 1 x K x 1 x 1, and the pooled output
    cudnnActivationDescriptor_t act_desc;
    cudnnPoolingDescriptor_t pool_desc;
    bool found;                          // find has run for p
    bool found_ok;                       // and chose found_algo
    cudnnConvolutionFwdAlgo_t found_algo;  // which ran with types.math
    size_t found_workspace;
    char found_note[384];                // "picked ..." or why nothing was picked
    struct dnn_entry *next;
} dnn_entry;

struct xconv_cudnn {
    CUstream stream;
    int cc_major;               // the device's compute capability (tensor-op math needs it)
    bool tried;                 // the handle was attempted
    const xconv_cudnn_api *api; // NULL until loaded
    cudnnHandle_t handle;
    char unavailable[512];      // why there is no handle
    dnn_entry *entries;
    const char *last_choice;
};

xconv_cudnn *xconv_cudnn_create(CUstream stream, int cc_major)
{
    xconv_cudnn *dnn = calloc(1, sizeof *dnn);
    if (dnn) {
        dnn->stream = stream;
        dnn->cc_major = cc_major;
    }
    return dnn;
}

// Destroys the descriptors of e (any may be NULL) and frees it.
static void entry_free(const xconv_cudnn_api *api, dnn_entry *e)
{
    if (e->x_desc)
        api->destroy_tensor_descriptor(e->x_desc);
    if (e->y_desc)
        api->destroy_tensor_descriptor(e->y_desc);
    if (e->w_desc)
        api->destroy_filter_descriptor(e->w_desc);
    if (e->conv_desc)
        api->destroy_convolution_descriptor(e->conv_desc);
    if (e->bias_desc)
        api->destroy_tensor_descriptor(e->bias_desc);
    if (e->out_desc)
        api->destroy_tensor_descriptor(e->out_desc);
    if (e->act_desc)
        api->destroy_activation_descriptor(e->act_desc);
    if (e->pool_desc)
        api->destroy_pooling_descriptor(e->pool_desc);
    free(e);
}

void xconv_cudnn_destroy(xconv_cudnn *dnn)
{
    if (!dnn)
        return;
    while (dnn->entries) {
        dnn_entry *next = dnn->entries->next;
        entry_free(dnn->api, dnn->entries);
        dnn->entries = next;
    }
    if (dnn->handle)
        dnn->api->destroy(dnn->handle);
    free(dnn);
}

// Loads cuDNN and makes the handle on first use. Returns true, or false with the reason kept in
// dnn->unavailable.
static bool ensure_handle(xconv_cudnn *dnn)
{
    if (dnn->tried)
        return dnn->handle != NULL;
    dnn->tried = true;
    xconv_error err = {0};
    const xconv_cudnn_api *api = xconv_cudnn_load(&err);
    if (!api) {
        copy_text(dnn->unavailable, sizeof dnn->unavailable, err.msg);
        return false;
    }
    cudnnStatus_t s = api->create(&dnn->handle);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_stream(dnn->handle, (cudaStream_t)dnn->stream);
    if (s != CUDNN_STATUS_SUCCESS) {
        snprintf(dnn->unavailable, sizeof dnn->unavailable,
                 "cuDNN %zu loaded but its handle failed: %s", api->get_version(),
                 api->get_error_string(s));
        if (dnn->handle)
            api->destroy(dnn->handle);
        dnn->handle = NULL;
        return false;
    }
    dnn->api = api;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Descriptors

// Returns true when every size of p fits cuDNN's int arguments.
static bool fits_int(const xconv_problem *p)
{
    const int64_t v[] = {p->n, p->c, p->h, p->w, p->k, p->r, p->s, p->stride_h, p->stride_w,
                         p->pad_h, p->pad_w, p->dil_h, p->dil_w, p->groups};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] < 0 || v[i] > INT_MAX)
            return false;
    return p->groups > 0 && p->c % p->groups == 0;
}

// Fills the descriptors of e for its problem in e->types: NCHW x and y and a KCRS filter in the
// storage type, cross-correlation with float compute, groups, and the mode's math type. Returns
// CUDNN_STATUS_SUCCESS or the first failure.
static cudnnStatus_t describe(const xconv_cudnn_api *api, dnn_entry *e)
{
    const xconv_problem *p = &e->p;
    const xconv_cudnn_types *t = &e->types;
    cudnnStatus_t s = api->create_tensor_descriptor(&e->x_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->create_tensor_descriptor(&e->y_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->create_filter_descriptor(&e->w_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->create_convolution_descriptor(&e->conv_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_tensor_4d_descriptor(e->x_desc, CUDNN_TENSOR_NCHW, t->data, (int)p->n,
                                          (int)p->c, (int)p->h, (int)p->w);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_filter_4d_descriptor(e->w_desc, t->data, CUDNN_TENSOR_NCHW,
                                          (int)p->k, (int)(p->c / p->groups), (int)p->r,
                                          (int)p->s);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_convolution_2d_descriptor(e->conv_desc, (int)p->pad_h, (int)p->pad_w,
                                               (int)p->stride_h, (int)p->stride_w,
                                               (int)p->dil_h, (int)p->dil_w,
                                               CUDNN_CROSS_CORRELATION, t->compute);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_convolution_group_count(e->conv_desc, (int)p->groups);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_convolution_math_type(e->conv_desc, t->math);
    int yn = 0, yc = 0, yh = 0, yw = 0;
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->get_convolution_2d_forward_output_dim(e->conv_desc, e->x_desc, e->w_desc, &yn,
                                                       &yc, &yh, &yw);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_tensor_4d_descriptor(e->y_desc, CUDNN_TENSOR_NCHW, t->data, yn, yc, yh,
                                          yw);
    return s;
}

// Fills the epilogue's descriptors of e (a problem with a bias): the bias as 1 x K x 1 x 1, the
// activation (none: identity, relu, relu6: clipped at 6), NaN propagated, and for a pool the max
// pool and its N x K x y_h x y_w output. Returns CUDNN_STATUS_SUCCESS or the first failure.
static cudnnStatus_t describe_epilogue(const xconv_cudnn_api *api, dnn_entry *e)
{
    const xconv_problem *p = &e->p;
    const xconv_epilogue *epi = &p->epi;
    cudnnActivationMode_t mode = epi->act == XCONV_ACT_RELU    ? CUDNN_ACTIVATION_RELU
                                 : epi->act == XCONV_ACT_RELU6 ? CUDNN_ACTIVATION_CLIPPED_RELU
                                                               : CUDNN_ACTIVATION_IDENTITY;
    cudnnStatus_t s = api->create_tensor_descriptor(&e->bias_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_tensor_4d_descriptor(e->bias_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
                                          (int)p->k, 1, 1);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->create_activation_descriptor(&e->act_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_activation_descriptor(e->act_desc, mode, CUDNN_PROPAGATE_NAN, 6.0);
    if (s != CUDNN_STATUS_SUCCESS || epi->pool_h == 0)
        return s;
    s = api->create_pooling_descriptor(&e->pool_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_pooling_2d_descriptor(e->pool_desc, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN,
                                           (int)epi->pool_h, (int)epi->pool_w,
                                           (int)epi->pool_pad_h, (int)epi->pool_pad_w,
                                           (int)epi->pool_stride_h, (int)epi->pool_stride_w);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->create_tensor_descriptor(&e->out_desc);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->set_tensor_4d_descriptor(e->out_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                          (int)p->n, (int)p->k, (int)xconv_problem_y_h(p),
                                          (int)xconv_problem_y_w(p));
    return s;
}

// Returns the cached entry of p, describing it on first use; NULL with a reason on failure.
static dnn_entry *entry_get(xconv_cudnn *dnn, const xconv_problem *p, char *reason, size_t len)
{
    for (dnn_entry *e = dnn->entries; e; e = e->next)
        if (memcmp(&e->p, p, sizeof *p) == 0)
            return e;
    if (!fits_int(p)) {
        snprintf(reason, len, "cuDNN: the problem's sizes do not fit its int arguments");
        return NULL;
    }
    xconv_cudnn_types types;
    if (!xconv_cudnn_types_of(p, dnn->cc_major, &types, reason, len))
        return NULL;
    dnn_entry *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(reason, len, "cuDNN: out of host memory");
        return NULL;
    }
    e->p = *p;
    e->types = types;
    cudnnStatus_t s = describe(dnn->api, e);
    if (s == CUDNN_STATUS_SUCCESS && xconv_problem_has_epilogue(p))
        s = describe_epilogue(dnn->api, e);
    if (s != CUDNN_STATUS_SUCCESS) {
        snprintf(reason, len, "cuDNN: cannot describe the problem with %s data and %s (%s)",
                 xconv_cudnn_data_name(types.data), xconv_cudnn_math_name(types.math),
                 dnn->api->get_error_string(s));
        entry_free(dnn->api, e);
        return NULL;
    }
    e->next = dnn->entries;
    dnn->entries = e;
    return e;
}

// ---------------------------------------------------------------------------------------------
// Find

// Runs cuDNN's find for e once and keeps the fastest result that succeeded with the mode's math
// type (FMA for strict fp32, tensor-op for a reduced mode: xconv_cudnn_math_accepts).
static void run_find(xconv_cudnn *dnn, dnn_entry *e)
{
    if (e->found)
        return;
    e->found = true;
    const xconv_cudnn_api *api = dnn->api;
    int max = 0;
    cudnnStatus_t s = api->get_convolution_forward_algorithm_max_count(dnn->handle, &max);
    if (s != CUDNN_STATUS_SUCCESS || max <= 0)
        max = (int)ALGO_COUNT;
    xconv_cudnn_fwd_perf *perf = calloc((size_t)max, sizeof *perf);
    if (!perf) {
        snprintf(e->found_note, sizeof e->found_note, "cuDNN find: out of host memory");
        return;
    }
    int returned = 0;
    s = api->find_convolution_forward_algorithm(dnn->handle, e->x_desc, e->w_desc, e->conv_desc,
                                                e->y_desc, max, &returned, perf);
    if (s != CUDNN_STATUS_SUCCESS) {
        snprintf(e->found_note, sizeof e->found_note, "cuDNN find failed (%s)",
                 api->get_error_string(s));
        free(perf);
        return;
    }
    // Results come fastest first; the first one that ran in the mode's math type wins.
    const char *math = xconv_cudnn_math_name(e->types.math);
    size_t used = (size_t)snprintf(e->found_note, sizeof e->found_note,
                                   "cuDNN find: no algorithm succeeded with %s; results:", math);
    for (int i = 0; i < returned; i++) {
        if (perf[i].status == CUDNN_STATUS_SUCCESS &&
            xconv_cudnn_math_accepts(&e->types, perf[i].mathType)) {
            e->found_ok = true;
            e->found_algo = perf[i].algo;
            e->found_workspace = perf[i].memory;
            snprintf(e->found_note, sizeof e->found_note,
                     FIND_NAME " picked %s with %s, %s data (%.4f ms in find, workspace %zu "
                     "bytes)", algo_name(perf[i].algo), math,
                     xconv_cudnn_data_name(e->types.data), (double)perf[i].time,
                     perf[i].memory);
            break;
        }
        if (used < sizeof e->found_note)
            used += (size_t)snprintf(e->found_note + used, sizeof e->found_note - used,
                                     " %s/%s/%s", algo_name(perf[i].algo),
                                     xconv_cudnn_math_name(perf[i].mathType),
                                     api->get_error_string(perf[i].status));
    }
    free(perf);
}

const char *xconv_cudnn_find_choice(const xconv_cudnn *dnn, const xconv_problem *p)
{
    if (!dnn)
        return NULL;
    for (const dnn_entry *e = dnn->entries; e; e = e->next)
        if (memcmp(&e->p, p, sizeof *p) == 0)
            return e->found_ok ? algo_name(e->found_algo) : NULL;
    return NULL;
}

const char *xconv_cudnn_last_find_choice(const xconv_cudnn *dnn)
{
    return dnn ? dnn->last_choice : NULL;
}

// ---------------------------------------------------------------------------------------------
// Queries and runs

// Bytes of the fused row's intermediate in the workspace: the convolution's biased, activated
// output when the problem pools (the pool reads it), rounded up to 256; 0 otherwise.
static size_t fused_inter_bytes(const xconv_problem *p)
{
    if (p->epi.pool_h == 0)
        return 0;
    return ((size_t)xconv_problem_conv_elems(p) * sizeof(float) + 255) / 256 * 256;
}

// Returns true when the fused row can describe p (a bias, and the optional calls loaded), else
// false with the reason.
static bool fused_applies(const xconv_cudnn *dnn, const xconv_problem *p, char *reason,
                          size_t len)
{
    const xconv_cudnn_api *api = dnn->api;
    if (p->dtype != XCONV_DTYPE_F32) {
        snprintf(reason, len, FUSED_NAME " takes fp32 storage only (its bias is fp32; got "
                 "dtype=%s)", xconv_dtype_name(p->dtype) ? xconv_dtype_name(p->dtype) : "?");
        return false;
    }
    if (p->epi.bias != 1) {
        snprintf(reason, len, FUSED_NAME " needs a bias: cudnnConvolutionBiasActivationForward "
                 "adds one (bias=1)");
        return false;
    }
    if (!api->convolution_bias_activation_forward || !api->create_activation_descriptor ||
        !api->set_activation_descriptor || !api->destroy_activation_descriptor ||
        !api->create_pooling_descriptor || !api->set_pooling_2d_descriptor ||
        !api->destroy_pooling_descriptor || !api->pooling_forward) {
        snprintf(reason, len, "cuDNN %zu lacks the fused convolution or pooling calls",
                 api->get_version());
        return false;
    }
    return true;
}

// Resolves `algo` for p into a cuDNN algorithm and its workspace (running find when asked; the
// fused row's workspace holds its intermediate first). Returns NULL with a reason when it
// cannot run, else the entry.
static dnn_entry *resolve(xconv_cudnn *dnn, const char *algo, const xconv_problem *p,
                          cudnnConvolutionFwdAlgo_t *id, size_t *workspace, char *reason,
                          size_t len)
{
    bool find = strcmp(algo, FIND_NAME) == 0, fused = strcmp(algo, FUSED_NAME) == 0;
    if (fused)
        *id = FUSED_ALGO;
    if (!find && !fused && !algo_from_name(algo, id)) {
        snprintf(reason, len, "unknown algorithm '%s' (cuDNN rows: cudnn_implicit_gemm, "
                 "cudnn_implicit_precomp_gemm, cudnn_gemm, cudnn_direct, cudnn_fft, "
                 "cudnn_fft_tiling, cudnn_winograd, cudnn_winograd_nonfused, " FIND_NAME ", "
                 FUSED_NAME ")", algo);
        return NULL;
    }
    if (fused != xconv_problem_has_epilogue(p)) {
        snprintf(reason, len, fused ? FUSED_NAME " runs problems with an epilogue (bias=1)"
                                    : "%s computes the convolution alone", algo);
        return NULL;
    }
    if (!ensure_handle(dnn)) {
        copy_text(reason, len, dnn->unavailable);
        return NULL;
    }
    if (fused && !fused_applies(dnn, p, reason, len))
        return NULL;
    dnn_entry *e = entry_get(dnn, p, reason, len);
    if (!e)
        return NULL;
    if (find) {
        run_find(dnn, e);
        copy_text(reason, len, e->found_note);
        if (!e->found_ok)
            return NULL;
        dnn->last_choice = algo_name(e->found_algo);
        *id = e->found_algo;
        *workspace = e->found_workspace;
        return e;
    }
    cudnnStatus_t s = dnn->api->get_convolution_forward_workspace_size(
        dnn->handle, e->x_desc, e->w_desc, e->conv_desc, e->y_desc, *id, workspace);
    if (s != CUDNN_STATUS_SUCCESS) {
        snprintf(reason, len, "cuDNN: not supported with %s data and %s (%s)",
                 xconv_cudnn_data_name(e->types.data), xconv_cudnn_math_name(e->types.math),
                 dnn->api->get_error_string(s));
        return NULL;
    }
    if (fused)
        *workspace += fused_inter_bytes(p);
    snprintf(reason, len, "%s with %s, %s data and FLOAT compute (workspace %zu bytes)", algo,
             xconv_cudnn_math_name(e->types.math), xconv_cudnn_data_name(e->types.data),
             *workspace);
    return e;
}

bool xconv_cudnn_supports(xconv_cudnn *dnn, const char *algo, const xconv_problem *p,
                          size_t *workspace_bytes, char *reason, size_t reason_len)
{
    cudnnConvolutionFwdAlgo_t id = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t workspace = 0;
    char why[512] = "";
    bool ok = resolve(dnn, algo, p, &id, &workspace, why, sizeof why) != NULL;
    if (workspace_bytes)
        *workspace_bytes = ok ? workspace : 0;
    if (reason && reason_len)
        copy_text(reason, reason_len, why);
    return ok;
}

// Enqueues the fused row on entry e: conv + bias + activation into y, or into the workspace's
// first bytes and then the max-pool into y. Returns XCONV_OK, XCONV_ERR_NOT_APPLICABLE when
// cuDNN refuses the combination (CUDNN_STATUS_NOT_SUPPORTED), or XCONV_ERR_DEVICE.
static xconv_status fused_forward(xconv_cudnn *dnn, const dnn_entry *e, CUdeviceptr x,
                                  CUdeviceptr w, CUdeviceptr y, CUdeviceptr bias,
                                  CUdeviceptr workspace, size_t workspace_bytes,
                                  xconv_error *err)
{
    const xconv_cudnn_api *api = dnn->api;
    size_t inter = fused_inter_bytes(&e->p);
    CUdeviceptr conv_out = inter ? workspace : y;
    CUdeviceptr scratch = workspace_bytes > inter ? workspace + inter : 0;
    const float one = 1.0f, zero = 0.0f;
    // alpha2 = 0: z (the output itself, which cuDNN allows) adds nothing.
    cudnnStatus_t s = api->convolution_bias_activation_forward(
        dnn->handle, &one, e->x_desc, (const void *)(uintptr_t)x, e->w_desc,
        (const void *)(uintptr_t)w, e->conv_desc, FUSED_ALGO, (void *)(uintptr_t)scratch,
        workspace_bytes - inter, &zero, e->y_desc, (const void *)(uintptr_t)conv_out,
        e->bias_desc, (const void *)(uintptr_t)bias, e->act_desc, e->y_desc,
        (void *)(uintptr_t)conv_out);
    const char *act = xconv_activation_name(e->p.epi.act);
    if (s == CUDNN_STATUS_NOT_SUPPORTED)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               FUSED_NAME ": cuDNN's fused call does not run act=%s with "
                               "IMPLICIT_PRECOMP_GEMM and %s here (%s)", act,
                               xconv_cudnn_math_name(e->types.math), api->get_error_string(s));
    if (s != CUDNN_STATUS_SUCCESS)
        return xconv_error_set(err, XCONV_ERR_DEVICE,
                               "cudnnConvolutionBiasActivationForward: %s",
                               api->get_error_string(s));
    if (!inter)
        return XCONV_OK;
    s = api->pooling_forward(dnn->handle, e->pool_desc, &one, e->y_desc,
                             (const void *)(uintptr_t)conv_out, &zero, e->out_desc,
                             (void *)(uintptr_t)y);
    if (s == CUDNN_STATUS_NOT_SUPPORTED)
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               FUSED_NAME ": cuDNN's pooling does not run this window (%s)",
                               api->get_error_string(s));
    if (s != CUDNN_STATUS_SUCCESS)
        return xconv_error_set(err, XCONV_ERR_DEVICE, "cudnnPoolingForward: %s",
                               api->get_error_string(s));
    return XCONV_OK;
}

xconv_status xconv_cudnn_forward(xconv_cudnn *dnn, const char *algo, const xconv_problem *p,
                                 CUdeviceptr x, CUdeviceptr w, CUdeviceptr y, CUdeviceptr bias,
                                 CUdeviceptr workspace, size_t workspace_bytes, xconv_error *err)
{
    cudnnConvolutionFwdAlgo_t id = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t needed = 0;
    char why[512] = "";
    dnn_entry *e = resolve(dnn, algo, p, &id, &needed, why, sizeof why);
    if (!e)
        return xconv_error_set(err, dnn->handle ? XCONV_ERR_NOT_APPLICABLE
                                                : XCONV_ERR_UNAVAILABLE, "%s: %s", algo, why);
    if (workspace_bytes < needed || (needed > 0 && !workspace))
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "%s: a workspace of %zu bytes is smaller than the %zu cuDNN asks "
                               "for", algo, workspace ? workspace_bytes : 0, needed);
    if (strcmp(algo, FUSED_NAME) == 0)
        return fused_forward(dnn, e, x, w, y, bias, workspace, workspace_bytes, err);
    const float one = 1.0f, zero = 0.0f;
    cudnnStatus_t s = dnn->api->convolution_forward(
        dnn->handle, &one, e->x_desc, (const void *)(uintptr_t)x, e->w_desc,
        (const void *)(uintptr_t)w, e->conv_desc, id, (void *)(uintptr_t)workspace,
        workspace ? workspace_bytes : 0, &zero, e->y_desc, (void *)(uintptr_t)y);
    if (s == CUDNN_STATUS_NOT_SUPPORTED)  // the workspace query accepted what this refuses
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                               "%s: cuDNN: not supported with %s data and %s (%s from "
                               "cudnnConvolutionForward)", algo,
                               xconv_cudnn_data_name(e->types.data),
                               xconv_cudnn_math_name(e->types.math),
                               dnn->api->get_error_string(s));
    if (s != CUDNN_STATUS_SUCCESS)
        return xconv_error_set(err, XCONV_ERR_DEVICE, "cudnnConvolutionForward (%s): %s", algo,
                               dnn->api->get_error_string(s));
    return XCONV_OK;
}
