// SPDX-License-Identifier: MIT
// `xconv bench --fft`: our 2-D real FFTs (the FFT variants' transforms, xconv_fft2d) beside
// VkFFT's on the same device and queue, forward (R2C) and inverse (C2R), each checked against a
// float64 host FFT and against the other before it is timed, as records.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peers/dft_ref.h"
#include "peers/vkfft.h"
#include "cli.h"
#include "stream.h"

// Errors are |out - ref| over the plane's sum |x| (R2C) or the full spectrum's sum |Y| (C2R),
// the bounds of any one output's rounding. Both libraries land near 1e-8 (log2 L rounding
// steps of 2^-24 on terms much smaller than those sums); a wrong twiddle or index moves outputs
// by whole terms, 1e-3 of the sum and more.
#define TRANSFORM_THRESHOLD 1e-6
#define CHECK_PLANES 8  // planes checked against float64: first, last and seeded others
// On devices other than GPUs, `--fft standard` keeps each batch under this many floats of
// planes, so a CPU run stays in minutes; explicit sizes without a batch get this many floats.
#define CPU_STANDARD_FLOATS (1 << 21)
#define DEFAULT_FLOATS_GPU (1 << 24)
#define MAX_SIZES 32

typedef struct fft_size {
    char name[32];   // "ece408_c1 fft", "" for an explicit size
    int64_t lh, lw, batch;
    char note[160];  // why the batch was cut (printed), "" when not
} fft_size;

// ---------------------------------------------------------------------------------------------
// Sizes

// Returns the default batch of lh x lw planes on info's device.
static int64_t default_batch(const xconv_device_info *info, int64_t lh, int64_t lw)
{
    int64_t floats = info->is_gpu ? DEFAULT_FLOATS_GPU : CPU_STANDARD_FLOATS;
    return floats / (lh * lw) > 1 ? floats / (lh * lw) : 1;
}

// Returns whether n is 2^a 3^b 5^c from 2 to 4096, the lengths our transforms take.
static bool smooth_length(long long n)
{
    if (n < 2 || n > 4096)
        return false;
    for (int p = 2; p <= 5; p++)
        while (n % p == 0)
            n /= p;
    return n == 1;
}

// Parses one "LHxLW[:BATCH]" into *s (batch 0: the default); returns false when it is not that
// or a length is not one our transforms take.
static bool parse_size(const char *text, fft_size *s)
{
    long long lh, lw, batch = 0;
    char x, colon, tail;
    int got = sscanf(text, "%lldx%lld%c%lld%c", &lh, &lw, &colon, &batch, &tail);
    if (sscanf(text, "%lld%c", &lh, &x) != 2 || x != 'x' || (got != 2 && got != 4) ||
        (got == 4 && (colon != ':' || batch < 1)) || !smooth_length(lh) ||
        !smooth_length(lw) || batch > XCONV_MAX_INDEX)
        return false;
    *s = (fft_size){.lh = lh, .lw = lw, .batch = batch};
    return true;
}

// Parses a comma-separated list of sizes into sizes; returns their number, or -1 after printing
// which one is wrong.
static int parse_sizes(const char *text, fft_size *sizes)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", text);
    int count = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (count == MAX_SIZES || !parse_size(tok, &sizes[count])) {
            fprintf(stderr, "xconv bench: --fft takes 'standard' or up to %d sizes LHxLW[:BATCH] "
                            "separated by commas (e.g. 48x48,24x24:60000), each length "
                            "2^a 3^b 5^c from 2 to 4096 and the batch at least 1; not '%s'\n",
                    MAX_SIZES, tok);
            return -1;
        }
        count++;
    }
    return count;
}

// Reads define `name` ("XC_FFT_LH") from a step's options string; returns -1 when absent.
static long long option_value(const char *options, const char *name)
{
    char key[48];
    snprintf(key, sizeof key, "-D%s=", name);
    const char *at = strstr(options, key);
    return at ? atoll(at + strlen(key)) : -1;
}

// Adds the transform size and batch of `variant`'s plan of shape (name) on dev to sizes, or
// names the variant on an entry of the same size; returns the new count.
static int add_planned(xconv_device *dev, const xconv_named_shape *shape, const char *variant,
                       fft_size *sizes, int count)
{
    xconv_error err = {0};
    xconv_problem p;
    if (xconv_shape_parse(shape->spec, &p, &err) != XCONV_OK)
        return count;
    xconv_plan *plan = xconv_plan_create(dev, &p, variant, NULL, &err);
    long long lh = -1, lw = -1, batch = -1, channels = -1;
    for (int i = 0; plan && i < xconv_plan_step_count(plan); i++) {
        xconv_plan_step_info s;
        char options[4096];
        if (xconv_plan_step_get_info(plan, i, &s, &err) == XCONV_OK &&
            strcmp(s.label, "input transform") == 0 &&
            xconv_plan_step_options(plan, i, options, sizeof options) > 0) {
            lh = option_value(options, "XC_FFT_LH");
            lw = option_value(options, "XC_FFT_LW");
            batch = option_value(options, "XC_FFT_BATCH");
            channels = option_value(options, "XC_C");
            break;
        }
    }
    xconv_plan_destroy(plan);
    if (lh < 1 || lw < 1 || batch < 1 || channels < 1)
        return count;  // the variant does not apply here
    for (int i = 0; i < count; i++)
        if (sizes[i].lh == lh && sizes[i].lw == lw) {
            size_t used = strlen(sizes[i].name);
            if (strncmp(sizes[i].name, shape->name, strlen(shape->name)) == 0)
                snprintf(sizes[i].name + used, sizeof sizes[i].name - used, ",%s",
                         strcmp(variant, "fft_tiled") == 0 ? "tiled" : variant);
            return count;
        }
    if (count == MAX_SIZES)
        return count;
    fft_size *s = &sizes[count];
    *s = (fft_size){.lh = lh, .lw = lw, .batch = batch * channels};
    snprintf(s->name, sizeof s->name, "%s %s", shape->name,
             strcmp(variant, "fft_tiled") == 0 ? "tiled" : variant);
    return count + 1;
}

// The transform sizes our planner picks on dev for the standard suite's shapes (fft and
// fft_tiled), each with one pass's planes of the input transform; on devices other than GPUs
// the batch is cut to CPU_STANDARD_FLOATS.
static int standard_sizes(xconv_device *dev, fft_size *sizes)
{
    const xconv_device_info *info = xconv_device_get_info(dev);
    int nshapes = 0, count = 0;
    const xconv_named_shape *shapes = xconv_suite_find("standard", &nshapes);
    for (int i = 0; i < nshapes; i++) {
        count = add_planned(dev, &shapes[i], "fft", sizes, count);
        count = add_planned(dev, &shapes[i], "fft_tiled", sizes, count);
    }
    for (int i = 0; i < count && !info->is_gpu; i++) {
        int64_t cap = default_batch(info, sizes[i].lh, sizes[i].lw);
        if (cap < sizes[i].batch) {
            snprintf(sizes[i].note, sizeof sizes[i].note, "%.31s: %lld of %lld planes (not a GPU)",
                     sizes[i].name, (long long)cap, (long long)sizes[i].batch);
            sizes[i].batch = cap;
        }
    }
    return count;
}

// ---------------------------------------------------------------------------------------------
// One size on one device: the data

typedef struct fft_case {
    xconv_device *dev;
    fft_size size;
    int64_t cols;                // lw / 2 + 1
    size_t plane_n, spec_n;      // floats of the planes and of the half spectra (our layout)
    float *x;                    // the planes
    float *spec;                 // our forward's spectra (the C2R input of both)
    float *out;                  // a result read back
    float *vk;                   // VkFFT's buffer on the host
    int64_t check[CHECK_PLANES]; // the planes checked against float64
    int nchecks;
    double *ref_spec, *ref_y;    // their float64 spectra and C2R outputs
    double *plane_sum, *spec_sum;  // per checked plane: sum |x|, sum |Y| of the C2R input
    xconv_buffer *dx, *ds, *dy, *dv;
} fft_case;

static void case_free(fft_case *c)
{
    free(c->x), free(c->spec), free(c->out), free(c->vk);
    free(c->ref_spec), free(c->ref_y), free(c->plane_sum), free(c->spec_sum);
    xconv_buffer_destroy(c->dx), xconv_buffer_destroy(c->ds);
    xconv_buffer_destroy(c->dy), xconv_buffer_destroy(c->dv);
}

// Picks the checked planes: the first, the last and seeded others, distinct.
static void pick_checks(fft_case *c, uint64_t seed)
{
    int64_t b = c->size.batch;
    c->nchecks = 0;
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int i = 0; i < CHECK_PLANES && c->nchecks < b; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        int64_t plane = i == 0 ? 0 : i == 1 ? b - 1 : (int64_t)(state % (uint64_t)b);
        bool seen = false;
        for (int j = 0; j < c->nchecks; j++)
            seen = seen || c->check[j] == plane;
        if (!seen)
            c->check[c->nchecks++] = plane;
    }
}

// Allocates the host and device data of size s and fills the planes (random, seeded).
static xconv_status case_init(fft_case *c, xconv_device *dev, const fft_size *s, uint64_t seed,
                              xconv_error *err)
{
    memset(c, 0, sizeof *c);
    c->dev = dev;
    c->size = *s;
    c->cols = s->lw / 2 + 1;
    c->plane_n = (size_t)(s->batch * s->lh * s->lw);
    c->spec_n = (size_t)(s->batch * s->lh * c->cols) * 2;
    size_t plane1 = (size_t)(s->lh * s->lw), spec1 = (size_t)(s->lh * c->cols) * 2;
    c->x = malloc(c->plane_n * 4), c->spec = malloc(c->spec_n * 4);
    c->out = malloc((c->spec_n > c->plane_n ? c->spec_n : c->plane_n) * 4);
    c->vk = malloc(c->spec_n * 4);
    c->ref_spec = malloc(CHECK_PLANES * spec1 * 8), c->ref_y = malloc(CHECK_PLANES * plane1 * 8);
    c->plane_sum = calloc(CHECK_PLANES, 8), c->spec_sum = calloc(CHECK_PLANES, 8);
    if (!c->x || !c->spec || !c->out || !c->vk || !c->ref_spec || !c->ref_y || !c->plane_sum ||
        !c->spec_sum)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for %lld planes "
                               "of %lldx%lld", (long long)s->batch, (long long)s->lh,
                               (long long)s->lw);
    xconv_random_fill(c->x, c->plane_n, seed, 1);
    pick_checks(c, seed);
    for (int i = 0; i < c->nchecks; i++) {
        const float *plane = c->x + c->check[i] * (int64_t)plane1;
        for (size_t j = 0; j < plane1; j++)
            c->plane_sum[i] += fabs(plane[j]);
        if (!xconv_dft_r2c_f64(plane, s->lh, s->lw, c->ref_spec + i * spec1))
            return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for the "
                                   "float64 FFT");
    }
    if (!(c->dx = xconv_buffer_create(dev, c->plane_n * 4, err)) ||
        !(c->ds = xconv_buffer_create(dev, c->spec_n * 4, err)) ||
        !(c->dy = xconv_buffer_create(dev, c->plane_n * 4, err)))
        return err->status;
    return xconv_buffer_upload(c->dx, 0, c->plane_n * 4, c->x, err);
}

// The float64 C2R outputs of the checked planes of c->spec (our forward's spectra, the C2R
// input of both libraries), and their scales.
static xconv_status case_c2r_reference(fft_case *c, xconv_error *err)
{
    int64_t lh = c->size.lh, lw = c->size.lw, batch = c->size.batch;
    double *half = malloc((size_t)(lh * c->cols) * 2 * sizeof *half);
    bool ok = half != NULL;
    for (int i = 0; ok && i < c->nchecks; i++) {
        for (int64_t f = 0; f < lh * c->cols; f++)
            for (int part = 0; part < 2; part++)
                half[2 * f + part] = c->spec[2 * (f * batch + c->check[i]) + part];
        ok = xconv_dft_c2r_f64(half, lh, lw, c->ref_y + i * lh * lw, &c->spec_sum[i]);
    }
    free(half);
    return ok ? XCONV_OK
              : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for the float64 "
                                "FFT");
}

// ---------------------------------------------------------------------------------------------
// Layouts and errors

// Returns the float index of real part of spectrum element (u, v) of plane b in our layout.
static size_t ours_at(const fft_case *c, int64_t b, int64_t u, int64_t v)
{
    return (size_t)((u * c->cols + v) * c->size.batch + b) * 2;
}

// Returns the float index of the real part of (u, v) of plane b in VkFFT's, and of real
// element (i, j) when `real` (rows padded to 2 * cols floats).
static size_t vk_at(const fft_case *c, int64_t b, int64_t u, int64_t v, bool real)
{
    return (size_t)((b * c->size.lh + u) * c->cols * 2) + (size_t)(real ? v : 2 * v);
}

// The largest error of the spectra `got` (layout `vk` or ours) on the checked planes against
// float64, over each plane's sum |x|.
static double r2c_error(const fft_case *c, const float *got, bool vk)
{
    double worst = 0;
    size_t spec1 = (size_t)(c->size.lh * c->cols) * 2;
    for (int i = 0; i < c->nchecks; i++)
        for (int64_t u = 0; u < c->size.lh; u++)
            for (int64_t v = 0; v < c->cols; v++) {
                int64_t b = c->check[i];
                size_t at = vk ? vk_at(c, b, u, v, false) : ours_at(c, b, u, v);
                const double *ref = c->ref_spec + i * spec1 + 2 * (u * c->cols + v);
                double e = fmax(fabs(got[at] - ref[0]), fabs(got[at + 1] - ref[1]));
                e = isnan(got[at]) || isnan(got[at + 1]) ? INFINITY : e / c->plane_sum[i];
                worst = e > worst ? e : worst;
            }
    return worst;
}

// The largest error of the planes `got` (layout `vk` or ours) on the checked planes against
// float64, over the full spectrum's sum |Y|.
static double c2r_error(const fft_case *c, const float *got, bool vk)
{
    double worst = 0;
    int64_t lh = c->size.lh, lw = c->size.lw;
    for (int i = 0; i < c->nchecks; i++)
        for (int64_t r = 0; r < lh; r++)
            for (int64_t j = 0; j < lw; j++) {
                int64_t b = c->check[i];
                size_t at = vk ? vk_at(c, b, r, j, true) : (size_t)((b * lh + r) * lw + j);
                double e = fabs(got[at] - c->ref_y[(i * lh + r) * lw + j]);
                e = isnan(got[at]) ? INFINITY : e / c->spec_sum[i];
                worst = e > worst ? e : worst;
            }
    return worst;
}

// The largest difference between VkFFT's result (in c->vk) and ours (c->spec or c->out) over
// every plane, over the plane's scale (sum |x| of the checked first plane as the yardstick for
// spectra; its C2R scale for planes).
static double mutual_difference(const fft_case *c, bool inverse)
{
    double worst = 0, scale = inverse ? c->spec_sum[0] : c->plane_sum[0];
    int64_t lh = c->size.lh, n = inverse ? c->size.lw : c->cols;
    for (int64_t b = 0; b < c->size.batch; b++)
        for (int64_t u = 0; u < lh; u++)
            for (int64_t v = 0; v < n; v++) {
                size_t vat = vk_at(c, b, u, v, inverse);
                double e = inverse ? fabs(c->vk[vat] - c->out[(b * lh + u) * n + v])
                                   : fmax(fabs(c->vk[vat] - c->spec[ours_at(c, b, u, v)]),
                                          fabs(c->vk[vat + 1] - c->spec[ours_at(c, b, u, v) + 1]));
                worst = isnan(e) ? INFINITY : e > worst ? e : worst;
            }
    return worst / scale;
}

// ---------------------------------------------------------------------------------------------
// Running and timing

typedef struct fft_impl {
    xconv_fft2d *ours;  // one of the two is set
    xconv_vkfft *vk;
    fft_case *c;
    int inverse;
} fft_impl;

// Enqueues one transform of impl (every run the same work).
static xconv_status enqueue_run(void *user, int run, xconv_error *err)
{
    (void)run;
    const fft_impl *t = user;
    if (t->vk)
        return xconv_vkfft_run(t->vk, t->inverse, err);
    return t->inverse ? xconv_fft2d_inverse(t->ours, t->c->ds, t->c->dy, err)
                      : xconv_fft2d_forward(t->ours, t->c->dx, t->c->ds, err);
}

// Warm-up runs, then `repeat` timed runs; fills the timing fields of r (GFLOP/s at
// 2.5 L log2 L per real plane of L = lh * lw points; bytes of planes and spectra once each).
static xconv_status time_runs(fft_impl *t, const cli_options *opts, xconv_record *r,
                              xconv_error *err)
{
    const fft_size *s = &t->c->size;
    double points = (double)(s->lh * s->lw);
    double flops = 2.5 * points * log2(points) * (double)s->batch;
    double bytes = 4.0 * (double)(t->c->plane_n + t->c->spec_n);
    xconv_result timing;
    xconv_status st = xconv_result_time(t->c->dev, enqueue_run, t, opts->warmup, opts->repeat,
                                        flops, bytes, &timing, err);
    if (st != XCONV_OK)
        return st;
    xconv_record_set_timing(r, &timing);
    if (!(r->median_ms * 1e-3 > 0))  // no time: rates of 0 (the case's own say NaN)
        r->gflops = r->gbps = 0;
    return XCONV_OK;
}

// Sets r's check fields from an error against float64 (and, for VkFFT, the difference from
// ours); returns whether it passed.
static bool record_check(xconv_record *r, double error, double mutual)
{
    r->max_norm_err = r->max_block_err = error;
    bool pass = error <= r->threshold && (isnan(mutual) || mutual <= r->threshold);
    r->outcome = pass ? XCONV_OUTCOME_PASS : XCONV_OUTCOME_FAIL;
    if (!isnan(mutual))
        snprintf(r->note, sizeof r->note, "differs from ours by %.2g", mutual);
    else if (!pass)
        snprintf(r->note, sizeof r->note, "error %.3g > %.1g", error, r->threshold);
    return pass;
}

// ---------------------------------------------------------------------------------------------
// Records

static xconv_record *record_new(xconv_record_list *list, const xconv_device *dev,
                                const char *variant, const fft_case *c, uint64_t seed)
{
    xconv_record *r = xconv_record_list_add(list);
    if (!r)
        return NULL;
    const xconv_device_info *info = xconv_device_get_info(dev);
    const fft_size *s = &c->size;
    xconv_device_label(info, r->device, sizeof r->device);
    snprintf(r->backend, sizeof r->backend, "%s", xconv_backend_name(info->backend));
    snprintf(r->driver, sizeof r->driver, "%s", info->driver);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->family, sizeof r->family, "fft");
    snprintf(r->shape_name, sizeof r->shape_name, "%s", s->name);
    snprintf(r->shape, sizeof r->shape, "fft2d lh=%lld,lw=%lld,batch=%lld", (long long)s->lh,
             (long long)s->lw, (long long)s->batch);
    snprintf(r->reference, sizeof r->reference, "float64 FFT, %d planes", c->nchecks);
    r->seed = seed;
    r->threshold = TRANSFORM_THRESHOLD;
    r->worst_index = -1;
    r->max_norm_err = r->max_block_err = NAN;
    r->error_block_h = r->error_block_w = 1;
    return r;
}

static void record_error(xconv_record *r, const xconv_error *err)
{
    r->outcome = err->status == XCONV_ERR_NOT_APPLICABLE || err->status == XCONV_ERR_OUT_OF_MEMORY ||
                         err->status == XCONV_ERR_UNAVAILABLE
                     ? XCONV_OUTCOME_NOT_APPLICABLE
                     : XCONV_OUTCOME_ERROR;
    snprintf(r->note, sizeof r->note, "%.*s", (int)sizeof r->note - 1, err->msg);
}

// Runs our transform once on poisoned output, reads it into `into` and checks it; times it when
// it passed. Fills r.
static xconv_status bench_ours(fft_case *c, xconv_fft2d *f, int inverse, float *into,
                               const cli_options *opts, xconv_record *r, xconv_error *err)
{
    xconv_buffer *out = inverse ? c->dy : c->ds;
    size_t n = inverse ? c->plane_n : c->spec_n;
    xconv_status st = xconv_buffer_fill_f32(out, n, NAN, err);
    if (st == XCONV_OK)
        st = inverse ? xconv_fft2d_inverse(f, c->ds, c->dy, err)
                     : xconv_fft2d_forward(f, c->dx, c->ds, err);
    if (st == XCONV_OK)
        st = xconv_buffer_download(out, 0, n * 4, into, err);
    if (st == XCONV_OK && inverse)
        st = case_c2r_reference(c, err);
    if (st != XCONV_OK)
        return st;
    double e = inverse ? c2r_error(c, into, false) : r2c_error(c, into, false);
    fft_impl t = {.ours = f, .c = c, .inverse = inverse};
    return record_check(r, e, NAN) ? time_runs(&t, opts, r, err) : XCONV_OK;
}

// Loads VkFFT's buffer with the planes (R2C) or our spectra (C2R) in its layout.
static xconv_status vk_load(fft_case *c, int inverse, xconv_error *err)
{
    int64_t lh = c->size.lh, lw = c->size.lw;
    memset(c->vk, 0, c->spec_n * 4);
    for (int64_t b = 0; b < c->size.batch; b++)
        for (int64_t u = 0; u < lh; u++)
            for (int64_t v = 0; v < (inverse ? c->cols : lw); v++) {
                if (inverse) {
                    c->vk[vk_at(c, b, u, v, false)] = c->spec[ours_at(c, b, u, v)];
                    c->vk[vk_at(c, b, u, v, false) + 1] = c->spec[ours_at(c, b, u, v) + 1];
                } else {
                    c->vk[vk_at(c, b, u, v, true)] = c->x[(b * lh + u) * lw + v];
                }
            }
    return xconv_buffer_upload(c->dv, 0, c->spec_n * 4, c->vk, err);
}

// Runs VkFFT's transform once, checks it against float64 and (when `compare`) ours, and times
// it when it passed.
static xconv_status bench_vkfft(fft_case *c, xconv_vkfft *v, int inverse, bool compare,
                                const cli_options *opts, xconv_record *r, xconv_error *err)
{
    xconv_status st = vk_load(c, inverse, err);
    if (st == XCONV_OK)
        st = xconv_vkfft_run(v, inverse, err);
    if (st == XCONV_OK)
        st = xconv_buffer_download(c->dv, 0, c->spec_n * 4, c->vk, err);
    if (st != XCONV_OK)
        return st;
    double e = inverse ? c2r_error(c, c->vk, true) : r2c_error(c, c->vk, true);
    fft_impl t = {.vk = v, .c = c, .inverse = inverse};
    double mutual = compare ? mutual_difference(c, inverse) : NAN;
    return record_check(r, e, mutual) ? time_runs(&t, opts, r, err) : XCONV_OK;
}

// Checks and times ours and VkFFT's R2C and C2R for size s on dev: four records. VkFFT's C2R
// takes our R2C's spectra, and each of its results is compared with ours.
static void bench_size(xconv_device *dev, const fft_size *s, const cli_options *opts,
                       xconv_record_list *list)
{
    xconv_error err = {0};
    fft_case c;
    xconv_status st = case_init(&c, dev, s, opts->seed, &err);
    xconv_plan_options plan_opts;
    cli_plan_options(&plan_opts);
    xconv_fft2d *ours = st == XCONV_OK ? xconv_fft2d_create(dev, s->lh, s->lw, s->batch,
                                                            &plan_opts, &err)
                                       : NULL;
    if (ours && opts->verbose)
        fprintf(stderr, "%s\n", xconv_fft2d_summary(ours));
    static const char *const names[2][2] = {{"r2c_ours", "c2r_ours"},
                                            {"r2c_vkfft", "c2r_vkfft"}};
    bool ours_ok[2] = {false, false};  // ran and passed: c.spec, c.out hold its results
    for (int inverse = 0; inverse < 2; inverse++) {
        xconv_record *r = record_new(list, dev, names[0][inverse], &c, opts->seed);
        if (!r)
            return case_free(&c);
        double compile0 = xconv_device_compile_ms(dev);
        xconv_status rs = ours ? XCONV_OK : err.status;
        if (ours && inverse && !ours_ok[0])
            rs = xconv_error_set(&err, XCONV_ERR_NOT_APPLICABLE, "not run: our R2C gave no "
                                 "spectra");
        if (rs == XCONV_OK)
            rs = bench_ours(&c, ours, inverse, inverse ? c.out : c.spec, opts, r, &err);
        ours_ok[inverse] = rs == XCONV_OK && r->outcome == XCONV_OUTCOME_PASS;
        r->compile_ms = xconv_device_compile_ms(dev) - compile0;
        if (rs != XCONV_OK)
            record_error(r, &err);
        fprintf(stderr, "\r[%d] %-10s %-24s %-5s", list->count, r->variant, r->shape,
                xconv_outcome_name(r->outcome));
    }
    const char *missing = xconv_vkfft_missing(dev);
    xconv_vkfft *vk = NULL;
    if (missing)
        xconv_error_set(&err, XCONV_ERR_UNAVAILABLE, "%s", missing);
    else if (!ours_ok[0])  // ours failed (its record says so) or does not take this size
        xconv_error_set(&err, XCONV_ERR_NOT_APPLICABLE, "not run: our R2C gave no spectra to "
                        "compare with");
    else if ((c.dv = xconv_buffer_create(dev, c.spec_n * 4, &err)))
        vk = xconv_vkfft_create(dev, s->lh, s->lw, s->batch, c.dv, &err);
    for (int inverse = 0; inverse < 2; inverse++) {
        xconv_record *r = record_new(list, dev, names[1][inverse], &c, opts->seed);
        if (!r)
            break;
        xconv_status rs = vk ? bench_vkfft(&c, vk, inverse, ours_ok[inverse], opts, r, &err)
                             : err.status;
        if (rs != XCONV_OK)
            record_error(r, &err);
        fprintf(stderr, "\r[%d] %-10s %-24s %-5s", list->count, r->variant, r->shape,
                xconv_outcome_name(r->outcome));
    }
    xconv_vkfft_destroy(vk);
    xconv_fft2d_destroy(ours);
    case_free(&c);
}

// Prints ours as a share of VkFFT's time per size and direction (records in fours).
static void print_ratios(const xconv_record_list *list)
{
    for (int i = 0; i + 3 < list->count; i += 4)
        for (int d = 0; d < 2; d++) {
            const xconv_record *ours = &list->recs[i + d], *vk = &list->recs[i + 2 + d];
            if (ours->median_ms <= 0 || vk->median_ms <= 0 || strcmp(ours->shape, vk->shape))
                continue;
            printf("%-24s %-34s %s ours %8.4f ms = %5.2fx VkFFT's time\n", ours->shape_name,
                   ours->shape, d ? "C2R" : "R2C", ours->median_ms,
                   ours->median_ms / vk->median_ms);
        }
}

// ---------------------------------------------------------------------------------------------
// The command

int cmd_bench_fft(const cli_options *opts)
{
    fft_size explicit_sizes[MAX_SIZES];
    bool standard = strcmp(opts->fft, "standard") == 0;
    int nexplicit = standard ? 0 : parse_sizes(opts->fft, explicit_sizes);
    if (nexplicit < 0)
        return CLI_USAGE;
    xconv_devices *devices = NULL;
    int indices[CLI_MAX_LIST], ndevices = 0;
    int rc = cli_select_devices(opts, &devices, indices, &ndevices);
    xconv_record_list list;
    xconv_record_list_init(&list, opts->argc, opts->argv);
    for (int d = 0; !rc && d < ndevices; d++) {
        const xconv_device_info *info = xconv_devices_info_at(devices, indices[d]);
        xconv_device *dev = cli_open_device(devices, indices[d]);
        if (!dev) {
            rc = CLI_FAILED;
            break;
        }
        const char *missing = xconv_vkfft_missing(dev);
        if (missing)
            fprintf(stderr, "note: %s; VkFFT's rows are n/a\n", missing);
        fft_size sizes[MAX_SIZES];
        int nsizes = standard ? standard_sizes(dev, sizes) : nexplicit;
        for (int i = 0; i < nsizes; i++) {
            if (!standard) {
                sizes[i] = explicit_sizes[i];
                if (!sizes[i].batch)
                    sizes[i].batch = default_batch(info, sizes[i].lh, sizes[i].lw);
            }
            if (sizes[i].note[0])
                fprintf(stderr, "\rnote: %s\n", sizes[i].note);
            bench_size(dev, &sizes[i], opts, &list);
        }
        xconv_device_close(dev);
    }
    fprintf(stderr, "\r%70s\r", "");
    int failed = xconv_record_list_failed(&list);
    if (!rc) {
        xconv_records_write_table(stdout, list.recs, list.count, true,
                                  opts->all || opts->verbose);
        print_ratios(&list);
        rc = cli_write_records(&list, opts);
        printf("%d record%s: %d failed or errored\n", list.count, cli_plural(list.count),
               failed);
    }
    xconv_record_list_free(&list);
    xconv_devices_free(devices);
    return rc ? rc : failed ? CLI_FAILED : CLI_OK;
}
