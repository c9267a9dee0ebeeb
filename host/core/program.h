// SPDX-License-Identifier: MIT
// A device's built programs as the core holds them: one list entry per (kernel source name, a
// step's defines), so that preparing a plan finds a program built before by comparing a few
// dozen ints instead of hashing the kernel text. The device frees them with itself and drops
// their handles at a fault (host/core/device.c); host/caches/programs.c finds and builds them
// (internal header).
#ifndef XCONV_PROGRAM_H
#define XCONV_PROGRAM_H

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

// Returns the embedded text of kernel source `name` (cl/<name>.cl), or NULL.
const char *xconv_kernel_source(const char *name);

// Returns the names of all embedded kernel sources, NULL-terminated.
const char *const *xconv_kernel_source_names(void);

#endif // XCONV_PROGRAM_H
