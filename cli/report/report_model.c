// SPDX-License-Identifier: MIT
// Building the report's model: devices x variants x shapes from results files, with floors,
// winners, network totals and the comparison with a base run.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

// ---------------------------------------------------------------------------------------------
// Peaks given on the command line

xconv_status xconv_report_peaks_parse(const char *text, xconv_report_peaks *out,
                                      xconv_error *err)
{
    memset(out, 0, sizeof *out);
    const char *nums = text, *eq = strrchr(text, '=');
    if (eq) {
        size_t n = (size_t)(eq - text);
        if (n == 0 || n >= sizeof out->match)
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "peaks '%s': the device before '=' is empty or too long",
                                   text);
        memcpy(out->match, text, n);
        nums = eq + 1;
    }
    char *end = NULL;
    errno = 0;
    out->gflops = strtod(nums, &end);
    bool ok = !errno && end != nums && *end == ',';
    if (ok) {
        const char *b = end + 1;
        out->gbps = strtod(b, &end);
        ok = !errno && end != b && *end == '\0';
    }
    if (!ok || !isfinite(out->gflops) || !isfinite(out->gbps) || !(out->gflops > 0) ||
        !(out->gbps > 0))
        return xconv_error_set(err, XCONV_ERR_PARSE,
                               "peaks '%s': want [DEVICE=]GFLOPS,GBPS with two positive numbers "
                               "(e.g. h100=51200,3350)", text);
    return XCONV_OK;
}

// Returns true when needle occurs in hay, ignoring case ("" occurs everywhere).
static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *h = hay; ; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
        if (!*h)
            return false;
    }
}

// ---------------------------------------------------------------------------------------------
// Shapes and variants

// Returns the index of the report shape (name, spec), adding it when new; -1 without memory.
static int shape_index(xconv_report *r, int *cap, const char *name, const char *spec)
{
    for (int i = 0; i < r->nshapes; i++)
        if (strcmp(r->shapes[i].name, name) == 0 && strcmp(r->shapes[i].spec, spec) == 0)
            return i;
    if (r->nshapes == *cap) {
        int n = *cap ? *cap * 2 : 32;
        report_shape *grown = realloc(r->shapes, (size_t)n * sizeof *grown);
        if (!grown)
            return -1;
        r->shapes = grown;
        *cap = n;
    }
    report_shape *s = &r->shapes[r->nshapes];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    xconv_problem p;
    if (xconv_shape_parse(spec, &p, NULL) == XCONV_OK) {
        s->flops = xconv_problem_flops(&p);
        s->bytes = xconv_problem_min_bytes(&p);
    }
    return r->nshapes++;
}

// Returns the index of variant name in d, or -1.
static int variant_index(const report_device *d, const char *name)
{
    for (int i = 0; i < d->nvariants; i++)
        if (strcmp(d->variants[i].name, name) == 0)
            return i;
    return -1;
}

// Returns the row of report shape index in d, or -1.
static int row_of(const report_device *d, int shape)
{
    for (int i = 0; i < d->nshapes; i++)
        if (d->shapes[i] == shape)
            return i;
    return -1;
}

// Orders d's variants as they first appear, with the vendor-backed ones (peers) last.
static void order_variants(report_device *d)
{
    report_variant *sorted = malloc((size_t)d->nvariants * sizeof *sorted);
    if (!sorted)
        return;
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < d->nvariants; i++)
            if (d->variants[i].peer == (pass == 1))
                sorted[n++] = d->variants[i];
    memcpy(d->variants, sorted, (size_t)n * sizeof *sorted);
    free(sorted);
}

// ---------------------------------------------------------------------------------------------
// One device

// Returns true when cell c holds a passing record with a time.
static bool timed_pass(const report_cell *c)
{
    return c->m && c->m->rec.outcome == XCONV_OUTCOME_PASS && isfinite(c->m->rec.median_ms) &&
           c->m->rec.median_ms > 0;
}

// Sets d's label ("NAME · backend") and slug (index: its place in the report).
static void name_device(report_device *d, int index)
{
    const char *name = d->dev->name[0] ? d->dev->name : d->dev->id;
    snprintf(d->label, sizeof d->label, "%.240s \xC2\xB7 %.15s", name,
             d->dev->backend[0] ? d->dev->backend : "?");
    int n = snprintf(d->slug, sizeof d->slug, "d%d-", index + 1);
    bool dash = true;
    char both[300];
    snprintf(both, sizeof both, "%s %s", name, d->dev->backend);
    for (const char *c = both; *c && n < 60; c++) {
        if (isalnum((unsigned char)*c)) {
            d->slug[n++] = (char)tolower((unsigned char)*c);
            dash = false;
        } else if (!dash) {
            d->slug[n++] = '-';
            dash = true;
        }
    }
    while (n > 0 && d->slug[n - 1] == '-')
        n--;
    d->slug[n] = '\0';
}

// Takes d's peaks from its file, else from the first --peaks entry matching it, else from the
// peaks file's entry of its identity.
static void device_peaks(report_device *d, const xconv_report_opts *opts)
{
    if (d->dev->peak_gflops > 0 && d->dev->peak_gbps > 0) {
        d->peak_gflops = d->dev->peak_gflops;
        d->peak_gbps = d->dev->peak_gbps;
        snprintf(d->peaks_source, sizeof d->peaks_source, "%s",
                 d->dev->peaks_source[0] ? d->dev->peaks_source : "the results file");
        return;
    }
    for (int i = 0; opts && i < opts->npeaks; i++) {
        const xconv_report_peaks *p = &opts->peaks[i];
        if (contains_nocase(d->dev->id, p->match) || contains_nocase(d->dev->name, p->match)) {
            d->peak_gflops = p->gflops;
            d->peak_gbps = p->gbps;
            snprintf(d->peaks_source, sizeof d->peaks_source, "%s",
                     p->source[0] ? p->source : "--peaks");
            return;
        }
    }
    const xconv_peaks_entry *e = opts ? xconv_peaks_file_find(opts->measured, d->dev->name,
                                                              d->dev->backend, d->dev->driver)
                                      : NULL;
    if (e && e->fp32_gflops > 0 && e->gbps > 0) {
        d->peak_gflops = e->fp32_gflops;
        d->peak_gbps = e->gbps;
        snprintf(d->peaks_source, sizeof d->peaks_source, "measured (peaks file)");
    }
}

const char *report_auto_kernel(const xconv_record *rec, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *arrow = strstr(rec->note, "auto -> ");
    if (!arrow)
        return buf;
    arrow += strlen("auto -> ");
    size_t n = strcspn(arrow, " (:;,");
    snprintf(buf, len, "%.*s", (int)n, arrow);
    return buf;
}

// Fills the floors, shares, relative times and winners of d's cells (auto is no winner: it ran
// another variant, which is in the row under its own name when the run timed it).
static void settle_cells(const xconv_report *r, report_device *d)
{
    for (int s = 0; s < d->nshapes; s++) {
        const report_shape *shape = &r->shapes[d->shapes[s]];
        double best = INFINITY;
        d->winner[s] = -1;
        for (int v = 0; v < d->nvariants; v++) {
            report_cell *c = report_at(d, s, v);
            if (!c->m)
                continue;
            c->floor_ms = c->m->rec.floor_ms;
            // The fp32 peak draws floors of strict-fp32 records only (a reduced mode's floor
            // needs its tensor-core peak, which the record's own floor_ms carries when known).
            bool fp32 = !c->m->rec.math[0] || strcmp(c->m->rec.math, "f32") == 0;
            if (!isfinite(c->floor_ms) && fp32 && d->peak_gflops > 0 && d->peak_gbps > 0 &&
                shape->flops > 0) {
                double t_flop = shape->flops / (d->peak_gflops * 1e9) * 1e3;
                double t_byte = shape->bytes / (d->peak_gbps * 1e9) * 1e3;
                c->floor_ms = t_flop > t_byte ? t_flop : t_byte;
            }
            if (timed_pass(c) && isfinite(c->floor_ms)) {
                c->share = c->floor_ms / c->m->rec.median_ms;
                d->has_floor = true;
            }
            if (timed_pass(c) && c->m->rec.median_ms < best && !d->variants[v].is_auto) {
                best = c->m->rec.median_ms;
                d->winner[s] = v;
            }
        }
        for (int v = 0; v < d->nvariants; v++) {
            report_cell *c = report_at(d, s, v);
            if (timed_pass(c))
                c->rel = c->m->rec.median_ms / best;
        }
    }
}

// Returns true when record m is of source src's device.
static bool of_source(const report_source *src, const xconv_matrix_record *m)
{
    return strcmp(m->rec.device, src->dev->id) == 0;
}

// Adds the device of sources (one device identity, its records in one or more files) to the
// report; returns XCONV_OK or out of memory.
static xconv_status add_device(xconv_report *r, int *shape_cap, const report_source *sources,
                               int nsources, const xconv_report_opts *opts, xconv_error *err)
{
    int nrec = 0;
    for (int k = 0; k < nsources; k++)
        for (int i = 0; i < sources[k].run->count; i++)
            nrec += of_source(&sources[k], &sources[k].run->recs[i]);
    if (nrec == 0)
        return XCONV_OK;
    report_device *d = &r->devices[r->ndevices];
    memset(d, 0, sizeof *d);
    d->run = sources[0].run;
    d->file = sources[0].file;
    d->dev = sources[0].dev;
    d->nfiles = nsources;
    r->ndevices++;  // what d holds is freed with the report from here
    d->variants = calloc((size_t)nrec, sizeof *d->variants);
    d->shapes = calloc((size_t)nrec, sizeof *d->shapes);
    if (!d->variants || !d->shapes)
        goto oom;
    for (int k = 0; k < nsources; k++)
        for (int i = 0; i < sources[k].run->count; i++) {
            const xconv_record *rec = &sources[k].run->recs[i].rec;
            if (!of_source(&sources[k], &sources[k].run->recs[i]))
                continue;
            if (variant_index(d, rec->variant) < 0) {
                report_variant *v = &d->variants[d->nvariants++];
                snprintf(v->name, sizeof v->name, "%s", rec->variant);
                snprintf(v->family, sizeof v->family, "%s", rec->family);
                v->peer = !strcmp(rec->family, "peer") || !strcmp(rec->family, "reference");
                v->is_auto = !strcmp(rec->variant, "auto");
            }
            int shape = shape_index(r, shape_cap, rec->shape_name, rec->shape);
            if (shape < 0)
                goto oom;
            if (row_of(d, shape) < 0)
                d->shapes[d->nshapes++] = shape;
        }
    order_variants(d);
    d->cells = calloc((size_t)d->nshapes * (size_t)d->nvariants, sizeof *d->cells);
    d->winner = calloc((size_t)d->nshapes, sizeof *d->winner);
    if (!d->cells || !d->winner)
        goto oom;
    for (int i = 0; i < d->nshapes * d->nvariants; i++) {
        report_cell *c = &d->cells[i];
        c->floor_ms = c->share = c->rel = c->ratio = NAN;
    }
    for (int k = 0; k < nsources; k++)
        for (int i = 0; i < sources[k].run->count; i++) {
            const xconv_matrix_record *m = &sources[k].run->recs[i];
            if (!of_source(&sources[k], m))
                continue;
            int s = row_of(d, shape_index(r, shape_cap, m->rec.shape_name, m->rec.shape));
            report_cell *c = report_at(d, s, variant_index(d, m->rec.variant));
            if (!c->m)  // a repeated (variant, shape) keeps its first record, the files in order
                c->m = m;
        }
    name_device(d, r->ndevices - 1);
    device_peaks(d, opts);
    settle_cells(r, d);
    return XCONV_OK;
oom:
    return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the report");
}

// Returns true when sources a and b are one device: the same name, backend and driver, on the
// same host when both files name theirs (the file and the device's index may differ).
static bool same_identity(const report_source *a, const report_source *b)
{
    const xconv_matrix_device *da = a->dev, *db = b->dev;
    const char *na = da->name[0] ? da->name : da->id, *nb = db->name[0] ? db->name : db->id;
    const char *ha = a->run->host, *hb = b->run->host;
    return strcmp(na, nb) == 0 && strcmp(da->backend, db->backend) == 0 &&
           strcmp(da->driver, db->driver) == 0 && (!ha[0] || !hb[0] || strcmp(ha, hb) == 0);
}

// Adds one report device per device identity of runs (files[i] the name of runs[i]); returns
// XCONV_OK or out of memory.
static xconv_status add_devices(xconv_report *r, int *shape_cap, const xconv_run_file *runs,
                                const char *const *files, int nruns,
                                const xconv_report_opts *opts, xconv_error *err)
{
    int total = 0;
    for (int i = 0; i < nruns; i++)
        total += runs[i].ndevices;
    report_source *all = calloc((size_t)total + 1, sizeof *all);
    report_source *group = calloc((size_t)total + 1, sizeof *group);
    bool *taken = calloc((size_t)total + 1, sizeof *taken);
    xconv_status st = all && group && taken ? XCONV_OK
                      : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the report");
    int n = 0;
    for (int i = 0; !st && i < nruns; i++)
        for (int k = 0; k < runs[i].ndevices; k++)
            all[n++] = (report_source){&runs[i], files[i], &runs[i].devices[k]};
    for (int i = 0; !st && i < n; i++) {
        if (taken[i])
            continue;
        int ng = 0;
        for (int k = i; k < n; k++)
            if (!taken[k] && same_identity(&all[i], &all[k])) {
                taken[k] = true;
                group[ng++] = all[k];
            }
        st = add_device(r, shape_cap, group, ng, opts, err);
    }
    free(all);
    free(group);
    free(taken);
    return st;
}

// Adds the host (or the file's name) to the labels that two devices share.
static void disambiguate(xconv_report *r)
{
    char *twin = calloc((size_t)r->ndevices + 1, 1);
    if (!twin)
        return;
    for (int i = 0; i < r->ndevices; i++)
        for (int k = i + 1; k < r->ndevices; k++)
            if (!strcmp(r->devices[i].label, r->devices[k].label))
                twin[i] = twin[k] = 1;
    for (int i = 0; i < r->ndevices; i++) {
        report_device *d = &r->devices[i];
        if (!twin[i])
            continue;
        const char *where = d->run->host[0] ? d->run->host : strrchr(d->file, '/');
        where = where ? where + (where[0] == '/') : d->file;
        size_t n = strlen(d->label);
        snprintf(d->label + n, sizeof d->label - n, " \xC2\xB7 %.120s", where);
    }
    free(twin);
}

// ---------------------------------------------------------------------------------------------
// Comparison with a base run

// Returns the base record matching cell record m (device, variant, shape), or NULL.
static const xconv_matrix_record *base_record(const xconv_run_file *base,
                                              const xconv_matrix_record *m)
{
    for (int i = 0; i < base->count; i++) {
        const xconv_record *b = &base->recs[i].rec;
        if (!strcmp(b->device, m->rec.device) && !strcmp(b->variant, m->rec.variant) &&
            !strcmp(b->shape, m->rec.shape) && !strcmp(b->shape_name, m->rec.shape_name))
            return &base->recs[i];
    }
    return NULL;
}

// Judges one cell against its base record: a regression when the run's fastest time is above
// the base's slowest by more than the margin, or it passed and no longer does (fails, errs or
// no longer applies); an improvement the other way round.
static void judge(report_cell *c, double margin)
{
    const xconv_record *now = &c->m->rec, *then = &c->base->rec;
    bool pass_now = now->outcome == XCONV_OUTCOME_PASS;
    bool pass_then = then->outcome == XCONV_OUTCOME_PASS;
    if (pass_then != pass_now) {
        c->verdict = pass_now ? VERDICT_FIXED : VERDICT_BROKE;
        return;
    }
    if (!pass_now || !pass_then)
        return;
    c->verdict = VERDICT_SAME;
    if (isfinite(now->median_ms) && isfinite(then->median_ms) && then->median_ms > 0)
        c->ratio = now->median_ms / then->median_ms;
    if (!isfinite(now->min_ms) || !isfinite(now->max_ms) || !isfinite(then->min_ms) ||
        !isfinite(then->max_ms))
        return;
    if (now->min_ms > then->max_ms * (1 + margin))
        c->verdict = VERDICT_SLOWER;
    else if (now->max_ms * (1 + margin) < then->min_ms)
        c->verdict = VERDICT_FASTER;
}

// Compares every cell of every device with the base run and counts the verdicts.
static void compare(xconv_report *r)
{
    for (int i = 0; i < r->ndevices; i++) {
        report_device *d = &r->devices[i];
        for (int k = 0; k < d->nshapes * d->nvariants; k++) {
            report_cell *c = &d->cells[k];
            if (!c->m || !(c->base = base_record(r->base, c->m)))
                continue;
            judge(c, r->margin);
            d->compared++;
            d->regressions += c->verdict == VERDICT_SLOWER || c->verdict == VERDICT_BROKE;
            d->improvements += c->verdict == VERDICT_FASTER || c->verdict == VERDICT_FIXED;
        }
        r->compared += d->compared;
        r->regressions += d->regressions;
        r->improvements += d->improvements;
    }
}

// ---------------------------------------------------------------------------------------------
// Networks

// Returns the network named name, adding it when new; NULL without memory.
static report_network *network(xconv_report *r, const char *name)
{
    for (int i = 0; i < r->nnetworks; i++)
        if (strcmp(r->networks[i].name, name) == 0)
            return &r->networks[i];
    report_network *grown = realloc(r->networks, (size_t)(r->nnetworks + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->networks = grown;
    report_network *n = &r->networks[r->nnetworks++];
    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "%s", name);
    n->best_ms = calloc((size_t)r->ndevices + 1, sizeof *n->best_ms);
    n->covered = calloc((size_t)r->ndevices + 1, sizeof *n->covered);
    n->ran = calloc((size_t)r->ndevices + 1, sizeof *n->ran);
    n->single = calloc((size_t)r->ndevices + 1, sizeof *n->single);
    n->single_ms = calloc((size_t)r->ndevices + 1, sizeof *n->single_ms);
    if (!n->best_ms || !n->covered || !n->ran || !n->single || !n->single_ms)
        return NULL;
    for (int d = 0; d < r->ndevices; d++)
        n->single_ms[d] = NAN;
    return n;
}

// Returns the row of device d holding weighted shape w (spec equal, and name when w has one).
static int weighted_row(const xconv_report *r, const report_device *d,
                        const xconv_matrix_shape *w)
{
    for (int s = 0; s < d->nshapes; s++) {
        const report_shape *shape = &r->shapes[d->shapes[s]];
        if (!strcmp(shape->spec, w->shape) && (!w->name[0] || !strcmp(shape->name, w->name)))
            return s;
    }
    return -1;
}

// Adds weighted shape w to its network's totals on every device; returns false without memory.
static bool add_layer(xconv_report *r, const xconv_matrix_shape *w, double **variant_ms)
{
    report_network *n = network(r, w->set[0] ? w->set : "shapes");
    if (!n)
        return false;
    n->nlayers++;
    n->layers += w->weight;
    int nl = (int)(n - r->networks);
    for (int i = 0; i < r->ndevices; i++) {
        const report_device *d = &r->devices[i];
        int s = weighted_row(r, d, w);
        double *per_variant = variant_ms[nl * r->ndevices + i];
        n->ran[i] += s >= 0;
        if (s < 0 || d->winner[s] < 0) {
            for (int v = 0; v < d->nvariants; v++)
                per_variant[v] = NAN;
            continue;
        }
        n->best_ms[i] += w->weight * report_at(d, s, d->winner[s])->m->rec.median_ms;
        n->covered[i]++;
        for (int v = 0; v < d->nvariants; v++) {
            const report_cell *c = report_at(d, s, v);
            per_variant[v] += timed_pass(c) ? w->weight * c->m->rec.median_ms : NAN;
        }
    }
    return true;
}

// Returns true when weighted shape w is among list[0..n) (same set, name and shape).
static bool seen_layer(const xconv_matrix_shape *const *list, int n, const xconv_matrix_shape *w)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i]->set, w->set) && !strcmp(list[i]->name, w->name) &&
            !strcmp(list[i]->shape, w->shape))
            return true;
    return false;
}

// Totals every network (a set of weighted shapes) per device: the shapes given in the options
// when there are any, else those the files carry (each layer once, however many files hold it).
static xconv_status networks(xconv_report *r, const xconv_report_opts *opts, xconv_error *err)
{
    bool given = opts && opts->nweights;
    int total = given ? opts->nweights : 0;
    for (int i = 0; !given && i < r->nruns; i++)
        total += r->runs[i].nshapes;
    if (total == 0)
        return XCONV_OK;
    const xconv_matrix_shape **layers = calloc((size_t)total, sizeof *layers);
    if (!layers)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the networks");
    int nlayers = 0;
    if (given) {
        for (int i = 0; i < opts->nweights; i++)
            if (!seen_layer(layers, nlayers, &opts->weights[i]))
                layers[nlayers++] = &opts->weights[i];
    } else {
        for (int f = 0; f < r->nruns; f++)
            for (int i = 0; i < r->runs[f].nshapes; i++)
                if (!seen_layer(layers, nlayers, &r->runs[f].shapes[i]))
                    layers[nlayers++] = &r->runs[f].shapes[i];
    }
    // variant_ms[network][device][variant]: sums of weight x time, sized for the most networks
    // there can be (one a layer).
    double **variant_ms = calloc((size_t)total * (size_t)r->ndevices, sizeof *variant_ms);
    bool ok = variant_ms != NULL;
    for (int k = 0; ok && k < total * r->ndevices; k++)
        ok = (variant_ms[k] = calloc((size_t)r->devices[k % r->ndevices].nvariants + 1,
                                     sizeof(double))) != NULL;
    for (int i = 0; ok && i < nlayers; i++)
        ok = add_layer(r, layers[i], variant_ms);
    for (int nl = 0; ok && nl < r->nnetworks; nl++) {
        report_network *n = &r->networks[nl];
        for (int i = 0; i < r->ndevices; i++) {
            const report_device *d = &r->devices[i];
            if (n->covered[i] < n->nlayers)
                n->best_ms[i] = NAN;
            const double *per_variant = variant_ms[nl * r->ndevices + i];
            for (int v = 0; v < d->nvariants; v++)
                if (n->covered[i] == n->nlayers && isfinite(per_variant[v]) &&
                    !(per_variant[v] >= n->single_ms[i])) {
                    n->single_ms[i] = per_variant[v];
                    snprintf(n->single[i], sizeof n->single[i], "%s", d->variants[v].name);
                }
        }
    }
    for (int k = 0; variant_ms && k < total * r->ndevices; k++)
        free(variant_ms[k]);
    free(variant_ms);
    free(layers);
    return ok ? XCONV_OK
              : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the networks");
}

// ---------------------------------------------------------------------------------------------
// The report

xconv_report *xconv_report_build(const xconv_run_file *runs, const char *const *files, int nruns,
                                 const xconv_run_file *base, const char *base_file,
                                 const xconv_report_opts *opts, xconv_error *err)
{
    xconv_report *r = calloc(1, sizeof *r);
    int ndev = 0;
    for (int i = 0; i < nruns; i++)
        ndev += runs[i].ndevices;
    if (!r || !(r->devices = calloc((size_t)ndev + 1, sizeof *r->devices))) {
        free(r);
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the report");
        return NULL;
    }
    r->runs = runs;
    r->files = files;
    r->nruns = nruns;
    r->base = base;
    r->base_file = base_file;
    r->margin = opts && opts->margin > 0 ? opts->margin : 0.05;
    if (opts) {
        r->behaviour = opts->behaviour;
        r->behaviour_files = opts->behaviour_files;
        r->nbehaviour = opts->nbehaviour;
        r->vendors = opts->vendors;
        r->vendor_files = opts->vendor_files;
        r->nvendors = opts->nvendors;
    }
    int shape_cap = 0;
    xconv_status st = add_devices(r, &shape_cap, runs, files, nruns, opts, err);
    if (!st)
        disambiguate(r);
    if (!st && r->ndevices == 0 && r->nbehaviour == 0 && r->nvendors == 0)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "no records in %s%s",
                             nruns == 1 ? files[0] : "any of the files",
                             nruns == 1 ? "" : " given");
    if (!st && base)
        compare(r);
    if (!st)
        st = networks(r, opts, err);
    if (st) {
        xconv_report_free(r);
        return NULL;
    }
    return r;
}

void xconv_report_free(xconv_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->ndevices; i++) {
        report_device *d = &r->devices[i];
        free(d->variants);
        free(d->shapes);
        free(d->cells);
        free(d->winner);
    }
    for (int i = 0; i < r->nnetworks; i++) {
        report_network *n = &r->networks[i];
        free(n->best_ms);
        free(n->covered);
        free(n->ran);
        free(n->single);
        free(n->single_ms);
    }
    free(r->networks);
    free(r->devices);
    free(r->shapes);
    free(r);
}
