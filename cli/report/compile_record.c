// SPDX-License-Identifier: MIT
// Writers of compile-check records: JSON like the other commands' results, CSV and a table.
#include <string.h>

#include "compile_record.h"

const char *xconv_compile_outcome_name(xconv_compile_outcome o)
{
    switch (o) {
    case XCONV_COMPILE_OK: return "ok";
    case XCONV_COMPILE_SPILLS: return "spills";
    case XCONV_COMPILE_FAILED: return "failed";
    case XCONV_COMPILE_NOT_APPLICABLE: return "n/a";
    case XCONV_COMPILE_SKIPPED: return "skipped";
    }
    return "?";
}

xconv_compile_counts xconv_compile_counts_unknown(void)
{
    xconv_compile_counts c;
#define UNKNOWN(field, width) c.field = -1;
    XCONV_COMPILE_COUNTS(UNKNOWN)
#undef UNKNOWN
    return c;
}

// Writes `"name": v` (null for a negative v).
static void json_int(FILE *f, const char *name, long v)
{
    if (v < 0)
        fprintf(f, ", \"%s\": null", name);
    else
        fprintf(f, ", \"%s\": %ld", name, v);
}

// Writes one record as a JSON object.
static void json_record(FILE *f, const xconv_compile_record *r)
{
    xconv_json_write_member(f, "{\"target\": ", r->target, sizeof r->target);
    xconv_json_write_member(f, ", \"compiler\": ", r->compiler, sizeof r->compiler);
    xconv_json_write_member(f, ", \"variant\": ", r->variant, sizeof r->variant);
    fprintf(f, ", \"auto\": %s, \"shape_name\": ", r->is_auto ? "true" : "false");
    xconv_json_write_string(f, r->shape_name, sizeof r->shape_name);
    xconv_json_write_member(f, ", \"shape\": ", r->shape, sizeof r->shape);
    fprintf(f, ", \"step\": %d, \"kernel\": ", r->step);
    xconv_json_write_string(f, r->kernel, sizeof r->kernel);
    xconv_json_write_member(f, ", \"source\": ", r->source, sizeof r->source);
    fprintf(f, ", \"outcome\": \"%s\", \"compiled\": %s", xconv_compile_outcome_name(r->outcome),
            r->outcome == XCONV_COMPILE_OK || r->outcome == XCONV_COMPILE_SPILLS ? "true"
                                                                                : "false");
#define JSON_COUNT(field, width) json_int(f, #field, r->counts.field);
    XCONV_COMPILE_COUNTS(JSON_COUNT)
#undef JSON_COUNT
    fprintf(f, ", \"seconds\": %.3f, \"deduplicated\": %s, \"note\": ", r->seconds,
            r->deduplicated ? "true" : "false");
    xconv_json_write_string(f, r->note, sizeof r->note);
    fputc('}', f);
}

int xconv_compile_records_write_json(FILE *f, const xconv_run_info *info,
                                     const xconv_compile_record *recs, int count)
{
    xconv_json_write_head(f, info, "compile");
    for (int i = 0; i < count; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_record(f, &recs[i]);
    }
    fputs(xconv_json_closing(count > 0), f);
    return ferror(f) ? -1 : 0;
}

// Writes v as a CSV field (empty for a negative v) after a comma.
static void csv_int(FILE *f, long v)
{
    if (v < 0)
        fputc(',', f);
    else
        fprintf(f, ",%ld", v);
}

int xconv_compile_records_write_csv(FILE *f, const xconv_compile_record *recs, int count)
{
    fputs("target,compiler,variant,auto,shape_name,shape,step,kernel,source,outcome", f);
#define CSV_TITLE(field, width) fputs("," #field, f);
    XCONV_COMPILE_COUNTS(CSV_TITLE)
#undef CSV_TITLE
    fputs(",seconds,deduplicated,note\n", f);
    for (int i = 0; i < count; i++) {
        const xconv_compile_record *r = &recs[i];
        fprintf(f, "%s,%s,%s,%d,", r->target, r->compiler, r->variant, r->is_auto);
        xconv_csv_write_string(f, r->shape_name, sizeof r->shape_name);
        fputc(',', f);
        xconv_csv_write_string(f, r->shape, sizeof r->shape);
        fprintf(f, ",%d,%s,%s,%s", r->step, r->kernel, r->source,
                xconv_compile_outcome_name(r->outcome));
#define CSV_COUNT(field, width) csv_int(f, r->counts.field);
        XCONV_COMPILE_COUNTS(CSV_COUNT)
#undef CSV_COUNT
        fprintf(f, ",%.3f,%d,", r->seconds, r->deduplicated);
        xconv_csv_write_string(f, r->note, sizeof r->note);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

// Writes v right-aligned in `width` columns, "-" for a negative v; nothing for width 0 (a
// count the table leaves out).
static void table_int(FILE *f, int width, long v)
{
    if (width == 0)
        return;
    if (v < 0)
        fprintf(f, " %*s", width, "-");
    else
        fprintf(f, " %*ld", width, v);
}

int xconv_compile_records_write_table(FILE *f, const xconv_compile_record *recs, int count)
{
    fprintf(f, "%-8s %-22s %-4s %-16s %-26s %-8s %5s %5s %6s %8s %6s %4s %4s %7s  %s\n",
            "target", "variant", "auto", "shape", "kernel", "outcome", "regs", "sgprs", "spills",
            "scratch", "lds", "occ", "simd", "seconds", "note");
    for (int i = 0; i < count; i++) {
        const xconv_compile_record *r = &recs[i];
        const char *shape = r->shape_name[0] ? r->shape_name : r->shape;
        fprintf(f, "%-8s %-22s %-4s %-16.16s %-26.26s %-8s", r->target, r->variant,
                r->is_auto ? "yes" : "", shape, r->kernel,
                xconv_compile_outcome_name(r->outcome));
#define TABLE_COUNT(field, width) table_int(f, width, r->counts.field);
        XCONV_COMPILE_COUNTS(TABLE_COUNT)
#undef TABLE_COUNT
        fprintf(f, " %7.2f  %.*s\n", r->seconds, 120, r->note);
    }
    return ferror(f) ? -1 : 0;
}
