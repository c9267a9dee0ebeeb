// SPDX-License-Identifier: MIT
// A convolution's GEMM shape from the problem's sizes, for the GEMM steps and split-K reduce
// steps that take the sizes as kernel arguments (XC_DIMS_RUNTIME, common/xconv_dialect.h): the
// host leaves these defines out (XCONV_GEMM_SHAPE_FIELDS, common/xconv_gemm_params.h) and the
// kernels derive them as the host's conv_layout does (host/families/gemm/variants_gemm.c):
// M = K/groups filters, K = C/groups * R * S taps, columns in segments of P*Q (one an image),
// B x itself (gemm_1x1: R = S = 1, stride 1, no padding, so P*Q = H*W) or gathered from it.
// Included by cl/sgemm.cl and cl/splitk_reduce.cl before their defaults.
#ifndef XCONV_GEMM_SIZES_H
#define XCONV_GEMM_SIZES_H

#if XC_DIMS_RUNTIME
#if defined(XC_GEMM_M) || defined(XC_GEMM_K) || defined(XC_GEMM_SEG) || \
    defined(XC_GEMM_PART_LD) || defined(XC_GEMM_SPLIT_STEPS)
#error "xconv_gemm_sizes.h: run-time sizes with the product's shape defined too"
#endif
#define XC_GEMM_M XC_KG
#define XC_GEMM_K (XC_CG * XC_R * XC_S)
#define XC_GEMM_SEG (XC_P * XC_Q)
#define XC_GEMM_B_SEG_STRIDE (XC_C * XC_R * XC_S * XC_GEMM_SEG)
#define XC_GEMM_C_SEG_STRIDE (XC_K * XC_GEMM_SEG)
#define XC_GEMM_A_GROUP_STRIDE (XC_GEMM_M * XC_GEMM_K)
#if XC_GEMM_B_MODE == 0
#define XC_GEMM_B_GROUP_STRIDE (XC_GEMM_K * XC_GEMM_SEG)
#else
#define XC_GEMM_B_GROUP_STRIDE (XC_CG * XC_H * XC_W)
#endif
#define XC_GEMM_C_GROUP_STRIDE (XC_GEMM_M * XC_GEMM_SEG)
// Split-K: a partial C's row stride (the columns rounded up to 4) and a slice's K steps (the
// host's xconv_gemm_part_ld and xconv_gemm_split_steps).
#define XC_GEMM_PART_LD ((XC_N * XC_GEMM_SEG + 3) / 4 * 4)
#define XC_GEMM_SPLIT_STEPS                                                     \
    (((XC_GEMM_K + XC_GEMM_TILE_K - 1) / XC_GEMM_TILE_K + XC_GEMM_SPLIT_K - 1) / XC_GEMM_SPLIT_K)
#endif

#endif // XCONV_GEMM_SIZES_H
