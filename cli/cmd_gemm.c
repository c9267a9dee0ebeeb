// SPDX-License-Identifier: MIT
// `xconv bench --gemm`: our SGEMM (cl/sgemm.cl) beside the vendor's (CLBlast, cuBLAS) on raw
// matrices, each checked against float64 on the host before it is timed, as records. In the
// other storage types and math modes (--dtype, --math) ours runs as a 1x1 convolution (gemm_1x1
// on 16-bit storage, implicit_mma on tensor cores) and cuBLAS through its typed GEMM.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stream.h"

// Products up to this many multiply-adds are checked in full on the host, larger ones at
// sampled elements.
#define FULL_CHECK_MACS (1LL << 28)
#define CHECK_SAMPLES 1000
// On devices other than GPUs, `--gemm standard` keeps each product under this many FLOPs
// (fewer images per chunk) and leaves out the cubes, so a CPU run stays in minutes and memory.
#define CPU_STANDARD_FLOPS 2e9
#define CPU_STANDARD_BYTES 256e6  // and B and C under this many bytes

typedef struct gemm_size {
    char name[32];   // "res3x3", "4096^3", "" for an explicit size
    int64_t m, n, k;
    char note[160];  // why it was shrunk or left out (printed), "" when not
    bool skip;
} gemm_size;

#define MAX_SIZES 32

// ---------------------------------------------------------------------------------------------
// Sizes

// Parses "M,N,K" into *s; returns false when it is not three positive integers.
static bool parse_size(const char *text, gemm_size *s)
{
    long long m, n, k;
    char tail;
    if (sscanf(text, "%lld,%lld,%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1 ||
        m > XCONV_MAX_INDEX || n > XCONV_MAX_INDEX || k > XCONV_MAX_INDEX)
        return false;
    *s = (gemm_size){.m = m, .n = n, .k = k};
    return true;
}

// Images in one im2col_gemm pass of p on dev: its workspace's columns over one image's.
static int64_t im2col_images(xconv_device *dev, const xconv_problem *p)
{
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, p, "im2col_gemm", NULL, &err);
    size_t image = (size_t)(p->c * p->r * p->s * xconv_problem_out_h(p) *
                            xconv_problem_out_w(p)) * sizeof(float);
    int64_t images = plan ? (int64_t)(xconv_plan_workspace_size(plan) / image) : 0;
    xconv_plan_destroy(plan);
    return images;
}

// The GEMM of each standard shape on this device (M = K/groups, N = P*Q * images in one
// im2col_gemm chunk, K = C/groups*R*S), then 4096^3 and 8192^3.
static int standard_sizes(xconv_device *dev, gemm_size *sizes)
{
    const xconv_device_info *info = xconv_device_get_info(dev);
    int count = 0, nshapes = 0;
    const xconv_named_shape *shapes = xconv_suite_find("standard", &nshapes);
    xconv_error err = {0};
    for (int i = 0; i < nshapes && count < MAX_SIZES - 2; i++) {
        xconv_problem p;
        if (xconv_shape_parse(shapes[i].spec, &p, &err) != XCONV_OK)
            continue;
        gemm_size *s = &sizes[count++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", shapes[i].name);
        int64_t pq = xconv_problem_out_h(&p) * xconv_problem_out_w(&p);
        int64_t images = im2col_images(dev, &p);
        s->m = p.k / p.groups;
        s->k = p.c / p.groups * p.r * p.s;
        if (!info->is_gpu) {
            int64_t cap = (int64_t)(CPU_STANDARD_FLOPS / (2.0 * s->m * s->k * pq));
            int64_t by_bytes = (int64_t)(CPU_STANDARD_BYTES / (4.0 * (s->m + s->k) * pq));
            cap = by_bytes < cap ? by_bytes : cap;
            if (cap < images) {
                snprintf(s->note, sizeof s->note, "%s: %lld of %lld images (not a GPU)",
                         s->name, (long long)(cap > 1 ? cap : 1), (long long)p.n);
                images = cap > 1 ? cap : 1;
            }
        }
        s->n = pq * (images > 0 ? images : 1);
    }
    for (int64_t cube = 4096; cube <= 8192; cube *= 2) {
        gemm_size *s = &sizes[count++];
        *s = (gemm_size){.m = cube, .n = cube, .k = cube};
        snprintf(s->name, sizeof s->name, "%lld^3", (long long)cube);
        if (!info->is_gpu) {
            s->skip = true;
            snprintf(s->note, sizeof s->note, "%s: left out on a device that is not a GPU "
                     "(ask for it with --gemm %lld,%lld,%lld)",
                     s->name, (long long)cube, (long long)cube, (long long)cube);
        }
    }
    return count;
}

// ---------------------------------------------------------------------------------------------
// One product on one device

// The storage type of A and B and the math mode of a run (--dtype, --math).
typedef struct gemm_mode {
    int64_t dtype, math;
} gemm_mode;

// Bytes of one element of storage type dtype.
static size_t elem_bytes(int64_t dtype)
{
    return dtype == XCONV_DTYPE_F32 ? sizeof(float) : sizeof(uint16_t);
}

// The device buffers and host copies of one product. A and B live on the device in the run's
// storage type, and on the host as the fp32 values of what was stored (the random values
// rounded to the type), so the float64 check sees exactly the operands the product read.
typedef struct gemm_case {
    xconv_device *dev;
    gemm_size size;
    gemm_mode mode;
    xconv_problem as_conv;   // C = A*B as a 1x1 convolution: x = B (k x n), w = A (m x k)
    float *a, *b, *c;
    void *c_stored;          // a 16-bit C as downloaded (16-bit storage types only)
    xconv_buffer *da, *db, *dc;
} gemm_case;

static void case_free(gemm_case *g)
{
    xconv_buffer_destroy(g->da);
    xconv_buffer_destroy(g->db);
    xconv_buffer_destroy(g->dc);
    free(g->a);
    free(g->b);
    free(g->c);
    free(g->c_stored);
}

// Rounds the n values at host to dtype and uploads them to buf in that type.
static xconv_status upload_as(xconv_buffer *buf, int64_t dtype, float *host, size_t n,
                              xconv_error *err)
{
    xconv_dtype_round(dtype, host, n);
    if (dtype == XCONV_DTYPE_F32)
        return xconv_buffer_upload(buf, 0, n * sizeof(float), host, err);
    uint16_t *stored = malloc(n * sizeof *stored);
    if (!stored)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for the matrices");
    xconv_dtype_from_f32(dtype, host, stored, n);
    xconv_status st = xconv_buffer_upload(buf, 0, n * sizeof *stored, stored, err);
    free(stored);
    return st;
}

// Allocates and fills A and B (random, seeded, rounded to the mode's storage type) on the host
// and the device, and C (room for fp32, the widest C).
static xconv_status case_init(gemm_case *g, xconv_device *dev, const gemm_size *s,
                              gemm_mode mode, uint64_t seed, xconv_error *err)
{
    memset(g, 0, sizeof *g);
    g->dev = dev;
    g->size = *s;
    g->mode = mode;
    g->as_conv = xconv_problem_default();
    g->as_conv.n = 1, g->as_conv.c = s->k, g->as_conv.h = 1, g->as_conv.w = s->n;
    g->as_conv.k = s->m, g->as_conv.r = 1, g->as_conv.s = 1;
    size_t an = (size_t)(s->m * s->k), bn = (size_t)(s->k * s->n), cn = (size_t)(s->m * s->n);
    size_t elem = elem_bytes(mode.dtype);
    g->a = malloc(an * sizeof(float));
    g->b = malloc(bn * sizeof(float));
    g->c = malloc(cn * sizeof(float));
    g->c_stored = mode.dtype != XCONV_DTYPE_F32 ? malloc(cn * sizeof(uint16_t)) : NULL;
    if (!g->a || !g->b || !g->c || (mode.dtype != XCONV_DTYPE_F32 && !g->c_stored))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for the matrices");
    xconv_random_fill(g->a, an, seed, 2);
    xconv_random_fill(g->b, bn, seed, 1);
    if (!(g->da = xconv_buffer_create(dev, an * elem, err)) ||
        !(g->db = xconv_buffer_create(dev, bn * elem, err)) ||
        !(g->dc = xconv_buffer_create(dev, cn * sizeof(float), err)))
        return err->status;
    xconv_status st = upload_as(g->da, mode.dtype, g->a, an, err);
    if (st == XCONV_OK)
        st = upload_as(g->db, mode.dtype, g->b, bn, err);
    return st;
}

// Enqueues one product.
static xconv_status case_enqueue(gemm_case *g, xconv_gemm *product, xconv_error *err)
{
    return xconv_gemm_run(product, g->da, g->db, g->dc, err);
}

// Runs the product once on a NaN-poisoned C and checks it against float64 on the host: every
// element when it is small, else CHECK_SAMPLES of them (corners included). Fills the record's
// check fields and outcome.
static xconv_status case_check(gemm_case *g, xconv_gemm *plan, xconv_record *rec,
                               uint64_t seed, xconv_error *err)
{
    size_t cn = (size_t)(g->size.m * g->size.n);
    int64_t c_dtype = xconv_gemm_c_dtype(plan);
    // All ones: a NaN in fp32, fp16 and bf16 alike, over the whole buffer.
    float poison;
    memcpy(&poison, &(uint32_t){0xffffffffu}, sizeof poison);
    xconv_status st = xconv_buffer_fill_f32(g->dc, cn, poison, err);
    if (st == XCONV_OK)
        st = case_enqueue(g, plan, err);
    if (st == XCONV_OK)
        st = xconv_device_wait(g->dev, err);
    void *stored = c_dtype == XCONV_DTYPE_F32 ? (void *)g->c : g->c_stored;
    if (st == XCONV_OK && !stored)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "C's storage type %lld is not the run's",
                             (long long)c_dtype);
    if (st == XCONV_OK)
        st = xconv_buffer_download(g->dc, 0, cn * elem_bytes(c_dtype), stored, err);
    if (st == XCONV_OK && stored != g->c && !xconv_dtype_to_f32(c_dtype, stored, g->c, cn))
        st = xconv_error_set(err, XCONV_ERR_INVALID, "C's storage type %lld is not known",
                             (long long)c_dtype);
    if (st != XCONV_OK)
        return st;
    xconv_compare_result res = {0};
    if (g->size.m * g->size.n * g->size.k <= FULL_CHECK_MACS) {
        double *ref = malloc(cn * sizeof *ref), *norm = malloc(cn * sizeof *norm);
        st = ref && norm ? xconv_reference_conv(&g->as_conv, g->b, g->a, ref, norm, 0, err)
                         : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory");
        if (st == XCONV_OK)
            xconv_compare_full(g->c, ref, norm, (int64_t)cn, &res);
        free(ref);
        free(norm);
        snprintf(rec->reference, sizeof rec->reference, "cpu_ref");
    } else {
        int64_t samples[CHECK_SAMPLES];
        xconv_sample_indices(&g->as_conv, samples, CHECK_SAMPLES, seed);
        xconv_compare_sampled(&g->as_conv, g->b, g->a, NULL, g->c, samples, CHECK_SAMPLES,
                              &res);
        snprintf(rec->reference, sizeof rec->reference, "cpu_ref %d samples", CHECK_SAMPLES);
    }
    if (st != XCONV_OK)
        return st;
    rec->max_norm_err = res.max_norm_err;
    rec->worst_index = res.worst_index;
    bool pass = res.nonfinite == 0 && res.compared > 0 && res.max_norm_err <= rec->threshold;
    rec->outcome = pass ? XCONV_OUTCOME_PASS : XCONV_OUTCOME_FAIL;
    if (!pass) {
        int64_t at = res.nonfinite ? res.first_nonfinite : res.worst_index;
        snprintf(rec->note, sizeof rec->note, "%lld non-finite; error %.3g at row %lld col %lld",
                 (long long)res.nonfinite, res.max_norm_err, (long long)(at / g->size.n),
                 (long long)(at % g->size.n));
    }
    return XCONV_OK;
}

// What the measuring primitive's enqueue callback needs: the case and the product.
typedef struct gemm_runs {
    gemm_case *g;
    xconv_gemm *plan;
} gemm_runs;

// Enqueues one product (every run the same).
static xconv_status enqueue_run(void *user, int run, xconv_error *err)
{
    (void)run;
    const gemm_runs *r = user;
    return case_enqueue(r->g, r->plan, err);
}

// Warm-up runs, then `repeat` timed runs with device events; fills the timing fields.
static xconv_status case_time(gemm_case *g, xconv_gemm *plan, int warmup, int repeat,
                              xconv_record *rec, xconv_error *err)
{
    gemm_runs runs = {.g = g, .plan = plan};
    const gemm_size *s = &g->size;
    double flops = 2.0 * (double)s->m * (double)s->n * s->k;
    double bytes = (double)elem_bytes(g->mode.dtype) * (double)(s->m * s->k + s->k * s->n) +
                   (double)elem_bytes(xconv_gemm_c_dtype(plan)) * (double)(s->m * s->n);
    xconv_result timing;
    xconv_status st = xconv_result_time(g->dev, enqueue_run, &runs, warmup, repeat, flops, bytes,
                                        &timing, err);
    if (st == XCONV_OK)
        xconv_record_set_timing(rec, &timing);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Records

// Appends a record of `variant` for size s in mode `mode` on the device info describes
// (libraries: what it runs on) to the run; returns it, or NULL without memory.
static xconv_record *record_new(cli_stream *out, const xconv_device_info *info,
                                const char *libraries, const char *variant, const gemm_size *s,
                                gemm_mode mode)
{
    xconv_record *r = cli_stream_add(out);
    if (!r)
        return NULL;
    xconv_device_label(info, r->device, sizeof r->device);
    snprintf(r->backend, sizeof r->backend, "%s", xconv_backend_name(info->backend));
    snprintf(r->driver, sizeof r->driver, "%s", info->driver);
    snprintf(r->libraries, sizeof r->libraries, "%s", libraries);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->family, sizeof r->family, "gemm");
    snprintf(r->shape_name, sizeof r->shape_name, "%s", s->name);
    snprintf(r->shape, sizeof r->shape, "gemm m=%lld,n=%lld,k=%lld", (long long)s->m,
             (long long)s->n, (long long)s->k);
    snprintf(r->dtype, sizeof r->dtype, "%s", xconv_dtype_name(mode.dtype));
    snprintf(r->math, sizeof r->math, "%s", xconv_math_name(mode.math));
    r->threshold = xconv_threshold_for_family("gemm") + xconv_threshold_math(mode.math);
    return r;
}

static void record_error(xconv_record *r, const xconv_error *err)
{
    r->outcome = err->status == XCONV_ERR_NOT_APPLICABLE || err->status == XCONV_ERR_OUT_OF_MEMORY
                     ? XCONV_OUTCOME_NOT_APPLICABLE
                     : XCONV_OUTCOME_ERROR;
    snprintf(r->note, sizeof r->note, "%.*s", (int)sizeof r->note - 1, err->msg);
}

// True in a mode other than fp32 storage with strict fp32 math.
static bool mode_reduced(gemm_mode mode)
{
    return mode.dtype != XCONV_DTYPE_F32 || mode.math != XCONV_MATH_F32;
}

// Our row of a mode: the SGEMM on fp32 in strict fp32, gemm_1x1 on 16-bit storage in strict
// fp32, implicit_mma (tensor cores) in the reduced math modes.
static const char *ours_name(gemm_mode mode)
{
    if (mode.math != XCONV_MATH_F32)
        return "implicit_mma";
    return mode.dtype == XCONV_DTYPE_F32 ? "sgemm_ours" : "gemm_1x1";
}

// The vendor's row of a device's backend in a mode: cuBLAS's SGEMM, or its typed GEMM
// (cublasGemmStridedBatchedEx) in the other modes; CLBlast's SGEMM (not applicable but in
// strict fp32).
static const char *vendor_name(const xconv_device_info *info, gemm_mode mode)
{
    if (info->backend == XCONV_BACKEND_CUDA)
        return mode_reduced(mode) ? "cublas_gemmex" : "cublas_sgemm";
    return "clblast_sgemm";
}

// True for the name of one of our rows.
static bool is_ours(const char *variant)
{
    return !strcmp(variant, "sgemm_ours") || !strcmp(variant, "gemm_1x1") ||
           !strcmp(variant, "implicit_mma");
}

// Checks and times ours and the vendor's GEMM for size s in mode `mode` on dev, streaming one
// record each; timed records get their floor at the device's peaks (the tensor cores' of the
// mode in the reduced math modes).
static void bench_size(xconv_device *dev, const char *libraries, const gemm_size *s,
                       const cli_options *opts, gemm_mode mode, const cli_peaks *peaks,
                       cli_stream *out)
{
    xconv_error err = {0}, ours_err = {0};
    const xconv_device_info *info = xconv_device_get_info(dev);
    char label[320];
    xconv_device_label(info, label, sizeof label);
    const char *name = s->name[0] ? s->name : opts->gemm;
    const char *ours_variant = ours_name(mode);
    xconv_plan_options plan_opts;
    cli_plan_options(&plan_opts);
    cli_stream_begin(out, name, ours_variant, label);
    int first = out->list.count;
    xconv_gemm *ours = xconv_gemm_create_typed(dev, s->m, s->n, s->k, mode.dtype, mode.math,
                                               "xconv", &plan_opts, &ours_err);
    if (!ours && ours_err.status == XCONV_ERR_OUT_OF_MEMORY) {
        // too large for this device: say so once for both
        xconv_record *r = record_new(out, info, libraries, ours_variant, s, mode);
        if (r)
            record_error(r, &ours_err);
        cli_stream_emit(out, first);
        return;
    }
    if (ours && opts->verbose)
        fprintf(stderr, "%s\n", xconv_gemm_summary(ours));
    gemm_case g;
    xconv_error init_err = {0};
    xconv_status st = case_init(&g, dev, s, mode, opts->seed, &init_err);
    xconv_problem floor_problem = g.as_conv;  // A, B and C in the storage type: a lower bound
    floor_problem.dtype = mode.dtype, floor_problem.math = mode.math;
    for (int which = 0; which < 2 && !cli_stream_stopping(out); which++) {
        const char *variant = which == 0 ? ours_variant : vendor_name(info, mode);
        cli_stream_begin(out, name, variant, label);
        xconv_gemm *use = which == 0 ? ours
                                     : xconv_gemm_create_typed(dev, s->m, s->n, s->k, mode.dtype,
                                                               mode.math, "vendor", NULL, &err);
        if (!use && which == 1 && err.status == XCONV_ERR_UNAVAILABLE)
            break;  // the backend has no vendor BLAS
        first = out->list.count;
        xconv_record *r = record_new(out, info, libraries, variant, s, mode);
        if (!r)
            break;
        r->seed = opts->seed;
        if (!use) {  // ours has no kernel for the mode here, or the vendor's plan failed
            record_error(r, which == 0 ? &ours_err : &err);
            cli_stream_emit(out, first);
            continue;
        }
        // C's own rounding where it is stored in 16 bits (ours in the f16 and bf16 modes).
        r->threshold += xconv_threshold_storage(xconv_gemm_c_dtype(use));
        double compile0 = xconv_device_compile_ms(dev);
        xconv_status rs = st;
        if (rs != XCONV_OK)
            err = init_err;
        if (rs == XCONV_OK)
            rs = case_check(&g, use, r, opts->seed, &err);
        if (rs == XCONV_OK && r->outcome == XCONV_OUTCOME_PASS)
            rs = case_time(&g, use, opts->warmup, opts->repeat, r, &err);
        r->compile_ms = xconv_device_compile_ms(dev) - compile0;
        if (rs != XCONV_OK)
            record_error(r, &err);
        else if ((which == 0 || mode_reduced(mode)) && !r->note[0])  // the plan: tiles, types
            snprintf(r->note, sizeof r->note, "%.*s", (int)sizeof r->note - 1,
                     xconv_gemm_summary(use));
        if (rs == XCONV_OK && r->repeat > 0)
            xconv_record_set_floor(r, &floor_problem, cli_peaks_gflops(peaks, mode.math),
                                   peaks->gbps);
        if (which == 1)
            xconv_gemm_destroy(use);
        cli_stream_emit(out, first);
    }
    xconv_gemm_destroy(ours);
    case_free(&g);
}

// Prints ours as a share of the vendor's speed per size (records come in pairs).
static void print_ratios(FILE *f, const xconv_record_list *list)
{
    for (int i = 0; i + 1 < list->count; i++) {
        const xconv_record *ours = &list->recs[i], *vendor = &list->recs[i + 1];
        if (!is_ours(ours->variant) || is_ours(vendor->variant) ||
            strcmp(ours->shape, vendor->shape) || !(ours->gflops > 0) || !(vendor->gflops > 0))
            continue;
        fprintf(f, "%-14s %-34s %s %8.1f GFLOP/s = %5.1f%% of %s\n",
                ours->shape_name[0] ? ours->shape_name : "", ours->shape,
                strcmp(ours->variant, "sgemm_ours") ? ours->variant : "ours", ours->gflops,
                100.0 * ours->gflops / vendor->gflops, vendor->variant);
    }
}

// ---------------------------------------------------------------------------------------------
// The command

// Reads --dtype and --math into *mode, with the rules of a problem's dtype and math (tf32 on
// f32, f16 on f16, bf16 on bf16, f32 on any); returns 0, or CLI_USAGE after a message.
static int parse_mode(const cli_options *opts, gemm_mode *mode)
{
    xconv_problem p;
    xconv_error err = {0};
    char keys[96];
    snprintf(keys, sizeof keys, "%s%s%s%s%s", opts->dtype ? "dtype=" : "",
             opts->dtype ? opts->dtype : "", opts->dtype && opts->math ? "," : "",
             opts->math ? "math=" : "", opts->math ? opts->math : "");
    if (xconv_shape_parse("n=1,c=1,h=1,w=1,k=1,r=1", &p, &err) != XCONV_OK ||
        (keys[0] && (xconv_shape_apply(keys, &p, NULL, &err) != XCONV_OK ||
                     xconv_problem_check(&p, &err) != XCONV_OK))) {
        cli_print_error(opts->dtype ? "--dtype" : "--math", &err);
        return CLI_USAGE;
    }
    *mode = (gemm_mode){.dtype = p.dtype, .math = p.math};
    return 0;
}

// Widens the run's table for the sizes and devices to come and returns the records expected
// (two a size: ours and the vendor's).
static int plan_run(const xconv_devices *devices, const int *indices, int ndevices,
                    const gemm_size *explicit_size, gemm_mode mode, cli_stream *out)
{
    bool standard = explicit_size == NULL;
    int nshapes = 0;
    xconv_suite_find("standard", &nshapes);
    int sizes = standard ? nshapes + 2 : 1;
    xconv_record r;
    for (int d = 0; out && d < ndevices; d++) {
        const xconv_device_info *info = xconv_devices_info_at(devices, indices[d]);
        xconv_record_clear(&r);
        xconv_device_label(info, r.device, sizeof r.device);
        snprintf(r.backend, sizeof r.backend, "%s", xconv_backend_name(info->backend));
        snprintf(r.variant, sizeof r.variant, "%s", vendor_name(info, mode));
        // One size: its own text, which the table names once above its rows. Several: the
        // widest text a size can have and a second one, so that the table keeps a shape column.
        if (!standard)
            snprintf(r.shape, sizeof r.shape, "gemm m=%lld,n=%lld,k=%lld",
                     (long long)explicit_size->m, (long long)explicit_size->n,
                     (long long)explicit_size->k);
        else
            snprintf(r.shape, sizeof r.shape, "gemm m=2147483647,n=2147483647,k=2147483647");
        cli_stream_fit(out, &r);
        if (standard) {
            snprintf(r.shape, sizeof r.shape, "gemm m=1,n=1,k=1");
            cli_stream_fit(out, &r);
        }
    }
    return ndevices * sizes * 2;
}

int cmd_bench_gemm(const cli_options *opts)
{
    gemm_size explicit_size;
    gemm_mode mode;
    bool standard = strcmp(opts->gemm, "standard") == 0;
    if (!standard && !parse_size(opts->gemm, &explicit_size)) {
        cli_error("--gemm takes M,N,K (three integers from 1 to 2^31-1) or 'standard', not "
                  "'%s'", opts->gemm);
        return CLI_USAGE;
    }
    int rc = parse_mode(opts, &mode);
    if (rc)
        return rc;
    cli_peaks_source *peak_source = calloc(1, sizeof *peak_source);
    if (!peak_source) {
        cli_error("no memory");
        return CLI_FAILED;
    }
    rc = cli_peaks_open(opts, peak_source);
    xconv_devices *devices = NULL;
    int indices[CLI_MAX_LIST], ndevices = 0;
    if (!rc)
        rc = cli_select_devices(opts, &devices, indices, &ndevices);
    cli_stream out;
    if (!rc)
        rc = cli_stream_open(&out, opts,
                             plan_run(devices, indices, ndevices,
                                      standard ? NULL : &explicit_size, mode, NULL),
                             true, false, true);
    if (rc) {
        xconv_devices_free(devices);
        cli_peaks_close(peak_source);
        free(peak_source);
        return rc;
    }
    plan_run(devices, indices, ndevices, standard ? NULL : &explicit_size, mode, &out);
    for (int d = 0; !rc && d < ndevices && !cli_stream_stopping(&out); d++) {
        xconv_device *dev = cli_open_device(devices, indices[d]);
        if (!dev) {
            rc = CLI_FAILED;
            break;
        }
        char libraries[256];
        xconv_device_libraries(dev, libraries, sizeof libraries);
        cli_peaks peaks;
        cli_peaks_lookup(peak_source, xconv_device_get_info(dev), &peaks);
        gemm_size sizes[MAX_SIZES];
        int nsizes = standard ? standard_sizes(dev, sizes) : 1;
        if (!standard)
            sizes[0] = explicit_size;
        for (int i = 0; i < nsizes && !cli_stream_stopping(&out); i++) {
            if (sizes[i].note[0]) {
                cli_progress_clear(&out.progress);
                fprintf(stderr, "note: %s\n", sizes[i].note);
            }
            if (!sizes[i].skip)
                bench_size(dev, libraries, &sizes[i], opts, mode, &peaks, &out);
            else
                cli_stream_expect(&out, -2);  // counted among the sizes, left out here
        }
        xconv_device_close(dev);
    }
    if (!rc && !cli_stream_stopping(&out))
        print_ratios(out.out, &out.list);
    if (!rc && !standard)
        rc = cli_stream_require_run(&out);
    xconv_devices_free(devices);
    cli_peaks_close(peak_source);
    free(peak_source);
    return cli_stream_close(&out, rc);
}
