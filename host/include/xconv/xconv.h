// SPDX-License-Identifier: MIT
// xconv's public API: 2-D convolutions on OpenCL and CUDA devices. Status and errors, the problem
// descriptor, shapes and suites, devices, buffers, variants, plans, the float64 reference, the
// measuring primitive, the device's measured peaks and SGEMM on raw matrices. Every call that can
// fail returns a status and fills an xconv_error the caller prints; the library never prints,
// exits or reads the environment. Handles are opaque; two devices, plans or threads never
// interfere.
#ifndef XCONV_H
#define XCONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// A shared libxconv exports what this header declares, and nothing else (the library is built
// with hidden visibility).
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define XCONV_VERSION "0.1.0"

// The contract of every function below (scripts/gen_contract_test.py checks it on each one):
// - A pointer argument may be NULL only where its comment says so ("NULL: defaults", "when not
//   NULL", "NULL is ignored"; err is always optional). Any other NULL is refused before any
//   work: a call returning a status returns XCONV_ERR_INVALID with "xconv_fn: ARG is NULL" in
//   err; a constructor or lookup returns NULL (err filled the same way); a query returns its
//   safe value: false, 0, NULL, "" (summaries), NaN (reference elements), -1 (calls that write
//   into buf); a call returning nothing does nothing.
// - Sizes, indices, enum values and descriptors out of their range are refused the same way
//   (XCONV_ERR_INVALID, NULL, false, 0 or NaN), never read past.
// - Buffers belong to the device they were created on: a run given a buffer of another device
//   fails with XCONV_ERR_INVALID.
// - No success without a result: XCONV_OK means the outputs were written.
// - xconv_plan_create, xconv_auto_choose, xconv_forward and xconv_convolve clear err (XCONV_OK,
//   "") when they succeed; other calls leave err alone on success.

// The git commit the library was built from ("abc123def456", "-dirty" appended when tracked
// files differed from it, "unknown" outside a checkout).
const char *xconv_git_commit(void);

// ---------------------------------------------------------------------------------------------
// Status and errors

// Every call that can fail returns one of these; 0 is success, errors are negative.
typedef enum xconv_status {
    XCONV_OK = 0,
    XCONV_ERR_INVALID = -1,        // a bad argument or descriptor
    XCONV_ERR_PARSE = -2,          // a malformed shape string, option value or file
    XCONV_ERR_IO = -3,             // a file could not be read or written
    XCONV_ERR_NOT_APPLICABLE = -4, // the variant does not handle this problem on this device
    XCONV_ERR_UNAVAILABLE = -5,    // a backend, library or device is not present
    XCONV_ERR_OUT_OF_MEMORY = -6,  // an allocation failed or passes the device's limit
    XCONV_ERR_BUILD = -7,          // a kernel failed to compile (the message holds the log)
    XCONV_ERR_DEVICE = -8,         // a runtime call on the device failed
    XCONV_ERR_NOT_FOUND = -9,      // an unknown name (variant, device, suite)
    XCONV_ERR_DEVICE_LOST = -10,   // a sticky fault: the device's context must be reopened
} xconv_status;

// Returns a short fixed description of a status ("invalid argument").
const char *xconv_status_to_string(xconv_status status);

#define XCONV_ERROR_MSG_LEN 16384

// A message filled by a failing call; the caller owns it and prints it (the library never prints).
typedef struct xconv_error {
    xconv_status status;
    char msg[XCONV_ERROR_MSG_LEN];
} xconv_error;

// Fills *err (when not NULL) with status and a printf-style message; returns status.
xconv_status xconv_error_set(xconv_error *err, xconv_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// Prepends "context: " to an already filled message; returns err->status.
xconv_status xconv_error_prefix(xconv_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef struct xconv_device_info xconv_device_info;

// Opaque handles.
typedef struct xconv_device xconv_device;    // an open device: one queue (OpenCL) or stream (CUDA)
typedef struct xconv_buffer xconv_buffer;    // device memory of one device

// ---------------------------------------------------------------------------------------------
// The convolution descriptor

// The activation of an epilogue, applied after the bias. NaN stays NaN.
typedef enum xconv_activation {
    XCONV_ACT_NONE = 0,   // the identity
    XCONV_ACT_RELU = 1,   // v < 0 ? 0 : v
    XCONV_ACT_RELU6 = 2,  // v < 0 ? 0 : v > 6 ? 6 : v
} xconv_activation;

// What follows the convolution in the same operation, in this order: a bias per output
// channel, an activation, a max-pool over the activated output (docs/shapes.md). All zero:
// none, the bare convolution. The SPEC keys are bias, act, pool, pool_stride and pool_pad.
typedef struct xconv_epilogue {
    int64_t bias;                          // 1: add bias[k] (K floats) to channel k; 0: none
    int64_t act;                           // an xconv_activation
    int64_t pool_h, pool_w;                // max-pool window; both 0: no pooling
    int64_t pool_stride_h, pool_stride_w;  // step between windows (SPECs default to the window)
    int64_t pool_pad_h, pool_pad_w;        // padding of -infinity on each side, < the window
} xconv_epilogue;

// The storage type of x, w and y in device memory (SPEC key dtype; the bias stays fp32). Host
// arrays given to xconv_forward are fp32 whatever the storage type: they are rounded to it on
// upload (round to nearest, ties to even) and read back from it.
typedef enum xconv_dtype {
    XCONV_DTYPE_F32 = 0,   // IEEE binary32 (the default)
    XCONV_DTYPE_F16 = 1,   // IEEE binary16: 11-bit significand, finite up to 65504
    XCONV_DTYPE_BF16 = 2,  // bfloat16: binary32's upper 16 bits (8-bit significand)
} xconv_dtype;

// The arithmetic a variant may use (SPEC key math), cuDNN's math type beside its data type:
// strict fp32 multiply-adds unless the user asks for a reduced mode. Products are accumulated in
// fp32 in every mode. tf32 needs dtype f32, f16 needs f16 and bf16 needs bf16.
typedef enum xconv_math {
    XCONV_MATH_F32 = 0,    // strict fp32 (the default): every product and sum in binary32
    XCONV_MATH_TF32 = 1,   // products of operands cut to 10 mantissa bits (matrix engines)
    XCONV_MATH_F16 = 2,    // fp16 products (matrix engines), fp32 accumulation
    XCONV_MATH_BF16 = 3,   // bf16 products (matrix engines), fp32 accumulation
} xconv_math;

// One 2-D convolution (cross-correlation, as in deep learning frameworks), its storage and math
// types (fp32 by default) and its epilogue. Input x is NCHW, weights w are K x (C/groups) x R x
// S; the convolution's output is N x K x P x Q, and y, the final output, is N x K x P x Q or, pooled, N x K x PH x PW
// (xconv_problem_y_h, xconv_problem_y_w).
typedef struct xconv_problem {
    int64_t n, c, h, w;           // batch, input channels, input height and width
    int64_t k, r, s;              // output channels, filter height and width
    int64_t stride_h, stride_w;   // step between output positions, in input pixels
    int64_t pad_h, pad_w;         // zero padding on each side
    int64_t dil_h, dil_w;         // spacing between filter taps
    int64_t groups;               // channel groups; groups == c is depthwise
    xconv_epilogue epi;           // bias, activation and max-pool after the convolution
    int64_t dtype;                // xconv_dtype of x, w and y (0: fp32)
    int64_t math;                 // xconv_math the variant may use (0: strict fp32)
} xconv_problem;

// The largest element count or index the kernels' index type (32-bit int) can address.
#define XCONV_MAX_INDEX ((int64_t)2147483647)

// Returns a problem with the defaults (stride 1, pad 0, dilation 1, groups 1, no epilogue) and
// zero sizes.
xconv_problem xconv_problem_default(void);

// The convolution's output height P and width Q, before any pooling; <= 0 when it would be
// empty.
int64_t xconv_problem_out_h(const xconv_problem *p);
int64_t xconv_problem_out_w(const xconv_problem *p);

// The final output's height and width: the pooled output's when the epilogue pools, else P and
// Q; <= 0 when it would be empty.
int64_t xconv_problem_y_h(const xconv_problem *p);
int64_t xconv_problem_y_w(const xconv_problem *p);

// Element counts of x, w, the convolution's output (N * K * P * Q) and y, the final output
// (N * K * y_h * y_w: smaller than the convolution's when the epilogue pools).
int64_t xconv_problem_x_elems(const xconv_problem *p);
int64_t xconv_problem_w_elems(const xconv_problem *p);
int64_t xconv_problem_conv_elems(const xconv_problem *p);
int64_t xconv_problem_y_elems(const xconv_problem *p);

// Returns true when p has an epilogue (a bias, an activation or a pool).
bool xconv_problem_has_epilogue(const xconv_problem *p);

// Returns p without its epilogue: the bare convolution.
xconv_problem xconv_problem_conv_only(const xconv_problem *p);

// Splits a flat index of y, the final output, into nkpq[] = (n, k, row, column), for messages.
void xconv_index_split(const xconv_problem *p, int64_t index, int64_t nkpq[4]);

// The convolution's multiply-adds counted as 2 FLOPs: 2 * N * K * P * Q * (C/groups) * R * S
// (the epilogue's additions and comparisons are not counted).
double xconv_problem_flops(const xconv_problem *p);

// The fewest bytes the operation must move: x, w and the bias read once, y written once.
double xconv_problem_min_bytes(const xconv_problem *p);

// Bytes of one element of x, w and y in device memory: 4 for fp32, 2 for fp16 and bf16 (0 for
// an unknown dtype). A tensor's buffer holds its element count times this.
size_t xconv_problem_elem_bytes(const xconv_problem *p);

// Returns the SPEC name of a storage type ("f32", "f16", "bf16") or of a math mode ("f32",
// "tf32", "f16", "bf16"), or NULL for another value.
const char *xconv_dtype_name(int64_t dtype);
const char *xconv_math_name(int64_t math);

// Rounds f to the nearest binary16 (ties to even; overflow to infinity, subnormals kept, NaN
// stays NaN) and returns its bits; and back, exactly.
uint16_t xconv_f32_to_f16(float f);
float xconv_f16_to_f32(uint16_t h);

// Rounds f to the nearest bfloat16 (ties to even; NaN stays NaN) and returns its bits; and back.
uint16_t xconv_f32_to_bf16(float f);
float xconv_bf16_to_f32(uint16_t b);

// Converts n fp32 values into dtype's storage at dst (n elements of xconv_problem_elem_bytes
// each: a plain copy for fp32), and back; dst and src do not overlap. Returns false, writing
// nothing, for an unknown dtype or a NULL src or dst with n > 0.
bool xconv_dtype_from_f32(int64_t dtype, const float *src, void *dst, size_t n);
bool xconv_dtype_to_f32(int64_t dtype, const void *src, float *dst, size_t n);

// Rounds n values in place to what dtype stores (fp32: unchanged). Returns false, changing
// nothing, for an unknown dtype or NULL values with n > 0.
bool xconv_dtype_round(int64_t dtype, float *values, size_t n);

// Returns XCONV_OK when every rule holds, else XCONV_ERR_INVALID with a message naming the field
// and the rule (positive sizes, non-empty output, groups dividing c and k, 32-bit indexable, an
// epilogue whose pool window fits the padded output).
xconv_status xconv_problem_check(const xconv_problem *p, xconv_error *err);

// Returns XCONV_OK when p passes xconv_problem_check (else its error) and x, w and y each fit in
// one of the device's largest allocations, else XCONV_ERR_OUT_OF_MEMORY naming the tensor, its
// size and the device's limit.
xconv_status xconv_problem_check_device(const xconv_problem *p, const xconv_device_info *info,
                                        xconv_error *err);

// Parses "n=32,c=3,h=224,w=224,k=64,r=7,s=7,stride=2,pad=3" (see docs/shapes.md) into *p and
// checks it; returns XCONV_ERR_PARSE naming the bad token, or the check's status.
xconv_status xconv_shape_parse(const char *spec, xconv_problem *p, xconv_error *err);

// Like xconv_shape_parse, but only applies the keys present in spec on top of *p and does not
// check the result; *seen gets one bit per key set (XCONV_KEY_* below). A pool window given
// without its stride sets the stride to the window. For merging with .npy.
xconv_status xconv_shape_apply(const char *spec, xconv_problem *p, unsigned *seen,
                               xconv_error *err);

enum {
    XCONV_KEY_N = 1u << 0, XCONV_KEY_C = 1u << 1, XCONV_KEY_H = 1u << 2, XCONV_KEY_W = 1u << 3,
    XCONV_KEY_K = 1u << 4, XCONV_KEY_R = 1u << 5, XCONV_KEY_S = 1u << 6,
    XCONV_KEY_STRIDE = 1u << 7, XCONV_KEY_PAD = 1u << 8, XCONV_KEY_DIL = 1u << 9,
    XCONV_KEY_GROUPS = 1u << 10, XCONV_KEY_BIAS = 1u << 11, XCONV_KEY_ACT = 1u << 12,
    XCONV_KEY_POOL = 1u << 13, XCONV_KEY_POOL_STRIDE = 1u << 14, XCONV_KEY_POOL_PAD = 1u << 15,
    XCONV_KEY_DTYPE = 1u << 16, XCONV_KEY_MATH = 1u << 17,
};

// Returns the SPEC name of an activation ("none", "relu", "relu6"), or NULL for another value.
const char *xconv_activation_name(int64_t act);

// Writes the canonical SPEC of *p into buf (keys at their defaults are left out); returns the
// length written, as snprintf does (buf may be NULL when len is 0).
int xconv_shape_format(const xconv_problem *p, char *buf, size_t len);

// Draws shape number `index` (>= 0) of the random sequence that `seed` names into *p: small
// (at most 4 MFLOP and 64 Ki input elements, so a CPU device runs every variant on it in about a
// second), every key varied, and every fourth shape in turn plain, grouped, depthwise (with a
// channel multiplier of 1 or 2) and 1x1. The same (seed, index) gives the same shape everywhere.
// Returns XCONV_OK (the shape always passes xconv_problem_check), or XCONV_ERR_INVALID for a
// negative index or a NULL p.
xconv_status xconv_shape_random(uint64_t seed, int index, xconv_problem *p, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Suites of named shapes

typedef struct xconv_named_shape {
    const char *name;  // "vgg3x3"
    const char *spec;  // "n=16,c=64,h=224,w=224,k=64,r=3,pad=1"
} xconv_named_shape;

// Returns the shapes of suite `name` ("small", "standard") and their count in *count, or NULL.
const xconv_named_shape *xconv_suite_find(const char *name, int *count);

// Returns the names of all suites, NULL-terminated.
const char *const *xconv_suite_names(void);

// ---------------------------------------------------------------------------------------------
// oneDNN benchdnn convolution descriptors and shape files (docs/shapes.md)

// Parses a benchdnn convolution descriptor ("mb32ic64ih56oc64oh56kh3ph1n\"resnet:res2a\"":
// benchdnn's defaults mb=2, g=1, strides 1, dilations 0 = xconv's dil 1; w keys copied from the h
// ones; padding deduced from a given output size) into *p and checks it. name (name_len bytes,
// may be NULL) gets the descriptor's n"..." or "". Returns XCONV_ERR_PARSE naming the bad key or
// an output size that does not fit, or the check's status; *p is left alone on failure.
xconv_status xconv_shape_parse_benchdnn(const char *desc, xconv_problem *p, char *name,
                                        size_t name_len, xconv_error *err);

// Writes *p as a benchdnn descriptor ("mb32_ic64ih56iw56_oc64oh56ow56_kh3kw3_sh1sw1_ph1pw1_dh0dw0",
// every key spelled out, groups first when not 1); returns the length, as snprintf does. The
// epilogue is left out: a benchdnn convolution descriptor has no keys for it.
int xconv_shape_format_benchdnn(const xconv_problem *p, char *buf, size_t len);

// Longest shape name plus its terminator (names longer than this are refused, not cut).
#define XCONV_SHAPE_NAME_MAX 128

// One line of a shape file: a named, weighted problem.
typedef struct xconv_shape_entry {
    char name[XCONV_SHAPE_NAME_MAX];  // "" when the line names none
    double weight;                    // how often the layer occurs in its network (default 1)
    int line;                         // 1-based line of its file
    xconv_problem problem;
} xconv_shape_entry;

// Parses one shape-file line: whitespace-separated fields name=NAME, weight=W and the shape, in
// xconv's SPEC syntax or as a benchdnn descriptor; '#' starts a comment, double quotes group.
// Returns XCONV_OK and sets *blank when the line holds no shape, else fills *entry (line 0), or
// XCONV_ERR_PARSE / the problem check's status with a message saying why.
xconv_status xconv_shape_line_parse(const char *line, xconv_shape_entry *entry, bool *blank,
                                    xconv_error *err);

// Parses a whole shape file's text (len bytes; origin names it in messages, "FILE") into a new
// array *shapes of *count entries (free with xconv_shapes_free). Returns XCONV_OK, or
// XCONV_ERR_PARSE with "origin:line: reason" for the first bad line, a repeated name, a NUL
// byte or a file without shapes; nothing is allocated on failure.
xconv_status xconv_shapes_parse(const char *text, size_t len, const char *origin,
                                xconv_shape_entry **shapes, int *count, xconv_error *err);

// Reads the shape file at path as xconv_shapes_parse does; XCONV_ERR_IO when it cannot be read.
xconv_status xconv_shapes_read(const char *path, xconv_shape_entry **shapes, int *count,
                               xconv_error *err);

// Frees an array from xconv_shapes_parse or xconv_shapes_read (NULL is fine).
void xconv_shapes_free(xconv_shape_entry *shapes);

// ---------------------------------------------------------------------------------------------
// Devices

typedef enum xconv_backend_kind {
    XCONV_BACKEND_OPENCL = 0,
    XCONV_BACKEND_CUDA = 1,
    XCONV_BACKEND_COUNT
} xconv_backend_kind;

// Returns "opencl" or "cuda".
const char *xconv_backend_name(xconv_backend_kind kind);

// What a device reports about itself; the planner reads its limits from here.
struct xconv_device_info {
    xconv_backend_kind backend;
    int backend_index;           // index among this backend's devices
    char platform[128];          // OpenCL platform name, or "CUDA"
    char vendor[128];
    char name[256];
    char driver[128];            // driver version string
    char version[128];           // OpenCL version or CUDA runtime/compute capability text
    bool is_gpu, is_cpu;
    int compute_units;
    int clock_mhz;
    uint64_t global_mem_bytes;
    uint64_t local_mem_bytes;    // local (shared) memory per work-group
    uint64_t max_alloc_bytes;    // largest single buffer
    uint64_t const_mem_bytes;    // largest constant buffer
    uint64_t cache_bytes;        // last-level cache (0 when unknown)
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    size_t preferred_multiple;   // preferred work-group size multiple (warp/wavefront/SIMD width)
    int native_float_width;      // native float vector width (OpenCL; 1 on GPUs, CUDA: 1)
    int max_registers_per_work_group;  // 32-bit registers one work-group may hold (CUDA's
                                       // MAX_REGISTERS_PER_BLOCK, OpenCL's NVIDIA extension);
                                       // 0 when the device does not say (other OpenCL devices)
    int max_registers_per_item;  // 32-bit registers one work-item holds before its compiler
                                 // spills: AMD a lane's VGPRs, Intel a SIMD8 thread's GRFs a
                                 // lane; 0 when unknown (NVIDIA: ptxas keeps our plans in 255)
    bool fp64;
    int cc_major, cc_minor;      // CUDA compute capability (0 on OpenCL)
    double peak_gflops;          // measured or configured fp32 peak, 0 when unknown
    double peak_gbps;            // measured or configured memory bandwidth, 0 when unknown
    // The arithmetic our kernels get: XCONV_FP_* bits (OpenCL: the device's
    // CL_DEVICE_SINGLE_FP_CONFIG; CUDA: what the hardware and the backend's NVRTC flags give),
    // and the compiler options and contraction setting every xconv kernel is built with.
    unsigned fp32_config;
    char build_flags[192];       // "-cl-std=CL1.2; #pragma OPENCL FP_CONTRACT OFF"
};

// Bits of xconv_device_info.fp32_config (the values of OpenCL's CL_FP_* flags).
enum {
    XCONV_FP_DENORM = 1u << 0,          // denormals are kept (not flushed to zero)
    XCONV_FP_INF_NAN = 1u << 1,         // Inf and NaN are supported
    XCONV_FP_ROUND_TO_NEAREST = 1u << 2,
    XCONV_FP_ROUND_TO_ZERO = 1u << 3,
    XCONV_FP_ROUND_TO_INF = 1u << 4,
    XCONV_FP_FMA = 1u << 5,             // fused multiply-add in hardware
    XCONV_FP_SOFT_FLOAT = 1u << 6,      // basic operations are done in software
    XCONV_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT = 1u << 7,
};

#define XCONV_MAX_DEVICES 64

// Every backend's devices, with a backend's failure kept when it listed nothing.
typedef struct xconv_device_list {
    xconv_device_info devices[XCONV_MAX_DEVICES];
    int count;
    // Per backend: XCONV_OK, or why it listed no device ("cuda: unavailable (no libcuda.so.1)").
    xconv_status backend_status[XCONV_BACKEND_COUNT];
    char backend_reason[XCONV_BACKEND_COUNT][512];
    // Per backend: lines of advice on installed parts that list no device ("" when none).
    char backend_advice[XCONV_BACKEND_COUNT][1024];
} xconv_device_list;

// Lists the devices of every backend built in; a backend with none records its reason and the
// call still succeeds. Returns XCONV_OK.
xconv_status xconv_devices_list(xconv_device_list *list);

// Lists the devices of the backends whose XCONV_BACKEND_BIT is set in `backends` only (starting
// a backend costs time: CUDA's cuInit, every OpenCL platform's driver); the others record
// "not listed". Selectors that name a backend ("opencl:1") select in such a list as in a full
// one. Returns XCONV_OK.
xconv_status xconv_devices_list_backends(xconv_device_list *list, unsigned backends);

// Finds the device that `selector` names in list: a global index ("0"), a backend and index
// ("opencl:1", "cuda:0") or a case-insensitive substring of the name, platform, vendor or
// version ("pocl", "h100"); NULL or "" picks the first GPU, else the first CPU device. Returns
// the index in list->devices, or a negative status with a message listing the valid choices.
int xconv_device_select(const xconv_device_list *list, const char *selector, xconv_error *err);

// Lists the devices, selects one by `selector` (as xconv_device_select) and opens it; returns
// NULL and fills err on failure.
xconv_device *xconv_device_open(const char *selector, xconv_error *err);

// Opens the device described by info (an entry of xconv_devices_list); returns NULL and fills
// err on failure.
xconv_device *xconv_device_open_info(const xconv_device_info *info, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Target profiles: GPUs described from their vendors' documentation (host/core/targets.c cites each
// value), for planning and compile checks on a machine without them

typedef struct xconv_target {
    const char *name;        // "gfx90a", "gfx1030", "dg2", "pvc", "sm_90"
    const char *product;     // "AMD Instinct MI250X (one GCD)"
    const char *compiler;    // the vendor compiler that checks it: "amdgcn", "ocloc" or "nvrtc"
    const char *arch;        // that compiler's target: "gfx90a", "dg2", "sm_90"
    xconv_device_info info;  // the limits, as the device itself reports them
} xconv_target;

// Returns the number of profiles, and profile i (NULL past the last).
int xconv_target_count(void);
const xconv_target *xconv_target_at(int i);

// Returns the profile named `name`, or NULL with XCONV_ERR_NOT_FOUND listing the names.
const xconv_target *xconv_target_find(const char *name, xconv_error *err);

// Opens a device that only plans: it has the profile's limits and no backend, so plans made on
// it are the plans the device would get; preparing or running them, and buffers, fail with
// XCONV_ERR_UNAVAILABLE. Close it with xconv_device_close. Returns NULL without host memory.
xconv_device *xconv_device_open_target(const xconv_target *target, xconv_error *err);

// Waits for the device, frees every buffer and program it still holds and closes it; NULL is
// ignored. Plans made on it must not run afterwards (destroying them is still fine).
void xconv_device_close(xconv_device *dev);

// Returns what the device reports about itself (valid while it is open).
const xconv_device_info *xconv_device_get_info(const xconv_device *dev);

// Writes the short label "opencl:0 NVIDIA H100 80GB HBM3" of info into buf (len bytes).
void xconv_device_label(const xconv_device_info *info, char *buf, size_t len);

// Waits until everything enqueued on the device has finished; returns its status.
xconv_status xconv_device_wait(xconv_device *dev, xconv_error *err);

// A fault that breaks the device's context (a kernel's illegal address on CUDA, a lost device
// on OpenCL) fails the call that meets it with XCONV_ERR_DEVICE_LOST, and the library rebuilds
// the context at once where the backend can (OpenCL): buffers made before are lost (any use of
// them fails with XCONV_ERR_DEVICE_LOST; destroying them is still fine), plans stay valid and
// build their programs again when they next run. Returns how many times dev's context was
// rebuilt since it was opened: a caller compares it with the count when it uploaded its data.
unsigned xconv_device_resets(const xconv_device *dev);

// Returns true when dev is lost for good: a fault broke its context and it cannot be rebuilt in
// this process (CUDA after a sticky error: the driver recovers only in a new process). Every
// call on it then fails with XCONV_ERR_DEVICE_LOST saying so, without touching the device;
// destroying its buffers and plans and closing it are safe. A caller that must go on runs the
// rest of its work in a new process (the CLI does: docs/guide/reading-results.md).
bool xconv_device_lost(const xconv_device *dev);

// Writes the versions of the software dev runs on into buf (len bytes): the OpenCL platform's
// and CLBlast's, or the CUDA driver's, NVRTC's, cuBLAS's and cuDNN's (loading those libraries
// to ask them); "" when the backend says nothing. Returns the length written.
int xconv_device_libraries(xconv_device *dev, char *buf, size_t len);

// Returns the milliseconds spent building programs on dev since it was opened or last reset.
double xconv_device_compile_ms(const xconv_device *dev);

// Sets dev's accumulated build time back to 0.
void xconv_device_reset_compile_ms(xconv_device *dev);

// ---------------------------------------------------------------------------------------------
// Buffers (device memory; the library keeps each device's registry and checks every range)

// Allocates `bytes` of device memory on dev; returns NULL with XCONV_ERR_OUT_OF_MEMORY past the
// device's limits (the message gives them).
xconv_buffer *xconv_buffer_create(xconv_device *dev, size_t bytes, xconv_error *err);

// Frees a buffer (after the work enqueued on it); NULL is ignored.
void xconv_buffer_destroy(xconv_buffer *buf);

// Returns the size buf was created with, in bytes (0 for NULL).
size_t xconv_buffer_size(const xconv_buffer *buf);

// Copies `bytes` from host memory src into buf at byte `offset`, blocking until done; returns
// XCONV_ERR_INVALID when the range passes the buffer.
xconv_status xconv_buffer_upload(xconv_buffer *buf, size_t offset, size_t bytes, const void *src,
                                 xconv_error *err);

// Copies `bytes` of buf from byte `offset` into host memory dst, blocking until done; returns
// XCONV_ERR_INVALID when the range passes the buffer.
xconv_status xconv_buffer_download(xconv_buffer *buf, size_t offset, size_t bytes, void *dst,
                                   xconv_error *err);

// Enqueues a fill of the first `count` floats of buf with value (NaN poisons an output);
// returns XCONV_ERR_INVALID when they pass the buffer.
xconv_status xconv_buffer_fill_f32(xconv_buffer *buf, size_t count, float value,
                                   xconv_error *err);

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
typedef struct xconv_plan_options {
    const char *direct_tiling;  // forces the direct family's tiling: entries
                                // "kind:wg_w,wg_h,block_w,block_h,block_k,strip,flat,unroll_c
                                // [,repeat[,vec_q]]" separated by ';' (block_k 0: K/groups),
                                // e.g. "direct_const:128,1,1,1,16,1,1,1"; NULL: searched
    const char *gemm_tiles;     // forces the GEMM tiles "TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]"
                                // (SPLIT as gemm_split_k); NULL: chosen per product
    int64_t batch_chunk;        // most images per im2col pass; 0: as many as fit
    int gemm_split_k;           // forces the GEMM family's split-K: 1 no split, 2..16 K slices
                                // (fewer where K has fewer steps); 0: chosen per product
    int64_t winograd_chunk;     // most images per pass of the non-fused Winograd variants; 0: as
                                // many as fit the workspace budget
    const char *winograd_fused; // forces the fused Winograd block "TB,KB,CC,WT,WK[,VEC]" (tiles
                                // and output channels per work-group, input channels per step,
                                // tiles and channels per work-item; VEC 8 or 16: OpenCL's
                                // vector path, VEC tiles as lanes per work-item); NULL: searched
    int epilogue;               // an xconv_epilogue_mode: how a problem's epilogue is planned
    int fft_tile_h, fft_tile_w; // forces the FFT family's transform size (fft_tiled: the tile;
                                // fft: at least the padded image), 2^a 3^b 5^c; 0: chosen
    int64_t fft_chunk;          // most images per FFT pass; 0: as many as fit
    int test_fault;             // tests only: an xconv_test_fault the plan's runs meet instead
                                // of their work; 0 (XCONV_TEST_FAULT_NONE): none
    // Later versions append fields here; xconv_plan_options_default sets every one.
} xconv_plan_options;

// Fills *opts with the defaults (nothing forced).
void xconv_plan_options_default(xconv_plan_options *opts);

// Faults a test can ask a plan's runs for (xconv_plan_options.test_fault), to check what a
// caller does when a device is lost for good. Never set outside tests.
typedef enum xconv_test_fault {
    XCONV_TEST_FAULT_NONE = 0,
    XCONV_TEST_FAULT_LOSE = 1,    // the run fails as a fault the context cannot be rebuilt
                                  // after (no kernel runs): the device is lost for good
    XCONV_TEST_FAULT_KERNEL = 2,  // the run launches a kernel that writes through a bad address
                                  // instead of its own: on CUDA a real sticky error (the device
                                  // is lost for good); a CPU OpenCL device crashes the process
} xconv_test_fault;

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
// docs/find.md). opts NULL: defaults.
// Builds nothing (see xconv_plan_prepare). Returns NULL with XCONV_ERR_NOT_APPLICABLE and the
// reason when the variant does not apply, or another status.
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
    size_t local_mem_bytes;
    const char *options;        // "-DXC_N=1 ..." the step's own defines (valid until this
                                // thread calls xconv_plan_step_get_info again)
} xconv_plan_step_info;

// Fills *out with step `step` of plan; returns XCONV_ERR_INVALID for a step it does not have.
xconv_status xconv_plan_step_get_info(const xconv_plan *plan, int step, xconv_plan_step_info *out,
                                      xconv_error *err);

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
// counts its build time as its own (*compile_ms, xconv_device_compile_ms). Fills *stats when
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

// One point of a variant's tuning space: the planning options that force one tiling or set of
// tiles (strings in the syntax of xconv_plan_options; "" leaves the planner's own choice).
typedef struct xconv_tuning {
    char direct_tiling[160];  // for xconv_plan_options.direct_tiling
    char gemm_tiles[64];      // for xconv_plan_options.gemm_tiles
} xconv_tuning;

// Fills out (at most max) with the tunings of v worth timing for p on dev, the planner's own
// choice first and the rest in the order of its model; returns their count, 0 when v has no
// tuning space or does not apply.
int xconv_variant_tunings(const xconv_variant *v, const xconv_device *dev,
                          const xconv_problem *p, xconv_tuning *out, int max);

// Points the fields of *opts that tuning forces at its strings (tuning must outlive opts' use);
// fields tuning leaves "" keep their value.
void xconv_tuning_apply(const xconv_tuning *tuning, xconv_plan_options *opts);

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

// ---------------------------------------------------------------------------------------------
// The cache on disk: compiled kernels and the find-db (docs/find.md)

typedef struct xconv_cache xconv_cache;  // one folder, shared by processes and threads

enum {
    XCONV_CACHE_NO_KERNELS = 1u << 0,   // build every program from source, keep no binaries
    XCONV_CACHE_NO_FIND_DB = 1u << 1,   // "auto" uses the rules only
    XCONV_CACHE_TRUST_STALE = 1u << 2,  // "auto" also uses records made under another driver,
                                        // xconv version or kernel sources (said in its why)
    XCONV_CACHE_DB_READ_ONLY = 1u << 3, // the find-db is read, never written: stores and clears
                                        // fail with XCONV_ERR_IO (set by xconv_cache_open, with
                                        // a warning, when the find-db's lock file is not a file)
};

// Opens the cache in folder dir (made, with its parents, when missing) with XCONV_CACHE_* flags.
// Returns NULL with XCONV_ERR_IO when the folder cannot be made or written (dir naming a file
// that is not a folder included).
xconv_cache *xconv_cache_open(const char *dir, unsigned flags, xconv_error *err);

// Writes the default cache folder, the one the command line uses, into buf (len bytes): from the
// values of XCONV_CACHE_DIR, XDG_CACHE_HOME and HOME that the caller passes (NULL for an unset
// one; the library reads no environment): cache_dir when set, else xdg_cache_home/xconv, else
// home/.cache/xconv. Returns false when there is none: cache_dir is "" or "none", neither of the
// others is set, buf is NULL, or the folder's name does not fit buf.
bool xconv_cache_default_dir(const char *cache_dir, const char *xdg_cache_home, const char *home,
                             char *buf, size_t len);

// Opens the default cache (xconv_cache_default_dir's folder) with XCONV_CACHE_* flags: attached
// to a device, "auto" there reads the find-db that `xconv find` writes, and picks what the
// command line picks. Returns NULL with XCONV_ERR_NOT_FOUND when there is no default folder, or
// with xconv_cache_open's status when it cannot be opened.
xconv_cache *xconv_cache_open_default(const char *cache_dir, const char *xdg_cache_home,
                                      const char *home, unsigned flags, xconv_error *err);

// Closes a cache (devices it is attached to must be closed or detached first); NULL is ignored.
void xconv_cache_close(xconv_cache *cache);

// Returns the cache's folder and its flags.
const char *xconv_cache_dir(const xconv_cache *cache);
unsigned xconv_cache_flags(const xconv_cache *cache);

// What a cache did since it was opened.
typedef struct xconv_cache_stats {
    int kernel_hits;     // programs made from a stored binary
    int kernel_misses;   // programs built from source (their binaries then stored)
    int kernel_rejects;  // stored binaries that did not match or load: rebuilt and replaced
    int db_reads;        // times the find-db file was read and parsed
} xconv_cache_stats;

// Fills *out with the cache's counts.
void xconv_cache_get_stats(xconv_cache *cache, xconv_cache_stats *out);

// Moves the warnings collected since the last call (a corrupted find-db set aside, a file that
// could not be written) into buf (len bytes), one a line, "" when there are none; returns how
// many there were. The library never prints them: its caller does.
int xconv_cache_take_warnings(xconv_cache *cache, char *buf, size_t len);

// Removes every stored binary; *removed (when not NULL) gets their number. Returns XCONV_OK or
// XCONV_ERR_IO.
xconv_status xconv_cache_clear_kernels(xconv_cache *cache, int *removed, xconv_error *err);

// Writes the compiled kernels of cache made for one of the ndevs open devices devs (every one
// stored when ndevs is 0) into one bundle file at path (replaced atomically), for another
// machine with the same devices, drivers and xconv to import; *count gets their number.
// Returns XCONV_OK, XCONV_ERR_NOT_FOUND when there is none, or XCONV_ERR_IO.
xconv_status xconv_cache_export_kernels(xconv_cache *cache, xconv_device *const *devs,
                                        int ndevs, const char *path, int *count,
                                        xconv_error *err);

// Checks the whole bundle file at path, then stores its kernels in cache (each file replaced
// atomically, so concurrent importers and builders lose nothing); *count gets their number.
// Refuses the bundle, storing nothing, with XCONV_ERR_INVALID and a message that begins with
// why: "damaged" (not whole, its checksum or an entry does not match), "stale" (another bundle
// format, xconv version or kernel sources) or "foreign" (a kernel for a device, driver or
// compiler that none of the ndevs open devices devs has). XCONV_ERR_NOT_FOUND or XCONV_ERR_IO
// when it cannot be read.
xconv_status xconv_cache_import_kernels(xconv_cache *cache, xconv_device *const *devs,
                                        int ndevs, const char *path, int *count,
                                        xconv_error *err);

// Attaches cache to dev (NULL detaches): dev's programs are then loaded from and stored in it,
// and "auto" on dev reads its find-db. The cache must stay open while it is attached.
void xconv_device_set_cache(xconv_device *dev, xconv_cache *cache);

// Returns the hash of every embedded kernel source and the dialect (16 hex digits). Find-db
// records and binaries made under other sources are stale.
const char *xconv_kernels_hash(void);

// One timed candidate of a find: a variant under one tuning, and how it did.
typedef struct xconv_find_entry {
    char variant[48];
    xconv_tuning tuning;
    bool passed;               // within its accuracy threshold: only passing entries can win
    double median_ms;          // device time per run (0: not timed)
    double max_err;            // largest normalised error against the float64 reference
    double threshold;          // the variant's accuracy threshold
    uint64_t workspace_bytes;
    char notes[64];            // the variant's numerical notes ("winograd", "split-k ...")
} xconv_find_entry;

// One record of the find-db: the ranking of one shape on one device, under one key.
typedef struct xconv_find_record {
    char backend[16];          // "opencl", "cuda"
    char device[256];          // the device's name
    char driver[128];          // its driver version
    char xconv[32];            // XCONV_VERSION
    char kernels[24];          // xconv_kernels_hash()
    char shape[256];           // the canonical SPEC (xconv_shape_format)
    char mode[16];             // how it was found: "normal" or "exhaustive"
    char date[32];             // when, ISO 8601 UTC
    int count;                 // entries: passing ones fastest first, then the rest
    xconv_find_entry *entries; // owned by the record (xconv_find_record_free)
} xconv_find_record;

// Fills rec's key (backend, device, driver, xconv, kernels, shape) for p on the device info
// describes, and empties its entries.
void xconv_find_record_key(const xconv_device_info *info, const xconv_problem *p,
                           xconv_find_record *rec);

// Returns true when rec was made under the driver info reports, this xconv version and these
// kernel sources; false for a stale record.
bool xconv_find_record_fresh(const xconv_find_record *rec, const xconv_device_info *info);

// Frees a record's entries (the record itself belongs to the caller); NULL is ignored.
void xconv_find_record_free(xconv_find_record *rec);

// Frees an array of count records from xconv_find_db_list; NULL is ignored.
void xconv_find_records_free(xconv_find_record *recs, int count);

// Stores rec in cache's find-db, replacing the record of the same key (backend, device, driver,
// xconv, kernels, shape). Records other processes stored meanwhile are kept: the file is merged
// under a lock and replaced atomically. Returns XCONV_OK, XCONV_ERR_INVALID for a record
// without a key, or XCONV_ERR_IO.
xconv_status xconv_find_db_store(xconv_cache *cache, const xconv_find_record *rec,
                                 xconv_error *err);

// Looks up p's record for the device info describes: a fresh one, else (*stale true) the
// newest stale one, copied into *out (free with xconv_find_record_free). Returns XCONV_OK, or
// XCONV_ERR_NOT_FOUND when there is none (or the cache has XCONV_CACHE_NO_FIND_DB).
xconv_status xconv_find_db_lookup(xconv_cache *cache, const xconv_device_info *info,
                                  const xconv_problem *p, xconv_find_record *out, bool *stale,
                                  xconv_error *err);

// Copies every record into a new array *out of *count (free with xconv_find_records_free).
// Returns XCONV_OK (an empty or missing db gives 0 records) or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_find_db_list(xconv_cache *cache, xconv_find_record **out, int *count,
                                xconv_error *err);

// Removes the records of devices named `device` (NULL: every record); *removed (when not NULL)
// gets their number. Returns XCONV_OK or XCONV_ERR_IO.
xconv_status xconv_find_db_clear(xconv_cache *cache, const char *device, int *removed,
                                 xconv_error *err);

// ---------------------------------------------------------------------------------------------
// The float64 reference (to check results against)

// Computes p in float64 on the host: the convolution, each output the sum of its terms x*w (each
// product exact, summed in double), then p's epilogue (xconv_reference_epilogue) with bias (K
// floats; NULL when p adds none) into y64 (xconv_problem_y_elems values). norm64 (when not
// NULL) gets each output's scale: for the convolution the sum of |x*w| over the same terms, the
// scale of its rounding error; after an epilogue as xconv_reference_epilogue says. Spreads the
// convolution over `threads` host threads (<= 0: every online core). Returns XCONV_OK,
// XCONV_ERR_INVALID for a problem that fails xconv_problem_check or a bias missing, or
// XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_reference_forward(const xconv_problem *p, const float *x, const float *w,
                                     const float *bias, double *y64, double *norm64, int threads,
                                     xconv_error *err);

// xconv_reference_forward without a bias (a problem that adds one is XCONV_ERR_INVALID).
xconv_status xconv_reference_conv(const xconv_problem *p, const float *x, const float *w,
                                  double *y64, double *norm64, int threads, xconv_error *err);

// Applies p's epilogue on the host to the convolution's output conv (xconv_problem_conv_elems
// values, N x K x P x Q) whose elements have rounding scales conv_scale (NULL: 0): y[i] = the
// max over output i's pool window of act(conv + bias[k]), the window's padding -infinity and a
// NaN in it giving NaN; y_scale[i] (when not NULL) = the scale of that output: the largest
// (conv_scale + |bias[k]|) among the window's elements within 1e-3 of their scales below its
// maximum, which is the selected element's own unless values tie (docs/validation.md,
// "Epilogues"). Computed in float64 either way. Without a pool y may be conv itself. Returns
// XCONV_OK, XCONV_ERR_INVALID for a failing problem or a missing bias, or
// XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_reference_epilogue(const xconv_problem *p, const double *conv,
                                      const double *conv_scale, const float *bias, double *y,
                                      double *y_scale, xconv_error *err);
xconv_status xconv_reference_epilogue_f32(const xconv_problem *p, const float *conv,
                                          const float *conv_scale, const float *bias, float *y,
                                          float *y_scale, xconv_error *err);

// Returns output element `index` of y (the final output, flat) of p in float64, as
// xconv_reference_forward computes it (bit for bit); *norm64 (when not NULL) gets its scale;
// NaN for an index outside y, a missing bias, or a pool window of more than 64 elements.
double xconv_reference_forward_element(const xconv_problem *p, const float *x, const float *w,
                                       const float *bias, int64_t index, double *norm64);

// xconv_reference_forward_element without a bias.
double xconv_reference_element(const xconv_problem *p, const float *x, const float *w,
                               int64_t index, double *norm64);

// ---------------------------------------------------------------------------------------------
// Measuring (the one primitive bench, parity and the GEMM comparison use)

// Enqueues run number `run` of the work being measured (asynchronously); returns a status.
typedef xconv_status (*xconv_enqueue_fn)(void *user, int run, xconv_error *err);

// What xconv_device_measure found: device time per run in milliseconds.
typedef struct xconv_timing {
    int warmup, repeat;
    double median_ms, min_ms, max_ms;
} xconv_timing;

// Calls enqueue(user, i) `warmup` times untimed, waits, then `repeat` times (i counting on from
// warmup) each between two marks in the device's queue, and fills *out with the median, min
// and max of the marks' times (device events, not a host clock); samples (when not NULL) gets
// the repeat times in run order. Returns XCONV_ERR_INVALID for repeat < 1, or the first
// failure of enqueue or the device.
xconv_status xconv_device_measure(xconv_device *dev, xconv_enqueue_fn enqueue, void *user,
                                  int warmup, int repeat, xconv_timing *out, double *samples,
                                  xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Peaks: the device's limits, measured with xconv's own micro-kernels (cl/peak_*.cl)

// What xconv_peaks_measure found. Each figure comes from the fastest of the timed runs.
typedef struct xconv_peaks {
    double fp32_gflops;        // fp32 FMA throughput, GFLOP/s (an FMA counts 2 FLOPs)
    double gbps;               // copy bandwidth: bytes read plus bytes written over time, GB/s
    double gbps_read;          // read-only bandwidth, GB/s
    xconv_timing fma, copy, read;  // the timings of the three micro-kernels
    double fma_flops;          // FLOPs of one FMA run
    double copy_bytes;         // bytes one copy run moves (read + written)
    double read_bytes;         // bytes one read run reads
    size_t fma_items;          // work-items of the FMA kernel
    int fma_iters;             // its iterations per work-item (calibrated to a run of ~20 ms)
    size_t work_group;         // work-group size of all three
    int fma_lanes;             // lanes of each FMA chain: the device's native float vector
                               // width on OpenCL devices that have one (CPUs), else 1
} xconv_peaks;

// Measures dev's fp32 FMA throughput and its memory bandwidth (a copy, and reads alone) with
// xconv's own kernels, sized from the device's limits (compute units, work-group size, memory,
// cache) and timed with xconv_device_measure: 2 warm-up and `repeat` timed runs each. Fills
// *out and returns XCONV_OK, XCONV_ERR_INVALID for repeat < 1, or the first failure (a build,
// an allocation past the device's memory, a launch).
xconv_status xconv_peaks_measure(xconv_device *dev, int repeat, xconv_peaks *out,
                                 xconv_error *err);

// ---------------------------------------------------------------------------------------------
// SGEMM on raw row-major matrices: ours (cl/sgemm.cl) or the vendor's (CLBlast, cuBLAS)

typedef struct xconv_gemm xconv_gemm;  // one planned product C (m x n) = A (m x k) * B (k x n)

// Plans C = A * B on dev with impl "xconv" (our SGEMM, its tiles and split-K chosen for the size
// as the convolutions' GEMMs are, or forced by opts->gemm_tiles and opts->gemm_split_k; opts
// NULL: defaults; a split's partials live in device memory the handle owns) or "vendor" (the
// backend's BLAS). Returns NULL with XCONV_ERR_OUT_OF_MEMORY when a matrix passes the device's
// limits or the 32-bit index range, XCONV_ERR_UNAVAILABLE when the backend has no vendor BLAS,
// or another status.
xconv_gemm *xconv_gemm_create(xconv_device *dev, int64_t m, int64_t n, int64_t k,
                              const char *impl, const xconv_plan_options *opts,
                              xconv_error *err);

// Returns one line on the product, the tiles and the split chosen.
const char *xconv_gemm_summary(const xconv_gemm *g);

// Enqueues C = A * B on buffers of m x k, k x n and m x n floats (asynchronous); returns the
// first failure (XCONV_ERR_INVALID for a buffer too small).
xconv_status xconv_gemm_run(xconv_gemm *g, xconv_buffer *a, xconv_buffer *b, xconv_buffer *c,
                            xconv_error *err);

// Frees a product's plan; NULL is ignored.
void xconv_gemm_destroy(xconv_gemm *g);

// ---------------------------------------------------------------------------------------------
// 2-D real FFTs on raw planes: our transforms (cl/fft_forward.cl, cl/fft_inverse.cl), the ones
// the FFT convolution variants run, on their own (for checking and timing them)

typedef struct xconv_fft2d xconv_fft2d;  // `batch` real planes of lh x lw <-> their spectra

// Plans the 2-D real-to-complex transform of `batch` planes of lh x lw floats (row-major, one
// plane after another) into their half spectra, and the complex-to-real inverse, on dev; lh and
// lw are 2^a 3^b 5^c from 2 to 4096 (opts NULL: defaults). A half spectrum holds frequencies
// (u, v) for u < lh, v <= lw/2; element (u, v) of plane b is the complex number (two floats,
// real first) at index (u * (lw/2 + 1) + v) * batch + b. Returns NULL with XCONV_ERR_INVALID for
// other sizes, XCONV_ERR_OUT_OF_MEMORY when the spectra pass the 32-bit index range,
// XCONV_ERR_NOT_APPLICABLE when a transform passes the device's local memory, or another status.
xconv_fft2d *xconv_fft2d_create(xconv_device *dev, int64_t lh, int64_t lw, int64_t batch,
                                const xconv_plan_options *opts, xconv_error *err);

// Returns one line on the transforms chosen (radices, planes per work-group).
const char *xconv_fft2d_summary(const xconv_fft2d *f);

// Returns the bytes of the planes and of the half spectra of f.
size_t xconv_fft2d_planes_bytes(const xconv_fft2d *f);
size_t xconv_fft2d_spectra_bytes(const xconv_fft2d *f);

// Enqueues the forward transform of planes into spectra (asynchronous); returns the first
// failure (XCONV_ERR_INVALID for a buffer too small).
xconv_status xconv_fft2d_forward(xconv_fft2d *f, xconv_buffer *planes, xconv_buffer *spectra,
                                 xconv_error *err);

// Enqueues the inverse transform of spectra into planes, unnormalised (the forward transform
// then the inverse multiply the planes by lh * lw); spectra hold half spectra of real planes.
// Returns the first failure.
xconv_status xconv_fft2d_inverse(xconv_fft2d *f, xconv_buffer *spectra, xconv_buffer *planes,
                                 xconv_error *err);

// Frees f's plans; NULL is ignored.
void xconv_fft2d_destroy(xconv_fft2d *f);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

// Measuring: cases, results, find, checking helpers.
#include <xconv/measure.h>

#endif // XCONV_H
