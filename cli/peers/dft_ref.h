// SPDX-License-Identifier: MIT
// Float64 host references of 2-D real FFTs, for checking `bench --fft`'s transforms: the forward
// half spectrum of a real plane and the real plane of a half spectrum, through a mixed-radix
// complex FFT in double (any length whose prime factors are small).
#ifndef XCONV_BENCH_DFT_REF_H
#define XCONV_BENCH_DFT_REF_H

#include <stdbool.h>
#include <stdint.h>

// Writes the half spectrum of the lh x lw real plane x (row-major) into spec: frequency (u, v)
// for u < lh, v <= lw/2 at spec[2 * (u * (lw/2 + 1) + v)] (real, then imaginary), unnormalised.
// Returns false without host memory.
bool xconv_dft_r2c_f64(const float *x, int64_t lh, int64_t lw, double *spec);

// Writes into y the lh x lw real plane whose half spectrum is spec (laid out as
// xconv_dft_r2c_f64 writes it, extended to the full spectrum by Hermitian symmetry; the real
// part of the complex inverse is kept), unnormalised: y = lh * lw * x for spec the spectrum of
// x; *scale gets the sum of |Y| over the full spectrum, the bound of any output's rounding.
// Returns false without host memory.
bool xconv_dft_c2r_f64(const double *spec, int64_t lh, int64_t lw, double *y, double *scale);

#endif // XCONV_BENCH_DFT_REF_H
