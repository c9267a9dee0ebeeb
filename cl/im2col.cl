// SPDX-License-Identifier: MIT
// im2col: unfolds a chunk of images into the columns of a matrix so that convolution becomes a
// matrix product. For image i of the chunk, col[i] is (C*R*S) x (P*Q): row (c, r, s), column
// (p, q) holds x[n0+i][c][p*stride - pad + r*dil][q*stride - pad + s*dil], or 0 in the padding.
// Channels of one group are contiguous rows, so group g's block starts at row g*(C/groups)*R*S.
// One work-item per (image, c, r, p, q) writes the S columns of its filter row: its indices are
// decoded once for S elements, and neighbouring work-items write neighbouring addresses.
// No tile parameters.

#define XC_COL_COLS (XC_P * XC_Q)

XC_KERNEL void im2col(const XC_GLOBAL float *XC_RESTRICT x, XC_GLOBAL float *XC_RESTRICT col,
                      const int n0, const int images XC_BATCH_PARAM)
{
    const int pq = XC_GLOBAL_ID(0);     // output position p*Q + q, bound XC_P*XC_Q
    const int cr = XC_GLOBAL_ID(1);     // input channel and filter row c*R + r, bound XC_C*XC_R
    const int image = XC_GLOBAL_ID(2);  // image of the chunk, bound images
    if (pq >= XC_COL_COLS || cr >= XC_C * XC_R || image >= images)
        return;
    const int p = pq / XC_Q;
    const int q = pq - p * XC_Q;
    const int c = cr / XC_R;
    const int r = cr - c * XC_R;
    const int ih = p * XC_STRIDE_H - XC_PAD_H + r * XC_DIL_H;
    const bool row_inside = ih >= 0 && ih < XC_H;
    const int x_row = (((n0 + image) * XC_C + c) * XC_H + (row_inside ? ih : 0)) * XC_W;
    XC_GLOBAL float *out = col + (image * XC_C * XC_R + cr) * XC_S * XC_COL_COLS + pq;
    for (int s = 0; s < XC_S; s++) {
        const int iw = q * XC_STRIDE_W - XC_PAD_W + s * XC_DIL_W;
        out[s * XC_COL_COLS] = row_inside && iw >= 0 && iw < XC_W ? x[x_row + iw] : 0.0f;
    }
}
