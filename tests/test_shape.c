// SPDX-License-Identifier: MIT
// Tests of shape strings (parse, apply, format) and of the named suites.
#include "check.h"
#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// Helpers

static bool same(const xconv_problem *a, const xconv_problem *b)
{
    return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->k == b->k &&
           a->r == b->r && a->s == b->s && a->stride_h == b->stride_h &&
           a->stride_w == b->stride_w && a->pad_h == b->pad_h && a->pad_w == b->pad_w &&
           a->dil_h == b->dil_h && a->dil_w == b->dil_w && a->groups == b->groups &&
           memcmp(&a->epi, &b->epi, sizeof a->epi) == 0;
}

// Parses spec, expecting success; returns the problem.
static xconv_problem parse_ok(const char *spec)
{
    xconv_problem p = {0};
    xconv_error err = {0};
    xconv_status st = xconv_shape_parse(spec, &p, &err);
    CHECK_MSG(st == XCONV_OK, "'%s': %s", spec, err.msg);
    return p;
}

// Parses spec, expecting status `want` and a message containing both needles.
static void parse_bad(const char *spec, xconv_status want, const char *needle, const char *needle2)
{
    xconv_problem p = xconv_problem_default();
    p.n = 77;
    xconv_error err = {0};
    xconv_status st = xconv_shape_parse(spec, &p, &err);
    CHECK_MSG(st == want, "'%s' gave %d (%s)", spec, st, err.msg);
    CHECK_CONTAINS(err.msg, needle);
    if (needle2)
        CHECK_CONTAINS(err.msg, needle2);
    CHECK_MSG(p.n == 77, "'%s' changed the problem on failure", spec);
}

// ---------------------------------------------------------------------------------------------
// Parsing

static void test_parse_good(void)
{
    xconv_problem p = parse_ok("n=32,c=3,h=224,w=224,k=64,r=7,s=7,stride=2,pad=3");
    CHECK(p.n == 32 && p.c == 3 && p.h == 224 && p.w == 224 && p.k == 64);
    CHECK(p.r == 7 && p.s == 7 && p.stride_h == 2 && p.stride_w == 2);
    CHECK(p.pad_h == 3 && p.pad_w == 3 && p.dil_h == 1 && p.dil_w == 1 && p.groups == 1);
    // Defaults, and s = r when s is not given.
    p = parse_ok("n=1,c=2,h=5,w=6,k=3,r=3");
    CHECK(p.s == 3 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 && p.pad_w == 0);
    CHECK(p.dil_h == 1 && p.dil_w == 1 && p.groups == 1);
    p = parse_ok("n=1,c=2,h=5,w=6,k=3,r=3,s=1");
    CHECK(p.r == 3 && p.s == 1);
    // Keys in any order, whitespace around tokens, keys and values.
    p = parse_ok("  k=4 , r = 3,n=2,\tc=8,  w=12 ,h=10 ,groups=2 ");
    CHECK(p.n == 2 && p.c == 8 && p.h == 10 && p.w == 12 && p.k == 4 && p.groups == 2);
    // A leading '+' is an integer too.
    p = parse_ok("n=+2,c=1,h=5,w=5,k=1,r=1");
    CHECK(p.n == 2);
}

static void test_parse_overrides(void)
{
    // The specific key wins over the combined one, in either order.
    const char *pairs[][2] = {
        {"n=1,c=1,h=20,w=20,k=1,r=3,stride=2,stride_h=3",
         "n=1,c=1,h=20,w=20,k=1,r=3,stride_h=3,stride=2"},
        {"n=1,c=1,h=20,w=20,k=1,r=3,pad=2,pad_w=1", "n=1,c=1,h=20,w=20,k=1,r=3,pad_w=1,pad=2"},
        {"n=1,c=1,h=20,w=20,k=1,r=3,dil=2,dil_h=3", "n=1,c=1,h=20,w=20,k=1,r=3,dil_h=3,dil=2"},
    };
    for (int i = 0; i < 3; i++) {
        xconv_problem a = parse_ok(pairs[i][0]), b = parse_ok(pairs[i][1]);
        CHECK_MSG(same(&a, &b), "'%s' != '%s'", pairs[i][0], pairs[i][1]);
    }
    xconv_problem p = parse_ok(pairs[0][1]);
    CHECK(p.stride_h == 3 && p.stride_w == 2);
    p = parse_ok(pairs[1][1]);
    CHECK(p.pad_h == 2 && p.pad_w == 1);
    p = parse_ok(pairs[2][1]);
    CHECK(p.dil_h == 3 && p.dil_w == 2);
    p = parse_ok("n=1,c=1,h=20,w=20,k=1,r=3,stride_w=2,stride_h=3,pad_h=1,pad_w=2");
    CHECK(p.stride_h == 3 && p.stride_w == 2 && p.pad_h == 1 && p.pad_w == 2);
}

static void test_parse_bad_tokens(void)
{
    parse_bad("n=1,x=3,c=1", XCONV_ERR_PARSE, "unknown key 'x' in 'x=3'",
              "valid keys: n c h w k r s stride stride_h stride_w pad pad_h pad_w dil dil_h "
              "dil_w groups");
    parse_bad("n=1,N=3", XCONV_ERR_PARSE, "unknown key 'N' in 'N=3'", NULL);
    parse_bad("n=1,c3", XCONV_ERR_PARSE, "missing '=' in 'c3'", NULL);
    parse_bad("n=1,c=", XCONV_ERR_PARSE, "empty value in 'c='", NULL);
    parse_bad("n=1, c=  ", XCONV_ERR_PARSE, "empty value in 'c='", NULL);
    parse_bad("n=1,=5", XCONV_ERR_PARSE, "missing key in '=5'", NULL);
    parse_bad("n=1.5,c=1", XCONV_ERR_PARSE, "value '1.5' in 'n=1.5' is not an integer", NULL);
    parse_bad("n=abc", XCONV_ERR_PARSE, "value 'abc' in 'n=abc' is not an integer", NULL);
    parse_bad("n=0x10", XCONV_ERR_PARSE, "'n=0x10' is not an integer", NULL);
    parse_bad("n=1 2", XCONV_ERR_PARSE, "'n=1 2' is not an integer", NULL);
    parse_bad("n=-", XCONV_ERR_PARSE, "'n=-' is not an integer", NULL);
    parse_bad("n=1e3", XCONV_ERR_PARSE, "'n=1e3' is not an integer", NULL);
    parse_bad("n=99999999999999999999", XCONV_ERR_PARSE,
              "value '99999999999999999999' in 'n=99999999999999999999' is out of range", NULL);
    parse_bad("n=1,c=2,n=3", XCONV_ERR_PARSE, "key 'n' given twice (again in 'n=3')", NULL);
    parse_bad("n=1,,c=2", XCONV_ERR_PARSE, "empty token #2 in shape 'n=1,,c=2'", NULL);
    parse_bad("n=1,c=2,", XCONV_ERR_PARSE, "empty token #3", NULL);
    parse_bad(",n=1", XCONV_ERR_PARSE, "empty token #1", NULL);
    parse_bad("n=1, ,c=1", XCONV_ERR_PARSE, "empty token #2", NULL);
    parse_bad("", XCONV_ERR_PARSE, "empty token #1 in shape ''", NULL);
    // Negative values parse, and the check refuses them (naming the field).
    parse_bad("n=1,c=1,h=5,w=5,k=1,r=1,pad=-1", XCONV_ERR_INVALID, "pad_h must not be negative",
              "shape 'n=1,c=1,h=5,w=5,k=1,r=1,pad=-1'");
    parse_bad("n=-2,c=1,h=5,w=5,k=1,r=1", XCONV_ERR_INVALID, "n must be at least 1 (got -2)",
              NULL);
    // Missing sizes stay 0 and are refused by the check.
    parse_bad("n=1,c=1,h=5,w=5,r=1", XCONV_ERR_PARSE, "k is required", "shape 'n=1");
    parse_bad("c=1,h=5,w=5,k=1,r=1", XCONV_ERR_PARSE, "n is required", NULL);
    parse_bad("n=1,c=1,h=5,w=5,k=1", XCONV_ERR_PARSE, "r is required", NULL);
    parse_bad("n=1,c=1,h=5,w=5,k=0,r=1", XCONV_ERR_INVALID, "k must be at least 1 (got 0)",
              NULL);
    parse_bad("n=1,c=8,h=5,w=5,k=8,r=1,groups=3", XCONV_ERR_INVALID, "groups=3 must divide c=8",
              NULL);
    parse_bad("n=1,c=1,h=4,w=4,k=1,r=5", XCONV_ERR_INVALID, "empty output: P = 0 <= 0", NULL);
    // NULL arguments.
    xconv_problem p;
    CHECK(xconv_shape_parse(NULL, &p, NULL) == XCONV_ERR_INVALID);
    CHECK(xconv_shape_parse("n=1", NULL, NULL) == XCONV_ERR_INVALID);
    CHECK(xconv_shape_parse("n=1,x=2", &p, NULL) == XCONV_ERR_PARSE);
}

static void test_apply(void)
{
    xconv_problem p = xconv_problem_default();
    p.n = 5, p.c = 6, p.r = 3, p.s = 3;
    unsigned seen = 0;
    xconv_error err = {0};
    CHECK(xconv_shape_apply("n=2,r=5,stride_h=2,pad=1", &p, &seen, &err) == XCONV_OK);
    CHECK(p.n == 2 && p.c == 6 && p.r == 5 && p.s == 3);  // apply does not fill s from r
    CHECK(p.stride_h == 2 && p.stride_w == 1 && p.pad_h == 1 && p.pad_w == 1);
    CHECK(seen == (XCONV_KEY_N | XCONV_KEY_R | XCONV_KEY_STRIDE | XCONV_KEY_PAD));
    // No check: a shape that parse would refuse applies.
    CHECK(xconv_shape_apply("k=0,dil_w=4,groups=7", &p, &seen, &err) == XCONV_OK);
    CHECK(p.k == 0 && p.dil_w == 4 && p.dil_h == 1 && p.groups == 7);
    CHECK(seen == (XCONV_KEY_K | XCONV_KEY_DIL | XCONV_KEY_GROUPS));
    CHECK(xconv_shape_apply("c=1,h=2,w=3,s=4", &p, NULL, &err) == XCONV_OK);
    CHECK(p.c == 1 && p.h == 2 && p.w == 3 && p.s == 4);
    // A failure leaves *p and *seen untouched, even when earlier tokens were good.
    xconv_problem before = p;
    seen = 12345;
    CHECK(xconv_shape_apply("n=9,bogus=1", &p, &seen, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "unknown key 'bogus'");
    CHECK(same(&p, &before) && seen == 12345);
}

// xconv_shape_read: parse's rules and defaults, without the check (xconv_plan_create's).
static void test_read(void)
{
    xconv_problem p, parsed;
    unsigned seen = 0;
    xconv_error err = {0};
    const char *spec = "n=2,c=4,h=9,w=9,k=8,r=3,stride=2,pool=2";
    CHECK(xconv_shape_read(spec, &p, &seen, &err) == XCONV_OK);
    CHECK(xconv_shape_parse(spec, &parsed, &err) == XCONV_OK);
    CHECK(same(&p, &parsed));  // the same problem as parse's, s = r and the pool stride set
    CHECK(p.s == 3 && p.epi.pool_stride_h == 2 && p.epi.pool_stride_w == 2);
    CHECK(seen == (XCONV_KEY_N | XCONV_KEY_C | XCONV_KEY_H | XCONV_KEY_W | XCONV_KEY_K |
                   XCONV_KEY_R | XCONV_KEY_STRIDE | XCONV_KEY_POOL));
    // Read, not checked: a problem that breaks a rule is left for the plan to refuse.
    CHECK(xconv_shape_read("n=1,c=6,h=8,w=8,k=4,r=3,groups=4", &p, NULL, &err) == XCONV_OK);
    CHECK(p.groups == 4 && p.c == 6 && p.s == 3);
    CHECK(xconv_problem_check(&p, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_shape_parse("n=1,c=6,h=8,w=8,k=4,r=3,groups=4", &parsed, &err) ==
          XCONV_ERR_INVALID);
    CHECK(xconv_shape_read("n=1,c=1,h=4,w=4,k=1,r=3,s=0", &p, NULL, &err) == XCONV_OK);
    CHECK(p.s == 0);  // given as 0: stays, for the check to refuse
    // Parse's rules stay: a missing size, a bad token; *p and *seen are left alone.
    xconv_problem before = p;
    seen = 777;
    CHECK(xconv_shape_read("n=1,c=1,h=5,w=5,r=1", &p, &seen, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "k is required");
    CHECK(xconv_shape_read("n=1,c=1,h=5,w=5,k=1,r=1,q=2", &p, &seen, &err) == XCONV_ERR_PARSE);
    CHECK_CONTAINS(err.msg, "unknown key 'q'");
    CHECK(same(&p, &before) && seen == 777);
    CHECK(xconv_shape_read(NULL, &p, NULL, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_shape_read("n=1", NULL, NULL, NULL) == XCONV_ERR_INVALID);
}

// ---------------------------------------------------------------------------------------------
// Formatting and suites

static void test_format(void)
{
    char buf[256];
    xconv_problem p = parse_ok("n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3");
    int n = xconv_shape_format(&p, buf, sizeof buf);
    CHECK(n == (int)strlen(buf));
    CHECK(strcmp(buf, "n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3") == 0);
    p = parse_ok("pad_w=2,stride_h=2,n=2,c=4,h=20,w=21,k=8,r=3,s=5,dil_h=2,dil_w=1,groups=4");
    xconv_shape_format(&p, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, "n=2,c=4,h=20,w=21,k=8,r=3,s=5,stride_h=2,stride_w=1,pad_h=0,pad_w=2,"
                          "dil_h=2,dil_w=1,groups=4") == 0, "%s", buf);
    xconv_problem q = parse_ok(buf);
    CHECK(same(&p, &q));
    // Truncation reports the full length, as snprintf does.
    char small[8];
    n = xconv_shape_format(&p, small, sizeof small);
    CHECK(n == (int)strlen(buf) && strlen(small) == 7 && strncmp(small, buf, 7) == 0);
    CHECK(xconv_shape_format(&p, NULL, 0) == (int)strlen(buf));
}

// Every suite shape parses, checks, and formats back to its own spec (the specs are canonical).
static void test_suites(void)
{
    const char *const *names = xconv_suite_names();
    int suites = 0;
    for (; names[suites]; suites++) {
        int count = -1;
        const xconv_named_shape *shapes = xconv_suite_find(names[suites], &count);
        CHECK_MSG(shapes && count > 0, "suite %s", names[suites]);
        for (int i = 0; shapes && i < count; i++) {
            xconv_problem p = parse_ok(shapes[i].spec);
            char buf[256];
            xconv_shape_format(&p, buf, sizeof buf);
            CHECK_MSG(strcmp(buf, shapes[i].spec) == 0, "%s: '%s' formats as '%s'",
                      shapes[i].name, shapes[i].spec, buf);
            xconv_problem q = parse_ok(buf);
            CHECK(same(&p, &q));
            CHECK(strlen(shapes[i].name) < 32 && strlen(shapes[i].spec) < 256);
            for (int j = 0; j < i; j++)
                CHECK_MSG(strcmp(shapes[i].name, shapes[j].name) != 0, "%s twice",
                          shapes[i].name);
            if (strcmp(names[suites], "small") == 0)
                CHECK_MSG(xconv_problem_flops(&p) < 20e6, "%s: %.3g FLOPs", shapes[i].name,
                          xconv_problem_flops(&p));
        }
    }
    CHECK(suites == 3);
    int count = -1;
    const xconv_named_shape *std = xconv_suite_find("standard", &count);
    CHECK(std && count == 10);
    if (std && count == 10) {
        CHECK(strcmp(std[0].name, "ece408_c1") == 0);
        CHECK(strcmp(std[5].spec, "n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3") == 0);
        CHECK(strcmp(std[8].name, "dil3x3d2") == 0);
        CHECK(strcmp(std[9].spec, "n=16,c=64,h=64,w=64,k=64,r=11,pad=5") == 0);
    }
    CHECK(xconv_suite_find("nope", &count) == NULL && count == 0);
    CHECK(xconv_suite_find(NULL, NULL) == NULL);
}

// The small suite covers the features it promises.
static void test_small_coverage(void)
{
    int count = 0;
    const xconv_named_shape *shapes = xconv_suite_find("small", &count);
    bool stride2 = false, asym_stride = false, asym_pad = false, dil = false, asym_dil = false;
    bool grouped = false, depthwise = false, pw = false, pw_s2 = false, rect = false;
    bool big_filter = false, c1 = false, c64 = false;
    for (int i = 0; shapes && i < count; i++) {
        xconv_problem p = parse_ok(shapes[i].spec);
        stride2 |= p.stride_h == 2 && p.stride_w == 2;
        asym_stride |= p.stride_h != p.stride_w;
        asym_pad |= p.pad_h != p.pad_w;
        dil |= p.dil_h == 2 && p.dil_w == 2;
        asym_dil |= p.dil_h != p.dil_w;
        grouped |= p.groups > 1 && p.groups < p.c;
        depthwise |= p.groups == p.c && p.c == p.k && p.c > 1;
        pw |= p.r == 1 && p.s == 1 && p.stride_h == 1;
        pw_s2 |= p.r == 1 && p.s == 1 && p.stride_h == 2;
        rect |= p.r != p.s;
        big_filter |= p.r > p.h && p.s > p.w;
        c1 |= p.c == 1;
        c64 |= p.c >= 64;
    }
    CHECK(count >= 12);
    CHECK(stride2 && asym_stride && asym_pad && dil && asym_dil && grouped && depthwise);
    CHECK(pw && pw_s2 && rect && big_filter && c1 && c64);
}

// ---------------------------------------------------------------------------------------------
// Epilogues

static void test_epilogue_parse(void)
{
    xconv_problem p = parse_ok("n=2,c=4,h=10,w=12,k=3,r=3,pad=1");
    xconv_epilogue none = {0};
    CHECK(memcmp(&p.epi, &none, sizeof none) == 0 && !xconv_problem_has_epilogue(&p));
    p = parse_ok("n=2,c=4,h=10,w=12,k=3,r=3,pad=1,bias=1,act=relu,pool=2");
    CHECK(p.epi.bias == 1 && p.epi.act == XCONV_ACT_RELU && p.epi.pool_h == 2 &&
          p.epi.pool_w == 2);
    // The stride defaults to the window, per direction; padding to 0.
    CHECK(p.epi.pool_stride_h == 2 && p.epi.pool_stride_w == 2 && p.epi.pool_pad_h == 0);
    p = parse_ok("n=2,c=4,h=10,w=12,k=3,r=3,pool_h=3,pool_w=2,pool_stride_w=1,act=relu6");
    CHECK(p.epi.pool_h == 3 && p.epi.pool_w == 2 && p.epi.pool_stride_h == 3 &&
          p.epi.pool_stride_w == 1 && p.epi.act == XCONV_ACT_RELU6 && p.epi.bias == 0);
    // A specific key beats the combined one, whichever comes first.
    p = parse_ok("n=1,c=1,h=9,w=9,k=1,r=1,pool_pad_w=1,pool=3,pool_stride=2,pool_pad=0,"
                 "pool_h=2");
    CHECK(p.epi.pool_h == 2 && p.epi.pool_w == 3 && p.epi.pool_stride_h == 2 &&
          p.epi.pool_stride_w == 2 && p.epi.pool_pad_h == 0 && p.epi.pool_pad_w == 1);
    p = parse_ok("n=1,c=1,h=9,w=9,k=1,r=1, act = none ,bias=0");
    CHECK(!xconv_problem_has_epilogue(&p));
    CHECK(strcmp(xconv_activation_name(XCONV_ACT_RELU6), "relu6") == 0 &&
          xconv_activation_name(3) == NULL && xconv_activation_name(-1) == NULL);
    // apply: a window without its stride sets the stride; the bits name the keys.
    unsigned seen = 0;
    xconv_error err = {0};
    p.epi.pool_stride_h = 7;
    CHECK(xconv_shape_apply("pool_h=3,bias=1", &p, &seen, &err) == XCONV_OK);
    CHECK(p.epi.pool_h == 3 && p.epi.pool_stride_h == 3 && p.epi.bias == 1);
    CHECK(seen == (XCONV_KEY_POOL | XCONV_KEY_BIAS));
    CHECK(xconv_shape_apply("act=relu,pool_stride=2,pool_pad_w=1", &p, &seen, &err) ==
          XCONV_OK);
    CHECK(seen == (XCONV_KEY_ACT | XCONV_KEY_POOL_STRIDE | XCONV_KEY_POOL_PAD));
    CHECK(p.epi.pool_stride_h == 2 && p.epi.pool_stride_w == 2 && p.epi.pool_pad_w == 1);
}

static void test_epilogue_refused(void)
{
    const char *base = "n=2,c=4,h=10,w=12,k=3,r=3,pad=1";  // P = 10, Q = 12
    const struct {
        const char *keys;
        xconv_status status;
        const char *needle, *needle2;
    } cases[] = {
        {"act=tanh", XCONV_ERR_PARSE, "value 'tanh' in 'act=tanh' is not an activation",
         "none, relu, relu6"},
        {"act=1", XCONV_ERR_PARSE, "is not an activation", NULL},
        {"bias=relu", XCONV_ERR_PARSE, "is not an integer", NULL},
        {"bias=2", XCONV_ERR_INVALID, "bias must be 0 or 1 (got 2)", NULL},
        {"bias=-1", XCONV_ERR_INVALID, "bias must be 0 or 1 (got -1)", NULL},
        {"pool=-2", XCONV_ERR_INVALID, "pool_h must not be negative (got -2)", NULL},
        {"pool_h=2", XCONV_ERR_INVALID, "pool_h=2 and pool_w=0", "needs both sides"},
        {"pool_stride=2", XCONV_ERR_INVALID, "pool_stride_h=2 needs a pool window", NULL},
        {"pool_pad_w=1", XCONV_ERR_INVALID, "pool_pad_w=1 needs a pool window", NULL},
        {"pool=2,pool_stride_w=0", XCONV_ERR_INVALID, "pool_stride_w must be at least 1",
         NULL},
        {"pool=2,pool_pad=2", XCONV_ERR_INVALID, "pool_pad_h=2 must be less than the pool "
         "window pool_h=2", NULL},
        {"pool_h=11,pool_w=2", XCONV_ERR_INVALID, "pool window pool_h=11 is larger than the "
         "padded convolution output height", "(P + 2*pool_pad_h = 10)"},
        {"pool_h=2,pool_w=15,pool_pad_w=1", XCONV_ERR_INVALID,
         "pool window pool_w=15 is larger", "(Q + 2*pool_pad_w = 14)"},
        {"pool=2147483648", XCONV_ERR_INVALID, "pool_h=2147483648 passes the 32-bit index",
         NULL},
        {"bias=1,bias=1", XCONV_ERR_PARSE, "key 'bias' given twice", NULL},
        {"poolx=2", XCONV_ERR_PARSE, "unknown key 'poolx'", "pool_stride_w pool_pad"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "%s,%s", base, cases[i].keys);
        parse_bad(spec, cases[i].status, cases[i].needle, cases[i].needle2);
    }
    // The largest window that fits: the padded output exactly.
    parse_ok("n=2,c=4,h=10,w=12,k=3,r=3,pad=1,pool_h=12,pool_w=2,pool_pad_h=1");
}

static void test_epilogue_format(void)
{
    const struct {
        const char *in, *out;
    } cases[] = {
        // Defaults are left out, so a SPEC without an epilogue keeps its text.
        {"n=2,c=4,h=10,w=12,k=3,r=3,bias=0,act=none,pool=0", "n=2,c=4,h=10,w=12,k=3,r=3"},
        {"act=relu,bias=1,n=2,c=4,h=10,w=12,k=3,r=3,pool=2,pool_stride=2",
         "n=2,c=4,h=10,w=12,k=3,r=3,bias=1,act=relu,pool=2"},
        {"n=2,c=4,h=10,w=12,k=3,r=3,pool=3,pool_stride=2,pool_pad=1,act=relu6",
         "n=2,c=4,h=10,w=12,k=3,r=3,act=relu6,pool=3,pool_stride=2,pool_pad=1"},
        {"n=2,c=4,h=10,w=12,k=3,r=3,pool_h=3,pool_w=2",
         "n=2,c=4,h=10,w=12,k=3,r=3,pool_h=3,pool_w=2"},
        {"n=2,c=4,h=10,w=12,k=3,r=3,pool_h=3,pool_w=2,pool_stride=2",
         "n=2,c=4,h=10,w=12,k=3,r=3,pool_h=3,pool_w=2,pool_stride=2"},
        {"n=2,c=4,h=10,w=12,k=3,r=3,pool=2,pool_stride_w=1,pool_pad_h=1",
         "n=2,c=4,h=10,w=12,k=3,r=3,pool=2,pool_stride_h=2,pool_stride_w=1,pool_pad_h=1,"
         "pool_pad_w=0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xconv_problem p = parse_ok(cases[i].in);
        char buf[512];
        xconv_shape_format(&p, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, cases[i].out) == 0, "'%s' formats as '%s'", cases[i].in, buf);
        xconv_problem q = parse_ok(buf);
        CHECK_MSG(same(&p, &q), "'%s' does not parse back to the same problem", buf);
    }
}

// The epilogue suite covers each part alone and together.
static void test_epilogue_suite(void)
{
    int count = 0;
    const xconv_named_shape *shapes = xconv_suite_find("epilogue", &count);
    bool bias_only = false, relu = false, relu6 = false, pool2 = false, pool3s2p = false;
    bool all = false, no_bias_pool = false;
    for (int i = 0; shapes && i < count; i++) {
        xconv_problem p = parse_ok(shapes[i].spec);
        const xconv_epilogue *e = &p.epi;
        CHECK_MSG(xconv_problem_has_epilogue(&p), "%s has no epilogue", shapes[i].name);
        CHECK_MSG(xconv_problem_flops(&p) < 20e6, "%s: %.3g FLOPs", shapes[i].name,
                  xconv_problem_flops(&p));
        bias_only |= e->bias && !e->act && !e->pool_h;
        relu |= e->act == XCONV_ACT_RELU && !e->pool_h;
        relu6 |= e->act == XCONV_ACT_RELU6;
        pool2 |= e->pool_h == 2 && e->pool_w == 2 && e->pool_stride_h == 2 && !e->pool_pad_h;
        pool3s2p |= e->pool_h == 3 && e->pool_stride_h == 2 && e->pool_pad_h == 1;
        all |= e->bias && e->act && e->pool_h;
        no_bias_pool |= !e->bias && !e->act && e->pool_h;
    }
    CHECK(count >= 10);
    CHECK(bias_only && relu && relu6 && pool2 && pool3s2p && all && no_bias_pool);
}

int main(void)
{
    test_parse_good();
    test_parse_overrides();
    test_parse_bad_tokens();
    test_apply();
    test_read();
    test_format();
    test_suites();
    test_small_coverage();
    test_epilogue_parse();
    test_epilogue_refused();
    test_epilogue_format();
    test_epilogue_suite();
    return check_summary("test_shape");
}
