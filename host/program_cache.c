// SPDX-License-Identifier: MIT
// The device's program cache: a list of built programs by (kernel source name, defines), most
// recently used first, and the one place programs are built (or loaded from the compiled-kernel
// cache on disk) and their build time counted.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "kernel_cache.h"
#include "program_cache.h"

// ---------------------------------------------------------------------------------------------
// Keys

int xconv_defines_format(const xconv_define *defines, int ndefines, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < ndefines; i++) {
        int n = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                         "%s-D%s=%lld", i ? " " : "", defines[i].name, defines[i].value);
        used += (size_t)n;
    }
    return (int)used;
}

// Whether entry e is the program of (source, defines).
static bool same_key(const xconv_program *e, const char *source, const xconv_define *defines,
                     int ndefines)
{
    if (e->ndefines != ndefines || strcmp(e->source, source) != 0)
        return false;
    for (int i = 0; i < ndefines; i++)
        if (e->defines[i].value != defines[i].value ||
            strcmp(e->defines[i].name, defines[i].name) != 0)
            return false;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Lookup and build

// Builds entry e's program (its source and defines) on dev into e->handle, counting the time.
// Returns XCONV_OK or the failure.
static xconv_status build_handle(xconv_device *dev, xconv_program *e, double *compile_ms,
                                 xconv_error *err)
{
    const char *text = xconv_kernel_source(e->source);
    char options[4096];
    if ((size_t)xconv_defines_format(e->defines, e->ndefines, options, sizeof options) >=
        sizeof options)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: the defines pass %zu characters",
                               e->source, sizeof options);
    xconv_status st = xconv_device_usable(dev, err);
    double t0 = xconv_now_ms();
    bool on_disk = st == XCONV_OK && xconv_kernel_cache_usable(dev);
    bool cached = on_disk &&
                  xconv_kernel_cache_get(dev, e->source, text, options, &e->handle) == XCONV_OK;
    if (st == XCONV_OK && !cached) {
        st = xconv_device_fault(dev, dev->be->program_build(dev->ctx, text, options, &e->handle,
                                                            err), err);
        if (st == XCONV_OK && on_disk)
            xconv_kernel_cache_put(dev, e->source, text, options, e->handle);
    }
    double ms = xconv_now_ms() - t0;
    if (st != XCONV_OK) {
        e->handle = NULL;
        return xconv_error_prefix(err, "building %s.cl", e->source);
    }
    dev->compile_ms += ms;
    if (compile_ms)
        *compile_ms += ms;
    return XCONV_OK;
}

// Builds (source, defines) on dev into a new entry *out. Returns XCONV_OK or the failure.
static xconv_status build(xconv_device *dev, const char *source, const xconv_define *defines,
                          int ndefines, xconv_program **out, double *compile_ms,
                          xconv_error *err)
{
    if (!xconv_kernel_source(source))
        return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "no kernel source '%s' is embedded",
                               source);
    if (strlen(source) >= XCONV_SOURCE_NAME_MAX || ndefines < 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "kernel source name '%s' is too long",
                               source);
    xconv_program *e = malloc(sizeof *e + (size_t)ndefines * sizeof e->defines[0]);
    if (!e)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a program");
    snprintf(e->source, sizeof e->source, "%s", source);
    e->ndefines = ndefines;
    if (ndefines)
        memcpy(e->defines, defines, (size_t)ndefines * sizeof defines[0]);
    xconv_status st = build_handle(dev, e, compile_ms, err);
    if (st != XCONV_OK) {
        free(e);
        return st;
    }
    *out = e;
    return XCONV_OK;
}

xconv_status xconv_program_get(xconv_device *dev, const char *source,
                               const xconv_define *defines, int ndefines, xconv_program **out,
                               double *compile_ms, xconv_error *err)
{
    for (xconv_program **link = &dev->programs; *link; link = &(*link)->next) {
        xconv_program *e = *link;
        if (!same_key(e, source, defines, ndefines))
            continue;
        *link = e->next;  // to the front: a bench prepares one plan's programs in a row
        e->next = dev->programs;
        dev->programs = e;
        *out = e;
        return e->handle ? XCONV_OK : build_handle(dev, e, compile_ms, err);
    }
    xconv_status st = build(dev, source, defines, ndefines, out, compile_ms, err);
    if (st != XCONV_OK)
        return st;
    (*out)->next = dev->programs;
    dev->programs = *out;
    return XCONV_OK;
}

void xconv_program_cache_free(xconv_device *dev)
{
    while (dev->programs) {
        xconv_program *e = dev->programs;
        dev->programs = e->next;
        dev->be->program_free(dev->ctx, e->handle);
        free(e);
    }
}

void xconv_program_cache_drop(xconv_device *dev)
{
    for (xconv_program *e = dev->programs; e; e = e->next) {
        dev->be->program_free(dev->ctx, e->handle);
        e->handle = NULL;
    }
}
