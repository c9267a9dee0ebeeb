// SPDX-License-Identifier: MIT
// The GEMM planner: tile sizes for cl/sgemm.cl chosen from a device's limits, the defines and
// launch geometry of one product, and our SGEMM on raw matrices (for `xconv bench --gemm`).
#ifndef XCONV_PLAN_GEMM_H
#define XCONV_PLAN_GEMM_H

#include "plan.h"

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
typedef struct xconv_gemm_layout {
    xconv_gemm_mode mode;
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int64_t seg, b_seg_stride, c_seg_stride;
    int64_t a_group_stride, b_group_stride, c_group_stride;
    int64_t groups;
} xconv_gemm_layout;

// Work-items per work-group of t.
size_t xconv_gemm_threads(const xconv_gemm_tiles *t);

// Local memory t declares (both double-buffer halves), in bytes.
size_t xconv_gemm_local_bytes(const xconv_gemm_tiles *t);

// Returns true when t compiles and launches on info's device for B mode `mode` with B loaded as
// vectors of vec_b floats (work-group size and dims, local memory, even load splits), else
// false with the reason in why.
bool xconv_gemm_tiles_fit(const xconv_device_info *info, const xconv_gemm_tiles *t,
                          xconv_gemm_mode mode, int vec_b, char *why, size_t len);

// Chooses tiles for layout L on info's device from the candidates of its kind (GPU or CPU),
// scoring padded work, work-group count against compute units, and tile efficiency. Returns
// true and fills *out, or false when no candidate fits the device.
bool xconv_gemm_choose_tiles(const xconv_device_info *info, const xconv_gemm_layout *L,
                             xconv_gemm_tiles *out);

// Adds L's and t's defines to plan and a step running `kernel` of cl/<source>.cl over L's whole
// extent. Returns XCONV_OK, or XCONV_ERR_NOT_APPLICABLE when L passes the 32-bit index range.
xconv_status xconv_gemm_plan_step(const xconv_device_info *info, const xconv_gemm_layout *L,
                                  const xconv_gemm_tiles *t, const char *source,
                                  const char *kernel, xconv_plan *plan, xconv_error *err);

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
void xconv_gemm_step_set_cols(xconv_step *step, const xconv_plan *plan, int64_t cols);

// ---------------------------------------------------------------------------------------------
// Our SGEMM on raw row-major matrices

// Plans C (m x n) = A (m x k) * B (k x n) with cl/sgemm.cl on dev. Returns XCONV_OK, or
// XCONV_ERR_OUT_OF_MEMORY when a matrix passes the device's largest allocation or the 32-bit
// index range, or XCONV_ERR_NOT_APPLICABLE when no tiles fit the device.
xconv_status xconv_sgemm_plan(const xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              xconv_plan *plan, xconv_error *err);

// Enqueues the planned product on buffers a, b, c (asynchronously); returns the launch status.
xconv_status xconv_sgemm_run(xconv_device *dev, const xconv_plan *plan, xconv_buffer *a,
                             xconv_buffer *b, xconv_buffer *c, xconv_error *err);

#endif // XCONV_PLAN_GEMM_H
