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
#include "json_fields.h"
#include "json_read.h"
#include "matrix.h"

// The largest results file read (the biggest of record today is a few MB).
#define RUN_FILE_MAX_BYTES (256u << 20)

// ---------------------------------------------------------------------------------------------
// Fields

#define REC(member, kind, req) \
    { #member, XCONV_FIELD_##kind, offsetof(xconv_matrix_record, rec.member), \
      sizeof(((xconv_record *)0)->member), req }
#define EXT(member, kind) \
    { #member, XCONV_FIELD_##kind, offsetof(xconv_matrix_record, member), \
      sizeof(((xconv_matrix_record *)0)->member), false }

// A record's keys (docs/matrix_schema.md); "pass" is checked against "outcome" separately.
static const xconv_json_field record_fields[] = {
    REC(device, STRING, true),      REC(backend, STRING, false),
    REC(driver, STRING, false),     REC(libraries, STRING, false),
    REC(variant, STRING, true),
    REC(family, STRING, false),     REC(shape_name, STRING, false),
    REC(shape, STRING, true),       REC(dtype, STRING, false),
    REC(math, STRING, false),       REC(reference, STRING, false),
    REC(seed, U64, false),          REC(repeat, INT, false),
    REC(median_ms, DOUBLE, false),  REC(min_ms, DOUBLE, false),
    REC(max_ms, DOUBLE, false),     REC(compile_ms, DOUBLE, false),
    REC(gflops, DOUBLE, false),     REC(gbps, DOUBLE, false),
    REC(max_norm_err, DOUBLE, false), REC(error_block_h, I64, false),
    REC(error_block_w, I64, false), REC(max_block_err, DOUBLE, false),
    REC(threshold, DOUBLE, false),
    REC(worst_index, I64, false),   REC(outcome, OUTCOME, true),
    REC(note, STRING, false),       REC(floor_ms, DOUBLE, false),
    REC(floor_share, DOUBLE, false), EXT(auto_pick, PICK),
};

#define DEV(member, kind, req) \
    { #member, XCONV_FIELD_##kind, offsetof(xconv_matrix_device, member), \
      sizeof(((xconv_matrix_device *)0)->member), req }

static const xconv_json_field device_fields[] = {
    DEV(id, STRING, true),          DEV(name, STRING, false),
    DEV(backend, STRING, false),    DEV(driver, STRING, false),
    DEV(platform, STRING, false),   DEV(compute_units, INT, false),
    DEV(clock_mhz, INT, false),
};

#define PEAK(key, member) \
    { key, XCONV_FIELD_DOUBLE, offsetof(xconv_matrix_device, member), sizeof(double), false }

static const xconv_json_field peak_fields[] = {
    PEAK("fp32_gflops", peak_gflops), PEAK("gbps", peak_gbps), PEAK("gbps_read", peak_gbps_read),
    {"source", XCONV_FIELD_STRING, offsetof(xconv_matrix_device, peaks_source),
     sizeof(((xconv_matrix_device *)0)->peaks_source), false},
};

#define SHP(member, kind, req) \
    { #member, XCONV_FIELD_##kind, offsetof(xconv_matrix_shape, member), \
      sizeof(((xconv_matrix_shape *)0)->member), req }

static const xconv_json_field shape_fields[] = {
    SHP(name, STRING, false), SHP(shape, STRING, true), SHP(weight, DOUBLE, false),
    SHP(set, STRING, false),
};

#define RUN(key, member) \
    { key, XCONV_FIELD_STRING, offsetof(xconv_run_file, member), \
      sizeof(((xconv_run_file *)0)->member), false }

static const xconv_json_field run_fields[] = {
    RUN("version", info.tool_version), RUN("commit", info.commit), RUN("date", info.date),
    RUN("command", info.command),      RUN("host", host),
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

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
        xconv_status st =
            xconv_json_load_fields(item, device_fields, COUNT(device_fields), d, where, err);
        if (st)
            return st;
        if (xconv_run_file_device(run, d->id))  // searches the devices before this one
            return xconv_json_bad(err, where, "id \"%s\" appears twice", d->id);
        run->ndevices++;
        const json_t *peaks = json_object_get(item, "peaks");
        if (peaks && !json_is_null(peaks)) {
            snprintf(where, sizeof where, "devices[%zu].peaks", i);
            if ((st = xconv_json_load_fields(peaks, peak_fields, COUNT(peak_fields), d, where,
                                             err)))
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
        xconv_status st = xconv_json_load_fields(json_array_get(arr, i), shape_fields,
                                                 COUNT(shape_fields), s, where, err);
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
    xconv_status st =
        xconv_json_load_fields(obj, record_fields, COUNT(record_fields), r, where, err);
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
        st = xconv_json_load_fields(root, run_fields, COUNT(run_fields), run, NULL, err);
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
