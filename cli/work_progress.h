// SPDX-License-Identifier: MIT
// Progress of a long run whose steps differ in cost (xconv matrix): on a terminal one line
// redrawn in place ([done/total], a bar, the shape and variant running, the time left estimated
// from each step's work); otherwise one plain line per finished step.
#ifndef XCONV_CLI_WORK_PROGRESS_H
#define XCONV_CLI_WORK_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct cli_work_progress {
    FILE *f;                 // where it is drawn (stderr)
    bool tty;                // f is a terminal: redraw one line; else plain lines
    int width;               // the terminal's columns
    int total, done;         // steps
    double work_total;       // estimated cost of every step (any unit: FLOPs, say)
    double work_done;        // of the finished ones
    double start_ms;         // when it started (monotonic clock)
    bool drawn;              // a bar is on the terminal's last line
} cli_work_progress;

// Starts the progress of total steps costing work_total in all, drawn on f.
void cli_work_progress_start(cli_work_progress *p, FILE *f, int total, double work_total);

// Shows the step about to run (terminal only): "[12/96] ####---- 12% vgg3x3 direct_tiled 1m23s
// left".
void cli_work_progress_show(cli_work_progress *p, const char *shape, const char *variant);

// Counts a finished step of cost `work`. On a terminal it prints line above the bar when
// `keep` (a failure worth keeping on screen); otherwise it prints "[done/total] line, TIME
// left" for every step.
void cli_work_progress_done(cli_work_progress *p, double work, const char *line, bool keep);

// Writes the estimate of the time left into buf ("1m23s", "" before any step finished);
// returns buf.
const char *cli_work_progress_left(const cli_work_progress *p, char *buf, size_t len);

// Clears the bar from the terminal.
void cli_work_progress_end(cli_work_progress *p);

#endif // XCONV_CLI_WORK_PROGRESS_H
