// SPDX-License-Identifier: MIT
// fft_inverse: the 2-D complex-to-real inverse FFTs of FFT convolution, cropped: each output
// spectrum (one image or tile, one output channel) back to the outputs it holds, written to y.
//
// A work-group transforms XC_FFT_PLANES half spectra as PLANES/2 complex transforms: the
// spectra Y1 and Y2 of columns b = 2p and 2p+1 are extended to full LH x LW spectra by
// Hermitian symmetry (Y(u, v) = conj Y(-u, -v) for v > LW/2) and combined as Z = Y1 + i Y2,
// whose inverse is y1 + i y2 with both planes real. Z is stored at the positions the forward
// passes would leave it in (common/xconv_fft.h), transformed along the columns, then along the
// rows the crop keeps (DIT passes, natural order out), and the real and imaginary parts go to
// the two planes' outputs. No normalisation here: the filter spectra carry 1 / (LH * LW).
//
// The crop: frame element (i, j) of spectrum column b = (n - n0) * tiles + t is output
// (n, k, ty * OUT_H + i, tx * OUT_W + j) of tile t = ty * TILES_W + tx, for i < OUT_H,
// j < OUT_W inside P x Q. The forward frames started PAD rows and columns before each tile,
// so padding needs nothing here.

#include "xconv_fft.h"

// ---------------------------------------------------------------------------------------------
// Parameters (host/plan_fft.c; meanings as in cl/fft_forward.cl)

#ifndef XC_FFT_PLANES
#define XC_FFT_PLANES 2     // real planes per work-group, even: 2..8
#endif
#ifndef XC_FFT_PITCH
#define XC_FFT_PITCH XC_FFT_LW  // complex elements per local row (>= LW)
#endif
#ifndef XC_FFT_TILES_H
#define XC_FFT_TILES_H 1    // overlap-save tiles per image along the height (1: whole image)
#endif
#ifndef XC_FFT_TILES_W
#define XC_FFT_TILES_W 1
#endif
#ifndef XC_FFT_OUT_H
#define XC_FFT_OUT_H XC_P   // output rows per tile (whole image: P; tiles: LH - R + 1)
#endif
#ifndef XC_FFT_OUT_W
#define XC_FFT_OUT_W XC_Q
#endif
#ifndef XC_FFT_BATCH
#define XC_FFT_BATCH (XC_N * XC_FFT_TILES_H * XC_FFT_TILES_W)  // spectrum columns per pass
#endif

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_FFT_TILES (XC_FFT_TILES_H * XC_FFT_TILES_W)
#define XC_FFT_PAIRS (XC_FFT_PLANES / 2)
#define XC_FFT_PLANE_STRIDE (XC_FFT_LH * XC_FFT_PITCH)
#define XC_FFT_LOCAL (XC_FFT_PAIRS * XC_FFT_PLANE_STRIDE + XC_FFT_LH + XC_FFT_LW)
#define XC_FFT_ROWS_OUT (XC_FFT_OUT_H < XC_FFT_LH ? XC_FFT_OUT_H : XC_FFT_LH)  // rows kept

#if XC_FFT_PLANES % 2 != 0 || XC_FFT_PITCH < XC_FFT_LW
#error "fft_inverse.cl: XC_FFT_PLANES must be even and XC_FFT_PITCH at least XC_FFT_LW"
#endif

// ---------------------------------------------------------------------------------------------
// The body

// Writes v as output (n, k, p, q) of y: the one store of the inverse, where an epilogue (bias,
// activation) would apply.
XC_FUNC void xc_fft_store(XC_GLOBAL float *y, const int n, const int k, const int p,
                          const int q, const float v)
{
    y[((n * XC_K + k) * XC_P + p) * XC_Q + q] = v;
}

// Y1 + i Y2 at natural frequency (u, v) of the full spectrum, from the stored halves of
// columns b and b + 1 (`second`: b + 1 exists) at `in`, element (f, b) at in[f * stride + b].
XC_FUNC float2 xc_fft_combine(const XC_GLOBAL float *XC_RESTRICT in, const int stride,
                              const int u, const int v, const int second)
{
    const int mirror = v >= XC_FFT_COLS;                             // Y(u,v) = conj Y(-u,-v)
    const int uu = mirror && u ? XC_FFT_LH - u : u;
    const int f = uu * XC_FFT_COLS + (mirror ? XC_FFT_LW - v : v);  // stored frequency
    const XC_GLOBAL float *s = in + 2 * f * stride;
    float4 y;  // Y1 in .xy, Y2 in .zw
    if (XC_FFT_BATCH % 2 == 0 && second)
        y = XC_LOAD4(s, 0);
    else
        y = XC_MAKE_FLOAT4(s[0], s[1], second ? s[2] : 0.0f, second ? s[3] : 0.0f);
    if (mirror) {
        y.y = -y.y;
        y.w = -y.w;
    }
    return XC_MAKE_FLOAT2(y.x - y.w, y.y + y.z);
}

// Transforms the work-group's spectrum columns b0, b0 + 1, ... of output channel k back to
// their frames and writes the cropped outputs to y. buf holds the pairs, then the height's and
// the width's twiddles.
XC_FUNC void xc_fft_inverse_body(XC_LOCAL_PTR float2 *buf, const XC_GLOBAL float *in,
                                 XC_GLOBAL float *y, const int k, const int b0, const int n0,
                                 const int columns)
{
    XC_LOCAL_PTR float2 *tw_h = buf + XC_FFT_PAIRS * XC_FFT_PLANE_STRIDE;
    XC_LOCAL_PTR float2 *tw_w = tw_h + XC_FFT_LH;
    xc_fft_twiddles(tw_h, XC_FFT_LH);
    xc_fft_twiddles(tw_w, XC_FFT_LW);

    // Load: neighbouring work-items take neighbouring pairs, then frequencies.
    for (int e = XC_LOCAL_ID(0); e < XC_FFT_PAIRS * XC_FFT_LH * XC_FFT_LW; e += XC_FFT_THREADS) {
        const int p = e % XC_FFT_PAIRS;                // pair, bound PAIRS
        const int v = (e / XC_FFT_PAIRS) % XC_FFT_LW;  // frequency column, bound LW
        const int u = e / (XC_FFT_PAIRS * XC_FFT_LW);  // frequency row, bound LH
        const int b = b0 + 2 * p;
        const float2 z = b < columns ? xc_fft_combine(in + 4 * p, XC_K * XC_FFT_BATCH, u, v,
                                                      b + 1 < columns)
                                     : XC_MAKE_FLOAT2(0.0f, 0.0f);
        buf[p * XC_FFT_PLANE_STRIDE +
            xc_fft_position(u, XC_FFT_LH, XC_FFT_RADIX_H) * XC_FFT_PITCH +
            xc_fft_position(v, XC_FFT_LW, XC_FFT_RADIX_W)] = z;
    }
    XC_BARRIER();

    // Columns, then the rows the crop keeps.
    const xc_fft_lines cols = {XC_FFT_PAIRS * XC_FFT_LW, XC_FFT_LW, XC_FFT_PLANE_STRIDE, 1,
                               XC_FFT_PITCH, 1};
    XC_FFT_INVERSE_LINES(buf, tw_h, XC_FFT_LH, XC_FFT_RADIX_H, cols)
    const xc_fft_lines rows = {XC_FFT_PAIRS * XC_FFT_ROWS_OUT, XC_FFT_ROWS_OUT,
                               XC_FFT_PLANE_STRIDE, XC_FFT_PITCH, 1, 0};
    XC_FFT_INVERSE_LINES(buf, tw_w, XC_FFT_LW, XC_FFT_RADIX_W, rows)

    // Crop and store: neighbouring work-items write neighbouring output columns.
    for (int c = 0; c < XC_FFT_PLANES; c++) {  // real plane: pair c / 2, part c % 2
        const int b = b0 + c;                    // spectrum column
        if (b >= columns)
            break;
        const int n = n0 + b / XC_FFT_TILES, t = b % XC_FFT_TILES;  // image, tile
        const int p0 = (t / XC_FFT_TILES_W) * XC_FFT_OUT_H;        // tile's first row
        const int q0 = (t % XC_FFT_TILES_W) * XC_FFT_OUT_W;        // and column
        XC_LOCAL_PTR const float2 *frame = buf + (c / 2) * XC_FFT_PLANE_STRIDE;
        for (int e = XC_LOCAL_ID(0); e < XC_FFT_ROWS_OUT * XC_FFT_OUT_W; e += XC_FFT_THREADS) {
            const int i = e / XC_FFT_OUT_W, j = e % XC_FFT_OUT_W;  // frame row, column
            const float2 z = frame[i * XC_FFT_PITCH + j];
            if (p0 + i < XC_P && q0 + j < XC_Q)
                xc_fft_store(y, n, k, p0 + i, q0 + j, c % 2 ? z.y : z.x);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Entry point

// Outputs of one pass: images n0 .. n0 + images - 1. yf + yf_offset: the output-spectra region
// (floats), element (f, k, b) at (f * K + k) * XC_FFT_BATCH + b. Work-group id 0: a block of
// PLANES spectrum columns; id 1: the output channel k.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_FFT_THREADS, 1, 1)
void fft_output(const XC_GLOBAL float *XC_RESTRICT yf, const int yf_offset,
                XC_GLOBAL float *XC_RESTRICT y, const int n0, const int images)
{
    XC_LOCAL float2 buf[XC_FFT_LOCAL];
    const int k = XC_GROUP_ID(1);                   // output channel, bound K
    const int b0 = XC_GROUP_ID(0) * XC_FFT_PLANES;  // first spectrum column
    xc_fft_inverse_body(buf, yf + yf_offset + 2 * (k * XC_FFT_BATCH + b0), y, k, b0, n0,
                        images * XC_FFT_TILES);
}
