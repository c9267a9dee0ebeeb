// SPDX-License-Identifier: MIT
// The CLI's options: one struct filled once from argv by a table of flags.
#ifndef XCONV_CLI_OPTIONS_H
#define XCONV_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#define CLI_MAX_LIST 64

typedef struct cli_options {
    const char *command;
    int argc;                            // the whole command line, for results files
    char **argv;
    const char *shapes[CLI_MAX_LIST];    // --shape SPEC (repeatable)
    int nshapes;
    const char *suites[CLI_MAX_LIST];    // --suite NAME (repeatable)
    int nsuites;
    const char *shape_files[CLI_MAX_LIST];  // --shapes FILE (repeatable)
    int nshape_files;
    int random;                          // --random N: N random shapes drawn from --seed
    const char *variants[CLI_MAX_LIST];  // --variant NAME (repeatable, or comma-separated)
    int nvariants;
    const char *families[CLI_MAX_LIST];  // matrix --family NAME (repeatable, or comma-separated)
    int nfamilies;
    const char *devices[CLI_MAX_LIST];   // --device SEL (repeatable)
    int ndevices;
    const char *input, *weights, *output;  // .npy paths for run
    const char *bias;                    // --bias B.npy for run (K floats)
    const char *epilogue;                // --epilogue auto|fused|unfused|both
    bool random_epilogue;                // --random-epilogue: --random shapes get epilogues
    const char *dtype, *math;            // --dtype NAME, --math NAME: set on every shape
    const char *json, *csv;              // result files
    const char *gemm;                    // --gemm M,N,K for bench
    const char *pitfall;                 // bench --pitfall MODE (docs/teaching/timing.md)
    const char *fft;                     // --fft LHxLW[:BATCH],... or standard for bench
    uint64_t seed;
    bool seed_given;
    int repeat;
    int warmup;
    double host_ref_gflop;
    bool json_stdout;                    // devices --json
    bool verbose;
    bool all;                            // the table lists not-applicable records as rows
    bool parity;
    bool help;
    const char *files[CLI_MAX_LIST];     // report: the results files (positional)
    int nfiles;
    const char *svg_dir;                 // report --svg DIR
    const char *compare;                 // report --compare BASE.json
    const char *peaks[CLI_MAX_LIST];     // report --peaks [DEV=]GFLOPS,GBPS (repeatable)
    int npeaks;
    double margin;                       // report --margin PCT (default 5)
    const char *find_policy;             // --find db|trust|off (run also normal|exhaustive)
    const char *find_mode;               // find --mode fast|normal|exhaustive
    double budget;                       // find --budget SECONDS of tuning a shape
    int confirm;                         // find --confirm ROUNDS of the contenders' timings
    double confirm_within;               // find --confirm-within F: the contenders
    bool list, clear, clear_kernels;     // find --list, --clear, --clear-kernels
    bool force;                          // find --force: re-time fresh records too
    const char *peaks_file;              // --peaks-file FILE (default: in the cache folder)
    const char *targets[CLI_MAX_LIST];   // --target NAME: a profile (repeatable, or comma lists)
    int ntargets;
    bool list_targets;                   // devices --targets, compile --list-targets
    int jobs;                            // compile --jobs N: compilers run at once
    int build_threads;                   // --build-threads N (0: none ahead; -1: the cores)
    const char *import, *export_path;    // precompile --import FILE, --export FILE
    const char *bake_batch;              // --bake-batch on|off: N compiled in, or an argument
    const char *bake_dims;               // --bake-dims on|off: C, H, W, K, P, Q compiled in
} cli_options;

// Parses argv[2..] for `command` into opts. Returns 0, or 2 after printing a message on stderr
// for an unknown option, a missing or bad value, or an option the command does not take.
int cli_parse(int argc, char **argv, const char *command, cli_options *opts);

// Prints the options `command` takes, one a line.
void cli_print_options(const char *command);

#endif // XCONV_CLI_OPTIONS_H
