// SPDX-License-Identifier: MIT
// Measuring the behaviour report: variants on device stacks over shapes and the probes, into the
// records of report/behaviour.h.
#ifndef XCONV_BEHAVIOUR_RUN_H
#define XCONV_BEHAVIOUR_RUN_H

#include <xconv/xconv.h>

#include "report/behaviour.h"

typedef struct xconv_behaviour_opts {
    uint64_t seed;               // the shapes' inputs: xconv_random_fill streams 1 (x), 2 (w)
    double host_ref_max_gflop;   // the float64 host reference checks shapes up to this size
    int host_threads;            // threads of the host reference (<= 0: all cores)
    xconv_plan_options plan;     // planning options for every variant
    // Optional: called before each variant runs on a problem ("plain3x3 direct_tiled"), with
    // how many such steps are done and how many there are.
    void (*progress)(void *user, int done, int total, const char *what);
    void *user;
} xconv_behaviour_opts;

// Fills the defaults: seed 1, 1 GFLOP, all cores, default planning, no progress.
void xconv_behaviour_opts_default(xconv_behaviour_opts *opts);

// Returns in id (len bytes) the short name of the stack of device info ("pocl", "rusticl",
// "oclgrind", "nvidia-opencl", "cuda", else the platform's name in lower case with '-' for
// other characters).
void xconv_behaviour_stack_id(const xconv_device_info *info, char *id, size_t len);

// Measures the behaviour report (docs/behaviour.md) into *out: each of the nvariants variants on
// each of the ndevices open devices whose backend it runs on (and on a "host" stack when it runs
// on the host), on the nshapes problems (names: their suite names, "" for none) run twice each
// with seeded inputs and checked against the float64 host reference, then on every probe of
// xconv_behaviour_cases; and every pair of stacks that ran a variant compared element by
// element. out->info is left for the caller. Returns XCONV_OK (a variant's failures are findings
// in its record), XCONV_ERR_INVALID for a shape larger than opts->host_ref_max_gflop, or
// XCONV_ERR_OUT_OF_MEMORY; *out is empty on failure.
xconv_status xconv_behaviour_measure(xconv_device *const *devices, int ndevices,
                                     const xconv_problem *shapes, const char *const *names,
                                     int nshapes, const xconv_variant *const *variants,
                                     int nvariants, const xconv_behaviour_opts *opts,
                                     xconv_behaviour_run *out, xconv_error *err);

#endif // XCONV_BEHAVIOUR_RUN_H
