// SPDX-License-Identifier: MIT
// The cache on disk (internal header): the handle, its lock and warnings, and the file helpers
// the compiled-kernel cache and the find-db share.
#ifndef XCONV_CACHE_H
#define XCONV_CACHE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <xconv/xconv.h>

// Who a file on disk is: a changed stamp means another process replaced it.
typedef struct xconv_file_stamp {
    bool exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} xconv_file_stamp;

struct xconv_cache {
    char *dir;
    unsigned flags;
    pthread_mutex_t mutex;       // guards every field below (devices on two threads share it)
    xconv_cache_stats stats;
    char warnings[4096];         // lines not yet taken by xconv_cache_take_warnings
    int nwarnings;
    xconv_find_record *db;       // the find-db as last read (host/caches/find_db.c)
    int db_count;
    xconv_file_stamp db_stamp;   // the file those records came from
    bool db_loaded;
};

// Appends a warning line to cache (the caller holds cache->mutex).
void xconv_cache_warn(xconv_cache *cache, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

// Returns the 64-bit FNV-1a hash of len bytes of data, continuing from h (start with
// XCONV_HASH_SEED).
#define XCONV_HASH_SEED 0xcbf29ce484222325ull
uint64_t xconv_hash64(const void *data, size_t len, uint64_t h);

// Writes path's stamp into *out (exists false when it is missing).
void xconv_file_stamp_get(const char *path, xconv_file_stamp *out);

// Returns true when two stamps name the same file contents.
bool xconv_file_stamp_same(const xconv_file_stamp *a, const xconv_file_stamp *b);

// Reads the whole file at path (at most max bytes) into a new NUL-terminated buffer *data of
// *len bytes, and (when stamp is not NULL) the stamp of the file it read. Returns XCONV_OK,
// XCONV_ERR_NOT_FOUND when it does not exist, XCONV_ERR_IO when it cannot be read or is larger
// than max, or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_file_read(const char *path, size_t max, char **data, size_t *len,
                             xconv_file_stamp *stamp, xconv_error *err);

// Writes len bytes of data to path through a temporary file in the same folder renamed over it,
// so readers see the old file or the new one, never a part. Returns XCONV_OK or XCONV_ERR_IO.
xconv_status xconv_file_write_atomic(const char *path, const void *data, size_t len,
                                     xconv_error *err);

// Makes folder path and its parents (mode 0700 for new ones); returns XCONV_OK or XCONV_ERR_IO.
xconv_status xconv_mkdirs(const char *path, xconv_error *err);

// Writes "<cache dir>/<name>" into buf; returns false when it does not fit.
bool xconv_cache_path(const xconv_cache *cache, const char *name, char *buf, size_t len);

// Writes the current UTC time as ISO 8601 ("2024-05-01T12:00:00Z") into buf.
void xconv_utc_now(char *buf, size_t len);

#endif // XCONV_CACHE_H
