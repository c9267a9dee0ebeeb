// SPDX-License-Identifier: MIT
// winograd_filter: the filter transform of the Winograd variants, U = G g G^T for each filter
// g (output channel k, input channel c of its group), from K x C/groups x r x r taps to alpha^2
// planes of K x C/groups values (common/xconv_winograd_transforms.h has the matrices).
//
// One work-item per filter: it applies the integer part of G to the columns, then the rows, and
// scales element (i, j) once by scale_i * scale_j, so each value is rounded a few times at most
// and is the same on every device. Plane xi (= i * alpha + j) of U is read either by the
// batched GEMM (XC_WINO_U_CK 0: U[xi][k][c], per group a K/groups x C/groups row-major matrix,
// its A operand) or by the fused kernel (1: U[xi][g][c][k], per group C/groups rows of
// K/groups values, read along k). U is a workspace region: (u, u_offset in floats).
// No tile parameters.

#ifndef XC_WINO_M
#define XC_WINO_M 2     // output tile side m of F(m x m, r x r): 2 or 4 with r 3, 2 with r 5
#endif
#ifndef XC_WINO_U_CK
#define XC_WINO_U_CK 0  // layout of U: 0 [xi][k][c] (the GEMM's A), 1 [xi][g][c][k] (fused)
#endif

#include "xconv_winograd_transforms.h"
#include "xconv_winograd.h"

XC_KERNEL void winograd_filter(const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                               XC_GLOBAL float *XC_RESTRICT u, const int u_offset XC_BATCH_PARAM)
{
    const int f = XC_GLOBAL_ID(0);  // filter k * CG + c, bound K * CG
    if (f >= XC_K * XC_CG)
        return;
    float g[XC_R * XC_R];
#pragma unroll
    for (int i = 0; i < XC_R * XC_R; i++)
        g[i] = XC_LD(w, f * XC_R * XC_R + i);
    float t[XC_WINO_A * XC_R];  // G_INT g: alpha x r
    float v[XC_WINO_AA];        // G_INT g G_INT^T: alpha x alpha
    XC_WINO_G_2D(v, g, t)
    const float scale[XC_WINO_AA] = XC_WINO_S2;
#if XC_WINO_U_CK
    const int k = f / XC_CG;
    const int c = f % XC_CG;
    const int at = ((k / XC_KG) * XC_CG + c) * XC_KG + k % XC_KG;  // [g][c][k % KG]
#else
    const int at = f;                                                // [k][c]
#endif
    XC_GLOBAL float *out = u + u_offset + at;
#pragma unroll
    for (int xi = 0; xi < XC_WINO_AA; xi++)
        out[xi * XC_K * XC_CG] = v[xi] * scale[xi];
}
