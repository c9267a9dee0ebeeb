// SPDX-License-Identifier: MIT
// The records a command collects (validate, bench, bench --gemm) and the files they go to.
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_records_init(cli_records *list, const cli_options *opts)
{
    memset(list, 0, sizeof *list);
    xconv_run_info_init(&list->info, opts->argc, opts->argv);
}

xconv_record *cli_records_add(cli_records *list)
{
    if (list->count == list->cap) {
        int cap = list->cap ? list->cap * 2 : 64;
        xconv_record *grown = realloc(list->recs, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        list->recs = grown;
        list->cap = cap;
    }
    xconv_record *r = &list->recs[list->count++];
    memset(r, 0, sizeof *r);
    return r;
}

int cli_records_failed(const cli_records *list)
{
    int failed = 0;
    for (int i = 0; i < list->count; i++)
        failed += list->recs[i].outcome == XCONV_OUTCOME_FAIL ||
                  list->recs[i].outcome == XCONV_OUTCOME_ERROR;
    return failed;
}

static int write_json(FILE *f, const void *ctx)
{
    const cli_records *list = ctx;
    return xconv_records_write_json(f, &list->info, list->recs, list->count);
}

static int write_csv(FILE *f, const void *ctx)
{
    const cli_records *list = ctx;
    return xconv_records_write_csv(f, list->recs, list->count);
}

int cli_records_write_files(const cli_records *list, const cli_options *opts)
{
    int rc = CLI_OK;
    if (opts->json && cli_write_file(opts->json, write_json, list))
        rc = CLI_FAILED;
    if (opts->csv && cli_write_file(opts->csv, write_csv, list))
        rc = CLI_FAILED;
    return rc;
}

void cli_records_free(cli_records *list)
{
    free(list->recs);
    list->recs = NULL;
    list->count = list->cap = 0;
}
