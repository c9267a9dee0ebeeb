// SPDX-License-Identifier: MIT
// Reads compile-check results files (`xconv compile --json`) back into records, for the report,
// through Jansson (json_read.h).
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compile_record.h"
#include "file_open.h"
#include "json_read.h"

#define COMPILE_MAX_BYTES (256u << 20)

// Copies string member key of obj into buf ("" when absent or not a string).
static void get_string(const json_t *obj, const char *key, char *buf, size_t len)
{
    const char *s = json_string_value(json_object_get(obj, key));
    snprintf(buf, len, "%s", s ? s : "");
}

// Returns number member key of obj, -1 when absent or null.
static double get_number(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

// Returns boolean member key of obj (false when absent).
static bool get_bool(const json_t *obj, const char *key)
{
    return json_is_true(json_object_get(obj, key));
}

// Fills *r from record object o; returns false when its outcome is not one of ours.
static bool read_record(const json_t *o, xconv_compile_record *r)
{
    memset(r, 0, sizeof *r);
    get_string(o, "target", r->target, sizeof r->target);
    get_string(o, "compiler", r->compiler, sizeof r->compiler);
    get_string(o, "variant", r->variant, sizeof r->variant);
    r->is_auto = get_bool(o, "auto");
    get_string(o, "shape_name", r->shape_name, sizeof r->shape_name);
    get_string(o, "shape", r->shape, sizeof r->shape);
    r->step = (int)get_number(o, "step");
    get_string(o, "kernel", r->kernel, sizeof r->kernel);
    get_string(o, "source", r->source, sizeof r->source);
    char outcome[16];
    get_string(o, "outcome", outcome, sizeof outcome);
#define READ_COUNT(field, width) r->counts.field = (long)get_number(o, #field);
    XCONV_COMPILE_COUNTS(READ_COUNT)
#undef READ_COUNT
    r->seconds = get_number(o, "seconds");
    r->deduplicated = get_bool(o, "deduplicated");
    get_string(o, "note", r->note, sizeof r->note);
    for (int k = XCONV_COMPILE_OK; k <= XCONV_COMPILE_SKIPPED; k++)
        if (strcmp(outcome, xconv_compile_outcome_name((xconv_compile_outcome)k)) == 0) {
            r->outcome = (xconv_compile_outcome)k;
            return r->target[0] != '\0';
        }
    return false;
}

// Reads the records of root (a compile file's object) into *out.
static xconv_status read_root(const json_t *root, const char *path, xconv_compile_file *out,
                              xconv_error *err)
{
    get_string(root, "version", out->info.tool_version, sizeof out->info.tool_version);
    get_string(root, "commit", out->info.commit, sizeof out->info.commit);
    get_string(root, "date", out->info.date, sizeof out->info.date);
    get_string(root, "command", out->info.command, sizeof out->info.command);
    const json_t *recs = json_object_get(root, "records");
    if (!json_is_array(recs))
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: a compile file without \"records\"",
                               path);
    out->recs = calloc(json_array_size(recs) + 1, sizeof *out->recs);
    if (!out->recs)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for %s", path);
    for (size_t i = 0; i < json_array_size(recs); i++)
        if (!json_is_object(json_array_get(recs, i)) ||
            !read_record(json_array_get(recs, i), &out->recs[out->count++]))
            return xconv_error_set(err, XCONV_ERR_PARSE, "%s: compile record %zu has no target "
                                   "or an unknown outcome", path, i);
    return XCONV_OK;
}

xconv_status xconv_compile_file_load(const char *path, xconv_compile_file *out,
                                     bool *is_compile, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    *is_compile = false;
    json_t *root;
    xconv_status st = xconv_json_probe_path(path, COMPILE_MAX_BYTES, &root, err);
    if (st == XCONV_OK && xconv_json_is_word(json_object_get(root, "kind"), "compile")) {
        *is_compile = true;
        st = read_root(root, path, out, err);
        if (st != XCONV_OK)
            xconv_compile_file_free(out);
    }
    json_decref(root);
    return st;
}

void xconv_compile_file_free(xconv_compile_file *file)
{
    free(file->recs);
    file->recs = NULL;
    file->count = 0;
}
