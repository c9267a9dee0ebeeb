// SPDX-License-Identifier: MIT
// The convolution descriptor: defaults, output sizes, element counts, work and the validity rules
// (the epilogue's included).
#include <inttypes.h>
#include <stdio.h>

#include "core/contract.h"

// ---------------------------------------------------------------------------------------------
// Overflow-safe arithmetic (the descriptor may hold any int64 before it is checked)

// Sets *out = a + b; returns false (and leaves *out) when the sum does not fit int64.
static bool add_ok(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return false;
    *out = a + b;
    return true;
}

// Sets *out = a * b for a, b >= 0; returns false when the product does not fit int64.
static bool mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || (a != 0 && b > INT64_MAX / a))
        return false;
    *out = a * b;
    return true;
}

// Returns the product of the factors, or INT64_MAX when it overflows; 0 when any factor is < 1.
static int64_t product_sat(const int64_t *factors, int count)
{
    int64_t prod = 1;
    for (int i = 0; i < count; i++) {
        if (factors[i] < 1)
            return 0;
        if (!mul_ok(prod, factors[i], &prod))
            prod = INT64_MAX;
    }
    return prod;
}

// Floor division for b > 0, correct for negative a.
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

// One output extent: (in + 2*pad - dil*(f-1) - 1) / stride + 1, floored; 0 when stride < 1 or
// the terms overflow (such a problem is refused by the check anyway).
static int64_t out_extent(int64_t in, int64_t pad, int64_t dil, int64_t f, int64_t stride)
{
    int64_t padded, reach, num;
    if (stride < 1 || !add_ok(pad, pad, &padded) || !add_ok(in, padded, &padded))
        return 0;
    if (dil < 0 || f < 1 || !mul_ok(dil, f - 1, &reach) || !add_ok(padded, -reach - 1, &num))
        return 0;
    return floor_div(num, stride) + 1;
}

// ---------------------------------------------------------------------------------------------
// Sizes and work

xconv_problem xconv_problem_default(void)
{
    return (xconv_problem){.stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
}

void xconv_problem_complete(xconv_problem *p)
{
    if (!p)
        return;
    if (p->s == 0)
        p->s = p->r;
    if (p->epi.pool_stride_h == 0)
        p->epi.pool_stride_h = p->epi.pool_h;
    if (p->epi.pool_stride_w == 0)
        p->epi.pool_stride_w = p->epi.pool_w;
}

int64_t xconv_problem_out_h(const xconv_problem *p)
{
    if (!p)
        return 0;
    return out_extent(p->h, p->pad_h, p->dil_h, p->r, p->stride_h);
}

int64_t xconv_problem_out_w(const xconv_problem *p)
{
    if (!p)
        return 0;
    return out_extent(p->w, p->pad_w, p->dil_w, p->s, p->stride_w);
}

// The pooled extent of a convolution output extent `out`: (out + 2*pad - window) / stride + 1,
// floored (a window of dilation 1); `out` itself without a pool (window 0).
static int64_t pool_extent(int64_t out, int64_t window, int64_t stride, int64_t pad)
{
    return window == 0 ? out : out_extent(out, pad, 1, window, stride);
}

int64_t xconv_problem_y_h(const xconv_problem *p)
{
    if (!p)
        return 0;
    return pool_extent(xconv_problem_out_h(p), p->epi.pool_h, p->epi.pool_stride_h,
                       p->epi.pool_pad_h);
}

int64_t xconv_problem_y_w(const xconv_problem *p)
{
    if (!p)
        return 0;
    return pool_extent(xconv_problem_out_w(p), p->epi.pool_w, p->epi.pool_stride_w,
                       p->epi.pool_pad_w);
}

bool xconv_problem_has_epilogue(const xconv_problem *p)
{
    if (!p)
        return false;
    const xconv_epilogue *e = &p->epi;
    return e->bias || e->act || e->pool_h || e->pool_w || e->pool_stride_h || e->pool_stride_w ||
           e->pool_pad_h || e->pool_pad_w;
}

xconv_problem xconv_problem_conv_only(const xconv_problem *p)
{
    xconv_problem q = p ? *p : xconv_problem_default();
    q.epi = (xconv_epilogue){0};
    return q;
}

// Counts saturate at INT64_MAX and are 0 when a size is < 1 (or groups does not divide c).
int64_t xconv_problem_x_elems(const xconv_problem *p)
{
    if (!p)
        return 0;
    int64_t f[] = {p->n, p->c, p->h, p->w};
    return product_sat(f, 4);
}

int64_t xconv_problem_w_elems(const xconv_problem *p)
{
    if (!p)
        return 0;
    int64_t cg = (p->groups >= 1 && p->c % p->groups == 0) ? p->c / p->groups : 0;
    int64_t f[] = {p->k, cg, p->r, p->s};
    return product_sat(f, 4);
}

int64_t xconv_problem_conv_elems(const xconv_problem *p)
{
    if (!p)
        return 0;
    int64_t f[] = {p->n, p->k, xconv_problem_out_h(p), xconv_problem_out_w(p)};
    return product_sat(f, 4);
}

int64_t xconv_problem_y_elems(const xconv_problem *p)
{
    if (!p)
        return 0;
    int64_t f[] = {p->n, p->k, xconv_problem_y_h(p), xconv_problem_y_w(p)};
    return product_sat(f, 4);
}

double xconv_problem_flops(const xconv_problem *p)
{
    if (!p)
        return 0.0;
    double y = (double)xconv_problem_conv_elems(p);
    double cg = p->groups >= 1 ? (double)(p->c / p->groups) : 0.0;
    return 2.0 * y * cg * (double)p->r * (double)p->s;
}

double xconv_problem_min_bytes(const xconv_problem *p)
{
    if (!p)
        return 0.0;
    double bias = p->epi.bias == 1 && p->k > 0 ? 4.0 * (double)p->k : 0.0;  // fp32 always
    return (double)xconv_problem_elem_bytes(p) *
               ((double)xconv_problem_x_elems(p) + (double)xconv_problem_w_elems(p) +
                (double)xconv_problem_y_elems(p)) +
           bias;
}

size_t xconv_problem_elem_bytes(const xconv_problem *p)
{
    if (!p)
        return 0;
    switch (p->dtype) {
    case XCONV_DTYPE_F32: return 4;
    case XCONV_DTYPE_F16:
    case XCONV_DTYPE_BF16: return 2;
    default: return 0;
    }
}

// ---------------------------------------------------------------------------------------------
// The rules

typedef struct field {
    const char *name;
    int64_t value;
} field;

// Refuses the first field below `min`, naming it.
static xconv_status check_min(const field *fields, int count, int64_t min, const char *rule,
                              xconv_error *err)
{
    for (int i = 0; i < count; i++)
        if (fields[i].value < min)
            return xconv_error_set(err, XCONV_ERR_INVALID, "%s %s (got %" PRId64 ")",
                                   fields[i].name, rule, fields[i].value);
    return XCONV_OK;
}

// Refuses when the product of positive factors (each <= XCONV_MAX_INDEX) passes the index
// limit; multiplies stepwise, so no intermediate overflows int64.
static xconv_status check_product(const char *what, const char *expr, const int64_t *factors,
                                  int count, xconv_error *err)
{
    int64_t prod = 1;
    double approx = 1.0;
    for (int i = 0; i < count; i++)
        approx *= (double)factors[i];
    for (int i = 0; i < count; i++) {
        prod *= factors[i];  // both <= 2^31 here, so this fits
        if (prod > XCONV_MAX_INDEX)
            return xconv_error_set(err, XCONV_ERR_INVALID,
                                   "%s (%s = %.4g) passes the 32-bit index limit %" PRId64
                                   " (the kernels index with int)",
                                   what, expr, approx, XCONV_MAX_INDEX);
    }
    return XCONV_OK;
}

// Checks the signs and ranges of the individual fields.
static xconv_status check_fields(const xconv_problem *p, xconv_error *err)
{
    const field sizes[] = {{"n", p->n}, {"c", p->c}, {"h", p->h}, {"w", p->w},
                           {"k", p->k}, {"r", p->r}, {"s", p->s}};
    const field steps[] = {{"stride_h", p->stride_h}, {"stride_w", p->stride_w},
                           {"dil_h", p->dil_h}, {"dil_w", p->dil_w}, {"groups", p->groups}};
    const field pads[] = {{"pad_h", p->pad_h}, {"pad_w", p->pad_w}};
    xconv_status st;
    if (p->s == 0 && p->r > 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "s must be at least 1 (got 0); "
                               "xconv_problem_complete sets it to r as a SPEC does");
    if ((st = check_min(sizes, 7, 1, "must be at least 1", err)) ||
        (st = check_min(steps, 5, 1, "must be at least 1", err)) ||
        (st = check_min(pads, 2, 0, "must not be negative", err)))
        return st;
    const field *lists[] = {sizes, steps, pads};
    const int counts[] = {7, 5, 2};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < counts[l]; i++)
            if (lists[l][i].value > XCONV_MAX_INDEX)
                return xconv_error_set(err, XCONV_ERR_INVALID,
                                       "%s=%" PRId64 " passes the 32-bit index limit %" PRId64,
                                       lists[l][i].name, lists[l][i].value, XCONV_MAX_INDEX);
    if (p->c % p->groups != 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "groups=%" PRId64 " must divide c=%" PRId64,
                               p->groups, p->c);
    if (p->k % p->groups != 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "groups=%" PRId64 " must divide k=%" PRId64,
                               p->groups, p->k);
    return XCONV_OK;
}

// Checks one spatial axis: the padded extent fits an int and the output is not empty.
// All fields are in [0, XCONV_MAX_INDEX] here, so the arithmetic cannot overflow int64.
static xconv_status check_axis(const char *axis, const char *in, int64_t in_v, const char *pad,
                               int64_t pad_v, const char *dil, int64_t dil_v, const char *f,
                               int64_t f_v, int64_t out, const char *out_name, xconv_error *err)
{
    int64_t padded = in_v + 2 * pad_v;
    if (padded > XCONV_MAX_INDEX)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "padded input %s (%s + 2*%s = %" PRId64
                               ") passes the 32-bit index limit %" PRId64,
                               axis, in, pad, padded, XCONV_MAX_INDEX);
    if (out <= 0)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "empty output: %s = %" PRId64 " <= 0: the dilated filter (%s*(%s-1)+1"
                               " = %" PRId64 ") is larger than the padded input %s (%s + 2*%s = %"
                               PRId64 ")",
                               out_name, out, dil, f, dil_v * (f_v - 1) + 1, axis, in, pad,
                               padded);
    return XCONV_OK;
}

// Checks one direction of the pool: stride and padding, and the window against the padded
// convolution output `out` (P or Q); the fields are known to be in [0, XCONV_MAX_INDEX].
static xconv_status check_pool_axis(const char *axis, const char *suffix, int64_t window,
                                    int64_t stride, int64_t pad, int64_t out, xconv_error *err)
{
    if (stride < 1)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "pool_stride_%s must be at least 1 with a pool window (got %"
                               PRId64 ")%s", suffix, stride,
                               stride == 0 ? "; xconv_problem_complete sets it to the window "
                                             "as a SPEC does" : "");
    if (pad >= window)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "pool_pad_%s=%" PRId64 " must be less than the pool window "
                               "pool_%s=%" PRId64 " (every window must hold an output)",
                               suffix, pad, suffix, window);
    if (window > out + 2 * pad)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "pool window pool_%s=%" PRId64 " is larger than the padded "
                               "convolution output %s (%s + 2*pool_pad_%s = %" PRId64 ")",
                               suffix, window, axis, suffix[0] == 'h' ? "P" : "Q", suffix,
                               out + 2 * pad);
    return XCONV_OK;
}

// Checks the epilogue (rule 8): bias 0 or 1, a known activation, and a pool given in both
// directions whose windows fit the padded convolution output (P x Q, already checked).
static xconv_status check_epilogue(const xconv_problem *p, int64_t P, int64_t Q,
                                   xconv_error *err)
{
    const xconv_epilogue *e = &p->epi;
    if (e->bias != 0 && e->bias != 1)
        return xconv_error_set(err, XCONV_ERR_INVALID, "bias must be 0 or 1 (got %" PRId64 ")",
                               e->bias);
    if (!xconv_activation_name(e->act))
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "act must be none, relu or relu6 (got %" PRId64 ")", e->act);
    const field pool[] = {{"pool_h", e->pool_h}, {"pool_w", e->pool_w},
                          {"pool_stride_h", e->pool_stride_h},
                          {"pool_stride_w", e->pool_stride_w},
                          {"pool_pad_h", e->pool_pad_h}, {"pool_pad_w", e->pool_pad_w}};
    xconv_status st = check_min(pool, 6, 0, "must not be negative", err);
    for (int i = 0; st == XCONV_OK && i < 6; i++)
        if (pool[i].value > XCONV_MAX_INDEX)
            st = xconv_error_set(err, XCONV_ERR_INVALID,
                                 "%s=%" PRId64 " passes the 32-bit index limit %" PRId64,
                                 pool[i].name, pool[i].value, XCONV_MAX_INDEX);
    if (st != XCONV_OK)
        return st;
    if ((e->pool_h == 0) != (e->pool_w == 0))
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "pool_h=%" PRId64 " and pool_w=%" PRId64 ": a pool window needs "
                               "both sides (pool=0 is no pooling)", e->pool_h, e->pool_w);
    if (e->pool_h == 0) {
        for (int i = 2; i < 6; i++)
            if (pool[i].value != 0)
                return xconv_error_set(err, XCONV_ERR_INVALID,
                                       "%s=%" PRId64 " needs a pool window (pool=...)",
                                       pool[i].name, pool[i].value);
        return XCONV_OK;
    }
    if ((st = check_pool_axis("height", "h", e->pool_h, e->pool_stride_h, e->pool_pad_h, P,
                              err)))
        return st;
    return check_pool_axis("width", "w", e->pool_w, e->pool_stride_w, e->pool_pad_w, Q, err);
}

// Refuses an unknown storage type or math mode, and a math mode its storage type cannot feed:
// tf32 reads fp32 operands, f16 and bf16 read operands stored so (cuDNN's pairs).
static xconv_status check_types(const xconv_problem *p, xconv_error *err)
{
    const char *dtype = xconv_dtype_name(p->dtype), *math = xconv_math_name(p->math);
    if (!dtype)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "dtype %" PRId64 " is not a storage type (f32, f16, bf16)",
                               p->dtype);
    if (!math)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "math %" PRId64 " is not a math mode (f32, tf32, f16, bf16)",
                               p->math);
    static const int64_t needs[] = {
        [XCONV_MATH_TF32] = XCONV_DTYPE_F32,
        [XCONV_MATH_F16] = XCONV_DTYPE_F16,
        [XCONV_MATH_BF16] = XCONV_DTYPE_BF16,
    };
    if (p->math != XCONV_MATH_F32 && needs[p->math] != p->dtype)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "math=%s needs dtype=%s (got dtype=%s); math=f32 works with every "
                               "dtype", math, xconv_dtype_name(needs[p->math]), dtype);
    return XCONV_OK;
}

xconv_status xconv_problem_check(const xconv_problem *p, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, p))
        return XCONV_ERR_INVALID;
    xconv_status st = check_fields(p, err);
    if (st)
        return st;
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p), cg = p->c / p->groups;
    if ((st = check_axis("height", "h", p->h, "pad_h", p->pad_h, "dil_h", p->dil_h, "r", p->r,
                         P, "P", err)) ||
        (st = check_axis("width", "w", p->w, "pad_w", p->pad_w, "dil_w", p->dil_w, "s", p->s,
                         Q, "Q", err)))
        return st;
    // The tensors, and the padded image a kernel may stage. Other intermediate extents are
    // factors of these: c*r*s <= w (groups divide k), and n*P*Q, k*P*Q <= y.
    const struct {
        const char *what, *expr;
        int64_t f[4];
        int count;
    } products[] = {
        {"input x", "n*c*h*w", {p->n, p->c, p->h, p->w}, 4},
        {"weights w", "k*(c/groups)*r*s", {p->k, cg, p->r, p->s}, 4},
        {"output y", "n*k*P*Q", {p->n, p->k, P, Q}, 4},
        {"padded image", "c*(h+2*pad_h)*(w+2*pad_w)",
         {p->c, p->h + 2 * p->pad_h, p->w + 2 * p->pad_w}, 3},
    };
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
        if ((st = check_product(products[i].what, products[i].expr, products[i].f,
                                products[i].count, err)))
            return st;
    if ((st = check_epilogue(p, P, Q, err)))
        return st;
    return check_types(p, err);
}

// Writes "123456789 bytes (117.7 MiB)" into buf.
static void format_bytes(char *buf, size_t len, uint64_t bytes)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%" PRIu64 " bytes (%.1f %s)", bytes, v, units[u]);
}

xconv_status xconv_problem_check_device(const xconv_problem *p, const xconv_device_info *info,
                                        xconv_error *err)
{
    if (XCONV_NULL_ARG(err, p) || XCONV_NULL_ARG(err, info))
        return XCONV_ERR_INVALID;
    xconv_status st = xconv_problem_check(p, err);
    if (st != XCONV_OK)
        return st;
    if (info->max_alloc_bytes == 0)  // the device did not report a limit
        return XCONV_OK;
    const struct {
        const char *name;
        int64_t elems;
    } tensors[] = {{"input x", xconv_problem_x_elems(p)},
                   {"weights w", xconv_problem_w_elems(p)},
                   {"output y", xconv_problem_y_elems(p)}};
    for (int i = 0; i < 3; i++) {
        uint64_t e = (uint64_t)tensors[i].elems;
        uint64_t size = xconv_problem_elem_bytes(p) ? xconv_problem_elem_bytes(p) : 4;
        uint64_t bytes = e > UINT64_MAX / size ? UINT64_MAX : e * size;
        if (bytes > info->max_alloc_bytes) {
            char need[64], limit[64];
            format_bytes(need, sizeof need, bytes);
            format_bytes(limit, sizeof limit, info->max_alloc_bytes);
            return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                                   "%s needs %s, more than the device's largest allocation of %s",
                                   tensors[i].name, need, limit);
        }
    }
    return XCONV_OK;
}
