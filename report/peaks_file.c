// SPDX-License-Identifier: MIT
// The peaks file (docs/peaks.md): reading it through the strict JSON reader, finding and putting
// a device's entry, writing it back.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_open.h"
#include "json_read.h"
#include "peaks_file.h"
#include "record.h"

#define PEAKS_FILE_MAX_BYTES (16u << 20)

// ---------------------------------------------------------------------------------------------
// Reading

// Fills err with "origin: byte N: where: what"; returns XCONV_ERR_PARSE.
static xconv_status bad(xconv_error *err, const char *origin, const xconv_json *at,
                        const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static xconv_status bad(xconv_error *err, const char *origin, const xconv_json *at,
                        const char *where, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return xconv_error_set(err, XCONV_ERR_PARSE, "%s: byte %zu: %s: %s", origin,
                           at ? at->offset : 0, where, msg);
}

// Copies string member key of obj into buf (len bytes); returns XCONV_OK (a missing key leaves
// "" unless required) or an error naming where.
static xconv_status get_string(const xconv_json *obj, const char *key, bool required, char *buf,
                               size_t len, const char *origin, const char *where,
                               xconv_error *err)
{
    const xconv_json *v = xconv_json_get(obj, key);
    buf[0] = '\0';
    if (!v && !required)
        return XCONV_OK;
    if (!v)
        return bad(err, origin, obj, where, "lacks \"%s\"", key);
    if (v->type != XCONV_JSON_STRING)
        return bad(err, origin, v, where, "%s: wants a string, got %s", key,
                   xconv_json_type_name(v->type));
    if (v->length >= len)
        return bad(err, origin, v, where, "%s: longer than %zu bytes", key, len - 1);
    memcpy(buf, v->string, v->length + 1);
    return XCONV_OK;
}

// Reads peak member key of obj into *out: a positive number, or null / missing for 0
// (unknown); returns XCONV_OK or an error naming where.
static xconv_status get_peak(const xconv_json *obj, const char *key, double *out,
                             const char *origin, const char *where, xconv_error *err)
{
    const xconv_json *v = xconv_json_get(obj, key);
    *out = 0;
    if (!v || v->type == XCONV_JSON_NULL)
        return XCONV_OK;
    if (v->type != XCONV_JSON_NUMBER || !(v->number > 0))
        return bad(err, origin, v, where, "%s: wants a positive number or null", key);
    *out = v->number;
    return XCONV_OK;
}

// Reads devices[i] into *e; returns XCONV_OK or an error.
static xconv_status read_entry(const xconv_json *obj, int i, xconv_peaks_entry *e,
                               const char *origin, xconv_error *err)
{
    char where[48];
    snprintf(where, sizeof where, "devices[%d]", i);
    memset(e, 0, sizeof *e);
    if (obj->type != XCONV_JSON_OBJECT)
        return bad(err, origin, obj, where, "wants an object, got %s",
                   xconv_json_type_name(obj->type));
    xconv_status st = get_string(obj, "name", true, e->name, sizeof e->name, origin, where, err);
    if (!st)
        st = get_string(obj, "backend", true, e->backend, sizeof e->backend, origin, where, err);
    if (!st)
        st = get_string(obj, "driver", true, e->driver, sizeof e->driver, origin, where, err);
    if (!st)
        st = get_string(obj, "platform", false, e->platform, sizeof e->platform, origin, where,
                        err);
    if (!st)
        st = get_string(obj, "date", false, e->date, sizeof e->date, origin, where, err);
    if (!st)
        st = get_string(obj, "commit", false, e->commit, sizeof e->commit, origin, where, err);
    if (!st)
        st = get_peak(obj, "fp32_gflops", &e->fp32_gflops, origin, where, err);
    if (!st)
        st = get_peak(obj, "gbps", &e->gbps, origin, where, err);
    if (!st)
        st = get_peak(obj, "gbps_read", &e->gbps_read, origin, where, err);
    return st;
}

// Checks root's kind and version and reads its devices into out; returns XCONV_OK or an error.
static xconv_status read_tree(const xconv_json *root, const char *origin, xconv_peaks_file *out,
                              xconv_error *err)
{
    if (root->type != XCONV_JSON_OBJECT)
        return bad(err, origin, root, "top level", "wants an object");
    const xconv_json *tool = xconv_json_get(root, "tool"), *kind = xconv_json_get(root, "kind");
    if (!tool || tool->type != XCONV_JSON_STRING || strcmp(tool->string, "xconv") != 0 ||
        !kind || kind->type != XCONV_JSON_STRING || strcmp(kind->string, "peaks") != 0)
        return bad(err, origin, root, "top level",
                   "not an xconv peaks file (it lacks \"tool\": \"xconv\", \"kind\": \"peaks\")");
    const xconv_json *ver = xconv_json_get(root, "schema_version");
    if (!ver || ver->type != XCONV_JSON_NUMBER || ver->number != floor(ver->number) ||
        ver->number < 1)
        return bad(err, origin, ver ? ver : root, "schema_version", "wants an integer >= 1");
    if (ver->number > XCONV_PEAKS_FILE_VERSION)
        return bad(err, origin, ver, "schema_version", "%g is newer than this xconv reads (%d)",
                   ver->number, XCONV_PEAKS_FILE_VERSION);
    const xconv_json *devices = xconv_json_get(root, "devices");
    if (!devices || devices->type != XCONV_JSON_ARRAY)
        return bad(err, origin, devices ? devices : root, "devices", "wants an array");
    out->entries = calloc((size_t)devices->count + 1, sizeof *out->entries);
    if (!out->entries)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the peaks");
    for (int i = 0; i < devices->count; i++) {
        xconv_peaks_entry *e = &out->entries[i];
        xconv_status st = read_entry(&devices->items[i], i, e, origin, err);
        if (st)
            return st;
        if (xconv_peaks_file_find(out, e->name, e->backend, e->driver))
            return bad(err, origin, &devices->items[i], "devices", "[%d] repeats device \"%s\" "
                       "(%s, driver %s)", i, e->name, e->backend, e->driver);
        out->count++;
    }
    return XCONV_OK;
}

xconv_status xconv_peaks_file_parse(const char *text, size_t len, const char *origin,
                                    xconv_peaks_file *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    origin = origin ? origin : "peaks";
    xconv_json *root = xconv_json_parse(text, len, err);
    if (!root)
        return xconv_error_prefix(err, "%s", origin);
    xconv_status st = read_tree(root, origin, out, err);
    xconv_json_free(root);
    if (st)
        xconv_peaks_file_free(out);
    return st;
}

xconv_status xconv_peaks_file_load(const char *path, xconv_peaks_file *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    struct stat sb;
    FILE *f = xconv_file_open_regular(path, &sb);
    if (!f && errno == ENOENT)
        return XCONV_OK;
    if (!f && errno != EINVAL)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    if (!f || (uint64_t)sb.st_size > PEAKS_FILE_MAX_BYTES) {
        if (f)
            fclose(f);
        return xconv_error_set(err, XCONV_ERR_IO, "'%s' is not a regular file under %u MiB",
                               path, PEAKS_FILE_MAX_BYTES >> 20);
    }
    size_t len = (size_t)sb.st_size;
    char *text = malloc(len + 1);
    bool failed = !text || fread(text, 1, len, f) != len || ferror(f);
    fclose(f);
    xconv_status st = failed ? xconv_error_set(err, XCONV_ERR_IO, "cannot read '%s'", path)
                             : xconv_peaks_file_parse(text, len, path, out, err);
    free(text);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Entries

const xconv_peaks_entry *xconv_peaks_file_find(const xconv_peaks_file *file, const char *name,
                                               const char *backend, const char *driver)
{
    for (int i = 0; file && i < file->count; i++) {
        const xconv_peaks_entry *e = &file->entries[i];
        if (!strcmp(e->name, name) && !strcmp(e->backend, backend) && !strcmp(e->driver, driver))
            return e;
    }
    return NULL;
}

xconv_status xconv_peaks_file_put(xconv_peaks_file *file, const xconv_peaks_entry *e,
                                  xconv_error *err)
{
    xconv_peaks_entry *same =
        (xconv_peaks_entry *)xconv_peaks_file_find(file, e->name, e->backend, e->driver);
    if (same) {
        *same = *e;
        return XCONV_OK;
    }
    xconv_peaks_entry *grown =
        realloc(file->entries, (size_t)(file->count + 1) * sizeof *grown);
    if (!grown)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the peaks");
    file->entries = grown;
    file->entries[file->count++] = *e;
    return XCONV_OK;
}

void xconv_peaks_file_free(xconv_peaks_file *file)
{
    free(file->entries);
    memset(file, 0, sizeof *file);
}

// ---------------------------------------------------------------------------------------------
// Writing

// Writes a positive peak as %.6g, anything else as null.
static void peak(FILE *f, double v)
{
    if (v > 0 && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

#define STR(f, s) xconv_json_write_string(f, s, sizeof(s))

int xconv_peaks_file_write(FILE *f, const xconv_peaks_file *file)
{
    fprintf(f, "{\n  \"tool\": \"xconv\",\n  \"kind\": \"peaks\",\n  \"schema_version\": %d,\n"
               "  \"devices\": [", XCONV_PEAKS_FILE_VERSION);
    for (int i = 0; i < file->count; i++) {
        const xconv_peaks_entry *e = &file->entries[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        STR(f, e->name);
        fputs(", \"backend\": ", f);
        STR(f, e->backend);
        fputs(", \"driver\": ", f);
        STR(f, e->driver);
        fputs(",\n     \"platform\": ", f);
        STR(f, e->platform);
        fputs(",\n     \"fp32_gflops\": ", f);
        peak(f, e->fp32_gflops);
        fputs(", \"gbps\": ", f);
        peak(f, e->gbps);
        fputs(", \"gbps_read\": ", f);
        peak(f, e->gbps_read);
        fputs(",\n     \"date\": ", f);
        STR(f, e->date);
        fputs(", \"commit\": ", f);
        STR(f, e->commit);
        putc('}', f);
    }
    fputs(file->count ? "\n  ]\n}\n" : "]\n}\n", f);
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}
