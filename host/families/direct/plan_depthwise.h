// SPDX-License-Identifier: MIT
// direct_depthwise's planner: the strip length and work-group size from the shape and the
// device's limits (cl/direct_depthwise.cl).
#ifndef XCONV_PLAN_DEPTHWISE_H
#define XCONV_PLAN_DEPTHWISE_H

#include "plan/plan.h"

// Returns true when direct_depthwise can run p on the device described by info: every output
// channel reads one input channel (C/groups == 1) and the filter's taps fit a work-item's
// registers; else false with the numbers in `reason`.
bool xconv_depthwise_applies(const xconv_device_info *info, const xconv_problem *p, char *reason,
                             size_t len);

// Returns the outputs each direct_depthwise work-item computes down one column of p on info's
// device (the strip length: the cheapest by a small model of loads, wasted outputs and the
// device's parallelism, for the columns of a block the planner picks: 2 for fp16 and bf16
// storage, 1 for fp32), 1 when none fits better.
int xconv_depthwise_rows(const xconv_device_info *info, const xconv_problem *p);

// Adds to plan the one step of direct_depthwise on p (problem defines, XD_DW_ROWS, XD_DW_COLS,
// XD_DW_PAIRS, arguments x, w, y, the bias and activation fused) and its summary. Returns
// XCONV_OK or its status.
xconv_status xconv_depthwise_plan(const xconv_device_info *info, const xconv_problem *p,
                                  xconv_plan *plan, xconv_error *err);

#endif // XCONV_PLAN_DEPTHWISE_H
