// SPDX-License-Identifier: MIT
// The peaks file: each device's measured peaks under its identity (name, backend, driver), which
// `xconv peaks` keeps in the cache folder and every command that draws a floor reads
// (docs/peaks.md).
#ifndef XCONV_PEAKS_FILE_H
#define XCONV_PEAKS_FILE_H

#include <stdio.h>

#include <xconv/xconv.h>

// The peaks file's schema this xconv writes and the newest it reads.
#define XCONV_PEAKS_FILE_VERSION 1

// One device's peaks.
typedef struct xconv_peaks_entry {
    char name[256];          // the identity: what the device reports as its name,
    char backend[16];        // the backend ("opencl", "cuda")
    char driver[128];        // and its driver version
    char platform[128];      // for people: the OpenCL platform, or "CUDA"
    double fp32_gflops;      // fp32 FMA throughput, GFLOP/s
    double gbps;             // copy bandwidth (read + written), GB/s
    double gbps_read;        // read-only bandwidth, GB/s
    double mma_gflops[4];    // tensor cores per xconv_math (tf32, f16, bf16 at 1..3; keys
                             // tf32_gflops, f16_gflops, bf16_gflops), GFLOP/s; 0: not measured
    char date[40];           // when they were measured (ISO 8601 UTC)
    char commit[64];         // the xconv that measured them
} xconv_peaks_entry;

// A whole file: one entry per device identity.
typedef struct xconv_peaks_file {
    xconv_peaks_entry *entries;
    int count;
} xconv_peaks_file;

// Parses peaks-file text (len bytes; origin names it in messages) into *out. Returns XCONV_OK,
// or XCONV_ERR_PARSE with "origin: byte N: where: what" for malformed JSON, another kind of
// file, a newer schema, a missing or mistyped field, a string too long, a peak that is not a
// positive number or an identity given twice. *out is empty on failure.
xconv_status xconv_peaks_file_parse(const char *text, size_t len, const char *origin,
                                    xconv_peaks_file *out, xconv_error *err);

// Reads the peaks file at path as xconv_peaks_file_parse does; a file that does not exist reads
// as empty (XCONV_OK). XCONV_ERR_IO when it exists and cannot be read.
xconv_status xconv_peaks_file_load(const char *path, xconv_peaks_file *out, xconv_error *err);

// Returns the entry of the device identified by (name, backend, driver), or NULL.
const xconv_peaks_entry *xconv_peaks_file_find(const xconv_peaks_file *file, const char *name,
                                               const char *backend, const char *driver);

// Puts e into file, replacing the entry of the same identity; returns XCONV_OK or
// XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_peaks_file_put(xconv_peaks_file *file, const xconv_peaks_entry *e,
                                  xconv_error *err);

// Writes file as JSON (docs/peaks.md); returns 0, or -1 when writing failed (errno set).
int xconv_peaks_file_write(FILE *f, const xconv_peaks_file *file);

// Frees what file holds and empties it.
void xconv_peaks_file_free(xconv_peaks_file *file);

#endif // XCONV_PEAKS_FILE_H
