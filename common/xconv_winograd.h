// SPDX-License-Identifier: MIT
// The Winograd kernels' shared pieces: the transforms of common/xconv_winograd_transforms.h
// (included first) for the kernel's F(XC_WINO_M x XC_WINO_M, XC_R x XC_R) under generic names,
// the tile geometry, the 2-D transforms of one tile, the input tile's load and the output
// tile's store with the epilogue.
#ifndef XCONV_WINOGRAD_H
#define XCONV_WINOGRAD_H

#ifndef XCONV_WINOGRAD_TRANSFORMS_H
#error "xconv_winograd.h: include xconv_winograd_transforms.h before it"
#endif

// ---------------------------------------------------------------------------------------------
// F(XC_WINO_M x XC_WINO_M, XC_R x XC_R) under generic names, for kernels (XC_WINO_M defined)

#ifdef XC_WINO_M
#if XC_R != XC_S || XC_STRIDE_H != 1 || XC_STRIDE_W != 1 || XC_DIL_H != 1 || XC_DIL_W != 1
#error "xconv_winograd.h: Winograd needs a square filter, stride 1 and dilation 1"
#endif
#if XC_WINO_M == 2 && XC_R == 3
#define XC_WINO_BT_1D XC_WINO_BT4_1D
#define XC_WINO_AT_1D XC_WINO_F23_AT_1D
#define XC_WINO_G_1D XC_WINO_F23_G_1D
#define XC_WINO_S2 XC_WINO_F23_S2
#elif XC_WINO_M == 4 && XC_R == 3
#define XC_WINO_BT_1D XC_WINO_BT6_1D
#define XC_WINO_AT_1D XC_WINO_F43_AT_1D
#define XC_WINO_G_1D XC_WINO_F43_G_1D
#define XC_WINO_S2 XC_WINO_F43_S2
#elif XC_WINO_M == 2 && XC_R == 5
#define XC_WINO_BT_1D XC_WINO_BT6_1D
#define XC_WINO_AT_1D XC_WINO_F25_AT_1D
#define XC_WINO_G_1D XC_WINO_F25_G_1D
#define XC_WINO_S2 XC_WINO_F25_S2
#else
#error "xconv_winograd.h: no transforms for this F(XC_WINO_M, XC_R): F(2,3), F(4,3), F(2,5)"
#endif

#define XC_WINO_A (XC_WINO_M + XC_R - 1)    // alpha: the side of an input tile
#define XC_WINO_AA (XC_WINO_A * XC_WINO_A)  // element-wise products per tile
#ifndef XC_WINO_TILES_H
#define XC_WINO_TILES_H ((XC_P + XC_WINO_M - 1) / XC_WINO_M)  // tile rows per image
#endif
#ifndef XC_WINO_TILES_W
#define XC_WINO_TILES_W ((XC_Q + XC_WINO_M - 1) / XC_WINO_M)  // tile columns per image
#endif
#define XC_WINO_TILES (XC_WINO_TILES_H * XC_WINO_TILES_W)     // tiles per image

// ---------------------------------------------------------------------------------------------
// The 2-D transforms of one tile, on private arrays of any element type (float, or on CPUs a
// vector of tiles, where cl/winograd_fused.cl redefines XC_WINO_FMA): the 1-D transform down
// the columns into tmp, then along tmp's rows into out. Every kernel transforms through these,
// so all of them round the same operations in the same order.

// out = B^T in B (alpha x alpha); tmp: alpha x alpha.
#define XC_WINO_BT_2D(out, in, tmp)                                                  \
    _Pragma("unroll") for (int xc_wj = 0; xc_wj < XC_WINO_A; xc_wj++)               \
        XC_WINO_BT_1D((tmp) + xc_wj, XC_WINO_A, (in) + xc_wj, XC_WINO_A);            \
    _Pragma("unroll") for (int xc_wi = 0; xc_wi < XC_WINO_A; xc_wi++)               \
        XC_WINO_BT_1D((out) + xc_wi * XC_WINO_A, 1, (tmp) + xc_wi * XC_WINO_A, 1);

// out = A^T in A (m x m, from alpha x alpha); tmp: m x alpha.
#define XC_WINO_AT_2D(out, in, tmp)                                                  \
    _Pragma("unroll") for (int xc_wj = 0; xc_wj < XC_WINO_A; xc_wj++)               \
        XC_WINO_AT_1D((tmp) + xc_wj, XC_WINO_A, (in) + xc_wj, XC_WINO_A);            \
    _Pragma("unroll") for (int xc_wi = 0; xc_wi < XC_WINO_M; xc_wi++)               \
        XC_WINO_AT_1D((out) + xc_wi * XC_WINO_M, 1, (tmp) + xc_wi * XC_WINO_A, 1);

// out = G_INT in G_INT^T (alpha x alpha, from r x r); tmp: alpha x r. The scale comes after.
#define XC_WINO_G_2D(out, in, tmp)                                                   \
    _Pragma("unroll") for (int xc_wj = 0; xc_wj < XC_R; xc_wj++)                    \
        XC_WINO_G_1D((tmp) + xc_wj, XC_R, (in) + xc_wj, XC_R);                       \
    _Pragma("unroll") for (int xc_wi = 0; xc_wi < XC_WINO_A; xc_wi++)               \
        XC_WINO_G_1D((out) + xc_wi * XC_WINO_A, 1, (tmp) + xc_wi * XC_R, 1);

// Loads the alpha x alpha input tile whose top-left input is (ih0, iw0) of the H x W plane
// (zeros outside it, and everywhere when !live) and writes V = B^T d B into vt.
XC_FUNC void xc_wino_input_tile(const XC_GLOBAL XC_DATA *plane, const int ih0, const int iw0,
                                const bool live, float *vt)
{
    float d[XC_WINO_AA];
#pragma unroll
    for (int i = 0; i < XC_WINO_A; i++) {
        const bool row_in = live && (unsigned)(ih0 + i) < (unsigned)XC_H;
#pragma unroll
        for (int j = 0; j < XC_WINO_A; j++) {
            const bool inside = row_in && (unsigned)(iw0 + j) < (unsigned)XC_W;
            d[i * XC_WINO_A + j] = inside ? XC_LD(plane, (ih0 + i) * XC_W + iw0 + j) : 0.0f;
        }
    }
    float bd[XC_WINO_AA];  // B^T d, column by column
    XC_WINO_BT_2D(vt, d, bd)
}

// ---------------------------------------------------------------------------------------------
// The store: the one place where the output transforms write y, with the epilogue, for kernels
// that include common/xconv_epilogue.h before this header (the kernel takes the bias as its last
// parameter)

#ifdef XCONV_EPILOGUE_H
#if XC_POOL_H && (XC_WINO_M % XC_POOL_H || XC_WINO_M % XC_POOL_W || XC_POOL_PAD_H ||        \
                  XC_POOL_PAD_W || XC_POOL_STRIDE_H != XC_POOL_H || XC_POOL_STRIDE_W != XC_POOL_W)
#error "xconv_winograd.h: a tile pools only unpadded windows as wide as their stride dividing m"
#endif

// Stores the m x m output tile yt (row-major) of image n, output channel k, whose first output
// is (p0, q0) (multiples of m): each output inside P x Q after the bias and activation; with a
// fused pool, the maximum of each of the tile's windows (windows divide the tile, tiles start on
// window boundaries) that lies inside P x Q, into y's pooled layout (Y_H x Y_W), the windows'
// outputs in row-major order as cl/epilogue.cl's pool takes them.
XC_FUNC void xc_wino_store_tile(XC_GLOBAL XC_DATA *y, const int n, const int k, const int p0,
                                const int q0, const float *yt XC_EPI_BIAS_FUNC_PARAM)
{
#if XC_POOL_H
#pragma unroll
    for (int a = 0; a < XC_WINO_M / XC_POOL_H; a++) {
#pragma unroll
        for (int b = 0; b < XC_WINO_M / XC_POOL_W; b++) {
            const int yr = p0 / XC_POOL_H + a;  // pooled row, its window inside P when < Y_H
            const int yc = q0 / XC_POOL_W + b;  // pooled column, likewise < Y_W
            float m = XC_EPI_NEG_INF;
#pragma unroll
            for (int i = 0; i < XC_POOL_H; i++) {
#pragma unroll
                for (int j = 0; j < XC_POOL_W; j++)
                    m = xc_epi_max(m, XC_EPI(yt[(a * XC_POOL_H + i) * XC_WINO_M +
                                                b * XC_POOL_W + j], k));
            }
            if (yr < XC_Y_H && yc < XC_Y_W)
                XC_ST(y, ((n * XC_K + k) * XC_Y_H + yr) * XC_Y_W + yc, m);
        }
    }
#else
#pragma unroll
    for (int i = 0; i < XC_WINO_M; i++) {
#pragma unroll
        for (int j = 0; j < XC_WINO_M; j++) {
            if (p0 + i < XC_P && q0 + j < XC_Q)
                XC_ST(y, ((n * XC_K + k) * XC_P + p0 + i) * XC_Q + q0 + j,
                      XC_EPI(yt[i * XC_WINO_M + j], k));
        }
    }
#endif
}

// Applies the output transform to the alpha^2 products of one tile and channel (row-major) and
// stores the tile of image n, output channel k, whose first output is (p0, q0), through
// xc_wino_store_tile.
XC_FUNC void xc_wino_output_tile(XC_GLOBAL XC_DATA *y, const int n, const int k, const int p0,
                                 const int q0, const float *prod XC_EPI_BIAS_FUNC_PARAM)
{
    float am[XC_WINO_M * XC_WINO_A];  // A^T M, column by column: m x alpha
    float yt[XC_WINO_M * XC_WINO_M];  // (A^T M) A, row by row: m x m
    XC_WINO_AT_2D(yt, prod, am)
    xc_wino_store_tile(y, n, k, p0, q0, yt XC_EPI_BIAS_ARG);
}
#endif // XCONV_EPILOGUE_H
#endif // XC_WINO_M

#endif // XCONV_WINOGRAD_H
