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
// the two planes' outputs. No normalisation here: the filter spectra carry 1 / (LH * LW). The
// outputs are rounded once into y's storage type (XC_ST).
//
// The crop: frame element (i, j) of spectrum column b = (n - n0) * tiles + t is output
// (n, k, ty * OUT_H + i, tx * OUT_W + j) of tile t = ty * TILES_W + tx, for i < OUT_H,
// j < OUT_W inside P x Q. The forward frames started PAD rows and columns before each tile,
// so padding needs nothing here.
//
// The epilogue (common/xconv_epilogue.h) applies in the crop: bias and activation to every
// output it stores; a max-pool where the frames hold whole windows, along each direction either
// one tile (the whole image: any window, stride and padding) or tiles of a whole number of
// unpadded windows as wide as their stride. A pooling crop stores, per frame, the pooled outputs
// whose windows it holds, each window's maximum taken in row-major order as cl/epilogue.cl does.

#include "xconv_epilogue.h"
#include "xconv_fft_defaults.h"
#include "xconv_fft.h"

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_FFT_ROWS_OUT (XC_FFT_OUT_H < XC_FFT_LH ? XC_FFT_OUT_H : XC_FFT_LH)  // rows kept

#if XC_FFT_PLANES % 2 != 0 || XC_FFT_PITCH < XC_FFT_LW
#error "fft_inverse.cl: XC_FFT_PLANES must be even and XC_FFT_PITCH at least XC_FFT_LW"
#endif

#if XC_POOL_H
#if XC_FFT_TILES_H > 1 && (XC_POOL_PAD_H || XC_POOL_STRIDE_H != XC_POOL_H ||                 \
                           XC_FFT_OUT_H % XC_POOL_H)
#error "fft_inverse.cl: a pool across tiles needs unpadded windows as tall as their stride"
#endif
#if XC_FFT_TILES_W > 1 && (XC_POOL_PAD_W || XC_POOL_STRIDE_W != XC_POOL_W ||                 \
                           XC_FFT_OUT_W % XC_POOL_W)
#error "fft_inverse.cl: a pool across tiles needs unpadded windows as wide as their stride"
#endif
// Pooled outputs per frame: all of them for one tile, else the tile's whole windows.
#define XC_FFT_POOL_ROWS (XC_FFT_TILES_H > 1 ? XC_FFT_OUT_H / XC_POOL_H : XC_Y_H)
#define XC_FFT_POOL_COLS (XC_FFT_TILES_W > 1 ? XC_FFT_OUT_W / XC_POOL_W : XC_Y_W)
#endif

// ---------------------------------------------------------------------------------------------
// The body

// Part `part` of z: its real (0) or imaginary (1) half, the outputs of one of a pair of channels.
XC_FUNC float xc_fft_part(const float2 z, const int part)
{
    return part ? z.y : z.x;
}

// Stores the cropped outputs of the frame (real plane `part` of the local pair `frame`) of tile
// t of image n, output channel k into y, after the bias and activation: P x Q outputs, or with
// a fused pool the frame's pooled outputs into y's Y_H x Y_W layout. Work-items share the loop.
XC_FUNC void xc_fft_crop(XC_GLOBAL XC_DATA *y, XC_LOCAL_PTR const float2 *frame, const int part,
                         const int n, const int k, const int t XC_EPI_BIAS_FUNC_PARAM)
{
    const int th = t / XC_FFT_TILES_W, tw = t % XC_FFT_TILES_W;  // tile row, column
    const int p0 = th * XC_FFT_OUT_H, q0 = tw * XC_FFT_OUT_W;     // its first output
#if XC_POOL_H
    for (int e = XC_LOCAL_ID(0); e < XC_FFT_POOL_ROWS * XC_FFT_POOL_COLS; e += XC_FFT_THREADS) {
        const int yr = th * XC_FFT_POOL_ROWS + e / XC_FFT_POOL_COLS;  // pooled row, < Y_H kept
        const int yc = tw * XC_FFT_POOL_COLS + e % XC_FFT_POOL_COLS;  // pooled column, < Y_W
        const int r0 = yr * XC_POOL_STRIDE_H - XC_POOL_PAD_H;
        const int c0 = yc * XC_POOL_STRIDE_W - XC_POOL_PAD_W;
        float m = XC_EPI_NEG_INF;
#define XC_FFT_FRAME_VALUE(r, c) \
    XC_EPI(xc_fft_part(frame[((r) - p0) * XC_FFT_PITCH + (c) - q0], part), k)
        XC_POOL_WINDOW_MAX(m, r0, c0, XC_FFT_FRAME_VALUE)
#undef XC_FFT_FRAME_VALUE
        if (yr < XC_Y_H && yc < XC_Y_W)
            XC_ST(y, ((n * XC_K + k) * XC_Y_H + yr) * XC_Y_W + yc, m);
    }
#else
    // Neighbouring work-items write neighbouring output columns.
    for (int e = XC_LOCAL_ID(0); e < XC_FFT_ROWS_OUT * XC_FFT_OUT_W; e += XC_FFT_THREADS) {
        const int i = e / XC_FFT_OUT_W, j = e % XC_FFT_OUT_W;  // frame row, column
        const float2 z = frame[i * XC_FFT_PITCH + j];
        if (p0 + i < XC_P && q0 + j < XC_Q)
            XC_ST(y, ((n * XC_K + k) * XC_P + p0 + i) * XC_Q + q0 + j,
                  XC_EPI(xc_fft_part(z, part), k));
    }
#endif
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
                                 XC_GLOBAL XC_DATA *y, const int k, const int b0, const int n0,
                                 const int columns XC_EPI_BIAS_FUNC_PARAM)
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

    // Crop and store, plane by plane.
    for (int c = 0; c < XC_FFT_PLANES; c++) {  // real plane: pair c / 2, part c % 2
        const int b = b0 + c;                    // spectrum column
        if (b >= columns)
            break;
        xc_fft_crop(y, buf + (c / 2) * XC_FFT_PLANE_STRIDE, c % 2, n0 + b / XC_FFT_TILES,
                    k, b % XC_FFT_TILES XC_EPI_BIAS_ARG);
    }
}

// ---------------------------------------------------------------------------------------------
// Entry point

// Outputs of one pass: images n0 .. n0 + images - 1. yf + yf_offset: the output-spectra region
// (floats), element (f, k, b) at (f * K + k) * XC_FFT_BATCH + b. Work-group id 0: a block of
// PLANES spectrum columns; id 1: the output channel k. With XC_EPI_BIAS, the bias comes last.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_FFT_THREADS, 1, 1)
void fft_output(const XC_GLOBAL float *XC_RESTRICT yf, const int yf_offset,
                XC_GLOBAL XC_DATA *XC_RESTRICT y, const int n0, const int images
                XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
    XC_LOCAL float2 buf[XC_FFT_LOCAL];
    const int k = XC_GROUP_ID(1);                   // output channel, bound K
    const int b0 = XC_GROUP_ID(0) * XC_FFT_PLANES;  // first spectrum column
    xc_fft_inverse_body(buf, yf + yf_offset + 2 * (k * XC_FFT_BATCH + b0), y, k, b0, n0,
                        images * XC_FFT_TILES XC_EPI_BIAS_ARG);
}
