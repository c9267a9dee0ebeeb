// SPDX-License-Identifier: MIT
// Measurement records (one per device x backend x variant x shape), the one list commands
// collect them in, and their writers.
#ifndef XCONV_RECORD_H
#define XCONV_RECORD_H

#include <stdio.h>

#include <xconv/xconv.h>

// How a record's output compared bit for bit with another backend's run of the same variant on
// the same inputs (`validate --parity`); present is false for every other record.
typedef struct xconv_comparison {
    bool present;          // this record was compared (or meant to be) with another backend's
    bool compared;         // both ran and their outputs were compared
    char other[16];        // the other backend ("cuda")
    int64_t differing;     // elements whose bits differ
    uint64_t max_ulp;      // largest distance in units in the last place (UINT64_MAX: a NaN)
    int64_t worst_index;   // flat index of that element, -1 when none differs
    double other_ms;       // the other backend's median time
    double ratio;          // median_ms / other_ms, 0 when either was not timed
} xconv_comparison;

typedef struct xconv_record {
    char device[256];
    char backend[16];
    char driver[128];
    char libraries[256];   // the software under the backend, with versions (see
                           // xconv_device_libraries): the OpenCL platform, CLBlast, cuBLAS...
    char variant[48];
    char family[16];
    char shape_name[XCONV_SHAPE_NAME_MAX];  // suite or file name of the shape, "" for ad-hoc
    char shape[256];       // SPEC string
    char dtype[8];         // storage type of x, w and y ("f32", "f16", "bf16"; the SPEC's dtype)
    char math[8];          // math mode ("f32": strict fp32; the SPEC's math)
    char reference[48];    // what y was compared with ("cpu_ref", "clblast_gemm+1000 samples")
    uint64_t seed;
    int repeat;            // timed runs (0 for validate-only records)
    // Values not measured are NaN (written as null in JSON, empty in CSV, "-" in the table).
    double median_ms, min_ms, max_ms;
    double compile_ms;     // program build time, kept out of the timings
    double gflops, gbps;   // from the median: FLOPs and minimum bytes (<xconv/xconv.h>) over time
    double floor_ms;       // the roofline floor on the device's peaks; NAN when they are unknown
    double floor_share;    // floor_ms / median_ms; NAN without a floor or a time
    double max_norm_err;   // max over elements of |y - ref| / (the element's sum |x*w|)
    // Variants that compute blocks of outputs together (Winograd tiles, FFT transforms) are
    // checked against their threshold over the block: each element's error is divided by the
    // largest sum |x*w| in its block of error_block_h x error_block_w outputs (1 x 1: the element
    // alone, and max_block_err is max_norm_err).
    int64_t error_block_h, error_block_w;
    double max_block_err;
    double threshold;
    int64_t worst_index;
    xconv_outcome outcome;
    char note[512];        // reason for not applicable / error text / worst element position
    xconv_comparison cmp;  // the comparison with another backend (parity), when present
} xconv_record;

// A run's header: the tool's version, commit and date.
typedef struct xconv_run_info {
    char tool_version[32];
    char commit[64];
    char date[40];         // ISO 8601 UTC
    char command[512];     // the command line that produced the records
} xconv_run_info;

// Fills version, commit (build-time git hash) and the current date.
void xconv_run_info_init(xconv_run_info *info, int argc, char **argv);

// Returns the outcome as the data formats (JSON, CSV) spell it: "pass", "fail",
// "not_applicable", "error".
const char *xconv_outcome_word(xconv_outcome outcome);

// Sets r's floor from the device's peaks (GFLOP/s and GB/s, 0 when unknown): floor_ms =
// max(FLOPs / peak, minimum bytes / bandwidth) of problem p, and floor_share = floor_ms over r's
// median when it has one; NAN for what is unknown.
void xconv_record_set_floor(xconv_record *r, const xconv_problem *p, double peak_gflops,
                            double peak_gbps);

// ---------------------------------------------------------------------------------------------
// The list a command collects its records in

typedef struct xconv_record_list {
    xconv_record *recs;
    int count, cap;
    xconv_run_info info;   // the run they came from (for the JSON file)
} xconv_record_list;

// Starts an empty list whose run info names the command line argv.
void xconv_record_list_init(xconv_record_list *list, int argc, char **argv);

// Copies what a measuring run found (<xconv/measure.h>) into r: every field but the floor and
// the comparison, which stay as they were.
void xconv_record_from_result(xconv_record *r, const xconv_result *res);

// Copies the timing of res (xconv_result_time: repeat, median_ms, min_ms, max_ms, gflops, gbps)
// into r.
void xconv_record_set_timing(xconv_record *r, const xconv_result *res);

// Fills *r with a record that says nothing yet: zeros, worst index -1, every measured value
// NaN.
void xconv_record_clear(xconv_record *r);

// Appends a cleared record (xconv_record_clear) and returns it, or NULL without memory.
xconv_record *xconv_record_list_add(xconv_record_list *list);

// Returns how many records failed their check or errored.
int xconv_record_list_failed(const xconv_record_list *list);

// Frees the records; the list is empty afterwards.
void xconv_record_list_free(xconv_record_list *list);

// Returns true when the comparison of r with its other backend meets parity's goal: both ran,
// both passed their checks, and the outputs are bitwise identical.
bool xconv_comparison_passed(const xconv_record *r);

// ---------------------------------------------------------------------------------------------
// Writers

// Writes s (at most max bytes) as a JSON string literal: quotes, backslashes and control
// characters escaped, bytes that are not valid UTF-8 replaced by U+FFFD.
void xconv_json_write_string(FILE *f, const char *s, size_t max);

// Writes lead (the text before a member's value: separator, key and colon) and s as
// xconv_json_write_string does.
void xconv_json_write_member(FILE *f, const char *lead, const char *s, size_t max);

// A string member of a JSON object: its key and its value, at most size bytes (a char array's
// size: XCONV_JSON_STR).
typedef struct xconv_json_str {
    const char *key;
    const char *value;
    size_t size;
} xconv_json_str;

#define XCONV_JSON_STR(key, array) {key, array, sizeof(array)}

// Writes the n members as `"key": "value"` separated by ", ", with a ", " before the first
// unless first is true.
void xconv_json_write_strings(FILE *f, const xconv_json_str *members, size_t n, bool first);

// Writes info's members "version", "commit", "date" and "command" of a results file's top
// level, each after the first on a line of its own indented by two spaces.
void xconv_json_write_run_info(FILE *f, const xconv_run_info *info);

// Writes s (at most max bytes) as a CSV cell: enclosed in double quotes, with quotes doubled,
// when it holds a comma, quote, CR or LF (RFC 4180), or starts or ends with a space.
void xconv_csv_write_string(FILE *f, const char *s, size_t max);

// The pieces of the JSON and CSV writers, for writers that stream records as they finish.
// JSON: the head (run info, and "kind": KIND unless kind is NULL, up to the records' opening
// bracket), one record (after its separator: `first` says whether it is the first one), and
// the closing text, which depends on whether any record was written. CSV: the header row and
// one row. with_cmp adds the comparison's fields (parity).
void xconv_json_write_head(FILE *f, const xconv_run_info *info, const char *kind);
void xconv_json_write_record(FILE *f, const xconv_record *rec, bool first, bool with_cmp);
const char *xconv_json_closing(bool any_records);
void xconv_csv_write_header(FILE *f, bool with_cmp);
void xconv_csv_write_row(FILE *f, const xconv_record *rec, bool with_cmp);

// The human table, written a row at a time as records finish: a block a device (its name on a
// line of its own, then the column titles), a row a record, and, unless `all`, the records that
// do not apply folded into one line a shape naming their variants. Widen it with every record
// (or a stand-in carrying the longest names) before the first row is written; when every
// record fitted has the same shape, the block's line names it and the rows leave it out.
#define XCONV_TABLE_COLUMNS 10
typedef struct xconv_table {
    int widths[XCONV_TABLE_COLUMNS];
    bool timings;          // with the timing columns
    bool all;              // not-applicable records as rows with their notes, not folded
    int nshapes;           // distinct shapes fitted: 0, 1, or 2 for two or more
    char shape[256];       // the shape when nshapes is 1
    char block[300];       // the device (and backend) whose block is open, "" before any row
    char na_shape[256];    // the shape whose not-applicable variants wait in na
    char na[2048];         // those variants, comma-separated
} xconv_table;

// Starts a table as wide as its titles (timing columns only with timings), folding
// not-applicable records; set t->all to list them as rows.
void xconv_table_init(xconv_table *t, bool timings);

// Widens t for rec's cells (names are cut at their column's most).
void xconv_table_fit(xconv_table *t, const xconv_record *rec);

// Widens t's number columns to their widest, for rows whose numbers are not known yet.
void xconv_table_fit_numbers(xconv_table *t);

// Writes one record: the device's line and the column titles when its block starts, then its
// row with its note under it (when it did not pass), or, folded, its variant kept for the
// shape's not-applicable line. Returns 0, or -1 when writing failed (errno set).
int xconv_table_write_record(FILE *f, xconv_table *t, const xconv_record *rec);

// Writes what t still holds (the last shape's not-applicable line); "(no records)" when no row
// was written. Returns 0, or -1 when writing failed.
int xconv_table_finish(FILE *f, xconv_table *t);

// The comparisons' table a pair at a time: the header, and one row for a pair of records
// compared with each other. Return 0, or -1 when writing failed.
int xconv_comparisons_write_header(FILE *f);
int xconv_comparisons_write_pair(FILE *f, const xconv_record *a, const xconv_record *b);

// Writers: JSON (one object: run info + "records" array), CSV (header row + one row a record),
// the human table, and the comparisons' table (one row per pair of compared records). JSON and
// CSV add the comparison's fields when any record has one. Return 0, or -1 when writing failed
// (errno set).
int xconv_records_write_json(FILE *f, const xconv_run_info *info, const xconv_record *recs,
                             int count);
int xconv_records_write_csv(FILE *f, const xconv_record *recs, int count);
int xconv_records_write_table(FILE *f, const xconv_record *recs, int count, bool timings,
                              bool all);
int xconv_records_write_comparisons(FILE *f, const xconv_record *recs, int count);

#endif // XCONV_RECORD_H
