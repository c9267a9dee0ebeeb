// SPDX-License-Identifier: MIT
// Storage types and math modes: fp32 <-> fp16 / bf16 rounding (ties to even, subnormals,
// overflow, Inf and NaN), the SPEC keys dtype= and math=, their refusals, and sizes in bytes.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <xconv/xconv.h>

#include "tests/check.h"

// The float whose bits are u.
static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

// ---------------------------------------------------------------------------------------------
// fp16

static void test_f16_exact(void)
{
    // Values binary16 holds round-trip exactly, bits as IEEE 754 gives them.
    CHECK(xconv_f32_to_f16(1.0f) == 0x3c00);
    CHECK(xconv_f32_to_f16(-2.0f) == 0xc000);
    CHECK(xconv_f32_to_f16(65504.0f) == 0x7bff);            // the largest finite
    CHECK(xconv_f32_to_f16(0x1p-14f) == 0x0400);            // the smallest normal
    CHECK(xconv_f32_to_f16(0x1p-24f) == 0x0001);            // the smallest subnormal
    CHECK(xconv_f32_to_f16(0x3ffp-24f) == 0x03ff);          // the largest subnormal
    CHECK(xconv_f32_to_f16(-0.0f) == 0x8000);
    for (uint32_t h = 0; h < 0x7c00; h++) {  // every finite positive fp16 back and forth
        float f = xconv_f16_to_f32((uint16_t)h);
        if (xconv_f32_to_f16(f) != h) {
            CHECK_MSG(false, "fp16 0x%04x -> %g -> 0x%04x", h, f, xconv_f32_to_f16(f));
            break;
        }
    }
    CHECK(xconv_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(xconv_f16_to_f32(0xfbff) == -65504.0f);
}

static void test_f16_rounding(void)
{
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even keeps 1; 1 + 3 * 2^-11 is
    // halfway between 1 + 2^-10 (odd) and 1 + 2^-9: up to the even one.
    CHECK(xconv_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);
    CHECK(xconv_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);
    CHECK(xconv_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f) == 0x3c01);  // past halfway: up
    CHECK(xconv_f32_to_f16(nextafterf(1.0f + 0x1p-11f, 0.0f)) == 0x3c00);
    // Subnormal results: half the smallest subnormal ties to zero (even), more rounds up.
    CHECK(xconv_f32_to_f16(0x1p-25f) == 0x0000);
    CHECK(xconv_f32_to_f16(0x1.8p-25f) == 0x0001);
    CHECK(xconv_f32_to_f16(3 * 0x1p-25f) == 0x0002);                // 1.5 ulps: to even
    CHECK(xconv_f32_to_f16(0x1p-30f) == 0x0000);
    CHECK(xconv_f32_to_f16(-0x1p-30f) == 0x8000);                   // the sign survives
    // Rounding up out of the subnormals gives the smallest normal.
    CHECK(xconv_f32_to_f16(0x1p-14f - 0x1p-26f) == 0x0400);
    // Overflow: past the largest finite by half an ulp or more is infinity.
    CHECK(xconv_f32_to_f16(65519.0f) == 0x7bff);
    CHECK(xconv_f32_to_f16(65520.0f) == 0x7c00);
    CHECK(xconv_f32_to_f16(1e10f) == 0x7c00);
    CHECK(xconv_f32_to_f16(-1e10f) == 0xfc00);
}

static void test_f16_special(void)
{
    CHECK(xconv_f32_to_f16(INFINITY) == 0x7c00);
    CHECK(xconv_f32_to_f16(-INFINITY) == 0xfc00);
    CHECK(isinf(xconv_f16_to_f32(0x7c00)) && xconv_f16_to_f32(0xfc00) < 0);
    // NaN stays NaN, even with a payload only in bits fp16 drops.
    uint16_t nan = xconv_f32_to_f16(from_bits(0x7f800001u));
    CHECK((nan & 0x7c00) == 0x7c00 && (nan & 0x03ff) != 0);
    CHECK(isnan(xconv_f16_to_f32(nan)));
    CHECK(isnan(xconv_f16_to_f32(0xffff)));  // the harness's poison
}

// ---------------------------------------------------------------------------------------------
// bf16

static void test_bf16(void)
{
    CHECK(xconv_f32_to_bf16(1.0f) == 0x3f80);
    CHECK(xconv_bf16_to_f32(0x3f80) == 1.0f);
    CHECK(xconv_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);              // tie: to even
    CHECK(xconv_f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);          // tie: up to even
    CHECK(xconv_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);  // past halfway
    CHECK(xconv_f32_to_bf16(from_bits(0x7f7fffffu)) == 0x7f80);     // FLT_MAX rounds to Inf
    CHECK(xconv_f32_to_bf16(-INFINITY) == 0xff80);
    CHECK(xconv_f32_to_bf16(from_bits(0x00000001u)) == 0x0000);     // subnormals: kept scale
    CHECK(xconv_f32_to_bf16(from_bits(0x00018000u)) == 0x0002);
    uint16_t nan = xconv_f32_to_bf16(from_bits(0x7f800001u));       // payload below bit 16
    CHECK(isnan(xconv_bf16_to_f32(nan)));
}

// ---------------------------------------------------------------------------------------------
// Arrays, the problem and the SPEC

static void test_arrays(void)
{
    float in[4] = {1.0f, 1.0f + 0x1p-11f, -3.5f, 70000.0f}, back[4];
    uint16_t stored[4];
    xconv_dtype_from_f32(XCONV_DTYPE_F16, in, stored, 4);
    xconv_dtype_to_f32(XCONV_DTYPE_F16, stored, back, 4);
    CHECK(back[0] == 1.0f && back[1] == 1.0f && back[2] == -3.5f && isinf(back[3]));
    float r[2] = {1.0f + 0x1p-11f, 0.1f};
    xconv_dtype_round(XCONV_DTYPE_F16, r, 2);
    CHECK(r[0] == 1.0f && r[1] == xconv_f16_to_f32(0x2e66));
    float same[2] = {0.1f, 0.2f};
    xconv_dtype_round(XCONV_DTYPE_F32, same, 2);
    CHECK(same[0] == 0.1f && same[1] == 0.2f);
}

static void test_spec(void)
{
    xconv_error err = {0};
    xconv_problem p;
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3", &p, &err) == XCONV_OK);
    CHECK(p.dtype == XCONV_DTYPE_F32 && p.math == XCONV_MATH_F32);  // strict fp32 by default
    CHECK(xconv_problem_elem_bytes(&p) == 4);
    double bytes32 = xconv_problem_min_bytes(&p);
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,dtype=f16", &p, &err) == XCONV_OK);
    CHECK(p.dtype == XCONV_DTYPE_F16 && p.math == XCONV_MATH_F32);
    CHECK(xconv_problem_elem_bytes(&p) == 2);
    CHECK(xconv_problem_min_bytes(&p) == bytes32 / 2);
    char spec[256];
    xconv_shape_format(&p, spec, sizeof spec);
    CHECK_MSG(strcmp(spec, "n=1,c=2,h=8,w=8,k=4,r=3,dtype=f16") == 0, "%s", spec);
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,dtype=bf16,math=bf16", &p, &err) ==
          XCONV_OK);
    xconv_shape_format(&p, spec, sizeof spec);
    CHECK_MSG(strcmp(spec, "n=1,c=2,h=8,w=8,k=4,r=3,dtype=bf16,math=bf16") == 0, "%s", spec);
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,math=tf32", &p, &err) == XCONV_OK);
    CHECK(p.math == XCONV_MATH_TF32 && p.dtype == XCONV_DTYPE_F32);

    // Refusals: unknown names, and a math mode the storage type cannot feed.
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,dtype=f64", &p, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "not a storage type (f32, f16, bf16)");
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,math=fast", &p, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "not a math mode");
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,math=f16", &p, &err) ==
          XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "math=f16 needs dtype=f16 (got dtype=f32)");
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,dtype=f16,math=tf32", &p, &err) ==
          XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "math=tf32 needs dtype=f32");
    xconv_problem bad = p;
    bad.dtype = 7;
    CHECK(xconv_problem_check(&bad, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "dtype 7 is not a storage type");
}

// Only implicit_mma (tensor cores, a device's) and the cuDNN peers (tensor-op math, a CUDA
// device's) run a math mode other than strict fp32, and a variant without fp16 kernels refuses
// dtype=f16 instead of running fp32.
static void test_refusals(void)
{
    xconv_error err = {0};
    xconv_problem p;
    char reason[512];
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,math=tf32", &p, &err) == XCONV_OK);
    for (int i = 0; i < xconv_variant_count(); i++) {
        const xconv_variant *v = xconv_variant_at(i);
        const char *name = xconv_variant_get_info(v)->name;
        bool reduced = strcmp(name, "implicit_mma") == 0 || strncmp(name, "cudnn_", 6) == 0;
        CHECK(!xconv_variant_applies(v, NULL, &p, reason, sizeof reason));
        CHECK_CONTAINS(reason, reduced ? "needs a device" : "math=tf32");
    }
    CHECK(xconv_shape_parse("n=1,c=2,h=8,w=8,k=4,r=3,dtype=f16", &p, &err) == XCONV_OK);
    const xconv_variant *ref = xconv_variant_find("cpu_ref", &err);
    CHECK(ref && !xconv_variant_applies(ref, NULL, &p, reason, sizeof reason));
    CHECK_CONTAINS(reason, "no dtype=f16 kernels");
    float x[128] = {0}, w[72] = {0}, y[144];
    CHECK(xconv_convolve(NULL, &p, "cpu_ref", x, w, y, &err) == XCONV_ERR_NOT_APPLICABLE);
}

int main(void)
{
    test_f16_exact();
    test_f16_rounding();
    test_f16_special();
    test_bf16();
    test_arrays();
    test_spec();
    test_refusals();
    return check_summary("test_dtype");
}
