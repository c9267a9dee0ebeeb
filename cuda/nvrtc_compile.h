// SPDX-License-Identifier: MIT
// Kernel text to GPU code through NVRTC, with the dialect prelude and the parity flags; needs
// libnvrtc but no GPU and no driver, so tests can compile every kernel on any machine.
#ifndef XCONV_NVRTC_COMPILE_H
#define XCONV_NVRTC_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include <xconv/xconv.h>

// What one compilation produced.
typedef struct xconv_nvrtc_image {
    char *data;       // what the driver loads: CUBIN, or the PTX (then data == ptx)
    size_t len;       // bytes of data (PTX: without the NUL)
    bool is_cubin;    // true: machine code for arch; false: PTX the driver JIT-compiles
    char *ptx;        // the PTX of the same compilation, NUL-terminated, malloc'd
    size_t ptx_len;   // its length without the NUL
    char arch[32];    // the --gpu-architecture value used ("sm_90", "compute_89")
    char *log;        // after XCONV_ERR_BUILD: NVRTC's whole log, malloc'd (else NULL)
} xconv_nvrtc_image;

// Compiles `source` (a cl/*.cl text; xconv_kernel_dialect() and "#line 1" are prepended) with
// `options` ("-DNAME=VALUE ..." defines) for compute capability cc_major.cc_minor. When NVRTC
// knows sm_XY and want_cubin is set the image is CUBIN for sm_XY; otherwise PTX for sm_XY, or,
// when NVRTC is older than the device, PTX for its newest virtual architecture below it. The
// PTX is always kept in out->ptx as well.
// Returns XCONV_OK and fills *out (free with xconv_nvrtc_image_free); XCONV_ERR_BUILD with
// NVRTC's log, XCONV_ERR_INVALID for an option that is not a define, or XCONV_ERR_UNAVAILABLE
// when NVRTC cannot be loaded or supports no architecture at or below the device's.
xconv_status xconv_nvrtc_compile(const char *source, const char *options, int cc_major,
                                 int cc_minor, bool want_cubin, xconv_nvrtc_image *out,
                                 xconv_error *err);

// Frees what xconv_nvrtc_compile filled (a failed build's log too); a zeroed image is fine.
void xconv_nvrtc_image_free(xconv_nvrtc_image *img);

// Like xconv_nvrtc_compile, but always returns PTX: *ptx_out (malloc'd, NUL-terminated, free
// with free()) and its length without the NUL in *ptx_len.
xconv_status xconv_nvrtc_compile_ptx(const char *source, const char *options, int cc_major,
                                     int cc_minor, char **ptx_out, size_t *ptx_len,
                                     xconv_error *err);

// Compiles `source` as xconv_nvrtc_compile does, for sm_<cc_major><cc_minor> with ptxas's
// verbose report, and returns NVRTC's log in *log (malloc'd, also on a failed build): ptxas's
// registers, spill stores and loads, stack frame and shared memory of each kernel. Returns
// XCONV_OK, XCONV_ERR_BUILD (the log says why), XCONV_ERR_UNAVAILABLE without NVRTC.
xconv_status xconv_nvrtc_report(const char *source, const char *options, int cc_major,
                                int cc_minor, char **log, xconv_error *err);

// Returns the NVRTC flags every kernel gets, space-separated, for logs, docs and the keys of
// stored images ("--std=c++17 --fmad=false"); the architecture flag and the defines are added
// per build, and --minimal with NVRTC 12.4 or later (it only makes the front end faster).
const char *xconv_nvrtc_fixed_flags(void);

// Writes what names the compiler of every CUDA image into buf, for the keys of stored images:
// NVRTC's version, its library and the fixed flags ("nvrtc 13.0 (libnvrtc.so.13) --std=c++17
// --fmad=false"); "nvrtc 0.0 (none) ..." when NVRTC cannot be loaded.
void xconv_nvrtc_compiler_id(char *buf, size_t len);

#endif // XCONV_NVRTC_COMPILE_H
