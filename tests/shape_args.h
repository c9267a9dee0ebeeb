// SPDX-License-Identifier: MIT
// The shape arguments of the program-counting tests (test_batch_programs, test_dims_programs):
// suites and shape files named on the command line, read into an array of problems.
#ifndef XCONV_TEST_SHAPE_ARGS_H
#define XCONV_TEST_SHAPE_ARGS_H

#include <stdio.h>

#include <xconv/xconv.h>

// Reads the problems of suites (a name `xconv_suite_find` knows) or shape files named by argv[1..]
// into shapes[max]; returns their count, or -1 with the file's error printed to stderr.
static inline int read_shape_args(int argc, char **argv, xconv_problem *shapes, int max)
{
    int count = 0;
    for (int a = 1; a < argc; a++) {
        int n = 0;
        xconv_error err = {0};
        const xconv_named_shape *suite = xconv_suite_find(argv[a], &n);
        xconv_shape_entry *entries = NULL;
        if (!suite && xconv_shapes_read(argv[a], &entries, &n, &err) != XCONV_OK) {
            fprintf(stderr, "%s: %s\n", argv[a], err.msg);
            return -1;
        }
        for (int i = 0; i < n && count < max; i++)
            if (entries)
                shapes[count++] = entries[i].problem;
            else if (xconv_shape_parse(suite[i].spec, &shapes[count], &err) == XCONV_OK)
                count++;
        xconv_shapes_free(entries);
    }
    return count;
}

#endif
