// SPDX-License-Identifier: MIT
// A real device fault on CUDA: a plan run with the test fault XCONV_TEST_FAULT_KERNEL launches a
// kernel that writes through a bad address. The CUDA driver cannot recover from that sticky
// error inside the process, so the run fails with XCONV_ERR_DEVICE_LOST and the device is lost
// for good (xconv_device_lost) with a message saying so; every later call (buffers, plans, our
// kernels, cuBLAS, cuDNN, waiting) fails the same way without crashing, and destroying and
// closing are safe. The CLI runs the cases left in new processes (tests/cli/isolation.sh on
// PoCL). Needs a GPU: skips (77) without a CUDA device. The OpenCL rebuild after a lost context
// is tests/test_device_lost.c.
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

#include <xconv/internal/test_fault.h>

#include "../host/core/device.h"

// Runs variant `name` on case c; returns the record's outcome (printed with its note).
static xconv_outcome run_variant(xconv_case *c, const char *name, xconv_result *rec)
{
    xconv_error err = {0};
    const xconv_variant *v = xconv_variant_find(name, &err);
    xconv_status st = v ? xconv_case_run(c, v, rec, &err) : err.status;
    CHECK_MSG(st == XCONV_OK, "%s: %s", name, err.msg);
    if (st != XCONV_OK)
        return XCONV_OUTCOME_ERROR;
    printf("  %-22s %-5s %s\n", name, xconv_outcome_name(rec->outcome),
           rec->outcome == XCONV_OUTCOME_PASS ? "" : rec->note);
    return rec->outcome;
}

// Runs a plan of p with the faulting test kernel on dev; returns the run's status.
static xconv_status launch_fault(xconv_device *dev, const xconv_problem *p, xconv_error *err)
{
    xconv_plan *plan = xconv_plan_create(dev, p, "direct_naive", NULL, err);
    if (!plan)
        return err->status;
    if (xconv_plan_set_test_fault(plan, XCONV_TEST_FAULT_KERNEL, err) != XCONV_OK) {
        xconv_plan_destroy(plan);
        return err->status;
    }
    xconv_tensors t = {
        .x = xconv_buffer_create(dev, (size_t)xconv_problem_x_elems(p) * 4, err),
        .w = xconv_buffer_create(dev, (size_t)xconv_problem_w_elems(p) * 4, err),
        .y = xconv_buffer_create(dev, (size_t)xconv_problem_y_elems(p) * 4, err)};
    xconv_status st = t.x && t.w && t.y ? xconv_plan_run(plan, &t, err) : err->status;
    xconv_buffer_destroy(t.x);
    xconv_buffer_destroy(t.w);
    xconv_buffer_destroy(t.y);
    xconv_plan_destroy(plan);
    return st;
}

int main(void)
{
    xconv_error err = {0};
    xconv_devices *list = xconv_devices_enumerate(XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA), &err);
    if (xconv_devices_count(list) == 0) {
        char reason[512] = "";
        xconv_devices_backend_status(list, XCONV_BACKEND_CUDA, reason, sizeof reason);
        printf("SKIP: no CUDA device (%s)\n", reason);
        xconv_devices_free(list);
        return CHECK_SKIP_CODE;
    }
    xconv_device *dev = xconv_device_open_info(xconv_devices_info_at(list, 0), &err);
    xconv_devices_free(list);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (!dev)
        return check_summary("test_cuda_fault");
    printf("on %s\n", xconv_device_get_info(dev)->name);
    xconv_problem p;
    CHECK(xconv_shape_parse("n=2,c=8,h=16,w=16,k=16,r=3,pad=1", &p, &err) == XCONV_OK);
    xconv_case_options opts;
    xconv_case_options_default(&opts);
    opts.repeat = 3;
    static xconv_result rec;
    xconv_case *c = xconv_case_create(dev, &p, "plain", &opts, &err);
    CHECK_MSG(c != NULL, "%s", err.msg);
    if (c) {
        CHECK(run_variant(c, "direct_tiled", &rec) == XCONV_OUTCOME_PASS);
        CHECK(run_variant(c, "cublas_gemm", &rec) == XCONV_OUTCOME_PASS);
    }
    xconv_buffer *old = xconv_buffer_create(dev, 256, &err);
    CHECK(old != NULL);

    xconv_status st = launch_fault(dev, &p, &err);
    printf("  the faulting kernel: %s: %s\n", xconv_status_to_string(st), err.msg);
    CHECK_MSG(st == XCONV_ERR_DEVICE_LOST, "the run of the faulting kernel returned %s: %s",
              xconv_status_to_string(st), err.msg);
    CHECK_CONTAINS(err.msg, "device lost for good");
    CHECK_CONTAINS(err.msg, "CUDA_ERROR_ILLEGAL_ADDRESS");
    CHECK_CONTAINS(err.msg, "the CUDA context cannot be recovered in this process after a "
                            "sticky error");
    CHECK(xconv_device_lost(dev) && xconv_device_resets(dev) == 0);

    // Every call now fails cleanly: no crash, no driver call on the broken context.
    CHECK(xconv_device_wait(dev, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK_CONTAINS(err.msg, "cannot be recovered in this process");
    CHECK(xconv_buffer_create(dev, 64, &err) == NULL && err.status == XCONV_ERR_DEVICE_LOST);
    char bytes[64] = {0};
    CHECK(xconv_buffer_upload(old, 0, sizeof bytes, bytes, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK(xconv_plan_create(dev, &p, "direct_naive", NULL, &err) == NULL &&
          err.status == XCONV_ERR_DEVICE_LOST);
    CHECK(xconv_plan_create(dev, &p, "cudnn_implicit_gemm", NULL, &err) == NULL &&
          err.status == XCONV_ERR_DEVICE_LOST);
    xconv_buffer_destroy(old);
    if (c) {  // every variant's record, ours and the vendors', says why
        static const char *const names[] = {"direct_tiled", "direct_naive", "cublas_gemm",
                                            "cudnn_implicit_gemm", "implicit_gemm"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            CHECK(run_variant(c, names[i], &rec) == XCONV_OUTCOME_ERROR);
            CHECK_CONTAINS(rec.note, "device lost for good");
        }
    }
    xconv_case_destroy(c);
    CHECK(xconv_case_create(dev, &p, "plain", &opts, &err) == NULL &&
          err.status == XCONV_ERR_DEVICE_LOST);
    xconv_device_close(dev);  // safe on a device lost for good
    return check_summary("test_cuda_fault");
}

#endif // XCONV_HAVE_CUDA
