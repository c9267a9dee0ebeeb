// SPDX-License-Identifier: MIT
// The measuring module's case (<xconv/measure.h>): its state, and the helpers its files share
// (case.c: inputs and buffers; case_reference.c: the reference and the comparison;
// case_time.c: timing; case_run.c: running a variant and filling its result).
#ifndef XCONV_MEASURE_CASE_H
#define XCONV_MEASURE_CASE_H

#include <xconv/xconv.h>

#define MAX_ROTATION_SETS 8

// The sets of buffers timed runs rotate over (set 0: the case's own inputs and output).
typedef struct rotation {
    xconv_tensors sets[MAX_ROTATION_SETS];
    int count;                   // 0 until the case is first timed
} rotation;

struct xconv_case {
    xconv_device *dev;
    xconv_problem p;
    char shape_name[XCONV_SHAPE_NAME_MAX];
    char spec[256];
    char libraries[256];         // what the device runs on (xconv_device_libraries)
    xconv_case_options opts;
    int64_t x_n, w_n, y_n, conv_n;
    float *x, *w, *y;            // host inputs, and the output read back
    float *bias;                 // K floats when the problem adds a bias, else NULL
    float *y_timed;              // the last timed run's output (made when first timing)
    xconv_buffer *dx, *dw, *dbias;  // device inputs (dbias: with a bias)
    xconv_buffer *dy;            // device output, made on the first run and kept
    rotation rot;                // timed runs' sets of buffers, made when first timing
    unsigned resets;             // the device's context rebuilds when the inputs were uploaded
    bool ref_ready;
    char ref_name[48];
    double *ref64, *norm64;      // full float64 host reference (small problems)
    float *ref32, *norm32;       // device reference path and its scale (large problems)
    // The convolution before a pooling epilogue and its scale (conv_n each), for checking
    // variants that compute blocks of outputs together: their blocks are the convolution's.
    double *conv64, *convnorm64;
    float *conv32, *convnorm32;
    int64_t *samples;            // indices recomputed in float64 (large problems)
    int nsamples;
    unsigned last_fused;         // XCONV_FUSED_* parts the last run's plan fused
    int test_fault;              // an xconv_test_fault for the variants' plans (tests only)
};

// ---------------------------------------------------------------------------------------------
// case.c: host and device memory

// Returns the host's monotonic clock in milliseconds (for wall times).
double measure_now_ms(void);

// The epilogue parts a host variant applies: all of the problem's.
unsigned measure_epilogue_parts_host(const xconv_problem *p);

// calloc of count elements of size bytes, or NULL with XCONV_ERR_OUT_OF_MEMORY in err.
void *measure_host_alloc(size_t count, size_t size, xconv_error *err);

// A buffer of count floats into *out (measure_upload: with host's values); XCONV_OK or why not.
xconv_status measure_alloc(xconv_device *dev, int64_t count, xconv_buffer **out,
                           xconv_error *err);
xconv_status measure_upload(xconv_device *dev, const float *host, int64_t count,
                            xconv_buffer **out, xconv_error *err);

// Tensors in p's storage type, their buffers rounded up to whole floats: allocated, uploaded
// from fp32 values, read back as fp32 values, filled with NaN. XCONV_OK or the failure.
xconv_status measure_alloc_tensor(xconv_device *dev, const xconv_problem *p, int64_t count,
                                  xconv_buffer **out, xconv_error *err);
xconv_status measure_upload_tensor(xconv_device *dev, const xconv_problem *p, const float *host,
                                   int64_t count, xconv_buffer **out, xconv_error *err);
xconv_status measure_download_tensor(xconv_buffer *buf, const xconv_problem *p, int64_t count,
                                     float *host, xconv_error *err);
xconv_status measure_poison_tensor(xconv_buffer *buf, const xconv_problem *p, int64_t count,
                                   xconv_error *err);

// (Re)uploads the case's inputs (at creation and after the device's context was rebuilt).
xconv_status measure_upload_inputs(xconv_case *c, xconv_error *err);

// Frees the case's reference arrays (it is computed again on the next run).
void measure_free_reference(xconv_case *c);

// Runs the plan once on NaN-poisoned y (dy, or a buffer of its own when dy is NULL) with a
// workspace of its own, and reads y back into y_host.
xconv_status measure_run_device_variant(xconv_device *dev, xconv_plan *plan,
                                        const xconv_problem *p, xconv_buffer *dx,
                                        xconv_buffer *dw, xconv_buffer *dbias, xconv_buffer *dy,
                                        float *y_host, xconv_error *err);

// Makes the case's device output on first use (kept for every run).
xconv_status measure_ensure_output(xconv_case *c, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// case_reference.c: the reference and the comparison with it

// Makes the case's reference when it has none; XCONV_OK or why not.
xconv_status measure_ensure_reference(xconv_case *c, xconv_error *err);

// Compares c->y with the reference.
void measure_compare_output(const xconv_case *c, xconv_compare_result *res);

// Compares c->y with the reference over blocks of block_h x block_w outputs
// (xconv_plan_error_block); XCONV_ERR_OUT_OF_MEMORY without memory for the block scales.
xconv_status measure_compare_output_blocked(xconv_case *c, int64_t block_h, int64_t block_w,
                                            xconv_compare_result *res, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// case_time.c: timing

// Frees the timing sets' buffers but set 0's (the case's own) and empties rot.
void measure_rotation_destroy(rotation *rot);

// Warm-up runs, then the timed runs of plan; fills the timing fields of res. *same says
// whether the last timed output's bits are those of the checked one in c->y (else copied there).
xconv_status measure_time_variant(xconv_case *c, xconv_plan *plan, xconv_result *res,
                                  bool *same, xconv_error *err);

// Sorts the n > 0 times ms ascending, in place, and returns their median.
double measure_times_median(double *ms, int n);

// Puts what pitfall c->opts.pitfall timed in front of res's note.
void measure_note_pitfall(const xconv_case *c, xconv_result *res);

#endif // XCONV_MEASURE_CASE_H
