// SPDX-License-Identifier: MIT
// The fixture of the generated contract test (scripts/gen_contract_test.py): one valid value of
// every argument type the public header uses, the bad ones beside them, and the checks a call
// with a bad argument must pass.
#ifndef XCONV_CONTRACT_FIXTURE_H
#define XCONV_CONTRACT_FIXTURE_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xconv/xconv.h>

#include "check.h"

// ---------------------------------------------------------------------------------------------
// The fixture

#define FX_FLOATS 4096  // host arrays: enough for every problem below

typedef struct contract_fx {
    xconv_error err;
    char dir[64];                    // a scratch folder (removed at the end)
    char shapes_path[128], fifo_path[128], file_path[128], bundle_path[128];
    xconv_problem p, bad_p;          // a small valid problem; one that fails its check
    xconv_plan_options opts, bad_opts, bad_tiles;  // bad_tiles: a forced field out of range
    xconv_devices *list;             // a snapshot of no backend (cheap to make)
    xconv_device *dev, *dev2;        // the same device opened twice: handles of two devices
    xconv_device_info info, bad_info;
    xconv_cache *cache;
    xconv_buffer *buf, *x, *w, *y, *small, *foreign;
    xconv_tensors t, t_foreign, t_small;
    xconv_plan *plan;
    xconv_gemm *gemm;
    xconv_fft2d *fft;
    xconv_buffer *planes, *spectra;
    const xconv_variant *v;
    xconv_find_record rec, bad_rec;
    xconv_case_options copts, bad_copts;  // a host case's options (checked only, one thread)
    xconv_case *kase;                // a host case of p
    xconv_result result;
    xconv_find_opts fopts;           // a short find: one timed run a variant, no confirm rounds
    xconv_find_record find_out;      // what the last xconv_find_run filled (fx_find_rec)
    float hx[FX_FLOATS], hw[FX_FLOATS], hy[FX_FLOATS], hbias[64], hscale[FX_FLOATS];
    double dy[FX_FLOATS], dnorm[FX_FLOATS], dconv[FX_FLOATS];
    char text[256];
    int skipped;                     // calls left out for want of a device
} contract_fx;

static contract_fx fx;

// The enqueue callback of xconv_device_measure: enqueues nothing.
static xconv_status fx_enqueue_nothing(void *user, int run, xconv_error *err)
{
    (void)user, (void)run, (void)err;
    return XCONV_OK;
}

// The progress callback of xconv_find_run: stops the find after its first run (the contract
// needs a find that runs, not a whole one).
static bool fx_stop_find(void *user, const xconv_result *res)
{
    (void)user, (void)res;
    return true;
}

// Frees what the last xconv_find_run filled and returns the record for the next one.
static xconv_find_record *fx_find_rec(void)
{
    xconv_find_record_free(&fx.find_out);
    memset(&fx.find_out, 0, sizeof fx.find_out);
    return &fx.find_out;
}

// Makes the host values, then (when an OpenCL device opens) the device objects.
static void fx_setup(void)
{
    snprintf(fx.dir, sizeof fx.dir, "/tmp/xconv-contract-XXXXXX");
    CHECK(mkdtemp(fx.dir) != NULL);
    snprintf(fx.shapes_path, sizeof fx.shapes_path, "%s/s.shapes", fx.dir);
    snprintf(fx.fifo_path, sizeof fx.fifo_path, "%s/fifo", fx.dir);
    snprintf(fx.file_path, sizeof fx.file_path, "%s/file", fx.dir);
    snprintf(fx.bundle_path, sizeof fx.bundle_path, "%s/k.bundle", fx.dir);
    FILE *f = fopen(fx.shapes_path, "w");
    if (f) {
        fputs("n=1,c=2,h=6,w=6,k=2,r=3\n", f);
        fclose(f);
    }
    f = fopen(fx.file_path, "w");
    if (f)
        fclose(f);
    CHECK(mkfifo(fx.fifo_path, 0600) == 0);
    CHECK(xconv_shape_parse("n=1,c=2,h=6,w=6,k=2,r=3", &fx.p, &fx.err) == XCONV_OK);
    fx.bad_p = fx.p;
    fx.bad_p.n = -1;
    xconv_plan_options_default(&fx.opts);
    xconv_plan_options_default(&fx.bad_opts);
    fx.bad_opts.epilogue = 9;
    xconv_plan_options_default(&fx.bad_tiles);
    fx.bad_tiles.gemm_tiles = (xconv_forced_gemm_tiles){16, 16, 8, 4, 4, 3, 0, 0};  // vw 3
    snprintf(fx.text, sizeof fx.text, "n=1,c=2,h=6,w=6,k=2,r=3");
    for (int i = 0; i < FX_FLOATS; i++)
        fx.hx[i] = fx.hw[i] = (float)(i % 7) - 3.0f;
    fx.list = xconv_devices_enumerate(0, &fx.err);
    fx.v = xconv_variant_find("direct_naive", &fx.err);
    xconv_case_options_default(&fx.copts);
    fx.copts.host_threads = 1;
    fx.bad_copts = fx.copts;
    fx.bad_copts.repeat = -1;
    fx.kase = xconv_case_create(NULL, &fx.p, "contract", &fx.copts, &fx.err);
    CHECK(fx.kase != NULL);
    xconv_find_opts_default(&fx.fopts);
    fx.fopts.measure.repeat = 1;
    fx.fopts.measure.warmup = 0;
    fx.fopts.measure.host_threads = 1;
    fx.fopts.confirm_rounds = 0;
    fx.bad_info.backend = (xconv_backend_kind)99;
    fx.bad_info.backend_index = 999;
    fx.cache = xconv_cache_open(fx.dir, 0, &fx.err);
    CHECK(fx.list && fx.v && fx.cache);
    fx.dev = xconv_device_open("opencl:0", &fx.err);
    fx.dev2 = fx.dev ? xconv_device_open("opencl:0", &fx.err) : NULL;
    if (!fx.dev || !fx.dev2) {
        printf("no OpenCL device (%s): calls that need one are skipped\n", fx.err.msg);
        xconv_device_close(fx.dev);
        fx.dev = NULL;
        return;
    }
    fx.info = *xconv_device_get_info(fx.dev);
    xconv_find_record_key(&fx.info, &fx.p, &fx.rec);  // no mode or entries: refused
    fx.bad_rec = fx.rec;
    fx.buf = xconv_buffer_create(fx.dev, 1024, &fx.err);
    fx.x = xconv_buffer_create(fx.dev, 4096, &fx.err);
    fx.w = xconv_buffer_create(fx.dev, 4096, &fx.err);
    fx.y = xconv_buffer_create(fx.dev, 4096, &fx.err);
    fx.small = xconv_buffer_create(fx.dev, 4, &fx.err);
    fx.foreign = xconv_buffer_create(fx.dev2, 4096, &fx.err);
    fx.t = (xconv_tensors){.x = fx.x, .w = fx.w, .y = fx.y};
    fx.t_foreign = (xconv_tensors){.x = fx.foreign, .w = fx.w, .y = fx.y};
    fx.t_small = (xconv_tensors){.x = fx.x, .w = fx.w, .y = fx.small};
    fx.plan = xconv_plan_create(fx.dev, &fx.p, "direct_naive", NULL, &fx.err);
    fx.gemm = xconv_gemm_create(fx.dev, 8, 8, 8, "xconv", NULL, &fx.err);
    fx.fft = xconv_fft2d_create(fx.dev, 8, 8, 1, NULL, &fx.err);
    fx.planes = xconv_buffer_create(fx.dev, 4096, &fx.err);
    fx.spectra = xconv_buffer_create(fx.dev, 4096, &fx.err);
    CHECK(fx.buf && fx.x && fx.w && fx.y && fx.small && fx.foreign && fx.plan && fx.gemm &&
          fx.fft && fx.planes && fx.spectra);
    xconv_device_set_cache(fx.dev, fx.cache);
}

// Frees what fx_setup made and removes the scratch folder.
static void fx_teardown(void)
{
    xconv_device_set_cache(fx.dev, NULL);
    xconv_case_destroy(fx.kase);
    xconv_find_record_free(&fx.find_out);
    xconv_plan_destroy(fx.plan);
    xconv_gemm_destroy(fx.gemm);
    xconv_fft2d_destroy(fx.fft);
    xconv_device_close(fx.dev);   // frees its buffers
    xconv_device_close(fx.dev2);
    xconv_cache_close(fx.cache);
    xconv_devices_free(fx.list);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.dir);
    CHECK(system(cmd) == 0);
}

// ---------------------------------------------------------------------------------------------
// What a call with a bad argument must do

// Sets the error to a stale value, so a call that fails without filling it is caught.
static void fx_err_reset(void)
{
    fx.err.status = (xconv_status)12345;
    snprintf(fx.err.msg, sizeof fx.err.msg, "stale");
}

// A call that returns a status (or a handle: ok tells whether it is NULL) and fills err (when
// has_err) failed, with a message naming `arg` (when not NULL).
static void fx_expect_error(const char *call, bool failed, xconv_status st, bool has_err,
                            const char *arg)
{
    CHECK_MSG(failed, "%s: succeeded", call);
    if (!failed || !has_err)
        return;
    CHECK_MSG(fx.err.status != XCONV_OK && fx.err.status != (xconv_status)12345,
              "%s: err not filled (status %d)", call, (int)fx.err.status);
    CHECK_MSG(st == XCONV_OK || fx.err.status == st, "%s: returned %d, err says %d", call,
              (int)st, (int)fx.err.status);
    CHECK_MSG(strcmp(fx.err.msg, "stale") != 0 && fx.err.msg[0], "%s: no message", call);
    if (arg)
        CHECK_MSG(strstr(fx.err.msg, arg) != NULL, "%s: message \"%s\" does not name %s", call,
                  fx.err.msg, arg);
}

#endif // XCONV_CONTRACT_FIXTURE_H
