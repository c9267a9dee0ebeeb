// SPDX-License-Identifier: MIT
// Tests of the convolution descriptor: defaults, output sizes, counts, work and every check rule.
#include <string.h>

#include "check.h"
#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// Helpers

// A valid problem: n=2,c=8,h=10,w=12,k=4,r=3,s=3.
static xconv_problem base(void)
{
    xconv_problem p = xconv_problem_default();
    p.n = 2, p.c = 8, p.h = 10, p.w = 12, p.k = 4, p.r = 3, p.s = 3;
    return p;
}

// Checks that p is refused with XCONV_ERR_INVALID and a message containing each needle.
static void expect_invalid(const xconv_problem *p, const char *needle, const char *needle2)
{
    xconv_error err = {0};
    xconv_status st = xconv_problem_check(p, &err);
    CHECK_MSG(st == XCONV_ERR_INVALID, "status %d for '%s'", st, needle);
    CHECK(err.status == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, needle);
    if (needle2)
        CHECK_CONTAINS(err.msg, needle2);
}

// ---------------------------------------------------------------------------------------------
// Sizes

static void test_default(void)
{
    xconv_problem p = xconv_problem_default();
    CHECK(p.n == 0 && p.c == 0 && p.h == 0 && p.w == 0 && p.k == 0 && p.r == 0 && p.s == 0);
    CHECK(p.stride_h == 1 && p.stride_w == 1 && p.dil_h == 1 && p.dil_w == 1);
    CHECK(p.pad_h == 0 && p.pad_w == 0 && p.groups == 1);
}

// The SPEC's defaults that depend on another key (s = r, a pool's stride = its window) come
// from one rule, xconv_problem_complete, which the SPEC parser applies too.
static void test_complete(void)
{
    xconv_problem p = xconv_problem_default();
    p.n = 1, p.c = 2, p.h = 9, p.w = 9, p.k = 3, p.r = 5;
    p.epi.pool_h = 2, p.epi.pool_w = 3;
    expect_invalid(&p, "s must be at least 1 (got 0); xconv_problem_complete", NULL);
    xconv_problem_complete(&p);
    CHECK(p.s == 5 && p.epi.pool_stride_h == 2 && p.epi.pool_stride_w == 3);
    xconv_error err = {0};
    CHECK_MSG(xconv_problem_check(&p, &err) == XCONV_OK, "%s", err.msg);

    xconv_problem spec;
    CHECK(xconv_shape_parse("n=1,c=2,h=9,w=9,k=3,r=5,pool_h=2,pool_w=3", &spec, &err) ==
          XCONV_OK);
    CHECK(memcmp(&spec, &p, sizeof p) == 0);  // the same problem as the SPEC's

    xconv_problem set = p;  // fields already set stay
    set.s = 1, set.epi.pool_stride_h = 1;
    xconv_problem_complete(&set);
    CHECK(set.s == 1 && set.epi.pool_stride_h == 1 && set.epi.pool_stride_w == 3);

    xconv_problem none = xconv_problem_default();  // no pool: its strides stay 0
    none.r = 3;
    xconv_problem_complete(&none);
    CHECK(none.s == 3 && none.epi.pool_stride_h == 0 && !xconv_problem_has_epilogue(&none));

    // An explicit s=0 in a SPEC is still refused, not taken as "as r".
    CHECK(xconv_shape_parse("n=1,c=2,h=9,w=9,k=3,r=5,s=0", &spec, &err) == XCONV_ERR_INVALID);
    CHECK_CONTAINS(err.msg, "s must be at least 1");
    xconv_problem_complete(NULL);  // ignored
}

static void test_out_sizes(void)
{
    xconv_problem p = base();
    CHECK(xconv_problem_out_h(&p) == 8 && xconv_problem_out_w(&p) == 10);
    p.pad_h = 1, p.pad_w = 1;
    CHECK(xconv_problem_out_h(&p) == 10 && xconv_problem_out_w(&p) == 12);
    p.stride_h = 2, p.stride_w = 3;  // (10+2-2-1)/2+1 = 5, (12+2-2-1)/3+1 = 4
    CHECK(xconv_problem_out_h(&p) == 5 && xconv_problem_out_w(&p) == 4);
    p = base();
    p.dil_h = 2, p.dil_w = 3;  // 10-4-1+1 = 6, 12-6-1+1 = 6
    CHECK(xconv_problem_out_h(&p) == 6 && xconv_problem_out_w(&p) == 6);
    // 224, 7x7, stride 2, pad 3 -> 112; 227, 11x11, stride 4 -> 55.
    p = base();
    p.h = p.w = 224, p.r = p.s = 7, p.stride_h = p.stride_w = 2, p.pad_h = p.pad_w = 3;
    CHECK(xconv_problem_out_h(&p) == 112 && xconv_problem_out_w(&p) == 112);
    p = base();
    p.h = p.w = 227, p.r = p.s = 11, p.stride_h = p.stride_w = 4;
    CHECK(xconv_problem_out_h(&p) == 55);
    // Empty outputs are <= 0, with floor (not truncating) division: (4-5-1)/2+1 = -1+1 = 0,
    // where truncation would give 1.
    p = base();
    p.h = 4, p.r = 5, p.stride_h = 2;
    CHECK(xconv_problem_out_h(&p) <= 0);
    p.stride_h = 1;
    CHECK(xconv_problem_out_h(&p) == 0);
    p.h = 1, p.r = 5, p.dil_h = 3;  // 1 - 12 - 1 + 1 = -11
    CHECK(xconv_problem_out_h(&p) == -11);
    // Nonsense never crashes: zero stride and overflowing terms give 0.
    p = base();
    p.stride_h = 0;
    CHECK(xconv_problem_out_h(&p) == 0);
    p = base();
    p.pad_w = INT64_MAX;
    CHECK(xconv_problem_out_w(&p) == 0);
    p = base();
    p.dil_w = INT64_MAX, p.s = 5;
    CHECK(xconv_problem_out_w(&p) == 0);
}

static void test_counts(void)
{
    // res3x3: n=32,c=256,h=14,w=14,k=256,r=3,pad=1.
    xconv_problem p = xconv_problem_default();
    p.n = 32, p.c = 256, p.h = 14, p.w = 14, p.k = 256, p.r = 3, p.s = 3, p.pad_h = 1,
    p.pad_w = 1;
    CHECK(xconv_problem_x_elems(&p) == 32 * 256 * 14 * 14);
    CHECK(xconv_problem_w_elems(&p) == 256 * 256 * 9);
    CHECK(xconv_problem_y_elems(&p) == 32 * 256 * 14 * 14);
    CHECK(xconv_problem_flops(&p) == 2.0 * 32 * 256 * 14 * 14 * 256 * 9);
    CHECK(xconv_problem_min_bytes(&p) == 4.0 * (1605632 + 589824 + 1605632));
    // Groups divide the weights and the work.
    p.groups = 4;
    CHECK(xconv_problem_w_elems(&p) == 256 * 64 * 9);
    CHECK(xconv_problem_flops(&p) == 2.0 * 32 * 256 * 14 * 14 * 64 * 9);
    // Empty or nonsensical problems count 0, and huge ones saturate instead of overflowing.
    p.h = 1, p.pad_h = 0;
    CHECK(xconv_problem_y_elems(&p) == 0 && xconv_problem_flops(&p) == 0.0);
    p = base();
    p.n = INT64_MAX, p.c = INT64_MAX;
    CHECK(xconv_problem_x_elems(&p) == INT64_MAX);
    p = base();
    p.groups = 0;
    CHECK(xconv_problem_w_elems(&p) == 0);
}

// ---------------------------------------------------------------------------------------------
// The rules

static void test_check_ok(void)
{
    xconv_problem p = base();
    xconv_error err = {0};
    CHECK(xconv_problem_check(&p, &err) == XCONV_OK);
    CHECK(xconv_problem_check(&p, NULL) == XCONV_OK);
    p.groups = 4, p.k = 8;
    CHECK(xconv_problem_check(&p, NULL) == XCONV_OK);
    p.groups = 8;  // depthwise
    CHECK(xconv_problem_check(&p, NULL) == XCONV_OK);
    // A filter larger than the input is fine when the padding makes room.
    p = base();
    p.h = p.w = 4, p.r = p.s = 5, p.pad_h = p.pad_w = 2;
    CHECK(xconv_problem_check(&p, NULL) == XCONV_OK);
    CHECK(xconv_problem_check(NULL, NULL) == XCONV_ERR_INVALID);
}

static void test_check_sizes(void)
{
    const char *names[] = {"n", "c", "h", "w", "k", "r", "s"};
    for (int i = 0; i < 7; i++) {
        xconv_problem p = base();
        int64_t *fields[] = {&p.n, &p.c, &p.h, &p.w, &p.k, &p.r, &p.s};
        *fields[i] = 0;
        char want[64];
        snprintf(want, sizeof want, "%s must be at least 1 (got 0)", names[i]);
        expect_invalid(&p, want, NULL);
        *fields[i] = -3;
        snprintf(want, sizeof want, "%s must be at least 1 (got -3)", names[i]);
        expect_invalid(&p, want, NULL);
    }
}

static void test_check_steps(void)
{
    xconv_problem p = base();
    p.stride_h = 0;
    expect_invalid(&p, "stride_h must be at least 1 (got 0)", NULL);
    p = base();
    p.stride_w = -2;
    expect_invalid(&p, "stride_w must be at least 1 (got -2)", NULL);
    p = base();
    p.dil_h = 0;
    expect_invalid(&p, "dil_h must be at least 1 (got 0)", NULL);
    p = base();
    p.dil_w = 0;
    expect_invalid(&p, "dil_w must be at least 1 (got 0)", NULL);
    p = base();
    p.pad_h = -1;
    expect_invalid(&p, "pad_h must not be negative (got -1)", NULL);
    p = base();
    p.pad_w = -1;
    expect_invalid(&p, "pad_w must not be negative (got -1)", NULL);
    p = base();
    p.groups = 0;
    expect_invalid(&p, "groups must be at least 1 (got 0)", NULL);
    p = base();
    p.groups = 3;
    expect_invalid(&p, "groups=3 must divide c=8", NULL);
    p = base();
    p.groups = 8;  // divides c=8 but not k=4
    expect_invalid(&p, "groups=8 must divide k=4", NULL);
}

static void test_check_empty(void)
{
    xconv_problem p = base();
    p.h = 4, p.r = 5;
    expect_invalid(&p, "empty output: P = 0 <= 0", "padded input height (h + 2*pad_h = 4)");
    p = base();
    p.w = 3, p.s = 3, p.dil_w = 2;
    expect_invalid(&p, "empty output: Q = -1 <= 0", "dil_w*(s-1)+1 = 5");
    // Any stride: the output is empty exactly when the dilated filter passes the padded input.
    p = base();
    p.h = 4, p.r = 5, p.stride_h = 3;
    expect_invalid(&p, "empty output: P =", "larger than the padded input height");
}

static void test_check_index_limits(void)
{
    // Whole tensors past the limit.
    xconv_problem p = base();
    p.n = 100000, p.c = 64, p.h = 224, p.w = 224;  // x = 3.2e11
    expect_invalid(&p, "input x (n*c*h*w = 3.211e+11)", "32-bit index limit 2147483647");
    p = base();
    p.k = 65536, p.c = 4096;  // w = 2.4e12, x = 983040
    expect_invalid(&p, "weights w (k*(c/groups)*r*s", "index limit");
    p = base();
    p.n = 1, p.c = 1, p.k = 40000, p.h = p.w = 256, p.r = p.s = 1;  // y = 2.6e9, x and w small
    expect_invalid(&p, "output y (n*k*P*Q", "index limit");
    // Single fields past the limit, also where their products would overflow int64.
    p = base();
    p.h = XCONV_MAX_INDEX + 1;
    expect_invalid(&p, "h=2147483648 passes the 32-bit index limit", NULL);
    p = base();
    p.n = INT64_MAX, p.c = INT64_MAX, p.h = INT64_MAX, p.w = INT64_MAX;
    expect_invalid(&p, "n=9223372036854775807 passes", NULL);
    p = base();
    p.pad_w = INT64_MAX;
    expect_invalid(&p, "pad_w=9223372036854775807 passes", NULL);
    p = base();
    p.dil_h = INT64_MAX;
    expect_invalid(&p, "dil_h=9223372036854775807 passes", NULL);
    p = base();
    p.stride_w = INT64_MAX;
    expect_invalid(&p, "stride_w=9223372036854775807 passes", NULL);
    // A padded extent past the limit although h and pad_h each fit.
    p = base();
    p.n = p.c = p.k = 1, p.h = 1 << 30, p.pad_h = 1 << 30, p.w = 1, p.s = 1;
    expect_invalid(&p, "padded input height (h + 2*pad_h = 3221225472)", "index limit");
    // A padded image past the limit although x, w and y are tiny: P = Q = 1.
    p = base();
    p.n = 1, p.c = 8, p.k = 1, p.h = p.w = 1, p.r = p.s = 1, p.stride_h = p.stride_w = 65536;
    p.pad_h = p.pad_w = 10000;  // 8 * 20001^2 = 3.2e9
    expect_invalid(&p, "padded image (c*(h+2*pad_h)*(w+2*pad_w) = 3.2e+09)", "index limit");
    // c*r*s never passes alone: groups divide k, so w = k*(c/groups)*r*s >= c*r*s.
    p = base();
    p.n = 1, p.c = p.k = p.groups = 65536, p.h = p.w = 1, p.r = p.s = 200;
    p.pad_h = p.pad_w = 100;  // c*r*s = w = 2.6e9
    expect_invalid(&p, "weights w", "index limit");
    // Just under the limit passes: depthwise, w = 512 * 2040^2 = 2130739200, P = Q = 1.
    p = base();
    p.n = 1, p.c = p.k = p.groups = 512, p.h = p.w = 2, p.r = p.s = 2040;
    p.pad_h = p.pad_w = 1019;
    CHECK(xconv_problem_check(&p, NULL) == XCONV_OK);
    CHECK(xconv_problem_out_h(&p) == 1 && xconv_problem_w_elems(&p) == 2130739200);
    p.c = p.k = p.groups = 520;  // w = 2164032000
    expect_invalid(&p, "weights w", NULL);
}

static void test_check_device(void)
{
    xconv_device_info info = {0};
    info.max_alloc_bytes = 1u << 20;  // 1 MiB
    xconv_problem p = base();         // all tensors tiny
    xconv_error err = {0};
    CHECK(xconv_problem_check_device(&p, &info, &err) == XCONV_OK);
    p.n = 1024;  // x = 1024*8*10*12*4 = 3.9 MB
    CHECK(xconv_problem_check_device(&p, &info, &err) == XCONV_ERR_OUT_OF_MEMORY);
    CHECK_CONTAINS(err.msg, "input x needs 3932160 bytes");
    CHECK_CONTAINS(err.msg, "largest allocation of 1048576 bytes (1.0 MiB)");
    p = base();
    p.k = 4096, p.c = 16;  // w = 4096*16*9*4 = 2.36 MB
    CHECK(xconv_problem_check_device(&p, &info, &err) == XCONV_ERR_OUT_OF_MEMORY);
    CHECK_CONTAINS(err.msg, "weights w needs 2359296 bytes");
    p = base();
    p.k = 1024, p.c = 1, p.h = p.w = 20, p.r = p.s = 1;  // x = 3.2 KB, w = 4 KB, y = 3.3 MB
    CHECK(xconv_problem_check_device(&p, &info, &err) == XCONV_ERR_OUT_OF_MEMORY);
    CHECK_CONTAINS(err.msg, "output y needs");
    // A device that reports no limit accepts anything.
    info.max_alloc_bytes = 0;
    CHECK(xconv_problem_check_device(&p, &info, &err) == XCONV_OK);
    CHECK(xconv_problem_check_device(&p, NULL, &err) == XCONV_ERR_INVALID);
}

// ---------------------------------------------------------------------------------------------
// The epilogue: sizes and counts of the final output, and its rules

static void test_epilogue_sizes(void)
{
    xconv_problem p = base();  // P = 8, Q = 10
    CHECK(!xconv_problem_has_epilogue(&p));
    CHECK(xconv_problem_y_h(&p) == 8 && xconv_problem_y_w(&p) == 10);
    p.epi.bias = 1;
    CHECK(xconv_problem_has_epilogue(&p) && xconv_problem_y_elems(&p) == 2 * 4 * 8 * 10);
    double plain = xconv_problem_min_bytes(&p) - 4.0 * 4;  // the bias adds K floats
    p.epi.pool_h = p.epi.pool_w = p.epi.pool_stride_h = p.epi.pool_stride_w = 2;
    CHECK(xconv_problem_y_h(&p) == 4 && xconv_problem_y_w(&p) == 5);
    CHECK(xconv_problem_conv_elems(&p) == 2 * 4 * 8 * 10 && xconv_problem_y_elems(&p) == 160);
    // FLOPs are the convolution's; bytes move the pooled y.
    CHECK(xconv_problem_flops(&p) == 2.0 * 640 * 8 * 9);
    CHECK(xconv_problem_min_bytes(&p) == plain - 4.0 * (640 - 160) + 4.0 * 4);
    // 3x3 windows, stride 2, padding 1: floor((8 + 2 - 3) / 2) + 1 = 4, (10 + 2 - 3) / 2 + 1 = 5.
    p.epi.pool_h = p.epi.pool_w = 3, p.epi.pool_pad_h = p.epi.pool_pad_w = 1;
    CHECK(xconv_problem_y_h(&p) == 4 && xconv_problem_y_w(&p) == 5);
    // Windows 2 x 3, strides 1 x 3, no padding: 7 x 3.
    p.epi.pool_h = 2, p.epi.pool_w = 3, p.epi.pool_stride_h = 1, p.epi.pool_stride_w = 3;
    p.epi.pool_pad_h = p.epi.pool_pad_w = 0;
    CHECK(xconv_problem_y_h(&p) == 7 && xconv_problem_y_w(&p) == 3);
    int64_t nkpq[4];
    xconv_index_split(&p, 2 * 4 * 7 * 3 - 1, nkpq);  // the last element of y
    CHECK(nkpq[0] == 1 && nkpq[1] == 3 && nkpq[2] == 6 && nkpq[3] == 2);
    xconv_problem q = xconv_problem_conv_only(&p);
    CHECK(!xconv_problem_has_epilogue(&q) && q.n == p.n && q.r == p.r);
    // An empty pool window gives no output rather than a negative size.
    p.epi.pool_h = 12;
    CHECK(xconv_problem_y_h(&p) <= 0 && xconv_problem_y_elems(&p) == 0);
}

static void test_check_epilogue(void)
{
    xconv_problem p = base();
    p.epi.bias = 1, p.epi.act = XCONV_ACT_RELU6;
    p.epi.pool_h = p.epi.pool_w = 3, p.epi.pool_stride_h = p.epi.pool_stride_w = 2;
    p.epi.pool_pad_h = p.epi.pool_pad_w = 1;
    xconv_error err = {0};
    CHECK_MSG(xconv_problem_check(&p, &err) == XCONV_OK, "%s", err.msg);
    xconv_problem q = p;
    q.epi.bias = 3;
    expect_invalid(&q, "bias must be 0 or 1 (got 3)", NULL);
    q = p, q.epi.act = 3;
    expect_invalid(&q, "act must be none, relu or relu6 (got 3)", NULL);
    q = p, q.epi.pool_pad_w = -1;
    expect_invalid(&q, "pool_pad_w must not be negative (got -1)", NULL);
    q = p, q.epi.pool_w = 0;
    expect_invalid(&q, "pool_h=3 and pool_w=0", NULL);
    q = p, q.epi.pool_h = q.epi.pool_w = 0;
    expect_invalid(&q, "pool_stride_h=2 needs a pool window", NULL);
    q = p, q.epi.pool_stride_h = 0;
    expect_invalid(&q, "pool_stride_h must be at least 1", NULL);
    q = p, q.epi.pool_pad_h = 3;
    expect_invalid(&q, "pool_pad_h=3 must be less than the pool window pool_h=3", NULL);
    q = p, q.epi.pool_w = 13, q.epi.pool_pad_w = 1;
    expect_invalid(&q, "pool window pool_w=13 is larger than the padded convolution output width",
                   "(Q + 2*pool_pad_w = 12)");
    q = p, q.epi.pool_stride_w = XCONV_MAX_INDEX + 1;
    expect_invalid(&q, "pool_stride_w=2147483648 passes the 32-bit index limit", NULL);
    // The convolution's rules come first.
    q = p, q.k = 0;
    expect_invalid(&q, "k must be at least 1", NULL);
}

int main(void)
{
    test_default();
    test_complete();
    test_out_sizes();
    test_counts();
    test_check_ok();
    test_check_sizes();
    test_check_steps();
    test_check_empty();
    test_check_index_limits();
    test_check_device();
    test_epilogue_sizes();
    test_check_epilogue();
    return check_summary("test_problem");
}
