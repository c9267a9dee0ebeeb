// SPDX-License-Identifier: MIT
// xconv's command-line entry point: the subcommand table and the top-level help.
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(const cli_options *opts);
    const char *usage;
    const char *help;
} command;

static const command commands[] = {
    {"devices", cmd_devices, "devices [--device D ...] [--json]",
     "list every backend's devices and their limits (or those --device selects)"},
    {"variants", cmd_variants, "variants", "list the variants, their families and backends"},
    {"run", cmd_run,
     "run [--shape SPEC | --shapes FILE] [--input X.npy --weights W.npy] [--variant V|auto] "
     "[--device D] [--output Y.npy] [--seed N]",
     "run one convolution"},
    {"validate", cmd_validate,
     "validate [--suite NAME | --shape SPEC | --shapes FILE ...] [--variant V ...] "
     "[--device D ...] [--json FILE] [--csv FILE] [--parity [--repeat N]]",
     "check variants against the reference; exit 1 on any failure (records stream as they "
     "finish; Ctrl-C stops after the current case)"},
    {"bench", cmd_bench,
     "bench [--suite NAME | --shape SPEC | --shapes FILE ...] [--variant V ...] "
     "[--device D ...] [--repeat N] [--json FILE] [--csv FILE] | bench --gemm M,N,K|standard "
     "| bench --fft LHxLW[:BATCH],...|standard",
     "time variants with device events (checked first)"},
    {"matrix", cmd_matrix,
     "matrix [--suite NAME | --shape SPEC | --shapes FILE ...] [--variant V ... | --family F ...] "
     "[--device D ... | --device all] [--repeat N] [--json FILE] [--csv FILE]",
     "every variant x shape x device, checked then timed: tables, floors, auto's picks"},
    {"peaks", cmd_peaks, "peaks [--device D ... | --device all] [--repeat N] [--peaks-file FILE]",
     "measure each device's fp32 FMA throughput and memory bandwidth, for floors"},
    {"report", cmd_report,
     "report RUN.json [RUN2.json | BEHAVIOUR.json ...] [-o REPORT.html] [--svg DIR] "
     "[--compare BASE.json] [--peaks [DEV=]GFLOPS,GBPS ...] [--shapes FILE ...] [--margin PCT]",
     "one HTML page of results files: heatmaps, rooflines, winners, runs compared"},
    {"behaviour", cmd_behaviour,
     "behaviour [--suite NAME | --shape SPEC | --shapes FILE | --random N ...] [--variant V ...] "
     "[--device D ... | --device all] [--json FILE]",
     "how each device stack computes: accuracy, determinism, NaN/Inf, -0, denormals, agreement"},
    {"explain", cmd_explain, "explain --shape SPEC | --shapes FILE --variant V|auto [--device D]",
     "show the plan chosen for a shape on a device"},
    {"find", cmd_find,
     "find [--suite NAME | --shape SPEC | --shapes FILE ...] [--device D ...] "
     "[--mode fast|normal|exhaustive] [--force] | --list | --clear | --clear-kernels",
     "time the variants for shapes and keep the fastest in the find-db, for auto"},
    {"precompile", cmd_precompile,
     "precompile [--suite NAME | --shape SPEC | --shapes FILE ...] [--variant V ...] "
     "[--device D ...] [--build-threads N] [--export BUNDLE] | --import BUNDLE [--device D ...]",
     "build the programs of shapes into the cache ahead of time; move them as one bundle file"},
};

// The environment variables the CLI maps onto the library's options.
static const char environment_help[] =
    "  XCONV_DEVICE       the device when --device is not given\n"
    "  XCONV_DIRECT_PLAN  forces the direct family's tiling (docs/guide/cli.md)\n"
    "  XCONV_GEMM_TILES   forces the GEMM tiles TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]\n"
    "                     (docs/guide/cli.md)\n"
    "  XCONV_GEMM_SPLIT   forces the GEMM family's split-K: 1 none, 2..16 K slices\n"
    "  XCONV_GEMM_CHUNK   caps the images per im2col pass\n"
    "  XCONV_WINO_CHUNK   caps the images per pass of the non-fused Winograd variants\n"
    "  XCONV_WINO_FUSED   forces the fused Winograd block TB,KB,CC,WT,WK[,VEC]\n"
    "  XCONV_FFT_TILE     forces the FFT family's transform size L or HxW (docs/guide/fft-family.md)\n"
    "  XCONV_FFT_CHUNK    caps the images per FFT pass\n"
    "  XCONV_PEAKS        [DEV=]GFLOPS,GBPS[;...]: peaks for floors, over xconv peaks' "
    "measurements\n"
    "  XCONV_CACHE_DIR    the cache of compiled kernels and the find-db (default\n"
    "                     $XDG_CACHE_HOME/xconv, else ~/.cache/xconv; none: no cache)\n";

static void print_usage(FILE *f)
{
    fprintf(f, "xconv %s: 2-D convolution kernels written once, run through OpenCL and CUDA, "
               "checked and timed.\n\nUsage: xconv COMMAND [OPTIONS]\n\nCommands:\n",
            XCONV_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'xconv COMMAND --help' lists a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("xconv %s (%s)\n", XCONV_VERSION, xconv_git_commit());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const command *cmd = &commands[i];
        if (strcmp(argv[1], cmd->name) != 0)
            continue;
        cli_set_command(cmd->name);
        cli_options opts;
        int rc = cli_parse(argc, argv, cmd->name, &opts);
        if (rc)
            return rc;
        if (opts.help) {
            printf("Usage: xconv %s\n\n%s.\n\nOptions:\n", cmd->usage, cmd->help);
            cli_print_options(cmd->name);
            if (strcmp(cmd->name, "devices") && strcmp(cmd->name, "variants"))
                printf("\nEnvironment:\n%s", environment_help);
            return CLI_OK;
        }
        return cmd->run(&opts);
    }
    fprintf(stderr, "xconv: unknown command '%s'\n\n", argv[1]);
    print_usage(stderr);
    return CLI_USAGE;
}
