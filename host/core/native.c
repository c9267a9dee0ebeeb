// SPDX-License-Identifier: MIT
// The backends' own handles of open devices and their buffers, for interop (xconv/native.h).
#include "core/contract.h"
#include "core/device.h"

xconv_status xconv_device_native(xconv_device *dev, xconv_native_device *out, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    xconv_status st = xconv_device_usable(dev, err);
    if (st != XCONV_OK)
        return st;
    if (!dev->be->native)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "the %s backend gives no native "
                               "handles", xconv_backend_name(dev->info.backend));
    *out = (xconv_native_device){.backend = dev->info.backend, .cuda_device = -1};
    dev->be->native(dev->ctx, out);
    return XCONV_OK;
}

xconv_status xconv_buffer_native(const xconv_buffer *buf, xconv_native_buffer *out,
                                 xconv_error *err)
{
    if (XCONV_NULL_ARG(err, buf) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    xconv_status st = xconv_buffer_check_range(buf, 0, 0, "xconv_buffer_native", err);
    if (st != XCONV_OK)
        return st;
    if (!buf->dev->be->buffer_native)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "the %s backend gives no native "
                               "handles", xconv_backend_name(buf->dev->info.backend));
    *out = (xconv_native_buffer){0};
    buf->dev->be->buffer_native(buf->dev->ctx, buf->handle, out);
    return XCONV_OK;
}
