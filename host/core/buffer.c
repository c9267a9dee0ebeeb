// SPDX-License-Identifier: MIT
// Device buffers: each device's registry of live buffers and the range checks of every copy.
#include <stdlib.h>

#include "core/contract.h"
#include "core/device.h"

// ---------------------------------------------------------------------------------------------
// The registry

xconv_buffer *xconv_buffer_create(xconv_device *dev, size_t bytes, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev))
        return NULL;
    if (bytes > dev->info.max_alloc_bytes) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                        "buffer of %zu bytes passes the device's largest allocation of %llu "
                        "bytes", bytes, (unsigned long long)dev->info.max_alloc_bytes);
        return NULL;
    }
    if (xconv_device_usable(dev, err) != XCONV_OK)
        return NULL;
    xconv_buffer *buf = calloc(1, sizeof *buf);
    if (!buf) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
        return NULL;
    }
    xconv_status st = dev->be->buffer_alloc(dev->ctx, bytes, &buf->handle, err);
    if (xconv_device_fault(dev, st, err) != XCONV_OK) {
        free(buf);
        return NULL;
    }
    buf->dev = dev;
    buf->bytes = bytes;
    buf->next = dev->buffers;
    if (dev->buffers)
        dev->buffers->prev = buf;
    dev->buffers = buf;
    return buf;
}

void xconv_buffer_destroy(xconv_buffer *buf)
{
    if (!buf)
        return;
    xconv_device *dev = buf->dev;
    if (buf->prev)
        buf->prev->next = buf->next;
    else
        dev->buffers = buf->next;
    if (buf->next)
        buf->next->prev = buf->prev;
    dev->be->buffer_free(dev->ctx, buf->handle);
    free(buf);
}

size_t xconv_buffer_size(const xconv_buffer *buf)
{
    return buf ? buf->bytes : 0;
}

// ---------------------------------------------------------------------------------------------
// Copies

xconv_status xconv_buffer_check_range(const xconv_buffer *buf, size_t offset, size_t bytes,
                                      const char *what, xconv_error *err)
{
    if (!buf)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: buffer is NULL", what);
    if (buf->lost)
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST,
                               "%s: the buffer went with its device's context, lost at a fault "
                               "(create it again)", what);
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "%s of %zu bytes at offset %zu passes the buffer's %zu bytes",
                               what, bytes, offset, buf->bytes);
    return XCONV_OK;
}

xconv_status xconv_buffer_upload(xconv_buffer *buf, size_t offset, size_t bytes, const void *src,
                                 xconv_error *err)
{
    if (XCONV_NULL_ARG(err, buf) || XCONV_NULL_ARG(err, src))
        return XCONV_ERR_INVALID;
    xconv_status st = xconv_buffer_check_range(buf, offset, bytes, "upload", err);
    if (st != XCONV_OK || bytes == 0)
        return st;
    xconv_device *dev = buf->dev;
    return xconv_device_fault(
        dev, dev->be->buffer_write(dev->ctx, buf->handle, offset, bytes, src, err), err);
}

xconv_status xconv_buffer_download(xconv_buffer *buf, size_t offset, size_t bytes, void *dst,
                                   xconv_error *err)
{
    if (XCONV_NULL_ARG(err, buf) || XCONV_NULL_ARG(err, dst))
        return XCONV_ERR_INVALID;
    xconv_status st = xconv_buffer_check_range(buf, offset, bytes, "download", err);
    if (st != XCONV_OK || bytes == 0)
        return st;
    xconv_device *dev = buf->dev;
    return xconv_device_fault(
        dev, dev->be->buffer_read(dev->ctx, buf->handle, offset, bytes, dst, err), err);
}

xconv_status xconv_buffer_fill_f32(xconv_buffer *buf, size_t count, float value,
                                   xconv_error *err)
{
    if (XCONV_NULL_ARG(err, buf))
        return XCONV_ERR_INVALID;
    if (count > SIZE_MAX / sizeof(float))
        return xconv_error_set(err, XCONV_ERR_INVALID, "fill of %zu floats overflows", count);
    xconv_status st = xconv_buffer_check_range(buf, 0, count * sizeof(float), "fill", err);
    if (st != XCONV_OK || count == 0)
        return st;
    xconv_device *dev = buf->dev;
    return xconv_device_fault(dev, dev->be->buffer_fill(dev->ctx, buf->handle, count, value, err),
                              err);
}
