// SPDX-License-Identifier: MIT
// SIGINT and SIGTERM during long runs: the first one asks the run to stop after the case that
// is running (so what finished is written as valid files); a second one ends the process at once.
#ifndef XCONV_CLI_INTERRUPT_H
#define XCONV_CLI_INTERRUPT_H

// Installs the handlers: the first SIGINT or SIGTERM is noted (cli_interrupted) with a line on
// stderr, and the signal's default action is restored for the next one.
void cli_interrupt_install(void);

// Returns the signal that asked the run to stop, or 0.
int cli_interrupted(void);

// Returns the exit code of a run stopped by signal sig: 128 + sig (130 for SIGINT, 143 for
// SIGTERM).
int cli_interrupt_exit_code(int sig);

#endif // XCONV_CLI_INTERRUPT_H
