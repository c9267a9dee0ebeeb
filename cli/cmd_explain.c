// SPDX-License-Identifier: MIT
// `xconv explain`: the plan a variant gets for a shape on a device, and the roofline floor.
#include <stdlib.h>
#include <string.h>

#include "cli.h"

// Reads the device's peaks from XCONV_PEAKS="GFLOPS,GBPS" when the device does not know them.
static void device_peaks(const xconv_device_info *info, double *gflops, double *gbps)
{
    *gflops = info->peak_gflops;
    *gbps = info->peak_gbps;
    const char *env = getenv("XCONV_PEAKS");
    if (env && (*gflops <= 0 || *gbps <= 0) && sscanf(env, "%lf,%lf", gflops, gbps) != 2)
        *gflops = *gbps = 0;
}

void cli_print_plan(xconv_device *dev, const xconv_variant *v, const xconv_problem *p)
{
    static xconv_error err;
    char label[320], spec[256], options[4096];
    xconv_device_label(&dev->info, label, sizeof label);
    xconv_shape_format(p, spec, sizeof spec);
    printf("plan of %s for %s on %s\n", v->name, spec, label);
    xconv_plan plan;
    if (xconv_variant_plan(v, dev, p, &plan, &err) != XCONV_OK) {
        printf("  %s: %s\n", xconv_status_to_string(err.status), err.msg);
        return;
    }
    printf("  %s\n", plan.summary);
    xconv_plan_options(&plan, options, sizeof options);
    if (plan.ndefines)
        printf("  defines: %s\n", options);
    for (int i = 0; i < plan.nsteps; i++) {
        const xconv_step *s = &plan.steps[i];
        printf("  step %d: %s.cl %s, global %zux%zux%zu, local %zux%zux%zu, local memory %zu "
               "bytes\n",
               i, s->source, s->kernel, s->global[0], s->global[1], s->global[2], s->local[0],
               s->local[1], s->local[2], s->local_mem_bytes);
    }
    if (plan.workspace_bytes)
        printf("  workspace: %zu bytes%s\n", plan.workspace_bytes,
               plan.batch_chunk && plan.batch_chunk < p->n ? " (batch processed in chunks)"
                                                           : "");
    double flops = xconv_problem_flops(p), bytes = xconv_problem_min_bytes(p);
    printf("  work: %.4g GFLOP, minimum %.4g MB moved (arithmetic intensity %.1f FLOP/byte)\n",
           flops * 1e-9, bytes * 1e-6, flops / bytes);
    double gflops, gbps;
    device_peaks(&dev->info, &gflops, &gbps);
    if (gflops > 0 && gbps > 0) {
        double t_flop = flops / (gflops * 1e9) * 1e3, t_byte = bytes / (gbps * 1e9) * 1e3;
        printf("  floor: %.4g ms (%s-bound: %.4g ms of arithmetic at %.0f GFLOP/s, %.4g ms of "
               "traffic at %.0f GB/s)\n",
               t_flop > t_byte ? t_flop : t_byte, t_flop > t_byte ? "compute" : "memory",
               t_flop, gflops, t_byte, gbps);
    } else {
        printf("  floor: unknown (set XCONV_PEAKS=GFLOPS,GBPS to the device's measured peaks)\n");
    }
}

int cmd_explain(const cli_options *opts)
{
    cli_shape shapes[CLI_MAX_SHAPES];
    int nshapes = 0;
    const xconv_variant *variants[CLI_MAX_LIST];
    int nvariants = 0;
    if (cli_collect_shapes(opts, NULL, shapes, &nshapes) ||
        cli_collect_variants(opts, variants, &nvariants))
        return CLI_USAGE;
    if (nshapes == 0 || nvariants == 0) {
        fprintf(stderr, "xconv explain: give --shape SPEC and --variant NAME\n");
        return CLI_USAGE;
    }
    xconv_device_list list;
    int indices[CLI_MAX_LIST], ndevices = 0;
    int rc = cli_select_devices(opts, &list, indices, &ndevices);
    if (rc)
        return rc;
    static xconv_error err;
    for (int d = 0; d < ndevices; d++) {
        xconv_device *dev = xconv_device_open_info(&list.devices[indices[d]], &err);
        if (!dev) {
            cli_print_error("device", &err);
            return CLI_FAILED;
        }
        for (int s = 0; s < nshapes; s++)
            for (int v = 0; v < nvariants; v++)
                cli_print_plan(dev, variants[v], &shapes[s].problem);
        xconv_device_close(dev);
    }
    return CLI_OK;
}
