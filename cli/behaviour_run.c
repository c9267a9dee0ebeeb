// SPDX-License-Identifier: MIT
// Measuring the behaviour report: every variant on every stack that runs it, over the shapes (run
// twice, checked against the float64 reference) and the probes, and each pair of stacks'
// outputs compared.
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "behaviour_check.h"
#include "behaviour_run.h"

void xconv_behaviour_opts_default(xconv_behaviour_opts *opts)
{
    *opts = (xconv_behaviour_opts){.seed = 1, .host_ref_max_gflop = 1.0};
    xconv_plan_options_default(&opts->plan);
}

// ---------------------------------------------------------------------------------------------
// Stacks

void xconv_behaviour_stack_id(const xconv_device_info *info, char *id, size_t len)
{
    static const struct {
        const char *platform, *id;
    } known[] = {
        {"Portable Computing Language", "pocl"}, {"rusticl", "rusticl"},
        {"Oclgrind", "oclgrind"},                {"NVIDIA CUDA", "nvidia-opencl"},
        {"Clover", "clover"},
    };
    if (info->backend == XCONV_BACKEND_CUDA) {
        snprintf(id, len, "cuda");
        return;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(info->platform, known[i].platform) == 0) {
            snprintf(id, len, "%s", known[i].id);
            return;
        }
    size_t n = 0;
    for (const char *c = info->platform; *c && n + 1 < len && n < 24; c++)
        if (isalnum((unsigned char)*c))
            id[n++] = (char)tolower((unsigned char)*c);
        else if (n > 0 && id[n - 1] != '-')
            id[n++] = '-';
    while (n > 0 && id[n - 1] == '-')
        n--;
    id[n] = '\0';
    if (n == 0)
        snprintf(id, len, "%s", xconv_backend_name(info->backend));
}

// Fills stack *s of device dev (NULL: the host), its id made unique among the n before it.
static void describe_stack(xconv_behaviour_stack *s, const xconv_device *dev,
                           const xconv_behaviour_stack *before, int n)
{
    memset(s, 0, sizeof *s);
    if (!dev) {
        snprintf(s->id, sizeof s->id, "host");
        snprintf(s->device, sizeof s->device, "host");
        snprintf(s->backend, sizeof s->backend, "host");
        snprintf(s->type, sizeof s->type, "host");
        snprintf(s->build_flags, sizeof s->build_flags,
                 "C on the host: float64 sums, rounded to float once");
        return;
    }
    const xconv_device_info *info = xconv_device_get_info(dev);
    char id[32];
    xconv_behaviour_stack_id(info, id, sizeof id);
    snprintf(s->id, sizeof s->id, "%s", id);
    for (int i = 0; i < n; i++)
        if (strcmp(before[i].id, s->id) == 0)
            snprintf(s->id, sizeof s->id, "%s-%d", id, info->backend_index);
    xconv_device_label(info, s->device, sizeof s->device);
    snprintf(s->backend, sizeof s->backend, "%s", xconv_backend_name(info->backend));
    snprintf(s->platform, sizeof s->platform, "%s", info->platform);
    snprintf(s->driver, sizeof s->driver, "%s", info->driver);
    snprintf(s->version, sizeof s->version, "%s", info->version);
    snprintf(s->type, sizeof s->type, "%s", info->is_gpu ? "gpu" : info->is_cpu ? "cpu" : "other");
    s->fp32_config = info->fp32_config;
    snprintf(s->build_flags, sizeof s->build_flags, "%s", info->build_flags);
}

// ---------------------------------------------------------------------------------------------
// The measuring state

// What a record accumulates beside its fields.
typedef struct rec_state {
    xconv_hist err, ulp;
    int64_t correctly_rounded;
    bool probe_error[XCONV_BEHAVIOUR_MAX_PROBES];
} rec_state;

typedef struct agree_state {
    xconv_hist ulp, ulp_differing;
} agree_state;

typedef struct measure {
    const xconv_behaviour_opts *opts;
    xconv_behaviour_run *out;
    xconv_device *const *devs;      // per stack; NULL for the host stack
    const xconv_variant *const *variants;
    int nvariants;
    int *rec_of;                    // [stack * nvariants + variant]: record index or -1
    rec_state *rs;
    agree_state *as;
    int *agree_of;                  // [variant * nstacks * nstacks + a * nstacks + b] or -1
    int done, total;                // progress
} measure;

// Returns true when variant v runs on stack s.
static bool runs_on(const measure *m, int s, const xconv_variant *v)
{
    unsigned backends = xconv_variant_get_info(v)->backends;
    if (!m->devs[s])
        return backends == 0;
    return (backends & XCONV_BACKEND_BIT(xconv_device_get_info(m->devs[s])->backend)) != 0;
}

// ---------------------------------------------------------------------------------------------
// Running a variant

// Allocates a buffer for count floats and uploads host into it (host NULL: no upload); returns
// XCONV_OK or the failure.
static xconv_status device_buffer(xconv_device *dev, const float *host, int64_t count,
                                  xconv_buffer **out, xconv_error *err)
{
    *out = xconv_buffer_create(dev, (size_t)count * sizeof(float), err);
    if (!*out)
        return err->status;
    if (host)
        return xconv_buffer_upload(*out, 0, (size_t)count * sizeof(float), host, err);
    return XCONV_OK;
}

// Writes whose kernels the plan runs: "xconv", "vendor" or "xconv+vendor".
static void plan_kernels(const xconv_plan *plan, char *buf, size_t len)
{
    bool ours = false, vendor = false;
    for (int i = 0; i < xconv_plan_step_count(plan); i++) {
        xconv_plan_step_info step;
        if (xconv_plan_step_get_info(plan, i, &step, NULL) != XCONV_OK)
            continue;
        if (step.source)
            ours = true;
        else
            vendor = true;
    }
    snprintf(buf, len, "%s", ours && vendor ? "xconv+vendor" : vendor ? "vendor" : "xconv");
}

// Runs plan on poisoned y the runs times (outputs: ys[run]) with inputs dx, dw.
static xconv_status run_plan(xconv_device *dev, xconv_plan *plan, const xconv_problem *p,
                             xconv_buffer *dx, xconv_buffer *dw, float *const *ys, int runs,
                             xconv_error *err)
{
    int64_t n = xconv_problem_y_elems(p);
    size_t ws = xconv_plan_workspace_size(plan);
    xconv_tensors t = {.x = dx, .w = dw};
    xconv_status st = device_buffer(dev, NULL, n, &t.y, err);
    if (st == XCONV_OK && ws && !(t.workspace = xconv_buffer_create(dev, ws, err)))
        st = err->status;
    for (int r = 0; st == XCONV_OK && r < runs; r++) {
        st = xconv_buffer_fill_f32(t.y, (size_t)n, NAN, err);
        if (st == XCONV_OK)
            st = xconv_plan_run(plan, &t, err);
        if (st == XCONV_OK)
            st = xconv_device_wait(dev, err);
        if (st == XCONV_OK)
            st = xconv_buffer_download(t.y, 0, (size_t)n * sizeof(float), ys[r], err);
    }
    xconv_buffer_destroy(t.workspace);
    xconv_buffer_destroy(t.y);
    return st;
}

// Runs variant v on stack s for p with inputs x, w into y, and a second time into y2 when it is
// not NULL; fills block (xconv_plan_error_block) and kernels. Returns XCONV_OK,
// XCONV_ERR_NOT_APPLICABLE with the reason, or the failure.
static xconv_status run_variant(const measure *m, int s, const xconv_variant *v,
                                const xconv_problem *p, const float *x, const float *w, float *y,
                                float *y2, int64_t block[2], char *kernels, size_t klen,
                                xconv_error *err)
{
    const char *name = xconv_variant_get_info(v)->name;
    xconv_device *dev = m->devs[s];
    block[0] = block[1] = 1;
    if (!dev) {
        snprintf(kernels, klen, "host");
        xconv_status st = xconv_convolve(NULL, p, name, x, w, y, err);
        if (st == XCONV_OK && y2)
            st = xconv_convolve(NULL, p, name, x, w, y2, err);
        return st;
    }
    char reason[512] = "";
    if (!xconv_variant_applies(v, dev, p, reason, sizeof reason))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", reason);
    xconv_status st = xconv_problem_check_device(p, xconv_device_get_info(dev), err);
    xconv_buffer *dx = NULL, *dw = NULL;
    xconv_plan *plan = NULL;
    if (st == XCONV_OK)
        st = device_buffer(dev, x, xconv_problem_x_elems(p), &dx, err);
    if (st == XCONV_OK)
        st = device_buffer(dev, w, xconv_problem_w_elems(p), &dw, err);
    if (st == XCONV_OK && !(plan = xconv_plan_create(dev, p, name, &m->opts->plan, err)))
        st = err->status;
    if (st == XCONV_OK) {
        float *ys[2] = {y, y2};
        st = run_plan(dev, plan, p, dx, dw, ys, y2 ? 2 : 1, err);
        xconv_plan_error_block(plan, &block[0], &block[1]);
        plan_kernels(plan, kernels, klen);
    }
    xconv_plan_destroy(plan);
    xconv_buffer_destroy(dx);
    xconv_buffer_destroy(dw);
    return st;
}

// Returns true when variant v runs on some stack.
static bool variant_runs(const measure *m, int v)
{
    for (int s = 0; s < m->out->nstacks; s++)
        if (m->rec_of[s * m->nvariants + v] >= 0)
            return true;
    return false;
}

// Reports progress: problem `what` and variant v (index vi), when v runs on some stack.
static void progress(measure *m, const char *what, int vi)
{
    const xconv_variant *v = m->variants[vi];
    if (!m->opts->progress || !variant_runs(m, vi))
        return;
    char line[160];
    snprintf(line, sizeof line, "%s %s", what, xconv_variant_get_info(v)->name);
    m->opts->progress(m->opts->user, m->done++, m->total, line);
}

// ---------------------------------------------------------------------------------------------
// Accuracy, determinism and agreement on the shapes

// Returns element i's normalised error, as host/measure/compare.c measures it.
static double element_error(double y, double ref, double norm)
{
    double diff = fabs(y - ref);
    return norm == 0 ? diff : diff / (norm > 1e-30 ? norm : 1e-30);
}

// Folds output y of shape `shape` (p, its reference and norms) into record r; block is the
// plan's output block. Returns XCONV_OK or XCONV_ERR_OUT_OF_MEMORY.
static xconv_status fold_accuracy(xconv_behaviour_record *r, rec_state *rs, int shape,
                                  const xconv_problem *p, const float *y, const double *ref,
                                  const double *norm, const int64_t block[2], xconv_error *err)
{
    int64_t n = xconv_problem_y_elems(p);
    xconv_behaviour_shape *sh = &r->per_shape[shape];
    xconv_compare_result elem, blk;
    xconv_compare_full(y, ref, norm, n, &elem);
    blk = elem;
    if (block[0] * block[1] > 1) {
        double *scale = malloc((size_t)n * sizeof *scale);
        if (!scale)
            return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for block scales");
        xconv_block_scale_f64(p, block[0], block[1], norm, scale);
        xconv_compare_full(y, ref, scale, n, &blk);
        free(scale);
    }
    for (int64_t i = 0; i < n; i++) {
        if (isfinite(y[i]))
            xconv_hist_add(&rs->err, element_error(y[i], ref[i], norm[i]));
        uint64_t ulp;
        if (xconv_ulp_to_rounded(y[i], ref[i], &ulp)) {
            xconv_hist_add(&rs->ulp, (double)ulp);
            r->ulp_compared++;
            rs->correctly_rounded += ulp == 0;
            if (ulp > r->max_ulp)
                r->max_ulp = ulp;
            if (ulp > sh->max_ulp)
                sh->max_ulp = ulp;
        }
    }
    sh->max_norm_err = elem.max_norm_err;
    sh->max_block_err = blk.max_norm_err;
    bool pass = blk.compared > 0 && blk.nonfinite == 0 && blk.max_norm_err <= r->threshold;
    sh->outcome = pass ? XCONV_OUTCOME_PASS : XCONV_OUTCOME_FAIL;
    if (pass) {
        r->passed++;
    } else {
        r->failed++;
        int64_t at[4];
        xconv_index_split(p, blk.nonfinite ? blk.first_nonfinite : blk.worst_index, at);
        snprintf(sh->note, sizeof sh->note, "%s at n=%lld k=%lld p=%lld q=%lld",
                 blk.nonfinite ? "non-finite output" : "largest error",
                 (long long)at[0], (long long)at[1], (long long)at[2], (long long)at[3]);
    }
    if (blk.nonfinite == 0) {
        if (isnan(r->max_norm_err) || elem.max_norm_err > r->max_norm_err)
            r->max_norm_err = elem.max_norm_err;
        if (isnan(r->max_block_err) || blk.max_norm_err > r->max_block_err) {
            r->max_block_err = blk.max_norm_err;
            r->worst_shape = shape;
        }
    }
    return XCONV_OK;
}

// Folds the comparison of stacks a and b's outputs ya, yb (n elements) into agreement g.
static void fold_agreement(xconv_behaviour_agreement *g, agree_state *as, const float *ya,
                           const float *yb, int64_t n)
{
    int64_t before = g->differing;
    g->shapes++;
    for (int64_t i = 0; i < n; i++) {
        g->compared++;
        if (memcmp(&ya[i], &yb[i], sizeof(float)) == 0) {
            xconv_hist_add(&as->ulp, 0);
            continue;
        }
        g->differing++;
        if (isnan(ya[i]) && isnan(yb[i])) {  // NaNs with other payloads
            xconv_hist_add(&as->ulp, 0);
            xconv_hist_add(&as->ulp_differing, 0);
            continue;
        }
        if (!isfinite(ya[i]) || !isfinite(yb[i])) {
            g->nonfinite_mismatch++;
            continue;
        }
        uint64_t d = xconv_ulp_distance(ya[i], yb[i]);
        xconv_hist_add(&as->ulp, (double)d);
        xconv_hist_add(&as->ulp_differing, (double)d);
        if (d > g->max_ulp)
            g->max_ulp = d;
    }
    g->identical_shapes += g->differing == before;
}

// Keeps the first failure of record r as its note ("shape: message").
static void note_error(xconv_behaviour_record *r, const char *where, const xconv_error *e)
{
    if (!r->note[0])
        snprintf(r->note, sizeof r->note, "%s: %.*s", where, (int)sizeof r->note - 64, e->msg);
}

// Runs every variant on every stack for shape i (inputs made here) and folds the results.
static xconv_status run_shape(measure *m, int i, const xconv_problem *p, const char *label,
                              xconv_error *err)
{
    xconv_behaviour_run *out = m->out;
    int64_t nx = xconv_problem_x_elems(p), nw = xconv_problem_w_elems(p);
    int64_t ny = xconv_problem_y_elems(p);
    int ns = out->nstacks;
    float *x = malloc((size_t)nx * sizeof *x), *w = malloc((size_t)nw * sizeof *w);
    float *y2 = malloc((size_t)ny * sizeof *y2);
    float *ys = malloc((size_t)ny * (size_t)ns * sizeof *ys);
    double *ref = malloc((size_t)ny * sizeof *ref), *norm = malloc((size_t)ny * sizeof *norm);
    bool *ran = calloc((size_t)ns, sizeof *ran);
    xconv_status st = x && w && y2 && ys && ref && norm && ran
                          ? XCONV_OK
                          : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                                            "no host memory for shape %s", label);
    if (st == XCONV_OK) {
        xconv_random_fill(x, (size_t)nx, m->opts->seed, 1);
        xconv_random_fill(w, (size_t)nw, m->opts->seed, 2);
        st = xconv_reference_conv(p, x, w, ref, norm, m->opts->host_threads, err);
    }
    for (int v = 0; st == XCONV_OK && v < m->nvariants; v++) {
        progress(m, label, v);
        for (int s = 0; st == XCONV_OK && s < ns; s++) {
            ran[s] = false;
            int ri = m->rec_of[s * m->nvariants + v];
            if (ri < 0)
                continue;
            xconv_behaviour_record *r = &out->recs[ri];
            xconv_behaviour_shape *sh = &r->per_shape[i];
            float *y = ys + (size_t)s * (size_t)ny;
            int64_t block[2];
            xconv_error run_err = {0};
            char kernels[16];
            xconv_status rs = run_variant(m, s, m->variants[v], p, x, w, y, y2, block, kernels,
                                          sizeof kernels, &run_err);
            if (rs != XCONV_OK) {
                bool na = rs == XCONV_ERR_NOT_APPLICABLE;
                sh->outcome = na ? XCONV_OUTCOME_NOT_APPLICABLE : XCONV_OUTCOME_ERROR;
                snprintf(sh->note, sizeof sh->note, "%.*s", (int)sizeof sh->note - 1,
                         run_err.msg);
                if (na) {
                    r->not_applicable++;
                } else {
                    r->errors++;
                    note_error(r, label, &run_err);
                }
                continue;
            }
            snprintf(r->kernels, sizeof r->kernels, "%s", kernels);
            st = fold_accuracy(r, &m->rs[ri], i, p, y, ref, norm, block, err);
            sh->deterministic = memcmp(y, y2, (size_t)ny * sizeof *y) == 0;
            r->det_compared++;
            r->det_differing += !sh->deterministic;
            ran[s] = true;
        }
        for (int a = 0; st == XCONV_OK && a < ns; a++)
            for (int b = a + 1; ran[a] && b < ns; b++) {
                int gi = m->agree_of[(v * ns + a) * ns + b];
                if (gi >= 0 && ran[b])
                    fold_agreement(&out->agree[gi], &m->as[gi], ys + (size_t)a * (size_t)ny,
                                   ys + (size_t)b * (size_t)ny, ny);
            }
    }
    free(x);
    free(w);
    free(y2);
    free(ys);
    free(ref);
    free(norm);
    free(ran);
    return st;
}

// ---------------------------------------------------------------------------------------------
// The probes

// Returns the index of probe `name` in record r, or -1.
static int probe_index(const xconv_behaviour_record *r, const char *name)
{
    for (int i = 0; i < r->nprobes; i++)
        if (strcmp(r->probes[i].name, name) == 0)
            return i;
    return -1;
}

// Runs every variant on every stack on probe problem c and folds the outputs into the records.
static xconv_status run_case(measure *m, const xconv_behaviour_case *c, xconv_error *err)
{
    xconv_problem p;
    xconv_status st = xconv_shape_parse(c->spec, &p, err);
    if (st != XCONV_OK)
        return xconv_error_prefix(err, "probe %s", c->probe);
    int64_t nx = xconv_problem_x_elems(&p), nw = xconv_problem_w_elems(&p);
    int64_t ny = xconv_problem_y_elems(&p);
    float *x = malloc((size_t)nx * sizeof *x), *w = malloc((size_t)nw * sizeof *w);
    float *y = malloc((size_t)ny * sizeof *y);
    double *ieee = malloc((size_t)ny * sizeof *ieee), *norm = malloc((size_t)ny * sizeof *norm);
    if (!x || !w || !y || !ieee || !norm)
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory for probe %s",
                             c->probe);
    if (st == XCONV_OK) {
        xconv_behaviour_case_fill(c, &p, x, w, m->opts->seed);
        st = xconv_ieee_conv_f64(&p, x, w, ieee, norm) == XCONV_OK
                 ? XCONV_OK
                 : xconv_error_set(err, XCONV_ERR_INVALID, "probe %s: bad problem", c->probe);
    }
    char label[64];
    snprintf(label, sizeof label, "probe %s", c->probe);
    for (int v = 0; st == XCONV_OK && v < m->nvariants; v++) {
        progress(m, label, v);
        const xconv_variant_info *info = xconv_variant_get_info(m->variants[v]);
        double threshold = xconv_threshold_for_family(info->accuracy);
        for (int s = 0; st == XCONV_OK && s < m->out->nstacks; s++) {
            int ri = m->rec_of[s * m->nvariants + v];
            if (ri < 0)
                continue;
            xconv_behaviour_record *r = &m->out->recs[ri];
            int k = probe_index(r, c->probe);
            if (k < 0)
                continue;
            xconv_behaviour_probe *pr = &r->probes[k];
            int64_t block[2];
            char kernels[16];
            xconv_error run_err = {0};
            xconv_status rs = run_variant(m, s, m->variants[v], &p, x, w, y, NULL, block,
                                          kernels, sizeof kernels, &run_err);
            if (rs != XCONV_OK) {
                if (rs != XCONV_ERR_NOT_APPLICABLE)
                    m->rs[ri].probe_error[k] = true;
                if (!pr->note[0])
                    snprintf(pr->note, sizeof pr->note, "%s: %.*s", c->spec,
                             (int)sizeof pr->note - 80, run_err.msg);
                continue;
            }
            pr->ran++;
            if (c->kind == XCONV_PROBE_SPECIAL)
                st = xconv_probe_fold_special(pr, &p, y, ieee, norm, block[0], block[1],
                                              threshold) == XCONV_OK
                         ? XCONV_OK
                         : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no host memory");
            else if (c->kind == XCONV_PROBE_ZERO)
                xconv_probe_fold_zero(pr, &p, y, ieee);
            else
                xconv_probe_fold_denormal(pr, &p, y, ieee, norm, threshold);
        }
    }
    free(x);
    free(w);
    free(y);
    free(ieee);
    free(norm);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Setting up and finishing

// Makes the records (one per stack and variant that runs there, with their probes) and the
// agreements (one per variant and pair of stacks that both run it). Returns XCONV_OK or
// XCONV_ERR_OUT_OF_MEMORY.
static xconv_status make_records(measure *m, int nshapes, xconv_error *err)
{
    xconv_behaviour_run *out = m->out;
    int ns = out->nstacks, nv = m->nvariants;
    int ncases = 0;
    const xconv_behaviour_case *cases = xconv_behaviour_cases(&ncases);
    m->rec_of = malloc((size_t)(ns * nv + 1) * sizeof *m->rec_of);
    m->agree_of = malloc((size_t)(nv * ns * ns + 1) * sizeof *m->agree_of);
    out->recs = calloc((size_t)(ns * nv + 1), sizeof *out->recs);
    m->rs = calloc((size_t)(ns * nv + 1), sizeof *m->rs);
    out->agree = calloc((size_t)(nv * ns * ns + 1), sizeof *out->agree);
    m->as = calloc((size_t)(nv * ns * ns + 1), sizeof *m->as);
    if (!m->rec_of || !m->agree_of || !out->recs || !m->rs || !out->agree || !m->as)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the records");
    for (int s = 0; s < ns; s++)
        for (int v = 0; v < nv; v++) {
            m->rec_of[s * nv + v] = -1;
            if (!runs_on(m, s, m->variants[v]))
                continue;
            int ri = out->count++;
            m->rec_of[s * nv + v] = ri;
            xconv_behaviour_record *r = &out->recs[ri];
            const xconv_variant_info *info = xconv_variant_get_info(m->variants[v]);
            r->stack = s;
            snprintf(r->variant, sizeof r->variant, "%s", info->name);
            snprintf(r->family, sizeof r->family, "%s", info->family);
            snprintf(r->accuracy_family, sizeof r->accuracy_family, "%s", info->accuracy);
            snprintf(r->kernels, sizeof r->kernels, "%s", m->devs[s] ? "" : "host");
            r->threshold = xconv_threshold_for_family(info->accuracy);
            r->shapes = nshapes;
            r->max_norm_err = r->median_norm_err = r->max_block_err = NAN;
            r->median_ulp = r->share_correctly_rounded = NAN;
            r->worst_shape = -1;
            r->nshapes = nshapes;
            r->per_shape = calloc((size_t)nshapes + 1, sizeof *r->per_shape);
            if (!r->per_shape || !xconv_hist_init(&m->rs[ri].err) ||
                !xconv_hist_init(&m->rs[ri].ulp))
                return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for records");
            for (int i = 0; i < nshapes; i++) {
                r->per_shape[i] = (xconv_behaviour_shape){
                    .shape = i, .outcome = XCONV_OUTCOME_NOT_APPLICABLE,
                    .max_norm_err = NAN, .max_block_err = NAN};
            }
            for (int c = 0; c < ncases; c++) {
                int k = probe_index(r, cases[c].probe);
                if (k < 0 && r->nprobes < XCONV_BEHAVIOUR_MAX_PROBES)
                    xconv_probe_init(&r->probes[k = r->nprobes++], cases[c].probe,
                                     cases[c].kind);
                if (k >= 0)
                    r->probes[k].cases++;
            }
        }
    for (int v = 0; v < nv; v++)
        for (int a = 0; a < ns; a++)
            for (int b = 0; b < ns; b++) {
                int *gi = &m->agree_of[(v * ns + a) * ns + b];
                *gi = -1;
                if (b <= a || m->rec_of[a * nv + v] < 0 || m->rec_of[b * nv + v] < 0)
                    continue;
                *gi = out->nagree++;
                xconv_behaviour_agreement *g = &out->agree[*gi];
                snprintf(g->variant, sizeof g->variant, "%s",
                         xconv_variant_get_info(m->variants[v])->name);
                g->stack_a = a;
                g->stack_b = b;
                g->median_ulp = g->median_ulp_differing = NAN;
                if (!xconv_hist_init(&m->as[*gi].ulp) ||
                    !xconv_hist_init(&m->as[*gi].ulp_differing))
                    return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
            }
    int active = 0;
    for (int v = 0; v < nv; v++)
        active += variant_runs(m, v);
    m->total = active * (nshapes + ncases);
    return XCONV_OK;
}

// Turns the accumulated histograms and counts into the records' medians, shares and verdicts.
static void finish(measure *m)
{
    xconv_behaviour_run *out = m->out;
    for (int i = 0; i < out->count; i++) {
        xconv_behaviour_record *r = &out->recs[i];
        rec_state *rs = &m->rs[i];
        r->median_norm_err = xconv_hist_median(&rs->err);
        r->median_ulp = xconv_hist_median(&rs->ulp);
        r->share_correctly_rounded =
            r->ulp_compared ? (double)rs->correctly_rounded / (double)r->ulp_compared : NAN;
        for (int k = 0; k < r->nprobes; k++)
            xconv_probe_settle(&r->probes[k], rs->probe_error[k]);
    }
    for (int i = 0; i < out->nagree; i++) {
        out->agree[i].median_ulp = xconv_hist_median(&m->as[i].ulp);
        out->agree[i].median_ulp_differing = xconv_hist_median(&m->as[i].ulp_differing);
    }
}

// Frees the measuring state.
static void measure_free(measure *m)
{
    for (int i = 0; m->rs && i < m->out->count; i++) {
        xconv_hist_free(&m->rs[i].err);
        xconv_hist_free(&m->rs[i].ulp);
    }
    for (int i = 0; m->as && i < m->out->nagree; i++) {
        xconv_hist_free(&m->as[i].ulp);
        xconv_hist_free(&m->as[i].ulp_differing);
    }
    free(m->rs);
    free(m->as);
    free(m->rec_of);
    free(m->agree_of);
    free((void *)m->devs);
}

// Fills the run's stacks (the devices, then the host when a variant runs there), shapes and
// probe problems. Returns XCONV_OK or XCONV_ERR_OUT_OF_MEMORY.
static xconv_status describe_run(measure *m, xconv_device *const *devices, int ndevices,
                                 const xconv_problem *shapes, const char *const *names,
                                 int nshapes, xconv_error *err)
{
    xconv_behaviour_run *out = m->out;
    bool host = false;
    for (int v = 0; v < m->nvariants; v++)
        host |= xconv_variant_get_info(m->variants[v])->backends == 0;
    int ns = ndevices + host;
    int ncases = 0;
    const xconv_behaviour_case *cases = xconv_behaviour_cases(&ncases);
    xconv_device **devs = calloc((size_t)ns + 1, sizeof *devs);
    out->stacks = calloc((size_t)ns + 1, sizeof *out->stacks);
    out->shapes = calloc((size_t)nshapes + 1, sizeof *out->shapes);
    out->cases = calloc((size_t)ncases + 1, sizeof *out->cases);
    m->devs = devs;
    if (!devs || !out->stacks || !out->shapes || !out->cases)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the run");
    for (int s = 0; s < ns; s++) {
        devs[s] = s < ndevices ? devices[s] : NULL;
        describe_stack(&out->stacks[s], devs[s], out->stacks, s);
    }
    out->nstacks = ns;
    for (int i = 0; i < nshapes; i++) {
        snprintf(out->shapes[i].name, sizeof out->shapes[i].name, "%s", names[i] ? names[i] : "");
        xconv_shape_format(&shapes[i], out->shapes[i].spec, sizeof out->shapes[i].spec);
    }
    out->nshapes = nshapes;
    for (int c = 0; c < ncases; c++) {
        snprintf(out->cases[c].probe, sizeof out->cases[c].probe, "%s", cases[c].probe);
        xconv_problem p;
        if (xconv_shape_parse(cases[c].spec, &p, err) != XCONV_OK)
            return xconv_error_prefix(err, "probe %s", cases[c].probe);
        xconv_shape_format(&p, out->cases[c].spec, sizeof out->cases[c].spec);
        snprintf(out->cases[c].what, sizeof out->cases[c].what, "%s", cases[c].what);
    }
    out->ncases = ncases;
    return XCONV_OK;
}

xconv_status xconv_behaviour_measure(xconv_device *const *devices, int ndevices,
                                     const xconv_problem *shapes, const char *const *names,
                                     int nshapes, const xconv_variant *const *variants,
                                     int nvariants, const xconv_behaviour_opts *opts,
                                     xconv_behaviour_run *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    out->schema_version = XCONV_BEHAVIOUR_SCHEMA_VERSION;
    out->seed = opts->seed;
    out->host_ref_gflop = opts->host_ref_max_gflop;
    for (int i = 0; i < nshapes; i++) {
        xconv_status st = xconv_problem_check(&shapes[i], err);
        if (st != XCONV_OK)
            return st;
        if (xconv_problem_flops(&shapes[i]) > opts->host_ref_max_gflop * 1e9)
            return xconv_error_set(err, XCONV_ERR_INVALID,
                                   "shape %s is %.3g GFLOP, more than the float64 host "
                                   "reference's limit of %.3g GFLOP (--host-ref-gflop)",
                                   names[i] && names[i][0] ? names[i] : "given",
                                   xconv_problem_flops(&shapes[i]) * 1e-9,
                                   opts->host_ref_max_gflop);
    }
    measure m = {.opts = opts, .out = out, .variants = variants, .nvariants = nvariants};
    xconv_status st = describe_run(&m, devices, ndevices, shapes, names, nshapes, err);
    if (st == XCONV_OK)
        st = make_records(&m, nshapes, err);
    for (int i = 0; st == XCONV_OK && i < nshapes; i++) {
        char label[48];
        snprintf(label, sizeof label, "%s", names[i] && names[i][0] ? names[i] : "shape");
        st = run_shape(&m, i, &shapes[i], label, err);
    }
    int ncases = 0;
    const xconv_behaviour_case *cases = xconv_behaviour_cases(&ncases);
    for (int c = 0; st == XCONV_OK && c < ncases; c++)
        st = run_case(&m, &cases[c], err);
    if (st == XCONV_OK)
        finish(&m);
    measure_free(&m);
    if (st != XCONV_OK)
        xconv_behaviour_run_free(out);
    return st;
}
