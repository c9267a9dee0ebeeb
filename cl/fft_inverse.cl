// SPDX-License-Identifier: MIT
// fft_inverse: the 2-D complex-to-real inverse FFTs of FFT convolution, cropped: each output
// spectrum (one image or tile, one output channel) back to the outputs it holds, written to y.
//
// A work-group transforms XC_FFT_PLANES half spectra as PLANES/2 complex transforms: the
// spectra Y1 and Y2 of columns b = 2p and 2p+1 are extended to full LH x LW spectra by
// Hermitian symmetry (Y(u, v) = conj Y(-u, -v) for v > LW/2) and combined as Z = Y1 + i Y2,
// whose inverse is y1 + i y2 with both planes real: each stored frequency is read once and
// gives Z(u, v) and, past the stored half, Z(-u, -v). Z is stored at the positions the forward
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
#define XC_FFT_LOAD_BATCH 2  // stored frequencies a work-item reads before it stores them

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

#if XC_POOL_H
// Part `part` of z: its real (0) or imaginary (1) half, the outputs of one of a pair of channels.
XC_FUNC float xc_fft_part(const float2 z, const int part)
{
    return part ? z.y : z.x;
}

// Stores the pooled outputs of the frame (real plane `part` of the local pair `frame`) of tile
// t of image n, output channel k into y's Y_H x Y_W layout, after the bias and activation: the
// pooled outputs whose windows the frame holds. Work-items share the loop.
XC_FUNC void xc_fft_crop_pool(XC_GLOBAL XC_DATA *y, XC_LOCAL_PTR const float2 *frame,
                              const int part, const int n, const int k,
                              const int t XC_EPI_BIAS_FUNC_PARAM)
{
    const int th = t / XC_FFT_TILES_W, tw = t % XC_FFT_TILES_W;  // tile row, column
    const int p0 = th * XC_FFT_OUT_H, q0 = tw * XC_FFT_OUT_W;     // its first output
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
}
#else
// Stores the cropped outputs of both real planes of the local pair `frame`, spectrum columns b
// (the real parts) and b + 1 (the imaginary parts, when b + 1 < columns) of the pass from
// image n0, output channel k, into y after the bias and activation: P x Q outputs, each frame
// element read once for both. Work-items share the loop; neighbouring work-items write
// neighbouring output columns of each plane.
XC_FUNC void xc_fft_crop_pair(XC_GLOBAL XC_DATA *y, XC_LOCAL_PTR const float2 *frame,
                              const int b, const int columns, const int n0,
                              const int k XC_EPI_BIAS_FUNC_PARAM)
{
    const int second = b + 1 < columns;
    const int t1 = b % XC_FFT_TILES, t2 = (b + 1) % XC_FFT_TILES;  // the planes' tiles
    // The planes' output planes: channel k of their images.
    const int o1 = ((n0 + b / XC_FFT_TILES) * XC_K + k) * XC_P * XC_Q;
    const int o2 = ((n0 + (b + 1) / XC_FFT_TILES) * XC_K + k) * XC_P * XC_Q;
    const int p1 = (t1 / XC_FFT_TILES_W) * XC_FFT_OUT_H;  // the tiles' first outputs
    const int q1 = (t1 % XC_FFT_TILES_W) * XC_FFT_OUT_W;
    const int p2 = (t2 / XC_FFT_TILES_W) * XC_FFT_OUT_H;
    const int q2 = (t2 % XC_FFT_TILES_W) * XC_FFT_OUT_W;
    // Element e = i * OUT_W + j: (i, j) steps by THREADS elements (XC_FFT_STEP_2D).
    int i = XC_LOCAL_ID(0) / XC_FFT_OUT_W, j = XC_LOCAL_ID(0) % XC_FFT_OUT_W;  // row, column
    for (int e = XC_LOCAL_ID(0); e < XC_FFT_ROWS_OUT * XC_FFT_OUT_W; e += XC_FFT_THREADS) {
        const float2 z = frame[i * XC_FFT_PITCH + j];
        if (p1 + i < XC_P && q1 + j < XC_Q)
            XC_ST(y, o1 + (p1 + i) * XC_Q + q1 + j, XC_EPI(z.x, k));
        if (second && p2 + i < XC_P && q2 + j < XC_Q)
            XC_ST(y, o2 + (p2 + i) * XC_Q + q2 + j, XC_EPI(z.y, k));
        XC_FFT_STEP_2D(i, j, XC_FFT_OUT_W);
    }
}
#endif

// The stored halves Y1, Y2 of columns b and b + 1 (`second`: b + 1 exists) at frequency f:
// .xy Y1(f), .zw Y2(f), from `in`, element (f, b) at in[f * stride + b] (complex).
XC_FUNC float4 xc_fft_stored(const XC_GLOBAL float *XC_RESTRICT in, const int stride,
                             const int f, const int second)
{
    const XC_GLOBAL float *s = in + 2 * f * stride;
    if (XC_FFT_BATCH % 2 == 0 && second)
        return XC_LOAD4(s, 0);
    return XC_MAKE_FLOAT4(s[0], s[1], second ? s[2] : 0.0f, second ? s[3] : 0.0f);
}

// Z = Y1 + i Y2 at a frequency whose stored Y1, Y2 are y (.xy, .zw), or (mirror) at its
// negative, where Y(-u, -v) = conj Y(u, v).
XC_FUNC float2 xc_fft_combine(float4 y, const int mirror)
{
    if (mirror) {
        y.y = -y.y;
        y.w = -y.w;
    }
    return XC_MAKE_FLOAT2(y.x - y.w, y.y + y.z);
}

// Local position of natural frequency (u, v) of the full spectrum within a pair's frame, from
// the position table (xc_fft_position_table).
XC_FUNC int xc_fft_frame_position(XC_LOCAL_PTR const float2 *pos, const int u, const int v)
{
    return XC_FFT_POS(pos, u) + XC_FFT_POS(pos, XC_FFT_LH + v);
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
    // The load places frequencies by the position table, which the twiddles then replace.
    XC_LOCAL_PTR const float2 *pos = tw_h;
    xc_fft_position_table(tw_h);
    XC_BARRIER();

    // Load: each stored frequency (u, v), v <= LW/2, once, as one 16-byte read of both
    // columns' halves, into Z(u, v) and, where v has a mirror -v past the stored half, into
    // Z(-u, -v) (Hermitian symmetry). Reading the stored half alone halves the global reads,
    // each a scattered 16 bytes (frequencies are K x BATCH complex numbers apart). A work-item
    // issues XC_FFT_LOAD_BATCH reads before it stores any, so that they are in flight
    // together. Neighbouring work-items take neighbouring pairs, then frequencies.
    for (int e0 = 0; e0 < XC_FFT_PAIRS * XC_FFT_FREQS;
         e0 += XC_FFT_LOAD_BATCH * XC_FFT_THREADS) {
        float4 got[XC_FFT_LOAD_BATCH];
#pragma unroll
        for (int r = 0; r < XC_FFT_LOAD_BATCH; r++) {
            const int e = e0 + r * XC_FFT_THREADS + XC_LOCAL_ID(0);
            const int p = e % XC_FFT_PAIRS;  // pair, bound PAIRS
            const int f = e / XC_FFT_PAIRS;  // stored frequency, bound FREQS
            const int b = b0 + 2 * p;        // the pair's first column
            got[r] = f < XC_FFT_FREQS && b < columns
                         ? xc_fft_stored(in + 4 * p, XC_K * XC_FFT_BATCH, f, b + 1 < columns)
                         : XC_MAKE_FLOAT4(0.0f, 0.0f, 0.0f, 0.0f);
        }
#pragma unroll
        for (int r = 0; r < XC_FFT_LOAD_BATCH; r++) {
            const int e = e0 + r * XC_FFT_THREADS + XC_LOCAL_ID(0);
            const int p = e % XC_FFT_PAIRS, f = e / XC_FFT_PAIRS;
            if (f >= XC_FFT_FREQS)
                break;
            const int u = f / XC_FFT_COLS, v = f % XC_FFT_COLS;  // frequency row, column
            XC_LOCAL_PTR float2 *pair = buf + p * XC_FFT_PLANE_STRIDE;
            pair[xc_fft_frame_position(pos, u, v)] = xc_fft_combine(got[r], 0);
            if (v > 0 && v <= XC_FFT_LW - XC_FFT_COLS)  // -v is not stored: v's mirror
                pair[xc_fft_frame_position(pos, u ? XC_FFT_LH - u : 0, XC_FFT_LW - v)] =
                    xc_fft_combine(got[r], 1);
        }
    }
    XC_BARRIER();  // the table's reads are done: the twiddles take its place
    xc_fft_twiddles(tw_h, XC_FFT_LH);
    xc_fft_twiddles(tw_w, XC_FFT_LW);
    XC_BARRIER();

    // Columns, then the rows the crop keeps.
    const xc_fft_lines cols = {XC_FFT_PAIRS * XC_FFT_LW, XC_FFT_LW, XC_FFT_PLANE_STRIDE, 1,
                               XC_FFT_PITCH, 1};
    XC_FFT_INVERSE_LINES(buf, tw_h, XC_FFT_LH, XC_FFT_RADIX_H, cols)
    const xc_fft_lines rows = {XC_FFT_PAIRS * XC_FFT_ROWS_OUT, XC_FFT_ROWS_OUT,
                               XC_FFT_PLANE_STRIDE, XC_FFT_PITCH, 1, 0};
    XC_FFT_INVERSE_LINES(buf, tw_w, XC_FFT_LW, XC_FFT_RADIX_W, rows)

    // Crop and store.
#if XC_POOL_H
    for (int c = 0; c < XC_FFT_PLANES; c++) {  // real plane: pair c / 2, part c % 2
        const int b = b0 + c;                    // spectrum column
        if (b >= columns)
            break;
        xc_fft_crop_pool(y, buf + (c / 2) * XC_FFT_PLANE_STRIDE, c % 2, n0 + b / XC_FFT_TILES,
                         k, b % XC_FFT_TILES XC_EPI_BIAS_ARG);
    }
#else
    for (int p = 0; p < XC_FFT_PAIRS; p++) {  // pair p: columns b0 + 2p and b0 + 2p + 1
        if (b0 + 2 * p >= columns)
            break;
        xc_fft_crop_pair(y, buf + p * XC_FFT_PLANE_STRIDE, b0 + 2 * p, columns, n0,
                         k XC_EPI_BIAS_ARG);
    }
#endif
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
