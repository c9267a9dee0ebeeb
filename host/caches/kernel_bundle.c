// SPDX-License-Identifier: MIT
// Kernel bundles: the compiled kernels of a cache folder in one file, for another machine with
// the same devices and drivers to import; versioned and checked whole before anything is stored
// (docs/guide/compile.md).
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caches/cache.h"
#include "core/contract.h"
#include "caches/programs.h"

#define BUNDLE_MAGIC "xconv-kernel-bundle "
#define BUNDLE_FORMAT 1
#define BUNDLE_MAX ((size_t)4 << 30)
#define NAME_LEN 20  // "<16 hex digits>.bin"

// ---------------------------------------------------------------------------------------------
// Names and keys

// Returns true when name is a stored binary's file name: 16 lowercase hex digits and ".bin".
static bool binary_name(const char *name, size_t len)
{
    if (len != NAME_LEN || memcmp(name + 16, ".bin", 4) != 0)
        return false;
    for (int i = 0; i < 16; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    return true;
}

// Writes into buf the lines every key of dev's binaries begins with (backend to compiler);
// returns their length, 0 when they do not fit.
static size_t device_prefix(const xconv_device *dev, char *buf, size_t len)
{
    if (!xconv_kernel_cache_key(dev, "", "", "", buf, len))
        return 0;
    char *cut = strstr(buf, "\nsource=");
    if (!cut)
        return 0;
    cut[1] = '\0';
    return (size_t)(cut + 1 - buf);
}

// Returns the device of devs whose binaries' keys begin as key (klen bytes) does, or -1.
static int device_of(xconv_device *const *devs, int ndevs, const char *key, size_t klen)
{
    char prefix[4096];
    for (int d = 0; d < ndevs; d++) {
        size_t n = device_prefix(devs[d], prefix, sizeof prefix);
        if (n > 0 && n <= klen && memcmp(prefix, key, n) == 0)
            return d;
    }
    return -1;
}

// Writes into buf the value of line `name=` of key (klen bytes), "?" when it has none.
static void key_line(const char *key, size_t klen, const char *name, char *buf, size_t len)
{
    size_t n = strlen(name);
    for (const char *p = key, *end = key + klen; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        if ((size_t)(nl - p) > n && memcmp(p, name, n) == 0 && p[n] == '=') {
            snprintf(buf, len, "%.*s", (int)(nl - p - (ptrdiff_t)n - 1), p + n + 1);
            return;
        }
        p = nl + 1;
    }
    snprintf(buf, len, "?");
}

// ---------------------------------------------------------------------------------------------
// Export

// A growing byte buffer.
typedef struct bytes {
    char *data;
    size_t len, cap;
    bool failed;
} bytes;

// Appends n bytes of p to b (b->failed without memory).
static void put(bytes *b, const void *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->len + n)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

// Orders file names.
static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

// Fills *names (NAME_LEN + 1 bytes each, sorted) with the stored binaries of folder; returns
// their count, -1 without memory.
static int list_binaries(const char *folder, char (**names)[NAME_LEN + 1])
{
    *names = NULL;
    DIR *d = opendir(folder);
    if (!d)
        return 0;
    int n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!binary_name(e->d_name, strlen(e->d_name)))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            char (*grown)[NAME_LEN + 1] = realloc(*names, (size_t)cap * sizeof *grown);
            if (!grown) {
                closedir(d);
                return -1;
            }
            *names = grown;
        }
        memcpy((*names)[n++], e->d_name, NAME_LEN + 1);  // binary_name: NAME_LEN and its NUL
    }
    closedir(d);
    if (n > 1)  // qsort of an empty list would be handed NULL
        qsort(*names, (size_t)n, sizeof **names, by_name);
    return n;
}

// Appends to b the entry of stored binary `name` of folder when it is whole and made for one of
// devs (any when ndevs is 0); returns true when it did.
static bool add_entry(bytes *b, const char *folder, const char *name, xconv_device *const *devs,
                      int ndevs)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    char *data = NULL;
    size_t len = 0, klen = 0;
    xconv_error err = {0};
    bool ok = xconv_file_read(path, BUNDLE_MAX, &data, &len, NULL, &err) == XCONV_OK &&
              xconv_kernel_file_check(data, len, &klen) &&
              (ndevs == 0 || device_of(devs, ndevs, data, klen) >= 0);
    if (ok) {
        char head[64];
        int n = snprintf(head, sizeof head, "file %s %zu\n", name, len);
        put(b, head, (size_t)n);
        put(b, data, len);
        put(b, "\n", 1);
    }
    free(data);
    return ok;
}

// Checks the arguments export and import share, naming fn (the caller) in the message.
static xconv_status check_args(const char *fn, const xconv_cache *cache,
                               xconv_device *const *devs, int ndevs, const char *path,
                               const int *count, xconv_error *err)
{
    if (xconv_arg_null(err, fn, "cache", !cache) || xconv_arg_null(err, fn, "path", !path) ||
        xconv_arg_null(err, fn, "count", !count))
        return XCONV_ERR_INVALID;
    if (ndevs < 0 || (ndevs > 0 && !devs))
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: devs is NULL or ndevs is %d", fn,
                               ndevs);
    for (int i = 0; i < ndevs; i++)
        if (!devs[i])
            return xconv_error_set(err, XCONV_ERR_INVALID, "%s: devs[%d] is NULL", fn, i);
    return XCONV_OK;
}

xconv_status xconv_cache_export_kernels(xconv_cache *cache, xconv_device *const *devs,
                                        int ndevs, const char *path, int *count,
                                        xconv_error *err)
{
    xconv_status checked = check_args(__func__, cache, devs, ndevs, path, count, err);
    if (checked != XCONV_OK)
        return checked;
    *count = 0;
    char folder[4096];
    if (!xconv_cache_path(cache, "kernels", folder, sizeof folder))
        return xconv_error_set(err, XCONV_ERR_IO, "cache folder name too long");
    char (*names)[NAME_LEN + 1] = NULL;
    int n = list_binaries(folder, &names);
    bytes body = {0};
    for (int i = 0; i < n; i++)
        *count += add_entry(&body, folder, names[i], devs, ndevs);
    free(names);
    if (n < 0 || body.failed) {
        free(body.data);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the bundle");
    }
    if (*count == 0) {
        free(body.data);
        return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "%s holds no compiled kernel%s",
                               folder, ndevs ? " of these devices" : "");
    }
    bytes out = {0};
    char head[256], tail[64];
    int hn = snprintf(head, sizeof head, BUNDLE_MAGIC "%d\nxconv=%s\nkernels=%s\ncount=%d\n\n",
                      BUNDLE_FORMAT, XCONV_VERSION, xconv_kernels_hash(), *count);
    put(&out, head, (size_t)hn);
    put(&out, body.data, body.len);
    free(body.data);
    int tn = out.failed ? 0 : snprintf(tail, sizeof tail, "sum=%016" PRIx64 "\n",
                                       xconv_hash64(out.data, out.len, XCONV_HASH_SEED));
    put(&out, tail, (size_t)tn);
    xconv_status st = out.failed ? xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory")
                                 : xconv_file_write_atomic(path, out.data, out.len, err);
    free(out.data);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Import

// One entry of a bundle being read: its file name and its bytes (inside the bundle's text).
typedef struct entry {
    char name[NAME_LEN + 1];
    const char *data;
    size_t len;
} entry;

// Returns the value of header line `name=` at *p (and moves *p past it), or NULL when the line
// is not there; the value is copied into buf.
static const char *header_line(const char **p, const char *end, const char *name, char *buf,
                               size_t len)
{
    size_t n = strlen(name);
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl || (size_t)(nl - *p) <= n || memcmp(*p, name, n) != 0 || (*p)[n] != '=')
        return NULL;
    snprintf(buf, len, "%.*s", (int)(nl - *p - (ptrdiff_t)n - 1), *p + n + 1);
    *p = nl + 1;
    return buf;
}

// Checks the bundle's first line and checksum; returns XCONV_OK and the end of its entries in
// *body_end, or XCONV_ERR_INVALID with why.
static xconv_status check_frame(const char *data, size_t len, const char **body_end,
                                xconv_error *err)
{
    size_t mlen = strlen(BUNDLE_MAGIC);
    if (len < mlen || memcmp(data, BUNDLE_MAGIC, mlen) != 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "not an xconv kernel bundle");
    int format = atoi(data + mlen);
    if (format != BUNDLE_FORMAT)
        return xconv_error_set(err, XCONV_ERR_INVALID, "stale: bundle format %d; this xconv "
                               "reads format %d", format, BUNDLE_FORMAT);
    // The last line is "sum=<16 hex digits>\n" over every byte before it.
    const size_t tail = 4 + 16 + 1;
    const char *t = data + len - tail;
    if (len < mlen + tail || memcmp(t, "sum=", 4) != 0 || data[len - 1] != '\n')
        return xconv_error_set(err, XCONV_ERR_INVALID, "damaged: its checksum line is missing "
                               "(cut short?)");
    char hex[17];
    memcpy(hex, t + 4, 16);
    hex[16] = '\0';
    char *stop = NULL;
    uint64_t sum = strtoull(hex, &stop, 16);
    if (*stop || sum != xconv_hash64(data, (size_t)(t - data), XCONV_HASH_SEED))
        return xconv_error_set(err, XCONV_ERR_INVALID, "damaged: its checksum does not match "
                               "its contents");
    *body_end = t;
    return XCONV_OK;
}

// Reads the header (xconv version, kernel sources, count) at *p, moving past it; returns
// XCONV_OK and the count, or XCONV_ERR_INVALID when the bundle is stale or malformed.
static xconv_status read_header(const char **p, const char *end, int *count, xconv_error *err)
{
    char version[64], kernels[64], n[32];
    *p = memchr(*p, '\n', (size_t)(end - *p));
    if (!*p)
        return xconv_error_set(err, XCONV_ERR_INVALID, "damaged: no header");
    (*p)++;
    if (!header_line(p, end, "xconv", version, sizeof version) ||
        !header_line(p, end, "kernels", kernels, sizeof kernels) ||
        !header_line(p, end, "count", n, sizeof n) || *p >= end || **p != '\n')
        return xconv_error_set(err, XCONV_ERR_INVALID, "damaged: its header is malformed");
    (*p)++;
    if (strcmp(version, XCONV_VERSION) != 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "stale: made by xconv %s; this is xconv "
                               "%s", version, XCONV_VERSION);
    if (strcmp(kernels, xconv_kernels_hash()) != 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "stale: made from other kernel sources "
                               "(kernels %s; these are %s)", kernels, xconv_kernels_hash());
    *count = atoi(n);
    if (*count <= 0 || *count > 1000000)
        return xconv_error_set(err, XCONV_ERR_INVALID, "damaged: count %s", n);
    return XCONV_OK;
}

// Reads the next entry at *p into *e, moving past it; returns false when it is malformed.
static bool read_entry(const char **p, const char *end, entry *e)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl || nl - *p < 6 + NAME_LEN + 2 || memcmp(*p, "file ", 5) != 0 ||
        !binary_name(*p + 5, NAME_LEN) || (*p)[5 + NAME_LEN] != ' ')
        return false;
    memcpy(e->name, *p + 5, NAME_LEN);
    e->name[NAME_LEN] = '\0';
    char *stop = NULL;
    unsigned long long len = strtoull(*p + 6 + NAME_LEN, &stop, 10);
    if (stop != nl || len == 0 || len > (unsigned long long)(end - nl - 1) - 1)
        return false;
    e->data = nl + 1;
    e->len = (size_t)len;
    if (e->data[e->len] != '\n')
        return false;
    *p = e->data + e->len + 1;
    return true;
}

// Writes into buf (len bytes) the devices of devs as their binaries' keys name them, for a
// message: "'sm_90' driver any compiler 'nvrtc 13.0 ...'; ...", or "none".
static void describe_devices(xconv_device *const *devs, int ndevs, char *buf, size_t len)
{
    char prefix[4096], device[256], driver[128], compiler[256];
    size_t used = 0;
    snprintf(buf, len, "none");
    for (int d = 0; d < ndevs && used < len; d++) {
        size_t n = device_prefix(devs[d], prefix, sizeof prefix);
        key_line(prefix, n, "device", device, sizeof device);
        key_line(prefix, n, "driver", driver, sizeof driver);
        key_line(prefix, n, "compiler", compiler, sizeof compiler);
        used += (size_t)snprintf(buf + used, len - used, "%s'%s' driver %s compiler '%s'",
                                 d ? "; " : "", device, driver, compiler);
    }
}

// Checks that key (klen bytes, for device dev) is the key dev looks up for its source and
// options with this xconv's kernel text: a bundle's entry for other text would never be used.
// Returns XCONV_OK or XCONV_ERR_INVALID naming the source.
static xconv_status check_text(const char *name, const char *key, size_t klen,
                               const xconv_device *dev, xconv_error *err)
{
    char source[64], options[4096], hash[32];
    key_line(key, klen, "source", source, sizeof source);
    key_line(key, klen, "options", options, sizeof options);
    key_line(key, klen, "source_hash", hash, sizeof hash);
    const char *text = xconv_kernel_source(source);
    if (!text)
        return xconv_error_set(err, XCONV_ERR_INVALID, "stale: kernel %s is of source %s, "
                               "which this xconv does not have", name, source);
    char *own = malloc(klen + 4096);
    if (!own)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
    bool same = xconv_kernel_cache_key(dev, source, text, options, own, klen + 4096) &&
                strlen(own) == klen && memcmp(own, key, klen) == 0;
    char mine[32];
    key_line(own, strlen(own), "source_hash", mine, sizeof mine);
    free(own);
    if (same)
        return XCONV_OK;
    return xconv_error_set(err, XCONV_ERR_INVALID, "stale: kernel %s was compiled from other "
                           "text of %s.cl (source_hash %s; this xconv's is %s)", name, source,
                           hash, mine);
}

// Checks entry e: a whole stored file, named by its key's hash, for one of devs, of this xconv's
// kernel text. Returns XCONV_OK or XCONV_ERR_INVALID with why.
static xconv_status check_entry(const entry *e, xconv_device *const *devs, int ndevs,
                                xconv_error *err)
{
    size_t klen = 0;
    if (!xconv_kernel_file_check(e->data, e->len, &klen))
        return xconv_error_set(err, XCONV_ERR_INVALID, "damaged: kernel %s is not whole",
                               e->name);
    char *key = malloc(klen + 1);
    if (!key)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
    memcpy(key, e->data, klen);
    key[klen] = '\0';
    char name[NAME_LEN + 1];
    snprintf(name, sizeof name, "%016" PRIx64 ".bin", xconv_hash64(key, klen, XCONV_HASH_SEED));
    xconv_status st = XCONV_OK;
    int d = -1;
    if (strcmp(name, e->name) != 0) {
        st = xconv_error_set(err, XCONV_ERR_INVALID, "damaged: kernel %s is named for another "
                             "key", e->name);
    } else if ((d = device_of(devs, ndevs, key, klen)) < 0) {
        char device[256], driver[128], compiler[256], given[1024];
        key_line(key, klen, "device", device, sizeof device);
        key_line(key, klen, "driver", driver, sizeof driver);
        key_line(key, klen, "compiler", compiler, sizeof compiler);
        describe_devices(devs, ndevs, given, sizeof given);
        st = xconv_error_set(err, XCONV_ERR_INVALID, "foreign: it holds kernels for device "
                             "'%s', driver %s, compiler '%s', which no device given here has "
                             "(given: %s)", device, driver, compiler, given);
    } else {
        st = check_text(e->name, key, klen, devs[d], err);
    }
    free(key);
    return st;
}

// Stores the n checked entries in cache's kernels folder, each file replaced atomically.
static xconv_status store_entries(xconv_cache *cache, const entry *entries, int n,
                                  xconv_error *err)
{
    char folder[4096], path[4200];
    if (!xconv_cache_path(cache, "kernels", folder, sizeof folder))
        return xconv_error_set(err, XCONV_ERR_IO, "cache folder name too long");
    xconv_status st = xconv_mkdirs(folder, err);
    for (int i = 0; i < n && st == XCONV_OK; i++) {
        snprintf(path, sizeof path, "%s/%s", folder, entries[i].name);
        st = xconv_file_write_atomic(path, entries[i].data, entries[i].len, err);
    }
    return st;
}

xconv_status xconv_cache_import_kernels(xconv_cache *cache, xconv_device *const *devs,
                                        int ndevs, const char *path, int *count,
                                        xconv_error *err)
{
    xconv_status checked = check_args(__func__, cache, devs, ndevs, path, count, err);
    if (checked != XCONV_OK)
        return checked;
    *count = 0;
    char *data = NULL;
    size_t len = 0;
    xconv_status st = xconv_file_read(path, BUNDLE_MAX, &data, &len, NULL, err);
    const char *p = data, *end = NULL;
    int n = 0;
    if (st == XCONV_OK)
        st = check_frame(data, len, &end, err);
    if (st == XCONV_OK)
        st = read_header(&p, end, &n, err);
    entry *entries = st == XCONV_OK ? calloc((size_t)n, sizeof *entries) : NULL;
    if (st == XCONV_OK && !entries)
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
    for (int i = 0; i < n && st == XCONV_OK; i++) {
        if (!read_entry(&p, end, &entries[i]))
            st = xconv_error_set(err, XCONV_ERR_INVALID, "damaged: entry %d of %d is "
                                 "malformed", i + 1, n);
        else
            st = check_entry(&entries[i], devs, ndevs, err);
    }
    if (st == XCONV_OK && p != end)
        st = xconv_error_set(err, XCONV_ERR_INVALID, "damaged: bytes after its %d entries", n);
    if (st == XCONV_OK)
        st = store_entries(cache, entries, n, err);
    if (st == XCONV_OK)
        *count = n;
    free(entries);
    free(data);
    return st == XCONV_OK ? st : xconv_error_prefix(err, "bundle %s", path);
}
