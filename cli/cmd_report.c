// SPDX-License-Identifier: MIT
// `xconv report`: results files (bench, validate, matrix) into one HTML page or SVG pictures,
// optionally compared with a base run.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

// ---------------------------------------------------------------------------------------------
// Inputs

// The results files read: runs (bench, validate, matrix) and behaviour files, each with its path.
typedef struct loaded {
    xconv_run_file *runs;
    const char **run_files;
    int nruns;
    xconv_behaviour_run *behaviour;
    const char **behaviour_files;
    int nbehaviour;
    xconv_compile_file *vendors;
    const char **vendor_files;
    int nvendors;
} loaded;

// Loads the results files into in (behaviour files apart) and the base; returns 0 or CLI_USAGE
// after a message.
static int load_runs(const cli_options *opts, loaded *in, xconv_run_file *base)
{
    xconv_error err = {0};
    for (int i = 0; i < opts->nfiles; i++) {
        bool is_behaviour = false;
        if (xconv_behaviour_load(opts->files[i], &in->behaviour[in->nbehaviour], &is_behaviour,
                                 &err) != XCONV_OK) {
            cli_print_error("report", &err);
            return CLI_USAGE;
        }
        if (is_behaviour) {
            in->behaviour_files[in->nbehaviour++] = opts->files[i];
            continue;
        }
        bool is_compile = false;
        if (xconv_compile_file_load(opts->files[i], &in->vendors[in->nvendors], &is_compile,
                                    &err) != XCONV_OK) {
            cli_print_error("report", &err);
            return CLI_USAGE;
        }
        if (is_compile) {
            in->vendor_files[in->nvendors++] = opts->files[i];
            continue;
        }
        if (xconv_run_file_load(opts->files[i], &in->runs[in->nruns], &err) != XCONV_OK) {
            cli_print_error("report", &err);
            return CLI_USAGE;
        }
        if (in->runs[in->nruns].complete == 0)
            fprintf(stderr, "xconv report: %s: the run was cut short (\"complete\": false); its "
                            "%d records are the cells that finished\n", opts->files[i],
                    in->runs[in->nruns].count);
        in->run_files[in->nruns++] = opts->files[i];
    }
    if (opts->compare && in->nruns != 1) {
        fprintf(stderr, "xconv report: --compare BASE.json compares a bench, validate or matrix "
                        "file, not a behaviour or compile file\n");
        return CLI_USAGE;
    }
    if (opts->compare && xconv_run_file_load(opts->compare, base, &err) != XCONV_OK) {
        cli_print_error("--compare", &err);
        return CLI_USAGE;
    }
    return 0;
}

// Frees what load_runs read.
static void loaded_free(loaded *in)
{
    for (int i = 0; in->runs && i < in->nruns; i++)
        xconv_run_file_free(&in->runs[i]);
    for (int i = 0; in->behaviour && i < in->nbehaviour; i++)
        xconv_behaviour_run_free(&in->behaviour[i]);
    for (int i = 0; in->vendors && i < in->nvendors; i++)
        xconv_compile_file_free(&in->vendors[i]);
    free(in->vendors);
    free(in->vendor_files);
    free(in->runs);
    free(in->run_files);
    free(in->behaviour);
    free(in->behaviour_files);
}

// Reads --peaks into peaks; returns 0 or CLI_USAGE after a message.
static int read_peaks(const cli_options *opts, xconv_report_peaks *peaks)
{
    xconv_error err = {0};
    for (int i = 0; i < opts->npeaks; i++)
        if (xconv_report_peaks_parse(opts->peaks[i], &peaks[i], &err) != XCONV_OK) {
            cli_print_error("--peaks", &err);
            return CLI_USAGE;
        }
    return 0;
}

// Reads the --shapes files into weighted shapes (*weights, *count; the set is the file's
// name); returns 0 or CLI_USAGE after a message.
static int read_weights(const cli_options *opts, xconv_matrix_shape **weights, int *count)
{
    xconv_error err = {0};
    *weights = NULL;
    *count = 0;
    for (int i = 0; i < opts->nshape_files; i++) {
        xconv_shape_entry *entries = NULL;
        int n = 0;
        if (xconv_shapes_read(opts->shape_files[i], &entries, &n, &err) != XCONV_OK) {
            cli_print_error("--shapes", &err);
            return CLI_USAGE;
        }
        xconv_matrix_shape *grown = realloc(*weights, (size_t)(*count + n) * sizeof *grown);
        if (!grown) {
            xconv_shapes_free(entries);
            cli_error("no memory for the shapes");
            return CLI_FAILED;
        }
        *weights = grown;
        const char *slash = strrchr(opts->shape_files[i], '/');
        for (int k = 0; k < n; k++) {
            xconv_matrix_shape *w = &grown[(*count)++];
            memset(w, 0, sizeof *w);
            snprintf(w->name, sizeof w->name, "%s", entries[k].name);
            xconv_shape_format(&entries[k].problem, w->shape, sizeof w->shape);
            w->weight = entries[k].weight;
            snprintf(w->set, sizeof w->set, "%s", slash ? slash + 1 : opts->shape_files[i]);
        }
        xconv_shapes_free(entries);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Outputs

// cli_output_write's writer of the page; returns 0 or -1.
static int write_html(FILE *f, const void *ctx)
{
    return xconv_report_write_html(f, ctx);
}

typedef struct svg_job {
    const xconv_report *report;
    int index;
} svg_job;

// cli_output_write's writer of one picture; returns 0 or -1.
static int write_svg(FILE *f, const void *ctx)
{
    const svg_job *job = ctx;
    return xconv_report_write_svg(f, job->report, job->index);
}

// Checks --svg DIR before any work: a directory the user may write, or one that can be made.
// Returns 0, or CLI_USAGE after a message.
static int check_svg_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            cli_error("--svg %s is not a directory", dir);
            return CLI_USAGE;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            cli_error("--svg %s: cannot make files there: %s", dir, strerror(errno));
            return CLI_USAGE;
        }
        return 0;
    }
    char parent[4096];
    const char *slash = strrchr(dir, '/');
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - dir) : 1,
             slash ? (slash == dir ? "/" : dir) : ".");
    if (access(parent, W_OK | X_OK) != 0) {
        cli_error("--svg %s: cannot make it in %s: %s", dir, parent, strerror(errno));
        return CLI_USAGE;
    }
    return 0;
}

// Writes every picture into dir (made when missing); returns 0 or an exit code after a message.
static int write_svgs(const xconv_report *report, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot make %s: %s", dir, strerror(errno));
        return CLI_FAILED;
    }
    for (int i = 0; i < xconv_report_svg_count(report); i++) {
        char name[160], path[4096];
        xconv_report_svg_name(report, i, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        svg_job job = {report, i};
        cli_output out;
        int rc = cli_output_check("--svg", path, false, &out);
        if (!rc)
            rc = cli_output_write(&out, write_svg, &job);
        if (rc)
            return rc;
        printf("wrote %s\n", out.path);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// The command

// Checks the command line's shape; returns 0 or CLI_USAGE after a message.
static int check_usage(const cli_options *opts)
{
    if (opts->nfiles == 0) {
        cli_error("give the results files (RUN.json ...), see xconv report --help");
        return CLI_USAGE;
    }
    if (!opts->output && !opts->svg_dir) {
        cli_error("give -o REPORT.html, --svg DIR or both");
        return CLI_USAGE;
    }
    if (opts->compare && opts->nfiles != 1) {
        cli_error("--compare BASE.json takes one results file to compare, got %d", opts->nfiles);
        return CLI_USAGE;
    }
    return 0;
}

int cmd_report(const cli_options *opts)
{
    cli_output page;
    int rc = check_usage(opts);
    if (!rc && opts->output)
        rc = cli_output_check("-o", opts->output, false, &page);
    if (!rc && opts->svg_dir)
        rc = check_svg_dir(opts->svg_dir);
    if (rc)
        return rc;
    size_t n = (size_t)opts->nfiles;
    loaded in = {.runs = calloc(n, sizeof *in.runs), .run_files = calloc(n, sizeof(char *)),
                 .behaviour = calloc(n, sizeof *in.behaviour),
                 .behaviour_files = calloc(n, sizeof(char *)),
                 .vendors = calloc(n, sizeof *in.vendors),
                 .vendor_files = calloc(n, sizeof(char *))};
    xconv_run_file base = {0};
    // Peaks for devices whose file has none: --peaks, then XCONV_PEAKS, then the peaks file.
    static xconv_report_peaks peaks[2 * CLI_MAX_LIST];
    static cli_peaks_source measured;
    int npeaks = opts->npeaks;
    xconv_matrix_shape *weights = NULL;
    int nweights = 0;
    rc = in.runs && in.run_files && in.behaviour && in.behaviour_files && in.vendors &&
                 in.vendor_files
             ? load_runs(opts, &in, &base) : CLI_FAILED;
    if (!rc)
        rc = read_peaks(opts, peaks);
    if (!rc && !(rc = cli_peaks_open(opts, &measured)))
        for (int i = 0; i < measured.nenv; i++)
            peaks[npeaks++] = measured.env[i];
    if (!rc)
        rc = read_weights(opts, &weights, &nweights);
    xconv_report *report = NULL;
    if (!rc) {
        xconv_error err = {0};
        xconv_report_opts ropts = {.peaks = peaks, .npeaks = npeaks, .measured = &measured.file,
                                   .weights = weights, .nweights = nweights,
                                   .margin = opts->margin / 100,
                                   .behaviour = in.behaviour,
                                   .behaviour_files = in.behaviour_files,
                                   .nbehaviour = in.nbehaviour,
                                   .vendors = in.vendors,
                                   .vendor_files = in.vendor_files,
                                   .nvendors = in.nvendors};
        report = xconv_report_build(in.runs, in.run_files, in.nruns,
                                    opts->compare ? &base : NULL, opts->compare, &ropts, &err);
        if (!report) {
            cli_print_error("report", &err);
            rc = err.status == XCONV_ERR_OUT_OF_MEMORY ? CLI_FAILED : CLI_USAGE;
        }
    }
    if (report) {
        xconv_report_write_text(stdout, report);
        if (opts->output && !(rc = cli_output_write(&page, write_html, report)))
            printf("wrote %s\n", page.path);
        if (!rc && opts->svg_dir)
            rc = write_svgs(report, opts->svg_dir);
        if (!rc && report->regressions)
            rc = CLI_FAILED;
    }
    xconv_report_free(report);
    loaded_free(&in);
    xconv_run_file_free(&base);
    cli_peaks_close(&measured);
    free(weights);
    return rc;
}
