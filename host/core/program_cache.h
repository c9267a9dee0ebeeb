// SPDX-License-Identifier: MIT
// The core's program cache: one per device, keyed by (kernel source name, a step's defines), so
// that preparing a plan finds a program built before by comparing a few dozen ints instead of
// hashing the kernel text, and backends build without keeping a cache of their own (internal).
#ifndef XCONV_PROGRAM_CACHE_H
#define XCONV_PROGRAM_CACHE_H

#include "core/device.h"

// One compile-time define of a kernel: "-Dname=value".
typedef struct xconv_define {
    char name[40];
    long long value;
} xconv_define;

#define XCONV_SOURCE_NAME_MAX 64  // kernel file stems are short ("direct_regblock")

// A built program of the cache. The device owns it; plans hold pointers to it.
struct xconv_program {
    struct xconv_program *next;
    xconv_backend_program *handle;  // what the backend launches
    char source[XCONV_SOURCE_NAME_MAX];
    double unclaimed_ms;            // build time of a program built ahead (xconv_plans_build)
                                    // that no prepare has counted yet
    int ndefines;
    xconv_define defines[];         // ndefines of them
};

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

// Frees every program of dev's cache through its backend.
void xconv_program_cache_free(xconv_device *dev);

// Frees the backend's programs of dev's cache but keeps the entries (plans point at them) with
// a NULL handle: xconv_program_get builds such an entry again. For a context lost at a fault.
void xconv_program_cache_drop(xconv_device *dev);

// Returns the embedded text of kernel source `name` (cl/<name>.cl), or NULL.
const char *xconv_kernel_source(const char *name);

// Returns the names of all embedded kernel sources, NULL-terminated.
const char *const *xconv_kernel_source_names(void);

#endif // XCONV_PROGRAM_CACHE_H
