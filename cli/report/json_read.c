// SPDX-License-Identifier: MIT
// Jansson's strict parse with its errors as xconv_error values, and typed member getters.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_open.h"
#include "json_read.h"

// ---------------------------------------------------------------------------------------------
// Parsing

// Duplicate keys are refused; any value may stand at the top (the readers name what they want).
#define PARSE_FLAGS (JSON_REJECT_DUPLICATES | JSON_DECODE_ANY)

// Fills err from Jansson's error e; returns NULL.
static json_t *parse_failed(const json_error_t *e, xconv_error *err)
{
    if (json_error_code(e) == json_error_out_of_memory)
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the JSON tree");
    else
        xconv_error_set(err, XCONV_ERR_PARSE, "byte %d (line %d, column %d): %s", e->position,
                        e->line, e->column, e->text);
    return NULL;
}

json_t *xconv_json_parse(const char *text, size_t len, xconv_error *err)
{
    if (!text) {
        xconv_error_set(err, XCONV_ERR_INVALID, "no JSON text given");
        return NULL;
    }
    json_error_t e;
    json_t *root = json_loadb(text, len, PARSE_FLAGS, &e);
    return root ? root : parse_failed(&e, err);
}

json_t *xconv_json_read_file(FILE *f, size_t size, size_t max_bytes, xconv_error *err)
{
    if (size > max_bytes) {
        xconv_error_set(err, XCONV_ERR_PARSE, "larger than %zu MiB", max_bytes >> 20);
        return NULL;
    }
    char *text = malloc(size + 1);
    if (!text) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory to read it");
        return NULL;
    }
    json_t *root = NULL;
    if (fread(text, 1, size, f) != size || ferror(f))
        xconv_error_set(err, XCONV_ERR_IO, "cannot read it");
    else
        root = xconv_json_parse(text, size, err);
    free(text);
    return root;
}

// ---------------------------------------------------------------------------------------------
// Types

const char *xconv_json_type_name(const json_t *v)
{
    if (!v)
        return "nothing";
    switch (json_typeof(v)) {
    case JSON_NULL: return "null";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    case JSON_OBJECT: return "an object";
    }
    return "nothing";
}

bool xconv_json_is_word(const json_t *v, const char *word)
{
    return json_is_string(v) && strcmp(json_string_value(v), word) == 0;
}

// ---------------------------------------------------------------------------------------------
// Getters

// Fills err with "where.key: " ("key: " at the top level) and the message; returns
// XCONV_ERR_PARSE.
static xconv_status bad(xconv_error *err, const char *where, const char *key, const char *fmt,
                        ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static xconv_status bad(xconv_error *err, const char *where, const char *key, const char *fmt,
                        ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return xconv_error_set(err, XCONV_ERR_PARSE, "%s%s%s: %s", where ? where : "",
                           where ? "." : "", key, msg);
}

// Sets *v to member key of obj; returns XCONV_OK (*v NULL when absent and !required) or an
// error when obj is not an object or lacks a required key.
static xconv_status member(const json_t *obj, const char *key, bool required, const char *where,
                           const json_t **v, xconv_error *err)
{
    where = where ? where : "top level";
    if (!json_is_object(obj))
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: wants an object, got %s", where,
                               xconv_json_type_name(obj));
    *v = json_object_get(obj, key);  // NULL for a key that obj lacks
    if (!*v && required)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: lacks \"%s\"", where, key);
    return XCONV_OK;
}

xconv_status xconv_json_get_string(const json_t *obj, const char *key, bool required,
                                   const char *where, char *buf, size_t len, xconv_error *err)
{
    const json_t *v = NULL;
    xconv_status st = member(obj, key, required, where, &v, err);
    if (st || !v)
        return st;
    if (!json_is_string(v))
        return bad(err, where, key, "wants a string, got %s", xconv_json_type_name(v));
    size_t n = json_string_length(v);
    if (n >= len)
        return bad(err, where, key, "is %zu bytes, longer than the %zu this field holds", n,
                   len - 1);
    memcpy(buf, json_string_value(v), n + 1);
    return XCONV_OK;
}

xconv_status xconv_json_get_double(const json_t *obj, const char *key, bool required,
                                   bool nullable, const char *where, double *out,
                                   xconv_error *err)
{
    const json_t *v = NULL;
    xconv_status st = member(obj, key, required, where, &v, err);
    if (st || !v)
        return st;
    if (json_is_null(v) && nullable) {
        *out = NAN;
        return XCONV_OK;
    }
    if (!json_is_number(v))
        return bad(err, where, key, "wants a number%s, got %s", nullable ? " or null" : "",
                   xconv_json_type_name(v));
    *out = json_number_value(v);
    return XCONV_OK;
}

xconv_status xconv_json_get_int64(const json_t *obj, const char *key, bool required,
                                  int64_t lo, int64_t hi, const char *where, int64_t *out,
                                  xconv_error *err)
{
    const json_t *v = NULL;
    xconv_status st = member(obj, key, required, where, &v, err);
    if (st || !v)
        return st;
    if (json_is_real(v))
        return bad(err, where, key, "wants an integer, got %.17g (a fraction or an exponent)",
                   json_real_value(v));
    if (!json_is_integer(v))
        return bad(err, where, key, "wants an integer, got %s", xconv_json_type_name(v));
    json_int_t i = json_integer_value(v);
    if (i < lo || i > hi)
        return bad(err, where, key, "%lld is out of range [%lld, %lld]", (long long)i,
                   (long long)lo, (long long)hi);
    *out = i;
    return XCONV_OK;
}

xconv_status xconv_json_get_bool(const json_t *obj, const char *key, bool required,
                                 const char *where, bool *out, xconv_error *err)
{
    const json_t *v = NULL;
    xconv_status st = member(obj, key, required, where, &v, err);
    if (st || !v)
        return st;
    if (!json_is_boolean(v))
        return bad(err, where, key, "wants true or false, got %s", xconv_json_type_name(v));
    *out = json_is_true(v);
    return XCONV_OK;
}

xconv_status xconv_json_get_array(const json_t *obj, const char *key, bool required,
                                  const char *where, const json_t **out, xconv_error *err)
{
    const json_t *v = NULL;
    *out = NULL;
    xconv_status st = member(obj, key, required, where, &v, err);
    if (st || !v)
        return st;
    if (!json_is_array(v))
        return bad(err, where, key, "wants an array, got %s", xconv_json_type_name(v));
    *out = v;
    return XCONV_OK;
}

xconv_status xconv_json_probe_path(const char *path, size_t max_bytes, json_t **root,
                                   xconv_error *err)
{
    *root = NULL;
    struct stat sb;
    FILE *f = xconv_file_open_regular(path, &sb);
    if (!f && errno == EINVAL)
        return XCONV_OK;
    if (!f)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot open '%s': %s", path,
                               xconv_file_open_why(errno));
    xconv_error read_err;
    *root = xconv_json_read_file(f, (size_t)sb.st_size, max_bytes, &read_err);
    fclose(f);
    if (*root || read_err.status == XCONV_ERR_PARSE)
        return XCONV_OK;  // too large or not JSON reads as not one of ours
    if (err) {
        *err = read_err;
        xconv_error_prefix(err, "'%s'", path);
    }
    return read_err.status;
}

xconv_status xconv_json_bad(xconv_error *err, const char *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return xconv_error_set(err, XCONV_ERR_PARSE, "%s: %s", where ? where : "top level", msg);
}
