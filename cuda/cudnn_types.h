// SPDX-License-Identifier: MIT
// The cuDNN types of a problem: the data type of x, w and y, the compute type and the math type
// that follow its storage type and math mode, and which of find's results a mode accepts.
#ifndef XCONV_CUDNN_TYPES_H
#define XCONV_CUDNN_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include <cudnn.h>

#include <xconv/xconv.h>

// What the cuDNN rows describe a problem with.
typedef struct xconv_cudnn_types {
    cudnnDataType_t data;     // x, w and y: FLOAT, HALF or BFLOAT16, the problem's dtype
    cudnnDataType_t compute;  // the convolution descriptor's accumulation: FLOAT in every mode
    cudnnMathType_t math;     // FMA_MATH for math=f32 (never TF32); TENSOR_OP_MATH for the rest
} xconv_cudnn_types;

// Fills *out for p's dtype and math on a device of compute capability cc_major (0: unknown, no
// capability check). math=f32 gets CUDNN_FMA_MATH whatever the storage (fp32 products, so no
// TF32 and no fp16 products); tf32 (fp32 storage: tensor-op math over FLOAT data is TF32), f16
// and bf16 get CUDNN_TENSOR_OP_MATH. Returns true, or false with the reason: a dtype or math
// cuDNN rows do not know, a math mode its storage cannot feed, or tensor-op math the device
// lacks (TF32 and bf16 need compute capability 8.0, fp16 7.0).
bool xconv_cudnn_types_of(const xconv_problem *p, int cc_major, xconv_cudnn_types *out,
                          char *reason, size_t len);

// Returns true when a result of cuDNN's find that ran with math type `ran` is one the mode of t
// accepts: exactly t's math type (FMA results only for math=f32; tensor-op results only for a
// reduced mode, never ALLOW_CONVERSION, which may cut fp32 data to fp16).
bool xconv_cudnn_math_accepts(const xconv_cudnn_types *t, cudnnMathType_t ran);

// The name of a math type ("CUDNN_FMA_MATH"), or "CUDNN math type <n>" for one not known here.
const char *xconv_cudnn_math_name(cudnnMathType_t math);

// The name of a data type ("FLOAT", "HALF", "BFLOAT16"), or "data type <n>".
const char *xconv_cudnn_data_name(cudnnDataType_t data);

#endif // XCONV_CUDNN_TYPES_H
