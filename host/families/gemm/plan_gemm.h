// SPDX-License-Identifier: MIT
// The GEMM planner: tile sizes for cl/sgemm.cl chosen from a device's limits (plan_gemm.c), the
// defines and launch geometry of one product, and our SGEMM on raw matrices (gemm_step.c).
#ifndef XCONV_PLAN_GEMM_H
#define XCONV_PLAN_GEMM_H

#include "plan/plan.h"

// Where the GEMM's B operand comes from (XC_GEMM_B_MODE in cl/sgemm.cl).
typedef enum xconv_gemm_mode {
    XCONV_GEMM_B_MEMORY = 0,    // a matrix in memory
    XCONV_GEMM_B_GATHER = 1,    // gathered from the image (implicit GEMM)
    XCONV_GEMM_B_TABLE = 2,     // gathered through a precomputed offset table
} xconv_gemm_mode;

// The tile parameters of cl/sgemm.cl.
typedef struct xconv_gemm_tiles {
    int tile_m, tile_n, tile_k;  // block of C per work-group, k per local-memory step
    int wpt_m, wpt_n;            // block of C per work-item (register blocking)
    int vw;                      // local fragment reads: 4 (float4) or 1
    int pad;                     // floats of padding per local row
} xconv_gemm_tiles;

// The product C (m x n) = A (m x k) * B (k x n) and where its operands live, in elements.
// Columns of B and C are split into segments of `seg` columns (n for one segment), segment i
// starting at i * *_seg_stride; the launch's third dimension runs over `groups` products.
// split_k > 1 divides the reduction into that many slices of whole K steps (split-K): the GEMM
// step then writes partial products to a workspace region (xconv_gemm_split_bytes) and a
// reduce step (xconv_gemm_plan_reduce) sums them into C; 0 or 1: no split.
typedef struct xconv_gemm_layout {
    xconv_gemm_mode mode;
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int64_t seg, b_seg_stride, c_seg_stride;
    int64_t a_group_stride, b_group_stride, c_group_stride;
    int64_t groups;
    int split_k;
    int64_t taps;  // B mode GATHER: filter taps (r x s) of each input channel in K; else 0
    // A convolution's product as cl/sgemm.cl derives it from the problem's sizes (B x itself or
    // gathered from it, conv_layout's strides): the step may take the sizes at run time, and
    // does where the plan's options ask (xconv_plan_runtime_dims) and no fused pool needs them.
    bool runtime_dims;
} xconv_gemm_layout;

// What the kernels' defines derive from a layout and its tiles (see xconv_gemm_plan_step).
typedef struct xconv_gemm_derived {
    int vec_a, vec_b, vec_c;  // vector widths of A's and B's loads and C's stores
    int unroll_k;             // 1: the k loop of a step is unrolled (GPUs)
    int64_t table_ld;         // B mode TABLE: rows of the offset table
    int table_const;          // B mode TABLE: 1 when the table is in constant memory
    int table_local;          // B mode TABLE: 1 when work-groups copy it to local memory
    int64_t split_steps;      // split-K: K steps of one slice
    int64_t part_ld;          // split-K: row stride of a partial C
    int roll_steps;           // 1: the K-step loop is kept rolled (xconv_gemm_roll_steps)
} xconv_gemm_derived;

// The most K slices a split-K product is divided into.
#define XCONV_GEMM_SPLIT_MAX 16


// Work-items per work-group of t.
size_t xconv_gemm_threads(const xconv_gemm_tiles *t);

// Local memory t declares (both double-buffer halves), in bytes.
size_t xconv_gemm_local_bytes(const xconv_gemm_tiles *t);

// Returns true when t compiles and launches on info's device for B mode `mode` with B loaded as
// vectors of vec_b floats (work-group size and dims, local memory, even load splits), else
// false with the reason in why.
bool xconv_gemm_tiles_fit(const xconv_device_info *info, const xconv_gemm_tiles *t,
                          xconv_gemm_mode mode, int vec_b, char *why, size_t len);

// 32-bit values a work-item of t holds at once in B mode `mode`'s k loop: its WPT_M x WPT_N
// accumulators, one k's A and B fragments, and the next K step's A and B loads, held in
// registers while this step multiplies (a gathered or table B load counts twice: its offset
// is live beside its value). The planner's candidates keep this under the device's registers
// a work-item (xconv_registers_fit); on an H100 no rule applies (the device does not say).
int64_t xconv_gemm_tile_registers(const xconv_gemm_tiles *t, xconv_gemm_mode mode);

// True when the K-step loop of t over `steps` K steps (a slice's, or the product's) is kept
// rolled on info's device: when the values a work-item would hold were the loop unrolled whole,
// xconv_gemm_tile_registers plus each further step's fragments (TILE_K x (WPT_M + WPT_N)) and
// loads, do not fit its registers (xconv_registers_fit). AMD's compiler unrolls a loop of a few
// steps whole and reads every step's fragments ahead (gemm_1x1 on pw1x1 on gfx1030: 4x4 blocks,
// 2 slices of 4 steps, 256 VGPRs and 14 spilled unrolled, 86 rolled); where the device does
// not say its registers (NVIDIA, CPUs), never.
bool xconv_gemm_roll_steps(const xconv_device_info *info, const xconv_gemm_tiles *t,
                           xconv_gemm_mode mode, int64_t steps);

// The vector width of B's global loads for L with tiles t: 4 when every column run of 4 is
// contiguous and 16-byte aligned in memory and in the local tile, else 1.
int xconv_gemm_b_vector(const xconv_gemm_layout *L, const xconv_gemm_tiles *t);

// Chooses tiles for layout L on info's device from the candidates of its kind (GPU or CPU),
// scoring padded work, work-group count against compute units, and tile efficiency, among
// those whose registers fit (xconv_gemm_tile_registers); `forced`
// (xconv_plan_options.gemm_tiles, its split read by xconv_gemm_choose; NULL or all zeros:
// none) replaces the choice. Returns XCONV_OK and fills *out, or XCONV_ERR_NOT_APPLICABLE when
// no candidate (or the forced tiles) fits the device.
xconv_status xconv_gemm_choose_tiles(const xconv_device_info *info, const xconv_gemm_layout *L,
                                     const xconv_forced_gemm_tiles *forced,
                                     xconv_gemm_tiles *out, xconv_error *err);

// Chooses the tiles and the split of L on info's device under opts (NULL: defaults): the tiles
// of xconv_gemm_choose_tiles unsplit while they fill a wave of the device (the work-groups its
// compute units hold at once); for fewer tiles, those or the best pair of a tile candidate (the
// small-output candidates included) and a split of 2 to XCONV_GEMM_SPLIT_MAX K slices, by a
// model of the busiest compute unit's work plus the partials' traffic and the reduce launch.
// Forced tiles get the split of that model. opts->gemm_split_k (or the forced tiles' eighth
// field) forces the split (1: none). Returns
// XCONV_OK and fills *t and L->split_k (normalised: no empty slice), XCONV_ERR_INVALID for
// conflicting forced values, or XCONV_ERR_NOT_APPLICABLE.
xconv_status xconv_gemm_choose(const xconv_device_info *info, xconv_gemm_layout *L,
                               const xconv_plan_options *opts, xconv_gemm_tiles *t,
                               xconv_error *err);

// Returns the split opts force (gemm_split_k, else the forced tiles' split), 0 for none.
int xconv_gemm_forced_split(const xconv_plan_options *opts);

// Returns t and split (below 1: 1) as forced tiles (the planning option).
xconv_forced_gemm_tiles xconv_gemm_forced(const xconv_gemm_tiles *t, int split);

// Returns `parts` limited to L's K steps under t and reduced until no slice is empty (1 for
// parts < 2): the split xconv_gemm_plan_step builds.
int xconv_gemm_split_normalize(const xconv_gemm_layout *L, const xconv_gemm_tiles *t, int parts);

// K steps of one slice of L's split under t (all K steps without a split).
int64_t xconv_gemm_split_steps(const xconv_gemm_layout *L, const xconv_gemm_tiles *t);

// Row stride of L's partial products: n rounded up to 4 (16-byte rows).
int64_t xconv_gemm_part_ld(const xconv_gemm_layout *L);

// Bytes of L's partial products (groups x split_k slices of m x part_ld floats); 0 unsplit.
size_t xconv_gemm_split_bytes(const xconv_gemm_layout *L);

// Adds plan's summary line of product L's split-K with tiles t ("split-K: S K slices of N steps
// (... MiB of partials), then a reduce in slice order", with "that applies the epilogue" when
// epilogue is true); adds nothing when L is not split.
void xconv_gemm_summarize_split(xconv_plan *plan, const xconv_gemm_layout *L,
                                const xconv_gemm_tiles *t, bool epilogue);

// True when the steps of L (its GEMM and split-K reduce) for problem p (NULL: raw matrices)
// take the problem's sizes and the batch as arguments: where L asks for it (runtime_dims) and
// no fused pool needs them compiled in.
bool xconv_gemm_takes_sizes(const xconv_problem *p, const xconv_gemm_layout *L);

// True when GEMM define `name` (common/xconv_gemm_params.h) is left out of step s: XC_GEMM_N
// where s takes the batch at run time, every one of XCONV_GEMM_SHAPE_FIELDS where it takes the
// sizes.
bool xconv_gemm_left_out(const xconv_step *s, const char *name);

// Appends the reduce step of split-K product L (cl/splitk_reduce.cl): C's `cols` columns from
// element c_offset of tensor c_ref = the sum of the partials in workspace region `region`, in
// slice order, with p's defines first (p NULL: none). The step applies `parts` of p's epilogue
// (XCONV_FUSED_* bits, through xconv_step_fuse_epilogue; 0 or p NULL: none); with the pool, C
// is p's convolution output (columns whole images of P x Q, c_offset at an image's first
// output) and the step writes those images' pooled outputs into y's layout instead. Returns
// XCONV_OK, or XCONV_ERR_OUT_OF_MEMORY without host memory (or the first define's failure).
xconv_status xconv_gemm_plan_reduce(const xconv_device_info *info, const xconv_problem *p,
                                    const xconv_gemm_layout *L, xconv_plan *plan, int region,
                                    xconv_tensor_ref c_ref, int64_t c_offset, int64_t cols,
                                    unsigned parts, xconv_error *err);

// Fills out (at most max) with every candidate tile set of the planner, the lists of info's
// kind of device first and then the other kind's (those that do not fit a product are refused
// when it is planned); returns their count.
int xconv_gemm_tile_candidates(const xconv_device_info *info, xconv_gemm_tiles *out, int max);

// Writes t as forced tiles "TM,TN,TK,WM,WN,VW,PAD" into buf; returns the length, as snprintf.
int xconv_gemm_tiles_format(const xconv_gemm_tiles *t, char *buf, size_t len);

// The tuning space of L on info's device: every candidate tile set that fits (those of
// xconv_gemm_tile_candidates and the small-output ones) with each split of 1, 2, 3, 4, 6, 8, 12
// and 16 K slices (normalised, duplicates dropped), ordered by the planner's model, cheapest
// first. Fills tiles[i] and splits[i] (at most max); returns their count.
int xconv_gemm_search_space(const xconv_device_info *info, const xconv_gemm_layout *L,
                            xconv_gemm_tiles *tiles, int *splits, int max);

// Writes t and split as forced tiles "TM,TN,TK,WM,WN,VW,PAD,SPLIT" into buf (the form a tuning
// keeps); returns the length, as snprintf.
int xconv_gemm_tuning_format(const xconv_gemm_tiles *t, int split, char *buf, size_t len);

// Appends a step labelled `label` running `kernel` of cl/<source>.cl over L's whole extent,
// with p's defines first (p NULL: none) and then L's and t's (common/xconv_gemm_params.h), into
// *out. Under split-K (L->split_k > 1) the step writes partials: C is then the workspace region
// of xconv_gemm_split_bytes(L) and the launch's third dimension runs over groups x slices.
// Returns XCONV_OK, or XCONV_ERR_NOT_APPLICABLE when L passes the 32-bit index range.
xconv_status xconv_gemm_plan_step(const xconv_device_info *info, const xconv_problem *p,
                                  const xconv_gemm_layout *L, const xconv_gemm_tiles *t,
                                  const char *label, const char *source, const char *kernel,
                                  xconv_plan *plan, xconv_step **out, xconv_error *err);

// The most bytes of offset table kept in constant memory (CUDA's __constant__ limit).
#define XCONV_GEMM_CONST_TABLE_MAX (64u << 10)

// Rows of the offset table of L with tiles t (mode XCONV_GEMM_B_TABLE): K rounded up to whole
// K steps. The table holds two ints per row.
int64_t xconv_gemm_table_rows(const xconv_gemm_layout *L, const xconv_gemm_tiles *t);

// Returns true when L's offset table (mode XCONV_GEMM_B_TABLE) goes to constant memory: it fits
// the device's constant buffer and XCONV_GEMM_CONST_TABLE_MAX; false for a global table.
bool xconv_gemm_table_const(const xconv_device_info *info, const xconv_gemm_layout *L,
                            const xconv_gemm_tiles *t);

// Returns true when L's offset table fits in local memory beside t's tiles on a GPU: each
// work-group then copies it there once and reads it from local memory (global or constant reads
// of it ran up to 1.7x slower through NVIDIA's OpenCL than through CUDA). Not on CPUs: PoCL 3.1
// reads zeros through the local table's pointer inside the inlined body.
bool xconv_gemm_table_local(const xconv_device_info *info, const xconv_gemm_layout *L,
                            const xconv_gemm_tiles *t);

// Sets the column extent of a planned GEMM step to `cols` (a partial chunk of images).
void xconv_gemm_step_set_cols(xconv_step *step, int64_t cols);

// ---------------------------------------------------------------------------------------------
// Our SGEMM on raw row-major matrices

// The problem whose tensors are SGEMM's operands: C (m x n) = A (m x k) * B (k x n) is a 1x1
// convolution of one image with x = B (k channels of 1 x n), w = A and y = C.
xconv_problem xconv_sgemm_problem(int64_t m, int64_t n, int64_t k);

// Returns XCONV_OK when the three matrices of m x n x k fit dev's allocations, memory and the
// 32-bit index range as fp32 (so in every storage type), XCONV_ERR_INVALID for a size under 1,
// else XCONV_ERR_OUT_OF_MEMORY with the numbers.
xconv_status xconv_gemm_check_size(const xconv_device *dev, int64_t m, int64_t n, int64_t k,
                                   xconv_error *err);

// Plans C = A * B of xconv_sgemm_problem(m, n, k) with cl/sgemm.cl on dev under opts (NULL:
// defaults) into *out, with the tiles and split of xconv_gemm_choose (forced by gemm_tiles and
// gemm_split_k); run it with tensors x = B, w = A, y = C and, when split, a workspace of the
// plan's size (the partials; a reduce step then writes C). Returns XCONV_OK, or
// XCONV_ERR_OUT_OF_MEMORY when a matrix passes the device's largest allocation or the 32-bit
// index range, XCONV_ERR_NOT_APPLICABLE when no tiles fit the device, or XCONV_ERR_PARSE or
// XCONV_ERR_INVALID for malformed or conflicting forced values.
xconv_status xconv_sgemm_plan(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              const xconv_plan_options *opts, xconv_plan **out,
                              xconv_error *err);

// Plans the same product through the backend's vendor BLAS (one VENDOR_SGEMM step) into *out,
// with A and B in storage type dtype, C fp32 and products in math mode math (both
// XCONV_*_F32: SGEMM; the pairs xconv_problem_check allows). The plan's problem carries dtype
// and math, so its x (B) and w (A) are of that type and y (C) is at most fp32's size. Whether
// the backend's library runs a reduced pair is its slot's to say when the plan runs
// (XCONV_ERR_NOT_APPLICABLE). Returns XCONV_OK, XCONV_ERR_UNAVAILABLE when the backend has no
// vendor BLAS, or XCONV_ERR_INVALID for a pair the problem refuses.
xconv_status xconv_vendor_gemm_plan(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                                    int64_t dtype, int64_t math, xconv_plan **out,
                                    xconv_error *err);

#endif // XCONV_PLAN_GEMM_H
