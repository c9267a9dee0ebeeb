// SPDX-License-Identifier: MIT
// xconv's public API: status codes, the error message, the convolution descriptor and device info.
#ifndef XCONV_H
#define XCONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XCONV_VERSION "0.1.0"

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

// ---------------------------------------------------------------------------------------------
// The convolution descriptor

// One 2-D convolution (cross-correlation, as in deep learning frameworks), fp32.
// Input x is NCHW, weights w are K x (C/groups) x R x S, output y is N x K x P x Q.
typedef struct xconv_problem {
    int64_t n, c, h, w;           // batch, input channels, input height and width
    int64_t k, r, s;              // output channels, filter height and width
    int64_t stride_h, stride_w;   // step between output positions, in input pixels
    int64_t pad_h, pad_w;         // zero padding on each side
    int64_t dil_h, dil_w;         // spacing between filter taps
    int64_t groups;               // channel groups; groups == c is depthwise
} xconv_problem;

// The largest element count or index the kernels' index type (32-bit int) can address.
#define XCONV_MAX_INDEX ((int64_t)2147483647)

// Returns a problem with the defaults (stride 1, pad 0, dilation 1, groups 1) and zero sizes.
xconv_problem xconv_problem_default(void);

// Output height P and width Q; <= 0 when the output would be empty.
int64_t xconv_problem_out_h(const xconv_problem *p);
int64_t xconv_problem_out_w(const xconv_problem *p);

// Element counts of x, w and y.
int64_t xconv_problem_x_elems(const xconv_problem *p);
int64_t xconv_problem_w_elems(const xconv_problem *p);
int64_t xconv_problem_y_elems(const xconv_problem *p);

// Multiply-adds counted as 2 FLOPs: 2 * N * K * P * Q * (C/groups) * R * S.
double xconv_problem_flops(const xconv_problem *p);

// The fewest bytes a convolution must move: x and w read once, y written once.
double xconv_problem_min_bytes(const xconv_problem *p);

// Returns XCONV_OK when every rule holds, else XCONV_ERR_INVALID with a message naming the field
// and the rule (positive sizes, non-empty output, groups dividing c and k, 32-bit indexable).
xconv_status xconv_problem_check(const xconv_problem *p, xconv_error *err);

// Returns XCONV_OK when x, w and y each fit in one of the device's largest allocations, else
// XCONV_ERR_OUT_OF_MEMORY naming the tensor, its size and the device's limit.
xconv_status xconv_problem_check_device(const xconv_problem *p, const xconv_device_info *info,
                                        xconv_error *err);

// Parses "n=32,c=3,h=224,w=224,k=64,r=7,s=7,stride=2,pad=3" (see docs/shapes.md) into *p and
// checks it; returns XCONV_ERR_PARSE naming the bad token, or the check's status.
xconv_status xconv_shape_parse(const char *spec, xconv_problem *p, xconv_error *err);

// Like xconv_shape_parse, but only applies the keys present in spec on top of *p and does not
// check the result; *seen gets one bit per key set (XCONV_KEY_* below). For merging with .npy.
xconv_status xconv_shape_apply(const char *spec, xconv_problem *p, unsigned *seen, xconv_error *err);

enum {
    XCONV_KEY_N = 1u << 0, XCONV_KEY_C = 1u << 1, XCONV_KEY_H = 1u << 2, XCONV_KEY_W = 1u << 3,
    XCONV_KEY_K = 1u << 4, XCONV_KEY_R = 1u << 5, XCONV_KEY_S = 1u << 6,
    XCONV_KEY_STRIDE = 1u << 7, XCONV_KEY_PAD = 1u << 8, XCONV_KEY_DIL = 1u << 9,
    XCONV_KEY_GROUPS = 1u << 10,
};

// Writes the canonical SPEC of *p into buf (keys at their defaults are left out); returns the
// length written, as snprintf does.
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
    bool fp64;
    int cc_major, cc_minor;      // CUDA compute capability (0 on OpenCL)
    double peak_gflops;          // measured or configured fp32 peak, 0 when unknown
    double peak_gbps;            // measured or configured memory bandwidth, 0 when unknown
};

#ifdef __cplusplus
}
#endif

#endif // XCONV_H
