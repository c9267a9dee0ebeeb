// SPDX-License-Identifier: MIT
// `xconv validate --parity`: each variant on one GPU through OpenCL and CUDA with identical
// inputs: bitwise identical or not, the largest difference in ULPs, and the time ratio.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/harness.h"
#include "cli.h"

typedef struct parity_row {
    char device[256];
    char variant[48];
    char shape_name[32];
    char shape[256];
    xconv_record opencl, cuda;  // each backend's validation and timing
    bool compared;              // both produced an output
    int64_t differing;          // elements whose bits differ
    uint64_t max_ulp;           // largest distance in units in the last place
    int64_t worst_index;
    double ratio;               // OpenCL median time / CUDA median time
} parity_row;

typedef struct parity_list {
    parity_row *rows;
    int count, cap;
    xconv_run_info info;
} parity_list;

// Maps a float's bits onto a line where adjacent floats differ by 1.
static int64_t ordered_bits(float f)
{
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - (int64_t)i : (int64_t)i;
}

static void compare_bits(const float *a, const float *b, int64_t n, parity_row *row)
{
    row->differing = 0;
    row->max_ulp = 0;
    row->worst_index = -1;
    for (int64_t i = 0; i < n; i++) {
        if (memcmp(&a[i], &b[i], sizeof(float)) == 0)
            continue;
        row->differing++;
        int64_t d = ordered_bits(a[i]) - ordered_bits(b[i]);
        uint64_t ulp = (uint64_t)(d < 0 ? -d : d);
        if (isnan(a[i]) || isnan(b[i]))
            ulp = UINT64_MAX;
        if (ulp > row->max_ulp || row->worst_index < 0) {
            row->max_ulp = ulp;
            row->worst_index = i;
        }
    }
}

static parity_row *row_add(parity_list *list)
{
    if (list->count == list->cap) {
        int cap = list->cap ? 2 * list->cap : 32;
        parity_row *grown = realloc(list->rows, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        list->rows = grown;
        list->cap = cap;
    }
    parity_row *row = &list->rows[list->count++];
    memset(row, 0, sizeof *row);
    return row;
}

// True when the row meets the goal: both backends correct and bitwise identical.
static bool row_passes(const parity_row *row)
{
    return row->compared && row->differing == 0 && row->opencl.outcome == XCONV_OUTCOME_PASS &&
           row->cuda.outcome == XCONV_OUTCOME_PASS;
}

// ---------------------------------------------------------------------------------------------
// Writers

static void print_table(const parity_list *list)
{
    printf("%-26s %-22s %-10s %10s %12s %12s %8s\n", "variant", "shape", "identical", "max ulp",
           "opencl ms", "cuda ms", "ratio");
    for (int i = 0; i < list->count; i++) {
        const parity_row *r = &list->rows[i];
        const char *shape = r->shape_name[0] ? r->shape_name : r->shape;
        if (!r->compared) {
            printf("%-26s %-22.22s %-10s  %s | %s\n", r->variant, shape, "n/a",
                   r->opencl.note[0] ? r->opencl.note : xconv_outcome_name(r->opencl.outcome),
                   r->cuda.note[0] ? r->cuda.note : xconv_outcome_name(r->cuda.outcome));
            continue;
        }
        printf("%-26s %-22.22s %-10s %10llu %12.4f %12.4f %8.3f%s\n", r->variant, shape,
               r->differing ? "NO" : "yes", (unsigned long long)r->max_ulp, r->opencl.median_ms,
               r->cuda.median_ms, r->ratio,
               row_passes(r) ? "" : "  (backend check failed or outputs differ)");
    }
}

static int write_json(FILE *f, const void *ctx)
{
    const parity_list *list = ctx;
    fprintf(f, "{\n  \"tool\": \"xconv\", \"version\": \"%s\", \"commit\": \"%s\", "
               "\"date\": \"%s\", \"kind\": \"parity\",\n  \"records\": [\n",
            list->info.tool_version, list->info.commit, list->info.date);
    for (int i = 0; i < list->count; i++) {
        const parity_row *r = &list->rows[i];
        const struct { const char *key, *value; } strings[] = {
            {"device", r->device}, {"variant", r->variant}, {"shape_name", r->shape_name},
            {"shape", r->shape}, {"driver", r->cuda.driver},
        };
        fputs("    {", f);
        for (size_t j = 0; j < sizeof strings / sizeof strings[0]; j++) {
            fprintf(f, "\"%s\": ", strings[j].key);
            xconv_json_write_string(f, strings[j].value, strlen(strings[j].value));
            fputs(", ", f);
        }
        fprintf(f,
                "\"compared\": %s, \"bitwise_identical\": %s, \"differing_elements\": %lld, "
                "\"max_ulp\": %llu, \"opencl_median_ms\": %.6f, \"cuda_median_ms\": %.6f, "
                "\"time_ratio\": %.4f, \"opencl_outcome\": \"%s\", \"cuda_outcome\": \"%s\", "
                "\"opencl_max_norm_err\": %.3g, \"cuda_max_norm_err\": %.3g, \"pass\": %s}%s\n",
                r->compared ? "true" : "false",
                r->compared && !r->differing ? "true" : "false", (long long)r->differing,
                (unsigned long long)r->max_ulp, r->opencl.median_ms, r->cuda.median_ms,
                r->compared ? r->ratio : 0.0, xconv_outcome_name(r->opencl.outcome),
                xconv_outcome_name(r->cuda.outcome),
                isfinite(r->opencl.max_norm_err) ? r->opencl.max_norm_err : -1.0,
                isfinite(r->cuda.max_norm_err) ? r->cuda.max_norm_err : -1.0,
                row_passes(r) ? "true" : "false", i + 1 < list->count ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return ferror(f) ? -1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Running

// Finds the OpenCL device whose name matches a CUDA device's; -1 when none does.
static int opencl_twin(const xconv_device_list *list, const xconv_device_info *cuda)
{
    for (int i = 0; i < list->count; i++) {
        const xconv_device_info *d = &list->devices[i];
        if (d->backend == XCONV_BACKEND_OPENCL && d->is_gpu &&
            (strstr(d->name, cuda->name) || strstr(cuda->name, d->name)))
            return i;
    }
    return -1;
}

static void run_pair(xconv_device *ocl, xconv_device *cuda, const cli_shape *shape,
                     const xconv_variant *const *variants, int nvariants,
                     const xconv_harness_opts *hopts, parity_list *list)
{
    static xconv_error err;
    xconv_case *a = xconv_case_create(ocl, &shape->problem, shape->name, hopts, &err);
    xconv_case *b = a ? xconv_case_create(cuda, &shape->problem, shape->name, hopts, &err) : NULL;
    if (!b) {
        cli_print_error(shape->name[0] ? shape->name : "shape", &err);
        xconv_case_destroy(a);
        return;
    }
    int64_t n = xconv_problem_y_elems(&shape->problem);
    float *y_ocl = malloc((size_t)n * sizeof(float));
    for (int v = 0; y_ocl && v < nvariants; v++) {
        parity_row *row = row_add(list);
        if (!row)
            break;
        snprintf(row->variant, sizeof row->variant, "%s",
                 xconv_variant_get_info(variants[v])->name);
        snprintf(row->shape_name, sizeof row->shape_name, "%s", shape->name);
        xconv_shape_format(&shape->problem, row->shape, sizeof row->shape);
        xconv_device_label(xconv_device_get_info(cuda), row->device, sizeof row->device);
        if (xconv_case_run(a, variants[v], &row->opencl, &err) != XCONV_OK ||
            xconv_case_run(b, variants[v], &row->cuda, &err) != XCONV_OK) {
            snprintf(row->opencl.note, sizeof row->opencl.note, "%.*s",
                     (int)sizeof row->opencl.note - 1, err.msg);
            continue;
        }
        bool ran = row->opencl.outcome == XCONV_OUTCOME_PASS ||
                   row->opencl.outcome == XCONV_OUTCOME_FAIL;
        ran = ran && (row->cuda.outcome == XCONV_OUTCOME_PASS ||
                      row->cuda.outcome == XCONV_OUTCOME_FAIL);
        if (!ran)
            continue;
        memcpy(y_ocl, xconv_case_output(a), (size_t)n * sizeof(float));
        compare_bits(y_ocl, xconv_case_output(b), n, row);
        row->compared = true;
        row->ratio = row->cuda.median_ms > 0 ? row->opencl.median_ms / row->cuda.median_ms : 0;
        fprintf(stderr, "[%d] %s %s: %s, max %llu ulp, ratio %.3f\n", list->count,
                row->variant, shape->name[0] ? shape->name : row->shape,
                row->differing ? "DIFFERENT" : "identical", (unsigned long long)row->max_ulp,
                row->ratio);
    }
    free(y_ocl);
    xconv_case_destroy(a);
    xconv_case_destroy(b);
}

int cmd_parity(const cli_options *opts)
{
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    xconv_device_list *list = calloc(1, sizeof *list);
    const xconv_variant *variants[CLI_MAX_LIST];
    int nshapes = 0, nvariants = 0;
    int rc = shapes && list ? cli_collect_shapes(opts, "small", shapes, &nshapes) : CLI_FAILED;
    if (!rc)
        rc = cli_collect_variants(opts, false, variants, &nvariants);
    // None asked for: every variant that runs on both backends.
    unsigned both =
        XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL) | XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA);
    bool all = nvariants == 0;
    for (int i = 0; !rc && all && i < xconv_variant_count() && nvariants < CLI_MAX_LIST; i++)
        if ((xconv_variant_get_info(xconv_variant_at(i))->backends & both) == both)
            variants[nvariants++] = xconv_variant_at(i);
    int cuda_index = -1, ocl_index = -1;
    if (!rc) {
        xconv_devices_list(list);
        static xconv_error err;
        for (int i = 0; i < opts->ndevices; i++) {
            int index = xconv_device_select(list, opts->devices[i], &err);
            if (index < 0) {
                cli_print_error("--device", &err);
                rc = CLI_USAGE;
                break;
            }
            if (list->devices[index].backend == XCONV_BACKEND_CUDA)
                cuda_index = index;
            else
                ocl_index = index;
        }
        for (int i = 0; !rc && cuda_index < 0 && i < list->count; i++)
            if (list->devices[i].backend == XCONV_BACKEND_CUDA)
                cuda_index = i;
        if (!rc && cuda_index < 0) {
            fprintf(stderr, "xconv validate --parity: no CUDA device (%s)\n",
                    list->backend_reason[XCONV_BACKEND_CUDA]);
            rc = CLI_FAILED;
        }
        if (!rc && ocl_index < 0)
            ocl_index = opencl_twin(list, &list->devices[cuda_index]);
        if (!rc && ocl_index < 0) {
            fprintf(stderr, "xconv validate --parity: no OpenCL device named like %s (is "
                            "NVIDIA's OpenCL ICD registered? see docs/gpu_host.md)\n",
                    list->devices[cuda_index].name);
            rc = CLI_FAILED;
        }
    }
    parity_list rows = {0};
    if (!rc) {
        static xconv_error err;
        xconv_device *ocl = xconv_device_open_info(&list->devices[ocl_index], &err);
        xconv_device *cuda = ocl ? xconv_device_open_info(&list->devices[cuda_index], &err) : NULL;
        if (!cuda) {
            cli_print_error("device", &err);
            rc = CLI_FAILED;
        }
        xconv_harness_opts hopts;
        xconv_harness_opts_default(&hopts);
        hopts.seed = opts->seed;
        hopts.repeat = opts->repeat;
        hopts.warmup = opts->warmup;
        hopts.host_ref_max_gflop = opts->host_ref_gflop;
        cli_plan_options(&hopts.plan);
        xconv_run_info_init(&rows.info, opts->argc, opts->argv);
        for (int s = 0; !rc && s < nshapes; s++)
            run_pair(ocl, cuda, &shapes[s], variants, nvariants, &hopts, &rows);
        xconv_device_close(cuda);
        xconv_device_close(ocl);
    }
    int failed = 0;
    if (!rc) {
        print_table(&rows);
        for (int i = 0; i < rows.count; i++)
            failed += rows.rows[i].compared && !row_passes(&rows.rows[i]);
        printf("%d parity rows: %d differ or failed\n", rows.count, failed);
        if (opts->json && cli_write_file(opts->json, write_json, &rows))
            rc = CLI_FAILED;
    }
    free(rows.rows);
    free(shapes);
    free(list);
    return rc ? rc : failed ? CLI_FAILED : CLI_OK;
}
