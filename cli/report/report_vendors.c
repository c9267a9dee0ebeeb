// SPDX-License-Identifier: MIT
// The report's vendors view: compile-check files (`xconv compile`) as variant x target tables of
// what the vendors' compilers said (compiled, spills, AMD's occupancy), beside the measured
// matrix of the devices we have.
#include <string.h>

#include "report.h"

#define MAX_TARGETS 16
#define MAX_VARIANTS 64

// One cell: a variant's records on one target.
typedef struct vendor_cell {
    int kernels, compiled, failed, spills, na;
    int occ_min, occ_max;        // over the plans auto picks (-1: none reported)
    int auto_kernels, auto_spills;
} vendor_cell;

// The table of one file: its targets and variants in first-seen order.
typedef struct vendor_table {
    char targets[MAX_TARGETS][16];
    int ntargets;
    char variants[MAX_VARIANTS][48];
    int nvariants;
    vendor_cell cells[MAX_VARIANTS][MAX_TARGETS];
    int skipped[MAX_TARGETS];    // the target's compiler was not installed
} vendor_table;

// Returns the index of name in list (count entries of width w), adding it when there is room;
// -1 when the list is full.
static int index_of(char *list, int *count, int max, size_t w, const char *name)
{
    for (int i = 0; i < *count; i++)
        if (strcmp(list + (size_t)i * w, name) == 0)
            return i;
    if (*count == max)
        return -1;
    snprintf(list + (size_t)*count * w, w, "%s", name);
    return (*count)++;
}

// Adds record r to its cell of t.
static void add(vendor_table *t, const xconv_compile_record *r)
{
    int ti = index_of(&t->targets[0][0], &t->ntargets, MAX_TARGETS, sizeof t->targets[0],
                      r->target);
    if (ti < 0)
        return;
    if (r->outcome == XCONV_COMPILE_SKIPPED) {
        t->skipped[ti] = 1;
        return;
    }
    int vi = index_of(&t->variants[0][0], &t->nvariants, MAX_VARIANTS, sizeof t->variants[0],
                      r->variant);
    if (vi < 0)
        return;
    vendor_cell *c = &t->cells[vi][ti];
    if (c->kernels == 0 && c->na == 0 && c->failed == 0)
        c->occ_min = c->occ_max = -1;
    if (r->outcome == XCONV_COMPILE_NOT_APPLICABLE) {
        c->na++;
        return;
    }
    c->kernels++;
    c->compiled += r->outcome == XCONV_COMPILE_OK || r->outcome == XCONV_COMPILE_SPILLS;
    c->failed += r->outcome == XCONV_COMPILE_FAILED;
    c->spills += r->outcome == XCONV_COMPILE_SPILLS;
    if (!r->is_auto)
        return;
    c->auto_kernels++;
    c->auto_spills += r->outcome == XCONV_COMPILE_SPILLS;
    if (r->counts.occupancy > 0) {
        if (c->occ_min < 0 || r->counts.occupancy < c->occ_min)
            c->occ_min = (int)r->counts.occupancy;
        if (r->counts.occupancy > c->occ_max)
            c->occ_max = (int)r->counts.occupancy;
    }
}

// Fills t from file f.
static void build(vendor_table *t, const xconv_compile_file *f)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < f->count; i++)
        add(t, &f->recs[i]);
}

// Returns the file name part of path.
static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// ---------------------------------------------------------------------------------------------
// The page

void report_vendors_nav(FILE *f, const xconv_report *r)
{
    for (int i = 0; i < r->nvendors; i++) {
        fprintf(f, "<a href=\"#vendors-%d\">Vendors", i + 1);
        if (r->nvendors > 1) {
            fputs(": ", f);
            report_xml(f, file_name(r->vendor_files[i]));
        }
        fputs("</a>", f);
    }
}

// Writes one cell: "compiled/kernels", then spills, failures, n/a and auto's occupancy.
static void cell_html(FILE *f, const vendor_cell *c, bool skipped)
{
    if (skipped) {
        fputs("<td class=\"na\">compiler absent</td>", f);
        return;
    }
    if (c->kernels == 0) {
        fputs(c->na ? "<td class=\"na\">n/a</td>" : "<td>-</td>", f);
        return;
    }
    fprintf(f, "<td%s>%d/%d", c->failed || c->auto_spills ? " class=\"bad\"" : "", c->compiled,
            c->kernels);
    if (c->spills)
        fprintf(f, ", %d spill%s%s", c->spills, c->spills == 1 ? "" : "s",
                c->auto_spills ? " (auto's)" : "");
    if (c->failed)
        fprintf(f, ", %d failed", c->failed);
    if (c->occ_min > 0)
        fprintf(f, c->occ_min == c->occ_max ? ", auto occ %d" : ", auto occ %d-%d", c->occ_min,
                c->occ_max);
    else if (c->auto_kernels)
        fputs(", auto", f);
    fputs("</td>", f);
}

void report_vendors_sections(FILE *f, const xconv_report *r)
{
    static vendor_table t;
    for (int i = 0; i < r->nvendors; i++) {
        build(&t, &r->vendors[i]);
        fprintf(f, "<section id=\"vendors-%d\">\n<h2>Vendors' compilers: ", i + 1);
        report_xml(f, file_name(r->vendor_files[i]));
        fputs("</h2>\n<p>Each cell: kernels compiled of the variant's plans over the file's "
              "shapes, register spills, failures, and the occupancy AMD's compiler reports for "
              "the plans auto picks (waves a SIMD). Compiled offline from the target profiles: "
              "no kernel ran (docs/guide/vendors.md says what this can and cannot tell). ", f);
        report_xml(f, r->vendors[i].info.date);
        fputs(", commit ", f);
        report_xml(f, r->vendors[i].info.commit);
        fputs(".</p>\n<div class=\"fig\"><table>\n<tr><th>variant</th>", f);
        for (int k = 0; k < t.ntargets; k++) {
            fputs("<th>", f);
            report_xml(f, t.targets[k]);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
        for (int v = 0; v < t.nvariants; v++) {
            fputs("<tr><td>", f);
            report_xml(f, t.variants[v]);
            fputs("</td>", f);
            for (int k = 0; k < t.ntargets; k++)
                cell_html(f, &t.cells[v][k], t.skipped[k]);
            fputs("</tr>\n", f);
        }
        fputs("</table></div>\n</section>\n", f);
    }
}

// ---------------------------------------------------------------------------------------------
// The terminal summary

void report_vendors_text(FILE *f, const xconv_report *r)
{
    static vendor_table t;
    for (int i = 0; i < r->nvendors; i++) {
        build(&t, &r->vendors[i]);
        fprintf(f, "\nvendors' compilers (%s):\n%-22s", file_name(r->vendor_files[i]),
                "variant");
        for (int k = 0; k < t.ntargets; k++)
            fprintf(f, " %-22s", t.targets[k]);
        fputc('\n', f);
        for (int v = 0; v < t.nvariants; v++) {
            fprintf(f, "%-22s", t.variants[v]);
            for (int k = 0; k < t.ntargets; k++) {
                const vendor_cell *c = &t.cells[v][k];
                char cell[64];
                if (t.skipped[k])
                    snprintf(cell, sizeof cell, "compiler absent");
                else if (c->kernels == 0)
                    snprintf(cell, sizeof cell, "%s", c->na ? "n/a" : "-");
                else
                    snprintf(cell, sizeof cell, "%d/%d%s%s%.0d", c->compiled, c->kernels,
                             c->spills ? " spills" : "", c->occ_min > 0 ? " occ " : "",
                             c->occ_min > 0 ? c->occ_min : 0);
                fprintf(f, " %-22s", cell);
            }
            fputc('\n', f);
        }
    }
}
