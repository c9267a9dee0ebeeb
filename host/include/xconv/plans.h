// SPDX-License-Identifier: MIT
// Variants, plans and running them (xconv_plan_run, xconv_forward), tunings and the
// automatic choice.
#ifndef XCONV_PUBLIC_PLANS_H
#define XCONV_PUBLIC_PLANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/core.h>
#include <xconv/problem.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// ---------------------------------------------------------------------------------------------
// Variants (the registry of algorithms)

typedef struct xconv_variant xconv_variant;  // one algorithm; the registry is immutable

#define XCONV_BACKEND_BIT(kind) (1u << (kind))

// What a variant is.
typedef struct xconv_variant_info {
    const char *name;      // "direct_tiled"
    const char *family;    // "reference", "direct", "gemm", "peer", ...
    const char *summary;   // one line for listings
    const char *accuracy;  // the error threshold entry that applies: a family's ("direct",
                           // "gemm", ...) or a variant's own ("winograd_f43")
    const char *notes;     // numerical notes: "" or e.g. "winograd", "fft", "split-k reduction"
    unsigned backends;     // XCONV_BACKEND_BIT of each backend it runs on; 0: runs on the host
} xconv_variant_info;

// Returns the number of registered variants.
int xconv_variant_count(void);

// Returns variant `index` in listing order (0 <= index < xconv_variant_count()), else NULL.
const xconv_variant *xconv_variant_at(int index);

// Returns the variant called name, or NULL with XCONV_ERR_NOT_FOUND and the valid names.
const xconv_variant *xconv_variant_find(const char *name, xconv_error *err);

// Returns what v is (valid for the program's life).
const xconv_variant_info *xconv_variant_get_info(const xconv_variant *v);

// Returns true when v runs p on dev (dev NULL: on the host), else false with the reason in
// `reason` (len bytes; NULL: not written).
bool xconv_variant_applies(const xconv_variant *v, const xconv_device *dev,
                           const xconv_problem *p, char *reason, size_t len);

// ---------------------------------------------------------------------------------------------
// Plans

typedef struct xconv_plan xconv_plan;  // what a variant chose for one problem on one device

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

// The device buffers of one convolution; x, w and y hold elements of the problem's dtype
// (xconv_problem_elem_bytes each).
typedef struct xconv_tensors {
    xconv_buffer *x;          // N x C x H x W elements
    xconv_buffer *w;          // K x C/groups x R x S elements
    xconv_buffer *y;          // xconv_problem_y_elems elements: N x K x P x Q, or pooled
    xconv_buffer *bias;       // K floats when the problem has a bias epilogue, else NULL
    xconv_buffer *workspace;  // xconv_plan_workspace_size bytes, NULL when 0
} xconv_tensors;

// Plans p on dev with variant `variant`: a registry name, or "auto" (xconv_auto_choose: the
// device's find-db record for p when a cache with one is attached, else the rules of
// docs/find.md). opts NULL: defaults. dev NULL plans a host variant (cpu_ref): a plan of no steps
// that xconv_plan_forward runs on the host (xconv_plan_prepare and xconv_plan_run refuse it).
// Checks p (xconv_problem_check; with a device, xconv_problem_check_device) and opts first.
// Builds nothing (see xconv_plan_prepare). Returns NULL with XCONV_ERR_NOT_APPLICABLE and the
// reason when the variant does not apply, XCONV_ERR_OUT_OF_MEMORY when a tensor of p passes the
// device's largest allocation (as xconv_problem_check_device), or another status.
xconv_plan *xconv_plan_create(xconv_device *dev, const xconv_problem *p, const char *variant,
                              const xconv_plan_options *opts, xconv_error *err);

// Frees a plan (its programs stay cached by the device); NULL is ignored.
void xconv_plan_destroy(xconv_plan *plan);

// Returns the variant the plan runs ("auto" resolved).
const xconv_variant *xconv_plan_variant(const xconv_plan *plan);

// Returns the workspace the plan needs in bytes (0: none).
size_t xconv_plan_workspace_size(const xconv_plan *plan);

// Returns one line on what the planner chose (for explain and records).
const char *xconv_plan_summary(const xconv_plan *plan);

// The block of outputs (rows x columns of one output plane, blocks aligned at row and column 0)
// that the plan's algorithm computes together from the same transformed data: 1 x 1 for direct
// and GEMM variants, m x m for Winograd F(m x m, r x r), the transform's output tile for FFT
// variants. Their rounding error scales with the largest terms in the block, so validation
// normalises an element's error by the largest term magnitude in its block. Fills both.
void xconv_plan_error_block(const xconv_plan *plan, int64_t *block_h, int64_t *block_w);

// The parts of an epilogue a plan fuses into the convolution's own store (bits).
enum {
    XCONV_FUSED_BIAS_ACT = 1u << 0,  // the bias and the activation
    XCONV_FUSED_POOL = 1u << 1,      // the max-pool
};

// Returns the XCONV_FUSED_* parts of its problem's epilogue that the plan applies inside the
// convolution's store; the other parts run as steps after it (0 for problems without one).
unsigned xconv_plan_fused(const xconv_plan *plan);

// Returns the number of steps the plan enqueues per run.
int xconv_plan_step_count(const xconv_plan *plan);

// One step of a plan, for explain.
typedef struct xconv_plan_step_info {
    const char *label;          // "im2col", "SGEMM", "filter transform", ...
    const char *source;         // kernel file stem ("sgemm"); NULL for vendor library steps
    const char *kernel;         // entry point; the vendor algorithm for vendor steps
    int dims;
    size_t global[3], local[3]; // work-items
    size_t local_mem_bytes;     // (the step's defines: xconv_plan_step_options)
} xconv_plan_step_info;

// Fills *out with step `step` of plan; returns XCONV_ERR_INVALID for a step it does not have.
xconv_status xconv_plan_step_get_info(const xconv_plan *plan, int step, xconv_plan_step_info *out,
                                      xconv_error *err);

// Writes the defines of step `step` of plan ("-DXC_N=1 ...", "" for a vendor library step) into
// buf (len bytes, cut to fit); returns their whole length, as snprintf does, or -1 for a step
// the plan does not have.
int xconv_plan_step_options(const xconv_plan *plan, int step, char *buf, size_t len);

// Writes what the backend compiles for kernel step `step` of plan: *text (malloc'd, free with
// free()) is the dialect prelude, "#line 1" and the kernel's source; options (len bytes) the
// step's defines and, through OpenCL, the fixed option ("-cl-std=CL1.2"; NVRTC adds its own
// flags and the architecture). Returns XCONV_ERR_INVALID for a step the plan lacks or a vendor
// library step, XCONV_ERR_OUT_OF_MEMORY without host memory.
xconv_status xconv_plan_step_build_input(const xconv_plan *plan, int step, char **text,
                                         char *options, size_t len, xconv_error *err);

// Compiles kernel step `step` of plan, a plan for a CUDA device or profile, through NVRTC for
// the device's architecture with ptxas's verbose report, and returns NVRTC's log in *log
// (malloc'd, free with free(); also after a failed build): registers, spill stores and loads,
// stack frame. Needs NVRTC, no GPU. Returns XCONV_OK, XCONV_ERR_BUILD, XCONV_ERR_INVALID for a
// step that is not a kernel or a plan not for CUDA, XCONV_ERR_UNAVAILABLE without NVRTC or
// when the CUDA backend was not built.
xconv_status xconv_plan_step_nvrtc_report(const xconv_plan *plan, int step, char **log,
                                          xconv_error *err);

// Returns the number of named regions of the plan's workspace.
int xconv_plan_region_count(const xconv_plan *plan);

// Fills *name, *offset and *bytes (each when not NULL) of workspace region i; returns
// XCONV_ERR_INVALID for a region the plan does not have.
xconv_status xconv_plan_region_get(const xconv_plan *plan, int i, const char **name,
                                   size_t *offset, size_t *bytes);

// Builds every program the plan needs (cached per device by kernel source and defines); adds
// this call's build time to *compile_ms when not NULL. Optional: a run prepares on first use.
// Returns XCONV_OK or XCONV_ERR_BUILD with the compiler's log.
xconv_status xconv_plan_prepare(xconv_plan *plan, double *compile_ms, xconv_error *err);

// What xconv_plans_build did.
typedef struct xconv_build_stats {
    int programs;        // distinct programs the plans needed that were not built yet
    int built;           // of them, built from source or loaded from the cache on disk
    int failed;          // of them, not built (the prepare that needs one builds it again and
                         // reports why)
    int skipped;         // of them, not started because progress asked to stop
    int threads;         // worker threads that built them
    double wall_ms;      // host time of the whole call
    double compile_ms;   // the builds' times added up over the threads
} xconv_build_stats;

// Called by xconv_plans_build on the calling thread as builds finish: `built` of `total`.
// Returns true to stop: the builds not started yet are left to the prepares that need them.
typedef bool (*xconv_build_progress_fn)(void *user, int built, int total);

// Builds every program that plans need and their devices have not built yet, each distinct one
// once, on up to `threads` worker threads (<= 0: the host's cores); the plans may be on several
// devices. A device whose driver cannot build on several threads at once (Oclgrind) is left
// to build as its plans prepare. Nothing is enqueued on the devices' queues, so no kernel runs
// meanwhile. A later xconv_plan_prepare finds the programs built; the first prepare to use one
// counts its build time as its own (*compile_ms, xconv_device_compile_ms). Plans made on a CUDA
// target profile (xconv_device_open_target) with a cache attached are compiled through NVRTC,
// without a GPU, into that cache for its devices to load (xconv_cache_export_kernels bundles
// them); a profile without one builds nothing. Fills *stats when
// not NULL and calls progress (when not NULL) after each build. Returns XCONV_OK (a failed
// build is left to the prepare that needs it) or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_plans_build(xconv_plan *const *plans, int nplans, int threads,
                               xconv_build_progress_fn progress, void *user,
                               xconv_build_stats *stats, xconv_error *err);

// Enqueues y = conv(x, w) and its epilogue as planned on the device's one queue or stream
// (asynchronous: see xconv_device_wait); checks the buffers' sizes first (t->bias: K floats
// when the problem adds a bias). Returns the first failure.
xconv_status xconv_plan_run(xconv_plan *plan, const xconv_tensors *t, xconv_error *err);

// Host-array convenience: uploads x, w and the bias (K floats; NULL when p adds none), plans p
// with `variant` (or "auto") under opts (NULL: defaults), runs, waits and downloads y
// (xconv_problem_y_elems floats). x, w and y are fp32 here whatever p's dtype: x and w are
// rounded to it on upload and y converted back (exactly). Host variants (cpu_ref) run with dev
// NULL. Returns the first failure (XCONV_ERR_INVALID for a bias p needs and lacks).
xconv_status xconv_forward(xconv_device *dev, const xconv_problem *p, const char *variant,
                           const xconv_plan_options *opts, const float *x, const float *w,
                           const float *bias, float *y, xconv_error *err);

// xconv_forward with default options and no bias.
xconv_status xconv_convolve(xconv_device *dev, const xconv_problem *p, const char *variant,
                            const float *x, const float *w, float *y, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Tuning and the automatic choice (docs/find.md)

// One point of a variant's tuning space, in the text a find-db stores (docs/find.md); ""
// leaves the planner's own choice.
typedef struct xconv_tuning {
    char direct_tiling[160];  // a forced direct tiling, "kind:wg_w,wg_h,block_w,block_h,block_k,
                              // strip,flat,unroll_c[,repeat[,vec_q]]" (kind: the kernel's
                              // variant name; entries joined by ';')
    char gemm_tiles[64];      // forced GEMM tiles, "TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]" (VW
                              // 4 and PAD VW when left out)
    char math[8];             // "f32": planned in strict fp32 math for a problem that allows a
                              // reduced mode (xconv_plan_options.fp32_math); "": its own mode
} xconv_tuning;

// Fills out (at most max) with the tunings of v worth timing for p on dev, the planner's own
// choice first and the rest in the order of its model; returns their count, 0 when v has no
// tuning space or does not apply.
int xconv_variant_tunings(const xconv_variant *v, const xconv_device *dev,
                          const xconv_problem *p, xconv_tuning *out, int max);

// Sets the fields of *opts that tuning forces from its text: the direct_tiling entry of each
// kernel it names (replacing one opts has for that kernel), gemm_tiles, and fp32_math for math
// "f32"; fields tuning leaves "" keep their value. Returns XCONV_OK, or XCONV_ERR_PARSE naming the text that does
// not parse (opts then unchanged).
xconv_status xconv_tuning_apply(const xconv_tuning *tuning, xconv_plan_options *opts,
                                xconv_error *err);

// Returns true when "auto" and find may choose v: every family but "reference" and "peer" (the
// vendors' libraries are measured against, not chosen).
bool xconv_variant_auto_eligible(const xconv_variant *v);

// Where "auto" took its choice from.
typedef enum xconv_auto_source {
    XCONV_AUTO_RULES = 0,     // the rules: no find-db, or no usable record for the shape
    XCONV_AUTO_DB = 1,        // a record made under this driver, xconv version and kernels
    XCONV_AUTO_DB_STALE = 2,  // a record made under others, used under XCONV_CACHE_TRUST_STALE
} xconv_auto_source;

// Returns "rules", "find-db" or "find-db (stale)".
const char *xconv_auto_source_name(xconv_auto_source source);

// What "auto" chose for one problem on one device, and why.
typedef struct xconv_auto_info {
    const xconv_variant *variant;  // the variant it plans
    xconv_auto_source source;
    xconv_tuning tuning;           // the find-db winner's tuning ("" fields: planner's own)
    double db_ms;                  // the winner's time in the record (0 from the rules)
    bool stale_ignored;            // a stale record exists and was not used (re-time it)
    char why[512];                 // one line for explain and records
} xconv_auto_info;

// Says what "auto" plans for p on dev under opts (NULL: defaults): the fastest passing entry of
// the device's find-db record for p that plans, when dev has a cache attached with a usable
// record (fresh, or stale under XCONV_CACHE_TRUST_STALE), else the first variant of the rules
// (host/plan/variant_auto.c, docs/find.md) that applies and plans. Returns XCONV_OK and fills *out,
// or XCONV_ERR_NOT_APPLICABLE when no variant plans p.
xconv_status xconv_auto_choose(xconv_device *dev, const xconv_problem *p,
                               const xconv_plan_options *opts, xconv_auto_info *out,
                               xconv_error *err);

// Fills *out with what "auto" chose for plan; returns false (leaving *out alone) when plan was
// made for a variant named explicitly.
bool xconv_plan_auto_info(const xconv_plan *plan, xconv_auto_info *out);

XCONV_API_END

#endif // XCONV_PUBLIC_PLANS_H
