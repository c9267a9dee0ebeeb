// SPDX-License-Identifier: MIT
// Tests of .npy reading and writing: round trips, hand-made headers, malformed files, failed
// writes, float16 and bfloat16 files.
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli/npy.h"

static char dir[64];

// ---------------------------------------------------------------------------------------------
// Helpers

// Returns "<dir>/<name>" in a static buffer (one of a few, so two can be live at once).
static const char *tmp_path(const char *name)
{
    static char bufs[4][256];
    static int next;
    char *buf = bufs[next++ % 4];
    snprintf(buf, 256, "%s/%s", dir, name);
    return buf;
}

static void write_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(bytes, 1, len, f) == len);
        fclose(f);
    }
}

// Builds a .npy image: magic, version, a header length field of hlen_field (or the header's
// own length when < 0), the header, then data_len bytes of data. Returns its length.
static size_t make_npy(unsigned char *buf, int major, int minor, const char *header,
                       long hlen_field, size_t data_len)
{
    size_t hlen = strlen(header), off = 0;
    if (hlen_field < 0)
        hlen_field = (long)hlen;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = (unsigned char)minor;
    off = 8;
    int len_bytes = major == 1 ? 2 : 4;
    for (int i = 0; i < len_bytes; i++)
        buf[off++] = (unsigned char)(hlen_field >> (8 * i));
    memcpy(buf + off, header, hlen);
    off += hlen;
    for (size_t i = 0; i < data_len; i++)
        buf[off++] = (unsigned char)(i * 7 + 1);
    return off;
}

// Counts the entries of the temp dir (other than . and ..).
static int dir_entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

// Writes file bytes to "bad.npy", reads it and expects `want` with a message containing needle.
static void expect_refused(const void *bytes, size_t len, xconv_status want, const char *needle)
{
    const char *path = tmp_path("bad.npy");
    write_bytes(path, bytes, len);
    xconv_npy a;
    xconv_error err = {0};
    xconv_status st = xconv_npy_read(path, &a, &err);
    CHECK_MSG(st == want, "status %d, want %d, for '%s': %s", st, want, needle, err.msg);
    CHECK_CONTAINS(err.msg, needle);
    CHECK_CONTAINS(err.msg, path);
    CHECK(a.data == NULL && a.count == 0);
    unlink(path);
}

// A header with the given body, expected to be refused as a parse error naming needle.
static void expect_bad_header(const char *header, size_t data_len, const char *needle)
{
    unsigned char buf[1024];
    size_t len = make_npy(buf, 1, 0, header, -1, data_len);
    expect_refused(buf, len, XCONV_ERR_PARSE, needle);
}

// ---------------------------------------------------------------------------------------------
// Round trips

static void round_trip(int ndim, const int64_t *shape)
{
    int64_t count = 1;
    for (int i = 0; i < ndim; i++)
        count *= shape[i];
    float *data = malloc((size_t)(count ? count : 1) * sizeof *data);
    for (int64_t i = 0; i < count; i++)
        data[i] = (float)i * 0.25f - 3.0f;
    const char *path = tmp_path("rt.npy");
    xconv_error err = {0};
    CHECK_MSG(xconv_npy_write(path, data, ndim, shape, &err) == XCONV_OK, "%s", err.msg);
    xconv_npy a;
    CHECK_MSG(xconv_npy_read(path, &a, &err) == XCONV_OK, "%s", err.msg);
    CHECK(a.ndim == ndim && a.count == count && a.data != NULL);
    for (int i = 0; i < ndim && i < a.ndim; i++)
        CHECK(a.shape[i] == shape[i]);
    if (a.count == count && count > 0)
        CHECK(memcmp(a.data, data, (size_t)count * sizeof *data) == 0);
    // The file is a numpy-conformant 1.0 file: 64-byte aligned header ending in '\n'.
    FILE *f = fopen(path, "rb");
    unsigned char head[512] = {0};
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    size_t hlen = head[8] | (size_t)head[9] << 8;
    CHECK(got >= 10 && memcmp(head, "\x93NUMPY\x01\x00", 8) == 0);
    CHECK((10 + hlen) % 64 == 0 && hlen + 10 <= got + (size_t)count * 4);
    CHECK(10 + hlen <= sizeof head && head[10 + hlen - 1] == '\n');
    CHECK(strstr((char *)head + 10, "'descr': '<f4', 'fortran_order': False") != NULL);
    CHECK(dir_entries() == 1);  // no temp file left beside it
    xconv_npy_free(&a);
    CHECK(a.data == NULL && a.count == 0);
    unlink(path);
    free(data);
}

static void test_round_trips(void)
{
    const int64_t s2[] = {2, 3}, s1[] = {5}, s4[] = {2, 3, 4, 5}, s8[] = {2, 1, 3, 1, 2, 1, 1, 2};
    const int64_t s0[] = {0, 3}, big[] = {1000, 257};
    round_trip(2, s2);
    round_trip(1, s1);
    round_trip(0, NULL);  // a scalar: one element
    round_trip(4, s4);
    round_trip(8, s8);
    round_trip(2, s0);  // empty
    round_trip(2, big);
    // The header text for one-element tuples and scalars.
    const char *path = tmp_path("h.npy");
    float v = 1.5f;
    CHECK(xconv_npy_write(path, &v, 1, (int64_t[]){1}, NULL) == XCONV_OK);
    FILE *f = fopen(path, "rb");
    char head[128] = {0};
    if (f) {
        CHECK(fread(head, 1, 127, f) > 64);
        fclose(f);
    }
    CHECK_CONTAINS(head + 10, "'shape': (1,), }");
    CHECK(xconv_npy_write(path, &v, 0, NULL, NULL) == XCONV_OK);  // overwrites
    f = fopen(path, "rb");
    if (f) {
        CHECK(fread(head, 1, 127, f) > 64);
        fclose(f);
    }
    CHECK_CONTAINS(head + 10, "'shape': (), }");
    xconv_npy a;
    CHECK(xconv_npy_read(path, &a, NULL) == XCONV_OK && a.ndim == 0 && a.count == 1);
    CHECK(a.data && a.data[0] == 1.5f);
    xconv_npy_free(&a);
    xconv_npy_free(NULL);
    unlink(path);
}

// Headers as numpy and other writers spell them: versions 2.0 and 3.0, any key order, double
// quotes, no trailing comma, extra spaces, a trailing comma in the shape.
static void test_read_variants(void)
{
    const struct {
        int major;
        const char *header;
        int ndim;
        int64_t d0, d1;
    } cases[] = {
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }      \n", 2, 2, 3},
        {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }\n", 1, 5, 0},
        {3, "{'shape': (2, 3), 'descr': '<f4', 'fortran_order': False}", 2, 2, 3},
        {1, "{\"fortran_order\":False,\"shape\":(3,2,),\"descr\":\"<f4\"}", 2, 3, 2},
        {1, "  {  'descr' : '<f4' ,'fortran_order' :False,'shape':( 4 , ) , }\n\n", 1, 4, 0},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", 0, 0, 0},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n", 2, 2, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t count = cases[i].ndim == 0 ? 1 : cases[i].d0 * (cases[i].ndim == 2 ? cases[i].d1 : 1);
        unsigned char buf[512];
        size_t len = make_npy(buf, cases[i].major, 0, cases[i].header, -1, (size_t)count * 4);
        const char *path = tmp_path("v.npy");
        write_bytes(path, buf, len);
        xconv_npy a;
        xconv_error err = {0};
        CHECK_MSG(xconv_npy_read(path, &a, &err) == XCONV_OK, "case %zu: %s", i, err.msg);
        CHECK(a.ndim == cases[i].ndim && a.count == count);
        if (a.ndim >= 1)
            CHECK(a.shape[0] == cases[i].d0);
        if (a.ndim == 2)
            CHECK(a.shape[1] == cases[i].d1);
        if (a.data)
            CHECK(memcmp(a.data, buf + len - count * 4, (size_t)count * 4) == 0);
        xconv_npy_free(&a);
        unlink(path);
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed files

static void test_read_malformed(void)
{
    xconv_npy a;
    xconv_error err = {0};
    CHECK(xconv_npy_read(tmp_path("missing.npy"), &a, &err) == XCONV_ERR_IO);
    CHECK_CONTAINS(err.msg, "cannot open");
    CHECK_CONTAINS(err.msg, "missing.npy");
    CHECK(xconv_npy_read(dir, &a, &err) == XCONV_ERR_IO);
    CHECK_CONTAINS(err.msg, "not a regular file");

    unsigned char buf[1024];
    const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
    expect_refused("", 0, XCONV_ERR_PARSE, "too short to be a .npy file (0 bytes)");
    expect_refused("\x93NUM", 4, XCONV_ERR_PARSE, "too short");
    expect_refused("PK\x03\x04 this is a zip file", 24, XCONV_ERR_PARSE, "bad magic");
    size_t len = make_npy(buf, 4, 0, good, -1, 24);
    expect_refused(buf, len, XCONV_ERR_PARSE, "unsupported .npy format version 4.0");
    len = make_npy(buf, 1, 1, good, -1, 24);
    expect_refused(buf, len, XCONV_ERR_PARSE, "unsupported .npy format version 1.1");
    len = make_npy(buf, 0, 0, good, -1, 24);
    expect_refused(buf, len, XCONV_ERR_PARSE, "unsupported .npy format version 0.0");
    expect_refused("\x93NUMPY\x01\x00", 8, XCONV_ERR_PARSE, "ends inside the header length");
    expect_refused("\x93NUMPY\x02\x00\x10\x00", 10, XCONV_ERR_PARSE, "ends inside the header");
    len = make_npy(buf, 1, 0, good, 60000, 0);
    expect_refused(buf, len, XCONV_ERR_PARSE, "header length 60000 runs past the end");
    len = make_npy(buf, 2, 0, good, 0x7fffffffL, 24);
    expect_refused(buf, len, XCONV_ERR_PARSE, "header length 2147483647 runs past the end");
    len = make_npy(buf, 3, 0, good, 0xffffffffL, 24);
    expect_refused(buf, len, XCONV_ERR_PARSE, "header length 4294967295 runs past the end");

    expect_bad_header("[1, 2, 3]\n", 0, "header is not a dict");
    expect_bad_header("", 0, "header is not a dict");
    expect_bad_header("{'fortran_order': False, 'shape': (2,), }", 8, "the header lacks 'descr'");
    expect_bad_header("{'descr': '<f4', 'shape': (2,), }", 8, "lacks 'fortran_order'");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False}", 8, "lacks 'shape'");
    expect_bad_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16,
                      "dtype '<f8' is not float32, float16 or bfloat16");
    expect_bad_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8,
                      "dtype '>f4' is not float32");
    expect_bad_header("{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", 8,
                      "dtype '|f4' is not float32");
    expect_bad_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8,
                      "expected a quoted string");
    expect_bad_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24,
                      "fortran_order True is not supported");
    expect_bad_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8,
                      "expected True or False");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 3), }", 8,
                      "negative size in 'shape'");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                      8, "overflows int64");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (1000000000000, 1000000000000), }", 8, "has too many elements");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }", 8,
                      "truncated data: shape (100000000000,) needs 400000000000 bytes");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", 4, "more than 8 dimensions");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", 24,
                      "expected a tuple");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", 24,
                      "expected ',' or ')'");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", 24,
                      "expected an integer size");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", 20,
                      "truncated data: shape (2, 3) needs 24 bytes, the file holds 20");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 12,
                      "4 bytes of trailing data");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8,
                      "unexpected key");
    expect_bad_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
                      8, "key given twice");
    expect_bad_header("{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}", 8,
                      "expected ':' after a key");
    expect_bad_header("{'descr': '<f4", 0, "unterminated string");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} xyz", 8,
                      "unexpected text after the dict");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,) 'x'", 8,
                      "expected ',' or '}'");
    expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,", 8,
                      "expected an integer size");
    // Binary garbage in the header.
    len = make_npy(buf, 1, 0, "{\x01\x02\xff", -1, 0);
    expect_refused(buf, len, XCONV_ERR_PARSE, "expected a quoted string");
}

// Every prefix of a valid file is refused, and random byte flips never crash the reader.
static void test_read_fuzz(void)
{
    unsigned char buf[512], bad[512];
    size_t len = make_npy(buf, 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                          -1, 12);
    const char *path = tmp_path("fuzz.npy");
    int refused = 0;
    for (size_t cut = 0; cut < len; cut++) {
        write_bytes(path, buf, cut);
        xconv_npy a;
        refused += xconv_npy_read(path, &a, NULL) != XCONV_OK;
        xconv_npy_free(&a);
    }
    CHECK(refused == (int)len);
    uint64_t state = 12345;
    for (int iter = 0; iter < 2000; iter++) {
        memcpy(bad, buf, len);
        for (int flips = 0; flips < 3; flips++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            bad[(state >> 33) % len] = (unsigned char)(state >> 20);
        }
        write_bytes(path, bad, len);
        xconv_npy a;
        xconv_error err = {0};
        xconv_status st = xconv_npy_read(path, &a, &err);
        CHECK(st == XCONV_OK || st == XCONV_ERR_PARSE);
        CHECK(st != XCONV_OK || (a.data && a.count >= 0));
        xconv_npy_free(&a);
    }
    unlink(path);
}

// ---------------------------------------------------------------------------------------------
// Failed writes leave nothing behind

static void test_write_failures(void)
{
    float data[16] = {0};
    int64_t shape[] = {4, 4};
    xconv_error err = {0};
    // A folder that does not exist.
    CHECK(xconv_npy_write(tmp_path("no/such/dir.npy"), data, 2, shape, &err) == XCONV_ERR_IO);
    CHECK_CONTAINS(err.msg, "no/such/dir.npy");
    CHECK(dir_entries() == 0);
    // A path that is a folder: the rename fails and the temporary file is removed.
    const char *sub = tmp_path("adir");
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(xconv_npy_write(sub, data, 2, shape, &err) == XCONV_ERR_IO);
    CHECK_CONTAINS(err.msg, "rename");
    CHECK(dir_entries() == 1);
    rmdir(sub);
    // A read-only folder (root ignores the permission, so only when not root).
    if (geteuid() != 0) {
        CHECK(mkdir(sub, 0500) == 0);
        CHECK(xconv_npy_write(tmp_path("adir/x.npy"), data, 2, shape, &err) == XCONV_ERR_IO);
        CHECK(!exists(tmp_path("adir/x.npy")));
        rmdir(sub);
    }
    // Bad arguments write nothing.
    const char *path = tmp_path("x.npy");
    CHECK(xconv_npy_write(path, data, 9, shape, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_npy_write(path, data, -1, shape, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_npy_write(path, data, 2, (int64_t[]){4, -4}, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_npy_write(path, NULL, 2, shape, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_npy_write(path, data, 2, NULL, &err) == XCONV_ERR_INVALID);
    CHECK(xconv_npy_write("", data, 2, shape, &err) == XCONV_ERR_INVALID);
    CHECK(dir_entries() == 0);
}

// A write that fails halfway (the file-size limit) leaves no partial file, and an existing file
// at the path keeps its old contents.
static void test_write_partial(void)
{
    const char *path = tmp_path("old.npy");
    float old[4] = {1, 2, 3, 4};
    CHECK(xconv_npy_write(path, old, 1, (int64_t[]){4}, NULL) == XCONV_OK);
    enum { COUNT = 16384 };
    float *big = calloc(COUNT, sizeof *big);
    struct rlimit saved, lim;
    getrlimit(RLIMIT_FSIZE, &saved);
    lim = saved;
    lim.rlim_cur = 4096;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    xconv_error err = {0};
    xconv_status st = xconv_npy_write(path, big, 1, (int64_t[]){COUNT}, &err);
    xconv_status st2 = xconv_npy_write(tmp_path("new.npy"), big, 1, (int64_t[]){COUNT}, NULL);
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, prev);
    CHECK(st == XCONV_ERR_IO && st2 == XCONV_ERR_IO);
    CHECK_CONTAINS(err.msg, "cannot write");
    CHECK(!exists(tmp_path("new.npy")));
    CHECK(dir_entries() == 1);  // only old.npy, no temporary file
    xconv_npy a;
    CHECK(xconv_npy_read(path, &a, NULL) == XCONV_OK && a.count == 4);
    CHECK(a.data && memcmp(a.data, old, sizeof old) == 0);
    xconv_npy_free(&a);
    unlink(path);
    free(big);
}

// float16 ('<f2') and bfloat16 bits ('<u2') files: read as exact floats with the file's dtype,
// refused when truncated, and written from floats rounded to the type (read back the same).
static void test_half_files(void)
{
    const uint16_t f16[3] = {0x3c00, 0xc000, 0x0001};  // 1, -2, 2^-24 (a subnormal)
    const uint16_t bf16[3] = {0x3f80, 0xc040, 0x7f80};  // 1, -3, +Inf
    const struct {
        const char *descr;
        const uint16_t *bits;
        int64_t dtype;
        float want[3];
    } cases[] = {
        {"<f2", f16, XCONV_DTYPE_F16, {1.0f, -2.0f, 0x1p-24f}},
        {"<u2", bf16, XCONV_DTYPE_BF16, {1.0f, -3.0f, INFINITY}},
    };
    for (int c = 0; c < 2; c++) {
        char header[128];
        snprintf(header, sizeof header,
                 "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }\n", cases[c].descr);
        unsigned char buf[256];
        size_t len = make_npy(buf, 1, 0, header, -1, 0);
        memcpy(buf + len, cases[c].bits, 6);
        const char *path = tmp_path("half.npy");
        write_bytes(path, buf, len + 6);
        xconv_npy a;
        xconv_error err = {0};
        CHECK_MSG(xconv_npy_read(path, &a, &err) == XCONV_OK, "%s", err.msg);
        CHECK(a.dtype == cases[c].dtype && a.count == 3);
        for (int i = 0; a.data && i < 3; i++)
            CHECK_MSG(a.data[i] == cases[c].want[i], "%s element %d: %g", cases[c].descr, i,
                      a.data[i]);
        xconv_npy_free(&a);
        write_bytes(path, buf, len + 4);  // one element short
        CHECK(xconv_npy_read(path, &a, &err) == XCONV_ERR_PARSE);
        CHECK_CONTAINS(err.msg, "needs 6 bytes");
        remove(path);
    }
    // Written rounded to the type: 1 + 2^-11 ties to 1 in fp16, 1/3 to its nearest.
    const float values[4] = {1.0f + 0x1p-11f, 1.0f / 3.0f, -65504.0f, 0.0f};
    const int64_t shape[2] = {2, 2};
    for (int64_t dtype = XCONV_DTYPE_F32; dtype <= XCONV_DTYPE_BF16; dtype++) {
        const char *path = tmp_path("written.npy");
        FILE *f = fopen(path, "wb");
        xconv_error err = {0};
        CHECK(f && xconv_npy_write_stream_dtype(f, values, 2, shape, dtype, &err) == XCONV_OK);
        if (f)
            fclose(f);
        xconv_npy a;
        CHECK_MSG(xconv_npy_read(path, &a, &err) == XCONV_OK, "%s", err.msg);
        CHECK(a.dtype == dtype && a.ndim == 2 && a.count == 4);
        float rounded[4];
        memcpy(rounded, values, sizeof rounded);
        xconv_dtype_round(dtype, rounded, 4);
        CHECK(a.data && memcmp(a.data, rounded, sizeof rounded) == 0);
        xconv_npy_free(&a);
        remove(path);
    }
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/xconv_npy_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trips();
    test_read_variants();
    test_read_malformed();
    test_read_fuzz();
    test_half_files();
    test_write_failures();
    test_write_partial();
    CHECK(dir_entries() == 0);
    rmdir(dir);
    return check_summary("test_npy");
}
