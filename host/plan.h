// SPDX-License-Identifier: MIT
// A plan: the compile-time defines and launch geometry the planner chose for one problem on one
// device, and the helpers variants use to build and launch it.
#ifndef XCONV_PLAN_H
#define XCONV_PLAN_H

#include "program_cache.h"

#define XCONV_MAX_DEFINES 64
#define XCONV_MAX_STEPS 4

// One kernel launch of a variant.
typedef struct xconv_step {
    const char *source;      // kernel file stem in cl/ ("direct_naive" for cl/direct_naive.cl)
    const char *kernel;      // entry point
    int dims;
    size_t global[3];        // work-items, a multiple of local
    size_t local[3];
    size_t local_mem_bytes;  // local memory the kernel declares, for explain and checks
} xconv_step;

typedef struct xconv_plan {
    xconv_define defines[XCONV_MAX_DEFINES];  // problem fields + tile parameters, shared by steps
    int ndefines;
    xconv_step steps[XCONV_MAX_STEPS];
    int nsteps;
    size_t workspace_bytes;  // device scratch memory the variant needs (0: none)
    int64_t batch_chunk;     // images per pass when work is split along n (0: all at once)
    char summary[256];       // one line on the choice, for `xconv explain`
} xconv_plan;

// Adds define `name` = value; returns XCONV_ERR_INVALID when the table is full.
xconv_status xconv_plan_define(xconv_plan *plan, const char *name, long long value,
                               xconv_error *err);

// Adds the problem's fields (common/xconv_problem_fields.h) as defines.
xconv_status xconv_plan_define_problem(xconv_plan *plan, const xconv_problem *p,
                                       xconv_error *err);

// Appends a step; returns a pointer to fill, or NULL when the plan has XCONV_MAX_STEPS steps.
xconv_step *xconv_plan_add_step(xconv_plan *plan, const char *source, const char *kernel);

// Sets a step's geometry: global sizes are rounded up to a multiple of local.
void xconv_step_set_2d(xconv_step *step, size_t gx, size_t gy, size_t lx, size_t ly);
void xconv_step_set_1d(xconv_step *step, size_t g, size_t l);
void xconv_step_set_3d(xconv_step *step, const size_t g[3], const size_t l[3]);

// Writes the defines as compiler options ("-DXC_N=1 -DXC_C=3 ..."); returns the length.
int xconv_plan_options(const xconv_plan *plan, char *buf, size_t len);

// Builds (cached by the device) and enqueues step `step` of plan with args; adds build time to
// dev->compile_ms. Returns the backend's status.
xconv_status xconv_plan_launch(xconv_device *dev, const xconv_plan *plan, int step,
                               const xconv_arg *args, int nargs, xconv_error *err);

// Images per im2col pass: as many as fit one allocation (and a quarter of device memory), the
// 32-bit index range and a grid dimension (65535); at most p->n, < 1 when one image does not fit.
int64_t xconv_im2col_chunk(const xconv_device_info *info, const xconv_problem *p);

// Adds the im2col step (cl/im2col.cl) for chunks of `chunk` images, with its workspace, to plan.
// Returns the step, or NULL when the plan is full.
xconv_step *xconv_plan_im2col(const xconv_device_info *info, const xconv_problem *p,
                              int64_t chunk, xconv_plan *plan);

// Rounds v up to a multiple of m (m > 0).
size_t xconv_round_up(size_t v, size_t m);

// Returns the smaller of a work-group size limit from the device and `want` in each dim
// (work-group volume <= max_work_group_size); used by planners instead of vendor constants.
size_t xconv_fit_work_group(const xconv_device_info *info, size_t want);

#endif // XCONV_PLAN_H
