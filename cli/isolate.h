// SPDX-License-Identifier: MIT
// Fault isolation by process: when a device is lost for good (xconv_device_lost), a command that
// makes records runs that device's remaining cases in new processes of itself, each receiving
// the cases from a given one on and sending back its records through a pipe; a process that
// dies costs the case it was running. Also the test-only faults of XCONV_TEST_FAULT.
#ifndef XCONV_CLI_ISOLATE_H
#define XCONV_CLI_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>

#include <xconv/internal/test_fault.h>  // internal: the faults XCONV_TEST_FAULT injects

// What a command does with what its worker processes send: every callback gets the case's index
// in the run's order (each case makes one record).
typedef struct cli_isolate_ops {
    void *user;
    size_t record_bytes;   // the size of one record as the command sends it
    // A worker starts case `index` (for the progress line).
    void (*begin)(void *user, int index);
    // A worker finished case `index` with record rec (record_bytes bytes).
    void (*record)(void *user, int index, const void *rec);
    // The worker ended while running case `index` (or before starting it): an error record for
    // it saying `why`.
    void (*died)(void *user, int index, const char *why);
} cli_isolate_ops;

// Runs cases [first, end) of device `device` (the command's index among the devices it runs) in
// new processes of this program with the same arguments, one after another: each runs cases from
// the first it is given until they are done or its device is lost for good, and the next one
// starts after the last case that finished or after the case a process died in. Stops early when
// a signal asked the run to stop. Returns 0, or CLI_FAILED after a message when no process could
// be started (the cases left get error records).
int cli_isolate_run(char **argv, int device, int first, int end, const cli_isolate_ops *ops);

// What a worker process is told to do (the parent sets XCONV_WORKER; nobody else does).
typedef struct cli_worker {
    bool active;           // this process is a worker
    int fd;                // where its records go
    int device;            // the command's index of the device it runs
    int first;             // the first case it runs (the run's order)
} cli_worker;

// Fills *w from the environment (w->active false when this process is not a worker). Returns 0,
// or CLI_USAGE after a message when XCONV_WORKER is malformed.
int cli_worker_init(cli_worker *w);

// A worker says that case `index` starts. Returns 0, or -1 when the parent is gone.
int cli_worker_begin(const cli_worker *w, int index);

// A worker sends the record of case `index` (bytes long). Returns 0, or -1 when the parent is
// gone.
int cli_worker_record(const cli_worker *w, int index, const void *rec, size_t bytes);

// The test-only faults XCONV_TEST_FAULT asks for ("CASE:KIND[,CASE:KIND...]", CASE the index of a
// case in the run's order, KIND lose, kernel or abort): returns the xconv_test_fault for case
// `index`, CLI_TEST_ABORT when the process running it must abort, or 0.
enum { CLI_TEST_ABORT = 100 };
int cli_test_fault(int index);

// Checks XCONV_TEST_FAULT's syntax; returns 0 or CLI_USAGE after a message.
int cli_test_fault_check(void);

#endif // XCONV_CLI_ISOLATE_H
