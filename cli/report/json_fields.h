// SPDX-License-Identifier: MIT
// Reading a JSON object's members into a C struct by a table of fields (name, kind, where the
// value goes), with errors naming the value's path ("records[3].seed") as json_read.h's getters.
#ifndef XCONV_JSON_FIELDS_H
#define XCONV_JSON_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "json_read.h"

// What a field holds and how its member is read; an absent member leaves the field as it was
// unless the kind says otherwise.
typedef enum xconv_field_kind {
    XCONV_FIELD_STRING,    // char array; a longer string is refused
    XCONV_FIELD_U64,       // uint64_t from an integer literal, at most INT64_MAX (Jansson: int64)
    XCONV_FIELD_INT,       // int from an integer literal
    XCONV_FIELD_I64,       // int64_t from an integer literal
    XCONV_FIELD_DOUBLE,    // double; null reads as NAN
    XCONV_FIELD_POSITIVE,  // double: a positive number; null or absent reads as 0 (unknown)
    XCONV_FIELD_OUTCOME,   // xconv_outcome from its word ("pass", "fail", ...)
    XCONV_FIELD_PICK,      // int: true 1, false 0, null -1
} xconv_field_kind;

// One member of an object and the field of the struct it is read into.
typedef struct xconv_json_field {
    const char *name;       // the member's key
    xconv_field_kind kind;
    size_t offset;          // the field's offset in the struct
    size_t size;            // the field's size (a string's buffer)
    bool required;          // an object without the member is refused
} xconv_json_field;

// Reads the members of object obj named by fields[nfields] into the struct at base (where names
// obj in messages: "records[3]"; NULL: the top level); returns XCONV_OK, or XCONV_ERR_PARSE for
// obj not an object, a required member missing or a value of the wrong kind, the fields read in
// table order up to the first error.
xconv_status xconv_json_load_fields(const json_t *obj, const xconv_json_field *fields,
                                    int nfields, void *base, const char *where,
                                    xconv_error *err);

#endif // XCONV_JSON_FIELDS_H
