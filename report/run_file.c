// SPDX-License-Identifier: MIT
// Loading a results file (bench/validate JSON or the matrix schema) into records, devices and
// shapes, through the strict JSON reader.
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
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
    F_U64,      // uint64_t from an integer literal
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

typedef struct loader {
    const char *origin;
    const char *text;     // the JSON text, for exact integers
    size_t len;
    xconv_error *err;
} loader;

// Fills the error with "origin: byte N: where: what"; returns XCONV_ERR_PARSE.
static xconv_status bad(const loader *ld, const xconv_json *at, const char *where,
                        const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static xconv_status bad(const loader *ld, const xconv_json *at, const char *where,
                        const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return xconv_error_set(ld->err, XCONV_ERR_PARSE, "%s: byte %zu: %s: %s", ld->origin,
                           at ? at->offset : 0, where, msg);
}

// ---------------------------------------------------------------------------------------------
// Values

// Reads the integer literal of number v exactly into *out (within [lo, hi] as long long, or
// unsigned when is_unsigned); returns XCONV_OK or an error naming where.
static xconv_status read_integer(const loader *ld, const xconv_json *v, const char *where,
                                 bool is_unsigned, long long lo, long long hi, void *out,
                                 size_t size)
{
    if (v->type != XCONV_JSON_NUMBER)
        return bad(ld, v, where, "wants an integer, got %s", xconv_json_type_name(v->type));
    const char *b = ld->text + v->offset, *e = b;
    while (e < ld->text + ld->len && strchr("-0123456789.eE+", *e))
        e++;
    char buf[64];
    size_t n = (size_t)(e - b);
    if (n >= sizeof buf || memchr(b, '.', n) || memchr(b, 'e', n) || memchr(b, 'E', n))
        return bad(ld, v, where, "wants an integer, got %.*s", (int)(n < 40 ? n : 40), b);
    memcpy(buf, b, n);
    buf[n] = '\0';
    errno = 0;
    if (is_unsigned) {
        if (buf[0] == '-')
            return bad(ld, v, where, "wants an integer of at least 0, got %s", buf);
        unsigned long long u = strtoull(buf, NULL, 10);
        if (errno == ERANGE)
            return bad(ld, v, where, "%s is out of range", buf);
        *(uint64_t *)out = u;
        return XCONV_OK;
    }
    long long s = strtoll(buf, NULL, 10);
    if (errno == ERANGE || s < lo || s > hi)
        return bad(ld, v, where, "%s is out of range", buf);
    if (size == sizeof(int))
        *(int *)out = (int)s;
    else
        *(int64_t *)out = s;
    return XCONV_OK;
}

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

// Stores value v of field fd into base; returns XCONV_OK or an error naming where.
static xconv_status store(const loader *ld, const load_field *fd, const xconv_json *v,
                          void *base, const char *where)
{
    void *dst = (char *)base + fd->offset;
    switch (fd->kind) {
    case F_STRING:
        if (v->type != XCONV_JSON_STRING)
            return bad(ld, v, where, "wants a string, got %s", xconv_json_type_name(v->type));
        if (v->length >= fd->size)
            return bad(ld, v, where, "is %zu bytes, longer than the %zu this field holds",
                       v->length, fd->size - 1);
        memcpy(dst, v->string, v->length + 1);
        return XCONV_OK;
    case F_U64:
        return read_integer(ld, v, where, true, 0, 0, dst, sizeof(uint64_t));
    case F_INT:
        return read_integer(ld, v, where, false, INT_MIN, INT_MAX, dst, sizeof(int));
    case F_I64:
        return read_integer(ld, v, where, false, LLONG_MIN, LLONG_MAX, dst, sizeof(int64_t));
    case F_DOUBLE:
        if (v->type == XCONV_JSON_NULL) {
            *(double *)dst = NAN;
            return XCONV_OK;
        }
        if (v->type != XCONV_JSON_NUMBER)
            return bad(ld, v, where, "wants a number or null, got %s",
                       xconv_json_type_name(v->type));
        *(double *)dst = v->number;
        return XCONV_OK;
    case F_OUTCOME: {
        int o = v->type == XCONV_JSON_STRING ? outcome_from_word(v->string) : -1;
        if (o < 0)
            return bad(ld, v, where, "wants \"pass\", \"fail\", \"not_applicable\" or \"error\"");
        *(xconv_outcome *)dst = (xconv_outcome)o;
        return XCONV_OK;
    }
    case F_PICK:
        if (v->type != XCONV_JSON_BOOL && v->type != XCONV_JSON_NULL)
            return bad(ld, v, where, "wants true, false or null, got %s",
                       xconv_json_type_name(v->type));
        *(int *)dst = v->type == XCONV_JSON_NULL ? -1 : v->boolean;
        return XCONV_OK;
    }
    return XCONV_OK;
}

// Reads the fields of object obj into base (prefix names it in messages: "records[3]");
// returns XCONV_OK or an error for a required field missing or a value of the wrong kind.
static xconv_status load_fields(const loader *ld, const xconv_json *obj, const load_field *fields,
                                int nfields, void *base, const char *prefix)
{
    if (obj->type != XCONV_JSON_OBJECT)
        return bad(ld, obj, prefix, "wants an object, got %s", xconv_json_type_name(obj->type));
    for (int i = 0; i < nfields; i++) {
        char where[160];
        snprintf(where, sizeof where, "%s.%s", prefix, fields[i].name);
        const xconv_json *v = xconv_json_get(obj, fields[i].name);
        if (!v) {
            if (fields[i].required)
                return bad(ld, obj, prefix, "lacks \"%s\"", fields[i].name);
            continue;
        }
        xconv_status st = store(ld, &fields[i], v, base, where);
        if (st)
            return st;
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// The blocks

// Returns the array member key of root (NULL when absent and not required) through *arr;
// returns XCONV_OK or an error when it is missing but required or not an array.
static xconv_status get_array(const loader *ld, const xconv_json *root, const char *key,
                              bool required, const xconv_json **arr)
{
    *arr = xconv_json_get(root, key);
    if (!*arr)
        return required ? bad(ld, root, "top level", "lacks \"%s\"", key) : XCONV_OK;
    if ((*arr)->type != XCONV_JSON_ARRAY)
        return bad(ld, *arr, key, "wants an array, got %s", xconv_json_type_name((*arr)->type));
    return XCONV_OK;
}

// Reads the "devices" array into run->devices; returns XCONV_OK or an error.
static xconv_status load_devices(const loader *ld, const xconv_json *arr, xconv_run_file *run)
{
    run->devices = calloc((size_t)arr->count + 1, sizeof *run->devices);
    if (!run->devices)
        return xconv_error_set(ld->err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the devices");
    for (int i = 0; i < arr->count; i++) {
        char where[64];
        snprintf(where, sizeof where, "devices[%d]", i);
        xconv_matrix_device *d = &run->devices[i];
        xconv_status st = load_fields(ld, &arr->items[i], device_fields, COUNT(device_fields), d,
                                      where);
        if (st)
            return st;
        if (xconv_run_file_device(run, d->id))  // searches the devices before this one
            return bad(ld, &arr->items[i], where, "id \"%s\" appears twice", d->id);
        run->ndevices++;
        const xconv_json *peaks = xconv_json_get(&arr->items[i], "peaks");
        if (peaks && peaks->type != XCONV_JSON_NULL) {
            snprintf(where, sizeof where, "devices[%d].peaks", i);
            if ((st = load_fields(ld, peaks, peak_fields, COUNT(peak_fields), d, where)))
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
static xconv_status load_shapes(const loader *ld, const xconv_json *arr, xconv_run_file *run)
{
    run->shapes = calloc((size_t)arr->count + 1, sizeof *run->shapes);
    if (!run->shapes)
        return xconv_error_set(ld->err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the shapes");
    for (int i = 0; i < arr->count; i++) {
        char where[64];
        snprintf(where, sizeof where, "shapes[%d]", i);
        xconv_matrix_shape *s = &run->shapes[i];
        s->weight = 1;
        xconv_status st = load_fields(ld, &arr->items[i], shape_fields, COUNT(shape_fields), s,
                                      where);
        if (st)
            return st;
        if (!(s->weight > 0))
            return bad(ld, xconv_json_get(&arr->items[i], "weight"), where,
                       "weight must be a positive number");
        run->nshapes++;
    }
    return XCONV_OK;
}

// Reads one record (index i) into *r; returns XCONV_OK or an error.
static xconv_status load_record(const loader *ld, const xconv_json *obj, int i,
                                xconv_matrix_record *r)
{
    char where[64];
    snprintf(where, sizeof where, "records[%d]", i);
    memset(r, 0, sizeof *r);
    double *nan_fields[] = {&r->rec.median_ms, &r->rec.min_ms,       &r->rec.max_ms,
                            &r->rec.compile_ms, &r->rec.gflops,      &r->rec.gbps,
                            &r->rec.max_norm_err, &r->rec.threshold, &r->rec.floor_ms,
                            &r->rec.floor_share};
    for (int k = 0; k < COUNT(nan_fields); k++)
        *nan_fields[k] = NAN;
    r->rec.worst_index = -1;
    r->auto_pick = -1;
    xconv_status st = load_fields(ld, obj, record_fields, COUNT(record_fields), r, where);
    if (st)
        return st;
    const xconv_json *pass = xconv_json_get(obj, "pass");
    if (pass && (pass->type != XCONV_JSON_BOOL ||
                 pass->boolean != (r->rec.outcome == XCONV_OUTCOME_PASS)))
        return bad(ld, pass, where, "\"pass\" disagrees with \"outcome\" \"%s\"",
                   xconv_outcome_name(r->rec.outcome));
    return XCONV_OK;
}

// Adds a device for every device id the records name that run lacks (files before the matrix
// schema carry none); returns XCONV_OK or an out-of-memory error.
static xconv_status derive_devices(const loader *ld, xconv_run_file *run)
{
    for (int i = 0; i < run->count; i++) {
        const xconv_record *r = &run->recs[i].rec;
        if (xconv_run_file_device(run, r->device))
            continue;
        xconv_matrix_device *grown =
            realloc(run->devices, (size_t)(run->ndevices + 1) * sizeof *grown);
        if (!grown)
            return xconv_error_set(ld->err, XCONV_ERR_OUT_OF_MEMORY, "no memory for devices");
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
static xconv_status check_kind(const loader *ld, const xconv_json *root, xconv_run_file *run)
{
    if (root->type != XCONV_JSON_OBJECT)
        return bad(ld, root, "top level", "wants an object, got %s",
                   xconv_json_type_name(root->type));
    const xconv_json *tool = xconv_json_get(root, "tool");
    if (!tool || tool->type != XCONV_JSON_STRING || strcmp(tool->string, "xconv") != 0)
        return bad(ld, tool ? tool : root, "top level",
                   "not an xconv results file (it lacks \"tool\": \"xconv\"; xconv devices "
                   "--json output is not one)");
    const xconv_json *kind = xconv_json_get(root, "kind");
    if (kind && (kind->type != XCONV_JSON_STRING || strcmp(kind->string, "matrix") != 0))
        return bad(ld, kind, "kind", "%s%s%s: only bench, validate and matrix files hold "
                   "records of this form", kind->type == XCONV_JSON_STRING ? "\"" : "",
                   kind->type == XCONV_JSON_STRING ? kind->string : "not a string",
                   kind->type == XCONV_JSON_STRING ? "\"" : "");
    const xconv_json *ver = xconv_json_get(root, "schema_version");
    run->schema_version = 0;
    if (ver) {
        xconv_status st = read_integer(ld, ver, "schema_version", false, 1, INT_MAX,
                                       &run->schema_version, sizeof(int));
        if (st)
            return st;
        if (run->schema_version > XCONV_MATRIX_SCHEMA_VERSION)
            return bad(ld, ver, "schema_version", "%d is newer than this xconv reads (%d)",
                       run->schema_version, XCONV_MATRIX_SCHEMA_VERSION);
    }
    return XCONV_OK;
}

// Fills run from the parsed tree root; returns XCONV_OK or an error.
static xconv_status load_tree(const loader *ld, const xconv_json *root, xconv_run_file *run)
{
    xconv_status st = check_kind(ld, root, run);
    if (!st)
        st = load_fields(ld, root, run_fields, COUNT(run_fields), run, "top level");
    const xconv_json *complete = xconv_json_get(root, "complete");
    run->complete = complete && complete->type == XCONV_JSON_BOOL ? complete->boolean : -1;
    if (!st && complete && complete->type != XCONV_JSON_BOOL)
        st = bad(ld, complete, "complete", "wants a boolean, got %s",
                 xconv_json_type_name(complete->type));
    const xconv_json *devices = NULL, *shapes = NULL, *records = NULL;
    if (!st)
        st = get_array(ld, root, "devices", run->schema_version >= 1, &devices);
    if (!st)
        st = get_array(ld, root, "shapes", false, &shapes);
    if (!st)
        st = get_array(ld, root, "records", true, &records);
    if (!st && devices)
        st = load_devices(ld, devices, run);
    if (!st && shapes)
        st = load_shapes(ld, shapes, run);
    if (st)
        return st;
    run->recs = calloc((size_t)records->count + 1, sizeof *run->recs);
    if (!run->recs)
        return xconv_error_set(ld->err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the records");
    for (int i = 0; i < records->count; i++) {
        xconv_matrix_record *r = &run->recs[i];
        if ((st = load_record(ld, &records->items[i], i, r)))
            return st;
        run->count++;
        if (devices && !xconv_run_file_device(run, r->rec.device))
            return bad(ld, &records->items[i], "records", "[%d] names device \"%s\", which "
                       "\"devices\" lacks", i, r->rec.device);
    }
    return derive_devices(ld, run);
}

xconv_status xconv_run_file_parse(const char *text, size_t len, const char *origin,
                                  xconv_run_file *out, xconv_error *err)
{
    if (!text || !out)
        return xconv_error_set(err, XCONV_ERR_INVALID, "no text or output given");
    memset(out, 0, sizeof *out);
    loader ld = {.origin = origin ? origin : "results", .text = text, .len = len, .err = err};
    xconv_json *root = xconv_json_parse(text, len, err);
    if (!root) {
        if (err)
            xconv_error_prefix(err, "%s", ld.origin);
        return err ? err->status : XCONV_ERR_PARSE;
    }
    xconv_status st = load_tree(&ld, root, out);
    xconv_json_free(root);
    if (st)
        xconv_run_file_free(out);
    return st;
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
    if ((uint64_t)sb.st_size > RUN_FILE_MAX_BYTES) {
        fclose(f);
        return xconv_error_set(err, XCONV_ERR_PARSE, "'%s' is larger than %u MiB", path,
                               RUN_FILE_MAX_BYTES >> 20);
    }
    size_t len = (size_t)sb.st_size;
    char *text = malloc(len + 1);
    if (!text) {
        fclose(f);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory to read '%s'", path);
    }
    bool failed = fread(text, 1, len, f) != len || ferror(f);
    fclose(f);
    xconv_status st = failed ? xconv_error_set(err, XCONV_ERR_IO, "cannot read '%s'", path)
                             : xconv_run_file_parse(text, len, path, out, err);
    free(text);
    return st;
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
