// SPDX-License-Identifier: MIT
// The direct family's tiling as the kernels see it: one X-macro row per compile-time define.
// The host expands this list from a planned xconv_direct_tiling (host/families/direct/plan_direct.c), and the
// direct kernels (cl/direct_*.cl) read these names, so host and kernels agree in one place.
#ifndef XCONV_DIRECT_PARAMS_H
#define XCONV_DIRECT_PARAMS_H

// X(define name, expression over `const xconv_direct_tiling *t`, meaning)
#define XCONV_DIRECT_DEFINES(X)                                                     \
    X(XD_WG_W, t->wg_w, "work-items of a work-group along q")                       \
    X(XD_WG_H, t->wg_h, "work-items of a work-group along p")                       \
    X(XD_BLOCK_W, t->block_w, "outputs per work-item along q")                      \
    X(XD_BLOCK_H, t->block_h, "outputs per work-item along p")                      \
    X(XD_BLOCK_K, t->block_k, "output channels per work-item")                      \
    X(XD_CHUNK_C, t->chunk_c, "input channels per local-memory stage")              \
    X(XD_STRIP_W, t->strip, "1: an item's columns are consecutive, 0: wg_w apart")  \
    X(XD_FLAT, t->flat, "1: 1-D work-groups numbering register blocks")             \
    X(XD_UNROLL_C, t->unroll_c, "1: the channel loop is unrolled too")              \
    X(XD_REPEAT, t->repeat, "register blocks per work-item")                        \
    X(XD_VEC_Q, t->vec_q, "0, or the vector width of an item's columns")

#endif // XCONV_DIRECT_PARAMS_H
