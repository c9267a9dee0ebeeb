// SPDX-License-Identifier: MIT
// The progress line: cases done of the total, what runs now and an estimate of the time left.
#include <string.h>
#include <time.h>

#include "progress.h"

#define BAR_WIDTH 20

// Returns the host's monotonic clock in milliseconds.
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void cli_progress_format_time(double ms, char *buf, size_t len)
{
    long s = (long)(ms / 1000.0 + 0.5);
    if (s >= 3600)
        snprintf(buf, len, "%ldh%02ldm", s / 3600, s % 3600 / 60);
    else if (s >= 60)
        snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, len, "%lds", s);
}

// Writes " about 3m05s left" (or nothing before the first case is done) into buf.
static void left_text(const cli_progress *p, char *buf, size_t len)
{
    char t[32];
    buf[0] = '\0';
    if (p->left_ms < 0)
        return;
    cli_progress_format_time(p->left_ms, t, sizeof t);
    snprintf(buf, len, ", about %s left", t);
}

void cli_progress_start(cli_progress *p, int total, bool tty)
{
    memset(p, 0, sizeof *p);
    p->f = stderr;
    p->tty = tty;
    p->total = total;
    p->start_ms = now_ms();
    p->left_ms = -1;
}

void cli_progress_clear(cli_progress *p)
{
    if (p->tty && p->drawn) {
        fputs("\r\033[K", p->f);
        fflush(p->f);
    }
    p->drawn = false;
}

void cli_progress_draw(cli_progress *p)
{
    if (!p->tty || p->total <= 0)
        return;
    int filled = p->done * BAR_WIDTH / p->total;
    char bar[BAR_WIDTH + 1], left[64];
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    left_text(p, left, sizeof left);
    // The line is cut to 100 columns so that it never wraps on a terminal of that width.
    fprintf(p->f, "\r\033[K[%d/%d] %s %.60s%s", p->done, p->total, bar, p->now, left);
    fflush(p->f);
    p->drawn = true;
}

void cli_progress_begin(cli_progress *p, const char *shape, const char *variant,
                        const char *device)
{
    // The device by its short name: "opencl:0" of "opencl:0 NVIDIA H100 80GB HBM3".
    snprintf(p->now, sizeof p->now, "%s %s on %.*s", shape, variant,
             (int)strcspn(device, " "), device);
    cli_progress_draw(p);
}

void cli_progress_done(cli_progress *p, const xconv_record *recs, int count)
{
    p->done += count;
    double elapsed = now_ms() - p->start_ms;
    if (p->done > 0)
        p->left_ms = elapsed / p->done * (p->total - p->done);
    if (p->tty) {
        cli_progress_draw(p);
        return;
    }
    char left[64];
    left_text(p, left, sizeof left);
    for (int i = 0; i < count; i++) {
        const xconv_record *r = &recs[i];
        fprintf(p->f, "[%d/%d] %s %s on %s: %s%s\n", p->done - count + i + 1, p->total,
                r->shape_name[0] ? r->shape_name : r->shape, r->variant, r->device,
                xconv_outcome_name(r->outcome), i + 1 == count ? left : "");
    }
    fflush(p->f);
}
