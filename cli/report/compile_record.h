// SPDX-License-Identifier: MIT
// Compile-check records: one per target x variant x shape x kernel step, what the vendor's
// compiler said of the kernel (`xconv compile`), and their JSON, CSV and text writers.
#ifndef XCONV_COMPILE_RECORD_H
#define XCONV_COMPILE_RECORD_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"

typedef enum xconv_compile_outcome {
    XCONV_COMPILE_OK,             // compiled, no register spilled
    XCONV_COMPILE_SPILLS,         // compiled, registers spilled to scratch memory
    XCONV_COMPILE_FAILED,         // the compiler refused the kernel (note: its first lines)
    XCONV_COMPILE_NOT_APPLICABLE, // the variant does not plan the shape on the target (note: why)
    XCONV_COMPILE_SKIPPED,        // the target's compiler is not installed (note: which)
} xconv_compile_outcome;

// What the compiler reports of one kernel's resources; -1 where it reports nothing (AMD: SGPRs,
// VGPRs, AGPRs, occupancy; Intel: GRFs, SIMD width; NVIDIA: registers).
typedef struct xconv_compile_counts {
    long registers;           // VGPRs (AMD), GRFs a thread (Intel), registers (NVIDIA)
    long sgprs, agprs;        // AMD only
    long spills;              // spilled registers (AMD: VGPR + SGPR spills; NVIDIA: bytes
                              // stored / 4; Intel: the compiler's "spilled around" count)
    long scratch_bytes;       // scratch a work-item (AMD, NVIDIA stack) or a thread (Intel)
    long lds_bytes;           // local memory the kernel declares, as compiled
    long occupancy;           // AMD: waves a SIMD; -1 elsewhere
    long simd;                // Intel: SIMD width compiled; AMD: wavefront; NVIDIA: 32
} xconv_compile_counts;

// The counts in the files' order: X(field, its column's width in the text table, 0 for none).
// The field's name is its JSON key and CSV column.
#define XCONV_COMPILE_COUNTS(X)                                                              \
    X(registers, 5) X(sgprs, 5) X(agprs, 0) X(spills, 6) X(scratch_bytes, 8) X(lds_bytes, 6)  \
    X(occupancy, 4) X(simd, 4)

// Returns counts with every field -1 (nothing reported).
xconv_compile_counts xconv_compile_counts_unknown(void);

// One compiled kernel and what its compiler said of it.
typedef struct xconv_compile_record {
    char target[16];          // the profile ("gfx90a")
    char compiler[16];        // "amdgcn", "ocloc", "nvrtc"
    char variant[48];
    bool is_auto;             // auto picks this variant for the shape on the target
    char shape_name[32];
    char shape[256];
    int step;                 // the plan's step index
    char kernel[64];          // the entry point ("direct_regblock")
    char source[48];          // the kernel file stem
    xconv_compile_outcome outcome;
    xconv_compile_counts counts;
    double seconds;           // the compiler's wall time (shared by deduplicated kernels)
    bool deduplicated;        // the same text and options were compiled for an earlier row
    char note[512];
} xconv_compile_record;

// Returns "ok", "spills", "failed", "n/a" or "skipped".
const char *xconv_compile_outcome_name(xconv_compile_outcome o);

// Writes recs as JSON (the run header, "kind": "compile", then "records"), as CSV with a
// header row, or as a text table. Each returns 0 or -1 on a write error.
int xconv_compile_records_write_json(FILE *f, const xconv_run_info *info,
                                     const xconv_compile_record *recs, int count);
int xconv_compile_records_write_csv(FILE *f, const xconv_compile_record *recs, int count);
int xconv_compile_records_write_table(FILE *f, const xconv_compile_record *recs, int count);



// A compile-check results file read back (`"kind": "compile"`).
typedef struct xconv_compile_file {
    xconv_run_info info;
    xconv_compile_record *recs;
    int count;
} xconv_compile_file;

// Reads path into *out when it is a compile-check file (*is_compile true), else leaves *out
// empty (*is_compile false: another reader says what it is). Returns XCONV_OK, XCONV_ERR_IO
// when it cannot be read, or XCONV_ERR_PARSE naming a record whose fields are wrong.
xconv_status xconv_compile_file_load(const char *path, xconv_compile_file *out,
                                     bool *is_compile, xconv_error *err);

// Frees what xconv_compile_file_load read (a zeroed file is fine).
void xconv_compile_file_free(xconv_compile_file *file);
#endif // XCONV_COMPILE_RECORD_H
