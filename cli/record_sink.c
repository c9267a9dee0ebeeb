// SPDX-License-Identifier: MIT
// Records streamed into JSON and CSV files that stay valid after every record.
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record_sink.h"

struct cli_record_sink {
    cli_stream_file json, csv;
    bool has_json, has_csv;
    bool with_cmp;
    bool any;                // a record was appended
};

typedef struct head_args {
    const xconv_run_info *info;
    bool with_cmp;
} head_args;

static void json_head(FILE *f, const void *ctx)
{
    const head_args *a = ctx;
    xconv_json_write_head(f, a->info, a->with_cmp ? "parity" : NULL);
}

static void csv_head(FILE *f, const void *ctx)
{
    const head_args *a = ctx;
    xconv_csv_write_header(f, a->with_cmp);
}

cli_record_sink *cli_record_sink_open(const cli_output *json, const cli_output *csv,
                                      const xconv_run_info *info, bool with_cmp, int *rc)
{
    *rc = 0;
    cli_record_sink *s = calloc(1, sizeof *s);
    if (!s) {
        cli_error("no memory for the results files");
        *rc = CLI_FAILED;
        return NULL;
    }
    s->with_cmp = with_cmp;
    head_args args = {info, with_cmp};
    size_t len;
    if (json) {
        char *head = cli_render_text(json_head, &args, &len);
        *rc = head ? cli_stream_file_open(&s->json, json, head, xconv_json_closing(false))
                   : CLI_FAILED;
        s->has_json = *rc == 0;
        free(head);
    }
    if (csv && !*rc) {
        char *head = cli_render_text(csv_head, &args, &len);
        *rc = head ? cli_stream_file_open(&s->csv, csv, head, "") : CLI_FAILED;
        s->has_csv = *rc == 0;
        free(head);
    }
    if (*rc) {
        cli_record_sink_close(s);
        return NULL;
    }
    return s;
}

typedef struct record_args {
    const xconv_record *rec;
    bool first, with_cmp;
} record_args;

static void json_record(FILE *f, const void *ctx)
{
    const record_args *a = ctx;
    xconv_json_write_record(f, a->rec, a->first, a->with_cmp);
}

static void csv_record(FILE *f, const void *ctx)
{
    const record_args *a = ctx;
    xconv_csv_write_row(f, a->rec, a->with_cmp);
}

// Appends one record to one output through fn; returns 0 or 1.
static int append(cli_stream_file *out, void (*fn)(FILE *f, const void *ctx),
                  const record_args *args, const char *closing)
{
    if (out->failed)
        return CLI_FAILED;
    size_t len = 0;
    char *text = cli_render_text(fn, args, &len);
    int rc = text ? cli_stream_file_append(out, text, len, closing) : CLI_FAILED;
    free(text);
    return rc;
}

int cli_record_sink_add(cli_record_sink *s, const xconv_record *recs, int count)
{
    int rc = 0;
    for (int i = 0; i < count; i++) {
        record_args args = {&recs[i], !s->any, s->with_cmp};
        if (s->has_json && append(&s->json, json_record, &args, xconv_json_closing(true)))
            rc = CLI_FAILED;
        if (s->has_csv && append(&s->csv, csv_record, &args, ""))
            rc = CLI_FAILED;
        s->any = true;
    }
    return rc;
}

int cli_record_sink_close(cli_record_sink *s)
{
    if (!s)
        return 0;
    int rc = 0;
    if (s->has_json && cli_stream_file_close(&s->json))
        rc = CLI_FAILED;
    if (s->has_csv && cli_stream_file_close(&s->csv))
        rc = CLI_FAILED;
    free(s);
    return rc;
}
