// SPDX-License-Identifier: MIT
// Tests the error value: small, ready when zero-initialised, a long message cut with "...", a
// prefix kept, and the whole detail of a failure (a compiler's log) in the caller's buffer.
#include <string.h>

#include <xconv/xconv.h>

#include "../host/core/contract.h"
#include "tests/check.h"

static void test_small(void)
{
    CHECK_MSG(sizeof(xconv_error) <= 1024, "xconv_error is %zu bytes", sizeof(xconv_error));
}

static void test_cut(void)
{
    char long_text[2000];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    xconv_error err = {0};
    CHECK(xconv_error_set(&err, XCONV_ERR_PARSE, "bad: %s", long_text) == XCONV_ERR_PARSE);
    CHECK(err.status == XCONV_ERR_PARSE);
    CHECK(strlen(err.msg) == XCONV_ERROR_MSG_LEN - 1);
    CHECK(strcmp(err.msg + XCONV_ERROR_MSG_LEN - 4, "...") == 0);
    CHECK(xconv_error_prefix(&err, "while parsing") == XCONV_ERR_PARSE);
    CHECK(strncmp(err.msg, "while parsing: bad: aaa", 23) == 0);
    CHECK(strcmp(err.msg + XCONV_ERROR_MSG_LEN - 4, "...") == 0);

    xconv_error_set(&err, XCONV_ERR_IO, "short");
    xconv_error_prefix(&err, "ctx");
    CHECK(strcmp(err.msg, "ctx: short") == 0);
}

static void test_detail(void)
{
    char log[64] = "stale";
    xconv_error err = {.detail = log, .detail_len = sizeof log};
    xconv_error_set(&err, XCONV_ERR_BUILD, "build failed");
    CHECK(log[0] == '\0' && err.detail_needed == 0);  // a new failure empties the detail
    xconv_error_detail(&err, "line 1: error\nline 2: error");
    CHECK(strcmp(log, "line 1: error\nline 2: error") == 0);
    CHECK(err.detail_needed == strlen(log));

    char longer[100];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    xconv_error_detail(&err, longer);
    CHECK(err.detail_needed == sizeof longer - 1);  // the caller learns what it missed
    CHECK(strlen(log) == sizeof log - 1);

    xconv_error none = {0};  // no detail buffer: only the length is kept
    xconv_error_set(&none, XCONV_ERR_BUILD, "x");
    xconv_error_detail(&none, "abc");
    CHECK(none.detail_needed == 3 && none.detail == NULL);
}

int main(void)
{
    test_small();
    test_cut();
    test_detail();
    return check_summary("test_error");
}
