// SPDX-License-Identifier: MIT
// `xconv validate` and `xconv bench`: every variant x shape x device, as records streamed while
// they finish.
#include <stdlib.h>
#include <string.h>

#include "../validate/harness.h"
#include "cli.h"
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

// Adds an error record for each variant when a device or shape could not be set up.
static void add_setup_errors(cli_stream *out, const xconv_variant *const *variants, int n,
                             const char *device, const cli_shape *shape, const xconv_error *err)
{
    int first = out->list.count;
    for (int i = 0; i < n; i++) {
        xconv_record *r = cli_stream_add(out);
        if (!r)
            break;
        snprintf(r->device, sizeof r->device, "%s", device);
        const xconv_variant_info *info = variants[i] ? xconv_variant_get_info(variants[i]) : NULL;
        snprintf(r->variant, sizeof r->variant, "%s", variant_label(variants[i]));
        snprintf(r->family, sizeof r->family, "%s", info ? info->family : "auto");
        if (shape) {
            snprintf(r->shape_name, sizeof r->shape_name, "%s", shape->name);
            xconv_shape_format(&shape->problem, r->shape, sizeof r->shape);
        }
        r->outcome = XCONV_OUTCOME_ERROR;
        snprintf(r->note, sizeof r->note, "%.*s", (int)sizeof r->note - 1, err->msg);
    }
    cli_stream_emit(out, first);
}

// Runs variant v (NULL: auto) on case c into records streamed to out (and, with both and an
// epilogue the plan fused, its VARIANT+unfused row after it); bench's records get their roofline
// floor at peaks. Returns false when the harness failed (records of the rest of the shape's
// variants then say why).
static bool run_variant(xconv_case *c, const xconv_variant *v, bool both, const cli_shape *shape,
                        const char *name, const char *device, bool timing, const cli_peaks *peaks,
                        cli_stream *out, xconv_error *err)
{
    for (int pass = 0; pass < (both ? 2 : 1) && !cli_stream_stopping(out); pass++) {
        if (both)
            xconv_case_set_epilogue_mode(c, pass ? XCONV_EPILOGUE_UNFUSED : XCONV_EPILOGUE_AUTO);
        if (pass)
            cli_stream_expect(out, 1);
        cli_stream_begin(out, name, variant_label(v), device);
        int first = out->list.count;
        xconv_record *r = cli_stream_add(out);
        if (!r)
            return true;
        xconv_status st = v ? xconv_case_run(c, v, r, err) : xconv_case_run_auto(c, r, err);
        if (st != XCONV_OK) {
            out->list.count--;
            return false;
        }
        if (timing)  // bench: the roofline floor at the device's peaks
            xconv_record_set_floor(r, &shape->problem, peaks->gflops, peaks->gbps);
        cli_stream_emit(out, first);
        bool ran = r->outcome == XCONV_OUTCOME_PASS || r->outcome == XCONV_OUTCOME_FAIL;
        if (!ran || !xconv_case_fused(c) || (v && !xconv_variant_get_info(v)->backends))
            break;  // the unfused row would repeat this one
    }
    return true;
}

// Runs every variant on every shape on the device info describes, streaming the records (with
// both, each fusing plan's unfused row too); bench's records get their roofline floor at peaks.
static void run_device(const xconv_harness_opts *hopts, bool both, const xconv_device_info *info,
                       const cli_shape *shapes, int nshapes, const xconv_variant *const *asked,
                       int nasked, xconv_cache *cache, const cli_peaks *peaks, cli_stream *out)
{
    static xconv_error err;
    char label[320], spec[256];
    xconv_device_label(info, label, sizeof label);
    const xconv_variant *variants[CLI_MAX_LIST];
    int nvariants = variants_for(asked, nasked, info->backend, variants);
    xconv_device *dev = xconv_device_open_info(info, &err);
    if (!dev) {
        cli_print_error(label, &err);
        for (int s = 0; s < nshapes; s++)
            add_setup_errors(out, variants, nvariants, label, &shapes[s], &err);
        return;
    }
    xconv_device_set_cache(dev, cache);
    for (int s = 0; s < nshapes && !cli_stream_stopping(out); s++) {
        const char *name = shape_label(&shapes[s], spec, sizeof spec);
        cli_stream_begin(out, name, "(inputs)", label);
        xconv_case *c = xconv_case_create(dev, &shapes[s].problem, shapes[s].name, hopts, &err);
        if (!c) {
            add_setup_errors(out, variants, nvariants, label, &shapes[s], &err);
            continue;
        }
        bool pair = both && xconv_problem_has_epilogue(&shapes[s].problem);
        for (int v = 0; v < nvariants && !cli_stream_stopping(out); v++) {
            if (!run_variant(c, variants[v], pair, &shapes[s], name, label, hopts->repeat > 0,
                             peaks, out, &err)) {
                add_setup_errors(out, variants + v, nvariants - v, label, &shapes[s], &err);
                break;
            }
        }
        xconv_case_destroy(c);
    }
    xconv_device_close(dev);
}

// Counts the cases of the run and widens the table for every name it will show (with both, the
// unfused rows' VARIANT+unfused too).
static int plan_run(const xconv_device_list *devices, const int *indices, int ndevices,
                    const cli_shape *shapes, int nshapes, const xconv_variant *const *asked,
                    int nasked, bool both, cli_stream *out)
{
    int total = 0;
    xconv_record r;
    for (int d = 0; d < ndevices; d++) {
        const xconv_device_info *info = &devices->devices[indices[d]];
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

static int run_matrix(const cli_options *opts, bool timing)
{
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    int nshapes = 0;
    const xconv_variant *asked[CLI_MAX_LIST];
    int nasked = 0;
    int rc = shapes ? cli_collect_shapes(opts, "small", shapes, &nshapes) : CLI_FAILED;
    if (!rc)
        rc = cli_collect_variants(opts, true, asked, &nasked);
    unsigned flags = 0;
    if (!rc)
        rc = cli_find_policy(opts, false, &flags);
    xconv_harness_opts hopts;
    xconv_harness_opts_default(&hopts);
    cli_plan_options(&hopts.plan);
    bool both = false;
    if (!rc)
        rc = cli_epilogue_mode(opts, true, &hopts.plan, &both);
    xconv_device_list *devices = calloc(1, sizeof *devices);
    int indices[CLI_MAX_LIST], ndevices = 0;
    if (!rc)
        rc = devices ? cli_select_devices(opts, devices, indices, &ndevices) : CLI_FAILED;
    static cli_peaks_source peaks_src;  // bench's floors
    if (!rc && timing)
        rc = cli_peaks_open(opts, &peaks_src);
    cli_stream out;
    if (!rc) {
        int total =
            plan_run(devices, indices, ndevices, shapes, nshapes, asked, nasked, both, NULL);
        rc = cli_stream_open(&out, opts, total, timing, false, true);
    }
    if (rc) {
        cli_peaks_close(&peaks_src);
        free(shapes);
        free(devices);
        return rc;
    }
    plan_run(devices, indices, ndevices, shapes, nshapes, asked, nasked, both, &out);
    hopts.seed = opts->seed;
    hopts.repeat = timing ? opts->repeat : 0;
    hopts.warmup = opts->warmup;
    hopts.host_ref_max_gflop = opts->host_ref_gflop;
    hopts.pitfall = opts->pitfall ? xconv_pitfall_parse(opts->pitfall) : XCONV_PITFALL_NONE;
    fprintf(stderr, "seed %llu\n", (unsigned long long)hopts.seed);
    xconv_cache *cache = cli_cache_open(opts, flags);
    for (int d = 0; d < ndevices && !cli_stream_stopping(&out); d++) {
        cli_peaks peaks = {0};
        if (timing)
            cli_peaks_lookup(&peaks_src, &devices->devices[indices[d]], &peaks);
        run_device(&hopts, both, &devices->devices[indices[d]], shapes, nshapes, asked, nasked,
                   cache, &peaks, &out);
    }
    cli_cache_close(cache);
    cli_peaks_close(&peaks_src);
    rc = nasked ? cli_stream_require_run(&out) : 0;
    free(shapes);
    free(devices);
    return cli_stream_close(&out, rc);
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
    if (opts->gemm && !opts->fft)
        return cmd_bench_gemm(opts);
    if (opts->fft)
        return cmd_bench_fft(opts);
    return run_matrix(opts, true);
}
