// SPDX-License-Identifier: MIT
// What the CLI's commands share: the command entry points and selection helpers.
#ifndef XCONV_CLI_H
#define XCONV_CLI_H

#include <stdio.h>

#include <xconv/xconv.h>

#include "report/peaks_file.h"
#include "report/record.h"
#include "report/report.h"
#include "options.h"

// Exit codes: 0 success, 1 a check failed or a run errored, 2 bad usage or input.
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

int cmd_devices(const cli_options *opts);
int cmd_variants(const cli_options *opts);
int cmd_run(const cli_options *opts);
int cmd_validate(const cli_options *opts);    // cli/cmd_validate_bench.c
int cmd_bench(const cli_options *opts);       // cli/cmd_validate_bench.c
int cmd_bench_gemm(const cli_options *opts);  // bench --gemm (cli/cmd_gemm.c), no shapes
int cmd_bench_fft(const cli_options *opts);   // bench --fft (cli/cmd_fft.c), no shapes
int cmd_explain(const cli_options *opts);
int cmd_parity(const cli_options *opts);
int cmd_report(const cli_options *opts);
int cmd_find(const cli_options *opts);
int cmd_matrix(const cli_options *opts);      // cli/cmd_matrix.c
int cmd_peaks(const cli_options *opts);       // cli/cmd_peaks.c
int cmd_behaviour(const cli_options *opts);  // cli/cmd_behaviour.c
int cmd_compile(const cli_options *opts);    // cli/cmd_compile.c

// Collects --target names (comma lists split) into targets; returns 0 or CLI_USAGE after
// printing the valid names (cli/cmd_compile.c).
int cli_collect_targets(const cli_options *opts, const xconv_target **targets, int *count);

// Prints the target profiles and their limits (with_compilers: whether each one's compiler is
// installed).
void cli_print_targets(FILE *f, bool with_compilers);
int cmd_precompile(const cli_options *opts); // cli/cmd_precompile.c

// A shape to run: its suite name ("" for --shape) and problem.
typedef struct cli_shape {
    char name[XCONV_SHAPE_NAME_MAX];  // "" for a --shape SPEC
    xconv_problem problem;
    double weight;  // how often it occurs in its network (--shapes files), else 1
    char set[64];   // where it came from: the suite, the shape file's name, "--shape", "random"
    bool from_file; // it came from a --shapes file (a network whose weights add up)
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
// family's tiling), XCONV_GEMM_TILES (GEMM tiles), XCONV_GEMM_SPLIT (the GEMM family's split-K),
// XCONV_GEMM_CHUNK (images per im2col pass), XCONV_WINO_CHUNK and XCONV_WINO_FUSED (the
// Winograd family's), XCONV_FFT_TILE (the FFT transform size), XCONV_FFT_CHUNK (images per
// FFT pass), XCONV_FFT_PLANES (planes per work-group of the FFT transforms), XCONV_FFT_GEMM (the
// FFT channel sum's tiles), XCONV_MMA_PIPELINE,
// XCONV_MMA_TILES and XCONV_MMA_SPLIT (implicit_mma's pipeline, tiles and split-K). Each is read
// strictly: a variable set to text it does not take ("", "2abc", "8y8")
// returns CLI_USAGE after one line naming it; else 0. main() checks them before any command
// that plans runs, so the commands' own calls cannot fail.
int cli_plan_options(xconv_plan_options *plan);

// Takes --bake-batch (on or off; NULL: the library's default) for every later
// cli_plan_options. Returns 0, or CLI_USAGE after printing the values it takes.
int cli_set_bake_batch(const char *value);
// --bake-dims on|off, or when value is NULL the environment's XCONV_BAKE_DIMS (the same
// words); returns 0 or CLI_USAGE after saying what is wrong.
int cli_set_bake_dims(const char *value);
// The word ("on", "off") that --bake-batch and --bake-dims (or XCONV_BAKE_DIMS) set, NULL where
// neither was given: for the helper processes, which take the same planning.
const char *cli_bake_batch_word(void);
const char *cli_bake_dims_word(void);

// Sets plan->epilogue from --epilogue (auto, fused, unfused; with allow_both also "both", which
// sets *both and auto). Returns 0, or CLI_USAGE after printing the valid modes.
int cli_epilogue_mode(const cli_options *opts, bool allow_both, xconv_plan_options *plan,
                      bool *both);

// Reads the one shape of shape file path into *p (every key counted as given in *seen).
// Returns 0 or CLI_USAGE after printing why (unreadable, bad, or more than one shape).
int cli_shape_from_file(const char *path, xconv_problem *p, unsigned *seen);

// Parses --shape's text: xconv's SPEC, or a benchdnn descriptor (text without '='), whose
// n"NAME" goes into name (len bytes; "" when it names none). Returns 0 or CLI_USAGE after a
// message.
int cli_shape_arg(const char *text, xconv_problem *p, char *name, size_t len);

// Lists devices into a new *devices (free it with xconv_devices_free, also after a failure) and
// resolves --device selectors (none: the default device; "all": every device) into indices of
// it, each device once. Returns 0 or CLI_USAGE/CLI_FAILED after printing why.
int cli_select_devices(const cli_options *opts, xconv_devices **devices, int *indices,
                       int *count);

// Copies device info's identity, as the peaks file and the matrix's devices keep it (name,
// backend, driver, platform), into the same-named strings of *dst.
#define CLI_COPY_IDENTITY(dst, info)                                                        \
    do {                                                                                    \
        snprintf((dst)->name, sizeof (dst)->name, "%s", (info)->name);                      \
        snprintf((dst)->backend, sizeof (dst)->backend, "%s",                               \
                 xconv_backend_name((info)->backend));                                      \
        snprintf((dst)->driver, sizeof (dst)->driver, "%s", (info)->driver);                \
        snprintf((dst)->platform, sizeof (dst)->platform, "%s", (info)->platform);          \
    } while (0)

// Opens the device info describes, as xconv_device_open_info does, with the timed regions'
// start that XCONV_TIMING_DELAY asks for (unset or auto: the library's default; 0 or off; 1 or
// on: xconv_timing_delay). Returns NULL with err filled when the variable holds other text.
xconv_device *cli_device_open_info(const xconv_device_info *info, xconv_error *err);

// Opens the device at index of list. Returns it, or NULL after printing why (naming the device).
xconv_device *cli_open_device(const xconv_devices *list, int index);

// ---------------------------------------------------------------------------------------------
// Measuring into records (case_record.c)

// Runs variant v (NULL: "auto") on case c (<xconv/measure.h>) and writes its result into *rec,
// cleared first (no floor, no comparison); returns what xconv_case_run returns.
xconv_status cli_case_run(xconv_case *c, const xconv_variant *v, xconv_record *rec,
                          xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Peaks for floors (cli/peaks.c): XCONV_PEAKS, else the peaks file of `xconv peaks`

// A device's peaks and where they came from.
typedef struct cli_peaks {
    double gflops, gbps, gbps_read;  // 0 when unknown
    double mma_gflops[4];            // tensor cores per xconv_math (1..3); 0 when unknown
    char source[32];                 // "XCONV_PEAKS", "measured" or "" (unknown)
} cli_peaks;

// What floors are drawn from: XCONV_PEAKS's entries and the peaks file.
typedef struct cli_peaks_source {
    char path[4096];                      // the peaks file ("" when none can be named)
    xconv_peaks_file file;                // its entries (none when it does not exist)
    xconv_report_peaks env[CLI_MAX_LIST]; // XCONV_PEAKS="[DEV=]GFLOPS,GBPS;..." in order
    int nenv;
} cli_peaks_source;

// Writes the peaks file's path into buf (len bytes): --peaks-file, else
// $XDG_CACHE_HOME/xconv/peaks.json, else $HOME/.cache/xconv/peaks.json; "" when none is set.
void cli_peaks_path(const cli_options *opts, char *buf, size_t len);

// Reads XCONV_PEAKS and the peaks file into *src. Returns 0, or CLI_USAGE after printing why
// (a malformed XCONV_PEAKS or peaks file).
int cli_peaks_open(const cli_options *opts, cli_peaks_source *src);

// Fills *out with the peaks of the device info describes: the first XCONV_PEAKS entry whose
// DEV is in its label, platform, vendor or version (case-insensitive, as --device matches), else
// the peaks file's entry of its name, backend and driver, else unknown.
void cli_peaks_lookup(const cli_peaks_source *src, const xconv_device_info *info,
                      cli_peaks *out);

// Frees what src holds.
void cli_peaks_close(cli_peaks_source *src);

// Returns the compute peak a floor of a problem in math mode `math` uses: the fp32 FMA figure
// for strict fp32, the tensor cores' figure of that mode for tf32, f16 and bf16 (0 when it is
// unknown: no floor, rather than one drawn from the fp32 figure).
double cli_peaks_gflops(const cli_peaks *peaks, int64_t math);

// Prints the plan of variant `name` (or "auto", with what it chose and why) for p on dev under
// opts: steps with their defines and geometry, workspace regions, what it fuses of an epilogue,
// FLOPs, bytes and the floor at peaks (NULL: unknown).
void cli_print_plan(xconv_device *dev, const char *name, const xconv_problem *p,
                    const xconv_plan_options *opts, const cli_peaks *peaks);

// The same for a plan already made of variant `name` for p on dev (NULL: its creation failed
// with err, which is printed).
void cli_print_plan_made(xconv_device *dev, const char *name, const xconv_problem *p,
                         const xconv_plan *plan, const xconv_error *err,
                         const cli_peaks *peaks);

// ---------------------------------------------------------------------------------------------
// Messages (cli/message.c): everything the CLI says on stderr is "xconv COMMAND: message".

// Names the command running, for the messages' prefix (main sets it once).
void cli_set_command(const char *name);

// Prints "xconv COMMAND: " and the printf-style message, with a newline, on stderr.
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

// Prints a library error as "xconv COMMAND: CONTEXT: message"; the context is left out when
// the message names it already (NULL: none).
void cli_print_error(const char *context, const xconv_error *err);

// stderr held in a temporary file while a vendor library runs (cli/stderr_hold.c).
typedef struct cli_stderr_hold {
    int saved;   // the real stderr's descriptor, -1 when not holding
    FILE *file;  // what was written meanwhile
} cli_stderr_hold;

// Points stderr at a temporary file; returns false (stderr untouched) when it cannot.
bool cli_stderr_hold_begin(cli_stderr_hold *h);

// Points stderr back and copies what was written meanwhile into text (len bytes, cut there).
void cli_stderr_hold_end(cli_stderr_hold *h, char *text, size_t len);

// Says each line of text on stderr as "xconv COMMAND: CONTEXT: line".
void cli_stderr_say(const char *text, const char *context);

// Returns "s" unless n is 1: "%d record%s", n, cli_plural(n).
const char *cli_plural(long long n);

// Returns the host's physical memory in bytes (0 when the system does not say).
uint64_t cli_host_memory(void);

// ---------------------------------------------------------------------------------------------
// The cache (cli/cache.c)

// Reads --find (db, trust or off; with allow_modes also normal and exhaustive, which plan like
// db) into the cache flags *flags. Returns 0 or CLI_USAGE after printing the valid values.
int cli_find_policy(const cli_options *opts, bool allow_modes, unsigned *flags);

// Writes the cache folder into buf: $XCONV_CACHE_DIR, else $XDG_CACHE_HOME/xconv, else
// ~/.cache/xconv. Returns false when there is none ($XCONV_CACHE_DIR "" or "none": no cache).
bool cli_cache_folder(char *buf, size_t len);

// Opens the cache with flags; NULL when there is none or it cannot be opened (said with
// --verbose: xconv then runs without one).
xconv_cache *cli_cache_open(const cli_options *opts, unsigned flags);

// Prints the cache's warnings on stderr ("xconv: warning: ..."); NULL is ignored.
void cli_cache_print_warnings(xconv_cache *cache);

// Prints the cache's warnings and closes it; NULL is ignored.
void cli_cache_close(xconv_cache *cache);

#endif // XCONV_CLI_H
