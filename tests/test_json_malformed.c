// SPDX-License-Identifier: MIT
// Tests of report/json_read.h, the reading layer over Jansson: what it accepts (numbers exact),
// and malformed input (truncated, wrong types, huge numbers, deep nesting, NUL bytes) refused
// with a clear message, never a crash (run it under ASan too: make test-sanitize).
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "../cli/report/json_read.h"

// ---------------------------------------------------------------------------------------------
// Helpers

// Parses text (NUL-terminated) and returns the tree, or NULL with err filled.
static json_t *parse(const char *text, xconv_error *err)
{
    return xconv_json_parse(text, strlen(text), err);
}

// Checks that the len bytes of text are refused with a message holding needle and "byte at ".
static void json_bad(const char *text, size_t len, const char *needle, long at)
{
    xconv_error err = {0};
    json_t *v = xconv_json_parse(text, len, &err);
    CHECK_MSG(v == NULL, "accepted: %.40s", text);
    json_decref(v);
    CHECK_MSG(err.status == XCONV_ERR_PARSE, "status %d for %.40s", err.status, text);
    CHECK_CONTAINS(err.msg, needle);
    char want[32];
    snprintf(want, sizeof want, at >= 0 ? "byte %ld (line " : "byte ", at);
    CHECK_CONTAINS(err.msg, want);
}

#define BAD(text, needle, at) json_bad(text, sizeof(text) - 1, needle, at)

// ---------------------------------------------------------------------------------------------
// Accepted

static void test_valid(void)
{
    xconv_error err = {0};
    json_t *v = parse(" {\"a\": [1, -0, 1.5e3, 2E-2, 0.25, true, false, null],\n"
                      "  \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\u20ac\","
                      "  \"e\": {}, \"z\": []} ",
                      &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    if (!v)
        return;
    CHECK(json_is_object(v) && json_object_size(v) == 4);
    const json_t *a = json_object_get(v, "a");
    CHECK(json_is_array(a) && json_array_size(a) == 8);
    if (json_array_size(a) == 8) {
        CHECK(json_integer_value(json_array_get(a, 0)) == 1);
        CHECK(json_number_value(json_array_get(a, 2)) == 1500);
        CHECK(json_number_value(json_array_get(a, 3)) == 0.02);
        CHECK(json_is_true(json_array_get(a, 5)) && json_is_false(json_array_get(a, 6)));
        CHECK(json_is_null(json_array_get(a, 7)));
    }
    const char *want = "q\"\\/\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80\xE2\x82\xAC";
    const json_t *s = json_object_get(v, "s");
    CHECK(xconv_json_is_word(s, want) && json_string_length(s) == strlen(want));
    CHECK(json_object_size(json_object_get(v, "e")) == 0);
    CHECK(json_array_size(json_object_get(v, "z")) == 0);
    json_decref(v);

    // Scalars at the top level, raw UTF-8, text past the given length not read.
    const char *tops[] = {"0", "-1.25", "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"", "null",
                          " true\n"};
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
        v = parse(tops[i], &err);
        CHECK_MSG(v != NULL, "'%s': %s", tops[i], err.msg);
        json_decref(v);
    }
    v = xconv_json_parse("[1]garbage", 3, &err);
    CHECK_MSG(json_array_size(v) == 1, "%s", err.msg);
    json_decref(v);
}

// Integers are exact over all of int64_t; doubles as the writers print them (%.17g at most)
// come back bit for bit.
static void test_numbers_exact(void)
{
    xconv_error err = {0};
    const char *text = "{\"max\": 9223372036854775807, \"min\": -9223372036854775808, "
                       "\"big\": 123456789012345678, \"third\": 0.33333333333333331, "
                       "\"tiny\": 4.9406564584124654e-324, \"huge\": 1.7976931348623157e308, "
                       "\"nine\": 1.23456789e-07, \"under\": 1e-400}";
    json_t *v = parse(text, &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    int64_t i = 0;
    CHECK(xconv_json_get_int64(v, "max", true, INT64_MIN, INT64_MAX, "t", &i, &err) == 0 &&
          i == INT64_MAX);
    CHECK(xconv_json_get_int64(v, "min", true, INT64_MIN, INT64_MAX, "t", &i, &err) == 0 &&
          i == INT64_MIN);
    CHECK(xconv_json_get_int64(v, "big", true, 0, INT64_MAX, "t", &i, &err) == 0 &&
          i == 123456789012345678LL);  // not a double: 2^53 < it
    double d = 0;
    CHECK(xconv_json_get_double(v, "third", true, false, "t", &d, &err) == 0 && d == 1.0 / 3);
    CHECK(xconv_json_get_double(v, "tiny", true, false, "t", &d, &err) == 0 && d == 0x1p-1074);
    CHECK(xconv_json_get_double(v, "huge", true, false, "t", &d, &err) == 0 && d == 0x1.fffffffffffffp1023);
    CHECK(xconv_json_get_double(v, "nine", true, false, "t", &d, &err) == 0 &&
          d == 1.23456789e-07);
    CHECK(xconv_json_get_double(v, "under", true, false, "t", &d, &err) == 0 && d == 0);
    // Integers read as numbers too.
    CHECK(xconv_json_get_double(v, "big", true, false, "t", &d, &err) == 0 &&
          d == 123456789012345678.0);
    json_decref(v);
}

// ---------------------------------------------------------------------------------------------
// Refused

static void test_refused(void)
{
    BAD("", "unexpected token near end of file", 0);
    BAD("   ", "near end of file", 3);
    BAD("[1,]", "unexpected token near ']'", 4);
    BAD("{\"a\":1,}", "string or '}' expected near '}'", 8);
    BAD("[01]", "invalid token", -1);
    BAD("[1.]", "invalid token near '1.'", -1);
    BAD("[.5]", "invalid token near '.'", -1);
    BAD("[+1]", "invalid token near '+'", -1);
    BAD("[1e]", "invalid token near '1e'", -1);
    BAD("[-]", "invalid token near '-'", -1);
    BAD("[NaN]", "invalid token near 'NaN'", -1);
    BAD("[-Infinity]", "invalid token", -1);
    BAD("[\"a\tb\"]", "control character 0x9", -1);
    BAD("\"\\x\"", "invalid escape", -1);
    BAD("\"\\u12\"", "invalid escape", -1);
    BAD("\"\\ud800\"", "invalid Unicode '\\uD800'", -1);
    BAD("\"\\ud800\\u0041\"", "invalid Unicode", -1);
    BAD("\"\\udc00\"", "invalid Unicode '\\uDC00'", -1);
    BAD("\"\\u0000\"", "\\u0000 is not allowed", -1);
    BAD("\"\xff\"", "unable to decode byte 0xff", 1);
    BAD("\"\xc0\xaf\"", "unable to decode byte 0xc0", 1);
    BAD("\"\xed\xa0\x80\"", "unable to decode byte 0xed", 1);
    BAD("\"\xf4\x90\x80\x80\"", "unable to decode byte 0xf4", 1);
    BAD("{\"a\":1,\"b\":2,\"a\":3}", "duplicate object key near '\"a\"'", -1);
    BAD("[1] x", "end of file expected near 'x'", 5);
    BAD("[1 2]", "']' expected near '2'", -1);
    BAD("{\"a\" 1}", "':' expected near '1'", -1);
    BAD("{1:2}", "string or '}' expected near '1'", -1);
    BAD("tru", "invalid token near 'tru'", -1);
    BAD("True", "invalid token", -1);
    BAD("[1] // c", "end of file expected", -1);
    BAD("/* c */ 1", "invalid token", -1);
    BAD("['a']", "invalid token", -1);
    BAD("[1,\n  2,\n  x]", "line 3, column 3", 12);
}

// Truncated text: every proper prefix of a valid document is refused.
static void test_truncated(void)
{
    const char text[] = "{\"tool\": \"xconv\", \"records\": [{\"seed\": 18446744, \"ms\": 1.5e-3, "
                        "\"note\": \"\\u00e9\\ud83d\\ude00\", \"ok\": true, \"x\": null}]}";
    size_t len = sizeof text - 1;
    for (size_t n = 0; n < len; n++) {
        xconv_error err = {0};
        json_t *v = xconv_json_parse(text, n, &err);
        CHECK_MSG(v == NULL, "a prefix of %zu bytes was read", n);
        json_decref(v);
        CHECK_MSG(err.status == XCONV_ERR_PARSE && strstr(err.msg, "byte "), "%zu: %s", n,
                  err.msg);
    }
    xconv_error err = {0};
    json_t *v = xconv_json_parse(text, len, &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    json_decref(v);
}

// Numbers no C type here holds: refused at the parse, naming the number.
static void test_huge_numbers(void)
{
    BAD("[1e999]", "real number overflow near '1e999'", -1);
    BAD("[-1e400]", "real number overflow", -1);
    BAD("[9223372036854775808]", "too big integer near '9223372036854775808'", -1);
    BAD("[-9223372036854775809]", "too big negative integer", -1);
    BAD("{\"seed\": 18446744073709551615}", "too big integer", -1);
    char digits[5000];
    memset(digits, '9', sizeof digits - 1);
    digits[sizeof digits - 1] = '\0';
    json_bad(digits, strlen(digits), "too big integer", -1);
    digits[1] = '.';  // 9.999...: a real, rounded, within range
    xconv_error err = {0};
    json_t *v = parse(digits, &err);
    CHECK_MSG(json_is_real(v) && json_real_value(v) == 10.0, "%s", err.msg);
    json_decref(v);
    digits[1] = '9';
    digits[sizeof digits - 3] = 'e';  // 999...9e9: past double's range
    json_bad(digits, strlen(digits), "real number overflow", -1);
}

// Nesting: Jansson's limit (JSON_PARSER_MAX_DEPTH) is an error, never a stack overflow.
static void test_deep_nesting(void)
{
    size_t depth = 1000000;
    char *deep = malloc(2 * depth + 1);
    CHECK(deep != NULL);
    if (!deep)
        return;
    for (size_t d = JSON_PARSER_MAX_DEPTH - 8; d <= JSON_PARSER_MAX_DEPTH + 8; d++) {
        memset(deep, '[', d);
        memset(deep + d, ']', d);
        xconv_error err = {0};
        json_t *v = xconv_json_parse(deep, 2 * d, &err);
        if (d <= JSON_PARSER_MAX_DEPTH)
            CHECK_MSG(v != NULL, "depth %zu: %s", d, err.msg);
        else
            CHECK_MSG(v == NULL && strstr(err.msg, "maximum parsing depth reached"),
                      "depth %zu: %s", d, err.msg);
        json_decref(v);
    }
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    json_bad(deep, 2 * depth, "maximum parsing depth reached", -1);
    for (size_t d = 0; d < depth; d++)  // {"a":{"a":... unclosed
        deep[d] = "{\"a\":"[d % 5];
    json_bad(deep, depth, "maximum parsing depth reached", -1);
    free(deep);
}

// NUL bytes: inside a string, between tokens, after the value, as \u0000.
static void test_nul_bytes(void)
{
    json_bad("[1,\0 2]", 7, "invalid token", 4);
    json_bad("[\"a\0b\"]", 7, "control character 0x0", -1);
    json_bad("{\"a\0\": 1}", 9, "control character 0x0", -1);
    json_bad("[1]\0", 4, "end of file expected", -1);
    json_bad("\0[1]", 4, "invalid token", -1);
    BAD("{\"k\\u0000\": 1}", "NUL byte in object key not supported", -1);
}

// ---------------------------------------------------------------------------------------------
// The getters: wrong types named with their path

// Checks that status st is XCONV_ERR_PARSE with needle in err's message.
static void getter_bad(xconv_status st, const xconv_error *err, const char *needle)
{
    CHECK_MSG(st == XCONV_ERR_PARSE, "status %d, want a parse error holding '%s'", st, needle);
    CHECK_CONTAINS(err->msg, needle);
}

static void test_wrong_types(void)
{
    xconv_error err = {0};
    json_t *v = parse("{\"s\": \"abcdef\", \"n\": 1.5, \"i\": 42, \"b\": true, \"z\": null, "
                      "\"a\": [1], \"o\": {}}",
                      &err);
    CHECK_MSG(v != NULL, "%s", err.msg);
    char buf[8] = "keep";
    double d = 7;
    int64_t i = 7;
    bool b = false;
    const json_t *arr = NULL;
    // Absent and optional: nothing changes; absent and required: named.
    CHECK(xconv_json_get_string(v, "missing", false, "rec[2]", buf, sizeof buf, &err) == 0 &&
          strcmp(buf, "keep") == 0);
    getter_bad(xconv_json_get_double(v, "missing", true, true, "rec[2]", &d, &err), &err,
               "rec[2]: lacks \"missing\"");
    CHECK(d == 7);
    // Each kind of value where another is wanted.
    getter_bad(xconv_json_get_string(v, "n", true, "rec[2]", buf, sizeof buf, &err), &err,
               "rec[2].n: wants a string, got a number");
    getter_bad(xconv_json_get_string(v, "s", true, "rec[2]", buf, 6, &err), &err,
               "rec[2].s: is 6 bytes, longer than the 5 this field holds");
    CHECK(xconv_json_get_string(v, "s", true, "rec[2]", buf, 7, &err) == 0 &&
          strcmp(buf, "abcdef") == 0);
    getter_bad(xconv_json_get_double(v, "s", true, true, "rec[2]", &d, &err), &err,
               "rec[2].s: wants a number or null, got a string");
    getter_bad(xconv_json_get_double(v, "z", true, false, "rec[2]", &d, &err), &err,
               "rec[2].z: wants a number, got null");
    CHECK(xconv_json_get_double(v, "z", true, true, "rec[2]", &d, &err) == 0 && isnan(d));
    getter_bad(xconv_json_get_int64(v, "n", true, 0, 100, "rec[2]", &i, &err), &err,
               "rec[2].n: wants an integer, got 1.5");
    getter_bad(xconv_json_get_int64(v, "b", true, 0, 100, "rec[2]", &i, &err), &err,
               "rec[2].b: wants an integer, got a boolean");
    getter_bad(xconv_json_get_int64(v, "i", true, 0, 41, "rec[2]", &i, &err), &err,
               "rec[2].i: 42 is out of range [0, 41]");
    CHECK(xconv_json_get_int64(v, "i", true, 0, 42, "rec[2]", &i, &err) == 0 && i == 42);
    getter_bad(xconv_json_get_bool(v, "z", true, "rec[2]", &b, &err), &err,
               "rec[2].z: wants true or false, got null");
    CHECK(xconv_json_get_bool(v, "b", true, "rec[2]", &b, &err) == 0 && b);
    getter_bad(xconv_json_get_array(v, "o", true, "rec[2]", &arr, &err), &err,
               "rec[2].o: wants an array, got an object");
    CHECK(xconv_json_get_array(v, "a", true, "rec[2]", &arr, &err) == 0 &&
          json_array_size(arr) == 1);
    // A container that is not an object.
    getter_bad(xconv_json_get_bool(json_object_get(v, "a"), "b", true, "rec[3]", &b, &err), &err,
               "rec[3]: wants an object, got an array");
    getter_bad(xconv_json_get_bool(NULL, "b", true, "rec[4]", &b, &err), &err,
               "rec[4]: wants an object, got nothing");
    json_decref(v);
    // NULL text and a NULL error are refused or survived.
    CHECK(xconv_json_parse(NULL, 0, &err) == NULL && err.status == XCONV_ERR_INVALID);
    CHECK(xconv_json_parse("[", 1, NULL) == NULL);
}

int main(void)
{
    test_valid();
    test_numbers_exact();
    test_refused();
    test_truncated();
    test_huge_numbers();
    test_deep_nesting();
    test_nul_bytes();
    test_wrong_types();
    return check_summary("test_json_malformed");
}
