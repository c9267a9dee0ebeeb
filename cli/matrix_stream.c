// SPDX-License-Identifier: MIT
// Matrix records streamed to JSON and CSV through cli/output's stream files: each record is
// rendered in memory and appended with the JSON's closing text after it, so the files are whole
// and valid after every record, for a reader too.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "matrix_stream.h"

// Renders through fn (with ctx and n) into a new string; returns it (free it), or NULL after a
// message when memory ran out.
static char *render(void (*fn)(FILE *f, const void *ctx, int n), const void *ctx, int n,
                    size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) {
        cli_error("no memory for the matrix files");
        return NULL;
    }
    fn(f, ctx, n);
    bool ok = !ferror(f);
    ok &= fclose(f) == 0;
    if (!ok || !buf) {
        free(buf);
        cli_error("no memory for the matrix files");
        return NULL;
    }
    return buf;
}

static void json_head(FILE *f, const void *ctx, int n)
{
    (void)n;
    xconv_matrix_write_head(f, ctx);
}

// The JSON's closing after n records: complete when ctx is non-NULL.
static void json_tail(FILE *f, const void *ctx, int n)
{
    xconv_matrix_write_tail(f, n, ctx != NULL);
}

// A record after n others, with the separator before it.
static void json_record(FILE *f, const void *ctx, int n)
{
    fputs(n ? ",\n    " : "\n    ", f);
    xconv_matrix_write_record(f, ctx);
}

static void csv_header(FILE *f, const void *ctx, int n)
{
    (void)ctx, (void)n;
    xconv_matrix_write_csv_header(f);
}

static void csv_row(FILE *f, const void *ctx, int n)
{
    (void)n;
    xconv_matrix_write_csv_row(f, ctx);
}

// Appends text rendered by fn and the closing rendered by tail (NULL: none) to s. Returns 0 or
// CLI_FAILED after a message.
static int append(cli_stream_file *s, void (*fn)(FILE *, const void *, int), const void *ctx,
                  int n, const void *tail_ctx, int tail_n, bool json)
{
    size_t len = 0, tail_len = 0;
    char *text = fn ? render(fn, ctx, n, &len) : strdup("");
    char *tail = json ? render(json_tail, tail_ctx, tail_n, &tail_len) : strdup("");
    int rc = text && tail ? cli_stream_file_append(s, text, len, tail) : CLI_FAILED;
    if (rc)
        s->failed = true;
    free(text);
    free(tail);
    return rc;
}

int cli_matrix_stream_open(cli_matrix_stream *s, const char *json_path, const char *csv_path,
                           const xconv_run_file *head)
{
    memset(s, 0, sizeof *s);
    cli_output json, csv;
    int rc = json_path ? cli_output_check("--json", json_path, false, &json) : 0;
    if (!rc && csv_path)
        rc = cli_output_check("--csv", csv_path, false, &csv);
    size_t len;
    if (!rc && json_path) {
        char *text = render(json_head, head, 0, &len);
        char *tail = render(json_tail, NULL, 0, &len);
        rc = text && tail ? cli_stream_file_open(&s->json, &json, text, tail) : CLI_FAILED;
        s->has_json = rc == 0;
        free(text);
        free(tail);
    }
    if (!rc && csv_path) {
        char *text = render(csv_header, NULL, 0, &len);
        rc = text ? cli_stream_file_open(&s->csv, &csv, text, "") : CLI_FAILED;
        s->has_csv = rc == 0;
        free(text);
    }
    if (rc && s->has_json) {  // nothing is left: the JSON made before a failed CSV goes
        cli_stream_file_close(&s->json);
        unlink(s->json.out.path);
        s->has_json = false;
    }
    return rc;
}

int cli_matrix_stream_add(cli_matrix_stream *s, const xconv_matrix_record *m)
{
    if (s->failed)
        return CLI_FAILED;
    int rc = 0;
    if (s->has_json)
        rc = append(&s->json, json_record, m, s->count, NULL, s->count + 1, true);
    if (!rc && s->has_csv)
        rc = append(&s->csv, csv_row, m, s->count, NULL, 0, false);
    s->failed = rc != 0;
    s->count += rc == 0;
    return rc;
}

int cli_matrix_stream_close(cli_matrix_stream *s, bool complete)
{
    int rc = s->failed ? CLI_FAILED : 0;
    if (s->has_json && !rc && complete)
        rc = append(&s->json, NULL, NULL, 0, s, s->count, true);
    if (s->has_json && cli_stream_file_close(&s->json))
        rc = CLI_FAILED;
    if (s->has_csv && cli_stream_file_close(&s->csv))
        rc = CLI_FAILED;
    s->has_json = s->has_csv = false;
    return rc;
}
