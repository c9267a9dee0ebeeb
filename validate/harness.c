// SPDX-License-Identifier: MIT
// The harness: inputs, the reference, and running a variant with poisoning, checking and timing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "reference.h"
#include "thresholds.h"

#define MAX_ROTATION_SETS 8

struct xconv_case {
    xconv_device *dev;
    xconv_problem p;
    char shape_name[32];
    char spec[256];
    xconv_harness_opts opts;
    int64_t x_n, w_n, y_n;
    float *x, *w, *y;            // host inputs, and the output read back
    xconv_buffer *dx, *dw;       // device inputs
    bool ref_ready;
    char ref_name[48];
    double *ref64, *norm64;      // full float64 host reference (small problems)
    float *ref32, *norm32;       // device reference path and its scale (large problems)
    int64_t *samples;            // indices recomputed in float64 (large problems)
    int nsamples;
};

void xconv_harness_opts_default(xconv_harness_opts *opts)
{
    *opts = (xconv_harness_opts){.seed = 1, .repeat = 0, .warmup = 2, .samples = 1000,
                                 .host_ref_max_gflop = 1.0, .host_threads = 0};
    xconv_plan_options_default(&opts->plan);
}

// Returns the host's monotonic clock in milliseconds (for wall times).
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// ---------------------------------------------------------------------------------------------
// Device memory helpers

// Allocates a buffer for count floats into *out; returns XCONV_OK or the failure.
static xconv_status alloc(xconv_device *dev, int64_t count, xconv_buffer **out, xconv_error *err)
{
    *out = xconv_buffer_create(dev, (size_t)count * sizeof(float), err);
    return *out ? XCONV_OK : err->status;
}

// Allocates a buffer for count floats and copies host into it; returns XCONV_OK or the failure.
static xconv_status upload(xconv_device *dev, const float *host, int64_t count,
                           xconv_buffer **out, xconv_error *err)
{
    xconv_status st = alloc(dev, count, out, err);
    if (st == XCONV_OK &&
        (st = xconv_buffer_upload(*out, 0, (size_t)count * sizeof(float), host, err)))
        xconv_buffer_destroy(*out), *out = NULL;
    return st;
}

static void *host_alloc(size_t count, size_t size, xconv_error *err)
{
    void *ptr = calloc(count ? count : 1, size);
    if (!ptr)
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for %zu bytes",
                        count * size);
    return ptr;
}

// ---------------------------------------------------------------------------------------------
// Creating a case

xconv_case *xconv_case_create(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                              const xconv_harness_opts *opts, xconv_error *err)
{
    if (xconv_problem_check(p, err) != XCONV_OK)
        return NULL;
    if (dev && xconv_problem_check_device(p, xconv_device_get_info(dev), err) != XCONV_OK)
        return NULL;
    xconv_case *c = calloc(1, sizeof *c);
    if (!c) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory");
        return NULL;
    }
    c->dev = dev;
    c->p = *p;
    c->opts = *opts;
    snprintf(c->shape_name, sizeof c->shape_name, "%s", shape_name ? shape_name : "");
    xconv_shape_format(p, c->spec, sizeof c->spec);
    c->x_n = xconv_problem_x_elems(p);
    c->w_n = xconv_problem_w_elems(p);
    c->y_n = xconv_problem_y_elems(p);
    c->x = host_alloc((size_t)c->x_n, sizeof(float), err);
    c->w = c->x ? host_alloc((size_t)c->w_n, sizeof(float), err) : NULL;
    c->y = c->w ? host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    if (!c->y) {
        xconv_case_destroy(c);
        return NULL;
    }
    xconv_random_fill(c->x, (size_t)c->x_n, opts->seed, 1);
    xconv_random_fill(c->w, (size_t)c->w_n, opts->seed, 2);
    if (dev && (upload(dev, c->x, c->x_n, &c->dx, err) != XCONV_OK ||
                upload(dev, c->w, c->w_n, &c->dw, err) != XCONV_OK)) {
        xconv_case_destroy(c);
        return NULL;
    }
    return c;
}

void xconv_case_destroy(xconv_case *c)
{
    if (!c)
        return;
    xconv_buffer_destroy(c->dx);
    xconv_buffer_destroy(c->dw);
    free(c->x);
    free(c->w);
    free(c->y);
    free(c->ref64);
    free(c->norm64);
    free(c->ref32);
    free(c->norm32);
    free(c->samples);
    free(c);
}

// ---------------------------------------------------------------------------------------------
// Running a device variant once

// Allocates the plan's output and workspace, runs it once on NaN-poisoned y, reads y back.
static xconv_status run_device_variant(xconv_device *dev, xconv_plan *plan,
                                       const xconv_problem *p, xconv_buffer *dx,
                                       xconv_buffer *dw, float *y_host, xconv_error *err)
{
    size_t y_n = (size_t)xconv_problem_y_elems(p), ws = xconv_plan_workspace_size(plan);
    xconv_tensors t = {.x = dx, .w = dw};
    xconv_status st = alloc(dev, (int64_t)y_n, &t.y, err);
    if (st == XCONV_OK && ws && !(t.workspace = xconv_buffer_create(dev, ws, err)))
        st = err->status;
    if (st == XCONV_OK)
        st = xconv_buffer_fill_f32(t.y, y_n, NAN, err);
    if (st == XCONV_OK)
        st = xconv_plan_run(plan, &t, err);
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, err);
    if (st == XCONV_OK)
        st = xconv_buffer_download(t.y, 0, y_n * sizeof(float), y_host, err);
    xconv_buffer_destroy(t.workspace);
    xconv_buffer_destroy(t.y);
    return st;
}

// ---------------------------------------------------------------------------------------------
// The reference

// The device reference path for a backend.
static const char *device_reference_name(const xconv_device *dev)
{
    return xconv_device_get_info(dev)->backend == XCONV_BACKEND_CUDA ? "cublas_gemm"
                                                                     : "clblast_gemm";
}

// Full float64 host reference.
static xconv_status make_host_reference(xconv_case *c, xconv_error *err)
{
    c->ref64 = host_alloc((size_t)c->y_n, sizeof(double), err);
    c->norm64 = c->ref64 ? host_alloc((size_t)c->y_n, sizeof(double), err) : NULL;
    if (!c->norm64)
        return XCONV_ERR_OUT_OF_MEMORY;
    snprintf(c->ref_name, sizeof c->ref_name, "cpu_ref");
    return xconv_reference_conv(&c->p, c->x, c->w, c->ref64, c->norm64, c->opts.host_threads,
                                err);
}

// The device reference path on (x, w), its scale from a run on (|x|, |w|), and float64 samples
// that both the reference and every variant are checked against.
static xconv_status make_device_reference(xconv_case *c, xconv_error *err)
{
    xconv_device *dev = c->dev;
    const char *ref = device_reference_name(dev);
    c->ref32 = host_alloc((size_t)c->y_n, sizeof(float), err);
    c->norm32 = c->ref32 ? host_alloc((size_t)c->y_n, sizeof(float), err) : NULL;
    c->samples = c->norm32 ? host_alloc((size_t)c->opts.samples, sizeof(int64_t), err) : NULL;
    float *abs_x = c->samples ? host_alloc((size_t)c->x_n, sizeof(float), err) : NULL;
    float *abs_w = abs_x ? host_alloc((size_t)c->w_n, sizeof(float), err) : NULL;
    if (!abs_w) {
        free(abs_x);
        return XCONV_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < c->x_n; i++)
        abs_x[i] = fabsf(c->x[i]);
    for (int64_t i = 0; i < c->w_n; i++)
        abs_w[i] = fabsf(c->w[i]);
    xconv_buffer *dax = NULL, *daw = NULL;
    xconv_plan *plan = xconv_plan_create(dev, &c->p, ref, &c->opts.plan, err);
    xconv_status st = plan ? XCONV_OK : err->status;
    if (st == XCONV_OK)
        st = run_device_variant(dev, plan, &c->p, c->dx, c->dw, c->ref32, err);
    if (st == XCONV_OK && (st = upload(dev, abs_x, c->x_n, &dax, err)) == XCONV_OK &&
        (st = upload(dev, abs_w, c->w_n, &daw, err)) == XCONV_OK)
        st = run_device_variant(dev, plan, &c->p, dax, daw, c->norm32, err);
    xconv_plan_destroy(plan);
    xconv_buffer_destroy(dax);
    xconv_buffer_destroy(daw);
    free(abs_x);
    free(abs_w);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "reference %s", ref);
    c->nsamples = c->opts.samples;
    xconv_sample_indices(&c->p, c->samples, c->nsamples, c->opts.seed);
    xconv_compare_result check = {0};
    xconv_compare_sampled(&c->p, c->x, c->w, c->ref32, c->samples, c->nsamples, &check);
    double limit = xconv_threshold_for_family("reference");
    if (check.nonfinite || !(check.max_norm_err <= limit))
        return xconv_error_set(err, XCONV_ERR_DEVICE,
                               "reference %s disagrees with float64 at sampled elements "
                               "(max error %.3g, %lld non-finite)",
                               ref, check.max_norm_err, (long long)check.nonfinite);
    snprintf(c->ref_name, sizeof c->ref_name, "%s+%d samples", ref, c->nsamples);
    return XCONV_OK;
}

static xconv_status ensure_reference(xconv_case *c, xconv_error *err)
{
    if (c->ref_ready)
        return XCONV_OK;
    bool small = xconv_problem_flops(&c->p) <= c->opts.host_ref_max_gflop * 1e9;
    xconv_status st = (small || !c->dev) ? make_host_reference(c, err)
                                         : make_device_reference(c, err);
    c->ref_ready = st == XCONV_OK;
    return st;
}

// Compares c->y with the reference.
static void compare_output(const xconv_case *c, xconv_compare_result *res)
{
    memset(res, 0, sizeof *res);
    if (c->ref64) {
        xconv_compare_full(c->y, c->ref64, c->norm64, c->y_n, res);
        return;
    }
    xconv_compare_full_f32(c->y, c->ref32, c->norm32, c->y_n, res);
    xconv_compare_sampled(&c->p, c->x, c->w, c->y, c->samples, c->nsamples, res);
}

// Compares c->y with the reference, each element's error divided by the largest scale in its
// block of block_h x block_w outputs (xconv_plan_error_block). Returns XCONV_ERR_OUT_OF_MEMORY
// when the block scales cannot be held, else XCONV_OK with *res filled.
static xconv_status compare_output_blocked(const xconv_case *c, int64_t block_h, int64_t block_w,
                                           xconv_compare_result *res, xconv_error *err)
{
    memset(res, 0, sizeof *res);
    if (c->ref64) {
        double *scale = host_alloc((size_t)c->y_n, sizeof(double), err);
        if (!scale)
            return XCONV_ERR_OUT_OF_MEMORY;
        xconv_block_scale_f64(&c->p, block_h, block_w, c->norm64, scale);
        xconv_compare_full(c->y, c->ref64, scale, c->y_n, res);
        free(scale);
        return XCONV_OK;
    }
    float *scale = host_alloc((size_t)c->y_n, sizeof(float), err);
    if (!scale)
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_block_scale_f32(&c->p, block_h, block_w, c->norm32, scale);
    xconv_compare_full_f32(c->y, c->ref32, scale, c->y_n, res);
    xconv_compare_sampled_scaled(&c->p, c->x, c->w, c->y, c->samples, c->nsamples, scale, res);
    free(scale);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Timing

typedef struct rotation {
    xconv_tensors sets[MAX_ROTATION_SETS];
    int count;
} rotation;

// Set 0 uses the case's inputs; when x + w + y fit twice in the last-level cache, more sets of
// copies are added so that consecutive runs read inputs that are not cached.
static xconv_status rotation_create(xconv_case *c, const xconv_plan *plan, rotation *rot,
                                    xconv_error *err)
{
    xconv_device *dev = c->dev;
    memset(rot, 0, sizeof *rot);
    double ws = xconv_problem_min_bytes(&c->p);
    double cache = (double)xconv_device_get_info(dev)->cache_bytes;
    int count = 1;
    if (cache > 0 && ws < 2.0 * cache)
        count = (int)ceil(2.0 * cache / ws) + 1;
    if (count > MAX_ROTATION_SETS)
        count = MAX_ROTATION_SETS;
    xconv_status st = XCONV_OK;
    xconv_buffer *workspace = NULL;
    size_t workspace_bytes = xconv_plan_workspace_size(plan);
    if (workspace_bytes && !(workspace = xconv_buffer_create(dev, workspace_bytes, err)))
        st = err->status;
    for (int i = 0; st == XCONV_OK && i < count; i++) {
        xconv_tensors *t = &rot->sets[i];
        t->workspace = workspace;
        t->x = c->dx;
        t->w = c->dw;
        if (i > 0 && (st = upload(dev, c->x, c->x_n, &t->x, err)) == XCONV_OK)
            st = upload(dev, c->w, c->w_n, &t->w, err);
        if (st == XCONV_OK)
            st = alloc(dev, c->y_n, &t->y, err);
        rot->count = i + 1;
    }
    if (st == XCONV_OK)
        st = xconv_buffer_fill_f32(rot->sets[0].y, (size_t)c->y_n, NAN, err);
    return st;
}

static void rotation_destroy(rotation *rot)
{
    for (int i = 0; i < rot->count; i++) {
        if (i > 0) {
            xconv_buffer_destroy(rot->sets[i].x);
            xconv_buffer_destroy(rot->sets[i].w);
        }
        xconv_buffer_destroy(rot->sets[i].y);
    }
    if (rot->count)
        xconv_buffer_destroy(rot->sets[0].workspace);
}

// What the measuring primitive's enqueue callback needs: the case, the plan and the sets.
typedef struct timed_runs {
    xconv_case *c;
    xconv_plan *plan;
    const rotation *rot;
} timed_runs;

// Enqueues run `run` (warm-up runs first, then the timed ones) on the set it rotates to: the
// timed runs start at set 1 and the last one writes set 0, whose y was poisoned, for the final
// check.
static xconv_status enqueue_run(void *user, int run, xconv_error *err)
{
    const timed_runs *r = user;
    int warmup = r->c->opts.warmup, count = r->rot->count, set = run % count;
    if (run >= warmup)
        set = run - warmup == r->c->opts.repeat - 1 ? 0 : (run - warmup + 1) % count;
    return xconv_plan_run(r->plan, &r->rot->sets[set], err);
}

// Warm-up runs, then opts.repeat timed runs of plan rotating the sets; the last output of set 0
// is read into c->y for a second check. Fills the timing fields of rec.
static xconv_status time_variant(xconv_case *c, xconv_plan *plan, xconv_record *rec,
                                 xconv_error *err)
{
    rotation rot;
    xconv_status st = rotation_create(c, plan, &rot, err);
    timed_runs runs = {.c = c, .plan = plan, .rot = &rot};
    xconv_timing timing;
    if (st == XCONV_OK)
        st = xconv_device_measure(c->dev, enqueue_run, &runs, c->opts.warmup, c->opts.repeat,
                                  &timing, NULL, err);
    if (st == XCONV_OK) {
        rec->median_ms = timing.median_ms;
        rec->min_ms = timing.min_ms;
        rec->max_ms = timing.max_ms;
        rec->repeat = c->opts.repeat;
        double seconds = rec->median_ms * 1e-3;
        rec->gflops = seconds > 0 ? xconv_problem_flops(&c->p) / seconds * 1e-9 : 0;
        rec->gbps = seconds > 0 ? xconv_problem_min_bytes(&c->p) / seconds * 1e-9 : 0;
        st = xconv_buffer_download(rot.sets[0].y, 0, (size_t)c->y_n * sizeof(float), c->y, err);
    }
    rotation_destroy(&rot);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Running a variant against the case

static void record_init(const xconv_case *c, const xconv_variant_info *v, xconv_record *rec)
{
    memset(rec, 0, sizeof *rec);
    if (c->dev) {
        const xconv_device_info *info = xconv_device_get_info(c->dev);
        xconv_device_label(info, rec->device, sizeof rec->device);
        snprintf(rec->backend, sizeof rec->backend, "%s", xconv_backend_name(info->backend));
        snprintf(rec->driver, sizeof rec->driver, "%s", info->driver);
    }
    if (v->backends == 0) {
        snprintf(rec->device, sizeof rec->device, "host");
        snprintf(rec->backend, sizeof rec->backend, "host");
    }
    snprintf(rec->variant, sizeof rec->variant, "%s", v->name);
    snprintf(rec->family, sizeof rec->family, "%s", v->family);
    snprintf(rec->shape_name, sizeof rec->shape_name, "%s", c->shape_name);
    snprintf(rec->shape, sizeof rec->shape, "%s", c->spec);
    rec->seed = c->opts.seed;
    rec->threshold = xconv_threshold_for_variant(v);
    rec->worst_index = -1;
    rec->max_norm_err = NAN;
    rec->max_block_err = NAN;
    rec->error_block_h = rec->error_block_w = 1;
}

static void record_outcome(xconv_record *rec, xconv_status st, const xconv_error *err)
{
    rec->outcome = st == XCONV_ERR_NOT_APPLICABLE ? XCONV_OUTCOME_NOT_APPLICABLE
                                                  : XCONV_OUTCOME_ERROR;
    snprintf(rec->note, sizeof rec->note, "%.*s", (int)sizeof rec->note - 1, err->msg);
}

// Checks c->y against the reference and folds the result into rec.
static void record_check(const xconv_case *c, xconv_record *rec)
{
    xconv_compare_result res, elem;
    compare_output(c, &elem);
    if (isnan(rec->max_norm_err) || elem.max_norm_err > rec->max_norm_err)
        rec->max_norm_err = elem.max_norm_err;
    res = elem;
    xconv_error block_err;
    if ((rec->error_block_h > 1 || rec->error_block_w > 1) &&
        compare_output_blocked(c, rec->error_block_h, rec->error_block_w, &res,
                               &block_err) != XCONV_OK)
        res = elem;  // without memory for the block scales, the stricter element check decides
    if (isnan(rec->max_block_err) || res.max_norm_err > rec->max_block_err) {
        rec->max_block_err = res.max_norm_err;
        rec->worst_index = res.worst_index;
    }
    bool pass = res.nonfinite == 0 && res.max_norm_err <= rec->threshold;
    if (pass && rec->outcome != XCONV_OUTCOME_FAIL) {
        rec->outcome = XCONV_OUTCOME_PASS;
        return;
    }
    rec->outcome = XCONV_OUTCOME_FAIL;
    char before[sizeof rec->note];  // what the run noted (a vendor's choice) goes after the error
    snprintf(before, sizeof before, "%s", rec->note);
    int64_t at[4];
    if (res.nonfinite) {
        xconv_index_split(&c->p, res.first_nonfinite, at);
        snprintf(rec->note, sizeof rec->note,
                 "%lld non-finite outputs (unwritten or NaN), first at n=%lld k=%lld p=%lld "
                 "q=%lld",
                 (long long)res.nonfinite, (long long)at[0], (long long)at[1], (long long)at[2],
                 (long long)at[3]);
    } else if (res.worst_index >= 0) {
        xconv_index_split(&c->p, res.worst_index, at);
        snprintf(rec->note, sizeof rec->note,
                 "error %.3g > %.1g at n=%lld k=%lld p=%lld q=%lld%s", res.max_norm_err,
                 rec->threshold, (long long)at[0], (long long)at[1], (long long)at[2],
                 (long long)at[3],
                 rec->error_block_h > 1 || rec->error_block_w > 1 ? " (over its output block)"
                                                                   : "");
    }
    if (before[0] && !strstr(rec->note, before)) {
        size_t used = strlen(rec->note);
        snprintf(rec->note + used, sizeof rec->note - used, "; %s", before);
    }
}

xconv_status xconv_case_run(xconv_case *c, const xconv_variant *variant, xconv_record *rec,
                            xconv_error *err)
{
    const xconv_variant_info *v = xconv_variant_get_info(variant);
    record_init(c, v, rec);
    char reason[512] = "";
    if (v->backends && (!c->dev || !xconv_variant_applies(variant, c->dev, &c->p, reason,
                                                          sizeof reason))) {
        rec->outcome = XCONV_OUTCOME_NOT_APPLICABLE;
        snprintf(rec->note, sizeof rec->note, "%s", c->dev ? reason : "needs a device");
        return XCONV_OK;
    }
    if (!v->backends && xconv_problem_flops(&c->p) > c->opts.host_ref_max_gflop * 1e9) {
        rec->outcome = XCONV_OUTCOME_NOT_APPLICABLE;
        snprintf(rec->note, sizeof rec->note,
                 "larger than the host reference limit of %.3g GFLOP",
                 c->opts.host_ref_max_gflop);
        return XCONV_OK;
    }
    xconv_status st = ensure_reference(c, err);
    if (st != XCONV_OK)
        return st;
    snprintf(rec->reference, sizeof rec->reference, "%s", c->ref_name);
    xconv_error run_err;  // the variant's own failure goes into the record, not to the caller
    if (c->dev)
        xconv_device_reset_compile_ms(c->dev);
    xconv_plan *plan = NULL;  // planned once: for the checked run and for timing
    if (v->backends) {
        plan = xconv_plan_create(c->dev, &c->p, v->name, &c->opts.plan, &run_err);
        st = plan ? run_device_variant(c->dev, plan, &c->p, c->dx, c->dw, c->y, &run_err)
                  : run_err.status;
    } else {
        st = xconv_convolve(NULL, &c->p, v->name, c->x, c->w, c->y, &run_err);
    }
    if (st != XCONV_OK) {
        record_outcome(rec, st, &run_err);
        xconv_plan_destroy(plan);
        return XCONV_OK;
    }
    if (c->dev)
        rec->compile_ms = xconv_device_compile_ms(c->dev);
    if (plan) {  // the plan chosen (ours), or what the vendor chose (cudnn_find)
        snprintf(rec->note, sizeof rec->note, "%s", xconv_plan_summary(plan));
        xconv_plan_error_block(plan, &rec->error_block_h, &rec->error_block_w);
    }
    record_check(c, rec);
    // A peer outside the threshold is still timed (its speed is the comparison, its outcome
    // says it failed); our own variants are timed only when correct.
    bool timeable = rec->outcome == XCONV_OUTCOME_PASS ||
                    (rec->outcome == XCONV_OUTCOME_FAIL && strcmp(v->family, "peer") == 0);
    if (c->opts.repeat > 0 && plan && timeable) {
        st = time_variant(c, plan, rec, &run_err);
        if (st != XCONV_OK)
            record_outcome(rec, st, &run_err);
        else
            record_check(c, rec);
    }
    xconv_plan_destroy(plan);
    return XCONV_OK;
}

const float *xconv_case_output(const xconv_case *c)
{
    return c->y;
}

// ---------------------------------------------------------------------------------------------
// One run for `xconv run`

xconv_status xconv_run_once(xconv_device *dev, const char *variant, const xconv_problem *p,
                            const xconv_plan_options *opts, const float *x, const float *w,
                            float *y, double *ms, const xconv_variant **chosen,
                            xconv_error *err)
{
    *ms = 0;
    if (chosen)
        *chosen = NULL;
    if (!dev) {
        if (chosen)
            *chosen = xconv_variant_find(variant, NULL);
        return xconv_convolve(NULL, p, variant, x, w, y, err);
    }
    xconv_status st = xconv_problem_check_device(p, xconv_device_get_info(dev), err);
    xconv_buffer *dx = NULL, *dw = NULL;
    if (st == XCONV_OK)
        st = upload(dev, x, xconv_problem_x_elems(p), &dx, err);
    if (st == XCONV_OK)
        st = upload(dev, w, xconv_problem_w_elems(p), &dw, err);
    xconv_plan *plan = NULL;
    if (st == XCONV_OK && !(plan = xconv_plan_create(dev, p, variant, opts, err)))
        st = err->status;
    if (plan && chosen)
        *chosen = xconv_plan_variant(plan);
    double t0 = now_ms();
    if (st == XCONV_OK)
        st = run_device_variant(dev, plan, p, dx, dw, y, err);
    *ms = now_ms() - t0;
    xconv_plan_destroy(plan);
    xconv_buffer_destroy(dx);
    xconv_buffer_destroy(dw);
    return st;
}
