// SPDX-License-Identifier: MIT
// `xconv run`: one convolution from a shape and/or .npy files, optionally written to .npy.
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npy.h"
#include "cli.h"
#include "output.h"

// Returns the host's monotonic clock in milliseconds.
static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// Checks that a dimension taken from a file agrees with a --shape key, then takes it.
static int take_dim(int64_t *field, int64_t value, unsigned seen, unsigned key,
                    const char *key_name, const char *file)
{
    if ((seen & key) && *field != value) {
        cli_error("--shape says %s=%lld but %s gives %lld", key_name, (long long)*field, file,
                  (long long)value);
        return CLI_USAGE;
    }
    *field = value;
    return 0;
}

// Reads a 4-D float32 .npy file; returns 0 or CLI_USAGE after a message.
static int read_4d(const char *path, const char *what, xconv_npy *npy)
{
    xconv_error err = {0};
    if (xconv_npy_read(path, npy, &err) != XCONV_OK) {
        cli_print_error(what, &err);
        return CLI_USAGE;
    }
    if (npy->ndim != 4) {
        cli_error("%s %s has %d dimensions; it must have 4 (%s)", what, path, npy->ndim,
                  strcmp(what, "--input") == 0 ? "N,C,H,W" : "K,C/groups,R,S");
        xconv_npy_free(npy);
        return CLI_USAGE;
    }
    return 0;
}

// Takes the storage type of 16-bit --input and --weights files into *p when the shape names
// none. Refuses files of two different 16-bit types, and a 16-bit file whose type is not the
// dtype the shape names (fp32 files are rounded to any dtype, 16-bit ones widen exactly to
// fp32). Returns 0 or CLI_USAGE after a message.
static int take_dtype(const cli_options *opts, unsigned seen, const xconv_npy *x,
                      const xconv_npy *w, xconv_problem *p)
{
    const xconv_npy *files[2] = {x, w};
    const char *paths[2] = {opts->input, opts->weights};
    for (int i = 0; i < 2; i++) {
        int64_t d = files[i]->dtype;
        if (d == XCONV_DTYPE_F32)
            continue;
        if (!(seen & XCONV_KEY_DTYPE)) {
            seen |= XCONV_KEY_DTYPE;
            p->dtype = d;
        } else if (p->dtype != d && p->dtype != XCONV_DTYPE_F32) {
            cli_error("%s holds %s values but the problem's dtype is %s (convert the file, or "
                      "name dtype=%s)", paths[i], xconv_dtype_name(d),
                      xconv_dtype_name(p->dtype), xconv_dtype_name(d));
            return CLI_USAGE;
        }
    }
    return 0;
}

// Takes the sizes of the files --input and --weights hold into *p (checked against the keys
// --shape gave, in seen); returns 0 or CLI_USAGE after a message.
static int take_files(const cli_options *opts, unsigned seen, const xconv_npy *x,
                      const xconv_npy *w, xconv_problem *p)
{
    const char *xi = opts->input, *wi = opts->weights;
    int rc = take_dim(&p->n, x->shape[0], seen, XCONV_KEY_N, "n", xi);
    rc = rc ? rc : take_dim(&p->c, x->shape[1], seen, XCONV_KEY_C, "c", xi);
    rc = rc ? rc : take_dim(&p->h, x->shape[2], seen, XCONV_KEY_H, "h", xi);
    rc = rc ? rc : take_dim(&p->w, x->shape[3], seen, XCONV_KEY_W, "w", xi);
    rc = rc ? rc : take_dim(&p->k, w->shape[0], seen, XCONV_KEY_K, "k", wi);
    rc = rc ? rc : take_dim(&p->r, w->shape[2], seen, XCONV_KEY_R, "r", wi);
    rc = rc ? rc : take_dim(&p->s, w->shape[3], seen, XCONV_KEY_S, "s", wi);
    if (rc)
        return rc;
    // Compared by division: groups may be any int64 a --shape gave, and c * groups overflow.
    if (p->groups < 1 || p->c % p->groups != 0 || w->shape[1] != p->c / p->groups) {
        cli_error("%s has %lld channels per filter but c=%lld with groups=%lld needs %s", wi,
                  (long long)w->shape[1], (long long)p->c, (long long)p->groups,
                  p->groups >= 1 && p->c % p->groups == 0 ? "c/groups" : "groups to divide c");
        return CLI_USAGE;
    }
    return take_dtype(opts, seen, x, w, p);
}

// Builds the problem from --shape, --input and --weights; returns 0 or CLI_USAGE. The problem
// is parsed here, not checked: xconv_plan_create checks it, once.
static int build_problem(const cli_options *opts, xconv_problem *p, xconv_npy *x, xconv_npy *w)
{
    xconv_error err = {0};
    *p = xconv_problem_default();
    unsigned seen = 0;
    if (!opts->nshapes && !opts->nshape_files && !opts->input) {
        cli_error("give --shape SPEC, --shapes FILE or --input X.npy --weights W.npy");
        return CLI_USAGE;
    }
    if (!opts->input != !opts->weights) {
        cli_error("--input and --weights go together");
        return CLI_USAGE;
    }
    if (opts->nshapes + opts->nshape_files > 1) {
        cli_error("one --shape or --shapes file at a time");
        return CLI_USAGE;
    }
    bool benchdnn = opts->nshapes && !strchr(opts->shapes[0], '=');
    if (benchdnn) {  // a benchdnn descriptor names every size
        char name[XCONV_SHAPE_NAME_MAX];
        if (cli_shape_arg(opts->shapes[0], p, name, sizeof name))
            return CLI_USAGE;
        seen = ~0u;
    } else if (opts->nshapes) {
        // --shape alone names every size (xconv_shape_read's rules: k is required, ...); with
        // --input it gives only the keys the files do not.
        xconv_status st = opts->input ? xconv_shape_apply(opts->shapes[0], p, &seen, &err)
                                      : xconv_shape_read(opts->shapes[0], p, &seen, &err);
        if (st != XCONV_OK) {
            cli_print_error("--shape", &err);
            return CLI_USAGE;
        }
    }
    if (opts->nshape_files && cli_shape_from_file(opts->shape_files[0], p, &seen))
        return CLI_USAGE;
    if (opts->input) {
        int rc = read_4d(opts->input, "--input", x);
        if (!rc)
            rc = read_4d(opts->weights, "--weights", w);
        if (!rc)
            rc = take_files(opts, seen, x, w, p);
        if (rc)
            return rc;
    }
    if (opts->bias && (seen & XCONV_KEY_BIAS) && p->epi.bias == 0) {
        cli_error("--bias %s is given but the shape says bias=0", opts->bias);
        return CLI_USAGE;
    }
    if (opts->bias && !p->epi.bias)
        p->epi.bias = 1;
    return 0;
}

// Reads --bias into *bias: a float32 .npy of shape (K,). Returns 0 or CLI_USAGE after a
// message.
static int read_bias(const char *path, const xconv_problem *p, xconv_npy *bias)
{
    xconv_error err = {0};
    if (xconv_npy_read(path, bias, &err) != XCONV_OK) {
        cli_print_error("--bias", &err);
        return CLI_USAGE;
    }
    if (bias->ndim != 1 || bias->shape[0] != p->k) {
        cli_error("--bias %s must have shape (%lld,) (K values); it has %d dimension%s%s%lld",
                  path, (long long)p->k, bias->ndim, cli_plural(bias->ndim),
                  bias->ndim == 1 ? " of " : "",
                  bias->ndim == 1 ? (long long)bias->shape[0] : 0LL);
        xconv_npy_free(bias);
        return CLI_USAGE;
    }
    return 0;
}

// Checks that the host holds the run's arrays: x, w and y in float32, and cpu_ref's float64
// copy of y. Returns 0, or CLI_FAILED after a message with the numbers.
static int check_host_memory(const xconv_problem *p, bool host_variant)
{
    double bytes = 4.0 * ((double)xconv_problem_x_elems(p) + (double)xconv_problem_w_elems(p) +
                          (double)xconv_problem_y_elems(p));
    if (host_variant)
        bytes += 8.0 * (double)xconv_problem_conv_elems(p);
    uint64_t have = cli_host_memory();
    if (have == 0 || bytes <= (double)have)
        return 0;
    cli_error("the run needs %.1f GiB of host memory (x, w and y in float32%s); the host has "
              "%.1f GiB", bytes / 1073741824.0, host_variant ? ", y again in float64" : "",
              (double)have / 1073741824.0);
    return CLI_FAILED;
}

// Draws seeded random inputs into *x and *w; returns 0 or CLI_FAILED.
static int random_inputs(const cli_options *opts, const xconv_problem *p, float **x, float **w)
{
    *x = malloc((size_t)xconv_problem_x_elems(p) * sizeof(float));
    *w = malloc((size_t)xconv_problem_w_elems(p) * sizeof(float));
    if (!*x || !*w) {
        cli_error("no host memory for the inputs");
        return CLI_FAILED;
    }
    xconv_random_fill(*x, (size_t)xconv_problem_x_elems(p), opts->seed, 1);
    xconv_random_fill(*w, (size_t)xconv_problem_w_elems(p), opts->seed, 2);
    printf("random inputs, seed %llu\n", (unsigned long long)opts->seed);
    return 0;
}

// The name of the variant --variant names ("auto" when none does) with the variant in *v (NULL
// for auto), or NULL after printing why.
static const char *variant_name(const cli_options *opts, const xconv_variant **v)
{
    const xconv_variant *variants[CLI_MAX_LIST];
    int nvariants = 0;
    *v = NULL;
    if (cli_collect_variants(opts, true, variants, &nvariants))
        return NULL;
    if (nvariants > 1) {
        cli_error("one --variant at a time");
        return NULL;
    }
    if (nvariants == 0 || !variants[0])
        return "auto";
    *v = variants[0];
    return xconv_variant_get_info(*v)->name;
}

// Prints the failure err of variant `name`; returns the exit code: 1, as validate and bench exit
// for a variant that does not take the shape, or 2 for a malformed forced value.
static int run_failed(const char *name, const xconv_error *err)
{
    cli_print_error(name, err);
    return err->status == XCONV_ERR_PARSE ? CLI_USAGE : CLI_FAILED;
}

// Prints why xconv_plan_create (or the find before it) refused; returns the exit code. The plan
// is where the problem is checked: a problem that breaks a rule (or a forced value it refuses,
// XCONV_ERR_INVALID both) is bad input, 2, said with the shape; the rest is run_failed's.
static int plan_failed(const cli_options *opts, const char *name, const xconv_problem *p,
                       const xconv_error *err)
{
    if (err->status != XCONV_ERR_INVALID)
        return run_failed(name, err);
    char spec[256];
    if (opts->nshapes)
        snprintf(spec, sizeof spec, "%s", opts->shapes[0]);
    else
        xconv_shape_format(p, spec, sizeof spec);
    char context[300];
    snprintf(context, sizeof context, "shape '%s'", spec);
    cli_print_error(context, err);
    return CLI_USAGE;
}

// With --find normal or exhaustive: finds p on dev when the find-db has no fresh record of it
// (printing what it timed) and stores the ranking. Returns 0 or an exit code after printing why.
static int find_first(const cli_options *opts, xconv_device *dev, xconv_cache *cache,
                      const xconv_problem *p)
{
    xconv_error err = {0};
    if (!cache || !opts->find_policy)  // the common case: nothing of find is touched
        return 0;
    xconv_find_opts fopts;
    xconv_find_opts_default(&fopts);
    if (!xconv_find_mode_parse(opts->find_policy, &fopts.mode))
        return 0;
    xconv_find_record rec;
    bool stale = false;
    if (xconv_find_db_lookup(cache, xconv_device_get_info(dev), p, &rec, &stale, &err) ==
        XCONV_OK) {
        xconv_find_record_free(&rec);
        if (!stale)
            return 0;
    }
    fopts.measure.seed = opts->seed;
    cli_plan_options(&fopts.measure.plan);
    xconv_find_summary summary;
    xconv_status st = xconv_find_run(dev, p, "", &fopts, &rec, NULL, NULL, &summary, &err);
    if (st == XCONV_OK && rec.count > 0)
        st = xconv_find_db_store(cache, &rec, &err);
    if (st == XCONV_OK)
        printf("found: %d run%s in %.1f s, stored in %s\n", summary.runs,
               cli_plural(summary.runs), summary.seconds, xconv_cache_dir(cache));
    xconv_find_record_free(&rec);
    if (st != XCONV_OK)  // the problem is checked first there, as xconv_plan_create does
        return plan_failed(opts, "find", p, &err);
    return 0;
}

// Opens the device --device selects into *dev and writes its label; returns 0 or an exit code.
static int open_device(const cli_options *opts, xconv_device **dev, char *label, size_t len)
{
    xconv_error err = {0};
    xconv_devices *list = NULL;
    int index, count;
    if (opts->ndevices > 1) {
        cli_error("one --device at a time");
        return CLI_USAGE;
    }
    int rc = cli_select_devices(opts, &list, &index, &count);
    if (!rc && !(*dev = cli_device_open_info(xconv_devices_info_at(list, index), &err))) {
        cli_print_error("device", &err);
        rc = CLI_FAILED;
    }
    xconv_devices_free(list);
    if (rc)
        return rc;
    xconv_device_label(xconv_device_get_info(*dev), label, len);
    return 0;
}

// What the .npy writer needs: the output and its shape.
typedef struct npy_out {
    const float *y;
    int64_t shape[4];
    int64_t dtype;  // written as the problem's storage type ('<f4', '<f2', '<u2' for bf16)
} npy_out;

// Writes the output as .npy (cli_output_write's writer); returns 0 or -1.
static int write_npy(FILE *f, const void *ctx)
{
    const npy_out *o = ctx;
    xconv_error err = {0};
    return xconv_npy_write_stream_dtype(f, o->y, 4, o->shape, o->dtype, &err) == XCONV_OK ? 0
                                                                                          : -1;
}

// Prints the plan made (or refused, with err) with --verbose: its steps, and the floor at the
// device's peaks where they are known.
static void print_plan(const cli_options *opts, xconv_device *dev, const char *name,
                       const xconv_problem *p, const xconv_plan *plan, const xconv_error *err)
{
    static cli_peaks_source src;  // unknown peaks when the peaks file is bad
    cli_peaks peaks = {0};
    if (cli_peaks_open(opts, &src) == 0)
        cli_peaks_lookup(&src, xconv_device_get_info(dev), &peaks);
    cli_peaks_close(&src);
    cli_print_plan_made(dev, name, p, plan, err, &peaks);
}

// Runs the problem on the chosen variant and device with the files' data, or random inputs
// (and the bias file's, or a random bias: stream 3 of the seed), and writes y to out when given.
// The walk: xconv_plan_create (the problem checked, auto asked, once), xconv_plan_forward.
static int run_problem(const cli_options *opts, const xconv_problem *p, const float *file_x,
                       const float *file_w, const float *file_bias, const cli_output *out)
{
    xconv_error err = {0};
    const xconv_variant *v = NULL;
    const char *name = variant_name(opts, &v);
    if (!name)
        return CLI_USAGE;
    unsigned flags = 0;
    if (cli_find_policy(opts, true, &flags))
        return CLI_USAGE;
    bool host = v && xconv_variant_get_info(v)->backends == 0;  // planned with no device
    xconv_plan_options plan_opts;
    cli_plan_options(&plan_opts);
    cli_epilogue_mode(opts, false, &plan_opts, NULL);  // checked by cmd_run
    xconv_device *dev = NULL;
    xconv_cache *cache = NULL;
    char label[320] = "host";
    int rc = 0;
    if (!host) {
        rc = open_device(opts, &dev, label, sizeof label);
        if (rc)
            return rc;
        cache = cli_cache_open(opts, flags);
        xconv_device_set_cache(dev, cache);
        if (!v && (rc = find_first(opts, dev, cache, p)) != 0) {
            xconv_device_close(dev);
            cli_cache_close(cache);
            return rc;
        }
    }
    xconv_plan *plan = xconv_plan_create(dev, p, name, &plan_opts, &err);
    if (dev && opts->verbose)
        print_plan(opts, dev, name, p, plan, &err);
    if (!plan)  // refused before any work: no inputs drawn, nothing run
        rc = plan_failed(opts, name, p, &err);
    else
        rc = check_host_memory(p, host);
    if (rc) {
        xconv_plan_destroy(plan);
        xconv_device_close(dev);
        cli_cache_close(cache);
        return rc;
    }
    float *rx = NULL, *rw = NULL;
    if (!file_x && random_inputs(opts, p, &rx, &rw)) {
        free(rx);
        free(rw);
        xconv_plan_destroy(plan);
        xconv_device_close(dev);
        cli_cache_close(cache);
        return CLI_FAILED;
    }
    const float *x = file_x ? file_x : rx, *w = file_w ? file_w : rw;
    float *rb = NULL;
    if (p->epi.bias && !file_bias && (rb = malloc((size_t)p->k * sizeof(float))) != NULL) {
        xconv_random_fill(rb, (size_t)p->k, opts->seed, 3);
        printf("random bias, seed %llu\n", (unsigned long long)opts->seed);
    }
    const float *bias = file_bias ? file_bias : rb;
    int64_t y_n = xconv_problem_y_elems(p);
    float *y = malloc((size_t)y_n * sizeof(float));
    // Run on the host arrays: what xconv_forward does, with the plan made above.
    double t0 = wall_ms();
    xconv_status st;
    if (!y || (p->epi.bias && !bias))
        st = xconv_error_set(&err, XCONV_ERR_OUT_OF_MEMORY, "no host memory");
    else
        st = xconv_plan_forward(plan, x, w, bias, y, &err);
    double ms = wall_ms() - t0;
    const xconv_variant *chosen = xconv_plan_variant(plan);
    char spec[256];
    xconv_shape_format(p, spec, sizeof spec);
    if (st != XCONV_OK) {
        rc = run_failed(name, &err);
    } else {
        printf("%s on %s: %s -> y[%lld,%lld,%lld,%lld], %.3f ms wall (upload, build, run and "
               "read back)\n",
               xconv_variant_get_info(chosen)->name, label, spec, (long long)p->n,
               (long long)p->k, (long long)xconv_problem_y_h(p), (long long)xconv_problem_y_w(p),
               ms);
        xconv_auto_info info;
        if (xconv_plan_auto_info(plan, &info))
            printf("auto: %s\n", info.why);
        npy_out o = {y, {p->n, p->k, xconv_problem_y_h(p), xconv_problem_y_w(p)}, p->dtype};
        if (out && !(rc = cli_output_write(out, write_npy, &o)) && !out->to_stdout)
            printf("wrote %s\n", out->path);
    }
    xconv_plan_destroy(plan);
    free(y);
    free(rx);
    free(rw);
    free(rb);
    xconv_device_close(dev);
    cli_cache_close(cache);
    return rc;
}

int cmd_run(const cli_options *opts)
{
    // The output path is checked before any work; standard output carries the run's lines.
    cli_output out;
    int rc = opts->output ? cli_output_check("--output", opts->output, false, &out) : 0;
    if (rc)
        return rc;
    xconv_problem p;
    xconv_npy x = {0}, w = {0}, b = {0};
    xconv_plan_options mode;
    rc = cli_epilogue_mode(opts, false, &mode, NULL);
    if (!rc)
        rc = build_problem(opts, &p, &x, &w);
    if (!rc && opts->bias)
        rc = read_bias(opts->bias, &p, &b);
    if (!rc)
        rc = run_problem(opts, &p, x.data, w.data, b.data, opts->output ? &out : NULL);
    xconv_npy_free(&x);
    xconv_npy_free(&w);
    xconv_npy_free(&b);
    return rc;
}
