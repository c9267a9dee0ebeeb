// SPDX-License-Identifier: MIT
// Timing a plan on a case: rotating sets of buffers, device events (median), and the pitfalls
// (wrong ways of timing reproduced on purpose).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contract.h"
#include "measure/case.h"

// ---------------------------------------------------------------------------------------------
// Timing

// Makes the case's sets on first use: set 0 is the case's inputs and output; when x + w + y fit
// twice in the last-level cache, more sets of copies follow so that consecutive runs read
// inputs that are not cached. They are kept for every variant timed. Returns XCONV_OK or why
// not (with no sets made).
static xconv_status rotation_ensure(xconv_case *c, xconv_error *err)
{
    rotation *rot = &c->rot;
    if (rot->count)
        return XCONV_OK;
    xconv_device *dev = c->dev;
    double ws = xconv_problem_min_bytes(&c->p);
    double cache = (double)xconv_device_get_info(dev)->cache_bytes;
    int count = 1;
    if (cache > 0 && ws < 2.0 * cache)
        count = (int)ceil(2.0 * cache / ws) + 1;
    if (count > MAX_ROTATION_SETS)
        count = MAX_ROTATION_SETS;
    xconv_status st = measure_ensure_output(c, err);
    if (st == XCONV_OK)
        rot->sets[rot->count++] =
            (xconv_tensors){ .x = c->dx, .w = c->dw, .y = c->dy, .bias = c->dbias };
    while (st == XCONV_OK && rot->count < count) {
        xconv_tensors *t = &rot->sets[rot->count++];
        t->bias = c->dbias;  // K floats: shared by the sets
        st = measure_upload_tensor(dev, &c->p, c->x, c->x_n, &t->x, err);
        if (st == XCONV_OK)
            st = measure_upload_tensor(dev, &c->p, c->w, c->w_n, &t->w, err);
        if (st == XCONV_OK)
            st = measure_alloc_tensor(dev, &c->p, c->y_n, &t->y, err);
    }
    // Every output is written once now (set 0's with NaN, for the final check): a device that
    // commits memory on first touch (PoCL) would otherwise charge that to the first timed runs
    // of each set, more of them than the warm-up runs reach.
    for (int i = 0; st == XCONV_OK && i < rot->count; i++)
        st = measure_poison_tensor(rot->sets[i].y, &c->p, c->y_n, err);
    if (st != XCONV_OK)
        measure_rotation_destroy(rot);  // the next timing tries again
    return st;
}

// Frees the sets' buffers but set 0's (the case's own) and empties rot.
void measure_rotation_destroy(rotation *rot)
{
    for (int i = 1; i < rot->count; i++) {
        xconv_buffer_destroy(rot->sets[i].x);
        xconv_buffer_destroy(rot->sets[i].w);
        xconv_buffer_destroy(rot->sets[i].y);
    }
    memset(rot, 0, sizeof *rot);
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

// ---------------------------------------------------------------------------------------------
// Pitfalls: wrong ways of timing, reproduced on purpose (bench --pitfall)

static const char *const pitfall_names[] = { "none", "first-run", "no-sync", "host-sync", "mean" };

int xconv_pitfall_parse(const char *name)
{
    for (int i = 0; name && i < (int)(sizeof pitfall_names / sizeof pitfall_names[0]); i++)
        if (strcmp(name, pitfall_names[i]) == 0)
            return i;
    return -1;
}

// Orders doubles ascending for qsort.
static int cmp_ms(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double measure_times_median(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_ms);
    return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

// Times runs with the host clock as pitfall `which` says (no-sync: around each enqueue alone;
// host-sync: around each enqueue and a wait) into ms[0..repeat-1]; returns a status.
static xconv_status host_clock_runs(timed_runs *runs, int which, double *ms, xconv_error *err)
{
    xconv_case *c = runs->c;
    xconv_status st = XCONV_OK;
    for (int i = 0; st == XCONV_OK && i < c->opts.warmup; i++)
        st = enqueue_run(runs, i, err);
    if (st == XCONV_OK)
        st = xconv_device_wait(c->dev, err);
    for (int i = 0; st == XCONV_OK && i < c->opts.repeat; i++) {
        double t0 = measure_now_ms();
        st = enqueue_run(runs, c->opts.warmup + i, err);
        if (st == XCONV_OK && which == XCONV_PITFALL_HOST_SYNC)
            st = xconv_device_wait(c->dev, err);
        ms[i] = measure_now_ms() - t0;
    }
    return st == XCONV_OK ? xconv_device_wait(c->dev, err) : st;
}

// Times runs as pitfall c->opts.pitfall says and fills *out (its median_ms holds the mean for
// the mean pitfall); returns a status.
static xconv_status time_pitfall(timed_runs *runs, xconv_timing *out, xconv_error *err)
{
    xconv_case *c = runs->c;
    int n = c->opts.repeat, which = c->opts.pitfall;
    double *ms = malloc((size_t)n * sizeof *ms);
    if (!ms)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "pitfall: no host memory");
    xconv_status st;
    if (which == XCONV_PITFALL_MEAN)
        st = xconv_device_measure(c->dev, enqueue_run, runs, c->opts.warmup, n, out, ms, err);
    else
        st = host_clock_runs(runs, which, ms, err);
    if (st == XCONV_OK) {
        double median = measure_times_median(ms, n), sum = 0;  // ms now sorted
        for (int i = 0; i < n; i++)
            sum += ms[i];
        out->min_ms = ms[0];
        out->max_ms = ms[n - 1];
        out->median_ms = which == XCONV_PITFALL_MEAN ? sum / n : median;
    }
    free(ms);
    return st;
}

// Puts what pitfall c->opts.pitfall timed in front of rec's note.
void measure_note_pitfall(const xconv_case *c, xconv_result *rec)
{
    static const char *const what[] = {
        "", "host clock around planning, building and the first run (median = that one time)",
        "host clock around each enqueue, no wait", "host clock around each enqueue and a wait",
        "device events, median_ms holds the mean"
    };
    char plan[sizeof rec->note];
    snprintf(plan, sizeof plan, "%s", rec->note);
    snprintf(rec->note, sizeof rec->note, "PITFALL %s: %s; %.*s", pitfall_names[c->opts.pitfall],
             what[c->opts.pitfall], (int)(sizeof rec->note / 2), plan);
}

// Fills res's timing from timing: the times of `repeat` runs, and the rates of flops and bytes
// a run over the median (NaN without a time).
static void set_timing(xconv_result *res, const xconv_timing *timing, int repeat, double flops,
                       double bytes)
{
    res->median_ms = timing->median_ms;
    res->min_ms = timing->min_ms;
    res->max_ms = timing->max_ms;
    res->repeat = repeat;
    double seconds = res->median_ms * 1e-3;
    res->gflops = seconds > 0 ? flops / seconds * 1e-9 : NAN;
    res->gbps = seconds > 0 ? bytes / seconds * 1e-9 : NAN;
}

xconv_status xconv_result_time(xconv_device *dev, xconv_enqueue_fn enqueue, void *user, int warmup,
                               int repeat, double flops, double bytes, xconv_result *out,
                               xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, enqueue) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    xconv_timing timing;
    xconv_status st = xconv_device_measure(dev, enqueue, user, warmup, repeat, &timing, NULL, err);
    if (st == XCONV_OK)
        set_timing(out, &timing, repeat, flops, bytes);
    return st;
}

// Warm-up runs, then opts.repeat timed runs of plan rotating the sets; the last output of set 0
// is read into c->y_timed for a second check, and *same is set when its bits are those of the
// checked output in c->y (else it is copied there). Fills the timing fields of rec.
xconv_status measure_time_variant(xconv_case *c, xconv_plan *plan, xconv_result *rec, bool *same,
                                  xconv_error *err)
{
    *same = false;
    if (!c->y_timed && !(c->y_timed = measure_host_alloc((size_t)c->y_n, sizeof(float), err)))
        return XCONV_ERR_OUT_OF_MEMORY;
    xconv_status st = rotation_ensure(c, err);
    xconv_buffer *workspace = NULL;  // the plan's own, shared by the sets
    size_t workspace_bytes = xconv_plan_workspace_size(plan);
    if (st == XCONV_OK && workspace_bytes &&
        !(workspace = xconv_buffer_create(c->dev, workspace_bytes, err)))
        st = err->status;
    for (int i = 0; st == XCONV_OK && i < c->rot.count; i++)
        c->rot.sets[i].workspace = workspace;
    if (st == XCONV_OK)
        st = measure_poison_tensor(c->dy, &c->p, c->y_n, err);
    timed_runs runs = { .c = c, .plan = plan, .rot = &c->rot };
    xconv_timing timing;
    bool pitfall = c->opts.pitfall == XCONV_PITFALL_NO_SYNC ||
                   c->opts.pitfall == XCONV_PITFALL_HOST_SYNC ||
                   c->opts.pitfall == XCONV_PITFALL_MEAN;
    double flops = xconv_problem_flops(&c->p), min_bytes = xconv_problem_min_bytes(&c->p);
    if (st == XCONV_OK && pitfall && (st = time_pitfall(&runs, &timing, err)) == XCONV_OK)
        set_timing(rec, &timing, c->opts.repeat, flops, min_bytes);
    else if (st == XCONV_OK && !pitfall)
        st = xconv_result_time(c->dev, enqueue_run, &runs, c->opts.warmup, c->opts.repeat, flops,
                               min_bytes, rec, err);
    if (st == XCONV_OK) {
        size_t bytes = (size_t)c->y_n * sizeof(float);
        st = measure_download_tensor(c->dy, &c->p, c->y_n, c->y_timed, err);
        // Bits equal to the checked output need no second comparison (it would find the same).
        *same = st == XCONV_OK && memcmp(c->y_timed, c->y, bytes) == 0;
        if (st == XCONV_OK && !*same)
            memcpy(c->y, c->y_timed, bytes);
    }
    for (int i = 0; i < c->rot.count; i++)
        c->rot.sets[i].workspace = NULL;
    xconv_buffer_destroy(workspace);
    return st;
}
