// SPDX-License-Identifier: MIT
// Records streamed as they finish: table rows, results files, the progress line and stopping
// on a signal.
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "stream.h"

int cli_records_outputs_check(const cli_options *opts, cli_output *json, cli_output *csv)
{
    int rc = opts->json ? cli_output_check("--json", opts->json, true, json) : 0;
    if (!rc && opts->csv)
        rc = cli_output_check("--csv", opts->csv, true, csv);
    if (rc)
        return rc;
    if (opts->json && opts->csv && json->to_stdout && csv->to_stdout) {
        cli_error("--json - and --csv -: only one of them can write to standard output");
        return CLI_USAGE;
    }
    return 0;
}

int cli_write_records(const xconv_record_list *list, const cli_options *opts)
{
    if (!opts->json && !opts->csv)
        return 0;
    cli_output json, csv;
    int rc = cli_records_outputs_check(opts, &json, &csv);
    if (rc)
        return rc;
    cli_record_sink *sink = cli_record_sink_open(opts->json ? &json : NULL,
                                                 opts->csv ? &csv : NULL, &list->info, false, &rc);
    if (!sink)
        return rc;
    rc = cli_record_sink_add(sink, list->recs, list->count);
    return cli_record_sink_close(sink) || rc ? CLI_FAILED : 0;
}

int cli_stream_open(cli_stream *s, const cli_options *opts, int total, bool timings,
                    bool with_cmp, bool rows)
{
    memset(s, 0, sizeof *s);
    s->total = total;
    s->rows = rows;
    cli_output json, csv;
    int rc = cli_records_outputs_check(opts, &json, &csv);
    if (rc)
        return rc;
    bool stdout_taken = (opts->json && json.to_stdout) || (opts->csv && csv.to_stdout);
    s->out = stdout_taken ? stderr : stdout;
    xconv_record_list_init(&s->list, opts->argc, opts->argv);
    if (opts->json || opts->csv) {
        s->sink = cli_record_sink_open(opts->json ? &json : NULL, opts->csv ? &csv : NULL,
                                       &s->list.info, with_cmp, &rc);
        if (!s->sink) {
            xconv_record_list_free(&s->list);
            return rc;
        }
    }
    xconv_table_init(&s->table, timings);
    s->table.all = opts->all || opts->verbose;
    xconv_table_fit_numbers(&s->table);
    cli_progress_start(&s->progress, total, isatty(STDERR_FILENO));
    cli_interrupt_install();
    return 0;
}

void cli_stream_fit(cli_stream *s, const xconv_record *standin)
{
    xconv_table_fit(&s->table, standin);
}

void cli_stream_expect(cli_stream *s, int delta)
{
    s->total += delta;
    s->progress.total += delta;
}

void cli_stream_begin(cli_stream *s, const char *shape, const char *variant, const char *device)
{
    cli_progress_begin(&s->progress, shape, variant, device);
}

xconv_record *cli_stream_add(cli_stream *s)
{
    return xconv_record_list_add(&s->list);
}

int cli_stream_emit(cli_stream *s, int first)
{
    int count = s->list.count - first;
    if (count <= 0)
        return 0;
    const xconv_record *recs = &s->list.recs[first];
    if (s->rows) {
        cli_progress_clear(&s->progress);
        for (int i = 0; i < count; i++)
            xconv_table_write_record(s->out, &s->table, &recs[i]);
    }
    int rc = s->sink ? cli_record_sink_add(s->sink, recs, count) : 0;
    cli_progress_done(&s->progress, recs, count);
    return rc;
}

bool cli_stream_stopping(const cli_stream *s)
{
    (void)s;
    return cli_interrupted() != 0;
}

int cli_stream_require_run(const cli_stream *s)
{
    for (int i = 0; i < s->list.count; i++)
        if (s->list.recs[i].outcome != XCONV_OUTCOME_NOT_APPLICABLE)
            return 0;
    if (s->list.count == 0 || cli_interrupted())
        return 0;
    cli_error("nothing that was asked for could run here: %s%s", s->list.recs[0].note,
              s->list.count > 1 ? " (and the other records are not applicable either)" : "");
    return CLI_FAILED;
}

int cli_stream_close(cli_stream *s, int rc)
{
    cli_progress_clear(&s->progress);
    if (s->rows)
        xconv_table_finish(s->out, &s->table);
    int failed = xconv_record_list_failed(&s->list);
    fprintf(s->out, "%d record%s: %d failed or errored\n", s->list.count,
            cli_plural(s->list.count), failed);
    fflush(s->out);
    int sig = cli_interrupted();
    if (sig) {
        int left = s->total - s->progress.done;
        cli_error("stopped by %s: %d of %d cases did not run%s", sig == SIGINT ? "SIGINT"
                                                                              : "SIGTERM",
                  left > 0 ? left : 0, s->total,
                  s->sink ? "; the results files hold the records that finished" : "");
    }
    if (cli_record_sink_close(s->sink) && !rc)
        rc = CLI_FAILED;
    xconv_record_list_free(&s->list);
    if (sig)
        return cli_interrupt_exit_code(sig);
    return rc ? rc : failed ? CLI_FAILED : CLI_OK;
}
