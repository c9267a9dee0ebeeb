// SPDX-License-Identifier: MIT
// A device's programs: the ones built in this process, listed by (kernel source name, defines)
// most recently used first, and the compiled-kernel cache on disk, one file per program under
// <cache>/kernels/ named by the hash of its key and holding the whole key, the payload's length
// and checksum, then the payload the backend gave (docs/find.md, "Compiled kernels"). The one
// place programs are built, loaded from disk or stored there, and their build time counted, one
// at a time or ahead on worker threads.
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/contract.h"
#include "caches/cache.h"
#include "caches/programs.h"
#ifdef XCONV_HAVE_CUDA
#include "../../cuda/nvrtc_compile.h"
#endif

#define MAGIC "xconv-kernel-binary 1\n"
#define MAX_BINARY_BYTES ((size_t)256 << 20)
#define KEY_MAX 8192

// ---------------------------------------------------------------------------------------------
// Keys

int xconv_defines_format(const xconv_define *defines, int ndefines, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < ndefines; i++) {
        int n = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                         "%s-D%s=%lld", i ? " " : "", defines[i].name, defines[i].value);
        used += (size_t)n;
    }
    return (int)used;
}

// Whether entry e is the program of (source, defines).
static bool same_key(const xconv_program *e, const char *source, const xconv_define *defines,
                     int ndefines)
{
    if (e->ndefines != ndefines || strcmp(e->source, source) != 0)
        return false;
    for (int i = 0; i < ndefines; i++)
        if (e->defines[i].value != defines[i].value ||
            strcmp(e->defines[i].name, defines[i].name) != 0)
            return false;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Stored binaries on disk: keys and files

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
// Getting and putting binaries on disk

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

// ---------------------------------------------------------------------------------------------
// The device's programs: lookup and build

// Builds entry e's program (its source and defines) on dev into e->handle, from the cache on
// disk when it holds it, and stores a new build there; *ms gets the time it took. Touches
// nothing of dev but its backend and its cache on disk, so several threads may build entries
// of one device at once. Returns XCONV_OK or the failure (e->handle NULL).
static xconv_status build_raw(xconv_device *dev, xconv_program *e, double *ms, xconv_error *err)
{
    const char *text = xconv_kernel_source(e->source);
    char options[4096];
    *ms = 0;
    e->handle = NULL;
    if ((size_t)xconv_defines_format(e->defines, e->ndefines, options, sizeof options) >=
        sizeof options)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: the defines pass %zu characters",
                               e->source, sizeof options);
    double t0 = xconv_now_ms();
    if (!dev->be) {  // a CUDA target profile: compiled into its cache only, never loaded
        xconv_status st = compiles_to_cache(dev)
                              ? xconv_kernel_cache_compile(dev, e->source, text, options, err)
                              : xconv_error_set(err, XCONV_ERR_INVALID,
                                                "%s: a target profile compiles only into a cache",
                                                e->source);
        *ms = xconv_now_ms() - t0;
        return st;
    }
    bool on_disk = xconv_kernel_cache_usable(dev);
    bool cached = on_disk &&
                  xconv_kernel_cache_get(dev, e->source, text, options, &e->handle) == XCONV_OK;
    xconv_status st = XCONV_OK;
    if (!cached) {
        char *log = NULL;
        st = dev->be->program_build(dev->ctx, text, options, &e->handle, &log, err);
        if (st == XCONV_ERR_BUILD)
            xconv_device_keep_build_log(dev, log);  // takes it
        else
            free(log);
        if (st == XCONV_OK && on_disk)
            xconv_kernel_cache_put(dev, e->source, text, options, e->handle);
    }
    *ms = xconv_now_ms() - t0;
    if (st != XCONV_OK)
        e->handle = NULL;
    return st;
}

// Adds ms of build time to dev's and *compile_ms (when not NULL).
static void count_build(xconv_device *dev, double ms, double *compile_ms)
{
    dev->compile_ms += ms;
    if (compile_ms)
        *compile_ms += ms;
}

// Builds entry e's program on dev into e->handle, counting the time. Returns XCONV_OK or the
// failure.
static xconv_status build_handle(xconv_device *dev, xconv_program *e, double *compile_ms,
                                 xconv_error *err)
{
    double ms = 0;
    xconv_status st = xconv_device_usable(dev, err);
    if (st == XCONV_OK)
        st = xconv_device_fault(dev, build_raw(dev, e, &ms, err), err);
    if (st != XCONV_OK) {
        e->handle = NULL;
        return xconv_error_prefix(err, "building %s.cl", e->source);
    }
    count_build(dev, ms, compile_ms);
    return XCONV_OK;
}

// Returns a new entry of (source, defines) without a program, or NULL without memory.
static xconv_program *entry_new(const char *source, const xconv_define *defines, int ndefines)
{
    xconv_program *e = malloc(sizeof *e + (size_t)ndefines * sizeof e->defines[0]);
    if (!e)
        return NULL;
    memset(e, 0, sizeof *e);
    snprintf(e->source, sizeof e->source, "%s", source);
    e->ndefines = ndefines;
    if (ndefines)
        memcpy(e->defines, defines, (size_t)ndefines * sizeof defines[0]);
    return e;
}

// Builds (source, defines) on dev into a new entry *out. Returns XCONV_OK or the failure.
static xconv_status build(xconv_device *dev, const char *source, const xconv_define *defines,
                          int ndefines, xconv_program **out, double *compile_ms,
                          xconv_error *err)
{
    if (!xconv_kernel_source(source))
        return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "no kernel source '%s' is embedded",
                               source);
    if (strlen(source) >= XCONV_SOURCE_NAME_MAX || ndefines < 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "kernel source name '%s' is too long",
                               source);
    xconv_program *e = entry_new(source, defines, ndefines);
    if (!e)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a program");
    xconv_status st = build_handle(dev, e, compile_ms, err);
    if (st != XCONV_OK) {
        free(e);
        return st;
    }
    *out = e;
    return XCONV_OK;
}

xconv_status xconv_program_get(xconv_device *dev, const char *source,
                               const xconv_define *defines, int ndefines, xconv_program **out,
                               double *compile_ms, xconv_error *err)
{
    for (xconv_program **link = &dev->programs; *link; link = &(*link)->next) {
        xconv_program *e = *link;
        if (!same_key(e, source, defines, ndefines))
            continue;
        *link = e->next;  // to the front: a bench prepares one plan's programs in a row
        e->next = dev->programs;
        dev->programs = e;
        *out = e;
        if (e->handle && e->unclaimed_ms > 0) {  // built ahead: its first user counts the time
            count_build(dev, e->unclaimed_ms, compile_ms);
            e->unclaimed_ms = 0;
        }
        return e->handle ? XCONV_OK : build_handle(dev, e, compile_ms, err);
    }
    xconv_status st = build(dev, source, defines, ndefines, out, compile_ms, err);
    if (st != XCONV_OK)
        return st;
    (*out)->next = dev->programs;
    dev->programs = *out;
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Building ahead, on worker threads

// One program to build ahead: its entry (not linked into its device's cache until built).
typedef struct ahead_item {
    xconv_device *dev;
    xconv_program *e;
    xconv_status st;
    double ms;
    bool ran;                   // taken by a worker (false: skipped by a stop)
} ahead_item;

// The shared state of a build ahead: the items, the next one to take and how many are done.
typedef struct ahead_job {
    ahead_item *items;
    int total;                  // items collected
    int count, next, done;      // items to build (total, or fewer after a stop), taken, built
    pthread_mutex_t mutex;
    pthread_cond_t cond;        // signalled as each build finishes
} ahead_job;

// Worker thread: builds the items not yet taken, one at a time, until none is left.
static void *ahead_worker(void *arg)
{
    ahead_job *job = arg;
    xconv_error *err = calloc(1, sizeof *err);  // messages are dropped: a prepare reports them
    for (;;) {
        pthread_mutex_lock(&job->mutex);
        int i = job->next < job->count ? job->next++ : -1;
        pthread_mutex_unlock(&job->mutex);
        if (i < 0)
            break;
        ahead_item *it = &job->items[i];
        it->ran = true;
        it->st = err ? build_raw(it->dev, it->e, &it->ms, err) : XCONV_ERR_OUT_OF_MEMORY;
        pthread_mutex_lock(&job->mutex);
        job->done++;
        pthread_cond_signal(&job->cond);
        pthread_mutex_unlock(&job->mutex);
    }
    free(err);
    return NULL;
}

// Returns true when dev's cache or the first n items hold (source, defines) already.
static bool ahead_known(const ahead_item *items, int n, const xconv_program_request *r)
{
    for (xconv_program *e = r->dev->programs; e; e = e->next)
        if (e->handle && same_key(e, r->source, r->defines, r->ndefines))
            return true;
    for (int i = 0; i < n; i++)
        if (items[i].dev == r->dev && same_key(items[i].e, r->source, r->defines, r->ndefines))
            return true;
    return false;
}

// Fills job->items with the distinct programs of the requests that their devices (usable, and
// able to build on several threads) do not hold built. Returns XCONV_OK or
// XCONV_ERR_OUT_OF_MEMORY.
static xconv_status ahead_collect(const xconv_program_request *requests, int nrequests,
                                  ahead_job *job, xconv_error *err)
{
    int cap = 0;
    for (int i = 0; i < nrequests; i++) {
        const xconv_program_request *r = &requests[i];
        xconv_error scratch;
        if (!r->dev)
            continue;
        if (!compiles_to_cache(r->dev) &&
            (xconv_device_usable(r->dev, &scratch) != XCONV_OK ||
             !r->dev->be->builds_concurrently || !r->dev->be->builds_concurrently(r->dev->ctx)))
            continue;  // a device that builds on one thread builds as its plans prepare
        if (!xconv_kernel_source(r->source) || strlen(r->source) >= XCONV_SOURCE_NAME_MAX ||
            ahead_known(job->items, job->count, r))
            continue;
        if (job->count == cap) {
            cap = cap ? 2 * cap : 64;
            ahead_item *grown = realloc(job->items, (size_t)cap * sizeof *grown);
            if (!grown)
                return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
            job->items = grown;
        }
        xconv_program *e = entry_new(r->source, r->defines, r->ndefines);
        if (!e)
            return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
        job->items[job->count++] = (ahead_item){.dev = r->dev, .e = e};
    }
    return XCONV_OK;
}

// Starts up to `threads` workers on job and waits for every build, calling progress as they
// finish; returns the number of threads that ran (the calling thread builds alone when
// threads is 0 or none could be started).
static int ahead_run(ahead_job *job, int threads, xconv_build_progress_fn progress, void *user)
{
    pthread_t tids[64];
    int started = 0;
    if (progress && progress(user, 0, job->count))
        job->count = 0;  // stopped before any build
    if (threads > 64)
        threads = 64;
    if (threads > job->count)
        threads = job->count;
    if (threads < 0)
        threads = 0;
    while (started < threads && pthread_create(&tids[started], NULL, ahead_worker, job) == 0)
        started++;
    if (started == 0)
        ahead_worker(job);
    int shown = 0;
    bool stop = false;
    pthread_mutex_lock(&job->mutex);
    for (;;) {
        int done = job->done;
        if (done != shown && progress && !stop) {
            pthread_mutex_unlock(&job->mutex);
            stop = progress(user, done, job->count);
            pthread_mutex_lock(&job->mutex);
            if (stop && job->next < job->count)
                job->count = job->next;  // the workers take no more
        }
        shown = done;
        if (job->done == job->count)
            break;
        if (job->done == shown)
            pthread_cond_wait(&job->cond, &job->mutex);
    }
    pthread_mutex_unlock(&job->mutex);
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    return started ? started : 1;
}

// Links each built item into its device's cache (its time unclaimed) and frees the rest; a
// build that lost its device's context is passed to the device's fault handling.
static void ahead_finish(ahead_job *job, xconv_build_stats *stats)
{
    for (int i = 0; i < job->total; i++) {
        ahead_item *it = &job->items[i];
        if (!it->ran) {
            stats->skipped++;
            free(it->e);
            continue;
        }
        stats->compile_ms += it->ms;
        if (!it->dev->be) {  // compiled into the profile's cache: nothing to link
            stats->failed += it->st != XCONV_OK;
            stats->built += it->st == XCONV_OK;
            free(it->e);
            continue;
        }
        if (it->st != XCONV_OK) {
            xconv_error scratch = {0};
            xconv_error_set(&scratch, it->st, "building %s.cl ahead", it->e->source);
            xconv_device_fault(it->dev, it->st, &scratch);
            stats->failed++;
            free(it->e);
            continue;
        }
        it->e->unclaimed_ms = it->ms > 0 ? it->ms : 1e-6;
        it->e->next = it->dev->programs;
        it->dev->programs = it->e;
        stats->built++;
    }
}

xconv_status xconv_program_build_ahead(const xconv_program_request *requests, int nrequests,
                                       int threads, xconv_build_progress_fn progress, void *user,
                                       xconv_build_stats *stats, xconv_error *err)
{
    double t0 = xconv_now_ms();
    xconv_build_stats local = {0};
    stats = stats ? stats : &local;
    *stats = (xconv_build_stats){0};
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    ahead_job job = {0};
    xconv_status st = ahead_collect(requests, nrequests, &job, err);
    job.total = job.count;
    if (st == XCONV_OK && job.count > 0) {
        pthread_mutex_init(&job.mutex, NULL);
        pthread_cond_init(&job.cond, NULL);
        stats->threads = ahead_run(&job, threads, progress, user);
        pthread_cond_destroy(&job.cond);
        pthread_mutex_destroy(&job.mutex);
        ahead_finish(&job, stats);
    } else {
        for (int i = 0; i < job.count; i++)
            free(job.items[i].e);
    }
    stats->programs = job.total;
    free(job.items);
    stats->wall_ms = xconv_now_ms() - t0;
    return st;
}
