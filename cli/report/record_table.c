// SPDX-License-Identifier: MIT
// The human-readable writer: records as an aligned table, with notes under the rows they explain.
#include <math.h>
#include <string.h>

#include "record.h"

// ---------------------------------------------------------------------------------------------
// Columns

#define CELL_LEN 64   // bytes of one cell's text, terminator included
#define NOTE_COLS 100 // columns of a note line before it is cut

typedef struct table_column {
    const char *title;
    int max_width;  // longer text is cut and ends in "~"
    bool right;     // numbers align right
    bool timing;    // shown only when the table has timings
} table_column;

enum { COL_VARIANT, COL_SHAPE, COL_OUTCOME, COL_ERR, COL_MEDIAN, COL_MIN, COL_MAX, COL_GFLOPS,
       COL_GBPS, COL_FLOOR, COL_COUNT };
_Static_assert(COL_COUNT == XCONV_TABLE_COLUMNS, "record.h's column count");

static const table_column columns[COL_COUNT] = {
    [COL_VARIANT] = { "variant", 32, false, false },
    [COL_SHAPE] = { "shape", 48, false, false },
    [COL_OUTCOME] = { "outcome", 7, false, false },
    [COL_ERR] = { "max err", 9, true, false },
    [COL_MEDIAN] = { "median ms", 10, true, true },
    [COL_MIN] = { "min ms", 10, true, true },
    [COL_MAX] = { "max ms", 10, true, true },
    [COL_GFLOPS] = { "GFLOP/s", 8, true, true },
    [COL_GBPS] = { "GB/s", 7, true, true },
    [COL_FLOOR] = { "of floor", 8, true, true },  // '-' where the device's peaks are unknown
};

// ---------------------------------------------------------------------------------------------
// Text helpers

// Returns the display width of s: its UTF-8 code points.
static int text_width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

// Copies at most max_bytes of src (stopping at its terminator) into dst (CELL_LEN) and cuts the
// result to `width` code points, ending in "~" when cut; never splits a UTF-8 sequence and
// turns control characters into spaces.
static void clip(char *dst, const char *src, size_t max_bytes, int width)
{
    size_t len = strnlen(src, max_bytes), out = 0;
    int cols = 0;
    for (size_t i = 0; i < len; cols++) {
        size_t n = 1;
        while (i + n < len && ((unsigned char)src[i + n] & 0xC0) == 0x80)
            n++;
        bool last = cols + 1 == width && i + n < len;
        if (last || out + n + 2 > CELL_LEN) {
            dst[out++] = '~';
            break;
        }
        for (size_t b = 0; b < n; b++)  // control characters would break the row
            dst[out++] = (unsigned char)src[i + b] < 0x20 ? ' ' : src[i + b];
        i += n;
    }
    dst[out] = '\0';
}

// Formats v with fmt into cell, or "-" when v is not finite or `show` is false.
static void number_cell(char *cell, const char *fmt, double v, bool show)
{
    if (show && isfinite(v))
        snprintf(cell, CELL_LEN, fmt, v);
    else
        snprintf(cell, CELL_LEN, "-");
}

// Returns the text rec's shape goes by in the table: its name, else its SPEC.
static const char *shape_text(const xconv_record *rec)
{
    return rec->shape_name[0] ? rec->shape_name : rec->shape;
}

// Fills the cells of one record.
static void record_cells(const xconv_record *rec, char cells[COL_COUNT][CELL_LEN])
{
    const char *shape = shape_text(rec);
    size_t shape_len = rec->shape_name[0] ? sizeof rec->shape_name : sizeof rec->shape;
    clip(cells[COL_VARIANT], rec->variant, sizeof rec->variant, columns[COL_VARIANT].max_width);
    clip(cells[COL_SHAPE], shape, shape_len, columns[COL_SHAPE].max_width);
    snprintf(cells[COL_OUTCOME], CELL_LEN, "%s", xconv_outcome_name(rec->outcome));
    bool ran = rec->outcome == XCONV_OUTCOME_PASS || rec->outcome == XCONV_OUTCOME_FAIL;
    bool timed = ran && rec->repeat > 0;
    number_cell(cells[COL_ERR], "%.2e", rec->max_norm_err, ran);
    number_cell(cells[COL_MEDIAN], "%.4f", rec->median_ms, timed);
    number_cell(cells[COL_MIN], "%.4f", rec->min_ms, timed);
    number_cell(cells[COL_MAX], "%.4f", rec->max_ms, timed);
    number_cell(cells[COL_GFLOPS], "%.1f", rec->gflops, timed);
    number_cell(cells[COL_GBPS], "%.1f", rec->gbps, timed);
    number_cell(cells[COL_FLOOR], "%.1f%%", rec->floor_share * 100, timed && rec->floor_share > 0);
}

// ---------------------------------------------------------------------------------------------
// Rows

// Returns whether column c is written: timing columns only with timings, the shape unless the
// table has one shape (its block's line names it).
static bool shown(const xconv_table *t, int c)
{
    return (t->timings || !columns[c].timing) && !(c == COL_SHAPE && t->nshapes == 1);
}

// Writes one row of cells, padded to t's widths, with two spaces between columns.
static void write_row(FILE *f, char cells[COL_COUNT][CELL_LEN], const xconv_table *t)
{
    int last = t->timings ? COL_COUNT - 1 : COL_ERR;
    for (int c = 0; c <= last; c++) {
        if (!shown(t, c))
            continue;
        int pad = t->widths[c] - text_width(cells[c]);
        if (columns[c].right)
            fprintf(f, "%*s%s", pad, "", cells[c]);
        else if (c < last)
            fprintf(f, "%s%*s", cells[c], pad, "");
        else
            fputs(cells[c], f);
        fputs(c < last ? "  " : "\n", f);
    }
}

// Writes the note of a record that did not pass, indented under its row: its first line, cut to
// NOTE_COLS columns, ending in " ..." when anything was left out.
static void write_note(FILE *f, const xconv_record *rec)
{
    char note[sizeof rec->note + 1];
    size_t len = strnlen(rec->note, sizeof rec->note);
    memcpy(note, rec->note, len);
    note[len] = '\0';
    if (rec->outcome == XCONV_OUTCOME_PASS || !note[0])
        return;
    size_t first = strcspn(note, "\r\n"), end = 0;
    bool cut = note[first + strspn(note + first, "\r\n\t ")] != '\0';
    for (int cols = 0; end < first && cols < NOTE_COLS; cols++) {
        end++;
        while (end < first && ((unsigned char)note[end] & 0xC0) == 0x80)
            end++;
    }
    cut = cut || end < first;
    fprintf(f, "    note: %.*s%s\n", (int)end, note, cut ? " ..." : "");
}

void xconv_table_init(xconv_table *t, bool timings)
{
    memset(t, 0, sizeof *t);
    t->timings = timings;
    for (int c = 0; c < COL_COUNT; c++)
        t->widths[c] = text_width(columns[c].title);
}

void xconv_table_fit(xconv_table *t, const xconv_record *rec)
{
    char cells[COL_COUNT][CELL_LEN];
    record_cells(rec, cells);
    for (int c = 0; c < COL_COUNT; c++) {
        int wdt = text_width(cells[c]);
        t->widths[c] = wdt > t->widths[c] ? wdt : t->widths[c];
    }
    const char *shape = shape_text(rec);
    if (!shape[0] || (t->nshapes == 1 && strcmp(shape, t->shape) == 0))
        return;
    if (t->nshapes == 0)
        snprintf(t->shape, sizeof t->shape, "%s", shape);
    t->nshapes = t->nshapes ? 2 : 1;
}

void xconv_table_fit_numbers(xconv_table *t)
{
    for (int c = COL_ERR; c < COL_COUNT; c++)
        if (columns[c].max_width > t->widths[c])
            t->widths[c] = columns[c].max_width;
}

// Returns 0 when everything written reached f, else -1.
static int flushed(FILE *f)
{
    return fflush(f) != 0 || ferror(f) ? -1 : 0;
}

// Writes the line of not-applicable variants t holds, wrapped at NOTE_COLS columns, and empties
// it.
static void write_na(FILE *f, xconv_table *t)
{
    if (!t->na[0])
        return;
    char head[300];
    if (t->nshapes == 1)
        snprintf(head, sizeof head, "  n/a:");
    else
        snprintf(head, sizeof head, "  n/a on %s:", t->na_shape);
    fputs(head, f);
    int col = text_width(head);
    for (const char *v = t->na; *v;) {
        int n = (int)strcspn(v, ",");
        bool last = v[n] == '\0';
        if (col + 1 + n + 1 > NOTE_COLS) {
            fputs("\n    ", f);
            col = 4;
        }
        fprintf(f, " %.*s%s", n, v, last ? "" : ",");
        col += n + 1 + !last;
        v += n + !last;
    }
    static const char hint[] = " (xconv explain says why)";
    fprintf(f, "%s%s\n", col + (int)strlen(hint) > NOTE_COLS ? "\n    " : "", hint);
    t->na[0] = '\0';
}

// Appends rec's variant to t's not-applicable line, writing the line t held first when rec is
// of another shape.
static void fold_na(FILE *f, xconv_table *t, const xconv_record *rec)
{
    if (t->na[0] && strcmp(t->na_shape, shape_text(rec)) != 0)
        write_na(f, t);
    if (!t->na[0])
        snprintf(t->na_shape, sizeof t->na_shape, "%s", shape_text(rec));
    size_t used = strlen(t->na);
    snprintf(t->na + used, sizeof t->na - used, "%s%s", used ? "," : "", rec->variant);
}

// Writes the column titles.
static void write_titles(FILE *f, const xconv_table *t)
{
    char cells[COL_COUNT][CELL_LEN];
    for (int c = 0; c < COL_COUNT; c++)
        snprintf(cells[c], CELL_LEN, "%s", columns[c].title);
    write_row(f, cells, t);
}

// Starts rec's device block when it is not the one open: the held not-applicable line, a blank
// line after the last block, the device's line (and the shape's, when the table has one), the
// titles.
static void open_block(FILE *f, xconv_table *t, const xconv_record *rec)
{
    char block[sizeof t->block];
    size_t n = strlen(rec->backend);
    bool named = strncmp(rec->device, rec->backend, n) == 0 && rec->device[n] == ':';
    snprintf(block, sizeof block, "%.255s%s%.16s%s", rec->device, named ? "" : " (backend ",
             named ? "" : rec->backend, named ? "" : ")");
    for (char *c = block; *c; c++)  // control characters would break the line
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    if (t->block[0] && strcmp(block, t->block) == 0)
        return;
    write_na(f, t);
    if (t->block[0])
        fputc('\n', f);
    snprintf(t->block, sizeof t->block, "%s", block);
    fprintf(f, "device %s\n", block);
    if (t->nshapes == 1)
        fprintf(f, "shape %s\n", t->shape);
    write_titles(f, t);
}

int xconv_table_write_record(FILE *f, xconv_table *t, const xconv_record *rec)
{
    open_block(f, t, rec);
    if (rec->outcome == XCONV_OUTCOME_NOT_APPLICABLE && !t->all) {
        fold_na(f, t, rec);
        return flushed(f);
    }
    if (t->na[0] && strcmp(t->na_shape, shape_text(rec)) != 0)
        write_na(f, t);
    char cells[COL_COUNT][CELL_LEN];
    record_cells(rec, cells);
    write_row(f, cells, t);
    write_note(f, rec);
    return flushed(f);
}

int xconv_table_finish(FILE *f, xconv_table *t)
{
    write_na(f, t);
    if (!t->block[0])
        fputs("(no records)\n", f);
    return flushed(f);
}

int xconv_records_write_table(FILE *f, const xconv_record *recs, int count, bool timings,
                              bool all)
{
    xconv_table t;
    xconv_table_init(&t, timings);
    t.all = all;
    for (int r = 0; r < count; r++)
        xconv_table_fit(&t, &recs[r]);
    for (int r = 0; r < count && !ferror(f); r++)
        xconv_table_write_record(f, &t, &recs[r]);
    return xconv_table_finish(f, &t);
}

// ---------------------------------------------------------------------------------------------
// Comparisons

int xconv_comparisons_write_header(FILE *f)
{
    fprintf(f, "%-26s %-22s %-10s %10s %12s %12s %8s\n", "variant", "shape", "identical",
            "max ulp", "ms", "other ms", "ratio");
    return flushed(f);
}

int xconv_comparisons_write_pair(FILE *f, const xconv_record *a, const xconv_record *b)
{
    const char *shape = a->shape_name[0] ? a->shape_name : a->shape;
    if (!a->cmp.compared) {
        fprintf(f, "%-26s %-22.22s %-10s  %s | %s\n", a->variant, shape, "n/a",
                a->note[0] ? a->note : xconv_outcome_name(a->outcome),
                b->note[0] ? b->note : xconv_outcome_name(b->outcome));
        return flushed(f);
    }
    bool pass = xconv_comparison_passed(a) && xconv_comparison_passed(b);
    char ms[3][CELL_LEN];
    number_cell(ms[0], "%.4f", a->median_ms, true);
    number_cell(ms[1], "%.4f", b->median_ms, true);
    number_cell(ms[2], "%.3f", a->cmp.ratio, true);
    fprintf(f, "%-26s %-22.22s %-10s %10llu %12s %12s %8s  (%s / %s)%s\n", a->variant, shape,
            a->cmp.differing ? "NO" : "yes", (unsigned long long)a->cmp.max_ulp, ms[0], ms[1],
            ms[2], a->backend, b->backend,
            pass ? "" : "  (backend check failed or outputs differ)");
    return flushed(f);
}

int xconv_records_write_comparisons(FILE *f, const xconv_record *recs, int count)
{
    xconv_comparisons_write_header(f);
    for (int i = 0; i + 1 < count && !ferror(f); i++) {
        const xconv_record *a = &recs[i], *b = &recs[i + 1];
        if (!a->cmp.present || !b->cmp.present)
            continue;
        i++;  // a pair: a and b, each compared with the other
        xconv_comparisons_write_pair(f, a, b);
    }
    return flushed(f);
}
