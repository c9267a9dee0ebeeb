// SPDX-License-Identifier: MIT
// Tests of the results-file loader (report/run_file.c, over Jansson): refusals naming the field,
// every results file of record, round trips through both writers, and truncated and garbled
// inputs (which must be refused or read, never crash: run it under ASan too). The JSON layer
// itself is tested in test_json_malformed.c.
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>

#include "check.h"
#include "../cli/report/json_read.h"
#include "../cli/report/matrix.h"

// ---------------------------------------------------------------------------------------------
// Helpers

// Returns the contents of path, NUL-terminated, length in *len (caller frees), or NULL.
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)(n > 0 ? n : 0) + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) {
        text[n] = '\0';
        *len = (size_t)n;
    }
    return text;
}

// Returns true when two doubles agree to the 9 digits the writers keep, or are both NaN.
static bool same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b || fabs(a - b) <= 1e-8 * fabs(a);
}

// ---------------------------------------------------------------------------------------------
// The loader

// A results file in today's bench format (schema 0), written by hand.
static const char legacy[] =
    "{\n  \"tool\": \"xconv\",\n  \"version\": \"0.1.0\",\n  \"commit\": \"abc\",\n"
    "  \"date\": \"2026-01-01T00:00:00Z\",\n  \"command\": \"xconv bench\",\n"
    "  \"records\": [\n"
    "    {\"device\": \"opencl:0 Dev A\", \"backend\": \"opencl\", \"driver\": \"1.0\", "
    "\"variant\": \"direct_naive\", \"family\": \"direct\", \"shape_name\": \"s1\", "
    "\"shape\": \"n=1,c=2,h=8,w=8,k=4,r=3\", \"reference\": \"cpu_ref\", \"seed\": "
    "9223372036854775807, \"repeat\": 3, \"median_ms\": 1.5, \"min_ms\": 1.25, \"max_ms\": 2, "
    "\"compile_ms\": null, \"gflops\": 10, \"gbps\": 2, \"max_norm_err\": 1e-07, \"threshold\": "
    "1e-05, \"worst_index\": 7, \"pass\": true, \"outcome\": \"pass\", \"note\": \"ok\"},\n"
    "    {\"device\": \"cuda:0 Dev B\", \"variant\": \"direct_const\", \"shape\": "
    "\"n=1,c=2,h=8,w=8,k=4,r=3\", \"outcome\": \"not_applicable\", \"pass\": false, "
    "\"extra_key\": [1, {\"x\": null}]}\n  ]\n}\n";

// Loads text as a results file, expecting failure with both needles in the message.
static void load_bad(const char *text, const char *needle, const char *needle2)
{
    xconv_run_file run;
    xconv_error err = {0};
    xconv_status st = xconv_run_file_parse(text, strlen(text), "t.json", &run, &err);
    CHECK_MSG(st == XCONV_ERR_PARSE, "accepted (%d): %.80s", st, text);
    CHECK_CONTAINS(err.msg, "t.json: ");
    CHECK_CONTAINS(err.msg, needle);
    if (needle2)
        CHECK_CONTAINS(err.msg, needle2);
    CHECK(run.recs == NULL && run.count == 0 && run.devices == NULL);
}

// Returns legacy with the first `from` replaced by `to` (static buffer).
static const char *legacy_with(const char *from, const char *to)
{
    static char buf[sizeof legacy + 512];
    const char *hit = strstr(legacy, from);
    CHECK_MSG(hit != NULL, "'%s' not in the sample", from);
    if (!hit)
        return legacy;
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(hit - legacy), legacy, to, hit + strlen(from));
    return buf;
}

static void test_load_legacy(void)
{
    xconv_run_file run;
    xconv_error err = {0};
    xconv_status st = xconv_run_file_parse(legacy, strlen(legacy), "t.json", &run, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st)
        return;
    CHECK(run.schema_version == 0 && run.count == 2);
    CHECK(strcmp(run.info.commit, "abc") == 0 && strcmp(run.info.command, "xconv bench") == 0);
    const xconv_record *a = &run.recs[0].rec, *b = &run.recs[1].rec;
    CHECK(strcmp(a->device, "opencl:0 Dev A") == 0 && a->seed == INT64_MAX && a->repeat == 3);
    CHECK(a->median_ms == 1.5 && a->min_ms == 1.25 && a->max_ms == 2 && isnan(a->compile_ms));
    CHECK(a->worst_index == 7 && a->outcome == XCONV_OUTCOME_PASS && strcmp(a->note, "ok") == 0);
    CHECK(isnan(run.recs[0].rec.floor_ms) && run.recs[0].auto_pick == -1);
    CHECK(b->outcome == XCONV_OUTCOME_NOT_APPLICABLE && isnan(b->median_ms) &&
          b->worst_index == -1 && b->backend[0] == '\0');
    // Devices come from the records: id, the name after the index, backend and driver.
    CHECK(run.ndevices == 2);
    const xconv_matrix_device *d = xconv_run_file_device(&run, "opencl:0 Dev A");
    CHECK(d && strcmp(d->name, "Dev A") == 0 && strcmp(d->backend, "opencl") == 0 &&
          strcmp(d->driver, "1.0") == 0 && d->peak_gflops == 0);
    CHECK(xconv_run_file_device(&run, "cuda:0 Dev B") != NULL);
    xconv_run_file_free(&run);
    CHECK(run.recs == NULL && run.count == 0);

    // Refusals, each naming where, what, and the byte.
    load_bad("[]", "t.json: top level: wants an object, got an array", NULL);
    load_bad("", "t.json: byte 0 (line 1, column 0): ", "near end of file");
    load_bad("{\"records\": []}", "not an xconv results file", NULL);
    load_bad("{\"devices\": [], \"unavailable\": {}}", "not an xconv results file", NULL);
    load_bad("{\"tool\": \"xconv\", \"kind\": \"parity\", \"records\": []}", "\"parity\"",
             "only bench, validate and matrix");
    load_bad("{\"tool\": \"xconv\"}", "lacks \"records\"", NULL);
    load_bad("{\"tool\": \"xconv\", \"records\": {}}", "records: wants an array", NULL);
    load_bad("{\"tool\": \"xconv\", \"records\": [1]}", "records[0]: wants an object", NULL);
    load_bad("{\"tool\": \"xconv\", \"schema_version\": 2, \"devices\": [], \"records\": []}",
             "2 is newer than this xconv reads (1)", NULL);
    load_bad("{\"tool\": \"xconv\", \"schema_version\": 1.5, \"records\": []}",
             "t.json: schema_version: wants an integer, got 1.5", NULL);
    load_bad("{\"tool\": \"xconv\", \"schema_version\": 1, \"records\": []}", "lacks \"devices\"",
             NULL);
    load_bad(legacy_with("\"variant\": \"direct_const\", ", ""), "records[1]", "lacks \"variant\"");
    load_bad(legacy_with("\"median_ms\": 1.5", "\"median_ms\": \"1.5\""),
             "t.json: records[0].median_ms: ", "wants a number or null, got a string");
    load_bad(legacy_with("\"repeat\": 3", "\"repeat\": 3.5"), "records[0].repeat",
             "wants an integer, got 3.5");
    load_bad(legacy_with("\"repeat\": 3", "\"repeat\": 3000000000"), "records[0].repeat",
             "out of range");
    load_bad(legacy_with("\"seed\": 9223372036854775807", "\"seed\": -1"), "records[0].seed",
             "-1 is out of range [0, 9223372036854775807]");
    // Seeds past int64_t (the CLI refuses them) are beyond Jansson's integers.
    load_bad(legacy_with("\"seed\": 9223372036854775807", "\"seed\": 18446744073709551615"),
             "t.json: byte ", "too big integer near '18446744073709551615'");
    load_bad(legacy_with("\"outcome\": \"pass\"", "\"outcome\": \"PASS\""), "records[0].outcome",
             "wants \"pass\"");
    load_bad(legacy_with("\"pass\": true", "\"pass\": false"), "records[0]",
             "\"pass\" disagrees with \"outcome\" \"pass\"");
    load_bad(legacy_with("\"family\": \"direct\"", "\"family\": \"a_family_name_too_long\""),
             "records[0].family", "longer than the 15");
    load_bad(legacy_with("\"backend\": \"opencl\"", "\"backend\": 1"), "records[0].backend",
             "wants a string, got a number");
    load_bad(legacy_with("\"note\": \"ok\"}", "\"note\": \"ok\", \"note\": \"again\"}"),
             "duplicate object key near '\"note\"'", NULL);
    load_bad(legacy_with("\"records\": [", "\"shapes\": [{\"shape\": \"x\", \"weight\": 0}], "
                                           "\"records\": ["),
             "shapes[0]", "weight must be a positive number");
    load_bad(legacy + 1, "end of file expected near ':'", NULL);  // "\n  \"tool\"..." is a string
    char truncated[sizeof legacy];
    snprintf(truncated, sizeof truncated, "%.*s", (int)sizeof legacy / 2, legacy);
    load_bad(truncated, "t.json: byte", "near end of file");
}

// A matrix file (schema 1) with every kind of field, including odd strings and unknowns.
static void make_matrix(xconv_run_file *run)
{
    memset(run, 0, sizeof *run);
    snprintf(run->info.tool_version, sizeof run->info.tool_version, "0.1.0");
    snprintf(run->info.commit, sizeof run->info.commit, "abc123-dirty");
    snprintf(run->info.date, sizeof run->info.date, "2026-01-01T00:00:00Z");
    snprintf(run->info.command, sizeof run->info.command, "xconv matrix --json 'a b.json'");
    snprintf(run->host, sizeof run->host, "node-07");
    run->ndevices = 2;
    run->devices = calloc(2, sizeof *run->devices);
    xconv_matrix_device *d = &run->devices[0];
    snprintf(d->id, sizeof d->id, "cuda:0 GPU \"X\"");
    snprintf(d->name, sizeof d->name, "GPU \"X\"");
    snprintf(d->backend, sizeof d->backend, "cuda");
    snprintf(d->driver, sizeof d->driver, "13.0");
    snprintf(d->platform, sizeof d->platform, "CUDA");
    d->compute_units = 132;
    d->clock_mhz = 1980;
    d->peak_gflops = 51200.5;
    d->peak_gbps = 3000;
    d->peak_gbps_read = 0;
    snprintf(d->peaks_source, sizeof d->peaks_source, "measured");
    snprintf(run->devices[1].id, sizeof run->devices[1].id, "opencl:1 CPU \xC3\xA9");
    run->nshapes = 1;
    run->shapes = calloc(1, sizeof *run->shapes);
    snprintf(run->shapes[0].name, sizeof run->shapes[0].name, "resnet50:conv1");
    snprintf(run->shapes[0].shape, sizeof run->shapes[0].shape, "n=1,c=3,h=8,w=8,k=4,r=3");
    run->shapes[0].weight = 2.5;
    snprintf(run->shapes[0].set, sizeof run->shapes[0].set, "resnet50.shapes");
    run->count = 3;
    run->recs = calloc(3, sizeof *run->recs);
    for (int i = 0; i < 3; i++) {
        xconv_matrix_record *m = &run->recs[i];
        xconv_record *r = &m->rec;
        snprintf(r->device, sizeof r->device, "%s", run->devices[i == 2].id);
        snprintf(r->variant, sizeof r->variant, "v%d", i);
        snprintf(r->shape, sizeof r->shape, "n=1,c=3,h=8,w=8,k=4,r=3");
        snprintf(r->note, sizeof r->note, "tab\there, newline\nthere, back\\slash");
        r->seed = 1ull << 60;
        r->repeat = 20;
        r->median_ms = 0.1 * (i + 1);
        r->min_ms = 0.09;
        r->max_ms = i == 1 ? NAN : 0.2;
        r->compile_ms = 12.5;
        r->gflops = 1e5 / 3;
        r->gbps = 123.456789;
        r->max_norm_err = 1.23456789e-7;
        r->threshold = 1e-5;
        r->worst_index = i == 0 ? -1 : 123456789012LL;
        r->outcome = (xconv_outcome)i;
        m->rec.floor_ms = i == 2 ? NAN : 0.05;
        m->rec.floor_share = i == 2 ? NAN : 0.5 / (i + 1);
        m->auto_pick = i - 1;
    }
}

// Writes run through the matrix writer and reads it back; returns the status.
static xconv_status round_trip(const xconv_run_file *run, xconv_run_file *back, xconv_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && xconv_matrix_write_json(f, run) == 0);
    fclose(f);
    xconv_status st = xconv_run_file_parse(text, len, "round.json", back, err);
    free(text);
    return st;
}

static bool same_record(const xconv_record *a, const xconv_record *b)
{
    return !strcmp(a->device, b->device) && !strcmp(a->backend, b->backend) &&
           !strcmp(a->driver, b->driver) && !strcmp(a->variant, b->variant) &&
           !strcmp(a->family, b->family) && !strcmp(a->shape_name, b->shape_name) &&
           !strcmp(a->shape, b->shape) && !strcmp(a->reference, b->reference) &&
           a->seed == b->seed && a->repeat == b->repeat &&
           same_double(a->median_ms, b->median_ms) && same_double(a->min_ms, b->min_ms) &&
           same_double(a->max_ms, b->max_ms) && same_double(a->compile_ms, b->compile_ms) &&
           same_double(a->gflops, b->gflops) && same_double(a->gbps, b->gbps) &&
           same_double(a->max_norm_err, b->max_norm_err) &&
           same_double(a->threshold, b->threshold) && a->worst_index == b->worst_index &&
           a->outcome == b->outcome && !strcmp(a->note, b->note);
}

static void test_round_trips(void)
{
    xconv_run_file run, back;
    xconv_error err = {0};
    make_matrix(&run);
    xconv_status st = round_trip(&run, &back, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (!st) {
        CHECK(back.schema_version == 1 && strcmp(back.host, "node-07") == 0);
        CHECK(strcmp(back.info.command, run.info.command) == 0);
        CHECK(back.ndevices == 2 && back.nshapes == 1 && back.count == 3);
        const xconv_matrix_device *d = &back.devices[0];
        CHECK(strcmp(d->id, run.devices[0].id) == 0 && strcmp(d->name, "GPU \"X\"") == 0);
        CHECK(d->compute_units == 132 && d->clock_mhz == 1980 && d->peak_gflops == 51200.5 &&
              d->peak_gbps == 3000 && d->peak_gbps_read == 0 &&
              strcmp(d->peaks_source, "measured") == 0);
        CHECK(strcmp(back.devices[1].id, run.devices[1].id) == 0);
        CHECK(strcmp(back.shapes[0].name, "resnet50:conv1") == 0 &&
              back.shapes[0].weight == 2.5 && strcmp(back.shapes[0].set, "resnet50.shapes") == 0);
        for (int i = 0; i < 3 && back.count == 3; i++) {
            CHECK_MSG(same_record(&run.recs[i].rec, &back.recs[i].rec), "record %d differs", i);
            CHECK(same_double(run.recs[i].rec.floor_ms, back.recs[i].rec.floor_ms));
            CHECK(same_double(run.recs[i].rec.floor_share, back.recs[i].rec.floor_share));
            CHECK(run.recs[i].auto_pick == back.recs[i].auto_pick);
        }
        xconv_run_file_free(&back);
    }
    // A matrix record naming a device the block lacks is refused.
    snprintf(run.recs[1].rec.device, sizeof run.recs[1].rec.device, "cuda:9 nowhere");
    CHECK(round_trip(&run, &back, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "[1] names device \"cuda:9 nowhere\", which \"devices\" lacks");
    snprintf(run.devices[1].id, sizeof run.devices[1].id, "%s", run.devices[0].id);
    CHECK(round_trip(&run, &back, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "devices[1]: id \"cuda:0 GPU \"X\"\" appears twice");
    xconv_run_file_free(&run);

    // Today's writer (report/record_export.c) reads back field for field, as schema 0.
    make_matrix(&run);
    xconv_record recs[3];
    for (int i = 0; i < 3; i++)
        recs[i] = run.recs[i].rec;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && xconv_records_write_json(f, &run.info, recs, 3) == 0);
    fclose(f);
    st = xconv_run_file_parse(text, len, "bench.json", &back, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (!st) {
        CHECK(back.schema_version == 0 && back.count == 3 && back.ndevices == 2);
        for (int i = 0; i < 3 && back.count == 3; i++) {
            CHECK_MSG(same_record(&recs[i], &back.recs[i].rec), "bench record %d differs", i);
            CHECK(same_double(recs[i].floor_ms, back.recs[i].rec.floor_ms));  // bench's floors
            CHECK(same_double(recs[i].floor_share, back.recs[i].rec.floor_share));
        }
        xconv_run_file_free(&back);
    }
    free(text);
    xconv_run_file_free(&run);
}

// ---------------------------------------------------------------------------------------------
// Every results file of record

// Loads every .json under dir (recursively) and checks what kind each is; counts them.
static void load_tree_of(const char *dir, int *loaded, int *refused)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            load_tree_of(path, loaded, refused);
            continue;
        }
        size_t n = strlen(path);
        if (n < 5 || strcmp(path + n - 5, ".json") != 0)
            continue;
        size_t len = 0;
        char *text = slurp(path, &len);
        // Files of another kind (parity, peaks, behaviour) are refused naming it, and device
        // lists as not results files.
        char kind[64] = "";
        const char *k = text ? strstr(text, "\"kind\": \"") : NULL;
        if (k)
            sscanf(k + 9, "%60[^\"]", kind + 1);
        if (kind[1]) {
            kind[0] = '"';
            strcat(kind, "\"");
        }
        bool other = kind[0] && strcmp(kind, "\"matrix\"") != 0 && strcmp(kind, "\"bench\"") != 0 &&
                     strcmp(kind, "\"validate\"") != 0;
        bool devices = text && strncmp(text, "{\n  \"devices\"", 13) == 0;
        free(text);
        xconv_run_file run;
        xconv_error err = {0};
        xconv_status st = xconv_run_file_load(path, &run, &err);
        if (other || devices) {
            CHECK_MSG(st == XCONV_ERR_PARSE, "%s: a %s file was read", path,
                      other ? kind : "devices");
            CHECK_CONTAINS(err.msg, other ? kind : "not an xconv results file");
            ++*refused;
            continue;
        }
        CHECK_MSG(st == XCONV_OK, "%s", err.msg);
        if (st)
            continue;
        ++*loaded;
        CHECK_MSG(run.count > 0 && run.ndevices > 0, "%s: %d records, %d devices", path,
                  run.count, run.ndevices);
        for (int i = 0; i < run.count; i++)
            CHECK(xconv_run_file_device(&run, run.recs[i].rec.device) != NULL);
        xconv_run_file_free(&run);
    }
    closedir(d);
}

static void test_records_of_record(void)
{
    int loaded = 0, refused = 0;
    load_tree_of("bench/results", &loaded, &refused);
    printf("bench/results: %d files read, %d parity/devices files refused\n", loaded, refused);
    CHECK(loaded > 0);
    // One file's numbers, as committed.
    xconv_run_file run;
    xconv_error err = {0};
    const char *path = "bench/results/2026-11-22-h100-da9439a-bench_direct_h100.json";
    xconv_status st = xconv_run_file_load(path, &run, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st)
        return;
    CHECK(run.count == 144 && run.ndevices == 2);
    CHECK(strcmp(run.info.commit, "da9439aca4c0") == 0);
    const xconv_record *r = &run.recs[0].rec;
    CHECK(strcmp(r->device, "opencl:0 NVIDIA H100 80GB HBM3") == 0 &&
          strcmp(r->variant, "direct_naive") == 0 && strcmp(r->shape_name, "ece408_c1") == 0 &&
          r->median_ms == 1.03312 && r->worst_index == 79247159 && r->repeat == 20);
    CHECK(strcmp(run.devices[1].name, "NVIDIA H100 80GB HBM3") == 0 &&
          strcmp(run.devices[1].backend, "cuda") == 0);
    xconv_run_file_free(&run);
    CHECK(xconv_run_file_load("/nonexistent.json", &run, &err) == XCONV_ERR_IO);
    CHECK(xconv_run_file_load("bench", &run, &err) == XCONV_ERR_IO);
}

// ---------------------------------------------------------------------------------------------
// Truncated and garbled input

// Parses text both ways; a refusal must carry a message with the byte offset.
static void survive(const char *text, size_t len)
{
    xconv_error err = {0};
    json_t *v = xconv_json_parse(text, len, &err);
    if (!v)
        CHECK_MSG(strstr(err.msg, "byte ") != NULL, "refusal without an offset: %s", err.msg);
    json_decref(v);
    xconv_run_file run;
    if (xconv_run_file_parse(text, len, "fuzz.json", &run, &err) == XCONV_OK)
        xconv_run_file_free(&run);
    else
        CHECK_MSG(strstr(err.msg, "fuzz.json: ") != NULL, "%s", err.msg);
}

static void test_fuzz(void)
{
    xconv_run_file run;
    make_matrix(&run);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && xconv_matrix_write_json(f, &run) == 0);
    fclose(f);
    xconv_run_file_free(&run);
    // Every truncation of a valid file is refused (the whole file is read).
    int refused = 0;
    for (size_t n = 0; n < len; n++) {
        xconv_error err = {0};
        json_t *v = xconv_json_parse(text, n, &err);
        refused += v == NULL;
        json_decref(v);
        survive(text, n);
    }
    // Only trailing whitespace may be cut off and still parse.
    CHECK_MSG(refused >= (int)len - 1, "%d of %zu truncations refused", refused, len);
    // Garbled: each byte replaced by characters that matter to the grammar, then random
    // multi-byte damage from a fixed-seed generator.
    char *copy = malloc(len);
    const char bytes[] = {'"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', 'e', 'x', ' ',
                          '\0', (char)0xff, (char)0xc3, 'n', 't'};
    for (size_t i = 0; i < len; i += 3) {
        for (size_t b = 0; b < sizeof bytes; b++) {
            memcpy(copy, text, len);
            copy[i] = bytes[b];
            survive(copy, len);
        }
    }
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, text, len);
        for (int k = 0; k < 1 + round % 4; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            copy[(state >> 33) % len] = (char)(state >> 17);
        }
        survive(copy, len);
    }
    free(copy);
    free(text);
}

int main(void)
{
    test_load_legacy();
    test_round_trips();
    test_records_of_record();
    test_fuzz();
    return check_summary("test_json_read");
}
