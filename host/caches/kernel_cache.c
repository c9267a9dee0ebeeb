// SPDX-License-Identifier: MIT
// The compiled-kernel cache: one file per program under <cache>/kernels/, named by the hash of
// its key and holding the whole key, the payload's length and checksum, then the payload the
// backend gave (docs/find.md, "Compiled kernels").
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/contract.h"
#include "caches/cache.h"
#include "caches/kernel_cache.h"

#define MAGIC "xconv-kernel-binary 1\n"
#define MAX_BINARY_BYTES ((size_t)256 << 20)
#define KEY_MAX 8192

// ---------------------------------------------------------------------------------------------
// Keys and files

bool xconv_kernel_cache_usable(const xconv_device *dev)
{
    return dev->cache && !(dev->cache->flags & XCONV_CACHE_NO_KERNELS) &&
           dev->be->program_binary && dev->be->program_load;
}

bool xconv_kernel_cache_key(const xconv_device *dev, const char *source, const char *text,
                            const char *options, char *buf, size_t len)
{
    const xconv_device_info *info = &dev->info;
    char compiler[256] = "";
    if (dev->be->compiler_id)
        dev->be->compiler_id(dev->ctx, compiler, sizeof compiler);
    const char *dialect = xconv_kernel_dialect();
    uint64_t h = xconv_hash64(dialect, strlen(dialect) + 1, XCONV_HASH_SEED);
    h = xconv_hash64(text, strlen(text), h);
    int n = snprintf(buf, len,
                     MAGIC "backend=%s\nplatform=%s\ndevice=%s\ndriver=%s\nversion=%s\n"
                     "cc=%d.%d\ncompiler=%s\nsource=%s\nsource_hash=%016" PRIx64 "\n"
                     "source_bytes=%zu\noptions=%s\n",
                     xconv_backend_name(info->backend), info->platform, info->name,
                     info->driver, info->version, info->cc_major, info->cc_minor, compiler,
                     source, h, strlen(text), options ? options : "");
    return n > 0 && (size_t)n < len;
}

bool xconv_kernel_cache_file(const xconv_device *dev, const char *key, char *buf, size_t len)
{
    uint64_t h = xconv_hash64(key, strlen(key), XCONV_HASH_SEED);
    return (size_t)snprintf(buf, len, "%s/kernels/%016" PRIx64 ".bin", dev->cache->dir, h) < len;
}

// Returns the payload of a stored file `data` (len bytes) whose key is its first klen bytes, in
// *payload and *bytes; false when the length or the checksum does not match.
static bool parse_tail(const char *data, size_t len, size_t klen, const char **payload,
                       size_t *bytes)
{
    if (len < klen)
        return false;
    const char *p = data + klen, *end = data + len;
    char *stop = NULL;
    if (strncmp(p, "bytes=", 6) != 0 || p[6] < '0' || p[6] > '9')
        return false;
    unsigned long long n = strtoull(p + 6, &stop, 10);
    if (strncmp(stop, "\nsum=", 5) != 0)
        return false;
    p = stop + 5;
    unsigned long long sum = strtoull(p, &stop, 16);
    if (stop != p + 16 || strncmp(stop, "\n\n", 2) != 0)
        return false;
    p = stop + 2;
    if ((size_t)(end - p) != n)
        return false;
    if (xconv_hash64(p, (size_t)n, XCONV_HASH_SEED) != (uint64_t)sum)
        return false;
    *payload = p;
    *bytes = (size_t)n;
    return true;
}

// Returns the payload of a stored file `data` (len bytes) whose key must be `key`, in *payload
// and *bytes; false when the key, the length or the checksum does not match.
static bool parse_file(const char *data, size_t len, const char *key, const char **payload,
                       size_t *bytes)
{
    size_t klen = strlen(key);
    if (len < klen || memcmp(data, key, klen) != 0)
        return false;
    return parse_tail(data, len, klen, payload, bytes);
}

bool xconv_kernel_file_check(const char *data, size_t len, size_t *key_len)
{
    static const char magic[] = MAGIC;
    const char *end = data + len, *p = data;
    if (len < sizeof magic - 1 || memcmp(data, magic, sizeof magic - 1) != 0)
        return false;
    while (p < end && (size_t)(end - p) > 6 && strncmp(p, "bytes=", 6) != 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return false;
        p = nl + 1;
    }
    const char *payload = NULL;
    size_t bytes = 0;
    *key_len = (size_t)(p - data);
    return parse_tail(data, len, *key_len, &payload, &bytes);
}

// Counts a reject of cache (a binary that did not match or load).
static void count(xconv_cache *cache, int *field)
{
    pthread_mutex_lock(&cache->mutex);
    (*field)++;
    pthread_mutex_unlock(&cache->mutex);
}

// ---------------------------------------------------------------------------------------------
// Getting and putting

xconv_status xconv_kernel_cache_get(xconv_device *dev, const char *source, const char *text,
                                    const char *options, xconv_backend_program **out)
{
    *out = NULL;
    char key[KEY_MAX], path[4096];
    xconv_cache *cache = dev->cache;
    if (!xconv_kernel_cache_key(dev, source, text, options, key, sizeof key) ||
        !xconv_kernel_cache_file(dev, key, path, sizeof path))
        return XCONV_ERR_NOT_FOUND;
    xconv_error err;
    char *data = NULL;
    size_t len = 0;
    xconv_status st = xconv_file_read(path, MAX_BINARY_BYTES + KEY_MAX, &data, &len, NULL, &err);
    if (st != XCONV_OK) {
        count(cache, &cache->stats.kernel_misses);
        free(data);
        return XCONV_ERR_NOT_FOUND;
    }
    const char *payload = NULL;
    size_t bytes = 0;
    st = parse_file(data, len, key, &payload, &bytes)
             ? dev->be->program_load(dev->ctx, payload, bytes, options, out, &err)
             : XCONV_ERR_NOT_FOUND;
    free(data);
    if (st != XCONV_OK) {
        *out = NULL;
        count(cache, &cache->stats.kernel_rejects);
        return XCONV_ERR_NOT_FOUND;
    }
    count(cache, &cache->stats.kernel_hits);
    return XCONV_OK;
}

void xconv_kernel_cache_put(xconv_device *dev, const char *source, const char *text,
                            const char *options, xconv_backend_program *prog)
{
    char key[KEY_MAX], path[4096], folder[4096];
    xconv_cache *cache = dev->cache;
    void *payload = NULL;
    size_t bytes = 0;
    xconv_error err;
    if (!xconv_kernel_cache_key(dev, source, text, options, key, sizeof key) ||
        !xconv_kernel_cache_file(dev, key, path, sizeof path) ||
        !xconv_cache_path(cache, "kernels", folder, sizeof folder) ||
        dev->be->program_binary(dev->ctx, prog, &payload, &bytes, &err) != XCONV_OK ||
        bytes == 0 || bytes > MAX_BINARY_BYTES) {
        free(payload);
        return;  // nothing to keep: the next process builds from source again
    }
    size_t klen = strlen(key);
    char tail[96];
    int tlen = snprintf(tail, sizeof tail, "bytes=%zu\nsum=%016" PRIx64 "\n\n", bytes,
                        xconv_hash64(payload, bytes, XCONV_HASH_SEED));
    char *file = malloc(klen + (size_t)tlen + bytes);
    xconv_status st = file ? xconv_mkdirs(folder, &err)
                           : xconv_error_set(&err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
    if (st == XCONV_OK) {
        memcpy(file, key, klen);
        memcpy(file + klen, tail, (size_t)tlen);
        memcpy(file + klen + (size_t)tlen, payload, bytes);
        st = xconv_file_write_atomic(path, file, klen + (size_t)tlen + bytes, &err);
    }
    free(file);
    free(payload);
    if (st != XCONV_OK) {
        pthread_mutex_lock(&cache->mutex);
        static const char what[] = "compiled kernels are not kept";
        if (!strstr(cache->warnings, what))  // once is enough
            xconv_cache_warn(cache, "%s: %s", what, err.msg);
        pthread_mutex_unlock(&cache->mutex);
    }
}

xconv_status xconv_cache_clear_kernels(xconv_cache *cache, int *removed, xconv_error *err)
{
    if (removed)
        *removed = 0;
    if (XCONV_NULL_ARG(err, cache))
        return XCONV_ERR_INVALID;
    char folder[4096], path[4600];
    if (!xconv_cache_path(cache, "kernels", folder, sizeof folder))
        return xconv_error_set(err, XCONV_ERR_IO, "cache folder name too long");
    DIR *d = opendir(folder);
    if (!d)
        return XCONV_OK;  // nothing stored yet
    xconv_status st = XCONV_OK;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        bool ours = (n > 4 && strcmp(e->d_name + n - 4, ".bin") == 0) ||
                    strstr(e->d_name, ".bin.tmp.") != NULL;
        if (!ours)
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        if (unlink(path) == 0) {
            if (removed && strstr(e->d_name, ".tmp.") == NULL)
                (*removed)++;
        } else {
            st = xconv_error_set(err, XCONV_ERR_IO, "cannot remove %s", path);
        }
    }
    closedir(d);
    return st;
}

const xconv_program_store xconv_kernel_cache_store = {
    .usable = xconv_kernel_cache_usable,
    .get = xconv_kernel_cache_get,
    .put = xconv_kernel_cache_put,
};
