// SPDX-License-Identifier: MIT
// `xconv compile`: every variant's plans for shapes on target profiles, each kernel compiled by
// the target vendor's own compiler, with the resources the compiler reports.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "vendor_cc.h"

// The targets checked when --target is not given.
static const char *const default_targets[] = {"gfx90a", "gfx1030", "dg2", "pvc"};

// Everything one run collects: the records and the distinct compilations behind them.
typedef struct compile_run {
    xconv_compile_record *recs;
    int *job_of;              // recs[i]'s job, -1 for none (n/a, skipped)
    int nrecs, cap_recs;
    vendor_job *jobs;
    int njobs, cap_jobs;
    char dir[256];            // the temporary folder of the jobs' files
    int parallel, running;    // compilers at once, and running now
} compile_run;

static bool reap_one(compile_run *run);

// ---------------------------------------------------------------------------------------------
// Targets

int cli_collect_targets(const cli_options *opts, const xconv_target **out, int *count)
{
    *count = 0;
    xconv_error err = {0};
    for (int i = 0; i < opts->ntargets; i++) {
        for (const char *item = opts->targets[i];;) {
            size_t len = strcspn(item, ",");
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : 0), item);
            const xconv_target *t = xconv_target_find(name, &err);
            if (!t) {
                cli_print_error("--target", &err);
                return CLI_USAGE;
            }
            if (*count < CLI_MAX_LIST)
                out[(*count)++] = t;
            if (!item[len])
                break;
            item += len + 1;
        }
    }
    return 0;
}

void cli_print_targets(FILE *f, bool with_compilers)
{
    for (int i = 0; i < xconv_target_count(); i++) {
        const xconv_target *t = xconv_target_at(i);
        const xconv_device_info *d = &t->info;
        fprintf(f, "%-8s %s\n", t->name, t->product);
        fprintf(f, "     %d compute units at %d MHz, local %llu KiB, max work-group %zu, "
                   "preferred multiple %zu, registers a work-item %d, scalar %d, a work-group "
                   "%d, fp64 %s\n",
                d->compute_units, d->clock_mhz, (unsigned long long)(d->local_mem_bytes / 1024),
                d->max_work_group_size, d->preferred_multiple, d->max_registers_per_item,
                d->max_scalar_registers, d->max_registers_per_work_group,
                d->fp64 ? "yes" : "no");
        if (with_compilers) {
            char why[256];
            bool ok = vendor_cc_available(t, why, sizeof why);
            fprintf(f, "     compiler %s for %s: %s\n", t->compiler, t->arch,
                    ok ? "installed" : why);
        }
        if (d->intel_mma_sub_group)
            fprintf(f, "     Intel matrix engines (cl_intel_subgroup_matrix_multiply_accumulate) "
                       "at sub-group %d\n", d->intel_mma_sub_group);
    }
}

// ---------------------------------------------------------------------------------------------
// Collecting records and jobs

// Returns a new zeroed record of run (its job -1), or NULL without memory.
static xconv_compile_record *add_record(compile_run *run)
{
    if (run->nrecs == run->cap_recs) {
        int cap = run->cap_recs ? run->cap_recs * 2 : 256;
        xconv_compile_record *r = realloc(run->recs, (size_t)cap * sizeof *r);
        int *j = r ? realloc(run->job_of, (size_t)cap * sizeof *j) : NULL;
        if (r)
            run->recs = r;
        if (!j)
            return NULL;
        run->job_of = j;
        run->cap_recs = cap;
    }
    xconv_compile_record *r = &run->recs[run->nrecs];
    memset(r, 0, sizeof *r);
    r->counts = xconv_compile_counts_unknown();
    run->job_of[run->nrecs++] = -1;
    return r;
}

// Returns the index of the job compiling (target, source text, options), adding it (taking
// text) when new; -1 without memory. A repeated job frees text.
static int find_or_add_job(compile_run *run, const xconv_target *t, char *text,
                           const char *options, const char *kernel, bool *repeated)
{
    *repeated = false;
    for (int i = 0; i < run->njobs; i++) {
        vendor_job *j = &run->jobs[i];
        if (j->target == t && strcmp(j->options, options) == 0 &&
            strcmp(j->kernel, kernel) == 0 && strcmp(j->text, text) == 0) {
            free(text);
            *repeated = true;
            return i;
        }
    }
    if (run->njobs == run->cap_jobs) {
        int cap = run->cap_jobs ? run->cap_jobs * 2 : 64;
        vendor_job *j = realloc(run->jobs, (size_t)cap * sizeof *j);
        if (!j) {
            free(text);
            return -1;
        }
        run->jobs = j;
        run->cap_jobs = cap;
    }
    vendor_job *j = &run->jobs[run->njobs];
    memset(j, 0, sizeof *j);
    j->target = t;
    j->text = text;
    j->status = -1;
    snprintf(j->options, sizeof j->options, "%s", options);
    snprintf(j->kernel, sizeof j->kernel, "%s", kernel);
    snprintf(j->dir, sizeof j->dir, "%s/%d", run->dir, run->njobs);
    return run->njobs++;
}

// Starts NVRTC job j on step i of plan now, while the plan exists (the child process has it),
// after waiting for a free slot.
static void start_nvrtc(compile_run *run, vendor_job *j, const xconv_plan *plan, int i)
{
    while (run->running >= run->parallel && reap_one(run))
        run->running--;
    j->launched = true;
    if (mkdir(j->dir, 0700) != 0 || vendor_job_start_nvrtc(j, plan, i) != 0)
        j->outcome = XCONV_COMPILE_FAILED;
    else
        run->running++;
}

// Returns true when NVRTC compiles for t (a one-kernel probe), else false with why.
static bool nvrtc_usable(xconv_device *dev, char *why, size_t len)
{
    xconv_error err = {0};
    xconv_problem p;
    if (xconv_shape_parse("n=1,c=1,h=8,w=8,k=1,r=3", &p, &err) != XCONV_OK)
        return false;
    xconv_plan *plan = xconv_plan_create(dev, &p, "direct_naive", NULL, &err);
    char *log = NULL;
    xconv_status st = plan ? xconv_plan_step_nvrtc_report(plan, 0, &log, &err) : err.status;
    free(log);
    xconv_plan_destroy(plan);
    if (st != XCONV_OK)
        snprintf(why, len, "NVRTC: %.200s", err.msg);
    return st == XCONV_OK;
}

// Fills the identity fields of r.
static void name_record(xconv_compile_record *r, const xconv_target *t, const char *variant,
                        const cli_shape *s)
{
    snprintf(r->target, sizeof r->target, "%s", t->name);
    snprintf(r->compiler, sizeof r->compiler, "%s", t->compiler);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->shape_name, sizeof r->shape_name, "%.31s", s->name);
    xconv_shape_format(&s->problem, r->shape, sizeof r->shape);
}

// Adds the records of variant v's plan for shape s on dev (target t): one a kernel step, each
// with its job; or one n/a record with the planner's reason. Returns 0, or -1 without memory.
static int plan_records(compile_run *run, xconv_device *dev, const xconv_target *t,
                        const xconv_variant *v, const cli_shape *s,
                        const xconv_plan_options *plan_opts, const char *auto_pick)
{
    xconv_error err = {0};
    const char *name = xconv_variant_get_info(v)->name;
    xconv_plan *plan = xconv_plan_create(dev, &s->problem, name, plan_opts, &err);
    if (!plan) {
        xconv_compile_record *r = add_record(run);
        if (!r)
            return -1;
        name_record(r, t, name, s);
        r->outcome = err.status == XCONV_ERR_NOT_APPLICABLE ||
                     err.status == XCONV_ERR_OUT_OF_MEMORY ? XCONV_COMPILE_NOT_APPLICABLE
                                                           : XCONV_COMPILE_FAILED;
        snprintf(r->note, sizeof r->note, "%.500s", err.msg);
        return 0;
    }
    for (int i = 0; i < xconv_plan_step_count(plan); i++) {
        char *text = NULL, options[4096];
        xconv_plan_step_info info;
        if (xconv_plan_step_get_info(plan, i, &info, &err) != XCONV_OK || !info.source ||
            xconv_plan_step_build_input(plan, i, &text, options, sizeof options, &err) !=
                XCONV_OK)
            continue;  // a vendor library step: nothing of ours to compile
        xconv_compile_record *r = add_record(run);
        if (!r) {
            free(text);
            xconv_plan_destroy(plan);
            return -1;
        }
        name_record(r, t, name, s);
        r->is_auto = auto_pick && strcmp(auto_pick, name) == 0;
        r->step = i;
        snprintf(r->kernel, sizeof r->kernel, "%s", info.kernel);
        snprintf(r->source, sizeof r->source, "%s", info.source);
        bool repeated;
        int job = find_or_add_job(run, t, text, options, info.kernel, &repeated);
        if (job < 0) {
            xconv_plan_destroy(plan);
            return -1;
        }
        run->job_of[run->nrecs - 1] = job;
        r->deduplicated = repeated;
        if (!repeated && strcmp(t->compiler, "nvrtc") == 0)
            start_nvrtc(run, &run->jobs[job], plan, i);
    }
    xconv_plan_destroy(plan);
    return 0;
}

// Returns the name of the variant auto plans for s on dev, or NULL when nothing plans.
static const char *auto_pick(xconv_device *dev, const cli_shape *s,
                             const xconv_plan_options *plan_opts)
{
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, &s->problem, "auto", plan_opts, &err);
    if (!plan)
        return NULL;
    const char *name = xconv_variant_get_info(xconv_plan_variant(plan))->name;
    xconv_plan_destroy(plan);
    return name;
}

// Adds the n/a record of --variant auto for shape s on dev (target t), when no variant plans
// it: the reason auto gives. Returns 0, or -1 without memory.
static int auto_none_record(compile_run *run, xconv_device *dev, const xconv_target *t,
                            const cli_shape *s, const xconv_plan_options *plan_opts)
{
    xconv_error err = {0};
    xconv_plan_destroy(xconv_plan_create(dev, &s->problem, "auto", plan_opts, &err));
    xconv_compile_record *r = add_record(run);
    if (!r)
        return -1;
    name_record(r, t, "auto", s);
    r->outcome = XCONV_COMPILE_NOT_APPLICABLE;
    snprintf(r->note, sizeof r->note, "%.500s", err.msg);
    return 0;
}

// Returns true when variant v has kernels of ours for targets of backend `kind`.
static bool checked_variant(const xconv_variant *v, xconv_backend_kind kind)
{
    const xconv_variant_info *info = xconv_variant_get_info(v);
    return (info->backends & XCONV_BACKEND_BIT(kind)) && strcmp(info->family, "peer") != 0;
}

// Adds every record of target t: its variants' plans for each shape, or one skipped record
// when its compiler is not installed. Returns 0, or -1 without memory.
static int target_records(compile_run *run, const xconv_target *t, const xconv_variant **vs,
                          int nvs, const cli_shape *shapes, int nshapes,
                          const xconv_plan_options *plan_opts)
{
    char why[256];
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open_target(t, &err);
    if (!dev)
        return -1;
    if (!vendor_cc_available(t, why, sizeof why) ||
        (strcmp(t->compiler, "nvrtc") == 0 && !nvrtc_usable(dev, why, sizeof why))) {
        xconv_device_close(dev);
        xconv_compile_record *r = add_record(run);
        if (!r)
            return -1;
        snprintf(r->target, sizeof r->target, "%s", t->name);
        snprintf(r->compiler, sizeof r->compiler, "%s", t->compiler);
        r->outcome = XCONV_COMPILE_SKIPPED;
        snprintf(r->note, sizeof r->note, "%s", why);
        return 0;
    }
    int rc = 0;
    for (int s = 0; s < nshapes && rc == 0; s++) {
        const char *pick = auto_pick(dev, &shapes[s], plan_opts);
        for (int i = 0; i < nvs && rc == 0; i++) {
            const xconv_variant *v = vs[i];
            if (!v) {  // --variant auto: auto's pick for this shape, unless also named
                v = pick ? xconv_variant_find(pick, &err) : NULL;
                for (int k = 0; v && k < nvs; k++)
                    v = vs[k] == v ? NULL : v;
                if (!pick)
                    rc = auto_none_record(run, dev, t, &shapes[s], plan_opts);
            }
            if (v && checked_variant(v, t->info.backend))
                rc = plan_records(run, dev, t, v, &shapes[s], plan_opts, pick);
        }
    }
    xconv_device_close(dev);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// Running the compilers

// Returns the monotonic clock in seconds.
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Waits for one running child and finishes its job; returns false when none was running.
static bool reap_one(compile_run *run)
{
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid <= 0)
        return false;
    for (int i = 0; i < run->njobs; i++) {
        vendor_job *j = &run->jobs[i];
        if (j->pid != pid)
            continue;
        j->pid = 0;
        j->status = status;
        j->seconds = now_s() - j->started;
        vendor_job_read(j);
    }
    return true;
}

// Runs every job not started yet (NVRTC's started while planning), at most run->parallel
// compilers at once, with a progress line on stderr.
static void run_jobs(compile_run *run)
{
    int done = 0;
    for (int next = 0; next < run->njobs || run->running > 0;) {
        while (run->running < run->parallel && next < run->njobs) {
            vendor_job *j = &run->jobs[next++];
            if (j->launched) {
                done += j->pid == 0;
                continue;
            }
            j->launched = true;
            if (mkdir(j->dir, 0700) != 0 || vendor_job_start(j) != 0) {
                j->outcome = XCONV_COMPILE_FAILED;
                done++;
                continue;
            }
            run->running++;
        }
        if (run->running > 0 && reap_one(run)) {
            run->running--;
            done++;
            if (isatty(2))
                fprintf(stderr, "\rcompile: %d of %d kernels", done, run->njobs);
        } else {
            run->running = 0;
        }
    }
    if (run->njobs && isatty(2))
        fputc('\n', stderr);
}

// Copies each job's results into the records that share it.
static void fill_records(compile_run *run)
{
    for (int i = 0; i < run->nrecs; i++) {
        if (run->job_of[i] < 0)
            continue;
        const vendor_job *j = &run->jobs[run->job_of[i]];
        xconv_compile_record *r = &run->recs[i];
        r->outcome = j->outcome;
        r->counts = j->counts;
        r->seconds = j->seconds;
        snprintf(r->note, sizeof r->note, "%s", j->note);
    }
}

// Removes the jobs' files and folders and the run's folder.
static void remove_files(compile_run *run)
{
    static const char *const names[] = {"kernel.cl", "kernel.o", "kernel", "kernel.bin",
                                        "kernel.spv", "kernel.gen", "kernel.dbg", "log.txt"};
    char path[PATH_MAX];
    for (int i = 0; i < run->njobs; i++) {
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            snprintf(path, sizeof path, "%s/%s", run->jobs[i].dir, names[k]);
            unlink(path);
        }
        rmdir(run->jobs[i].dir);
        free(run->jobs[i].text);
    }
    rmdir(run->dir);
}

// ---------------------------------------------------------------------------------------------
// Output

typedef struct compile_output {
    const compile_run *run;
    const xconv_run_info *info;
} compile_output;

static int write_json(FILE *f, const void *ctx)
{
    const compile_output *o = ctx;
    return xconv_compile_records_write_json(f, o->info, o->run->recs, o->run->nrecs);
}

static int write_csv(FILE *f, const void *ctx)
{
    const compile_output *o = ctx;
    return xconv_compile_records_write_csv(f, o->run->recs, o->run->nrecs);
}

// Prints the summary line and returns the exit status: CLI_FAILED when a kernel failed to
// compile or a plan auto picks spills.
static int summarize(const compile_run *run, double seconds, int parallel)
{
    int failed = 0, spills = 0, auto_spills = 0, na = 0, skipped = 0;
    for (int i = 0; i < run->nrecs; i++) {
        const xconv_compile_record *r = &run->recs[i];
        failed += r->outcome == XCONV_COMPILE_FAILED;
        spills += r->outcome == XCONV_COMPILE_SPILLS;
        auto_spills += r->outcome == XCONV_COMPILE_SPILLS && r->is_auto;
        na += r->outcome == XCONV_COMPILE_NOT_APPLICABLE;
        skipped += r->outcome == XCONV_COMPILE_SKIPPED;
    }
    fprintf(stderr, "%d records, %d kernels compiled in %.1f s (%d at once): %d failed, %d "
                    "spill (%d of them auto's picks), %d n/a, %d targets skipped\n",
            run->nrecs, run->njobs, seconds, parallel, failed, spills, auto_spills, na, skipped);
    return failed || auto_spills ? CLI_FAILED : CLI_OK;
}

// ---------------------------------------------------------------------------------------------
// The command

// Collects the command's targets, shapes and variants; returns 0 or CLI_USAGE.
static int collect(const cli_options *opts, const xconv_target **targets, int *ntargets,
                   cli_shape *shapes, int *nshapes, const xconv_variant **vs, int *nvs)
{
    if (cli_collect_targets(opts, targets, ntargets) ||
        cli_collect_shapes(opts, "small", shapes, nshapes) ||
        cli_collect_variants(opts, true, vs, nvs))
        return CLI_USAGE;
    for (size_t i = 0; *ntargets == 0 && i < sizeof default_targets / sizeof *default_targets;
         i++)
        targets[i] = xconv_target_find(default_targets[i], NULL);
    if (*ntargets == 0)
        *ntargets = (int)(sizeof default_targets / sizeof *default_targets);
    if (*nvs == 0)
        for (int i = 0; i < xconv_variant_count() && *nvs < CLI_MAX_LIST; i++)
            vs[(*nvs)++] = xconv_variant_at(i);
    return 0;
}

int cmd_compile(const cli_options *opts)
{
    if (opts->list_targets) {
        cli_print_targets(stdout, true);
        return CLI_OK;
    }
    static cli_shape shapes[CLI_MAX_SHAPES];
    const xconv_target *targets[CLI_MAX_LIST];
    const xconv_variant *vs[CLI_MAX_LIST];
    int nshapes = 0, ntargets = 0, nvs = 0;
    cli_output json = {0}, csv = {0};
    if (collect(opts, targets, &ntargets, shapes, &nshapes, vs, &nvs) ||
        (opts->json && cli_output_check("--json", opts->json, true, &json)) ||
        (opts->csv && cli_output_check("--csv", opts->csv, true, &csv)))
        return CLI_USAGE;
    xconv_plan_options plan_opts;
    cli_plan_options(&plan_opts);
    int parallel = opts->jobs > 0 ? opts->jobs : 2;
    compile_run run = {.parallel = parallel};
    const char *tmp = getenv("TMPDIR");
    snprintf(run.dir, sizeof run.dir, "%s/xconv-compile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(run.dir)) {
        cli_error("cannot make a temporary folder %s", run.dir);
        return CLI_FAILED;
    }
    double t0 = now_s();
    int rc = CLI_OK;
    for (int t = 0; t < ntargets && rc == CLI_OK; t++)
        if (target_records(&run, targets[t], vs, nvs, shapes, nshapes, &plan_opts) != 0) {
            cli_error("out of host memory");
            rc = CLI_FAILED;
        }
    if (rc == CLI_OK) {
        run_jobs(&run);
        fill_records(&run);
        bool json_stdout = opts->json && json.to_stdout;
        xconv_compile_records_write_table(json_stdout ? stderr : stdout, run.recs, run.nrecs);
        rc = summarize(&run, now_s() - t0, parallel);
        xconv_run_info info;
        xconv_run_info_init(&info, opts->argc, opts->argv);
        compile_output out = {&run, &info};
        int wrc = opts->json ? cli_output_write(&json, write_json, &out) : 0;
        if (!wrc && opts->csv)
            wrc = cli_output_write(&csv, write_csv, &out);
        if (wrc)
            rc = wrc;
    }
    remove_files(&run);
    free(run.recs);
    free(run.job_of);
    free(run.jobs);
    return rc;
}
