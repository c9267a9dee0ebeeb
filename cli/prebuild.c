// SPDX-License-Identifier: MIT
// Building a run's programs ahead: the plans of every case on a device, their distinct programs
// built on worker threads (xconv_plans_build) before any case is timed, on OpenCL first by
// helper processes into the cache folder, and the run's totals.
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
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

// ---------------------------------------------------------------------------------------------
// Helper processes (OpenCL drivers build one program at a time within a process)

extern char **environ;

#define MAX_HELPERS 64

// Returns true when dev's programs are worth building in helper processes: an OpenCL device
// (PoCL and NVIDIA's driver each build one program at a time in a process, whatever the
// threads) other than Oclgrind's (its runtime runs inside the oclgrind tool), with a cache
// folder for the helpers to fill.
static bool helpers_useful(xconv_device *dev, xconv_cache *cache, int threads, int nproblems)
{
    const xconv_device_info *info = xconv_device_get_info(dev);
    return cache && !(xconv_cache_flags(cache) & XCONV_CACHE_NO_KERNELS) && threads > 1 &&
           nproblems > 1 && info->backend == XCONV_BACKEND_OPENCL &&
           !strstr(info->platform, "Oclgrind") && access("/proc/self/exe", X_OK) == 0;
}

// Returns the environment without the variables that make xconv a worker of another process
// (XCONV_WORKER, XCONV_TEST_FAULT), or NULL without memory (free the array only).
static char **helper_env(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; env && i < n; i++)
        if (strncmp(environ[i], "XCONV_WORKER=", 13) &&
            strncmp(environ[i], "XCONV_TEST_FAULT=", 17))
            env[k++] = environ[i];
    return env;
}

// Starts `xconv precompile --device SEL --shapes FILE --build-threads 1 [--bake-batch B]
// [--bake-dims D] [--variant LIST]` (this process's --bake-batch and --bake-dims, so that it
// plans the same programs) with its output discarded; returns its pid, or -1.
static pid_t spawn_helper(const char *sel, const char *file, const char *variants, char **env)
{
    char *argv[14] = {"xconv", "precompile", "--device", (char *)sel, "--shapes", (char *)file,
                      "--build-threads", "1"};
    int argc = 8;
    const char *batch = cli_bake_batch_word(), *dims = cli_bake_dims_word();
    if (batch) {
        argv[argc++] = "--bake-batch";
        argv[argc++] = (char *)batch;
    }
    if (dims) {
        argv[argc++] = "--bake-dims";
        argv[argc++] = (char *)dims;
    }
    if (variants[0]) {
        argv[argc++] = "--variant";
        argv[argc++] = (char *)variants;
    }
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

// Writes the problems of share h of n (every n-th from h) as a shapes file into dir; returns
// false when it cannot.
static bool write_share(const char *dir, int h, int n, const xconv_problem *const *problems,
                        int nproblems, char *path, size_t len)
{
    snprintf(path, len, "%s/share%d.shapes", dir, h);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    char spec[256];
    for (int i = h; i < nproblems; i += n) {
        xconv_shape_format(problems[i], spec, sizeof spec);
        fprintf(f, "%s\n", spec);
    }
    return fclose(f) == 0;
}

// Writes the names of variants (NULL: auto) as one comma-separated list into buf.
static void variant_list(const xconv_variant *const *variants, int nvariants, char *buf,
                         size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int v = 0; v < nvariants && used < len; v++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", v ? "," : "",
                                 variants[v] ? xconv_variant_get_info(variants[v])->name
                                             : "auto");
}

// Builds the programs of the problems into the cache folder in helper processes, one share of
// the problems each, and waits for them (adding the wall time to t); the build ahead in this
// process then loads them.
static void build_in_helpers(xconv_device *dev, const char *label, int threads,
                             const xconv_problem *const *problems, int nproblems,
                             const xconv_variant *const *variants, int nvariants,
                             cli_build_totals *t)
{
    double t0 = now_ms();
    char dir[] = "/tmp/xconv-shares-XXXXXX", sel[64], list[4096], path[256];
    char **env = helper_env();
    if (!env || !mkdtemp(dir)) {
        free(env);
        return;
    }
    char id[320];
    xconv_device_label(xconv_device_get_info(dev), id, sizeof id);
    snprintf(sel, sizeof sel, "%.*s", (int)strcspn(id, " "), id);
    variant_list(variants, nvariants, list, sizeof list);
    int n = threads < nproblems ? threads : nproblems, started = 0;
    n = n < MAX_HELPERS ? n : MAX_HELPERS;
    pid_t pids[MAX_HELPERS];
    for (int h = 0; h < n; h++)
        if (write_share(dir, h, n, problems, nproblems, path, sizeof path) &&
            (pids[started] = spawn_helper(sel, path, list, env)) > 0)
            started++;
    fprintf(stderr, "[%s] programs: building in %d helper processes\n", label, started);
    for (int h = 0; h < started; h++) {
        int status;
        while (waitpid(pids[h], &status, 0) < 0 && errno == EINTR)
            continue;
    }
    for (int h = 0; h < n; h++) {
        snprintf(path, sizeof path, "%s/share%d.shapes", dir, h);
        unlink(path);
    }
    rmdir(dir);
    free(env);
    char wall[32];
    cli_progress_format_time(now_ms() - t0, wall, sizeof wall);
    fprintf(stderr, "[%s] %d helper processes built their shares in %s\n", label, started, wall);
    t->ahead_ms += now_ms() - t0;
    t->helpers += started;
}

// ---------------------------------------------------------------------------------------------
// Building ahead

void cli_prebuild(const cli_options *opts, xconv_device *dev, xconv_cache *cache,
                  const char *label, const xconv_problem *const *problems, int nproblems,
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
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = opts->build_threads > 0 ? opts->build_threads : cores > 0 ? (int)cores : 1;
    if (helpers_useful(dev, cache, threads, nproblems))
        build_in_helpers(dev, label, threads, problems, nproblems, variants, nvariants, t);
    build_line line = {.label = label, .tty = isatty(fileno(stderr)), .tenth = -1};
    xconv_build_stats stats;
    xconv_error err = {0};
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
        fprintf(f, " (%d programs built ahead in %.1f s wall on %d threads%s)", t->built,
                t->ahead_ms / 1e3, t->threads,
                t->helpers ? ", built by helper processes and loaded" : "");
    fprintf(f, ", check %.1f s, timed runs %.1f s, wall %.1f s\n", t->runs.check_ms / 1e3,
            t->runs.run_ms / 1e3, (now_ms() - t->start_ms) / 1e3);
}
