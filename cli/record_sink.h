// SPDX-License-Identifier: MIT
// Records into --json and --csv as they finish: each file is a valid JSON document or CSV table
// after every record (standard output, "-", gets the JSON's closing at the end), so a run that
// stops early, interrupted or failing, leaves what finished.
#ifndef XCONV_CLI_RECORD_SINK_H
#define XCONV_CLI_RECORD_SINK_H

#include "report/record.h"
#include "output.h"

typedef struct cli_record_sink cli_record_sink;

// Opens the outputs json and csv (either may be NULL: not asked for), checked before by
// cli_output_check, for the run described by info: each then holds a valid empty run. with_cmp:
// the records carry parity's comparison fields. Returns the sink, or NULL after a message
// (*rc gets the exit code: 1, or 2 when a path became unacceptable since it was checked).
cli_record_sink *cli_record_sink_open(const cli_output *json, const cli_output *csv,
                                      const xconv_run_info *info, bool with_cmp, int *rc);

// Appends count records to every output. Returns 0, or 1 after a message (an output that failed
// keeps what it held and takes no more).
int cli_record_sink_add(cli_record_sink *sink, const xconv_record *recs, int count);

// Finishes every output and frees the sink (NULL is ignored). Returns 0, or 1 when an output
// failed (now or before).
int cli_record_sink_close(cli_record_sink *sink);

#endif // XCONV_CLI_RECORD_SINK_H
