// SPDX-License-Identifier: MIT
// The report: results files arranged per device as variants x shapes, with floors, winners,
// network totals and comparisons, written as one self-contained HTML page or SVG pictures.
#ifndef XCONV_REPORT_H
#define XCONV_REPORT_H

#include <stdio.h>

#include "behaviour.h"
#include "compile_record.h"
#include "matrix.h"
#include "peaks_file.h"

// ---------------------------------------------------------------------------------------------
// Options

// Peaks for devices whose file has none: "SEL=GFLOPS,GBPS" (SEL a case-insensitive substring
// of the device's id or name) or "GFLOPS,GBPS" (every device without peaks).
typedef struct xconv_report_peaks {
    char match[128];          // "" matches every device
    double gflops, gbps;
    char source[32];          // what the page says they came from; "" says "--peaks"
} xconv_report_peaks;

typedef struct xconv_report_opts {
    const xconv_report_peaks *peaks;  // applied in order, the first match wins
    int npeaks;
    const xconv_peaks_file *measured;  // after those: the peaks file's entry of the device's
                                       // identity (name, backend, driver); NULL: none
    const xconv_matrix_shape *weights;  // shapes with weights and sets (--shapes files) for the
    int nweights;                       // network totals, beside the files' own "shapes"
    double margin;            // compare: the fraction beyond noise (0.05: 5%)
    const xconv_behaviour_run *behaviour;  // behaviour files (docs/behaviour.md), a section
    const char *const *behaviour_files;    // each, named by these paths
    int nbehaviour;
    const xconv_compile_file *vendors;     // compile-check files (xconv compile), a section
    const char *const *vendor_files;       // each, named by these paths
    int nvendors;
} xconv_report_opts;

// Parses "SEL=GFLOPS,GBPS" or "GFLOPS,GBPS" into *out; returns XCONV_OK or XCONV_ERR_PARSE.
xconv_status xconv_report_peaks_parse(const char *text, xconv_report_peaks *out,
                                      xconv_error *err);

// ---------------------------------------------------------------------------------------------
// The model (built once; the writers only read it)

typedef struct report_shape {
    char name[XCONV_SHAPE_NAME_MAX];
    char spec[256];
    double flops, bytes;      // 0 when the spec is not a convolution (GEMM records)
} report_shape;

typedef struct report_variant {
    char name[48];
    char family[16];
    bool peer;                // a vendor library inside (families peer and reference)
    bool is_auto;             // "auto": the library's choice, the run of another variant
} report_variant;

// Compare verdicts of a cell against the base run.
enum { VERDICT_NONE, VERDICT_SAME, VERDICT_FASTER, VERDICT_SLOWER, VERDICT_BROKE,
       VERDICT_FIXED };

typedef struct report_cell {
    const xconv_matrix_record *m;     // NULL: not in the run
    double floor_ms;                  // NAN when unknown
    double share;                     // floor_ms / median, NAN when unknown
    double rel;                       // median / the row's best passing median, NAN
    const xconv_matrix_record *base;  // compare: the base's record, NULL when none
    double ratio;                     // compare: median / base median, NAN
    int verdict;                      // compare: VERDICT_*
} report_cell;

// A device of one results file.
typedef struct report_source {
    const xconv_run_file *run;
    const char *file;
    const xconv_matrix_device *dev;
} report_source;

// A device: every results file's records of one device identity (name, backend, driver).
typedef struct report_device {
    const xconv_run_file *run;        // the first file that has it
    const char *file;                 // that file's name
    int nfiles;                       // the files it has records in
    const xconv_matrix_device *dev;
    char label[400];                  // "NVIDIA H100 80GB HBM3 · cuda · node-07"
    char slug[96];                    // "d1-nvidia-h100-80gb-hbm3-cuda", for ids and file names
    double peak_gflops, peak_gbps;    // 0 when unknown
    char peaks_source[64];
    report_variant *variants;
    int nvariants;
    int *shapes;                      // indices into the report's shapes, in run order
    int nshapes;
    report_cell *cells;               // [shape * nvariants + variant]
    int *winner;                      // per shape: the fastest passing variant, or -1
    bool has_floor;                   // some cell has a floor
    int regressions, improvements, compared;
} report_device;

// A network (a shape set with weights) and its time on each device.
typedef struct report_network {
    char name[64];
    int nlayers;                      // shapes in the set
    double layers;                    // sum of weights
    double *best_ms;                  // per device: sum of weight x best passing time; NAN
    int *covered;                     // per device: layers with a passing time
    int *ran;                         // per device: layers it ran (passing or not)
    char (*single)[48];               // per device: the fastest variant that passes every layer
    double *single_ms;                // its weighted time, NAN when none does
} report_network;

typedef struct xconv_report {
    const xconv_run_file *runs;
    const char *const *files;
    int nruns;
    const xconv_run_file *base;       // compare mode: the base run, else NULL
    const char *base_file;
    double margin;
    report_shape *shapes;
    int nshapes;
    report_device *devices;
    int ndevices;
    report_network *networks;
    int nnetworks;
    int regressions, improvements, compared;
    const xconv_behaviour_run *behaviour;  // from the options
    const char *const *behaviour_files;
    int nbehaviour;
    const xconv_compile_file *vendors;     // from the options
    const char *const *vendor_files;
    int nvendors;
} xconv_report;

// Builds the report of runs (files names them) and, when base is not NULL, their comparison
// with base, with the behaviour files of opts. Returns the report (free with
// xconv_report_free), or NULL with XCONV_ERR_INVALID when no run holds a record and no behaviour
// file is given, or XCONV_ERR_OUT_OF_MEMORY.
xconv_report *xconv_report_build(const xconv_run_file *runs, const char *const *files, int nruns,
                                 const xconv_run_file *base, const char *base_file,
                                 const xconv_report_opts *opts, xconv_error *err);

void xconv_report_free(xconv_report *report);

// ---------------------------------------------------------------------------------------------
// Writers (cli/report/report_html.c, report_heatmap.c, report_roofline.c, report_text.c). Each
// returns 0, or -1 when writing failed (errno set).

// The whole page: per device the heatmap, the roofline and the winners' table; across devices
// the best variant of each shape; network totals; in compare mode the ratios and regressions.
int xconv_report_write_html(FILE *f, const xconv_report *report);

// The pictures alone: how many there are, each one's file name ("d1-...-heatmap.svg") and
// content as a standalone SVG document.
int xconv_report_svg_count(const xconv_report *report);
void xconv_report_svg_name(const xconv_report *report, int index, char *buf, size_t len);
int xconv_report_write_svg(FILE *f, const xconv_report *report, int index);

// A terminal summary: per device the winners, and in compare mode every flagged cell.
int xconv_report_write_text(FILE *f, const xconv_report *report);

// The behaviour files' parts of the page and of the terminal summary (cli/report/report_behaviour.c):
// header lines, navigation links, one section per file, one summary line per file.
void report_behaviour_header(FILE *f, const xconv_report *r);
void report_behaviour_nav(FILE *f, const xconv_report *r);
void report_behaviour_sections(FILE *f, const xconv_report *r);
void report_behaviour_text(FILE *f, const xconv_report *r);

// The compile-check files' parts (cli/report/report_vendors.c): navigation links, one variant x
// target section per file, one table per file in the terminal summary.
void report_vendors_nav(FILE *f, const xconv_report *r);
void report_vendors_sections(FILE *f, const xconv_report *r);
void report_vendors_text(FILE *f, const xconv_report *r);

// ---------------------------------------------------------------------------------------------
// Pieces the writers share (cli/report/report_svg.c)

// Writes s with &, <, >, " and ' escaped for XML text and attributes, control characters
// dropped and bytes that are not UTF-8 replaced by U+FFFD.
void report_xml(FILE *f, const char *s);

// Writes one picture; standalone adds the XML declaration. Heatmaps and rooflines of device d;
// compare maps in compare mode.
void report_heatmap_svg(FILE *f, const xconv_report *r, const report_device *d, bool standalone);
void report_roofline_svg(FILE *f, const xconv_report *r, const report_device *d,
                         bool standalone);
void report_compare_svg(FILE *f, const xconv_report *r, const report_device *d, bool standalone);

// An RGB colour.
typedef struct report_rgb {
    unsigned char r, g, b;
} report_rgb;

// Sequential colour for t in [0, 1] (dark purple to yellow, perceptually even).
report_rgb report_color_seq(double t);
// Diverging colour for t in [-1, 1] (blue faster, white same, red slower).
report_rgb report_color_div(double t);
// Writes into buf the kernel an "auto" record ran, from its note ("auto -> NAME (why): ..."), or
// "" when the note does not say; returns buf.
const char *report_auto_kernel(const xconv_record *rec, char *buf, size_t len);

// Variant v's colour on device d: its family's hue (direct blue, gemm green, winograd orange,
// fft purple, the vendors' red, references grey), a darker or lighter shade a variant within it.
report_rgb report_color_variant(const report_device *d, int v);
// Returns true when dark text reads better than white on c.
bool report_color_light(report_rgb c);

// Heat of a cell in [0, 1] (1 best): its share of the floor on a log scale from 0.1% to 100%
// when the device has floors, else its time relative to the row's best from 32x to 1x; NAN when
// the cell has no time.
double report_cell_heat(const report_device *d, const report_cell *c);

// Formats milliseconds with 3 significant digits ("0.326", "12.4", "1,234") into buf.
const char *report_ms(double ms, char *buf, size_t len);
// Formats a rate as "51.2 T", "890 G", "12.5 G" (GFLOP/s or GB/s input) into buf.
const char *report_rate(double g, char *buf, size_t len);
// Formats a share as "41%", "3.2%", "0.05%" into buf.
const char *report_pct(double share, char *buf, size_t len);

// The cell of device d at (shape row s, variant v).
static inline report_cell *report_at(const report_device *d, int s, int v)
{
    return &d->cells[s * d->nvariants + v];
}

#endif // XCONV_REPORT_H
