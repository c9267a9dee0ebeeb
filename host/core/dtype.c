// SPDX-License-Identifier: MIT
// Storage types and math modes: their names, and fp32 <-> fp16 / bf16 conversion on the host.
#include <string.h>

#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// Names

static const char *const dtype_names[] = {"f32", "f16", "bf16"};
static const char *const math_names[] = {"f32", "tf32", "f16", "bf16"};

const char *xconv_dtype_name(int64_t dtype)
{
    return dtype >= 0 && dtype < 3 ? dtype_names[dtype] : NULL;
}

const char *xconv_math_name(int64_t math)
{
    return math >= 0 && math < 4 ? math_names[math] : NULL;
}

// ---------------------------------------------------------------------------------------------
// Bit conversions

// The bits of f, and the float of bits u.
static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

// Shifts m right by n (1..31) bits rounding to nearest, ties to even.
static uint32_t shift_round_even(uint32_t m, int n)
{
    uint32_t kept = m >> n, rest = m & ((1u << n) - 1u), half = 1u << (n - 1);
    return kept + (rest > half || (rest == half && (kept & 1u)));
}

uint16_t xconv_f32_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
    if (exp == 0xffu)  // Inf stays Inf; NaN stays a quiet NaN with its top payload bits
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
    int e = (int)exp - 127 + 15;  // binary16's biased exponent
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {  // a subnormal of binary16 (or zero): the significand with its hidden bit
        if (e < -10)
            return sign;  // under half the smallest subnormal: rounds to zero
        uint32_t m = man | 0x800000u;
        return (uint16_t)(sign | shift_round_even(m, 14 - e));
    }
    // A normal: a carry out of the significand steps the exponent up (to Inf past 65504).
    uint32_t bits = ((uint32_t)e << 10) + shift_round_even(man, 13);
    return (uint16_t)(sign | (bits >= 0x7c00u ? 0x7c00u : bits));
}

float xconv_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1fu)
        return f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {  // zero or a subnormal: man * 2^-24, exact in binary32
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return f32_from_bits(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t xconv_f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)  // NaN: keep it a NaN whatever the payload
        return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)(shift_round_even(u, 16));  // a carry into the exponent is right, to Inf
}

float xconv_bf16_to_f32(uint16_t b)
{
    return f32_from_bits((uint32_t)b << 16);
}

// ---------------------------------------------------------------------------------------------
// Arrays

bool xconv_dtype_from_f32(int64_t dtype, const float *src, void *dst, size_t n)
{
    if (!xconv_dtype_name(dtype) || (n && (!src || !dst)))
        return false;
    uint16_t *out = dst;
    if (dtype == XCONV_DTYPE_F16)
        for (size_t i = 0; i < n; i++)
            out[i] = xconv_f32_to_f16(src[i]);
    else if (dtype == XCONV_DTYPE_BF16)
        for (size_t i = 0; i < n; i++)
            out[i] = xconv_f32_to_bf16(src[i]);
    else if (n)
        memcpy(dst, src, n * sizeof(float));
    return true;
}

bool xconv_dtype_to_f32(int64_t dtype, const void *src, float *dst, size_t n)
{
    if (!xconv_dtype_name(dtype) || (n && (!src || !dst)))
        return false;
    const uint16_t *in = src;
    if (dtype == XCONV_DTYPE_F16)
        for (size_t i = 0; i < n; i++)
            dst[i] = xconv_f16_to_f32(in[i]);
    else if (dtype == XCONV_DTYPE_BF16)
        for (size_t i = 0; i < n; i++)
            dst[i] = xconv_bf16_to_f32(in[i]);
    else if (n)
        memcpy(dst, src, n * sizeof(float));
    return true;
}

bool xconv_dtype_round(int64_t dtype, float *values, size_t n)
{
    if (!xconv_dtype_name(dtype) || (n && !values))
        return false;
    if (dtype == XCONV_DTYPE_F16)
        for (size_t i = 0; i < n; i++)
            values[i] = xconv_f16_to_f32(xconv_f32_to_f16(values[i]));
    else if (dtype == XCONV_DTYPE_BF16)
        for (size_t i = 0; i < n; i++)
            values[i] = xconv_bf16_to_f32(xconv_f32_to_bf16(values[i]));
    return true;
}
