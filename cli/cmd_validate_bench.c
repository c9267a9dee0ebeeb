// SPDX-License-Identifier: MIT
// `xconv validate` and `xconv bench`: every variant x shape x device, as records streamed while
// they finish.
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "interrupt.h"
#include "isolate.h"
#include "prebuild.h"
#include "stream.h"

// The variants to run on a device of backend `kind`: the ones asked for, or "auto" (NULL) and
// every device variant of the backend. Returns their number.
static int variants_for(const xconv_variant *const *asked, int nasked, xconv_backend_kind kind,
                        const xconv_variant **out)
{
    if (nasked) {
        memcpy(out, asked, sizeof *out * (size_t)nasked);
        return nasked;
    }
    int count = xconv_variant_count(), n = 0;
    out[n++] = NULL;
    unsigned bit = XCONV_BACKEND_BIT(kind);
    for (int i = 0; i < count && n < CLI_MAX_LIST; i++)
        if (xconv_variant_get_info(xconv_variant_at(i))->backends & bit)
            out[n++] = xconv_variant_at(i);
    return n;
}

// Returns the name a variant goes by in records: its own, or "auto" for NULL.
static const char *variant_label(const xconv_variant *v)
{
    return v ? xconv_variant_get_info(v)->name : "auto";
}

// Returns the name a shape goes by in tables and progress: its own, else its SPEC (in buf).
static const char *shape_label(const cli_shape *shape, char *buf, size_t len)
{
    if (shape->name[0])
        return shape->name;
    xconv_shape_format(&shape->problem, buf, len);
    return buf;
}

// Adds an error record for each variant when a device or shape could not be set up (or a case's
// worker process died) on the device info describes; the caller streams them.
static void add_setup_errors(cli_stream *out, const xconv_variant *const *variants, int n,
                             const xconv_device_info *info, uint64_t seed,
                             const cli_shape *shape, const xconv_error *err)
{
    for (int i = 0; i < n; i++) {
        xconv_record *r = cli_stream_add(out);
        if (!r)
            break;
        xconv_device_label(info, r->device, sizeof r->device);
        snprintf(r->backend, sizeof r->backend, "%s", xconv_backend_name(info->backend));
        snprintf(r->driver, sizeof r->driver, "%s", info->driver);
        const xconv_variant_info *vi = variants[i] ? xconv_variant_get_info(variants[i]) : NULL;
        snprintf(r->variant, sizeof r->variant, "%s", variant_label(variants[i]));
        snprintf(r->family, sizeof r->family, "%s", vi ? vi->family : "auto");
        if (shape) {
            snprintf(r->shape_name, sizeof r->shape_name, "%s", shape->name);
            xconv_shape_format(&shape->problem, r->shape, sizeof r->shape);
        }
        r->seed = seed;
        r->outcome = XCONV_OUTCOME_ERROR;
        snprintf(r->note, sizeof r->note, "%.*s", (int)sizeof r->note - 1, err->msg);
    }
}

// What a run of validate or bench is made of, for its devices and their worker processes.
typedef struct matrix_run {
    const cli_options *opts;
    xconv_case_options hopts;
    const xconv_devices *devices;
    const int *indices;           // the devices run, into devices
    const cli_shape *shapes;
    int nshapes;
    const xconv_variant *const *asked;
    int nasked;
    xconv_cache *cache;
    cli_peaks_source *peaks;
    cli_stream *out;
    bool both;                    // --epilogue both: each fusing plan's unfused row after it
    cli_worker worker;            // this process runs one device's cases for its parent
    int device;                   // the device running now (index into indices)
    int base;                     // its first case in the run's order
    const xconv_variant *variants[CLI_MAX_LIST];  // its variants
    int nvariants;
    char label[320];
    cli_build_totals totals;      // compile, check and run time of the run
} matrix_run;

// Says that case `index` (the run's order) starts: to the parent when this is a worker.
static void begin_case(matrix_run *m, int index, const char *shape, const char *variant)
{
    if (m->worker.active)
        cli_worker_begin(&m->worker, index);
    else
        cli_stream_begin(m->out, shape, variant, m->label);
}

// The records from list index `first` on are finished, the first of them case `index`: streamed,
// or sent to the parent (and dropped here) when this is a worker.
static void emit_cases(matrix_run *m, int first, int index)
{
    if (!m->worker.active) {
        cli_stream_emit(m->out, first);
        return;
    }
    for (int i = first; i < m->out->list.count; i++)
        cli_worker_record(&m->worker, index + i - first, &m->out->list.recs[i],
                          sizeof m->out->list.recs[i]);
    m->out->list.count = first;
}

// Runs one pass of case `index`, variant v of case c (shape s), into a new record, with the
// test fault XCONV_TEST_FAULT asks for. Returns the record's outcome, or -1 when the harness
// itself failed (no record made).
static int run_pass(matrix_run *m, xconv_case *c, const cli_shape *s, int v, int index,
                    xconv_error *err)
{
    int first = m->out->list.count;
    xconv_record *r = cli_stream_add(m->out);
    if (!r)
        return -1;
    int fault = cli_test_fault(index);
    if (fault == CLI_TEST_ABORT)
        abort();  // a test's worker process dying (tests/cli/isolation.sh)
    if (fault)
        xconv_case_set_test_fault(c, fault, NULL);
    const xconv_variant *variant = m->variants[v];
    // A vendor library's driver may write on stderr (PoCL: "1 warning generated." when it
    // compiles CLBlast's kernels): held, and said below with the case it came from.
    cli_stderr_hold hold = {-1, NULL};
    bool peer = variant && strcmp(xconv_variant_get_info(variant)->family, "peer") == 0;
    if (peer)
        cli_stderr_hold_begin(&hold);
    xconv_status st = cli_case_run(c, variant, r, err);
    char said[2048];
    cli_stderr_hold_end(&hold, said, sizeof said);
    if (said[0]) {
        char context[400], spec[256];
        snprintf(context, sizeof context, "%s on %s, what its library or driver wrote",
                 variant_label(variant), shape_label(s, spec, sizeof spec));
        cli_progress_clear(&m->out->progress);
        cli_stderr_say(said, context);
    }
    if (fault)
        xconv_case_set_test_fault(c, XCONV_TEST_FAULT_NONE, NULL);
    if (st != XCONV_OK) {
        m->out->list.count = first;
        return -1;
    }
    if (m->hopts.repeat > 0) {  // bench: the roofline floor at the device's peaks
        cli_peaks peaks = {0};
        cli_peaks_lookup(m->peaks, xconv_devices_info_at(m->devices, m->indices[m->device]),
                         &peaks);
        xconv_record_set_floor(r, &s->problem, cli_peaks_gflops(&peaks, s->problem.math),
                               peaks.gbps);
    }
    int outcome = (int)r->outcome;
    emit_cases(m, first, index);
    return outcome;
}

// Runs case `index`, variant v of case c (shape s), into its record (with --epilogue both and a
// plan that fused the shape's epilogue, its VARIANT+unfused record after it, of the same case).
// Returns false when the harness itself failed (no record made).
static bool run_case(matrix_run *m, xconv_case *c, const cli_shape *s, int v, int index,
                     xconv_error *err)
{
    bool pair = m->both && xconv_problem_has_epilogue(&s->problem);
    if (pair)
        xconv_case_set_epilogue_mode(c, XCONV_EPILOGUE_AUTO);
    int outcome = run_pass(m, c, s, v, index, err);
    if (outcome < 0)
        return false;
    const xconv_variant *variant = m->variants[v];
    bool ran = outcome == XCONV_OUTCOME_PASS || outcome == XCONV_OUTCOME_FAIL;
    if (!pair || !ran || !xconv_case_fused(c) ||
        (variant && !xconv_variant_get_info(variant)->backends) ||
        cli_stream_stopping(m->out))
        return true;  // the unfused row would repeat this one
    xconv_case_set_epilogue_mode(c, XCONV_EPILOGUE_UNFUSED);
    if (!m->worker.active) {
        char spec[256];
        cli_stream_expect(m->out, 1);
        cli_stream_begin(m->out, shape_label(s, spec, sizeof spec), variant_label(variant),
                         m->label);
    }
    outcome = run_pass(m, c, s, v, index, err);
    xconv_case_set_epilogue_mode(c, XCONV_EPILOGUE_AUTO);
    return outcome >= 0;
}

// Runs the current device's cases from case `first` (of the run's order; `base` is its first)
// on shapes and variants in order, streaming the records. Returns the case after the last one
// run when the device was lost for good (the rest must run in a new process), else -1.
static int run_cases(matrix_run *m, int base, int first)
{
    xconv_error err = {0};
    char spec[256];
    const xconv_device_info *info = xconv_devices_info_at(m->devices, m->indices[m->device]);
    int nv = m->nvariants;
    xconv_device *dev = cli_device_open_info(info, &err);
    if (!dev) {
        if (!m->worker.active)
            cli_print_error(m->label, &err);
        for (int s = (first - base) / nv; s < m->nshapes; s++) {
            int v0 = s == (first - base) / nv ? (first - base) % nv : 0, at = m->out->list.count;
            add_setup_errors(m->out, m->variants + v0, nv - v0, info, m->hopts.seed,
                             &m->shapes[s], &err);
            emit_cases(m, at, base + s * nv + v0);
        }
        return -1;
    }
    xconv_device_set_cache(dev, m->cache);
    const xconv_problem *problems[CLI_MAX_SHAPES];
    int np = 0;
    for (int s = (first - base) / nv; s < m->nshapes; s++)
        problems[np++] = &m->shapes[s].problem;
    if (!m->worker.active)
        cli_progress_clear(&m->out->progress);
    cli_prebuild(m->opts, dev, m->cache, m->label, problems, np, m->variants, nv, &m->hopts.plan,
                 &m->totals);
    int resume = -1;
    for (int s = (first - base) / nv; s < m->nshapes && resume < 0; s++) {
        if (cli_stream_stopping(m->out))
            break;
        const char *name = shape_label(&m->shapes[s], spec, sizeof spec);
        int v0 = s == (first - base) / nv ? (first - base) % nv : 0;
        if (!m->worker.active)
            cli_stream_begin(m->out, name, "(inputs)", m->label);
        xconv_case *c = xconv_case_create(dev, &m->shapes[s].problem, m->shapes[s].name,
                                          &m->hopts, &err);
        if (!c) {
            int at = m->out->list.count;
            add_setup_errors(m->out, m->variants + v0, nv - v0, info, m->hopts.seed,
                             &m->shapes[s], &err);
            emit_cases(m, at, base + s * nv + v0);
            if (xconv_device_lost(dev))
                resume = base + (s + 1) * nv;
            continue;
        }
        for (int v = v0; v < nv && resume < 0 && !cli_stream_stopping(m->out); v++) {
            int index = base + s * nv + v;
            begin_case(m, index, name, variant_label(m->variants[v]));
            if (!run_case(m, c, &m->shapes[s], v, index, &err)) {
                // The harness failed: this case errors; the rest of the shape too, unless the
                // device was lost for good (then a new process runs them).
                bool lost = xconv_device_lost(dev);
                int at = m->out->list.count;
                add_setup_errors(m->out, m->variants + v, lost ? 1 : nv - v, info, m->hopts.seed,
                                 &m->shapes[s], &err);
                emit_cases(m, at, index);
                if (lost)
                    resume = index + 1;
                break;
            }
            if (xconv_device_lost(dev))
                resume = index + 1;
        }
        xconv_case_destroy(c);
    }
    xconv_device_close(dev);  // safe on a device lost for good
    return resume;
}

// cli_isolate_ops: a worker starts case `index` of the current device.
static void worker_begin(void *user, int index)
{
    matrix_run *m = user;
    char spec[256];
    int local = index - m->base;
    const cli_shape *s = &m->shapes[local / m->nvariants];
    cli_stream_begin(m->out, shape_label(s, spec, sizeof spec),
                     variant_label(m->variants[local % m->nvariants]), m->label);
}

// cli_isolate_ops: a worker's record of case `index` is streamed as this process's own.
static void worker_record(void *user, int index, const void *rec)
{
    matrix_run *m = user;
    (void)index;
    xconv_record *r = cli_stream_add(m->out);
    if (!r)
        return;
    memcpy(r, rec, sizeof *r);
    cli_stream_emit(m->out, m->out->list.count - 1);
}

// cli_isolate_ops: the worker running case `index` died; the case gets an error record.
static void worker_died(void *user, int index, const char *why)
{
    matrix_run *m = user;
    xconv_error err = {0};
    int local = index - m->base;
    xconv_error_set(&err, XCONV_ERR_DEVICE_LOST, "%s", why);
    int first = m->out->list.count;
    add_setup_errors(m->out, m->variants + local % m->nvariants, 1,
                     xconv_devices_info_at(m->devices, m->indices[m->device]), m->hopts.seed,
                     &m->shapes[local / m->nvariants], &err);
    cli_stream_emit(m->out, first);
}

// Runs every variant on every shape on device d (cases from `base` in the run's order),
// streaming the records; when the device is lost for good, the cases left run in new processes.
// A worker runs its own device's cases from the one it was given.
static void run_device(matrix_run *m, int d, int base)
{
    const xconv_device_info *info = xconv_devices_info_at(m->devices, m->indices[d]);
    m->device = d;
    m->base = base;
    xconv_device_label(info, m->label, sizeof m->label);
    m->nvariants = variants_for(m->asked, m->nasked, info->backend, m->variants);
    if (m->worker.active) {
        run_cases(m, base, m->worker.first);
        return;
    }
    int resume = run_cases(m, base, base), end = base + m->nshapes * m->nvariants;
    if (resume < 0 || resume >= end || cli_stream_stopping(m->out))
        return;
    fprintf(stderr, "xconv: %s was lost for good; its %d cases left run in new processes\n",
            m->label, end - resume);
    cli_isolate_ops ops = {.user = m, .record_bytes = sizeof(xconv_record),
                           .begin = worker_begin, .record = worker_record,
                           .died = worker_died};
    cli_isolate_run(m->opts->argv, d, resume, end, &ops);
}

// Counts the cases of the run and widens the table for every name it will show.
static int plan_run(const xconv_devices *devices, const int *indices, int ndevices,
                    const cli_shape *shapes, int nshapes, const xconv_variant *const *asked,
                    int nasked, bool both, cli_stream *out)
{
    int total = 0;
    xconv_record r;
    for (int d = 0; d < ndevices; d++) {
        const xconv_device_info *info = xconv_devices_info_at(devices, indices[d]);
        const xconv_variant *variants[CLI_MAX_LIST];
        int nvariants = variants_for(asked, nasked, info->backend, variants);
        total += nshapes * nvariants;
        if (!out)
            continue;
        for (int v = 0; v < nvariants; v++) {
            xconv_record_clear(&r);
            xconv_device_label(info, r.device, sizeof r.device);
            snprintf(r.backend, sizeof r.backend, "%s", xconv_backend_name(info->backend));
            snprintf(r.variant, sizeof r.variant, "%s%s", variant_label(variants[v]),
                     both ? "+unfused" : "");
            cli_stream_fit(out, &r);
        }
    }
    for (int s = 0; out && s < nshapes; s++) {
        xconv_record_clear(&r);
        snprintf(r.shape_name, sizeof r.shape_name, "%s", shapes[s].name);
        xconv_shape_format(&shapes[s].problem, r.shape, sizeof r.shape);
        snprintf(r.device, sizeof r.device, "host");
        snprintf(r.backend, sizeof r.backend, "host");
        cli_stream_fit(out, &r);
    }
    return total;
}

// Runs the devices' cases as a worker process for its parent: device m->worker.device only,
// from the case it was given, its records sent through the pipe. Returns the exit code.
static int run_worker(matrix_run *m, int ndevices)
{
    if (m->worker.device >= ndevices) {
        fprintf(stderr, "xconv: XCONV_WORKER names device %d of %d\n", m->worker.device,
                ndevices);
        return CLI_USAGE;
    }
    static cli_stream out;  // the list alone: no outputs, rows or progress
    memset(&out, 0, sizeof out);
    xconv_record_list_init(&out.list, m->opts->argc, m->opts->argv);
    m->out = &out;
    cli_interrupt_install();
    int base = 0;
    for (int d = 0; d < m->worker.device; d++)
        base += m->nshapes * variants_for(m->asked, m->nasked,
                                          xconv_devices_info_at(m->devices, m->indices[d])->backend,
                                          m->variants);
    run_device(m, m->worker.device, base);
    xconv_record_list_free(&out.list);
    return CLI_OK;
}

static int run_matrix(const cli_options *opts, bool timing)
{
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    int nshapes = 0;
    static matrix_run m;
    memset(&m, 0, sizeof m);
    const xconv_variant *asked[CLI_MAX_LIST];
    int rc = shapes ? cli_collect_shapes(opts, "small", shapes, &nshapes) : CLI_FAILED;
    if (!rc)
        rc = cli_collect_variants(opts, true, asked, &m.nasked);
    unsigned flags = 0;
    if (!rc)
        rc = cli_find_policy(opts, false, &flags);
    xconv_case_options_default(&m.hopts);
    cli_plan_options(&m.hopts.plan);
    if (!rc)
        rc = cli_epilogue_mode(opts, true, &m.hopts.plan, &m.both);
    if (!rc)
        rc = cli_worker_init(&m.worker);
    if (!rc)
        rc = cli_test_fault_check();
    xconv_devices *devices = NULL;
    int indices[CLI_MAX_LIST], ndevices = 0;
    if (!rc)
        rc = cli_select_devices(opts, &devices, indices, &ndevices);
    static cli_peaks_source peaks_src;  // bench's floors
    if (!rc && timing)
        rc = cli_peaks_open(opts, &peaks_src);
    static cli_stream out;
    if (!rc && !m.worker.active) {
        int total = plan_run(devices, indices, ndevices, shapes, nshapes, asked, m.nasked, m.both,
                             NULL);
        rc = cli_stream_open(&out, opts, total, timing, false, true);
    }
    if (rc) {
        cli_peaks_close(&peaks_src);
        free(shapes);
        xconv_devices_free(devices);
        return rc;
    }
    m.opts = opts;
    m.devices = devices;
    m.indices = indices;
    m.shapes = shapes;
    m.nshapes = nshapes;
    m.asked = asked;
    m.peaks = &peaks_src;
    m.out = &out;
    m.hopts.seed = opts->seed;
    m.hopts.repeat = timing ? opts->repeat : 0;
    m.hopts.warmup = opts->warmup;
    m.hopts.host_ref_max_gflop = opts->host_ref_gflop;
    m.hopts.pitfall = opts->pitfall ? xconv_pitfall_parse(opts->pitfall) : XCONV_PITFALL_NONE;
    m.cache = cli_cache_open(opts, flags);
    m.hopts.totals = &m.totals.runs;
    cli_build_totals_start(&m.totals);
    if (m.worker.active) {
        rc = run_worker(&m, ndevices);
        cli_cache_close(m.cache);
        cli_peaks_close(&peaks_src);
        free(shapes);
        xconv_devices_free(devices);
        return rc;
    }
    plan_run(devices, indices, ndevices, shapes, nshapes, asked, m.nasked, m.both, &out);
    fprintf(stderr, "seed %llu\n", (unsigned long long)m.hopts.seed);
    for (int d = 0, base = 0; d < ndevices && !cli_stream_stopping(&out); d++) {
        run_device(&m, d, base);
        base += nshapes * m.nvariants;
    }
    cli_cache_close(m.cache);
    cli_peaks_close(&peaks_src);
    rc = m.nasked ? cli_stream_require_run(&out) : 0;
    free(shapes);
    xconv_devices_free(devices);
    rc = cli_stream_close(&out, rc);
    cli_build_totals_print(stderr, &m.totals);
    return rc;
}

int cmd_validate(const cli_options *opts)
{
    if (opts->parity)
        return cmd_parity(opts);
    return run_matrix(opts, false);
}

int cmd_bench(const cli_options *opts)
{
    if (opts->repeat < 1) {
        cli_error("--repeat must be at least 1");
        return CLI_USAGE;
    }
    if (opts->pitfall && xconv_pitfall_parse(opts->pitfall) < 0) {
        fprintf(stderr, "xconv bench: --pitfall takes none, first-run, no-sync, host-sync or "
                        "mean, not '%s'\n", opts->pitfall);
        return CLI_USAGE;
    }
    bool shapes = opts->nshapes || opts->nsuites || opts->nvariants || opts->nshape_files ||
                  opts->random;
    if (opts->fft && (shapes || opts->gemm)) {
        cli_error("--fft times 2-D FFTs alone; leave out --shape, --shapes, --suite, --random, "
                  "--variant and --gemm");
        return CLI_USAGE;
    }
    if (opts->gemm && shapes) {
        cli_error("--gemm times SGEMM alone; leave out --shape, --shapes, --suite, --random and "
                  "--variant");
        return CLI_USAGE;
    }
    if (opts->gemm)
        return cmd_bench_gemm(opts);
    if (opts->fft)
        return cmd_bench_fft(opts);
    return run_matrix(opts, true);
}
