// SPDX-License-Identifier: MIT
// Planning options (xconv_plan_options): each family's forced choices, the epilogue and batch
// modes, their defaults and their range check. Included by <xconv/plans.h>.
#ifndef XCONV_PUBLIC_PLAN_OPTIONS_H
#define XCONV_PUBLIC_PLAN_OPTIONS_H

#include <stdint.h>

#include <xconv/core.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// How a plan applies its problem's epilogue (xconv_plan_options.epilogue).
typedef enum xconv_epilogue_mode {
    XCONV_EPILOGUE_AUTO = 0,     // fused into the variant's store where it can, steps for the rest
    XCONV_EPILOGUE_FUSED = 1,    // all fused, else the variant does not apply
    XCONV_EPILOGUE_UNFUSED = 2,  // the convolution alone, then a bias+activation step and a
                                 // max-pool step (the baseline fusion is measured against)
} xconv_epilogue_mode;

// Planning options: forced plans and overrides for experiments; defaults let planners choose.
// Each family's forced choice is a struct of its own; all zeros (xconv_plan_options_default)
// forces nothing. xconv_plan_create refuses a forced field out of its range with
// XCONV_ERR_INVALID naming it ("gemm_tiles.vw"); a forced choice in range that does not fit the
// problem or the device is the variant's refusal (XCONV_ERR_INVALID or
// XCONV_ERR_NOT_APPLICABLE, saying why).

// The direct kernels a forced tiling is for (xconv_forced_direct_tiling.kernel).
typedef enum xconv_direct_kernel {
    XCONV_DIRECT_KERNEL_NONE = 0,      // the entry forces nothing
    XCONV_DIRECT_KERNEL_CONST = 1,     // direct_const
    XCONV_DIRECT_KERNEL_TILED = 2,     // direct_tiled
    XCONV_DIRECT_KERNEL_TILED_DB = 3,  // direct_tiled_db
    XCONV_DIRECT_KERNEL_REGBLOCK = 4,  // direct_regblock
} xconv_direct_kernel;

// Entries of xconv_plan_options.direct_tiling: one for each direct kernel.
#define XCONV_DIRECT_TILINGS_MAX 4

// A forced tiling of one direct kernel. Work-item (tx, ty) of a work-group computes block_k
// output channels at block_h rows x block_w columns of outputs; every field is taken as given.
typedef struct xconv_forced_direct_tiling {
    int kernel;            // an xconv_direct_kernel; XCONV_DIRECT_KERNEL_NONE: an unused entry
                           // (then every field is 0)
    int wg_w, wg_h;        // work-group: work-items along the columns and the rows, >= 1
    int block_w, block_h;  // outputs per work-item along the columns and the rows, >= 1
    int block_k;           // output channels per work-item; 0: all K/groups of a group
    int strip;             // 1: an item's columns are consecutive, 0: wg_w apart
    int flat;              // 1: 1-D work-groups of wg_w items numbering blocks, no tile
    int unroll_c;          // 1: the channel loop is unrolled (direct_const)
    int repeat;            // blocks per work-item one after another (flat regblock), 0 to 64
    int vec_q;             // 0, or 4, 8 or 16: an item's block_w columns as one vector
                           // (direct_const)
} xconv_forced_direct_tiling;

// Forced tiles of the GEMM family's cl/sgemm.cl (and of the Winograd family's batched GEMM).
// All zeros: chosen per product; else tm to pad are taken as given.
typedef struct xconv_forced_gemm_tiles {
    int tm, tn, tk;  // block of C per work-group, k per local-memory step (tk a multiple of 4)
    int wm, wn;      // block of C per work-item (dividing tm and tn)
    int vw;          // local fragment reads: 4 (float4) or 1
    int pad;         // floats of padding per local row, >= 0, a multiple of vw
    int split;       // split-K as xconv_plan_options.gemm_split_k (which must then agree, or be
                     // 0): 1 no split, 2..16 K slices; 0: the planner's model
} xconv_forced_gemm_tiles;

// A forced block of the fused Winograd variants (cl/winograd_fused.cl). All zeros: searched.
typedef struct xconv_forced_wino_block {
    int tb;   // tiles per work-group, >= 1
    int kb;   // output channels per work-group, >= 1
    int cc;   // input channels per step, >= 1
    int wt;   // tiles per work-item (the work-group path), >= 1
    int wk;   // output channels per work-item, >= 1
    int vec;  // 0: the work-group path; 8 or 16: OpenCL's vector path, vec tiles as lanes per
              // work-item
} xconv_forced_wino_block;

// Forced tiles of implicit_mma (both pipelines: cl/implicit_mma.cl, cl/implicit_mma_packed.cl).
// All zeros: chosen per product; else tm to wn are taken as given and checked against what the
// kernels take (the planner refuses others with XCONV_ERR_NOT_APPLICABLE saying why).
typedef struct xconv_forced_mma_tiles {
    int tm, tn;      // block of C per work-group: rows (filters) and columns (output positions)
    int tk;          // k elements per K step (per stage of the packed ring): 8 words or more
    int wm, wn;      // warps along the rows and the columns
    int stages;      // the packed ring's stages, 2 to 4; 0: the most the local memory holds
} xconv_forced_mma_tiles;

// Where a plan's kernels take the batch size N from (xconv_plan_options.runtime_batch).
typedef enum xconv_batch_mode {
    XCONV_BATCH_DEFAULT = 0,  // the variant's default: at run time where that was measured to
                              // cost under 2%, else baked (docs/guide/compile.md)
    XCONV_BATCH_RUNTIME = 1,  // an argument of every step whose other defines allow it
    XCONV_BATCH_BAKED = 2,    // compiled into every program (-DXC_N=32)
} xconv_batch_mode;

// The planning options.
typedef struct xconv_plan_options {
    // forces the direct family's tilings: at most one entry per kernel, in any order, unused
    // entries XCONV_DIRECT_KERNEL_NONE; a kernel without an entry is searched
    xconv_forced_direct_tiling direct_tiling[XCONV_DIRECT_TILINGS_MAX];
    xconv_forced_gemm_tiles gemm_tiles;  // forces the GEMM tiles; zeros: chosen per product
    int64_t batch_chunk;        // most images per im2col pass; 0: as many as fit
    int gemm_split_k;           // forces the GEMM family's split-K: 1 no split, 2..16 K slices
                                // (fewer where K has fewer steps); 0: chosen per product
    int64_t winograd_chunk;     // most images per pass of the non-fused Winograd variants; 0: as
                                // many as fit the workspace budget
    xconv_forced_wino_block winograd_fused;  // forces the fused Winograd block; zeros: searched
    int epilogue;               // an xconv_epilogue_mode: how a problem's epilogue is planned
    int fft_tile_h, fft_tile_w; // forces the FFT family's transform size (fft_tiled: the tile;
                                // fft: at least the padded image), 2^a 3^b 5^c; 0: chosen
    int64_t fft_chunk;          // most images per FFT pass; 0: as many as fit
    int runtime_batch;          // an xconv_batch_mode: whether the batch size N is compiled
                                // into each program (XC_N) or passed to the kernels as an
                                // argument, so that one program serves every batch (steps whose
                                // other defines depend on N keep it compiled in:
                                // xconv_plan_summary says which). 0: each variant's default
    int fp32_math;              // 0: the problem's math mode; 1: strict fp32 math even where
                                // the problem allows tf32, f16 or bf16 math (more accurate than
                                // asked, never less; the same storage), as auto's fp32 lines
                                // and find's "f32" tunings plan
    int fft_planes;             // forces the real planes per work-group of the FFT family's
                                // transforms: 2, 4 or 8 (1, 2 or 4 pairs; the results do not
                                // depend on it); 0: chosen from the device's local memory
    int fft_gemm[5];            // forces fft_cgemm's tiles TM,TN,TK,WM,WN; zeros: chosen
    int mma_pipeline;           // implicit_mma's pipeline: 0 the planner's choice; 1
                                // registers double-buffered from x and w as stored; 2 x and w
                                // packed into the workspace (channels fastest) and fed through
                                // a cp.async ring (cl/implicit_mma_packed.cl); 3 as 2 but B
                                // read from x as it lies, not packed (1x1, stride 1, unpadded,
                                // one group: the choice of 0 wherever 2 is chosen and it fits)
    xconv_forced_mma_tiles mma_tiles;  // forces implicit_mma's tiles; zeros: chosen per product
    int mma_split_k;            // forces the packed pipeline's split-K: 1 no split, 2..16 K
                                // slices (fewer where K has fewer steps); 0: chosen per product
    int runtime_dims;           // an xconv_batch_mode for the problem's other sizes (C, H, W,
                                // K, P, Q): compiled into each program (the default, 0, and
                                // XCONV_BATCH_BAKED) or, with XCONV_BATCH_RUNTIME, passed to
                                // the kernels as arguments with the batch size, so that the
                                // layers of a network that plan the same tiles share programs.
                                // Taken by the GEMM steps of implicit_gemm, implicit_precomp
                                // (and its offset table) and gemm_1x1 and their split-K reduce,
                                // without a fused pool; every other step keeps them compiled in
                                // (xconv_plan_summary says which)
    // Later versions append fields here; xconv_plan_options_default sets every one.
} xconv_plan_options;

// Fills *opts with the defaults (nothing forced).
void xconv_plan_options_default(xconv_plan_options *opts);

// Returns XCONV_OK when every field of opts (NULL: the defaults) is in its range, else
// XCONV_ERR_INVALID naming the first field that is not ("direct_tiling[1].vec_q"). Whether a
// forced choice fits a problem and a device is the planner's to say (xconv_plan_create).
xconv_status xconv_plan_options_check(const xconv_plan_options *opts, xconv_error *err);

XCONV_API_END

#endif // XCONV_PUBLIC_PLAN_OPTIONS_H
