// SPDX-License-Identifier: MIT
// The convolution problem: its descriptor, storage and math types, SPEC shape strings,
// benchdnn descriptors, shape files and suites of named shapes.
#ifndef XCONV_PUBLIC_PROBLEM_H
#define XCONV_PUBLIC_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/core.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

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
// zero sizes. Two SPEC defaults depend on another key: s is r, and a pool's stride is its
// window; they are left 0 here ("as the SPEC says") for xconv_problem_complete to set once the
// sizes are filled in.
xconv_problem xconv_problem_default(void);

// Sets the fields left 0 whose SPEC default is another key's value, the one rule xconv_shape_parse
// applies too: s = r, pool_stride_h = pool_h and pool_stride_w = pool_w. Fields already set stay.
// `p = xconv_problem_default(); p.n = ...; p.r = 3; xconv_problem_complete(&p);` then describes
// the problem of the SPEC that names the same keys.
void xconv_problem_complete(xconv_problem *p);

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

// Parses spec as xconv_shape_parse does (n, c, h, w, k and r required, the SPEC's defaults such
// as s = r applied) without checking the problem: for a caller that hands it to a function that
// checks it anyway (xconv_plan_create). *seen (NULL: not wanted) gets one bit per key spec names
// (XCONV_KEY_* below). Returns XCONV_ERR_PARSE naming the bad token or missing key; *p is left
// alone on failure.
xconv_status xconv_shape_read(const char *spec, xconv_problem *p, unsigned *seen,
                              xconv_error *err);

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

XCONV_API_END

#endif // XCONV_PUBLIC_PROBLEM_H
