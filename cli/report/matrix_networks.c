// SPDX-License-Identifier: MIT
// The matrix's network totals: per shape file (a network's layers with their weights) and
// device, the sum of weight x median ms with each layer's fastest variant, with the variant that
// is fastest over the whole network, and with auto's picks.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

// One network on one device: the sums it is reported by.
typedef struct network_sums {
    int layers, covered;      // layers in the set, layers with a passing time
    double weight;            // sum of the layers' weights
    double best_ms;           // sum of weight x each layer's fastest time
    double auto_ms;           // sum of weight x the time of auto's pick; NAN when one is unknown
    const char *single;       // the fastest variant that passes every layer, NULL when none
    double single_ms;
} network_sums;

// Returns true when m passed on device id with a time.
static bool timed_pass_on(const xconv_matrix_record *m, const char *id)
{
    return strcmp(m->rec.device, id) == 0 && m->rec.outcome == XCONV_OUTCOME_PASS &&
           m->rec.repeat > 0 && isfinite(m->rec.median_ms);
}

// Returns true when m is of shape s.
static bool of_shape(const xconv_matrix_record *m, const xconv_matrix_shape *s)
{
    return strcmp(m->rec.shape, s->shape) == 0 && strcmp(m->rec.shape_name, s->name) == 0;
}

// Returns the weighted time of variant over set's layers on device id, NAN unless it passed on
// every one.
static double variant_total(const xconv_run_file *run, const char *set, const char *id,
                            const char *variant)
{
    double total = 0;
    for (int s = 0; s < run->nshapes; s++) {
        const xconv_matrix_shape *layer = &run->shapes[s];
        if (strcmp(layer->set, set) != 0)
            continue;
        double ms = NAN;
        for (int i = 0; i < run->count && isnan(ms); i++)
            if (timed_pass_on(&run->recs[i], id) && of_shape(&run->recs[i], layer) &&
                strcmp(run->recs[i].rec.variant, variant) == 0)
                ms = run->recs[i].rec.median_ms;
        total += layer->weight * ms;
    }
    return total;
}

// Fills *n with the sums of set on device id.
static void network_total(const xconv_run_file *run, const char *set, const char *id,
                          network_sums *n)
{
    *n = (network_sums){.single_ms = INFINITY};
    for (int s = 0; s < run->nshapes; s++) {
        const xconv_matrix_shape *layer = &run->shapes[s];
        if (strcmp(layer->set, set) != 0)
            continue;
        n->layers++;
        n->weight += layer->weight;
        double best = INFINITY, picked = NAN;
        for (int i = 0; i < run->count; i++) {
            const xconv_matrix_record *m = &run->recs[i];
            if (!timed_pass_on(m, id) || !of_shape(m, layer))
                continue;
            best = m->rec.median_ms < best ? m->rec.median_ms : best;
            if (m->auto_pick == 1)
                picked = m->rec.median_ms;
        }
        n->covered += isfinite(best);
        n->best_ms += layer->weight * best;
        n->auto_ms += layer->weight * picked;
    }
    for (int i = 0; i < run->count; i++) {  // each variant the device ran, once
        const xconv_matrix_record *m = &run->recs[i];
        bool first = strcmp(m->rec.device, id) == 0;
        for (int k = 0; first && k < i; k++)
            first = strcmp(run->recs[k].rec.device, id) != 0 ||
                    strcmp(run->recs[k].rec.variant, m->rec.variant) != 0;
        double total = first ? variant_total(run, set, id, m->rec.variant) : NAN;
        if (isfinite(total) && total < n->single_ms) {
            n->single_ms = total;
            n->single = m->rec.variant;
        }
    }
}

int xconv_matrix_write_networks(FILE *f, const xconv_run_file *run, const char *const *sets,
                                int nsets)
{
    if (nsets > 0)
        fputs("\nnetworks: sum over the layers of weight x median ms\n", f);
    for (int k = 0; k < nsets; k++)
        for (int d = 0; d < run->ndevices; d++) {
            const xconv_matrix_device *dev = &run->devices[d];
            network_sums n;
            network_total(run, sets[k], dev->id, &n);
            fprintf(f, "  %s on %s: %d layers (weight %g): ", sets[k], dev->id, n.layers,
                    n.weight);
            if (n.covered < n.layers) {
                fprintf(f, "%d of %d layers passed\n", n.covered, n.layers);
                continue;
            }
            fprintf(f, "%.4g ms with each layer's fastest", n.best_ms);
            if (n.single)
                fprintf(f, ", %.4g ms with %s", n.single_ms, n.single);
            if (isfinite(n.auto_ms))
                fprintf(f, ", %.4g ms with auto's picks", n.auto_ms);
            putc('\n', f);
        }
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}
