// SPDX-License-Identifier: MIT
// The cuBLAS types of a GEMM: the data types of A, B and C and the compute type that follow its
// storage type and math mode (a pure function: tests check it without a GPU).
#ifndef XCONV_CUBLAS_TYPES_H
#define XCONV_CUBLAS_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include <cublas_v2.h>

#include <xconv/xconv.h>

// What a cublasGemmStridedBatchedEx call of one storage type and math mode passes.
typedef struct xconv_cublas_types {
    cudaDataType ab;              // A and B: CUDA_R_32F, CUDA_R_16F or CUDA_R_16BF (the dtype)
    cudaDataType c;               // C: CUDA_R_32F in every mode
    cublasComputeType_t compute;  // fp32 accumulation in every mode (see xconv_cublas_types_of)
} xconv_cublas_types;

// Fills *out for storage type dtype and math mode math on a device of compute capability
// cc_major (0: unknown, no capability check): math=f32 gets CUBLAS_COMPUTE_32F_PEDANTIC
// whatever the storage (fp32 products and sums, no TF32, no tensor-core conversion), tf32
// (fp32 storage) CUBLAS_COMPUTE_32F_FAST_TF32, f16 and bf16 (the same storage) CUBLAS_COMPUTE_32F
// over fp16 or bf16 A and B, which cuBLAS runs on tensor cores with fp32 accumulation. Returns
// true, or false with the reason: a dtype or math not known, a math mode its storage cannot
// feed, or tensor cores the device lacks (TF32 and bf16 need compute capability 8.0, fp16 7.0:
// on older devices cuBLAS would quietly run TF32 as fp32, so those rows say n/a instead).
bool xconv_cublas_types_of(int64_t dtype, int64_t math, int cc_major, xconv_cublas_types *out,
                           char *reason, size_t len);

// The name of a compute type ("CUBLAS_COMPUTE_32F_FAST_TF32"), or "cuBLAS compute type <n>".
const char *xconv_cublas_compute_name(cublasComputeType_t compute);

// The name of a data type ("CUDA_R_16BF"), or "data type <n>".
const char *xconv_cublas_data_name(cudaDataType data);

#endif // XCONV_CUBLAS_TYPES_H
