// SPDX-License-Identifier: MIT
// implicit_precomp_table: the offset table of the implicit_precomp variant (the workspace that
// cuDNN's IMPLICIT_PRECOMP_GEMM keeps). Row kk = (c, r, s) of the GEMM's input operand reads
// x[n][g*CG + c][p*stride_h - pad_h + r*dil_h][q*stride_w - pad_w + s*dil_w]; its part that does
// not depend on the output position is precomputed once per problem, for rows kk < CG*R*S:
//   table[kk]            = c*H*W + r*dil_h*W + s*dil_w   (offset from the window's corner)
//   table[TABLE_LD + kk] = (r*dil_h) << 16 | s*dil_w     (the tap's displacement, for bounds)
// and zeros up to XC_GEMM_TABLE_LD (K rounded up to whole K steps of the GEMM), so the GEMM
// (cl/sgemm.cl, XC_GEMM_B_MODE 2) reads whole int4s of two ints per row instead of dividing kk
// by R*S and S. The planner checks that both displacements stay under 2^15.
// No tile parameters: one work-item per row.

#define XC_TABLE_ROWS (XC_CG * XC_R * XC_S)
#ifndef XC_GEMM_TABLE_LD
#define XC_GEMM_TABLE_LD XC_TABLE_ROWS  // rows of the table, padded (from the planner)
#endif

XC_KERNEL void implicit_precomp_table(XC_GLOBAL int *XC_RESTRICT table XC_BATCH_PARAM)
{
    const int kk = XC_GLOBAL_ID(0);  // row (c, r, s) of the GEMM's input operand, bound LD
    if (kk >= XC_GEMM_TABLE_LD)
        return;
    const int c = kk / (XC_R * XC_S);
    const int r = (kk / XC_S) % XC_R;
    const int s = kk % XC_S;
    const int dh = r * XC_DIL_H;
    const int dw = s * XC_DIL_W;
    const bool row = kk < XC_TABLE_ROWS;
    table[kk] = row ? c * XC_H * XC_W + dh * XC_W + dw : 0;
    table[XC_GEMM_TABLE_LD + kk] = row ? (dh << 16) | dw : 0;
}
