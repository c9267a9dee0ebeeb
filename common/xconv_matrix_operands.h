// SPDX-License-Identifier: MIT
// What the matrix-engine implicit GEMMs (cl/implicit_mma.cl on NVIDIA's tensor cores,
// cl/implicit_xmx.cl on Intel's) share around their products: where a column of B (one output
// position) starts in x, and the exact value of a 16-bit element of a packed word, which their
// emulations multiply. Needs the problem's fields (XC_N, XC_P, ..., or the run-time batch).
#ifndef XCONV_MATRIX_OPERANDS_H
#define XCONV_MATRIX_OPERANDS_H

// Where column j of B (an output position of C's N x P x Q columns) starts in x: its image's
// offset and its window's corner. A column past C's has a corner far outside the image, so
// every load from it is a zero.
typedef struct xc_matrix_col {
    int offset;
    int ih0, iw0;
} xc_matrix_col;

XC_FUNC xc_matrix_col xc_matrix_column(const int j XC_BATCH_PARAM)
{
    xc_matrix_col col;
    const bool ok = j < XC_N * XC_P * XC_Q;
    const int jj = ok ? j : 0;
    const int n = jj / (XC_P * XC_Q);   // image, bound N
    const int p = (jj / XC_Q) % XC_P;   // output row, bound P
    const int q = jj % XC_Q;            // output column, bound Q
    col.ih0 = ok ? p * XC_STRIDE_H - XC_PAD_H : -1073741824;
    col.iw0 = q * XC_STRIDE_W - XC_PAD_W;
    col.offset = n * XC_C * XC_H * XC_W;
    return col;
}

// The value of the 16-bit element `upper` (0: the lower half, 1: the upper) of word w, exactly:
// bf16 (bf16 != 0) or fp16, subnormals, infinities and NaNs included.
XC_FUNC float xc_matrix_half_value(const unsigned int w, const int upper, const int bf16)
{
    const unsigned int h = upper ? w >> 16 : w & 0xffffu;
    if (bf16)
        return XC_AS_FLOAT(h << 16);
    const unsigned int sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0)  // zero or subnormal: m * 2^-24
        return (sign ? -1.0f : 1.0f) * (float)m * 5.9604644775390625e-8f;
    if (e == 31)
        return XC_AS_FLOAT(sign | 0x7f800000u | (m << 13));
    return XC_AS_FLOAT(sign | ((e + 112u) << 23) | (m << 13));
}

#endif // XCONV_MATRIX_OPERANDS_H
