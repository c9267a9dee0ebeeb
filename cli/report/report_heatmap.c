// SPDX-License-Identifier: MIT
// The heatmap of a device: shapes down, variants across, each cell its time coloured by its share
// of the floor (or by its time against the row's best); and the same grid of a comparison.
#include <math.h>
#include <string.h>

#include "report.h"

// ---------------------------------------------------------------------------------------------
// Layout

enum {
    CELL_W = 76,     // a cell, at its widest
    CELL_W_MIN = 46, // narrowest a cell gets to fit the page
    FIT_W = 1260,    // the widest picture a 1400 px page shows without scrolling
    CELL_H = 36,
    GROUP_GAP = 10,  // between our variants and the vendor-backed ones
    PAD = 12,
    LEGEND_H = 56,
};

#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

typedef struct grid {
    int label_w;     // row labels
    int header_h;    // rotated variant names
    int width, height;
    int cell_w;      // CELL_W, or less so that the picture fits FIT_W
    int first_peer;  // index of the first vendor-backed variant, nvariants when none
} grid;

// Returns the row label of shape row s of d into buf: "#3 name", or "#3 SPEC" when unnamed.
static const char *row_label(const xconv_report *r, const report_device *d, int s, char *buf,
                             size_t len)
{
    const report_shape *shape = &r->shapes[d->shapes[s]];
    snprintf(buf, len, "#%d %s", s + 1, shape->name[0] ? shape->name : shape->spec);
    return buf;
}

// Returns the x of variant column v.
static int column_x(const grid *g, int v)
{
    return g->label_w + v * g->cell_w + (v >= g->first_peer ? GROUP_GAP : 0);
}

// Measures the grid of device d.
static grid measure(const xconv_report *r, const report_device *d)
{
    grid g = {.first_peer = d->nvariants};
    size_t longest_label = 10, longest_variant = 8;
    char buf[320];
    for (int s = 0; s < d->nshapes; s++) {
        size_t n = strlen(row_label(r, d, s, buf, sizeof buf));
        longest_label = n > longest_label ? n : longest_label;
    }
    for (int v = 0; v < d->nvariants; v++) {
        size_t n = strlen(d->variants[v].name);
        longest_variant = n > longest_variant ? n : longest_variant;
        if (d->variants[v].peer && g.first_peer == d->nvariants)
            g.first_peer = v;
    }
    if (longest_label > 48)
        longest_label = 48;
    g.label_w = PAD + (int)(longest_label * 7.3) + 10;  // DejaVu Sans 12px: ~7 px a character
    g.header_h = PAD + (int)(longest_variant * 6.6 * 0.70) + 14;
    // Rotated names lean right past the last column.
    int gap = g.first_peer < d->nvariants ? GROUP_GAP : 0;
    int fixed = g.label_w + gap + (int)(longest_variant * 6.6 * 0.72) + PAD;
    g.cell_w = d->nvariants > 0 ? (FIT_W - fixed) / d->nvariants : CELL_W;
    g.cell_w = g.cell_w > CELL_W ? CELL_W : g.cell_w < CELL_W_MIN ? CELL_W_MIN : g.cell_w;
    g.width = fixed + d->nvariants * g.cell_w;
    if (g.width < 720)  // the legend's width
        g.width = 720;
    g.height = g.header_h + d->nshapes * CELL_H + 22 + LEGEND_H;
    return g;
}

// ---------------------------------------------------------------------------------------------
// Pieces

// Opens a picture of grid g (what it shows and whose, for screen readers) on a white ground.
static void open_svg(FILE *f, const grid *g, const char *what, const report_device *d,
                     bool standalone)
{
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"" FONT "\" font-size=\"12\" role=\"img\" "
               "aria-label=\"",
            g->width, g->height, g->width, g->height);
    report_xml(f, what);
    fputs(" on ", f);
    report_xml(f, d->label);
    fputs("\">\n", f);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", g->width, g->height);
}

// The variant names, rotated, and the row labels.
static void labels(FILE *f, const xconv_report *r, const report_device *d, const grid *g)
{
    for (int v = 0; v < d->nvariants; v++) {
        int x = column_x(g, v) + g->cell_w / 2, y = g->header_h - 8;
        fprintf(f, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-35 %d %d)\" fill=\"%s\">", x, y,
                x, y, d->variants[v].peer ? "#555555" : "#111111");
        report_xml(f, d->variants[v].name);
        fputs("</text>\n", f);
    }
    char buf[320];
    for (int s = 0; s < d->nshapes; s++) {
        const report_shape *shape = &r->shapes[d->shapes[s]];
        row_label(r, d, s, buf, sizeof buf);
        if (strlen(buf) > 48)
            snprintf(buf + 45, sizeof buf - 45, "...");
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>", g->label_w - 8,
                g->header_h + s * CELL_H + CELL_H / 2 + 4);
        report_xml(f, shape->spec);
        fputs("</title>", f);
        report_xml(f, buf);
        fputs("</text>\n", f);
    }
    // Which columns are ours and which run a vendor library.
    int y = g->header_h + d->nshapes * CELL_H + 15;
    if (g->first_peer > 0)
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#666666\" "
                   "text-anchor=\"middle\">xconv kernels</text>\n",
                (column_x(g, 0) + column_x(g, g->first_peer - 1) + g->cell_w) / 2, y);
    if (g->first_peer < d->nvariants)
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#666666\" "
                   "text-anchor=\"middle\">vendor libraries</text>\n",
                (column_x(g, g->first_peer) + column_x(g, d->nvariants - 1) + g->cell_w) / 2,
                y);
}

// A cell's box with its fill and the hover text, and up to two centred lines.
static void cell_box(FILE *f, const grid *g, int x, int y, report_rgb fill, const char *hover,
                     const char *line1, const char *line2, bool bold, const char *ink)
{
    fprintf(f, "<g><title>");
    report_xml(f, hover);
    fprintf(f, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\" "
               "stroke=\"#ffffff\" stroke-width=\"1\"/>",
            x, y, g->cell_w, CELL_H, fill.r, fill.g, fill.b);
    int cx = x + g->cell_w / 2;
    if (line2 && *line2) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\"%s%s>", cx,
                y + 15, ink, bold ? " font-weight=\"bold\"" : "",
                g->cell_w < 60 ? " font-size=\"10.5\"" : "");
        report_xml(f, line1);
        fprintf(f, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" "
                   "fill=\"%s\">",
                cx, y + 29, ink);
        report_xml(f, line2);
        fputs("</text>", f);
    } else {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\"%s>", cx, y + 22,
                ink, bold ? " font-weight=\"bold\"" : "");
        report_xml(f, line1);
        fputs("</text>", f);
    }
    fputs("</g>\n", f);
}

// The fill, ink and word of a cell that has no time to colour by (fail, n/a, error, unrun,
// check-only pass).
static void plain_cell(const xconv_matrix_record *m, report_rgb *fill, const char **ink,
                       const char **word)
{
    if (!m) {
        *fill = (report_rgb){0xfa, 0xfa, 0xfa};
        *ink = "#aaaaaa";
        *word = "not run";
        return;
    }
    *fill = (report_rgb){0xdd, 0xee, 0xdd};
    *ink = "#225522";
    *word = "pass";
    switch (m->rec.outcome) {
    case XCONV_OUTCOME_FAIL:
        *fill = (report_rgb){0xf4, 0xc7, 0xc3};
        *ink = "#8b0000";
        *word = "FAIL";
        return;
    case XCONV_OUTCOME_ERROR:
        *fill = (report_rgb){0xf6, 0xd9, 0xa8};
        *ink = "#7a4a00";
        *word = "error";
        return;
    case XCONV_OUTCOME_NOT_APPLICABLE:
        *fill = (report_rgb){0xea, 0xea, 0xea};
        *ink = "#777777";
        *word = "n/a";
        return;
    case XCONV_OUTCOME_PASS:
        return;  // checked but not timed
    }
}

// Writes the hover text of cell c (variant v, shape row s) into buf.
static void hover_text(const xconv_report *r, const report_device *d, int s, int v,
                       const report_cell *c, char *buf, size_t len)
{
    const report_shape *shape = &r->shapes[d->shapes[s]];
    const xconv_record *rec = &c->m->rec;
    char med[32], lo[32], hi[32], rate[32], fl[32], pct[32];
    char kernel[64] = "";
    if (d->variants[v].is_auto)
        report_auto_kernel(rec, kernel, sizeof kernel);
    int n = snprintf(buf, len, "%s%s%s on %s (%s): %s", d->variants[v].name,
                     kernel[0] ? " \xE2\x86\x92 " : "", kernel,
                     shape->name[0] ? shape->name : "shape", shape->spec,
                     xconv_outcome_name(rec->outcome));
    if (isfinite(rec->median_ms) && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ", median %s ms (min %s, max %s), %sFLOP/s",
                      report_ms(rec->median_ms, med, sizeof med),
                      report_ms(rec->min_ms, lo, sizeof lo), report_ms(rec->max_ms, hi, sizeof hi),
                      report_rate(rec->gflops, rate, sizeof rate));
    if (isfinite(c->share) && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ", %s of the %s ms floor",
                      report_pct(c->share, pct, sizeof pct), report_ms(c->floor_ms, fl, sizeof fl));
    if (rec->note[0] && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ". %s", rec->note);
}

// The colour bar and the keys for the special cells, below the grid.
static void legend(FILE *f, const report_device *d, const grid *g, bool comparing)
{
    int x0 = PAD, y0 = g->header_h + d->nshapes * CELL_H + 30, bar_w = 240;
    const char *title = comparing ? "time against the base run (median / base median)"
                        : d->has_floor ? "share of the device's floor (higher is better)"
                                       : "time against the row's fastest (no peaks known)";
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#333333\">%s</text>\n", x0,
            y0 + 10, title);
    for (int i = 0; i < 48; i++) {
        double t = i / 47.0;
        report_rgb c = comparing ? report_color_div(2 * t - 1) : report_color_seq(t);
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"12\" "
                   "fill=\"#%02x%02x%02x\"/>",
                x0 + i * bar_w / 48.0, y0 + 16, bar_w / 48.0 + 0.6, c.r, c.g, c.b);
    }
    fputs("\n", f);
    static const char *const share_ticks[] = {"0.1%", "1%", "10%", "100%"};
    static const char *const rel_ticks[] = {"32x", "16x", "8x", "4x", "2x", "best"};
    static const char *const cmp_ticks[] = {"0.5x", "0.7x", "1x", "1.4x", "2x"};
    const char *const *ticks = comparing ? cmp_ticks : d->has_floor ? share_ticks : rel_ticks;
    int nticks = comparing ? 5 : d->has_floor ? 4 : 6;
    for (int i = 0; i < nticks; i++) {
        double x = x0 + bar_w * (double)i / (nticks - 1);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333333\"/>"
                   "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>\n",
                x, y0 + 28, x, y0 + 32, x, y0 + 44, ticks[i]);
    }
    // Keys.
    int kx = x0 + bar_w + 30, ky = y0 + 16;
    struct {
        report_rgb fill;
        const char *word, *ink;
    } keys[] = {
        {{0xf4, 0xc7, 0xc3}, "FAIL", "#8b0000"},
        {{0xf6, 0xd9, 0xa8}, "error", "#7a4a00"},
        {{0xea, 0xea, 0xea}, "n/a", "#777777"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        int x = kx + (int)i * 50;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"44\" height=\"18\" fill=\"#%02x%02x%02x\"/>"
                   "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" "
                   "fill=\"%s\">%s</text>\n",
                x, ky - 3, keys[i].fill.r, keys[i].fill.g, keys[i].fill.b, x + 22, ky + 10,
                keys[i].ink, keys[i].word);
    }
    int wx = kx + 156;
    if (comparing) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#333333\">\xE2\x96\xB2 slower "
                   "beyond noise, \xE2\x96\xBC faster beyond noise</text>\n", wx, ky + 10);
        return;
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"18\" height=\"18\" fill=\"none\" "
               "stroke=\"#111111\" stroke-width=\"2.5\"/><text x=\"%d\" y=\"%d\" font-size=\"10\">"
               "fastest</text>\n", wx, ky - 3, wx + 24, ky + 10);
    fprintf(f, "<path d=\"M %d %d h 9 v 9 z\" fill=\"#111111\"/><text x=\"%d\" y=\"%d\" "
               "font-size=\"10\">auto's pick</text>\n", wx + 78, ky - 3, wx + 92, ky + 10);
}

// ---------------------------------------------------------------------------------------------
// The pictures

void report_heatmap_svg(FILE *f, const xconv_report *r, const report_device *d, bool standalone)
{
    grid g = measure(r, d);
    open_svg(f, &g, "Heatmap of variants by shapes", d, standalone);
    labels(f, r, d, &g);
    char hover[1200], l1[48], l2[48];
    for (int s = 0; s < d->nshapes; s++) {
        int y = g.header_h + s * CELL_H;
        for (int v = 0; v < d->nvariants; v++) {
            const report_cell *c = report_at(d, s, v);
            int x = column_x(&g, v);
            double heat = report_cell_heat(d, c);
            report_rgb fill;
            const char *ink, *word;
            bool winner = d->winner[s] == v;
            if (!c->m)
                snprintf(hover, sizeof hover, "%s: not run on this shape", d->variants[v].name);
            else
                hover_text(r, d, s, v, c, hover, sizeof hover);
            if (isfinite(heat)) {
                fill = report_color_seq(heat);
                ink = report_color_light(fill) ? "#111111" : "#ffffff";
                report_ms(c->m->rec.median_ms, l1, sizeof l1);
                if (d->has_floor)
                    report_pct(c->share, l2, sizeof l2);
                else if (winner)
                    snprintf(l2, sizeof l2, "fastest");
                else
                    snprintf(l2, sizeof l2, "%.2fx", c->rel);
                cell_box(f, &g, x, y, fill, hover, l1, l2, winner, ink);
            } else {
                plain_cell(c->m, &fill, &ink, &word);
                cell_box(f, &g, x, y, fill, hover, word, NULL, false, ink);
            }
            if (winner)
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" "
                           "stroke=\"#111111\" stroke-width=\"2.5\"/>\n",
                        x + 1.5, y + 1.5, g.cell_w - 3, CELL_H - 3);
            if (c->m && c->m->auto_pick == 1)
                fprintf(f, "<path d=\"M %d %d h 10 v 10 z\" fill=\"#111111\"/>\n",
                        x + g.cell_w - 11, y + 1);
        }
    }
    legend(f, d, &g, false);
    fputs("</svg>\n", f);
}

void report_compare_svg(FILE *f, const xconv_report *r, const report_device *d, bool standalone)
{
    grid g = measure(r, d);
    open_svg(f, &g, "Comparison with the base run", d, standalone);
    labels(f, r, d, &g);
    char hover[1400], l1[48], l2[64], a[32], b[32], c1[32], c2[32];
    for (int s = 0; s < d->nshapes; s++) {
        int y = g.header_h + s * CELL_H;
        for (int v = 0; v < d->nvariants; v++) {
            const report_cell *c = report_at(d, s, v);
            int x = column_x(&g, v);
            report_rgb fill = {0xfa, 0xfa, 0xfa};
            const char *ink = "#111111";
            l2[0] = '\0';
            if (!c->m || !c->base) {
                snprintf(l1, sizeof l1, "%s", c->m ? "new" : "not run");
                ink = "#888888";
                snprintf(hover, sizeof hover, "%s: %s", d->variants[v].name,
                         c->m ? "not in the base run" : "not in this run");
            } else {
                const xconv_record *now = &c->m->rec, *then = &c->base->rec;
                snprintf(hover, sizeof hover,
                         "%s: now %s, median %s ms (min %s, max %s); base %s, median %s ms "
                         "(min %s, max %s)",
                         d->variants[v].name, xconv_outcome_name(now->outcome),
                         report_ms(now->median_ms, a, sizeof a),
                         report_ms(now->min_ms, b, sizeof b),
                         report_ms(now->max_ms, c1, sizeof c1), xconv_outcome_name(then->outcome),
                         report_ms(then->median_ms, c2, sizeof c2),
                         report_ms(then->min_ms, l2, sizeof l2),
                         report_ms(then->max_ms, l1, sizeof l1));
                l2[0] = '\0';
                if (c->verdict == VERDICT_BROKE || c->verdict == VERDICT_FIXED) {
                    bool broke = c->verdict == VERDICT_BROKE;
                    fill = broke ? (report_rgb){0xb2, 0x18, 0x2b} : (report_rgb){0x21, 0x66, 0xac};
                    ink = "#ffffff";
                    snprintf(l1, sizeof l1, "now %s",
                             broke ? xconv_outcome_name(now->outcome) : "passes");
                } else if (isfinite(c->ratio)) {
                    double t = log2(c->ratio);
                    t = t < -1 ? -1 : t > 1 ? 1 : t;
                    bool flagged = c->verdict == VERDICT_SLOWER || c->verdict == VERDICT_FASTER;
                    fill = report_color_div(flagged ? t : t * 0.35);
                    ink = report_color_light(fill) ? "#111111" : "#ffffff";
                    snprintf(l1, sizeof l1, "%s%.2fx",
                             c->verdict == VERDICT_SLOWER   ? "\xE2\x96\xB2 "
                             : c->verdict == VERDICT_FASTER ? "\xE2\x96\xBC "
                                                            : "",
                             c->ratio);
                    snprintf(l2, sizeof l2, "%s ms", report_ms(now->median_ms, a, sizeof a));
                } else {
                    plain_cell(c->m, &fill, &ink, &(const char *){NULL});
                    snprintf(l1, sizeof l1, "%s", xconv_outcome_name(now->outcome));
                }
            }
            cell_box(f, &g, x, y, fill, hover, l1, l2, c->verdict == VERDICT_SLOWER ||
                                                       c->verdict == VERDICT_BROKE, ink);
        }
    }
    legend(f, d, &g, true);
    fputs("</svg>\n", f);
}
