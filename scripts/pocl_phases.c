// SPDX-License-Identifier: MIT
// Where PoCL's part of a cold `xconv run` goes, for docs/guide/compile.md: the ICD loader's
// platforms, a trivial kernel built first in the process and again (PoCL's one-time start of its
// compiler), the program `auto` plans for SHAPE built as the OpenCL backend builds it (the
// library's build input), and clGetProgramInfo(CL_PROGRAM_BINARIES) on it, which xconv's cache
// of compiled kernels asks for: PoCL then compiles the kernel's work-group function a first time
// (its launch compiles one for the launch's work-group size again). CPU and wall milliseconds of
// each. Run with POCL_KERNEL_CACHE=0 by scripts/cold_start.sh.
// Usage: pocl_phases SHAPE
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xconv/xconv.h>

static double clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double wall0, cpu0;

// Prints the wall and CPU milliseconds since the last mark, and what they went to.
static void mark(const char *what)
{
    double w = clock_ms(CLOCK_MONOTONIC), c = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    printf("%8.1f ms wall %8.1f ms cpu  %s\n", w - wall0, c - cpu0, what);
    wall0 = clock_ms(CLOCK_MONOTONIC);
    cpu0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

// Builds text with options on dev; returns the program or NULL after a message.
static cl_program build(cl_context ctx, cl_device_id dev, const char *text, const char *options)
{
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &text, NULL, &rc);
    if (prog && clBuildProgram(prog, 1, &dev, options, NULL, NULL) == CL_SUCCESS)
        return prog;
    fprintf(stderr, "building failed (%d)\n", (int)rc);
    if (prog)
        clReleaseProgram(prog);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SHAPE\n", argv[0]);
        return 2;
    }
    wall0 = clock_ms(CLOCK_MONOTONIC);
    cpu0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    cl_platform_id platforms[16];
    cl_uint n = 0;
    clGetPlatformIDs(16, platforms, &n);
    mark("clGetPlatformIDs (every ICD's platform)");
    cl_platform_id pocl = NULL;
    for (cl_uint i = 0; i < n; i++) {
        char name[256] = "";
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        if (strstr(name, "Portable Computing Language"))
            pocl = platforms[i];
    }
    cl_device_id dev;
    cl_context ctx = NULL;
    if (!pocl || clGetDeviceIDs(pocl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS ||
        !(ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL))) {
        fprintf(stderr, "no PoCL device\n");
        return 77;
    }
    mark("PoCL's device and a context");
    const char *trivial = "__kernel void k(__global float *y) { y[get_global_id(0)] = 1.0f; }";
    cl_program t1 = build(ctx, dev, trivial, "-cl-std=CL1.2");
    mark("a trivial kernel built, first in the process");
    cl_program t2 = build(ctx, dev, trivial, "-cl-std=CL1.2 -DAGAIN");
    mark("a trivial kernel built again");
    xconv_error err = {0};
    xconv_device *xd = xconv_device_open("pocl", &err);
    xconv_problem p;
    xconv_plan *plan = xd && xconv_shape_parse(argv[1], &p, &err) == XCONV_OK
                           ? xconv_plan_create(xd, &p, "auto", NULL, &err)
                           : NULL;
    char *text = NULL, options[4096];
    xconv_plan_step_info info;
    if (!plan || xconv_plan_step_build_input(plan, 0, &text, options, sizeof options, &err) ||
        xconv_plan_step_get_info(plan, 0, &info, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    mark("xconv: device opened, shape planned");
    printf("program: %s.cl, %zu bytes of text, %d step(s)\n", info.source, strlen(text),
           xconv_plan_step_count(plan));
    cl_program prog = build(ctx, dev, text, options);
    mark("the plan's program built (clBuildProgram)");
    size_t size = 0;
    if (prog)
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    mark("its binary asked for (CL_PROGRAM_BINARY_SIZES)");
    printf("binary: %zu bytes\n", size);
    free(text);
    xconv_plan_destroy(plan);
    xconv_device_close(xd);
    cl_program programs[3] = {t1, t2, prog};
    for (int i = 0; i < 3; i++)
        if (programs[i])
            clReleaseProgram(programs[i]);
    clReleaseContext(ctx);
    return 0;
}
