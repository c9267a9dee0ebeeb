// SPDX-License-Identifier: MIT
// The cuBLAS rows' data and compute types from a GEMM's storage type and math mode (a pure
// function: tests check it without a GPU).
#include <stdio.h>

#include "cublas_types.h"
#include "tensor_op_modes.h"

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

bool xconv_cublas_types_of(int64_t dtype, int64_t math, int cc_major, xconv_cublas_types *out,
                           char *reason, size_t len)
{
    static const cudaDataType data[] = {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF};
    if (!xconv_tensor_op_mode_check(dtype, math, cc_major, "cuBLAS rows", reason, len))
        return false;
    // Strict fp32 whatever the storage: no TF32, no tensor-core conversion. tf32 reads fp32
    // operands; f16 and bf16 accumulate in fp32 on tensor cores.
    *out = (xconv_cublas_types){
        .ab = data[dtype], .c = CUDA_R_32F,
        .compute = math == XCONV_MATH_F32    ? CUBLAS_COMPUTE_32F_PEDANTIC
                   : math == XCONV_MATH_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                             : CUBLAS_COMPUTE_32F};
    return true;
}
