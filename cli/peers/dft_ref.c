// SPDX-License-Identifier: MIT
// Float64 host references of 2-D real FFTs: a recursive mixed-radix complex FFT in double, rows
// then columns.
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "dft_ref.h"

typedef double complex cplx;

// Returns the smallest prime factor of n > 1.
static int64_t smallest_factor(int64_t n)
{
    for (int64_t p = 2; p * p <= n; p++)
        if (n % p == 0)
            return p;
    return n;
}

// out[k] = sum_j in[j * stride] * w[(j * k mod n) * ws] for k < n, with w[m] = exp(-2 pi i m / N)
// of the top-level length N = n * ws: decimation in time by the smallest prime factor p, then
// p-point DFTs (out may not alias in).
static void fft_rec(const cplx *in, int64_t stride, cplx *out, int64_t n, const cplx *w,
                    int64_t ws)
{
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    int64_t p = smallest_factor(n), m = n / p;
    for (int64_t q = 0; q < p; q++)
        fft_rec(in + q * stride, stride * p, out + q * m, m, w, ws * p);
    cplx small[16], *tmp = p <= 16 ? small : malloc((size_t)p * sizeof *tmp);
    if (!tmp)
        return;  // a prime factor over 16 without memory: the caller's check catches it
    for (int64_t k = 0; k < m; k++) {
        for (int64_t q = 0; q < p; q++)
            tmp[q] = out[q * m + k];
        for (int64_t r = 0; r < p; r++) {
            cplx s = 0;
            for (int64_t q = 0; q < p; q++)
                s += tmp[q] * w[(q * (k + m * r)) % n * ws];
            out[k + m * r] = s;
        }
    }
    if (tmp != small)
        free(tmp);
}

// Fills w[m] = exp(-2 pi i m / n) for m < n.
static void twiddles(cplx *w, int64_t n)
{
    const double pi = acos(-1.0);
    for (int64_t m = 0; m < n; m++)
        w[m] = cexp(-2.0 * pi * I * (double)m / (double)n);
}

// Transforms `count` lines of length n in place: line l starts at data + l * line_stride, its
// elements elem_stride apart; forward with w, or inverse (conjugated) when inverse is set.
static bool lines(cplx *data, int64_t count, int64_t n, int64_t line_stride, int64_t elem_stride,
                  bool inverse)
{
    cplx *w = malloc((size_t)n * sizeof *w), *in = malloc((size_t)n * sizeof *in);
    cplx *out = malloc((size_t)n * sizeof *out);
    bool ok = w && in && out;
    if (ok)
        twiddles(w, n);
    for (int64_t l = 0; ok && l < count; l++) {
        cplx *line = data + l * line_stride;
        for (int64_t j = 0; j < n; j++)
            in[j] = inverse ? conj(line[j * elem_stride]) : line[j * elem_stride];
        fft_rec(in, 1, out, n, w, 1);
        for (int64_t j = 0; j < n; j++)
            line[j * elem_stride] = inverse ? conj(out[j]) : out[j];
    }
    free(w), free(in), free(out);
    return ok;
}

bool xconv_dft_r2c_f64(const float *x, int64_t lh, int64_t lw, double *spec)
{
    cplx *z = malloc((size_t)(lh * lw) * sizeof *z);
    if (!z)
        return false;
    for (int64_t i = 0; i < lh * lw; i++)
        z[i] = x[i];
    bool ok = lines(z, lh, lw, lw, 1, false) && lines(z, lw / 2 + 1, lh, 1, lw, false);
    int64_t cols = lw / 2 + 1;
    for (int64_t u = 0; ok && u < lh; u++)
        for (int64_t v = 0; v < cols; v++) {
            spec[2 * (u * cols + v)] = creal(z[u * lw + v]);
            spec[2 * (u * cols + v) + 1] = cimag(z[u * lw + v]);
        }
    free(z);
    return ok;
}

bool xconv_dft_c2r_f64(const double *spec, int64_t lh, int64_t lw, double *y, double *scale)
{
    cplx *z = malloc((size_t)(lh * lw) * sizeof *z);
    if (!z)
        return false;
    int64_t cols = lw / 2 + 1;
    *scale = 0;
    for (int64_t u = 0; u < lh; u++)
        for (int64_t v = 0; v < lw; v++) {
            bool mirror = v >= cols;  // Y(u, v) = conj Y(-u, -v)
            int64_t uu = mirror ? (lh - u) % lh : u, vv = mirror ? lw - v : v;
            cplx c = spec[2 * (uu * cols + vv)] + I * spec[2 * (uu * cols + vv) + 1];
            z[u * lw + v] = mirror ? conj(c) : c;
            *scale += cabs(z[u * lw + v]);
        }
    bool ok = lines(z, lw, lh, 1, lw, true) && lines(z, lh, lw, lw, 1, true);
    for (int64_t i = 0; ok && i < lh * lw; i++)
        y[i] = creal(z[i]);
    free(z);
    return ok;
}
