// SPDX-License-Identifier: MIT
// The harness: one problem's inputs and reference on one device, and running variants against it
// (validation, and timing for benchmarks), producing records.
#ifndef XCONV_HARNESS_H
#define XCONV_HARNESS_H

#include <xconv/xconv.h>

#include "../report/record.h"

// Where a run's host time went, added up over every variant run (xconv_harness_opts.totals).
typedef struct xconv_harness_totals {
    double compile_ms;   // program builds counted by the runs (built ahead or when planned)
    double check_ms;     // planning, the checked run and the comparison (builds on the
                         // running thread left out)
    double run_ms;       // warm-up and timed runs
} xconv_harness_totals;

typedef struct xconv_harness_opts {
    uint64_t seed;               // inputs are xconv_random_fill(seed, stream 1 for x, 2 for w)
    int repeat;                  // timed runs per variant; 0 validates only
    int warmup;                  // untimed runs before timing (compilation happens in the first)
    int samples;                 // elements recomputed in float64 when the reference is a device
    double host_ref_max_gflop;   // problems up to this size get the full float64 host reference
    int host_threads;            // threads of the host reference (<= 0: all cores)
    xconv_plan_options plan;     // planning options for every variant (nothing forced)
    int pitfall;                 // an xconv_pitfall: time the wrong way on purpose (teaching)
    xconv_harness_totals *totals;  // when not NULL, each run adds its times (not thread-safe)
} xconv_harness_opts;

// Wrong ways of timing that bench --pitfall reproduces for docs/teaching/timing.md; each record
// timed so says which in its note. NONE is the harness's own method (device events, median).
typedef enum xconv_pitfall {
    XCONV_PITFALL_NONE = 0,
    XCONV_PITFALL_FIRST_RUN,  // host clock around planning, building and the first checked run
    XCONV_PITFALL_NO_SYNC,    // host clock around each enqueue, not waiting for the device
    XCONV_PITFALL_HOST_SYNC,  // host clock around each enqueue and a wait for the device
    XCONV_PITFALL_MEAN,       // device events, but the mean of the runs in place of the median
} xconv_pitfall;

// Returns the pitfall named `name` (none, first-run, no-sync, host-sync, mean), or -1.
int xconv_pitfall_parse(const char *name);

// Sorts the n > 0 times ms ascending, in place, and returns their median.
double xconv_times_median(double *ms, int n);

// Fills the defaults: seed 1, repeat 0, warmup 2, 1000 samples, 1 GFLOP, all cores, default
// planning options.
void xconv_harness_opts_default(xconv_harness_opts *opts);

typedef struct xconv_case xconv_case;

// Prepares problem p (named shape_name, "" for ad-hoc) on dev: random inputs on the host and on
// the device (x stream 1, w stream 2, the bias, when p adds one, stream 3). The reference is made
// lazily by the first variant run. Returns NULL on failure.
xconv_case *xconv_case_create(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                              const xconv_harness_opts *opts, xconv_error *err);

// Replaces the case's random bias with bias (K floats); returns XCONV_ERR_INVALID when its
// problem adds none, or the upload's failure.
xconv_status xconv_case_set_bias(xconv_case *c, const float *bias, xconv_error *err);

// Runs variant v: plans it, runs it on poisoned outputs, checks every element against the
// reference, and (opts->repeat > 0) times it. Always fills *rec, whose outcome says what
// happened (not applicable, error, fail or pass); returns XCONV_OK unless the harness itself
// failed (for instance the reference could not be computed).
xconv_status xconv_case_run(xconv_case *c, const xconv_variant *v, xconv_record *rec,
                            xconv_error *err);

// Runs "auto" as xconv_case_run runs a variant: the record names variant "auto", its note the
// variant auto chose and where from ("auto -> direct_const (rules): ..."), its threshold that
// variant's. Returns XCONV_OK unless the harness itself failed.
xconv_status xconv_case_run_auto(xconv_case *c, xconv_record *rec, xconv_error *err);

// Sets the planning options the case's next runs plan with (the strings must outlive them).
void xconv_case_set_plan_options(xconv_case *c, const xconv_plan_options *plan);

// The output of the last variant run by xconv_case_run (xconv_problem_y_elems floats).
const float *xconv_case_output(const xconv_case *c);

// Sets the xconv_epilogue_mode the case's next runs plan with (their records of an unfused plan
// are named VARIANT+unfused when the problem has an epilogue).
void xconv_case_set_epilogue_mode(xconv_case *c, int mode);

// Returns the XCONV_FUSED_* parts of the epilogue the last run's plan fused (host variants: all).
unsigned xconv_case_fused(const xconv_case *c);

// Frees the case's host and device memory; NULL is ignored.
void xconv_case_destroy(xconv_case *c);

// Plans each of the nvariants device variants (peers through vendor libraries left out) and,
// when with_auto, "auto" for each of the nproblems problems on dev under plan options opts, as
// xconv_case_run plans them, and builds their programs ahead on `threads` worker threads
// (xconv_plans_build; progress and stats as there). Pairs that do not plan are left to the runs
// to report. Returns XCONV_OK, or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_prebuild(xconv_device *dev, const xconv_problem *const *problems,
                            int nproblems, const xconv_variant *const *variants, int nvariants,
                            bool with_auto, const xconv_plan_options *opts, int threads,
                            xconv_build_progress_fn progress, void *user,
                            xconv_build_stats *stats, xconv_error *err);

// Runs variant `variant` (a name or "auto") once under plan options opts (NULL: defaults) on
// given host inputs (bias: K floats, NULL when p adds none) and writes y (xconv_problem_y_elems
// floats); *ms gets the wall time of the upload, build and run, *chosen (when not NULL) the
// variant that ran. dev may be NULL for host variants. Used by `xconv run`.
xconv_status xconv_run_once(xconv_device *dev, const char *variant, const xconv_problem *p,
                            const xconv_plan_options *opts, const float *x, const float *w,
                            const float *bias, float *y, double *ms,
                            const xconv_variant **chosen, xconv_error *err);

#endif // XCONV_HARNESS_H
