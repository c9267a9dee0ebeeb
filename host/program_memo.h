// SPDX-License-Identifier: MIT
// Which built program serves a (kernel source, plan defines) pair on one open device, so that a
// launch finds its program by comparing a few dozen defines instead of hashing the kernel text
// (internal header).
//
// The backends cache programs by their full text and options; looking a program up that way
// hashed and compared about 25 KB of text on every launch, tens of microseconds of host time
// that fell inside the timed region while the device waited. The memo holds borrowed pointers:
// a backend keeps every program it built until its context closes, and the memo is freed with
// the device.
#ifndef XCONV_PROGRAM_MEMO_H
#define XCONV_PROGRAM_MEMO_H

#include "plan.h"

// Returns the program remembered for embedded kernel source `source` built with exactly these
// defines (same names, values and order), or NULL. A hit moves the entry to the front.
xconv_program *xconv_program_memo_find(xconv_program_memo **memo, const char *source,
                                       const xconv_define *defines, int ndefines);

// Remembers prog for (source, defines). Returns XCONV_ERR_OUT_OF_MEMORY when the entry cannot
// be allocated (the launch can still go on: the memo is only a shortcut).
xconv_status xconv_program_memo_add(xconv_program_memo **memo, const char *source,
                                    const xconv_define *defines, int ndefines,
                                    xconv_program *prog, xconv_error *err);

// Frees every entry (not the programs, which the backend owns); NULL is ignored.
void xconv_program_memo_free(xconv_program_memo *memo);

#endif // XCONV_PROGRAM_MEMO_H
