// SPDX-License-Identifier: MIT
// `xconv precompile`: builds the programs of shapes x variants on devices into the cache ahead
// of time, and moves them between machines as one bundle file (--export, --import).
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "prebuild.h"

// The devices of the command line, open, with the cache attached.
typedef struct open_devices {
    xconv_devices *list;  // what --device selected in
    xconv_device *devs[CLI_MAX_LIST];
    char labels[CLI_MAX_LIST][320];
    int count;
} open_devices;

// Opens the CUDA target profiles --target names, with cache attached: their kernels are
// compiled through NVRTC without a GPU. Returns 0 or the exit code after a message.
static int open_targets(const cli_options *opts, xconv_cache *cache, open_devices *d)
{
    const xconv_target *targets[CLI_MAX_LIST];
    int n = 0;
    int rc = cli_collect_targets(opts, targets, &n);
    xconv_error err = {0};
    for (int i = 0; !rc && i < n && d->count < CLI_MAX_LIST; i++) {
        if (targets[i]->info.backend != XCONV_BACKEND_CUDA) {
            cli_error("--target %s: precompile compiles only CUDA profiles (sm_90), through "
                      "NVRTC; xconv compile checks the others with their vendors' compilers",
                      targets[i]->name);
            return CLI_USAGE;
        }
        xconv_device *dev = xconv_device_open_target(targets[i], &err);
        if (!dev) {
            cli_print_error(targets[i]->name, &err);
            return CLI_FAILED;
        }
        snprintf(d->labels[d->count], sizeof d->labels[0], "%s (%s, no GPU)", targets[i]->name,
                 targets[i]->product);
        xconv_device_set_cache(dev, cache);
        d->devs[d->count++] = dev;
    }
    return rc;
}

// Opens every device --device selects (none when only --target is given) and every --target
// profile, with cache attached; returns 0 or the exit code after a message.
static int open_all(const cli_options *opts, xconv_cache *cache, open_devices *d)
{
    if (opts->ntargets > 0) {
        int rc = open_targets(opts, cache, d);
        if (rc || opts->ndevices == 0)
            return rc;
    }
    int indices[CLI_MAX_LIST], n = 0;
    int rc = cli_select_devices(opts, &d->list, indices, &n);
    xconv_error err = {0};
    for (int i = 0; !rc && i < n && d->count < CLI_MAX_LIST; i++) {
        xconv_device_label(xconv_devices_info_at(d->list, indices[i]), d->labels[d->count],
                           sizeof d->labels[0]);
        const xconv_device_info *info = xconv_devices_info_at(d->list, indices[i]);
        xconv_device *dev = cli_device_open_info(info, &err);
        if (!dev) {
            cli_print_error(d->labels[d->count], &err);
            rc = CLI_FAILED;
            break;
        }
        xconv_device_set_cache(dev, cache);
        d->devs[d->count++] = dev;
    }
    return rc;
}

// Closes what open_all opened.
static void close_all(open_devices *d)
{
    for (int i = 0; i < d->count; i++)
        xconv_device_close(d->devs[i]);
    d->count = 0;
    xconv_devices_free(d->list);
    d->list = NULL;
}

// Fills variants with those asked for on a device of `backend` (NULL: auto), or every variant of
// the backend and auto; returns their count.
static int variants_for(const xconv_variant *const *asked, int nasked, xconv_backend_kind backend,
                        const xconv_variant **variants)
{
    int n = 0;
    if (nasked == 0)
        variants[n++] = NULL;
    for (int i = 0; i < nasked; i++)
        variants[n++] = asked[i];
    for (int i = 0; nasked == 0 && i < xconv_variant_count() && n < CLI_MAX_LIST; i++)
        if (xconv_variant_get_info(xconv_variant_at(i))->backends & XCONV_BACKEND_BIT(backend))
            variants[n++] = xconv_variant_at(i);
    return n;
}

// Builds the programs of the shapes and variants on every device into the cache.
static int build_all(const cli_options *opts, xconv_cache *cache, open_devices *d,
                     const cli_shape *shapes, int nshapes, const xconv_variant *const *asked,
                     int nasked)
{
    static const xconv_problem *problems[CLI_MAX_SHAPES];
    for (int s = 0; s < nshapes; s++)
        problems[s] = &shapes[s].problem;
    xconv_plan_options plan;
    cli_plan_options(&plan);
    cli_build_totals totals;
    cli_build_totals_start(&totals);
    for (int i = 0; i < d->count; i++) {
        const xconv_variant *variants[CLI_MAX_LIST + 1];
        int nv = variants_for(asked, nasked, xconv_device_get_info(d->devs[i])->backend,
                              variants);
        cli_prebuild(opts, d->devs[i], cache, d->labels[i], problems, nshapes, variants, nv, &plan,
                     &totals);
    }
    printf("%d programs built or loaded for %d shape(s) on %d device(s)\n", totals.built,
           nshapes, d->count);
    if (totals.failed)
        fprintf(stderr, "xconv precompile: %d programs failed to build (%s says why)\n",
                totals.failed, opts->ntargets ? "xconv compile --target" : "validate");
    return totals.failed ? CLI_FAILED : CLI_OK;
}

// Moves a bundle in or out; returns the exit code.
static int bundle(const cli_options *opts, xconv_cache *cache, open_devices *d)
{
    xconv_error err = {0};
    int n = 0;
    if (opts->import) {
        if (xconv_cache_import_kernels(cache, d->devs, d->count, opts->import, &n, &err)) {
            cli_print_error("import", &err);
            return CLI_FAILED;
        }
        printf("imported %d compiled kernel(s) from %s into %s/kernels\n", n, opts->import,
               xconv_cache_dir(cache));
    }
    if (opts->export_path) {
        if (xconv_cache_export_kernels(cache, d->devs, d->count, opts->export_path, &n, &err)) {
            cli_print_error("export", &err);
            return CLI_FAILED;
        }
        printf("exported %d compiled kernel(s) of %d device(s) to %s\n", n, d->count,
               opts->export_path);
    }
    return CLI_OK;
}

int cmd_precompile(const cli_options *opts)
{
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    const xconv_variant *asked[CLI_MAX_LIST];
    int nshapes = 0, nasked = 0;
    int rc = shapes ? cli_collect_shapes(opts, NULL, shapes, &nshapes) : CLI_FAILED;
    if (!rc)
        rc = cli_collect_variants(opts, true, asked, &nasked);
    if (!rc && nshapes == 0 && !opts->import && !opts->export_path) {
        cli_error("give shapes to build (--suite, --shapes, --shape), --import or --export");
        rc = CLI_USAGE;
    }
    if (!rc && opts->import && nshapes > 0) {
        cli_error("--import takes no shapes: import first, then build what is missing");
        rc = CLI_USAGE;
    }
    xconv_cache *cache = rc ? NULL : cli_cache_open(opts, 0);
    if (!rc && !cache) {
        cli_error("no cache folder (XCONV_CACHE_DIR): precompiled kernels need one");
        rc = CLI_FAILED;
    }
    static open_devices d;
    memset(&d, 0, sizeof d);
    if (!rc)
        rc = open_all(opts, cache, &d);
    if (!rc && opts->import)
        rc = bundle(opts, cache, &d);
    if (!rc && nshapes > 0)
        rc = build_all(opts, cache, &d, shapes, nshapes, asked, nasked);
    if (!rc && opts->export_path && !opts->import)
        rc = bundle(opts, cache, &d);
    close_all(&d);
    cli_cache_print_warnings(cache);
    cli_cache_close(cache);
    free(shapes);
    return rc;
}
