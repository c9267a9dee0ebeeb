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

// What one piece of a file is rendered from: a record (or the run's head) and how many records
// come before it (or, for the JSON's closing, how many it closes and whether the run is complete).
typedef struct piece {
    const void *what;
    int count;
    bool complete;
} piece;

static void json_head(FILE *f, const void *ctx)
{
    xconv_matrix_write_head(f, ((const piece *)ctx)->what);
}

static void json_tail(FILE *f, const void *ctx)
{
    const piece *p = ctx;
    xconv_matrix_write_tail(f, p->count, p->complete);
}

// A record after count others, with the separator before it.
static void json_record(FILE *f, const void *ctx)
{
    const piece *p = ctx;
    fputs(p->count ? ",\n    " : "\n    ", f);
    xconv_matrix_write_record(f, p->what);
}

static void csv_header(FILE *f, const void *ctx)
{
    (void)ctx;
    xconv_matrix_write_csv_header(f);
}

static void csv_row(FILE *f, const void *ctx)
{
    xconv_matrix_write_csv_row(f, ((const piece *)ctx)->what);
}

// Renders through fn from p; says so and returns NULL when memory ran out.
static char *render(void (*fn)(FILE *f, const void *ctx), const piece *p, size_t *len)
{
    char *text = cli_render_text(fn, p, len);
    if (!text)
        cli_error("no memory for the matrix files");
    return text;
}

// Appends the text fn renders from p (fn NULL: none) to s, with the JSON's closing rendered from
// tail when tail is not NULL (else no closing). Returns 0 or CLI_FAILED after a message.
static int append(cli_stream_file *s, void (*fn)(FILE *, const void *), const piece *p,
                  const piece *tail)
{
    size_t len = 0, tail_len = 0;
    char *text = fn ? render(fn, p, &len) : strdup("");
    char *closing = tail ? render(json_tail, tail, &tail_len) : strdup("");
    int rc = text && closing ? cli_stream_file_append(s, text, len, closing) : CLI_FAILED;
    if (rc)
        s->failed = true;
    free(text);
    free(closing);
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
        piece start = {head, 0, false};
        char *text = render(json_head, &start, &len);
        char *tail = render(json_tail, &start, &len);
        rc = text && tail ? cli_stream_file_open(&s->json, &json, text, tail) : CLI_FAILED;
        s->has_json = rc == 0;
        free(text);
        free(tail);
    }
    if (!rc && csv_path) {
        char *text = render(csv_header, NULL, &len);
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
    piece record = {m, s->count, false}, tail = {NULL, s->count + 1, false};
    int rc = 0;
    if (s->has_json)
        rc = append(&s->json, json_record, &record, &tail);
    if (!rc && s->has_csv)
        rc = append(&s->csv, csv_row, &record, NULL);
    s->failed = rc != 0;
    s->count += rc == 0;
    return rc;
}

int cli_matrix_stream_close(cli_matrix_stream *s, bool complete)
{
    int rc = s->failed ? CLI_FAILED : 0;
    piece tail = {NULL, s->count, true};
    if (s->has_json && !rc && complete)
        rc = append(&s->json, NULL, NULL, &tail);
    if (s->has_json && cli_stream_file_close(&s->json))
        rc = CLI_FAILED;
    if (s->has_csv && cli_stream_file_close(&s->csv))
        rc = CLI_FAILED;
    s->has_json = s->has_csv = false;
    return rc;
}
