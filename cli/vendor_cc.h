// SPDX-License-Identifier: MIT
// The vendors' offline compilers as child processes: AMD's clang for amdgcn, Intel's ocloc and
// NVIDIA's NVRTC (through the ptxas report), and what each says of a kernel's resources.
#ifndef XCONV_CLI_VENDOR_CC_H
#define XCONV_CLI_VENDOR_CC_H

#include <stdbool.h>
#include <sys/types.h>

#include "report/compile_record.h"

// One compilation: a kernel text and its options for one target, compiled once however many
// records share it.
typedef struct vendor_job {
    const xconv_target *target;
    char *text;                 // the compiler's input (malloc'd)
    char options[4096];         // defines and fixed options
    char kernel[64];            // the entry point whose resources are read
    char dir[512];              // the job's folder of files
    pid_t pid;                  // while it runs
    bool launched;              // started (or failed to start): run_jobs leaves it alone
    double started, seconds;    // wall clock
    int status;                 // the child's exit status (-1: did not run)
    // What the compiler said (filled by vendor_job_read; -1 where it said nothing)
    xconv_compile_outcome outcome;
    xconv_compile_counts counts;
    char note[512];
} vendor_job;

// Returns true when the compiler of target t is installed, else false with the reason in why.
bool vendor_cc_available(const xconv_target *t, char *why, size_t len);

// Writes the job's input into job->dir (which must exist) and starts its compiler as a child
// process; returns 0, or -1 with job->note saying why (the job then failed).
int vendor_job_start(vendor_job *job);

// Starts a child process that compiles kernel step `step` of plan (a CUDA plan, which the child
// has as the parent had it when forked) through NVRTC with ptxas's report into job->dir's log;
// returns 0, or -1 with job->note saying why.
int vendor_job_start_nvrtc(vendor_job *job, const xconv_plan *plan, int step);

// Reads what the finished job's compiler wrote (its exit status in job->status) into the job.
void vendor_job_read(vendor_job *job);

#endif // XCONV_CLI_VENDOR_CC_H
