// SPDX-License-Identifier: MIT
// What a command that makes records streams them through as each finishes: the table's rows (on
// stdout, or stderr when a results file takes stdout), --json and --csv (valid after every
// record), the progress line, and SIGINT/SIGTERM, which stop the run after the case that is
// running. validate, bench, bench --gemm and validate --parity use it.
#ifndef XCONV_CLI_STREAM_H
#define XCONV_CLI_STREAM_H

#include "options.h"
#include "progress.h"
#include "record_sink.h"

typedef struct cli_stream {
    xconv_record_list list;      // every record of the run, in order
    cli_record_sink *sink;       // --json and --csv
    cli_progress progress;
    xconv_table table;
    FILE *out;                   // the table's stream
    bool rows;                   // write the records table a row at a time
    int total;                   // cases the run means to make
} cli_stream;

// Checks --json and --csv before any work (exit 2 for a bad path, or both asking for standard
// output), filling *json and *csv for those given. Returns 0, or the exit code after a message.
int cli_records_outputs_check(const cli_options *opts, cli_output *json, cli_output *csv);

// Writes a finished list of records to --json and --csv (for a command that streams no rows:
// bench --fft). Returns 0, or the exit code after a message.
int cli_write_records(const xconv_record_list *list, const cli_options *opts);

// Opens the run's outputs after its inputs were checked and before any work: checks --json and
// --csv (exit 2 for a bad path, or both asking for standard output), writes them as valid empty
// runs, starts the progress line for `total` cases and installs the SIGINT/SIGTERM handlers.
// timings: the table has timing columns; with_cmp: the records carry parity's comparisons;
// rows: the records table is written a row at a time (else the command prints its own).
// Returns 0, or the exit code after a message.
int cli_stream_open(cli_stream *s, const cli_options *opts, int total, bool timings,
                    bool with_cmp, bool rows);

// Widens the table for a record to come (before the first row: the device, variant and shape
// names of the run, numbers left NaN).
void cli_stream_fit(cli_stream *s, const xconv_record *standin);

// Changes the number of cases the run expects by delta (a case found to be left out).
void cli_stream_expect(cli_stream *s, int delta);

// Says that a case starts (the progress line).
void cli_stream_begin(cli_stream *s, const char *shape, const char *variant, const char *device);

// Appends a cleared record to the run's list and returns it (valid until the next add), or NULL
// without memory.
xconv_record *cli_stream_add(cli_stream *s);

// The records from index `first` to the end of the list are finished: writes their table rows,
// appends them to the results files and counts them done. Returns 0, or 1 when a results file
// failed (the run goes on; the exit code says so).
int cli_stream_emit(cli_stream *s, int first);

// Returns true when the run must stop now (a signal asked for it).
bool cli_stream_stopping(const cli_stream *s);

// For runs of what the user named explicitly (--variant, --gemm M,N,K): returns 1 after a
// message when records were made and none of them ran (every one not applicable), else 0.
int cli_stream_require_run(const cli_stream *s);

// Finishes the run: the summary line ("N records: F failed or errored"), how many cases did
// not run when a signal stopped it, the results files closed, the list freed. rc is what the
// command had so far. Returns the exit code: 128 + the signal when one stopped the run, else rc,
// else 1 when a record failed, errored or a file failed, else 0.
int cli_stream_close(cli_stream *s, int rc);

#endif // XCONV_CLI_STREAM_H
