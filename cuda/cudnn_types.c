// SPDX-License-Identifier: MIT
// The cuDNN rows' data, compute and math types from a problem's storage type and math mode (a
// pure function: tests check it without a GPU).
#include <stdio.h>

#include "cudnn_types.h"
#include "tensor_op_modes.h"

// ---------------------------------------------------------------------------------------------
// Names

const char *xconv_cudnn_math_name(cudnnMathType_t math)
{
    switch (math) {
    case CUDNN_DEFAULT_MATH: return "CUDNN_DEFAULT_MATH";
    case CUDNN_TENSOR_OP_MATH: return "CUDNN_TENSOR_OP_MATH";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH: return "CUDNN_FMA_MATH";
    }
    static _Thread_local char text[32];
    snprintf(text, sizeof text, "CUDNN math type %d", (int)math);
    return text;
}

const char *xconv_cudnn_data_name(cudnnDataType_t data)
{
    switch (data) {
    case CUDNN_DATA_FLOAT: return "FLOAT";
    case CUDNN_DATA_HALF: return "HALF";
    case CUDNN_DATA_BFLOAT16: return "BFLOAT16";
    default: break;
    }
    static _Thread_local char text[32];
    snprintf(text, sizeof text, "data type %d", (int)data);
    return text;
}

// ---------------------------------------------------------------------------------------------
// The choice

bool xconv_cudnn_types_of(const xconv_problem *p, int cc_major, xconv_cudnn_types *out,
                          char *reason, size_t len)
{
    static const cudnnDataType_t data[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                                           CUDNN_DATA_BFLOAT16};
    if (!xconv_tensor_op_mode_check(p->dtype, p->math, cc_major, "cuDNN rows", reason, len))
        return false;
    *out = (xconv_cudnn_types){
        .data = data[p->dtype], .compute = CUDNN_DATA_FLOAT,
        .math = p->math == XCONV_MATH_F32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH};
    return true;
}

bool xconv_cudnn_math_accepts(const xconv_cudnn_types *t, cudnnMathType_t ran)
{
    return ran == t->math;
}
