// SPDX-License-Identifier: MIT
// What the CLI's commands share: the command entry points and selection helpers.
#ifndef XCONV_CLI_H
#define XCONV_CLI_H

#include <stdio.h>

#include <xconv/xconv.h>

#include "../bench/record.h"
#include "options.h"

// Exit codes: 0 success, 1 a check failed or a run errored, 2 bad usage or input.
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

int cmd_devices(const cli_options *opts);
int cmd_variants(const cli_options *opts);
int cmd_run(const cli_options *opts);
int cmd_validate(const cli_options *opts);
int cmd_bench(const cli_options *opts);
int cmd_bench_gemm(const cli_options *opts);  // bench --gemm (cli/cmd_gemm.c)
int cmd_explain(const cli_options *opts);
int cmd_parity(const cli_options *opts);
int cmd_report(const cli_options *opts);

// A shape to run: its suite name ("" for --shape) and problem.
typedef struct cli_shape {
    char name[32];
    xconv_problem problem;
    double weight;  // how often it occurs in its network (--shapes files), else 1
} cli_shape;

#define CLI_MAX_SHAPES 256

// Collects --suite and --shape into shapes (default_suite when neither was given, NULL: none).
// Returns 0 or CLI_USAGE after printing why.
int cli_collect_shapes(const cli_options *opts, const char *default_suite, cli_shape *shapes,
                       int *count);

// Collects --variant names (comma lists split) into variants; none given leaves *count 0. With
// allow_auto, "auto" is taken and stored as NULL. Returns 0 or CLI_USAGE after printing the valid
// names.
int cli_collect_variants(const cli_options *opts, bool allow_auto,
                         const xconv_variant **variants, int *count);

// Fills *plan with the planning options the environment asks for: XCONV_DIRECT_PLAN (the direct
// family's tiling), XCONV_GEMM_TILES (GEMM tiles), XCONV_GEMM_SPLIT (the GEMM family's split-K)
// and XCONV_GEMM_CHUNK (images per im2col pass).
void cli_plan_options(xconv_plan_options *plan);

// Reads the one shape of shape file path into *p (every key counted as given in *seen).
// Returns 0 or CLI_USAGE after printing why (unreadable, bad, or more than one shape).
int cli_shape_from_file(const char *path, xconv_problem *p, unsigned *seen);

// Lists devices and resolves --device selectors (none: the default device) into indices of
// list. Returns 0 or CLI_USAGE/CLI_FAILED after printing why.
int cli_select_devices(const cli_options *opts, xconv_device_list *list, int *indices,
                       int *count);

// Writes a file through writer into a temporary beside path and renames it into place, so a
// failure leaves no partial file. Returns 0, or CLI_FAILED after printing why.
int cli_write_file(const char *path, int (*writer)(FILE *f, const void *ctx), const void *ctx);

// Writes the records to --json and --csv when asked for. Returns 0, or CLI_FAILED after printing
// why.
int cli_write_records(const xconv_record_list *list, const cli_options *opts);

// Prints the plan of variant `name` (or "auto") for p on dev: steps with their defines and
// geometry, workspace regions, FLOPs, bytes and the floor.
void cli_print_plan(xconv_device *dev, const char *name, const xconv_problem *p);

// Prints an error message from the library in the CLI's format.
void cli_print_error(const char *context, const xconv_error *err);

#endif // XCONV_CLI_H
