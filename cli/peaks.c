// SPDX-License-Identifier: MIT
// Where floors get their peaks: XCONV_PEAKS (the override the CLI maps), else the peaks file that
// `xconv peaks` keeps in the cache folder, matched by the device's identity.
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_peaks_path(const cli_options *opts, char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (opts->peaks_file)
        snprintf(buf, len, "%s", opts->peaks_file);
    else if (xdg && xdg[0] == '/')  // the XDG rule: a relative value is ignored
        snprintf(buf, len, "%s/xconv/peaks.json", xdg);
    else if (home && home[0])
        snprintf(buf, len, "%s/.cache/xconv/peaks.json", home);
    else
        buf[0] = '\0';
}

// Splits XCONV_PEAKS at ';' into src->env; returns 0 or CLI_USAGE after a message.
static int read_env(cli_peaks_source *src)
{
    const char *env = getenv("XCONV_PEAKS");
    if (!env || !*env)
        return 0;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", env);
    xconv_error err = {0};
    for (char *save = NULL, *entry = strtok_r(copy, ";", &save); entry;
         entry = strtok_r(NULL, ";", &save)) {
        if (src->nenv == CLI_MAX_LIST) {
            fprintf(stderr, "xconv: XCONV_PEAKS: more than %d entries\n", CLI_MAX_LIST);
            return CLI_USAGE;
        }
        xconv_report_peaks *p = &src->env[src->nenv++];
        if (xconv_report_peaks_parse(entry, p, &err) != XCONV_OK) {
            cli_print_error("XCONV_PEAKS", &err);
            return CLI_USAGE;
        }
        snprintf(p->source, sizeof p->source, "XCONV_PEAKS");
    }
    return 0;
}

int cli_peaks_open(const cli_options *opts, cli_peaks_source *src)
{
    memset(src, 0, sizeof *src);
    int rc = read_env(src);
    if (rc)
        return rc;
    cli_peaks_path(opts, src->path, sizeof src->path);
    xconv_error err = {0};
    if (src->path[0] && xconv_peaks_file_load(src->path, &src->file, &err) != XCONV_OK) {
        cli_print_error("peaks file", &err);
        fprintf(stderr, "xconv: run xconv peaks again to remake it, remove it, or give "
                        "--peaks-file\n");
        return CLI_USAGE;
    }
    return 0;
}

void cli_peaks_lookup(const cli_peaks_source *src, const xconv_device_info *info,
                      cli_peaks *out)
{
    memset(out, 0, sizeof *out);
    char label[320];
    xconv_device_label(info, label, sizeof label);
    for (int i = 0; i < src->nenv; i++) {
        const xconv_report_peaks *p = &src->env[i];
        if (!p->match[0] || strcasestr(label, p->match) || strcasestr(info->platform, p->match) ||
            strcasestr(info->vendor, p->match) || strcasestr(info->version, p->match)) {
            out->gflops = p->gflops;
            out->gbps = p->gbps;
            snprintf(out->source, sizeof out->source, "XCONV_PEAKS");
            return;
        }
    }
    const xconv_peaks_entry *e = xconv_peaks_file_find(
        &src->file, info->name, xconv_backend_name(info->backend), info->driver);
    if (e && e->fp32_gflops > 0 && e->gbps > 0) {
        out->gflops = e->fp32_gflops;
        out->gbps = e->gbps;
        out->gbps_read = e->gbps_read;
        memcpy(out->mma_gflops, e->mma_gflops, sizeof out->mma_gflops);
        snprintf(out->source, sizeof out->source, "measured");
    }
}

double cli_peaks_gflops(const cli_peaks *peaks, int64_t math)
{
    if (!peaks)
        return 0;
    if (math == XCONV_MATH_F32)
        return peaks->gflops;
    return math > XCONV_MATH_F32 && math <= XCONV_MATH_BF16 ? peaks->mma_gflops[math] : 0;
}

void cli_peaks_close(cli_peaks_source *src)
{
    xconv_peaks_file_free(&src->file);
}
