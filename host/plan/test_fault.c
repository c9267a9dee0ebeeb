// SPDX-License-Identifier: MIT
// The faults tests ask a plan's runs for (xconv/internal/test_fault.h): a device lost for good
// without a kernel, or a real kernel writing through a bad address.
#include <stdint.h>

#include <xconv/internal/test_fault.h>

#include "core/device.h"
#include "plan/variant.h"

// Writes through the address an argument gives (8: in the first page, never mapped), so the
// compiler cannot know it is bad and the device meets an illegal address.
static const char fault_source[] =
    "XC_KERNEL void xc_test_fault(XC_GLOBAL float *y, int address)\n"
    "{\n"
    "    XC_GLOBAL float *bad = (XC_GLOBAL float *)(unsigned long long)address;\n"
    "    bad[XC_GLOBAL_ID(0)] = y[0];\n"
    "}\n";

// Builds and launches the faulting kernel on dev with y as its argument and waits for it.
// Returns what the wait met (XCONV_ERR_DEVICE_LOST on a device that reports the fault).
static xconv_status launch_fault(xconv_device *dev, xconv_buffer *y, xconv_error *err)
{
    xconv_backend_program *prog = NULL;
    xconv_status st = xconv_device_usable(dev, err);
    if (st == XCONV_OK)
        st = xconv_device_fault(dev, dev->be->program_build(dev->ctx, fault_source, "", &prog,
                                                            NULL, err), err);
    if (st == XCONV_OK) {
        xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(y)), XCONV_ARG_I32(8)};
        xconv_launch l = {.kernel = "xc_test_fault", .dims = 1, .global = {256, 1, 1},
                          .local = {64, 1, 1}, .args = args, .nargs = 2};
        st = xconv_device_fault(dev, dev->be->launch(dev->ctx, prog, &l, err), err);
    }
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, err);
    if (st == XCONV_OK)
        st = xconv_error_set(err, XCONV_ERR_DEVICE, "the faulting kernel ran without a fault");
    dev->be->program_free(dev->ctx, prog);  // slots tolerate a broken context (backend.h)
    return st;
}

xconv_status xconv_test_fault_run(xconv_plan *plan, const xconv_tensors *t, xconv_error *err)
{
    xconv_device *dev = plan->dev;
    xconv_status st;
    switch (plan->test_fault) {
    case XCONV_TEST_FAULT_LOSE:
        st = xconv_device_usable(dev, err);
        if (st != XCONV_OK)
            return st;
        dev->test_fault = XCONV_TEST_FAULT_LOSE;  // the rebuild that follows fails for good
        xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "%s: a test's injected fault",
                        xconv_variant_get_info(plan->variant)->name);
        return xconv_device_fault(dev, XCONV_ERR_DEVICE_LOST, err);
    case XCONV_TEST_FAULT_KERNEL:
        return launch_fault(dev, t->y, err);
    default:
        return xconv_error_set(err, XCONV_ERR_INVALID, "test_fault %d is not a test fault",
                               plan->test_fault);
    }
}

xconv_status xconv_plan_set_test_fault(xconv_plan *plan, int fault, xconv_error *err)
{
    if (!plan)
        return xconv_error_set(err, XCONV_ERR_INVALID, "xconv_plan_set_test_fault: plan is NULL");
    if (fault < XCONV_TEST_FAULT_NONE || fault > XCONV_TEST_FAULT_KERNEL)
        return xconv_error_set(err, XCONV_ERR_INVALID, "test fault %d is not a test fault", fault);
    plan->test_fault = fault;
    return XCONV_OK;
}
