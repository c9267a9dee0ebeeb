// SPDX-License-Identifier: MIT
// The cuDNN rows' data, compute and math types from a problem's storage type and math mode (a
// pure function: tests check it without a GPU).
#include <stdio.h>

#include "cudnn_types.h"

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

// The tensor-op math of each reduced mode: the storage it needs and the compute capability that
// has it (TF32 and bf16 came with Ampere, fp16 tensor cores with Volta).
static const struct {
    int64_t math, dtype;
    int cc_major;
} tensor_op_modes[] = {
    {XCONV_MATH_TF32, XCONV_DTYPE_F32, 8},
    {XCONV_MATH_F16, XCONV_DTYPE_F16, 7},
    {XCONV_MATH_BF16, XCONV_DTYPE_BF16, 8},
};

bool xconv_cudnn_types_of(const xconv_problem *p, int cc_major, xconv_cudnn_types *out,
                          char *reason, size_t len)
{
    static const cudnnDataType_t data[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                                           CUDNN_DATA_BFLOAT16};
    const char *dtype = xconv_dtype_name(p->dtype), *math = xconv_math_name(p->math);
    if (!dtype || !math) {
        snprintf(reason, len, "cuDNN rows: dtype %lld / math %lld is not a storage type and "
                 "math mode they describe", (long long)p->dtype, (long long)p->math);
        return false;
    }
    *out = (xconv_cudnn_types){.data = data[p->dtype], .compute = CUDNN_DATA_FLOAT,
                               .math = CUDNN_FMA_MATH};
    if (p->math == XCONV_MATH_F32)
        return true;
    for (size_t i = 0; i < sizeof tensor_op_modes / sizeof tensor_op_modes[0]; i++) {
        if (tensor_op_modes[i].math != p->math)
            continue;
        if (tensor_op_modes[i].dtype != p->dtype) {
            snprintf(reason, len, "cuDNN rows: math=%s needs dtype=%s (got dtype=%s)", math,
                     xconv_dtype_name(tensor_op_modes[i].dtype), dtype);
            return false;
        }
        if (cc_major > 0 && cc_major < tensor_op_modes[i].cc_major) {
            snprintf(reason, len, "cuDNN rows: math=%s needs tensor cores of compute "
                     "capability %d.0 or later (this device is %d.x)", math,
                     tensor_op_modes[i].cc_major, cc_major);
            return false;
        }
        out->math = CUDNN_TENSOR_OP_MATH;
        return true;
    }
    snprintf(reason, len, "cuDNN rows: math=%s has no cuDNN math type here", math);
    return false;
}

bool xconv_cudnn_math_accepts(const xconv_cudnn_types *t, cudnnMathType_t ran)
{
    return ran == t->math;
}
