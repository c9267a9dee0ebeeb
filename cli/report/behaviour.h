// SPDX-License-Identifier: MIT
// The behaviour report's records (docs/behaviour.md): per device stack and variant, accuracy,
// determinism, special values, signed zeros and denormals; per variant and pair of stacks, how
// their outputs agree; per stack, the arithmetic the compiler and the device give. Writers for
// JSON and the terminal, and the reader `xconv report` uses.
#ifndef XCONV_BEHAVIOUR_H
#define XCONV_BEHAVIOUR_H

#include <stdio.h>

#include "record.h"

// The schema this xconv writes and the newest it reads ("kind": "behaviour").
#define XCONV_BEHAVIOUR_SCHEMA_VERSION 1

// ---------------------------------------------------------------------------------------------
// Stacks

// A device stack: one device through one backend, or the host.
typedef struct xconv_behaviour_stack {
    char id[40];             // short and unique in a run: "pocl", "rusticl", "cuda", "host"
    char device[320];        // the device's label ("opencl:0 NVIDIA H100 80GB HBM3"), "host"
    char backend[16];        // "opencl", "cuda", "host"
    char platform[128];
    char driver[128];
    char version[128];
    char type[8];            // "gpu", "cpu", "other", "host"
    unsigned fp32_config;    // XCONV_FP_* bits (xconv_device_info)
    char build_flags[192];   // what xconv's kernels are built with (xconv_device_info)
} xconv_behaviour_stack;

// Returns the JSON name of fp32_config bit `bit` ("denorm", "fma", ...), or NULL for a bit that
// has none.
const char *xconv_fp_flag_name(unsigned bit);

// Writes the names of the bits set in config into buf, space-separated ("denorm inf_nan ...",
// "none"); returns buf.
const char *xconv_fp_config_format(unsigned config, char *buf, size_t len);

// ---------------------------------------------------------------------------------------------
// Per stack and variant

// The kinds of probe (fixed inputs whose right answer is known).
typedef enum xconv_probe_kind {
    XCONV_PROBE_SPECIAL,    // NaN and Inf: where they reach
    XCONV_PROBE_ZERO,       // the sign of zero outputs
    XCONV_PROBE_DENORMAL,   // denormals: kept or flushed to zero
} xconv_probe_kind;

// One probe's result for one stack and variant, summed over the probe's problems.
typedef struct xconv_behaviour_probe {
    char name[24];           // "nan_inf_inputs", "minus_zero", "denormal_products", ...
    xconv_probe_kind kind;
    int cases, ran;          // the probe's problems, and how many of them the variant ran
    char verdict[16];        // see docs/behaviour.md; "n/a" when none ran, "error" on failure
    int64_t outputs;         // outputs looked at
    // special values: outputs IEEE arithmetic makes NaN or Inf; finite there but special here
    // (extra), special there but finite here (missing), NaN for Inf or the other sign
    // (wrong_kind); extra or wrong outputs outside every output block (the plan's
    // xconv_plan_error_block) that holds an expected special value; finite outputs off by more
    // than the variant's threshold
    int64_t expected_special, extra, missing, wrong_kind, beyond_block, finite_off;
    // signed zeros: zero outputs, those IEEE arithmetic makes -0, those that came out -0 and +0,
    // those whose sign differs from IEEE's, and outputs that are not zero at all
    int64_t zeros, ieee_minus, got_minus, got_plus, sign_mismatch, nonzero;
    // denormals: outputs with a non-zero reference that came out right (kept), ±0 (flushed) or
    // otherwise wrong
    int64_t kept, flushed, wrong;
    char note[256];          // the first error, or why nothing ran
} xconv_behaviour_probe;

#define XCONV_BEHAVIOUR_MAX_PROBES 8

// One shape's accuracy run.
typedef struct xconv_behaviour_shape {
    int shape;               // index into the run's shapes
    xconv_outcome outcome;   // pass, fail (threshold or non-finite), not_applicable, error
    double max_norm_err;     // per element (NAN when it did not run)
    double max_block_err;    // over the plan's output blocks; the threshold applies to it
    uint64_t max_ulp;        // to the correctly rounded result
    bool deterministic;      // a second run gave the same bits
    char note[256];          // why it did not run, or where it failed
} xconv_behaviour_shape;

typedef struct xconv_behaviour_record {
    int stack;               // index into the run's stacks
    char variant[48];
    char family[16];
    char accuracy_family[16];  // the family whose threshold applies
    char kernels[16];        // "xconv", "vendor", "xconv+vendor" (whose kernels ran), "host"
    double threshold;
    // accuracy over the shapes: counts, and over every element of every shape that ran
    int shapes, passed, failed, not_applicable, errors;
    double max_norm_err, median_norm_err, max_block_err;
    int worst_shape;         // the shape of max_block_err, -1 when none ran
    int64_t ulp_compared;    // elements whose ULP distance to the correctly rounded result exists
    uint64_t max_ulp;
    double median_ulp;
    double share_correctly_rounded;  // of ulp_compared, NAN when none
    // determinism: shapes run twice and compared, and those whose two outputs differ
    int det_compared, det_differing;
    xconv_behaviour_probe probes[XCONV_BEHAVIOUR_MAX_PROBES];
    int nprobes;
    xconv_behaviour_shape *per_shape;  // one per shape of the run, in the run's order
    int nshapes;
    char note[256];          // the first error of an accuracy run
} xconv_behaviour_record;

// ---------------------------------------------------------------------------------------------
// Per variant and pair of stacks

typedef struct xconv_behaviour_agreement {
    char variant[48];
    int stack_a, stack_b;    // indices into the run's stacks, a < b
    int shapes;              // shapes both ran
    int identical_shapes;    // of them, those with bitwise identical outputs
    int64_t compared;        // elements compared
    int64_t differing;       // elements whose bits differ
    int64_t nonfinite_mismatch;  // elements non-finite on one side only (or NaN vs Inf)
    uint64_t max_ulp;        // over the elements finite on both sides
    double median_ulp;       // of every element compared
    double median_ulp_differing;  // of the differing ones, NAN when none differ
} xconv_behaviour_agreement;

// ---------------------------------------------------------------------------------------------
// A run

// A shape of the accuracy runs.
typedef struct xconv_behaviour_shape_info {
    char name[XCONV_SHAPE_NAME_MAX];  // suite or file name, "" for --shape
    char spec[256];
} xconv_behaviour_shape_info;

// A probe problem: which probe, its problem and what it holds.
typedef struct xconv_behaviour_case_info {
    char probe[24];
    char spec[256];
    char what[160];
} xconv_behaviour_case_info;

typedef struct xconv_behaviour_run {
    int schema_version;      // of the file read; XCONV_BEHAVIOUR_SCHEMA_VERSION when measured
    xconv_run_info info;
    char host[128];
    uint64_t seed;
    double host_ref_gflop;   // shapes are checked against the float64 host reference up to this
    xconv_behaviour_shape_info *shapes;
    int nshapes;
    xconv_behaviour_case_info *cases;
    int ncases;
    xconv_behaviour_stack *stacks;
    int nstacks;
    xconv_behaviour_record *recs;
    int count;
    xconv_behaviour_agreement *agree;
    int nagree;
} xconv_behaviour_run;

// Frees what a run holds and empties it (a zeroed run is fine).
void xconv_behaviour_run_free(xconv_behaviour_run *run);

// Returns the record of stack `stack` and variant `variant` in run, or NULL.
const xconv_behaviour_record *xconv_behaviour_find(const xconv_behaviour_run *run, int stack,
                                                   const char *variant);

// Returns the verdict word of kind `kind` over the record's probes: the worst of their verdicts
// ("wrong" before "block" or "mixed" before "exact", "ieee" or "kept"), "n/a" when none ran.
// For denormals, see xconv_behaviour_probe itself: each probe says something different.
const char *xconv_behaviour_kind_verdict(const xconv_behaviour_record *rec,
                                         xconv_probe_kind kind);

// ---------------------------------------------------------------------------------------------
// Writers (cli/report/behaviour_export.c, report/behaviour_table.c): 0, or -1 when writing failed.

// The JSON file (docs/behaviour.md has the schema).
int xconv_behaviour_write_json(FILE *f, const xconv_behaviour_run *run);

// The terminal tables: per stack and variant, agreement across stacks, rounding controls.
int xconv_behaviour_write_table(FILE *f, const xconv_behaviour_run *run);

// ---------------------------------------------------------------------------------------------
// Reader (cli/report/behaviour_read.c)

// Reads behaviour JSON text (len bytes; origin names it in messages) into *out. Returns
// XCONV_OK, or XCONV_ERR_PARSE with "origin: byte N: where: what" for malformed JSON, another
// kind of file, a newer schema, or a missing or mistyped field. *out is empty on failure.
xconv_status xconv_behaviour_parse(const char *text, size_t len, const char *origin,
                                   xconv_behaviour_run *out, xconv_error *err);

// Reads the file at path as xconv_behaviour_parse does. When the file is not a behaviour file
// (another kind, or not JSON at all), sets *is_behaviour false and returns XCONV_OK with *out
// empty, so the caller can read it as another kind; XCONV_ERR_IO when it cannot be read.
xconv_status xconv_behaviour_load(const char *path, xconv_behaviour_run *out, bool *is_behaviour,
                                  xconv_error *err);

#endif // XCONV_BEHAVIOUR_H
