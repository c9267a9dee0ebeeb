// SPDX-License-Identifier: MIT
// The behaviour files on the report page (docs/behaviour.md): per file, what each stack and
// variant did (accuracy, determinism, special values, signed zeros, denormals), how each pair of
// stacks agreed, and each stack's rounding controls; and a line per file in the terminal.
#include <math.h>
#include <string.h>

#include "report.h"

// Returns the base name of path.
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// Writes a table cell holding text, marked bad (red) when bad is set.
static void cell(FILE *f, const char *text, bool bad, bool num)
{
    fprintf(f, "<td%s>", num ? " class=\"num\"" : "");
    if (bad)
        fputs("<span class=\"bad\">", f);
    report_xml(f, text);
    fputs(bad ? "</span></td>" : "</td>", f);
}

// Writes a number cell: v with 2 significant digits, or a dash.
static void num_cell(FILE *f, double v, const char *fmt)
{
    char buf[32];
    if (isfinite(v))
        snprintf(buf, sizeof buf, fmt, v);
    else
        snprintf(buf, sizeof buf, "\xE2\x80\x93");
    cell(f, buf, false, true);
}

// Returns true when a verdict word says something is wrong.
static bool bad_word(const char *v)
{
    return strcmp(v, "wrong") == 0 || strcmp(v, "error") == 0;
}

// Returns the verdict of probe `name` of r, or "-".
static const char *probe_verdict(const xconv_behaviour_record *r, const char *name)
{
    for (int i = 0; i < r->nprobes; i++)
        if (strcmp(r->probes[i].name, name) == 0)
            return r->probes[i].verdict;
    return "-";
}

// ---------------------------------------------------------------------------------------------
// The header and the navigation

void report_behaviour_header(FILE *f, const xconv_report *r)
{
    for (int i = 0; i < r->nbehaviour; i++) {
        const xconv_behaviour_run *b = &r->behaviour[i];
        fputs("<p>", f);
        report_xml(f, base_name(r->behaviour_files[i]));
        fputs(": behaviour, ", f);
        report_xml(f, b->info.date[0] ? b->info.date : "undated");
        fputs(", commit ", f);
        report_xml(f, b->info.commit[0] ? b->info.commit : "unknown");
        if (b->host[0]) {
            fputs(", host ", f);
            report_xml(f, b->host);
        }
        fprintf(f, ", %d stacks, %d records</p>\n", b->nstacks, b->count);
    }
}

void report_behaviour_nav(FILE *f, const xconv_report *r)
{
    for (int i = 0; i < r->nbehaviour; i++) {
        fprintf(f, "<a href=\"#behaviour-%d\">Behaviour", i + 1);
        if (r->nbehaviour > 1) {
            fputs(": ", f);
            report_xml(f, base_name(r->behaviour_files[i]));
        }
        fputs("</a>", f);
    }
}

// ---------------------------------------------------------------------------------------------
// One file's section

// The table of stacks and variants.
static void records_table(FILE *f, const xconv_behaviour_run *b)
{
    fputs("<div class=\"fig\"><table>\n<tr><th>stack</th><th>variant</th><th>kernels</th>"
          "<th>shapes passed</th><th>max error</th><th>median error</th><th>max ULP</th>"
          "<th>median ULP</th><th>correctly rounded</th><th>deterministic</th>"
          "<th>NaN and Inf</th><th>-0</th><th>denormal inputs</th><th>weights</th>"
          "<th>products</th><th>sums</th></tr>\n", f);
    for (int i = 0; i < b->count; i++) {
        const xconv_behaviour_record *rec = &b->recs[i];
        char buf[64];
        fputs("<tr>", f);
        cell(f, b->stacks[rec->stack].id, false, false);
        cell(f, rec->variant, false, false);
        cell(f, rec->kernels, false, false);
        snprintf(buf, sizeof buf, "%d of %d", rec->passed, rec->passed + rec->failed);
        cell(f, buf, rec->failed > 0 || rec->errors > 0, true);
        num_cell(f, rec->max_block_err, "%.2g");
        num_cell(f, rec->median_norm_err, "%.2g");
        num_cell(f, rec->ulp_compared ? (double)rec->max_ulp : NAN, "%.0f");
        num_cell(f, rec->median_ulp, "%.0f");
        num_cell(f, 100 * rec->share_correctly_rounded, "%.0f%%");
        cell(f, rec->det_compared == 0 ? "\xE2\x80\x93" : rec->det_differing ? "no" : "yes",
             rec->det_differing > 0, false);
        const char *special = xconv_behaviour_kind_verdict(rec, XCONV_PROBE_SPECIAL);
        const char *zero = xconv_behaviour_kind_verdict(rec, XCONV_PROBE_ZERO);
        cell(f, special, bad_word(special), false);
        cell(f, zero, bad_word(zero), false);
        const char *denormals[] = {"denormal_inputs", "denormal_weights", "denormal_products",
                                   "denormal_sums"};
        for (int k = 0; k < 4; k++) {
            const char *v = probe_verdict(rec, denormals[k]);
            cell(f, v, bad_word(v), false);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

// The shapes that failed or errored, with their notes.
static void failures(FILE *f, const xconv_behaviour_run *b)
{
    bool any = false;
    for (int i = 0; i < b->count; i++) {
        const xconv_behaviour_record *rec = &b->recs[i];
        for (int s = 0; s < rec->nshapes; s++) {
            const xconv_behaviour_shape *sh = &rec->per_shape[s];
            if (sh->outcome != XCONV_OUTCOME_FAIL && sh->outcome != XCONV_OUTCOME_ERROR)
                continue;
            if (!any)
                fputs("<h3>Shapes that failed</h3>\n<ul>\n", f);
            any = true;
            const xconv_behaviour_shape_info *shape =
                sh->shape >= 0 && sh->shape < b->nshapes ? &b->shapes[sh->shape] : NULL;
            fputs("<li>", f);
            report_xml(f, b->stacks[rec->stack].id);
            fputs(" ", f);
            report_xml(f, rec->variant);
            fputs(" on ", f);
            report_xml(f, shape ? (shape->name[0] ? shape->name : shape->spec) : "?");
            if (sh->outcome == XCONV_OUTCOME_FAIL)
                fprintf(f, ": error %.2g over its threshold %.0e, ", sh->max_block_err,
                        rec->threshold);
            else
                fputs(": error, ", f);
            report_xml(f, sh->note);
            fputs("</li>\n", f);
        }
    }
    if (any)
        fputs("</ul>\n", f);
}

// The table of variants and pairs of stacks.
static void agreement_table(FILE *f, const xconv_behaviour_run *b)
{
    if (b->nagree == 0) {
        fputs("<p class=\"note\">No variant ran on two stacks, so nothing was compared across "
              "stacks.</p>\n", f);
        return;
    }
    fputs("<div class=\"fig\"><table>\n<tr><th>variant</th><th>stacks</th>"
          "<th>identical shapes</th><th>differing elements</th><th>max ULP</th>"
          "<th>median ULP</th><th>median ULP of the differing</th></tr>\n", f);
    for (int i = 0; i < b->nagree; i++) {
        const xconv_behaviour_agreement *g = &b->agree[i];
        char buf[128];
        fputs("<tr>", f);
        cell(f, g->variant, false, false);
        snprintf(buf, sizeof buf, "%s : %s", b->stacks[g->stack_a].id, b->stacks[g->stack_b].id);
        cell(f, buf, false, false);
        snprintf(buf, sizeof buf, "%d of %d", g->identical_shapes, g->shapes);
        cell(f, buf, false, true);
        num_cell(f, g->compared ? 100.0 * (double)g->differing / (double)g->compared : NAN,
                 "%.1f%%");
        num_cell(f, g->shapes ? (double)g->max_ulp : NAN, "%.0f");
        num_cell(f, g->median_ulp, "%.0f");
        num_cell(f, g->median_ulp_differing, "%.0f");
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

// The table of stacks and their rounding controls.
static void stacks_table(FILE *f, const xconv_behaviour_run *b)
{
    fputs("<div class=\"fig\"><table>\n<tr><th>stack</th><th>device</th><th>driver</th>"
          "<th>xconv kernels built with</th><th>device fp32 config</th></tr>\n", f);
    for (int i = 0; i < b->nstacks; i++) {
        const xconv_behaviour_stack *s = &b->stacks[i];
        char flags[256];
        fputs("<tr>", f);
        cell(f, s->id, false, false);
        cell(f, s->device, false, false);
        cell(f, s->driver, false, false);
        cell(f, s->build_flags, false, false);
        cell(f, strcmp(s->backend, "host") == 0
                    ? "\xE2\x80\x93"
                    : xconv_fp_config_format(s->fp32_config, flags, sizeof flags),
             false, false);
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

void report_behaviour_sections(FILE *f, const xconv_report *r)
{
    for (int i = 0; i < r->nbehaviour; i++) {
        const xconv_behaviour_run *b = &r->behaviour[i];
        fprintf(f, "<section id=\"behaviour-%d\">\n<h2>Behaviour per stack: ", i + 1);
        report_xml(f, base_name(r->behaviour_files[i]));
        fprintf(f, "</h2>\n<p class=\"facts\">%d stacks \xC2\xB7 %d shapes \xC2\xB7 %d probe "
                   "problems \xC2\xB7 seed %llu</p>\n",
                b->nstacks, b->nshapes, b->ncases, (unsigned long long)b->seed);
        fputs("<h3>Per stack and variant</h3>\n", f);
        records_table(f, b);
        fputs("<p class=\"note\">Errors are normalised by the sum of |x\xC2\xB7w| (the maximum "
              "over each plan's output blocks, the one its threshold applies to); ULPs count "
              "the floats between an output and the float64 reference rounded to float. "
              "Deterministic: a second run gave the same bits on every shape. NaN and Inf: "
              "exact when they reach the outputs IEEE arithmetic over the zero-padded input "
              "gives and no others, block when the extra ones stay inside blocks the algorithm "
              "computes together. -0: the sign of zero outputs (ieee, or +0 where IEEE gives -0). "
              "Denormals: kept or flushed to zero.</p>\n", f);
        failures(f, b);
        fputs("<h3>Agreement across stacks</h3>\n", f);
        agreement_table(f, b);
        fputs("<h3>Rounding controls</h3>\n", f);
        stacks_table(f, b);
        fputs("<p class=\"note\">docs/behaviour.md explains each column and the probes.</p>\n"
              "</section>\n", f);
    }
}

// ---------------------------------------------------------------------------------------------
// The terminal

void report_behaviour_text(FILE *f, const xconv_report *r)
{
    for (int i = 0; i < r->nbehaviour; i++) {
        const xconv_behaviour_run *b = &r->behaviour[i];
        int failing = 0, nondet = 0, special = 0, identical = 0;
        for (int k = 0; k < b->count; k++) {
            const xconv_behaviour_record *rec = &b->recs[k];
            failing += rec->failed > 0 || rec->errors > 0;
            nondet += rec->det_differing > 0;
            special += bad_word(xconv_behaviour_kind_verdict(rec, XCONV_PROBE_SPECIAL));
        }
        for (int k = 0; k < b->nagree; k++)
            identical += b->agree[k].shapes > 0 && b->agree[k].differing == 0;
        fprintf(f, "behaviour %s: %d stacks, %d records: %d fail a shape, %d not deterministic, "
                   "%d with wrong special values; %d of %d pairs of stacks bitwise identical\n",
                base_name(r->behaviour_files[i]), b->nstacks, b->count, failing, nondet, special,
                identical, b->nagree);
    }
}
