// SPDX-License-Identifier: MIT
// The implicit GEMM on Intel's matrix engines (cl/implicit_xmx.cl): when a device has them, and
// the tiles and launch of one convolution's product on them.
#ifndef XCONV_PLAN_XMX_H
#define XCONV_PLAN_XMX_H

#include "plan/plan.h"

// The tiles of cl/implicit_xmx.cl: each sub-group of sub_group lanes computes blocks_m x
// blocks_n blocks of 8 rows x sub_group columns of C; a work-group of sub_groups_m x
// sub_groups_n sub-groups.
typedef struct xconv_xmx_tiles {
    int sub_group;
    int blocks_m, blocks_n;
    int sub_groups_m, sub_groups_n;
} xconv_xmx_tiles;

// Returns the sub-group size at which info's device runs Intel's sub-group matrix multiply-
// accumulate (8 or 16), or 0 when it reports no such engines.
int xconv_xmx_sub_group(const xconv_device_info *info);

// Chooses the tiles for p (math f16 or bf16) on info's device (which has the engines): the
// fewest 8-row blocks that hold a group's filters, up to 64 rows, by two blocks of columns a
// sub-group, four sub-groups a work-group. Fills *t.
void xconv_xmx_choose(const xconv_device_info *info, const xconv_problem *p,
                      xconv_xmx_tiles *t);

// Appends the implicit_xmx step for p on info's device with tiles t (arguments x, w, y) and the
// summary line; the step calls the extension's built-ins (XC_XMX_NATIVE 1). Returns XCONV_OK,
// XCONV_ERR_NOT_APPLICABLE when p passes the kernel's 32-bit index range or t's work-group
// the device's, or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_xmx_plan_step(const xconv_device_info *info, const xconv_problem *p,
                                 const xconv_xmx_tiles *t, xconv_plan *plan, xconv_error *err);

#endif // XCONV_PLAN_XMX_H
