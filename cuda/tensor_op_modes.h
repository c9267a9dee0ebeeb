// SPDX-License-Identifier: MIT
// The reduced math modes on NVIDIA's tensor cores as the vendor libraries' rows (cuDNN, cuBLAS)
// take them: the storage type each mode reads and the compute capability whose tensor cores
// run it (a pure function: tests check it without a GPU).
#ifndef XCONV_TENSOR_OP_MODES_H
#define XCONV_TENSOR_OP_MODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Returns true when the rows named `rows` ("cuDNN rows") can run storage type dtype in math
// mode math on a device of compute capability cc_major (0: unknown, no capability check):
// strict fp32 in any storage; tf32 on fp32, f16 on fp16 and bf16 on bf16, on tensor cores
// that have the mode (TF32 and bf16 came with Ampere, 8.0; fp16 with Volta, 7.0). Else false
// with the reason in reason: a dtype or math not known, a math mode its storage cannot feed,
// or tensor cores the device lacks.
bool xconv_tensor_op_mode_check(int64_t dtype, int64_t math, int cc_major, const char *rows,
                                char *reason, size_t len);

#endif // XCONV_TENSOR_OP_MODES_H
