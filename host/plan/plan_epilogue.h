// SPDX-License-Identifier: MIT
// The epilogue in plans: the hook a family's planner calls to fuse bias, activation and max-pool
// into the step that stores the convolution's output, and the core's unfused steps for whatever
// a plan did not fuse (internal header).
#ifndef XCONV_PLAN_EPILOGUE_H
#define XCONV_PLAN_EPILOGUE_H

#include "plan/plan.h"

// The alignment of the workspace region an unfused plan's convolution writes: the region is
// passed to kernels as a bare pointer (an OpenCL sub-buffer), whose origin must be a multiple of
// the device's base address alignment (128 to 512 bytes on the devices we know).
#define XCONV_EPILOGUE_REGION_ALIGN 4096

// Returns the parts of p's epilogue a plan must apply (XCONV_FUSED_* bits): the bias and
// activation part when p adds a bias or activates, the pool part when it pools.
unsigned xconv_epilogue_parts(const xconv_problem *p);

// Writes a description of `parts` of p's epilogue into buf ("bias + relu, max-pool 2x2/2"), ""
// for none; returns buf.
const char *xconv_epilogue_describe(const xconv_problem *p, unsigned parts, char *buf,
                                    size_t len);

// The hook of a fusing planner: makes step s (the one that stores the convolution's output)
// apply `parts` of p's epilogue: their defines (common/xconv_problem_fields.h, read through
// common/xconv_epilogue.h) and, for a bias, the bias as the step's last argument; records them
// in plan->fused. A step that pools writes y's final, pooled layout. Returns XCONV_OK or the
// failure of a define.
xconv_status xconv_step_fuse_epilogue(xconv_step *s, const xconv_problem *p, unsigned parts,
                                      xconv_plan *plan, xconv_error *err);

// Completes a plan of p (which has an epilogue) after its variant planned: the parts it did not
// fuse become steps of cl/epilogue.cl after its own, with the convolution's output redirected
// into a workspace region when the pool is among them, and the summary says which is which.
// Returns XCONV_OK, XCONV_ERR_NOT_APPLICABLE when plan->opts asks for a fused plan and a part is
// not fused, or the failure of a step.
xconv_status xconv_plan_epilogue(const xconv_device_info *info, const xconv_problem *p,
                                 xconv_plan *plan, xconv_error *err);

#endif // XCONV_PLAN_EPILOGUE_H
