// SPDX-License-Identifier: MIT
// A minimal test harness: CHECK macros that count failures, and a summary line for ctest.
#ifndef XCONV_CHECK_H
#define XCONV_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        check_count++;                                                                \
        if (!(cond)) {                                                                \
            check_failures++;                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                             \
    } while (0)

#define CHECK_MSG(cond, ...)                                                          \
    do {                                                                              \
        check_count++;                                                                \
        if (!(cond)) {                                                                \
            check_failures++;                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
        }                                                                             \
    } while (0)

// Checks that haystack contains needle (for error messages).
#define CHECK_CONTAINS(haystack, needle)                                              \
    CHECK_MSG(strstr((haystack), (needle)) != NULL, "\"%s\" lacks \"%s\"", (haystack), (needle))

// Exit code ctest reads as "skipped" (SKIP_RETURN_CODE in CMakeLists.txt).
#define CHECK_SKIP_CODE 77

// Prints the summary and returns the process exit code.
static inline int check_summary(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    if (check_count == 0) {
        fprintf(stderr, "%s: ran no checks\n", name);
        return 1;
    }
    return check_failures ? 1 : 0;
}

#endif // XCONV_CHECK_H
