// SPDX-License-Identifier: MIT
// Option parsing for the CLI: a table of flags, which commands take them, and their help.
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "output.h"

typedef enum { ARG_NONE, ARG_STRING, ARG_LIST, ARG_INT, ARG_U64, ARG_DOUBLE } arg_type;

typedef struct flag {
    const char *name;
    const char *commands;  // space-separated commands that take it
    arg_type type;
    size_t offset;         // of the field in cli_options
    size_t count_offset;   // ARG_LIST: of the count field
    const char *help;
} flag;

#define FIELD(f) offsetof(cli_options, f)

static const flag flags[] = {
    {"--shape", "run validate bench explain find matrix behaviour compile precompile", ARG_LIST,
     FIELD(shapes),
     FIELD(nshapes),
     "SPEC    a shape, e.g. n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3, or a benchdnn "
     "descriptor such as mb32ic3ih224oc64oh112kh7sh2ph3 (repeatable)"},
    {"--shapes", "run validate bench explain report find matrix behaviour compile precompile",
     ARG_LIST, FIELD(shape_files),
     FIELD(nshape_files),
     "FILE    shapes from a file, one a line: SPEC or benchdnn descriptor, name= and weight= "
     "(docs/shapes.md; repeatable)"},
    {"--suite", "validate bench find behaviour compile precompile", ARG_LIST, FIELD(suites),
     FIELD(nsuites),
     "NAME    a suite of shapes: small, standard or epilogue (repeatable)"},
    {"--suite", "matrix", ARG_LIST, FIELD(suites), FIELD(nsuites),
     "NAME    a suite of shapes: small, standard or epilogue (repeatable; default standard when "
     "no shapes are given)"},
    {"--random", "validate bench find matrix behaviour precompile", ARG_INT, FIELD(random), 0,
     "N       N random small shapes rand0..randN-1, drawn from --seed (docs/shapes.md)"},
    {"--variant", "validate bench precompile", ARG_LIST, FIELD(variants), FIELD(nvariants),
     "NAME    a variant, or auto (repeatable or comma-separated; default: auto and all that "
     "apply)"},
    {"--variant", "matrix", ARG_LIST, FIELD(variants), FIELD(nvariants),
     "NAME    a variant (repeatable or comma-separated; default: every variant of the device's "
     "backend, vendor peers included)"},
    {"--variant", "behaviour", ARG_LIST, FIELD(variants), FIELD(nvariants),
     "NAME    a variant (repeatable or comma-separated; default: all that apply)"},
    {"--family", "matrix", ARG_LIST, FIELD(families), FIELD(nfamilies),
     "NAME    the variants of a family (direct, gemm, peer, ...: see xconv variants; "
     "repeatable or comma-separated)"},
    {"--variant", "run", ARG_LIST, FIELD(variants), FIELD(nvariants),
     "NAME    the variant (see xconv variants), or auto for the library's choice (the "
     "default)"},
    {"--variant", "compile", ARG_LIST, FIELD(variants), FIELD(nvariants),
     "NAME    a variant, or auto for the variant auto picks for each shape on each target "
     "(repeatable or comma-separated; default: every variant with kernels)"},
    {"--variant", "explain", ARG_LIST, FIELD(variants), FIELD(nvariants),
     "NAME    a variant, or auto for the library's choice (the default; repeatable or "
     "comma-separated)"},
    {"--device", "devices run validate bench explain find matrix peaks precompile", ARG_LIST,
     FIELD(devices),
     FIELD(ndevices),
     "SEL     0, opencl:1, cuda:0, a name substring or all (repeatable; default $XCONV_DEVICE, "
     "else the first GPU, else the first CPU)"},
    {"--device", "behaviour", ARG_LIST, FIELD(devices), FIELD(ndevices),
     "SEL     a stack: 0, opencl:1, cuda:0 or a name substring (repeatable), or all: every "
     "device (default $XCONV_DEVICE, else the first GPU, else the first CPU)"},
    {"--target", "explain", ARG_LIST, FIELD(targets), FIELD(ntargets),
     "NAME    plan for a target profile instead of a device: gfx90a, gfx1030, dg2, pvc, "
     "sm_90 (repeatable or comma-separated; xconv devices --targets lists them)"},
    {"--target", "compile", ARG_LIST, FIELD(targets), FIELD(ntargets),
     "NAME    a target profile (repeatable or comma-separated; default gfx90a, gfx1030, dg2, "
     "pvc and, with NVRTC, sm_90)"},
    {"--target", "precompile", ARG_LIST, FIELD(targets), FIELD(ntargets),
     "NAME    a CUDA target profile (sm_90) instead of a device: its kernels compiled through "
     "NVRTC without a GPU, for --export to bundle them for its devices"},
    {"--targets", "devices", ARG_NONE, FIELD(list_targets), 0,
     "        list the target profiles (GPUs described from their vendors' documents)"},
    {"--list-targets", "compile", ARG_NONE, FIELD(list_targets), 0,
     "        list the target profiles and whether their compilers are installed"},
    {"--jobs", "compile", ARG_INT, FIELD(jobs), 0,
     "N       compilers run at once (default 2)"},
    {"--input", "run", ARG_STRING, FIELD(input), 0,
     "X.npy   input, NCHW: float32, float16 ('<f2': dtype=f16) or bfloat16 bits ('<u2')"},
    {"--weights", "run", ARG_STRING, FIELD(weights), 0,
     "W.npy   weights, KCRS, in the same types"},
    {"--bias", "run", ARG_STRING, FIELD(bias), 0,
     "B.npy   the bias, float32 (K,); sets bias=1 (random when the shape has bias=1 and none "
     "is given)"},
    {"--output", "run", ARG_STRING, FIELD(output), 0,
     "Y.npy   write the output here, in the problem's dtype"},
    {"--epilogue", "run explain", ARG_STRING, FIELD(epilogue), 0,
     "MODE    auto (fused where the variant can, default), fused (or not applicable) or "
     "unfused (the convolution, then bias+activation and max-pool steps)"},
    {"--epilogue", "validate bench", ARG_STRING, FIELD(epilogue), 0,
     "MODE    auto (default), fused, unfused (rows named VARIANT+unfused) or both (each "
     "variant that fuses, then its +unfused row)"},
    {"--random-epilogue", "validate bench", ARG_NONE, FIELD(random_epilogue), 0,
     "        give each --random shape a random epilogue (bias, activation, pool)"},
    {"--dtype", "validate bench explain find", ARG_STRING, FIELD(dtype), 0,
     "NAME    storage of x, w and y for every shape: f32 (default), f16 or bf16 (the SPEC's "
     "dtype=; docs/guide/precision.md)"},
    {"--math", "validate bench explain find", ARG_STRING, FIELD(math), 0,
     "NAME    math mode for every shape: f32 (strict, default), tf32, f16 or bf16 (the "
     "SPEC's math=)"},
    {"--seed", "run validate bench find matrix behaviour", ARG_U64, FIELD(seed), 0,
     "N       seed of the random inputs and --random shapes (default 1)"},
    {"--gemm", "bench", ARG_STRING, FIELD(gemm), 0,
     "M,N,K   time our SGEMM beside the vendor's on C(MxN) = A(MxK) B(KxN); 'standard': the "
     "standard suite's GEMM sizes, 4096^3 and 8192^3; with --dtype and --math, A and B in that "
     "type and the products in that mode (implicit_mma beside cuBLAS's tensor-core GEMM)"},
    {"--pitfall", "bench", ARG_STRING, FIELD(pitfall), 0,
     "MODE    time the wrong way on purpose (docs/teaching/timing.md): first-run, no-sync, "
     "host-sync or mean; records say so in their note"},
    {"--fft", "bench", ARG_STRING, FIELD(fft), 0,
     "SIZES   time our 2-D R2C and C2R beside VkFFT's: LHxLW[:BATCH] separated by commas; "
     "'standard': the transform sizes our planner picks for the standard suite"},
    {"--repeat", "bench validate", ARG_INT, FIELD(repeat), 0,
     "N       timed runs (default 20; validate times only with --parity)"},
    {"--repeat", "find", ARG_INT, FIELD(repeat), 0, "N       timed runs a candidate (default 10)"},
    {"--repeat", "matrix", ARG_INT, FIELD(repeat), 0,
     "N       timed runs of each cell (default 20)"},
    {"--repeat", "peaks", ARG_INT, FIELD(repeat), 0,
     "N       timed runs of each micro-kernel (default 20)"},
    {"--warmup", "bench validate find matrix", ARG_INT, FIELD(warmup), 0,
     "N       untimed runs first (default 2)"},
    {"--parity", "validate", ARG_NONE, FIELD(parity), 0,
     "        each variant through OpenCL and CUDA on one GPU: bitwise identical? ULPs, time "
     "ratio"},
    {"--host-ref-gflop", "validate bench find matrix", ARG_DOUBLE, FIELD(host_ref_gflop), 0,
     "G       full float64 host reference up to G GFLOP (default 1), else the device path"},
    {"--host-ref-gflop", "behaviour", ARG_DOUBLE, FIELD(host_ref_gflop), 0,
     "G       shapes up to G GFLOP (default 1): each is checked against the float64 host "
     "reference"},
    {"--json", "compile", ARG_STRING, FIELD(json), 0,
     "FILE    write the records as JSON (-: standard output, the table then goes to stderr)"},
    {"--csv", "compile", ARG_STRING, FIELD(csv), 0,
     "FILE    write the records as CSV (-: standard output)"},
    {"--json", "validate bench", ARG_STRING, FIELD(json), 0,
     "FILE    write the records as JSON, valid after every record (-: standard output, the "
     "table then goes to stderr)"},
    {"--json", "find", ARG_STRING, FIELD(json), 0,
     "FILE    write the records as JSON when the search ends (-: standard output)"},
    {"--json", "matrix", ARG_STRING, FIELD(json), 0,
     "FILE    write the records as JSON (docs/matrix_schema.md), each as it finishes"},
    {"--json", "behaviour", ARG_STRING, FIELD(json), 0,
     "FILE    write the report as JSON (docs/behaviour.md)"},
    {"--json", "devices", ARG_NONE, FIELD(json_stdout), 0, "        print JSON"},
    {"--csv", "validate bench", ARG_STRING, FIELD(csv), 0,
     "FILE    write the records as CSV, a row as each finishes (-: standard output)"},
    {"--csv", "find", ARG_STRING, FIELD(csv), 0,
     "FILE    write the records as CSV when the search ends (-: standard output)"},
    {"--csv", "matrix", ARG_STRING, FIELD(csv), 0,
     "FILE    write the records as CSV, each as it finishes"},
    {"--peaks-file", "bench explain matrix report peaks", ARG_STRING, FIELD(peaks_file), 0,
     "FILE    the measured peaks (default $XDG_CACHE_HOME/xconv/peaks.json, else "
     "~/.cache/xconv/peaks.json)"},
    {"--build-threads", "validate bench find matrix precompile", ARG_INT, FIELD(build_threads), 0,
     "N       build the run's programs ahead on N threads before any case runs (default: the "
     "host's cores; 0: each when its case runs)"},
    {"--export", "precompile", ARG_STRING, FIELD(export_path), 0,
     "FILE    write the cache's compiled kernels of the --device devices (or --target "
     "profiles) into one bundle file"},
    {"--import", "precompile", ARG_STRING, FIELD(import), 0,
     "FILE    check a bundle file whole and store its kernels in the cache (a damaged, stale "
     "or foreign bundle is refused, nothing stored)"},
    {"--verbose", "run validate bench find matrix", ARG_NONE, FIELD(verbose), 0,
     "        print the plan and progress"},
    {"--all", "validate bench", ARG_NONE, FIELD(all), 0,
     "        list the variants that do not apply as rows with the reason (default: one line "
     "a shape names them)"},
    {"-o", "report", ARG_STRING, FIELD(output), 0, "FILE    write the report page (HTML)"},
    {"--output", "report", ARG_STRING, FIELD(output), 0, "FILE    the same as -o"},
    {"--svg", "report", ARG_STRING, FIELD(svg_dir), 0,
     "DIR     write the pictures alone as SVG files into DIR (made when missing)"},
    {"--compare", "report", ARG_STRING, FIELD(compare), 0,
     "BASE    compare the one results file given with BASE.json; exit 1 on a regression"},
    {"--margin", "report", ARG_DOUBLE, FIELD(margin), 0,
     "PCT     how far beyond the base's slowest time a regression starts (default 5)"},
    {"--peaks", "report", ARG_LIST, FIELD(peaks), FIELD(npeaks),
     "[DEV=]G,B  fp32 GFLOP/s and GB/s of devices whose file has no peaks (DEV: a name "
     "substring; repeatable)"},
    {"--bake-batch", "run validate bench explain find matrix compile precompile", ARG_STRING,
     FIELD(bake_batch), 0,
     "on|off  on: compile the batch size into every program; off: pass it as an argument, so "
     "that the batches of a shape share programs (some kernels run slower); default: each "
     "variant's (off where it costs under 2%)"},
    {"--bake-dims", "run validate bench explain find matrix compile precompile", ARG_STRING,
     FIELD(bake_dims), 0,
     "on|off  off: pass the sizes C, H, W, K, P, Q (and N) to the GEMMs of implicit_gemm, "
     "implicit_precomp and gemm_1x1 as arguments, so that layers planned with the same tiles "
     "share programs; "
     "on (the default): compile them in (env XCONV_BAKE_DIMS)"},
    {"--find", "validate bench explain matrix", ARG_STRING, FIELD(find_policy), 0,
     "POLICY  what auto reads: db (the default: records made under this driver, xconv and "
     "kernels), trust (stale records too), off (the rules only)"},
    {"--find", "run", ARG_STRING, FIELD(find_policy), 0,
     "POLICY  as for bench (db, trust, off), or normal / exhaustive: find the shape first "
     "when the find-db has no fresh record of it"},
    {"--find", "find", ARG_STRING, FIELD(find_policy), 0,
     "POLICY  db (the default: stale records are re-timed) or trust (reported, kept)"},
    {"--mode", "find", ARG_STRING, FIELD(find_mode), 0,
     "MODE    fast (what auto chooses now, nothing timed), normal (time every variant; the "
     "default) or exhaustive (and tune the fastest)"},
    {"--budget", "find", ARG_DOUBLE, FIELD(budget), 0,
     "S       exhaustive: at most S seconds of tuning a shape (default 60)"},
    {"--confirm", "find", ARG_INT, FIELD(confirm), 0,
     "N       time the contenders again in N rounds, interleaved, and rank them by the median "
     "of their times (default 2; 0: rank by the first timing)"},
    {"--confirm-within", "find", ARG_DOUBLE, FIELD(confirm_within), 0,
     "F       the contenders: the variants within F times the fastest (default 1.25)"},
    {"--force", "find", ARG_NONE, FIELD(force), 0,
     "        re-time shapes whose record is fresh too"},
    {"--list", "find", ARG_NONE, FIELD(list), 0,
     "        list the find-db's records (fresh or stale for the devices present)"},
    {"--clear", "find", ARG_NONE, FIELD(clear), 0,
     "        remove the find-db's records (with --device: that device's only)"},
    {"--clear-kernels", "find", ARG_NONE, FIELD(clear_kernels), 0,
     "        remove the compiled kernels kept on disk"},
    {"--help",
     "devices variants run validate bench explain report find matrix peaks behaviour compile "
     "precompile",
     ARG_NONE, FIELD(help), 0, "        this help"},
};

static bool takes(const flag *f, const char *command)
{
    size_t n = strlen(command);
    for (const char *p = f->commands; (p = strstr(p, command)); p += n)
        if ((p == f->commands || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

void cli_print_options(const char *command)
{
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (takes(&flags[i], command))
            printf("  %-16s %s\n", flags[i].name, flags[i].help);
}

// Stores one value; returns 0 or 2 after a message.
static int store(const flag *f, const char *value, cli_options *opts)
{
    char *base = (char *)opts;
    char *end = NULL;
    errno = 0;
    switch (f->type) {
    case ARG_NONE:
        *(bool *)(base + f->offset) = true;
        return 0;
    case ARG_STRING:
        *(const char **)(base + f->offset) = value;
        return 0;
    case ARG_LIST: {
        int *count = (int *)(base + f->count_offset);
        const char **list = (const char **)(base + f->offset);
        if (*count == CLI_MAX_LIST) {
            fprintf(stderr, "xconv %s: too many %s options (at most %d)\n", opts->command,
                    f->name, CLI_MAX_LIST);
            return 2;
        }
        list[(*count)++] = value;
        return 0;
    }
    case ARG_INT: {
        long v = strtol(value, &end, 10);
        if (errno || *end || end == value || v < 0 || v > 1000000)
            break;
        *(int *)(base + f->offset) = (int)v;
        return 0;
    }
    case ARG_U64: {  // at most INT64_MAX: results files hold it as a JSON integer, read as int64
        if (*value == '-')
            break;
        unsigned long long v = strtoull(value, &end, 10);
        if (errno || *end || end == value || v > INT64_MAX)
            break;
        *(uint64_t *)(base + f->offset) = v;
        opts->seed_given = true;
        return 0;
    }
    case ARG_DOUBLE: {
        double v = strtod(value, &end);
        if (errno || *end || end == value || !(v >= 0))
            break;
        *(double *)(base + f->offset) = v;
        return 0;
    }
    }
    fprintf(stderr, "xconv %s: bad value '%s' for %s\n", opts->command, value, f->name);
    return 2;
}

// ---------------------------------------------------------------------------------------------
// Paths: no output may be an input or another output

// A path an option names, and the option.
typedef struct named_path {
    const char *option, *path;
} named_path;

// Fills in[] and out[] (CLI_MAX_LIST + 8 entries each) with the files opts reads and writes;
// returns their counts in *nin and *nout.
static void collect_paths(const cli_options *opts, named_path *in, int *nin, named_path *out,
                          int *nout)
{
    bool peaks_out = strcmp(opts->command, "peaks") == 0;
    named_path outs[] = {{"--json", opts->json}, {"--csv", opts->csv},
                         {strcmp(opts->command, "report") == 0 ? "-o" : "--output", opts->output},
                         {"--peaks-file", peaks_out ? opts->peaks_file : NULL}};
    named_path ins[] = {{"--input", opts->input}, {"--weights", opts->weights},
                        {"--bias", opts->bias}, {"--compare", opts->compare},
                        {"--peaks-file", peaks_out ? NULL : opts->peaks_file}};
    *nin = *nout = 0;
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        if (outs[i].path)
            out[(*nout)++] = outs[i];
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++)
        if (ins[i].path)
            in[(*nin)++] = ins[i];
    for (int i = 0; i < opts->nfiles && *nin < CLI_MAX_LIST + 8; i++)
        in[(*nin)++] = (named_path){"a results file", opts->files[i]};
    for (int i = 0; i < opts->nshape_files && *nin < CLI_MAX_LIST + 8; i++)
        in[(*nin)++] = (named_path){"--shapes", opts->shape_files[i]};
}

// Refuses an output that is one of the command's inputs or another of its outputs, before any
// work. Returns 0, or 2 (bad usage) after a message.
static int check_paths(const cli_options *opts)
{
    named_path in[CLI_MAX_LIST + 8], out[8];
    int nin, nout;
    collect_paths(opts, in, &nin, out, &nout);
    for (int o = 0; o < nout; o++) {
        for (int i = 0; i < nin; i++)
            if (cli_same_file(out[o].path, in[i].path)) {
                fprintf(stderr, "xconv %s: %s %s is also %s: xconv does not overwrite its "
                        "input\n", opts->command, out[o].option, out[o].path, in[i].option);
                return 2;
            }
        for (int j = 0; j < o; j++)
            if (cli_same_file(out[o].path, out[j].path)) {
                fprintf(stderr, "xconv %s: %s %s is also %s: give each output its own file\n",
                        opts->command, out[o].option, out[o].path, out[j].option);
                return 2;
            }
    }
    return 0;
}

int cli_parse(int argc, char **argv, const char *command, cli_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->command = command;
    opts->argc = argc;
    opts->argv = argv;
    opts->seed = 1;
    opts->repeat = strcmp(command, "find") == 0 ? 10 : 20;
    opts->warmup = 2;
    opts->host_ref_gflop = 1.0;
    opts->margin = 5.0;
    opts->budget = 60.0;
    opts->confirm = 2;
    opts->confirm_within = 1.25;
    opts->build_threads = -1;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' && strcmp(command, "report") == 0) {  // report's results files
            if (opts->nfiles == CLI_MAX_LIST) {
                fprintf(stderr, "xconv %s: too many files (at most %d)\n", command, CLI_MAX_LIST);
                return 2;
            }
            opts->files[opts->nfiles++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq && strncmp(arg, "--", 2) == 0 ? (size_t)(eq - arg) : strlen(arg);
        const flag *f = NULL;
        bool known = false;
        for (size_t j = 0; j < sizeof flags / sizeof flags[0]; j++) {
            if (strlen(flags[j].name) != name_len || strncmp(flags[j].name, arg, name_len))
                continue;
            known = true;
            if (takes(&flags[j], command))
                f = &flags[j];
        }
        if (!f) {
            if (known)
                fprintf(stderr, "xconv %s: option '%.*s' does not apply to this command\n",
                        command, (int)name_len, arg);
            else
                fprintf(stderr, "xconv %s: unknown option '%s' (see xconv %s --help)\n",
                        command, arg, command);
            return 2;
        }
        const char *value = NULL;
        if (f->type == ARG_NONE) {
            if (eq && arg[name_len] == '=') {
                fprintf(stderr, "xconv %s: %s takes no value\n", command, f->name);
                return 2;
            }
        } else if (arg[name_len] == '=') {
            value = arg + name_len + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            fprintf(stderr, "xconv %s: %s needs a value\n", command, f->name);
            return 2;
        }
        if (value && !*value) {
            fprintf(stderr, "xconv %s: %s has an empty value\n", command, f->name);
            return 2;
        }
        int rc = store(f, value, opts);
        if (rc)
            return rc;
    }
    return check_paths(opts);
}
