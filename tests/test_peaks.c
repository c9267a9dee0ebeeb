// SPDX-License-Identifier: MIT
// xconv_peaks_measure on the first OpenCL device (PoCL here): refuses bad arguments, and gives
// positive, finite, self-consistent figures (each one the work over its fastest run) within
// bounds no device of today passes, and tensor-core figures only where there are tensor cores.
// No wall time is asserted. Skips without an OpenCL device.
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <xconv/xconv.h>

#include "tests/check.h"

// Checks a timing's order: min <= median <= max, all positive, with the runs asked for.
static void check_timing(const char *what, const xconv_timing *t, int repeat)
{
    CHECK_MSG(t->repeat == repeat && t->warmup >= 1, "%s: %d runs after %d", what, t->repeat,
              t->warmup);
    CHECK_MSG(t->min_ms > 0 && t->min_ms <= t->median_ms && t->median_ms <= t->max_ms &&
              isfinite(t->max_ms), "%s: %g <= %g <= %g ms", what, t->min_ms, t->median_ms,
              t->max_ms);
}

int main(void)
{
    xconv_error err = {0};
    xconv_peaks peaks;
    CHECK(xconv_peaks_measure(NULL, 3, &peaks, &err) == XCONV_ERR_INVALID);
    xconv_device *dev = xconv_device_open("opencl:0", &err);
    if (!dev) {
        printf("SKIP: no OpenCL device (%s)\n", err.msg);
        return CHECK_SKIP_CODE;
    }
    const xconv_device_info *info = xconv_device_get_info(dev);
    CHECK(xconv_peaks_measure(dev, 0, &peaks, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "at least 1 timed run");

    const int repeat = 3;
    xconv_status st = xconv_peaks_measure(dev, repeat, &peaks, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st == XCONV_OK) {
        printf("%s: %.1f GFLOP/s (%zu work-items x %d iterations), copy %.1f GB/s, read %.1f "
               "GB/s (%.0f MB)\n", info->name, peaks.fp32_gflops, peaks.fma_items,
               peaks.fma_iters, peaks.gbps, peaks.gbps_read, peaks.read_bytes * 1e-6);
        check_timing("fma", &peaks.fma, repeat);
        check_timing("copy", &peaks.copy, repeat);
        check_timing("read", &peaks.read, repeat);
        // Sizes come from the device's limits.
        CHECK(peaks.work_group >= 1 && peaks.work_group <= info->max_work_group_size);
        CHECK(peaks.fma_items % peaks.work_group == 0);
        CHECK(peaks.fma_items >= (size_t)info->compute_units * peaks.work_group);
        CHECK(peaks.fma_iters >= 1);
        // Lanes: the native float vector width on an OpenCL device that has one (a CPU: its
        // work-items are not vector lanes around the kernel's loops), else scalar chains.
        int want = info->native_float_width >= 16 ? 16 : info->native_float_width >= 8 ? 8
                 : info->native_float_width >= 4 ? 4 : info->native_float_width >= 2 ? 2 : 1;
        CHECK_MSG(peaks.fma_lanes == want, "%d lanes, native width %d", peaks.fma_lanes,
                  info->native_float_width);
        CHECK(peaks.read_bytes > 0 && peaks.read_bytes <= (double)info->max_alloc_bytes);
        CHECK(peaks.copy_bytes == 2 * peaks.read_bytes);
        CHECK(fmod(peaks.read_bytes, 16.0 * (double)peaks.work_group) == 0);
        // Each figure is its work over its fastest run.
        CHECK(fabs(peaks.fp32_gflops - peaks.fma_flops / peaks.fma.min_ms * 1e-6) <
              1e-9 * peaks.fp32_gflops);
        CHECK(fabs(peaks.gbps - peaks.copy_bytes / peaks.copy.min_ms * 1e-6) <
              1e-9 * peaks.gbps);
        CHECK(fabs(peaks.gbps_read - peaks.read_bytes / peaks.read.min_ms * 1e-6) <
              1e-9 * peaks.gbps_read);
        // Plausible: below 10 PFLOP/s and 100 TB/s, above 10 MFLOP/s and 10 MB/s.
        CHECK_MSG(peaks.fp32_gflops > 0.01 && peaks.fp32_gflops < 1e7, "%g GFLOP/s",
                  peaks.fp32_gflops);
        CHECK_MSG(peaks.gbps > 0.01 && peaks.gbps < 1e5, "%g GB/s", peaks.gbps);
        CHECK_MSG(peaks.gbps_read > 0.01 && peaks.gbps_read < 1e5, "%g GB/s", peaks.gbps_read);
        // The tensor cores' figures: measured only with NVIDIA tensor cores (compute capability
        // 8.0 or later) where the kernel builds, each its work over its fastest run; else 0
        // (not measured) and the note says why.
        if (peaks.mma_note[0])
            printf("tensor cores not measured: %s\n", peaks.mma_note);
        CHECK(info->cc_major >= 8 || strstr(peaks.mma_note, "no NVIDIA tensor cores"));
        for (int m = 0; m < 4; m++) {
            bool measured = m > 0 && info->cc_major >= 8 && !peaks.mma_note[0];
            CHECK_MSG((peaks.mma_gflops[m] > 0) == measured, "math %d: %g GFLOP/s", m,
                      peaks.mma_gflops[m]);
            if (measured) {
                check_timing("mma", &peaks.mma[m], repeat);
                CHECK(fabs(peaks.mma_gflops[m] - peaks.mma_flops[m] / peaks.mma[m].min_ms *
                           1e-6) < 1e-9 * peaks.mma_gflops[m]);
            } else {
                CHECK(peaks.mma_iters[m] == 0 && peaks.mma_flops[m] == 0);
            }
        }
    }
    xconv_device_close(dev);
    return check_summary("test_peaks");
}
