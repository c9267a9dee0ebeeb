// SPDX-License-Identifier: MIT
// Measuring: check a variant's output against a float64 reference and time it with device
// events, on a case of seeded random inputs; find over a case; the checking helpers beneath
// (seeded inputs, comparisons, thresholds). Every result comes back as a value, nothing is
// printed. Included by <xconv/xconv.h>; docs/guide/library.md shows a complete example.
#ifndef XCONV_MEASURE_H
#define XCONV_MEASURE_H

#include <xconv/xconv.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// ---------------------------------------------------------------------------------------------
// Results

typedef enum xconv_outcome {
    XCONV_OUTCOME_PASS,           // ran, every element within threshold
    XCONV_OUTCOME_FAIL,           // ran, wrong or unwritten elements
    XCONV_OUTCOME_NOT_APPLICABLE, // the variant does not handle this shape/device (note says why)
    XCONV_OUTCOME_ERROR,          // a build, allocation or runtime error (note says which)
} xconv_outcome;

// Returns "pass", "FAIL", "n/a", "error" (and "?" for a value outside the enum).
const char *xconv_outcome_name(xconv_outcome outcome);

// What one run of a variant on a case found. Values not measured are NaN.
typedef struct xconv_result {
    char device[256];      // the device's label ("host" for host variants)
    char backend[16];      // "opencl", "cuda", "host"
    char driver[128];
    char libraries[256];   // the software under the backend, with versions
                           // (xconv_device_libraries)
    char variant[48];      // VARIANT, VARIANT+unfused (an unfused epilogue) or "auto"
    char family[16];
    char shape_name[XCONV_SHAPE_NAME_MAX];  // the case's shape name, "" for ad-hoc
    char shape[256];       // SPEC string
    char dtype[8];         // storage type of x, w and y
    char math[8];          // math mode
    char reference[48];    // what y was compared with ("cpu_ref", "clblast_gemm+1000 samples")
    uint64_t seed;
    int repeat;            // timed runs (0: checked only)
    double median_ms, min_ms, max_ms;  // device-event times of the timed runs
    double compile_ms;     // program builds counted by the run, kept out of the timings
    double gflops, gbps;   // from the median: FLOPs and minimum bytes over time
    double max_norm_err;   // max over elements of |y - ref| / (the element's sum |x*w|)
    // Variants that compute blocks of outputs together are checked over the block: each
    // element's error divided by the largest sum |x*w| in its block (1 x 1: the element alone).
    int64_t error_block_h, error_block_w;
    double max_block_err;  // the error the threshold judges
    double threshold;
    int64_t worst_index;   // flat NKPQ index of the worst element, -1 when none
    xconv_outcome outcome;
    char note[512];        // the plan summary; why not applicable; the error; the worst element
} xconv_result;

// ---------------------------------------------------------------------------------------------
// One run of a plan on host arrays

// Runs plan (made by xconv_plan_create) once on host arrays: uploads x and w
// (xconv_problem_x_elems / _w_elems floats, rounded to the problem's dtype), the bias (K floats;
// NULL when the problem adds none), runs, waits, and reads y back (xconv_problem_y_elems
// floats); a host variant's plan (made with dev NULL) computes y on the host instead.
// xconv_forward is xconv_plan_create, this, and xconv_plan_destroy; planning once lets a caller
// ask the plan what it chose (xconv_plan_variant, xconv_plan_auto_info) without planning again.
// Returns XCONV_OK or the first failure.
xconv_status xconv_plan_forward(xconv_plan *plan, const float *x, const float *w, const float *bias,
                                float *y, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Cases: one problem's inputs and reference on one device

// Where a run's host time went, added up over every variant run (xconv_case_options.totals).
typedef struct xconv_case_totals {
    double compile_ms;   // program builds counted by the runs (built ahead or when planned)
    double check_ms;     // planning, the checked run and the comparison
    double run_ms;       // warm-up and timed runs
} xconv_case_totals;

// Wrong ways of timing, reproduced on purpose for teaching (docs/teaching/timing.md); a result
// timed so says which in its note. NONE is the case's own method (device events, median).
typedef enum xconv_pitfall {
    XCONV_PITFALL_NONE = 0,
    XCONV_PITFALL_FIRST_RUN,  // host clock around planning, building and the first checked run
    XCONV_PITFALL_NO_SYNC,    // host clock around each enqueue, not waiting for the device
    XCONV_PITFALL_HOST_SYNC,  // host clock around each enqueue and a wait for the device
    XCONV_PITFALL_MEAN,       // device events, but the mean of the runs in place of the median
} xconv_pitfall;

// Returns the pitfall named `name` (none, first-run, no-sync, host-sync, mean), or -1.
int xconv_pitfall_parse(const char *name);

typedef struct xconv_case_options {
    uint64_t seed;               // inputs are xconv_random_fill(seed, stream 1 for x, 2 for w,
                                 // 3 for the bias)
    int repeat;                  // timed runs per variant; 0 checks only
    int warmup;                  // untimed runs before timing (compilation happens in the first)
    int samples;                 // elements recomputed in float64 when the reference is a device
    double host_ref_max_gflop;   // problems up to this size get the full float64 host reference
    int host_threads;            // threads of the host reference (<= 0: all cores)
    xconv_plan_options plan;     // planning options for every variant
    int pitfall;                 // an xconv_pitfall: time the wrong way on purpose (teaching)
    xconv_case_totals *totals;   // when not NULL, each run adds its times (not thread-safe)
} xconv_case_options;

// Fills the defaults: seed 1, repeat 0, warmup 2, 1000 samples, 1 GFLOP, all cores, default
// planning options, no pitfall, no totals.
void xconv_case_options_default(xconv_case_options *opts);

typedef struct xconv_case xconv_case;

// Prepares problem p (named shape_name, NULL or "" for ad-hoc) on dev (NULL: host variants
// only): seeded random inputs on the host and on the device (x stream 1, w stream 2, the bias,
// when p adds one, stream 3). The reference is made by the first run: float64 on the host for
// problems up to opts->host_ref_max_gflop, else the device's GEMM path checked at
// opts->samples float64 elements. Returns NULL on failure (err says why).
xconv_case *xconv_case_create(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                              const xconv_case_options *opts, xconv_error *err);

// Replaces the case's random bias with bias (K floats); returns XCONV_ERR_INVALID when its
// problem adds none, or the upload's failure.
xconv_status xconv_case_set_bias(xconv_case *c, const float *bias, xconv_error *err);

// Runs variant v: plans it, runs it on NaN-poisoned outputs, checks every element against the
// reference, and (repeat > 0, the check passed) times it. Always fills *out, whose outcome says
// what happened (pass, fail, not applicable, error); returns XCONV_OK unless the case itself
// failed (for instance the reference could not be computed).
xconv_status xconv_case_run(xconv_case *c, const xconv_variant *v, xconv_result *out,
                            xconv_error *err);

// Runs "auto" as xconv_case_run runs a variant: the result names variant "auto", its note the
// variant auto chose and where from ("auto -> direct_const (rules): ..."), its threshold that
// variant's. Returns XCONV_OK unless the case itself failed.
xconv_status xconv_case_run_auto(xconv_case *c, xconv_result *out, xconv_error *err);

// Sets the planning options the case's next runs plan with (the strings must outlive them).
void xconv_case_set_plan_options(xconv_case *c, const xconv_plan_options *plan);

// Sets the xconv_epilogue_mode the case's next runs plan with (their results of an unfused plan
// are named VARIANT+unfused when the problem has an epilogue).
void xconv_case_set_epilogue_mode(xconv_case *c, int mode);

// The output of the last variant run (xconv_problem_y_elems floats), NULL for a NULL case.
const float *xconv_case_output(const xconv_case *c);

// Returns the XCONV_FUSED_* parts of the epilogue the last run's plan fused (host variants: all).
unsigned xconv_case_fused(const xconv_case *c);

// Frees the case's host and device memory; NULL is ignored.
void xconv_case_destroy(xconv_case *c);

// Plans each of the nvariants device variants (peers through vendor libraries left out) and,
// when with_auto, "auto" for each of the nproblems problems on dev under plan options opts
// (NULL: defaults), as xconv_case_run plans them, and builds their programs ahead on `threads`
// worker threads (xconv_plans_build; progress and stats as there). Pairs that do not plan are
// left to the runs to report. Returns XCONV_OK, or the failure.
xconv_status xconv_prebuild(xconv_device *dev, const xconv_problem *const *problems, int nproblems,
                            const xconv_variant *const *variants, int nvariants, bool with_auto,
                            const xconv_plan_options *opts, int threads,
                            xconv_build_progress_fn progress, void *user, xconv_build_stats *stats,
                            xconv_error *err);

// Times the work enqueue enqueues (xconv_device_measure: `warmup` untimed runs, then `repeat`
// runs each between two marks in the device's queue) and fills out's timing: median_ms,
// min_ms, max_ms, repeat, and gflops and gbps from the flops and bytes of one run over the
// median (NaN when the median is not positive); the rest of *out is left alone. The timing
// under every case run, and under the GEMM and FFT benchmarks of the command line. Returns
// XCONV_OK or the failure.
xconv_status xconv_result_time(xconv_device *dev, xconv_enqueue_fn enqueue, void *user, int warmup,
                               int repeat, double flops, double bytes, xconv_result *out,
                               xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Find: every variant "auto" may choose, checked then timed on one case, ranked (docs/find.md)

typedef enum xconv_find_mode {
    XCONV_FIND_FAST,        // no timing: the rules (or the db) answer
    XCONV_FIND_NORMAL,      // every eligible variant with its planner's plan
    XCONV_FIND_EXHAUSTIVE,  // and the tunings of those within tune_within of the fastest
} xconv_find_mode;

// Returns "fast", "normal" or "exhaustive" ("?" for a value outside the enum).
const char *xconv_find_mode_name(xconv_find_mode mode);

// Parses a mode's name into *mode; returns false for an unknown one.
bool xconv_find_mode_parse(const char *name, xconv_find_mode *mode);

typedef struct xconv_find_opts {
    xconv_find_mode mode;
    xconv_case_options measure;  // inputs, timing runs, reference; its plan options stay forced
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

// Called with the result of each run find makes; returns true to stop the find after it.
typedef bool (*xconv_find_progress_fn)(void *user, const xconv_result *res);

// Runs find on p (named shape_name, NULL or "" for ad-hoc) on dev: each variant auto may
// choose that applies, checked against the reference and timed; in exhaustive mode then each
// tuning of the variants within opts->tune_within of the fastest, until opts->budget_s; then
// the variants within opts->confirm_within of the fastest are timed again in
// opts->confirm_rounds interleaved rounds (A B C A B C), each entry keeping the median of its
// times. Fills *rec (its key, mode and one entry per variant, its best tuning, ranked; free
// with xconv_find_record_free; store it with xconv_find_db_store) and calls progress (when not
// NULL) with each run's result; a find that progress stops ranks nothing (*rec empty,
// summary->stopped). Returns XCONV_OK (the ranking may hold no passing entry), or the case's
// failure. *summary (when not NULL) says what it did.
xconv_status xconv_find_run(xconv_device *dev, const xconv_problem *p, const char *shape_name,
                            const xconv_find_opts *opts, xconv_find_record *rec,
                            xconv_find_progress_fn progress, void *user,
                            xconv_find_summary *summary, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Checking helpers: the inputs, comparisons and thresholds the cases use

// Fills out[0..count) with uniform values in [-1, 1) from a portable generator seeded by
// (seed, stream), so x and w drawn with different streams differ. Each value depends on its
// index alone. NULL out is ignored.
void xconv_random_fill(float *out, size_t count, uint64_t seed, uint64_t stream);

// Gives *p (a valid problem; others are left alone) an epilogue drawn from (seed, index): a
// bias one time in two, an activation among none, relu and relu6, and two times in three a
// max-pool fitting the output; never none at all. The result passes xconv_problem_check.
void xconv_random_epilogue(uint64_t seed, int index, xconv_problem *p);

// Writes `count` flat output indices of p spread over y (first, last, and seeded random ones
// between) into out, for sampled checks of large problems. A problem that fails its check, a
// NULL pointer or count < 1 writes nothing.
void xconv_sample_indices(const xconv_problem *p, int64_t *out, int count, uint64_t seed);

// Result of comparing an output with a reference.
typedef struct xconv_compare_result {
    double max_norm_err;      // max over elements of |y - ref| / max(norm, tiny)
    int64_t worst_index;      // flat NKPQ index of that element (-1 when none compared)
    int64_t nonfinite;        // elements of y that are NaN or Inf (unwritten or broken)
    int64_t first_nonfinite;  // flat index of the first such element, -1 when none
    int64_t compared;         // elements compared
} xconv_compare_result;

// Compares y with ref element by element, with per-element scale norm (all `count` long), into
// *out. Large outputs are compared on every online core. A NULL pointer leaves *out alone.
void xconv_compare_full(const float *y, const double *ref, const double *norm, int64_t count,
                        xconv_compare_result *out);

// Compares y at the `count` sampled indices with float64 values recomputed on the host from
// x, w and bias (NULL when p adds none), merging into *out (max of errors, sums of counts).
// A NULL pointer (bias aside) or a problem that fails its check leaves *out alone.
void xconv_compare_sampled(const xconv_problem *p, const float *x, const float *w,
                           const float *bias, const float *y, const int64_t *indices, int count,
                           xconv_compare_result *out);

// Writes into out[i] the largest of scale[] over the block of outputs holding element i: blocks
// of block_h x block_w positions of one plane of p's convolution output (one image, one output
// channel), aligned at row and column 0, cut at the plane's edges; out and scale are
// xconv_problem_conv_elems(p) long and may not alias. The scale an algorithm that computes
// blocks of outputs together (xconv_plan_error_block) is judged by. NULL pointers write nothing.
void xconv_block_scale_f64(const xconv_problem *p, int64_t block_h, int64_t block_w,
                           const double *scale, double *out);

// Returns the largest normalised error a variant whose accuracy entry is `family` may show:
// 1e-5 for "reference", "direct", "gemm", "peer" and any unknown entry (or NULL), 1e-4 for
// "winograd" and "fft", and each Winograd algorithm's own (host/measure/thresholds.c explains).
double xconv_threshold_for_family(const char *family);

// Returns variant v's threshold: its own where one was measured (over its error block), else
// its accuracy family's; NaN for NULL.
double xconv_threshold_for_variant(const xconv_variant_info *v);

// Returns what storing y in dtype adds to a threshold: 2^-11 for fp16, 2^-8 for bf16, 0 for
// fp32 (and for an unknown dtype).
double xconv_threshold_storage(int64_t dtype);

// Returns what a reduced math mode adds to a threshold (tensor-core products): 2^-10 + 2^-12
// for tf32, 2^-12 for f16 and bf16, 0 for strict fp32 (and for an unknown mode).
double xconv_threshold_math(int64_t math);

XCONV_API_END

#endif // XCONV_MEASURE_H
