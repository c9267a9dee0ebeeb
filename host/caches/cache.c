// SPDX-License-Identifier: MIT
// The cache on disk: opening its folder, attaching it to devices, its warnings and counts, the
// kernel sources' hash, and the file helpers (whole reads, atomic replacement) its parts share.
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/contract.h"
#include "caches/cache.h"
#include "core/device.h"
#include "caches/find_db.h"
#include "caches/programs.h"

// ---------------------------------------------------------------------------------------------
// Hashing

uint64_t xconv_hash64(const void *data, size_t len, uint64_t h)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static char kernels_hash[24];
static pthread_once_t kernels_hash_once = PTHREAD_ONCE_INIT;

// Hashes the dialect and every embedded source with its name (each text with its NUL, so no
// two different lists hash the same by shifting bytes between neighbours).
static void kernels_hash_fill(void)
{
    const char *dialect = xconv_kernel_dialect();
    uint64_t h = xconv_hash64(dialect, strlen(dialect) + 1, XCONV_HASH_SEED);
    for (const char *const *name = xconv_kernel_source_names(); *name; name++) {
        const char *text = xconv_kernel_source(*name);
        h = xconv_hash64(*name, strlen(*name) + 1, h);
        h = xconv_hash64(text, strlen(text) + 1, h);
    }
    snprintf(kernels_hash, sizeof kernels_hash, "%016llx", (unsigned long long)h);
}

const char *xconv_kernels_hash(void)
{
    pthread_once(&kernels_hash_once, kernels_hash_fill);
    return kernels_hash;
}

// ---------------------------------------------------------------------------------------------
// Files

void xconv_file_stamp_get(const char *path, xconv_file_stamp *out)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    if (stat(path, &st) != 0)
        return;
    *out = (xconv_file_stamp){.exists = true, .dev = st.st_dev, .ino = st.st_ino,
                              .size = st.st_size, .mtime = st.st_mtim};
}

bool xconv_file_stamp_same(const xconv_file_stamp *a, const xconv_file_stamp *b)
{
    if (!a->exists || !b->exists)
        return a->exists == b->exists;
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

xconv_status xconv_file_read(const char *path, size_t max, char **data, size_t *len,
                             xconv_file_stamp *stamp, xconv_error *err)
{
    *data = NULL;
    *len = 0;
    if (stamp)
        memset(stamp, 0, sizeof *stamp);
    // O_NONBLOCK: a FIFO planted in the cache is refused below, not waited on.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return xconv_error_set(err, errno == ENOENT ? XCONV_ERR_NOT_FOUND : XCONV_ERR_IO,
                               "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        close(fd);
        return xconv_error_set(err, XCONV_ERR_IO, "%s is not a regular file of at most %zu "
                               "bytes", path, max);
    }
    if (stamp)
        *stamp = (xconv_file_stamp){.exists = true, .dev = st.st_dev, .ino = st.st_ino,
                                    .size = st.st_size, .mtime = st.st_mtim};
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 1);
    if (!buf) {
        close(fd);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for %s", path);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return XCONV_OK;
}

// Writes all len bytes of data to fd; returns false on a failure (errno set).
static bool write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

xconv_status xconv_file_write_atomic(const char *path, const void *data, size_t len,
                                     xconv_error *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= sizeof tmp)
        return xconv_error_set(err, XCONV_ERR_IO, "path too long: %s", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    bool ok = write_all(fd, data, len) && fsync(fd) == 0;
    int saved = errno;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return XCONV_OK;
    saved = ok ? errno : saved;
    unlink(tmp);
    return xconv_error_set(err, XCONV_ERR_IO, "cannot write %s: %s", path, strerror(saved));
}

xconv_status xconv_mkdirs(const char *path, xconv_error *err)
{
    char buf[4096];
    if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf || !buf[0])
        return xconv_error_set(err, XCONV_ERR_IO, "bad folder name '%s'", path);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return xconv_error_set(err, XCONV_ERR_IO, "cannot make folder %s: %s", buf,
                                   strerror(errno));
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return xconv_error_set(err, XCONV_ERR_IO, "%s is not a folder", path);
    return XCONV_OK;
}

bool xconv_cache_path(const xconv_cache *cache, const char *name, char *buf, size_t len)
{
    return (size_t)snprintf(buf, len, "%s/%s", cache->dir, name) < len;
}

void xconv_utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

// ---------------------------------------------------------------------------------------------
// The handle

// Makes the find-db read-only, with a warning, when its lock file is there and not a regular
// file (a folder, a FIFO): no store could take the lock.
static void check_lock(xconv_cache *cache)
{
    char path[4096];
    struct stat st;
    if ((cache->flags & XCONV_CACHE_NO_FIND_DB) ||
        !xconv_cache_path(cache, XCONV_FIND_DB_FILE ".lock", path, sizeof path) ||
        lstat(path, &st) != 0 || S_ISREG(st.st_mode))
        return;
    cache->flags |= XCONV_CACHE_DB_READ_ONLY;
    xconv_cache_warn(cache, "%s is not a regular file (%s): the find-db is read but cannot be "
                     "written (remove it)", path, S_ISDIR(st.st_mode) ? "a folder" : "not a file");
}

xconv_cache *xconv_cache_open(const char *dir, unsigned flags, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, dir))
        return NULL;
    if (!*dir) {
        xconv_error_set(err, XCONV_ERR_INVALID, "cache: no folder given");
        return NULL;
    }
    unsigned known = XCONV_CACHE_NO_KERNELS | XCONV_CACHE_NO_FIND_DB | XCONV_CACHE_TRUST_STALE |
                     XCONV_CACHE_DB_READ_ONLY;
    if (flags & ~known) {
        xconv_error_set(err, XCONV_ERR_INVALID, "cache: unknown flags 0x%x", flags & ~known);
        return NULL;
    }
    if (xconv_mkdirs(dir, err) != XCONV_OK)
        return NULL;
    if (access(dir, R_OK | W_OK | X_OK) != 0) {
        xconv_error_set(err, XCONV_ERR_IO, "cache folder %s is not writable: %s", dir,
                        strerror(errno));
        return NULL;
    }
    xconv_cache *cache = calloc(1, sizeof *cache);
    if (cache)
        cache->dir = strdup(dir);
    if (!cache || !cache->dir) {
        free(cache);
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a cache");
        return NULL;
    }
    size_t n = strlen(cache->dir);
    while (n > 1 && cache->dir[n - 1] == '/')
        cache->dir[--n] = '\0';
    cache->flags = flags;
    pthread_mutex_init(&cache->mutex, NULL);
    check_lock(cache);
    return cache;
}

bool xconv_cache_default_dir(const char *cache_dir, const char *xdg_cache_home, const char *home,
                             char *buf, size_t len)
{
    if (!buf || len == 0)
        return false;
    if (cache_dir && (!*cache_dir || !strcmp(cache_dir, "none")))
        return false;
    int n = cache_dir                          ? snprintf(buf, len, "%s", cache_dir)
            : xdg_cache_home && *xdg_cache_home ? snprintf(buf, len, "%s/xconv", xdg_cache_home)
            : home && *home                     ? snprintf(buf, len, "%s/.cache/xconv", home)
                                                : -1;
    return n > 0 && (size_t)n < len;
}

xconv_cache *xconv_cache_open_default(const char *cache_dir, const char *xdg_cache_home,
                                      const char *home, unsigned flags, xconv_error *err)
{
    char dir[4096];
    if (!xconv_cache_default_dir(cache_dir, xdg_cache_home, home, dir, sizeof dir)) {
        if (cache_dir)
            xconv_error_set(err, XCONV_ERR_NOT_FOUND,
                            "no default cache folder: XCONV_CACHE_DIR is '%s'", cache_dir);
        else
            xconv_error_set(err, XCONV_ERR_NOT_FOUND, "no default cache folder: neither "
                                                      "XDG_CACHE_HOME nor HOME is given");
        return NULL;
    }
    return xconv_cache_open(dir, flags, err);
}

void xconv_cache_close(xconv_cache *cache)
{
    if (!cache)
        return;
    xconv_find_records_free(cache->db, cache->db_count);
    pthread_mutex_destroy(&cache->mutex);
    free(cache->dir);
    free(cache);
}

const char *xconv_cache_dir(const xconv_cache *cache)
{
    return cache ? cache->dir : NULL;
}

unsigned xconv_cache_flags(const xconv_cache *cache)
{
    return cache ? cache->flags : 0;
}

void xconv_cache_get_stats(xconv_cache *cache, xconv_cache_stats *out)
{
    if (!out)
        return;
    if (!cache) {
        memset(out, 0, sizeof *out);
        return;
    }
    pthread_mutex_lock(&cache->mutex);
    *out = cache->stats;
    pthread_mutex_unlock(&cache->mutex);
}

void xconv_cache_warn(xconv_cache *cache, const char *fmt, ...)
{
    size_t used = strlen(cache->warnings);
    if (used + 2 >= sizeof cache->warnings)
        return;  // full: the first ones say enough
    char line[sizeof cache->warnings];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line - used - 1, fmt, ap);
    va_end(ap);
    if (strstr(cache->warnings, line))
        return;  // said already (each lookup of an unreadable find-db would say it again)
    size_t n = strlen(line);  // at most the room left less 2: the vsnprintf above cut it so
    memcpy(cache->warnings + used, line, n);
    cache->warnings[used + n] = '\n';
    cache->warnings[used + n + 1] = '\0';
    cache->nwarnings++;
}

int xconv_cache_take_warnings(xconv_cache *cache, char *buf, size_t len)
{
    if (!cache || !buf)
        return -1;
    pthread_mutex_lock(&cache->mutex);
    int n = cache->nwarnings;
    if (len)
        snprintf(buf, len, "%s", cache->warnings);
    cache->warnings[0] = '\0';
    cache->nwarnings = 0;
    pthread_mutex_unlock(&cache->mutex);
    return n;
}

void xconv_device_set_cache(xconv_device *dev, xconv_cache *cache)
{
    if (!dev)
        return;
    dev->cache = cache;
}
