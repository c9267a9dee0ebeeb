// SPDX-License-Identifier: MIT
// The peaks file (docs/peaks.md): reading it through Jansson (json_read.h), finding and putting
// a device's entry, writing it back.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_open.h"
#include "json_fields.h"
#include "json_read.h"
#include "peaks_file.h"
#include "record.h"

#define PEAKS_FILE_MAX_BYTES (16u << 20)

// ---------------------------------------------------------------------------------------------
// Reading

// The key of the tensor cores' figure in math mode m (tf32, f16, bf16): "tf32_gflops".
static const char *mma_key(int m)
{
    static const char *const keys[] = {"", "tf32_gflops", "f16_gflops", "bf16_gflops"};
    return keys[m];
}

#define STR(member, req) \
    { #member, XCONV_FIELD_STRING, offsetof(xconv_peaks_entry, member), \
      sizeof(((xconv_peaks_entry *)0)->member), req }
#define PEAK(key, member) \
    { key, XCONV_FIELD_POSITIVE, offsetof(xconv_peaks_entry, member), sizeof(double), false }

// An entry's keys (docs/peaks.md): the identity, then the peaks (positive, or null / missing
// for 0: unknown), the tensor cores' under mma_key's names.
static const xconv_json_field entry_fields[] = {
    STR(name, true),    STR(backend, true), STR(driver, true),
    STR(platform, false), STR(date, false), STR(commit, false),
    PEAK("fp32_gflops", fp32_gflops), PEAK("gbps", gbps), PEAK("gbps_read", gbps_read),
    PEAK("tf32_gflops", mma_gflops[XCONV_MATH_TF32]),
    PEAK("f16_gflops", mma_gflops[XCONV_MATH_F16]),
    PEAK("bf16_gflops", mma_gflops[XCONV_MATH_BF16]),
};

// Reads devices[i] into *e; returns XCONV_OK or an error.
static xconv_status read_entry(const json_t *obj, size_t i, xconv_peaks_entry *e,
                               xconv_error *err)
{
    char where[48];
    snprintf(where, sizeof where, "devices[%zu]", i);
    memset(e, 0, sizeof *e);
    return xconv_json_load_fields(obj, entry_fields,
                                  (int)(sizeof entry_fields / sizeof entry_fields[0]), e, where,
                                  err);
}

// Checks root's kind and version and reads its devices into out; returns XCONV_OK or an error.
static xconv_status read_tree(const json_t *root, xconv_peaks_file *out, xconv_error *err)
{
    if (!json_is_object(root))
        return xconv_json_bad(err, "top level", "wants an object, got %s", xconv_json_type_name(root));
    if (!xconv_json_is_word(json_object_get(root, "tool"), "xconv") ||
        !xconv_json_is_word(json_object_get(root, "kind"), "peaks"))
        return xconv_json_bad(err, "top level",
                   "not an xconv peaks file (it lacks \"tool\": \"xconv\", \"kind\": \"peaks\")");
    int64_t version = 0;
    xconv_status st = xconv_json_get_int64(root, "schema_version", true, 1, INT64_MAX,
                                           NULL, &version, err);
    if (st)
        return st;
    if (version > XCONV_PEAKS_FILE_VERSION)
        return xconv_json_bad(err, "schema_version", "%lld is newer than this xconv reads (%d)",
                   (long long)version, XCONV_PEAKS_FILE_VERSION);
    const json_t *devices;
    if ((st = xconv_json_get_array(root, "devices", true, NULL, &devices, err)))
        return st;
    out->entries = calloc(json_array_size(devices) + 1, sizeof *out->entries);
    if (!out->entries)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the peaks");
    for (size_t i = 0; i < json_array_size(devices); i++) {
        xconv_peaks_entry *e = &out->entries[i];
        if ((st = read_entry(json_array_get(devices, i), i, e, err)))
            return st;
        if (xconv_peaks_file_find(out, e->name, e->backend, e->driver))
            return xconv_json_bad(err, "devices", "[%zu] repeats device \"%s\" (%s, driver %s)", i,
                       e->name, e->backend, e->driver);
        out->count++;
    }
    return XCONV_OK;
}

// Reads tree root (NULL: the parse failed, err says why) into out; returns XCONV_OK or an error
// prefixed with origin (out empty).
static xconv_status read_root(json_t *root, const char *origin, xconv_peaks_file *out,
                              xconv_error *err)
{
    xconv_status st = root ? read_tree(root, out, err) : err->status;
    json_decref(root);
    if (st) {
        xconv_peaks_file_free(out);
        xconv_error_prefix(err, "%s", origin);
    }
    return st;
}

xconv_status xconv_peaks_file_parse(const char *text, size_t len, const char *origin,
                                    xconv_peaks_file *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    xconv_error local;
    err = err ? err : &local;
    return read_root(xconv_json_parse(text, len, err), origin ? origin : "peaks", out, err);
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
    xconv_error local;
    err = err ? err : &local;
    json_t *root = xconv_json_read_file(f, (size_t)sb.st_size, PEAKS_FILE_MAX_BYTES, err);
    fclose(f);
    return read_root(root, path, out, err);
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

// Writes lead (separator, key and colon), then a positive peak as %.6g, anything else as null.
static void peak(FILE *f, const char *lead, double v)
{
    fputs(lead, f);
    if (v > 0 && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

#define MEMBER(f, lead, s) xconv_json_write_member(f, lead, s, sizeof(s))

int xconv_peaks_file_write(FILE *f, const xconv_peaks_file *file)
{
    fprintf(f, "{\n  \"tool\": \"xconv\",\n  \"kind\": \"peaks\",\n  \"schema_version\": %d,\n"
               "  \"devices\": [", XCONV_PEAKS_FILE_VERSION);
    for (int i = 0; i < file->count; i++) {
        const xconv_peaks_entry *e = &file->entries[i];
        MEMBER(f, i ? ",\n    {\"name\": " : "\n    {\"name\": ", e->name);
        MEMBER(f, ", \"backend\": ", e->backend);
        MEMBER(f, ", \"driver\": ", e->driver);
        MEMBER(f, ",\n     \"platform\": ", e->platform);
        peak(f, ",\n     \"fp32_gflops\": ", e->fp32_gflops);
        peak(f, ", \"gbps\": ", e->gbps);
        peak(f, ", \"gbps_read\": ", e->gbps_read);
        for (int m = XCONV_MATH_TF32; m <= XCONV_MATH_BF16; m++) {
            fprintf(f, "%s\"%s\": ", m == XCONV_MATH_TF32 ? ",\n     " : ", ", mma_key(m));
            peak(f, "", e->mma_gflops[m]);
        }
        MEMBER(f, ",\n     \"date\": ", e->date);
        MEMBER(f, ", \"commit\": ", e->commit);
        putc('}', f);
    }
    fputs(file->count ? "\n  ]\n}\n" : "]\n}\n", f);
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}
