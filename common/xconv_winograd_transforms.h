// SPDX-License-Identifier: MIT
// The Winograd transforms of F(2x2,3x3), F(4x4,3x3) and F(2x2,5x5): their matrices and their
// one-dimensional transforms as expressions, in one place for the kernels (OpenCL C and NVRTC)
// and the host (C). Kernels include common/xconv_winograd.h after this header: it names the
// transforms of F(XC_WINO_M, XC_R) generically and applies them to whole tiles.
//
// What F(m, r) computes. m outputs of the 1-D correlation y_i = sum_{k<r} d_{i+k} g_k from
// alpha = m + r - 1 inputs with alpha multiplications:
//     y = A^T [ (G g) .* (B^T d) ]          (A^T: m x alpha, G: alpha x r, B^T: alpha x alpha)
// and in 2-D, over an alpha x alpha input tile d and an r x r filter g,
//     Y = A^T [ (G g G^T) .* (B^T d B) ] A  (an m x m output tile),
// applying the 1-D transforms to the columns, then to the rows. Summed over input channels, the
// alpha^2 element-wise products of a tile become alpha^2 independent matrix products.
//
// Derivation (Toom-Cook with Lagrange interpolation). Let g(x) have degree r-1 and h(x) degree
// m-1; their product c = g h has degree alpha-1 and is fixed by its values at alpha-1 distinct
// finite points p_i and its leading coefficient (the value "at infinity"):
//     c(x) = sum_i c(p_i) L_i(x) + c_lead M(x),
//     L_i(x) = prod_{j != i} (x - p_j) / (p_i - p_j),   M(x) = prod_j (x - p_j).
// With E rows (1, p, p^2, ...) per point and (0, ..., 0, 1) for infinity, and C the matrix whose
// columns hold the coefficients of the L_i and of M: c = C [ (E_g g) .* (E_h h) ]. Correlation
// is the transpose of this product (c = T(g) h gives y = T(g)^T d), hence
//     A^T = E_h^T,   G = E_g,   B^T = C^T.
// Each point's terms may be rescaled: A^T's column i by a_i, B^T's row i by b_i and G's row i
// by 1 / (a_i b_i). Here A^T's columns and B^T's rows are the smallest integer vectors, so the
// input and output transforms, applied to the data of every run, are exact small-integer
// combinations; every fraction lands in G, applied once per filter. G is kept as
// diag(scale) G_INT with integer G_INT: the filter transform forms G_INT g G_INT^T exactly as
// far as float allows and multiplies element (i, j) once by scale_i scale_j rounded to float
// (the S2 tables).
//
// Points. F(2,3): 0, 1, -1. F(4,3) and F(2,5): 0, 1, -1, 1/2, -2, which gave about half the
// maximum normalised error of 0, +-1, +-2 in float32 (docs/teaching/winograd.md has the table);
// both have alpha = 6 with the same points, so they share B^T.
//
// Evaluation order of the 1-D macros (the kernels' rounding follows it exactly): the terms with
// coefficient +-1 are summed in index order; then, for each larger magnitude in ascending order,
// the signed sum of its terms is added as XC_WINO_FMA(magnitude, sum, accumulator). Products by
// powers of two are exact, and one by 3 or 5 is rounded once, together with its addition.
//
// The 1-D macros write out[i * os] from in[j * is] (out and in distinct; any array or pointer
// expressions); the initializer lists are row-major.
#ifndef XCONV_WINOGRAD_TRANSFORMS_H
#define XCONV_WINOGRAD_TRANSFORMS_H

// A fused multiply-add: the dialect's in kernels, C's fma on the host.
#ifdef XC_FMA
#define XC_WINO_FMA(a, b, c) XC_FMA((a), (b), (c))
#else
#define XC_WINO_FMA(a, b, c) fma((a), (b), (c))
#endif

// ---- F(2x2,3x3): alpha = 4, points 0, 1, -1, inf

// B^T (4x4), shared by every F(m,r) with alpha = 4 and these points
#define XC_WINO_BT4 \
    { \
         1,  0, -1,  0, \
         0,  1,  1,  0, \
         0,  1, -1,  0, \
         0,  1,  0, -1 \
    }

// out = B^T in for alpha = 4 (one column or row of a tile)
#define XC_WINO_BT4_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = ((in)[0 * (is)] - (in)[2 * (is)]); \
        (out)[1 * (os)] = ((in)[1 * (is)] + (in)[2 * (is)]); \
        (out)[2 * (os)] = ((in)[1 * (is)] - (in)[2 * (is)]); \
        (out)[3 * (os)] = ((in)[1 * (is)] - (in)[3 * (is)]); \
    } while (0)

// A^T (2x4)
#define XC_WINO_F23_AT \
    { \
         1,  1,  1,  0, \
         0,  1, -1,  1 \
    }

// G = diag(scale) * G_INT (4x3)
#define XC_WINO_F23_G_INT \
    { \
         1,  0,  0, \
         1,  1,  1, \
         1, -1,  1, \
         0,  0,  1 \
    }

// scale[i] = NUM[i] / DEN[i]
#define XC_WINO_F23_G_NUM {1, 1, -1, -1}
#define XC_WINO_F23_G_DEN {1, 2, 2, 1}

// scale[i] * scale[j] rounded to float (4x4, row-major): 1, 1/2, -1/2, -1, ...
#define XC_WINO_F23_S2 \
    { \
        0x1p0f, 0x1p-1f, \
            -0x1p-1f, -0x1p0f, \
        0x1p-1f, 0x1p-2f, \
            -0x1p-2f, -0x1p-1f, \
        -0x1p-1f, -0x1p-2f, \
            0x1p-2f, 0x1p-1f, \
        -0x1p0f, -0x1p-1f, \
            0x1p-1f, 0x1p0f \
    }

// out = A^T in (4 values in, 2 out)
#define XC_WINO_F23_AT_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = (((in)[0 * (is)] + (in)[1 * (is)]) + (in)[2 * (is)]); \
        (out)[1 * (os)] = (((in)[1 * (is)] - (in)[2 * (is)]) + (in)[3 * (is)]); \
    } while (0)

// out = G_INT in (3 values in, 4 out; the scale comes after both passes)
#define XC_WINO_F23_G_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = (in)[0 * (is)]; \
        (out)[1 * (os)] = (((in)[0 * (is)] + (in)[1 * (is)]) + (in)[2 * (is)]); \
        (out)[2 * (os)] = (((in)[0 * (is)] - (in)[1 * (is)]) + (in)[2 * (is)]); \
        (out)[3 * (os)] = (in)[2 * (is)]; \
    } while (0)

// ---- F(4x4,3x3): alpha = 6, points 0, 1, -1, 1/2, -2, inf

// B^T (6x6), shared by every F(m,r) with alpha = 6 and these points
#define XC_WINO_BT6 \
    { \
         2, -3, -4,  3,  2,  0, \
         0,  2, -1, -5, -2,  0, \
         0,  2, -5,  1,  2,  0, \
         0,  2,  1, -2, -1,  0, \
         0,  1, -2, -1,  2,  0, \
         0,  2, -3, -4,  3,  2 \
    }

// out = B^T in for alpha = 6 (one column or row of a tile)
#define XC_WINO_BT6_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = XC_WINO_FMA(4.0f, -(in)[2 * (is)], XC_WINO_FMA(3.0f, (-(in)[1 * (is)] \
             + (in)[3 * (is)]), 2.0f * ((in)[0 * (is)] + (in)[4 * (is)]))); \
        (out)[1 * (os)] = XC_WINO_FMA(5.0f, -(in)[3 * (is)], XC_WINO_FMA(2.0f, ((in)[1 * (is)] \
             - (in)[4 * (is)]), -(in)[2 * (is)])); \
        (out)[2 * (os)] = XC_WINO_FMA(5.0f, -(in)[2 * (is)], XC_WINO_FMA(2.0f, ((in)[1 * (is)] \
             + (in)[4 * (is)]), (in)[3 * (is)])); \
        (out)[3 * (os)] = XC_WINO_FMA(2.0f, ((in)[1 * (is)] - (in)[3 * (is)]), ((in)[2 * (is)] \
             - (in)[4 * (is)])); \
        (out)[4 * (os)] = XC_WINO_FMA(2.0f, (-(in)[2 * (is)] + (in)[4 * (is)]), ((in)[1 * (is)] \
             - (in)[3 * (is)])); \
        (out)[5 * (os)] = XC_WINO_FMA(4.0f, -(in)[3 * (is)], XC_WINO_FMA(3.0f, (-(in)[2 * (is)] \
             + (in)[4 * (is)]), 2.0f * ((in)[1 * (is)] + (in)[5 * (is)]))); \
    } while (0)

// A^T (4x6)
#define XC_WINO_F43_AT \
    { \
         1,  1,  1,  8,  1,  0, \
         0,  1, -1,  4, -2,  0, \
         0,  1,  1,  2,  4,  0, \
         0,  1, -1,  1, -8,  1 \
    }

// G = diag(scale) * G_INT (6x3)
#define XC_WINO_F43_G_INT \
    { \
         1,  0,  0, \
         1,  1,  1, \
         1, -1,  1, \
         4,  2,  1, \
         1, -2,  4, \
         0,  0,  1 \
    }

// scale[i] = NUM[i] / DEN[i]
#define XC_WINO_F43_G_NUM {1, -1, -1, 1, 1, 1}
#define XC_WINO_F43_G_DEN {2, 6, 6, 30, 30, 2}

// scale[i] * scale[j] rounded to float (6x6, row-major): 1/4, -1/12, -1/12, 1/60, 1/60, 1/4, ...
#define XC_WINO_F43_S2 \
    { \
        0x1p-2f, -0x1.555556p-4f, -0x1.555556p-4f, \
            0x1.111112p-6f, 0x1.111112p-6f, 0x1p-2f, \
        -0x1.555556p-4f, 0x1.c71c72p-6f, 0x1.c71c72p-6f, \
            -0x1.6c16c2p-8f, -0x1.6c16c2p-8f, -0x1.555556p-4f, \
        -0x1.555556p-4f, 0x1.c71c72p-6f, 0x1.c71c72p-6f, \
            -0x1.6c16c2p-8f, -0x1.6c16c2p-8f, -0x1.555556p-4f, \
        0x1.111112p-6f, -0x1.6c16c2p-8f, -0x1.6c16c2p-8f, \
            0x1.234568p-10f, 0x1.234568p-10f, 0x1.111112p-6f, \
        0x1.111112p-6f, -0x1.6c16c2p-8f, -0x1.6c16c2p-8f, \
            0x1.234568p-10f, 0x1.234568p-10f, 0x1.111112p-6f, \
        0x1p-2f, -0x1.555556p-4f, -0x1.555556p-4f, \
            0x1.111112p-6f, 0x1.111112p-6f, 0x1p-2f \
    }

// out = A^T in (6 values in, 4 out)
#define XC_WINO_F43_AT_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = XC_WINO_FMA(8.0f, (in)[3 * (is)], ((((in)[0 * (is)] + (in)[1 * (is)]) \
             + (in)[2 * (is)]) + (in)[4 * (is)])); \
        (out)[1 * (os)] = XC_WINO_FMA(4.0f, (in)[3 * (is)], XC_WINO_FMA(2.0f, -(in)[4 * (is)], \
            ((in)[1 * (is)] - (in)[2 * (is)]))); \
        (out)[2 * (os)] = XC_WINO_FMA(4.0f, (in)[4 * (is)], XC_WINO_FMA(2.0f, (in)[3 * (is)], \
            ((in)[1 * (is)] + (in)[2 * (is)]))); \
        (out)[3 * (os)] = XC_WINO_FMA(8.0f, -(in)[4 * (is)], ((((in)[1 * (is)] - (in)[2 * (is)]) \
             + (in)[3 * (is)]) + (in)[5 * (is)])); \
    } while (0)

// out = G_INT in (3 values in, 6 out; the scale comes after both passes)
#define XC_WINO_F43_G_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = (in)[0 * (is)]; \
        (out)[1 * (os)] = (((in)[0 * (is)] + (in)[1 * (is)]) + (in)[2 * (is)]); \
        (out)[2 * (os)] = (((in)[0 * (is)] - (in)[1 * (is)]) + (in)[2 * (is)]); \
        (out)[3 * (os)] = XC_WINO_FMA(4.0f, (in)[0 * (is)], XC_WINO_FMA(2.0f, (in)[1 * (is)], \
            (in)[2 * (is)])); \
        (out)[4 * (os)] = XC_WINO_FMA(4.0f, (in)[2 * (is)], XC_WINO_FMA(2.0f, -(in)[1 * (is)], \
            (in)[0 * (is)])); \
        (out)[5 * (os)] = (in)[2 * (is)]; \
    } while (0)

// ---- F(2x2,5x5): alpha = 6, points 0, 1, -1, 1/2, -2, inf

// A^T (2x6)
#define XC_WINO_F25_AT \
    { \
         1,  1,  1,  2,  1,  0, \
         0,  1, -1,  1, -2,  1 \
    }

// G = diag(scale) * G_INT (6x5)
#define XC_WINO_F25_G_INT \
    { \
         1,  0,  0,  0,  0, \
         1,  1,  1,  1,  1, \
         1, -1,  1, -1,  1, \
        16,  8,  4,  2,  1, \
         1, -2,  4, -8, 16, \
         0,  0,  0,  0,  1 \
    }

// The same points as F(4x4,3x3), so the same scales: scale[i] = NUM[i] / DEN[i], and their
// products rounded to float
#define XC_WINO_F25_G_NUM XC_WINO_F43_G_NUM
#define XC_WINO_F25_G_DEN XC_WINO_F43_G_DEN
#define XC_WINO_F25_S2 XC_WINO_F43_S2

// out = A^T in (6 values in, 2 out)
#define XC_WINO_F25_AT_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = XC_WINO_FMA(2.0f, (in)[3 * (is)], ((((in)[0 * (is)] + (in)[1 * (is)]) \
             + (in)[2 * (is)]) + (in)[4 * (is)])); \
        (out)[1 * (os)] = XC_WINO_FMA(2.0f, -(in)[4 * (is)], ((((in)[1 * (is)] - (in)[2 * (is)]) \
             + (in)[3 * (is)]) + (in)[5 * (is)])); \
    } while (0)

// out = G_INT in (5 values in, 6 out; the scale comes after both passes)
#define XC_WINO_F25_G_1D(out, os, in, is) \
    do { \
        (out)[0 * (os)] = (in)[0 * (is)]; \
        (out)[1 * (os)] = (((((in)[0 * (is)] + (in)[1 * (is)]) + (in)[2 * (is)]) \
             + (in)[3 * (is)]) + (in)[4 * (is)]); \
        (out)[2 * (os)] = (((((in)[0 * (is)] - (in)[1 * (is)]) + (in)[2 * (is)]) \
             - (in)[3 * (is)]) + (in)[4 * (is)]); \
        (out)[3 * (os)] = XC_WINO_FMA(16.0f, (in)[0 * (is)], XC_WINO_FMA(8.0f, (in)[1 * (is)], \
            XC_WINO_FMA(4.0f, (in)[2 * (is)], XC_WINO_FMA(2.0f, (in)[3 * (is)], \
            (in)[4 * (is)])))); \
        (out)[4 * (os)] = XC_WINO_FMA(16.0f, (in)[4 * (is)], XC_WINO_FMA(8.0f, -(in)[3 * (is)], \
            XC_WINO_FMA(4.0f, (in)[2 * (is)], XC_WINO_FMA(2.0f, -(in)[1 * (is)], \
            (in)[0 * (is)])))); \
        (out)[5 * (os)] = (in)[4 * (is)]; \
    } while (0)

#endif // XCONV_WINOGRAD_TRANSFORMS_H
