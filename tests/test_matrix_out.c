// SPDX-License-Identifier: MIT
// Tests of the matrix's writers: the JSON in pieces (head, records, tail) reads back after any
// number of records, the CSV has one row a record with the matrix's columns, the terminal table
// marks the fastest and auto's pick and shows shares of the floor in blocks that fit the width,
// and network totals add weight x time.
#include <math.h>

#include "check.h"
#include "../cli/report/matrix.h"

#define SPEC_A "n=1,c=8,h=16,w=16,k=8,r=3,pad=1"
#define SPEC_B "n=1,c=8,h=16,w=16,k=8,r=1"

// Appends a record of variant on shape (name, spec) with median ms (NAN: not timed).
static void add(xconv_run_file *run, const char *variant, const char *name, const char *spec,
                xconv_outcome outcome, double ms, int pick)
{
    xconv_matrix_record *m = &run->recs[run->count++];
    memset(m, 0, sizeof *m);
    xconv_record *r = &m->rec;
    snprintf(r->device, sizeof r->device, "%s", run->devices[0].id);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->shape_name, sizeof r->shape_name, "%s", name);
    snprintf(r->shape, sizeof r->shape, "%s", spec);
    r->outcome = outcome;
    r->repeat = isfinite(ms) ? 5 : 0;
    r->median_ms = r->min_ms = r->max_ms = ms;
    r->max_norm_err = r->threshold = r->gflops = r->gbps = r->compile_ms = NAN;
    r->worst_index = -1;
    r->floor_ms = 0.01;
    r->floor_share = isfinite(ms) ? 0.01 / ms : NAN;
    snprintf(r->note, sizeof r->note, "note, \"quoted\"");
    m->auto_pick = pick;
}

// A run of one device: shapes a (named, weight 2) and b (unnamed, weight 3) of network
// "net.shapes", three variants.
static void sample(xconv_run_file *run)
{
    memset(run, 0, sizeof *run);
    run->schema_version = 1;
    xconv_run_info_init(&run->info, 0, NULL);
    run->devices = calloc(1, sizeof *run->devices);
    run->ndevices = 1;
    xconv_matrix_device *d = &run->devices[0];
    snprintf(d->id, sizeof d->id, "opencl:0 Dev");
    snprintf(d->name, sizeof d->name, "Dev");
    snprintf(d->backend, sizeof d->backend, "opencl");
    d->peak_gflops = 100;
    d->peak_gbps = 10;
    snprintf(d->peaks_source, sizeof d->peaks_source, "measured");
    run->shapes = calloc(2, sizeof *run->shapes);
    run->nshapes = 2;
    snprintf(run->shapes[0].name, sizeof run->shapes[0].name, "a");
    snprintf(run->shapes[0].shape, sizeof run->shapes[0].shape, SPEC_A);
    run->shapes[0].weight = 2;
    snprintf(run->shapes[1].shape, sizeof run->shapes[1].shape, SPEC_B);
    run->shapes[1].weight = 3;
    for (int i = 0; i < 2; i++)
        snprintf(run->shapes[i].set, sizeof run->shapes[i].set, "net.shapes");
    run->recs = calloc(8, sizeof *run->recs);
    add(run, "direct_naive", "a", SPEC_A, XCONV_OUTCOME_PASS, 0.5, 0);
    add(run, "direct_const", "a", SPEC_A, XCONV_OUTCOME_PASS, 0.25, 1);
    add(run, "gemm_1x1", "a", SPEC_A, XCONV_OUTCOME_NOT_APPLICABLE, NAN, 0);
    add(run, "direct_naive", "", SPEC_B, XCONV_OUTCOME_PASS, 0.1, 1);
    add(run, "direct_const", "", SPEC_B, XCONV_OUTCOME_FAIL, 0.01, 0);
    add(run, "gemm_1x1", "", SPEC_B, XCONV_OUTCOME_PASS, 0.05, 0);
}

// Returns what writer put into a memory stream (caller frees).
static char *capture(void (*writer)(FILE *f, const xconv_run_file *run, int k),
                     const xconv_run_file *run, int k, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    writer(f, run, k);
    fclose(f);
    return text;
}

// The JSON as the stream writes it after k records.
static void json_after(FILE *f, const xconv_run_file *run, int k)
{
    xconv_matrix_write_head(f, run);
    for (int i = 0; i < k; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        xconv_matrix_write_record(f, &run->recs[i]);
    }
    xconv_matrix_write_tail(f, k, k == run->count);
}

static void test_json_pieces(void)
{
    xconv_run_file run;
    sample(&run);
    for (int k = 0; k <= run.count; k++) {
        size_t len;
        char *text = capture(json_after, &run, k, &len);
        xconv_run_file back;
        xconv_error err = {0};
        xconv_status st = xconv_run_file_parse(text, len, "stream.json", &back, &err);
        CHECK_MSG(st == XCONV_OK, "after %d records: %s", k, err.msg);
        CHECK(back.count == k && back.ndevices == 1 && back.nshapes == 2);
        CHECK(back.complete == (k == run.count));
        CHECK(back.devices[0].peak_gflops == 100 && back.shapes[1].weight == 3);
        CHECK_CONTAINS(text, k == run.count ? "\"complete\": true" : "\"complete\": false");
        if (k == run.count)
            CHECK(back.recs[1].auto_pick == 1 && back.recs[1].rec.floor_share == 0.04);
        xconv_run_file_free(&back);
        free(text);
    }
    xconv_run_file_free(&run);
    const char bad[] = "{\"tool\": \"xconv\", \"records\": [], \"complete\": 1}";
    xconv_run_file back;
    xconv_error err = {0};
    CHECK(xconv_run_file_parse(bad, sizeof bad - 1, "c.json", &back, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "c.json: complete: wants true or false, got a number");
}

// The CSV of every record.
static void csv_all(FILE *f, const xconv_run_file *run, int k)
{
    (void)k;
    xconv_matrix_write_csv_header(f);
    for (int i = 0; i < run->count; i++)
        xconv_matrix_write_csv_row(f, &run->recs[i]);
}

static void test_csv(void)
{
    xconv_run_file run;
    sample(&run);
    size_t len;
    char *text = capture(csv_all, &run, 0, &len);
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    CHECK(lines == 1 + run.count);
    CHECK_CONTAINS(text, ",note,floor_ms,floor_share,auto_pick\n");
    CHECK_CONTAINS(text, ",direct_const,,a,\"" SPEC_A "\",,0,5,0.25,0.25,0.25,,,,,,-1,true,"
                         "pass,\"note, \"\"quoted\"\"\",0.01,0.04,true\n");
    CHECK_CONTAINS(text, ",false,not_applicable,\"note, \"\"quoted\"\"\",0.01,,false\n");
    free(text);
    xconv_run_file_free(&run);
}

// The table at width k.
static void table_at(FILE *f, const xconv_run_file *run, int k)
{
    CHECK(xconv_matrix_write_table(f, run, k) == 0);
}

static void test_table(void)
{
    xconv_run_file run;
    sample(&run);
    size_t len;
    char *text = capture(table_at, &run, 120, &len);
    printf("%s", text);
    CHECK_CONTAINS(text, "opencl:0 Dev (opencl, driver )");
    CHECK_CONTAINS(text, "peaks: 100 GFLOP/s fp32, 10 GB/s (measured)");
    CHECK_CONTAINS(text, "0.25*+ 4.0%");   // the fastest and auto's pick, its share
    CHECK_CONTAINS(text, "0.5 2.0%");      // another time
    CHECK_CONTAINS(text, "0.05* 20%");     // b's fastest (the failing 0.01 is not)
    CHECK_CONTAINS(text, "0.1+ 10%");      // auto picked a slower one
    CHECK_CONTAINS(text, "FAIL");
    CHECK_CONTAINS(text, "n/a");
    CHECK_CONTAINS(text, "#2: " SPEC_B "\n");  // the unnamed shape's column, listed
    // One block at 120 columns, two when only one shape fits beside the names.
    int blocks = 0;
    for (const char *c = text; (c = strstr(c, "\nvariant ")); c++)
        blocks++;
    CHECK(blocks == 1);
    free(text);
    text = capture(table_at, &run, 30, &len);
    blocks = 0;
    for (const char *c = text; (c = strstr(c, "\nvariant ")); c++)
        blocks++;
    CHECK_MSG(blocks == 2, "%d blocks:\n%s", blocks, text);
    free(text);
    xconv_run_file_free(&run);
}

// The network totals of set net.shapes.
static void networks(FILE *f, const xconv_run_file *run, int k)
{
    (void)k;
    const char *sets[] = {"net.shapes"};
    CHECK(xconv_matrix_write_networks(f, run, sets, 1) == 0);
}

static void test_networks(void)
{
    xconv_run_file run;
    sample(&run);
    size_t len;
    char *text = capture(networks, &run, 0, &len);
    printf("%s", text);
    // Each layer's fastest: 2 x 0.25 + 3 x 0.05; direct_naive alone passes both: 2 x 0.5 + 3 x
    // 0.1; auto's picks: 2 x 0.25 + 3 x 0.1.
    CHECK_CONTAINS(text, "net.shapes on opencl:0 Dev: 2 layers (weight 5): 0.65 ms with each "
                         "layer's fastest, 1.3 ms with direct_naive, 0.8 ms with auto's picks");
    free(text);
    run.recs[0].rec.outcome = XCONV_OUTCOME_FAIL;
    run.recs[1].rec.outcome = XCONV_OUTCOME_ERROR;
    text = capture(networks, &run, 0, &len);
    CHECK_CONTAINS(text, "1 of 2 layers passed");
    free(text);
    xconv_run_file_free(&run);
}

int main(void)
{
    test_json_pieces();
    test_csv();
    test_table();
    test_networks();
    return check_summary("test_matrix_out");
}
