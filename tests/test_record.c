// SPDX-License-Identifier: MIT
// Tests of the records: statistics, run info, and the JSON, CSV and table writers.
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "../cli/report/record.h"

// ---------------------------------------------------------------------------------------------
// Helpers

// Returns everything a writer put into the temporary file f, NUL-terminated (caller frees).
static char *slurp(FILE *f)
{
    long len = ftell(f);
    char *text = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
    rewind(f);
    if (len > 0 && fread(text, 1, (size_t)len, f) != (size_t)len)
        text[0] = '\0';
    return text;
}

// Returns true when python3 runs here.
static bool have_python(void)
{
    return system("python3 -c 'pass' >/dev/null 2>&1") == 0;
}

// Writes text to a fresh temporary file and runs python3 `script` with its path as argv[1];
// returns the exit status, or -1 when no file could be made.
static int run_python(const char *text, const char *script)
{
    char path[] = "/tmp/xconv_test_record_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 -c '%s' %s", script, path);
    int rc = ok ? system(cmd) : -1;
    unlink(path);
    return rc;
}

// Checks that the braces and brackets of JSON text balance outside strings, that strings end,
// and that no raw control character sits inside a string.
static void check_json_shape(const char *text)
{
    int depth = 0, min_depth = 0;
    bool in_string = false, raw_control = false;
    for (const char *c = text; *c; c++) {
        if (in_string) {
            if (*c == '\\' && c[1])
                c++;
            else if (*c == '"')
                in_string = false;
            else if ((unsigned char)*c < 0x20)
                raw_control = true;
        } else if (*c == '"') {
            in_string = true;
        } else if (*c == '{' || *c == '[') {
            depth++;
        } else if (*c == '}' || *c == ']') {
            depth--;
            min_depth = depth < min_depth ? depth : min_depth;
        }
    }
    CHECK(!in_string);
    CHECK(depth == 0 && min_depth == 0);
    CHECK(!raw_control);
}

// Fills three records: a pass with timings, a failure with awkward strings, and an n/a.
static void sample_records(xconv_record recs[3])
{
    memset(recs, 0, 3 * sizeof *recs);
    xconv_record *a = &recs[0], *b = &recs[1], *c = &recs[2];
    snprintf(a->device, sizeof a->device, "NVIDIA H100 80GB HBM3");
    snprintf(a->backend, sizeof a->backend, "cuda");
    snprintf(a->driver, sizeof a->driver, "12.4");
    snprintf(a->libraries, sizeof a->libraries, "CUDA driver 12.4, cuDNN 9.1.0");
    snprintf(a->variant, sizeof a->variant, "direct_tiled");
    snprintf(a->family, sizeof a->family, "direct");
    snprintf(a->shape_name, sizeof a->shape_name, "vgg3x3");
    snprintf(a->shape, sizeof a->shape, "n=16,c=64,h=224,w=224,k=64,r=3,s=3,pad=1");
    snprintf(a->dtype, sizeof a->dtype, "f16");
    snprintf(a->math, sizeof a->math, "f32");
    snprintf(a->reference, sizeof a->reference, "cpu_ref");
    a->seed = 18446744073709551615ull;
    a->repeat = 20;
    a->median_ms = 1.25, a->min_ms = 1.2, a->max_ms = 1.5, a->compile_ms = 80.5;
    a->gflops = 14800.5, a->gbps = 1234.5;
    a->max_norm_err = 3.5e-8, a->threshold = 1e-5, a->worst_index = 12345;
    a->outcome = XCONV_OUTCOME_PASS;

    *b = *a;
    snprintf(b->device, sizeof b->device,
             "Dev \"quoted\", back\\slash\ttab\nnewline \x01 caf\xc3\xa9");
    snprintf(b->backend, sizeof b->backend, "opencl");
    snprintf(b->variant, sizeof b->variant, "gemm_im2col");
    snprintf(b->family, sizeof b->family, "gemm");
    b->shape_name[0] = '\0';
    snprintf(b->shape, sizeof b->shape, "n=1,c=3,h=5,w=5,k=2,r=3");
    b->max_norm_err = 0.125, b->worst_index = 7;
    b->gflops = NAN, b->gbps = INFINITY;
    b->outcome = XCONV_OUTCOME_FAIL;
    snprintf(b->note, sizeof b->note, "worst at n=0 k=0 p=2 q=1, \"bad\" \xff byte");

    snprintf(c->device, sizeof c->device, "pocl-cpu");
    snprintf(c->backend, sizeof c->backend, "opencl");
    snprintf(c->variant, sizeof c->variant, "winograd_f2x3");
    snprintf(c->family, sizeof c->family, "winograd");
    snprintf(c->shape_name, sizeof c->shape_name, "resnet_1x1");
    c->median_ms = c->min_ms = c->max_ms = c->gflops = c->gbps = c->max_norm_err = NAN;
    c->worst_index = -1;
    c->outcome = XCONV_OUTCOME_NOT_APPLICABLE;
    snprintf(c->note, sizeof c->note, "needs r=s=3 and stride 1 (got r=1)\nsecond line");
}

// ---------------------------------------------------------------------------------------------
// Tests

// The one record list: adding (zeroed records that say nothing was measured), counting
// failures, growing past its first capacity, freeing.
static void test_list(void)
{
    xconv_record_list list;
    char *argv[] = {"xconv", "validate", NULL};
    xconv_record_list_init(&list, 2, argv);
    CHECK(strcmp(list.info.command, "xconv validate") == 0 && list.count == 0);
    for (int i = 0; i < 100; i++) {
        xconv_record *r = xconv_record_list_add(&list);
        CHECK(r && r->worst_index == -1 && isnan(r->max_norm_err) && !r->cmp.present);
        CHECK(r && isnan(r->median_ms) && isnan(r->min_ms) && isnan(r->max_ms) &&
              isnan(r->compile_ms) && isnan(r->gflops) && isnan(r->gbps) &&
              isnan(r->cmp.ratio) && isnan(r->cmp.other_ms));
        r->outcome = i % 10 == 0 ? XCONV_OUTCOME_FAIL
                     : i % 10 == 1 ? XCONV_OUTCOME_ERROR : XCONV_OUTCOME_PASS;
    }
    CHECK(list.count == 100 && xconv_record_list_failed(&list) == 20);
    xconv_record_list_free(&list);
    CHECK(list.count == 0 && list.recs == NULL);
}

// Parity's records: a pair compared bit for bit; JSON and CSV add the comparison's fields, and
// the comparisons' table shows one row per pair.
static void test_comparisons(void)
{
    xconv_record recs[3];
    sample_records(recs);
    for (int i = 0; i < 2; i++) {
        recs[i].outcome = XCONV_OUTCOME_PASS;
        recs[i].median_ms = 2.0 + 2.0 * i;
        recs[i].cmp = (xconv_comparison){.present = true, .compared = true, .differing = 3,
                                         .max_ulp = 2, .worst_index = 7, .other_ms = 4.0 - 2 * i,
                                         .ratio = i ? 2.0 : 0.5};
        snprintf(recs[i].cmp.other, sizeof recs[i].cmp.other, "%s", i ? "opencl" : "cuda");
    }
    CHECK(!xconv_comparison_passed(&recs[0]));  // three elements differ
    recs[0].cmp.differing = 0;
    CHECK(xconv_comparison_passed(&recs[0]) && !xconv_comparison_passed(&recs[2]));
    xconv_run_info info;
    xconv_run_info_init(&info, 0, NULL);
    char *json = NULL, *csv = NULL, *table = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    CHECK(xconv_records_write_json(f, &info, recs, 2) == 0);
    fclose(f);
    CHECK_CONTAINS(json, "\"kind\": \"parity\"");
    CHECK_CONTAINS(json, "\"bitwise_identical\": true, \"differing_elements\": 0");
    CHECK_CONTAINS(json, "\"other_backend\": \"cuda\", \"other_median_ms\": 4");
    CHECK_CONTAINS(json, "\"time_ratio\": 0.5}");
    f = open_memstream(&csv, &len);
    CHECK(xconv_records_write_csv(f, recs, 2) == 0);
    fclose(f);
    CHECK_CONTAINS(csv, ",compared,bitwise_identical,differing_elements,max_ulp,other_backend");
    f = open_memstream(&table, &len);
    CHECK(xconv_records_write_comparisons(f, recs, 2) == 0);
    fclose(f);
    CHECK_CONTAINS(table, "yes");
    CHECK_CONTAINS(table, "backend check failed or outputs differ");  // recs[1] differs
    free(json);
    free(csv);
    free(table);
    // Records without a comparison write no comparison fields.
    f = open_memstream(&json, &len);
    CHECK(xconv_records_write_json(f, &info, recs + 2, 1) == 0);
    fclose(f);
    CHECK(strstr(json, "bitwise_identical") == NULL && strstr(json, "parity") == NULL);
    free(json);
}

static void test_outcome_names(void)
{
    CHECK(strcmp(xconv_outcome_name(XCONV_OUTCOME_PASS), "pass") == 0);
    CHECK(strcmp(xconv_outcome_name(XCONV_OUTCOME_FAIL), "FAIL") == 0);
    CHECK(strcmp(xconv_outcome_name(XCONV_OUTCOME_NOT_APPLICABLE), "n/a") == 0);
    CHECK(strcmp(xconv_outcome_name(XCONV_OUTCOME_ERROR), "error") == 0);
}

static void test_run_info(void)
{
    char *argv[] = { "xconv", "bench", "--shape", "n=1,c=3", "--note", "it's here", NULL };
    xconv_run_info info;
    xconv_run_info_init(&info, 6, argv);
    CHECK(strcmp(info.tool_version, XCONV_VERSION) == 0);
    CHECK(info.commit[0] != '\0');
    CHECK_MSG(strlen(info.date) == 20 && info.date[4] == '-' && info.date[10] == 'T' &&
                  info.date[19] == 'Z', "date %s", info.date);
    CHECK_MSG(strcmp(info.command, "xconv bench --shape n=1,c=3 --note 'it'\\''s here'") == 0,
              "command %s", info.command);

    // A command line longer than the field is cut and marked.
    char longarg[700];
    memset(longarg, 'a', sizeof longarg - 1);
    longarg[sizeof longarg - 1] = '\0';
    char *argv2[] = { "xconv", longarg, NULL };
    xconv_run_info_init(&info, 2, argv2);
    size_t len = strlen(info.command);
    CHECK(len == sizeof info.command - 1 && strcmp(info.command + len - 3, "...") == 0);
}

static void test_json(void)
{
    xconv_record recs[3];
    sample_records(recs);
    xconv_run_info info;
    char *argv[] = { "xconv", "bench", "--json", "out \"x\".json", NULL };
    xconv_run_info_init(&info, 4, argv);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(xconv_records_write_json(f, &info, recs, 3) == 0);
    char *text = slurp(f);
    fclose(f);
    check_json_shape(text);
    CHECK_CONTAINS(text, "\"tool\": \"xconv\"");
    CHECK_CONTAINS(text, "\"version\": \"" XCONV_VERSION "\"");
    CHECK_CONTAINS(text, "\"records\": [");
    CHECK_CONTAINS(text, "\"device\": \"Dev \\\"quoted\\\", back\\\\slash\\ttab\\nnewline "
                         "\\u0001 caf\xc3\xa9\"");
    CHECK_CONTAINS(text, "\\ufffd byte");
    CHECK_CONTAINS(text, "\"gflops\": null");
    CHECK_CONTAINS(text, "\"gbps\": null");
    CHECK_CONTAINS(text, "\"pass\": true");
    CHECK_CONTAINS(text, "\"outcome\": \"fail\"");
    CHECK_CONTAINS(text, "\"outcome\": \"not_applicable\"");
    CHECK_CONTAINS(text, "\"seed\": 18446744073709551615");
    CHECK_CONTAINS(text, "\"threshold\": 1e-05");

    if (have_python()) {
        const char *script =
            "import json, sys, math\n"
            "d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
            "assert d[\"tool\"] == \"xconv\" and len(d[\"records\"]) == 3\n"
            "keys = \"device backend driver libraries variant family shape_name shape dtype math "
            "reference "
            "seed repeat median_ms min_ms max_ms compile_ms gflops gbps floor_ms floor_share "
            "max_norm_err error_block_h "
            "error_block_w max_block_err threshold worst_index pass outcome note\".split()\n"
            "assert all(list(r) == keys for r in d[\"records\"])\n"
            "a, b, c = d[\"records\"]\n"
            "assert b[\"device\"] == \"Dev \\\"quoted\\\", back\\\\slash\\ttab\\nnewline "
            "\\x01 caf\\u00e9\", b[\"device\"]\n"
            "assert a[\"pass\"] is True and b[\"pass\"] is False and b[\"gflops\"] is None\n"
            "assert a[\"median_ms\"] == 1.25 and a[\"worst_index\"] == 12345\n"
            "assert a[\"seed\"] == 2**64 - 1 and c[\"worst_index\"] == -1\n"
            "assert c[\"outcome\"] == \"not_applicable\" and \"second line\" in c[\"note\"]\n"
            "assert \"out \\\"x\\\".json\" in d[\"command\"]\n";
        CHECK_MSG(run_python(text, script) == 0, "python3 rejected the JSON:\n%s", text);
    } else {
        printf("python3 not found: JSON checked by shape only\n");
    }
    free(text);

    // No records still gives a valid document.
    f = tmpfile();
    CHECK(xconv_records_write_json(f, &info, NULL, 0) == 0);
    text = slurp(f);
    fclose(f);
    check_json_shape(text);
    CHECK_CONTAINS(text, "\"records\": []");
    if (have_python())
        CHECK(run_python(text, "import json,sys; assert json.load(open(sys.argv[1]))"
                               "[\"records\"] == []") == 0);
    free(text);
}

static void test_csv(void)
{
    xconv_record recs[3];
    sample_records(recs);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(xconv_records_write_csv(f, recs, 3) == 0);
    char *text = slurp(f);
    fclose(f);
    const char *header = "device,backend,driver,libraries,variant,family,shape_name,shape,"
                         "dtype,math,reference,seed,"
                         "repeat,median_ms,min_ms,max_ms,compile_ms,gflops,gbps,floor_ms,floor_share,"
                         "max_norm_err,"
                         "error_block_h,error_block_w,max_block_err,threshold,worst_index,pass,"
                         "outcome,note\n";
    CHECK(strncmp(text, header, strlen(header)) == 0);
    CHECK_CONTAINS(text, "\nNVIDIA H100 80GB HBM3,cuda,12.4,\"CUDA driver 12.4, cuDNN 9.1.0\","
                         "direct_tiled,direct,vgg3x3,"
                         "\"n=16,c=64,h=224,w=224,k=64,r=3,s=3,pad=1\",f16,f32,cpu_ref,");
    CHECK_CONTAINS(text, "\"Dev \"\"quoted\"\", back\\slash\ttab\nnewline \x01 caf\xc3\xa9\"");
    CHECK_CONTAINS(text, ",true,pass,\n");
    CHECK_CONTAINS(text, ",false,fail,\"worst at n=0 k=0 p=2 q=1, \"\"bad\"\" \xff byte\"\n");
    CHECK_CONTAINS(text, ",,,,");  // non-finite numbers are empty cells
    if (have_python()) {
        const char *script =
            "import csv, sys\n"
            "rows = list(csv.reader(open(sys.argv[1], newline=\"\", encoding=\"latin-1\")))\n"
            "assert len(rows) == 4 and all(len(r) == 30 for r in rows), rows\n"
            "assert rows[2][0].startswith(\"Dev \\\"quoted\\\", back\"), rows[2][0]\n"
            "assert rows[1][7] == \"n=16,c=64,h=224,w=224,k=64,r=3,s=3,pad=1\"\n"
            "assert rows[3][28] == \"not_applicable\" and rows[3][17] == \"\"\n";
        CHECK_MSG(run_python(text, script) == 0, "python3 rejected the CSV:\n%s", text);
    }
    free(text);
}

// Returns what xconv_records_write_table wrote for recs (malloc'd).
static char *table_text(const xconv_record *recs, int n, bool timings, bool all)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(xconv_records_write_table(f, recs, n, timings, all) == 0);
    fclose(f);
    return text;
}

static void test_table(void)
{
    xconv_record recs[3];
    sample_records(recs);
    char *text = table_text(recs, 3, true, true);
    printf("%s", text);
    CHECK_CONTAINS(text, "median ms");
    CHECK_CONTAINS(text, "GFLOP/s");
    CHECK_CONTAINS(text, "device NVIDIA H100 80GB HBM3 (backend cuda)\nvariant ");
    CHECK_CONTAINS(text, "vgg3x3");
    CHECK_CONTAINS(text, "n=1,c=3,h=5,w=5,k=2,r=3");  // ad-hoc shape shown by its spec
    CHECK_CONTAINS(text, "14800.5");
    CHECK_CONTAINS(text, "1.2500");
    CHECK_CONTAINS(text, "3.50e-08");
    CHECK_CONTAINS(text, "FAIL");
    CHECK_CONTAINS(text, "n/a");
    CHECK_CONTAINS(text, "    note: needs r=s=3 and stride 1 (got r=1) ...\n");
    CHECK_CONTAINS(text, "    note: worst at n=0 k=0 p=2 q=1");

    // Three devices, three blocks: a device line, the titles and a row each, two notes, blank
    // lines between blocks; the awkward device name's tab and newline did not leak.
    int lines = 0, notes = 0, blocks = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        notes += strncmp(line, "    note: ", 10) == 0;
        blocks += strncmp(line, "device ", 7) == 0;
        CHECK(strchr(line, '\t') == NULL);
    }
    CHECK_MSG(lines == 11 && notes == 2 && blocks == 3, "%d lines, %d notes, %d blocks", lines,
              notes, blocks);
    free(text);

    // Folded: the not-applicable record is one line naming its variant, without its note.
    text = table_text(recs, 3, true, false);
    CHECK_CONTAINS(text, "\n  n/a on resnet_1x1: winograd_f2x3 (xconv explain says why)\n");
    CHECK(strstr(text, "needs r=s=3") == NULL);
    CHECK_CONTAINS(text, "    note: worst at n=0 k=0 p=2 q=1");  // a failure keeps its note
    free(text);

    // Without timings the timing columns are left out.
    text = table_text(recs, 3, false, false);
    CHECK(strstr(text, "median ms") == NULL && strstr(text, "GFLOP/s") == NULL);
    CHECK_CONTAINS(text, "max err");
    free(text);

    // A long device name is written whole on its block's line.
    memset(recs[0].device, 'D', 200);
    recs[0].device[200] = '\0';
    text = table_text(recs, 1, false, false);
    char want[320];
    snprintf(want, sizeof want, "device %s (backend cuda)\n", recs[0].device);
    CHECK_CONTAINS(text, want);
    free(text);

    // One shape: the block names it once and the rows leave its column out; the variants that
    // do not apply fold into "n/a:".
    sample_records(recs);
    recs[1] = recs[0];
    snprintf(recs[1].variant, sizeof recs[1].variant, "gemm_1x1");
    recs[1].outcome = XCONV_OUTCOME_NOT_APPLICABLE;
    recs[2] = recs[1];
    snprintf(recs[2].variant, sizeof recs[2].variant, "fft");
    text = table_text(recs, 3, true, false);
    printf("%s", text);
    CHECK_CONTAINS(text, "device NVIDIA H100 80GB HBM3 (backend cuda)\nshape vgg3x3\nvariant ");
    CHECK(strstr(text, "  shape ") == NULL);
    CHECK_CONTAINS(text, "\n  n/a: gemm_1x1, fft (xconv explain says why)\n");
    free(text);
    text = table_text(recs, 0, true, false);
    CHECK(strcmp(text, "(no records)\n") == 0);
    free(text);
}

// The roofline floor: set from the peaks, unknown without them, written (JSON, CSV, a table
// column) only when some record has one.
static void test_floor(void)
{
    xconv_problem p;
    xconv_shape_parse("n=2,c=16,h=28,w=28,k=32,r=3,pad=1", &p, NULL);
    xconv_record recs[3];
    sample_records(recs);
    for (int i = 0; i < 3; i++)
        xconv_record_set_floor(&recs[i], &p, 0, 0);
    CHECK(isnan(recs[0].floor_ms) && isnan(recs[0].floor_share));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    xconv_run_info info;
    xconv_run_info_init(&info, 0, NULL);
    CHECK(xconv_records_write_json(f, &info, recs, 3) == 0);
    CHECK(xconv_records_write_table(f, recs, 3, true, true) == 0);
    fclose(f);
    // Unknown peaks: the fields are null and the table's column says '-'.
    CHECK_CONTAINS(text, "\"floor_ms\": null, \"floor_share\": null");
    CHECK(strstr(text, "%") == NULL);
    free(text);

    // 1 TFLOP/s and 100 GB/s.
    double flops = xconv_problem_flops(&p), bytes = xconv_problem_min_bytes(&p);
    double want = fmax(flops / 1e12, bytes / 1e11) * 1e3;
    for (int i = 0; i < 3; i++)
        xconv_record_set_floor(&recs[i], &p, 1000, 100);
    CHECK(fabs(recs[0].floor_ms - want) < 1e-15 && fabs(recs[0].floor_share - want / 1.25) <
          1e-15);
    CHECK(recs[2].floor_ms == want && isnan(recs[2].floor_share));  // n/a: a floor, no time
    recs[1].repeat = 0;  // check-only: no share
    xconv_record_set_floor(&recs[1], &p, 1000, 100);
    CHECK(isnan(recs[1].floor_share));
    text = NULL;
    f = open_memstream(&text, &len);
    CHECK(xconv_records_write_json(f, &info, recs, 3) == 0);
    CHECK(xconv_records_write_csv(f, recs, 3) == 0);
    CHECK(xconv_records_write_table(f, recs, 3, true, true) == 0);
    fclose(f);
    char key[64];
    snprintf(key, sizeof key, "\"floor_ms\": %.9g, \"floor_share\": %.9g", want, want / 1.25);
    CHECK_CONTAINS(text, key);
    CHECK_CONTAINS(text, "\"floor_share\": null");
    CHECK_CONTAINS(text, ",gbps,floor_ms,floor_share,max_norm_err,");
    CHECK_CONTAINS(text, "of floor");
    char pct[32];
    snprintf(pct, sizeof pct, "%.1f%%", want / 1.25 * 100);
    CHECK_CONTAINS(text, pct);
    free(text);
}

// A full disk (/dev/full) makes every writer return -1.
static void test_write_errors(void)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f) {
        printf("/dev/full not available: write errors not tested\n");
        return;
    }
    xconv_record recs[3];
    sample_records(recs);
    xconv_run_info info;
    xconv_run_info_init(&info, 0, NULL);
    CHECK(xconv_records_write_json(f, &info, recs, 3) == -1);
    clearerr(f);
    CHECK(xconv_records_write_csv(f, recs, 3) == -1);
    clearerr(f);
    errno = 0;
    CHECK(xconv_records_write_table(f, recs, 3, true, false) == -1);
    CHECK(errno != 0);
    fclose(f);
}

// Returns what writing through fn gave (malloc'd).
static char *capture(void (*fn)(FILE *f, const xconv_record *recs, int n, bool cmp),
                     const xconv_record *recs, int n, bool cmp)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fn(f, recs, n, cmp);
    fclose(f);
    return text;
}

static xconv_run_info stream_info;

// The JSON file a record at a time, as a streaming writer makes it.
static void json_pieces(FILE *f, const xconv_record *recs, int n, bool cmp)
{
    xconv_json_write_head(f, &stream_info, cmp ? "parity" : NULL);
    for (int i = 0; i < n; i++)
        xconv_json_write_record(f, &recs[i], i == 0, cmp);
    fputs(xconv_json_closing(n > 0), f);
}

static void json_whole(FILE *f, const xconv_record *recs, int n, bool cmp)
{
    (void)cmp;
    xconv_records_write_json(f, &stream_info, recs, n);
}

static void csv_pieces(FILE *f, const xconv_record *recs, int n, bool cmp)
{
    xconv_csv_write_header(f, cmp);
    for (int i = 0; i < n; i++)
        xconv_csv_write_row(f, &recs[i], cmp);
}

static void csv_whole(FILE *f, const xconv_record *recs, int n, bool cmp)
{
    (void)cmp;
    xconv_records_write_csv(f, recs, n);
}

// The table fitted to every record, then written a row at a time.
static void table_pieces(FILE *f, const xconv_record *recs, int n, bool timings)
{
    xconv_table t;
    xconv_table_init(&t, timings);
    for (int i = 0; i < n; i++)
        xconv_table_fit(&t, &recs[i]);
    for (int i = 0; i < n; i++)
        xconv_table_write_record(f, &t, &recs[i]);
    xconv_table_finish(f, &t);
}

static void table_whole(FILE *f, const xconv_record *recs, int n, bool timings)
{
    xconv_records_write_table(f, recs, n, timings, false);
}

// The streaming writers' pieces give the very bytes of the whole-file writers, with and
// without records; a table fitted to stand-ins keeps every row as wide as its header.
static void test_pieces(void)
{
    xconv_record recs[3];
    sample_records(recs);
    xconv_run_info_init(&stream_info, 0, NULL);
    for (int n = 0; n <= 3; n += 3) {
        char *a = capture(json_pieces, recs, n, false), *b = capture(json_whole, recs, n, false);
        CHECK_MSG(strcmp(a, b) == 0, "JSON of %d records a piece at a time:\n%s\nwhole:\n%s", n,
                  a, b);
        free(a);
        free(b);
        a = capture(csv_pieces, recs, n, false), b = capture(csv_whole, recs, n, false);
        CHECK(strcmp(a, b) == 0);
        free(a);
        free(b);
    }
    char *a = capture(table_pieces, recs, 3, true), *b = capture(table_whole, recs, 3, true);
    CHECK(strcmp(a, b) == 0);
    free(a);
    free(b);

    // Stand-ins with the names and no numbers, widened for numbers to come.
    xconv_table t;
    xconv_table_init(&t, true);
    xconv_record standin;
    xconv_record_clear(&standin);
    snprintf(standin.device, sizeof standin.device, "%s", recs[0].device);
    snprintf(standin.variant, sizeof standin.variant, "%s", recs[0].variant);
    snprintf(standin.shape_name, sizeof standin.shape_name, "%s", recs[0].shape_name);
    xconv_table_fit(&t, &standin);
    xconv_table_fit_numbers(&t);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(xconv_table_write_record(f, &t, &recs[0]) == 0);
    fclose(f);
    char *titles = strstr(text, "\nvariant");  // after the device's (and shape's) line
    titles = titles ? titles + 1 : text;
    char *second = strchr(titles, '\n');
    CHECK(second && strchr(second + 1, '\n') &&
          strchr(second + 1, '\n') - (second + 1) == second - titles);
    free(text);
}

int main(void)
{
    test_list();
    test_comparisons();
    test_outcome_names();
    test_run_info();
    test_json();
    test_csv();
    test_table();
    test_pieces();
    test_floor();
    test_write_errors();
    return check_summary("test_record");
}
