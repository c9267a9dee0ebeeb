// SPDX-License-Identifier: MIT
// A strict JSON reader (RFC 8259) into a tree of values, for xconv's own results files.
#ifndef XCONV_JSON_READ_H
#define XCONV_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <xconv/xconv.h>

typedef enum xconv_json_type {
    XCONV_JSON_NULL,
    XCONV_JSON_BOOL,
    XCONV_JSON_NUMBER,
    XCONV_JSON_STRING,
    XCONV_JSON_ARRAY,
    XCONV_JSON_OBJECT,
} xconv_json_type;

// One value. Arrays and objects own their items; an object's keys are in file order.
typedef struct xconv_json xconv_json;
struct xconv_json {
    xconv_json_type type;
    size_t offset;        // byte offset of the value's first character in the text
    bool boolean;         // BOOL
    double number;        // NUMBER (finite)
    char *string;         // STRING: NUL-terminated UTF-8 (never holds a NUL: \u0000 is refused)
    size_t length;        // STRING: bytes before the terminator
    xconv_json *items;    // ARRAY, OBJECT: count values
    char **keys;          // OBJECT: count keys, unique
    int count;
};

// The deepest nesting of arrays and objects the reader accepts.
#define XCONV_JSON_MAX_DEPTH 64

// Parses text (len bytes, need not be NUL-terminated) into a new tree; returns it (free with
// xconv_json_free), or NULL with XCONV_ERR_PARSE and "byte N (line L, column C): what" in *err
// for anything RFC 8259 refuses, plus duplicate keys, \u0000, numbers out of double's range and
// nesting past XCONV_JSON_MAX_DEPTH; XCONV_ERR_OUT_OF_MEMORY when memory runs out.
xconv_json *xconv_json_parse(const char *text, size_t len, xconv_error *err);

// Frees a tree from xconv_json_parse (NULL is fine).
void xconv_json_free(xconv_json *value);

// Returns the member of object obj named key, or NULL when obj is not an object or lacks key.
const xconv_json *xconv_json_get(const xconv_json *obj, const char *key);

// Returns "null", "a boolean", "a number", "a string", "an array" or "an object".
const char *xconv_json_type_name(xconv_json_type type);

#endif // XCONV_JSON_READ_H
