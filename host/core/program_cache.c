// SPDX-License-Identifier: MIT
// The device's program cache: a list of built programs by (kernel source name, defines), most
// recently used first, and the one place programs are built (or loaded from the compiled-kernel
// cache on disk) and their build time counted, one at a time or ahead on worker threads.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/program_cache.h"

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
// Lookup and build

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
    const xconv_program_store *store = dev->store;
    if (!dev->be) {  // a CUDA target profile: compiled into its store only, never loaded
        xconv_status st = store && store->compiles(dev)
                              ? store->compile(dev, e->source, text, options, err)
                              : xconv_error_set(err, XCONV_ERR_INVALID,
                                                "%s: a target profile compiles only into a cache",
                                                e->source);
        *ms = xconv_now_ms() - t0;
        return st;
    }
    bool on_disk = store && store->usable(dev);
    bool cached = on_disk && store->get(dev, e->source, text, options, &e->handle) == XCONV_OK;
    xconv_status st = XCONV_OK;
    if (!cached) {
        char *log = NULL;
        st = dev->be->program_build(dev->ctx, text, options, &e->handle, &log, err);
        if (st == XCONV_ERR_BUILD)
            xconv_device_keep_build_log(dev, log);  // takes it
        else
            free(log);
        if (st == XCONV_OK && on_disk)
            store->put(dev, e->source, text, options, e->handle);
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

// Returns true when dev is a CUDA target profile whose programs are compiled into its cache
// (through NVRTC, without a GPU), to be exported as a bundle for its devices.
static bool compiles_to_cache(const xconv_device *dev)
{
    return !dev->be && dev->store && dev->store->compiles(dev);
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

void xconv_program_cache_free(xconv_device *dev)
{
    while (dev->programs) {
        xconv_program *e = dev->programs;
        dev->programs = e->next;
        dev->be->program_free(dev->ctx, e->handle);
        free(e);
    }
}

void xconv_program_cache_drop(xconv_device *dev)
{
    for (xconv_program *e = dev->programs; e; e = e->next) {
        dev->be->program_free(dev->ctx, e->handle);
        e->handle = NULL;
    }
}
