// SPDX-License-Identifier: MIT
// Tests the device's program memo: a launch of a plan already built finds its program without
// asking the backend again, and any change of kernel source, define name, value or count builds
// (asks the backend) anew. A stub backend counts builds and launches; no device is needed.
#include <string.h>

#include "plan.h"
#include "program_memo.h"
#include "tests/check.h"

// ---------------------------------------------------------------------------------------------
// A backend that builds nothing: each program_build call hands out the next fake program.

static char fake_programs[8];
static int builds, launches;
static xconv_program *last_launched;
static char last_options[4096];

static xconv_status stub_build(void *ctx, const char *source, const char *options,
                               xconv_program **out, double *compile_ms, xconv_error *err)
{
    (void)ctx;
    (void)err;
    CHECK(source != NULL && strstr(source, "XC_KERNEL") != NULL);  // the embedded kernel text
    snprintf(last_options, sizeof last_options, "%s", options);
    *out = (xconv_program *)&fake_programs[builds++ % 8];
    if (compile_ms)
        *compile_ms = 1.0;
    return XCONV_OK;
}

static xconv_status stub_launch(void *ctx, xconv_program *prog, const xconv_launch *l,
                                xconv_error *err)
{
    (void)ctx;
    (void)l;
    (void)err;
    launches++;
    last_launched = prog;
    return XCONV_OK;
}

static const xconv_backend_iface stub_backend = {.kind = XCONV_BACKEND_OPENCL,
                                                 .program_build = stub_build,
                                                 .launch = stub_launch};

static xconv_plan one_step_plan(const char *source, const char *kernel, long long a, long long b)
{
    xconv_plan plan;
    memset(&plan, 0, sizeof plan);
    CHECK(xconv_plan_define(&plan, "XC_A", a, NULL) == XCONV_OK);
    CHECK(xconv_plan_define(&plan, "XC_B", b, NULL) == XCONV_OK);
    xconv_step *s = xconv_plan_add_step(&plan, source, kernel);
    CHECK(s != NULL);
    xconv_step_set_1d(s, 64, 64);
    return plan;
}

// Launches step 0 and returns the program it ran.
static xconv_program *launch(xconv_device *dev, const xconv_plan *plan)
{
    xconv_error err = {0};
    xconv_status st = xconv_plan_launch(dev, plan, 0, NULL, 0, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    return last_launched;
}

// ---------------------------------------------------------------------------------------------
// Tests

static void test_launch_reuses_program(void)
{
    xconv_device dev = {.be = &stub_backend};
    xconv_plan plan = one_step_plan("direct_naive", "direct_naive", 1, 2);
    xconv_program *first = launch(&dev, &plan);
    CHECK(builds == 1);
    CHECK_CONTAINS(last_options, "-DXC_A=1 -DXC_B=2");
    CHECK(dev.compile_ms == 1.0);
    for (int i = 0; i < 5; i++)
        CHECK(launch(&dev, &plan) == first);
    CHECK_MSG(builds == 1, "%d builds for 6 launches of one plan", builds);
    CHECK(launches == 6);
    CHECK(dev.compile_ms == 1.0);

    // A copy of the plan (another struct, same defines) is the same program.
    xconv_plan copy = plan;
    CHECK(launch(&dev, &copy) == first && builds == 1);

    // Each difference builds anew: a value, a name, one define more, another source.
    xconv_plan value = one_step_plan("direct_naive", "direct_naive", 1, 3);
    CHECK(launch(&dev, &value) != first && builds == 2);
    CHECK_CONTAINS(last_options, "-DXC_B=3");
    xconv_plan name = one_step_plan("direct_naive", "direct_naive", 1, 2);
    strcpy(name.defines[1].name, "XC_C");
    CHECK(launch(&dev, &name) != first && builds == 3);
    xconv_plan more = one_step_plan("direct_naive", "direct_naive", 1, 2);
    CHECK(xconv_plan_define(&more, "XC_D", 0, NULL) == XCONV_OK);
    CHECK(launch(&dev, &more) != first && builds == 4);
    xconv_plan other = one_step_plan("direct_const", "direct_const", 1, 2);
    CHECK(launch(&dev, &other) != first && builds == 5);

    // All five are remembered: launching each again builds nothing.
    const xconv_plan *all[] = {&plan, &value, &name, &more, &other};
    for (int i = 0; i < 5; i++)
        launch(&dev, all[i]);
    CHECK_MSG(builds == 5, "%d builds after relaunching 5 remembered plans", builds);
    CHECK(launch(&dev, &plan) == first);
    xconv_program_memo_free(dev.programs);
}

static void test_memo_direct(void)
{
    xconv_program_memo *memo = NULL;
    xconv_define d[2] = {{"XC_X", 7}, {"XC_Y", -1}};
    xconv_program *p = (xconv_program *)&fake_programs[0];
    xconv_program *q = (xconv_program *)&fake_programs[1];
    CHECK(xconv_program_memo_find(&memo, "sgemm", d, 2) == NULL);
    CHECK(xconv_program_memo_add(&memo, "sgemm", d, 2, p, NULL) == XCONV_OK);
    CHECK(xconv_program_memo_find(&memo, "sgemm", d, 2) == p);
    CHECK(xconv_program_memo_find(&memo, "sgemm", d, 1) == NULL);
    CHECK(xconv_program_memo_find(&memo, "im2col", d, 2) == NULL);
    xconv_define e[2] = {{"XC_X", 7}, {"XC_Y", 1}};
    CHECK(xconv_program_memo_find(&memo, "sgemm", e, 2) == NULL);
    // No defines at all is a key too.
    CHECK(xconv_program_memo_add(&memo, "im2col", NULL, 0, q, NULL) == XCONV_OK);
    CHECK(xconv_program_memo_find(&memo, "im2col", NULL, 0) == q);
    CHECK(xconv_program_memo_find(&memo, "sgemm", d, 2) == p);
    // A source name longer than the memo keeps is refused with a message, not truncated.
    char long_name[100];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    xconv_error err = {0};
    CHECK(xconv_program_memo_add(&memo, long_name, d, 2, p, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "program memo");
    xconv_program_memo_free(memo);
    xconv_program_memo_free(NULL);
}

int main(void)
{
    test_launch_reuses_program();
    test_memo_direct();
    return check_summary("test_program_memo");
}
