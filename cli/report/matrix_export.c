// SPDX-License-Identifier: MIT
// The matrix JSON writer (docs/matrix_schema.md): run info, devices and their peaks, shapes
// with weights, and records carrying the floor, its share and whether `auto` picks them.
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "matrix.h"

// ---------------------------------------------------------------------------------------------
// Values

// Writes ", \"key\": " (first: without the comma).
static void key(FILE *f, const char *name, bool first)
{
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", name);
}

// Writes a finite double as %.9g, anything else as null.
static void number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

// Writes a positive peak, or null when unknown (0).
static void peak(FILE *f, double v)
{
    number(f, v > 0 ? v : NAN);
}

// Writes s (at most max bytes) as a JSON string.
static void string(FILE *f, const char *s, size_t max)
{
    xconv_json_write_string(f, s, max);
}

#define STR(f, s) string(f, s, sizeof(s))

// ---------------------------------------------------------------------------------------------
// Blocks

// Writes one device object with its peaks.
static void write_device(FILE *f, const xconv_matrix_device *d)
{
    putc('{', f);
    key(f, "id", true);
    STR(f, d->id);
    key(f, "name", false);
    STR(f, d->name);
    key(f, "backend", false);
    STR(f, d->backend);
    key(f, "driver", false);
    STR(f, d->driver);
    key(f, "platform", false);
    STR(f, d->platform);
    key(f, "compute_units", false);
    fprintf(f, "%d", d->compute_units);
    key(f, "clock_mhz", false);
    fprintf(f, "%d", d->clock_mhz);
    key(f, "peaks", false);
    putc('{', f);
    key(f, "fp32_gflops", true);
    peak(f, d->peak_gflops);
    key(f, "gbps", false);
    peak(f, d->peak_gbps);
    key(f, "gbps_read", false);
    peak(f, d->peak_gbps_read);
    key(f, "source", false);
    STR(f, d->peaks_source);
    fputs("}}", f);
}

// Writes one shape object.
static void write_shape(FILE *f, const xconv_matrix_shape *s)
{
    putc('{', f);
    key(f, "name", true);
    STR(f, s->name);
    key(f, "shape", false);
    STR(f, s->shape);
    key(f, "weight", false);
    number(f, s->weight);
    key(f, "set", false);
    STR(f, s->set);
    putc('}', f);
}

void xconv_matrix_write_record(FILE *f, const xconv_matrix_record *m)
{
    const xconv_record *r = &m->rec;
    const xconv_json_str strings[] = {
        XCONV_JSON_STR("device", r->device),         XCONV_JSON_STR("backend", r->backend),
        XCONV_JSON_STR("driver", r->driver),         XCONV_JSON_STR("libraries", r->libraries),
        XCONV_JSON_STR("variant", r->variant),       XCONV_JSON_STR("family", r->family),
        XCONV_JSON_STR("shape_name", r->shape_name), XCONV_JSON_STR("shape", r->shape),
        XCONV_JSON_STR("reference", r->reference),
    };
    putc('{', f);
    xconv_json_write_strings(f, strings, sizeof strings / sizeof strings[0], true);
    key(f, "seed", false);
    fprintf(f, "%" PRIu64, r->seed);
    key(f, "repeat", false);
    fprintf(f, "%d", r->repeat);
    struct {
        const char *name;
        double value;
    } doubles[] = {
        {"median_ms", r->median_ms}, {"min_ms", r->min_ms},   {"max_ms", r->max_ms},
        {"compile_ms", r->compile_ms}, {"gflops", r->gflops}, {"gbps", r->gbps},
        {"max_norm_err", r->max_norm_err}, {"max_block_err", r->max_block_err},
        {"threshold", r->threshold},
    };
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
        key(f, doubles[i].name, false);
        number(f, doubles[i].value);
    }
    key(f, "error_block_h", false);
    fprintf(f, "%" PRId64, r->error_block_h);
    key(f, "error_block_w", false);
    fprintf(f, "%" PRId64, r->error_block_w);
    key(f, "worst_index", false);
    fprintf(f, "%" PRId64, r->worst_index);
    key(f, "pass", false);
    fputs(r->outcome == XCONV_OUTCOME_PASS ? "true" : "false", f);
    key(f, "outcome", false);
    fprintf(f, "\"%s\"", xconv_outcome_word(r->outcome));
    key(f, "note", false);
    STR(f, r->note);
    key(f, "floor_ms", false);
    number(f, r->floor_ms);
    key(f, "floor_share", false);
    number(f, r->floor_share);
    key(f, "auto_pick", false);
    fputs(m->auto_pick < 0 ? "null" : m->auto_pick ? "true" : "false", f);
    putc('}', f);
}

// ---------------------------------------------------------------------------------------------
// The file

void xconv_matrix_write_head(FILE *f, const xconv_run_file *run)
{
    fprintf(f, "{\n  \"tool\": \"xconv\",\n  \"kind\": \"matrix\",\n"
               "  \"schema_version\": %d,\n  ", XCONV_MATRIX_SCHEMA_VERSION);
    xconv_json_write_run_info(f, &run->info);
    xconv_json_write_member(f, ",\n  \"host\": ", run->host, sizeof run->host);
    fputs(",\n  \"devices\": [", f);
    for (int i = 0; i < run->ndevices; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        write_device(f, &run->devices[i]);
    }
    fputs(run->ndevices ? "\n  ],\n  \"shapes\": [" : "],\n  \"shapes\": [", f);
    for (int i = 0; i < run->nshapes; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        write_shape(f, &run->shapes[i]);
    }
    fputs(run->nshapes ? "\n  ],\n  \"records\": [" : "],\n  \"records\": [", f);
}

void xconv_matrix_write_tail(FILE *f, int count, bool complete)
{
    fprintf(f, "%s],\n  \"complete\": %s\n}\n", count ? "\n  " : "", complete ? "true" : "false");
}

int xconv_matrix_write_json(FILE *f, const xconv_run_file *run)
{
    xconv_matrix_write_head(f, run);
    for (int i = 0; i < run->count && !ferror(f); i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        xconv_matrix_write_record(f, &run->recs[i]);
    }
    xconv_matrix_write_tail(f, run->count, true);
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// CSV

// Writes ",v" with v finite as %.9g, else "," alone (an empty cell).
static void csv_number(FILE *f, double v)
{
    putc(',', f);
    if (isfinite(v))
        fprintf(f, "%.9g", v);
}

#define CSV_STR(f, s) (putc(',', f), xconv_csv_write_string(f, s, sizeof(s)))

void xconv_matrix_write_csv_header(FILE *f)
{
    fputs("device,backend,driver,variant,family,shape_name,shape,reference,seed,repeat,"
          "median_ms,min_ms,max_ms,compile_ms,gflops,gbps,max_norm_err,threshold,worst_index,"
          "pass,outcome,note,floor_ms,floor_share,auto_pick\n", f);
}

void xconv_matrix_write_csv_row(FILE *f, const xconv_matrix_record *m)
{
    const xconv_record *r = &m->rec;
    xconv_csv_write_string(f, r->device, sizeof r->device);
    CSV_STR(f, r->backend);
    CSV_STR(f, r->driver);
    CSV_STR(f, r->variant);
    CSV_STR(f, r->family);
    CSV_STR(f, r->shape_name);
    CSV_STR(f, r->shape);
    CSV_STR(f, r->reference);
    fprintf(f, ",%" PRIu64 ",%d", r->seed, r->repeat);
    const double numbers[] = {r->median_ms, r->min_ms, r->max_ms, r->compile_ms, r->gflops,
                              r->gbps, r->max_norm_err, r->threshold};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        csv_number(f, numbers[i]);
    fprintf(f, ",%" PRId64 ",%s,%s", r->worst_index,
            r->outcome == XCONV_OUTCOME_PASS ? "true" : "false", xconv_outcome_word(r->outcome));
    CSV_STR(f, r->note);
    csv_number(f, r->floor_ms);
    csv_number(f, r->floor_share);
    fprintf(f, ",%s\n", m->auto_pick < 0 ? "" : m->auto_pick ? "true" : "false");
}
