// SPDX-License-Identifier: MIT
// Progress of a long run: a bar redrawn in place on a terminal, plain lines otherwise, with the
// time left estimated from the cost of the steps finished so far.
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "work_progress.h"

#define BAR_CELLS 20

// Returns the monotonic clock in milliseconds.
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void cli_work_progress_start(cli_work_progress *p, FILE *f, int total, double work_total)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->tty = isatty(fileno(f));
    p->width = 80;
    struct winsize ws;
    if (p->tty && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        p->width = ws.ws_col;
    p->total = total;
    p->work_total = work_total;
    p->start_ms = now_ms();
}

const char *cli_work_progress_left(const cli_work_progress *p, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!(p->work_done > 0) || p->done == 0)
        return buf;
    double left = p->work_total - p->work_done;
    double ms = (now_ms() - p->start_ms) * (left > 0 ? left : 0) / p->work_done;
    cli_progress_format_time(ms, buf, len);
    return buf;
}

void cli_work_progress_show(cli_work_progress *p, const char *shape, const char *variant)
{
    if (!p->tty)
        return;
    double frac = p->work_total > 0 ? p->work_done / p->work_total : 0;
    frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
    char bar[BAR_CELLS + 1], left[32], line[512];
    int full = (int)(frac * BAR_CELLS + 0.5);
    for (int i = 0; i < BAR_CELLS; i++)
        bar[i] = i < full ? '#' : '-';
    bar[BAR_CELLS] = '\0';
    cli_work_progress_left(p, left, sizeof left);
    int n = snprintf(line, sizeof line, "[%d/%d] %s %3d%%  %s  %s%s%s", p->done, p->total, bar,
                     (int)(frac * 100 + 0.5), shape, variant, left[0] ? "  " : "",
                     left[0] ? left : "");
    if (left[0] && n > 0 && (size_t)n + 5 < sizeof line)
        strcat(line, " left");
    fprintf(p->f, "\r%.*s\033[K", p->width - 1, line);
    fflush(p->f);
    p->drawn = true;
}

void cli_work_progress_done(cli_work_progress *p, double work, const char *line, bool keep)
{
    p->done++;
    p->work_done += work;
    if (p->tty) {
        if (keep) {
            fprintf(p->f, "\r\033[K%s\n", line);
            p->drawn = false;
        }
        return;
    }
    char left[32];
    cli_work_progress_left(p, left, sizeof left);
    fprintf(p->f, "[%d/%d] %s%s%s%s\n", p->done, p->total, line, left[0] ? ", " : "", left,
            left[0] ? " left" : "");
    fflush(p->f);
}

void cli_work_progress_end(cli_work_progress *p)
{
    if (p->tty && p->drawn)
        fputs("\r\033[K", p->f);
    p->drawn = false;
    fflush(p->f);
}
