// SPDX-License-Identifier: MIT
// Which reduced math modes the vendor libraries' rows run, in which storage, on which tensor
// cores (cuda/tensor_op_modes.h).
#include <stdio.h>

#include <xconv/xconv.h>

#include "tensor_op_modes.h"

// Each reduced mode's storage and the compute capability whose tensor cores run it.
static const struct {
    int64_t math, dtype;
    int cc_major;
} modes[] = {
    {XCONV_MATH_TF32, XCONV_DTYPE_F32, 8},
    {XCONV_MATH_F16, XCONV_DTYPE_F16, 7},
    {XCONV_MATH_BF16, XCONV_DTYPE_BF16, 8},
};

bool xconv_tensor_op_mode_check(int64_t dtype, int64_t math, int cc_major, const char *rows,
                                char *reason, size_t len)
{
    const char *dtype_name = xconv_dtype_name(dtype), *math_name = xconv_math_name(math);
    if (!dtype_name || !math_name) {
        snprintf(reason, len, "%s: dtype %lld / math %lld is not a storage type and math mode "
                 "they describe", rows, (long long)dtype, (long long)math);
        return false;
    }
    if (math == XCONV_MATH_F32)
        return true;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (modes[i].math != math)
            continue;
        if (modes[i].dtype != dtype) {
            snprintf(reason, len, "%s: math=%s needs dtype=%s (got dtype=%s)", rows, math_name,
                     xconv_dtype_name(modes[i].dtype), dtype_name);
            return false;
        }
        if (cc_major > 0 && cc_major < modes[i].cc_major) {
            snprintf(reason, len, "%s: math=%s needs tensor cores of compute capability %d.0 "
                     "or later (this device is %d.x)", rows, math_name, modes[i].cc_major,
                     cc_major);
            return false;
        }
        return true;
    }
    snprintf(reason, len, "%s: math=%s has no tensor-core mode here", rows, math_name);
    return false;
}
