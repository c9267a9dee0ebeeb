// SPDX-License-Identifier: MIT
// im2col: unfolds a chunk of images into the columns of a matrix so that convolution becomes a
// matrix product. For image i of the chunk, col[i] is (C*R*S) x (P*Q): row (c, r, s), column
// (p, q) holds x[n0+i][c][p*stride - pad + r*dil][q*stride - pad + s*dil], or 0 in the padding.
// Channels of one group are contiguous rows, so group g's block starts at row g*(C/groups)*R*S.
// No tile parameters: one work-item per column element.

#define XC_COL_ROWS (XC_C * XC_R * XC_S)
#define XC_COL_COLS (XC_P * XC_Q)

XC_KERNEL void im2col(const XC_GLOBAL float *XC_RESTRICT x, XC_GLOBAL float *XC_RESTRICT col,
                      const int n0, const int images)
{
    const int index = XC_GLOBAL_ID(0);  // flat (image, row, column), bound images*rows*cols
    if (index >= images * XC_COL_ROWS * XC_COL_COLS)
        return;
    const int pq = index % XC_COL_COLS;
    const int row = (index / XC_COL_COLS) % XC_COL_ROWS;
    const int image = index / (XC_COL_COLS * XC_COL_ROWS);
    const int s = row % XC_S;
    const int r = (row / XC_S) % XC_R;
    const int c = row / (XC_S * XC_R);
    const int ih = (pq / XC_Q) * XC_STRIDE_H - XC_PAD_H + r * XC_DIL_H;
    const int iw = (pq % XC_Q) * XC_STRIDE_W - XC_PAD_W + s * XC_DIL_W;
    float v = 0.0f;
    if (ih >= 0 && ih < XC_H && iw >= 0 && iw < XC_W)
        v = x[(((n0 + image) * XC_C + c) * XC_H + ih) * XC_W + iw];
    col[index] = v;
}
