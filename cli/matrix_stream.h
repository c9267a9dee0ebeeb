// SPDX-License-Identifier: MIT
// Matrix records written to --json and --csv as they finish: after every record each file is
// whole and valid (the JSON's "complete" says false until the run ends), so a run that is
// interrupted or killed keeps what finished.
#ifndef XCONV_CLI_MATRIX_STREAM_H
#define XCONV_CLI_MATRIX_STREAM_H

#include <stdbool.h>

#include "report/matrix.h"
#include "output.h"

typedef struct cli_matrix_stream {
    cli_stream_file json, csv;  // the files asked for
    bool has_json, has_csv;     // which are open
    int count;                  // records written
    bool failed;                // a write failed (said once); later ones are skipped
} cli_matrix_stream;

// Checks the paths asked for (json_path, csv_path; NULL: none) as cli_output_check does, then
// creates the files: the JSON with run's head (devices, shapes) and no records, the CSV with
// its header. Returns 0, or CLI_USAGE / CLI_FAILED after printing why (nothing is left).
int cli_matrix_stream_open(cli_matrix_stream *s, const char *json_path, const char *csv_path,
                           const xconv_run_file *head);

// Appends m to both files, the JSON's closing text rewritten after it.
// Returns 0, or CLI_FAILED after printing why (once; the files keep what they had).
int cli_matrix_stream_add(cli_matrix_stream *s, const xconv_matrix_record *m);

// Ends the JSON with "complete": complete and closes both files. Returns 0, or CLI_FAILED after
// printing why.
int cli_matrix_stream_close(cli_matrix_stream *s, bool complete);

#endif // XCONV_CLI_MATRIX_STREAM_H
