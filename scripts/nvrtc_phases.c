// SPDX-License-Identifier: MIT
// Where one NVRTC build of an xconv program goes, for docs/guide/compile.md: every distinct
// program that `auto` (or --variant) plans for the shapes on a CUDA target profile is compiled
// with the backend's flags, NVRTC's --time report giving its phases (front end, NVVM optimizer,
// ptxas), then again with each candidate flag that should only cut the front end, the CPU time
// of each build and whether its CUBIN is the same, byte for byte. Built and run by
// scripts/cold_start.sh (public API of libxconv, libnvrtc of the CUDA toolkit); needs no GPU.
// Usage: nvrtc_phases TARGET REPS (--shape SPEC | --suite NAME)... [--variant V|auto|all]
#define _POSIX_C_SOURCE 200809L
#include <nvrtc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xconv/xconv.h>

// The flags that name the backend's compiler in keys (cuda/nvrtc_compile.c,
// xconv_nvrtc_fixed_flags), and the target's.
static const char *const fixed[] = {"--std=c++17", "--fmad=false"};
// Flags NVRTC documents as cutting front-end time without touching the code generated (the
// backend adds the first, --minimal, since they were measured here).
static const char *const candidates[] = {"--minimal", "-default-device", "-pch"};
#define NCAND (sizeof candidates / sizeof candidates[0])

typedef struct program {
    char *text;
    char options[4096];
    char label[96];
} program;

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

// Compiles prog with the fixed flags, arch_flag, `extra` (may be NULL) and its defines; returns
// the CPU milliseconds, the CUBIN in *cubin (malloc'd) and, with a --time flag, the log in *log.
static double compile(const program *prog, const char *arch_flag, const char *extra,
                      const char *time_flag, char **cubin, size_t *len, char **log)
{
    const char *argv[256];
    int argc = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[argc++] = fixed[i];
    argv[argc++] = arch_flag;
    if (extra)
        argv[argc++] = extra;
    if (time_flag)
        argv[argc++] = time_flag;
    char defines[4096], *save = NULL;
    snprintf(defines, sizeof defines, "%s", prog->options);
    for (char *t = strtok_r(defines, " ", &save); t && argc < 255; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    double t0 = cpu_ms();
    nvrtcProgram p;
    nvrtcCreateProgram(&p, prog->text, "xconv_kernel.cu", 0, NULL, NULL);
    nvrtcResult r = nvrtcCompileProgram(p, argc, argv);
    double ms = cpu_ms() - t0;
    *cubin = NULL;
    *len = 0;
    if (r == NVRTC_SUCCESS && nvrtcGetCUBINSize(p, len) == NVRTC_SUCCESS &&
        (*cubin = malloc(*len)) != NULL)
        nvrtcGetCUBIN(p, *cubin);
    size_t n = 0;
    if (log && nvrtcGetProgramLogSize(p, &n) == NVRTC_SUCCESS && (*log = calloc(n + 1, 1)))
        nvrtcGetProgramLog(p, *log);
    if (r != NVRTC_SUCCESS)
        fprintf(stderr, "%s %s: %s\n", prog->label, extra ? extra : "", nvrtcGetErrorString(r));
    nvrtcDestroyProgram(&p);
    return ms;
}

// Adds the milliseconds of the phases NVRTC's --time=- table lists in log to phase[3].
static void add_phases(const char *log, double phase[3])
{
    static const char *const names[3] = {"CUDA C++ Frontend", "NVVM Optimizer",
                                         "PTX Translation"};
    for (int i = 0; i < 3; i++) {
        const char *at = log ? strstr(log, names[i]) : NULL;
        if (at)
            phase[i] += atof(at + strlen(names[i]) + 1);
    }
}

// Appends the kernel steps of plan not in progs yet; returns the new count.
static int collect(const xconv_plan *plan, const char *shape, program *progs, int n, int max)
{
    for (int s = 0; s < xconv_plan_step_count(plan) && n < max; s++) {
        xconv_error err = {0};
        xconv_plan_step_info info;
        if (xconv_plan_step_get_info(plan, s, &info, &err) != XCONV_OK || !info.source)
            continue;
        program q = {0};
        if (xconv_plan_step_build_input(plan, s, &q.text, q.options, sizeof q.options, &err) !=
            XCONV_OK)
            continue;
        snprintf(q.label, sizeof q.label, "%s (%.60s)", info.source, shape);
        int dup = 0;
        for (int i = 0; i < n && !dup; i++)
            dup = strcmp(progs[i].options, q.options) == 0 && strcmp(progs[i].text, q.text) == 0;
        if (dup)
            free(q.text);
        else
            progs[n++] = q;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s TARGET REPS (--shape SPEC | --suite NAME)... [--variant V]\n",
                argv[0]);
        return 2;
    }
    xconv_error err = {0};
    const xconv_target *target = xconv_target_find(argv[1], &err);
    xconv_device *dev = target ? xconv_device_open_target(target, &err) : NULL;
    int reps = atoi(argv[2]);
    if (!dev || reps < 1) {
        fprintf(stderr, "%s\n", dev ? "REPS must be 1 or more" : err.msg);
        return 2;
    }
    const char *variant = "auto";
    for (int i = 3; i + 1 < argc; i += 2)
        if (strcmp(argv[i], "--variant") == 0)
            variant = argv[i + 1];
    enum { MAX = 2000 };
    program *progs = calloc(MAX, sizeof *progs);
    int n = 0;
    for (int i = 3; i + 1 < argc && progs; i += 2) {
        const xconv_named_shape *suite = NULL;
        int count = 1;
        if (strcmp(argv[i], "--suite") == 0)
            suite = xconv_suite_find(argv[i + 1], &count);
        else if (strcmp(argv[i], "--shape") != 0)
            continue;
        for (int k = 0; k < count; k++) {
            const char *spec = suite ? suite[k].spec : argv[i + 1];
            xconv_problem p;
            if (xconv_shape_parse(spec, &p, &err) != XCONV_OK)
                continue;
            // "all": auto's choice and every variant's plan that the shape takes
            bool all = strcmp(variant, "all") == 0;
            for (int v = -1; v < (all ? xconv_variant_count() : 0); v++) {
                const char *name = v < 0 ? (all ? "auto" : variant)
                                         : xconv_variant_get_info(xconv_variant_at(v))->name;
                xconv_plan *plan = xconv_plan_create(dev, &p, name, NULL, &err);
                if (plan)
                    n = collect(plan, spec, progs, n, MAX);
                xconv_plan_destroy(plan);
            }
        }
    }
    char arch_flag[64];
    snprintf(arch_flag, sizeof arch_flag, "--gpu-architecture=%s", target->arch);
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    printf("NVRTC %d.%d, %s, %d distinct programs (%s), flags %s %s %s, best of %d\n", major,
           minor, target->name, n, variant, fixed[0], fixed[1], arch_flag, reps);
    char *cubin, *log;
    size_t len;
    compile(&progs[0], arch_flag, NULL, NULL, &cubin, &len, NULL);  // loads NVRTC's builtins
    free(cubin);
    double total = 0, phase[3] = {0}, cand[NCAND] = {0};
    int differ[NCAND] = {0};
    size_t text_bytes = 0;
    printf("%-48s %9s %6s %6s %6s", "program", "ms (cpu)", "front", "nvvm", "ptxas");
    for (size_t c = 0; c < NCAND; c++)
        printf(" %16s", candidates[c]);
    printf("\n");
    for (int i = 0; i < n; i++) {
        char *ref;
        size_t ref_len;
        log = NULL;
        double best = 1e30, ph[3] = {0};
        compile(&progs[i], arch_flag, NULL, "--time=-", &ref, &ref_len, &log);
        add_phases(log, ph);
        free(log);
        for (int r = 0; r < reps; r++) {
            double ms = compile(&progs[i], arch_flag, NULL, NULL, &cubin, &len, NULL);
            best = ms < best ? ms : best;
            free(cubin);
        }
        total += best;
        text_bytes += strlen(progs[i].text);
        for (int k = 0; k < 3; k++)
            phase[k] += ph[k];
        printf("%-48.48s %9.1f %6.0f %6.0f %6.0f", progs[i].label, best, ph[0], ph[1], ph[2]);
        for (size_t c = 0; c < NCAND; c++) {
            double cbest = 1e30;
            int same = 1;
            for (int r = 0; r < reps; r++) {
                double ms = compile(&progs[i], arch_flag, candidates[c], NULL, &cubin, &len, NULL);
                cbest = ms < cbest ? ms : cbest;
                same &= cubin && ref && len == ref_len && memcmp(cubin, ref, len) == 0;
                free(cubin);
            }
            cand[c] += cbest;
            differ[c] += !same;
            printf(" %9.1f %6s", cbest, same ? "same" : "DIFFER");
        }
        printf("\n");
        free(ref);
    }
    double phases = phase[0] + phase[1] + phase[2];
    printf("total: %.1f s of CPU over %d programs (%.1f ms each, %.0f bytes of text each);"
           " phases (--time, wall): front end %.0f%%, NVVM optimizer %.0f%%, ptxas %.0f%%\n",
           total / 1e3, n, n ? total / n : 0, n ? (double)text_bytes / n : 0,
           phases > 0 ? 100 * phase[0] / phases : 0, phases > 0 ? 100 * phase[1] / phases : 0,
           phases > 0 ? 100 * phase[2] / phases : 0);
    for (size_t c = 0; c < NCAND; c++)
        printf("with %-16s %.1f s of CPU (%+.1f%%), %d of %d CUBINs differ\n", candidates[c],
               cand[c] / 1e3, total > 0 ? 100 * (cand[c] - total) / total : 0, differ[c], n);
    for (int i = 0; i < n; i++)
        free(progs[i].text);
    free(progs);
    xconv_device_close(dev);
    return 0;
}
