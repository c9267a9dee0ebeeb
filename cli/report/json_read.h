// SPDX-License-Identifier: MIT
// Reading xconv's JSON files through Jansson: one strict parse with its errors as xconv_error
// values, and typed member getters whose errors name the value's path ("records[3].seed").
#ifndef XCONV_JSON_READ_H
#define XCONV_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <xconv/xconv.h>

// Parses text (len bytes, need not be NUL-terminated) into a new tree; returns it (free with
// json_decref), or NULL with XCONV_ERR_PARSE and "byte N (line L, column C): what" in *err for
// anything RFC 8259 refuses, plus duplicate keys, \u0000, integers outside int64_t, numbers
// outside double's range and nesting past Jansson's limit (JSON_PARSER_MAX_DEPTH);
// XCONV_ERR_OUT_OF_MEMORY when memory runs out.
json_t *xconv_json_parse(const char *text, size_t len, xconv_error *err);

// Reads the rest of f (a regular file of size bytes, at most max_bytes) and parses it as
// xconv_json_parse does; returns the tree, or NULL with XCONV_ERR_IO, XCONV_ERR_PARSE or
// XCONV_ERR_OUT_OF_MEMORY in *err (messages not yet naming the file). f stays open.
json_t *xconv_json_read_file(FILE *f, size_t size, size_t max_bytes, xconv_error *err);

// Opens path and parses it when it is one of xconv's JSON files (a regular file of at most
// max_bytes, valid JSON): returns XCONV_OK and *root (free with json_decref), NULL when the file
// is not a regular file, is larger or is not JSON (not one of ours: the caller's other readers
// say what it is); or the failure to open or read it, naming path.
xconv_status xconv_json_probe_path(const char *path, size_t max_bytes, json_t **root,
                                   xconv_error *err);

// Fills err with "where: what" (where NULL: "top level") and returns XCONV_ERR_PARSE: the
// readers' message for a value they refuse.
xconv_status xconv_json_bad(xconv_error *err, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// Returns "null", "a boolean", "a number", "a string", "an array" or "an object" for v
// ("nothing" for NULL).
const char *xconv_json_type_name(const json_t *v);

// Returns true when v is the string word.
bool xconv_json_is_word(const json_t *v, const char *word);

// The getters below read member key of object obj. where names obj for messages ("records[3]",
// NULL for the top level); an error reads "where.key: what" ("key: what" at the top level). An
// absent member leaves *out as it was and returns XCONV_OK when !required, or XCONV_ERR_PARSE
// "where: lacks \"key\"" when required.

// Copies a string member into buf (len bytes); a string of len bytes or more is refused.
xconv_status xconv_json_get_string(const json_t *obj, const char *key, bool required,
                                   const char *where, char *buf, size_t len, xconv_error *err);

// Reads a number member into *out; null reads as NAN when nullable, else is refused.
xconv_status xconv_json_get_double(const json_t *obj, const char *key, bool required,
                                   bool nullable, const char *where, double *out,
                                   xconv_error *err);

// Reads an integer member (no fraction or exponent), exactly, within [lo, hi], into *out.
xconv_status xconv_json_get_int64(const json_t *obj, const char *key, bool required,
                                  int64_t lo, int64_t hi, const char *where, int64_t *out,
                                  xconv_error *err);

// Reads a boolean member into *out.
xconv_status xconv_json_get_bool(const json_t *obj, const char *key, bool required,
                                 const char *where, bool *out, xconv_error *err);

// Sets *out to an array member (NULL when absent and !required).
xconv_status xconv_json_get_array(const json_t *obj, const char *key, bool required,
                                  const char *where, const json_t **out, xconv_error *err);

#endif // XCONV_JSON_READ_H
