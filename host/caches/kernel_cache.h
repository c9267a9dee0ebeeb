// SPDX-License-Identifier: MIT
// The compiled-kernel cache on disk (internal header): programs stored as the driver's binaries,
// keyed by device, driver, compiler, source text and defines, so a second process does not
// compile again.
#ifndef XCONV_KERNEL_CACHE_H
#define XCONV_KERNEL_CACHE_H

#include "core/device.h"

// The store the core builds programs through on a device with a cache (device.h): the three
// functions below.
extern const xconv_program_store xconv_kernel_cache_store;

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

#endif // XCONV_KERNEL_CACHE_H
