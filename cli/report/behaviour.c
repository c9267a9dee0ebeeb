// SPDX-License-Identifier: MIT
// The behaviour report's records: names of the fp32 flags, finding a record, the verdict of a
// kind of probe, and freeing a run.
#include <stdlib.h>
#include <string.h>

#include "behaviour.h"

// ---------------------------------------------------------------------------------------------
// Flags

const char *xconv_fp_flag_name(unsigned bit)
{
    switch (bit) {
    case XCONV_FP_DENORM: return "denorm";
    case XCONV_FP_INF_NAN: return "inf_nan";
    case XCONV_FP_ROUND_TO_NEAREST: return "round_to_nearest";
    case XCONV_FP_ROUND_TO_ZERO: return "round_to_zero";
    case XCONV_FP_ROUND_TO_INF: return "round_to_inf";
    case XCONV_FP_FMA: return "fma";
    case XCONV_FP_SOFT_FLOAT: return "soft_float";
    case XCONV_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: return "correctly_rounded_divide_sqrt";
    default: return NULL;
    }
}

const char *xconv_fp_config_format(unsigned config, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned bit = 1; bit && used < len; bit <<= 1) {
        const char *name = (config & bit) ? xconv_fp_flag_name(bit) : NULL;
        if (name)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
    }
    if (!buf[0])
        snprintf(buf, len, "none");
    return buf;
}

// ---------------------------------------------------------------------------------------------
// Records

const xconv_behaviour_record *xconv_behaviour_find(const xconv_behaviour_run *run, int stack,
                                                   const char *variant)
{
    for (int i = 0; i < run->count; i++)
        if (run->recs[i].stack == stack && strcmp(run->recs[i].variant, variant) == 0)
            return &run->recs[i];
    return NULL;
}

const char *xconv_behaviour_kind_verdict(const xconv_behaviour_record *rec,
                                         xconv_probe_kind kind)
{
    const char *first = NULL;
    bool same = true, wrong = false, error = false;
    for (int i = 0; i < rec->nprobes; i++) {
        const char *v = rec->probes[i].verdict;
        if (rec->probes[i].kind != kind || strcmp(v, "n/a") == 0)
            continue;
        wrong |= strcmp(v, "wrong") == 0;
        error |= strcmp(v, "error") == 0;
        if (first && strcmp(first, v) != 0)
            same = false;
        if (!first)
            first = v;
    }
    if (!first)
        return "n/a";
    if (wrong)
        return "wrong";
    if (error)
        return "error";
    if (same)
        return first;
    return kind == XCONV_PROBE_SPECIAL ? "block" : "mixed";
}

void xconv_behaviour_run_free(xconv_behaviour_run *run)
{
    if (!run)
        return;
    for (int i = 0; run->recs && i < run->count; i++)
        free(run->recs[i].per_shape);
    free(run->recs);
    free(run->agree);
    free(run->stacks);
    free(run->shapes);
    free(run->cases);
    memset(run, 0, sizeof *run);
}
