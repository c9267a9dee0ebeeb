// SPDX-License-Identifier: MIT
// The cuDNN rows: vendor convolutions "cudnn_<algo>" and "cudnn_find" in the problem's storage
// type and math mode (FMA math for strict fp32, tensor-op math for tf32, f16 and bf16:
// cuda/cudnn_types.h), with cuDNN loaded at run time and descriptors cached per problem.
#ifndef XCONV_CUDNN_CONV_H
#define XCONV_CUDNN_CONV_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>

#include <xconv/xconv.h>

// Per-context cuDNN state: the handle (made on first use) and the descriptors of each problem.
typedef struct xconv_cudnn xconv_cudnn;

// The algorithm names this file runs, NULL-terminated: "cudnn_implicit_gemm",
// "cudnn_implicit_precomp_gemm", "cudnn_gemm", "cudnn_direct", "cudnn_fft", "cudnn_fft_tiling",
// "cudnn_winograd", "cudnn_winograd_nonfused", "cudnn_find" (the convolution alone), and
// "cudnn_fused_bias_act_pool" (problems with a bias: cudnnConvolutionBiasActivationForward with
// IMPLICIT_PRECOMP_GEMM, then cudnnPoolingForward's max-pool when the problem pools).
const char *const *xconv_cudnn_algo_names(void);

// Returns new state whose work goes to `stream` on a device of compute capability cc_major (the
// reduced modes' tensor-op math needs 7.0 or 8.0), or NULL when out of memory. Loads nothing:
// cuDNN is opened on the first query. The caller's CUDA context must be current on every call
// below.
xconv_cudnn *xconv_cudnn_create(CUstream stream, int cc_major);

// Frees the handle and every cached descriptor; NULL is ignored.
void xconv_cudnn_destroy(xconv_cudnn *dnn);

// Returns true when cuDNN runs `algo` on p and sets *workspace_bytes to the scratch it needs;
// false with a reason otherwise ("cuDNN not found (libcudnn.so.9...)", "cuDNN: not supported
// (CUDNN_STATUS_NOT_SUPPORTED)", "cuDNN rows: math=tf32 needs tensor cores ..."). On success
// reason says the math type and data type the row runs with ("cudnn_gemm with CUDNN_FMA_MATH,
// FLOAT data ..."); for "cudnn_find" this benchmarks the algorithms once per problem
// (cudnnFindConvolutionForwardAlgorithm), keeps the fastest that ran with the mode's math type,
// and writes "cudnn_find picked <algo> with <math type> ..." into reason.
bool xconv_cudnn_supports(xconv_cudnn *dnn, const char *algo, const xconv_problem *p,
                          size_t *workspace_bytes, char *reason, size_t reason_len);

// Enqueues y = conv(x, w) with `algo` (alpha 1, beta 0) on the stream, with a workspace of
// workspace_bytes at `workspace` (0 when none); the fused row also adds `bias` (K floats) and
// applies p's activation and pool. Returns XCONV_OK, XCONV_ERR_NOT_APPLICABLE when cuDNN does
// not run algo on p, XCONV_ERR_INVALID when the workspace is too small, XCONV_ERR_UNAVAILABLE
// without cuDNN, or XCONV_ERR_DEVICE with cuDNN's status.
xconv_status xconv_cudnn_forward(xconv_cudnn *dnn, const char *algo, const xconv_problem *p,
                                 CUdeviceptr x, CUdeviceptr w, CUdeviceptr y, CUdeviceptr bias,
                                 CUdeviceptr workspace, size_t workspace_bytes,
                                 xconv_error *err);

// Returns the algorithm name ("cudnn_winograd_nonfused") that cudnn_find chose for p, or NULL
// when it has not run for p.
const char *xconv_cudnn_find_choice(const xconv_cudnn *dnn, const xconv_problem *p);

// Returns the name of the algorithm the most recent cudnn_find query chose, or NULL.
const char *xconv_cudnn_last_find_choice(const xconv_cudnn *dnn);

// The same two queries on a CUDA backend context (the ctx that the CUDA table's open returned);
// defined in backend_cuda.c. NULL when cudnn_find has not run there.
const char *xconv_cuda_find_choice(void *ctx, const xconv_problem *p);
const char *xconv_cuda_last_find_choice(void *ctx);

#endif // XCONV_CUDNN_CONV_H
