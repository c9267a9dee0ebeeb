// SPDX-License-Identifier: MIT
// xconv's kernels on raw data, on their own: GEMM on row-major matrices (ours or the
// vendor's) and 2-D real FFTs on planes (the FFT variants' transforms).
#ifndef XCONV_PUBLIC_RAW_OPS_H
#define XCONV_PUBLIC_RAW_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/core.h>
#include <xconv/plans.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// ---------------------------------------------------------------------------------------------
// GEMM on raw row-major matrices: ours (cl/sgemm.cl; implicit_mma in the reduced math modes)
// or the vendor's (CLBlast, cuBLAS)

typedef struct xconv_gemm xconv_gemm;  // one planned product C (m x n) = A (m x k) * B (k x n)

// Plans C = A * B on dev with impl "xconv" (our SGEMM, its tiles and split-K chosen for the size
// as the convolutions' GEMMs are, or forced by opts->gemm_tiles and opts->gemm_split_k; opts
// NULL: defaults; a split's partials live in device memory the handle owns) or "vendor" (the
// backend's BLAS). Returns NULL with XCONV_ERR_OUT_OF_MEMORY when a matrix passes the device's
// limits or the 32-bit index range, XCONV_ERR_UNAVAILABLE when the backend has no vendor BLAS,
// or another status.
xconv_gemm *xconv_gemm_create(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              const char *impl, const xconv_plan_options *opts,
                              xconv_error *err);

// Plans C = A * B as xconv_gemm_create does, with A and B stored as `dtype` (an xconv_dtype)
// and products in math mode `math` (an xconv_math; the pairs of <xconv/problem.h>: tf32 on f32,
// f16 on f16, bf16 on bf16, f32 on any), always with fp32 accumulation. impl "xconv": strict
// fp32 on fp32 is our SGEMM; otherwise C = A * B runs as the 1x1 convolution of one image
// (x = B, w = A, y = C) and C is stored in the storage type (f32 for tf32): fp16 or bf16
// storage with strict fp32 math through gemm_1x1, a reduced math mode through implicit_mma
// (NVIDIA tensor cores). impl "vendor": C is fp32 in every mode (cuBLAS's
// cublasGemmStridedBatchedEx for the reduced pairs; CLBlast runs fp32 only and refuses the rest
// with XCONV_ERR_NOT_APPLICABLE when the product runs). Returns NULL with XCONV_ERR_INVALID for
// an unknown or mismatched dtype and math, XCONV_ERR_NOT_APPLICABLE when ours has no kernel
// for the pair on this device (implicit_mma without tensor cores), or xconv_gemm_create's
// statuses.
xconv_gemm *xconv_gemm_create_typed(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                                    int64_t dtype, int64_t math, const char *impl,
                                    const xconv_plan_options *opts, xconv_error *err);

// Returns one line on the product, the tiles and the split chosen.
const char *xconv_gemm_summary(const xconv_gemm *g);

// Returns the storage type (an xconv_dtype) of g's C: XCONV_DTYPE_F32 except for ours on fp16
// or bf16 A and B (C in that type); -1 for NULL.
int64_t xconv_gemm_c_dtype(const xconv_gemm *g);

// Enqueues C = A * B on buffers of m x k and k x n elements of the product's storage type and
// m x n elements of C's (xconv_gemm_c_dtype) (asynchronous); returns the first failure
// (XCONV_ERR_INVALID for a buffer too small).
xconv_status xconv_gemm_run(xconv_gemm *g, xconv_buffer *a, xconv_buffer *b, xconv_buffer *c,
                            xconv_error *err);

// Frees a product's plan; NULL is ignored.
void xconv_gemm_destroy(xconv_gemm *g);

// ---------------------------------------------------------------------------------------------
// 2-D real FFTs on raw planes: our transforms (cl/fft_forward.cl, cl/fft_inverse.cl), the ones
// the FFT convolution variants run, on their own (for checking and timing them)

typedef struct xconv_fft2d xconv_fft2d;  // `batch` real planes of lh x lw <-> their spectra

// Plans the 2-D real-to-complex transform of `batch` planes of lh x lw floats (row-major, one
// plane after another) into their half spectra, and the complex-to-real inverse, on dev; lh and
// lw are 2^a 3^b 5^c from 2 to 4096 (opts NULL: defaults). A half spectrum holds frequencies
// (u, v) for u < lh, v <= lw/2; element (u, v) of plane b is the complex number (two floats,
// real first) at index (u * (lw/2 + 1) + v) * batch + b. Returns NULL with XCONV_ERR_INVALID for
// other sizes, XCONV_ERR_OUT_OF_MEMORY when the spectra pass the 32-bit index range,
// XCONV_ERR_NOT_APPLICABLE when a transform passes the device's local memory, or another status.
xconv_fft2d *xconv_fft2d_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                                const xconv_plan_options *opts, xconv_error *err);

// Returns one line on the transforms chosen (radices, planes per work-group).
const char *xconv_fft2d_summary(const xconv_fft2d *f);

// Returns the bytes of the planes and of the half spectra of f.
size_t xconv_fft2d_planes_bytes(const xconv_fft2d *f);
size_t xconv_fft2d_spectra_bytes(const xconv_fft2d *f);

// Enqueues the forward transform of planes into spectra (asynchronous); returns the first
// failure (XCONV_ERR_INVALID for a buffer too small).
xconv_status xconv_fft2d_forward(xconv_fft2d *f, xconv_buffer *planes, xconv_buffer *spectra,
                                 xconv_error *err);

// Enqueues the inverse transform of spectra into planes, unnormalised (the forward transform
// then the inverse multiply the planes by lh * lw); spectra hold half spectra of real planes.
// Returns the first failure.
xconv_status xconv_fft2d_inverse(xconv_fft2d *f, xconv_buffer *spectra, xconv_buffer *planes,
                                 xconv_error *err);

// Frees f's plans; NULL is ignored.
void xconv_fft2d_destroy(xconv_fft2d *f);

XCONV_API_END

#endif // XCONV_PUBLIC_RAW_OPS_H
