// SPDX-License-Identifier: MIT
// The CLI's one convention for what it says on stderr: "xconv COMMAND: message".
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *command_name;  // the command running, set once by main

void cli_set_command(const char *name)
{
    command_name = name;
}

// Writes "xconv COMMAND: " (or "xconv: " before a command is known) to stderr.
static void prefix(void)
{
    if (command_name)
        fprintf(stderr, "xconv %s: ", command_name);
    else
        fputs("xconv: ", stderr);
}

void cli_error(const char *fmt, ...)
{
    prefix();
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_print_error(const char *context, const xconv_error *err)
{
    // A context the message names already (a variant's name in its own refusal) is not said
    // twice.
    if (context && *context && !strstr(err->msg, context))
        cli_error("%s: %s", context, err->msg);
    else
        cli_error("%s", err->msg);
}

const char *cli_plural(long long n)
{
    return n == 1 ? "" : "s";
}
