// SPDX-License-Identifier: MIT
// `xconv validate` and `xconv bench`: every variant x shape x device, as records.
#include <stdlib.h>
#include <string.h>

#include "../validate/harness.h"
#include "cli.h"

// The variants to run on a device: the ones asked for, or every device variant of its backend.
static int variants_for(const xconv_variant *const *asked, int nasked, const xconv_device *dev,
                        const xconv_variant **out)
{
    if (nasked) {
        memcpy(out, asked, sizeof *out * (size_t)nasked);
        return nasked;
    }
    int count = xconv_variant_count(), n = 0;
    unsigned bit = XCONV_BACKEND_BIT(xconv_device_get_info(dev)->backend);
    for (int i = 0; i < count && n < CLI_MAX_LIST; i++)
        if (xconv_variant_get_info(xconv_variant_at(i))->backends & bit)
            out[n++] = xconv_variant_at(i);
    return n;
}

static void progress(const cli_options *opts, int done, const xconv_record *r)
{
    if (!opts->verbose && r->outcome == XCONV_OUTCOME_PASS)
        fprintf(stderr, "\r[%d] %-24s %-14s %-5s", done, r->variant,
                r->shape_name[0] ? r->shape_name : "shape", xconv_outcome_name(r->outcome));
    else
        fprintf(stderr, "\r[%d] %s %s %s: %s %s\n", done, r->device, r->variant,
                r->shape_name[0] ? r->shape_name : r->shape, xconv_outcome_name(r->outcome),
                r->note);
}

// Adds an error record for each variant when a device or shape could not be set up.
static void add_setup_errors(xconv_record_list *list, const xconv_variant *const *variants, int n,
                             const char *device, const cli_shape *shape, const xconv_error *err)
{
    for (int i = 0; i < n; i++) {
        xconv_record *r = xconv_record_list_add(list);
        if (!r)
            return;
        snprintf(r->device, sizeof r->device, "%s", device);
        const xconv_variant_info *info = xconv_variant_get_info(variants[i]);
        snprintf(r->variant, sizeof r->variant, "%s", info->name);
        snprintf(r->family, sizeof r->family, "%s", info->family);
        if (shape) {
            snprintf(r->shape_name, sizeof r->shape_name, "%s", shape->name);
            xconv_shape_format(&shape->problem, r->shape, sizeof r->shape);
        }
        r->outcome = XCONV_OUTCOME_ERROR;
        r->worst_index = -1;
        snprintf(r->note, sizeof r->note, "%.*s", (int)sizeof r->note - 1, err->msg);
    }
}

static void run_device(const cli_options *opts, const xconv_harness_opts *hopts,
                       const xconv_device_info *info, const cli_shape *shapes, int nshapes,
                       const xconv_variant *const *asked, int nasked, xconv_record_list *list)
{
    static xconv_error err;
    char label[320];
    xconv_device_label(info, label, sizeof label);
    xconv_device *dev = xconv_device_open_info(info, &err);
    if (!dev) {
        cli_print_error(label, &err);
        add_setup_errors(list, asked, nasked, label, NULL, &err);
        return;
    }
    const xconv_variant *variants[CLI_MAX_LIST];
    int nvariants = variants_for(asked, nasked, dev, variants);
    for (int s = 0; s < nshapes; s++) {
        xconv_case *c = xconv_case_create(dev, &shapes[s].problem, shapes[s].name, hopts, &err);
        if (!c) {
            add_setup_errors(list, variants, nvariants, label, &shapes[s], &err);
            continue;
        }
        for (int v = 0; v < nvariants; v++) {
            xconv_record *r = xconv_record_list_add(list);
            if (!r)
                break;
            if (xconv_case_run(c, variants[v], r, &err) != XCONV_OK) {
                list->count--;
                add_setup_errors(list, variants + v, nvariants - v, label, &shapes[s], &err);
                break;
            }
            progress(opts, list->count, r);
        }
        xconv_case_destroy(c);
    }
    xconv_device_close(dev);
}

static int run_matrix(const cli_options *opts, bool timing)
{
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    int nshapes = 0;
    const xconv_variant *asked[CLI_MAX_LIST];
    int nasked = 0;
    int rc = shapes ? cli_collect_shapes(opts, "small", shapes, &nshapes) : CLI_FAILED;
    if (!rc)
        rc = cli_collect_variants(opts, false, asked, &nasked);
    xconv_device_list *devices = calloc(1, sizeof *devices);
    int indices[CLI_MAX_LIST], ndevices = 0;
    if (!rc)
        rc = devices ? cli_select_devices(opts, devices, indices, &ndevices) : CLI_FAILED;
    if (rc) {
        free(shapes);
        free(devices);
        return rc;
    }
    xconv_harness_opts hopts;
    xconv_harness_opts_default(&hopts);
    hopts.seed = opts->seed;
    hopts.repeat = timing ? opts->repeat : 0;
    hopts.warmup = opts->warmup;
    hopts.host_ref_max_gflop = opts->host_ref_gflop;
    cli_plan_options(&hopts.plan);
    fprintf(stderr, "seed %llu\n", (unsigned long long)hopts.seed);

    xconv_record_list list;
    xconv_record_list_init(&list, opts->argc, opts->argv);
    for (int d = 0; d < ndevices; d++)
        run_device(opts, &hopts, &devices->devices[indices[d]], shapes, nshapes, asked, nasked,
                   &list);
    fprintf(stderr, "\r%60s\r", "");
    xconv_records_write_table(stdout, list.recs, list.count, timing);

    int failed = xconv_record_list_failed(&list);
    if (cli_write_records(&list, opts))
        rc = CLI_FAILED;
    printf("%d records: %d failed or errored\n", list.count, failed);
    xconv_record_list_free(&list);
    free(shapes);
    free(devices);
    return rc ? rc : failed ? CLI_FAILED : CLI_OK;
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
        fprintf(stderr, "xconv bench: --repeat must be at least 1\n");
        return CLI_USAGE;
    }
    if (opts->gemm && !opts->fft)
        return cmd_bench_gemm(opts);
    if (opts->fft)
        return cmd_bench_fft(opts);
    return run_matrix(opts, true);
}
