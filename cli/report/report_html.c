// SPDX-License-Identifier: MIT
// The report page: one self-contained XHTML file (inline CSS and SVG, no script, no network)
// with the devices' heatmaps, rooflines and winners, the view across devices, network totals
// and the comparison with a base run; and the pictures alone as SVG files.
#include <math.h>
#include <string.h>

#include "report.h"

#define TIMES "\xC3\x97"  // multiplication sign
#define DASH "\xE2\x80\x93"
#define ARROW "\xE2\x86\x92"  // rightwards arrow: auto -> the kernel it ran

// ---------------------------------------------------------------------------------------------
// The page's frame

static const char style[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:0;color:#1d1d1f;"
    "background:#f4f5f7;font-size:14px;line-height:1.45}\n"
    "header{background:#1f2a44;color:#ffffff;padding:22px 32px 18px}\n"
    "header h1{margin:0 0 6px;font-size:24px;font-weight:600}\n"
    "header p{margin:2px 0;color:#c9d2e3;font-size:13px}\n"
    "nav{background:#ffffff;border-bottom:1px solid #d9dce1;padding:8px 32px}\n"
    "nav a{color:#1f4e99;text-decoration:none;margin-right:18px;font-size:13px}\n"
    "main{padding:8px 32px 32px}\n"
    "section{background:#ffffff;border:1px solid #dde0e5;border-radius:6px;margin:18px 0;"
    "padding:14px 22px 18px}\n"
    "h2{font-size:19px;margin:4px 0 4px;font-weight:600}\n"
    "h3{font-size:15px;margin:18px 0 6px;font-weight:600;color:#333333}\n"
    "p.facts{color:#555555;margin:0 0 6px;font-size:13px}\n"
    "p.note{color:#555555;font-size:12.5px;max-width:980px;margin:4px 0 0}\n"
    ".fig{overflow-x:auto}\n"
    ".fig svg{max-width:100%;height:auto}\n"
    "table{border-collapse:collapse;font-size:13px;margin:4px 0}\n"
    "th{text-align:left;background:#eef0f4;padding:5px 10px;border-bottom:1px solid #ccd0d7;"
    "font-weight:600}\n"
    "td{padding:4px 10px;border-bottom:1px solid #eceef1;vertical-align:top}\n"
    "tr:nth-child(even) td{background:#fafbfc}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.best{font-weight:700}\n"
    "span.spec{color:#777777;font-size:11.5px}\n"
    "span.bad{color:#b2182b;font-weight:700}\n"
    "span.good{color:#2166ac;font-weight:700}\n"
    "span.muted{color:#888888}\n"
    "div.verdict{font-size:16px;margin:6px 0 10px}\n"
    "footer{color:#777777;font-size:12px;padding:0 32px 24px}\n";

// Writes the text of an element: <tag attrs>escaped text</tag>.
static void element(FILE *f, const char *tag, const char *attrs, const char *text)
{
    fprintf(f, "<%s%s%s>", tag, attrs ? " " : "", attrs ? attrs : "");
    report_xml(f, text);
    fprintf(f, "</%s>", tag);
}

// Returns the base name of path.
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// The document head, the style, the header naming the files and the navigation.
static void head(FILE *f, const xconv_report *r)
{
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\"/>\n", f);
    if (r->ndevices)
        fprintf(f, "<title>xconv %s: %d device%s, %d shape%s</title>\n",
                r->base ? "comparison" : "report", r->ndevices, r->ndevices == 1 ? "" : "s",
                r->nshapes, r->nshapes == 1 ? "" : "s");
    else
        fprintf(f, "<title>xconv %s report</title>\n", r->nbehaviour ? "behaviour" : "vendors");
    fprintf(f, "<style>\n%s</style>\n</head>\n<body>\n", style);
    fprintf(f, "<header>\n<h1>xconv %s</h1>\n",
            r->base ? "comparison with a base run"
                    : r->ndevices ? "performance report"
                    : r->nbehaviour ? "behaviour report" : "vendors' compilers report");
    for (int i = 0; i < r->nruns; i++) {
        const xconv_run_info *in = &r->runs[i].info;
        fputs("<p>", f);
        report_xml(f, base_name(r->files[i]));
        fputs(": ", f);
        report_xml(f, in->date[0] ? in->date : "undated");
        fputs(", commit ", f);
        report_xml(f, in->commit[0] ? in->commit : "unknown");
        if (r->runs[i].host[0]) {
            fputs(", host ", f);
            report_xml(f, r->runs[i].host);
        }
        fprintf(f, ", %d records</p>\n", r->runs[i].count);
    }
    if (r->base) {
        fputs("<p>base: ", f);
        report_xml(f, base_name(r->base_file));
        fputs(": ", f);
        report_xml(f, r->base->info.date);
        fputs(", commit ", f);
        report_xml(f, r->base->info.commit);
        fprintf(f, ", %d records</p>\n", r->base->count);
    }
    report_behaviour_header(f, r);
    fputs("</header>\n<nav>", f);
    if (r->base)
        fputs("<a href=\"#compare\">Regressions</a>", f);
    if (r->ndevices > 1)
        fputs("<a href=\"#across\">Across devices</a>", f);
    if (r->nnetworks)
        fputs("<a href=\"#networks\">Networks</a>", f);
    for (int i = 0; i < r->ndevices; i++) {
        fprintf(f, "<a href=\"#%s\">", r->devices[i].slug);
        report_xml(f, r->devices[i].label);
        fputs("</a>", f);
    }
    report_behaviour_nav(f, r);
    report_vendors_nav(f, r);
    fputs("<a href=\"#reading\">How to read</a></nav>\n<main>\n", f);
}

// ---------------------------------------------------------------------------------------------
// Tables

// Writes "variant ×ratio" for variant v of row s against the row's winner, or a dash.
static void versus(FILE *f, const report_device *d, int s, int v)
{
    if (v < 0) {
        fputs("<span class=\"muted\">" DASH "</span>", f);
        return;
    }
    const report_cell *c = report_at(d, s, v);
    report_xml(f, d->variants[v].name);
    char kernel[64];
    if (d->variants[v].is_auto && report_auto_kernel(&c->m->rec, kernel, sizeof kernel)[0]) {
        fputs(" " ARROW " ", f);
        report_xml(f, kernel);
    }
    if (v == d->winner[s])
        fputs(" <span class=\"muted\">(fastest)</span>", f);
    else
        fprintf(f, " " TIMES "%.2f", c->rel);
}

// Returns the fastest passing variant of row s among peers (peer true) or ours, other than
// `skip`; -1 when none.
static int fastest(const report_device *d, int s, int peer, int skip)
{
    int best = -1;
    for (int v = 0; v < d->nvariants; v++) {
        const report_cell *c = report_at(d, s, v);
        if (v == skip || !isfinite(c->rel) || d->variants[v].is_auto ||
            (peer >= 0 && d->variants[v].peer != (peer == 1)))
            continue;
        if (best < 0 || c->rel < report_at(d, s, best)->rel)
            best = v;
    }
    return best;
}

// The winners' table of device d.
static void winners(FILE *f, const xconv_report *r, const report_device *d)
{
    bool picks = false;
    int auto_row = -1;  // the variant "auto", when the run timed it
    for (int k = 0; k < d->nshapes * d->nvariants; k++)
        picks |= d->cells[k].m && d->cells[k].m->auto_pick >= 0;
    for (int v = 0; v < d->nvariants; v++)
        if (d->variants[v].is_auto)
            auto_row = v;
    picks = picks || auto_row >= 0;
    fputs("<table>\n<tr><th>#</th><th>shape</th><th>fastest</th><th>median</th>", f);
    if (d->has_floor)
        fputs("<th>of floor</th>", f);
    fputs("<th>FLOP/s</th><th>runner-up</th><th>best xconv kernel</th><th>best vendor "
          "library</th>", f);
    if (picks)
        fputs("<th>auto picks</th>", f);
    fputs("</tr>\n", f);
    char a[32];
    for (int s = 0; s < d->nshapes; s++) {
        const report_shape *shape = &r->shapes[d->shapes[s]];
        int w = d->winner[s];
        fprintf(f, "<tr><td class=\"num\">%d</td><td>", s + 1);
        report_xml(f, shape->name[0] ? shape->name : "");
        fputs(shape->name[0] ? "<br/><span class=\"spec\">" : "<span class=\"spec\">", f);
        report_xml(f, shape->spec);
        fputs("</span></td>", f);
        if (w < 0) {
            fprintf(f, "<td colspan=\"%d\"><span class=\"bad\">no variant passed with a time"
                       "</span></td></tr>\n", 6 + d->has_floor + picks);
            continue;
        }
        const report_cell *c = report_at(d, s, w);
        fputs("<td>", f);
        report_xml(f, d->variants[w].name);
        fprintf(f, "</td><td class=\"num\">%s ms</td>",
                report_ms(c->m->rec.median_ms, a, sizeof a));
        if (d->has_floor)
            fprintf(f, "<td class=\"num\">%s</td>", report_pct(c->share, a, sizeof a));
        fprintf(f, "<td class=\"num\">%s</td><td>", report_rate(c->m->rec.gflops, a, sizeof a));
        versus(f, d, s, fastest(d, s, -1, w));
        fputs("</td><td>", f);
        versus(f, d, s, fastest(d, s, 0, -1));
        fputs("</td><td>", f);
        versus(f, d, s, fastest(d, s, 1, -1));
        fputs("</td>", f);
        if (picks) {
            int pick = auto_row >= 0 && report_at(d, s, auto_row)->m ? auto_row : -1;
            for (int v = 0; pick < 0 && v < d->nvariants; v++)
                if (report_at(d, s, v)->m && report_at(d, s, v)->m->auto_pick == 1)
                    pick = v;
            fputs("<td>", f);
            versus(f, d, s, pick >= 0 && isfinite(report_at(d, s, pick)->rel) ? pick : -1);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

// The header cells of a table with a column per device, after its first, and the row's end.
static void device_headers(FILE *f, const xconv_report *r)
{
    for (int i = 0; i < r->ndevices; i++)
        element(f, "th", NULL, r->devices[i].label);
    fputs("</tr>\n", f);
}

// The same shape's best variant and time on every device, side by side.
static void across(FILE *f, const xconv_report *r)
{
    fputs("<section id=\"across\">\n<h2>Across devices</h2>\n<p class=\"note\">Each shape's "
          "fastest passing variant on each device and its median time; the fastest device is in "
          "bold, the others show how many times slower they are.</p>\n<div class=\"fig\">"
          "<table>\n<tr><th>shape</th>", f);
    device_headers(f, r);
    char a[32];
    for (int k = 0; k < r->nshapes; k++) {
        double best = INFINITY;
        for (int i = 0; i < r->ndevices; i++) {
            const report_device *d = &r->devices[i];
            for (int s = 0; s < d->nshapes; s++)
                if (d->shapes[s] == k && d->winner[s] >= 0)
                    best = fmin(best, report_at(d, s, d->winner[s])->m->rec.median_ms);
        }
        const report_shape *shape = &r->shapes[k];
        fputs("<tr><td>", f);
        report_xml(f, shape->name[0] ? shape->name : shape->spec);
        fputs("</td>", f);
        for (int i = 0; i < r->ndevices; i++) {
            const report_device *d = &r->devices[i];
            int row = -1;
            for (int s = 0; s < d->nshapes; s++)
                row = d->shapes[s] == k ? s : row;
            if (row < 0) {
                fputs("<td><span class=\"muted\">not run</span></td>", f);
                continue;
            }
            if (d->winner[row] < 0) {
                fputs("<td><span class=\"bad\">none passed</span></td>", f);
                continue;
            }
            double ms = report_at(d, row, d->winner[row])->m->rec.median_ms;
            fprintf(f, "<td class=\"num%s\">", ms == best ? " best" : "");
            report_xml(f, d->variants[d->winner[row]].name);
            fprintf(f, "<br/>%s ms", report_ms(ms, a, sizeof a));
            if (ms != best)
                fprintf(f, " <span class=\"muted\">" TIMES "%.2f</span>", ms / best);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n</section>\n", f);
}

// Each network's time per device: its layers' best times weighted by how often they occur.
static void networks(FILE *f, const xconv_report *r)
{
    fputs("<section id=\"networks\">\n<h2>Networks</h2>\n<p class=\"note\">A network's time is "
          "the sum over its layers of the layer's weight (how often it occurs) times its median "
          "time: with the fastest variant of each layer, and with the one variant that is "
          "fastest over the whole network when run alone.</p>\n<div class=\"fig\"><table>\n"
          "<tr><th>network</th>", f);
    device_headers(f, r);
    char a[32];
    for (int k = 0; k < r->nnetworks; k++) {
        const report_network *n = &r->networks[k];
        fputs("<tr><td>", f);
        report_xml(f, n->name);
        fprintf(f, "<br/><span class=\"spec\">%d shapes, %g layers</span></td>", n->nlayers,
                n->layers);
        for (int i = 0; i < r->ndevices; i++) {
            if (n->ran[i] == 0) {
                fputs("<td><span class=\"muted\">not run</span></td>", f);
                continue;
            }
            if (n->covered[i] < n->nlayers) {
                fprintf(f, "<td><span class=\"muted\">%d of %d shapes passed</span></td>",
                        n->covered[i], n->nlayers);
                continue;
            }
            fprintf(f, "<td class=\"num\">%s ms <span class=\"muted\">best per layer</span>",
                    report_ms(n->best_ms[i], a, sizeof a));
            if (isfinite(n->single_ms[i])) {
                fprintf(f, "<br/>%s ms ", report_ms(n->single_ms[i], a, sizeof a));
                report_xml(f, n->single[i]);
                fputs(" alone", f);
            }
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n</section>\n", f);
}

// ---------------------------------------------------------------------------------------------
// Comparison

// Returns how the page words a flagged verdict.
static const char *verdict_word(int verdict)
{
    switch (verdict) {
    case VERDICT_SLOWER: return "slower";
    case VERDICT_BROKE: return "no longer passes";
    case VERDICT_FASTER: return "faster";
    case VERDICT_FIXED: return "passes now";
    default: return "";
    }
}

// Writes a cell with a record's min-max time, or its outcome when it did not pass.
static void range(FILE *f, const xconv_record *rec)
{
    char a[32], b[32];
    if (rec->outcome != XCONV_OUTCOME_PASS)
        fprintf(f, "<td>%s</td>", xconv_outcome_name(rec->outcome));
    else
        fprintf(f, "<td class=\"num\">%s" DASH "%s ms</td>", report_ms(rec->min_ms, a, sizeof a),
                report_ms(rec->max_ms, b, sizeof b));
}

// The summary and the list of every flagged cell.
static void compare_summary(FILE *f, const xconv_report *r)
{
    fputs("<section id=\"compare\">\n<h2>Against the base run</h2>\n<div class=\"verdict\">", f);
    if (r->regressions)
        fprintf(f, "<span class=\"bad\">%d regression%s</span>", r->regressions,
                r->regressions == 1 ? "" : "s");
    else
        fputs("<span class=\"good\">no regressions</span>", f);
    fprintf(f, ", %d improvement%s beyond noise, in %d cells found in both runs.</div>\n",
            r->improvements, r->improvements == 1 ? "" : "s", r->compared);
    fprintf(f, "<p class=\"note\">A cell regresses when this run's fastest time (its min) is "
               "more than %.0f%% above the base run's slowest (its max), or when it passed in the "
               "base and fails, errs or no longer applies now; it improved when this run's "
               "slowest time is more than %.0f%% below the base's fastest, or it passes now and "
               "did not. Ratios are "
               "median over base median.</p>\n",
            r->margin * 100, r->margin * 100);
    if (!r->regressions && !r->improvements) {
        fputs("</section>\n", f);
        return;
    }
    fputs("<table>\n<tr><th>device</th><th>shape</th><th>variant</th><th>verdict</th>"
          "<th>ratio</th><th>now min" DASH "max</th><th>base min" DASH "max</th></tr>\n", f);
    for (int i = 0; i < r->ndevices; i++) {
        const report_device *d = &r->devices[i];
        for (int s = 0; s < d->nshapes; s++) {
            for (int v = 0; v < d->nvariants; v++) {
                const report_cell *c = report_at(d, s, v);
                if (c->verdict < VERDICT_FASTER)
                    continue;
                bool bad = c->verdict == VERDICT_SLOWER || c->verdict == VERDICT_BROKE;
                const report_shape *shape = &r->shapes[d->shapes[s]];
                fputs("<tr><td>", f);
                report_xml(f, d->label);
                fputs("</td><td>", f);
                report_xml(f, shape->name[0] ? shape->name : shape->spec);
                fputs("</td><td>", f);
                report_xml(f, d->variants[v].name);
                fprintf(f, "</td><td><span class=\"%s\">%s</span></td><td class=\"num\">",
                        bad ? "bad" : "good", verdict_word(c->verdict));
                if (isfinite(c->ratio))
                    fprintf(f, TIMES "%.2f", c->ratio);
                fputs("</td>", f);
                range(f, &c->m->rec);
                range(f, &c->base->rec);
                fputs("</tr>\n", f);
            }
        }
    }
    fputs("</table>\n</section>\n", f);
}

// ---------------------------------------------------------------------------------------------
// A device

// One device: its facts, heatmap, roofline, winners and (comparing) its ratios.
static void device_section(FILE *f, const xconv_report *r, const report_device *d)
{
    const xconv_matrix_device *dev = d->dev;
    fprintf(f, "<section id=\"%s\">\n", d->slug);
    element(f, "h2", NULL, d->label);
    fputs("\n<p class=\"facts\">", f);
    report_xml(f, dev->id);
    if (dev->driver[0]) {
        fputs(" \xC2\xB7 driver ", f);
        report_xml(f, dev->driver);
    }
    if (dev->compute_units)
        fprintf(f, " \xC2\xB7 %d compute units", dev->compute_units);
    if (dev->clock_mhz)
        fprintf(f, " \xC2\xB7 %d MHz", dev->clock_mhz);
    char a[32], b[32];
    if (d->peak_gflops > 0)
        fprintf(f, " \xC2\xB7 peaks %sFLOP/s fp32, %sB/s (", report_rate(d->peak_gflops, a, 32),
                report_rate(d->peak_gbps, b, 32));
    if (d->peak_gflops > 0) {
        report_xml(f, d->peaks_source);
        fputs(")", f);
    } else {
        fputs(" \xC2\xB7 peaks unknown", f);
    }
    fputs(" \xC2\xB7 ", f);
    report_xml(f, base_name(d->file));
    if (d->nfiles > 1)
        fprintf(f, " and %d more file%s", d->nfiles - 1, d->nfiles > 2 ? "s" : "");
    fprintf(f, " \xC2\xB7 %d variants, %d shapes</p>\n", d->nvariants, d->nshapes);
    fputs("<h3>Heatmap</h3>\n<div class=\"fig\">\n", f);
    report_heatmap_svg(f, r, d, false);
    fputs("</div>\n<p class=\"note\">Each cell is a variant's median time in ms on a shape. ", f);
    if (d->has_floor)
        fputs("The colour and the second line are its share of the floor: the time the shape "
              "needs at the device's peaks, the larger of FLOPs over fp32 throughput and minimum "
              "bytes over memory bandwidth. 100% is the device's limit for a direct count of "
              "the work; an algorithm that does fewer operations (Winograd, FFT) can pass it.",
              f);
    else
        fputs("No peaks are known for this device, so the colour and the second line are the "
              "time against the row's fastest (give xconv report --peaks to see shares of the "
              "floor).", f);
    fputs(" Hover a cell for its min, max, FLOP/s and plan.</p>\n", f);
    fputs("<h3>Roofline</h3>\n<div class=\"fig\">\n", f);
    report_roofline_svg(f, r, d, false);
    fputs("</div>\n<p class=\"note\">Every passing variant's achieved FLOP/s per shape against "
          "the shape's arithmetic intensity (FLOPs over the bytes x, w and y must move at "
          "least). The lines are the device's ceilings: memory bandwidth up to the ridge, fp32 "
          "throughput after it. A point's distance below the line is what is left to gain.</p>\n",
          f);
    fputs("<h3>Winners</h3>\n<div class=\"fig\">\n", f);
    winners(f, r, d);
    fputs("</div>\n<p class=\"note\">Ratios are times against the fastest on the shape: the "
          "runner-up, the fastest of xconv's own kernels and the fastest vendor library (cuDNN, "
          "CLBlast and the vendor GEMM paths).</p>\n", f);
    if (r->base) {
        fputs("<h3>Against the base run</h3>\n<div class=\"fig\">\n", f);
        report_compare_svg(f, r, d, false);
        fprintf(f, "</div>\n<p class=\"note\">%d cells compared: %d regressions, %d "
                   "improvements beyond noise.</p>\n",
                d->compared, d->regressions, d->improvements);
    }
    fputs("</section>\n", f);
}

// ---------------------------------------------------------------------------------------------
// The page

int xconv_report_write_html(FILE *f, const xconv_report *r)
{
    head(f, r);
    if (r->base)
        compare_summary(f, r);
    if (r->ndevices > 1)
        across(f, r);
    if (r->nnetworks)
        networks(f, r);
    for (int i = 0; i < r->ndevices; i++)
        device_section(f, r, &r->devices[i]);
    report_behaviour_sections(f, r);
    report_vendors_sections(f, r);
    fputs("<section id=\"reading\">\n<h2>How to read this report</h2>\n<p class=\"note\">Times "
          "are device time of one convolution, the median of the timed runs (min and max in "
          "the hover text); only variants whose output matched the reference are timed, and a "
          "cell that failed the check, errored or does not apply says so instead of a number. "
          "FLOP/s counts 2 FLOPs a multiply-add; the minimum traffic is x, w and y moved once. "
          "The floor and the roofline need the device's peaks: measured ones travel in matrix "
          "files; for other files xconv report --peaks DEVICE=GFLOPS,GBPS supplies them. The "
          "file formats are in docs/matrix_schema.md, the report in docs/report.md.</p>\n"
          "</section>\n</main>\n", f);
    fprintf(f, "<footer>Written by xconv %s (", XCONV_VERSION);
    report_xml(f, xconv_git_commit());
    fputs(").</footer>\n</body>\n</html>\n", f);
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// The pictures alone

// Pictures per device: heatmap and roofline, and the comparison in compare mode.
static int per_device(const xconv_report *r)
{
    return r->base ? 3 : 2;
}

int xconv_report_svg_count(const xconv_report *r)
{
    return r->ndevices * per_device(r);
}

void xconv_report_svg_name(const xconv_report *r, int index, char *buf, size_t len)
{
    static const char *const kinds[] = {"heatmap", "roofline", "compare"};
    const report_device *d = &r->devices[index / per_device(r)];
    snprintf(buf, len, "%s-%s.svg", d->slug, kinds[index % per_device(r)]);
}

int xconv_report_write_svg(FILE *f, const xconv_report *r, int index)
{
    const report_device *d = &r->devices[index / per_device(r)];
    switch (index % per_device(r)) {
    case 0: report_heatmap_svg(f, r, d, true); break;
    case 1: report_roofline_svg(f, r, d, true); break;
    default: report_compare_svg(f, r, d, true); break;
    }
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}
