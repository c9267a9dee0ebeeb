// SPDX-License-Identifier: MIT
// The peers in the reduced modes, without a GPU: which peers the core lets through for each
// storage type and math mode (cuDNN's rows every mode, CLBlast and the cuBLAS reference strict
// fp32 only, the fused row no reduced storage), and, where the CUDA backend is built, the cuDNN
// types each mode describes: FLOAT / HALF / BFLOAT16 data, FLOAT compute, FMA math for math=f32
// (never TF32), tensor-op math for tf32, f16 and bf16 only on devices that have it, and which
// find results a mode keeps.
#include <stdio.h>
#include <string.h>

#include "../host/core/device.h"
#include "../host/plan/variant.h"
#include "tests/check.h"
#include "tests/fixtures.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/cudnn_types.h"
#endif

// Every combination the problem accepts: storage type, then math mode.
static const char *const modes[] = {
    "",                       // fp32 storage, strict fp32
    "dtype=f16",              // fp16 storage, fp32 math
    "dtype=bf16",             // bf16 storage, fp32 math
    "math=tf32",              // fp32 storage, TF32 products
    "dtype=f16,math=f16",     // fp16 storage and products
    "dtype=bf16,math=bf16",   // bf16 storage and products
};
#define NMODES (sizeof modes / sizeof modes[0])

// ---------------------------------------------------------------------------------------------
// The core's gate (host/plan/registry.c) for the peers

// The sm_90 profile has no backend, so a peer that passes the storage and math check stops at
// the vendor call ("has no vendor convolution"); one the check refuses says which mode.
static void test_gate(void)
{
    xconv_device *h100 = open_target("sm_90");
    if (!h100)
        return;
    const char *spec = "n=2,c=8,h=10,w=10,k=16,r=3,pad=1";
    int count = xconv_variant_count(), cudnn_rows = 0;
    for (size_t m = 0; m < NMODES; m++) {
        xconv_problem p;
        if (!parse_with(spec, modes[m], &p))
            continue;
        for (int i = 0; i < count; i++) {
            const xconv_variant_info *v = xconv_variant_get_info(xconv_variant_at(i));
            if (strcmp(v->family, "peer") != 0 || strcmp(v->name, "cudnn_fused_bias_act_pool") == 0)
                continue;
            char reason[512] = "";
            CHECK(!xconv_variant_applies(xconv_variant_at(i), h100, &p, reason, sizeof reason));
            if (strncmp(v->name, "cudnn_", 6) == 0) {
                CHECK_MSG(strstr(reason, "has no vendor convolution") != NULL, "%s [%s]: %s",
                          v->name, modes[m], reason);
                cudnn_rows += m == 0;
            } else if (m == 0 || strcmp(modes[m], "dtype=f16") == 0 ||
                       strcmp(modes[m], "dtype=bf16") == 0) {
                CHECK_MSG(strstr(reason, "math=") == NULL, "%s [%s]: %s", v->name, modes[m],
                          reason);
            } else {
                CHECK_MSG(strstr(reason, "does not implement this math mode") != NULL,
                          "%s [%s]: %s", v->name, modes[m], reason);
            }
        }
    }
    CHECK_MSG(cudnn_rows == 9, "%d cuDNN rows for the bare convolution", cudnn_rows);
    // CLBlast reads fp32 only; the fused row takes tf32 (fp32 storage) but no reduced storage.
    xconv_error err;
    const xconv_variant *clblast = xconv_variant_find("clblast_convgemm", &err);
    const xconv_variant *fused = xconv_variant_find("cudnn_fused_bias_act_pool", &err);
    CHECK(clblast && fused);
    xconv_problem p;
    char reason[512] = "";
    if (clblast && parse_with(spec, "dtype=f16", &p)) {
        CHECK(!xconv_variant_applies(clblast, h100, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, "clblast_convgemm has no dtype=f16 kernels");
    }
    if (fused && parse_with(spec, "math=tf32,bias=1,act=relu", &p)) {
        CHECK(!xconv_variant_applies(fused, h100, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, "has no vendor convolution");
    }
    if (fused && parse_with(spec, "dtype=f16,math=f16,bias=1", &p)) {
        CHECK(!xconv_variant_applies(fused, h100, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, "an epilogue with dtype=f16 is not implemented");
    }
    // The reference paths stay strict fp32 (the device reference is cuBLAS's SGEMM in
    // CUBLAS_DEFAULT_MATH): a reduced mode never reaches them.
    const xconv_variant *cublas = xconv_variant_find("cublas_gemm", &err);
    CHECK(cublas != NULL);
    if (cublas && parse_with(spec, "math=tf32", &p)) {
        CHECK(!xconv_variant_applies(cublas, h100, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, "math=tf32: cublas_gemm does not implement this math mode");
    }
    xconv_device_close(h100);
}

// ---------------------------------------------------------------------------------------------
// The cuDNN types of each mode

#ifdef XCONV_HAVE_CUDA

// The data and math types expected for modes[m], in order.
static const cudnnDataType_t want_data[NMODES] = {
    CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
    CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
};
static const cudnnMathType_t want_math[NMODES] = {
    CUDNN_FMA_MATH, CUDNN_FMA_MATH, CUDNN_FMA_MATH,
    CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH,
};

static void test_types(void)
{
    const char *spec = "n=1,c=4,h=6,w=6,k=4,r=3";
    for (size_t m = 0; m < NMODES; m++) {
        xconv_problem p;
        if (!parse_with(spec, modes[m], &p))
            continue;
        xconv_cudnn_types t;
        char reason[256] = "";
        bool ok = xconv_cudnn_types_of(&p, 9, &t, reason, sizeof reason);
        CHECK_MSG(ok, "[%s]: %s", modes[m], reason);
        if (!ok)
            continue;
        CHECK_MSG(t.data == want_data[m], "[%s]: data %s", modes[m],
                  xconv_cudnn_data_name(t.data));
        CHECK_MSG(t.compute == CUDNN_DATA_FLOAT, "[%s]: compute %s", modes[m],
                  xconv_cudnn_data_name(t.compute));
        CHECK_MSG(t.math == want_math[m], "[%s]: %s", modes[m], xconv_cudnn_math_name(t.math));
        // Find keeps results of the mode's own math type only: strict fp32 never takes a
        // tensor-op (TF32) result, a reduced mode never an FMA one or a down-converting one.
        CHECK(xconv_cudnn_math_accepts(&t, want_math[m]));
        CHECK(!xconv_cudnn_math_accepts(&t, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION));
        CHECK(!xconv_cudnn_math_accepts(&t, CUDNN_DEFAULT_MATH));
        CHECK(!xconv_cudnn_math_accepts(&t, want_math[m] == CUDNN_FMA_MATH
                                                ? CUDNN_TENSOR_OP_MATH
                                                : CUDNN_FMA_MATH));
        // Strict fp32 needs no tensor cores: FMA math on any device, however old.
        if (want_math[m] == CUDNN_FMA_MATH)
            CHECK(xconv_cudnn_types_of(&p, 6, &t, reason, sizeof reason) &&
                  t.math == CUDNN_FMA_MATH);
    }
    // Tensor-op math on a device without it is refused with the capability it needs: TF32 and
    // bf16 from 8.0 (Ampere), fp16 from 7.0 (Volta).
    xconv_problem p;
    xconv_cudnn_types t;
    char reason[256] = "";
    if (parse_with(spec, "math=tf32", &p)) {
        CHECK(!xconv_cudnn_types_of(&p, 7, &t, reason, sizeof reason));
        CHECK_CONTAINS(reason, "math=tf32 needs tensor cores of compute capability 8.0");
        CHECK_CONTAINS(reason, "this device is 7.x");
        CHECK(xconv_cudnn_types_of(&p, 8, &t, reason, sizeof reason));
    }
    if (parse_with(spec, "dtype=bf16,math=bf16", &p))
        CHECK(!xconv_cudnn_types_of(&p, 7, &t, reason, sizeof reason));
    if (parse_with(spec, "dtype=f16,math=f16", &p)) {
        CHECK(xconv_cudnn_types_of(&p, 7, &t, reason, sizeof reason));
        CHECK(!xconv_cudnn_types_of(&p, 6, &t, reason, sizeof reason));
        CHECK_CONTAINS(reason, "compute capability 7.0");
    }
    // A pair the problem check would refuse, and values out of range, are refused here too.
    if (parse_with(spec, "", &p)) {
        p.math = XCONV_MATH_TF32;
        p.dtype = XCONV_DTYPE_F16;
        CHECK(!xconv_cudnn_types_of(&p, 9, &t, reason, sizeof reason));
        CHECK_CONTAINS(reason, "math=tf32 needs dtype=f32");
        p.math = 7;
        CHECK(!xconv_cudnn_types_of(&p, 9, &t, reason, sizeof reason));
        CHECK_CONTAINS(reason, "math 7");
    }
    CHECK(strcmp(xconv_cudnn_math_name(CUDNN_FMA_MATH), "CUDNN_FMA_MATH") == 0);
    CHECK(strcmp(xconv_cudnn_math_name((cudnnMathType_t)42), "CUDNN math type 42") == 0);
    CHECK(strcmp(xconv_cudnn_data_name(CUDNN_DATA_BFLOAT16), "BFLOAT16") == 0);
}

#endif

int main(void)
{
    test_gate();
#ifdef XCONV_HAVE_CUDA
    test_types();
#else
    printf("cuDNN types not checked: built without the CUDA backend\n");
#endif
    return check_summary("test_peer_modes");
}
