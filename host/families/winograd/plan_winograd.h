// SPDX-License-Identifier: MIT
// The Winograd planner: whether F(m x m, r x r) applies to a problem, the tile geometry, the
// work-groups and channel chunks of each step chosen from the device's limits, the workspace
// regions, and each step's typed parameters (their defines: common/xconv_winograd_params.h).
// Pure functions of the device's info and the problem.
#ifndef XCONV_PLAN_WINOGRAD_H
#define XCONV_PLAN_WINOGRAD_H

#include "families/gemm/plan_gemm.h"

// One Winograd algorithm: F(m x m, r x r) in four steps (filter transform, input transform,
// batched GEMM, output transform) or fused (filter transform, one kernel).
typedef struct xconv_wino_algo {
    int m;       // output tile side: 2 or 4 (r 3), 2 (r 5)
    int r;       // filter side: 3 or 5
    bool fused;
} xconv_wino_algo;

// cl/winograd_filter.cl's parameters (XCONV_WINO_FILTER_DEFINES).
typedef struct xconv_wino_filter_params {
    int m;
    int u_ck;    // layout of U: 0 [xi][k][c] (the GEMM's A), 1 [xi][g][c][k] (fused)
} xconv_wino_filter_params;

// cl/winograd_input.cl's and cl/winograd_output.cl's parameters (XCONV_WINO_TILE_DEFINES).
typedef struct xconv_wino_tile_params {
    int m;
    int64_t tiles_h, tiles_w;  // tiles per image: ceil(P / m) x ceil(Q / m)
    int64_t t_ld;              // columns of V and M: a chunk's tiles rounded up to 4
} xconv_wino_tile_params;

// cl/winograd_fused.cl's parameters (XCONV_WINO_FUSED_DEFINES).
typedef struct xconv_wino_fused_params {
    int m;
    int64_t tiles_h, tiles_w;
    int tile_block, k_block;   // output tiles x output channels per work-group
    int c_chunk;               // input channels per local-memory step
    int wpt_t, wpt_k;          // tiles x channels per work-item (per tile position)
    int vw;                    // local fragment reads: 4 or 1
    int unroll_c;              // 1: the chunk's channel loop is unrolled
    int vec;                   // CPUs: tiles per work-item as vector lanes (8 or 16), with
                               // tile_block = vec, k_block channels per work-item and wpt_k per
                               // register block; 0: the work-group path (GPUs)
} xconv_wino_fused_params;

// A launch's geometry: global work-items (a multiple of local) and the work-group size.
typedef struct xconv_wino_launch {
    int dims;
    size_t global[3], local[3];
    size_t local_mem_bytes;    // local memory the kernel declares
} xconv_wino_launch;

// The workspace regions, in order (each starts 256-byte aligned).
enum {
    XCONV_WINO_REGION_U,       // transformed filters: alpha^2 x K x C/groups
    XCONV_WINO_REGION_V,       // transformed input: alpha^2 x C x t_ld (non-fused)
    XCONV_WINO_REGION_M,       // element-wise products: alpha^2 x K x t_ld (non-fused)
    XCONV_WINO_REGION_P,       // split-K partials of the batched GEMM (non-fused, split only)
    XCONV_WINO_REGIONS
};

// The non-fused variants' four steps. Per pass over `chunk` images from n0: input transform
// (x, V, n0, images), GEMM (U, V, M, cols = images * tiles), output transform (M, y, n0,
// images); the filter transform (w, U) runs once before the first pass. When the GEMM is split
// (gemm.split_k > 1, chosen by xconv_gemm_choose) it writes its K slices into region P and a
// reduce step (cl/splitk_reduce.cl) adds them in slice order into M.
typedef struct xconv_wino_nonfused {
    xconv_wino_filter_params filter;
    xconv_wino_tile_params tiles;     // input and output transforms
    xconv_gemm_layout gemm;           // for xconv_gemm_plan_step with kernel sgemm_regions
                                      // (its split_k: the K slices, 1 unsplit)
    xconv_gemm_tiles gemm_tiles;
    int64_t chunk;                    // images per pass
    int64_t passes;                   // ceil(N / chunk)
    uint64_t region_bytes[XCONV_WINO_REGIONS];
    uint64_t workspace_bytes;         // all regions, each 256-byte aligned
    xconv_wino_launch filter_launch, input_launch, gemm_launch, output_launch;  // a full chunk
} xconv_wino_nonfused;

// The fused variants' two steps: filter transform (w, U), then winograd_fused (x, U, y).
typedef struct xconv_wino_fused {
    xconv_wino_filter_params filter;  // u_ck 1
    xconv_wino_fused_params params;
    uint64_t region_bytes[XCONV_WINO_REGIONS];  // U only
    uint64_t workspace_bytes;
    xconv_wino_launch filter_launch, fused_launch;
} xconv_wino_fused;

// Returns the region's name ("transformed filters", ...) for summaries and `explain`.
const char *xconv_wino_region_name(int region);

// Returns the byte offset of region `region` in a workspace holding region_bytes in order.
uint64_t xconv_wino_region_offset(const uint64_t region_bytes[XCONV_WINO_REGIONS], int region);

// Returns true when algorithm a applies to p on info's device (square r x r filter of a's size,
// stride 1, dilation 1, grids and workspace within the device's limits), else false with the
// reason in `reason`.
bool xconv_wino_applies(const xconv_device_info *info, const xconv_problem *p,
                        const xconv_wino_algo *a, char *reason, size_t len);

// Plans the non-fused F(m, p->r) for p on info's device under opts (NULL: defaults; it reads
// winograd_chunk, gemm_tiles and gemm_split_k: the batched GEMM's tiles and split are the GEMM
// planner's, xconv_gemm_choose). Returns XCONV_OK and fills *out, XCONV_ERR_PARSE or
// XCONV_ERR_INVALID for malformed or conflicting forced GEMM values, or
// XCONV_ERR_NOT_APPLICABLE with the reason (a forced split's partials past the workspace
// budget among them).
xconv_status xconv_wino_plan_nonfused(const xconv_device_info *info, const xconv_problem *p,
                                      int m, const xconv_plan_options *opts,
                                      xconv_wino_nonfused *out, xconv_error *err);

// Plans the fused F(m, p->r) for p on info's device under opts (NULL: defaults; it reads
// winograd_fused). Returns XCONV_OK and fills *out, or XCONV_ERR_NOT_APPLICABLE with the reason
// (no block sizes, or not the forced one, fit the device's limits).
xconv_status xconv_wino_plan_fused(const xconv_device_info *info, const xconv_problem *p, int m,
                                   const xconv_plan_options *opts, xconv_wino_fused *out,
                                   xconv_error *err);

// Returns the 32-bit registers a fused work-group may hold on info's device: the device's
// max_registers_per_work_group, or 32768 where it is unknown (0).
uint64_t xconv_wino_register_budget(const xconv_device_info *info);

// Work-items of a fused kernel with parameters f: alpha^2 x tile runs x channel runs.
size_t xconv_wino_fused_threads(const xconv_wino_fused_params *f, int r);

// Local memory a fused kernel with parameters f declares, in bytes.
size_t xconv_wino_fused_local_bytes(const xconv_wino_fused_params *f, int r);

// Multiplies of the element-wise stage per output of F(m, r), alpha^2 / m^2, against r^2 for
// direct convolution (both per input channel).
double xconv_wino_mults_per_output(int m, int r);

#endif // XCONV_PLAN_WINOGRAD_H
