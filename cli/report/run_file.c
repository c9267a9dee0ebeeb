// SPDX-License-Identifier: MIT
// Loading a results file (bench/validate JSON or the matrix schema) into records, devices and
// shapes, through Jansson (json_read.h).
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_open.h"
#include "json_read.h"
#include "matrix.h"

// The largest results file read (the biggest of record today is a few MB).
#define RUN_FILE_MAX_BYTES (256u << 20)

// ---------------------------------------------------------------------------------------------
// Fields

typedef enum field_kind {
    F_STRING,   // char array; a longer string is refused
    F_U64,      // uint64_t from an integer literal, at most INT64_MAX (Jansson holds int64)
    F_INT,      // int from an integer literal
    F_I64,      // int64_t from an integer literal
    F_DOUBLE,   // double; null reads as NAN (or 0 with zero_null)
    F_OUTCOME,  // xconv_outcome from its word
    F_PICK,     // int: true 1, false 0, null -1
} field_kind;

typedef struct load_field {
    const char *name;
    field_kind kind;
    size_t offset;
    size_t size;
    bool required;
} load_field;

#define REC(member, kind, req) \
    { #member, kind, offsetof(xconv_matrix_record, rec.member), \
      sizeof(((xconv_record *)0)->member), req }
#define EXT(member, kind) \
    { #member, kind, offsetof(xconv_matrix_record, member), \
      sizeof(((xconv_matrix_record *)0)->member), false }

// A record's keys (docs/matrix_schema.md); "pass" is checked against "outcome" separately.
static const load_field record_fields[] = {
    REC(device, F_STRING, true),      REC(backend, F_STRING, false),
    REC(driver, F_STRING, false),     REC(libraries, F_STRING, false),
    REC(variant, F_STRING, true),
    REC(family, F_STRING, false),     REC(shape_name, F_STRING, false),
    REC(shape, F_STRING, true),       REC(dtype, F_STRING, false),
    REC(math, F_STRING, false),       REC(reference, F_STRING, false),
    REC(seed, F_U64, false),          REC(repeat, F_INT, false),
    REC(median_ms, F_DOUBLE, false),  REC(min_ms, F_DOUBLE, false),
    REC(max_ms, F_DOUBLE, false),     REC(compile_ms, F_DOUBLE, false),
    REC(gflops, F_DOUBLE, false),     REC(gbps, F_DOUBLE, false),
    REC(max_norm_err, F_DOUBLE, false), REC(error_block_h, F_I64, false),
    REC(error_block_w, F_I64, false), REC(max_block_err, F_DOUBLE, false),
    REC(threshold, F_DOUBLE, false),
    REC(worst_index, F_I64, false),   REC(outcome, F_OUTCOME, true),
    REC(note, F_STRING, false),       REC(floor_ms, F_DOUBLE, false),
    REC(floor_share, F_DOUBLE, false), EXT(auto_pick, F_PICK),
};

#define DEV(member, kind, req) \
    { #member, kind, offsetof(xconv_matrix_device, member), \
      sizeof(((xconv_matrix_device *)0)->member), req }

static const load_field device_fields[] = {
    DEV(id, F_STRING, true),          DEV(name, F_STRING, false),
    DEV(backend, F_STRING, false),    DEV(driver, F_STRING, false),
    DEV(platform, F_STRING, false),   DEV(compute_units, F_INT, false),
    DEV(clock_mhz, F_INT, false),
};

#define PEAK(key, member) \
    { key, F_DOUBLE, offsetof(xconv_matrix_device, member), sizeof(double), false }

static const load_field peak_fields[] = {
    PEAK("fp32_gflops", peak_gflops), PEAK("gbps", peak_gbps), PEAK("gbps_read", peak_gbps_read),
    {"source", F_STRING, offsetof(xconv_matrix_device, peaks_source),
     sizeof(((xconv_matrix_device *)0)->peaks_source), false},
};

#define SHP(member, kind, req) \
    { #member, kind, offsetof(xconv_matrix_shape, member), \
      sizeof(((xconv_matrix_shape *)0)->member), req }

static const load_field shape_fields[] = {
    SHP(name, F_STRING, false), SHP(shape, F_STRING, true), SHP(weight, F_DOUBLE, false),
    SHP(set, F_STRING, false),
};

#define RUN(key, member) \
    { key, F_STRING, offsetof(xconv_run_file, member), \
      sizeof(((xconv_run_file *)0)->member), false }

static const load_field run_fields[] = {
    RUN("version", info.tool_version), RUN("commit", info.commit), RUN("date", info.date),
    RUN("command", info.command),      RUN("host", host),
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// ---------------------------------------------------------------------------------------------
// Errors

// ---------------------------------------------------------------------------------------------
// Values

// Returns the outcome named by word, or -1.
static int outcome_from_word(const char *word)
{
    static const char *const words[] = {
        [XCONV_OUTCOME_PASS] = "pass", [XCONV_OUTCOME_FAIL] = "fail",
        [XCONV_OUTCOME_NOT_APPLICABLE] = "not_applicable", [XCONV_OUTCOME_ERROR] = "error",
    };
    for (int i = 0; i < COUNT(words); i++)
        if (strcmp(word, words[i]) == 0)
            return i;
    return -1;
}

// Reads member fd->name of obj, if present, into base (obj named where); returns XCONV_OK or an
// error naming where.name.
static xconv_status store(const load_field *fd, const json_t *obj, void *base, const char *where,
                          xconv_error *err)
{
    void *dst = (char *)base + fd->offset;
    const json_t *v = json_object_get(obj, fd->name);
    int64_t i = 0;
    xconv_status st = XCONV_OK;
    switch (fd->kind) {
    case F_STRING:
        return xconv_json_get_string(obj, fd->name, false, where, dst, fd->size, err);
    case F_U64:
        if ((st = xconv_json_get_int64(obj, fd->name, false, 0, INT64_MAX, where, &i, err)))
            return st;
        if (v)
            *(uint64_t *)dst = (uint64_t)i;
        return XCONV_OK;
    case F_INT:
        if ((st = xconv_json_get_int64(obj, fd->name, false, INT_MIN, INT_MAX, where, &i, err)))
            return st;
        if (v)
            *(int *)dst = (int)i;
        return XCONV_OK;
    case F_I64:
        return xconv_json_get_int64(obj, fd->name, false, INT64_MIN, INT64_MAX, where, dst, err);
    case F_DOUBLE:
        return xconv_json_get_double(obj, fd->name, false, true, where, dst, err);
    case F_OUTCOME: {
        int o = json_is_string(v) ? outcome_from_word(json_string_value(v)) : -1;
        if (v && o < 0)
            return xconv_error_set(err, XCONV_ERR_PARSE, "%s.%s: wants \"pass\", \"fail\", "
                                   "\"not_applicable\" or \"error\"", where, fd->name);
        if (v)
            *(xconv_outcome *)dst = (xconv_outcome)o;
        return XCONV_OK;
    }
    case F_PICK:
        if (v && !json_is_boolean(v) && !json_is_null(v))
            return xconv_error_set(err, XCONV_ERR_PARSE, "%s.%s: wants true, false or null, "
                                   "got %s", where, fd->name, xconv_json_type_name(v));
        if (v)
            *(int *)dst = json_is_null(v) ? -1 : json_is_true(v);
        return XCONV_OK;
    }
    return XCONV_OK;
}

// Reads the fields of object obj into base (where names it in messages: "records[3]");
// returns XCONV_OK or an error for a required field missing or a value of the wrong kind.
static xconv_status load_fields(const json_t *obj, const load_field *fields, int nfields,
                                void *base, const char *where, xconv_error *err)
{
    if (!json_is_object(obj))
        return xconv_json_bad(err, where, "wants an object, got %s", xconv_json_type_name(obj));
    for (int i = 0; i < nfields; i++) {
        if (fields[i].required && !json_object_get(obj, fields[i].name))
            return xconv_json_bad(err, where, "lacks \"%s\"", fields[i].name);
        xconv_status st = store(&fields[i], obj, base, where, err);
        if (st)
            return st;
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The blocks

// Reads the "devices" array into run->devices; returns XCONV_OK or an error.
static xconv_status load_devices(const json_t *arr, xconv_run_file *run, xconv_error *err)
{
    size_t n = json_array_size(arr);
    run->devices = calloc(n + 1, sizeof *run->devices);
    if (!run->devices)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the devices");
    for (size_t i = 0; i < n; i++) {
        char where[64];
        snprintf(where, sizeof where, "devices[%zu]", i);
        const json_t *item = json_array_get(arr, i);
        xconv_matrix_device *d = &run->devices[i];
        xconv_status st = load_fields(item, device_fields, COUNT(device_fields), d, where, err);
        if (st)
            return st;
        if (xconv_run_file_device(run, d->id))  // searches the devices before this one
            return xconv_json_bad(err, where, "id \"%s\" appears twice", d->id);
        run->ndevices++;
        const json_t *peaks = json_object_get(item, "peaks");
        if (peaks && !json_is_null(peaks)) {
            snprintf(where, sizeof where, "devices[%zu].peaks", i);
            if ((st = load_fields(peaks, peak_fields, COUNT(peak_fields), d, where, err)))
                return st;
        }
        // Unknown peaks read as 0 (null in the file).
        double *p[] = {&d->peak_gflops, &d->peak_gbps, &d->peak_gbps_read};
        for (int k = 0; k < 3; k++)
            if (!(*p[k] > 0))
                *p[k] = 0;
    }
    return XCONV_OK;
}

// Reads the "shapes" array into run->shapes; returns XCONV_OK or an error.
static xconv_status load_shapes(const json_t *arr, xconv_run_file *run, xconv_error *err)
{
    size_t n = json_array_size(arr);
    run->shapes = calloc(n + 1, sizeof *run->shapes);
    if (!run->shapes)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the shapes");
    for (size_t i = 0; i < n; i++) {
        char where[64];
        snprintf(where, sizeof where, "shapes[%zu]", i);
        xconv_matrix_shape *s = &run->shapes[i];
        s->weight = 1;
        xconv_status st = load_fields(json_array_get(arr, i), shape_fields, COUNT(shape_fields),
                                      s, where, err);
        if (st)
            return st;
        if (!(s->weight > 0))
            return xconv_json_bad(err, where, "weight must be a positive number");
        run->nshapes++;
    }
    return XCONV_OK;
}

// Reads one record (index i) into *r; returns XCONV_OK or an error.
static xconv_status load_record(const json_t *obj, size_t i, xconv_matrix_record *r,
                                xconv_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "records[%zu]", i);
    memset(r, 0, sizeof *r);
    double *nan_fields[] = {&r->rec.median_ms, &r->rec.min_ms,       &r->rec.max_ms,
                            &r->rec.compile_ms, &r->rec.gflops,      &r->rec.gbps,
                            &r->rec.max_norm_err, &r->rec.threshold, &r->rec.floor_ms,
                            &r->rec.floor_share};
    for (int k = 0; k < COUNT(nan_fields); k++)
        *nan_fields[k] = NAN;
    r->rec.worst_index = -1;
    r->auto_pick = -1;
    xconv_status st = load_fields(obj, record_fields, COUNT(record_fields), r, where, err);
    if (st)
        return st;
    const json_t *pass = json_object_get(obj, "pass");
    if (pass && (!json_is_boolean(pass) ||
                 json_is_true(pass) != (r->rec.outcome == XCONV_OUTCOME_PASS)))
        return xconv_json_bad(err, where, "\"pass\" disagrees with \"outcome\" \"%s\"",
                   xconv_outcome_name(r->rec.outcome));
    return XCONV_OK;
}

// Adds a device for every device id the records name that run lacks (files before the matrix
// schema carry none); returns XCONV_OK or an out-of-memory error.
static xconv_status derive_devices(xconv_run_file *run, xconv_error *err)
{
    for (int i = 0; i < run->count; i++) {
        const xconv_record *r = &run->recs[i].rec;
        if (xconv_run_file_device(run, r->device))
            continue;
        xconv_matrix_device *grown =
            realloc(run->devices, (size_t)(run->ndevices + 1) * sizeof *grown);
        if (!grown)
            return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for devices");
        run->devices = grown;
        xconv_matrix_device *d = &run->devices[run->ndevices++];
        memset(d, 0, sizeof *d);
        snprintf(d->id, sizeof d->id, "%s", r->device);
        // "opencl:0 NAME" and "cuda:1 NAME" carry the name after the backend's index.
        const char *space = strchr(r->device, ' ');
        bool labelled = space && (strncmp(r->device, "opencl:", 7) == 0 ||
                                  strncmp(r->device, "cuda:", 5) == 0);
        snprintf(d->name, sizeof d->name, "%s", labelled ? space + 1 : r->device);
        snprintf(d->backend, sizeof d->backend, "%s", r->backend);
        snprintf(d->driver, sizeof d->driver, "%s", r->driver);
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The file

// Checks what kind of file root is and reads its schema version into run; returns XCONV_OK or
// an error for another tool's JSON, parity or devices output, or a newer schema.
static xconv_status check_kind(const json_t *root, xconv_run_file *run, xconv_error *err)
{
    if (!json_is_object(root))
        return xconv_json_bad(err, "top level", "wants an object, got %s", xconv_json_type_name(root));
    if (!xconv_json_is_word(json_object_get(root, "tool"), "xconv"))
        return xconv_json_bad(err, "top level", "not an xconv results file (it lacks \"tool\": \"xconv\"; "
                   "xconv devices --json output is not one)");
    const json_t *kind = json_object_get(root, "kind");
    if (kind && !xconv_json_is_word(kind, "matrix"))
        return xconv_json_bad(err, "kind", "%s%s%s: only bench, validate and matrix files hold "
                   "records of this form", json_is_string(kind) ? "\"" : "",
                   json_is_string(kind) ? json_string_value(kind) : "not a string",
                   json_is_string(kind) ? "\"" : "");
    int64_t version = 0;
    xconv_status st = xconv_json_get_int64(root, "schema_version", false, 1, INT_MAX,
                                           NULL, &version, err);
    run->schema_version = (int)version;
    if (!st && run->schema_version > XCONV_MATRIX_SCHEMA_VERSION)
        st = xconv_json_bad(err, "schema_version", "%d is newer than this xconv reads (%d)",
                 run->schema_version, XCONV_MATRIX_SCHEMA_VERSION);
    return st;
}

// Fills run from the parsed tree root; returns XCONV_OK or an error.
static xconv_status load_tree(const json_t *root, xconv_run_file *run, xconv_error *err)
{
    xconv_status st = check_kind(root, run, err);
    if (!st)
        st = load_fields(root, run_fields, COUNT(run_fields), run, NULL, err);
    const json_t *complete = json_object_get(root, "complete");
    run->complete = json_is_boolean(complete) ? json_is_true(complete) : -1;
    bool unused;
    if (!st)
        st = xconv_json_get_bool(root, "complete", false, NULL, &unused, err);
    const json_t *devices = NULL, *shapes = NULL, *records = NULL;
    if (!st)
        st = xconv_json_get_array(root, "devices", run->schema_version >= 1, NULL,
                                  &devices, err);
    if (!st)
        st = xconv_json_get_array(root, "shapes", false, NULL, &shapes, err);
    if (!st)
        st = xconv_json_get_array(root, "records", true, NULL, &records, err);
    if (!st && devices)
        st = load_devices(devices, run, err);
    if (!st && shapes)
        st = load_shapes(shapes, run, err);
    if (st)
        return st;
    size_t n = json_array_size(records);
    run->recs = calloc(n + 1, sizeof *run->recs);
    if (!run->recs)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the records");
    for (size_t i = 0; i < n; i++) {
        xconv_matrix_record *r = &run->recs[i];
        if ((st = load_record(json_array_get(records, i), i, r, err)))
            return st;
        run->count++;
        if (devices && !xconv_run_file_device(run, r->rec.device))
            return xconv_json_bad(err, "records", "[%zu] names device \"%s\", which \"devices\" lacks", i,
                       r->rec.device);
    }
    return derive_devices(run, err);
}

// Reads tree root (NULL: the parse failed, err says why) into out; returns XCONV_OK or an error
// prefixed with origin (out empty).
static xconv_status read_root(json_t *root, const char *origin, xconv_run_file *out,
                              xconv_error *err)
{
    xconv_status st = root ? load_tree(root, out, err) : err ? err->status : XCONV_ERR_PARSE;
    json_decref(root);
    if (st) {
        xconv_run_file_free(out);
        if (err)
            xconv_error_prefix(err, "%s", origin);
    }
    return st;
}

xconv_status xconv_run_file_parse(const char *text, size_t len, const char *origin,
                                  xconv_run_file *out, xconv_error *err)
{
    if (!text || !out)
        return xconv_error_set(err, XCONV_ERR_INVALID, "no text or output given");
    memset(out, 0, sizeof *out);
    xconv_error local;
    err = err ? err : &local;
    return read_root(xconv_json_parse(text, len, err), origin ? origin : "results", out, err);
}

xconv_status xconv_run_file_load(const char *path, xconv_run_file *out, xconv_error *err)
{
    if (!path || !out)
        return xconv_error_set(err, XCONV_ERR_INVALID, "no path or output given");
    memset(out, 0, sizeof *out);
    struct stat sb;
    FILE *f = xconv_file_open_regular(path, &sb);
    if (!f)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot open '%s': %s", path,
                               xconv_file_open_why(errno));
    xconv_error local;
    err = err ? err : &local;
    json_t *root = xconv_json_read_file(f, (size_t)sb.st_size, RUN_FILE_MAX_BYTES, err);
    fclose(f);
    return read_root(root, path, out, err);
}

void xconv_run_file_free(xconv_run_file *run)
{
    if (!run)
        return;
    free(run->devices);
    free(run->shapes);
    free(run->recs);
    memset(run, 0, sizeof *run);
}

const xconv_matrix_device *xconv_run_file_device(const xconv_run_file *run, const char *id)
{
    for (int i = 0; run && id && i < run->ndevices; i++)
        if (strcmp(run->devices[i].id, id) == 0)
            return &run->devices[i];
    return NULL;
}
