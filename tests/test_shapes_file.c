// SPDX-License-Identifier: MIT
// Tests of benchdnn descriptors, shape-file lines and files, and the networks in bench/shapes/.
#include <unistd.h>

#include "check.h"
#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// Helpers

static bool same(const xconv_problem *a, const xconv_problem *b)
{
    return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->k == b->k &&
           a->r == b->r && a->s == b->s && a->stride_h == b->stride_h &&
           a->stride_w == b->stride_w && a->pad_h == b->pad_h && a->pad_w == b->pad_w &&
           a->dil_h == b->dil_h && a->dil_w == b->dil_w && a->groups == b->groups;
}

// Parses a SPEC that must be valid (the expected side of a comparison).
static xconv_problem spec(const char *s)
{
    xconv_problem p = {0};
    xconv_error err = {0};
    CHECK_MSG(xconv_shape_parse(s, &p, &err) == XCONV_OK, "'%s': %s", s, err.msg);
    return p;
}

// Checks that benchdnn descriptor desc parses to the problem of SPEC want, named want_name.
static void bd_ok(const char *desc, const char *want, const char *want_name)
{
    xconv_problem p = {0}, q = spec(want);
    char name[XCONV_SHAPE_NAME_MAX] = "unset";
    xconv_error err = {0};
    xconv_status st = xconv_shape_parse_benchdnn(desc, &p, name, sizeof name, &err);
    CHECK_MSG(st == XCONV_OK, "'%s': %s", desc, err.msg);
    char got[256];
    xconv_shape_format(&p, got, sizeof got);
    CHECK_MSG(st || same(&p, &q), "'%s' gave %s, want %s", desc, got, want);
    CHECK_MSG(st || strcmp(name, want_name) == 0, "'%s' named '%s', want '%s'", desc, name,
              want_name);
}

// Checks that descriptor desc is refused with status want and a message holding both needles,
// leaving the problem alone.
static void bd_bad(const char *desc, xconv_status want, const char *needle, const char *needle2)
{
    xconv_problem p = xconv_problem_default();
    p.n = 77;
    char name[XCONV_SHAPE_NAME_MAX] = "keep";
    xconv_error err = {0};
    xconv_status st = xconv_shape_parse_benchdnn(desc, &p, name, sizeof name, &err);
    CHECK_MSG(st == want, "'%s' gave %d (%s)", desc, st, err.msg);
    CHECK_CONTAINS(err.msg, needle);
    if (needle2)
        CHECK_CONTAINS(err.msg, needle2);
    CHECK_MSG(p.n == 77 && strcmp(name, "keep") == 0, "'%s' changed its outputs on failure",
              desc);
}

// Parses one shape-file line that must hold a shape; returns its entry.
static xconv_shape_entry line_ok(const char *line)
{
    xconv_shape_entry e;
    memset(&e, 0, sizeof e);
    bool blank = true;
    xconv_error err = {0};
    xconv_status st = xconv_shape_line_parse(line, &e, &blank, &err);
    CHECK_MSG(st == XCONV_OK && !blank, "'%s': %s (blank %d)", line, err.msg, blank);
    return e;
}

// Checks that a line is refused with a message holding needle.
static void line_bad(const char *line, const char *needle)
{
    xconv_shape_entry e;
    bool blank = false;
    xconv_error err = {0};
    xconv_status st = xconv_shape_line_parse(line, &e, &blank, &err);
    CHECK_MSG(st != XCONV_OK, "'%s' was accepted", line);
    CHECK_CONTAINS(err.msg, needle);
}

// Parses text as a file named "t.shapes"; returns the status, *err filled.
static xconv_status file_parse(const char *text, xconv_shape_entry **shapes, int *count,
                               xconv_error *err)
{
    return xconv_shapes_parse(text, strlen(text), "t.shapes", shapes, count, err);
}

// Checks that text as a file is refused with a message holding needle.
static void file_bad(const char *text, size_t len, const char *needle)
{
    xconv_shape_entry *shapes = (xconv_shape_entry *)1;
    int count = -1;
    xconv_error err = {0};
    xconv_status st = xconv_shapes_parse(text, len, "t.shapes", &shapes, &count, &err);
    CHECK_MSG(st != XCONV_OK, "file accepted: %.60s", text);
    CHECK_CONTAINS(err.msg, needle);
    CHECK(shapes == NULL && count == 0);
}

// ---------------------------------------------------------------------------------------------
// benchdnn descriptors

static void test_benchdnn(void)
{
    // docs/shapes.md's example; w keys from the h ones.
    bd_ok("mb32ic64ih56oc64oh56kh3ph1n\"resnet:res2a\"", "n=32,c=64,h=56,w=56,k=64,r=3,pad=1",
          "resnet:res2a");
    // benchdnn's defaults: mb 2, g 1, strides 1, dilations 0 (= xconv's 1), padding 0.
    bd_ok("ic3ih8oc4kh3", "n=2,c=3,h=8,w=8,k=4,r=3", "");
    bd_ok("ic8ih24oc8kh3ph2dh1", "n=2,c=8,h=24,w=24,k=8,r=3,pad=2,dil=2", "");
    bd_ok("ic8ih24oc8kh3ph0dh0", "n=2,c=8,h=24,w=24,k=8,r=3", "");
    // Canonical form with separators, all keys.
    bd_ok("mb1_ic3ih224iw224_oc64oh112ow112_kh7kw7_sh2sw2_ph3pw3_dh0dw0_n\"stem\"",
          "n=1,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3", "stem");
    // Groups and depthwise (ic and oc are totals).
    bd_ok("g32mb1ic32ih112oc32oh112kh3ph1", "n=1,c=32,h=112,w=112,k=32,r=3,pad=1,groups=32", "");
    bd_ok("g2ic96ih27oc256kh5ph2", "n=2,c=96,h=27,w=27,k=256,r=5,pad=2,groups=2", "");
    // Padding deduced from the output size: 3x3 same, 3x3 stride 2, 1x1 stride 2, 7x7 stride 2.
    bd_ok("mb1ic64ih56oc64oh56kh3", "n=1,c=64,h=56,w=56,k=64,r=3,pad=1", "");
    bd_ok("ic64ih56oc128oh28kh3sh2", "n=2,c=64,h=56,w=56,k=128,r=3,stride=2,pad=1", "");
    bd_ok("ic256ih56oc512oh28kh1sh2", "n=2,c=256,h=56,w=56,k=512,r=1,stride=2", "");
    bd_ok("ic3ih224oc64oh112kh7sh2", "n=2,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3", "");
    bd_ok("ic8ih24oc8oh24kh3dh1", "n=2,c=8,h=24,w=24,k=8,r=3,pad=2,dil=2", "");
    // Non-square: the w keys given keep their own values; the output width follows from them.
    bd_ok("ic3ih20iw30oc8kh3kw5", "n=2,c=3,h=20,w=30,k=8,r=3,s=5", "");
    bd_ok("ic3ih20iw30oc8oh20kh3", "n=2,c=3,h=20,w=30,k=8,r=3,pad_h=1,pad_w=0", "");
    bd_ok("ic3ih20iw30oc8oh20ow30kh3", "n=2,c=3,h=20,w=30,k=8,r=3,pad=1", "");
    bd_ok("ic6ih21iw26oc10kh3kw4sh2sw3ph1pw2",
          "n=2,c=6,h=21,w=26,k=10,r=3,s=4,stride_h=2,stride_w=3,pad_h=1,pad_w=2", "");
    // 1-D: only w keys; height 1.
    bd_ok("ic4iw100oc8kw3", "n=2,c=4,h=1,w=100,k=8,r=1,s=3", "");
    // Unquoted names run to the end; whitespace around the descriptor is ignored.
    bd_ok("  ic3ih8oc4kh3nplain_name  ", "n=2,c=3,h=8,w=8,k=4,r=3", "plain_name");

    // Refusals, each naming the key.
    bd_bad("ic3ih56oc8oh55kh3ph1", XCONV_ERR_PARSE, "oh55", "output height 56");
    bd_bad("ic3ih56iw56oc8oh56ow50kh3ph1", XCONV_ERR_PARSE, "ow50", "output width 56");
    bd_bad("ic3ih10oc8oh3kh3", XCONV_ERR_PARSE, "oh3", "no padding gives");
    bd_bad("ic3ix10oc8kh3", XCONV_ERR_PARSE, "unknown key 'ix'", "benchdnn keys");
    bd_bad("ih10oc8kh3", XCONV_ERR_PARSE, "lacks 'ic'", NULL);
    bd_bad("ic3ih10kh3", XCONV_ERR_PARSE, "lacks 'oc'", NULL);
    bd_bad("ic3oc8kh3", XCONV_ERR_PARSE, "lacks 'ih'", NULL);
    bd_bad("ic3ih10oc8", XCONV_ERR_PARSE, "lacks 'kh'", NULL);
    bd_bad("ic3id4ih10oc8kh3", XCONV_ERR_PARSE, "key 'id'", "3-D");
    bd_bad("ic3ih10oc8kh3kd1", XCONV_ERR_PARSE, "key 'kd'", "3-D");
    bd_bad("ic3ih10ih12oc8kh3", XCONV_ERR_PARSE, "'ih' given twice", NULL);
    bd_bad("ic3ih10oc8kh3ph-1", XCONV_ERR_PARSE, "negative value for 'ph'", NULL);
    bd_bad("ic3ihoc8kh3", XCONV_ERR_PARSE, "unknown key 'ihoc'", NULL);
    bd_bad("ic3ih10oc8kh", XCONV_ERR_PARSE, "'kh' has no value", NULL);
    bd_bad("ic3ih10 oc8kh3", XCONV_ERR_PARSE, "unexpected ' '", "offset 7");
    bd_bad("ic3ih10oc8kh3n\"open", XCONV_ERR_PARSE, "unterminated", NULL);
    bd_bad("ic3ih10oc8kh3n\"a\"b", XCONV_ERR_PARSE, "after the name", NULL);
    bd_bad("ic3ih10oc8kh3n", XCONV_ERR_PARSE, "empty name", NULL);
    // Names of any reasonable length (oneDNN's GoogLeNet files have 40-character names); one
    // over XCONV_SHAPE_NAME_MAX - 1 is refused, not cut.
    char named[320], expect[200];
    memset(expect, 'x', 128);
    expect[128] = '\0';
    snprintf(named, sizeof named, "ic3ih10oc8kh3n\"%s\"", expect);
    bd_bad(named, XCONV_ERR_PARSE, "longer than 127", NULL);
    snprintf(named, sizeof named, "ic3ih10oc8kh3n\"%.127s\"", expect);
    {
        xconv_problem p;
        char name[XCONV_SHAPE_NAME_MAX] = "";
        xconv_error err = {0};
        CHECK_MSG(xconv_shape_parse_benchdnn(named, &p, name, sizeof name, &err) == XCONV_OK &&
                      strlen(name) == 127, "a 127-character name: %s", err.msg);
        CHECK(xconv_shape_parse_benchdnn("ic8ih8oc4kh1n\"googlenet_v1:inception_4e/double3x3_"
                                         "reduce\"", &p, name, sizeof name, &err) == XCONV_OK &&
              strcmp(name, "googlenet_v1:inception_4e/double3x3_reduce") == 0);
    }
    bd_bad("ic3ih99999999999oc8kh3", XCONV_ERR_PARSE, "'ih'", "2147483647");
    bd_bad("", XCONV_ERR_PARSE, "empty", NULL);
    // The problem check runs too (groups must divide the channels; output not empty).
    bd_bad("g3ic8ih10oc8kh3", XCONV_ERR_INVALID, "benchdnn descriptor", "groups=3");
    bd_bad("ic3ih2oc8kh5", XCONV_ERR_INVALID, "empty output", NULL);
    bd_bad("ic3ih10oc8kh3sh0", XCONV_ERR_INVALID, "stride_h", NULL);

    // Formatting gives every key and parses back to the same problem, for every suite shape.
    for (const char *const *suite = xconv_suite_names(); *suite; suite++) {
        int n = 0;
        const xconv_named_shape *shapes = xconv_suite_find(*suite, &n);
        for (int i = 0; i < n; i++) {
            xconv_problem p = spec(shapes[i].spec), q = {0};
            char desc[256];
            xconv_shape_format_benchdnn(&p, desc, sizeof desc);
            xconv_error err = {0};
            CHECK_MSG(xconv_shape_parse_benchdnn(desc, &q, NULL, 0, &err) == XCONV_OK,
                      "%s: '%s': %s", shapes[i].name, desc, err.msg);
            CHECK_MSG(same(&p, &q), "%s does not round-trip through '%s'", shapes[i].name,
                      desc);
        }
    }
    char desc[256];
    xconv_problem dw = spec("n=4,c=32,h=28,w=28,k=32,r=3,pad=1,dil=2,groups=32");
    xconv_shape_format_benchdnn(&dw, desc, sizeof desc);
    CHECK_MSG(strcmp(desc, "g32mb4_ic32ih28iw28_oc32oh26ow26_kh3kw3_sh1sw1_ph1pw1_dh1dw1") == 0,
              "%s", desc);
}

// ---------------------------------------------------------------------------------------------
// Lines

static void test_lines(void)
{
    xconv_shape_entry e = line_ok("name=conv1 weight=3 n=32,c=3,h=224,w=224,k=64,r=7,stride=2,"
                                  "pad=3  # the stem");
    CHECK(strcmp(e.name, "conv1") == 0 && e.weight == 3.0 && e.line == 0);
    xconv_problem stem = spec("n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3");
    CHECK(same(&e.problem, &stem));
    // Any order; defaults: no name, weight 1; SPEC with spaces inside.
    e = line_ok("n=1,c=2,h=8,w=8,k=4,r=3 weight=2.5 name=x");
    CHECK(strcmp(e.name, "x") == 0 && e.weight == 2.5);
    e = line_ok("\tn=1, c=2, h=8, w=8, k=4, r=3\r");
    xconv_problem small = spec("n=1,c=2,h=8,w=8,k=4,r=3");
    CHECK(e.name[0] == '\0' && e.weight == 1.0 && same(&e.problem, &small));
    // benchdnn with its name and a weight; quoted names with spaces and '#'.
    e = line_ok("mb1ic2ih8oc4kh3n\"net:layer 1\" weight=4");
    CHECK(strcmp(e.name, "net:layer 1") == 0 && e.weight == 4.0);
    CHECK(e.problem.n == 1 && e.problem.c == 2 && e.problem.k == 4 && e.problem.pad_h == 0);
    e = line_ok("name=\"a #b\" n=1,c=2,h=8,w=8,k=4,r=3");
    CHECK(strcmp(e.name, "a #b") == 0);
    // Blank lines and comments.
    const char *blanks[] = {"", "   ", "# comment", "  \t# n=1,c=2", "\r"};
    for (size_t i = 0; i < sizeof blanks / sizeof blanks[0]; i++) {
        bool blank = false;
        xconv_error err = {0};
        CHECK(xconv_shape_line_parse(blanks[i], &e, &blank, &err) == XCONV_OK && blank);
    }
    // Refusals.
    line_bad("name=a mb1ic2ih8oc4kh3n\"b\"", "name given twice");
    line_bad("name=a name=b n=1,c=2,h=8,w=8,k=4,r=3", "name given twice");
    line_bad("weight=1 weight=2 n=1,c=2,h=8,w=8,k=4,r=3", "weight given twice");
    const char *weights[] = {"0", "-1", "abc", "0x10", "inf", "nan", "", "1e999", "2x", "+3"};
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "weight=%s n=1,c=2,h=8,w=8,k=4,r=3", weights[i]);
        line_bad(line, "not a positive number");
    }
    line_bad("name= n=1,c=2,h=8,w=8,k=4,r=3", "empty name");
    {
        char line[400];
        snprintf(line, sizeof line, "name=%0128d n=1,c=2,h=8,w=8,k=4,r=3", 0);
        line_bad(line, "longer than 127");
        xconv_shape_entry e = line_ok("name=googlenet_v1:inception_3a/3x3_reduce_and_more "
                                      "n=1,c=2,h=8,w=8,k=4,r=3");
        CHECK(strcmp(e.name, "googlenet_v1:inception_3a/3x3_reduce_and_more") == 0);
    }
    line_bad("name=a\"b\" n=1,c=2,h=8,w=8,k=4,r=3", "quote");
    line_bad("name=x weight=2", "without a shape");
    line_bad("name=\"open n=1,c=2,h=8,w=8,k=4,r=3", "unterminated quote");
    line_bad("n=1,c=2,h=8,w=8,k=4,r=3,bogus=1", "unknown key 'bogus'");
    line_bad("nam=x n=1,c=2,h=8,w=8,k=4,r=3", "unknown key 'nam'");
    line_bad("mb1ic2ih8oc4kh3 extra", "unexpected ' '");
    line_bad("n=1,c=2,h=8,w=8,k=4,r=9", "empty output");
    char longline[5000];
    memset(longline, ' ', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    line_bad(longline, "longer than 4096");
}

// ---------------------------------------------------------------------------------------------
// Files

static void test_files(void)
{
    xconv_shape_entry *shapes = NULL;
    int count = 0;
    xconv_error err = {0};
    const char *text = "\xEF\xBB\xBF# a network\r\n"
                       "\r\n"
                       "name=a weight=2 n=1,c=2,h=8,w=8,k=4,r=3\r\n"
                       "   # indented comment\n"
                       "mb1ic2ih8oc4kh3ph1n\"b\"\n"
                       "n=2,c=2,h=8,w=8,k=4,r=1";  // no final newline
    CHECK_MSG(file_parse(text, &shapes, &count, &err) == XCONV_OK, "%s", err.msg);
    CHECK(count == 3);
    if (count == 3) {
        CHECK(strcmp(shapes[0].name, "a") == 0 && shapes[0].weight == 2 && shapes[0].line == 3);
        CHECK(strcmp(shapes[1].name, "b") == 0 && shapes[1].line == 5 &&
              shapes[1].problem.pad_h == 1);
        CHECK(shapes[2].name[0] == '\0' && shapes[2].line == 6 && shapes[2].problem.n == 2);
    }
    xconv_shapes_free(shapes);

    file_bad("n=1,c=2,h=8,w=8,k=4,r=3\n\nn=1,c=2,h=8,w=8,k=4,r=3,x=1\n", 51, "t.shapes:3: ");
    file_bad("name=a n=1,c=2,h=8,w=8,k=4,r=3\nname=a n=1,c=2,h=8,w=8,k=4,r=1\n", 62,
             "t.shapes:2: name 'a' already used on line 1");
    file_bad("# nothing\n\n   \n", 15, "t.shapes: no shapes");
    file_bad("", 0, "no shapes");
    file_bad("n=1,c=2,h=8,w=8,k=4,r=3\nn=1,\0c=2\n", 33, "t.shapes:2: NUL byte");
    file_bad("mb1ic2ih8oc4oh7kh3ph1\n", 22, "t.shapes:1: oh7");
    static char huge[6000];
    memset(huge, 'x', sizeof huge);
    file_bad(huge, sizeof huge, "t.shapes:1: line longer than 4096");
    // Unnamed shapes may repeat (only names must be unique).
    CHECK(file_parse("n=1,c=2,h=8,w=8,k=4,r=3\nn=1,c=2,h=8,w=8,k=4,r=3\n", &shapes, &count,
                     &err) == XCONV_OK && count == 2);
    xconv_shapes_free(shapes);

    // Reading from disk: a file, a missing file, a directory.
    char path[] = "/tmp/xconv_test_shapes_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        const char *body = "name=x weight=7 n=1,c=2,h=8,w=8,k=4,r=3\n";
        CHECK(write(fd, body, strlen(body)) == (ssize_t)strlen(body));
        close(fd);
        CHECK(xconv_shapes_read(path, &shapes, &count, &err) == XCONV_OK && count == 1 &&
              shapes[0].weight == 7);
        xconv_shapes_free(shapes);
        unlink(path);
    }
    CHECK(xconv_shapes_read("/nonexistent/x.shapes", &shapes, &count, &err) == XCONV_ERR_IO);
    CHECK_CONTAINS(err.msg, "cannot open '/nonexistent/x.shapes'");
    CHECK(xconv_shapes_read("/tmp", &shapes, &count, &err) == XCONV_ERR_IO);
    CHECK_CONTAINS(err.msg, "not a regular file");
}

// ---------------------------------------------------------------------------------------------
// The networks shipped in bench/shapes/

// Reads bench/shapes/file and checks its convolution count (the weights' sum), its shape count
// and its multiply-adds a batch image against the published figure (within 0.5%).
static void check_network(const char *file, int layers, int lines, double mmac_per_image)
{
    char path[256];
    snprintf(path, sizeof path, "bench/shapes/%s", file);
    xconv_shape_entry *shapes = NULL;
    int count = 0;
    xconv_error err = {0};
    xconv_status st = xconv_shapes_read(path, &shapes, &count, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    if (st)
        return;
    double weights = 0, macs = 0;
    for (int i = 0; i < count; i++) {
        const xconv_shape_entry *e = &shapes[i];
        weights += e->weight;
        macs += e->weight * xconv_problem_flops(&e->problem) / 2 / (double)e->problem.n;
        CHECK_MSG(e->name[0] != '\0', "%s:%d has no name", path, e->line);
        CHECK_MSG(e->problem.n == shapes[0].problem.n, "%s:%d: batch differs", path, e->line);
        // Names say the network, so a report mixing networks keeps them apart.
        CHECK_MSG(strchr(e->name, ':') != NULL, "%s:%d: '%s' lacks 'network:'", path, e->line,
                  e->name);
    }
    CHECK_MSG(count == lines, "%s: %d shapes, want %d", path, count, lines);
    CHECK_MSG(weights == layers, "%s: weights sum to %g, want %d layers", path, weights, layers);
    double ratio = macs / (mmac_per_image * 1e6);
    CHECK_MSG(ratio > 0.995 && ratio < 1.005, "%s: %.1f MMAC an image, published %.0f", path,
              macs / 1e6, mmac_per_image);
    xconv_shapes_free(shapes);
}

static void test_networks(void)
{
    // Published multiply-adds a 224x224 (AlexNet 227x227) image, convolutions only.
    check_network("resnet50.shapes", 53, 23, 4087);    // 4.09 GMAC with the 2 MMAC classifier
    check_network("vgg16.shapes", 13, 9, 15350);       // 15.47 GMAC less 123.6 MMAC classifier
    check_network("alexnet.shapes", 5, 5, 666);        // 724 MMAC less 58.6 MMAC classifier
    check_network("mobilenet_v2.shapes", 52, 30, 299); // 300 MMAC less 1.3 MMAC classifier
    check_network("mobilenet_v1.shapes", 27, 19, 568); // 569 MMAC less 1.0 MMAC classifier
}

// bench/shapes/standard_cut.shapes is the standard suite with smaller batches, shape for shape.
static void test_standard_cut(void)
{
    xconv_shape_entry *shapes = NULL;
    int count = 0, nsuite = 0;
    xconv_error err = {0};
    const xconv_named_shape *suite = xconv_suite_find("standard", &nsuite);
    xconv_status st = xconv_shapes_read("bench/shapes/standard_cut.shapes", &shapes, &count,
                                        &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    CHECK(suite && count == nsuite);
    for (int i = 0; !st && suite && i < count && i < nsuite; i++) {
        xconv_problem want;
        CHECK(xconv_shape_parse(suite[i].spec, &want, &err) == XCONV_OK);
        char name[64];
        snprintf(name, sizeof name, "standard_cut:%s", suite[i].name);
        CHECK_MSG(strcmp(shapes[i].name, name) == 0, "%s, want %s", shapes[i].name, name);
        CHECK(shapes[i].weight == 1 && shapes[i].problem.n < want.n);
        want.n = shapes[i].problem.n;
        CHECK_MSG(memcmp(&want, &shapes[i].problem, sizeof want) == 0, "%s differs from %s "
                  "beyond n", shapes[i].name, suite[i].spec);
    }
    xconv_shapes_free(shapes);
}

// ---------------------------------------------------------------------------------------------
// Garbled files: refused with file:line or read, never a crash (run under ASan too)

static void test_garbled(void)
{
    const char text[] = "# net\nname=a weight=2 n=1,c=2,h=8,w=8,k=4,r=3,stride=2,pad=1\n"
                        "mb1ic2ih9oc3oh9kh3ph1sh1dh0n\"net:b\" weight=0.5\n"
                        "g2mb1_ic4ih9iw7_oc4_kh3kw1_n\"c\"\n";
    size_t len = sizeof text - 1;
    char copy[sizeof text];
    uint64_t state = 12345;
    int read = 0;
    for (int round = 0; round < 4000; round++) {
        memcpy(copy, text, len);
        size_t n = round < (int)len ? (size_t)round : len;  // truncations first
        for (int k = 0; round >= (int)len && k < 1 + round % 3; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            static const char junk[] = "\"#=,_ \n0123456789abcdeghiknoprswx\xff";
            copy[(state >> 33) % len] = junk[(state >> 20) % (sizeof junk - 1)];
        }
        xconv_shape_entry *shapes = NULL;
        int count = 0;
        xconv_error err = {0};
        if (xconv_shapes_parse(copy, n, "g.shapes", &shapes, &count, &err) == XCONV_OK) {
            read++;
            CHECK(count >= 1 && count <= 3);
            for (int i = 0; i < count; i++)
                CHECK(xconv_problem_check(&shapes[i].problem, &err) == XCONV_OK);
        } else {
            CHECK_CONTAINS(err.msg, "g.shapes");
        }
        xconv_shapes_free(shapes);
    }
    CHECK(read > 0);
}

int main(void)
{
    test_benchdnn();
    test_lines();
    test_files();
    test_networks();
    test_standard_cut();
    test_garbled();
    return check_summary("test_shapes_file");
}
