// SPDX-License-Identifier: MIT
// `xconv find`: time the variants for shapes on devices and keep each ranking in the find-db;
// --list, --clear and --clear-kernels look after the cache.
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "prebuild.h"
#include "record_sink.h"
#include "stream.h"

// What a find's progress callback works with.
typedef struct find_context {
    const cli_options *opts;
    cli_record_sink *sink;  // --json and --csv (NULL when neither is asked for)
    bool sink_failed;       // an output failed: it keeps what it held, the run goes on
    bool tty;               // stderr is a terminal: a progress line is drawn over itself
} find_context;

// ---------------------------------------------------------------------------------------------
// Printing

// Prints a ranking: passing entries fastest first, then the rest.
static void print_ranking(const xconv_find_record *rec)
{
    printf("  %-4s %-20s %10s %10s %12s  %s\n", "rank", "variant", "ms", "error", "workspace",
           "tuning, notes");
    for (int i = 0; i < rec->count; i++) {
        const xconv_find_entry *e = &rec->entries[i];
        char rank[16] = "-", ms[32] = "fail", tuning[320];
        if (e->passed) {
            snprintf(rank, sizeof rank, "%d", i + 1);
            snprintf(ms, sizeof ms, "%.4f", e->median_ms);
        }
        bool tuned = e->tuning.direct_tiling[0] || e->tuning.gemm_tiles[0];
        snprintf(tuning, sizeof tuning, "%s%s%s%s%s%s%s",
                 e->tuning.math[0] ? "fp32 math" : "", e->tuning.math[0] && tuned ? ", " : "",
                 e->tuning.direct_tiling,
                 e->tuning.direct_tiling[0] && e->tuning.gemm_tiles[0] ? " " : "",
                 e->tuning.gemm_tiles,
                 e->notes[0] && (tuned || e->tuning.math[0]) ? "; " : "", e->notes);
        printf("  %-4s %-20s %10s %10.3g %12llu  %s\n", rank, e->variant, ms, e->max_err,
               (unsigned long long)e->workspace_bytes, tuning);
    }
}

// Prints on stderr a line per run find makes (--verbose, failures and errors), else, on a
// terminal, the run it is at over the last one, and appends the run's record to --json and --csv; returns true when
// a signal asks the find to stop.
static bool progress(void *user, const xconv_result *res)
{
    find_context *ctx = user;
    xconv_record rec, *r = &rec;
    xconv_record_clear(r);
    xconv_record_from_result(r, res);
    const cli_options *opts = ctx->opts;
    if (ctx->sink && !ctx->sink_failed && cli_record_sink_add(ctx->sink, r, 1))
        ctx->sink_failed = true;
    char ms[32] = "-";
    if (isfinite(r->median_ms))
        snprintf(ms, sizeof ms, "%.4f ms", r->median_ms);
    bool said = opts->verbose || r->outcome == XCONV_OUTCOME_FAIL ||
                r->outcome == XCONV_OUTCOME_ERROR;
    if (said)  // a line of its own, kept in a log too
        fprintf(stderr, "%s  %-20s %-5s %13s  %s\n", ctx->tty ? "\r\033[K" : "", r->variant,
                xconv_outcome_name(r->outcome), ms, r->note);
    else if (ctx->tty)  // the run it is at, over the last one
        fprintf(stderr, "\r\033[K  %-20s %-5s %13s", r->variant, xconv_outcome_name(r->outcome),
                ms);
    return cli_interrupted() != 0;
}

// ---------------------------------------------------------------------------------------------
// --list and --clear

// Writes into buf whether rec is fresh for a device of list with its backend and name.
static void record_state(const xconv_find_record *rec, const xconv_devices *list, char *buf,
                         size_t len)
{
    snprintf(buf, len, "no such device");
    for (int i = 0; i < xconv_devices_count(list); i++) {
        const xconv_device_info *d = xconv_devices_info_at(list, i);
        if (strcmp(xconv_backend_name(d->backend), rec->backend) || strcmp(d->name, rec->device))
            continue;
        if (xconv_find_record_fresh(rec, d)) {
            snprintf(buf, len, "fresh");
            return;
        }
        snprintf(buf, len, "stale (%s%s%s)", strcmp(rec->driver, d->driver) ? "driver " : "",
                 strcmp(rec->xconv, XCONV_VERSION) ? "xconv " : "",
                 strcmp(rec->kernels, xconv_kernels_hash()) ? "kernels" : "");
    }
}

// Prints every record of the find-db with its state for the devices present.
static int list_db(const cli_options *opts, xconv_cache *cache)
{
    xconv_error err = {0};
    xconv_find_record *recs = NULL;
    int count = 0;
    if (xconv_find_db_list(cache, &recs, &count, &err) != XCONV_OK) {
        cli_print_error("find --list", &err);
        return CLI_FAILED;
    }
    xconv_devices *list = xconv_devices_enumerate(XCONV_BACKENDS_ALL, NULL);
    printf("%d record%s in %s/find.db\n", count, cli_plural(count), xconv_cache_dir(cache));
    for (int i = 0; i < count; i++) {
        const xconv_find_record *r = &recs[i];
        char state[64] = "";
        if (list)
            record_state(r, list, state, sizeof state);
        const xconv_find_entry *best = r->count && r->entries[0].passed ? &r->entries[0] : NULL;
        printf("%s %s | %s | %s find %s | %s", r->backend, r->device, r->shape, r->mode, r->date,
               state);
        if (best)
            printf(" | %s %.4f ms", best->variant, best->median_ms);
        else
            printf(" | nothing passed");
        printf("\n");
        if (opts->verbose)
            print_ranking(r);
    }
    xconv_devices_free(list);
    xconv_find_records_free(recs, count);
    return CLI_OK;
}

// Removes the records of the --device devices (none: all of them).
static int clear_db(const cli_options *opts, xconv_cache *cache)
{
    xconv_error err = {0};
    int total = 0, removed = 0, rc = CLI_OK;
    if (!opts->ndevices) {
        if (xconv_find_db_clear(cache, NULL, &total, &err) != XCONV_OK)
            rc = CLI_FAILED;
    } else {
        xconv_devices *list = NULL;
        int indices[CLI_MAX_LIST], n = 0;
        rc = cli_select_devices(opts, &list, indices, &n);
        for (int i = 0; rc == CLI_OK && i < n; i++, total += removed)
            if (xconv_find_db_clear(cache, xconv_devices_info_at(list, indices[i])->name,
                                    &removed, &err))
                rc = CLI_FAILED;
        xconv_devices_free(list);
    }
    if (rc == CLI_FAILED && err.msg[0])
        cli_print_error("find --clear", &err);
    else if (rc == CLI_OK)
        printf("removed %d record%s from %s/find.db\n", total, cli_plural(total),
               xconv_cache_dir(cache));
    return rc;
}

// Removes the compiled kernels.
static int clear_kernels(xconv_cache *cache)
{
    xconv_error err = {0};
    int removed = 0;
    if (xconv_cache_clear_kernels(cache, &removed, &err) != XCONV_OK) {
        cli_print_error("find --clear-kernels", &err);
        return CLI_FAILED;
    }
    printf("removed %d compiled kernel%s from %s/kernels\n", removed, cli_plural(removed),
           xconv_cache_dir(cache));
    return CLI_OK;
}

// ---------------------------------------------------------------------------------------------
// Finding

// How a find of `mode` treats the record the db holds for the shape: returns true (after saying
// why, when `say`) when it is kept and the shape is not timed again.
static bool keep_record(const cli_options *opts, xconv_cache *cache, const xconv_device *dev,
                        const xconv_problem *p, xconv_find_mode mode, bool say)
{
    xconv_error err = {0};
    xconv_find_record rec;
    bool stale = false;
    if (opts->force ||
        xconv_find_db_lookup(cache, xconv_device_get_info(dev), p, &rec, &stale, &err) != XCONV_OK)
        return false;
    xconv_find_mode had = XCONV_FIND_NORMAL;
    xconv_find_mode_parse(rec.mode, &had);
    const char *best = rec.count && rec.entries[0].passed ? rec.entries[0].variant : "nothing";
    bool keep = stale ? (xconv_cache_flags(cache) & XCONV_CACHE_TRUST_STALE) != 0 : had >= mode;
    if (keep && say)
        printf("  %s record (%s find of %s): %s; kept%s\n", stale ? "stale" : "fresh", rec.mode,
               rec.date, best, stale ? " (--find=trust)" : " (--force times it again)");
    else if (stale && say)
        printf("  stale record (made under driver '%s', xconv %s, kernels %s): timed again\n",
               rec.driver, rec.xconv, rec.kernels);
    xconv_find_record_free(&rec);
    return keep;
}

// Finds one shape on dev (or, mode fast, says what auto chooses); returns 0 or CLI_FAILED.
static int find_shape(find_context *ctx, const xconv_find_opts *fopts, xconv_device *dev,
                      xconv_cache *cache, const cli_shape *shape)
{
    const cli_options *opts = ctx->opts;
    xconv_error err = {0};
    char spec[256];
    xconv_shape_format(&shape->problem, spec, sizeof spec);
    printf("%s%s%s\n", shape->name, shape->name[0] ? " " : "", spec);
    if (fopts->mode == XCONV_FIND_FAST) {
        xconv_auto_info info;
        if (xconv_auto_choose(dev, &shape->problem, &fopts->measure.plan, &info, &err)) {
            cli_print_error("auto", &err);
            return CLI_FAILED;
        }
        printf("  auto: %s (%s)\n", xconv_variant_get_info(info.variant)->name, info.why);
        return CLI_OK;
    }
    if (keep_record(opts, cache, dev, &shape->problem, fopts->mode, true))
        return CLI_OK;
    xconv_find_record rec;
    xconv_find_summary sum;
    xconv_status st = xconv_find_run(dev, &shape->problem, shape->name, fopts, &rec, progress,
                                     ctx, &sum, &err);
    if (ctx->tty)
        fputs("\r\033[K", stderr);
    if (st == XCONV_OK && sum.stopped) {
        printf("  stopped after %d run%s: nothing stored for this shape\n", sum.runs,
               cli_plural(sum.runs));
        return CLI_OK;
    }
    if (st == XCONV_OK && rec.count > 0)
        st = xconv_find_db_store(cache, &rec, &err);
    if (st != XCONV_OK) {
        cli_print_error(spec, &err);
        return CLI_FAILED;
    }
    printf("  %s find: %d run%s, %d of them tunings and %d confirmations, in %.1f s%s\n",
           xconv_find_mode_name(fopts->mode), sum.runs, cli_plural(sum.runs), sum.tunings,
           sum.confirmations, sum.seconds,
           sum.budget_reached ? " (the tuning budget ran out)" : "");
    print_ranking(&rec);
    bool passed = rec.count > 0 && rec.entries[0].passed;
    xconv_find_record_free(&rec);
    if (!passed)
        fprintf(stderr, "xconv find: %s: no variant passed its check\n", spec);
    return passed ? CLI_OK : CLI_FAILED;
}

// Fills *fopts from the command line; returns 0 or CLI_USAGE after printing why.
static int find_options(const cli_options *opts, xconv_find_opts *fopts)
{
    xconv_find_opts_default(fopts);
    if (opts->find_mode && !xconv_find_mode_parse(opts->find_mode, &fopts->mode)) {
        fprintf(stderr, "xconv find: --mode takes fast, normal or exhaustive, not '%s'\n",
                opts->find_mode);
        return CLI_USAGE;
    }
    if (opts->repeat < 1) {
        fprintf(stderr, "xconv find: --repeat must be at least 1\n");
        return CLI_USAGE;
    }
    fopts->measure.seed = opts->seed;
    fopts->measure.repeat = opts->repeat;
    fopts->measure.warmup = opts->warmup;
    fopts->measure.host_ref_max_gflop = opts->host_ref_gflop;
    fopts->budget_s = opts->budget;
    if (opts->confirm < 0 || opts->confirm > 100) {
        fprintf(stderr, "xconv find: --confirm takes 0 to 100 rounds, not %d\n", opts->confirm);
        return CLI_USAGE;
    }
    if (!(opts->confirm_within >= 1.0)) {
        fprintf(stderr, "xconv find: --confirm-within must be at least 1, not %g\n",
                opts->confirm_within);
        return CLI_USAGE;
    }
    fopts->confirm_rounds = opts->confirm;
    fopts->confirm_within = opts->confirm_within;
    cli_plan_options(&fopts->measure.plan);
    return 0;
}

// Builds ahead on dev the programs of the planner's plan of every variant auto may choose, on
// the shapes of the find whose records are not kept.
static void prebuild_find(const cli_options *opts, const xconv_find_opts *fopts,
                          xconv_device *dev, xconv_cache *cache, const char *label,
                          const cli_shape *shapes, int nshapes, cli_build_totals *totals)
{
    if (fopts->mode == XCONV_FIND_FAST)
        return;
    static const xconv_problem *problems[CLI_MAX_SHAPES];
    const xconv_variant *variants[CLI_MAX_LIST];
    int np = 0, nv = 0;
    for (int s = 0; s < nshapes; s++)
        if (!keep_record(opts, cache, dev, &shapes[s].problem, fopts->mode, false))
            problems[np++] = &shapes[s].problem;
    for (int i = 0; i < xconv_variant_count() && nv < CLI_MAX_LIST; i++)
        if (xconv_variant_auto_eligible(xconv_variant_at(i)))
            variants[nv++] = xconv_variant_at(i);
    cli_prebuild(opts, dev, cache, label, problems, np, variants, nv, &fopts->measure.plan,
                 totals);
}

// Finds every shape on every device, each run's record streamed into --json and --csv; a signal
// stops it after the run that is going on (the shape it cuts short is not stored).
static int find_all(const cli_options *opts, xconv_cache *cache)
{
    xconv_find_opts fopts;
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    xconv_devices *list = NULL;
    int nshapes = 0, indices[CLI_MAX_LIST], ndevices = 0;
    int rc = shapes ? find_options(opts, &fopts) : CLI_FAILED;
    if (!rc)
        rc = cli_collect_shapes(opts, NULL, shapes, &nshapes);
    if (!rc && nshapes == 0) {
        fprintf(stderr, "xconv find: give --suite, --shape, --shapes or --random (or --list, "
                        "--clear)\n");
        rc = CLI_USAGE;
    }
    if (!rc)
        rc = cli_select_devices(opts, &list, indices, &ndevices);
    cli_output json, csv;  // checked before any work
    if (!rc)
        rc = cli_records_outputs_check(opts, &json, &csv);
    find_context ctx = {.opts = opts, .tty = isatty(STDERR_FILENO)};
    xconv_run_info info;
    xconv_run_info_init(&info, opts->argc, opts->argv);
    if (!rc && (opts->json || opts->csv))
        ctx.sink = cli_record_sink_open(opts->json ? &json : NULL, opts->csv ? &csv : NULL,
                                        &info, false, &rc);
    cli_interrupt_install();
    xconv_error err = {0};
    int failed = 0, done = 0;
    cli_build_totals totals;
    cli_build_totals_start(&totals);
    fopts.measure.totals = &totals.runs;
    for (int d = 0; !rc && d < ndevices && !cli_interrupted(); d++) {
        char label[320];
        xconv_device_label(xconv_devices_info_at(list, indices[d]), label, sizeof label);
        xconv_device *dev = cli_device_open_info(xconv_devices_info_at(list, indices[d]), &err);
        if (!dev) {
            cli_print_error(label, &err);
            failed++;
            continue;
        }
        xconv_device_set_cache(dev, cache);
        printf("%s: %s find of %d shape%s\n", label, xconv_find_mode_name(fopts.mode), nshapes,
               cli_plural(nshapes));
        fflush(stdout);
        prebuild_find(opts, &fopts, dev, cache, label, shapes, nshapes, &totals);
        for (int s = 0; s < nshapes && !cli_interrupted(); s++) {
            failed += find_shape(&ctx, &fopts, dev, cache, &shapes[s]) != CLI_OK;
            done += !cli_interrupted();
            cli_cache_print_warnings(cache);
        }
        xconv_device_close(dev);
    }
    if (cli_record_sink_close(ctx.sink) && !rc)
        rc = CLI_FAILED;
    if (!rc && ndevices > 0) {
        fflush(stdout);
        cli_build_totals_print(stderr, &totals);
    }
    free(shapes);
    xconv_devices_free(list);
    int sig = cli_interrupted();
    if (sig) {
        cli_error("stopped by %s: %d of %d shape finds did not finish%s",
                  sig == SIGINT ? "SIGINT" : "SIGTERM", nshapes * ndevices - done,
                  nshapes * ndevices,
                  ctx.sink ? "; the results files hold the runs that finished" : "");
        return cli_interrupt_exit_code(sig);
    }
    return rc ? rc : failed || ctx.sink_failed ? CLI_FAILED : CLI_OK;
}

int cmd_find(const cli_options *opts)
{
    unsigned flags = 0;
    if (opts->list + opts->clear + opts->clear_kernels > 1) {
        fprintf(stderr, "xconv find: one of --list, --clear and --clear-kernels at a time\n");
        return CLI_USAGE;
    }
    if (cli_find_policy(opts, false, &flags))
        return CLI_USAGE;
    if (flags & XCONV_CACHE_NO_FIND_DB) {
        fprintf(stderr, "xconv find: --find=off leaves nothing to find into\n");
        return CLI_USAGE;
    }
    char dir[4096];
    xconv_error err = {0};
    xconv_cache *cache = cli_cache_folder(dir, sizeof dir) ? xconv_cache_open(dir, flags, &err)
                                                            : NULL;
    if (!cache) {
        fprintf(stderr, "xconv find: %s\n", cli_cache_folder(dir, sizeof dir)
                ? err.msg : "no cache folder (XCONV_CACHE_DIR is none, or HOME is not set)");
        return CLI_FAILED;
    }
    cli_cache_print_warnings(cache);  // what opening found, before any timing
    if (!opts->list && !opts->clear_kernels &&
        (xconv_cache_flags(cache) & XCONV_CACHE_DB_READ_ONLY)) {
        fprintf(stderr, "xconv find: the find-db in %s cannot be written: nothing to find into\n",
                dir);
        xconv_cache_close(cache);
        return CLI_USAGE;
    }
    int rc = opts->list ? list_db(opts, cache)
             : opts->clear ? clear_db(opts, cache)
             : opts->clear_kernels ? clear_kernels(cache)
                                   : find_all(opts, cache);
    cli_cache_close(cache);
    return rc;
}
