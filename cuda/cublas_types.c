// SPDX-License-Identifier: MIT
// The cuBLAS rows' data and compute types from a GEMM's storage type and math mode (a pure
// function: tests check it without a GPU).
#include <stdio.h>

#include "cublas_types.h"

const char *xconv_cublas_compute_name(cublasComputeType_t compute)
{
    switch (compute) {
    case CUBLAS_COMPUTE_32F: return "CUBLAS_COMPUTE_32F";
    case CUBLAS_COMPUTE_32F_PEDANTIC: return "CUBLAS_COMPUTE_32F_PEDANTIC";
    case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
    default: break;
    }
    static _Thread_local char text[40];
    snprintf(text, sizeof text, "cuBLAS compute type %d", (int)compute);
    return text;
}

const char *xconv_cublas_data_name(cudaDataType data)
{
    switch (data) {
    case CUDA_R_32F: return "CUDA_R_32F";
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_16BF: return "CUDA_R_16BF";
    default: break;
    }
    static _Thread_local char text[32];
    snprintf(text, sizeof text, "data type %d", (int)data);
    return text;
}

// The compute type of each reduced mode, the storage it needs and the compute capability whose
// tensor cores run it (TF32 and bf16 came with Ampere, fp16 tensor cores with Volta).
static const struct {
    int64_t math, dtype;
    cublasComputeType_t compute;
    int cc_major;
} reduced_modes[] = {
    {XCONV_MATH_TF32, XCONV_DTYPE_F32, CUBLAS_COMPUTE_32F_FAST_TF32, 8},
    {XCONV_MATH_F16, XCONV_DTYPE_F16, CUBLAS_COMPUTE_32F, 7},
    {XCONV_MATH_BF16, XCONV_DTYPE_BF16, CUBLAS_COMPUTE_32F, 8},
};

bool xconv_cublas_types_of(int64_t dtype, int64_t math, int cc_major, xconv_cublas_types *out,
                           char *reason, size_t len)
{
    static const cudaDataType data[] = {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF};
    const char *dtype_name = xconv_dtype_name(dtype), *math_name = xconv_math_name(math);
    if (!dtype_name || !math_name) {
        snprintf(reason, len, "cuBLAS rows: dtype %lld / math %lld is not a storage type and "
                 "math mode they describe", (long long)dtype, (long long)math);
        return false;
    }
    *out = (xconv_cublas_types){.ab = data[dtype], .c = CUDA_R_32F,
                                .compute = CUBLAS_COMPUTE_32F_PEDANTIC};
    if (math == XCONV_MATH_F32)
        return true;
    for (size_t i = 0; i < sizeof reduced_modes / sizeof reduced_modes[0]; i++) {
        if (reduced_modes[i].math != math)
            continue;
        if (reduced_modes[i].dtype != dtype) {
            snprintf(reason, len, "cuBLAS rows: math=%s needs dtype=%s (got dtype=%s)",
                     math_name, xconv_dtype_name(reduced_modes[i].dtype), dtype_name);
            return false;
        }
        if (cc_major > 0 && cc_major < reduced_modes[i].cc_major) {
            snprintf(reason, len, "cuBLAS rows: math=%s needs tensor cores of compute "
                     "capability %d.0 or later (this device is %d.x)", math_name,
                     reduced_modes[i].cc_major, cc_major);
            return false;
        }
        out->compute = reduced_modes[i].compute;
        return true;
    }
    snprintf(reason, len, "cuBLAS rows: math=%s has no cuBLAS compute type here", math_name);
    return false;
}
