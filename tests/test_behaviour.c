// SPDX-License-Identifier: MIT
// Tests of the behaviour report's measures (ULP distances, medians, the IEEE reference, the
// special-value, signed-zero and denormal checks, the probes' inputs), of the whole measurement
// on the host stack, and of the JSON written and read back. Needs no device.
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "../cli/report/behaviour.h"
#include "../cli/report/report.h"
#include "check.h"
#include "cli/behaviour_check.h"
#include "cli/behaviour_run.h"
#include "measure/check.h"

// Returns the problem spec parses to (the test's own specs always parse).
static xconv_problem shape(const char *spec)
{
    xconv_problem p;
    xconv_error err = {0};
    if (xconv_shape_parse(spec, &p, &err) != XCONV_OK)
        fprintf(stderr, "bad spec %s: %s\n", spec, err.msg);
    return p;
}

// ---------------------------------------------------------------------------------------------
// ULPs and medians

static void test_ulp(void)
{
    CHECK(xconv_ulp_distance(1.0f, 1.0f) == 0);
    CHECK(xconv_ulp_distance(1.0f, nextafterf(1.0f, 2.0f)) == 1);
    CHECK(xconv_ulp_distance(nextafterf(1.0f, 2.0f), 1.0f) == 1);
    CHECK(xconv_ulp_distance(0.0f, -0.0f) == 0);
    CHECK(xconv_ulp_distance(-FLT_TRUE_MIN, FLT_TRUE_MIN) == 2);  // across zero
    CHECK(xconv_ulp_distance(FLT_MAX, INFINITY) == 1);
    CHECK(xconv_ulp_distance(1.0f, NAN) == UINT64_MAX);
    CHECK(xconv_ulp_distance(2.0f, 1.0f) == (1u << 23));          // one binade

    uint64_t ulp = 99;
    CHECK(xconv_ulp_to_rounded(1.0f, 1.0 + 0x1p-30, &ulp) && ulp == 0);
    CHECK(xconv_ulp_to_rounded(nextafterf(1.0f, 2.0f), 1.0 + 0x1p-30, &ulp) && ulp == 1);
    // Halfway between 1 and its successor rounds to the even one, 1.
    CHECK(xconv_ulp_to_rounded(1.0f, 1.0 + 0x1p-24, &ulp) && ulp == 0);
    CHECK(xconv_ulp_to_rounded(1.0f, 1.0 + 0x1.8p-24, &ulp) && ulp == 1);
    CHECK(!xconv_ulp_to_rounded(NAN, 1.0, &ulp));
    CHECK(!xconv_ulp_to_rounded(1.0f, INFINITY, &ulp));
    CHECK(!xconv_ulp_to_rounded(1.0f, 1e39, &ulp));               // rounds to Inf in float
}

static void test_hist(void)
{
    xconv_hist h;
    CHECK(xconv_hist_init(&h));
    CHECK(isnan(xconv_hist_median(&h)));
    double values[] = {3, 0, 63, 1, 2, NAN, -1};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        xconv_hist_add(&h, values[i]);
    CHECK(h.count == 5);                                  // NaN and negatives are left out
    CHECK(xconv_hist_median(&h) == 2);                    // of 0 1 2 3 63
    CHECK(h.max == 63);
    xconv_hist_add(&h, 63);
    CHECK(xconv_hist_median(&h) == 2);                    // the lower median of six
    xconv_hist_add(&h, 63);
    CHECK(xconv_hist_median(&h) == 3);
    xconv_hist_free(&h);

    // Exact for every integer below 64, within 1/32 of an octave elsewhere.
    CHECK(xconv_hist_init(&h));
    for (int v = 0; v < 64; v++) {
        xconv_hist *one = &(xconv_hist){0};
        CHECK(xconv_hist_init(one));
        xconv_hist_add(one, v);
        CHECK_MSG(xconv_hist_median(one) == v, "%d", v);
        xconv_hist_free(one);
    }
    for (double v = 1e-20; v < 1e9; v *= 7.3) {
        xconv_hist_free(&h);
        CHECK(xconv_hist_init(&h));
        xconv_hist_add(&h, v);
        double m = xconv_hist_median(&h);
        CHECK_MSG(m <= v && m > v / (1 + 1.0 / 32), "%g -> %g", v, m);
    }
    xconv_hist_add(&h, 0x1p40);                           // past the last octave
    xconv_hist_add(&h, 0x1p41);
    CHECK(xconv_hist_median(&h) == 0x1p32 && h.max == 0x1p41);
    xconv_hist_free(&h);
}

// ---------------------------------------------------------------------------------------------
// The IEEE reference

static void test_ieee_conv(void)
{
    // Finite inputs: the same values as the library's reference, which skips padded taps.
    xconv_problem p = shape("n=2,c=4,h=9,w=11,k=4,r=3,s=2,stride_h=2,pad=1,dil_w=2,groups=2");
    int64_t nx = xconv_problem_x_elems(&p), nw = xconv_problem_w_elems(&p);
    int64_t ny = xconv_problem_y_elems(&p);
    float *x = malloc((size_t)nx * sizeof *x), *w = malloc((size_t)nw * sizeof *w);
    double *a = malloc((size_t)ny * sizeof *a), *an = malloc((size_t)ny * sizeof *an);
    double *b = malloc((size_t)ny * sizeof *b), *bn = malloc((size_t)ny * sizeof *bn);
    xconv_random_fill(x, (size_t)nx, 3, 1);
    xconv_random_fill(w, (size_t)nw, 3, 2);
    CHECK(xconv_ieee_conv_f64(&p, x, w, a, an) == XCONV_OK);
    CHECK(xconv_reference_conv(&p, x, w, b, bn, 1, NULL) == XCONV_OK);
    int64_t same = 0;
    for (int64_t i = 0; i < ny; i++)
        same += a[i] == b[i] && an[i] == bn[i];
    CHECK_MSG(same == ny, "%lld of %lld equal", (long long)same, (long long)ny);

    // -0.0 inputs: every product -0, so -0 where every tap is inside, +0 where one is padding.
    xconv_problem q = shape("n=1,c=2,h=4,w=5,k=2,r=3,pad=1");
    float xz[40], wz[36];
    for (int i = 0; i < 40; i++)
        xz[i] = -0.0f;
    for (int i = 0; i < 36; i++)
        wz[i] = 0.5f;
    double yz[40];
    CHECK(xconv_ieee_conv_f64(&q, xz, wz, yz, NULL) == XCONV_OK);
    int minus = 0, plus = 0;
    for (int i = 0; i < 40; i++) {
        CHECK(yz[i] == 0);
        int row = i % 20 / 5, col = i % 5;
        bool interior = row > 0 && row < 3 && col > 0 && col < 4;
        minus += interior && signbit(yz[i]);
        plus += !interior && !signbit(yz[i]);
    }
    CHECK(minus == 2 * 2 * 3 && plus == 40 - 12);
    CHECK(xconv_ieee_conv_f64(&(xconv_problem){0}, xz, wz, yz, NULL) == XCONV_ERR_INVALID);
    free(x);
    free(w);
    free(a);
    free(an);
    free(b);
    free(bn);
}

// ---------------------------------------------------------------------------------------------
// The checks

// A probe's problem, its inputs and IEEE result, for the checks' tests.
typedef struct probe_data {
    xconv_problem p;
    float *x, *w, *y;
    double *ieee, *norm;
    int64_t ny;
} probe_data;

// Makes the inputs of case `index` of the probe table, its IEEE result, and y = ieee in float.
static probe_data probe_make(int index)
{
    int count = 0;
    const xconv_behaviour_case *c = &xconv_behaviour_cases(&count)[index];
    probe_data d = {.p = shape(c->spec)};
    d.ny = xconv_problem_y_elems(&d.p);
    d.x = malloc((size_t)xconv_problem_x_elems(&d.p) * sizeof *d.x);
    d.w = malloc((size_t)xconv_problem_w_elems(&d.p) * sizeof *d.w);
    d.y = malloc((size_t)d.ny * sizeof *d.y);
    d.ieee = malloc((size_t)d.ny * sizeof *d.ieee);
    d.norm = malloc((size_t)d.ny * sizeof *d.norm);
    xconv_behaviour_case_fill(c, &d.p, d.x, d.w, 1);
    xconv_ieee_conv_f64(&d.p, d.x, d.w, d.ieee, d.norm);
    for (int64_t i = 0; i < d.ny; i++)
        d.y[i] = (float)d.ieee[i];
    return d;
}

static void probe_free(probe_data *d)
{
    free(d->x);
    free(d->w);
    free(d->y);
    free(d->ieee);
    free(d->norm);
}

// Returns the index of the first case of probe name, or -1.
static int case_of(const char *name)
{
    int count = 0;
    const xconv_behaviour_case *cases = xconv_behaviour_cases(&count);
    for (int i = 0; i < count; i++)
        if (strcmp(cases[i].probe, name) == 0)
            return i;
    return -1;
}

// Folds y of d into a fresh special-value probe with blocks bh x bw and returns its verdict.
static const char *special_verdict(const probe_data *d, int64_t bh, int64_t bw,
                                   xconv_behaviour_probe *pr)
{
    xconv_probe_init(pr, "nan_inf_weights", XCONV_PROBE_SPECIAL);
    pr->ran = 1;
    CHECK(xconv_probe_fold_special(pr, &d->p, d->y, d->ieee, d->norm, bh, bw, 1e-5) ==
          XCONV_OK);
    xconv_probe_settle(pr, false);
    return pr->verdict;
}

static void test_special_check(void)
{
    probe_data d = probe_make(case_of("nan_inf_weights"));
    xconv_behaviour_probe pr;
    int64_t P = xconv_problem_out_h(&d.p), Q = xconv_problem_out_w(&d.p), plane = P * Q;
    // The NaN weight w[1,2,0,0] reaches all of output channel 1, including y[0,1,0,0], whose
    // NaN tap lies on the padding; the Inf weight w[2,0,2,2] gives NaN where its tap is padding
    // (last row, last column) and +-Inf elsewhere in channel 2.
    CHECK(isnan(d.ieee[1 * plane]) && isnan(d.ieee[1 * plane + plane - 1]));
    CHECK(isnan(d.ieee[2 * plane + plane - 1]) && isinf(d.ieee[2 * plane]));
    CHECK(isfinite(d.ieee[0]) && isfinite(d.ieee[3 * plane]));
    CHECK(strcmp(special_verdict(&d, 1, 1, &pr), "exact") == 0);
    CHECK(pr.expected_special == 2 * 2 * plane && pr.outputs == d.ny);

    // An extra NaN in channel 3, which holds no special value: wrong, whatever the block.
    int64_t at = 3 * plane;
    d.y[at] = NAN;
    CHECK(strcmp(special_verdict(&d, 1, 1, &pr), "wrong") == 0 && pr.extra == 1 &&
          pr.beyond_block == 1);
    CHECK(strcmp(special_verdict(&d, 2, 2, &pr), "wrong") == 0);
    d.y[at] = (float)d.ieee[at];
    // NaN for the +-Inf of channel 2 at row 0, column 1: the wrong kind, which a 2x2 block
    // computed together (it holds expected special values) explains.
    at = 2 * plane + 1;
    d.y[at] = NAN;
    CHECK(strcmp(special_verdict(&d, 1, 1, &pr), "wrong") == 0 && pr.wrong_kind == 1);
    CHECK(strcmp(special_verdict(&d, 2, 2, &pr), "block") == 0 && pr.beyond_block == 0);
    d.y[at] = (float)d.ieee[at];
    // A NaN that disappears is wrong whatever the block.
    d.y[plane] = 0.0f;
    CHECK(strcmp(special_verdict(&d, 4, 4, &pr), "wrong") == 0 && pr.missing == 1);
    d.y[plane] = NAN;
    // A finite output off by more than the threshold.
    d.y[5] += 1e-3f * (float)d.norm[5];
    CHECK(strcmp(special_verdict(&d, 1, 1, &pr), "wrong") == 0 && pr.finite_off == 1);
    probe_free(&d);

    // Inputs: a NaN in x reaches exactly its receptive field.
    d = probe_make(case_of("nan_inf_inputs"));
    CHECK(strcmp(special_verdict(&d, 1, 1, &pr), "exact") == 0);
    CHECK(pr.expected_special > 0 && pr.expected_special < d.ny / 4);
    probe_free(&d);
}

static void test_zero_check(void)
{
    probe_data d = probe_make(case_of("minus_zero"));
    xconv_behaviour_probe pr;
    xconv_probe_init(&pr, "minus_zero", XCONV_PROBE_ZERO);
    pr.ran = 1;
    xconv_probe_fold_zero(&pr, &d.p, d.y, d.ieee);
    xconv_probe_settle(&pr, false);
    CHECK(strcmp(pr.verdict, "ieee") == 0 && pr.zeros == d.ny);
    CHECK(pr.ieee_minus > 0 && pr.ieee_minus < d.ny);  // -0 inside, +0 at the padded edge
    for (int64_t i = 0; i < d.ny; i++)
        d.y[i] = 0.0f;
    xconv_probe_init(&pr, "minus_zero", XCONV_PROBE_ZERO);
    pr.ran = 1;
    xconv_probe_fold_zero(&pr, &d.p, d.y, d.ieee);
    xconv_probe_settle(&pr, false);
    CHECK(strcmp(pr.verdict, "+0") == 0 && pr.sign_mismatch == pr.ieee_minus);
    d.y[0] = -0.0f;  // -0 where IEEE has +0 (a corner), +0 elsewhere
    xconv_probe_init(&pr, "minus_zero", XCONV_PROBE_ZERO);
    pr.ran = 1;
    xconv_probe_fold_zero(&pr, &d.p, d.y, d.ieee);
    xconv_probe_settle(&pr, false);
    CHECK(strcmp(pr.verdict, "mixed") == 0);
    d.y[1] = 1e-30f;
    xconv_probe_init(&pr, "minus_zero", XCONV_PROBE_ZERO);
    pr.ran = 1;
    xconv_probe_fold_zero(&pr, &d.p, d.y, d.ieee);
    xconv_probe_settle(&pr, false);
    CHECK(strcmp(pr.verdict, "wrong") == 0 && pr.nonzero == 1);
    probe_free(&d);
}

// Folds y of d into a fresh denormal probe and returns its verdict.
static const char *denormal_verdict(const probe_data *d, xconv_behaviour_probe *pr)
{
    xconv_probe_init(pr, "denormal", XCONV_PROBE_DENORMAL);
    pr->ran = 1;
    xconv_probe_fold_denormal(pr, &d->p, d->y, d->ieee, d->norm, 1e-5);
    xconv_probe_settle(pr, false);
    return pr->verdict;
}

// Returns true when |v| is a denormal float (not zero).
static bool denormal(double v)
{
    return v != 0 && fabs(v) < 0x1p-126;
}

static void test_denormal_cases(void)
{
    const char *names[] = {"denormal_inputs", "denormal_weights", "denormal_products",
                           "denormal_sums"};
    for (int k = 0; k < 4; k++) {
        probe_data d = probe_make(case_of(names[k]));
        int64_t nx = xconv_problem_x_elems(&d.p), nw = xconv_problem_w_elems(&d.p);
        int64_t xden = 0, wden = 0, yden = 0, yzero = 0;
        for (int64_t i = 0; i < nx; i++)
            xden += denormal(d.x[i]);
        for (int64_t i = 0; i < nw; i++)
            wden += denormal(d.w[i]);
        for (int64_t i = 0; i < d.ny; i++) {
            yden += denormal(d.ieee[i]);
            yzero += d.ieee[i] == 0;
        }
        // What each probe's inputs hold, as its comment says.
        if (k == 0)
            CHECK(xden == nx && wden == 0 && yden == 0 && yzero == 0);
        if (k == 1)
            CHECK(xden == 0 && wden == nw && yden == 0 && yzero == 0);
        if (k == 2)
            CHECK(xden == 0 && wden == 0 && yden == d.ny);
        if (k == 3)
            CHECK_MSG(xden == 0 && wden == 0 && yden + yzero == d.ny && yden > d.ny / 2,
                      "%lld denormal, %lld zero of %lld", (long long)yden, (long long)yzero,
                      (long long)d.ny);
        // The correctly rounded results are kept, zeros are flushed, a mixture is mixed.
        xconv_behaviour_probe pr;
        CHECK_MSG(strcmp(denormal_verdict(&d, &pr), "kept") == 0, "%s: %s", names[k],
                  pr.verdict);
        CHECK_MSG(pr.outputs > d.ny * 9 / 10 && pr.outputs <= d.ny - yzero, "%lld of %lld",
                  (long long)pr.outputs, (long long)d.ny);
        for (int64_t i = 0; i < d.ny; i++)
            d.y[i] = i % 2 ? 0.0f : -0.0f;
        CHECK(strcmp(denormal_verdict(&d, &pr), "flushed") == 0 && pr.flushed == pr.outputs);
        d.y[0] = (float)d.ieee[0];
        d.y[1] = (float)d.ieee[1];
        CHECK(strcmp(denormal_verdict(&d, &pr), "mixed") == 0);
        d.y[2] = (float)(d.ieee[2] * 2 + 1e-40);
        CHECK(strcmp(denormal_verdict(&d, &pr), "wrong") == 0 && pr.wrong == 1);
        probe_free(&d);
    }
    xconv_behaviour_probe none;
    xconv_probe_init(&none, "x", XCONV_PROBE_DENORMAL);
    xconv_probe_settle(&none, false);
    CHECK(strcmp(none.verdict, "n/a") == 0);
    xconv_probe_settle(&none, true);
    CHECK(strcmp(none.verdict, "error") == 0);
}

static void test_kind_verdict(void)
{
    xconv_behaviour_record r = {0};
    CHECK(strcmp(xconv_behaviour_kind_verdict(&r, XCONV_PROBE_SPECIAL), "n/a") == 0);
    const char *v[] = {"exact", "block", "n/a"};
    for (int i = 0; i < 3; i++) {
        xconv_probe_init(&r.probes[r.nprobes], "p", XCONV_PROBE_SPECIAL);
        snprintf(r.probes[r.nprobes++].verdict, 16, "%s", v[i]);
    }
    CHECK(strcmp(xconv_behaviour_kind_verdict(&r, XCONV_PROBE_SPECIAL), "block") == 0);
    snprintf(r.probes[2].verdict, 16, "wrong");
    CHECK(strcmp(xconv_behaviour_kind_verdict(&r, XCONV_PROBE_SPECIAL), "wrong") == 0);
    xconv_probe_init(&r.probes[r.nprobes], "d1", XCONV_PROBE_DENORMAL);
    snprintf(r.probes[r.nprobes++].verdict, 16, "kept");
    xconv_probe_init(&r.probes[r.nprobes], "d2", XCONV_PROBE_DENORMAL);
    snprintf(r.probes[r.nprobes++].verdict, 16, "kept");
    CHECK(strcmp(xconv_behaviour_kind_verdict(&r, XCONV_PROBE_DENORMAL), "kept") == 0);
    snprintf(r.probes[r.nprobes - 1].verdict, 16, "flushed");
    CHECK(strcmp(xconv_behaviour_kind_verdict(&r, XCONV_PROBE_DENORMAL), "mixed") == 0);
}

// ---------------------------------------------------------------------------------------------
// The whole measurement on the host, and its JSON

static void test_stack_id(void)
{
    xconv_device_info info = {.backend = XCONV_BACKEND_OPENCL};
    char id[40];
    snprintf(info.platform, sizeof info.platform, "Portable Computing Language");
    xconv_behaviour_stack_id(&info, id, sizeof id);
    CHECK(strcmp(id, "pocl") == 0);
    snprintf(info.platform, sizeof info.platform, "NVIDIA CUDA");
    xconv_behaviour_stack_id(&info, id, sizeof id);
    CHECK(strcmp(id, "nvidia-opencl") == 0);
    snprintf(info.platform, sizeof info.platform, "Intel(R) OpenCL HD Graphics");
    xconv_behaviour_stack_id(&info, id, sizeof id);
    CHECK_MSG(strcmp(id, "intel-r-opencl-hd-graphi") == 0, "%s", id);
    info.backend = XCONV_BACKEND_CUDA;
    xconv_behaviour_stack_id(&info, id, sizeof id);
    CHECK(strcmp(id, "cuda") == 0);
}

// Writes run as JSON into a string (malloc'd).
static char *json_of(const xconv_behaviour_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && xconv_behaviour_write_json(f, run) == 0);
    if (f)
        fclose(f);
    return text;
}

static void test_host_run(void)
{
    const xconv_variant *ref = xconv_variant_find("cpu_ref", NULL);
    xconv_problem shapes[2] = {shape("n=2,c=3,h=7,w=6,k=4,r=3,pad=1"),
                               shape("n=1,c=4,h=5,w=5,k=4,r=1,groups=2")};
    const char *names[2] = {"a", ""};
    xconv_behaviour_opts opts;
    xconv_behaviour_opts_default(&opts);
    opts.host_threads = 1;
    xconv_behaviour_run run;
    xconv_error err = {0};
    CHECK(xconv_behaviour_measure(NULL, 0, shapes, names, 2, &ref, 1, &opts, &run, &err) ==
          XCONV_OK);
    CHECK(run.nstacks == 1 && strcmp(run.stacks[0].id, "host") == 0);
    CHECK(run.count == 1 && run.nagree == 0 && run.nshapes == 2);
    int ncases = 0;
    xconv_behaviour_cases(&ncases);
    CHECK(run.ncases == ncases);
    const xconv_behaviour_record *r = &run.recs[0];
    // cpu_ref is the float64 sum rounded to float: correctly rounded, deterministic, IEEE's
    // NaN and Inf, +0 for every zero (its sums start at +0), denormals kept.
    CHECK(r->passed == 2 && r->failed == 0 && r->max_ulp == 0 && r->median_ulp == 0);
    CHECK(r->share_correctly_rounded == 1.0);
    CHECK(r->det_compared == 2 && r->det_differing == 0);
    CHECK(strcmp(r->kernels, "host") == 0);
    CHECK(strcmp(xconv_behaviour_kind_verdict(r, XCONV_PROBE_SPECIAL), "exact") == 0);
    CHECK(strcmp(xconv_behaviour_kind_verdict(r, XCONV_PROBE_ZERO), "+0") == 0);
    CHECK(strcmp(xconv_behaviour_kind_verdict(r, XCONV_PROBE_DENORMAL), "kept") == 0);
    CHECK(r->nprobes == 7);

    // Written, read back and written again: the same text.
    run.seed = 12345678901234ull;
    snprintf(run.host, sizeof run.host, "test \"host\"");
    char *first = json_of(&run);
    xconv_behaviour_run back;
    CHECK(first && xconv_behaviour_parse(first, strlen(first), "first", &back, &err) ==
                       XCONV_OK);
    if (back.count == 1) {
        char *second = json_of(&back);
        CHECK(second && strcmp(first, second) == 0);
        free(second);
    }
    xconv_behaviour_run_free(&back);

    // The report page and summary of the file alone: one behaviour section, its tables.
    const char *files[] = {"dir/b.json"};
    xconv_report_opts ropts = {.behaviour = &run, .behaviour_files = files, .nbehaviour = 1};
    xconv_report *report = xconv_report_build(NULL, NULL, 0, NULL, NULL, &ropts, &err);
    CHECK(report != NULL);
    if (report) {
        char *page = NULL, *summary = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&page, &len);
        CHECK(f && xconv_report_write_html(f, report) == 0);
        if (f)
            fclose(f);
        f = open_memstream(&summary, &len);
        CHECK(f && xconv_report_write_text(f, report) == 0);
        if (f)
            fclose(f);
        CHECK_CONTAINS(page, "<title>xconv behaviour report</title>");
        CHECK_CONTAINS(page, "<a href=\"#behaviour-1\">Behaviour</a>");
        CHECK_CONTAINS(page, "<section id=\"behaviour-1\">");
        CHECK_CONTAINS(page, "<td>host</td><td>cpu_ref</td><td>host</td><td class=\"num\">2 of "
                             "2</td>");
        CHECK_CONTAINS(page, "No variant ran on two stacks");
        CHECK_CONTAINS(page, "test &quot;host&quot;");
        CHECK(!strstr(page, "nan") && !strstr(page, "inf<"));
        CHECK_CONTAINS(summary, "behaviour b.json: 1 stacks, 1 records: 0 fail a shape, 0 not "
                                "deterministic, 0 with wrong special values");
        free(page);
        free(summary);
    }
    xconv_report_free(report);
    ropts.nbehaviour = 0;
    CHECK(xconv_report_build(NULL, NULL, 0, NULL, NULL, &ropts, &err) == NULL);

    // What the reader refuses.
    const char *bad[][2] = {
        {"{\"tool\": \"xconv\", \"records\": []}", "not an xconv behaviour file"},
        {"{\"tool\": \"xconv\", \"kind\": \"behaviour\", \"schema_version\": 2}",
         "schema_version"},
        {"[1,", "bad.json: byte 3 (line 1, column 3): ']' expected near end of file"},
    };
    for (int i = 0; i < 3; i++) {
        CHECK(xconv_behaviour_parse(bad[i][0], strlen(bad[i][0]), "bad.json", &back, &err) ==
              XCONV_ERR_PARSE);
        CHECK_CONTAINS(err.msg, bad[i][1]);
        CHECK(back.count == 0 && back.recs == NULL);
    }
    char *broken = strdup(first);
    char *at = strstr(broken, "\"max_ulp\": 0");
    if (at)
        memcpy(at, "\"max_ulp\": \"", 12);  // a string where a number belongs
    CHECK(xconv_behaviour_parse(broken, strlen(broken), "b.json", &back, &err) ==
          XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "b.json: byte ");
    free(broken);
    free(first);
    xconv_behaviour_run_free(&run);

    // A shape past the host reference's limit is refused.
    opts.host_ref_max_gflop = 1e-9;
    CHECK(xconv_behaviour_measure(NULL, 0, shapes, names, 1, &ref, 1, &opts, &run, &err) ==
          XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "host reference");
    CHECK(run.count == 0);
}

int main(void)
{
    test_ulp();
    test_hist();
    test_ieee_conv();
    test_special_check();
    test_zero_check();
    test_denormal_cases();
    test_kind_verdict();
    test_stack_id();
    test_host_run();
    return check_summary("test_behaviour");
}
