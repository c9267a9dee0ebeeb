// SPDX-License-Identifier: MIT
// The FFT family's shared kernel pieces: complex arithmetic, twiddle factors computed from
// integers with a fixed polynomial, radix-2/3/4/5/8 butterflies, in-place mixed-radix passes
// over lines of a 2-D array in local memory, and the digit-reversal map between frequencies
// and positions. cl/fft_forward.cl and cl/fft_inverse.cl include it, after the family's
// parameters (common/xconv_fft_defaults.h); cmake/embed_kernels.cmake pastes both into their
// text at build time.
//
// A transform of length L = R0 * R1 * ... (each Ri in {2, 3, 4, 5, 8}) is done in place, one
// pass per radix. Forward transforms use decimation in frequency (DIF): natural order in,
// "digit-reversed" positions out; inverse transforms use decimation in time (DIT), the exact
// transpose: digit-reversed positions in, natural order out. So real data is always read and
// written in natural order, and only the spectra, which the kernels exchange through global
// memory in natural order, go through the position map (xc_fft_position).
//
// Every operation is an IEEE-754 operation in round-to-nearest (+, -, *, XC_FMA, integer to
// float conversion): no division, no sin/cos built-in, no contraction. Twiddles are computed
// from exact integer octant reduction and a fixed polynomial, so the OpenCL and CUDA builds
// round the same operations the same way and give bitwise identical transforms.
//
// A transform's radices are one define: hex digit i (from the lowest) is the radix of DIF pass
// i, e.g. 0x38 is 8 * 3 = 24 (first pass radix 8, span 24; second radix 3, span 3).
#ifndef XCONV_FFT_H
#define XCONV_FFT_H

// ---------------------------------------------------------------------------------------------
// Radix codes (the parameters: common/xconv_fft_defaults.h, which the kernels include first)

#define XC_FFT_MAX_PASSES 8  // hex digits read from a radix code

// Radix of pass i of a radix code (0 past the last pass).
#define XC_FFT_RADIX(code, i) (((code) >> (4 * (i))) & 15)

// ---------------------------------------------------------------------------------------------
// Complex arithmetic on float2 (x real, y imaginary)

XC_FUNC float2 xc_cadd(const float2 a, const float2 b)
{
    return XC_MAKE_FLOAT2(a.x + b.x, a.y + b.y);
}

XC_FUNC float2 xc_csub(const float2 a, const float2 b)
{
    return XC_MAKE_FLOAT2(a.x - b.x, a.y - b.y);
}

// a * b with one fused multiply-add per component.
XC_FUNC float2 xc_cmul(const float2 a, const float2 b)
{
    return XC_MAKE_FLOAT2(XC_FMA(a.x, b.x, -(a.y * b.y)), XC_FMA(a.x, b.y, a.y * b.x));
}

// a * conj(b).
XC_FUNC float2 xc_cmul_conj(const float2 a, const float2 b)
{
    return XC_MAKE_FLOAT2(XC_FMA(a.x, b.x, a.y * b.y), XC_FMA(a.y, b.x, -(a.x * b.y)));
}

// a * (-i) for a forward transform, a * i for an inverse one: the sign of the exponent.
XC_FUNC float2 xc_rot(const float2 a, const int inverse)
{
    return inverse ? XC_MAKE_FLOAT2(-a.y, a.x) : XC_MAKE_FLOAT2(a.y, -a.x);
}

XC_FUNC float2 xc_cscale(const float2 a, const float s)
{
    return XC_MAKE_FLOAT2(a.x * s, a.y * s);
}

// ---------------------------------------------------------------------------------------------
// Twiddle factors

// exp(-2 pi i m / L) for 0 <= m < L <= 4096. The angle's octant and the fraction f in [0, 1]
// of pi/4 within it come from exact integer arithmetic (f to 36 bits, then rounded once);
// sin and cos of pi/4 * f are Taylor polynomials in f, evaluated with XC_FMA (truncation
// under 2e-9, rounding about one ulp), and the octant's symmetry gives the rest exactly.
XC_FUNC float2 xc_fft_twiddle(const int m, const int L)
{
    const int octant = (8 * m) / L;       // 0..7
    int rem = 8 * m - octant * L;         // the angle past the octant's start, in units of
    if (octant & 1)                       // pi / (4 L); odd octants count back from their end
        rem = L - rem;
    const int q1 = (rem << 18) / L;       // f = rem / L to 36 bits: q1 * 2^-18 + q2 * 2^-36
    const int q2 = (((rem << 18) - q1 * L) << 18) / L;
    const float f = (float)q1 * 3.814697265625e-06f + (float)q2 * 1.4551915228366852e-11f;
    const float f2 = f * f;
    // sin(pi/4 f) = f * (a1 + f2 (a3 + f2 (a5 + f2 (a7 + f2 a9)))), a_k = (-1)^(k/2)(pi/4)^k/k!
    float s = XC_FMA(f2, 3.1336168903781e-07f, -3.6576204182177e-05f);
    s = XC_FMA(f2, s, 0.0024903945701927f);
    s = XC_FMA(f2, s, -0.080745512188281f);
    s = XC_FMA(f2, s, 0.78539816339745f);
    s = s * f;
    // cos(pi/4 f) = 1 + f2 (b2 + f2 (b4 + f2 (b6 + f2 (b8 + f2 b10))))
    float c = XC_FMA(f2, -2.4611369504942e-08f, 3.5908604485915e-06f);
    c = XC_FMA(f2, c, -0.00032599188692739f);
    c = XC_FMA(f2, c, 0.015854344243816f);
    c = XC_FMA(f2, c, -0.30842513753404f);
    c = XC_FMA(f2, c, 1.0f);
    // The angle theta = octant * pi/4 + phi (even octants) or (octant + 1) * pi/4 - phi (odd).
    float cs, sn;  // cos(theta), sin(theta)
    switch (octant) {
    case 0: cs = c; sn = s; break;
    case 1: cs = s; sn = c; break;
    case 2: cs = -s; sn = c; break;
    case 3: cs = -c; sn = s; break;
    case 4: cs = -c; sn = -s; break;
    case 5: cs = -s; sn = -c; break;
    case 6: cs = s; sn = -c; break;
    default: cs = c; sn = -s; break;
    }
    return XC_MAKE_FLOAT2(cs, -sn);
}

// Fills tw[m] = exp(-2 pi i m / L) for m < L; every work-item takes its share (no barrier).
XC_FUNC void xc_fft_twiddles(XC_LOCAL_PTR float2 *tw, const int L)
{
    for (int m = XC_LOCAL_ID(0); m < L; m += XC_FFT_THREADS)  // bound L
        tw[m] = xc_fft_twiddle(m, L);
}

// ---------------------------------------------------------------------------------------------
// Butterflies: an in-register DFT of v[0..radix) in natural order

// sqrt(1/2) and the radix-3 and radix-5 constants, correctly rounded literals.
#define XC_FFT_SQRT_HALF 0.70710678118654752f
#define XC_FFT_SIN_60 0.86602540378443865f
#define XC_FFT_COS_72 0.30901699437494745f
#define XC_FFT_COS_144 -0.80901699437494734f
#define XC_FFT_SIN_72 0.95105651629515357f
#define XC_FFT_SIN_144 0.58778525229247313f

XC_FUNC void xc_fft_bfly2(float2 *v)
{
    const float2 t = v[0];
    v[0] = xc_cadd(t, v[1]);
    v[1] = xc_csub(t, v[1]);
}

XC_FUNC void xc_fft_bfly4(float2 *v, const int inverse)
{
    const float2 a = xc_cadd(v[0], v[2]), b = xc_csub(v[0], v[2]);
    const float2 c = xc_cadd(v[1], v[3]), d = xc_rot(xc_csub(v[1], v[3]), inverse);
    v[0] = xc_cadd(a, c);
    v[2] = xc_csub(a, c);
    v[1] = xc_cadd(b, d);
    v[3] = xc_csub(b, d);
}

// Two radix-4 DFTs on the even and odd elements, joined with the eighth roots of unity.
XC_FUNC void xc_fft_bfly8(float2 *v, const int inverse)
{
    float2 e[4] = {v[0], v[2], v[4], v[6]};
    float2 o[4] = {v[1], v[3], v[5], v[7]};
    xc_fft_bfly4(e, inverse);
    xc_fft_bfly4(o, inverse);
    const float2 r1 = xc_rot(o[1], inverse), r3 = xc_rot(o[3], inverse);
    const float2 o1 = xc_cscale(xc_cadd(o[1], r1), XC_FFT_SQRT_HALF);  // w8 * o[1]
    const float2 o2 = xc_rot(o[2], inverse);                          // w8^2 * o[2]
    const float2 o3 = xc_cscale(xc_csub(r3, o[3]), XC_FFT_SQRT_HALF);  // w8^3 * o[3]
    v[0] = xc_cadd(e[0], o[0]);
    v[4] = xc_csub(e[0], o[0]);
    v[1] = xc_cadd(e[1], o1);
    v[5] = xc_csub(e[1], o1);
    v[2] = xc_cadd(e[2], o2);
    v[6] = xc_csub(e[2], o2);
    v[3] = xc_cadd(e[3], o3);
    v[7] = xc_csub(e[3], o3);
}

XC_FUNC void xc_fft_bfly3(float2 *v, const int inverse)
{
    const float2 t = xc_cadd(v[1], v[2]);
    const float2 m = XC_MAKE_FLOAT2(XC_FMA(-0.5f, t.x, v[0].x), XC_FMA(-0.5f, t.y, v[0].y));
    const float2 d = xc_rot(xc_cscale(xc_csub(v[1], v[2]), XC_FFT_SIN_60), inverse);
    v[0] = xc_cadd(v[0], t);
    v[1] = xc_cadd(m, d);
    v[2] = xc_csub(m, d);
}

XC_FUNC void xc_fft_bfly5(float2 *v, const int inverse)
{
    const float2 t1 = xc_cadd(v[1], v[4]), t2 = xc_cadd(v[2], v[3]);
    const float2 d1 = xc_csub(v[1], v[4]), d2 = xc_csub(v[2], v[3]);
    const float2 a = v[0];
    // a + c72 t1 + c144 t2 and a + c144 t1 + c72 t2
    const float2 m1 =
        XC_MAKE_FLOAT2(XC_FMA(XC_FFT_COS_144, t2.x, XC_FMA(XC_FFT_COS_72, t1.x, a.x)),
                       XC_FMA(XC_FFT_COS_144, t2.y, XC_FMA(XC_FFT_COS_72, t1.y, a.y)));
    const float2 m2 =
        XC_MAKE_FLOAT2(XC_FMA(XC_FFT_COS_72, t2.x, XC_FMA(XC_FFT_COS_144, t1.x, a.x)),
                       XC_FMA(XC_FFT_COS_72, t2.y, XC_FMA(XC_FFT_COS_144, t1.y, a.y)));
    // rot(s72 d1 + s144 d2) and rot(s144 d1 - s72 d2)
    const float2 n1 = xc_rot(XC_MAKE_FLOAT2(XC_FMA(XC_FFT_SIN_144, d2.x, XC_FFT_SIN_72 * d1.x),
                                            XC_FMA(XC_FFT_SIN_144, d2.y, XC_FFT_SIN_72 * d1.y)),
                             inverse);
    const float2 n2 = xc_rot(XC_MAKE_FLOAT2(XC_FMA(-XC_FFT_SIN_72, d2.x, XC_FFT_SIN_144 * d1.x),
                                            XC_FMA(-XC_FFT_SIN_72, d2.y, XC_FFT_SIN_144 * d1.y)),
                             inverse);
    v[0] = xc_cadd(a, xc_cadd(t1, t2));
    v[1] = xc_cadd(m1, n1);
    v[4] = xc_csub(m1, n1);
    v[2] = xc_cadd(m2, n2);
    v[3] = xc_csub(m2, n2);
}

XC_FUNC void xc_fft_bfly(float2 *v, const int radix, const int inverse)
{
    switch (radix) {
    case 2: xc_fft_bfly2(v); break;
    case 3: xc_fft_bfly3(v, inverse); break;
    case 4: xc_fft_bfly4(v, inverse); break;
    case 5: xc_fft_bfly5(v, inverse); break;
    default: xc_fft_bfly8(v, inverse); break;
    }
}

// ---------------------------------------------------------------------------------------------
// Passes over lines in local memory

// The lines a pass runs over: `count` lines, line l at
// (l / per_plane) * plane_stride + (l % per_plane) * line_stride, element e of a line at
// e * elem_stride from there. With line_fastest, neighbouring work-items take neighbouring
// lines (columns of a row-major array), else neighbouring butterflies of one line.
typedef struct xc_fft_lines {
    int count, per_plane, plane_stride, line_stride, elem_stride, line_fastest;
} xc_fft_lines;

#if XC_FFT_INLINE
#define XC_FFT_PASS_FUNC XC_FUNC
#define XC_FFT_UNROLL_RADIX _Pragma("unroll")  // the radix is a constant: unroll its loops
#else
#define XC_FFT_PASS_FUNC XC_FUNC_NOINLINE
#define XC_FFT_UNROLL_RADIX  // a run-time radix: loops the compiler cannot unroll stay loops
#endif

// Steps the coordinates (hi, lo), lo bound n, of a flat index hi * n + lo by XC_FFT_THREADS
// with an add and a carry: the work-group loops' way of following their index without a
// division and a remainder by n (rarely a power of two) per element.
#define XC_FFT_STEP_2D(hi, lo, n)                                                              \
    do {                                                                                       \
        (lo) += XC_FFT_THREADS % (n);                                                          \
        (hi) += XC_FFT_THREADS / (n);                                                          \
        if ((lo) >= (n)) {                                                                     \
            (lo) -= (n);                                                                       \
            (hi)++;                                                                            \
        }                                                                                      \
    } while (0)

// One pass of radix `radix` over sub-transforms of length `span` (L / span twiddle steps),
// in place. DIF: butterfly, then twiddle the outputs; DIT (transposed): twiddle the inputs,
// then butterfly. tw holds exp(-2 pi i m / L); inverse passes use its conjugates.
XC_FFT_PASS_FUNC void xc_fft_pass(XC_LOCAL_PTR float2 *data, XC_LOCAL_PTR const float2 *tw,
                                  const int L, const int span, const int radix, const int dit,
                                  const int inverse, const xc_fft_lines ln)
{
    const int stride = span / radix;  // distance of a butterfly's elements, in elements
    const int per_line = L / radix;   // butterflies per line
    // Butterfly b is (line, t) = (b % count, b / count) with line_fastest, else (b / per_line,
    // b % per_line): its faster index `lo` (bound `minor`) and slower `hi` step by THREADS
    // butterflies (XC_FFT_STEP_2D).
    const int minor = ln.line_fastest ? ln.count : per_line;
    int lo = XC_LOCAL_ID(0) % minor, hi = XC_LOCAL_ID(0) / minor;
    for (int b = XC_LOCAL_ID(0); b < ln.count * per_line; b += XC_FFT_THREADS) {
        const int line = ln.line_fastest ? lo : hi;  // bound ln.count
        const int t = ln.line_fastest ? hi : lo;     // bound per_line
        XC_FFT_STEP_2D(hi, lo, minor);
        const int block = t / stride;                                     // sub-transform
        const int j = t - block * stride;                                 // bound stride
        const int base = (line / ln.per_plane) * ln.plane_stride +
                         (line % ln.per_plane) * ln.line_stride +
                         (block * span + j) * ln.elem_stride;
        const int step = stride * ln.elem_stride;
        float2 v[8];
XC_FFT_UNROLL_RADIX
        for (int n = 0; n < radix; n++)
            v[n] = data[base + n * step];
        if (dit) {
XC_FFT_UNROLL_RADIX
            for (int n = 1; n < radix; n++) {
                const float2 w = tw[j * n * (L / span)];
                v[n] = inverse ? xc_cmul_conj(v[n], w) : xc_cmul(v[n], w);
            }
        }
        xc_fft_bfly(v, radix, inverse);
        if (!dit) {
XC_FFT_UNROLL_RADIX
            for (int n = 1; n < radix; n++) {
                const float2 w = tw[j * n * (L / span)];
                v[n] = inverse ? xc_cmul_conj(v[n], w) : xc_cmul(v[n], w);
            }
        }
XC_FFT_UNROLL_RADIX
        for (int n = 0; n < radix; n++)
            data[base + n * step] = v[n];
    }
}

// The product of the radices of passes before pass i of `code` (a constant expression).
#define XC_FFT_DIGIT1(code, k) (XC_FFT_RADIX(code, k) ? XC_FFT_RADIX(code, k) : 1)
#define XC_FFT_PREFIX(code, i)                                                               \
    (((i) > 0 ? XC_FFT_DIGIT1(code, 0) : 1) * ((i) > 1 ? XC_FFT_DIGIT1(code, 1) : 1) *      \
     ((i) > 2 ? XC_FFT_DIGIT1(code, 2) : 1) * ((i) > 3 ? XC_FFT_DIGIT1(code, 3) : 1) *      \
     ((i) > 4 ? XC_FFT_DIGIT1(code, 4) : 1) * ((i) > 5 ? XC_FFT_DIGIT1(code, 5) : 1) *      \
     ((i) > 6 ? XC_FFT_DIGIT1(code, 6) : 1))

// Pass i (DIF numbering) of a transform of length L with radix code `code` over the lines,
// when the code has a pass i, then a barrier. The condition is a constant expression, so each
// build holds exactly its passes and every barrier is reached unconditionally (no barrier
// inside a loop or a run-time branch, which PoCL's work-group loops handle poorly).
#define XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, i)                                  \
    if (XC_FFT_RADIX(code, i) != 0) {                                                        \
        xc_fft_pass(data, tw, L, (L) / XC_FFT_PREFIX(code, i), XC_FFT_RADIX(code, i),        \
                    inverse, inverse, ln);                                                   \
        XC_BARRIER();                                                                        \
    }

// The passes of slots a..h, in that order, of a transform (inverse 0 or 1) over the lines.
#define XC_FFT_PASS_SLOTS(data, tw, L, code, inverse, ln, a, b, c, d, e, f, g, h)           \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, a)                                      \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, b)                                      \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, c)                                      \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, d)                                      \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, e)                                      \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, f)                                      \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, g)                                      \
    XC_FFT_PASS_SLOT(data, tw, L, code, inverse, ln, h)

// A forward transform of length L over the lines: DIF passes from the first radix.
#define XC_FFT_FORWARD_LINES(data, tw, L, code, ln)                                          \
    XC_FFT_PASS_SLOTS(data, tw, L, code, 0, ln, 0, 1, 2, 3, 4, 5, 6, 7)

// An inverse transform of length L over the lines: DIT passes from the last radix.
#define XC_FFT_INVERSE_LINES(data, tw, L, code, ln)                                          \
    XC_FFT_PASS_SLOTS(data, tw, L, code, 1, ln, 7, 6, 5, 4, 3, 2, 1, 0)

// The position where the DIF passes leave frequency q (0 <= q < L) of a transform: with
// q = d0 + R0 (d1 + R1 (d2 + ...)), the position is d0 * L/R0 + d1 * L/(R0 R1) + ...
XC_FUNC int xc_fft_position(int q, const int L, const int code)
{
    int pos = 0, span = L;
#pragma unroll
    for (int i = 0; i < XC_FFT_MAX_PASSES; i++) {
        const int r = XC_FFT_RADIX(code, i);
        if (r) {
            span /= r;
            pos += (q % r) * span;
            q /= r;
        }
    }
    return pos;
}

// Fills the frames' position table over the twiddles' LH + LW float2s (which must no longer be
// read): entry u < LH holds xc_fft_position(u, LH) * PITCH, the local row of natural frequency
// row u, and entry LH + v, v < LW, xc_fft_position(v, LW), its column, so that placing a
// frequency costs two local reads instead of a digit loop of divisions by the radices per
// coordinate. The integers are stored as the bits of each float2's x (XC_FFT_POS reads them):
// the memory keeps one type, so no compiler's type-based alias analysis can move the table's
// stores past the twiddles' loads. Every work-item takes its share; a barrier must follow
// before the table is read. Two loops, not one over LH + LW choosing the length per entry:
// Oclgrind's compiler got that one's column entries wrong (a row's position, not the column's).
XC_FUNC void xc_fft_position_table(XC_LOCAL_PTR float2 *tab)
{
    for (int u = XC_LOCAL_ID(0); u < XC_FFT_LH; u += XC_FFT_THREADS) {  // bound LH
        const int pos = xc_fft_position(u, XC_FFT_LH, XC_FFT_RADIX_H) * XC_FFT_PITCH;
        tab[u] = XC_MAKE_FLOAT2(XC_AS_FLOAT((unsigned int)pos), 0.0f);
    }
    for (int v = XC_LOCAL_ID(0); v < XC_FFT_LW; v += XC_FFT_THREADS) {  // bound LW
        const int pos = xc_fft_position(v, XC_FFT_LW, XC_FFT_RADIX_W);
        tab[XC_FFT_LH + v] = XC_MAKE_FLOAT2(XC_AS_FLOAT((unsigned int)pos), 0.0f);
    }
}

// Entry i of a position table (xc_fft_position_table).
#define XC_FFT_POS(tab, i) ((int)XC_AS_UINT((tab)[(i)].x))

#endif // XCONV_FFT_H
