// SPDX-License-Identifier: MIT
// direct_naive: the teaching baseline. One work-item per output element y[n][k][p][q]; it walks
// its (C/groups) x R x S window, reading x and the filter straight from global memory. A tap on
// the zero padding multiplies 0.0f, so a NaN or infinite weight there gives NaN (IEEE 754), as in
// every other variant.
// No tile parameters: the problem's shape arrives as XC_* defines (common/xconv_problem_fields.h).

#define XC_Y_ELEMS (XC_N * XC_K * XC_P * XC_Q)

XC_KERNEL void direct_naive(const XC_GLOBAL float *XC_RESTRICT x,
                            const XC_GLOBAL float *XC_RESTRICT w,
                            XC_GLOBAL float *XC_RESTRICT y)
{
    const int index = XC_GLOBAL_ID(0);  // flat NKPQ output index, bound XC_Y_ELEMS
    if (index >= XC_Y_ELEMS)
        return;
    const int q = index % XC_Q;
    const int p = (index / XC_Q) % XC_P;
    const int k = (index / (XC_Q * XC_P)) % XC_K;
    const int n = index / (XC_Q * XC_P * XC_K);
    const int c_first = (k / XC_KG) * XC_CG;  // first input channel of k's group

    float acc = 0.0f;
    for (int c = 0; c < XC_CG; c++) {
        const XC_GLOBAL float *x_plane = x + (n * XC_C + c_first + c) * XC_H * XC_W;
        const XC_GLOBAL float *w_plane = w + (k * XC_CG + c) * XC_R * XC_S;
        for (int r = 0; r < XC_R; r++) {
            const int ih = p * XC_STRIDE_H - XC_PAD_H + r * XC_DIL_H;
            const bool row_in = ih >= 0 && ih < XC_H;
            for (int s = 0; s < XC_S; s++) {
                const int iw = q * XC_STRIDE_W - XC_PAD_W + s * XC_DIL_W;
                const float xv = row_in && iw >= 0 && iw < XC_W ? x_plane[ih * XC_W + iw] : 0.0f;
                acc = XC_FMA(xv, w_plane[r * XC_S + s], acc);
            }
        }
    }
    y[index] = acc;
}
