// SPDX-License-Identifier: MIT
// Building a run's programs ahead on worker threads before its cases run (validate, bench,
// matrix, find), with a progress line, and the run's totals of compile, check and run time.
#ifndef XCONV_CLI_PREBUILD_H
#define XCONV_CLI_PREBUILD_H

#include <stdio.h>

#include <xconv/xconv.h>

#include "options.h"

// A run's host time, for its closing line.
typedef struct cli_build_totals {
    xconv_case_totals runs;   // what the variant runs counted (point hopts.totals here)
    double ahead_ms;             // wall time of the builds ahead
    int programs, built, failed; // programs built ahead, of all devices
    int threads;                 // the most worker threads one device's builds used
    int helpers;                 // helper processes started (OpenCL devices)
    double start_ms;             // when the run started
} cli_build_totals;

// Starts t's clock and clears its counts.
void cli_build_totals_start(cli_build_totals *t);

// Builds ahead on dev (labelled `label` in the progress line) the programs of every variant
// (NULL: "auto") on every problem under plan options plan, on --build-threads threads (0: none
// built ahead), adding to t. On OpenCL devices with a cache folder (cache, attached to dev)
// helper processes of `xconv precompile`, as many as the threads, first build shares of the
// problems into it. The progress line on stderr says how many are built and how many are left.
// Failures are left to the runs.
void cli_prebuild(const cli_options *opts, xconv_device *dev, xconv_cache *cache,
                  const char *label, const xconv_problem *const *problems, int nproblems,
                  const xconv_variant *const *variants, int nvariants,
                  const xconv_plan_options *plan, cli_build_totals *t);

// Prints the totals' line to f: "time: compile 41.2 s (ahead: 80 programs in 3.1 s wall on 16
// threads), check 12.0 s, timed runs 5.5 s, wall 25.3 s".
void cli_build_totals_print(FILE *f, const cli_build_totals *t);

#endif // XCONV_CLI_PREBUILD_H
