// SPDX-License-Identifier: MIT
// A run's header (version, commit, date, command), outcome names and the record list.
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
// Outcomes

const char *xconv_outcome_word(xconv_outcome outcome)
{
    switch (outcome) {
    case XCONV_OUTCOME_PASS: return "pass";
    case XCONV_OUTCOME_FAIL: return "fail";
    case XCONV_OUTCOME_NOT_APPLICABLE: return "not_applicable";
    case XCONV_OUTCOME_ERROR: return "error";
    }
    return "error";
}

void xconv_record_set_floor(xconv_record *r, const xconv_problem *p, double peak_gflops,
                            double peak_gbps)
{
    r->floor_ms = r->floor_share = NAN;
    if (!(peak_gflops > 0) || !(peak_gbps > 0))
        return;
    double t_flop = xconv_problem_flops(p) / (peak_gflops * 1e9) * 1e3;
    double t_byte = xconv_problem_min_bytes(p) / (peak_gbps * 1e9) * 1e3;
    r->floor_ms = t_flop > t_byte ? t_flop : t_byte;
    if (r->repeat > 0 && r->median_ms > 0 && isfinite(r->median_ms))
        r->floor_share = r->floor_ms / r->median_ms;
}

// ---------------------------------------------------------------------------------------------
// The list

void xconv_record_list_init(xconv_record_list *list, int argc, char **argv)
{
    memset(list, 0, sizeof *list);
    xconv_run_info_init(&list->info, argc, argv);
}

xconv_record *xconv_record_list_add(xconv_record_list *list)
{
    if (list->count == list->cap) {
        int cap = list->cap ? list->cap * 2 : 64;
        xconv_record *grown = realloc(list->recs, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        list->recs = grown;
        list->cap = cap;
    }
    xconv_record *r = &list->recs[list->count++];
    xconv_record_clear(r);
    return r;
}

// The members of a result a record copies: its strings (cut to the record's sizes), its
// timing, and its other values.
#define RESULT_STRINGS(X)                                                                    \
    X(device) X(backend) X(driver) X(libraries) X(variant) X(family) X(shape_name) X(shape)  \
    X(dtype) X(math) X(reference) X(note)
#define RESULT_TIMING(X) X(repeat) X(median_ms) X(min_ms) X(max_ms) X(gflops) X(gbps)
#define RESULT_VALUES(X)                                                                     \
    X(seed) X(compile_ms) X(max_norm_err) X(error_block_h) X(error_block_w) X(max_block_err) \
    X(threshold) X(worst_index) X(outcome)

#define COPY_VALUE(m) r->m = res->m;
#define COPY_STRING(m) snprintf(r->m, sizeof r->m, "%s", res->m);

void xconv_record_set_timing(xconv_record *r, const xconv_result *res)
{
    RESULT_TIMING(COPY_VALUE)
}

void xconv_record_from_result(xconv_record *r, const xconv_result *res)
{
    RESULT_STRINGS(COPY_STRING)
    RESULT_TIMING(COPY_VALUE)
    RESULT_VALUES(COPY_VALUE)
}

#undef COPY_VALUE
#undef COPY_STRING

void xconv_record_clear(xconv_record *r)
{
    memset(r, 0, sizeof *r);
    r->worst_index = -1;
    snprintf(r->dtype, sizeof r->dtype, "f32");
    snprintf(r->math, sizeof r->math, "f32");
    r->max_norm_err = NAN;
    r->max_block_err = NAN;
    r->error_block_h = r->error_block_w = 1;
    r->median_ms = r->min_ms = r->max_ms = NAN;
    r->compile_ms = r->gflops = r->gbps = NAN;
    r->floor_ms = r->floor_share = NAN;
    r->cmp.worst_index = -1;
    r->cmp.other_ms = r->cmp.ratio = NAN;
}

int xconv_record_list_failed(const xconv_record_list *list)
{
    int failed = 0;
    for (int i = 0; i < list->count; i++)
        failed += list->recs[i].outcome == XCONV_OUTCOME_FAIL ||
                  list->recs[i].outcome == XCONV_OUTCOME_ERROR;
    return failed;
}

void xconv_record_list_free(xconv_record_list *list)
{
    free(list->recs);
    list->recs = NULL;
    list->count = list->cap = 0;
}

bool xconv_comparison_passed(const xconv_record *r)
{
    return r->cmp.present && r->cmp.compared && r->cmp.differing == 0 &&
           r->outcome == XCONV_OUTCOME_PASS;
}
