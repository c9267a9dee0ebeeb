// SPDX-License-Identifier: MIT
// NumPy .npy files of float32, float16 and bfloat16 arrays: reading (versions 1.0-3.0) and
// atomic writing (1.0). bfloat16, which NumPy lacks, is stored as its bits in a uint16 array
// ('<u2'): a '<u2' file is read as bfloat16.
#ifndef XCONV_NPY_H
#define XCONV_NPY_H

#include <stdio.h>

#include <xconv/xconv.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XCONV_NPY_MAX_DIMS 8

// An array in C order; data holds count elements as float32 (count is 1 for a 0-d array),
// converted exactly from the file's dtype.
typedef struct xconv_npy {
    int ndim;
    int64_t shape[XCONV_NPY_MAX_DIMS];
    float *data;
    int64_t count;
    int64_t dtype;  // the file's element type: an xconv_dtype ('<f4', '<f2', '<u2' as bf16)
} xconv_npy;

// Reads a little-endian float32 ('<f4'), float16 ('<f2') or bfloat16-as-uint16 ('<u2'), C-order
// .npy file (format 1.0, 2.0 or 3.0) into *out.
// Returns XCONV_OK, XCONV_ERR_IO when the file cannot be opened or read, XCONV_ERR_PARSE when it
// is malformed or holds another dtype/order (the message names the file and the problem), or
// XCONV_ERR_OUT_OF_MEMORY. On failure *out is empty (data NULL). See docs/shapes.md.
xconv_status xconv_npy_read(const char *path, xconv_npy *out, xconv_error *err);

// Frees the array's data and empties *npy; NULL is ignored.
void xconv_npy_free(xconv_npy *npy);

// Writes data (the product of shape[0..ndim) elements) as a float32 C-order .npy 1.0 file,
// atomically: to a temporary file beside path, then renamed over it. Returns XCONV_OK, or
// XCONV_ERR_INVALID for bad arguments and XCONV_ERR_IO when writing fails; on failure neither
// path nor the temporary file is left behind (an existing file at path stays as it was).
xconv_status xconv_npy_write(const char *path, const float *data, int ndim,
                             const int64_t *shape, xconv_error *err);

// Writes the same .npy 1.0 bytes to an open stream f (the caller places the file). Returns
// XCONV_OK, XCONV_ERR_INVALID for bad arguments, or XCONV_ERR_IO when writing fails.
xconv_status xconv_npy_write_stream(FILE *f, const float *data, int ndim, const int64_t *shape,
                                    xconv_error *err);

// xconv_npy_write_stream with the values rounded to dtype (an xconv_dtype: '<f4', '<f2', or
// '<u2' holding bfloat16 bits). Returns as it does, or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_npy_write_stream_dtype(FILE *f, const float *data, int ndim,
                                          const int64_t *shape, int64_t dtype,
                                          xconv_error *err);

#ifdef __cplusplus
}
#endif

#endif // XCONV_NPY_H
