// SPDX-License-Identifier: MIT
// Helpers the commands share: collecting shapes, variants and devices, planning options from
// the environment, the host's memory.
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

// Reads shape file path into *entries (*n of them); returns 0 or CLI_USAGE after printing why.
static int read_shapes(const char *path, xconv_shape_entry **entries, int *n)
{
    xconv_error err = {0};
    if (xconv_shapes_read(path, entries, n, &err) == XCONV_OK)
        return 0;
    cli_print_error("--shapes", &err);
    return CLI_USAGE;
}

// Appends the shapes of shape file path to shapes (*count so far); returns 0 or CLI_USAGE after
// printing why.
static int collect_file(const char *path, cli_shape *shapes, int *count)
{
    xconv_shape_entry *entries = NULL;
    int n = 0;
    if (read_shapes(path, &entries, &n))
        return CLI_USAGE;
    if (*count + n > CLI_MAX_SHAPES) {
        if (*count)
            cli_error("--shapes %s holds %d shapes, and %d come before it: a run takes at most "
                      "%d shapes (split the file over several runs)", path, n, *count,
                      CLI_MAX_SHAPES);
        else
            cli_error("--shapes %s holds %d shapes: a run takes at most %d (split the file over "
                      "several runs)", path, n, CLI_MAX_SHAPES);
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
    xconv_error err = {0};
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
    xconv_error err = {0};
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
    xconv_error err = {0};
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
        snprintf(s->set, sizeof s->set, "--shape");
        s->weight = 1;
        s->from_file = false;
        if (cli_shape_arg(opts->shapes[i], &s->problem, s->name, sizeof s->name))
            return CLI_USAGE;
    }
    for (int i = 0; i < opts->nshape_files; i++)
        if (collect_file(opts->shape_files[i], shapes, count))
            return CLI_USAGE;
    int rc = collect_random(opts, shapes, count);
    return rc ? rc : apply_types(opts, shapes, *count);
}

int cli_shape_arg(const char *text, xconv_problem *p, char *name, size_t len)
{
    xconv_error err = {0};
    name[0] = '\0';
    xconv_status st = strchr(text, '=') ? xconv_shape_parse(text, p, &err)
                                        : xconv_shape_parse_benchdnn(text, p, name, len, &err);
    if (st != XCONV_OK) {
        cli_print_error("--shape", &err);
        return CLI_USAGE;
    }
    return 0;
}

int cli_shape_from_file(const char *path, xconv_problem *p, unsigned *seen)
{
    xconv_shape_entry *entries = NULL;
    int n = 0;
    if (read_shapes(path, &entries, &n))
        return CLI_USAGE;
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
    xconv_error err = {0};
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

// ---------------------------------------------------------------------------------------------
// The forcing variables: one strict parser for all of them

// Reads one integer from *s (decimal, optional sign) into *out and advances *s past it; returns
// false when there is none or it does not fit int64_t.
static bool read_int(const char **s, int64_t *out)
{
    const char *b = *s;
    if (!(*b >= '0' && *b <= '9') && !((*b == '-' || *b == '+') && b[1] >= '0' && b[1] <= '9'))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(b, &end, 10);
    if (errno == ERANGE)
        return false;
    *out = v;
    *s = end;
    return true;
}

// Reads text, `min` to `max` integers separated by commas and nothing else, each within int,
// into v (max of them; those not given 0); returns their count, or -1 for any other text.
static int int_list(const char *text, int min, int max, int *v)
{
    int n = 0;
    memset(v, 0, (size_t)max * sizeof *v);
    for (const char *s = text;; s++) {
        int64_t x;
        if (!read_int(&s, &x) || n == max || x < INT_MIN || x > INT_MAX)
            return -1;
        v[n++] = (int)x;
        if (*s != ',')
            return *s == '\0' && n >= min ? n : -1;
    }
}

// The direct kernels XCONV_DIRECT_PLAN names.
static const struct {
    const char *name;
    int kernel;
} direct_kernels[] = {
    {"direct_const", XCONV_DIRECT_KERNEL_CONST},
    {"direct_tiled", XCONV_DIRECT_KERNEL_TILED},
    {"direct_tiled_db", XCONV_DIRECT_KERNEL_TILED_DB},
    {"direct_regblock", XCONV_DIRECT_KERNEL_REGBLOCK},
};

// Returns the xconv_direct_kernel named by the len bytes at name, or XCONV_DIRECT_KERNEL_NONE.
static int direct_kernel(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof direct_kernels / sizeof direct_kernels[0]; i++)
        if (strlen(direct_kernels[i].name) == len && !strncmp(direct_kernels[i].name, name, len))
            return direct_kernels[i].kernel;
    return XCONV_DIRECT_KERNEL_NONE;
}

// Reads text, entries KIND:LIST separated by ';' (KIND a direct kernel's name, LIST 8 to 10
// integers separated by commas), into plan->direct_tiling (a kernel's first entry counts);
// returns false for any other text.
static bool direct_plan(const char *text, xconv_plan_options *plan)
{
    char entry[256];
    for (const char *s = text;;) {
        size_t len = strcspn(s, ";");
        if (len == 0 || len >= sizeof entry)
            return false;
        snprintf(entry, sizeof entry, "%.*s", (int)len, s);
        char *colon = strchr(entry, ':');
        int v[10];
        int kernel = colon ? direct_kernel(entry, (size_t)(colon - entry))
                           : XCONV_DIRECT_KERNEL_NONE;
        if (kernel == XCONV_DIRECT_KERNEL_NONE || int_list(colon + 1, 8, 10, v) < 0)
            return false;
        for (int i = 0; i < XCONV_DIRECT_TILINGS_MAX; i++) {
            xconv_forced_direct_tiling *t = &plan->direct_tiling[i];
            if (t->kernel == kernel)
                break;
            if (t->kernel == XCONV_DIRECT_KERNEL_NONE) {
                *t = (xconv_forced_direct_tiling){kernel, v[0], v[1], v[2], v[3], v[4], v[5],
                                                  v[6], v[7], v[8], v[9]};
                break;
            }
        }
        if (!s[len])
            return true;
        s += len + 1;
    }
}

// Reads text, "TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]" (VW 4 and PAD VW when left out), into *t;
// returns false for any other text.
static bool gemm_tiles(const char *text, xconv_forced_gemm_tiles *t)
{
    int v[8];
    int n = int_list(text, 5, 8, v);
    int vw = n > 5 ? v[5] : 4;
    *t = (xconv_forced_gemm_tiles){v[0], v[1], v[2], v[3], v[4], vw, n > 6 ? v[6] : vw, v[7]};
    return n >= 0;
}

// Reads text, "TM,TN,TK,WM,WN[,STAGES]" (STAGES 0, the most that fit, when left out), into *t;
// returns false for any other text and for all zeros (which in the library leave the tiles to
// the planner).
static bool mma_tiles(const char *text, xconv_forced_mma_tiles *t)
{
    int v[6];
    int n = int_list(text, 5, 6, v);
    *t = (xconv_forced_mma_tiles){v[0], v[1], v[2], v[3], v[4], v[5]};
    return n >= 0 && (v[0] || v[1] || v[2] || v[3] || v[4] || v[5]);
}

// Reads text, "TB,KB,CC,WT,WK[,VEC]", into *b; returns false for any other text and for all
// zeros (which in the library leave the block to the planner).
static bool wino_fused(const char *text, xconv_forced_wino_block *b)
{
    int v[6];
    int n = int_list(text, 5, 6, v);
    *b = (xconv_forced_wino_block){v[0], v[1], v[2], v[3], v[4], v[5]};
    return n >= 0 && (v[0] || v[1] || v[2] || v[3] || v[4] || v[5]);
}

// Reads text, "TM,TN,TK,WM,WN" (fft_cgemm's tiles), into v; returns false for any other text
// and for all zeros (which in the library leave the tiles to the planner).
static bool fft_gemm(const char *text, int v[5])
{
    int n = int_list(text, 5, 5, v);
    return n >= 0 && (v[0] || v[1] || v[2] || v[3] || v[4]);
}

// Returns true when text is a transform size "L" or "HxW", each from 2 to 4096; fills h and w.
static bool fft_tile(const char *text, int64_t *h, int64_t *w)
{
    const char *s = text;
    if (!read_int(&s, h))
        return false;
    *w = *h;
    if (*s == 'x') {
        s++;
        if (!read_int(&s, w))
            return false;
    }
    return *s == '\0' && *h >= 2 && *h <= 4096 && *w >= 2 && *w <= 4096;
}

// Reads environment variable `name` as an integer from lo to hi into *out (left alone when
// unset); returns false for any other text, "" and "2abc" included.
static bool env_int(const char *name, int64_t lo, int64_t hi, int64_t *out)
{
    const char *text = getenv(name);
    if (!text)
        return true;
    const char *s = text;
    int64_t v;
    if (!read_int(&s, &v) || *s || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

// The forcing variables and what each expects (for the message), in read_forcing's order.
typedef struct forcing {
    const char *name;
    const char *expects;
} forcing;

static const forcing forcings[] = {
    {"XCONV_DIRECT_PLAN", "KIND:wg_w,wg_h,block_w,block_h,block_k,strip,flat,unroll_c"
                          "[,repeat[,vec_q]] (KIND direct_const, direct_tiled, direct_tiled_db "
                          "or direct_regblock; 8 to 10 integers), entries joined by ';'"},
    {"XCONV_GEMM_TILES", "TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]] (5 to 8 integers)"},
    {"XCONV_GEMM_SPLIT", "an integer from 0 (chosen per product) to 16"},
    {"XCONV_GEMM_CHUNK", "a whole number of images (0: as many as fit)"},
    {"XCONV_WINO_CHUNK", "a whole number of images (0: as many as fit)"},
    {"XCONV_WINO_FUSED", "TB,KB,CC,WT,WK[,VEC] (5 or 6 integers)"},
    {"XCONV_FFT_TILE", "a transform size L or HxW, each from 2 to 4096"},
    {"XCONV_FFT_CHUNK", "a whole number of images (0: as many as fit)"},
    {"XCONV_FFT_PLANES", "2, 4 or 8 planes per work-group (0: chosen)"},
    {"XCONV_MMA_PIPELINE", "0 (the planner's choice), 1 (registers), 2 (packed operands, "
                           "cp.async ring) or 3 (packed filters, B read from x: 1x1 stride 1)"},
    {"XCONV_MMA_TILES", "TM,TN,TK,WM,WN[,STAGES] (5 or 6 integers: implicit_mma's tiles, k step "
                        "in elements, warps, the packed ring's stages 2 to 4)"},
    {"XCONV_MMA_SPLIT", "an integer from 0 (chosen per product) to 16 (implicit_mma's packed "
                        "pipeline: 1 none, 2..16 K slices)"},
    {"XCONV_FFT_GEMM", "TM,TN,TK,WM,WN (5 integers: fft_cgemm's block of output channels and "
                       "spectrum columns, input channels per step, the block per work-item)"},
};

// Reads forcing variable i into plan (an unset one leaves the default); returns false when it
// is set to text it does not take.
static bool read_forcing(int i, xconv_plan_options *plan)
{
    const char *name = forcings[i].name, *text = getenv(name);
    int64_t split = 0, h = 0, w = 0;
    switch (i) {
    case 0: return !text || direct_plan(text, plan);
    case 1: return !text || gemm_tiles(text, &plan->gemm_tiles);
    case 2:
        if (!env_int(name, 0, 16, &split))
            return false;
        plan->gemm_split_k = (int)split;
        return true;
    case 3: return env_int(name, 0, INT64_MAX, &plan->batch_chunk);
    case 4: return env_int(name, 0, INT64_MAX, &plan->winograd_chunk);
    case 5: return !text || wino_fused(text, &plan->winograd_fused);
    case 6:
        if (text && !fft_tile(text, &h, &w))
            return false;
        plan->fft_tile_h = (int)h;
        plan->fft_tile_w = (int)w;
        return true;
    case 7: return env_int(name, 0, INT64_MAX, &plan->fft_chunk);
    case 8:
        if (!env_int(name, 0, 8, &split))
            return false;
        plan->fft_planes = (int)split;
        return true;
    case 9:
        if (!env_int(name, 0, 3, &split))
            return false;
        plan->mma_pipeline = (int)split;
        return true;
    case 10: return !text || mma_tiles(text, &plan->mma_tiles);
    case 11:
        if (!env_int(name, 0, 16, &split))
            return false;
        plan->mma_split_k = (int)split;
        return true;
    case 12: return !text || fft_gemm(text, plan->fft_gemm);
    }
    return true;
}

// --bake-batch: XCONV_BATCH_DEFAULT when not given (each variant's default), else
// XCONV_BATCH_BAKED (on) or XCONV_BATCH_RUNTIME (off).
static int bake_batch = XCONV_BATCH_DEFAULT;

int cli_set_bake_batch(const char *value)
{
    if (!value)
        return 0;
    if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
        cli_error("--bake-batch '%s': expected on or off", value);
        return CLI_USAGE;
    }
    bake_batch = strcmp(value, "on") == 0 ? XCONV_BATCH_BAKED : XCONV_BATCH_RUNTIME;
    return 0;
}

// --bake-dims (or XCONV_BAKE_DIMS): XCONV_BATCH_DEFAULT when neither is given (the sizes
// baked), else XCONV_BATCH_BAKED (on) or XCONV_BATCH_RUNTIME (off).
static int bake_dims = XCONV_BATCH_DEFAULT;

int cli_set_bake_dims(const char *value)
{
    const char *from = value ? "--bake-dims" : "XCONV_BAKE_DIMS";
    if (!value)
        value = getenv("XCONV_BAKE_DIMS");
    if (!value)
        return 0;
    if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
        cli_error("%s '%s': expected on or off", from, value);
        return CLI_USAGE;
    }
    bake_dims = strcmp(value, "on") == 0 ? XCONV_BATCH_BAKED : XCONV_BATCH_RUNTIME;
    return 0;
}

static const char *bake_word(int mode)
{
    return mode == XCONV_BATCH_BAKED ? "on" : mode == XCONV_BATCH_RUNTIME ? "off" : NULL;
}

const char *cli_bake_batch_word(void)
{
    return bake_word(bake_batch);
}

const char *cli_bake_dims_word(void)
{
    return bake_word(bake_dims);
}

int cli_plan_options(xconv_plan_options *plan)
{
    xconv_plan_options_default(plan);
    plan->runtime_batch = bake_batch;
    plan->runtime_dims = bake_dims;
    xconv_error err = {0};
    for (int i = 0; i < (int)(sizeof forcings / sizeof forcings[0]); i++) {
        if (!read_forcing(i, plan)) {
            cli_error("%s='%s': expected %s", forcings[i].name, getenv(forcings[i].name),
                      forcings[i].expects);
            return CLI_USAGE;
        }
        // The fields read so far were in range: one out of range now is this variable's.
        if (xconv_plan_options_check(plan, &err) != XCONV_OK) {
            cli_error("%s='%s': %s", forcings[i].name, getenv(forcings[i].name), err.msg);
            return CLI_USAGE;
        }
    }
    return 0;
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

int cli_select_devices(const cli_options *opts, xconv_devices **devices, int *indices,
                       int *count)
{
    *count = 0;
    xconv_error err = {0};
    int nsel = opts->ndevices ? opts->ndevices : 1;
    // The library reads no environment: XCONV_DEVICE is the CLI's default selector.
    unsigned backends = 0;
    for (int i = 0; i < nsel; i++)
        backends |= backends_named(opts->ndevices ? opts->devices[i] : getenv("XCONV_DEVICE"));
    // Only those named: starting one costs.
    xconv_devices *list = *devices = xconv_devices_enumerate(backends, &err);
    if (!list) {
        cli_print_error(NULL, &err);
        return CLI_FAILED;
    }
    for (int i = 0; i < nsel; i++) {
        const char *sel = opts->ndevices ? opts->devices[i] : getenv("XCONV_DEVICE");
        if (sel && strcmp(sel, "all") == 0 && xconv_devices_count(list) > 0) {  // every device
            for (int d = 0; d < xconv_devices_count(list); d++)
                add_device(indices, count, d);
            continue;
        }
        int index = xconv_devices_select(list, sel, &err);
        if (index < 0) {
            cli_print_error(opts->ndevices ? "--device" : sel && *sel ? "XCONV_DEVICE" : NULL,
                            &err);
            // No device at all: advice on drivers. A selector naming one backend listed only
            // that one, so the others' drivers may well be there: its reason above says why.
            if (xconv_devices_count(list) == 0 && backends == ~0u) {
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

// Reads XCONV_TIMING_DELAY into *mode; returns false for text it does not take.
static bool timing_delay_mode(xconv_timing_delay *mode)
{
    static const struct {
        const char *text;
        xconv_timing_delay mode;
    } names[] = {{"auto", XCONV_TIMING_DELAY_AUTO}, {"0", XCONV_TIMING_DELAY_OFF},
                 {"off", XCONV_TIMING_DELAY_OFF}, {"1", XCONV_TIMING_DELAY_ON},
                 {"on", XCONV_TIMING_DELAY_ON}};
    const char *text = getenv("XCONV_TIMING_DELAY");
    *mode = XCONV_TIMING_DELAY_AUTO;
    for (size_t i = 0; text && *text && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i].text) == 0) {
            *mode = names[i].mode;
            return true;
        }
    return !text || !*text;
}

xconv_device *cli_device_open_info(const xconv_device_info *info, xconv_error *err)
{
    xconv_timing_delay mode;
    if (!timing_delay_mode(&mode)) {
        xconv_error_set(err, XCONV_ERR_INVALID, "XCONV_TIMING_DELAY='%s': expected auto (the "
                        "default: timed regions start after a delay on GPUs), 0 or off (a "
                        "plain start mark) or 1 or on (the delay on every device)",
                        getenv("XCONV_TIMING_DELAY"));
        return NULL;
    }
    xconv_device *dev = xconv_device_open_info(info, err);
    if (dev && xconv_device_set_timing_delay(dev, mode, err) != XCONV_OK) {
        xconv_device_close(dev);
        return NULL;
    }
    return dev;
}

xconv_device *cli_open_device(const xconv_devices *list, int index)
{
    const xconv_device_info *info = xconv_devices_info_at(list, index);
    xconv_error err = {0};
    xconv_device *dev = cli_device_open_info(info, &err);
    if (!dev)
        cli_print_error(info->name, &err);
    return dev;
}

uint64_t cli_host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}
