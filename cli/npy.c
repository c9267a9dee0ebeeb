// SPDX-License-Identifier: MIT
// NumPy .npy reading and atomic writing for float32 C-order arrays (see docs/shapes.md).
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/file_open.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_HEADER (1 << 20)  // numpy itself refuses headers past 10000 bytes by default

// ---------------------------------------------------------------------------------------------
// Helpers

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char byte;
    memcpy(&byte, &one, 1);
    return byte == 1;
}

// Writes "(2, 3)" / "(5,)" / "()" into buf.
static void format_shape(char *buf, size_t len, int ndim, const int64_t *shape)
{
    size_t off = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < ndim && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, i ? ", %" PRId64 : "%" PRId64, shape[i]);
    if (off < len)
        snprintf(buf + off, len - off, ndim == 1 ? ",)" : ")");
}

// Sets *count to the product of the dims and returns true, or false when it (or its byte size)
// does not fit int64.
static bool shape_count(int ndim, const int64_t *shape, int64_t *count)
{
    int64_t c = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0 || (shape[i] != 0 && c > INT64_MAX / 4 / shape[i]))
            return false;
        c *= shape[i];
    }
    *count = c;
    return true;
}

// ---------------------------------------------------------------------------------------------
// The header dict: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"

typedef struct hdr {
    const char *s;
    size_t len, pos;
    const char *path;
    xconv_error *err;
} hdr;

static xconv_status hdr_fail(hdr *h, const char *what)
{
    // Quote the header up to 80 printable characters, so the message shows what was found.
    char shown[84];
    size_t n = 0;
    for (size_t i = 0; i < h->len && n < 80; i++)
        shown[n++] = (h->s[i] >= 32 && h->s[i] < 127) ? h->s[i] : '?';
    shown[n] = '\0';
    return xconv_error_set(h->err, XCONV_ERR_PARSE, "%s: %s at offset %zu of the header \"%s%s\"",
                           h->path, what, h->pos, shown, h->len > 80 ? "..." : "");
}

static void hdr_skip_ws(hdr *h)
{
    while (h->pos < h->len && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' ||
                               h->s[h->pos] == '\n' || h->s[h->pos] == '\r'))
        h->pos++;
}

// Consumes ch (after whitespace) and returns true, or returns false and consumes nothing.
static bool hdr_eat(hdr *h, char ch)
{
    hdr_skip_ws(h);
    if (h->pos < h->len && h->s[h->pos] == ch) {
        h->pos++;
        return true;
    }
    return false;
}

// Reads a quoted string ('...' or "...", no escapes) into out.
static xconv_status hdr_string(hdr *h, char *out, size_t cap)
{
    hdr_skip_ws(h);
    if (h->pos >= h->len || (h->s[h->pos] != '\'' && h->s[h->pos] != '"'))
        return hdr_fail(h, "expected a quoted string");
    char quote = h->s[h->pos++];
    size_t n = 0;
    while (h->pos < h->len && h->s[h->pos] != quote) {
        if (h->s[h->pos] == '\\' || n + 1 >= cap)
            return hdr_fail(h, "unsupported or overlong string");
        out[n++] = h->s[h->pos++];
    }
    if (h->pos >= h->len)
        return hdr_fail(h, "unterminated string");
    h->pos++;
    out[n] = '\0';
    return XCONV_OK;
}

// Reads True or False.
static xconv_status hdr_bool(hdr *h, bool *out)
{
    hdr_skip_ws(h);
    const char *rest = h->s + h->pos;
    size_t left = h->len - h->pos;
    if (left >= 4 && memcmp(rest, "True", 4) == 0) {
        h->pos += 4;
        *out = true;
    } else if (left >= 5 && memcmp(rest, "False", 5) == 0) {
        h->pos += 5;
        *out = false;
    } else {
        return hdr_fail(h, "expected True or False for 'fortran_order'");
    }
    return XCONV_OK;
}

// Reads one non-negative decimal dimension (an old "L" suffix is allowed).
static xconv_status hdr_dim(hdr *h, int64_t *out)
{
    hdr_skip_ws(h);
    if (h->pos < h->len && h->s[h->pos] == '-')
        return hdr_fail(h, "negative size in 'shape'");
    if (h->pos >= h->len || h->s[h->pos] < '0' || h->s[h->pos] > '9')
        return hdr_fail(h, "expected an integer size in 'shape'");
    int64_t v = 0;
    while (h->pos < h->len && h->s[h->pos] >= '0' && h->s[h->pos] <= '9') {
        int d = h->s[h->pos++] - '0';
        if (v > (INT64_MAX - d) / 10)
            return hdr_fail(h, "size in 'shape' overflows int64");
        v = v * 10 + d;
    }
    if (h->pos < h->len && h->s[h->pos] == 'L')
        h->pos++;
    *out = v;
    return XCONV_OK;
}

// Reads a tuple of sizes: "()", "(5,)", "(2, 3)", "(2, 3,)".
static xconv_status hdr_shape(hdr *h, xconv_npy *out)
{
    if (!hdr_eat(h, '('))
        return hdr_fail(h, "expected a tuple '(...)' for 'shape'");
    out->ndim = 0;
    while (!hdr_eat(h, ')')) {
        if (out->ndim == XCONV_NPY_MAX_DIMS)
            return hdr_fail(h, "more than 8 dimensions in 'shape'");
        xconv_status st = hdr_dim(h, &out->shape[out->ndim]);
        if (st)
            return st;
        out->ndim++;
        if (!hdr_eat(h, ',')) {
            if (!hdr_eat(h, ')'))
                return hdr_fail(h, "expected ',' or ')' in 'shape'");
            break;
        }
    }
    return XCONV_OK;
}

// The descr of each storage type, by xconv_dtype.
static const char *const descrs[] = {"<f4", "<f2", "<u2"};

// Returns the bytes of one element of dtype.
static int64_t elem_size(int64_t dtype)
{
    return dtype == XCONV_DTYPE_F32 ? 4 : 2;
}

// Parses the whole dict into *out; descr must be '<f4', '<f2' or '<u2' and fortran_order False.
static xconv_status hdr_parse(hdr *h, xconv_npy *out)
{
    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    char descr[64] = "", key[64];
    xconv_status st;
    if (!hdr_eat(h, '{'))
        return hdr_fail(h, "header is not a dict: expected '{'");
    while (!hdr_eat(h, '}')) {
        if ((st = hdr_string(h, key, sizeof key)))
            return st;
        if (!hdr_eat(h, ':'))
            return hdr_fail(h, "expected ':' after a key");
        bool *have = strcmp(key, "descr") == 0           ? &have_descr
                     : strcmp(key, "fortran_order") == 0 ? &have_order
                     : strcmp(key, "shape") == 0         ? &have_shape
                                                         : NULL;
        if (!have)
            return hdr_fail(h, "unexpected key (want 'descr', 'fortran_order' and 'shape')");
        if (*have)
            return hdr_fail(h, "key given twice");
        *have = true;
        st = have == &have_descr   ? hdr_string(h, descr, sizeof descr)
             : have == &have_order ? hdr_bool(h, &fortran)
                                   : hdr_shape(h, out);
        if (st)
            return st;
        if (!hdr_eat(h, ',')) {
            if (!hdr_eat(h, '}'))
                return hdr_fail(h, "expected ',' or '}' after a value");
            break;
        }
    }
    hdr_skip_ws(h);
    if (h->pos != h->len)
        return hdr_fail(h, "unexpected text after the dict");
    const char *missing = !have_descr ? "descr" : !have_order ? "fortran_order"
                                      : !have_shape ? "shape" : NULL;
    if (missing)
        return xconv_error_set(h->err, XCONV_ERR_PARSE, "%s: the header lacks '%s'", h->path,
                               missing);
    out->dtype = -1;
    for (int64_t i = 0; i < 3; i++)
        if (strcmp(descr, descrs[i]) == 0)
            out->dtype = i;
    if (out->dtype < 0)
        return xconv_error_set(h->err, XCONV_ERR_PARSE,
                               "%s: dtype '%s' is not float32, float16 or bfloat16 (want '<f4', "
                               "'<f2', or '<u2' holding bfloat16 bits)", h->path, descr);
    if (fortran)
        return xconv_error_set(h->err, XCONV_ERR_PARSE,
                               "%s: fortran_order True is not supported (want a C-order array)",
                               h->path);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Reading

// Reads exactly len bytes; returns false on a short read.
static bool read_exact(FILE *f, void *buf, size_t len)
{
    return fread(buf, 1, len, f) == len;
}

// Reads the preamble and header of f (size bytes long) and checks the data size; fills out's
// shape and count and *data_off.
static xconv_status read_header(FILE *f, const char *path, int64_t size, xconv_npy *out,
                                xconv_error *err)
{
    unsigned char pre[12];
    if (size < NPY_MAGIC_LEN + 2 || !read_exact(f, pre, NPY_MAGIC_LEN + 2))
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: too short to be a .npy file "
                               "(%" PRId64 " bytes)", path, size);
    if (memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: not a .npy file (bad magic)", path);
    int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3 || minor != 0)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: unsupported .npy format version %d.%d "
                               "(want 1.0, 2.0 or 3.0)", path, major, minor);
    int len_bytes = major == 1 ? 2 : 4;
    if (size < 8 + len_bytes || !read_exact(f, pre + 8, (size_t)len_bytes))
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: file ends inside the header length",
                               path);
    int64_t hlen = pre[8] | (int64_t)pre[9] << 8;
    if (len_bytes == 4)
        hlen |= (int64_t)pre[10] << 16 | (int64_t)pre[11] << 24;
    int64_t data_off = 8 + len_bytes + hlen;
    if (data_off > size)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: header length %" PRId64 " runs past "
                               "the end of the file (%" PRId64 " bytes)", path, hlen, size);
    if (hlen > NPY_MAX_HEADER)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: header length %" PRId64 " is larger "
                               "than the %d bytes accepted", path, hlen, NPY_MAX_HEADER);
    char *text = malloc((size_t)hlen + 1);
    if (!text)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "%s: no memory for the header", path);
    xconv_status st = XCONV_OK;
    if (!read_exact(f, text, (size_t)hlen))
        st = xconv_error_set(err, XCONV_ERR_IO, "%s: cannot read the header", path);
    hdr h = {.s = text, .len = (size_t)hlen, .path = path, .err = err};
    if (!st)
        st = hdr_parse(&h, out);
    free(text);
    if (st)
        return st;
    char shape[256];
    format_shape(shape, sizeof shape, out->ndim, out->shape);
    if (!shape_count(out->ndim, out->shape, &out->count))
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: shape %s has too many elements", path,
                               shape);
    int64_t need = out->count * elem_size(out->dtype), have = size - data_off;
    if (have < need)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: truncated data: shape %s needs %" PRId64
                               " bytes, the file holds %" PRId64 " after the header",
                               path, shape, need, have);
    if (have > need)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: %" PRId64 " bytes of trailing data "
                               "after the %s array", path, have - need, shape);
    return XCONV_OK;
}

// Converts n 16-bit elements of dtype at src into floats at dst, front to back: src is the upper
// half of dst's array, so element i is read before float i overwrites it.
static void widen(int64_t dtype, const void *src, float *dst, size_t n)
{
    const unsigned char *in = src;
    for (size_t i = 0; i < n; i++) {
        uint16_t bits;
        memcpy(&bits, in + 2 * i, sizeof bits);
        dst[i] = dtype == XCONV_DTYPE_F16 ? xconv_f16_to_f32(bits) : xconv_bf16_to_f32(bits);
    }
}

xconv_status xconv_npy_read(const char *path, xconv_npy *out, xconv_error *err)
{
    if (!path || !out)
        return xconv_error_set(err, XCONV_ERR_INVALID, "no path or output array given");
    memset(out, 0, sizeof *out);
    if (!host_little_endian())
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s: .npy reading needs a little-endian "
                               "host", path);
    struct stat sb;
    FILE *f = xconv_file_open_regular(path, &sb);
    if (!f)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot open '%s': %s", path,
                               xconv_file_open_why(errno));
    xconv_status st = read_header(f, path, (int64_t)sb.st_size, out, err);
    if (!st) {
        size_t bytes = (size_t)out->count * (size_t)elem_size(out->dtype);
        out->data = malloc(out->count ? (size_t)out->count * sizeof(float) : 1);
        // 16-bit elements are read into the array's upper half, then widened from the front.
        void *raw = out->data ? (char *)out->data + (size_t)out->count * sizeof(float) - bytes
                              : NULL;
        if (!out->data)
            st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of "
                                 "data", path, bytes);
        else if (!read_exact(f, raw, bytes))
            st = xconv_error_set(err, XCONV_ERR_IO, "%s: cannot read the data", path);
        else if (out->dtype != XCONV_DTYPE_F32)
            widen(out->dtype, raw, out->data, (size_t)out->count);
    }
    fclose(f);
    if (st)
        xconv_npy_free(out);
    return st;
}

void xconv_npy_free(xconv_npy *npy)
{
    if (!npy)
        return;
    free(npy->data);
    memset(npy, 0, sizeof *npy);
}

// ---------------------------------------------------------------------------------------------
// Writing

// Writes all of buf to fd; returns false with errno set on failure.
static bool write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        size_t chunk = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        ssize_t n = write(fd, p, chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

// Builds the version 1.0 preamble and header, padded with spaces and a newline to a multiple
// of 64 bytes; returns its length.
static size_t build_header(char *buf, size_t cap, int ndim, const int64_t *shape, int64_t dtype)
{
    char dims[256];
    format_shape(dims, sizeof dims, ndim, shape);
    char dict[320];
    int dlen = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
                        "'shape': %s, }", descrs[dtype], dims);
    size_t total = 10 + (size_t)dlen + 1;
    total = (total + 63) / 64 * 64;
    size_t hlen = total - 10;
    if (total > cap)
        return 0;
    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)dlen);
    memset(buf + 10 + dlen, ' ', hlen - (size_t)dlen - 1);
    buf[total - 1] = '\n';
    return total;
}

// Creates a fresh temporary file beside path; fills tmp and returns its descriptor, or -1.
static int open_temp(const char *path, char *tmp, size_t cap)
{
    static atomic_uint counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(),
                 atomic_fetch_add(&counter, 1u));
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

// Checks the arguments of a write and fills *count.
static xconv_status check_write_args(const char *path, const float *data, int ndim,
                                     const int64_t *shape, int64_t *count, xconv_error *err)
{
    if (!path || !*path)
        return xconv_error_set(err, XCONV_ERR_INVALID, "no path given for the .npy file");
    if (ndim < 0 || ndim > XCONV_NPY_MAX_DIMS || (ndim > 0 && !shape))
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: ndim %d is not in 0..%d (or no "
                               "shape given)", path, ndim, XCONV_NPY_MAX_DIMS);
    if (!shape_count(ndim, shape, count))
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: a size in the shape is negative or "
                               "the shape has too many elements", path);
    if (*count > 0 && !data)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: no data given", path);
    if (!host_little_endian())
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: .npy writing needs a little-endian "
                               "host", path);
    return XCONV_OK;
}

xconv_status xconv_npy_write(const char *path, const float *data, int ndim,
                             const int64_t *shape, xconv_error *err)
{
    int64_t count = 0;
    xconv_status st = check_write_args(path, data, ndim, shape, &count, err);
    if (st)
        return st;
    char header[512];
    size_t hlen = build_header(header, sizeof header, ndim, shape, XCONV_DTYPE_F32);
    size_t tmp_cap = strlen(path) + 64;
    char *tmp = malloc(tmp_cap);
    if (!tmp)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "%s: no memory", path);
    int fd = open_temp(path, tmp, tmp_cap);
    if (fd < 0) {
        st = xconv_error_set(err, XCONV_ERR_IO, "cannot create a temporary file beside '%s': %s",
                             path, strerror(errno));
        free(tmp);
        return st;
    }
    const char *step = "write";
    bool ok = write_all(fd, header, hlen) && write_all(fd, data, (size_t)count * 4);
    if (ok && !(ok = fsync(fd) == 0))
        step = "sync";
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        step = "close";
        saved = errno;
    }
    if (ok && !(ok = rename(tmp, path) == 0)) {
        step = "rename into place";
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        st = xconv_error_set(err, XCONV_ERR_IO, "cannot %s '%s': %s", step, path,
                             strerror(saved));
    }
    free(tmp);
    return st;
}

xconv_status xconv_npy_write_stream(FILE *f, const float *data, int ndim, const int64_t *shape,
                                    xconv_error *err)
{
    return xconv_npy_write_stream_dtype(f, data, ndim, shape, XCONV_DTYPE_F32, err);
}

xconv_status xconv_npy_write_stream_dtype(FILE *f, const float *data, int ndim,
                                          const int64_t *shape, int64_t dtype, xconv_error *err)
{
    int64_t count = 0;
    xconv_status st = check_write_args("the stream", data, ndim, shape, &count, err);
    if (st)
        return st;
    if (dtype < XCONV_DTYPE_F32 || dtype > XCONV_DTYPE_BF16)
        return xconv_error_set(err, XCONV_ERR_INVALID, "dtype %lld has no .npy form",
                               (long long)dtype);
    char header[512];
    size_t hlen = build_header(header, sizeof header, ndim, shape, dtype);
    size_t size = (size_t)elem_size(dtype);
    void *stored = (void *)data;
    if (dtype != XCONV_DTYPE_F32 && !(stored = malloc(count ? (size_t)count * size : 1)))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the .npy data");
    if (dtype != XCONV_DTYPE_F32)
        xconv_dtype_from_f32(dtype, data, stored, (size_t)count);
    if (fwrite(header, 1, hlen, f) != hlen ||
        (count > 0 && fwrite(stored, size, (size_t)count, f) != (size_t)count) ||
        fflush(f) != 0)
        st = xconv_error_set(err, XCONV_ERR_IO, "writing the .npy data: %s", strerror(errno));
    if (stored != data)
        free(stored);
    return st;
}
