// SPDX-License-Identifier: MIT
// Building a run's programs ahead: the plans of every case on a device, their distinct programs
// built on worker threads (xconv_plans_build) before any case is timed, and the run's totals.
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "prebuild.h"
#include "progress.h"

// Returns the monotonic clock in milliseconds.
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void cli_build_totals_start(cli_build_totals *t)
{
    *t = (cli_build_totals){.start_ms = now_ms()};
}

// The progress line's state: where it goes and the last tenth printed (plain lines).
typedef struct build_line {
    const char *label;
    bool tty;
    int tenth;
} build_line;

// xconv_build_progress_fn: redraws "[label] programs: 12 built, 68 left" on a terminal; else
// prints it at each tenth of the builds and at the end. Returns true (stop) after SIGINT or
// SIGTERM.
static bool show(void *user, int built, int total)
{
    build_line *l = user;
    if (cli_interrupted())
        return true;
    if (l->tty) {
        fprintf(stderr, "\r[%s] programs: %d built, %d left\033[K", l->label, built,
                total - built);
    } else {
        int tenth = total > 0 ? built * 10 / total : 10;
        if (built > 0 && tenth == l->tenth && built != total)
            return false;
        l->tenth = tenth;
        fprintf(stderr, "[%s] programs: %d built, %d left\n", l->label, built, total - built);
    }
    fflush(stderr);
    return false;
}

void cli_prebuild(const cli_options *opts, xconv_device *dev, const char *label,
                  const xconv_problem *const *problems, int nproblems,
                  const xconv_variant *const *variants, int nvariants,
                  const xconv_plan_options *plan, cli_build_totals *t)
{
    if (opts->build_threads == 0 || nproblems == 0)
        return;
    const xconv_variant **own = calloc((size_t)nvariants + 1, sizeof *own);
    if (!own)
        return;  // the runs build what they need
    int n = 0;
    bool with_auto = false;
    for (int v = 0; v < nvariants; v++) {
        if (variants[v])
            own[n++] = variants[v];
        else
            with_auto = true;
    }
    build_line line = {.label = label, .tty = isatty(fileno(stderr)), .tenth = -1};
    xconv_build_stats stats;
    static xconv_error err;
    xconv_status st = xconv_prebuild(dev, problems, nproblems, own, n, with_auto, plan,
                                     opts->build_threads, show, &line, &stats, &err);
    free(own);
    if (line.tty)
        fputs("\r\033[K", stderr);
    if (st != XCONV_OK) {
        fprintf(stderr, "[%s] programs not built ahead: %s\n", label, err.msg);
        return;
    }
    if (stats.programs > 0) {
        char wall[32];
        cli_progress_format_time(stats.wall_ms, wall, sizeof wall);
        fprintf(stderr, "[%s] %d programs built ahead in %s on %d threads (%.1f s of builds)",
                label, stats.built, wall, stats.threads, stats.compile_ms / 1e3);
        if (stats.failed)
            fprintf(stderr, ", %d failed (their cases say why)", stats.failed);
        fputc('\n', stderr);
    }
    t->ahead_ms += stats.wall_ms;
    t->programs += stats.programs;
    t->built += stats.built;
    t->failed += stats.failed;
    if (stats.threads > t->threads)
        t->threads = stats.threads;
}

void cli_build_totals_print(FILE *f, const cli_build_totals *t)
{
    fprintf(f, "time: compile %.1f s", t->runs.compile_ms / 1e3);
    if (t->programs > 0)
        fprintf(f, " (%d programs built ahead in %.1f s wall on %d threads)", t->built,
                t->ahead_ms / 1e3, t->threads);
    fprintf(f, ", check %.1f s, timed runs %.1f s, wall %.1f s\n", t->runs.check_ms / 1e3,
            t->runs.run_ms / 1e3, (now_ms() - t->start_ms) / 1e3);
}
