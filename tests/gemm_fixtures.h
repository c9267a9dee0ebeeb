// SPDX-License-Identifier: MIT
// What the GEMM family's tests share: the GEMM variants' names, forced tiles read from text as
// a find-db's tuning is, and the count of a plan's steps running a kernel.
#ifndef XCONV_TEST_GEMM_FIXTURES_H
#define XCONV_TEST_GEMM_FIXTURES_H

#include <stdio.h>
#include <string.h>

#include "../host/families/gemm/plan_gemm.h"
#include "../host/plan/plan.h"
#include "tests/check.h"

static const char *const gemm_names[] = {"im2col_gemm", "implicit_gemm", "implicit_precomp",
                                         "gemm_1x1"};

// Returns the forced tiles text "TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]" gives (NULL: none), read as
// a find-db's tuning is.
static inline xconv_forced_gemm_tiles tiles_text(const char *text)
{
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    xconv_tuning tuning = {.gemm_tiles = ""};
    snprintf(tuning.gemm_tiles, sizeof tuning.gemm_tiles, "%s", text ? text : "");
    xconv_error err = {0};
    CHECK_MSG(xconv_tuning_apply(&tuning, &opts, &err) == XCONV_OK, "%s", err.msg);
    return opts.gemm_tiles;
}

// Counts the plan's steps running `kernel`.
static inline int steps_of(const xconv_plan *plan, const char *kernel)
{
    int n = 0;
    for (int i = 0; i < plan->nsteps; i++) {
        const xconv_step *s = xconv_plan_step(plan, i);
        n += s->kernel && !strcmp(s->kernel, kernel);
    }
    return n;
}

#endif // XCONV_TEST_GEMM_FIXTURES_H
