// SPDX-License-Identifier: MIT
// A real device fault on CUDA costs the case it happens in only: a test-only kernel, built and
// launched through the backend's table directly, writes through a bad address; the wait after
// it fails with XCONV_ERR_DEVICE_LOST and the core rebuilds the context; a case made before the
// fault then passes our kernels, cuBLAS's reference path and a cuDNN row in the same process,
// and so does a new one. Needs a GPU: skips (77) without a CUDA device. The OpenCL side of the
// same path, by fault injection, is tests/test_device_lost.c.
#include <stdio.h>
#include <string.h>

#include "tests/check.h"

#ifndef XCONV_HAVE_CUDA

int main(void)
{
    printf("SKIP: no CUDA device (built without the CUDA backend)\n");
    return CHECK_SKIP_CODE;
}

#else

#include "device.h"
#include "validate/harness.h"

// Writes through the address an argument gives (8: the first page, never mapped), so the
// compiler cannot know it is bad and the device meets an illegal address.
static const char fault_source[] =
    "XC_KERNEL void fault(XC_GLOBAL float *y, int address)\n"
    "{\n"
    "    XC_GLOBAL float *bad = (XC_GLOBAL float *)(unsigned long long)address;\n"
    "    bad[XC_GLOBAL_ID(0)] = y[0];\n"
    "}\n";

// Runs variant `name` on case c; returns the record's outcome (printed with its note).
static xconv_outcome run_variant(xconv_case *c, const char *name)
{
    static xconv_record rec;
    xconv_error err;
    const xconv_variant *v = xconv_variant_find(name, &err);
    xconv_status st = v ? xconv_case_run(c, v, &rec, &err) : err.status;
    CHECK_MSG(st == XCONV_OK, "%s: %s", name, err.msg);
    if (st != XCONV_OK)
        return XCONV_OUTCOME_ERROR;
    printf("  %-22s %-5s %s\n", name, xconv_outcome_name(rec.outcome),
           rec.outcome == XCONV_OUTCOME_PASS ? "" : rec.note);
    return rec.outcome;
}

// Launches the faulting kernel on dev through its backend and waits: returns the wait's status.
static xconv_status launch_fault(xconv_device *dev, xconv_error *err)
{
    xconv_buffer *y = xconv_buffer_create(dev, 256 * sizeof(float), err);
    if (!y)
        return err->status;
    xconv_backend_program *prog = NULL;
    xconv_status st = dev->be->program_build(dev->ctx, fault_source, "", &prog, err);
    CHECK_MSG(st == XCONV_OK, "building the faulting kernel: %s", err->msg);
    if (st == XCONV_OK) {
        xconv_arg args[] = {XCONV_ARG_BUF(y->handle), XCONV_ARG_I32(8)};
        xconv_launch l = {.kernel = "fault", .dims = 1, .global = {256, 1, 1},
                          .local = {64, 1, 1}, .args = args, .nargs = 2};
        st = dev->be->launch(dev->ctx, prog, &l, err);
        CHECK_MSG(st == XCONV_OK, "launching the faulting kernel: %s", err->msg);
    }
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, err);
    // The module went with the lost context; its host wrapper is left behind on purpose (a few
    // bytes), since unloading a module of a destroyed context is not worth the risk here.
    xconv_buffer_destroy(y);
    return st;
}

int main(void)
{
    xconv_device_list list;
    xconv_devices_list(&list);
    int index = -1;
    for (int i = 0; i < list.count && index < 0; i++)
        if (list.devices[i].backend == XCONV_BACKEND_CUDA)
            index = i;
    if (index < 0) {
        printf("SKIP: no CUDA device (%s)\n", list.backend_reason[XCONV_BACKEND_CUDA]);
        return CHECK_SKIP_CODE;
    }
    xconv_error err;
    xconv_device *dev = xconv_device_open_info(&list.devices[index], &err);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (!dev)
        return check_summary("test_cuda_fault");
    printf("on %s\n", list.devices[index].name);
    xconv_problem p;
    CHECK(xconv_shape_parse("n=2,c=8,h=16,w=16,k=16,r=3,pad=1", &p, &err) == XCONV_OK);
    xconv_harness_opts opts;
    xconv_harness_opts_default(&opts);
    opts.repeat = 3;
    xconv_case *c = xconv_case_create(dev, &p, "plain", &opts, &err);
    CHECK_MSG(c != NULL, "%s", err.msg);
    if (c) {
        CHECK(run_variant(c, "direct_tiled") == XCONV_OUTCOME_PASS);
        CHECK(run_variant(c, "cublas_gemm") == XCONV_OUTCOME_PASS);
    }

    xconv_status st = launch_fault(dev, &err);
    printf("  the faulting kernel: %s: %s\n", xconv_status_to_string(st), err.msg);
    CHECK_MSG(st == XCONV_ERR_DEVICE_LOST, "the wait after the fault returned %s: %s",
              xconv_status_to_string(st), err.msg);
    CHECK_CONTAINS(err.msg, "device lost, its context rebuilt");
    CHECK(xconv_device_resets(dev) == 1);

    // The case made before the fault: its inputs are uploaded again, the programs rebuilt, and
    // cuBLAS's and cuDNN's handles were made anew.
    if (c) {
        CHECK(run_variant(c, "direct_tiled") == XCONV_OUTCOME_PASS);
        CHECK(run_variant(c, "direct_naive") == XCONV_OUTCOME_PASS);
        CHECK(run_variant(c, "cublas_gemm") == XCONV_OUTCOME_PASS);
        xconv_outcome dnn = run_variant(c, "cudnn_implicit_gemm");
        CHECK(dnn == XCONV_OUTCOME_PASS || dnn == XCONV_OUTCOME_NOT_APPLICABLE);
    }
    xconv_case_destroy(c);
    c = xconv_case_create(dev, &p, "plain", &opts, &err);
    CHECK_MSG(c != NULL, "a new case after the fault: %s", err.msg);
    if (c)
        CHECK(run_variant(c, "implicit_gemm") == XCONV_OUTCOME_PASS);
    xconv_case_destroy(c);
    xconv_device_close(dev);
    return check_summary("test_cuda_fault");
}

#endif // XCONV_HAVE_CUDA
