// SPDX-License-Identifier: MIT
// The roofline of a device: arithmetic intensity against achieved GFLOP/s on log-log axes, the
// device's two ceilings, and every variant's point per shape.
#include <math.h>
#include <string.h>

#include "report.h"

#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

// The plot's frame and its axes' decades.
typedef struct frame {
    int width, height;
    double left, right, top, bottom;  // the plot area in pixels
    double x_lo, x_hi, y_lo, y_hi;    // log10 of the axis ends
} frame;

// Returns the x pixel of arithmetic intensity ai.
static double sx(const frame *fr, double ai)
{
    return fr->left + (log10(ai) - fr->x_lo) / (fr->x_hi - fr->x_lo) * (fr->right - fr->left);
}

// Returns the y pixel of a rate in GFLOP/s.
static double sy(const frame *fr, double gflops)
{
    return fr->bottom -
           (log10(gflops) - fr->y_lo) / (fr->y_hi - fr->y_lo) * (fr->bottom - fr->top);
}

// Returns true when cell c is a point of the roofline: a timed pass of a convolution.
static bool is_point(const report_shape *shape, const report_cell *c)
{
    return c->m && c->m->rec.outcome == XCONV_OUTCOME_PASS && isfinite(c->m->rec.gflops) &&
           c->m->rec.gflops > 0 && shape->flops > 0 && shape->bytes > 0;
}

// Steps (*s, *v) to d's next point of the roofline, variant by variant within a shape (start at
// 0, -1); returns false after the last.
static bool next_point(const xconv_report *r, const report_device *d, int *s, int *v)
{
    for (; *s < d->nshapes; (*s)++, *v = -1)
        while (++*v < d->nvariants)
            if (is_point(&r->shapes[d->shapes[*s]], report_at(d, *s, *v)))
                return true;
    return false;
}

// Fits the axes to d's points and ceilings; returns the number of points.
static int fit(const xconv_report *r, const report_device *d, frame *fr)
{
    double ai_min = INFINITY, ai_max = 0, g_min = INFINITY, g_max = 0;
    int points = 0;
    for (int s = 0, v = -1; next_point(r, d, &s, &v); points++) {
        const report_shape *shape = &r->shapes[d->shapes[s]];
        double ai = shape->flops / shape->bytes, g = report_at(d, s, v)->m->rec.gflops;
        ai_min = fmin(ai_min, ai);
        ai_max = fmax(ai_max, ai);
        g_min = fmin(g_min, g);
        g_max = fmax(g_max, g);
    }
    if (d->peak_gflops > 0 && d->peak_gbps > 0) {
        double ridge = d->peak_gflops / d->peak_gbps;
        ai_min = fmin(ai_min, ridge);
        ai_max = fmax(ai_max, ridge);
        g_max = fmax(g_max, d->peak_gflops);
        g_min = fmin(g_min, d->peak_gflops);
    }
    if (!(ai_max > 0)) {
        ai_min = 1;
        ai_max = 100;
        g_min = 1;
        g_max = 1000;
    }
    fr->x_lo = floor(log10(ai_min));
    fr->x_hi = ceil(log10(ai_max) + 1e-9);
    fr->y_lo = floor(log10(g_min));
    fr->y_hi = ceil(log10(g_max * 1.15));
    if (fr->x_hi - fr->x_lo < 2)
        fr->x_hi = fr->x_lo + 2;
    if (fr->y_hi - fr->y_lo < 2)
        fr->y_lo = fr->y_hi - 2;
    return points;
}

// Formats 10^e as an axis label ("0.01", "1", "100", "10k", "1M").
static void decade_label(int e, const char *unit, char *buf, size_t len)
{
    static const char *const big[] = {"1", "10", "100", "1k", "10k", "100k", "1M", "10M",
                                      "100M", "1G", "10G"};
    if (e >= 0 && e <= 10)
        snprintf(buf, len, "%s%s", big[e], unit);
    else if (e < 0)
        snprintf(buf, len, "%.*f%s", -e, pow(10, e), unit);
    else
        snprintf(buf, len, "1e%d%s", e, unit);
}

// The grid, the decade ticks and the axis titles.
static void axes(FILE *f, const frame *fr)
{
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fcfcfc\" "
               "stroke=\"#999999\"/>\n",
            fr->left, fr->top, fr->right - fr->left, fr->bottom - fr->top);
    char buf[32];
    for (int e = (int)fr->x_lo; e <= (int)fr->x_hi; e++) {
        for (int m = 1; m < 10 && e + log10(m) <= fr->x_hi + 1e-9; m++) {
            double x = sx(fr, m * pow(10, e));
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                    x, fr->top, x, fr->bottom, m == 1 ? "#d0d0d0" : "#eeeeee");
        }
        decade_label(e, "", buf, sizeof buf);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%s"
                   "</text>\n", sx(fr, pow(10, e)), fr->bottom + 16, buf);
    }
    for (int e = (int)fr->y_lo; e <= (int)fr->y_hi; e++) {
        for (int m = 1; m < 10 && e + log10(m) <= fr->y_hi + 1e-9; m++) {
            double y = sy(fr, m * pow(10, e));
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                    fr->left, y, fr->right, y, m == 1 ? "#d0d0d0" : "#eeeeee");
        }
        report_rate(pow(10, e), buf, sizeof buf);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n",
                fr->left - 6, sy(fr, pow(10, e)) + 4, buf);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">arithmetic "
               "intensity (FLOP per byte of the minimum traffic)</text>\n",
            (fr->left + fr->right) / 2, fr->height - 10);
    fprintf(f, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
               "transform=\"rotate(-90 16 %.1f)\">achieved FLOP/s (median run)</text>\n",
            (fr->top + fr->bottom) / 2, (fr->top + fr->bottom) / 2);
}

// The two ceilings: memory bandwidth up to the ridge, fp32 peak after it.
static void ceilings(FILE *f, const frame *fr, const report_device *d)
{
    double gbps = d->peak_gbps, peak = d->peak_gflops, ridge = peak / gbps;
    double x0 = fmax(pow(10, fr->x_lo), pow(10, fr->y_lo) / gbps);
    fprintf(f, "<polyline fill=\"none\" stroke=\"#222222\" stroke-width=\"2\" "
               "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
            sx(fr, x0), sy(fr, x0 * gbps), sx(fr, ridge), sy(fr, peak), fr->right, sy(fr, peak));
    char a[32], b[32];
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
               "fill=\"#222222\">fp32 peak %sFLOP/s</text>\n",
            fr->right - 6, sy(fr, peak) - 6, report_rate(peak, a, sizeof a));
    // The bandwidth label sits on the slope, a third of the way to the ridge.
    double xa = sx(fr, x0), ya = sy(fr, x0 * gbps), xb = sx(fr, ridge), yb = sy(fr, peak);
    double angle = atan2(yb - ya, xb - xa) * 180 / M_PI;
    double lx = xa + (xb - xa) * 0.35, ly = ya + (yb - ya) * 0.35;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#222222\" "
               "transform=\"rotate(%.1f %.1f %.1f)\">memory %sB/s</text>\n",
            lx, ly - 6, angle, lx, ly - 6, report_rate(gbps, b, sizeof b));
}

// One point: a circle for our variants, a diamond for vendor-backed ones; winners outlined.
static void point(FILE *f, double x, double y, report_rgb c, bool peer, bool winner)
{
    const char *stroke = winner ? "#000000" : "#ffffff";
    double w = winner ? 1.6 : 0.8;
    if (peer)
        fprintf(f, "<path d=\"M %.1f %.1f l 5.5 5.5 l -5.5 5.5 l -5.5 -5.5 z\" "
                   "fill=\"#%02x%02x%02x\" stroke=\"%s\" stroke-width=\"%.1f\"/>",
                x, y - 5.5, c.r, c.g, c.b, stroke, w);
    else
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#%02x%02x%02x\" "
                   "stroke=\"%s\" stroke-width=\"%.1f\"/>",
                x, y, winner ? 5.5 : 4.5, c.r, c.g, c.b, stroke, w);
}

void report_roofline_svg(FILE *f, const xconv_report *r, const report_device *d, bool standalone)
{
    frame fr = {.width = 860, .height = 480, .left = 78, .top = 20};
    int legend_h = 8 + d->nvariants * 17 + 8 + 14 + 12;  // the markers, then two lines of text
    if (fr.top + legend_h > fr.height)
        fr.height = (int)fr.top + legend_h;
    fr.right = fr.width - 250;
    fr.bottom = fr.height - 48;
    int points = fit(r, d, &fr);
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"" FONT "\" font-size=\"12\" role=\"img\" "
               "aria-label=\"Roofline on ",
            fr.width, fr.height, fr.width, fr.height);
    report_xml(f, d->label);
    fprintf(f, "\">\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", fr.width, fr.height);
    axes(f, &fr);
    bool peaks = d->peak_gflops > 0 && d->peak_gbps > 0;
    if (peaks)
        ceilings(f, &fr, d);
    char hover[600], rate[32], pct[32], ms[32];
    for (int s = 0, v = -1; next_point(r, d, &s, &v);) {
        const report_shape *shape = &r->shapes[d->shapes[s]];
        const report_cell *c = report_at(d, s, v);
        double x = sx(&fr, shape->flops / shape->bytes), y = sy(&fr, c->m->rec.gflops);
        snprintf(hover, sizeof hover, "%s on #%d %s: %sFLOP/s, %s ms%s%s%s",
                 d->variants[v].name, s + 1, shape->name[0] ? shape->name : shape->spec,
                 report_rate(c->m->rec.gflops, rate, sizeof rate),
                 report_ms(c->m->rec.median_ms, ms, sizeof ms),
                 isfinite(c->share) ? ", " : "",
                 isfinite(c->share) ? report_pct(c->share, pct, sizeof pct) : "",
                 isfinite(c->share) ? " of the floor" : "");
        fputs("<g><title>", f);
        report_xml(f, hover);
        fputs("</title>", f);
        point(f, x, y, report_color_variant(d, v), d->variants[v].peer, d->winner[s] == v);
        fputs("</g>\n", f);
        if (d->winner[s] == v)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"#444444\">#%d"
                       "</text>\n", x + 7, y + 3, s + 1);
    }
    if (!points)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#666666\">no "
                   "timed convolution passed on this device</text>\n",
                (fr.left + fr.right) / 2, (fr.top + fr.bottom) / 2);
    // The legend: one marker a variant, then what the lines are.
    double lx = fr.right + 18, ly = fr.top + 8;
    for (int v = 0; v < d->nvariants; v++, ly += 17) {
        point(f, lx + 6, ly, report_color_variant(d, v), d->variants[v].peer, false);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", lx + 18, ly + 4);
        report_xml(f, d->variants[v].name);
        fputs("</text>\n", f);
    }
    ly += 8;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555555\">outlined: fastest "
               "on its shape (#n)</text>\n", lx, ly);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555555\">", lx, ly + 14);
    if (peaks) {
        fputs("ceilings: peaks from ", f);
        report_xml(f, d->peaks_source);
    } else {
        fputs("no ceilings: peaks unknown", f);
    }
    fputs("</text>\n</svg>\n", f);
}
