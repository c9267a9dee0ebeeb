// SPDX-License-Identifier: MIT
// Running a variant (or auto) on a case: plan, checked run, comparison, timing, and the result
// as a value; building a set of plans ahead.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xconv/internal/test_fault.h>

#include "core/contract.h"
#include "measure/case.h"
#include "measure/check.h"

// ---------------------------------------------------------------------------------------------
// Running a variant against the case

const char *xconv_outcome_name(xconv_outcome outcome)
{
    switch (outcome) {
    case XCONV_OUTCOME_PASS: return "pass";
    case XCONV_OUTCOME_FAIL: return "FAIL";
    case XCONV_OUTCOME_NOT_APPLICABLE: return "n/a";
    case XCONV_OUTCOME_ERROR: return "error";
    }
    return "unknown";
}

// Fills *res with a result that says nothing yet: zeros, worst index -1, fp32, 1 x 1 blocks,
// every measured value NaN.
static void result_clear(xconv_result *res)
{
    memset(res, 0, sizeof *res);
    res->worst_index = -1;
    snprintf(res->dtype, sizeof res->dtype, "f32");
    snprintf(res->math, sizeof res->math, "f32");
    res->max_norm_err = res->max_block_err = NAN;
    res->error_block_h = res->error_block_w = 1;
    res->median_ms = res->min_ms = res->max_ms = NAN;
    res->compile_ms = res->gflops = res->gbps = NAN;
}

// Starts c's result of variant v: what the case and the variant say before anything runs.
static void result_init(const xconv_case *c, const xconv_variant_info *v, xconv_result *rec)
{
    result_clear(rec);
    if (c->dev) {
        const xconv_device_info *info = xconv_device_get_info(c->dev);
        xconv_device_label(info, rec->device, sizeof rec->device);
        snprintf(rec->backend, sizeof rec->backend, "%s", xconv_backend_name(info->backend));
        snprintf(rec->driver, sizeof rec->driver, "%s", info->driver);
        snprintf(rec->libraries, sizeof rec->libraries, "%s", c->libraries);
    }
    if (v->backends == 0) {
        snprintf(rec->device, sizeof rec->device, "host");
        snprintf(rec->backend, sizeof rec->backend, "host");
        rec->driver[0] = rec->libraries[0] = '\0';
    }
    // An unfused plan of a problem with an epilogue is its own row: VARIANT+unfused.
    bool unfused =
        c->opts.plan.epilogue == XCONV_EPILOGUE_UNFUSED && xconv_problem_has_epilogue(&c->p);
    snprintf(rec->variant, sizeof rec->variant, "%s%s", v->name, unfused ? "+unfused" : "");
    snprintf(rec->family, sizeof rec->family, "%s", v->family);
    snprintf(rec->shape_name, sizeof rec->shape_name, "%s", c->shape_name);
    snprintf(rec->shape, sizeof rec->shape, "%s", c->spec);
    snprintf(rec->dtype, sizeof rec->dtype, "%s", xconv_dtype_name(c->p.dtype));
    snprintf(rec->math, sizeof rec->math, "%s", xconv_math_name(c->p.math));
    rec->seed = c->opts.seed;
    rec->threshold = xconv_threshold_for_variant(v) + xconv_threshold_storage(c->p.dtype) +
                     xconv_threshold_math(c->p.math);
}

static void result_outcome(xconv_result *rec, xconv_status st, const xconv_error *err)
{
    rec->outcome =
        st == XCONV_ERR_NOT_APPLICABLE ? XCONV_OUTCOME_NOT_APPLICABLE : XCONV_OUTCOME_ERROR;
    snprintf(rec->note, sizeof rec->note, "%.*s", (int)sizeof rec->note - 1, err->msg);
}

// Checks c->y against the reference and folds the result into rec.
static void result_check(xconv_case *c, xconv_result *rec)
{
    xconv_compare_result res, elem;
    measure_compare_output(c, &elem);
    if (isnan(rec->max_norm_err) || elem.max_norm_err > rec->max_norm_err)
        rec->max_norm_err = elem.max_norm_err;
    res = elem;
    xconv_error block_err = {0};
    if ((rec->error_block_h > 1 || rec->error_block_w > 1) &&
        measure_compare_output_blocked(c, rec->error_block_h, rec->error_block_w, &res,
                                       &block_err) != XCONV_OK)
        res = elem;  // without memory for the block scales, the stricter element check decides
    if (isnan(rec->max_block_err) || res.max_norm_err > rec->max_block_err) {
        rec->max_block_err = res.max_norm_err;
        rec->worst_index = res.worst_index;
    }
    bool pass = res.nonfinite == 0 && res.max_norm_err <= rec->threshold;
    if (pass && rec->outcome != XCONV_OUTCOME_FAIL) {
        rec->outcome = XCONV_OUTCOME_PASS;
        return;
    }
    rec->outcome = XCONV_OUTCOME_FAIL;
    char before[sizeof rec->note];  // what the run noted (a vendor's choice) goes after the error
    snprintf(before, sizeof before, "%s", rec->note);
    int64_t at[4];
    if (res.nonfinite) {
        xconv_index_split(&c->p, res.first_nonfinite, at);
        snprintf(rec->note, sizeof rec->note,
                 "%lld non-finite outputs (unwritten or NaN), first at n=%lld k=%lld p=%lld "
                 "q=%lld",
                 (long long)res.nonfinite, (long long)at[0], (long long)at[1], (long long)at[2],
                 (long long)at[3]);
    } else if (res.worst_index >= 0) {
        xconv_index_split(&c->p, res.worst_index, at);
        snprintf(rec->note, sizeof rec->note, "error %.3g > %.1g at n=%lld k=%lld p=%lld q=%lld%s",
                 res.max_norm_err, rec->threshold, (long long)at[0], (long long)at[1],
                 (long long)at[2], (long long)at[3],
                 rec->error_block_h > 1 || rec->error_block_w > 1 ? " (over its output block)"
                                                                  : "");
    }
    if (before[0] && !strstr(rec->note, before)) {
        size_t used = strlen(rec->note);
        snprintf(rec->note + used, sizeof rec->note - used, "; %s", before);
    }
}

// Runs variant `variant` planned by name `plan_name` (its own, or "auto" resolved to it) as
// xconv_case_run describes.
static xconv_status case_run(xconv_case *c, const xconv_variant *variant, const char *plan_name,
                             xconv_result *rec, xconv_error *err)
{
    const xconv_variant_info *v = xconv_variant_get_info(variant);
    result_init(c, v, rec);
    c->last_fused = 0;
    // A device lost for good takes no more work: the record says why.
    xconv_error run_err = {0};  // the variant's own failure goes into the record, not to the caller
    if (v->backends && c->dev && xconv_device_lost(c->dev)) {
        result_outcome(rec, xconv_device_wait(c->dev, &run_err), &run_err);
        return XCONV_OK;
    }
    // A variant auto chose applies as auto planned it (a reduced math mode may run in fp32
    // math: variant_auto.c's FP32_MATH lines), so only a named one is checked here.
    // So is one the options plan in fp32 math.
    char reason[512] = "";
    bool by_auto = strcmp(plan_name, "auto") == 0;
    xconv_problem planned = c->p;
    if (c->opts.plan.fp32_math)
        planned.math = XCONV_MATH_F32;
    if (v->backends && (!c->dev || (!by_auto && !xconv_variant_applies(variant, c->dev, &planned,
                                                                         reason, sizeof reason)))) {
        rec->outcome = XCONV_OUTCOME_NOT_APPLICABLE;
        snprintf(rec->note, sizeof rec->note, "%s", c->dev ? reason : "needs a device");
        return XCONV_OK;
    }
    if (!v->backends && xconv_problem_flops(&c->p) > c->opts.host_ref_max_gflop * 1e9) {
        rec->outcome = XCONV_OUTCOME_NOT_APPLICABLE;
        snprintf(rec->note, sizeof rec->note, "larger than the host reference limit of %.3g GFLOP",
                 c->opts.host_ref_max_gflop);
        return XCONV_OK;
    }
    // A fault in an earlier run lost the inputs with the context: the case uploads them again.
    xconv_status st = c->dev && xconv_device_resets(c->dev) != c->resets
                          ? measure_upload_inputs(c, err)
                          : XCONV_OK;
    if (st == XCONV_OK)
        st = measure_ensure_reference(c, err);
    if (st != XCONV_OK)
        return st;
    snprintf(rec->reference, sizeof rec->reference, "%s", c->ref_name);
    if (c->dev)
        xconv_device_reset_compile_ms(c->dev);
    xconv_plan *plan = NULL;  // planned once: for the checked run and for timing
    double first_ms = measure_now_ms(), check_start = first_ms, built_ms = 0;
    if (v->backends) {
        plan = xconv_plan_create(c->dev, &c->p, plan_name, &c->opts.plan, &run_err);
        if (plan && c->test_fault)
            xconv_plan_set_test_fault(plan, c->test_fault, NULL);
        st = plan ? measure_ensure_output(c, &run_err) : run_err.status;
        double prepare_start = measure_now_ms();
        if (st == XCONV_OK)
            st = xconv_plan_prepare(plan, NULL, &run_err);
        built_ms =
            measure_now_ms() - prepare_start;  // builds on this thread (not those made ahead)
        if (st == XCONV_OK)
            st = measure_run_device_variant(c->dev, plan, &c->p, c->dx, c->dw, c->dbias, c->dy,
                                            c->y, &run_err);
        first_ms = measure_now_ms() - first_ms;
    } else {
        st = xconv_forward(NULL, &c->p, v->name, NULL, c->x, c->w, c->bias, c->y, &run_err);
    }
    if (st != XCONV_OK) {
        result_outcome(rec, st, &run_err);
        xconv_plan_destroy(plan);
        return XCONV_OK;
    }
    if (c->dev && v->backends)
        rec->compile_ms = xconv_device_compile_ms(c->dev);
    c->last_fused = plan ? xconv_plan_fused(plan) : measure_epilogue_parts_host(&c->p);
    if (plan) {  // the plan chosen (ours), or what the vendor chose (cudnn_find)
        snprintf(rec->note, sizeof rec->note, "%s", xconv_plan_summary(plan));
        xconv_plan_error_block(plan, &rec->error_block_h, &rec->error_block_w);
    }
    result_check(c, rec);
    double run_start = measure_now_ms();
    if (c->opts.totals) {
        c->opts.totals->compile_ms += c->dev && v->backends ? rec->compile_ms : 0;
        c->opts.totals->check_ms += run_start - check_start - built_ms;
    }
    // A peer outside the threshold is still timed (its speed is the comparison, its outcome
    // says it failed); our own variants are timed only when correct.
    bool timeable = rec->outcome == XCONV_OUTCOME_PASS ||
                    (rec->outcome == XCONV_OUTCOME_FAIL && strcmp(v->family, "peer") == 0);
    if (c->opts.repeat > 0 && plan && timeable) {
        bool same = false;
        st = measure_time_variant(c, plan, rec, &same, &run_err);
        if (st != XCONV_OK)
            result_outcome(rec, st, &run_err);
        else if (!same)
            result_check(c, rec);
        if (st == XCONV_OK && c->opts.pitfall == XCONV_PITFALL_FIRST_RUN) {
            rec->median_ms = rec->min_ms = rec->max_ms = first_ms;
            rec->gflops = xconv_problem_flops(&c->p) / (first_ms * 1e-3) * 1e-9;
            rec->gbps = xconv_problem_min_bytes(&c->p) / (first_ms * 1e-3) * 1e-9;
        }
        if (st == XCONV_OK && c->opts.pitfall != XCONV_PITFALL_NONE)
            measure_note_pitfall(c, rec);
    }
    if (c->opts.totals)
        c->opts.totals->run_ms += measure_now_ms() - run_start;
    xconv_plan_destroy(plan);
    return XCONV_OK;
}

// Plans each variant (and "auto" when with_auto) for p on dev into plans from *n on (at most
// max), leaving out host variants, peers and pairs that do not plan.
static void prebuild_plans(xconv_device *dev, const xconv_problem *p,
                           const xconv_variant *const *variants, int nvariants, bool with_auto,
                           const xconv_plan_options *opts, xconv_plan **plans, int *n, int max)
{
    xconv_error *scratch = malloc(sizeof *scratch);
    for (int v = -1; scratch && v < nvariants && *n < max; v++) {
        const char *name = "auto";
        if (v >= 0) {
            const xconv_variant_info *info = xconv_variant_get_info(variants[v]);
            if (!info->backends || strcmp(info->family, "peer") == 0)
                continue;
            name = info->name;
        } else if (!with_auto) {
            continue;
        }
        xconv_plan *plan = xconv_plan_create(dev, p, name, opts, scratch);
        if (plan)
            plans[(*n)++] = plan;
    }
    free(scratch);
}

xconv_status xconv_prebuild(xconv_device *dev, const xconv_problem *const *problems, int nproblems,
                            const xconv_variant *const *variants, int nvariants, bool with_auto,
                            const xconv_plan_options *opts, int threads,
                            xconv_build_progress_fn progress, void *user, xconv_build_stats *stats,
                            xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, dev) || XCONV_NULL_ARG(err, problems) || XCONV_NULL_ARG(err, variants))
        return XCONV_ERR_INVALID;
    if (nproblems < 0 || nvariants < 0)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "xconv_prebuild: nproblems (%d) and nvariants (%d) must be >= 0",
                               nproblems, nvariants);
    for (int i = 0; i < nproblems; i++)
        if (!problems[i])
            return xconv_error_set(err, XCONV_ERR_INVALID, "xconv_prebuild: problems[%d] is NULL",
                                   i);
    for (int i = 0; i < nvariants; i++)
        if (!variants[i])
            return xconv_error_set(err, XCONV_ERR_INVALID, "xconv_prebuild: variants[%d] is NULL",
                                   i);
    int max = nproblems * (nvariants + 1);
    xconv_plan **plans = max > 0 ? calloc((size_t)max, sizeof *plans) : NULL;
    if (max > 0 && !plans)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the plans");
    int n = 0;
    for (int i = 0; i < nproblems; i++)
        prebuild_plans(dev, problems[i], variants, nvariants, with_auto, opts, plans, &n, max);
    xconv_status st = xconv_plans_build(plans, n, threads, progress, user, stats, err);
    for (int i = 0; i < n; i++)
        xconv_plan_destroy(plans[i]);
    free(plans);
    return st;
}

xconv_status xconv_case_run(xconv_case *c, const xconv_variant *v, xconv_result *out,
                            xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, c) || XCONV_NULL_ARG(err, v) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    return case_run(c, v, xconv_variant_get_info(v)->name, out, err);
}

xconv_status xconv_case_run_auto(xconv_case *c, xconv_result *out, xconv_error *err)
{
    xconv_error local = {0};
    if (!err)
        err = &local;
    if (XCONV_NULL_ARG(err, c) || XCONV_NULL_ARG(err, out))
        return XCONV_ERR_INVALID;
    xconv_result *rec = out;
    xconv_error why = {0};  // auto's own refusal goes into the record
    static const xconv_variant_info auto_row = {
        .name = "auto", .family = "auto", .accuracy = "direct", .notes = "", .backends = 1
    };
    xconv_auto_info info;
    xconv_status st = c->dev
                          ? xconv_auto_choose(c->dev, &c->p, &c->opts.plan, &info, &why)
                          : xconv_error_set(&why, XCONV_ERR_NOT_APPLICABLE, "auto needs a device");
    if (st != XCONV_OK) {
        result_init(c, &auto_row, rec);
        result_outcome(rec, st, &why);
        return XCONV_OK;
    }
    st = case_run(c, info.variant, "auto", rec, err);
    char note[sizeof rec->note];
    snprintf(note, sizeof note, "%s", rec->note);
    snprintf(rec->variant, sizeof rec->variant, "auto");
    snprintf(rec->note, sizeof rec->note, "auto -> %s (%s)%s%.*s",
             xconv_variant_get_info(info.variant)->name, xconv_auto_source_name(info.source),
             note[0] ? ": " : "", (int)sizeof rec->note - 96, note);
    return st;
}

void xconv_case_set_plan_options(xconv_case *c, const xconv_plan_options *plan)
{
    if (c && plan)
        c->opts.plan = *plan;
}

xconv_status xconv_case_set_test_fault(xconv_case *c, int fault, xconv_error *err)
{
    if (!c)
        return xconv_error_set(err, XCONV_ERR_INVALID, "xconv_case_set_test_fault: c is NULL");
    if (fault < XCONV_TEST_FAULT_NONE || fault > XCONV_TEST_FAULT_KERNEL)
        return xconv_error_set(err, XCONV_ERR_INVALID, "test fault %d is not a test fault", fault);
    c->test_fault = fault;
    return XCONV_OK;
}

const float *xconv_case_output(const xconv_case *c)
{
    return c ? c->y : NULL;
}

void xconv_case_set_epilogue_mode(xconv_case *c, int mode)
{
    if (c)
        c->opts.plan.epilogue = mode;
}

unsigned xconv_case_fused(const xconv_case *c)
{
    return c ? c->last_fused : 0u;
}
