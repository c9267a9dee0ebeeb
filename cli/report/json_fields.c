// SPDX-License-Identifier: MIT
// Reading a JSON object's members into a C struct by a table of fields (json_fields.h).
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "json_fields.h"

// Returns the outcome named by word, or -1.
static int outcome_from_word(const char *word)
{
    static const char *const words[] = {
        [XCONV_OUTCOME_PASS] = "pass", [XCONV_OUTCOME_FAIL] = "fail",
        [XCONV_OUTCOME_NOT_APPLICABLE] = "not_applicable", [XCONV_OUTCOME_ERROR] = "error",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(word, words[i]) == 0)
            return (int)i;
    return -1;
}

// Reads a positive number, or null / absent for 0, into *out; returns XCONV_OK or an error
// naming where.key.
static xconv_status store_positive(const json_t *obj, const char *key, double *out,
                                   const char *where, xconv_error *err)
{
    double v = NAN;
    xconv_status st = xconv_json_get_double(obj, key, false, true, where, &v, err);
    *out = 0;
    if (!st && json_object_get(obj, key) && !isnan(v) && !(v > 0))
        st = xconv_error_set(err, XCONV_ERR_PARSE, "%s.%s: wants a positive number or null",
                             where, key);
    if (!st && v > 0)
        *out = v;
    return st;
}

// Reads member fd->name of obj, if present, into base (obj named where); returns XCONV_OK or an
// error naming where.name.
static xconv_status store(const xconv_json_field *fd, const json_t *obj, void *base,
                          const char *where, xconv_error *err)
{
    void *dst = (char *)base + fd->offset;
    const json_t *v = json_object_get(obj, fd->name);
    int64_t i = 0;
    xconv_status st = XCONV_OK;
    switch (fd->kind) {
    case XCONV_FIELD_STRING:
        return xconv_json_get_string(obj, fd->name, false, where, dst, fd->size, err);
    case XCONV_FIELD_U64:
        if ((st = xconv_json_get_int64(obj, fd->name, false, 0, INT64_MAX, where, &i, err)))
            return st;
        if (v)
            *(uint64_t *)dst = (uint64_t)i;
        return XCONV_OK;
    case XCONV_FIELD_INT:
        if ((st = xconv_json_get_int64(obj, fd->name, false, INT_MIN, INT_MAX, where, &i, err)))
            return st;
        if (v)
            *(int *)dst = (int)i;
        return XCONV_OK;
    case XCONV_FIELD_I64:
        return xconv_json_get_int64(obj, fd->name, false, INT64_MIN, INT64_MAX, where, dst, err);
    case XCONV_FIELD_DOUBLE:
        return xconv_json_get_double(obj, fd->name, false, true, where, dst, err);
    case XCONV_FIELD_POSITIVE:
        return store_positive(obj, fd->name, dst, where, err);
    case XCONV_FIELD_OUTCOME: {
        int o = json_is_string(v) ? outcome_from_word(json_string_value(v)) : -1;
        if (v && o < 0)
            return xconv_error_set(err, XCONV_ERR_PARSE, "%s.%s: wants \"pass\", \"fail\", "
                                   "\"not_applicable\" or \"error\"", where, fd->name);
        if (v)
            *(xconv_outcome *)dst = (xconv_outcome)o;
        return XCONV_OK;
    }
    case XCONV_FIELD_PICK:
        if (v && !json_is_boolean(v) && !json_is_null(v))
            return xconv_error_set(err, XCONV_ERR_PARSE, "%s.%s: wants true, false or null, "
                                   "got %s", where, fd->name, xconv_json_type_name(v));
        if (v)
            *(int *)dst = json_is_null(v) ? -1 : json_is_true(v);
        return XCONV_OK;
    }
    return XCONV_OK;
}

xconv_status xconv_json_load_fields(const json_t *obj, const xconv_json_field *fields,
                                    int nfields, void *base, const char *where,
                                    xconv_error *err)
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
