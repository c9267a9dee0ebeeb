// SPDX-License-Identifier: MIT
// An open device and its buffers: the backend table and context, the device's info, the core's
// program cache and buffer registry (internal header).
#ifndef XCONV_DEVICE_H
#define XCONV_DEVICE_H

#include "core/backend.h"

typedef struct xconv_program xconv_program;  // host/core/program.h

// An open device. The core enqueues work on it through be and ctx.
struct xconv_device {
    const xconv_backend_iface *be;
    void *ctx;
    xconv_device_info info;
    double compile_ms;          // program build time accumulated since open or the last reset
    xconv_program *programs;    // its built programs, most recently used first
    xconv_buffer *buffers;      // every live buffer, freed on close
    unsigned resets;            // contexts rebuilt after a fault since open
    bool lost;                  // the context is broken and its rebuild has not succeeded yet
    bool gone;                  // lost for good: the backend cannot rebuild it in this process
    char gone_msg[XCONV_ERROR_MSG_LEN];  // why, as every call on a gone device reports it
    int test_fault;             // XCONV_TEST_FAULT_* armed for the next plan run (tests only)
    xconv_cache *cache;         // compiled kernels and the find-db on disk (NULL: none)
    char *build_log;            // the whole log of the last failed build (malloc'd, or NULL)
};

// A buffer of device memory, registered with its device.
struct xconv_buffer {
    xconv_device *dev;
    xconv_backend_buffer *handle;
    size_t bytes;               // the size asked for
    bool lost;                  // its memory went with a context lost at a fault (handle NULL)
    xconv_buffer *prev, *next;  // the device's registry
};

// Returns the backend's handle of buf, or NULL for NULL.
static inline xconv_backend_buffer *xconv_buffer_handle(const xconv_buffer *buf)
{
    return buf ? buf->handle : NULL;
}

// Returns XCONV_OK when [offset, offset + bytes) lies inside buf, else XCONV_ERR_INVALID with a
// message naming `what` (NULL buf is XCONV_ERR_INVALID too), or XCONV_ERR_DEVICE_LOST when buf
// went with a context lost at a fault.
xconv_status xconv_buffer_check_range(const xconv_buffer *buf, size_t offset, size_t bytes,
                                      const char *what, xconv_error *err);

// Returns st. When st is XCONV_ERR_DEVICE_LOST (a backend call met a broken context), first
// drops every buffer and program of dev's context (buffers report XCONV_ERR_DEVICE_LOST from
// then on, programs rebuild on their next use), rebuilds the context through the backend's
// reset slot, and adds to err's message what became of it. A reset that answers
// XCONV_ERR_DEVICE_LOST leaves dev gone (lost for good): no backend slot but close is called
// on it again, and every call reports why.
xconv_status xconv_device_fault(xconv_device *dev, xconv_status st, xconv_error *err);

// Returns XCONV_OK when dev can take work; a context whose rebuild failed is tried again here
// (XCONV_ERR_DEVICE_LOST when it fails again). A gone device returns XCONV_ERR_DEVICE_LOST
// with its reason at once.
xconv_status xconv_device_usable(xconv_device *dev, xconv_error *err);

// Keeps log (malloc'd; taken, NULL is fine) as dev's last failed build's log, freeing the one
// before; safe from several threads building for dev at once.
void xconv_device_keep_build_log(xconv_device *dev, char *log);

#endif // XCONV_DEVICE_H
