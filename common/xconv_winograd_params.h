// SPDX-License-Identifier: MIT
// The Winograd steps' parameters as the kernels see them: one X-macro list per step, each row a
// compile-time define read from that step's typed parameter struct (host/families/winograd/plan_winograd.h). The
// host expands a list to pass a step its defines ("-DXC_WINO_M=2 ..."), and the kernels read
// these names, so host and kernels agree on them in one place.
#ifndef XCONV_WINOGRAD_PARAMS_H
#define XCONV_WINOGRAD_PARAMS_H

// X(define name, expression over `const xconv_wino_filter_params *s`, meaning)
// cl/winograd_filter.cl
#define XCONV_WINO_FILTER_DEFINES(X)                                                     \
    X(XC_WINO_M, s->m, "output tile side m of F(m x m, r x r)")                          \
    X(XC_WINO_U_CK, s->u_ck, "layout of U: 0 [xi][k][c] (GEMM), 1 [xi][g][c][k] (fused)")

// X(define name, expression over `const xconv_wino_tile_params *s`, meaning)
// cl/winograd_input.cl and cl/winograd_output.cl
#define XCONV_WINO_TILE_DEFINES(X)                                                       \
    X(XC_WINO_M, s->m, "output tile side m of F(m x m, r x r)")                          \
    X(XC_WINO_TILES_H, s->tiles_h, "tile rows per image: ceil(P / m)")                   \
    X(XC_WINO_TILES_W, s->tiles_w, "tile columns per image: ceil(Q / m)")                \
    X(XC_WINO_T_LD, s->t_ld, "columns of V and M: a chunk's tiles, rounded up to 4")

// X(define name, expression over `const xconv_wino_fused_params *s`, meaning)
// cl/winograd_fused.cl
#define XCONV_WINO_FUSED_DEFINES(X)                                                      \
    X(XC_WINO_M, s->m, "output tile side m of F(m x m, r x r)")                          \
    X(XC_WINO_TILES_H, s->tiles_h, "tile rows per image: ceil(P / m)")                   \
    X(XC_WINO_TILES_W, s->tiles_w, "tile columns per image: ceil(Q / m)")                \
    X(XC_WINO_TILE_BLOCK, s->tile_block, "output tiles per work-group")                  \
    X(XC_WINO_K_BLOCK, s->k_block, "output channels per work-group, within a group")     \
    X(XC_WINO_C_CHUNK, s->c_chunk, "input channels per local-memory step")               \
    X(XC_WINO_WPT_T, s->wpt_t, "tiles per work-item and position")                       \
    X(XC_WINO_WPT_K, s->wpt_k, "output channels per work-item")                          \
    X(XC_WINO_VW, s->vw, "local fragment reads: 4 (float4) or 1")                        \
    X(XC_WINO_UNROLL_C, s->unroll_c, "1: a chunk's channel loop is unrolled")             \
    X(XC_WINO_VEC, s->vec, "CPUs: tiles per work-item as vector lanes; 0: work-groups")

#endif // XCONV_WINOGRAD_PARAMS_H
