// SPDX-License-Identifier: MIT
// The problem descriptor's fields as the kernels see them: one X-macro row per compile-time define.
// The host expands this list to pass a problem to a kernel ("-DXC_N=32 -DXC_C=3 ..."), and every
// kernel reads its shape from these names, so host and kernel agree on them in one place.
#ifndef XCONV_PROBLEM_FIELDS_H
#define XCONV_PROBLEM_FIELDS_H

// X(define name, expression over `const xconv_problem *p`, meaning)
#define XCONV_PROBLEM_DEFINES(X)                                                    \
    X(XC_N, p->n, "batch")                                                          \
    X(XC_C, p->c, "input channels")                                                 \
    X(XC_H, p->h, "input height")                                                   \
    X(XC_W, p->w, "input width")                                                    \
    X(XC_K, p->k, "output channels")                                                \
    X(XC_R, p->r, "filter height")                                                  \
    X(XC_S, p->s, "filter width")                                                   \
    X(XC_STRIDE_H, p->stride_h, "vertical stride")                                  \
    X(XC_STRIDE_W, p->stride_w, "horizontal stride")                                \
    X(XC_PAD_H, p->pad_h, "top and bottom padding")                                 \
    X(XC_PAD_W, p->pad_w, "left and right padding")                                 \
    X(XC_DIL_H, p->dil_h, "vertical dilation")                                      \
    X(XC_DIL_W, p->dil_w, "horizontal dilation")                                    \
    X(XC_GROUPS, p->groups, "channel groups")                                       \
    X(XC_CG, p->c / p->groups, "input channels per group")                          \
    X(XC_KG, p->k / p->groups, "output channels per group")                         \
    X(XC_P, xconv_problem_out_h(p), "output height")                                \
    X(XC_Q, xconv_problem_out_w(p), "output width")

// Defined (1) instead of XC_N when the batch size reaches the kernel as its last argument
// (common/xconv_dialect.h's XC_BATCH_PARAM), so that every batch shares one program.
#define XCONV_BATCH_RUNTIME_DEFINE "XC_N_RUNTIME"

// Defined (1) with XC_N_RUNTIME when the other sizes below reach the kernel as arguments too,
// after the batch and in this order (common/xconv_dialect.h); the fields they derive (XC_CG,
// XC_KG) are left out as well. The GEMM family's shared programs.
#define XCONV_DIMS_RUNTIME_DEFINE "XC_DIMS_RUNTIME"
#define XCONV_PROBLEM_RUNTIME_DIMS(X)                                               \
    X(XC_C, p->c)                                                                   \
    X(XC_H, p->h)                                                                   \
    X(XC_W, p->w)                                                                   \
    X(XC_K, p->k)                                                                   \
    X(XC_P, xconv_problem_out_h(p))                                                 \
    X(XC_Q, xconv_problem_out_w(p))
// The fields left out of a step's defines when the sizes are arguments.
#define XCONV_PROBLEM_RUNTIME_FIELDS "XC_N XC_C XC_H XC_W XC_K XC_CG XC_KG XC_P XC_Q"

// The storage type of x, w and y (xconv_dtype: 1 fp16, 2 bf16), defined only when it is not
// fp32; kernels read and write the tensors through XC_LD / XC_ST (common/xconv_dialect.h).
#define XCONV_DTYPE_DEFINE "XC_DTYPE"

// The epilogue's bias and activation (common/xconv_epilogue.h), defined only for the steps that
// apply them: a step without these defines computes the bare convolution.
#define XCONV_EPILOGUE_ACT_DEFINES(X)                                               \
    X(XC_EPI_BIAS, p->epi.bias, "1: add bias[k] to channel k")                      \
    X(XC_EPI_ACT, p->epi.act, "activation: 0 none, 1 relu, 2 relu6")

// The epilogue's max-pool and the final output's size, defined only for the steps that pool.
#define XCONV_EPILOGUE_POOL_DEFINES(X)                                              \
    X(XC_POOL_H, p->epi.pool_h, "pool window height")                               \
    X(XC_POOL_W, p->epi.pool_w, "pool window width")                                \
    X(XC_POOL_STRIDE_H, p->epi.pool_stride_h, "vertical step between windows")      \
    X(XC_POOL_STRIDE_W, p->epi.pool_stride_w, "horizontal step between windows")    \
    X(XC_POOL_PAD_H, p->epi.pool_pad_h, "-infinity rows on each side")              \
    X(XC_POOL_PAD_W, p->epi.pool_pad_w, "-infinity columns on each side")           \
    X(XC_Y_H, xconv_problem_y_h(p), "final (pooled) output height")                 \
    X(XC_Y_W, xconv_problem_y_w(p), "final (pooled) output width")

#endif // XCONV_PROBLEM_FIELDS_H
