// SPDX-License-Identifier: MIT
// Backends by kind, device labels, opening and closing devices.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xconv/internal/test_fault.h>

#include "core/contract.h"
#include "core/device.h"
#include "core/program.h"

// ---------------------------------------------------------------------------------------------
// The device's programs (built by host/caches/programs.c)

// Frees every program of dev through its backend.
static void programs_free(xconv_device *dev)
{
    while (dev->programs) {
        xconv_program *e = dev->programs;
        dev->programs = e->next;
        dev->be->program_free(dev->ctx, e->handle);
        free(e);
    }
}

// Frees the backend's programs of dev but keeps the entries (plans point at them) with a NULL
// handle, which the next xconv_program_get builds again. For a context lost at a fault.
static void programs_drop(xconv_device *dev)
{
    for (xconv_program *e = dev->programs; e; e = e->next) {
        dev->be->program_free(dev->ctx, e->handle);
        e->handle = NULL;
    }
}

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

// ---------------------------------------------------------------------------------------------
// The last failed build's log

// Guards every device's build_log: builds of one device may run on several threads. Taken only
// to swap or copy a log, never around a build.
static pthread_mutex_t build_log_lock = PTHREAD_MUTEX_INITIALIZER;

void xconv_device_keep_build_log(xconv_device *dev, char *log)
{
    pthread_mutex_lock(&build_log_lock);
    char *old = dev->build_log;
    dev->build_log = log;
    pthread_mutex_unlock(&build_log_lock);
    free(old);
}

int xconv_device_build_log(const xconv_device *dev, char *buf, size_t len)
{
    if (!dev || !buf)
        return -1;
    pthread_mutex_lock(&build_log_lock);
    int n = snprintf(buf, len, "%s", dev->build_log ? dev->build_log : "");
    pthread_mutex_unlock(&build_log_lock);
    return n;
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
    xconv_devices *list = xconv_devices_enumerate(XCONV_BACKENDS_ALL, err);
    if (!list)
        return NULL;
    int index = xconv_devices_select(list, selector, err);
    xconv_device *dev =
        index >= 0 ? xconv_device_open_info(xconv_devices_info_at(list, index), err) : NULL;
    xconv_devices_free(list);
    return dev;
}

void xconv_device_close(xconv_device *dev)
{
    if (!dev)
        return;
    xconv_error ignored = {0};
    if (!dev->be) {  // a target profile: nothing was built or allocated
        free(dev);
        return;
    }
    if (!dev->gone)
        dev->be->finish(dev->ctx, &ignored);
    while (dev->buffers)
        xconv_buffer_destroy(dev->buffers);
    programs_free(dev);
    dev->be->close(dev->ctx);
    free(dev->build_log);
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
             "device lost for good at a fault (%.150s): %.200s; every call on it fails now "
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
    programs_drop(dev);
    dev->lost = true;
    xconv_error why = {0};
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
