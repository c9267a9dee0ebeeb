// SPDX-License-Identifier: MIT
// The tensor-core peak kernel (cl/peak_mma.cl) without a GPU: compiled for sm_90 through NVRTC
// and ptxas in each mode (the mode's mma.sync in the PTX, every chain unrolled, no spills) when
// NVRTC loads; its structure (chains, iterations, the sum it writes) run on an OpenCL CPU device
// with the instruction emulated (XC_PEAK_MMA_PTX 0), against the closed form. (test_peaks
// checks that xconv_peaks_measure leaves the figures at 0 on a device without tensor cores.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/core/device.h"
#include "caches/programs.h"
#include "tests/check.h"
#include "tests/fixtures.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/cuda_loader.h"
#include "cuda/nvrtc_compile.h"
#endif

#define CHAINS 8  // XC_PEAK_MMA_CHAINS's default

static const char *const ops[] = {"", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                                  "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                  "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"};

// ---------------------------------------------------------------------------------------------
// sm_90 through NVRTC

#ifdef XCONV_HAVE_CUDA
// Returns how often needle occurs in text.
static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static void test_nvrtc(void)
{
    xconv_error err;
    if (!xconv_nvrtc_load(&err)) {
        printf("  NVRTC not loaded (%s): sm_90 compilation not checked\n", err.msg);
        return;
    }
    const char *source = xconv_kernel_source("peak_mma");
    CHECK(source != NULL);
    for (int m = 1; source && m <= 3; m++) {
        char options[128];
        snprintf(options, sizeof options, "-DXC_PEAK_MMA_MATH=%d -DXC_PEAK_MMA_CHAINS=%d", m,
                 CHAINS);
        xconv_nvrtc_image img;
        xconv_status st = xconv_nvrtc_compile(source, options, 9, 0, true, &img, &err);
        CHECK_MSG(st == XCONV_OK, "math %d: %s", m, err.msg);
        if (st == XCONV_OK) {
            // The chains unrolled in the loop: one instruction each (NVRTC may unroll the
            // iterations too, with a remainder loop: a multiple of the chains).
            int n = count_of(img.ptx, ops[m]);
            CHECK_MSG(n >= CHAINS && n % CHAINS == 0, "math %d: %d x %s in the PTX", m, n,
                      ops[m]);
            CHECK(img.is_cubin && strcmp(img.arch, "sm_90") == 0);
            xconv_nvrtc_image_free(&img);
        }
        char *log = NULL;
        if (xconv_nvrtc_report(source, options, 9, 0, &log, &err) == XCONV_OK) {
            const char *regs = strstr(log, "Used ");
            printf("  peak_mma math %d: %.*s\n", m, regs ? (int)strcspn(regs, "\n") : 0,
                   regs ? regs : "");
            CHECK_MSG(strstr(log, "0 bytes spill stores") != NULL, "math %d spills:\n%s", m,
                      log);
        }
        free(log);
    }
}
#endif

// ---------------------------------------------------------------------------------------------
// The emulated kernel on a CPU device

// Each work-item's sum after `iters` instructions of `step` on each of its CHAINS x 4
// accumulators, which start at c + j / 4: sum (4c + 1.5) + 4 * CHAINS * iters * step.
static float expected_sum(int iters, float step)
{
    float start = 0.0f;
    for (int c = 0; c < CHAINS; c++)
        start += 4.0f * (float)c + 1.5f;
    return start + 4.0f * CHAINS * (float)iters * step;
}

// Runs peak_mma emulated in each mode on 2 work-groups of 64: every work-item writes the closed
// form (exact: the steps are powers of two and the sums stay far below 2^24 ulps).
static void test_emulated(void)
{
    xconv_device *dev = open_cpu();
    if (!dev) {
        printf("  no OpenCL CPU device: the emulated kernel not run\n");
        return;
    }
    enum { ITEMS = 128, GROUP = 64, ITERS = 40 };
    xconv_error err = {0};
    xconv_buffer *out = xconv_buffer_create(dev, ITEMS * sizeof(float), &err);
    CHECK_MSG(out != NULL, "%s", err.msg);
    for (int m = 1; out && m <= 3; m++) {
        const xconv_define defines[] = {{"XC_PEAK_MMA_MATH", m}, {"XC_PEAK_MMA_PTX", 0},
                                        {"XC_PEAK_MMA_CHAINS", CHAINS}};
        xconv_program *prog = NULL;
        xconv_status st = xconv_program_get(dev, "peak_mma", defines, 3, &prog, NULL, &err);
        CHECK_MSG(st == XCONV_OK, "math %d: %s", m, err.msg);
        if (st != XCONV_OK)
            continue;
        float step = (m == 1 ? 8.0f : 16.0f) * 0x1p-16f;  // k * a * b with a = b = 2^-8
        xconv_arg args[] = {XCONV_ARG_BUF(xconv_buffer_handle(out)), XCONV_ARG_I32(ITERS),
                            XCONV_ARG_I32(0x3b800000), XCONV_ARG_I32(0x3b800000),
                            XCONV_ARG_F32(step)};
        xconv_launch launch = {.kernel = "peak_mma", .dims = 1, .global = {ITEMS, 1, 1},
                               .local = {GROUP, 1, 1}, .args = args, .nargs = 5};
        float y[ITEMS];
        st = dev->be->launch(dev->ctx, prog->handle, &launch, &err);
        st = st ? st : xconv_device_wait(dev, &err);
        st = st ? st : xconv_buffer_download(out, 0, sizeof y, y, &err);
        CHECK_MSG(st == XCONV_OK, "math %d: %s", m, err.msg);
        int bad = 0;
        for (int i = 0; st == XCONV_OK && i < ITEMS; i++)
            bad += y[i] != expected_sum(ITERS, step);
        CHECK_MSG(bad == 0, "math %d: %d of %d sums differ from %g (first %g)", m, bad, ITEMS,
                  (double)expected_sum(ITERS, step), (double)y[0]);
    }
    xconv_buffer_destroy(out);
    xconv_device_close(dev);
}

int main(void)
{
#ifdef XCONV_HAVE_CUDA
    test_nvrtc();
#endif
    test_emulated();
    return check_summary("test_peak_mma");
}
