// SPDX-License-Identifier: MIT
// `xconv peaks`: each device's fp32 FMA throughput, memory bandwidth and tensor cores'
// throughput per reduced math mode, measured with xconv's own micro-kernels and stored under
// the device's identity in the peaks file (docs/peaks.md).
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "output.h"

// Makes every missing folder above the file at path (mkdir -p of its parent); returns 0 or
// CLI_FAILED after a message.
static int make_parents(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; ; p++) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "xconv peaks: cannot make %s: %s\n", dir, strerror(errno));
                return CLI_FAILED;
            }
            if (end)
                return 0;
            *p = '/';
        }
    }
}

// Fills *e with device info's identity, p's figures and the run's date and commit.
static void make_entry(const xconv_device_info *info, const xconv_peaks *p,
                       const xconv_run_info *run, xconv_peaks_entry *e)
{
    memset(e, 0, sizeof *e);
    CLI_COPY_IDENTITY(e, info);
    e->fp32_gflops = p->fp32_gflops;
    e->gbps = p->gbps;
    e->gbps_read = p->gbps_read;
    memcpy(e->mma_gflops, p->mma_gflops, sizeof e->mma_gflops);
    snprintf(e->date, sizeof e->date, "%s", run->date);
    snprintf(e->commit, sizeof e->commit, "%s", run->commit);
}

// Prints one device's figures and how they were measured.
static void print_peaks(const char *label, const xconv_peaks *p)
{
    printf("%-44.44s %12.1f %10.1f %10.1f\n", label, p->fp32_gflops, p->gbps, p->gbps_read);
    printf("    fma: %zu work-items x %d iterations x %d lane%s in groups of %zu, %.3g ms; copy "
           "and read: %.0f MB, %.3g and %.3g ms (fastest of %d runs)\n", p->fma_items,
           p->fma_iters, p->fma_lanes, cli_plural(p->fma_lanes), p->work_group, p->fma.min_ms, p->read_bytes * 1e-6, p->copy.min_ms, p->read.min_ms,
           p->fma.repeat);
    if (!p->mma_note[0])
        printf("    tensor cores (mma.sync): tf32 %.1f, f16 %.1f, bf16 %.1f GFLOP/s; %d, %d and %d "
               "iterations, %.3g, %.3g and %.3g ms\n", p->mma_gflops[1], p->mma_gflops[2],
               p->mma_gflops[3], p->mma_iters[1], p->mma_iters[2], p->mma_iters[3],
               p->mma[1].min_ms, p->mma[2].min_ms, p->mma[3].min_ms);
    else
        printf("    tensor cores: n/a: %s\n", p->mma_note);
}

// Measures device info into *e; returns 0, or CLI_FAILED after printing why.
static int measure_device(const xconv_device_info *info, int repeat, const xconv_run_info *run,
                          xconv_peaks_entry *e)
{
    xconv_error err = {0};
    char label[320];
    xconv_device_label(info, label, sizeof label);
    xconv_device *dev = cli_device_open_info(info, &err);
    xconv_peaks p;
    xconv_status st = dev ? xconv_peaks_measure(dev, repeat, &p, &err) : err.status;
    xconv_device_close(dev);
    if (st != XCONV_OK) {
        cli_print_error(label, &err);
        return CLI_FAILED;
    }
    print_peaks(label, &p);
    make_entry(info, &p, run, e);
    return 0;
}

// cli_output_write's writer of the peaks file.
static int write_file(FILE *f, const void *ctx)
{
    return xconv_peaks_file_write(f, ctx);
}

int cmd_peaks(const cli_options *opts)
{
    if (opts->repeat < 1) {
        fprintf(stderr, "xconv peaks: --repeat must be at least 1\n");
        return CLI_USAGE;
    }
    char path[4096];
    cli_peaks_path(opts, path, sizeof path);
    if (!path[0]) {
        fprintf(stderr, "xconv peaks: no cache folder (neither XDG_CACHE_HOME nor HOME is set): "
                        "give --peaks-file FILE\n");
        return CLI_USAGE;
    }
    xconv_error err = {0};
    static xconv_peaks_file file;
    if (xconv_peaks_file_load(path, &file, &err) != XCONV_OK) {  // kept, never overwritten
        cli_print_error("peaks file", &err);
        return CLI_USAGE;
    }
    cli_output out;  // checked before any measuring
    if (make_parents(path) || cli_output_check("--peaks-file", path, false, &out)) {
        xconv_peaks_file_free(&file);
        return CLI_USAGE;
    }
    xconv_devices *list = NULL;
    int indices[CLI_MAX_LIST], ndevices = 0;
    int rc = cli_select_devices(opts, &list, indices, &ndevices);
    if (rc) {
        xconv_devices_free(list);
        xconv_peaks_file_free(&file);
        return rc;
    }
    xconv_run_info run;
    xconv_run_info_init(&run, opts->argc, opts->argv);
    printf("%-44s %12s %10s %10s\n", "device", "fp32 GFLOP/s", "copy GB/s", "read GB/s");
    int measured = 0;
    for (int d = 0; d < ndevices; d++) {
        xconv_peaks_entry e;
        if (measure_device(xconv_devices_info_at(list, indices[d]), opts->repeat, &run, &e)) {
            rc = CLI_FAILED;
            continue;
        }
        if (xconv_peaks_file_put(&file, &e, &err) != XCONV_OK) {
            cli_print_error("peaks", &err);
            rc = CLI_FAILED;
            break;
        }
        measured++;
    }
    if (measured && cli_output_write(&out, write_file, &file))
        rc = CLI_FAILED;
    else if (measured)
        printf("stored in %s%s\n", path,
               getenv("XCONV_PEAKS") ? " (XCONV_PEAKS is set: it overrides them for floors)" : "");
    xconv_devices_free(list);
    xconv_peaks_file_free(&file);
    return rc;
}
