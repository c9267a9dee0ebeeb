// SPDX-License-Identifier: MIT
// Find on a case: each eligible variant checked then timed, the contenders' tunings in
// exhaustive mode within a time budget, one entry per variant (its best tuning) in the record.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "caches/find_db.h"
#include "core/contract.h"
#include "measure/case.h"
#include "plan/plan.h"

#define MAX_TUNINGS 64

// ---------------------------------------------------------------------------------------------
// Modes and options

static const char *const mode_names[] = {"fast", "normal", "exhaustive"};

const char *xconv_find_mode_name(xconv_find_mode mode)
{
    return mode >= XCONV_FIND_FAST && mode <= XCONV_FIND_EXHAUSTIVE ? mode_names[mode] : "?";
}

bool xconv_find_mode_parse(const char *name, xconv_find_mode *mode)
{
    if (!name || !mode)
        return false;
    for (int m = XCONV_FIND_FAST; m <= XCONV_FIND_EXHAUSTIVE; m++) {
        if (strcmp(name, mode_names[m]) == 0) {
            *mode = (xconv_find_mode)m;
            return true;
        }
    }
    return false;
}

void xconv_find_opts_default(xconv_find_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->mode = XCONV_FIND_NORMAL;
    xconv_case_options_default(&opts->measure);
    opts->measure.repeat = 10;
    opts->measure.warmup = 2;
    opts->budget_s = 60;
    opts->tune_within = 1.5;
    opts->confirm_rounds = 2;
    opts->confirm_within = 1.25;
}

// Returns the host's monotonic clock in seconds.
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// ---------------------------------------------------------------------------------------------
// One run

// What a find works on.
typedef struct find_state {
    xconv_device *dev;
    const xconv_problem *p;
    const xconv_find_opts *opts;
    xconv_case *c;
    xconv_find_progress_fn progress;
    void *user;
    xconv_find_summary *summary;
    char round[48];  // the confirm round a run belongs to, "" outside them (its record's note)
    bool stop;       // progress asked the find to stop
} find_state;

// Returns the workspace v plans for p under o (0 when it does not plan).
static uint64_t workspace_of(const find_state *s, const xconv_variant *v,
                             const xconv_plan_options *o)
{
    xconv_error ignored = {0};
    xconv_plan *plan = xconv_plan_create(s->dev, s->p, xconv_variant_get_info(v)->name, o,
                                         &ignored);
    uint64_t bytes = plan ? xconv_plan_workspace_size(plan) : 0;
    xconv_plan_destroy(plan);
    return bytes;
}

// Runs v under tuning t (NULL: the planner's own) on the case and fills *e; *ran is false when
// v did not apply. Returns XCONV_OK unless the case failed.
static xconv_status try_variant(find_state *s, const xconv_variant *v, const xconv_tuning *t,
                                xconv_find_entry *e, bool *ran, xconv_error *err)
{
    xconv_plan_options o = s->opts->measure.plan;  // what the caller forced stays forced
    xconv_tuning tuned = {0};
    if (t) {
        tuned = *t;
        xconv_tuning_keep_forced(&o, &tuned);
        xconv_status st = xconv_tuning_apply(&tuned, &o, err);
        if (st != XCONV_OK)
            return st;
    }
    xconv_case_set_plan_options(s->c, &o);
    xconv_result res, *r = &res;
    xconv_status st = xconv_case_run(s->c, v, r, err);
    xconv_case_set_plan_options(s->c, &s->opts->measure.plan);
    *ran = st == XCONV_OK && r->outcome != XCONV_OUTCOME_NOT_APPLICABLE;
    if (st != XCONV_OK)
        return st;
    if (tuned.direct_tiling[0] || tuned.gemm_tiles[0] || s->round[0]) {
        char note[sizeof r->note];
        memcpy(note, r->note, sizeof note);
        // The run's own note goes last and is cut when the whole does not fit (an fp32-math
        // tuning is named there by the plan's summary).
        int len =
            snprintf(r->note, sizeof r->note, "%s%s%s%s%s%s; ", s->round,
                     s->round[0] && (tuned.direct_tiling[0] || tuned.gemm_tiles[0]) ? ", " : "",
                     tuned.direct_tiling[0] || tuned.gemm_tiles[0] ? "tuning " : "",
                     tuned.direct_tiling, tuned.direct_tiling[0] && tuned.gemm_tiles[0] ? " " : "",
                     tuned.gemm_tiles);
        size_t used = len < 0 ? 0 : (size_t)len < sizeof r->note ? (size_t)len : sizeof r->note;
        if (used < sizeof r->note)
            snprintf(r->note + used, sizeof r->note - used, "%s", note);
    }
    if (s->progress && s->progress(s->user, r))
        s->stop = true;
    s->summary->runs += *ran;
    const xconv_variant_info *info = xconv_variant_get_info(v);
    memset(e, 0, sizeof *e);
    snprintf(e->variant, sizeof e->variant, "%s", info->name);
    e->tuning = tuned;
    e->passed = r->outcome == XCONV_OUTCOME_PASS && r->repeat > 0 && r->median_ms > 0;
    e->median_ms = e->passed ? r->median_ms : 0;
    e->max_err = r->max_norm_err;
    e->threshold = r->threshold;
    e->workspace_bytes = *ran ? workspace_of(s, v, &o) : 0;
    snprintf(e->notes, sizeof e->notes, "%s", info->notes ? info->notes : "");
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The passes

// The tuning that plans a variant in strict fp32 math (xconv_plan_options.fp32_math).
static const xconv_tuning fp32_math_tuning = {.math = "f32"};

// Times every eligible variant with its planner's plan into rec's entries. Under a reduced
// math mode, a variant that does not compute it is timed in fp32 math: more accurate than
// asked, and where our fp32 kernels beat the matrix engines (variant_auto.c's FP32_MATH lines)
// the faster.
static xconv_status plain_pass(find_state *s, xconv_find_record *rec, xconv_error *err)
{
    for (int i = 0; i < xconv_variant_count() && !s->stop; i++) {
        const xconv_variant *v = xconv_variant_at(i);
        if (!xconv_variant_auto_eligible(v))
            continue;
        xconv_find_entry e;
        bool ran = false;
        xconv_status st = try_variant(s, v, NULL, &e, &ran, err);
        if (st == XCONV_OK && !ran && s->p->math != XCONV_MATH_F32 &&
            !s->opts->measure.plan.fp32_math)
            st = try_variant(s, v, &fp32_math_tuning, &e, &ran, err);
        if (st != XCONV_OK)
            return st;
        if (ran && !xconv_find_record_append(rec, &e))
            return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a ranking");
    }
    return XCONV_OK;
}

// An entry's index and time, for choosing what to tune.
typedef struct timed_entry {
    int index;
    double ms;
} timed_entry;

// Orders timed entries fastest first.
static int by_time(const void *a, const void *b)
{
    double ta = ((const timed_entry *)a)->ms, tb = ((const timed_entry *)b)->ms;
    return ta < tb ? -1 : ta > tb;
}

// Times the tunings of each passing variant within tune_within of the fastest, fastest first,
// until the budget runs out; an entry takes a tuning that beats it.
static xconv_status tuning_pass(find_state *s, xconv_find_record *rec, double start,
                                xconv_error *err)
{
    timed_entry *order = calloc((size_t)rec->count + 1, sizeof *order);
    xconv_tuning *tunings = order ? malloc(MAX_TUNINGS * sizeof *tunings) : NULL;
    if (!tunings) {
        free(order);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for tunings");
    }
    int n = 0;
    double best = INFINITY;
    for (int i = 0; i < rec->count; i++) {
        if (!rec->entries[i].passed)
            continue;
        order[n++] = (timed_entry){i, rec->entries[i].median_ms};
        best = fmin(best, rec->entries[i].median_ms);
    }
    qsort(order, (size_t)n, sizeof order[0], by_time);
    xconv_status st = XCONV_OK;
    for (int k = 0; k < n && st == XCONV_OK && !s->summary->budget_reached && !s->stop; k++) {
        xconv_find_entry *entry = &rec->entries[order[k].index];
        if (entry->median_ms > best * s->opts->tune_within)
            break;
        const xconv_variant *v = xconv_variant_find(entry->variant, NULL);
        xconv_problem planned = *s->p;  // an fp32-math entry's tunings are fp32 math's
        if (entry->tuning.math[0])
            planned.math = XCONV_MATH_F32;
        int count = v ? xconv_variant_tunings(v, s->dev, &planned, tunings, MAX_TUNINGS) : 0;
        for (int j = 0; j < count; j++)
            memcpy(tunings[j].math, entry->tuning.math, sizeof tunings[j].math);
        for (int j = 1; j < count && st == XCONV_OK && !s->stop; j++) {  // 0: the planner's
            if (now_s() - start > s->opts->budget_s) {
                s->summary->budget_reached = true;
                break;
            }
            xconv_find_entry e;
            bool ran = false;
            st = try_variant(s, v, &tunings[j], &e, &ran, err);
            s->summary->tunings += ran;
            if (st == XCONV_OK && e.passed && e.median_ms < entry->median_ms)
                *entry = e;
        }
    }
    free(tunings);
    free(order);
    return st;
}

// Times the passing entries within confirm_within of the fastest again, in confirm_rounds
// rounds that each run every contender once (A B C A B C), so that a spell of load on the
// machine falls on all of them; each entry keeps the median of its first time and its rounds'.
// A contender that fails a round's check loses its place: its output is not what it was.
static xconv_status confirm_pass(find_state *s, xconv_find_record *rec, xconv_error *err)
{
    int rounds = s->opts->confirm_rounds, samples = rounds + 1;
    double best = INFINITY;
    for (int i = 0; i < rec->count; i++)
        if (rec->entries[i].passed)
            best = fmin(best, rec->entries[i].median_ms);
    int *who = calloc((size_t)rec->count + 1, sizeof *who);
    double *ms = calloc((size_t)(rec->count + 1) * (size_t)samples, sizeof *ms);
    if (!who || !ms) {
        free(who);
        free(ms);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the confirm rounds");
    }
    int n = 0;
    for (int i = 0; i < rec->count; i++) {
        if (rec->entries[i].passed && rec->entries[i].median_ms <= best * s->opts->confirm_within)
            who[n++] = i;
    }
    xconv_status st = XCONV_OK;
    for (int round = 1; round <= rounds && n > 1 && st == XCONV_OK && !s->stop; round++) {
        snprintf(s->round, sizeof s->round, "confirm round %d of %d", round, rounds);
        for (int k = 0; k < n && st == XCONV_OK && !s->stop; k++) {
            xconv_find_entry *entry = &rec->entries[who[k]];
            const xconv_variant *v = xconv_variant_find(entry->variant, NULL);
            bool tuned = entry->tuning.direct_tiling[0] || entry->tuning.gemm_tiles[0] ||
                         entry->tuning.math[0];
            xconv_find_entry e;
            bool ran = false;
            st = v ? try_variant(s, v, tuned ? &entry->tuning : NULL, &e, &ran, err) : XCONV_OK;
            s->summary->confirmations += ran;
            ms[k * samples + round] = ran && e.passed ? e.median_ms : NAN;
        }
    }
    s->round[0] = '\0';
    for (int k = 0; k < n && st == XCONV_OK && n > 1 && !s->stop; k++) {
        xconv_find_entry *entry = &rec->entries[who[k]];
        double *mine = &ms[k * samples];
        mine[0] = entry->median_ms;
        bool all_passed = true;
        for (int r = 1; r < samples; r++)
            all_passed &= !isnan(mine[r]);
        if (all_passed) {
            entry->median_ms = measure_times_median(mine, samples);
        } else {
            entry->passed = false;
            entry->median_ms = 0;
        }
    }
    free(who);
    free(ms);
    return st;
}

xconv_status xconv_find_run(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                            const xconv_find_opts *opts, xconv_find_record *rec,
                            xconv_find_progress_fn progress, void *user,
                            xconv_find_summary *summary, xconv_error *err)
{
    xconv_error local_err;
    if (!err)
        err = &local_err;
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, opts) ||
        XCONV_NULL_ARG(err, rec))
        return XCONV_ERR_INVALID;
    xconv_find_summary local = {0};
    if (!summary)
        summary = &local;
    *summary = (xconv_find_summary){0};
    double start = now_s();
    xconv_find_record_key(xconv_device_get_info(dev), p, rec);
    snprintf(rec->mode, sizeof rec->mode, "%s", xconv_find_mode_name(opts->mode));
    xconv_case_options hopts = opts->measure;
    if (hopts.repeat < 1)
        hopts.repeat = 1;
    xconv_case *c = xconv_case_create(dev, p, shape_name, &hopts, err);
    if (!c)
        return err->status;
    find_state s = {.dev = dev, .p = p, .opts = opts, .c = c,
                    .progress = progress, .user = user, .summary = summary};
    xconv_status st = plain_pass(&s, rec, err);
    if (st == XCONV_OK && opts->mode == XCONV_FIND_EXHAUSTIVE && !s.stop)
        st = tuning_pass(&s, rec, now_s(), err);
    if (st == XCONV_OK && opts->mode != XCONV_FIND_FAST && opts->confirm_rounds > 0 && !s.stop)
        st = confirm_pass(&s, rec, err);
    xconv_case_destroy(c);
    summary->seconds = now_s() - start;
    summary->stopped = s.stop;
    if (st != XCONV_OK || s.stop) {  // a stopped find ranks nothing: its entries are partial
        xconv_find_record_free(rec);
        return st;
    }
    xconv_find_record_rank(rec);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(rec->date, sizeof rec->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return XCONV_OK;
}
