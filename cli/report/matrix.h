// SPDX-License-Identifier: MIT
// Results files as the report reads them: today's bench/validate JSON and the matrix schema
// (docs/matrix_schema.md): run info, devices with their peaks, weighted shapes, records.
#ifndef XCONV_MATRIX_H
#define XCONV_MATRIX_H

#include <stdio.h>

#include "record.h"

// The matrix schema this xconv writes and the newest it reads.
#define XCONV_MATRIX_SCHEMA_VERSION 1

// A device of a run, with the peaks its floors come from.
typedef struct xconv_matrix_device {
    char id[256];            // as the records' "device" ("opencl:0 NVIDIA H100 80GB HBM3")
    char name[256];
    char backend[16];
    char driver[128];
    char platform[128];
    int compute_units;       // 0 when unknown
    int clock_mhz;           // 0 when unknown
    double peak_gflops;      // fp32 FMA throughput, GFLOP/s; 0 when unknown
    double peak_gbps;        // device memory bandwidth (read+write copy), GB/s; 0 when unknown
    double peak_gbps_read;   // read-only bandwidth, GB/s; 0 when unknown
    double peak_mma_gflops[4];  // tensor cores per xconv_math (1..3), GFLOP/s; 0 when unknown
                                // (floors of reduced-math records; not in the matrix file)
    char peaks_source[64];   // "measured", "XCONV_PEAKS", "--peaks", ...; "" when unknown
} xconv_matrix_device;

// A shape of a run: its name, SPEC, weight in its network and the set it came from.
typedef struct xconv_matrix_shape {
    char name[XCONV_SHAPE_NAME_MAX];
    char shape[256];
    double weight;           // how often it occurs in its network (1 when not said)
    char set[64];            // suite or shape file ("standard", "resnet50.shapes"), may be ""
} xconv_matrix_shape;

// A record with what the matrix adds to bench's (its floor is rec.floor_ms and floor_share).
typedef struct xconv_matrix_record {
    xconv_record rec;
    int auto_pick;           // 1: `auto` picks this variant here, 0: it does not, -1: unknown
} xconv_matrix_record;

// One results file.
typedef struct xconv_run_file {
    int schema_version;      // 0: a bench/validate file from before the matrix schema
    int complete;            // "complete": 1 the run ended, 0 it was cut short, -1 not said
    xconv_run_info info;
    char host[128];          // the machine's name, "" when the file does not say
    xconv_matrix_device *devices;  // the "devices" block, or one per device the records name
    int ndevices;
    xconv_matrix_shape *shapes;    // the "shapes" block, or none
    int nshapes;
    xconv_matrix_record *recs;
    int count;
} xconv_run_file;

// Reads results JSON text (len bytes; origin names it in messages) into *out: a bench or
// validate file (schema 0) or a matrix file up to XCONV_MATRIX_SCHEMA_VERSION. Returns XCONV_OK,
// or XCONV_ERR_PARSE with "origin: byte N: where: what" for malformed JSON, a file of another
// kind (parity, devices), a newer schema, a missing or mistyped field, a string too long for its
// field, an unknown outcome or a record naming a device the block lacks. Unknown keys are
// ignored. *out is empty on failure.
xconv_status xconv_run_file_parse(const char *text, size_t len, const char *origin,
                                  xconv_run_file *out, xconv_error *err);

// Reads the file at path as xconv_run_file_parse does; XCONV_ERR_IO when it cannot be read.
xconv_status xconv_run_file_load(const char *path, xconv_run_file *out, xconv_error *err);

// Frees what a parsed or loaded file holds and empties it.
void xconv_run_file_free(xconv_run_file *run);

// Returns the device of run whose id is id, or NULL.
const xconv_matrix_device *xconv_run_file_device(const xconv_run_file *run, const char *id);

// Writes run as a matrix JSON file (schema XCONV_MATRIX_SCHEMA_VERSION, docs/matrix_schema.md),
// "complete": true. Returns 0, or -1 when writing failed (errno set).
int xconv_matrix_write_json(FILE *f, const xconv_run_file *run);

// The pieces of the file, for writing records as they finish (cli/matrix_stream.c): the head
// (run info, devices, shapes, up to the records' opening bracket; run's records are not
// written), one record object, and the tail after count records (the closing bracket and
// "complete", whether the run finished). Errors show in ferror(f).
void xconv_matrix_write_head(FILE *f, const xconv_run_file *run);
void xconv_matrix_write_record(FILE *f, const xconv_matrix_record *m);
void xconv_matrix_write_tail(FILE *f, int count, bool complete);

// The CSV form: a header row, then one row per record with bench's columns (the record's keys
// in the JSON's order) and floor_ms, floor_share and auto_pick. Errors show in ferror(f).
void xconv_matrix_write_csv_header(FILE *f);
void xconv_matrix_write_csv_row(FILE *f, const xconv_matrix_record *m);

// Writes the matrix's terminal summary of run: per device, a table of variants x shapes with
// each cell's median ms, the fastest marked '*', auto's pick '+' and the share of the floor,
// cut into blocks of shapes that fit `width` columns. Returns 0, or -1 when writing failed.
int xconv_matrix_write_table(FILE *f, const xconv_run_file *run, int width);

// Writes, per network (the shapes of set sets[k]: a shape file's layers) and device of run, the
// sum over its layers of weight x median ms with each layer's fastest variant, with the single
// variant fastest over the network, and with auto's picks; a network whose layers did not all
// pass says how many did. Returns 0, or -1 when writing failed (errno set).
int xconv_matrix_write_networks(FILE *f, const xconv_run_file *run, const char *const *sets,
                                int nsets);

#endif // XCONV_MATRIX_H
