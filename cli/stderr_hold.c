// SPDX-License-Identifier: MIT
// What a vendor library (or the driver compiling its kernels) writes on stderr while it runs,
// held in a temporary file and said afterwards with the case it came from.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

bool cli_stderr_hold_begin(cli_stderr_hold *h)
{
    h->saved = -1;
    h->file = NULL;
    fflush(stderr);
    h->file = tmpfile();
    if (!h->file)
        return false;
    h->saved = dup(STDERR_FILENO);
    if (h->saved < 0 || dup2(fileno(h->file), STDERR_FILENO) < 0) {
        if (h->saved >= 0)
            close(h->saved);
        fclose(h->file);
        h->saved = -1;
        h->file = NULL;
        return false;
    }
    return true;
}

void cli_stderr_hold_end(cli_stderr_hold *h, char *text, size_t len)
{
    text[0] = '\0';
    if (!h->file)
        return;
    fflush(stderr);
    dup2(h->saved, STDERR_FILENO);
    close(h->saved);
    rewind(h->file);
    size_t n = fread(text, 1, len - 1, h->file);
    text[n] = '\0';
    fclose(h->file);
    h->file = NULL;
}

void cli_stderr_say(const char *text, const char *context)
{
    for (const char *line = text; *line;) {
        int n = (int)strcspn(line, "\n");
        if (n > 0)
            cli_error("%s: %.*s", context, n, line);
        line += n + (line[n] == '\n');
    }
}
