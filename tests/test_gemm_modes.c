// SPDX-License-Identifier: MIT
// GEMM on raw matrices in the storage types and math modes (xconv_gemm_create_typed), without a
// GPU: which kernel of ours each mode plans on an H100 profile (implicit_mma's mma shapes, C's
// storage type) and the refusals (a mismatched pair, no tensor cores); on the OpenCL CPU device
// (skipped without one) fp16 and bf16 storage with fp32 math run through gemm_1x1 and land within
// the storage threshold of a float64 product of the rounded operands, and CLBlast refuses the
// reduced modes by name; where the CUDA backend is built, the cuBLAS types of each mode.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "tests/fixtures.h"
#ifdef XCONV_HAVE_CUDA
#include "cuda/cublas_types.h"
#endif

// ---------------------------------------------------------------------------------------------
// Plans on an H100 profile (no backend: plans build nothing)

static void test_profile_plans(void)
{
    xconv_device *h100 = open_target("sm_90");
    if (!h100)
        return;
    xconv_plan_options opts;
    xconv_plan_options_default(&opts);
    opts.gemm_split_k = 1;  // no split-K workspace: a profile allocates nothing
    opts.mma_pipeline = 1;  // implicit_mma's register pipeline: nor the packed one's workspace
    xconv_error err = {0};
    const struct {
        int64_t dtype, math, c_dtype;
        const char *summary;
    } cases[] = {
        {XCONV_DTYPE_F32, XCONV_MATH_F32, XCONV_DTYPE_F32, "SGEMM 256x192x128"},
        {XCONV_DTYPE_F32, XCONV_MATH_TF32, XCONV_DTYPE_F32, "mma.sync m16n8k8 tf32"},
        {XCONV_DTYPE_F16, XCONV_MATH_F16, XCONV_DTYPE_F16, "mma.sync m16n8k16 f16"},
        {XCONV_DTYPE_BF16, XCONV_MATH_BF16, XCONV_DTYPE_BF16, "mma.sync m16n8k16 bf16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xconv_gemm *g = xconv_gemm_create_typed(h100, 256, 192, 128, cases[i].dtype,
                                                cases[i].math, "xconv", &opts, &err);
        CHECK_MSG(g != NULL, "%s", err.msg);
        if (!g)
            continue;
        CHECK(xconv_gemm_c_dtype(g) == cases[i].c_dtype);
        CHECK_CONTAINS(xconv_gemm_summary(g), cases[i].summary);
        // (m, n, k) is the 1x1 convolution's (K, columns, C): the product's rows, columns, sum
        if (cases[i].math != XCONV_MATH_F32)
            CHECK_CONTAINS(xconv_gemm_summary(g), "256x192x128");
        xconv_gemm_destroy(g);
    }
    // A math mode its storage cannot feed, and values that are no type at all.
    CHECK(xconv_gemm_create_typed(h100, 64, 64, 64, XCONV_DTYPE_F32, XCONV_MATH_BF16, "xconv",
                                  &opts, &err) == NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "math=bf16 needs dtype=bf16");
    CHECK(xconv_gemm_create_typed(h100, 64, 64, 64, 7, XCONV_MATH_F32, "xconv", &opts, &err) ==
          NULL);
    CHECK(err.status == XCONV_ERR_INVALID);
    // A profile has no backend: no vendor BLAS.
    CHECK(xconv_gemm_create_typed(h100, 64, 64, 64, XCONV_DTYPE_F32, XCONV_MATH_TF32, "vendor",
                                  NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_UNAVAILABLE);
    CHECK(xconv_gemm_c_dtype(NULL) == -1);
    xconv_device_close(h100);

    // No NVIDIA tensor cores: implicit_mma does not apply, and says why.
    xconv_device *amd = open_target("gfx90a");
    if (!amd)
        return;
    CHECK(xconv_gemm_create_typed(amd, 64, 64, 64, XCONV_DTYPE_F32, XCONV_MATH_TF32, "xconv",
                                  &opts, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "tensor cores");
    xconv_device_close(amd);
}

// ---------------------------------------------------------------------------------------------
// Runs on the OpenCL CPU device

// The largest |c - ref| / sum |a*b| over C = A * B (m x k times k x n, row-major), in float64
// over the operands as given.
static double max_norm_error(const float *a, const float *b, const float *c, int m, int n, int k)
{
    double worst = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0, scale = 0;
            for (int l = 0; l < k; l++) {
                double t = (double)a[i * k + l] * b[l * n + j];
                sum += t;
                scale += fabs(t);
            }
            double e = fabs(c[i * n + j] - sum) / (scale > 0 ? scale : 1);
            worst = e > worst || isnan(e) ? e : worst;
        }
    return worst;
}

// fp16 or bf16 A and B with strict fp32 math on dev: ours runs gemm_1x1 and stores C in the
// same type; its error against float64 over the rounded operands stays within the family's
// threshold plus C's rounding, and over the unrounded ones (what a check that forgot the
// storage would compare with) it is larger.
static void test_cpu_storage(xconv_device *dev, int64_t dtype)
{
    enum { M = 37, N = 29, K = 45 };
    float a[M * K], b[K * N], a_raw[M * K], b_raw[K * N], c[M * N];
    uint16_t a16[M * K], b16[K * N], c16[M * N];
    xconv_random_fill(a_raw, M * K, 11, 2);
    xconv_random_fill(b_raw, K * N, 11, 1);
    memcpy(a, a_raw, sizeof a);
    memcpy(b, b_raw, sizeof b);
    CHECK(xconv_dtype_round(dtype, a, M * K) && xconv_dtype_round(dtype, b, K * N));
    CHECK(xconv_dtype_from_f32(dtype, a, a16, M * K) && xconv_dtype_from_f32(dtype, b, b16, K * N));
    xconv_error err = {0};
    xconv_gemm *g = xconv_gemm_create_typed(dev, M, N, K, dtype, XCONV_MATH_F32, "xconv", NULL,
                                            &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    if (!g)
        return;
    CHECK(xconv_gemm_c_dtype(g) == dtype);
    CHECK_CONTAINS(xconv_gemm_summary(g), "SGEMM on the input");
    xconv_buffer *da = xconv_buffer_create(dev, sizeof a16, &err);
    xconv_buffer *db = xconv_buffer_create(dev, sizeof b16, &err);
    xconv_buffer *dc = xconv_buffer_create(dev, sizeof c16, &err);
    CHECK(da && db && dc);
    xconv_status st = da && db && dc ? XCONV_OK : XCONV_ERR_OUT_OF_MEMORY;
    if (st == XCONV_OK)
        st = xconv_buffer_upload(da, 0, sizeof a16, a16, &err);
    if (st == XCONV_OK)
        st = xconv_buffer_upload(db, 0, sizeof b16, b16, &err);
    if (st == XCONV_OK)
        st = xconv_buffer_fill_f32(dc, sizeof c16 / 4, NAN, &err);
    if (st == XCONV_OK)
        st = xconv_gemm_run(g, da, db, dc, &err);
    if (st == XCONV_OK)
        st = xconv_device_wait(dev, &err);
    if (st == XCONV_OK)
        st = xconv_buffer_download(dc, 0, sizeof c16, c16, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st == XCONV_OK) {
        CHECK(xconv_dtype_to_f32(dtype, c16, c, M * N));
        double limit = xconv_threshold_for_family("gemm") + xconv_threshold_storage(dtype);
        double rounded = max_norm_error(a, b, c, M, N, K);
        double raw = max_norm_error(a_raw, b_raw, c, M, N, K);
        CHECK_MSG(rounded <= limit, "%s: error %.3g over the rounded operands, limit %.3g",
                  xconv_dtype_name(dtype), rounded, limit);
        CHECK_MSG(raw > rounded, "%s: %.3g over the raw operands, %.3g over the rounded",
                  xconv_dtype_name(dtype), raw, rounded);
    }
    xconv_buffer_destroy(da);
    xconv_buffer_destroy(db);
    xconv_buffer_destroy(dc);
    xconv_gemm_destroy(g);
}

// The reduced math modes on the CPU device: ours needs tensor cores; CLBlast's plan is made but
// its slot refuses every mode but fp32 when the product runs, by name.
static void test_cpu_refusals(xconv_device *dev)
{
    xconv_error err = {0};
    CHECK(xconv_gemm_create_typed(dev, 16, 16, 16, XCONV_DTYPE_F16, XCONV_MATH_F16, "xconv",
                                  NULL, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "implicit_mma needs NVIDIA tensor cores");
    xconv_gemm *g = xconv_gemm_create_typed(dev, 16, 16, 16, XCONV_DTYPE_F32, XCONV_MATH_TF32,
                                            "vendor", NULL, &err);
    if (!g) {  // no CLBlast here
        CHECK_MSG(err.status == XCONV_ERR_UNAVAILABLE, "%s", err.msg);
        return;
    }
    xconv_buffer *a = xconv_buffer_create(dev, 16 * 16 * 4, &err);
    xconv_buffer *b = xconv_buffer_create(dev, 16 * 16 * 4, &err);
    xconv_buffer *c = xconv_buffer_create(dev, 16 * 16 * 4, &err);
    CHECK(xconv_gemm_run(g, a, b, c, &err) == XCONV_ERR_NOT_APPLICABLE);
    CHECK_CONTAINS(err.msg, "CLBlast runs SGEMM only here");
    CHECK_CONTAINS(err.msg, "math=tf32");
    xconv_buffer_destroy(a);
    xconv_buffer_destroy(b);
    xconv_buffer_destroy(c);
    xconv_gemm_destroy(g);
}

// ---------------------------------------------------------------------------------------------
// cuBLAS's types per mode

#ifdef XCONV_HAVE_CUDA
static void test_cublas_types(void)
{
    const struct {
        int64_t dtype, math;
        cudaDataType ab;
        cublasComputeType_t compute;
    } modes[] = {
        {XCONV_DTYPE_F32, XCONV_MATH_F32, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC},
        {XCONV_DTYPE_F16, XCONV_MATH_F32, CUDA_R_16F, CUBLAS_COMPUTE_32F_PEDANTIC},
        {XCONV_DTYPE_BF16, XCONV_MATH_F32, CUDA_R_16BF, CUBLAS_COMPUTE_32F_PEDANTIC},
        {XCONV_DTYPE_F32, XCONV_MATH_TF32, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32},
        {XCONV_DTYPE_F16, XCONV_MATH_F16, CUDA_R_16F, CUBLAS_COMPUTE_32F},
        {XCONV_DTYPE_BF16, XCONV_MATH_BF16, CUDA_R_16BF, CUBLAS_COMPUTE_32F},
    };
    char reason[256];
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        xconv_cublas_types t;
        bool ok = xconv_cublas_types_of(modes[i].dtype, modes[i].math, 9, &t, reason,
                                        sizeof reason);
        CHECK_MSG(ok, "%s", reason);
        CHECK_MSG(ok && t.ab == modes[i].ab && t.c == CUDA_R_32F && t.compute == modes[i].compute,
                  "dtype %lld math %lld: %s, %s", (long long)modes[i].dtype,
                  (long long)modes[i].math, xconv_cublas_data_name(t.ab),
                  xconv_cublas_compute_name(t.compute));
    }
    xconv_cublas_types t;
    CHECK(!xconv_cublas_types_of(XCONV_DTYPE_F32, XCONV_MATH_F16, 9, &t, reason, sizeof reason));
    CHECK_CONTAINS(reason, "math=f16 needs dtype=f16");
    CHECK(!xconv_cublas_types_of(3, XCONV_MATH_F32, 9, &t, reason, sizeof reason));
    CHECK(!xconv_cublas_types_of(XCONV_DTYPE_F32, 4, 9, &t, reason, sizeof reason));
    // TF32 and bf16 tensor cores came with compute capability 8.0, fp16's with 7.0; 0 is unknown.
    CHECK(!xconv_cublas_types_of(XCONV_DTYPE_F32, XCONV_MATH_TF32, 7, &t, reason, sizeof reason));
    CHECK_CONTAINS(reason, "compute capability 8.0");
    CHECK(!xconv_cublas_types_of(XCONV_DTYPE_BF16, XCONV_MATH_BF16, 7, &t, reason, sizeof reason));
    CHECK(xconv_cublas_types_of(XCONV_DTYPE_F16, XCONV_MATH_F16, 7, &t, reason, sizeof reason));
    CHECK(!xconv_cublas_types_of(XCONV_DTYPE_F16, XCONV_MATH_F16, 6, &t, reason, sizeof reason));
    CHECK(xconv_cublas_types_of(XCONV_DTYPE_F32, XCONV_MATH_TF32, 0, &t, reason, sizeof reason));
    CHECK(xconv_cublas_types_of(XCONV_DTYPE_F32, XCONV_MATH_F32, 5, &t, reason, sizeof reason));
    CHECK(strcmp(xconv_cublas_compute_name(CUBLAS_COMPUTE_32F_FAST_TF32),
                 "CUBLAS_COMPUTE_32F_FAST_TF32") == 0);
    CHECK(strcmp(xconv_cublas_data_name(CUDA_R_16BF), "CUDA_R_16BF") == 0);
}
#endif

int main(void)
{
    test_profile_plans();
#ifdef XCONV_HAVE_CUDA
    test_cublas_types();
#endif
    xconv_device *cpu = open_cpu();
    if (cpu) {
        test_cpu_storage(cpu, XCONV_DTYPE_F16);
        test_cpu_storage(cpu, XCONV_DTYPE_BF16);
        test_cpu_refusals(cpu);
        xconv_device_close(cpu);
    } else {
        printf("test_gemm_modes: no OpenCL CPU device: its runs are left out\n");
    }
    return check_summary("test_gemm_modes");
}
