// SPDX-License-Identifier: MIT
// Tests the native handles of xconv/native.h on an OpenCL device: the context, device and queue
// are the ones OpenCL reports for each other, a buffer's cl_mem is its memory (data uploaded
// through xconv reads back through OpenCL), and a target profile has none.
#include <CL/cl.h>
#include <string.h>

#include <xconv/xconv.h>

#include "tests/check.h"

static void test_device(xconv_device *dev)
{
    xconv_error err = {0};
    xconv_native_device nd;
    CHECK_MSG(xconv_device_native(dev, &nd, &err) == XCONV_OK, "%s", err.msg);
    CHECK(nd.backend == XCONV_BACKEND_OPENCL && nd.cuda_device == -1);
    CHECK(nd.context && nd.device && nd.queue);
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    clGetCommandQueueInfo((cl_command_queue)nd.queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    clGetCommandQueueInfo((cl_command_queue)nd.queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    CHECK(qctx == (cl_context)nd.context && qdev == (cl_device_id)nd.device);

    float in[4] = {1, 2, 3, 4}, out[4] = {0};
    xconv_buffer *buf = xconv_buffer_create(dev, sizeof in, &err);
    CHECK(buf && xconv_buffer_upload(buf, 0, sizeof in, in, &err) == XCONV_OK);
    xconv_native_buffer nb;
    CHECK_MSG(buf && xconv_buffer_native(buf, &nb, &err) == XCONV_OK, "%s", err.msg);
    CHECK(buf && nb.cl_mem && nb.cu_deviceptr == 0);
    if (buf && nb.cl_mem) {
        cl_int rc = clEnqueueReadBuffer((cl_command_queue)nd.queue, (cl_mem)nb.cl_mem, CL_TRUE,
                                        0, sizeof out, out, 0, NULL, NULL);
        CHECK(rc == CL_SUCCESS && memcmp(in, out, sizeof in) == 0);
    }
    xconv_buffer_destroy(buf);
}

static void test_profile(void)
{
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open_target(xconv_target_at(0), &err);
    xconv_native_device nd;
    CHECK(dev && xconv_device_native(dev, &nd, &err) == XCONV_ERR_UNAVAILABLE);
    xconv_device_close(dev);
}

int main(void)
{
    test_profile();
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open("opencl:0", &err);
    if (!dev) {
        printf("SKIP: no OpenCL device (%s)\n", err.msg);
        return CHECK_SKIP_CODE;
    }
    test_device(dev);
    xconv_device_close(dev);
    return check_summary("test_native");
}
