// SPDX-License-Identifier: MIT
// The direct family's planner: tile and block sizes from the problem and the device's limits.
#ifndef XCONV_PLAN_DIRECT_H
#define XCONV_PLAN_DIRECT_H

#include "plan/plan.h"

// The direct kernels that share the planner (cl/direct_<kind>.cl).
typedef enum xconv_direct_kind {
    XCONV_DIRECT_CONST,     // filters in constant memory, input from global memory
    XCONV_DIRECT_TILED,     // input tile + halo in local memory, one buffer
    XCONV_DIRECT_TILED_DB,  // as tiled, two buffers: the next channel chunk loads during compute
    XCONV_DIRECT_REGBLOCK,  // filters staged in local memory, large register blocks
} xconv_direct_kind;

// The launch geometry of one direct kernel. Work-item (tx, ty) of a work-group computes
// block_k output channels at rows tile_p + ty * block_h + i and columns tile_q + tx + j * wg_w.
typedef struct xconv_direct_tiling {
    int wg_w, wg_h;            // work-group: work-items along q and along p
    int block_w, block_h;      // outputs per work-item along q and along p
    int strip;                 // 1: an item's columns are consecutive, 0: wg_w apart
    int flat;                  // 1: 1-D work-groups of wg_w items numbering blocks, no tile
                               // (regblock on GPUs; direct_const only when forced)
    int unroll_c;              // 1: the channel loop is unrolled too (direct_const; likewise)
    int repeat;                // blocks per work-item, one after another (filters staged once
                               // for all of them); above 1 only for flat regblock
    int vec_q;                 // 0, or the vector width: an item's block_w = vec_q consecutive
                               // columns are one OpenCL C vector (direct_const on CPUs)
    int block_k;               // output channels per work-item, all within one channel group
    int chunk_c;               // input channels per local-memory stage (tiled kinds, regblock)
    int in_tile_w, in_tile_h;  // input tile with its halo (tiled kinds; 0 otherwise)
    size_t work_groups;        // work-groups in the launch
    size_t local_mem_bytes;    // local memory the kernel declares
    double cost;               // the model's relative time estimate (lower is better)
    bool forced;               // given by the planning options, not searched
    int pool_h, pool_w;        // a fused max-pool's window, or 0: each block must then hold
                               // whole windows (block sides multiples, columns consecutive)
} xconv_direct_tiling;

// Returns the public xconv_direct_kernel of a kind (XCONV_DIRECT_KERNEL_CONST for
// XCONV_DIRECT_CONST, ...).
static inline int xconv_direct_kernel_of(xconv_direct_kind kind)
{
    return (int)kind + 1;
}

// Returns the kernel file stem ("direct_tiled") of a kind.
const char *xconv_direct_kind_name(xconv_direct_kind kind);

// Returns true when the whole filter tensor of p fits the device's constant buffer, else false
// with the numbers in `reason`.
bool xconv_direct_const_fits(const xconv_device_info *info, const xconv_problem *p, char *reason,
                             size_t len);

// Chooses the tiling of `kind` for p on the device described by info. Returns XCONV_OK and fills
// *t, or XCONV_ERR_NOT_APPLICABLE when no tiling fits the device's local memory and work-group
// limits. For experiments, `forced` (the entry of xconv_plan_options.direct_tiling for `kind`;
// NULL: searched) forces a tiling (block_k 0: K/groups); one that does not fit is
// XCONV_ERR_INVALID.
xconv_status xconv_direct_choose(const xconv_device_info *info, const xconv_problem *p,
                                 xconv_direct_kind kind, const xconv_forced_direct_tiling *forced,
                                 xconv_direct_tiling *t, xconv_error *err);

// Fills out (at most max) with tilings of `kind` that fit p on info's device: the one
// xconv_direct_choose picks first, then the cheapest others by the model. Returns their count
// (0: none fits).
int xconv_direct_candidates(const xconv_device_info *info, const xconv_problem *p,
                            xconv_direct_kind kind, xconv_direct_tiling *out, int max);

// Writes t as the forced-tiling entry of `kind` ("direct_const:wg_w,wg_h,block_w,block_h,
// block_k,strip,flat,unroll_c,repeat,vec_q") into buf; returns the length, as snprintf does.
int xconv_direct_tiling_format(xconv_direct_kind kind, const xconv_direct_tiling *t, char *buf,
                               size_t len);

// Adds to plan the one step of `kind` on p (problem and tiling defines, arguments x, w as a
// constant for direct_const, y) from xconv_direct_choose's tiling under opts, and its summary.
// With an epilogue the step applies the bias and activation, and the max-pool too when its
// windows are as wide as their stride and unpadded and a tiling gives each work-item whole
// windows (else plan->epi_note says why not). Returns XCONV_OK or its status.
xconv_status xconv_direct_plan(const xconv_device_info *info, const xconv_problem *p,
                               xconv_direct_kind kind, const xconv_plan_options *opts,
                               xconv_plan *plan, xconv_error *err);

// The tiled variants' planner (their xconv_variant.plan): xconv_direct_plan of the kind of
// plan->variant on dev.
xconv_status xconv_direct_plan_variant(const xconv_device *dev, const xconv_problem *p,
                                       const xconv_plan_options *opts, xconv_plan *plan,
                                       xconv_error *err);

#endif // XCONV_PLAN_DIRECT_H
