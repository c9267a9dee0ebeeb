// SPDX-License-Identifier: MIT
// The tensor-core implicit GEMM (cl/implicit_mma.cl): when a device has NVIDIA tensor cores, and
// the tiles and launch of one convolution's product on them.
#ifndef XCONV_PLAN_MMA_H
#define XCONV_PLAN_MMA_H

#include "plan/plan.h"

// The lowest compute capability whose tensor cores run mma.sync with TF32, fp16 and bf16
// operands and fp32 accumulation (m16n8k8 TF32, m16n8k16 bf16: sm_80 and later).
#define XCONV_MMA_MIN_CC_MAJOR 8

// The tiles of cl/implicit_mma.cl: a tile_m x tile_n block of C per work-group of warps_m x
// warps_n warps, k walked tile_k elements at a time.
typedef struct xconv_mma_tiles {
    int tile_m, tile_n, tile_k;
    int warps_m, warps_n;
} xconv_mma_tiles;

// Returns true when info's device reports NVIDIA tensor cores that run mma.sync in every mode
// the kernel uses: compute capability XCONV_MMA_MIN_CC_MAJOR.0 or later (the CUDA backend's
// device attribute; on OpenCL cl_nv_device_attribute_query's), else false.
bool xconv_mma_supported(const xconv_device_info *info);

// Chooses the tiles for p (math tf32, f16 or bf16) on info's device: the narrowest block of rows
// that holds a group's filters (16, 32 or 64) by 128 columns on four warps, or 128 x 128 on
// eight warps for wide products whose tiles still fill the device's compute units, where its
// local memory and work-group size hold them. Fills *t.
void xconv_mma_choose(const xconv_device_info *info, const xconv_problem *p,
                      xconv_mma_tiles *t);

// Returns true when opts (NULL: none) force implicit_mma's tiles (xconv_plan_options.mma_tiles);
// then fills *t with them and *stages with the forced ring's stages (0: the most that fit).
bool xconv_mma_forced_tiles(const xconv_plan_options *opts, xconv_mma_tiles *t, int *stages);

// Returns true when the kernels take tiles t in math mode `math`, on the packed pipeline
// (packed) or the register one: warp tiles of whole 16 x 16 tiles and at most 128 sums a lane,
// a power-of-two count of at most 32 warps, K steps of 8, 16 or 32 words (tf32: 8, 16 or 32
// elements; f16, bf16: 16, 32 or 64), and for the register pipeline A and B blocks that split
// evenly over the work-items, a fixed column of B a work-item. Else false, with why.
bool xconv_mma_tiles_take(const xconv_mma_tiles *t, int64_t math, bool packed, char *why,
                          size_t len);

// Returns true when the kernel walks p's reduction as (r, s, c), channels fastest
// (XC_MMA_RSC): a group's channels fill whole K steps of t.
bool xconv_mma_channels_first(const xconv_problem *p, const xconv_mma_tiles *t);

// Bytes of local memory t declares for math mode `math` (both K-step buffers).
size_t xconv_mma_local_bytes(const xconv_mma_tiles *t, int64_t math);

// Appends the implicit_mma step for p on info's device with tiles t (arguments x, w, y) and the
// summary line. Returns XCONV_OK, XCONV_ERR_NOT_APPLICABLE when p passes the kernel's 32-bit
// index range or t does not fit the device, or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_mma_plan_step(const xconv_device_info *info, const xconv_problem *p,
                                 const xconv_mma_tiles *t, xconv_plan *plan, xconv_error *err);

// The packed-operand pipeline (cl/implicit_mma_packed.cl): x and the filters packed into the
// workspace, channels fastest and padded to whole 16-byte chunks, then the product fed through
// a ring of `stages` local-memory stages by 16-byte cp.async copies.

// The pipelines of implicit_mma (xconv_plan_options.mma_pipeline): the planner's choice,
// registers double-buffered from x and w as stored, packed operands (x packed too), and packed
// filters with B copied from x as it lies (xconv_mma_direct_b_applies; the planner's packed
// pipeline wherever it applies).
enum {
    XCONV_MMA_PIPELINE_AUTO = 0,
    XCONV_MMA_PIPELINE_REGISTERS = 1,
    XCONV_MMA_PIPELINE_PACKED = 2,
    XCONV_MMA_PIPELINE_DIRECT_B = 3,
};

// Whether the packed product can read B straight from x for p with tiles t (XC_MMA_B_DIRECT):
// a 1x1 filter, stride 1, no padding, one group, H W a multiple of a 16-byte chunk's pixels (8
// fp16/bf16, 4 fp32) and TN of 8 chunks (64 columns in f16/bf16, 32 in tf32). When not, and
// `why` is not NULL, writes the first condition it fails there.
bool xconv_mma_direct_b_applies(const xconv_problem *p, const xconv_mma_tiles *t, char *why,
                                size_t len);

// Channels of a group as packed: p's rounded up to a 16-byte chunk of the math mode's words (4
// TF32 values, 8 fp16 or bf16).
int64_t xconv_mma_packed_channels(const xconv_problem *p);

// The channel block of the tiled filter packing (XC_MMA_PACK_W_CHUNKS) for p on info's device,
// in 16-byte chunks: 0 (untiled, a work-item a chunk) for a 1x1 filter or where one chunk a tap
// does not fit; else the fewest blocks of a group's CP channels whose local rows (R S rows of
// the block's chunks and a spare chunk, 16 bytes each) fit a quarter of the device's local
// memory, made even.
int xconv_mma_pack_w_chunks(const xconv_device_info *info, const xconv_problem *p);

// Bytes of local memory the tiled filter packing declares for blocks of `chunks` (0: none).
size_t xconv_mma_pack_w_local_bytes(const xconv_problem *p, int chunks);

// The packed pipeline's tiles for p on info's device: xconv_mma_choose's, 128 x 128 tiles on
// 2 x 4 warps of 64 x 32 instead of 4 x 4 of 32 x 32, or 128 x 128 over 64 x 128 where their
// split-K fills the device. Fills *t and *split with xconv_mma_split_choose's split for those
// tiles (1: none).
void xconv_mma_packed_choose(const xconv_device_info *info, const xconv_problem *p,
                             xconv_mma_tiles *t, int *split);

// Bytes of local memory of the packed kernel with tiles t and `stages` stages in math `math`.
size_t xconv_mma_packed_local_bytes(const xconv_mma_tiles *t, int64_t math, int stages);

// The stages of the packed ring on info's device: the most, up to 4, whose local memory fits;
// 0 when not even 2 fit.
int xconv_mma_packed_stages(const xconv_device_info *info, const xconv_mma_tiles *t,
                            int64_t math);

// The most K slices of the packed pipeline's split-K.
#define XCONV_MMA_SPLIT_MAX 16

// K steps of p's packed product with tiles t (the padded reduction R S CP in steps of tile_k).
int64_t xconv_mma_packed_steps(const xconv_problem *p, const xconv_mma_tiles *t);

// Returns `parts` limited to p's K steps under t and reduced until no slice is empty (1 for
// parts < 2): the split xconv_mma_plan_packed builds.
int xconv_mma_split_normalize(const xconv_problem *p, const xconv_mma_tiles *t, int parts);

// The fewest K steps a slice keeps under the planner's split. On the H100 in tf32, splits into
// slices of 43-48 steps ran faster (ResNet-50's res5_reduce and res5_3x3 at batch 50) and
// splits into two slices of 32 slower (res1x1 1.14x, res4_reduce 1.30x:
// 2026-11-28-h100-ac7949f-tf32_cudnn.json against 2026-11-27-h100-38e8a82-tf32_cudnn.json).
#define XCONV_MMA_SPLIT_MIN_STEPS 40

// The planner's split-K for p's packed product with tiles t on info's device: 1 (none) unless
// its tiles make under 1.5 waves of one work-group a compute unit and K holds at least twice
// XCONV_MMA_SPLIT_MIN_STEPS steps; then the split of 1 to XCONV_MMA_SPLIT_MAX slices (each of
// at least XCONV_MMA_SPLIT_MIN_STEPS steps, partials within a quarter of the largest
// allocation) that gives the busiest compute unit the fewest K steps, a slice's partial sums
// counted as the K steps that move as many bytes (written, then read by the reduce).
int xconv_mma_split_choose(const xconv_device_info *info, const xconv_problem *p,
                           const xconv_mma_tiles *t);


// Appends the packed pipeline for p on info's device with tiles t: the two packing steps (their
// workspace regions "packed w" and "packed x") and the product, and the summary line. The ring
// has `stages` stages (0: the most, up to 4, that fit). With split > 1 (normalised by
// xconv_mma_split_normalize) the product's K steps are cut into that many slices, each
// summed into fp32 partials (workspace region "split-K partials"), and a reduce step
// (cl/splitk_reduce.cl) adds them in slice order into y. Returns XCONV_OK,
// XCONV_ERR_NOT_APPLICABLE when p passes the kernels' 32-bit index range or t does not fit the
// device in two stages (or in the forced stages), or XCONV_ERR_OUT_OF_MEMORY. With direct_b
// (xconv_mma_direct_b_applies must hold) the product reads B from x: no "pack x" step or region.
xconv_status xconv_mma_plan_packed(const xconv_device_info *info, const xconv_problem *p,
                                   const xconv_mma_tiles *t, int stages, int split, bool direct_b,
                                   xconv_plan *plan, xconv_error *err);

#endif // XCONV_PLAN_MMA_H
