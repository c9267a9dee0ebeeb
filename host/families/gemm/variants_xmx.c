// SPDX-License-Identifier: MIT
// implicit_xmx: the GEMM family's variant for Intel's matrix engines (cl/implicit_xmx.cl), for
// math f16 and bf16 on devices with cl_intel_subgroup_matrix_multiply_accumulate
// (host/families/gemm/plan_xmx.c plans it). Compile-checked for dg2 and pvc with ocloc and
// checked through its emulation on CPU devices; never measured on Intel hardware, so no rule
// of auto names it (only a find-db record, timed on the device itself, could).
#include <stdio.h>

#include "families/gemm/plan_xmx.h"
#include "plan/variant.h"

// The engines from the device's capabilities: the extension reported with a sub-group size of
// 8 or 16 (host/core/targets.c for the dg2 and pvc profiles). The math mode (f16 or bf16; tf32
// is not in this extension) was checked by the core.
static bool implicit_xmx_applies(const xconv_variant *v, const xconv_device *dev,
                                 const xconv_problem *p, char *reason, size_t len)
{
    (void)v;
    (void)p;
    if (xconv_xmx_sub_group(&dev->info))
        return true;
    snprintf(reason, len, "implicit_xmx needs Intel's matrix engines "
             "(cl_intel_subgroup_matrix_multiply_accumulate at sub-group size 8 or 16); %s "
             "reports none", dev->info.name);
    return false;
}

// One step: the product on the matrix engines, gathering B from x, storing y.
static xconv_status plan_implicit_xmx(const xconv_device *dev, const xconv_problem *p,
                                      const xconv_plan_options *opts, xconv_plan *plan,
                                      xconv_error *err)
{
    (void)opts;
    xconv_xmx_tiles t;
    xconv_xmx_choose(&dev->info, p, &t);
    return xconv_xmx_plan_step(&dev->info, p, &t, plan, err);
}

static const xconv_variant xmx_variants[] = {
    {
        .info = {.name = "implicit_xmx", .family = "gemm", .accuracy = "gemm",
                 .notes = "",
                 .summary = "implicit GEMM on Intel's matrix engines (XMX, sub-group matrix "
                            "multiply-accumulate), math=f16 or bf16 with fp32 accumulation; "
                            "unmeasured on hardware (compile-checked, checked emulated)",
                 .backends = XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL)},
        .maths = XCONV_MATH_BIT(XCONV_MATH_F16) | XCONV_MATH_BIT(XCONV_MATH_BF16),
        .dtypes = XCONV_DTYPE_BIT(XCONV_DTYPE_F16) | XCONV_DTYPE_BIT(XCONV_DTYPE_BF16),
        .applies = implicit_xmx_applies,
        .plan = plan_implicit_xmx,
    },
};

const xconv_variant *xconv_xmx_variants(int *count)
{
    *count = (int)(sizeof xmx_variants / sizeof xmx_variants[0]);
    return xmx_variants;
}
