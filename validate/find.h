// SPDX-License-Identifier: MIT
// Find: every variant "auto" may choose, checked against the reference and then timed on one
// problem and device (exhaustive: their tunings too, within a time budget), ranked into a
// find-db record (docs/find.md).
#ifndef XCONV_FIND_H
#define XCONV_FIND_H

#include <xconv/xconv.h>

#include "../report/record.h"
#include "harness.h"

typedef enum xconv_find_mode {
    XCONV_FIND_FAST,        // no timing: the rules (or the db) answer
    XCONV_FIND_NORMAL,      // every eligible variant with its planner's plan
    XCONV_FIND_EXHAUSTIVE,  // and the tunings of those within tune_within of the fastest
} xconv_find_mode;

// Returns "fast", "normal" or "exhaustive".
const char *xconv_find_mode_name(xconv_find_mode mode);

// Parses a mode's name into *mode; returns false for an unknown one.
bool xconv_find_mode_parse(const char *name, xconv_find_mode *mode);

typedef struct xconv_find_opts {
    xconv_find_mode mode;
    xconv_harness_opts harness;  // inputs, timing runs, reference; its plan options stay forced
    double budget_s;             // exhaustive: most seconds of tuning a shape (after the plain
                                 // timings)
    double tune_within;          // exhaustive: tune the variants within this factor of the
                                 // fastest plain time
    int confirm_rounds;          // normal and exhaustive: time the contenders again this many
                                 // rounds, interleaved, before ranking (0: rank the first times)
    double confirm_within;       // the contenders: passing entries within this factor of the
                                 // fastest
} xconv_find_opts;

// Fills the defaults: normal, repeat 10, warmup 2, budget 60 s, tune within 1.5, confirm the
// variants within 1.25 of the fastest in 2 more rounds.
void xconv_find_opts_default(xconv_find_opts *opts);

// What one find did.
typedef struct xconv_find_summary {
    int runs;             // variant runs (checked, and timed when they passed)
    int tunings;          // of them, runs under a tuning other than the planner's own
    int confirmations;    // of them, runs of the confirm rounds
    bool budget_reached;  // exhaustive: tunings were left untimed when the budget ran out
    double seconds;       // wall time of the whole find
    bool stopped;         // progress asked it to stop: the record holds no entries
} xconv_find_summary;

// Called with each record find makes (for progress lines and streamed results files); returns
// true to stop the find after that run.
typedef bool (*xconv_find_progress_fn)(void *user, const xconv_record *rec);

// Runs find on p (named shape_name, "" for ad-hoc) on dev: each variant auto may choose that
// applies, checked against the float64 reference and timed; in exhaustive mode then each
// tuning of the variants within opts->tune_within of the fastest, until opts->budget_s; then
// the variants within opts->confirm_within of the fastest are timed again in
// opts->confirm_rounds interleaved rounds (A B C A B C), each entry keeping the median of its
// times, so that a run slowed by the rest of the machine does not decide the ranking. Fills
// *rec (its key, mode and one entry per variant, its best tuning, ranked; free with
// xconv_find_record_free) and appends each run's record to list (when not NULL), calling
// progress (when not NULL) on each; a find that progress stops ranks nothing (*rec empty,
// summary->stopped). Returns XCONV_OK (the ranking may hold no passing entry),
// or the harness's failure (the inputs or the reference could not be made). *summary (when
// not NULL) says what it did.
xconv_status xconv_find_run(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                            const xconv_find_opts *opts, xconv_find_record *rec,
                            xconv_record_list *list, xconv_find_progress_fn progress, void *user,
                            xconv_find_summary *summary, xconv_error *err);

#endif // XCONV_FIND_H
