// SPDX-License-Identifier: MIT
// The CLI's side of the cache: its folder from the environment, --find's policy as the cache's
// flags, and the library's warnings printed.
#include <stdlib.h>
#include <string.h>

#include "cli.h"

// The --find values every command that plans takes; run also takes the find modes.
static const char *const policies[] = {"db", "trust", "off", NULL};

int cli_find_policy(const cli_options *opts, bool allow_modes, unsigned *flags)
{
    const char *policy = opts->find_policy ? opts->find_policy : "db";
    *flags = 0;
    if (!strcmp(policy, "trust"))
        *flags = XCONV_CACHE_TRUST_STALE;
    else if (!strcmp(policy, "off"))
        *flags = XCONV_CACHE_NO_FIND_DB;
    else if (strcmp(policy, "db") != 0 &&
             !(allow_modes && (!strcmp(policy, "normal") || !strcmp(policy, "exhaustive")))) {
        fprintf(stderr, "xconv %s: --find takes ", opts->command);
        for (int i = 0; policies[i]; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", policies[i]);
        fprintf(stderr, "%s, not '%s'\n", allow_modes ? ", normal or exhaustive" : "", policy);
        return CLI_USAGE;
    }
    return 0;
}

bool cli_cache_folder(char *buf, size_t len)
{
    return xconv_cache_default_dir(getenv("XCONV_CACHE_DIR"), getenv("XDG_CACHE_HOME"),
                                   getenv("HOME"), buf, len);
}

xconv_cache *cli_cache_open(const cli_options *opts, unsigned flags)
{
    char dir[4096];
    if (!cli_cache_folder(dir, sizeof dir))
        return NULL;
    xconv_error err = {0};
    xconv_cache *cache = xconv_cache_open(dir, flags, &err);
    // A folder the user named is expected to work: its failure is always said (once).
    if (!cache && (opts->verbose || getenv("XCONV_CACHE_DIR")))
        fprintf(stderr, "xconv: warning: no cache (%s): kernels are compiled every run and "
                        "auto uses its rules\n", err.msg);
    cli_cache_print_warnings(cache);  // what opening found, before any work
    return cache;
}

void cli_cache_print_warnings(xconv_cache *cache)
{
    char text[4096];
    if (!cache || xconv_cache_take_warnings(cache, text, sizeof text) == 0)
        return;
    for (const char *line = text; *line;) {
        int n = (int)strcspn(line, "\n");
        fprintf(stderr, "xconv: warning: %.*s\n", n, line);
        line += n + (line[n] == '\n');
    }
}

void cli_cache_close(xconv_cache *cache)
{
    cli_cache_print_warnings(cache);
    xconv_cache_close(cache);
}
