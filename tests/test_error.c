// SPDX-License-Identifier: MIT
// Tests the error value: small, a long message cut with "...", a prefix kept on a cut message.
#include <string.h>

#include <xconv/xconv.h>

#include "../host/core/contract.h"
#include "tests/check.h"

static void test_small(void)
{
    CHECK_MSG(sizeof(xconv_error) <= 520, "xconv_error is %zu bytes", sizeof(xconv_error));
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

int main(void)
{
    test_small();
    test_cut();
    return check_summary("test_error");
}
