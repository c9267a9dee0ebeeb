// SPDX-License-Identifier: MIT
// Tests the core under the backends with a stub backend that counts what it is asked to do (no
// device needed): the buffer registry and its range checks, the program cache keyed by (source,
// defines) with its build-time accounting, closing a device frees what it holds, and the
// measuring primitive's warm-up, marks and statistics.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/device.h"
#include "../host/caches/programs.h"
#include "tests/check.h"

// ---------------------------------------------------------------------------------------------
// A backend that keeps host memory for buffers and builds nothing

struct xconv_backend_buffer {
    unsigned char *bytes;
};

struct xconv_backend_program {
    char options[256];
};

static int allocs, frees, builds, program_frees, finishes, timer_starts, enqueues;
static double next_time_ms;  // what the next timer_stop reports; then +1

static xconv_status stub_alloc(void *ctx, size_t bytes, xconv_backend_buffer **out,
                               xconv_error *err)
{
    (void)ctx;
    (void)err;
    *out = calloc(1, sizeof **out);
    (*out)->bytes = calloc(bytes ? bytes : 1, 1);
    allocs++;
    return XCONV_OK;
}

static void stub_free(void *ctx, xconv_backend_buffer *buf)
{
    (void)ctx;
    if (!buf)
        return;
    free(buf->bytes);
    free(buf);
    frees++;
}

static xconv_status stub_write(void *ctx, xconv_backend_buffer *buf, size_t offset, size_t bytes,
                               const void *src, xconv_error *err)
{
    (void)ctx;
    (void)err;
    memcpy(buf->bytes + offset, src, bytes);
    return XCONV_OK;
}

static xconv_status stub_read(void *ctx, xconv_backend_buffer *buf, size_t offset, size_t bytes,
                              void *dst, xconv_error *err)
{
    (void)ctx;
    (void)err;
    memcpy(dst, buf->bytes + offset, bytes);
    return XCONV_OK;
}

static xconv_status stub_fill(void *ctx, xconv_backend_buffer *buf, size_t count, float value,
                              xconv_error *err)
{
    (void)ctx;
    (void)err;
    for (size_t i = 0; i < count; i++)
        memcpy(buf->bytes + 4 * i, &value, 4);
    return XCONV_OK;
}

// Builds anything, but a define XC_FAIL fails the build with a log longer than a message holds.
static xconv_status stub_build(void *ctx, const char *source, const char *options,
                               xconv_backend_program **out, char **log, xconv_error *err)
{
    (void)ctx;
    CHECK(source != NULL && strstr(source, "XC_KERNEL") != NULL);  // the embedded kernel text
    if (strstr(options, "XC_FAIL")) {
        if (log && (*log = malloc(2001)) != NULL) {
            memset(*log, 'e', 2000);
            (*log)[2000] = '\0';
        }
        return xconv_error_set(err, XCONV_ERR_BUILD, "stub build failed");
    }
    *out = calloc(1, sizeof **out);
    snprintf((*out)->options, sizeof (*out)->options, "%s", options);
    builds++;
    return XCONV_OK;
}

static void stub_program_free(void *ctx, xconv_backend_program *prog)
{
    (void)ctx;
    free(prog);
    program_frees++;
}

static xconv_status stub_finish(void *ctx, xconv_error *err)
{
    (void)ctx;
    (void)err;
    finishes++;
    return XCONV_OK;
}

static xconv_status stub_timer_start(void *ctx, xconv_error *err)
{
    (void)ctx;
    (void)err;
    timer_starts++;
    return XCONV_OK;
}

static xconv_status stub_timer_stop(void *ctx, double *ms, xconv_error *err)
{
    (void)ctx;
    (void)err;
    *ms = next_time_ms;
    next_time_ms += 1.0;
    return XCONV_OK;
}

static void stub_close(void *ctx)
{
    (void)ctx;
}

static const xconv_backend_iface stub_backend = {
    .kind = XCONV_BACKEND_OPENCL, .close = stub_close, .buffer_alloc = stub_alloc,
    .buffer_free = stub_free, .buffer_write = stub_write, .buffer_read = stub_read,
    .buffer_fill = stub_fill, .program_build = stub_build, .program_free = stub_program_free,
    .finish = stub_finish, .timer_start = stub_timer_start, .timer_stop = stub_timer_stop,
};

// A device on the stub backend, as xconv_device_open_info would make it.
static xconv_device *stub_device(void)
{
    xconv_device *dev = calloc(1, sizeof *dev);
    dev->be = &stub_backend;
    dev->info.max_alloc_bytes = 1 << 20;
    return dev;
}

// ---------------------------------------------------------------------------------------------
// Buffers

static void test_buffers(void)
{
    xconv_device *dev = stub_device();
    xconv_error err = {0};
    float in[16], out[16];
    for (int i = 0; i < 16; i++)
        in[i] = (float)i;
    xconv_buffer *a = xconv_buffer_create(dev, sizeof in, &err);
    xconv_buffer *b = xconv_buffer_create(dev, 8, &err);
    CHECK(a && b && allocs == 2);
    CHECK(xconv_buffer_size(a) == sizeof in && xconv_buffer_size(NULL) == 0);
    CHECK(xconv_buffer_upload(a, 0, sizeof in, in, &err) == XCONV_OK);
    CHECK(xconv_buffer_download(a, 8, 8, out, &err) == XCONV_OK);
    CHECK(out[0] == 2.0f && out[1] == 3.0f);
    // Every range is checked before the backend sees it.
    CHECK(xconv_buffer_download(a, 4, sizeof in, out, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "passes the buffer's 64 bytes");
    CHECK(xconv_buffer_upload(b, 8, 1, in, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_buffer_upload(b, SIZE_MAX, 2, in, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_buffer_fill_f32(b, 3, 0.0f, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_buffer_fill_f32(b, SIZE_MAX / 2, 0.0f, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_buffer_fill_f32(a, 16, -1.0f, &err) == XCONV_OK);
    CHECK(xconv_buffer_download(a, 60, 4, out, &err) == XCONV_OK && out[0] == -1.0f);
    CHECK(xconv_buffer_upload(NULL, 0, 0, in, &err) == XCONV_ERR_INVALID);
    // Past the device's largest allocation: refused with the limit, nothing allocated.
    CHECK(xconv_buffer_create(dev, (1 << 20) + 1, &err) == NULL);
    CHECK(err.status == XCONV_ERR_OUT_OF_MEMORY && allocs == 2);
    CHECK_CONTAINS(err.msg, "largest allocation of 1048576 bytes");
    // The registry: destroying one in the middle keeps the rest; closing frees what is left.
    xconv_buffer *c = xconv_buffer_create(dev, 4, &err);
    xconv_buffer_destroy(b);
    xconv_buffer_destroy(NULL);
    CHECK(frees == 1 && dev->buffers == c && c->next == a && a->next == NULL);
    xconv_device_close(dev);
    CHECK_MSG(frees == 3, "%d of 3 buffers freed by close", frees);
}

// ---------------------------------------------------------------------------------------------
// Programs

// Gets the program of (source, {XC_A = a, XC_B = b}) and returns it.
static xconv_program *get(xconv_device *dev, const char *source, long long a, long long b,
                          int ndefines)
{
    xconv_define d[3] = {{"XC_A", a}, {"XC_B", b}, {"XC_D", 0}};
    xconv_program *prog = NULL;
    xconv_error err = {0};
    double ms = 0;
    xconv_status st = xconv_program_get(dev, source, d, ndefines, &prog, &ms, &err);
    CHECK_MSG(st == XCONV_OK && prog, "%s", err.msg);
    return prog;
}

static void test_program_cache(void)
{
    xconv_device *dev = stub_device();
    builds = program_frees = 0;
    xconv_program *first = get(dev, "direct_naive", 1, 2, 2);
    CHECK(builds == 1);
    CHECK(strcmp(first->handle->options, "-DXC_A=1 -DXC_B=2") == 0);
    CHECK(dev->compile_ms >= 0.0);
    for (int i = 0; i < 5; i++)
        CHECK(get(dev, "direct_naive", 1, 2, 2) == first);
    CHECK_MSG(builds == 1, "%d builds for 6 gets of one key", builds);
    // Each difference builds anew: a value, one define more, another source.
    CHECK(get(dev, "direct_naive", 1, 3, 2) != first && builds == 2);
    CHECK(get(dev, "direct_naive", 1, 2, 3) != first && builds == 3);
    CHECK(get(dev, "direct_const", 1, 2, 2) != first && builds == 4);
    // A different name with the same value is a different key too.
    xconv_define renamed[2] = {{"XC_A", 1}, {"XC_C", 2}};
    xconv_program *prog = NULL;
    xconv_error err = {0};
    CHECK(xconv_program_get(dev, "direct_naive", renamed, 2, &prog, NULL, &err) == XCONV_OK);
    CHECK(prog != first && builds == 5);
    // All are remembered.
    CHECK(get(dev, "direct_naive", 1, 2, 2) == first && builds == 5);
    // A source that is not embedded is named in the error.
    CHECK(xconv_program_get(dev, "no_such_kernel", renamed, 2, &prog, NULL, &err) ==
          XCONV_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.msg, "no_such_kernel");
    char options[16];
    CHECK(xconv_defines_format(renamed, 2, options, sizeof options) == 17);  // snprintf-style
    CHECK(strcmp(options, "-DXC_A=1 -DXC_C") == 0);

    // A failed build's whole log, past what a message holds, comes from the device.
    char log[4096];
    CHECK(xconv_device_build_log(dev, log, sizeof log) == 0 && log[0] == '\0');
    xconv_define failing[1] = {{"XC_FAIL", 1}};
    CHECK(xconv_program_get(dev, "direct_naive", failing, 1, &prog, NULL, &err) ==
          XCONV_ERR_BUILD);
    CHECK(xconv_device_build_log(dev, log, sizeof log) == 2000 && strlen(log) == 2000);
    CHECK(xconv_device_build_log(dev, options, sizeof options) == 2000);  // cut to fit
    CHECK(strlen(options) == sizeof options - 1);
    CHECK(xconv_device_build_log(NULL, log, sizeof log) == -1);
    xconv_device_close(dev);
    CHECK_MSG(program_frees == 5, "%d of 5 programs freed by close", program_frees);
}

// ---------------------------------------------------------------------------------------------
// Measuring

// Counts the runs and checks they come in order.
static xconv_status count_run(void *user, int run, xconv_error *err)
{
    (void)err;
    int *expected = user;
    CHECK_MSG(run == *expected, "run %d, expected %d", run, *expected);
    (*expected)++;
    enqueues++;
    return XCONV_OK;
}

static xconv_status failing_run(void *user, int run, xconv_error *err)
{
    (void)user;
    return run == 3 ? xconv_error_set(err, XCONV_ERR_DEVICE, "run 3 failed") : XCONV_OK;
}

static void test_measure(void)
{
    xconv_device *dev = stub_device();
    xconv_error err = {0};
    xconv_timing t;
    double samples[5];
    int expected = 0;
    finishes = timer_starts = enqueues = 0;
    next_time_ms = 10.0;  // the five timed runs take 10, 11, 12, 13, 14 ms
    CHECK(xconv_device_measure(dev, count_run, &expected, 2, 5, &t, samples, &err) == XCONV_OK);
    CHECK(enqueues == 7 && timer_starts == 5 && finishes == 1);
    CHECK(t.warmup == 2 && t.repeat == 5);
    CHECK(t.median_ms == 12.0 && t.min_ms == 10.0 && t.max_ms == 14.0);
    CHECK(samples[0] == 10.0 && samples[4] == 14.0);
    expected = 0;
    next_time_ms = 1.0;  // an even count: the median is the mean of the middle two
    CHECK(xconv_device_measure(dev, count_run, &expected, 0, 4, &t, NULL, &err) == XCONV_OK);
    CHECK(t.median_ms == 2.5);
    CHECK(xconv_device_measure(dev, count_run, &expected, 1, 0, &t, NULL, &err) ==
          XCONV_ERR_INVALID);
    CHECK(isnan(t.median_ms));
    CHECK(xconv_device_measure(dev, failing_run, NULL, 2, 5, &t, NULL, &err) ==
          XCONV_ERR_DEVICE);
    CHECK_CONTAINS(err.msg, "run 3 failed");
    xconv_device_close(dev);
}

int main(void)
{
    test_buffers();
    test_program_cache();
    test_measure();
    return check_summary("test_core");
}
