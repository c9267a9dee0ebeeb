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
#ifdef XCONV_HAVE_CUDA
#include "../../cuda/nvrtc_compile.h"
#endif

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

// Writes into buf what names the compiler of dev's binaries beyond its driver: the backend's
// word, or NVRTC's for a CUDA target profile (which has no backend); "" when there is none.
static void compiler_of(const xconv_device *dev, char *buf, size_t len)
{
    buf[0] = '\0';
    if (dev->be && dev->be->compiler_id)
        dev->be->compiler_id(dev->ctx, buf, len);
#ifdef XCONV_HAVE_CUDA
    else if (!dev->be && dev->info.backend == XCONV_BACKEND_CUDA)
        xconv_nvrtc_compiler_id(buf, len);
#endif
}

// Writes into buf the key lines that name the device dev's binaries are for. An OpenCL binary
// is its driver's, for its device. A CUDA image (CUBIN, or PTX) is NVRTC's, for an
// architecture: it loads on every device of that compute capability whatever the driver (one
// too old for it refuses it, and a build replaces it), so the key names the architecture, and
// a CUDA target profile's key is the one its devices look up.
static int device_lines(const xconv_device_info *info, char *buf, size_t len)
{
    if (info->backend == XCONV_BACKEND_CUDA)
        return snprintf(buf, len, "platform=CUDA\ndevice=sm_%d%d\ndriver=any\n"
                        "version=compute capability %d.%d\n", info->cc_major, info->cc_minor,
                        info->cc_major, info->cc_minor);
    return snprintf(buf, len, "platform=%s\ndevice=%s\ndriver=%s\nversion=%s\n",
                    info->platform, info->name, info->driver, info->version);
}

bool xconv_kernel_cache_key(const xconv_device *dev, const char *source, const char *text,
                            const char *options, char *buf, size_t len)
{
    const xconv_device_info *info = &dev->info;
    char compiler[256], device[1024];
    compiler_of(dev, compiler, sizeof compiler);
    int d = device_lines(info, device, sizeof device);
    const char *dialect = xconv_kernel_dialect();
    uint64_t h = xconv_hash64(dialect, strlen(dialect) + 1, XCONV_HASH_SEED);
    h = xconv_hash64(text, strlen(text), h);
    int n = snprintf(buf, len,
                     MAGIC "backend=%s\n%s"
                     "cc=%d.%d\ncompiler=%s\nsource=%s\nsource_hash=%016" PRIx64 "\n"
                     "source_bytes=%zu\noptions=%s\n",
                     xconv_backend_name(info->backend), device, info->cc_major,
                     info->cc_minor, compiler, source, h, strlen(text), options ? options : "");
    return d > 0 && (size_t)d < sizeof device && n > 0 && (size_t)n < len;
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
    xconv_error err = {0};
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

// Stores payload (bytes) under key in file path of cache's kernels folder, replaced atomically.
static xconv_status store(xconv_cache *cache, const char *key, const char *path,
                          const void *payload, size_t bytes, xconv_error *err)
{
    char folder[4096];
    if (!xconv_cache_path(cache, "kernels", folder, sizeof folder))
        return xconv_error_set(err, XCONV_ERR_IO, "cache folder name too long");
    size_t klen = strlen(key);
    char tail[96];
    int tlen = snprintf(tail, sizeof tail, "bytes=%zu\nsum=%016" PRIx64 "\n\n", bytes,
                        xconv_hash64(payload, bytes, XCONV_HASH_SEED));
    char *file = malloc(klen + (size_t)tlen + bytes);
    xconv_status st = file ? xconv_mkdirs(folder, err)
                           : xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
    if (st == XCONV_OK) {
        memcpy(file, key, klen);
        memcpy(file + klen, tail, (size_t)tlen);
        memcpy(file + klen + (size_t)tlen, payload, bytes);
        st = xconv_file_write_atomic(path, file, klen + (size_t)tlen + bytes, err);
    }
    free(file);
    return st;
}

void xconv_kernel_cache_put(xconv_device *dev, const char *source, const char *text,
                            const char *options, xconv_backend_program *prog)
{
    char key[KEY_MAX], path[4096];
    xconv_cache *cache = dev->cache;
    void *payload = NULL;
    size_t bytes = 0;
    xconv_error err = {0};
    if (!xconv_kernel_cache_key(dev, source, text, options, key, sizeof key) ||
        !xconv_kernel_cache_file(dev, key, path, sizeof path) ||
        dev->be->program_binary(dev->ctx, prog, &payload, &bytes, &err) != XCONV_OK ||
        bytes == 0 || bytes > MAX_BINARY_BYTES) {
        free(payload);
        return;  // nothing to keep: the next process builds from source again
    }
    xconv_status st = store(cache, key, path, payload, bytes, &err);
    free(payload);
    if (st != XCONV_OK) {
        pthread_mutex_lock(&cache->mutex);
        static const char what[] = "compiled kernels are not kept";
        if (!strstr(cache->warnings, what))  // once is enough
            xconv_cache_warn(cache, "%s: %s", what, err.msg);
        pthread_mutex_unlock(&cache->mutex);
    }
}

// Returns true when path holds a whole stored file of key.
static bool stored(const char *path, const char *key)
{
    char *data = NULL;
    size_t len = 0, bytes = 0;
    const char *payload = NULL;
    xconv_error err;
    bool whole = xconv_file_read(path, MAX_BINARY_BYTES + KEY_MAX, &data, &len, NULL, &err) ==
                     XCONV_OK &&
                 parse_file(data, len, key, &payload, &bytes);
    free(data);
    return whole;
}

xconv_status xconv_kernel_cache_compile(xconv_device *dev, const char *source, const char *text,
                                        const char *options, xconv_error *err)
{
    if (dev->be || dev->info.backend != XCONV_BACKEND_CUDA || !dev->cache ||
        (dev->cache->flags & XCONV_CACHE_NO_KERNELS))
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: only a CUDA target profile with a "
                               "cache that keeps kernels compiles without its device",
                               dev->info.name);
#ifdef XCONV_HAVE_CUDA
    char key[KEY_MAX], path[4096];
    if (!xconv_kernel_cache_key(dev, source, text, options, key, sizeof key) ||
        !xconv_kernel_cache_file(dev, key, path, sizeof path))
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: its key is too long", source);
    if (stored(path, key))
        return XCONV_OK;
    xconv_nvrtc_image img;
    xconv_status st = xconv_nvrtc_compile(text, options, dev->info.cc_major, dev->info.cc_minor,
                                          true, &img, err);
    // As the CUDA backend keeps it: a CUBIN as it is, PTX with the NUL the driver needs.
    if (st == XCONV_OK)
        st = store(dev->cache, key, path, img.data, img.is_cubin ? img.len : img.len + 1, err);
    xconv_nvrtc_image_free(&img);
    return st;
#else
    (void)source, (void)text, (void)options;
    return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "built without the CUDA backend");
#endif
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

// Whether dev is a CUDA target profile whose programs are compiled into its cache (through
// NVRTC, without a GPU), to be exported as a bundle for its devices.
static bool compiles_to_cache(const xconv_device *dev)
{
    return !dev->be && dev->info.backend == XCONV_BACKEND_CUDA && dev->cache &&
           !(dev->cache->flags & XCONV_CACHE_NO_KERNELS);
}

const xconv_program_store xconv_kernel_cache_store = {
    .usable = xconv_kernel_cache_usable,
    .get = xconv_kernel_cache_get,
    .put = xconv_kernel_cache_put,
    .compiles = compiles_to_cache,
    .compile = xconv_kernel_cache_compile,
};
