// SPDX-License-Identifier: MIT
// `xconv validate --parity`: each variant on one GPU through OpenCL and CUDA with identical
// inputs: bitwise identical or not, the largest difference in ULPs, and the time ratio.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stream.h"

// Maps a float's bits onto a line where adjacent floats differ by 1.
static int64_t ordered_bits(float f)
{
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - (int64_t)i : (int64_t)i;
}

// Compares n outputs of a and b bit for bit into cmp.
static void compare_bits(const float *a, const float *b, int64_t n, xconv_comparison *cmp)
{
    cmp->compared = true;
    cmp->differing = 0;
    cmp->max_ulp = 0;
    cmp->worst_index = -1;
    for (int64_t i = 0; i < n; i++) {
        if (memcmp(&a[i], &b[i], sizeof(float)) == 0)
            continue;
        cmp->differing++;
        int64_t d = ordered_bits(a[i]) - ordered_bits(b[i]);
        uint64_t ulp = (uint64_t)(d < 0 ? -d : d);
        if (isnan(a[i]) || isnan(b[i]))
            ulp = UINT64_MAX;
        if (ulp > cmp->max_ulp || cmp->worst_index < 0) {
            cmp->max_ulp = ulp;
            cmp->worst_index = i;
        }
    }
}

// Fills each record's comparison with the other: what b's run was against a's.
static void link_pair(xconv_record *a, xconv_record *b)
{
    xconv_record *pair[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        xconv_record *r = pair[i], *other = pair[1 - i];
        r->cmp.present = true;
        snprintf(r->cmp.other, sizeof r->cmp.other, "%s", other->backend);
        r->cmp.other_ms = other->median_ms;
        r->cmp.ratio = r->median_ms > 0 && other->median_ms > 0 ? r->median_ms / other->median_ms
                                                                : NAN;
    }
}

// ---------------------------------------------------------------------------------------------
// Running

// Finds the OpenCL device whose name matches a CUDA device's; -1 when none does.
static int opencl_twin(const xconv_devices *list, const xconv_device_info *cuda)
{
    for (int i = 0; i < xconv_devices_count(list); i++) {
        const xconv_device_info *d = xconv_devices_info_at(list, i);
        if (d->backend == XCONV_BACKEND_OPENCL && d->is_gpu &&
            (strstr(d->name, cuda->name) || strstr(cuda->name, d->name)))
            return i;
    }
    return -1;
}

// Runs each variant on shape through both devices, streaming a pair of records each.
static void run_pair(xconv_device *ocl, xconv_device *cuda, const cli_shape *shape,
                     const xconv_variant *const *variants, int nvariants,
                     const xconv_case_options *hopts, cli_stream *out)
{
    xconv_error err = {0};
    char spec[256], label[320];
    xconv_shape_format(&shape->problem, spec, sizeof spec);
    const char *name = shape->name[0] ? shape->name : spec;
    xconv_device_label(xconv_device_get_info(cuda), label, sizeof label);
    xconv_case *a = xconv_case_create(ocl, &shape->problem, shape->name, hopts, &err);
    xconv_case *b = a ? xconv_case_create(cuda, &shape->problem, shape->name, hopts, &err) : NULL;
    if (!b) {
        cli_progress_clear(&out->progress);
        cli_print_error(name, &err);
        cli_stream_expect(out, -2 * nvariants);
        xconv_case_destroy(a);
        return;
    }
    int64_t n = xconv_problem_y_elems(&shape->problem);
    float *y_ocl = malloc((size_t)n * sizeof(float));
    for (int v = 0; y_ocl && v < nvariants && !cli_stream_stopping(out); v++) {
        cli_stream_begin(out, name, xconv_variant_get_info(variants[v])->name, label);
        int first = out->list.count;
        xconv_record *ro = cli_stream_add(out);
        xconv_record *rc = ro ? cli_stream_add(out) : NULL;
        if (!rc)
            break;
        ro = &out->list.recs[first];  // the list may have moved when it grew
        if (cli_case_run(a, variants[v], ro, &err) != XCONV_OK ||
            cli_case_run(b, variants[v], rc, &err) != XCONV_OK) {
            ro->outcome = XCONV_OUTCOME_ERROR;
            snprintf(ro->note, sizeof ro->note, "%.*s", (int)sizeof ro->note - 1, err.msg);
        }
        link_pair(ro, rc);
        bool ran = (ro->outcome == XCONV_OUTCOME_PASS || ro->outcome == XCONV_OUTCOME_FAIL) &&
                   (rc->outcome == XCONV_OUTCOME_PASS || rc->outcome == XCONV_OUTCOME_FAIL);
        if (ran) {
            memcpy(y_ocl, xconv_case_output(a), (size_t)n * sizeof(float));
            compare_bits(y_ocl, xconv_case_output(b), n, &ro->cmp);
            rc->cmp.compared = ro->cmp.compared;
            rc->cmp.differing = ro->cmp.differing;
            rc->cmp.max_ulp = ro->cmp.max_ulp;
            rc->cmp.worst_index = ro->cmp.worst_index;
        }
        cli_progress_clear(&out->progress);
        xconv_comparisons_write_pair(out->out, ro, rc);
        cli_stream_emit(out, first);
    }
    free(y_ocl);
    xconv_case_destroy(a);
    xconv_case_destroy(b);
}

int cmd_parity(const cli_options *opts)
{
    cli_shape *shapes = calloc(CLI_MAX_SHAPES, sizeof *shapes);
    xconv_devices *list = NULL;
    const xconv_variant *variants[CLI_MAX_LIST];
    int nshapes = 0, nvariants = 0;
    int rc = shapes ? cli_collect_shapes(opts, "small", shapes, &nshapes) : CLI_FAILED;
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
        list = xconv_devices_enumerate(XCONV_BACKENDS_ALL, NULL);
        xconv_error err = {0};
        for (int i = 0; i < opts->ndevices; i++) {
            int index = xconv_devices_select(list, opts->devices[i], &err);
            if (index < 0) {
                cli_print_error("--device", &err);
                rc = CLI_USAGE;
                break;
            }
            if (xconv_devices_info_at(list, index)->backend == XCONV_BACKEND_CUDA)
                cuda_index = index;
            else
                ocl_index = index;
        }
        for (int i = 0; !rc && cuda_index < 0 && i < xconv_devices_count(list); i++)
            if (xconv_devices_info_at(list, i)->backend == XCONV_BACKEND_CUDA)
                cuda_index = i;
        if (!rc && cuda_index < 0) {
            char reason[512];
            xconv_devices_backend_status(list, XCONV_BACKEND_CUDA, reason, sizeof reason);
            cli_error("--parity: no CUDA device (%s)", reason);
            rc = CLI_FAILED;
        }
        if (!rc && ocl_index < 0)
            ocl_index = opencl_twin(list, xconv_devices_info_at(list, cuda_index));
        if (!rc && ocl_index < 0) {
            cli_error("--parity: no OpenCL device named like %s (is NVIDIA's OpenCL ICD "
                      "registered? see docs/gpu_host.md)",
                      xconv_devices_info_at(list, cuda_index)->name);
            rc = CLI_FAILED;
        }
    }
    cli_stream out;
    if (!rc)
        rc = cli_stream_open(&out, opts, 2 * nshapes * nvariants, true, true, false);
    if (rc) {
        free(shapes);
        xconv_devices_free(list);
        return rc;
    }
    xconv_error err = {0};
    xconv_device *ocl = cli_device_open_info(xconv_devices_info_at(list, ocl_index), &err);
    xconv_device *cuda =
        ocl ? cli_device_open_info(xconv_devices_info_at(list, cuda_index), &err) : NULL;
    if (!cuda) {
        cli_print_error("device", &err);
        rc = CLI_FAILED;
    }
    xconv_case_options hopts;
    xconv_case_options_default(&hopts);
    hopts.seed = opts->seed;
    hopts.repeat = opts->repeat;
    hopts.warmup = opts->warmup;
    hopts.host_ref_max_gflop = opts->host_ref_gflop;
    cli_plan_options(&hopts.plan);
    if (!rc)
        xconv_comparisons_write_header(out.out);
    for (int s = 0; !rc && s < nshapes && !cli_stream_stopping(&out); s++)
        run_pair(ocl, cuda, &shapes[s], variants, nvariants, &hopts, &out);
    xconv_device_close(cuda);
    xconv_device_close(ocl);
    int failed = 0;
    for (int i = 0; i + 1 < out.list.count; i += 2)
        failed += out.list.recs[i].cmp.compared &&
                  !(xconv_comparison_passed(&out.list.recs[i]) &&
                    xconv_comparison_passed(&out.list.recs[i + 1]));
    if (!rc)
        fprintf(out.out, "%d parity rows: %d differ or failed\n", out.list.count / 2, failed);
    free(shapes);
    xconv_devices_free(list);
    rc = cli_stream_close(&out, rc);
    return rc ? rc : failed ? CLI_FAILED : CLI_OK;
}
