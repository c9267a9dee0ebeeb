// SPDX-License-Identifier: MIT
// The plan model variants write against: a plan is any number of typed steps (our kernels, the
// vendor's SGEMM, the vendor's convolution), each owning its defines and its argument list, and
// named regions of one workspace whose offsets reach kernels as int arguments. A generic runner
// (host/plan/plan_api.c) enqueues the steps in order (internal header).
#ifndef XCONV_PLAN_H
#define XCONV_PLAN_H

#include "caches/programs.h"

#define XCONV_MAX_REGIONS 16
#define XCONV_RUNTIME_DIMS 6    // C, H, W, K, P, Q (common/xconv_problem_fields.h)
#define XCONV_REGION_ALIGN 256  // bytes: every region starts at a multiple of this

// ---------------------------------------------------------------------------------------------
// Step arguments

// What a step argument points at.
typedef enum xconv_tensor_ref {
    XCONV_REF_X,          // the input, N x C x H x W
    XCONV_REF_W,          // the filters, K x C/groups x R x S
    XCONV_REF_Y,          // the output, N x K x P x Q
    XCONV_REF_BIAS,       // K floats (the bias epilogue; NULL when the problem has none)
    XCONV_REF_WORKSPACE,  // the plan's workspace, whole or one region
} xconv_tensor_ref;

typedef enum xconv_step_arg_kind {
    XCONV_STEP_ARG_BUFFER,    // a __global pointer to a tensor (or the workspace)
    XCONV_STEP_ARG_INT,       // an int
    XCONV_STEP_ARG_FLOAT,     // a float
    XCONV_STEP_ARG_CONSTANT,  // a tensor or workspace region in constant memory (bytes, symbol)
} xconv_step_arg_kind;

typedef struct xconv_step_arg {
    xconv_step_arg_kind kind;
    xconv_tensor_ref ref;     // BUFFER and CONSTANT
    int region;               // workspace region for ref WORKSPACE (-1: the whole workspace)
    bool based;               // BUFFER of a region: the pointer is the region's first byte (the
                              // backend applies the offset), not the workspace's
    int32_t i;                // INT
    float f;                  // FLOAT
    size_t bytes;             // CONSTANT: bytes from the tensor's or region's start
    const char *symbol;       // CONSTANT: the __constant__ array CUDA copies into
} xconv_step_arg;

// One operand of a vendor SGEMM step, in elements: the matrix of batch b starts at element
// offset + b * stride of the tensor (or of the region, for ref WORKSPACE with region >= 0).
typedef struct xconv_gemm_operand {
    xconv_tensor_ref ref;
    int region;
    size_t offset, ld, stride;
} xconv_gemm_operand;

// C[b] = A[b] * B[b] for b < batch, row-major, through the backend's vendor BLAS: A and B in
// storage type dtype, C fp32, products in math mode math (both 0: fp32 SGEMM, no TF32).
typedef struct xconv_vendor_gemm_step {
    size_t m, n, k;
    xconv_gemm_operand a, b, c;
    size_t batch;
    int64_t dtype, math;
} xconv_vendor_gemm_step;

// ---------------------------------------------------------------------------------------------
// Steps

typedef enum xconv_step_kind {
    XCONV_STEP_KERNEL,        // one of our kernels (cl/<source>.cl)
    XCONV_STEP_VENDOR_SGEMM,  // the backend's sgemm slot on operands of the tensors
    XCONV_STEP_VENDOR_CONV,   // the backend's vendor_conv slot (peers) on x, w, y, workspace
} xconv_step_kind;

typedef struct xconv_step {
    xconv_step_kind kind;
    char label[48];           // "im2col", "SGEMM", "filter transform" (for explain)
    const char *source;       // KERNEL: kernel file stem in cl/ ("direct_naive")
    const char *kernel;       // KERNEL: entry point
    int dims;
    size_t global[3];         // work-items, a multiple of local
    size_t local[3];
    size_t local_mem_bytes;   // local memory the kernel declares, for explain and checks
    xconv_define *defines;    // THIS step's defines, in the order they were added
    int ndefines, cap_defines;
    xconv_step_arg args[XCONV_MAX_ARGS];
    int nargs;
    bool too_many_args;       // an argument past XCONV_MAX_ARGS was dropped (the plan fails)
    xconv_vendor_gemm_step gemm;  // VENDOR_SGEMM
    const char *vendor_algo;  // VENDOR_CONV: the backend's algorithm name
    int out_region;           // VENDOR_CONV: the workspace region it writes (-1: y)
    xconv_program *program;   // KERNEL: resolved by prepare; launches do no lookup
    // KERNEL: whether xconv_step_define_problem compiles the batch size in (XC_N; from the
    // plan's bake_batch option, or set by a planner whose other defines depend on N), and the
    // batch it takes as its last argument otherwise (batch_arg; xconv_plan_add_batch_args).
    bool bake_batch;
    bool batch_arg;
    int32_t batch;
    // KERNEL: whether xconv_step_define_problem compiles the problem's other sizes in (true
    // but where a planner that derives every define of its step from them sets it, with
    // bake_batch false: the GEMM family's shared programs), and the sizes C, H, W, K, P, Q it
    // takes after the batch otherwise (dims_arg; xconv_plan_add_batch_args).
    bool bake_dims;
    bool dims_arg;
    int32_t sizes[XCONV_RUNTIME_DIMS];
} xconv_step;

typedef struct xconv_region {
    char name[32];
    size_t offset, bytes;
} xconv_region;

// What a variant planned for one problem on one device.
struct xconv_plan {
    xconv_device *dev;               // NULL for plans made without an open device (tests)
    const xconv_variant *variant;
    xconv_problem problem;
    xconv_plan_options opts;
    xconv_step **steps;              // any number, each allocated on its own: a step pointer
    int nsteps, cap_steps;           // stays valid while more steps are added
    xconv_region regions[XCONV_MAX_REGIONS];
    int nregions;
    bool too_many_regions;           // a region past XCONV_MAX_REGIONS was refused
    size_t workspace_bytes;          // the end of the last region (0: none)
    char summary[512];               // one line on the choice, for explain and records
    // The block of outputs (rows x columns of one output plane, blocks aligned at 0) that the
    // algorithm computes together from the same transformed data: its rounding error scales with
    // the block's largest terms, so validation normalises errors over it. 0 or 1: one element
    // (direct and GEMM families); Winograd F(m,r): m x m; FFT: the transform's output tile.
    int64_t error_block_h, error_block_w;
    // The epilogue (host/plan/plan_epilogue.c). `conv` is the problem the variant's own steps compute:
    // the whole problem for variants that fuse (xconv_variant.fuses), else the convolution alone.
    // `fused` holds the XCONV_FUSED_* parts its steps apply; the core appends steps for the rest,
    // with the convolution's output redirected to workspace region conv_region when it pools.
    xconv_problem conv;
    unsigned fused;
    int conv_region;                 // -1: none
    char epi_note[192];              // why the variant did not fuse a part ("" when it did)
    bool prepared;
    unsigned resets;                 // dev->resets when prepared (a later rebuild drops programs)
    bool is_auto;                    // made by "auto": auto_info says what and why
    xconv_auto_info auto_info;
    int test_fault;                  // an xconv_test_fault its runs meet instead of their work
                                     // (tests only: xconv_plan_set_test_fault)
};

// Returns step i of plan (0 <= i < plan->nsteps).
static inline xconv_step *xconv_plan_step(const xconv_plan *plan, int i)
{
    return plan->steps[i];
}

// Appends a kernel step running `kernel` of cl/<source>.cl, labelled `label`; returns it (the
// pointer stays valid for the plan's life), or NULL without host memory.
xconv_step *xconv_plan_add_step(xconv_plan *plan, const char *label, const char *source,
                                const char *kernel);

// Appends a vendor SGEMM step; returns it to fill step->gemm, or NULL without host memory.
xconv_step *xconv_plan_add_vendor_sgemm(xconv_plan *plan, const char *label);

// Appends a vendor convolution step running algorithm `algo` (a string that outlives the plan);
// returns it, or NULL without host memory.
xconv_step *xconv_plan_add_vendor_conv(xconv_plan *plan, const char *label, const char *algo);

// Adds a workspace region of `bytes` named `name`, at the next multiple of XCONV_REGION_ALIGN
// after the last one; returns its index, or -1 when the plan has XCONV_MAX_REGIONS (the plan
// then fails its check).
int xconv_plan_region(xconv_plan *plan, const char *name, size_t bytes);

// As xconv_plan_region, the region starting at a multiple of `align` bytes (a multiple of
// XCONV_REGION_ALIGN).
int xconv_plan_region_aligned(xconv_plan *plan, const char *name, size_t bytes, size_t align);

// Appends one line of text to the plan's summary, after "; " when it holds some already.
void xconv_plan_summarize(xconv_plan *plan, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

// ---------------------------------------------------------------------------------------------
// A step's defines

// Adds define `name` = value to step s. Returns XCONV_ERR_INVALID when s has `name` already (no
// silent overwrite) or the name is too long, XCONV_ERR_OUT_OF_MEMORY without host memory.
xconv_status xconv_step_define(xconv_step *s, const char *name, long long value,
                               xconv_error *err);

// One row of a define list (the X-macro lists of common/: X(name, expression, meaning)) as a
// define of step: `LIST(XCONV_STEP_DEFINE_ROW)` in a function with `xconv_step *step`,
// `xconv_status st` (XCONV_OK to start; it keeps the first failure) and `xconv_error *err`.
#define XCONV_STEP_DEFINE_ROW(name, expr, meaning)                                          \
    if (st == XCONV_OK)                                                                     \
        st = xconv_step_define(step, #name, (long long)(expr), err);

// Adds the problem's fields (common/xconv_problem_fields.h) as defines of step: all of them when
// step->bake_batch, else XC_N_RUNTIME in place of XC_N, the batch p->n then reaching the kernel
// as its last argument (xconv_plan_add_batch_args). Returns the first failure of
// xconv_step_define.
xconv_status xconv_step_define_problem(xconv_step *step, const xconv_problem *p,
                                       xconv_error *err);

// Adds every define of `from` to s, in order, and takes its batch argument (batch_arg, batch)
// and size arguments (bake_dims, dims_arg, sizes) with them; returns the first failure of
// xconv_step_define.
xconv_status xconv_step_define_all(xconv_step *s, const xconv_step *from, xconv_error *err);

// Returns the value of define `name` of s, or `fallback` when s has none.
long long xconv_step_value(const xconv_step *s, const char *name, long long fallback);

// Writes s's defines as compiler options ("-DXC_N=1 -DXC_C=3 ..."); returns the length, as
// snprintf does.
int xconv_step_options(const xconv_step *s, char *buf, size_t len);

// ---------------------------------------------------------------------------------------------
// A step's arguments (each appends one; past XCONV_MAX_ARGS the plan fails its check)

// A __global pointer to tensor ref (ref WORKSPACE: the whole workspace).
void xconv_step_arg_buffer(xconv_step *s, xconv_tensor_ref ref);

// An int or a float.
void xconv_step_arg_int(xconv_step *s, int32_t value);
void xconv_step_arg_float(xconv_step *s, float value);

// `bytes` of tensor ref (or of workspace region `region`, ref WORKSPACE) in constant memory,
// copied into __constant__ array `symbol` on CUDA.
void xconv_step_arg_constant(xconv_step *s, xconv_tensor_ref ref, int region, size_t bytes,
                             const char *symbol);

// Workspace region `region` of plan: appends the workspace pointer and then the region's
// offset in floats (an int), since OpenCL cannot offset a buffer portably.
void xconv_step_arg_region(xconv_step *s, const xconv_plan *plan, int region);

// A __global pointer to the first byte of workspace region `region`, for kernels that take a
// bare pointer (the backend offsets it: OpenCL through a sub-buffer, so the region's offset must
// be a multiple of the device's base address alignment: see xconv_plan_region_aligned).
void xconv_step_arg_region_base(xconv_step *s, int region);

// ---------------------------------------------------------------------------------------------
// Geometry

// Sets a step's geometry: global sizes are rounded up to a multiple of local.
void xconv_step_set_2d(xconv_step *step, size_t gx, size_t gy, size_t lx, size_t ly);
void xconv_step_set_1d(xconv_step *step, size_t g, size_t l);
void xconv_step_set_3d(xconv_step *step, const size_t g[3], const size_t l[3]);

// Rounds v up to a multiple of m (m > 0).
size_t xconv_round_up(size_t v, size_t m);

// a / b rounded up (a >= 0, b > 0): the planners' count of tiles, blocks and steps.
static inline int64_t xconv_ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

// Returns the smaller of a work-group size limit from the device and `want` in each dim
// (work-group volume <= max_work_group_size); used by planners instead of vendor constants.
size_t xconv_fit_work_group(const xconv_device_info *info, size_t want);

// 32-bit registers a work-item's compiler keeps beside the values a planner counts (addresses,
// indices, loop counters, masks): what the vendors' compilers showed on the GEMM kernels, whose
// blocks spilled once the counted values passed the register file less about this many
// (bench/results/*-compile_*.json; docs/guide/vendors.md).
#define XCONV_REGISTERS_OTHER 32

// Returns true when `values` 32-bit values a work-item holds at once, plus
// XCONV_REGISTERS_OTHER, fit the registers a work-item of info's device holds before its
// compiler spills (max_registers_per_item); always true where the device does not say (0).
bool xconv_registers_fit(const xconv_device_info *info, int64_t values);


// A cap at or above this many registers caps nothing on any device we target (NVIDIA's largest
// is 255 a thread, AMD's 256 VGPRs a lane), so no define is added.
#define XCONV_REGISTER_CAP_NONE 255

// Caps the registers of s's work-items (the define XCONV_REGISTER_CAP_NAME, core/backend.h,
// which the backends give to the compilers that take a cap: NVRTC's --maxrregcount, NVIDIA's
// OpenCL compiler's -cl-nv-maxrregcount where it lists cl_nv_compiler_options) so that
// `groups` of its work-groups of `threads` work-items share one compute unit's register file,
// on devices that report the file (max_registers_per_work_group; 0: nothing is done). The cap
// is rounded down to a multiple of 8 (the allocation unit of NVIDIA's register file) and set
// only where it leaves `values` + XCONV_REGISTERS_OTHER registers and is below
// XCONV_REGISTER_CAP_NONE. Returns the first failure of xconv_step_define, else XCONV_OK.
xconv_status xconv_step_cap_registers(xconv_step *s, const xconv_device_info *info, int groups,
                                      size_t threads, int64_t values, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// The im2col step shared by the im2col + GEMM variants

// Images per im2col pass: as many as fit one allocation (and a quarter of device memory), the
// 32-bit index range and a grid dimension (65535); at most p->n, < 1 when one image does not fit.
int64_t xconv_im2col_chunk(const xconv_device_info *info, const xconv_problem *p);

// Bytes of im2col columns of `chunk` images of p (the workspace region im2col writes).
size_t xconv_im2col_bytes(const xconv_problem *p, int64_t chunk);

// Appends the im2col step (cl/im2col.cl) of `images` images from image n0 into the whole
// workspace, launched over passes of `chunk` images (problem defines; arguments x, workspace,
// n0, images). Returns XCONV_OK or the failure of a define or an allocation.
xconv_status xconv_plan_im2col(const xconv_device_info *info, const xconv_problem *p,
                               int64_t chunk, int64_t n0, int64_t images, xconv_plan *plan,
                               xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Making, checking, preparing and running plans (host/plan/plan.c, host/plan/plan_api.c)

// Runs the test fault plan->test_fault asks for (host/plan/test_fault.c) instead of the plan's
// work on tensors t; returns the XCONV_ERR_DEVICE_LOST it meets, or another failure.
xconv_status xconv_test_fault_run(xconv_plan *plan, const xconv_tensors *t, xconv_error *err);

// Returns a new empty plan of variant v for p on dev (dev may be a device description without
// a backend context, for planning alone), or NULL without host memory. opts NULL: defaults.
xconv_plan *xconv_plan_new(xconv_device *dev, const xconv_variant *v, const xconv_problem *p,
                           const xconv_plan_options *opts);

// Returns whether plan's kernels take the batch size N at run time: as its options force
// (XCONV_BATCH_RUNTIME, XCONV_BATCH_BAKED), else as its variant's default (runtime_batch;
// a plan of no variant, the API's GEMM and FFT, bakes it).
bool xconv_plan_runtime_batch(const xconv_plan *plan);

// Returns whether plan's options ask for the problem's sizes at run time
// (xconv_plan_options.runtime_dims XCONV_BATCH_RUNTIME); every variant's default bakes them.
// The planners that can (the GEMMs of implicit_gemm, implicit_precomp and gemm_1x1) then take
// the batch at run time
// too.
bool xconv_plan_runtime_dims(const xconv_plan *plan);

// Appends the batch argument (an int, the last) to every step that takes it (batch_arg), and
// after it the sizes C, H, W, K, P, Q to every step that takes them (dims_arg): once, after the
// variant's and the epilogue's steps have their own arguments.
void xconv_plan_add_batch_args(xconv_plan *plan);

// Writes whether plan's kernel steps compile the batch size N in: "N: baked", "N: a run-time
// argument", or which steps bake it; then, where the options ask for the other sizes at run
// time, which steps take them ("C, H, W, K, P, Q: run-time arguments ..."; every other value
// is baked). Returns buf, or NULL when plan has no kernel step of a problem.
const char *xconv_plan_baked_values(const xconv_plan *plan, char *buf, size_t len);

// Checks a filled plan against the device and itself: local memory of each step, the
// workspace against the largest allocation, dropped arguments or regions, region and argument
// references. Returns XCONV_OK or XCONV_ERR_NOT_APPLICABLE / XCONV_ERR_OUT_OF_MEMORY /
// XCONV_ERR_INVALID naming the step.
xconv_status xconv_plan_check(const xconv_plan *plan, xconv_error *err);

// Returns the variant name of direct kernel `kernel` (an xconv_direct_kernel: "direct_const"),
// or NULL for XCONV_DIRECT_KERNEL_NONE and values that are no kernel.
const char *xconv_direct_kernel_name(int kernel);

// Returns the entry of opts->direct_tiling that forces `kernel` (an xconv_direct_kernel), or
// NULL when opts (NULL: the defaults) leave it to the planner.
const xconv_forced_direct_tiling *xconv_plan_options_direct(const xconv_plan_options *opts,
                                                            int kernel);

// Returns true when opts (NULL: the defaults) force a tiling of any direct kernel.
bool xconv_plan_options_force_direct(const xconv_plan_options *opts);

// Empties the fields of tuning that opts already force (a caller's forced choice stays).
void xconv_tuning_keep_forced(const xconv_plan_options *opts, xconv_tuning *tuning);

// Return true when t (b) forces tiles (a block): any field is not 0; false for NULL.
bool xconv_forced_gemm_tiles_set(const xconv_forced_gemm_tiles *t);
bool xconv_forced_wino_block_set(const xconv_forced_wino_block *b);

// The kernel of the split-K reduce step (cl/splitk_reduce.cl), which stores a split plan's output:
// the epilogue fuses into it (plan_epilogue.c) as into a convolution's store.
#define XCONV_SPLITK_REDUCE_KERNEL "splitk_reduce"

#endif // XCONV_PLAN_H
