// SPDX-License-Identifier: MIT
// The matrix's terminal summary: per device a table of variants x shapes (median ms, the fastest
// marked, auto's pick marked, the share of the floor) with each variant's compile time, and per
// network its weighted time.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "report.h"

#define TABLE_CELL 40  // bytes of one cell's text

// ---------------------------------------------------------------------------------------------
// A device's rows and columns

typedef struct table {
    const xconv_run_file *run;
    const xconv_matrix_device *dev;
    const char **variants;           // row names, in the order the records first name them
    int nvariants;
    const xconv_matrix_shape **shapes;  // columns: the run's shapes the device has records of
    int nshapes;
    const xconv_matrix_record **cells;  // [shape * nvariants + variant], NULL: not run
    int *winner;                     // per shape: the fastest passing variant, -1 when none
} table;

// Returns true when record r is of shape s.
static bool of_shape(const xconv_record *r, const xconv_matrix_shape *s)
{
    return strcmp(r->shape, s->shape) == 0 && strcmp(r->shape_name, s->name) == 0;
}

// Returns true when m passed and was timed.
static bool timed_pass(const xconv_matrix_record *m)
{
    return m && m->rec.outcome == XCONV_OUTCOME_PASS && m->rec.repeat > 0 &&
           isfinite(m->rec.median_ms);
}

// Returns the index of name in t's variants, adding it when new.
static int variant_index(table *t, const char *name)
{
    for (int v = 0; v < t->nvariants; v++)
        if (strcmp(t->variants[v], name) == 0)
            return v;
    t->variants[t->nvariants] = name;
    return t->nvariants++;
}

// Fills t with device dev's rows, columns, cells and winners; returns false without memory.
static bool table_build(table *t, const xconv_run_file *run, const xconv_matrix_device *dev)
{
    memset(t, 0, sizeof *t);
    t->run = run;
    t->dev = dev;
    t->variants = calloc((size_t)run->count + 1, sizeof *t->variants);
    t->shapes = calloc((size_t)run->nshapes + 1, sizeof *t->shapes);
    if (!t->variants || !t->shapes)
        return false;
    for (int i = 0; i < run->count; i++)
        if (strcmp(run->recs[i].rec.device, dev->id) == 0)
            variant_index(t, run->recs[i].rec.variant);
    for (int s = 0; s < run->nshapes; s++) {
        bool again = false;  // the same layer in two shape files is one column
        for (int k = 0; k < t->nshapes && !again; k++)
            again = !strcmp(t->shapes[k]->name, run->shapes[s].name) &&
                    !strcmp(t->shapes[k]->shape, run->shapes[s].shape);
        for (int i = 0; i < run->count && !again; i++)
            if (strcmp(run->recs[i].rec.device, dev->id) == 0 &&
                of_shape(&run->recs[i].rec, &run->shapes[s])) {
                t->shapes[t->nshapes++] = &run->shapes[s];
                break;
            }
    }
    t->cells = calloc((size_t)(t->nshapes * t->nvariants) + 1, sizeof *t->cells);
    t->winner = calloc((size_t)t->nshapes + 1, sizeof *t->winner);
    if (!t->cells || !t->winner)
        return false;
    for (int i = 0; i < run->count; i++) {
        const xconv_matrix_record *m = &run->recs[i];
        if (strcmp(m->rec.device, dev->id) != 0)
            continue;
        for (int s = 0; s < t->nshapes; s++)
            if (of_shape(&m->rec, t->shapes[s]))
                t->cells[s * t->nvariants + variant_index(t, m->rec.variant)] = m;
    }
    for (int s = 0; s < t->nshapes; s++) {
        t->winner[s] = -1;
        for (int v = 0; v < t->nvariants; v++) {
            const xconv_matrix_record *m = t->cells[s * t->nvariants + v];
            int w = t->winner[s];
            if (timed_pass(m) &&
                (w < 0 || m->rec.median_ms < t->cells[s * t->nvariants + w]->rec.median_ms))
                t->winner[s] = v;
        }
    }
    return true;
}

static void table_free(table *t)
{
    free(t->variants);
    free(t->shapes);
    free(t->cells);
    free(t->winner);
}

// ---------------------------------------------------------------------------------------------
// Text

// Writes the cell of shape s and variant v into buf: "0.326*+ 41%" (median ms, '*' fastest,
// '+' auto's pick, share of the floor), or what kept it from a time.
static void cell_text(const table *t, int s, int v, char *buf)
{
    const xconv_matrix_record *m = t->cells[s * t->nvariants + v];
    if (!m) {
        snprintf(buf, TABLE_CELL, "-");
        return;
    }
    if (!timed_pass(m)) {
        snprintf(buf, TABLE_CELL, "%s%s", xconv_outcome_name(m->rec.outcome),
                 m->auto_pick == 1 ? "+" : "");
        return;
    }
    char ms[16], pct[16] = "";
    report_ms(m->rec.median_ms, ms, sizeof ms);
    if (m->rec.floor_share > 0)
        report_pct(m->rec.floor_share, pct, sizeof pct);
    snprintf(buf, TABLE_CELL, "%s%s%s%s%s", ms, t->winner[s] == v ? "*" : "",
             m->auto_pick == 1 ? "+" : "", pct[0] ? " " : "", pct);
}

// Writes shape s's column title into buf: its name, or "#N" (listed under the table).
static void shape_title(const table *t, int s, char *buf)
{
    if (t->shapes[s]->name[0])
        snprintf(buf, TABLE_CELL, "%.*s", TABLE_CELL - 1, t->shapes[s]->name);
    else
        snprintf(buf, TABLE_CELL, "#%d", s + 1);
}

#define COMPILE_TITLE "compile s"

// Writes into buf the seconds variant v's programs took to build over t's shapes ("-" when no
// record counted any).
static void compile_text(const table *t, int v, char *buf)
{
    double ms = 0;
    bool any = false;
    for (int s = 0; s < t->nshapes; s++) {
        const xconv_matrix_record *m = t->cells[s * t->nvariants + v];
        if (m && isfinite(m->rec.compile_ms)) {
            ms += m->rec.compile_ms;
            any = true;
        }
    }
    if (any)
        snprintf(buf, TABLE_CELL, "%.2f", ms / 1e3);
    else
        snprintf(buf, TABLE_CELL, "-");
}

// Writes the block of columns [first, last) of t: a title row, then one row per variant; the
// last block ends with each variant's compile time (compile_w wide).
static void write_block(FILE *f, const table *t, int first, int last, const int *widths,
                        int label_w, int compile_w)
{
    char text[TABLE_CELL];
    bool compile = last == t->nshapes;
    fprintf(f, "%-*s", label_w, "variant");
    for (int s = first; s < last; s++) {
        shape_title(t, s, text);
        fprintf(f, "  %*s", widths[s], text);
    }
    if (compile)
        fprintf(f, "  %*s", compile_w, COMPILE_TITLE);
    putc('\n', f);
    for (int v = 0; v < t->nvariants; v++) {
        fprintf(f, "%-*s", label_w, t->variants[v]);
        for (int s = first; s < last; s++) {
            cell_text(t, s, v, text);
            fprintf(f, "  %*s", widths[s], text);
        }
        if (compile) {
            compile_text(t, v, text);
            fprintf(f, "  %*s", compile_w, text);
        }
        putc('\n', f);
    }
}

// Writes the header line of device d: its id, backend, driver and peaks.
static void write_device_head(FILE *f, const xconv_matrix_device *d)
{
    fprintf(f, "\n%s (%s, driver %s)\n", d->id, d->backend, d->driver);
    if (d->peak_gflops > 0 && d->peak_gbps > 0)
        fprintf(f, "peaks: %.4g GFLOP/s fp32, %.4g GB/s (%s); cells: median ms, '*' fastest, "
                   "'+' auto's pick, %% of the floor; compile s: the row's builds\n",
                d->peak_gflops, d->peak_gbps, d->peaks_source[0] ? d->peaks_source : "given");
    else
        fprintf(f, "peaks unknown (xconv peaks measures them): no floors; cells: median ms, "
                   "'*' fastest, '+' auto's pick; compile s: the row's builds\n");
}

// Writes device d's table, in blocks of shapes that fit width; returns false without memory.
static bool write_device(FILE *f, const xconv_run_file *run, const xconv_matrix_device *d,
                         int width)
{
    table t;
    bool ok = table_build(&t, run, d);
    int *widths = ok ? calloc((size_t)t.nshapes + 1, sizeof *widths) : NULL;
    if (!widths) {
        table_free(&t);
        return false;
    }
    write_device_head(f, d);
    int label_w = (int)strlen("variant");
    for (int v = 0; v < t.nvariants; v++)
        if ((int)strlen(t.variants[v]) > label_w)
            label_w = (int)strlen(t.variants[v]);
    char text[TABLE_CELL];
    for (int s = 0; s < t.nshapes; s++) {
        shape_title(&t, s, text);
        widths[s] = (int)strlen(text);
        for (int v = 0; v < t.nvariants; v++) {
            cell_text(&t, s, v, text);
            if ((int)strlen(text) > widths[s])
                widths[s] = (int)strlen(text);
        }
    }
    int compile_w = (int)strlen(COMPILE_TITLE);
    for (int v = 0; v < t.nvariants; v++) {
        compile_text(&t, v, text);
        if ((int)strlen(text) > compile_w)
            compile_w = (int)strlen(text);
    }
    for (int first = 0; first < t.nshapes;) {
        int last = first, used = label_w + 2 + compile_w;
        while (last < t.nshapes && (last == first || used + 2 + widths[last] <= width))
            used += 2 + widths[last++];
        putc('\n', f);
        write_block(f, &t, first, last, widths, label_w, compile_w);
        first = last;
    }
    for (int s = 0; s < t.nshapes; s++)
        if (!t.shapes[s]->name[0])
            fprintf(f, "#%d: %s\n", s + 1, t.shapes[s]->shape);
    if (t.nshapes == 0)
        fputs("(no records)\n", f);
    free(widths);
    table_free(&t);
    return true;
}

int xconv_matrix_write_table(FILE *f, const xconv_run_file *run, int width)
{
    bool ok = true;
    for (int d = 0; ok && d < run->ndevices; d++)
        ok = write_device(f, run, &run->devices[d], width);
    if (!ok) {
        fputs("(no memory for the table)\n", f);
        return -1;
    }
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}
