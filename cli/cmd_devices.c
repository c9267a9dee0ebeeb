// SPDX-License-Identifier: MIT
// `xconv devices` and `xconv variants`: what is installed and what can run.
#include <string.h>

#include "report/behaviour.h"
#include "cli.h"

// Writes a device-info string field as JSON.
static void json_string(FILE *f, const char *s)
{
    xconv_json_write_string(f, s, strlen(s));
}

static void print_device_json(FILE *f, int index, const xconv_device_info *d)
{
    fprintf(f, "    {\"index\": %d, \"backend\": \"%s\", \"backend_index\": %d, \"platform\": ",
            index, xconv_backend_name(d->backend), d->backend_index);
    json_string(f, d->platform);
    fprintf(f, ", \"vendor\": ");
    json_string(f, d->vendor);
    fprintf(f, ", \"name\": ");
    json_string(f, d->name);
    fprintf(f, ", \"driver\": ");
    json_string(f, d->driver);
    fprintf(f, ", \"version\": ");
    json_string(f, d->version);
    fprintf(f,
            ", \"type\": \"%s\", \"compute_units\": %d, \"clock_mhz\": %d, "
            "\"global_mem_bytes\": %llu, \"local_mem_bytes\": %llu, \"max_alloc_bytes\": %llu, "
            "\"const_mem_bytes\": %llu, \"cache_bytes\": %llu, \"max_work_group_size\": %zu, "
            "\"preferred_multiple\": %zu, \"native_float_width\": %d, \"fp64\": %s",
            d->is_gpu ? "gpu" : d->is_cpu ? "cpu" : "other", d->compute_units, d->clock_mhz,
            (unsigned long long)d->global_mem_bytes, (unsigned long long)d->local_mem_bytes,
            (unsigned long long)d->max_alloc_bytes, (unsigned long long)d->const_mem_bytes,
            (unsigned long long)d->cache_bytes, d->max_work_group_size, d->preferred_multiple,
            d->native_float_width, d->fp64 ? "true" : "false");
    fprintf(f, ", \"max_registers_per_work_group\": %d", d->max_registers_per_work_group);
    if (d->cc_major)
        fprintf(f, ", \"compute_capability\": \"%d.%d\"", d->cc_major, d->cc_minor);
    if (d->intel_mma_sub_group)
        fprintf(f, ", \"intel_mma_sub_group\": %d", d->intel_mma_sub_group);
    fprintf(f, ", \"fp32_config\": [");
    for (unsigned bit = 1, n = 0; bit; bit <<= 1)
        if ((d->fp32_config & bit) && xconv_fp_flag_name(bit))
            fprintf(f, "%s\"%s\"", n++ ? ", " : "", xconv_fp_flag_name(bit));
    fprintf(f, "], \"build_flags\": ");
    json_string(f, d->build_flags);
    fprintf(f, "}");
}

// Prints the devices shown (count of them, indices into devs) and every backend of all that
// listed none, with why.
static void print_devices_json(const xconv_devices *devs, const int *shown, int count,
                               const xconv_devices *all)
{
    printf("{\n  \"devices\": [\n");
    for (int i = 0; i < count; i++) {
        print_device_json(stdout, shown[i], xconv_devices_info_at(devs, shown[i]));
        printf("%s\n", i + 1 < count ? "," : "");
    }
    printf("  ],\n  \"unavailable\": {");
    int n = 0;
    for (int k = 0; k < XCONV_BACKEND_COUNT; k++) {
        char reason[512];
        if (xconv_devices_backend_status(all, (xconv_backend_kind)k, reason, sizeof reason) ==
            XCONV_OK)
            continue;
        printf("%s\"%s\": ", n++ ? ", " : "", xconv_backend_name((xconv_backend_kind)k));
        json_string(stdout, reason);
    }
    printf("}\n}\n");
}

static double mib(uint64_t bytes)
{
    return (double)bytes / 1048576.0;
}

static void print_device_text(int index, const xconv_device_info *d)
{
    printf("%d  %s:%d  %s\n", index, xconv_backend_name(d->backend), d->backend_index, d->name);
    printf("     platform %s, vendor %s, driver %s, %s\n", d->platform, d->vendor, d->driver,
           d->version);
    printf("     %s, %d compute units at %d MHz, global %.0f MiB, local %.1f KiB, "
           "largest allocation %.0f MiB\n",
           d->is_gpu ? "GPU" : d->is_cpu ? "CPU" : "other", d->compute_units, d->clock_mhz,
           mib(d->global_mem_bytes), (double)d->local_mem_bytes / 1024.0,
           mib(d->max_alloc_bytes));
    printf("     constant %.1f KiB, cache %.1f MiB, max work-group %zu, preferred multiple %zu, "
           "float vectors %d, fp64 %s",
           (double)d->const_mem_bytes / 1024.0, mib(d->cache_bytes), d->max_work_group_size,
           d->preferred_multiple, d->native_float_width, d->fp64 ? "yes" : "no");
    if (d->max_registers_per_work_group)
        printf(", %d registers per work-group", d->max_registers_per_work_group);
    if (d->cc_major)
        printf(", compute capability %d.%d", d->cc_major, d->cc_minor);
    if (d->intel_mma_sub_group)
        printf(", Intel matrix engines at sub-group %d", d->intel_mma_sub_group);
    char flags[256];
    printf("\n     fp32 %s\n     kernels built with %s\n",
           xconv_fp_config_format(d->fp32_config, flags, sizeof flags), d->build_flags);
}

// Prints each backend's advice, one "opencl: ..." line per line of it.
static void print_advice(const xconv_devices *all)
{
    for (int k = 0; k < XCONV_BACKEND_COUNT; k++) {
        char advice[1024];
        if (xconv_devices_backend_advice(all, (xconv_backend_kind)k, advice, sizeof advice) < 1)
            continue;
        for (const char *line = advice; *line;) {
            size_t n = strcspn(line, "\n");
            printf("%s: %.*s\n", xconv_backend_name((xconv_backend_kind)k), (int)n, line);
            line += n + (line[n] == '\n');
        }
    }
}

// Fills shown with the devices --device selects in *devs (in the order given, each once; none
// given: every device of all, *devs NULL). Returns 0, or the exit code after a message.
static int select_shown(const cli_options *opts, const xconv_devices *all, xconv_devices **devs,
                        int *shown, int *count)
{
    *count = 0;
    if (!opts->ndevices) {
        for (int i = 0; i < xconv_devices_count(all) && *count < CLI_MAX_LIST; i++)
            shown[(*count)++] = i;
        return 0;
    }
    int indices[CLI_MAX_LIST], n = 0;
    int rc = cli_select_devices(opts, devs, indices, &n);
    for (int i = 0; !rc && i < n; i++) {
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen = seen || indices[j] == indices[i];
        if (!seen)
            shown[(*count)++] = indices[i];
    }
    return rc;
}

int cmd_devices(const cli_options *opts)
{
    if (opts->list_targets) {  // profiles, not devices: nothing is listed or opened
        cli_print_targets(stdout, false);
        return CLI_OK;
    }
    xconv_error err = {0};
    xconv_devices *all = xconv_devices_enumerate(XCONV_BACKENDS_ALL, &err), *picked = NULL;
    if (!all) {
        cli_print_error(NULL, &err);
        return CLI_FAILED;
    }
    int shown[CLI_MAX_LIST], count = 0;
    int rc = select_shown(opts, all, &picked, shown, &count);
    const xconv_devices *devs = picked ? picked : all;
    if (!rc && opts->json_stdout) {
        print_devices_json(devs, shown, count, all);
    } else if (!rc) {
        for (int i = 0; i < count; i++)
            print_device_text(shown[i], xconv_devices_info_at(devs, shown[i]));
        for (int k = 0; k < XCONV_BACKEND_COUNT && !opts->ndevices; k++) {
            char reason[512];
            if (xconv_devices_backend_status(all, (xconv_backend_kind)k, reason,
                                             sizeof reason) != XCONV_OK)
                printf("%s: unavailable (%s)\n", xconv_backend_name((xconv_backend_kind)k),
                       reason);
        }
        if (!opts->ndevices)
            print_advice(all);
    }
    if (!rc && count == 0) {
        cli_error("no device found: install an OpenCL driver (Debian: pocl-opencl-icd for the "
                  "CPU) or an NVIDIA driver for CUDA");
        rc = CLI_FAILED;
    }
    xconv_devices_free(picked);
    xconv_devices_free(all);
    return rc;
}

int cmd_variants(const cli_options *opts)
{
    (void)opts;
    int count = xconv_variant_count();
    unsigned both =
        XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL) | XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA);
    printf("%-28s %-10s %-14s %s\n", "variant", "family", "backends", "summary");
    for (int i = 0; i < count; i++) {
        const xconv_variant_info *v = xconv_variant_get_info(xconv_variant_at(i));
        char backends[32] = "host";
        if (v->backends)
            snprintf(backends, sizeof backends, "%s%s%s",
                     v->backends & XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL) ? "opencl" : "",
                     v->backends == both ? "," : "",
                     v->backends & XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA) ? "cuda" : "");
        printf("%-28s %-10s %-14s %s\n", v->name, v->family, backends, v->summary);
    }
    return CLI_OK;
}
