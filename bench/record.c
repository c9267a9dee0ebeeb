// SPDX-License-Identifier: MIT
// A run's header (version, commit, date, command), outcome names and timing statistics.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record.h"

// ---------------------------------------------------------------------------------------------
// Run info

// Returns true when arg can be pasted into a shell as it is.
static bool shell_plain(const char *arg)
{
    if (!*arg)
        return false;
    for (const char *c = arg; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-",
                    *c))
            return false;
    return true;
}

// Appends byte c to buf (len bytes, *used so far), keeping room for the terminator; returns
// false when full.
static bool put_byte(char *buf, size_t len, size_t *used, char c)
{
    if (*used + 1 >= len)
        return false;
    buf[(*used)++] = c;
    buf[*used] = '\0';
    return true;
}

// Appends arg to buf, single-quoted when the shell would need it ('it'\''s'); returns false when
// the buffer is full.
static bool put_arg(char *buf, size_t len, size_t *used, const char *arg)
{
    bool quote = !shell_plain(arg), ok = true;
    if (quote)
        ok = put_byte(buf, len, used, '\'');
    for (const char *c = arg; ok && *c; c++) {
        if (*c == '\'' && quote) {
            for (const char *e = "'\\''"; ok && *e; e++)
                ok = put_byte(buf, len, used, *e);
        } else {
            ok = put_byte(buf, len, used, *c);
        }
    }
    if (ok && quote)
        ok = put_byte(buf, len, used, '\'');
    return ok;
}

// Joins argv into buf with spaces, quoting as a shell would need; a line too long for buf ends
// in "...".
static void join_command(char *buf, size_t len, int argc, char **argv)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; argv && i < argc && argv[i]; i++) {
        if ((i > 0 && !put_byte(buf, len, &used, ' ')) || !put_arg(buf, len, &used, argv[i])) {
            if (len > 4)
                memcpy(buf + len - 4, "...", 4);
            return;
        }
    }
}

void xconv_run_info_init(xconv_run_info *info, int argc, char **argv)
{
    memset(info, 0, sizeof *info);
    snprintf(info->tool_version, sizeof info->tool_version, "%s", XCONV_VERSION);
    snprintf(info->commit, sizeof info->commit, "%s", xconv_git_commit());
    time_t now = time(NULL);
    struct tm utc;
    if (now == (time_t)-1 || !gmtime_r(&now, &utc) ||
        strftime(info->date, sizeof info->date, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
        snprintf(info->date, sizeof info->date, "unknown");
    join_command(info->command, sizeof info->command, argc, argv);
}

// ---------------------------------------------------------------------------------------------
// Outcomes and statistics

const char *xconv_outcome_name(xconv_outcome outcome)
{
    switch (outcome) {
    case XCONV_OUTCOME_PASS: return "pass";
    case XCONV_OUTCOME_FAIL: return "FAIL";
    case XCONV_OUTCOME_NOT_APPLICABLE: return "n/a";
    case XCONV_OUTCOME_ERROR: return "error";
    }
    return "unknown";
}

// Orders doubles ascending for qsort.
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void xconv_stats(const double *samples, int n, double *median, double *min, double *max)
{
    *median = *min = *max = NAN;
    if (n <= 0)
        return;
    double *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) {
        // Without a copy there is no median, but min and max need none.
        *min = *max = samples[0];
        for (int i = 1; i < n; i++) {
            *min = samples[i] < *min ? samples[i] : *min;
            *max = samples[i] > *max ? samples[i] : *max;
        }
        return;
    }
    memcpy(sorted, samples, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    *min = sorted[0];
    *max = sorted[n - 1];
    *median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    free(sorted);
}
