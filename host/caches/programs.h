// SPDX-License-Identifier: MIT
// A device's programs (internal header): found or built by (kernel source name, defines), built
// ahead on worker threads, and kept between processes in the compiled-kernel cache on disk as
// the driver's binaries, keyed by device, driver, compiler, source text and defines, so a second
// process does not compile again.
#ifndef XCONV_PROGRAMS_H
#define XCONV_PROGRAMS_H

#include "core/program.h"

// Writes defines as compiler options ("-DXC_N=1 -DXC_C=3 ..."); returns the length, as snprintf.
int xconv_defines_format(const xconv_define *defines, int ndefines, char *buf, size_t len);

// Finds or builds the program of embedded kernel source `source` (cl/<source>.cl) with exactly
// these defines (same names, values and order) on dev; a hit moves it to the front (and is
// built again when a lost context dropped its program). Adds a
// build's time to dev->compile_ms and *compile_ms (when not NULL). Returns XCONV_OK and *out,
// XCONV_ERR_NOT_FOUND for a source that is not embedded, or the build's failure.
xconv_status xconv_program_get(xconv_device *dev, const char *source,
                               const xconv_define *defines, int ndefines, xconv_program **out,
                               double *compile_ms, xconv_error *err);

// One program a caller will need: kernel source `source` built with `defines` on dev.
typedef struct xconv_program_request {
    xconv_device *dev;
    const char *source;
    const xconv_define *defines;
    int ndefines;
} xconv_program_request;

// Builds the requested programs that their devices do not hold yet, each distinct one once, on
// up to `threads` worker threads (for the public xconv_plans_build: the plans' kernel steps).
// Returns XCONV_OK (a failed build is left to the prepare that needs it), or
// XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_program_build_ahead(const xconv_program_request *requests, int nrequests,
                                       int threads, xconv_build_progress_fn progress, void *user,
                                       xconv_build_stats *stats, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// The compiled-kernel cache on disk

// Returns true when dev has a cache attached that keeps kernels and its backend can store them.
bool xconv_kernel_cache_usable(const xconv_device *dev);

// Makes the program of kernel source `source` (embedded text `text`) built with `options` from
// dev's cache. Returns XCONV_OK and *out, or XCONV_ERR_NOT_FOUND when there is no stored binary
// or it did not match its key, its checksum or the driver (those count as rejects and the
// caller's build replaces them).
xconv_status xconv_kernel_cache_get(xconv_device *dev, const char *source, const char *text,
                                    const char *options, xconv_backend_program **out);

// Stores prog, just built from (source, text, options), in dev's cache; a failure to write is
// a warning of the cache, not an error.
void xconv_kernel_cache_put(xconv_device *dev, const char *source, const char *text,
                            const char *options, xconv_backend_program *prog);

// Compiles (source, text, options) for dev, a CUDA target profile (no GPU, no driver), through
// NVRTC for its architecture and stores the image in dev's cache under the key every device of
// that architecture looks up; a whole stored file of that key is kept as it is. Returns XCONV_OK,
// XCONV_ERR_BUILD with NVRTC's log, XCONV_ERR_UNAVAILABLE without NVRTC, XCONV_ERR_IO, or
// XCONV_ERR_INVALID for a device that is not such a profile with such a cache.
xconv_status xconv_kernel_cache_compile(xconv_device *dev, const char *source, const char *text,
                                        const char *options, xconv_error *err);

// Writes into buf (len bytes) the key a stored binary of (source, text, options) on dev has:
// the text of its header's key lines. Returns false when it does not fit. (For tests.)
bool xconv_kernel_cache_key(const xconv_device *dev, const char *source, const char *text,
                            const char *options, char *buf, size_t len);

// Writes the path of the file that holds the binary of key into buf; false when it does not fit.
bool xconv_kernel_cache_file(const xconv_device *dev, const char *key, char *buf, size_t len);

// Checks that `data` (len bytes) is a whole stored file: its magic line, then its key lines, then
// a payload of the length and checksum it names. Returns true and the key's length (the bytes
// before its "bytes=" line) in *key_len.
bool xconv_kernel_file_check(const char *data, size_t len, size_t *key_len);

#endif // XCONV_PROGRAMS_H
