// SPDX-License-Identifier: MIT
// The device's memo of built programs by (kernel source name, plan defines): a list, most recently
// used first.
#include <stdlib.h>
#include <string.h>

#include "program_memo.h"

#define SOURCE_NAME_MAX 64  // kernel file stems are short ("direct_regblock")

struct xconv_program_memo {
    struct xconv_program_memo *next;
    xconv_program *prog;
    char source[SOURCE_NAME_MAX];
    int ndefines;
    xconv_define defines[];  // ndefines of them
};

static bool same_defines(const xconv_define *a, const xconv_define *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].value != b[i].value || strcmp(a[i].name, b[i].name) != 0)
            return false;
    return true;
}

xconv_program *xconv_program_memo_find(xconv_program_memo **memo, const char *source,
                                       const xconv_define *defines, int ndefines)
{
    for (xconv_program_memo **link = memo; *link; link = &(*link)->next) {
        xconv_program_memo *e = *link;
        if (e->ndefines != ndefines || strcmp(e->source, source) != 0 ||
            !same_defines(e->defines, defines, ndefines))
            continue;
        *link = e->next;  // to the front: a bench times one plan many times in a row
        e->next = *memo;
        *memo = e;
        return e->prog;
    }
    return NULL;
}

xconv_status xconv_program_memo_add(xconv_program_memo **memo, const char *source,
                                    const xconv_define *defines, int ndefines,
                                    xconv_program *prog, xconv_error *err)
{
    if (ndefines < 0 || ndefines > XCONV_MAX_DEFINES || strlen(source) >= SOURCE_NAME_MAX)
        return xconv_error_set(err, XCONV_ERR_INVALID, "program memo: source '%s' with %d defines",
                               source, ndefines);
    xconv_program_memo *e = malloc(sizeof *e + (size_t)ndefines * sizeof e->defines[0]);
    if (!e)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the program memo");
    e->prog = prog;
    strcpy(e->source, source);
    e->ndefines = ndefines;
    if (ndefines)
        memcpy(e->defines, defines, (size_t)ndefines * sizeof defines[0]);
    e->next = *memo;
    *memo = e;
    return XCONV_OK;
}

void xconv_program_memo_free(xconv_program_memo *memo)
{
    while (memo) {
        xconv_program_memo *next = memo->next;
        free(memo);
        memo = next;
    }
}
