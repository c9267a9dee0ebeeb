// SPDX-License-Identifier: MIT
// Helpers the commands share: collecting shapes, variants and devices, planning options from
// the environment, the host's memory.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../validate/reference.h"
#include "cli.h"

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
        cli_error("--shapes %s: %d shapes with the %d before them pass the limit of %d a run",
                  path, n, *count, CLI_MAX_SHAPES);
        xconv_shapes_free(entries);
        return CLI_USAGE;
    }
    const char *slash = strrchr(path, '/');
    for (int i = 0; i < n; i++) {
        cli_shape *s = &shapes[(*count)++];
        snprintf(s->name, sizeof s->name, "%s", entries[i].name);
        snprintf(s->set, sizeof s->set, "%s", slash ? slash + 1 : path);
        s->from_file = true;
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
        cli_error("--random %d: at most %d shapes in all", opts->random, CLI_MAX_SHAPES);
        return CLI_USAGE;
    }
    static xconv_error err;
    for (int i = 0; i < opts->random; i++) {
        cli_shape *s = &shapes[(*count)++];
        snprintf(s->name, sizeof s->name, "rand%d", i);
        snprintf(s->set, sizeof s->set, "random");
        s->weight = 1;
        s->from_file = false;
        if (xconv_shape_random(opts->seed, i, &s->problem, &err) != XCONV_OK) {
            cli_print_error(s->name, &err);
            return CLI_FAILED;
        }
        if (opts->random_epilogue)
            xconv_random_epilogue(opts->seed, i, &s->problem);
        char spec[256];
        xconv_shape_format(&s->problem, spec, sizeof spec);
        fprintf(stderr, "%s: %s\n", s->name, spec);
    }
    return 0;
}

// Sets --dtype and --math on every shape (over what their SPECs say); returns 0, or CLI_USAGE
// after a message for a bad name or a pair a shape cannot take.
static int apply_types(const cli_options *opts, cli_shape *shapes, int count)
{
    static xconv_error err;
    char keys[96];
    snprintf(keys, sizeof keys, "%s%s%s%s%s", opts->dtype ? "dtype=" : "",
             opts->dtype ? opts->dtype : "", opts->dtype && opts->math ? "," : "",
             opts->math ? "math=" : "", opts->math ? opts->math : "");
    for (int i = 0; keys[0] && i < count; i++)
        if (xconv_shape_apply(keys, &shapes[i].problem, NULL, &err) != XCONV_OK ||
            xconv_problem_check(&shapes[i].problem, &err) != XCONV_OK) {
            cli_print_error(opts->dtype ? "--dtype" : "--math", &err);
            return CLI_USAGE;
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
            char names[256] = "";
            size_t used = 0;
            for (const char *const *name = xconv_suite_names(); *name && used < sizeof names;
                 name++)
                used += (size_t)snprintf(names + used, sizeof names - used, " %s", *name);
            cli_error("unknown suite '%s'; suites:%s", suites[i], names);
            return CLI_USAGE;
        }
        for (int j = 0; j < n && *count < CLI_MAX_SHAPES; j++) {
            cli_shape *s = &shapes[(*count)++];
            snprintf(s->name, sizeof s->name, "%s", suite[j].name);
            snprintf(s->set, sizeof s->set, "%s", suites[i]);
            s->weight = 1;
            s->from_file = false;
            if (xconv_shape_parse(suite[j].spec, &s->problem, &err) != XCONV_OK) {
                cli_print_error(suite[j].name, &err);
                return CLI_FAILED;
            }
        }
    }
    for (int i = 0; i < opts->nshapes && *count < CLI_MAX_SHAPES; i++) {
        cli_shape *s = &shapes[(*count)++];
        s->name[0] = '\0';
        snprintf(s->set, sizeof s->set, "--shape");
        s->weight = 1;
        s->from_file = false;
        if (xconv_shape_parse(opts->shapes[i], &s->problem, &err) != XCONV_OK) {
            cli_print_error("--shape", &err);
            return CLI_USAGE;
        }
    }
    for (int i = 0; i < opts->nshape_files; i++)
        if (collect_file(opts->shape_files[i], shapes, count))
            return CLI_USAGE;
    int rc = collect_random(opts, shapes, count);
    return rc ? rc : apply_types(opts, shapes, *count);
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
        cli_error("--shapes %s holds %d shapes; this command takes one", path, n);
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
        const char *item = opts->variants[i];
        for (;;) {
            size_t len = strcspn(item, ",");
            if (len == 0) {
                cli_error("--variant '%s' has an empty name; give variant names separated by "
                          "commas (see xconv variants)", opts->variants[i]);
                return CLI_USAGE;
            }
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1),
                     item);
            bool is_auto = allow_auto && strcmp(name, "auto") == 0;
            const xconv_variant *v = is_auto ? NULL : xconv_variant_find(name, &err);
            if ((!v && !is_auto) || len >= sizeof name) {
                if (len >= sizeof name)
                    xconv_error_set(&err, XCONV_ERR_NOT_FOUND, "unknown variant '%.*s'",
                                    (int)len, item);
                cli_print_error("--variant", &err);
                return CLI_USAGE;
            }
            if (*count == CLI_MAX_LIST) {
                cli_error("--variant: more than %d variants", CLI_MAX_LIST);
                return CLI_USAGE;
            }
            variants[(*count)++] = v;
            if (!item[len])
                break;
            item += len + 1;
        }
    }
    return 0;
}

// Reads XCONV_FFT_TILE ("L" or "HxW": the FFT family's transform size; text that is neither
// forces -1, which the planner refuses naming it) and XCONV_FFT_CHUNK (images per FFT pass).
static void fft_options(xconv_plan_options *plan)
{
    const char *tile = getenv("XCONV_FFT_TILE"), *chunk = getenv("XCONV_FFT_CHUNK");
    if (tile && *tile) {
        int h, w;
        char x, tail;
        int got = sscanf(tile, "%d%c%d%c", &h, &x, &w, &tail);
        if (got == 1)
            w = h;
        else if (got != 3 || x != 'x')
            h = w = -1;
        plan->fft_tile_h = h;
        plan->fft_tile_w = w;
    }
    plan->fft_chunk = chunk && atoll(chunk) > 0 ? atoll(chunk) : 0;
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
    const char *wino_chunk = getenv("XCONV_WINO_CHUNK"), *wino_fused = getenv("XCONV_WINO_FUSED");
    plan->winograd_chunk = wino_chunk && atoll(wino_chunk) > 0 ? atoll(wino_chunk) : 0;
    plan->winograd_fused = wino_fused && *wino_fused ? wino_fused : NULL;
    fft_options(plan);
}

int cli_epilogue_mode(const cli_options *opts, bool allow_both, xconv_plan_options *plan,
                      bool *both)
{
    static const char *const names[] = {"auto", "fused", "unfused"};
    if (both)
        *both = false;
    if (!opts->epilogue)
        return 0;
    for (int i = 0; i < 3; i++)
        if (strcmp(opts->epilogue, names[i]) == 0) {
            plan->epilogue = i;  // XCONV_EPILOGUE_AUTO, _FUSED, _UNFUSED in order
            return 0;
        }
    if (allow_both && both && strcmp(opts->epilogue, "both") == 0) {
        plan->epilogue = XCONV_EPILOGUE_AUTO;
        *both = true;
        return 0;
    }
    cli_error("--epilogue '%s': expected auto, fused, unfused%s", opts->epilogue,
              allow_both ? " or both" : "");
    return CLI_USAGE;
}

// Returns the XCONV_BACKEND_BIT of the backend selector names as "opencl:N" or "cuda:N", else
// every bit (a name or an index can match any backend's device).
static unsigned backends_named(const char *selector)
{
    for (int kind = 0; selector && kind < XCONV_BACKEND_COUNT; kind++) {
        const char *name = xconv_backend_name((xconv_backend_kind)kind);
        size_t n = strlen(name);
        if (strncmp(selector, name, n) == 0 && selector[n] == ':')
            return XCONV_BACKEND_BIT(kind);
    }
    return ~0u;
}

// Appends device index to indices (*count so far) unless it is there already.
static void add_device(int *indices, int *count, int index)
{
    for (int i = 0; i < *count; i++)
        if (indices[i] == index)
            return;
    if (*count < CLI_MAX_LIST)
        indices[(*count)++] = index;
}

int cli_select_devices(const cli_options *opts, xconv_device_list *list, int *indices,
                       int *count)
{
    *count = 0;
    static xconv_error err;
    int nsel = opts->ndevices ? opts->ndevices : 1;
    // The library reads no environment: XCONV_DEVICE is the CLI's default selector.
    unsigned backends = 0;
    for (int i = 0; i < nsel; i++)
        backends |= backends_named(opts->ndevices ? opts->devices[i] : getenv("XCONV_DEVICE"));
    xconv_devices_list_backends(list, backends);  // only those named: starting one costs
    for (int i = 0; i < nsel; i++) {
        const char *sel = opts->ndevices ? opts->devices[i] : getenv("XCONV_DEVICE");
        if (sel && strcmp(sel, "all") == 0 && list->count > 0) {  // every device listed
            for (int d = 0; d < list->count; d++)
                add_device(indices, count, d);
            continue;
        }
        int index = xconv_device_select(list, sel, &err);
        if (index < 0) {
            cli_print_error(opts->ndevices ? "--device" : sel && *sel ? "XCONV_DEVICE" : NULL,
                            &err);
            if (list->count == 0) {
                cli_error("no device: install an OpenCL driver (Debian: pocl-opencl-icd for the "
                          "CPU) or an NVIDIA driver for CUDA");
                return CLI_FAILED;
            }
            return CLI_USAGE;
        }
        add_device(indices, count, index);
    }
    return 0;
}

uint64_t cli_host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}
