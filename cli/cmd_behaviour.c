// SPDX-License-Identifier: MIT
// `xconv behaviour`: the behaviour report of every variant on every stack asked for (accuracy,
// determinism, special values, signed zeros, denormals, agreement across stacks, rounding
// controls) as tables and JSON (docs/behaviour.md).
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/behaviour.h"
#include "behaviour_run.h"
#include "cli.h"
#include "output.h"

// Prints where the run is, on one line of stderr.
static void show_progress(void *user, int done, int total, const char *what)
{
    (void)user;
    fprintf(stderr, "\r[%d/%d] %-60.60s", done + 1, total, what);
}

// Fills indices with the devices --device names: every device for "all", else as
// cli_select_devices. Returns 0 or an exit code after a message.
static int select_stacks(const cli_options *opts, xconv_devices **list, int *indices,
                         int *count)
{
    bool all = false;
    for (int i = 0; i < opts->ndevices; i++)
        all |= strcmp(opts->devices[i], "all") == 0;
    if (!all) {
        int rc = cli_select_devices(opts, list, indices, count), kept = 0;
        for (int i = 0; !rc && i < *count; i++) {  // a device named twice is one stack
            bool seen = false;
            for (int k = 0; k < kept; k++)
                seen |= indices[k] == indices[i];
            if (!seen)
                indices[kept++] = indices[i];
        }
        if (!rc)
            *count = kept;
        return rc;
    }
    xconv_error err = {0};
    if (!(*list = xconv_devices_enumerate(XCONV_BACKENDS_ALL, &err))) {
        cli_print_error(NULL, &err);
        return CLI_FAILED;
    }
    *count = 0;
    for (int i = 0; i < xconv_devices_count(*list) && *count < CLI_MAX_LIST; i++)
        indices[(*count)++] = i;
    if (*count == 0) {
        fprintf(stderr, "xconv behaviour: --device all: no device found\n");
        return CLI_FAILED;
    }
    return 0;
}

// The variants to report: the ones asked for, else every variant that runs on a device.
static int pick_variants(const cli_options *opts, const xconv_variant **variants, int *count)
{
    int rc = cli_collect_variants(opts, false, variants, count);
    for (int i = 0; !rc && opts->nvariants == 0 && i < xconv_variant_count(); i++)
        if (xconv_variant_get_info(xconv_variant_at(i))->backends && *count < CLI_MAX_LIST)
            variants[(*count)++] = xconv_variant_at(i);
    return rc;
}

// cli_output_write's writer of the JSON.
static int write_json(FILE *f, const void *ctx)
{
    return xconv_behaviour_write_json(f, ctx);
}

// Opens the selected devices into devs; returns 0 or CLI_FAILED after a message.
static int open_devices(const xconv_devices *list, const int *indices, int n,
                        xconv_device **devs)
{
    xconv_error err = {0};
    for (int i = 0; i < n; i++) {
        devs[i] = cli_device_open_info(xconv_devices_info_at(list, indices[i]), &err);
        if (!devs[i]) {
            char label[320];
            xconv_device_label(xconv_devices_info_at(list, indices[i]), label, sizeof label);
            cli_print_error(label, &err);
            return CLI_FAILED;
        }
    }
    return 0;
}

// Measures the report of the shapes and variants on the open devices and writes it (to json when
// given); returns 0 or an exit code.
static int report(const cli_options *opts, xconv_device *const *devs, int ndevs,
                  const cli_shape *shapes, int nshapes, const xconv_variant *const *variants,
                  int nvariants, const cli_output *json)
{
    xconv_error err = {0};
    xconv_problem *problems = calloc((size_t)nshapes + 1, sizeof *problems);
    const char **names = calloc((size_t)nshapes + 1, sizeof *names);
    if (!problems || !names) {
        free(problems);
        free(names);
        fprintf(stderr, "xconv behaviour: no memory\n");
        return CLI_FAILED;
    }
    for (int i = 0; i < nshapes; i++) {
        problems[i] = shapes[i].problem;
        names[i] = shapes[i].name;
    }
    xconv_behaviour_opts bopts;
    xconv_behaviour_opts_default(&bopts);
    bopts.seed = opts->seed;
    bopts.host_ref_max_gflop = opts->host_ref_gflop;
    cli_plan_options(&bopts.plan);
    bopts.progress = show_progress;
    xconv_behaviour_run run;
    xconv_status st = xconv_behaviour_measure(devs, ndevs, problems, names, nshapes, variants,
                                              nvariants, &bopts, &run, &err);
    fprintf(stderr, "\r%75s\r", "");
    free(problems);
    free(names);
    if (st != XCONV_OK) {
        cli_print_error("behaviour", &err);
        return st == XCONV_ERR_INVALID ? CLI_USAGE : CLI_FAILED;
    }
    for (int v = 0; opts->nvariants && v < nvariants; v++) {
        const char *name = xconv_variant_get_info(variants[v])->name;
        bool found = false;
        for (int i = 0; i < run.count && !found; i++)
            found = strcmp(run.recs[i].variant, name) == 0;
        if (!found)
            fprintf(stderr, "xconv behaviour: %s runs on none of the stacks asked for\n", name);
    }
    xconv_run_info_init(&run.info, opts->argc, opts->argv);
    if (gethostname(run.host, sizeof run.host) != 0)
        run.host[0] = '\0';
    run.host[sizeof run.host - 1] = '\0';
    xconv_behaviour_write_table(stdout, &run);
    int rc = 0;
    if (json && !(rc = cli_output_write(json, write_json, &run)) && !json->to_stdout)
        printf("wrote %s\n", json->path);
    printf("%d records on %d stack%s, %d comparisons across stacks\n", run.count, run.nstacks,
           run.nstacks == 1 ? "" : "s", run.nagree);
    xconv_behaviour_run_free(&run);
    return rc;
}

int cmd_behaviour(const cli_options *opts)
{
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    xconv_devices *list = NULL;
    const xconv_variant *variants[CLI_MAX_LIST];
    int nshapes = 0, nvariants = 0, indices[CLI_MAX_LIST], ndevs = 0;
    int rc = shapes ? cli_collect_shapes(opts, "small", shapes, &nshapes) : CLI_FAILED;
    if (!rc)
        rc = pick_variants(opts, variants, &nvariants);
    cli_output json;  // checked before any work
    if (!rc && opts->json)
        rc = cli_output_check("--json", opts->json, false, &json);
    if (!rc)
        rc = select_stacks(opts, &list, indices, &ndevs);
    xconv_device *devs[CLI_MAX_LIST] = {0};
    if (!rc)
        rc = open_devices(list, indices, ndevs, devs);
    if (!rc)
        rc = report(opts, devs, ndevs, shapes, nshapes, variants, nvariants,
                    opts->json ? &json : NULL);
    for (int i = 0; i < ndevs; i++)
        xconv_device_close(devs[i]);
    free(shapes);
    xconv_devices_free(list);
    return rc;
}
