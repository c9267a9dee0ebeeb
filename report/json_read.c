// SPDX-License-Identifier: MIT
// A strict recursive-descent JSON parser (RFC 8259) building a tree of xconv_json values.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"

// ---------------------------------------------------------------------------------------------
// The parser state and its errors

typedef struct parser {
    const char *text;
    size_t len;
    size_t pos;
    int depth;
    xconv_error *err;
} parser;

// Fills the error with "byte N (line L, column C): " and the message; returns false.
static bool fail(parser *ps, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static bool fail(parser *ps, size_t at, const char *fmt, ...)
{
    int line = 1, column = 1;
    for (size_t i = 0; i < at && i < ps->len; i++) {
        if (ps->text[i] == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    xconv_error_set(ps->err, XCONV_ERR_PARSE, "byte %zu (line %d, column %d): %s", at, line,
                    column, msg);
    return false;
}

// Fails with an out-of-memory status; returns false.
static bool fail_memory(parser *ps)
{
    xconv_error_set(ps->err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the JSON tree");
    return false;
}

// Describes the byte at pos for a message ("'x'", "byte 0x07", "end of input").
static const char *describe(const parser *ps, size_t pos, char *buf, size_t len)
{
    if (pos >= ps->len)
        return "the end of the input";
    unsigned char c = (unsigned char)ps->text[pos];
    if (c >= 0x20 && c < 0x7F)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
    return buf;
}

// Advances over JSON whitespace (space, tab, LF, CR).
static void skip_space(parser *ps)
{
    while (ps->pos < ps->len) {
        char c = ps->text[ps->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        ps->pos++;
    }
}

static bool parse_value(parser *ps, xconv_json *out);

// ---------------------------------------------------------------------------------------------
// Freeing

// Frees what value owns (not value itself).
static void free_inside(xconv_json *value)
{
    if (value->type == XCONV_JSON_STRING)
        free(value->string);
    if (value->type == XCONV_JSON_ARRAY || value->type == XCONV_JSON_OBJECT) {
        for (int i = 0; i < value->count; i++) {
            free_inside(&value->items[i]);
            if (value->keys)
                free(value->keys[i]);
        }
        free(value->items);
        free(value->keys);
    }
    memset(value, 0, sizeof *value);
}

void xconv_json_free(xconv_json *value)
{
    if (!value)
        return;
    free_inside(value);
    free(value);
}

// ---------------------------------------------------------------------------------------------
// Strings

// Returns the value of hex digit c, or -1.
static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Reads the 4 hex digits at ps->pos into *unit; returns false after an error.
static bool read_hex4(parser *ps, unsigned *unit)
{
    *unit = 0;
    for (int i = 0; i < 4; i++) {
        int h = ps->pos < ps->len ? hex_value(ps->text[ps->pos]) : -1;
        if (h < 0) {
            char buf[16];
            return fail(ps, ps->pos, "\\u wants 4 hex digits, got %s",
                        describe(ps, ps->pos, buf, sizeof buf));
        }
        *unit = *unit * 16 + (unsigned)h;
        ps->pos++;
    }
    return true;
}

// Returns the length of the valid UTF-8 sequence at s (at most left bytes, first byte >= 0x80),
// or 0 when it is not one (overlong forms, surrogates and code points past U+10FFFF refused).
static size_t utf8_sequence(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (c < 0xC2 || c > 0xF4 || n > left)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) ||
        (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

// Appends code point cp as UTF-8 at out; returns the bytes written.
static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

// Reads the escape after a backslash (ps->pos at the character after it) into out; returns the
// bytes written, or 0 after an error.
static size_t read_escape(parser *ps, char *out)
{
    size_t at = ps->pos - 1;
    if (ps->pos >= ps->len) {
        fail(ps, at, "the input ends inside a string");
        return 0;
    }
    char c = ps->text[ps->pos++];
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *hit = c ? strchr(from, c) : NULL;
    if (hit) {
        out[0] = to[hit - from];
        return 1;
    }
    if (c != 'u') {
        char buf[16];
        fail(ps, at, "unknown escape \\%s", describe(ps, ps->pos - 1, buf, sizeof buf));
        return 0;
    }
    unsigned unit, low;
    if (!read_hex4(ps, &unit))
        return 0;
    if (unit == 0) {
        fail(ps, at, "\\u0000 is not supported (strings are C strings)");
        return 0;
    }
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
        fail(ps, at, "lone low surrogate \\u%04X", unit);
        return 0;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
        if (ps->pos + 1 >= ps->len || ps->text[ps->pos] != '\\' || ps->text[ps->pos + 1] != 'u') {
            fail(ps, at, "high surrogate \\u%04X without its low half", unit);
            return 0;
        }
        ps->pos += 2;
        if (!read_hex4(ps, &low))
            return 0;
        if (low < 0xDC00 || low > 0xDFFF) {
            fail(ps, at, "high surrogate \\u%04X followed by \\u%04X, not a low one", unit, low);
            return 0;
        }
        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    return put_utf8(out, unit);
}

// Parses the string at ps->pos (its opening quote) into a new NUL-terminated buffer *out of
// *length bytes; returns false after an error.
static bool parse_string(parser *ps, char **out, size_t *length)
{
    size_t start = ps->pos++;
    // No escape writes more bytes than it occupies (\uXXXX: 6 bytes for at most 3, a pair 12
    // for 4), so the span up to the closing quote bounds the result.
    size_t end = ps->pos;
    while (end < ps->len && ps->text[end] != '"')
        end += ps->text[end] == '\\' ? 2 : 1;
    char *buf = malloc((end < ps->len ? end : ps->len) - ps->pos + 1);
    if (!buf)
        return fail_memory(ps);
    size_t n = 0;
    for (;;) {
        if (ps->pos >= ps->len) {
            free(buf);
            return fail(ps, start, "the input ends inside the string that starts here");
        }
        unsigned char c = (unsigned char)ps->text[ps->pos];
        if (c == '"') {
            ps->pos++;
            break;
        }
        if (c < 0x20) {
            free(buf);
            return fail(ps, ps->pos, "raw control character 0x%02x in a string (escape it)", c);
        }
        if (c == '\\') {
            ps->pos++;
            size_t w = read_escape(ps, buf + n);
            if (w == 0) {
                free(buf);
                return false;
            }
            n += w;
            continue;
        }
        size_t w = 1;
        if (c >= 0x80 &&
            (w = utf8_sequence((const unsigned char *)ps->text + ps->pos, ps->len - ps->pos)) ==
                0) {
            free(buf);
            return fail(ps, ps->pos, "invalid UTF-8 byte 0x%02x in a string", c);
        }
        memcpy(buf + n, ps->text + ps->pos, w);
        n += w;
        ps->pos += w;
    }
    buf[n] = '\0';
    *out = buf;
    *length = n;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Numbers and literals

// Advances over digits; returns how many.
static size_t skip_digits(parser *ps)
{
    size_t from = ps->pos;
    while (ps->pos < ps->len && ps->text[ps->pos] >= '0' && ps->text[ps->pos] <= '9')
        ps->pos++;
    return ps->pos - from;
}

// Parses the number at ps->pos (RFC 8259's grammar: no leading zeros, '+', '.5' or hex) into
// out; returns false after an error.
static bool parse_number(parser *ps, xconv_json *out)
{
    size_t start = ps->pos;
    char buf[16];
    if (ps->text[ps->pos] == '-')
        ps->pos++;
    if (ps->pos < ps->len && ps->text[ps->pos] == '0') {
        ps->pos++;
        if (ps->pos < ps->len && ps->text[ps->pos] >= '0' && ps->text[ps->pos] <= '9')
            return fail(ps, start, "leading zero in a number");
    } else if (skip_digits(ps) == 0) {
        return fail(ps, ps->pos, "a number wants a digit, got %s",
                    describe(ps, ps->pos, buf, sizeof buf));
    }
    if (ps->pos < ps->len && ps->text[ps->pos] == '.') {
        ps->pos++;
        if (skip_digits(ps) == 0)
            return fail(ps, ps->pos, "a number wants a digit after '.', got %s",
                        describe(ps, ps->pos, buf, sizeof buf));
    }
    if (ps->pos < ps->len && (ps->text[ps->pos] == 'e' || ps->text[ps->pos] == 'E')) {
        ps->pos++;
        if (ps->pos < ps->len && (ps->text[ps->pos] == '+' || ps->text[ps->pos] == '-'))
            ps->pos++;
        if (skip_digits(ps) == 0)
            return fail(ps, ps->pos, "a number wants a digit in its exponent, got %s",
                        describe(ps, ps->pos, buf, sizeof buf));
    }
    char num[400];
    size_t n = ps->pos - start;
    if (n >= sizeof num)
        return fail(ps, start, "number longer than %zu characters", sizeof num - 1);
    memcpy(num, ps->text + start, n);
    num[n] = '\0';
    errno = 0;
    char *end = NULL;
    double v = strtod(num, &end);
    if (end != num + n)  // strtod follows the locale; a ',' decimal point stops it at the '.'
        return fail(ps, start, "number %s could not be converted (the C library's locale "
                    "does not use '.' as its decimal point)", num);
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return fail(ps, start, "number %s is out of range", num);
    out->type = XCONV_JSON_NUMBER;
    out->number = v;
    return true;
}

// Parses true, false or null at ps->pos; returns false after an error.
static bool parse_literal(parser *ps, xconv_json *out)
{
    static const struct {
        const char *word;
        xconv_json_type type;
        bool value;
    } literals[] = {
        {"true", XCONV_JSON_BOOL, true},
        {"false", XCONV_JSON_BOOL, false},
        {"null", XCONV_JSON_NULL, false},
    };
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) {
        size_t n = strlen(literals[i].word);
        if (ps->len - ps->pos >= n && memcmp(ps->text + ps->pos, literals[i].word, n) == 0) {
            ps->pos += n;
            out->type = literals[i].type;
            out->boolean = literals[i].value;
            return true;
        }
    }
    char buf[16];
    return fail(ps, ps->pos, "unexpected %s (want a value)",
                describe(ps, ps->pos, buf, sizeof buf));
}

// ---------------------------------------------------------------------------------------------
// Arrays and objects

// Makes room for one more item in out (and its key when keyed); returns false without memory.
static bool grow(xconv_json *out, int *cap, bool keyed, size_t **key_at)
{
    if (out->count < *cap)
        return true;
    int n = *cap ? *cap * 2 : 8;
    xconv_json *items = realloc(out->items, (size_t)n * sizeof *items);
    if (!items)
        return false;
    out->items = items;
    if (keyed) {
        char **keys = realloc(out->keys, (size_t)n * sizeof *keys);
        if (!keys)
            return false;
        out->keys = keys;
        size_t *at = realloc(*key_at, (size_t)n * sizeof *at);
        if (!at)
            return false;
        *key_at = at;
    }
    *cap = n;
    return true;
}

// A key and where it starts, sorted to find repeats.
typedef struct key_ref {
    const char *key;
    size_t at;
} key_ref;

// Orders key references by key (qsort); returns <0, 0 or >0.
static int compare_key_ref(const void *a, const void *b)
{
    return strcmp(((const key_ref *)a)->key, ((const key_ref *)b)->key);
}

// Checks that an object's keys are unique; returns false after an error at the later copy.
static bool check_unique(parser *ps, const xconv_json *obj, const size_t *key_at)
{
    if (obj->count < 2)
        return true;
    key_ref *refs = malloc((size_t)obj->count * sizeof *refs);
    if (!refs)
        return fail_memory(ps);
    for (int i = 0; i < obj->count; i++)
        refs[i] = (key_ref){obj->keys[i], key_at[i]};
    qsort(refs, (size_t)obj->count, sizeof *refs, compare_key_ref);
    bool ok = true;
    for (int i = 1; i < obj->count && ok; i++) {
        const key_ref *a = &refs[i - 1], *b = &refs[i];
        if (strcmp(a->key, b->key) == 0)
            ok = fail(ps, a->at > b->at ? a->at : b->at,
                      "key \"%.60s\" appears twice in one object", a->key);
    }
    free(refs);
    return ok;
}

// Parses the array or object at ps->pos into out (type set by the caller); returns false after
// an error, with what was built left in out for the caller to free.
static bool parse_container(parser *ps, xconv_json *out)
{
    bool keyed = out->type == XCONV_JSON_OBJECT;
    char close = keyed ? '}' : ']', buf[16];
    size_t open_at = ps->pos++;
    if (++ps->depth > XCONV_JSON_MAX_DEPTH)
        return fail(ps, open_at, "nesting deeper than %d levels", XCONV_JSON_MAX_DEPTH);
    int cap = 0;
    size_t *key_at = NULL;
    bool ok = true;
    skip_space(ps);
    if (ps->pos < ps->len && ps->text[ps->pos] == close) {
        ps->pos++;
        ps->depth--;
        return true;
    }
    for (;;) {
        if (!grow(out, &cap, keyed, &key_at)) {
            ok = fail_memory(ps);
            break;
        }
        xconv_json *item = &out->items[out->count];
        memset(item, 0, sizeof *item);
        if (keyed) {
            skip_space(ps);
            if (ps->pos >= ps->len || ps->text[ps->pos] != '"') {
                ok = fail(ps, ps->pos, "an object wants a \"key\", got %s",
                          describe(ps, ps->pos, buf, sizeof buf));
                break;
            }
            key_at[out->count] = ps->pos;
            size_t klen;
            if (!(ok = parse_string(ps, &out->keys[out->count], &klen)))
                break;
            skip_space(ps);
            if (ps->pos >= ps->len || ps->text[ps->pos] != ':') {
                free(out->keys[out->count]);
                ok = fail(ps, ps->pos, "an object wants ':' after its key, got %s",
                          describe(ps, ps->pos, buf, sizeof buf));
                break;
            }
            ps->pos++;
        }
        ok = parse_value(ps, item);
        out->count++;  // the item (and key) is owned now, whole or partial
        if (!ok)
            break;
        skip_space(ps);
        if (ps->pos < ps->len && ps->text[ps->pos] == ',') {
            ps->pos++;
            continue;
        }
        if (ps->pos < ps->len && ps->text[ps->pos] == close) {
            ps->pos++;
            break;
        }
        ok = fail(ps, ps->pos, "%s wants ',' or '%c', got %s (it opened at byte %zu)",
                  keyed ? "an object" : "an array", close,
                  describe(ps, ps->pos, buf, sizeof buf), open_at);
        break;
    }
    if (ok && keyed)
        ok = check_unique(ps, out, key_at);
    free(key_at);
    ps->depth--;
    return ok;
}

// ---------------------------------------------------------------------------------------------
// Values

// Parses one value (after optional whitespace) into *out; returns false after an error, with
// anything built left in *out for the caller to free.
static bool parse_value(parser *ps, xconv_json *out)
{
    skip_space(ps);
    memset(out, 0, sizeof *out);
    out->offset = ps->pos;
    if (ps->pos >= ps->len)
        return fail(ps, ps->pos, "the input ends where a value should be");
    char c = ps->text[ps->pos];
    switch (c) {
    case '{':
        out->type = XCONV_JSON_OBJECT;
        return parse_container(ps, out);
    case '[':
        out->type = XCONV_JSON_ARRAY;
        return parse_container(ps, out);
    case '"':
        if (!parse_string(ps, &out->string, &out->length))
            return false;
        out->type = XCONV_JSON_STRING;
        return true;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number(ps, out);
        return parse_literal(ps, out);
    }
}

xconv_json *xconv_json_parse(const char *text, size_t len, xconv_error *err)
{
    if (!text) {
        xconv_error_set(err, XCONV_ERR_INVALID, "no JSON text given");
        return NULL;
    }
    parser ps = {.text = text, .len = len, .pos = 0, .depth = 0, .err = err};
    xconv_json *root = calloc(1, sizeof *root);
    if (!root) {
        fail_memory(&ps);
        return NULL;
    }
    bool ok = parse_value(&ps, root);
    if (ok) {
        skip_space(&ps);
        char buf[16];
        if (ps.pos < ps.len)
            ok = fail(&ps, ps.pos, "%s after the top-level value",
                      describe(&ps, ps.pos, buf, sizeof buf));
    }
    if (!ok) {
        xconv_json_free(root);
        return NULL;
    }
    return root;
}

// ---------------------------------------------------------------------------------------------
// Queries

const xconv_json *xconv_json_get(const xconv_json *obj, const char *key)
{
    if (!obj || obj->type != XCONV_JSON_OBJECT || !key)
        return NULL;
    for (int i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const char *xconv_json_type_name(xconv_json_type type)
{
    switch (type) {
    case XCONV_JSON_NULL: return "null";
    case XCONV_JSON_BOOL: return "a boolean";
    case XCONV_JSON_NUMBER: return "a number";
    case XCONV_JSON_STRING: return "a string";
    case XCONV_JSON_ARRAY: return "an array";
    case XCONV_JSON_OBJECT: return "an object";
    }
    return "a value";
}
