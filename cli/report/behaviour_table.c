// SPDX-License-Identifier: MIT
// The behaviour report in the terminal: a row per stack and variant, a row per variant and pair
// of stacks, and the rounding controls of each stack.
#include <math.h>
#include <string.h>

#include "behaviour.h"

// Formats a number with 2 significant digits, or "-" when not finite.
static const char *g2(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%.1e", v);
    else
        snprintf(buf, len, "-");
    return buf;
}

// Formats an ULP count: exact below a million, else in powers of ten; "-" when not finite.
static const char *ulps(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (v < 1e6)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.1e", v);
    return buf;
}

// Returns the verdict of probe `name` of r ("-" when it has none), shortened for the table.
static const char *probe_word(const xconv_behaviour_record *r, const char *name)
{
    for (int i = 0; i < r->nprobes; i++)
        if (strcmp(r->probes[i].name, name) == 0)
            return strcmp(r->probes[i].verdict, "flushed") == 0 ? "flush" : r->probes[i].verdict;
    return "-";
}

// Returns the label of shape i of run (its name, else its spec).
static const char *shape_label(const xconv_behaviour_run *run, int i)
{
    if (i < 0 || i >= run->nshapes)
        return "-";
    return run->shapes[i].name[0] ? run->shapes[i].name : run->shapes[i].spec;
}

// One row per record, and a line under it for each shape that failed or errored.
static void records(FILE *f, const xconv_behaviour_run *run)
{
    fprintf(f, "%-14s %-28s %7s %8s %8s %8s %7s %6s %4s %-7s %-6s %s\n", "stack", "variant",
            "shapes", "max err", "med err", "max ulp", "med ulp", "exact", "det", "NaN/Inf",
            "-0", "denormals: in w prod sum");
    for (int i = 0; i < run->count; i++) {
        const xconv_behaviour_record *r = &run->recs[i];
        char shapes[24], e1[16], e2[16], u1[16], u2[16], share[16];
        snprintf(shapes, sizeof shapes, "%d/%d", r->passed, r->passed + r->failed);
        if (isfinite(r->share_correctly_rounded))
            snprintf(share, sizeof share, "%.0f%%", 100 * r->share_correctly_rounded);
        else
            snprintf(share, sizeof share, "-");
        const char *det = r->det_compared == 0 ? "-" : r->det_differing ? "NO" : "yes";
        fprintf(f, "%-14s %-28s %7s %8s %8s %8s %7s %6s %4s %-7s %-6s %s %s %s %s\n",
                run->stacks[r->stack].id, r->variant, shapes,
                g2(r->max_block_err, e1, sizeof e1), g2(r->median_norm_err, e2, sizeof e2),
                ulps(r->ulp_compared ? (double)r->max_ulp : NAN, u1, sizeof u1),
                ulps(r->median_ulp, u2, sizeof u2), share, det,
                xconv_behaviour_kind_verdict(r, XCONV_PROBE_SPECIAL),
                xconv_behaviour_kind_verdict(r, XCONV_PROBE_ZERO),
                probe_word(r, "denormal_inputs"), probe_word(r, "denormal_weights"),
                probe_word(r, "denormal_products"), probe_word(r, "denormal_sums"));
        for (int s = 0; s < r->nshapes; s++) {
            const xconv_behaviour_shape *sh = &r->per_shape[s];
            if (sh->outcome == XCONV_OUTCOME_FAIL)
                fprintf(f, "    FAIL %s: error %.2g over %.0e, %s\n", shape_label(run, sh->shape),
                        sh->max_block_err, r->threshold, sh->note);
            else if (sh->outcome == XCONV_OUTCOME_ERROR)
                fprintf(f, "    error %s: %.160s\n", shape_label(run, sh->shape), sh->note);
        }
    }
}

// One row per variant and pair of stacks.
static void agreement(FILE *f, const xconv_behaviour_run *run)
{
    if (run->nagree == 0) {
        fputs("\nAgreement across stacks: no variant ran on two stacks.\n", f);
        return;
    }
    fputs("\nAgreement across stacks (the shapes' outputs, element by element):\n", f);
    fprintf(f, "%-28s %-30s %7s %10s %10s %8s %7s %s\n", "variant", "stacks", "shapes",
            "identical", "differing", "max ulp", "med ulp", "med ulp of differing");
    for (int i = 0; i < run->nagree; i++) {
        const xconv_behaviour_agreement *g = &run->agree[i];
        char pair[96], ident[24], diff[24], u1[16], u2[16], u3[16];
        snprintf(pair, sizeof pair, "%s : %s", run->stacks[g->stack_a].id,
                 run->stacks[g->stack_b].id);
        snprintf(ident, sizeof ident, "%d/%d", g->identical_shapes, g->shapes);
        if (g->compared)
            snprintf(diff, sizeof diff, "%.1f%%", 100.0 * (double)g->differing /
                                                      (double)g->compared);
        else
            snprintf(diff, sizeof diff, "-");
        fprintf(f, "%-28s %-30s %7d %10s %10s %8s %7s %s", g->variant, pair, g->shapes, ident,
                diff, ulps(g->shapes ? (double)g->max_ulp : NAN, u1, sizeof u1),
                ulps(g->median_ulp, u2, sizeof u2), ulps(g->median_ulp_differing, u3,
                                                         sizeof u3));
        if (g->nonfinite_mismatch)
            fprintf(f, "  (%lld non-finite on one side)", (long long)g->nonfinite_mismatch);
        fputc('\n', f);
    }
}

// Per stack: the device, how xconv's kernels are built, what the device says of its fp32.
static void controls(FILE *f, const xconv_behaviour_run *run)
{
    fputs("\nRounding controls per stack:\n", f);
    for (int i = 0; i < run->nstacks; i++) {
        const xconv_behaviour_stack *s = &run->stacks[i];
        char flags[256];
        fprintf(f, "%s: %s", s->id, s->device);
        if (s->platform[0])
            fprintf(f, " (%s, driver %s)", s->platform, s->driver);
        fprintf(f, "\n    xconv kernels built with: %s\n", s->build_flags);
        if (strcmp(s->backend, "host") != 0)
            fprintf(f, "    device fp32: %s\n",
                    xconv_fp_config_format(s->fp32_config, flags, sizeof flags));
    }
}

int xconv_behaviour_write_table(FILE *f, const xconv_behaviour_run *run)
{
    records(f, run);
    agreement(f, run);
    controls(f, run);
    return fflush(f) != 0 || ferror(f) ? -1 : 0;
}
