// SPDX-License-Identifier: MIT
// Helpers the commands share: collecting shapes, variants and devices, planning options from
// the environment, writing files safely.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void cli_print_error(const char *context, const xconv_error *err)
{
    fprintf(stderr, "xconv: %s: %s\n", context, err->msg);
}

// Appends the shapes of shape file path to shapes (*count so far); returns 0 or CLI_USAGE after
// printing why.
static int collect_file(const char *path, cli_shape *shapes, int *count)
{
    static xconv_error err;
    xconv_shape_entry *entries = NULL;
    int n = 0;
    if (xconv_shapes_read(path, &entries, &n, &err) != XCONV_OK) {
        cli_print_error("--shapes", &err);
        return CLI_USAGE;
    }
    if (*count + n > CLI_MAX_SHAPES) {
        fprintf(stderr, "xconv: --shapes %s: %d shapes with the %d before them pass the limit of "
                        "%d a run\n", path, n, *count, CLI_MAX_SHAPES);
        xconv_shapes_free(entries);
        return CLI_USAGE;
    }
    for (int i = 0; i < n; i++) {
        cli_shape *s = &shapes[(*count)++];
        snprintf(s->name, sizeof s->name, "%s", entries[i].name);
        s->problem = entries[i].problem;
        s->weight = entries[i].weight;
    }
    xconv_shapes_free(entries);
    return 0;
}

// Appends the --random shapes rand0..randN-1 of --seed to shapes, printing each on stderr.
// Returns 0 or CLI_USAGE when they do not fit beside the others.
static int collect_random(const cli_options *opts, cli_shape *shapes, int *count)
{
    if (opts->random > CLI_MAX_SHAPES - *count) {
        fprintf(stderr, "xconv: --random %d: at most %d shapes in all\n", opts->random,
                CLI_MAX_SHAPES);
        return CLI_USAGE;
    }
    static xconv_error err;
    for (int i = 0; i < opts->random; i++) {
        cli_shape *s = &shapes[(*count)++];
        snprintf(s->name, sizeof s->name, "rand%d", i);
        if (xconv_shape_random(opts->seed, i, &s->problem, &err) != XCONV_OK) {
            cli_print_error(s->name, &err);
            return CLI_FAILED;
        }
        char spec[256];
        xconv_shape_format(&s->problem, spec, sizeof spec);
        fprintf(stderr, "%s: %s\n", s->name, spec);
    }
    return 0;
}

int cli_collect_shapes(const cli_options *opts, const char *default_suite, cli_shape *shapes,
                       int *count)
{
    *count = 0;
    const char *suites[CLI_MAX_LIST];
    int nsuites = opts->nsuites;
    memcpy(suites, opts->suites, sizeof(const char *) * (size_t)nsuites);
    if (nsuites == 0 && opts->nshapes == 0 && opts->nshape_files == 0 && opts->random == 0 &&
        default_suite)
        suites[nsuites++] = default_suite;
    static xconv_error err;
    for (int i = 0; i < nsuites; i++) {
        int n = 0;
        const xconv_named_shape *suite = xconv_suite_find(suites[i], &n);
        if (!suite) {
            fprintf(stderr, "xconv: unknown suite '%s'; suites:", suites[i]);
            for (const char *const *name = xconv_suite_names(); *name; name++)
                fprintf(stderr, " %s", *name);
            fputc('\n', stderr);
            return CLI_USAGE;
        }
        for (int j = 0; j < n && *count < CLI_MAX_SHAPES; j++) {
            cli_shape *s = &shapes[(*count)++];
            snprintf(s->name, sizeof s->name, "%s", suite[j].name);
            s->weight = 1;
            if (xconv_shape_parse(suite[j].spec, &s->problem, &err) != XCONV_OK) {
                cli_print_error(suite[j].name, &err);
                return CLI_FAILED;
            }
        }
    }
    for (int i = 0; i < opts->nshapes && *count < CLI_MAX_SHAPES; i++) {
        cli_shape *s = &shapes[(*count)++];
        s->name[0] = '\0';
        s->weight = 1;
        if (xconv_shape_parse(opts->shapes[i], &s->problem, &err) != XCONV_OK) {
            cli_print_error("--shape", &err);
            return CLI_USAGE;
        }
    }
    for (int i = 0; i < opts->nshape_files; i++)
        if (collect_file(opts->shape_files[i], shapes, count))
            return CLI_USAGE;
    return collect_random(opts, shapes, count);
}

int cli_shape_from_file(const char *path, xconv_problem *p, unsigned *seen)
{
    static xconv_error err;
    xconv_shape_entry *entries = NULL;
    int n = 0;
    if (xconv_shapes_read(path, &entries, &n, &err) != XCONV_OK) {
        cli_print_error("--shapes", &err);
        return CLI_USAGE;
    }
    if (n != 1)
        fprintf(stderr, "xconv: --shapes %s holds %d shapes; this command takes one\n", path, n);
    else
        *p = entries[0].problem;
    *seen = ~0u;
    xconv_shapes_free(entries);
    return n == 1 ? 0 : CLI_USAGE;
}

int cli_collect_variants(const cli_options *opts, bool allow_auto,
                         const xconv_variant **variants, int *count)
{
    *count = 0;
    static xconv_error err;
    for (int i = 0; i < opts->nvariants; i++) {
        char list[1024];
        snprintf(list, sizeof list, "%s", opts->variants[i]);
        for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            bool is_auto = allow_auto && strcmp(name, "auto") == 0;
            const xconv_variant *v = is_auto ? NULL : xconv_variant_find(name, &err);
            if (!v && !is_auto) {
                cli_print_error("--variant", &err);
                return CLI_USAGE;
            }
            if (*count < CLI_MAX_LIST)
                variants[(*count)++] = v;
        }
    }
    return 0;
}

void cli_plan_options(xconv_plan_options *plan)
{
    xconv_plan_options_default(plan);
    const char *direct = getenv("XCONV_DIRECT_PLAN"), *tiles = getenv("XCONV_GEMM_TILES");
    const char *chunk = getenv("XCONV_GEMM_CHUNK"), *split = getenv("XCONV_GEMM_SPLIT");
    plan->direct_tiling = direct && *direct ? direct : NULL;
    plan->gemm_tiles = tiles && *tiles ? tiles : NULL;
    plan->batch_chunk = chunk && atoll(chunk) > 0 ? atoll(chunk) : 0;
    plan->gemm_split_k = split && *split ? atoi(split) : 0;  // out of range: the planner says
}

int cli_select_devices(const cli_options *opts, xconv_device_list *list, int *indices,
                       int *count)
{
    xconv_devices_list(list);
    *count = 0;
    static xconv_error err;
    int nsel = opts->ndevices ? opts->ndevices : 1;
    for (int i = 0; i < nsel; i++) {
        // The library reads no environment: XCONV_DEVICE is the CLI's default selector.
        const char *sel = opts->ndevices ? opts->devices[i] : getenv("XCONV_DEVICE");
        int index = xconv_device_select(list, sel, &err);
        if (index < 0) {
            cli_print_error("--device", &err);
            if (list->count == 0) {
                fprintf(stderr, "xconv: no device: install an OpenCL driver (Debian: "
                                "pocl-opencl-icd for the CPU) or an NVIDIA driver for CUDA\n");
                return CLI_FAILED;
            }
            return CLI_USAGE;
        }
        indices[(*count)++] = index;
    }
    return 0;
}

int cli_write_file(const char *path, int (*writer)(FILE *f, const void *ctx), const void *ctx)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "xconv: cannot write %s: %s\n", path, strerror(errno));
        return CLI_FAILED;
    }
    FILE *f = fdopen(fd, "w");
    int failed = !f || writer(f, ctx) != 0;
    if (f)
        failed |= fclose(f) != 0;
    else
        close(fd);
    if (failed || rename(tmp, path) != 0) {
        fprintf(stderr, "xconv: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return CLI_FAILED;
    }
    return 0;
}

// Writes a list's JSON (the writer's signature for cli_write_file).
static int write_json(FILE *f, const void *ctx)
{
    const xconv_record_list *list = ctx;
    return xconv_records_write_json(f, &list->info, list->recs, list->count);
}

// Writes a list's CSV.
static int write_csv(FILE *f, const void *ctx)
{
    const xconv_record_list *list = ctx;
    return xconv_records_write_csv(f, list->recs, list->count);
}

int cli_write_records(const xconv_record_list *list, const cli_options *opts)
{
    int rc = CLI_OK;
    if (opts->json && cli_write_file(opts->json, write_json, list))
        rc = CLI_FAILED;
    if (opts->csv && cli_write_file(opts->csv, write_csv, list))
        rc = CLI_FAILED;
    return rc;
}
