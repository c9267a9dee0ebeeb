// SPDX-License-Identifier: MIT
// Device listing across backends, selection by index or name, opening and closing.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contract.h"
#include "core/device.h"
#include "core/program_cache.h"

// ---------------------------------------------------------------------------------------------
// Backends

const char *xconv_backend_name(xconv_backend_kind kind)
{
    switch (kind) {
    case XCONV_BACKEND_OPENCL: return "opencl";
    case XCONV_BACKEND_CUDA: return "cuda";
    default: return "unknown";
    }
}

const xconv_backend_iface *xconv_backend_get(xconv_backend_kind kind)
{
    switch (kind) {
    case XCONV_BACKEND_OPENCL:
        return xconv_backend_opencl();
    case XCONV_BACKEND_CUDA:
#ifdef XCONV_HAVE_CUDA
        return xconv_backend_cuda();
#else
        return NULL;
#endif
    default:
        return NULL;
    }
}

// ---------------------------------------------------------------------------------------------
// Listing

xconv_status xconv_devices_list(xconv_device_list *list)
{
    return xconv_devices_list_backends(list, ~0u);
}

xconv_status xconv_devices_list_backends(xconv_device_list *list, unsigned backends)
{
    if (!list)
        return XCONV_ERR_INVALID;
    memset(list, 0, sizeof *list);
    for (int kind = 0; kind < XCONV_BACKEND_COUNT; kind++) {
        const xconv_backend_iface *be = xconv_backend_get((xconv_backend_kind)kind);
        if (!(backends & XCONV_BACKEND_BIT(kind))) {
            list->backend_status[kind] = XCONV_ERR_UNAVAILABLE;
            snprintf(list->backend_reason[kind], sizeof list->backend_reason[kind],
                     "not listed");
            continue;
        }
        if (!be) {
            list->backend_status[kind] = XCONV_ERR_UNAVAILABLE;
            snprintf(list->backend_reason[kind], sizeof list->backend_reason[kind],
                     "not built in (configure with -DXCONV_%s=ON)",
                     kind == XCONV_BACKEND_CUDA ? "CUDA" : "OPENCL");
            continue;
        }
        xconv_error err;  // one message per backend, copied out below
        int count = 0;
        int room = XCONV_MAX_DEVICES - list->count;
        xconv_status st = be->enumerate(list->devices + list->count, room, &count, &err);
        list->backend_status[kind] = st;
        if (be->advice)
            be->advice(list->backend_advice[kind], sizeof list->backend_advice[kind]);
        if (st != XCONV_OK) {
            snprintf(list->backend_reason[kind], sizeof list->backend_reason[kind], "%.*s",
                     (int)sizeof list->backend_reason[kind] - 1, err.msg);
            continue;
        }
        if (count == 0)
            snprintf(list->backend_reason[kind], sizeof list->backend_reason[kind],
                     "no devices");
        list->count += count < room ? count : room;
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Selection

static bool contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *h = haystack; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static bool parse_index(const char *s, int *out)
{
    char *end = NULL;
    if (!*s || !isdigit((unsigned char)*s))
        return false;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 1000000)
        return false;
    *out = (int)v;
    return true;
}

void xconv_device_label(const xconv_device_info *info, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (!info) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "%s:%d %s", xconv_backend_name(info->backend), info->backend_index,
             info->name);
}

// Writes the valid choices into the error message.
static int selection_error(const xconv_device_list *list, const char *selector,
                           const char *why, xconv_error *err)
{
    char choices[4096] = "";
    size_t used = 0;
    for (int i = 0; i < list->count && used < sizeof choices; i++) {
        char label[320];
        xconv_device_label(&list->devices[i], label, sizeof label);
        used += (size_t)snprintf(choices + used, sizeof choices - used, "\n  %d  %s", i, label);
    }
    for (int k = 0; k < XCONV_BACKEND_COUNT && used < sizeof choices; k++)
        if (list->backend_status[k] != XCONV_OK)
            used += (size_t)snprintf(choices + used, sizeof choices - used,
                                     "\n  (%s: unavailable: %s)",
                                     xconv_backend_name((xconv_backend_kind)k),
                                     list->backend_reason[k]);
    for (int k = 0; k < XCONV_BACKEND_COUNT; k++)
        for (const char *line = list->backend_advice[k]; *line && used < sizeof choices;) {
            int n = (int)strcspn(line, "\n");
            used += (size_t)snprintf(choices + used, sizeof choices - used, "\n  (%s: %.*s)",
                                     xconv_backend_name((xconv_backend_kind)k), n, line);
            line += n + (line[n] == '\n');
        }
    return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "device '%s' %s; devices:%s%s", selector,
                           why, list->count ? "" : " none", choices);
}

int xconv_device_select(const xconv_device_list *list, const char *selector, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, list))
        return XCONV_ERR_INVALID;
    if (!selector || !*selector) {
        for (int i = 0; i < list->count; i++)
            if (list->devices[i].is_gpu)
                return i;
        for (int i = 0; i < list->count; i++)
            if (list->devices[i].is_cpu)
                return i;
        if (list->count > 0)
            return 0;
        return selection_error(list, "(default)", "cannot be chosen: no device found", err);
    }
    int index;
    if (parse_index(selector, &index)) {
        if (index < list->count)
            return index;
        return selection_error(list, selector, "is past the last device", err);
    }
    const char *colon = strchr(selector, ':');
    if (colon) {
        for (int kind = 0; kind < XCONV_BACKEND_COUNT; kind++) {
            const char *name = xconv_backend_name((xconv_backend_kind)kind);
            if (strlen(name) != (size_t)(colon - selector) ||
                strncmp(selector, name, strlen(name)) != 0)
                continue;
            if (!parse_index(colon + 1, &index))
                return selection_error(list, selector, "has no valid index after ':'", err);
            for (int i = 0; i < list->count; i++)
                if ((int)list->devices[i].backend == kind &&
                    list->devices[i].backend_index == index)
                    return i;
            return selection_error(list, selector, "does not exist", err);
        }
    }
    for (int i = 0; i < list->count; i++) {
        const xconv_device_info *d = &list->devices[i];
        if (contains_nocase(d->name, selector) || contains_nocase(d->platform, selector) ||
            contains_nocase(d->vendor, selector) || contains_nocase(d->version, selector))
            return i;
    }
    return selection_error(list, selector, "matches no device", err);
}

// ---------------------------------------------------------------------------------------------
// Opening and closing

xconv_device *xconv_device_open_info(const xconv_device_info *info, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, info))
        return NULL;
    const xconv_backend_iface *be = xconv_backend_get(info->backend);
    if (!be) {
        xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "backend %s is not built in",
                        xconv_backend_name(info->backend));
        return NULL;
    }
    xconv_device *dev = calloc(1, sizeof *dev);
    if (!dev) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
        return NULL;
    }
    dev->be = be;
    dev->info = *info;
    if (be->open(info->backend_index, &dev->ctx, err) != XCONV_OK) {
        xconv_error_prefix(err, "opening %s:%d", xconv_backend_name(info->backend),
                           info->backend_index);
        free(dev);
        return NULL;
    }
    return dev;
}

xconv_device *xconv_device_open(const char *selector, xconv_error *err)
{
    xconv_device_list *list = malloc(sizeof *list);
    if (!list) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
        return NULL;
    }
    xconv_devices_list(list);
    int index = xconv_device_select(list, selector, err);
    xconv_device *dev = index >= 0 ? xconv_device_open_info(&list->devices[index], err) : NULL;
    free(list);
    return dev;
}

void xconv_device_close(xconv_device *dev)
{
    if (!dev)
        return;
    xconv_error ignored;
    if (!dev->be) {  // a target profile: nothing was built or allocated
        free(dev);
        return;
    }
    if (!dev->gone)
        dev->be->finish(dev->ctx, &ignored);
    while (dev->buffers)
        xconv_buffer_destroy(dev->buffers);
    xconv_program_cache_free(dev);
    dev->be->close(dev->ctx);
    free(dev);
}

const xconv_device_info *xconv_device_get_info(const xconv_device *dev)
{
    return dev ? &dev->info : NULL;
}

xconv_status xconv_device_wait(xconv_device *dev, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev))
        return XCONV_ERR_INVALID;
    xconv_status st = xconv_device_usable(dev, err);
    if (st == XCONV_OK)
        st = xconv_device_fault(dev, dev->be->finish(dev->ctx, err), err);
    return st;
}

unsigned xconv_device_resets(const xconv_device *dev)
{
    return dev ? dev->resets : 0;
}

bool xconv_device_lost(const xconv_device *dev)
{
    return dev && dev->gone;
}

int xconv_device_libraries(xconv_device *dev, char *buf, size_t len)
{
    if (!dev || !buf)
        return -1;
    if (len)
        buf[0] = '\0';
    if (dev->be && dev->be->libraries)
        dev->be->libraries(dev->ctx, buf, len);
    return len ? (int)strlen(buf) : 0;
}

// ---------------------------------------------------------------------------------------------
// Faults

// Rebuilds dev's lost context through the backend; returns XCONV_OK or why it failed
// (XCONV_ERR_DEVICE_LOST: it never can in this process).
static xconv_status rebuild(xconv_device *dev, xconv_error *err)
{
    if (dev->test_fault == XCONV_TEST_FAULT_LOSE) {
        dev->test_fault = XCONV_TEST_FAULT_NONE;
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST,
                               "the context cannot be recovered in this process (a test's "
                               "injected loss)");
    }
    if (!dev->be->reset)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST,
                               "the %s backend cannot rebuild a context",
                               xconv_backend_name(dev->info.backend));
    xconv_status st = dev->be->reset(dev->ctx, err);
    if (st != XCONV_OK)
        return st;
    dev->lost = false;
    dev->resets++;
    return XCONV_OK;
}

// Marks dev gone: the fault `fault` broke its context and `why` says the backend cannot rebuild
// it in this process.
static void mark_gone(xconv_device *dev, const char *fault, const char *why)
{
    dev->gone = true;
    snprintf(dev->gone_msg, sizeof dev->gone_msg,
             "device lost for good at a fault (%.300s): %.300s; every call on it fails now "
             "(close it; a new process can open it again)", fault, why);
}

xconv_status xconv_device_fault(xconv_device *dev, xconv_status st, xconv_error *err)
{
    if (st != XCONV_ERR_DEVICE_LOST)
        return st;
    if (dev->gone)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "%s", dev->gone_msg);
    for (xconv_buffer *b = dev->buffers; b; b = b->next) {
        dev->be->buffer_free(dev->ctx, b->handle);
        b->handle = NULL;
        b->lost = true;
    }
    xconv_program_cache_drop(dev);
    dev->lost = true;
    xconv_error why;
    xconv_status rebuilt = rebuild(dev, &why);
    if (rebuilt == XCONV_OK) {
        xconv_error_prefix(err, "device lost, its context rebuilt (buffers made before are "
                                "lost, programs are rebuilt when used)");
    } else if (rebuilt == XCONV_ERR_DEVICE_LOST) {
        mark_gone(dev, err ? err->msg : "", why.msg);
        xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "%s", dev->gone_msg);
    } else {
        xconv_error_prefix(err, "device lost, and rebuilding its context failed (%s)",
                           why.msg);
    }
    if (err)
        err->status = XCONV_ERR_DEVICE_LOST;
    return XCONV_ERR_DEVICE_LOST;
}

xconv_status xconv_device_usable(xconv_device *dev, xconv_error *err)
{
    if (!dev->be)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "%s is a target profile: it plans, "
                               "and builds or runs nothing", dev->info.name);
    if (dev->gone)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "%s", dev->gone_msg);
    if (!dev->lost)
        return XCONV_OK;
    xconv_status st = rebuild(dev, err);
    if (st == XCONV_ERR_DEVICE_LOST) {
        mark_gone(dev, "an earlier call", err ? err->msg : "");
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "%s", dev->gone_msg);
    }
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "the device was lost at a fault and its context cannot "
                                       "be rebuilt");
    return XCONV_OK;
}

double xconv_device_compile_ms(const xconv_device *dev)
{
    return dev ? dev->compile_ms : 0.0;
}

void xconv_device_reset_compile_ms(xconv_device *dev)
{
    if (!dev)
        return;
    dev->compile_ms = 0;
}
