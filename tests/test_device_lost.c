// SPDX-License-Identifier: MIT
// A device fault costs the case it happens in only: on an OpenCL device (PoCL here) a copy of
// the backend's table that fails chosen calls with XCONV_ERR_DEVICE_LOST (white-box, this test's
// own mechanism) shows the core dropping the lost context's buffers and programs, rebuilding the
// context through the real reset slot, plans building their programs again, the harness
// uploading its inputs again, and the next runs passing in the same process. A device lost for
// good (xconv_plan_set_test_fault, as CUDA after a sticky error) fails every later call
// cleanly and closes safely. The CUDA backend's real fault (an illegal address) is
// tests/test_cuda_fault.c, which needs a GPU.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xconv/internal/test_fault.h>

#include "../host/core/device.h"
#include "tests/check.h"

// ---------------------------------------------------------------------------------------------
// The fault injector: the real table with chosen slots failing once

static xconv_backend_iface faulty;          // a copy of the real table, slots wrapped
static const xconv_backend_iface *real;
static int fail_finish, fail_read, fail_reset;  // how many of the next calls fail

static xconv_status lost(xconv_error *err, const char *slot)
{
    return xconv_error_set(err, XCONV_ERR_DEVICE_LOST, "%s: injected fault", slot);
}

static xconv_status faulty_finish(void *ctx, xconv_error *err)
{
    if (fail_finish > 0 && fail_finish--)
        return lost(err, "finish");
    return real->finish(ctx, err);
}

static xconv_status faulty_read(void *ctx, xconv_backend_buffer *buf, size_t offset,
                                size_t bytes, void *dst, xconv_error *err)
{
    if (fail_read > 0 && fail_read--)
        return lost(err, "buffer_read");
    return real->buffer_read(ctx, buf, offset, bytes, dst, err);
}

static xconv_status faulty_reset(void *ctx, xconv_error *err)
{
    if (fail_reset > 0 && fail_reset--)
        return xconv_error_set(err, XCONV_ERR_DEVICE, "reset: injected failure");
    return real->reset(ctx, err);
}

// Puts the injecting table under dev (its context stays the real backend's).
static void inject(xconv_device *dev)
{
    real = dev->be;
    faulty = *real;
    faulty.finish = faulty_finish;
    faulty.buffer_read = faulty_read;
    faulty.reset = faulty_reset;
    dev->be = &faulty;
}

// ---------------------------------------------------------------------------------------------
// Tests

// Runs variant `name` on case c; returns its record's outcome (the note printed when not pass).
static xconv_outcome run_variant(xconv_case *c, const char *name, xconv_result *rec)
{
    xconv_error err = {0};
    const xconv_variant *v = xconv_variant_find(name, &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    if (!v)
        return XCONV_OUTCOME_ERROR;
    xconv_status st = xconv_case_run(c, v, rec, &err);
    CHECK_MSG(st == XCONV_OK, "%s: harness failed: %s", name, err.msg);
    if (rec->outcome != XCONV_OUTCOME_PASS)
        printf("  %s: %s: %s\n", name, xconv_outcome_name(rec->outcome), rec->note);
    return rec->outcome;
}

// A fault while a variant runs: that record errors, naming the lost device; the context is
// rebuilt; the next variants on the same case (whose inputs were lost) and a new case pass.
static void test_fault_in_a_case(xconv_device *dev, const xconv_problem *p)
{
    xconv_error err = {0};
    xconv_case_options opts;
    xconv_case_options_default(&opts);
    xconv_case *c = xconv_case_create(dev, p, "plain", &opts, &err);
    CHECK_MSG(c != NULL, "%s", err.msg);
    if (!c)
        return;
    static xconv_result rec;
    CHECK(run_variant(c, "direct_tiled", &rec) == XCONV_OUTCOME_PASS);
    unsigned before = xconv_device_resets(dev);

    fail_finish = 1;  // the wait after the next run meets a lost context
    CHECK(run_variant(c, "direct_naive", &rec) == XCONV_OUTCOME_ERROR);
    CHECK_CONTAINS(rec.note, "injected fault");
    CHECK_CONTAINS(rec.note, "device lost, its context rebuilt");
    CHECK(xconv_device_resets(dev) == before + 1 && !dev->lost);

    // The same case: inputs uploaded again, programs built again (direct_tiled's was cached).
    CHECK(run_variant(c, "direct_naive", &rec) == XCONV_OUTCOME_PASS);
    CHECK(run_variant(c, "direct_tiled", &rec) == XCONV_OUTCOME_PASS);
    CHECK(run_variant(c, "clblast_gemm", &rec) == XCONV_OUTCOME_PASS);

    xconv_case_destroy(c);

    // A new case, timed: a fault in a download errors that record; the next one is timed.
    opts.repeat = 2;
    c = xconv_case_create(dev, p, "plain", &opts, &err);
    CHECK_MSG(c != NULL, "%s", err.msg);
    if (!c)
        return;
    fail_read = 1;
    CHECK(run_variant(c, "direct_naive", &rec) == XCONV_OUTCOME_ERROR);
    CHECK(xconv_device_resets(dev) == before + 2);
    CHECK(run_variant(c, "direct_naive", &rec) == XCONV_OUTCOME_PASS);
    CHECK(rec.repeat == 2 && rec.median_ms > 0);
    CHECK(run_variant(c, "direct_const", &rec) == XCONV_OUTCOME_PASS);
    xconv_case_destroy(c);
}

// Through the API alone: a buffer made before a fault is lost (every use says so, destroying it
// is fine); a plan made before runs afterwards on new buffers and matches the host reference.
static void test_fault_through_the_api(xconv_device *dev, const xconv_problem *p)
{
    xconv_error err = {0};
    size_t xn = (size_t)xconv_problem_x_elems(p), wn = (size_t)xconv_problem_w_elems(p);
    size_t yn = (size_t)xconv_problem_y_elems(p);
    float *x = malloc(xn * sizeof *x), *w = malloc(wn * sizeof *w), *y = malloc(yn * sizeof *y);
    double *ref = malloc(yn * sizeof *ref);
    for (size_t i = 0; i < xn; i++)
        x[i] = (float)((i * 7 % 13) - 6) / 8.0f;
    for (size_t i = 0; i < wn; i++)
        w[i] = (float)((i * 5 % 11) - 5) / 4.0f;
    CHECK(xconv_reference_conv(p, x, w, ref, NULL, 1, &err) == XCONV_OK);
    xconv_plan *plan = xconv_plan_create(dev, p, "direct_tiled", NULL, &err);
    CHECK_MSG(plan != NULL, "%s", err.msg);
    CHECK(plan && xconv_plan_prepare(plan, NULL, &err) == XCONV_OK);
    xconv_buffer *old = xconv_buffer_create(dev, 64, &err);
    CHECK(old != NULL);

    fail_finish = 1;
    CHECK(xconv_device_wait(dev, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK(err.status == XCONV_ERR_DEVICE_LOST);
    CHECK_CONTAINS(err.msg, "device lost, its context rebuilt");
    char bytes[64] = {0};
    CHECK(xconv_buffer_upload(old, 0, sizeof bytes, bytes, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK_CONTAINS(err.msg, "lost at a fault");
    CHECK(xconv_buffer_download(old, 0, sizeof bytes, bytes, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK(xconv_buffer_size(old) == 64);
    xconv_buffer_destroy(old);

    // A lost context whose rebuild fails stays lost; the next call tries again and succeeds.
    unsigned before = xconv_device_resets(dev);
    fail_finish = 1;
    fail_reset = 1;
    CHECK(xconv_device_wait(dev, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK_CONTAINS(err.msg, "rebuilding its context failed (reset: injected failure)");
    CHECK(dev->lost && xconv_device_resets(dev) == before);

    xconv_tensors t = {.x = xconv_buffer_create(dev, xn * 4, &err)};
    CHECK_MSG(t.x != NULL, "%s", err.msg);
    CHECK(!dev->lost && xconv_device_resets(dev) == before + 1);
    t.w = xconv_buffer_create(dev, wn * 4, &err);
    t.y = xconv_buffer_create(dev, yn * 4, &err);
    xconv_status st = t.w && t.y ? XCONV_OK : err.status;
    if (st == XCONV_OK)
        st = xconv_buffer_upload(t.x, 0, xn * 4, x, &err);
    if (st == XCONV_OK)
        st = xconv_buffer_upload(t.w, 0, wn * 4, w, &err);
    if (st == XCONV_OK && plan)
        st = xconv_plan_run(plan, &t, &err);
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, &err);
    if (st == XCONV_OK)
        st = xconv_buffer_download(t.y, 0, yn * 4, y, &err);
    CHECK_MSG(st == XCONV_OK, "the plan made before the faults: %s", err.msg);
    double worst = 0;
    for (size_t i = 0; st == XCONV_OK && i < yn; i++)
        worst = fmax(worst, fabs(y[i] - ref[i]));
    CHECK_MSG(worst < 1e-4, "largest difference %g", worst);
    xconv_buffer_destroy(t.x);
    xconv_buffer_destroy(t.w);
    xconv_buffer_destroy(t.y);
    xconv_plan_destroy(plan);
    free(x);
    free(w);
    free(y);
    free(ref);
}

// A device lost for good (a test fault: the context is not rebuilt): the run that met it errors
// naming why, and from then on every call fails with XCONV_ERR_DEVICE_LOST and that reason
// without reaching the backend; destroying what was made before and closing are safe.
static void test_lost_for_good(const xconv_device_info *info, const xconv_problem *p)
{
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open_info(info, &err);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (!dev)
        return;
    xconv_case_options opts;
    xconv_case_options_default(&opts);
    xconv_case *c = xconv_case_create(dev, p, "plain", &opts, &err);
    CHECK_MSG(c != NULL, "%s", err.msg);
    static xconv_result rec;
    if (c)
        CHECK(run_variant(c, "direct_naive", &rec) == XCONV_OUTCOME_PASS);
    xconv_plan *plan = xconv_plan_create(dev, p, "direct_tiled", NULL, &err);
    CHECK_MSG(plan != NULL, "%s", err.msg);
    CHECK(xconv_plan_set_test_fault(plan, 7, &err) == XCONV_ERR_INVALID);
    CHECK(plan && xconv_plan_set_test_fault(plan, XCONV_TEST_FAULT_LOSE, &err) == XCONV_OK);
    xconv_buffer *x = xconv_buffer_create(dev, (size_t)xconv_problem_x_elems(p) * 4, &err);
    xconv_buffer *w = xconv_buffer_create(dev, (size_t)xconv_problem_w_elems(p) * 4, &err);
    xconv_buffer *y = xconv_buffer_create(dev, (size_t)xconv_problem_y_elems(p) * 4, &err);
    CHECK(x && w && y);
    xconv_tensors t = {.x = x, .w = w, .y = y};
    CHECK(!xconv_device_lost(dev));
    CHECK(plan && xconv_plan_run(plan, &t, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK_CONTAINS(err.msg, "device lost for good at a fault (direct_tiled: a test's injected");
    CHECK_CONTAINS(err.msg, "a new process can open it again");
    CHECK(xconv_device_lost(dev) && xconv_device_resets(dev) == 0);

    // Every call now fails the same way, without touching the backend.
    CHECK(xconv_device_wait(dev, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK_CONTAINS(err.msg, "device lost for good");
    CHECK(xconv_buffer_create(dev, 64, &err) == NULL && err.status == XCONV_ERR_DEVICE_LOST);
    CHECK_CONTAINS(err.msg, "device lost for good");
    char bytes[64] = {0};
    CHECK(xconv_buffer_upload(x, 0, sizeof bytes, bytes, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK(xconv_buffer_download(y, 0, sizeof bytes, bytes, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK(xconv_buffer_fill_f32(y, 4, 0.0f, &err) == XCONV_ERR_DEVICE_LOST);
    CHECK(xconv_plan_create(dev, p, "direct_naive", NULL, &err) == NULL &&
          err.status == XCONV_ERR_DEVICE_LOST);
    CHECK(xconv_plan_create(dev, p, "clblast_convgemm", NULL, &err) == NULL &&
          err.status == XCONV_ERR_DEVICE_LOST);
    xconv_plan_destroy(plan);
    plan = NULL;
    if (c) {  // the harness records the reason for every variant, a vendor's too
        CHECK(run_variant(c, "direct_naive", &rec) == XCONV_OUTCOME_ERROR);
        CHECK_CONTAINS(rec.note, "device lost for good");
        CHECK(run_variant(c, "clblast_gemm", &rec) == XCONV_OUTCOME_ERROR);
        CHECK_CONTAINS(rec.note, "device lost for good");
        CHECK(run_variant(c, "clblast_convgemm", &rec) == XCONV_OUTCOME_ERROR);
        CHECK_CONTAINS(rec.note, "device lost for good");
    }
    xconv_case_destroy(c);
    xconv_buffer_destroy(x);
    xconv_buffer_destroy(w);
    xconv_buffer_destroy(y);
    xconv_device_close(dev);
}

int main(void)
{
    xconv_error err = {0};
    xconv_devices *list =
        xconv_devices_enumerate(XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL), &err);
    if (xconv_devices_count(list) == 0) {
        printf("SKIP: no OpenCL device (install pocl-opencl-icd)\n");
        xconv_devices_free(list);
        return CHECK_SKIP_CODE;
    }
    xconv_device_info info = *xconv_devices_info_at(list, 0);
    xconv_devices_free(list);
    xconv_device *dev = xconv_device_open_info(&info, &err);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (!dev)
        return check_summary("test_device_lost");
    printf("on %s\n", xconv_device_get_info(dev)->name);
    inject(dev);
    xconv_problem p;
    CHECK(xconv_shape_parse("n=2,c=4,h=12,w=10,k=6,r=3,pad=1", &p, &err) == XCONV_OK);
    test_fault_in_a_case(dev, &p);
    test_fault_through_the_api(dev, &p);
    dev->be = real;
    xconv_device_close(dev);
    test_lost_for_good(&info, &p);
    return check_summary("test_device_lost");
}
