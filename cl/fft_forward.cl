// SPDX-License-Identifier: MIT
// fft_forward: the 2-D real-to-complex FFTs of FFT convolution: input planes (fft_input, the
// padded image or its overlap-save tiles) and filter planes (fft_filter), each written as its
// Hermitian half spectrum, LH x (LW/2 + 1) frequencies, in frequency-major order.
//
// A work-group transforms XC_FFT_PLANES real planes as PLANES/2 complex ones: plane 2p is the
// real part and 2p+1 the imaginary part of pair p. Each pair is loaded into local memory as an
// LH x LW frame (zeros where it leaves the image or the filter), transformed along its rows
// (only the rows that can hold data) and then along its columns, in place (common/xconv_fft.h),
// and the two planes' spectra are separated while storing: X1 = (Z(u,v) + conj Z(-u,-v)) / 2,
// X2 = (Z(u,v) - conj Z(-u,-v)) / 2i, for v <= LW/2 only.
//
// Layouts (complex = two floats, real first). Input spectra: element (f, c, b) at
// (f * C + c) * XC_FFT_BATCH + b, with f = u * (LW/2 + 1) + v and b = (n - n0) * tiles + tile
// the pass's spectrum column; neighbouring work-items store neighbouring b. Filter spectra:
// element (f, k, c') at (f * K + k) * C/groups + c', conjugated and scaled by `scale`
// (1 / (LH * LW), rounded once on the host): the conjugate turns the convolution theorem's
// product into cross-correlation (the filter's flip), and the inverse FFT's normalisation is
// folded in here once. x and w are read in their storage type (XC_DATA: fp32, or fp16/bf16
// under XC_DTYPE, widened exactly by XC_LD); the spectra and all arithmetic are fp32.

#include "xconv_fft_defaults.h"
#include "xconv_fft.h"

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_FFT_MIN(a, b) ((a) < (b) ? (a) : (b))
// Frame rows that can hold input data: the whole padded image starts PAD_H rows down; a tile
// can hold data anywhere.
#if XC_FFT_TILES == 1
#define XC_FFT_IN_ROW0 XC_FFT_MIN(XC_PAD_H, XC_FFT_LH)
#define XC_FFT_IN_ROW1 XC_FFT_MIN(XC_PAD_H + XC_H, XC_FFT_LH)
#else
#define XC_FFT_IN_ROW0 0
#define XC_FFT_IN_ROW1 XC_FFT_LH
#endif

#if XC_FFT_PLANES % 2 != 0 || XC_FFT_PITCH < XC_FFT_LW
#error "fft_forward.cl: XC_FFT_PLANES must be even and XC_FFT_PITCH at least XC_FFT_LW"
#endif

// ---------------------------------------------------------------------------------------------
// The body

// Where one real plane comes from: `src` holds rows x cols floats, and frame element (i, j)
// is src[(h0 + i) * cols + w0 + j] where that lies inside, else 0. `ok` is false past the
// last plane (its frame is all zeros and its spectrum is not stored).
typedef struct xc_fft_plane {
    const XC_GLOBAL XC_DATA *src;  // x or w in the storage type (XC_LD reads it as a float)
    int h0, w0, rows, cols;
    int ok;
} xc_fft_plane;

// Plane `index` of a forward transform: spectrum column b = index of input channel c of the
// pass starting at image n0 with `columns` columns, or filter plane index (filter != 0).
XC_FUNC xc_fft_plane xc_fft_source(const XC_GLOBAL XC_DATA *src, const int filter,
                                   const int index, const int c, const int n0,
                                   const int columns)
{
    xc_fft_plane pl;
    if (filter) {
        pl.ok = index < XC_K * XC_CG;
        pl.src = src + (pl.ok ? index * XC_R * XC_S : 0);
        pl.h0 = pl.w0 = 0;
        pl.rows = XC_R;
        pl.cols = XC_S;
    } else {
        const int n = n0 + index / XC_FFT_TILES, t = index % XC_FFT_TILES;  // image, tile
        pl.ok = index < columns;
        pl.src = src + (pl.ok ? (n * XC_C + c) * XC_H * XC_W : 0);
        pl.h0 = (t / XC_FFT_TILES_W) * XC_FFT_OUT_H - XC_PAD_H;
        pl.w0 = (t % XC_FFT_TILES_W) * XC_FFT_OUT_W - XC_PAD_W;
        pl.rows = XC_H;
        pl.cols = XC_W;
    }
    return pl;
}

XC_FUNC float xc_fft_frame(const xc_fft_plane pl, const int i, const int j)
{
    const int h = pl.h0 + i, w = pl.w0 + j;
    return pl.ok && (unsigned)h < (unsigned)pl.rows && (unsigned)w < (unsigned)pl.cols
               ? XC_LD(pl.src, h * pl.cols + w)
               : 0.0f;
}

// Loads the work-group's pairs (planes first + 2p and first + 2p + 1 of xc_fft_source, as
// real and imaginary parts) as LH x LW frames, transforms rows [row0, row1) along the width
// and then every column along the height. buf holds the pairs, then the height's and the
// width's twiddles, which the frames' position table (xc_fft_position_table) replaces at the
// end, ready to read.
XC_FUNC void xc_fft_forward_2d(XC_LOCAL_PTR float2 *buf, const XC_GLOBAL XC_DATA *src,
                               const int filter, const int first, const int c, const int n0,
                               const int columns, const int row0, const int row1)
{
    XC_LOCAL_PTR float2 *tw_h = buf + XC_FFT_PAIRS * XC_FFT_PLANE_STRIDE;
    XC_LOCAL_PTR float2 *tw_w = tw_h + XC_FFT_LH;
    xc_fft_twiddles(tw_h, XC_FFT_LH);
    xc_fft_twiddles(tw_w, XC_FFT_LW);
#pragma unroll
    for (int p = 0; p < XC_FFT_PAIRS; p++) {
        const xc_fft_plane re = xc_fft_source(src, filter, first + 2 * p, c, n0, columns);
        const xc_fft_plane im = xc_fft_source(src, filter, first + 2 * p + 1, c, n0, columns);
        // Element e = i * LW + j: (i, j) steps by THREADS elements (XC_FFT_STEP_2D).
        int i = XC_LOCAL_ID(0) / XC_FFT_LW, j = XC_LOCAL_ID(0) % XC_FFT_LW;  // row, column
        for (int e = XC_LOCAL_ID(0); e < XC_FFT_LH * XC_FFT_LW; e += XC_FFT_THREADS) {
            buf[p * XC_FFT_PLANE_STRIDE + i * XC_FFT_PITCH + j] =
                XC_MAKE_FLOAT2(xc_fft_frame(re, i, j), xc_fft_frame(im, i, j));
            XC_FFT_STEP_2D(i, j, XC_FFT_LW);
        }
    }
    XC_BARRIER();
    const xc_fft_lines rows = {XC_FFT_PAIRS * (row1 - row0), row1 - row0, XC_FFT_PLANE_STRIDE,
                               XC_FFT_PITCH, 1, 0};
    XC_FFT_FORWARD_LINES(buf + row0 * XC_FFT_PITCH, tw_w, XC_FFT_LW, XC_FFT_RADIX_W, rows)
    const xc_fft_lines cols = {XC_FFT_PAIRS * XC_FFT_LW, XC_FFT_LW, XC_FFT_PLANE_STRIDE, 1,
                               XC_FFT_PITCH, 1};
    XC_FFT_FORWARD_LINES(buf, tw_h, XC_FFT_LH, XC_FFT_RADIX_H, cols)
    xc_fft_position_table(tw_h);  // the passes' last barrier is behind
    XC_BARRIER();
}

// The two planes of pair p at frequency f (natural order), separated from the transform of
// its planes (real and imaginary parts): .xy the first plane's, .zw the second's. buf holds the
// pairs, then the position table (xc_fft_forward_2d leaves it there).
XC_FUNC float4 xc_fft_separate(XC_LOCAL_PTR const float2 *buf, const int p, const int f)
{
    XC_LOCAL_PTR const float2 *pos = buf + XC_FFT_PAIRS * XC_FFT_PLANE_STRIDE;
    const int u = f / XC_FFT_COLS, v = f % XC_FFT_COLS;
    XC_LOCAL_PTR const float2 *pair = buf + p * XC_FFT_PLANE_STRIDE;
    const float2 z = pair[XC_FFT_POS(pos, u) + XC_FFT_POS(pos, XC_FFT_LH + v)];
    const int um = u ? XC_FFT_LH - u : 0, vm = v ? XC_FFT_LW - v : 0;  // -u, -v
    const float2 zm = pair[XC_FFT_POS(pos, um) + XC_FFT_POS(pos, XC_FFT_LH + vm)];
    return XC_MAKE_FLOAT4((z.x + zm.x) * 0.5f, (z.y - zm.y) * 0.5f, (z.y + zm.y) * 0.5f,
                          (zm.x - z.x) * 0.5f);
}

// ---------------------------------------------------------------------------------------------
// Entry points

// Input spectra of one pass: images n0 .. n0 + images - 1, every tile. xf + xf_offset: the
// input-spectra region (floats). Work-group id 0: a block of PLANES spectrum columns b;
// id 1: the input channel c.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_FFT_THREADS, 1, 1)
void fft_input(const XC_GLOBAL XC_DATA *XC_RESTRICT x, XC_GLOBAL float *XC_RESTRICT xf,
               const int xf_offset, const int n0, const int images XC_BATCH_PARAM)
{
    XC_LOCAL float2 buf[XC_FFT_LOCAL];
    const int c = XC_GROUP_ID(1);                   // input channel, bound C
    const int b0 = XC_GROUP_ID(0) * XC_FFT_PLANES;  // first spectrum column
    const int columns = images * XC_FFT_TILES;      // spectrum columns of this pass
    xc_fft_forward_2d(buf, x, 0, b0, c, n0, columns, XC_FFT_IN_ROW0, XC_FFT_IN_ROW1);
    XC_GLOBAL float *out = xf + xf_offset + 2 * (c * XC_FFT_BATCH + b0);
    for (int e = XC_LOCAL_ID(0); e < XC_FFT_PAIRS * XC_FFT_FREQS; e += XC_FFT_THREADS) {
        const int p = e % XC_FFT_PAIRS;  // pair: neighbouring items, neighbouring columns
        const int f = e / XC_FFT_PAIRS;  // frequency, bound FREQS
        const int b = b0 + 2 * p;        // the pair's first column
        if (b >= columns)
            continue;
        const float4 s = xc_fft_separate(buf, p, f);
        XC_GLOBAL float *o = out + 2 * (f * XC_C * XC_FFT_BATCH + 2 * p);
        if (XC_FFT_BATCH % 2 == 0 && b + 1 < columns) {
            XC_STORE4(s, o, 0);
        } else {
            o[0] = s.x;
            o[1] = s.y;
            if (b + 1 < columns) {
                o[2] = s.z;
                o[3] = s.w;
            }
        }
    }
}

// Filter spectra: planes (k, c') = k * C/groups + c', PLANES per work-group (id 0), each
// conjugated and multiplied by scale. wf + wf_offset: the filter-spectra region (floats).
XC_KERNEL XC_WORK_GROUP_SIZE(XC_FFT_THREADS, 1, 1)
void fft_filter(const XC_GLOBAL XC_DATA *XC_RESTRICT w, XC_GLOBAL float *XC_RESTRICT wf,
                const int wf_offset, const float scale XC_BATCH_PARAM)
{
    XC_LOCAL float2 buf[XC_FFT_LOCAL];
    const int pl0 = XC_GROUP_ID(0) * XC_FFT_PLANES;  // first filter plane
    xc_fft_forward_2d(buf, w, 1, pl0, 0, 0, 0, 0, XC_FFT_MIN(XC_R, XC_FFT_LH));
    XC_GLOBAL float *out = wf + wf_offset + 2 * pl0;
    for (int e = XC_LOCAL_ID(0); e < XC_FFT_PAIRS * XC_FFT_FREQS; e += XC_FFT_THREADS) {
        const int p = e % XC_FFT_PAIRS;  // pair
        const int f = e / XC_FFT_PAIRS;  // frequency, bound FREQS
        const int pl = pl0 + 2 * p;      // the pair's first plane
        if (pl >= XC_K * XC_CG)
            continue;
        const float4 s = xc_fft_separate(buf, p, f);
        XC_GLOBAL float *o = out + 2 * (f * XC_K * XC_CG + 2 * p);
        // Neighbouring work-items store neighbouring frequencies, a plane-count of floats
        // apart: one 16-byte store a work-item where the pair is whole (o is 16-byte aligned when
        // K * C/groups is even), not four 4-byte ones. Four partial writes a sector kept the
        // H100's L2 at 78% of its throughput and made conv5x5's filter transform 2.5x slower
        // than its input transform of as many planes.
        if ((XC_K * XC_CG) % 2 == 0 && pl + 1 < XC_K * XC_CG) {
            XC_STORE4(XC_MAKE_FLOAT4(s.x * scale, -(s.y * scale), s.z * scale, -(s.w * scale)),
                      o, 0);
        } else {
            o[0] = s.x * scale;
            o[1] = -(s.y * scale);
            if (pl + 1 < XC_K * XC_CG) {
                o[2] = s.z * scale;
                o[3] = -(s.w * scale);
            }
        }
    }
}
