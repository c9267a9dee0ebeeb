// SPDX-License-Identifier: MIT
// `xconv explain`: the plan a variant gets for a shape on a device, and the roofline floor.
#include <stdlib.h>
#include <string.h>

#include "cli.h"

// Returns which parts of p's epilogue the plan fuses, in words (a static buffer).
static const char *epilogue_line(const xconv_problem *p, unsigned fused)
{
    static char line[128];
    bool bias_act = p->epi.bias || p->epi.act, pool = p->epi.pool_h != 0;
    bool all = (!bias_act || (fused & XCONV_FUSED_BIAS_ACT)) &&
               (!pool || (fused & XCONV_FUSED_POOL));
    snprintf(line, sizeof line, "%s (bias and activation %s, max-pool %s)",
             all ? "fused" : fused ? "partly fused" : "unfused",
             !bias_act ? "none" : (fused & XCONV_FUSED_BIAS_ACT) ? "fused" : "a step",
             !pool ? "none" : (fused & XCONV_FUSED_POOL) ? "fused" : "a step");
    return line;
}

// Prints step i of plan: what it runs, its geometry and its defines.
static void print_step(const xconv_plan *plan, int i)
{
    xconv_error err = {0};
    xconv_plan_step_info s;
    if (xconv_plan_step_get_info(plan, i, &s, &err) != XCONV_OK)
        return;
    if (!s.source) {
        printf("  step %d: %s: vendor library call %s\n", i, s.label, s.kernel);
        return;
    }
    printf("  step %d: %s: %s.cl %s, global %zux%zux%zu, local %zux%zux%zu, local memory %zu "
           "bytes\n",
           i, s.label, s.source, s.kernel, s.global[0], s.global[1], s.global[2], s.local[0],
           s.local[1], s.local[2], s.local_mem_bytes);
    char options[4096];
    if (xconv_plan_step_options(plan, i, options, sizeof options) > 0)
        printf("          defines: %s\n", options);
}

// Prints the plan's workspace and its regions.
static void print_workspace(const xconv_plan *plan)
{
    size_t bytes = xconv_plan_workspace_size(plan);
    if (!bytes)
        return;
    printf("  workspace: %zu bytes\n", bytes);
    for (int i = 0; i < xconv_plan_region_count(plan); i++) {
        const char *name;
        size_t offset, size;
        if (xconv_plan_region_get(plan, i, &name, &offset, &size) == XCONV_OK)
            printf("    region %d: %s, %zu bytes at offset %zu\n", i, name, size, offset);
    }
}

// Prints how validate checks the plan: the output block its errors are measured over (a
// Winograd tile, an FFT tile; 1 x 1 for the rest) and the threshold validate applies, the
// variant's own entry where it has one (fft, fft_tiled), else its accuracy entry's, plus the
// rounding of a 16-bit output and a reduced math mode's share.
static void print_error_check(const xconv_plan *plan, const xconv_problem *p)
{
    int64_t block_h = 1, block_w = 1;
    xconv_plan_error_block(plan, &block_h, &block_w);
    const xconv_variant_info *v = xconv_variant_get_info(xconv_plan_variant(plan));
    double threshold = xconv_threshold_for_variant(v);
    bool own = threshold != xconv_threshold_for_family(v->accuracy);
    const char *entry = own ? v->name : v->accuracy;
    if (p->dtype != XCONV_DTYPE_F32) {
        double storage = xconv_threshold_storage(p->dtype);
        printf("  storage: x, w and y in %s (%zu bytes an element)%s, y rounded to %s "
               "(threshold %.2g = %.1g + %.2g)\n", xconv_dtype_name(p->dtype),
               xconv_problem_elem_bytes(p), p->math == XCONV_MATH_F32 ?
               ", math strict fp32: products exact, sums in fp32" : "",
               xconv_dtype_name(p->dtype), threshold + storage, threshold, storage);
        threshold += storage;
    }
    if (p->math != XCONV_MATH_F32) {
        double math = xconv_threshold_math(p->math);
        printf("  math: %s products on matrix engines, fp32 accumulation (threshold %.2g = %.2g + "
               "%.2g for %s)\n", xconv_math_name(p->math), threshold + math, threshold, math,
               p->math == XCONV_MATH_TF32 ? "the operands' rounding to TF32 and the accumulation"
                                          : "the accumulation; the products are exact");
        threshold += math;
    }
    if (block_h > 1 || block_w > 1)
        printf("  error block: %lldx%lld outputs (validate divides each output's error by the "
               "largest scale in its block), threshold %.2g (%s)\n",
               (long long)block_h, (long long)block_w, threshold, entry);
    else
        printf("  error block: 1x1 (each output's error by its own scale), threshold %.2g (%s)\n",
               threshold, entry);
}

// Prints the floor of p at the device's peaks (NULL or unknown: says how to measure them).
static void print_floor(const xconv_problem *p, const cli_peaks *peaks)
{
    double flops = xconv_problem_flops(p), bytes = xconv_problem_min_bytes(p);
    printf("  work: %.4g GFLOP, minimum %.4g MB moved (arithmetic intensity %.1f FLOP/byte)\n",
           flops * 1e-9, bytes * 1e-6, flops / bytes);
    if (!peaks || !(peaks->gflops > 0 && peaks->gbps > 0)) {
        printf("  floor: unknown (measure the device's peaks with xconv peaks, or set "
               "XCONV_PEAKS=GFLOPS,GBPS)\n");
        return;
    }
    double gflops = cli_peaks_gflops(peaks, p->math);
    const char *math = xconv_math_name(p->math) ? xconv_math_name(p->math) : "?";
    if (!(gflops > 0)) {
        printf("  floor: unknown in math=%s (no tensor-core peak for it: xconv peaks measures one "
               "on GPUs with NVIDIA tensor cores)\n", math);
        return;
    }
    double t_flop = flops / (gflops * 1e9) * 1e3, t_byte = bytes / (peaks->gbps * 1e9) * 1e3;
    printf("  floor: %.4g ms (%s-bound: %.4g ms of %s arithmetic at %.0f GFLOP/s, %.4g ms of "
           "traffic at %.0f GB/s; peaks %s)\n",
           t_flop > t_byte ? t_flop : t_byte, t_flop > t_byte ? "compute" : "memory", t_flop,
           p->math == XCONV_MATH_F32 ? "fp32" : math, gflops, t_byte, peaks->gbps,
           peaks->source);
}

void cli_print_plan(xconv_device *dev, const char *name, const xconv_problem *p,
                    const xconv_plan_options *opts, const cli_peaks *peaks)
{
    xconv_error err = {0};
    xconv_plan *plan = xconv_plan_create(dev, p, name, opts, &err);
    cli_print_plan_made(dev, name, p, plan, &err, peaks);
    xconv_plan_destroy(plan);
}

void cli_print_plan_made(xconv_device *dev, const char *name, const xconv_problem *p,
                         const xconv_plan *plan, const xconv_error *err,
                         const cli_peaks *peaks)
{
    char label[320], spec[256];
    const xconv_device_info *info = xconv_device_get_info(dev);
    xconv_device_label(info, label, sizeof label);
    xconv_shape_format(p, spec, sizeof spec);
    const char *chosen = plan ? xconv_variant_get_info(xconv_plan_variant(plan))->name : name;
    printf("plan of %s%s%s for %s on %s\n", name, strcmp(name, chosen) ? " -> " : "",
           strcmp(name, chosen) ? chosen : "", spec, label);
    if (!plan) {
        printf("  %s: %s\n", xconv_status_to_string(err->status), err->msg);
        return;
    }
    xconv_auto_info chose;
    if (xconv_plan_auto_info(plan, &chose))
        printf("  auto: %s\n", chose.why);
    printf("  %s\n", xconv_plan_summary(plan));
    if (xconv_problem_has_epilogue(p))
        printf("  epilogue: %s\n", epilogue_line(p, xconv_plan_fused(plan)));
    for (int i = 0; i < xconv_plan_step_count(plan); i++)
        print_step(plan, i);
    print_workspace(plan);
    print_error_check(plan, p);
    print_floor(p, peaks);
}

// Prints the plans of names for shapes on each --target profile (no device is opened, no
// find-db is read: auto follows its rules), with floors where XCONV_PEAKS or the peaks file
// has the profile's identity. Returns CLI_OK, CLI_USAGE or CLI_FAILED.
static int explain_targets(const cli_options *opts, const cli_shape *shapes, int nshapes,
                           const char *const *names, int nnames,
                           const xconv_plan_options *plan_opts)
{
    const xconv_target *targets[CLI_MAX_LIST];
    int ntargets = 0;
    if (cli_collect_targets(opts, targets, &ntargets))
        return CLI_USAGE;
    if (opts->ndevices > 0) {
        cli_error("give --target or --device, not both");
        return CLI_USAGE;
    }
    static cli_peaks_source peaks_src;
    int rc = cli_peaks_open(opts, &peaks_src);
    xconv_error err = {0};
    for (int t = 0; t < ntargets && rc == CLI_OK; t++) {
        xconv_device *dev = xconv_device_open_target(targets[t], &err);
        if (!dev) {
            cli_print_error("target", &err);
            rc = CLI_FAILED;
            break;
        }
        cli_peaks peaks;
        cli_peaks_lookup(&peaks_src, xconv_device_get_info(dev), &peaks);
        for (int s = 0; s < nshapes; s++)
            for (int v = 0; v < nnames; v++)
                cli_print_plan(dev, names[v], &shapes[s].problem, plan_opts, &peaks);
        xconv_device_close(dev);
    }
    cli_peaks_close(&peaks_src);
    return rc;
}

int cmd_explain(const cli_options *opts)
{
    cli_shape shapes[CLI_MAX_SHAPES];
    int nshapes = 0;
    const xconv_variant *variants[CLI_MAX_LIST];
    int nvariants = 0;
    xconv_plan_options plan_opts;
    cli_plan_options(&plan_opts);
    if (cli_collect_shapes(opts, NULL, shapes, &nshapes) ||
        cli_collect_variants(opts, true, variants, &nvariants) ||
        cli_epilogue_mode(opts, false, &plan_opts, NULL))
        return CLI_USAGE;
    if (nshapes == 0) {
        cli_error("give --shape SPEC or --shapes FILE");
        return CLI_USAGE;
    }
    if (nvariants == 0)  // auto, as everywhere else
        variants[nvariants++] = NULL;
    const char *names[CLI_MAX_LIST];  // NULL stands for "auto"
    for (int v = 0; v < nvariants; v++)
        names[v] = variants[v] ? xconv_variant_get_info(variants[v])->name : "auto";
    unsigned flags = 0;
    if (cli_find_policy(opts, false, &flags))
        return CLI_USAGE;
    if (opts->ntargets > 0)
        return explain_targets(opts, shapes, nshapes, names, nvariants, &plan_opts);
    xconv_devices *list = NULL;
    int indices[CLI_MAX_LIST], ndevices = 0;
    int rc = cli_select_devices(opts, &list, indices, &ndevices);
    if (rc) {
        xconv_devices_free(list);
        return rc;
    }
    static cli_peaks_source peaks_src;
    if ((rc = cli_peaks_open(opts, &peaks_src))) {
        xconv_devices_free(list);
        return rc;
    }
    xconv_error err = {0};
    xconv_cache *cache = cli_cache_open(opts, flags);
    for (int d = 0; d < ndevices && rc == CLI_OK; d++) {
        xconv_device *dev = cli_device_open_info(xconv_devices_info_at(list, indices[d]), &err);
        if (!dev) {
            cli_print_error("device", &err);
            rc = CLI_FAILED;
            break;
        }
        xconv_device_set_cache(dev, cache);
        cli_peaks peaks;
        cli_peaks_lookup(&peaks_src, xconv_device_get_info(dev), &peaks);
        for (int s = 0; s < nshapes; s++)
            for (int v = 0; v < nvariants; v++)
                cli_print_plan(dev, names[v], &shapes[s].problem, &plan_opts, &peaks);
        xconv_device_close(dev);
    }
    cli_cache_close(cache);
    cli_peaks_close(&peaks_src);
    xconv_devices_free(list);
    return rc;
}
