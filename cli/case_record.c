// SPDX-License-Identifier: MIT
// A measuring run's result (<xconv/measure.h>) as a record of the run's list.
#include "cli.h"

xconv_status cli_case_run(xconv_case *c, const xconv_variant *v, xconv_record *rec,
                          xconv_error *err)
{
    xconv_result res;
    xconv_status st = v ? xconv_case_run(c, v, &res, err) : xconv_case_run_auto(c, &res, err);
    xconv_record_clear(rec);
    xconv_record_from_result(rec, &res);
    return st;
}
