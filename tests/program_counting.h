// SPDX-License-Identifier: MIT
// What the program-counting tests (test_batch_programs, test_dims_programs) share: their CHECK,
// a set of distinct programs, the sm_90 profile they plan on, and their counting mode over the
// suites or shape files named on the command line.
#ifndef XCONV_TEST_PROGRAM_COUNTING_H
#define XCONV_TEST_PROGRAM_COUNTING_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xconv/xconv.h>

#include "tests/shape_args.h"

#define MAX_PROGRAMS 20000
#define MAX_SHAPES 512

static int failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            failures++;                                                         \
        }                                                                       \
    } while (0)

// The distinct programs seen: kernel text or source and options, one string each.
typedef struct program_set {
    char *keys[MAX_PROGRAMS];
    int count;
} program_set;

// Adds key to set unless it holds it; returns true when it was new.
static inline bool add_key(program_set *set, const char *key)
{
    for (int i = 0; i < set->count; i++)
        if (strcmp(set->keys[i], key) == 0)
            return false;
    if (set->count < MAX_PROGRAMS)
        set->keys[set->count++] = strdup(key);
    return true;
}

static inline void free_set(program_set *set)
{
    for (int i = 0; i < set->count; i++)
        free(set->keys[i]);
    set->count = 0;
}

// Opens the sm_90 target profile the counts plan on (no GPU, nothing compiled), or returns NULL
// with the reason on stderr.
static inline xconv_device *open_sm90_profile(void)
{
    xconv_error err = {0};
    const xconv_target *t = xconv_target_find("sm_90", &err);
    xconv_device *dev = t ? xconv_device_open_target(t, &err) : NULL;
    if (!dev)
        fprintf(stderr, "no sm_90 profile: %s\n", err.msg);
    return dev;
}

// Prints what `count` counts over the problems of the suites or shape files named by argv[1..],
// then closes dev; returns the exit code (2: a file could not be read).
static inline int count_shape_args(xconv_device *dev, int argc, char **argv,
                                   void (*count)(xconv_device *, const xconv_problem *, int))
{
    static xconv_problem shapes[MAX_SHAPES];
    int n = read_shape_args(argc, argv, shapes, MAX_SHAPES);
    if (n >= 0)
        count(dev, shapes, n);
    xconv_device_close(dev);
    return n < 0 ? 2 : 0;
}

#endif // XCONV_TEST_PROGRAM_COUNTING_H
