// SPDX-License-Identifier: MIT
// xconv's command-line entry point: the subcommand table and the top-level help.
#include <stdbool.h>
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
     "[--dtype T] [--math M] | bench --fft LHxLW[:BATCH],...|standard",
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
    {"explain", cmd_explain,
     "explain --shape SPEC | --shapes FILE [--variant V|auto] [--device D]",
     "show the plan chosen for a shape on a device"},
    {"compile", cmd_compile,
     "compile [--suite NAME | --shape SPEC | --shapes FILE ...] [--variant V ...] "
     "[--target NAME ...] [--jobs N] [--json FILE] [--csv FILE] | --list-targets",
     "every variant's plans for target GPUs compiled by their vendors' compilers: registers, "
     "spills, occupancy"},
    {"find", cmd_find,
     "find [--suite NAME | --shape SPEC | --shapes FILE ...] [--device D ...] "
     "[--mode fast|normal|exhaustive] [--force] | --list | --clear | --clear-kernels",
     "time the variants for shapes and keep the fastest in the find-db, for auto"},
    {"precompile", cmd_precompile,
     "precompile [--suite NAME | --shape SPEC | --shapes FILE ...] [--variant V ...] "
     "[--device D ... | --target sm_90] [--build-threads N] [--export BUNDLE] | --import BUNDLE "
     "[--device D ... | --target sm_90]",
     "build the programs of shapes into the cache ahead of time; move them as one bundle file"},
};

// The environment variables the CLI maps onto the library's options, each with the commands
// that read it (a command's --help lists only its own).
typedef struct environment_entry {
    const char *commands;  // space-separated
    const char *help;
} environment_entry;

#define PLANNING "run validate bench matrix behaviour explain find"

static const environment_entry environment[] = {
    {"devices " PLANNING " peaks", "  XCONV_DEVICE       the device when --device is not given\n"},
    {PLANNING, "  XCONV_DIRECT_PLAN  forces the direct family's tiling (docs/guide/cli.md)\n"},
    {PLANNING, "  XCONV_GEMM_TILES   forces the GEMM tiles TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]\n"
               "                     (docs/guide/cli.md)\n"},
    {PLANNING, "  XCONV_GEMM_SPLIT   forces the GEMM family's split-K: 1 none, 2..16 K slices\n"},
    {PLANNING, "  XCONV_GEMM_CHUNK   caps the images per im2col pass\n"},
    {PLANNING, "  XCONV_WINO_CHUNK   caps the images per pass of the non-fused Winograd "
               "variants\n"},
    {PLANNING, "  XCONV_WINO_FUSED   forces the fused Winograd block TB,KB,CC,WT,WK[,VEC]\n"},
    {PLANNING, "  XCONV_FFT_TILE     forces the FFT family's transform size L or HxW\n"
               "                     (docs/guide/fft-family.md)\n"},
    {PLANNING, "  XCONV_FFT_CHUNK    caps the images per FFT pass\n"},
    {PLANNING, "  XCONV_FFT_PLANES   forces the planes per work-group of the FFT transforms: 2, 4, "
               "8\n"},
    {PLANNING, "  XCONV_FFT_GEMM     forces the FFT channel sum's tiles TM,TN,TK,WM,WN\n"
               "                     (docs/guide/fft-family.md)\n"},
    {PLANNING, "  XCONV_MMA_PIPELINE implicit_mma's pipeline: 0 the planner's, 1 registers, 2 packed\n"
               "                     operands through a cp.async ring, 3 as 2 with B read from x\n"
               "                     (1x1, stride 1, unpadded)\n"},
    {PLANNING, "  XCONV_MMA_TILES    forces implicit_mma's tiles TM,TN,TK,WM,WN[,STAGES]\n"
               "                     (docs/guide/cli.md)\n"},
    {PLANNING, "  XCONV_MMA_SPLIT    forces implicit_mma's split-K (packed pipeline): 1 none,\n"
               "                     2..16 K slices\n"},
    {"run validate bench matrix explain report peaks",
     "  XCONV_PEAKS        [DEV=]GFLOPS,GBPS[;...]: peaks for floors, over xconv peaks' "
     "measurements\n"},
    {"bench matrix peaks find",
     "  XCONV_TIMING_DELAY how timed regions start: auto (a delay on GPUs), 0 or off (a plain\n"
     "                     mark), 1 or on (the delay on CPU devices too)\n"},
    {"run validate bench matrix explain find",
     "  XCONV_CACHE_DIR    the cache of compiled kernels and the find-db (default\n"
     "                     $XDG_CACHE_HOME/xconv, else ~/.cache/xconv; none: no cache)\n"},
};

// Returns true when the space-separated list holds command.
static bool lists(const char *list, const char *command)
{
    size_t n = strlen(command);
    for (const char *p = list; (p = strstr(p, command)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

// Prints the environment variables command reads, under a heading; nothing when it reads none.
static void print_environment(const char *command)
{
    bool any = false;
    for (size_t i = 0; i < sizeof environment / sizeof environment[0]; i++) {
        if (!lists(environment[i].commands, command))
            continue;
        if (!any)
            printf("\nEnvironment:\n");
        any = true;
        fputs(environment[i].help, stdout);
    }
}

// Prints cmd's help: its usage, what it does, its options and the environment it reads.
static void print_command_help(const command *cmd)
{
    printf("Usage: xconv %s\n\n%s.\n\nOptions:\n", cmd->usage, cmd->help);
    cli_print_options(cmd->name);
    print_environment(cmd->name);
}

// Returns the command named name, or NULL.
static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

// Returns true when command `name` plans convolutions, so reads the forcing variables.
static bool reads_forcing(const char *name)
{
    static const char *const others[] = {"devices", "variants", "peaks", "report"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (strcmp(name, others[i]) == 0)
            return false;
    return true;
}

static void print_usage(FILE *f)
{
    fprintf(f, "xconv %s: 2-D convolution kernels written once, run through OpenCL and CUDA, "
               "checked and timed.\n\nUsage: xconv COMMAND [OPTIONS]\n\nCommands:\n",
            XCONV_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'xconv COMMAND --help' or 'xconv help COMMAND' lists a command's "
               "options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_USAGE;
    }
    bool help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help");
    if (help && argc > 2) {  // xconv help COMMAND
        const command *cmd = find_command(argv[2]);
        if (!cmd) {
            fprintf(stderr, "xconv: unknown command '%s'\n\n", argv[2]);
            print_usage(stderr);
            return CLI_USAGE;
        }
        print_command_help(cmd);
        return CLI_OK;
    }
    if (help) {
        print_usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("xconv %s (%s)\n", XCONV_VERSION, xconv_git_commit());
        return CLI_OK;
    }
    const command *cmd = find_command(argv[1]);
    if (!cmd) {
        fprintf(stderr, "xconv: unknown command '%s'\n\n", argv[1]);
        print_usage(stderr);
        return CLI_USAGE;
    }
    cli_set_command(cmd->name);
    cli_options opts;
    int rc = cli_parse(argc, argv, cmd->name, &opts);
    if (rc)
        return rc;
    if (opts.help) {
        print_command_help(cmd);
        return CLI_OK;
    }
    if ((rc = cli_set_bake_batch(opts.bake_batch)) || (rc = cli_set_bake_dims(opts.bake_dims)))
        return rc;
    xconv_plan_options forced;  // a forcing variable it does not take: refused before work
    if (reads_forcing(cmd->name) && (rc = cli_plan_options(&forced)))
        return rc;
    return cmd->run(&opts);
}
