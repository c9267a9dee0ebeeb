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

#endif // XCONV_PROBLEM_FIELDS_H
