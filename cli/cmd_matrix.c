// SPDX-License-Identifier: MIT
// `xconv matrix`: shapes x variants x devices, each cell checked then timed, with the floor at
// the device's peaks and whether `auto` picks the variant; records stream to --json and --csv as
// they finish, and the terminal gets per device a variants x shapes table (docs/matrix.md).
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "isolate.h"
#include "matrix_stream.h"
#include "prebuild.h"
#include "work_progress.h"

// What a run is made of: the shapes, the variants asked for, the devices and their peaks.
typedef struct matrix_job {
    const cli_options *opts;
    cli_shape *shapes;            // every shape given (a layer may repeat across shape files)
    int nshapes;
    int *runs;                    // indices of the shapes run: each (name, SPEC) once
    int nruns;
    const xconv_variant *asked[CLI_MAX_LIST];  // --variant (none: every variant)
    int nasked;
    xconv_devices *list;
    int devices[CLI_MAX_LIST];    // indices into list
    int ndevices;
    cli_peaks_source peaks;
    xconv_case_options hopts;
    xconv_run_file run;           // the head (devices, shapes) and the records so far
    int cap;
    cli_matrix_stream stream;
    cli_work_progress progress;
    cli_worker worker;            // this process runs one device's cells for its parent
    int sent;                     // a worker: the index of the next cell it sends
    int device;                   // the device running now (index into devices)
    int base;                     // its first cell in the run's order
    const xconv_variant *variants[CLI_MAX_LIST];  // its variants
    int nvariants;
    xconv_cache *cache;           // compiled kernels and the find-db (auto's picks); NULL: none
    cli_build_totals totals;      // compile, check and run time of the run
} matrix_job;

// ---------------------------------------------------------------------------------------------
// What runs where

// Returns true when a registered variant's family is name.
static bool family_known(const char *name)
{
    for (int i = 0; i < xconv_variant_count(); i++)
        if (strcmp(xconv_variant_get_info(xconv_variant_at(i))->family, name) == 0)
            return true;
    return false;
}

// Checks every --family name (comma lists split); returns 0 or CLI_USAGE after listing them.
static int check_families(const cli_options *opts)
{
    for (int i = 0; i < opts->nfamilies; i++) {
        char list[1024];
        snprintf(list, sizeof list, "%s", opts->families[i]);
        for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            if (family_known(name))
                continue;
            fprintf(stderr, "xconv matrix: unknown family '%s'; families:", name);
            for (int v = 0; v < xconv_variant_count(); v++) {
                const char *fam = xconv_variant_get_info(xconv_variant_at(v))->family;
                bool first = true;
                for (int k = 0; k < v && first; k++)
                    first = strcmp(xconv_variant_get_info(xconv_variant_at(k))->family, fam);
                if (first)
                    fprintf(stderr, " %s", fam);
            }
            fputc('\n', stderr);
            return CLI_USAGE;
        }
    }
    return 0;
}

// Returns true when family is one of --family's names.
static bool family_asked(const cli_options *opts, const char *family)
{
    for (int i = 0; i < opts->nfamilies; i++) {
        char list[1024];
        snprintf(list, sizeof list, "%s", opts->families[i]);
        for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
             name = strtok_r(NULL, ",", &save))
            if (strcmp(name, family) == 0)
                return true;
    }
    return false;
}

// Fills out with the variants to run on a device of `backend`: those of its backend that were
// asked for by name or family (neither given: all of them), in the registry's order. Returns
// their count.
static int variants_for(const matrix_job *job, xconv_backend_kind backend,
                        const xconv_variant **out)
{
    int n = 0;
    bool all = job->nasked == 0 && job->opts->nfamilies == 0;
    for (int i = 0; i < xconv_variant_count() && n < CLI_MAX_LIST; i++) {
        const xconv_variant *v = xconv_variant_at(i);
        const xconv_variant_info *info = xconv_variant_get_info(v);
        bool asked = all || family_asked(job->opts, info->family);
        for (int k = 0; k < job->nasked && !asked; k++)
            asked = job->asked[k] == v;
        if (asked && (info->backends & XCONV_BACKEND_BIT(backend)))
            out[n++] = v;
    }
    return n;
}

// Refuses host variants asked for by name (their records have no device); returns 0 or
// CLI_USAGE after a message.
static int check_asked(const matrix_job *job)
{
    for (int k = 0; k < job->nasked; k++) {
        const xconv_variant_info *info = xconv_variant_get_info(job->asked[k]);
        if (info->backends == 0) {
            fprintf(stderr, "xconv matrix: %s runs on the host, not on a device; the matrix "
                            "takes device variants\n", info->name);
            return CLI_USAGE;
        }
    }
    return 0;
}

// Fills job->runs with the shapes to run: each (name, SPEC) once, in the order given.
static void distinct_shapes(matrix_job *job)
{
    for (int i = 0; i < job->nshapes; i++) {
        bool seen = false;
        for (int k = 0; k < job->nruns && !seen; k++) {
            const cli_shape *a = &job->shapes[i], *b = &job->shapes[job->runs[k]];
            seen = !strcmp(a->name, b->name) && !memcmp(&a->problem, &b->problem,
                                                         sizeof a->problem);
        }
        if (!seen)
            job->runs[job->nruns++] = i;
    }
}

// ---------------------------------------------------------------------------------------------
// The run's head: devices with their peaks, shapes with their weights

// Fills the run file's devices and shapes; returns 0 or CLI_FAILED without memory.
static int make_head(matrix_job *job)
{
    xconv_run_file *run = &job->run;
    run->schema_version = XCONV_MATRIX_SCHEMA_VERSION;
    xconv_run_info_init(&run->info, job->opts->argc, job->opts->argv);
    if (gethostname(run->host, sizeof run->host) != 0)
        run->host[0] = '\0';
    run->host[sizeof run->host - 1] = '\0';
    run->devices = calloc((size_t)job->ndevices + 1, sizeof *run->devices);
    run->shapes = calloc((size_t)job->nshapes + 1, sizeof *run->shapes);
    if (!run->devices || !run->shapes)
        return CLI_FAILED;
    for (int d = 0; d < job->ndevices; d++) {
        const xconv_device_info *info = xconv_devices_info_at(job->list, job->devices[d]);
        xconv_matrix_device *md = &run->devices[run->ndevices++];
        xconv_device_label(info, md->id, sizeof md->id);
        CLI_COPY_IDENTITY(md, info);
        md->compute_units = info->compute_units;
        md->clock_mhz = info->clock_mhz;
        cli_peaks p;
        cli_peaks_lookup(&job->peaks, info, &p);
        md->peak_gflops = p.gflops;
        md->peak_gbps = p.gbps;
        md->peak_gbps_read = p.gbps_read;
        memcpy(md->peak_mma_gflops, p.mma_gflops, sizeof md->peak_mma_gflops);
        snprintf(md->peaks_source, sizeof md->peaks_source, "%s", p.source);
    }
    for (int i = 0; i < job->nshapes; i++) {
        xconv_matrix_shape *ms = &run->shapes[run->nshapes++];
        snprintf(ms->name, sizeof ms->name, "%s", job->shapes[i].name);
        xconv_shape_format(&job->shapes[i].problem, ms->shape, sizeof ms->shape);
        ms->weight = job->shapes[i].weight > 0 ? job->shapes[i].weight : 1;
        snprintf(ms->set, sizeof ms->set, "%s", job->shapes[i].set);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Records

// Appends a zeroed record to the run (unknowns NAN, auto's pick unknown); NULL without memory.
static xconv_matrix_record *add_record(matrix_job *job)
{
    xconv_run_file *run = &job->run;
    if (run->count == job->cap) {
        int cap = job->cap ? 2 * job->cap : 256;
        xconv_matrix_record *grown = realloc(run->recs, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        run->recs = grown;
        job->cap = cap;
    }
    xconv_matrix_record *m = &run->recs[run->count++];
    memset(m, 0, sizeof *m);
    xconv_record *r = &m->rec;
    r->median_ms = r->min_ms = r->max_ms = r->compile_ms = r->gflops = r->gbps = NAN;
    r->max_norm_err = r->threshold = r->floor_ms = r->floor_share = NAN;
    r->worst_index = -1;
    m->auto_pick = -1;
    return m;
}

// The cost estimate of one cell for the time left: its FLOPs plus a fixed part (builds, checks).
static double cell_work(const cli_shape *s)
{
    return xconv_problem_flops(&s->problem) + 1e8;
}

// Streams the finished record m and counts it in the progress; a worker sends it to its parent
// instead (and drops it).
static void finish_record(matrix_job *job, const xconv_matrix_record *m, double work)
{
    const xconv_record *r = &m->rec;
    if (job->worker.active) {
        cli_worker_record(&job->worker, job->sent++, m, sizeof *m);
        job->run.count--;
        return;
    }
    cli_matrix_stream_add(&job->stream, m);
    char line[1400];
    const char *shape = r->shape_name[0] ? r->shape_name : r->shape;
    bool ok = r->outcome == XCONV_OUTCOME_PASS;
    if (ok && r->repeat > 0)
        snprintf(line, sizeof line, "%s %s %s: %.4g ms", r->device, shape, r->variant,
                 r->median_ms);
    else
        snprintf(line, sizeof line, "%s %s %s: %s%s%.300s", r->device, shape, r->variant,
                 xconv_outcome_name(r->outcome), r->note[0] && !ok ? ": " : "",
                 ok ? "" : r->note);
    bool keep = r->outcome == XCONV_OUTCOME_FAIL || r->outcome == XCONV_OUTCOME_ERROR ||
                job->opts->verbose;
    cli_work_progress_done(&job->progress, work, line, keep);
}

// Adds an error record of every variant on shape s (NULL: on every shape) of device label,
// saying err.
static void add_errors(matrix_job *job, const char *label, const xconv_device_info *info,
                       const cli_shape *s, const xconv_variant *const *variants, int nvariants,
                       const xconv_error *err)
{
    for (int k = 0; k < job->nruns; k++) {
        const cli_shape *shape = &job->shapes[job->runs[k]];
        if (s && shape != s)
            continue;
        for (int v = 0; v < nvariants; v++) {
            xconv_matrix_record *m = add_record(job);
            if (!m)
                return;
            xconv_record *r = &m->rec;
            const xconv_variant_info *vi = xconv_variant_get_info(variants[v]);
            snprintf(r->device, sizeof r->device, "%s", label);
            snprintf(r->backend, sizeof r->backend, "%s", xconv_backend_name(info->backend));
            snprintf(r->driver, sizeof r->driver, "%s", info->driver);
            snprintf(r->variant, sizeof r->variant, "%s", vi->name);
            snprintf(r->family, sizeof r->family, "%s", vi->family);
            snprintf(r->shape_name, sizeof r->shape_name, "%s", shape->name);
            xconv_shape_format(&shape->problem, r->shape, sizeof r->shape);
            r->seed = job->hopts.seed;
            r->outcome = XCONV_OUTCOME_ERROR;
            snprintf(r->note, sizeof r->note, "%.*s", (int)sizeof r->note - 1, err->msg);
            finish_record(job, m, cell_work(shape));
        }
    }
}

// Returns the variant `auto` picks for p on dev ("" when it plans nothing: *known false when
// that was an error rather than "not applicable").
static const char *auto_pick(xconv_device *dev, const xconv_problem *p,
                             const xconv_plan_options *plan_opts, bool *known)
{
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, p, "auto", plan_opts, &err);
    *known = plan || err.status == XCONV_ERR_NOT_APPLICABLE;
    const char *name = plan ? xconv_variant_get_info(xconv_plan_variant(plan))->name : "";
    xconv_plan_destroy(plan);
    return name;
}

// Runs variants from v0 on shape s (cell `index` first, in the run's order) of the open device
// dev: a record each (error records when the shape could not be set up or the harness failed).
// Returns the cell after the last one run when the device was lost for good (the cells left
// must run in a new process), else -1.
static int run_shape(matrix_job *job, xconv_device *dev, const char *label,
                      const cli_peaks *peaks, const cli_shape *s, int v0, int index)
{
    xconv_error err = {0};
    const xconv_variant *const *variants = job->variants;
    int nvariants = job->nvariants;
    const xconv_device_info *info = xconv_device_get_info(dev);
    xconv_case *c = xconv_case_create(dev, &s->problem, s->name, &job->hopts, &err);
    if (!c) {
        add_errors(job, label, info, s, variants + v0, nvariants - v0, &err);
        return xconv_device_lost(dev) ? index + nvariants - v0 : -1;
    }
    bool known;
    const char *picked = auto_pick(dev, &s->problem, &job->hopts.plan, &known);
    char spec[256];
    xconv_shape_format(&s->problem, spec, sizeof spec);
    int resume = -1;
    for (int v = v0; v < nvariants && resume < 0; v++, index++) {
        const char *shape = s->name[0] ? s->name : spec;
        if (job->worker.active)
            cli_worker_begin(&job->worker, index);
        else
            cli_work_progress_show(&job->progress, shape,
                                   xconv_variant_get_info(variants[v])->name);
        xconv_matrix_record *m = add_record(job);
        if (!m)
            break;
        int fault = cli_test_fault(index);
        if (fault == CLI_TEST_ABORT)
            abort();  // a test's worker process dying
        xconv_case_set_test_fault(c, fault, NULL);
        xconv_status st = cli_case_run(c, variants[v], &m->rec, &err);
        xconv_case_set_test_fault(c, XCONV_TEST_FAULT_NONE, NULL);
        bool lost = xconv_device_lost(dev);
        if (lost)
            resume = index + 1;
        if (st != XCONV_OK) {
            job->run.count--;
            add_errors(job, label, info, s, variants + v, lost ? 1 : nvariants - v, &err);
            break;
        }
        xconv_record_set_floor(&m->rec, &s->problem, cli_peaks_gflops(peaks, s->problem.math),
                               peaks->gbps);
        m->auto_pick = known ? strcmp(picked, m->rec.variant) == 0 : -1;
        finish_record(job, m, cell_work(s));
    }
    xconv_case_destroy(c);
    return resume;
}

// Runs the current device's cells from cell `first` (in the run's order) on every shape and
// variant. Returns the cell after the last one run when the device was lost for good, else -1.
static int run_cells(matrix_job *job, int first)
{
    xconv_error err = {0};
    int d = job->device, nv = job->nvariants, local = first - job->base;
    const xconv_device_info *info = xconv_devices_info_at(job->list, job->devices[d]);
    const xconv_matrix_device *md = &job->run.devices[d];
    cli_peaks peaks = {.gflops = md->peak_gflops, .gbps = md->peak_gbps};
    memcpy(peaks.mma_gflops, md->peak_mma_gflops, sizeof peaks.mma_gflops);
    xconv_device *dev = cli_device_open_info(info, &err);
    if (!dev) {
        if (!job->worker.active)
            cli_print_error(md->id, &err);
        for (int k = local / nv; k < job->nruns; k++) {
            int v0 = k == local / nv ? local % nv : 0;
            add_errors(job, md->id, info, &job->shapes[job->runs[k]], job->variants + v0,
                       nv - v0, &err);
        }
        return -1;
    }
    xconv_device_set_cache(dev, job->cache);
    const xconv_problem *problems[CLI_MAX_SHAPES];
    int np = 0;
    for (int k = local / nv; k < job->nruns; k++)
        problems[np++] = &job->shapes[job->runs[k]].problem;
    if (!job->worker.active)
        cli_work_progress_end(&job->progress);
    cli_prebuild(job->opts, dev, job->cache, md->id, problems, np, job->variants, nv,
                 &job->hopts.plan, &job->totals);
    int resume = -1;
    for (int k = local / nv; k < job->nruns && resume < 0; k++) {
        int v0 = k == local / nv ? local % nv : 0;
        resume = run_shape(job, dev, md->id, &peaks, &job->shapes[job->runs[k]], v0,
                           job->base + k * nv + v0);
    }
    xconv_device_close(dev);  // safe on a device lost for good
    return resume;
}
// cli_isolate_ops: a worker starts cell `index` of the current device.
static void worker_begin(void *user, int index)
{
    matrix_job *job = user;
    int local = index - job->base;
    const cli_shape *s = &job->shapes[job->runs[local / job->nvariants]];
    char spec[256];
    xconv_shape_format(&s->problem, spec, sizeof spec);
    cli_work_progress_show(&job->progress, s->name[0] ? s->name : spec,
                           xconv_variant_get_info(job->variants[local % job->nvariants])->name);
}

// cli_isolate_ops: a worker's record of cell `index` is streamed as this process's own.
static void worker_record(void *user, int index, const void *rec)
{
    matrix_job *job = user;
    int local = index - job->base;
    xconv_matrix_record *m = add_record(job);
    if (!m)
        return;
    memcpy(m, rec, sizeof *m);
    finish_record(job, m, cell_work(&job->shapes[job->runs[local / job->nvariants]]));
}

// cli_isolate_ops: the worker running cell `index` died; the cell gets an error record.
static void worker_died(void *user, int index, const char *why)
{
    matrix_job *job = user;
    xconv_error err = {0};
    int local = index - job->base;
    const xconv_device_info *info = xconv_devices_info_at(job->list, job->devices[job->device]);
    xconv_error_set(&err, XCONV_ERR_DEVICE_LOST, "%s", why);
    add_errors(job, job->run.devices[job->device].id, info,
               &job->shapes[job->runs[local / job->nvariants]],
               job->variants + local % job->nvariants, 1, &err);
}

// Runs every shape and variant on device d of the job (cells from `base` in the run's order);
// when the device is lost for good, the cells left run in new processes. A worker runs its own
// device's cells from the one it was given.
static void run_device(matrix_job *job, int d, int base)
{
    job->device = d;
    job->base = base;
    job->nvariants = variants_for(job, xconv_devices_info_at(job->list, job->devices[d])->backend,
                                  job->variants);
    if (job->worker.active) {
        job->sent = job->worker.first;
        run_cells(job, job->worker.first);
        return;
    }
    int resume = run_cells(job, base), end = base + job->nruns * job->nvariants;
    if (resume < 0 || resume >= end)
        return;
    fprintf(stderr, "xconv matrix: %s was lost for good; its %d cells left run in new "
                    "processes\n", job->run.devices[d].id, end - resume);
    cli_isolate_ops ops = {.user = job, .record_bytes = sizeof(xconv_matrix_record),
                           .begin = worker_begin, .record = worker_record,
                           .died = worker_died};
    cli_isolate_run(job->opts->argv, d, resume, end, &ops);
}

// ---------------------------------------------------------------------------------------------
// The command

// Collects shapes, variants, devices and peaks into job; returns 0 or the exit code after a
// message.
static int collect(matrix_job *job, const cli_options *opts)
{
    job->opts = opts;
    if (opts->repeat < 1) {
        fprintf(stderr, "xconv matrix: --repeat must be at least 1\n");
        return CLI_USAGE;
    }
    job->shapes = calloc(CLI_MAX_SHAPES, sizeof *job->shapes);
    job->runs = calloc(CLI_MAX_SHAPES, sizeof *job->runs);
    if (!job->shapes || !job->runs)
        return CLI_FAILED;
    int rc = cli_collect_shapes(opts, "standard", job->shapes, &job->nshapes);
    if (!rc)
        rc = cli_collect_variants(opts, false, job->asked, &job->nasked);
    if (!rc)
        rc = check_asked(job);
    if (!rc)
        rc = check_families(opts);
    if (!rc)
        rc = cli_select_devices(opts, &job->list, job->devices, &job->ndevices);
    if (!rc)
        rc = cli_peaks_open(opts, &job->peaks);
    if (rc)
        return rc;
    distinct_shapes(job);
    xconv_case_options_default(&job->hopts);
    job->hopts.seed = opts->seed;
    job->hopts.repeat = opts->repeat;
    job->hopts.warmup = opts->warmup;
    job->hopts.host_ref_max_gflop = opts->host_ref_gflop;
    cli_plan_options(&job->hopts.plan);
    job->hopts.totals = &job->totals.runs;
    return make_head(job);
}

// Returns the columns the tables may use: the terminal's, else 120.
static int table_width(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col;
    return 120;
}

// Prints the tables, the network totals of the shape files and the count of failures.
static void print_summary(const matrix_job *job)
{
    xconv_matrix_write_table(stdout, &job->run, table_width());
    const char *sets[CLI_MAX_SHAPES];
    int nsets = 0;
    for (int i = 0; i < job->nshapes; i++) {
        bool seen = !job->shapes[i].from_file;
        for (int k = 0; k < nsets && !seen; k++)
            seen = strcmp(sets[k], job->shapes[i].set) == 0;
        if (!seen)
            sets[nsets++] = job->shapes[i].set;
    }
    xconv_matrix_write_networks(stdout, &job->run, sets, nsets);
}

// Frees what job holds.
static void job_free(matrix_job *job)
{
    free(job->shapes);
    free(job->runs);
    xconv_devices_free(job->list);
    cli_peaks_close(&job->peaks);
    xconv_run_file_free(&job->run);
    cli_cache_close(job->cache);
}

int cmd_matrix(const cli_options *opts)
{
    static matrix_job job;
    memset(&job, 0, sizeof job);
    int rc = cli_worker_init(&job.worker);
    if (!rc)
        rc = cli_test_fault_check();
    if (!rc)
        rc = collect(&job, opts);
    unsigned flags = 0;
    if (!rc)
        rc = cli_find_policy(opts, false, &flags);
    if (!rc)
        job.cache = cli_cache_open(opts, flags);
    if (!rc && job.worker.active) {  // a worker: one device's cells from the one given
        int base = 0;
        if (job.worker.device >= job.ndevices)
            rc = CLI_USAGE;
        for (int d = 0; !rc && d < job.worker.device; d++) {
            xconv_backend_kind be = xconv_devices_info_at(job.list, job.devices[d])->backend;
            base += job.nruns * variants_for(&job, be, job.variants);
        }
        if (!rc)
            run_device(&job, job.worker.device, base);
        job_free(&job);
        return rc;
    }
    if (!rc)
        rc = cli_matrix_stream_open(&job.stream, opts->json, opts->csv, &job.run);
    if (rc) {
        job_free(&job);
        return rc;
    }
    int cells = 0;
    double work = 0;
    for (int d = 0; d < job.ndevices; d++) {
        const xconv_variant *variants[CLI_MAX_LIST];
        int nv = variants_for(&job, xconv_devices_info_at(job.list, job.devices[d])->backend,
                              variants);
        cells += nv * job.nruns;
        for (int k = 0; k < job.nruns; k++)
            work += nv * cell_work(&job.shapes[job.runs[k]]);
    }
    fprintf(stderr, "matrix: %d devices x %d shapes, %d cells, seed %llu\n", job.ndevices,
            job.nruns, cells, (unsigned long long)job.hopts.seed);
    cli_work_progress_start(&job.progress, stderr, cells, work);
    cli_build_totals_start(&job.totals);
    for (int d = 0, base = 0; d < job.ndevices; d++) {
        run_device(&job, d, base);
        base += job.nruns * job.nvariants;
    }
    cli_work_progress_end(&job.progress);
    print_summary(&job);
    int failed = 0;
    for (int i = 0; i < job.run.count; i++)
        failed += job.run.recs[i].rec.outcome == XCONV_OUTCOME_FAIL ||
                  job.run.recs[i].rec.outcome == XCONV_OUTCOME_ERROR;
    rc = cli_matrix_stream_close(&job.stream, true);
    if (!rc && opts->json)
        printf("wrote %s\n", opts->json);
    if (!rc && opts->csv)
        printf("wrote %s\n", opts->csv);
    printf("%d record%s: %d failed or errored\n", job.run.count, cli_plural(job.run.count),
           failed);
    fflush(stdout);
    cli_build_totals_print(stderr, &job.totals);
    job_free(&job);
    return rc ? rc : failed ? CLI_FAILED : CLI_OK;
}
