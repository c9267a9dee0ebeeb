// SPDX-License-Identifier: MIT
// Status names and the error message helpers every library call uses.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/contract.h"

const char *xconv_status_to_string(xconv_status status)
{
    switch (status) {
    case XCONV_OK: return "ok";
    case XCONV_ERR_INVALID: return "invalid argument";
    case XCONV_ERR_PARSE: return "parse error";
    case XCONV_ERR_IO: return "i/o error";
    case XCONV_ERR_NOT_APPLICABLE: return "not applicable";
    case XCONV_ERR_UNAVAILABLE: return "unavailable";
    case XCONV_ERR_OUT_OF_MEMORY: return "out of memory";
    case XCONV_ERR_BUILD: return "kernel build failed";
    case XCONV_ERR_DEVICE: return "device error";
    case XCONV_ERR_NOT_FOUND: return "not found";
    case XCONV_ERR_DEVICE_LOST: return "device lost";
    }
    return "unknown status";
}

// Ends a message cut to fit msg with "...".
static void mark_cut(xconv_error *err)
{
    memcpy(err->msg + sizeof err->msg - 4, "...", 4);
}

xconv_status xconv_error_set(xconv_error *err, xconv_status status, const char *fmt, ...)
{
    if (err && !fmt) {
        err->status = status;
        err->msg[0] = '\0';
    } else if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (n >= (int)sizeof err->msg)
            mark_cut(err);
        err->status = status;
    }
    return status;
}

xconv_status xconv_error_prefix(xconv_error *err, const char *fmt, ...)
{
    if (!err || XCONV_NULL_ARG(err, fmt))
        return XCONV_ERR_INVALID;
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t plen = strlen(prefix);
    size_t mlen = strnlen(err->msg, sizeof err->msg - 1);
    bool cut = plen + 2 + mlen >= sizeof err->msg;
    if (plen > sizeof err->msg / 2)  // the prefix keeps room for the message's start
        plen = sizeof err->msg / 2;
    if (plen + 2 + mlen >= sizeof err->msg)
        mlen = sizeof err->msg - plen - 3;
    memmove(err->msg + plen + 2, err->msg, mlen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen] = ':';
    err->msg[plen + 1] = ' ';
    err->msg[plen + 2 + mlen] = '\0';
    if (cut)
        mark_cut(err);
    return err->status;
}

// ---------------------------------------------------------------------------------------------
// Argument checks (contract.h)

bool xconv_arg_null(xconv_error *err, const char *fn, const char *name, bool is_null)
{
    if (is_null)
        xconv_error_set(err, XCONV_ERR_INVALID, "%s: %s is NULL", fn, name);
    return is_null;
}

xconv_status xconv_error_clear(xconv_error *err)
{
    if (err) {
        err->status = XCONV_OK;
        err->msg[0] = '\0';
    }
    return XCONV_OK;
}
