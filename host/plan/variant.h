// SPDX-License-Identifier: MIT
// The variant registry: each convolution algorithm's description, applicability and planner
// (internal header; the public header has the queries).
#ifndef XCONV_VARIANT_H
#define XCONV_VARIANT_H

#include "plan/plan.h"

#define XCONV_ON_ALL_BACKENDS (XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL) | \
                               XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA))

#define XCONV_DTYPE_BIT(dtype) (1u << (dtype))
#define XCONV_MATH_BIT(math) (1u << (math))

struct xconv_variant {
    xconv_variant_info info;

    // True when applies and plan take problems with an epilogue and the planner fuses what it
    // can into its steps (setting plan->fused, and plan->epi_note for what it leaves); false:
    // they are given the convolution alone, and the core appends the epilogue's steps
    // (host/plan/plan_epilogue.c).
    bool fuses;

    // XCONV_DTYPE_BIT of each storage type beyond fp32 its kernels read and write (fp32 math
    // over them); 0: fp32 only. The core refuses the others before calling applies.
    unsigned dtypes;

    // XCONV_MATH_BIT of each math mode its kernels compute in; 0: strict fp32 only. The core
    // refuses the others before calling applies, so no variant runs a mode it was not asked for.
    unsigned maths;

    // True: under XCONV_BATCH_DEFAULT the kernels take the batch size N at run time (one program
    // serves every batch); false: N is compiled in. True only where the H100 measured taking N
    // at run time at most 2% slower than baked on every shape, both GPU backends, beyond the
    // spread of two baked runs (bench/results/2026-11-27-h100-96bc74d-bake_batch_*.json, read by
    // scripts/bake_batch_cost.py; the table in docs/guide/compile.md), or where every step bakes
    // N anyway. A variant not measured, or past 2% within the runs' noise, stays false.
    bool runtime_batch;

    // The variant's kind in its family, for a family planner that plans several variants with
    // one function (an xconv_direct_kind, an xconv_fft_kind, Winograd's F(m, r) and fusion as
    // WINO_KIND packs them): applies gets the variant, plan finds it in plan->variant. 0 where
    // the family has a planner per variant.
    int kind;

    // Returns true when v (this variant) can run p on dev (NULL for host variants: on the
    // host), else false with the reason in `reason`. NULL means it applies to every valid
    // problem.
    bool (*applies)(const xconv_variant *v, const xconv_device *dev, const xconv_problem *p,
                    char *reason, size_t len);

    // Fills plan (its steps, regions and summary) for p on dev under opts; plan->variant is this
    // variant. Returns XCONV_OK or a negative status with a message.
    xconv_status (*plan)(const xconv_device *dev, const xconv_problem *p,
                         const xconv_plan_options *opts, xconv_plan *plan, xconv_error *err);

    // Optional. NULL: the generic runner enqueues every step in order, resolving arguments
    // against the tensors. A variant needs its own run only for something steps cannot say.
    xconv_status (*run)(xconv_plan *plan, const xconv_tensors *t, xconv_error *err);

    // Optional: fills out (at most max) with the tunings of v worth timing for p on dev (planning
    // alone: dev may have no context), the planner's own choice first; returns their count.
    // NULL: v has no tuning space.
    int (*tunings)(const xconv_variant *v, xconv_device *dev, const xconv_problem *p,
                   xconv_tuning *out, int max);

    // Host variants only (info.backends == 0): computes y on the host (bias: K floats, NULL
    // when the problem adds none).
    xconv_status (*run_host)(const xconv_problem *p, const float *x, const float *w,
                             const float *bias, float *y, xconv_error *err);
};

// Each family's table (host/variants_<family>.c).
const xconv_variant *xconv_reference_variants(int *count);
const xconv_variant *xconv_direct_variants(int *count);
const xconv_variant *xconv_gemm_variants(int *count);
const xconv_variant *xconv_mma_variants(int *count);  // host/families/gemm/variants_mma.c
const xconv_variant *xconv_xmx_variants(int *count);  // host/families/gemm/variants_xmx.c
const xconv_variant *xconv_winograd_variants(int *count);
const xconv_variant *xconv_fft_variants(int *count);
const xconv_variant *xconv_peer_variants(int *count);

// Returns true where implicit_mma's planner takes the packed pipeline for p when the options
// leave it the choice (host/families/gemm/plan_mma.c, declared here for auto's rules as well).
bool xconv_mma_packed_pays(const xconv_problem *p);

// Returns true when v's kernels take p's storage type and math mode, else false with the reason
// (host/plan/registry.c).
bool xconv_variant_types_apply(const xconv_variant *v, const xconv_problem *p, char *reason,
                               size_t len);

// Plans v for p on dev under opts (NULL: defaults) after checking that it applies
// (XCONV_ERR_NOT_APPLICABLE with the reason); checks the plan (xconv_plan_check). dev may be a
// device description without a context (planning alone). Returns XCONV_OK and *out, or the
// failure with *out NULL. (host/plan/plan.c)
xconv_status xconv_variant_plan(const xconv_variant *v, xconv_device *dev,
                                const xconv_problem *p, const xconv_plan_options *opts,
                                xconv_plan **out, xconv_error *err);

// Plans p on dev the way "auto" chooses (host/plan/variant_auto.c): fills *info and, when out is not
// NULL, returns the plan in *out. Returns XCONV_OK or XCONV_ERR_NOT_APPLICABLE when nothing
// plans.
xconv_status xconv_auto_plan(xconv_device *dev, const xconv_problem *p,
                             const xconv_plan_options *opts, xconv_auto_info *info,
                             xconv_plan **out, xconv_error *err);

#endif // XCONV_VARIANT_H
