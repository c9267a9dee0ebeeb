// SPDX-License-Identifier: MIT
// The progress line of long runs on stderr: "[done/total]", what runs now (the shape's name, the
// variant, the device) and an estimate of the time left. On a terminal one line is redrawn with
// a bar; otherwise each finished case gets a plain line.
#ifndef XCONV_CLI_PROGRESS_H
#define XCONV_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "report/record.h"

typedef struct cli_progress {
    FILE *f;                 // stderr
    bool tty;                // redraw one line (a terminal), else plain lines
    int total, done;
    double start_ms;         // when the run started (host monotonic clock)
    double left_ms;          // the estimate of the time left (< 0: none yet)
    char now[160];           // what is running ("vgg3x3 direct_tiled on opencl:0")
    bool drawn;              // the line is on the screen (tty)
} cli_progress;

// Starts counting `total` cases on stderr; tty: draw a redrawn line (else plain lines).
void cli_progress_start(cli_progress *p, int total, bool tty);

// Says that a case starts: its shape (name, else SPEC), variant and device (its label; the line
// shows the part before the first space, "opencl:0").
void cli_progress_begin(cli_progress *p, const char *shape, const char *variant,
                        const char *device);

// Counts `count` cases done (their records finished); plain mode prints a line for each,
// naming its shape, variant, outcome and the time left.
void cli_progress_done(cli_progress *p, const xconv_record *recs, int count);

// Takes the line off the screen before other output (a terminal only; nothing otherwise).
void cli_progress_clear(cli_progress *p);

// Puts it back after other output.
void cli_progress_draw(cli_progress *p);

// Writes "1h02m", "3m05s" or "12s" for ms into buf.
void cli_progress_format_time(double ms, char *buf, size_t len);

#endif // XCONV_CLI_PROGRESS_H
