// SPDX-License-Identifier: MIT
// Tests of the report's model (floors, shares, winners, the compare rule, network totals, peaks
// given on the command line) and of what its writers put on the page.
#include <math.h>

#include "check.h"
#include "../cli/report/report.h"

// ---------------------------------------------------------------------------------------------
// Building runs by hand

#define SPEC_A "n=1,c=8,h=16,w=16,k=8,r=3,pad=1"
#define SPEC_B "n=2,c=4,h=8,w=8,k=4,r=1"

typedef struct run_builder {
    xconv_run_file run;
    int cap;
} run_builder;

static void run_begin(run_builder *b, const char *device)
{
    memset(b, 0, sizeof *b);
    b->cap = 32;
    b->run.recs = calloc((size_t)b->cap, sizeof *b->run.recs);
    b->run.devices = calloc(1, sizeof *b->run.devices);
    b->run.ndevices = 1;
    snprintf(b->run.devices[0].id, sizeof b->run.devices[0].id, "%s", device);
    snprintf(b->run.devices[0].name, sizeof b->run.devices[0].name, "Test Device");
    snprintf(b->run.devices[0].backend, sizeof b->run.devices[0].backend, "opencl");
    snprintf(b->run.info.commit, sizeof b->run.info.commit, "abc");
}

// Adds a record: outcome, and min/median/max times (NAN for none).
static xconv_matrix_record *add(run_builder *b, const char *variant, const char *family,
                                const char *shape_name, const char *spec, xconv_outcome outcome,
                                double lo, double med, double hi)
{
    xconv_matrix_record *m = &b->run.recs[b->run.count++];
    memset(m, 0, sizeof *m);
    xconv_record *r = &m->rec;
    snprintf(r->device, sizeof r->device, "%s", b->run.devices[0].id);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->family, sizeof r->family, "%s", family);
    snprintf(r->shape_name, sizeof r->shape_name, "%s", shape_name);
    snprintf(r->shape, sizeof r->shape, "%s", spec);
    r->outcome = outcome;
    r->min_ms = lo;
    r->median_ms = med;
    r->max_ms = hi;
    xconv_problem p;
    xconv_shape_parse(spec, &p, NULL);
    r->gflops = isfinite(med) ? xconv_problem_flops(&p) / (med * 1e-3) * 1e-9 : NAN;
    m->rec.floor_ms = m->rec.floor_share = NAN;
    m->auto_pick = -1;
    return m;
}

// A run of one device, two shapes and four variants (one a vendor library), with a failure, a
// variant that does not apply and one that errs.
static void sample(run_builder *b, double scale)
{
    run_begin(b, "opencl:0 Test Device");
    add(b, "direct_naive", "direct", "a", SPEC_A, XCONV_OUTCOME_PASS, 0.9 * scale, scale,
        1.1 * scale);
    add(b, "direct_const", "direct", "a", SPEC_A, XCONV_OUTCOME_PASS, 0.45, 0.5, 0.55);
    add(b, "gemm_1x1", "gemm", "a", SPEC_A, XCONV_OUTCOME_NOT_APPLICABLE, NAN, NAN, NAN);
    add(b, "clblast_convgemm", "peer", "a", SPEC_A, XCONV_OUTCOME_PASS, 0.7, 0.75, 0.8);
    add(b, "direct_naive", "direct", "b", SPEC_B, XCONV_OUTCOME_PASS, 0.1, 0.2, 0.3);
    add(b, "direct_const", "direct", "b", SPEC_B, XCONV_OUTCOME_FAIL, 0.01, 0.02, 0.03);
    add(b, "gemm_1x1", "gemm", "b", SPEC_B, XCONV_OUTCOME_PASS, 0.3, 0.4, 0.5);
    add(b, "clblast_convgemm", "peer", "b", SPEC_B, XCONV_OUTCOME_ERROR, NAN, NAN, NAN);
}

static xconv_report *build(run_builder *b, const xconv_report_opts *opts,
                           const xconv_run_file *base)
{
    static const char *const files[] = {"run.json"};
    xconv_error err = {0};
    xconv_report *r = xconv_report_build(&b->run, files, 1, base, base ? "base.json" : NULL, opts,
                                         &err);
    CHECK_MSG(r != NULL, "%s", err.msg);
    return r;
}

// Returns the cell of variant name on row s of device 0.
static const report_cell *cell(const xconv_report *r, int s, const char *variant)
{
    const report_device *d = &r->devices[0];
    for (int v = 0; v < d->nvariants; v++)
        if (!strcmp(d->variants[v].name, variant))
            return report_at(d, s, v);
    return NULL;
}

// Returns what a writer put out, NUL-terminated (caller frees).
static char *capture(const xconv_report *r, int (*writer)(FILE *, const xconv_report *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && writer(f, r) == 0);
    fclose(f);
    return text;
}

// Returns true when text holds "nan" or "inf" as a word of its own (a number gone wrong).
static bool holds_nonfinite(const char *text)
{
    for (const char *p = text; *p; p++) {
        bool word_start = p == text || !((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z');
        bool nan = !strncasecmp(p, "nan", 3), inf = !strncasecmp(p, "inf", 3);
        char after = (nan || inf) ? (char)(p[3] | 32) : 'a';
        if (word_start && (nan || inf) && !(after >= 'a' && after <= 'z'))
            return true;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// Tests

static void test_peaks_parse(void)
{
    xconv_report_peaks p;
    xconv_error err = {0};
    CHECK(xconv_report_peaks_parse("h100=51200,3350", &p, &err) == XCONV_OK &&
          !strcmp(p.match, "h100") && p.gflops == 51200 && p.gbps == 3350);
    CHECK(xconv_report_peaks_parse("1e3,2.5", &p, &err) == XCONV_OK && p.match[0] == '\0' &&
          p.gflops == 1000 && p.gbps == 2.5);
    const char *bad[] = {"h100=abc", "1,2,3", "=1,2", "1", "0,5", "5,-1", "nan,1", "1,inf",
                         "h100=", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(xconv_report_peaks_parse(bad[i], &p, &err) == XCONV_ERR_PARSE, "'%s'", bad[i]);
        CHECK_CONTAINS(err.msg, "peaks");
    }
}

static void test_model(void)
{
    run_builder b;
    sample(&b, 1.0);
    xconv_report *r = build(&b, NULL, NULL);
    if (!r)
        return;
    CHECK(r->ndevices == 1 && r->nshapes == 2);
    const report_device *d = &r->devices[0];
    CHECK(d->nvariants == 4 && d->nshapes == 2);
    // Ours first in order of appearance, the vendor library last.
    CHECK(!strcmp(d->variants[3].name, "clblast_convgemm") && d->variants[3].peer);
    CHECK(!d->variants[0].peer && !strcmp(d->variants[2].name, "gemm_1x1"));
    // Winners: the fastest passing; a failing record is never one, however fast.
    CHECK(d->winner[0] == 1);                      // direct_const 0.5 ms
    CHECK(!strcmp(d->variants[d->winner[1]].name, "direct_naive"));  // not the failing 0.02
    CHECK(cell(r, 0, "direct_naive")->rel == 2.0 && cell(r, 0, "clblast_convgemm")->rel == 1.5);
    CHECK(isnan(cell(r, 1, "direct_const")->rel) && isnan(cell(r, 0, "gemm_1x1")->rel));
    // No peaks: no floors, the heat is the time against the row's best.
    CHECK(!d->has_floor && isnan(cell(r, 0, "direct_const")->share));
    CHECK(report_cell_heat(d, cell(r, 0, "direct_const")) == 1.0);
    CHECK(fabs(report_cell_heat(d, cell(r, 0, "direct_naive")) - 0.8) < 1e-12);  // 2x: 1 - 1/5
    CHECK(isnan(report_cell_heat(d, cell(r, 1, "direct_const"))));
    xconv_report_free(r);

    // Peaks from the command line (the first matching entry, case-insensitive): floors exactly.
    xconv_report_peaks peaks[2] = {{"nomatch", 1, 1, ""}, {"TEST dev", 100, 10, ""}};
    xconv_report_opts opts = {.peaks = peaks, .npeaks = 2, .margin = 0.05};
    r = build(&b, &opts, NULL);
    if (!r)
        return;
    d = &r->devices[0];
    xconv_problem p;
    xconv_shape_parse(SPEC_A, &p, NULL);
    double t_flop = xconv_problem_flops(&p) / 100e9 * 1e3;
    double t_byte = xconv_problem_min_bytes(&p) / 10e9 * 1e3;
    double floor_ms = fmax(t_flop, t_byte);
    CHECK(d->has_floor && d->peak_gflops == 100 && !strcmp(d->peaks_source, "--peaks"));
    CHECK(fabs(cell(r, 0, "direct_const")->floor_ms - floor_ms) < 1e-15);
    CHECK(fabs(cell(r, 0, "direct_const")->share - floor_ms / 0.5) < 1e-12);
    CHECK(isnan(cell(r, 1, "direct_const")->share));  // failed: no share
    xconv_report_free(r);

    // After the command line's entries (XCONV_PEAKS's, labelled): the peaks file's entry of the
    // device's identity (name, backend, driver).
    xconv_peaks_file measured = {0};
    xconv_peaks_entry e = {.fp32_gflops = 300, .gbps = 30};
    snprintf(e.name, sizeof e.name, "Test Device");
    snprintf(e.backend, sizeof e.backend, "opencl");
    xconv_error perr = {0};
    CHECK(xconv_peaks_file_put(&measured, &e, &perr) == XCONV_OK);
    xconv_report_peaks env = {"", 400, 40, "XCONV_PEAKS"};
    xconv_report_opts mopts = {.measured = &measured, .margin = 0.05};
    r = build(&b, &mopts, NULL);
    if (r) {
        CHECK(r->devices[0].peak_gflops == 300 &&
              !strcmp(r->devices[0].peaks_source, "measured (peaks file)"));
        xconv_report_free(r);
    }
    mopts.peaks = &env;
    mopts.npeaks = 1;
    r = build(&b, &mopts, NULL);
    if (r) {
        CHECK(r->devices[0].peak_gflops == 400 &&
              !strcmp(r->devices[0].peaks_source, "XCONV_PEAKS"));
        xconv_report_free(r);
    }
    snprintf(measured.entries[0].driver, sizeof measured.entries[0].driver, "other");
    mopts.npeaks = 0;
    r = build(&b, &mopts, NULL);
    if (r) {
        CHECK(r->devices[0].peak_gflops == 0);  // another driver's peaks are not this device's
        xconv_report_free(r);
    }
    xconv_peaks_file_free(&measured);

    // Peaks in the file win over the command line; a record's own floor wins over both.
    b.run.devices[0].peak_gflops = 200;
    b.run.devices[0].peak_gbps = 20;
    snprintf(b.run.devices[0].peaks_source, sizeof b.run.devices[0].peaks_source, "measured");
    b.run.recs[1].rec.floor_ms = 0.25;
    r = build(&b, &opts, NULL);
    if (r) {
        d = &r->devices[0];
        CHECK(d->peak_gflops == 200 && !strcmp(d->peaks_source, "measured"));
        CHECK(cell(r, 0, "direct_const")->share == 0.5);
        xconv_report_free(r);
    }
    // A file of no records is refused.
    b.run.count = 0;
    xconv_error err = {0};
    static const char *const files[] = {"empty.json"};
    CHECK(xconv_report_build(&b.run, files, 1, NULL, NULL, NULL, &err) == NULL);
    CHECK_CONTAINS(err.msg, "no records in empty.json");
    xconv_run_file_free(&b.run);
}

static void test_compare(void)
{
    run_builder base, run;
    sample(&base, 1.0);
    sample(&run, 1.0);
    xconv_report_opts opts = {.margin = 0.05};
    // Identical runs: every cell compared, nothing flagged.
    xconv_report *r = build(&run, &opts, &base.run);
    if (r) {
        CHECK(r->compared == 8 && r->regressions == 0 && r->improvements == 0);
        CHECK(cell(r, 0, "direct_naive")->verdict == VERDICT_SAME &&
              cell(r, 0, "direct_naive")->ratio == 1.0);
        CHECK(cell(r, 0, "gemm_1x1")->verdict == VERDICT_NONE);  // n/a both times
        xconv_report_free(r);
    }
    // The rule: slower when now.min > base.max * (1 + margin): base max is 1.1 ms.
    struct {
        double lo, med, hi;
        int verdict;
    } cases[] = {
        {1.1 * 1.05, 1.2, 1.3, VERDICT_SAME},          // exactly at the margin: noise
        {1.1 * 1.05 + 1e-9, 1.2, 1.3, VERDICT_SLOWER}, // just past it
        {1.0, 1.5, 3.0, VERDICT_SAME},                 // median slower, but the ranges overlap
        {0.5, 0.6, 0.9 / 1.05 - 1e-9, VERDICT_FASTER}, // now.max * 1.05 < base.min (0.9)
        {0.5, 0.6, 0.9 / 1.05, VERDICT_SAME},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xconv_record *rec = &run.run.recs[0].rec;
        rec->min_ms = cases[i].lo;
        rec->median_ms = cases[i].med;
        rec->max_ms = cases[i].hi;
        r = build(&run, &opts, &base.run);
        if (!r)
            continue;
        CHECK_MSG(cell(r, 0, "direct_naive")->verdict == cases[i].verdict, "case %zu: %d", i,
                  cell(r, 0, "direct_naive")->verdict);
        CHECK(fabs(cell(r, 0, "direct_naive")->ratio - cases[i].med) < 1e-12);
        CHECK(r->regressions == (cases[i].verdict == VERDICT_SLOWER) &&
              r->improvements == (cases[i].verdict == VERDICT_FASTER));
        xconv_report_free(r);
    }
    // Outcomes: pass -> fail, pass -> n/a regress; fail -> pass, error -> pass improve.
    xconv_run_file_free(&run.run);
    sample(&run, 1.0);
    run.run.recs[1].rec.outcome = XCONV_OUTCOME_FAIL;            // direct_const a
    run.run.recs[4].rec.outcome = XCONV_OUTCOME_NOT_APPLICABLE;  // direct_naive b
    run.run.recs[5].rec.outcome = XCONV_OUTCOME_PASS;            // direct_const b
    run.run.recs[7].rec.outcome = XCONV_OUTCOME_PASS;            // clblast b
    run.run.recs[7].rec.median_ms = 1;
    snprintf(run.run.recs[6].rec.variant, sizeof run.run.recs[6].rec.variant, "im2col_gemm");
    r = build(&run, &opts, &base.run);
    if (r) {
        CHECK(cell(r, 0, "direct_const")->verdict == VERDICT_BROKE);
        CHECK(cell(r, 1, "direct_naive")->verdict == VERDICT_BROKE);
        CHECK(cell(r, 1, "direct_const")->verdict == VERDICT_FIXED);
        CHECK(cell(r, 1, "clblast_convgemm")->verdict == VERDICT_FIXED);
        CHECK(cell(r, 1, "im2col_gemm")->base == NULL);  // not in the base: not compared
        CHECK(r->regressions == 2 && r->improvements == 2 && r->compared == 7);
        // The page and the text list them; failed cells show the outcome, not a time.
        char *html = capture(r, xconv_report_write_html);
        CHECK_CONTAINS(html, "<span class=\"bad\">2 regressions</span>");
        CHECK_CONTAINS(html, "<td>FAIL</td>");
        CHECK_CONTAINS(html, "no longer passes");
        CHECK(!holds_nonfinite(html));
        free(html);
        char *text = capture(r, xconv_report_write_text);
        CHECK_CONTAINS(text, "2 regressions, 2 improvements beyond noise (margin 5%)");
        CHECK_CONTAINS(text, "BROKE  opencl:0 Test Device  direct_const  a  (now FAIL, base pass)");
        free(text);
        CHECK(xconv_report_svg_count(r) == 3);
        char name[160];
        xconv_report_svg_name(r, 2, name, sizeof name);
        CHECK_MSG(!strcmp(name, "d1-test-device-opencl-compare.svg"), "%s", name);
        xconv_report_free(r);
    }
    xconv_run_file_free(&run.run);
    xconv_run_file_free(&base.run);
}

static void test_networks(void)
{
    run_builder b;
    sample(&b, 1.0);
    // Weights: shape a 3 times, b twice in "net"; shape a alone in "other" (by spec, no name).
    xconv_matrix_shape w[3] = {
        {"a", SPEC_A, 3, "net"}, {"b", SPEC_B, 2, "net"}, {"", SPEC_A, 1, "other"},
    };
    xconv_report_opts opts = {.weights = w, .nweights = 3, .margin = 0.05};
    xconv_report *r = build(&b, &opts, NULL);
    if (!r)
        return;
    CHECK(r->nnetworks == 2);
    const report_network *net = &r->networks[0];
    CHECK(!strcmp(net->name, "net") && net->nlayers == 2 && net->layers == 5);
    // Best per layer: 3 x 0.5 (direct_const) + 2 x 0.2 (direct_naive).
    CHECK(net->covered[0] == 2 && fabs(net->best_ms[0] - 1.9) < 1e-12);
    // One variant over every layer: direct_naive (3 x 1 + 2 x 0.2); direct_const fails on b.
    CHECK(!strcmp(net->single[0], "direct_naive") && fabs(net->single_ms[0] - 3.4) < 1e-12);
    CHECK(fabs(r->networks[1].best_ms[0] - 0.5) < 1e-12);
    char *html = capture(r, xconv_report_write_html);
    CHECK_CONTAINS(html, "<section id=\"networks\">");
    CHECK_CONTAINS(html, "1.90 ms <span class=\"muted\">best per layer</span>");
    CHECK(!holds_nonfinite(html));
    free(html);
    xconv_report_free(r);
    // A layer no variant passed leaves the network partial.
    w[1].weight = 1;
    snprintf(w[1].shape, sizeof w[1].shape, "n=9,c=9,h=9,w=9,k=9,r=1");
    r = build(&b, &opts, NULL);
    if (r) {
        CHECK(r->networks[0].covered[0] == 1 && isnan(r->networks[0].best_ms[0]) &&
              isnan(r->networks[0].single_ms[0]));
        char *page = capture(r, xconv_report_write_html);
        CHECK_CONTAINS(page, "1 of 2 shapes passed");
        free(page);
        xconv_report_free(r);
    }
    xconv_run_file_free(&b.run);
}

static void test_page(void)
{
    run_builder b;
    sample(&b, 1.0);
    // Text that must be escaped, and an auto pick.
    snprintf(b.run.recs[0].rec.note, sizeof b.run.recs[0].rec.note, "<&> \"quoted\" 'x'");
    snprintf(b.run.devices[0].name, sizeof b.run.devices[0].name, "Dev <A&B>");
    b.run.recs[1].auto_pick = 1;
    static const char *const files[] = {"dir/weird\xff" "name.json"};
    xconv_error err = {0};
    xconv_report *r = xconv_report_build(&b.run, files, 1, NULL, NULL, NULL, &err);
    CHECK_MSG(r != NULL, "%s", err.msg);
    if (!r)
        return;
    char *html = capture(r, xconv_report_write_html);
    CHECK(!strstr(html, "<&>") && !strstr(html, "<A&B>"));
    CHECK_CONTAINS(html, "&lt;&amp;&gt; &quot;quoted&quot; &#39;x&#39;");
    CHECK_CONTAINS(html, "Dev &lt;A&amp;B&gt;");
    CHECK_CONTAINS(html, "weird\xEF\xBF\xBDname.json");  // a file name that is not UTF-8
    CHECK_CONTAINS(html, "<th>auto picks</th>");
    CHECK_CONTAINS(html, ">FAIL</text>");
    CHECK_CONTAINS(html, ">n/a</text>");
    CHECK_CONTAINS(html, ">error</text>");
    CHECK_CONTAINS(html, "time against the row's fastest (no peaks known)");
    CHECK(!holds_nonfinite(html));
    CHECK(!strstr(html, "<script"));
    free(html);
    CHECK(xconv_report_svg_count(r) == 2);
    char *svg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&svg, &len);
    CHECK(f && xconv_report_write_svg(f, r, 1) == 0);
    fclose(f);
    CHECK(!strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 50));
    CHECK_CONTAINS(svg, "no ceilings: peaks unknown");
    free(svg);
    xconv_report_free(r);
    xconv_run_file_free(&b.run);
}

static void test_formats(void)
{
    char buf[32];
    CHECK(!strcmp(report_ms(0.32649, buf, sizeof buf), "0.326"));
    CHECK(!strcmp(report_ms(1.0331, buf, sizeof buf), "1.03"));
    CHECK(!strcmp(report_ms(12.44, buf, sizeof buf), "12.4"));
    CHECK(!strcmp(report_ms(1234.4, buf, sizeof buf), "1234"));
    CHECK(!strcmp(report_ms(NAN, buf, sizeof buf), "\xE2\x80\x93"));
    CHECK(!strcmp(report_rate(51200, buf, sizeof buf), "51.2 T"));
    CHECK(!strcmp(report_rate(890, buf, sizeof buf), "890 G"));
    CHECK(!strcmp(report_rate(0.5, buf, sizeof buf), "500 M"));
    CHECK(!strcmp(report_pct(0.414, buf, sizeof buf), "41%"));
    CHECK(!strcmp(report_pct(0.032, buf, sizeof buf), "3.2%"));
    CHECK(!strcmp(report_pct(0.0005, buf, sizeof buf), "0.05%"));
    report_rgb lo = report_color_seq(0), hi = report_color_seq(1);
    CHECK(lo.r == 0x44 && hi.b == 0x25 && !report_color_light(lo) && report_color_light(hi));
    report_rgb same = report_color_div(0);
    CHECK(same.r == 0xf7 && report_color_div(-1).b > report_color_div(1).b);
}

int main(void)
{
    test_peaks_parse();
    test_model();
    test_compare();
    test_networks();
    test_page();
    test_formats();
    return check_summary("test_report");
}
