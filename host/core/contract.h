// SPDX-License-Identifier: MIT
// The argument checks public functions start with: the contract stated in xconv.h.
#ifndef XCONV_CONTRACT_H
#define XCONV_CONTRACT_H

#include <stdbool.h>

#include <xconv/xconv.h>

// Returns true, filling err with XCONV_ERR_INVALID and "fn: name is NULL", when is_null; else
// false (err untouched).
bool xconv_arg_null(xconv_error *err, const char *fn, const char *name, bool is_null);

// True (err filled, naming the argument) when argument `arg` of the calling function is NULL.
#define XCONV_NULL_ARG(err, arg) xconv_arg_null((err), __func__, #arg, (arg) == NULL)

// Clears err (when not NULL) to XCONV_OK and an empty message; returns XCONV_OK. A successful
// public call ends with it, so no message of a failed attempt inside it is left behind.
xconv_status xconv_error_clear(xconv_error *err);

#endif // XCONV_CONTRACT_H
