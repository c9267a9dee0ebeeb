// SPDX-License-Identifier: MIT
// The find-db: one text file per cache folder, a line per record (a shape's ranking on one
// device under one key), read whole, merged under a lock and replaced atomically; a corrupted
// file is set aside and its good lines kept (docs/find.md, "The find-db").
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/contract.h"
#include "core/device.h"
#include "caches/find_db.h"

#define MAX_DB_BYTES ((size_t)64 << 20)
#define ENTRY_FIELDS 10  // the last, math, is left out by files written before it

// ---------------------------------------------------------------------------------------------
// Records

void xconv_find_record_key(const xconv_device_info *info, const xconv_problem *p,
                           xconv_find_record *rec)
{
    if (!rec)
        return;
    memset(rec, 0, sizeof *rec);
    if (!info || !p)
        return;
    snprintf(rec->backend, sizeof rec->backend, "%s", xconv_backend_name(info->backend));
    snprintf(rec->device, sizeof rec->device, "%s", info->name);
    snprintf(rec->driver, sizeof rec->driver, "%s", info->driver);
    snprintf(rec->xconv, sizeof rec->xconv, "%s", XCONV_VERSION);
    snprintf(rec->kernels, sizeof rec->kernels, "%s", xconv_kernels_hash());
    xconv_shape_format(p, rec->shape, sizeof rec->shape);
}

bool xconv_find_record_fresh(const xconv_find_record *rec, const xconv_device_info *info)
{
    if (!rec || !info)
        return false;
    return strcmp(rec->driver, info->driver) == 0 && strcmp(rec->xconv, XCONV_VERSION) == 0 &&
           strcmp(rec->kernels, xconv_kernels_hash()) == 0;
}

void xconv_find_record_free(xconv_find_record *rec)
{
    if (!rec)
        return;
    free(rec->entries);
    rec->entries = NULL;
    rec->count = 0;
}

void xconv_find_records_free(xconv_find_record *recs, int count)
{
    for (int i = 0; recs && i < count; i++)
        free(recs[i].entries);
    free(recs);
}

bool xconv_find_record_copy(xconv_find_record *dst, const xconv_find_record *src)
{
    *dst = *src;
    dst->entries = NULL;
    if (src->count <= 0)
        return dst->count = 0, true;
    dst->entries = malloc((size_t)src->count * sizeof *dst->entries);
    if (!dst->entries)
        return dst->count = 0, false;
    memcpy(dst->entries, src->entries, (size_t)src->count * sizeof *dst->entries);
    return true;
}

// Whether a and b have the same key (backend, device, driver, xconv, kernels, shape).
static bool same_key(const xconv_find_record *a, const xconv_find_record *b)
{
    return !strcmp(a->backend, b->backend) && !strcmp(a->device, b->device) &&
           !strcmp(a->driver, b->driver) && !strcmp(a->xconv, b->xconv) &&
           !strcmp(a->kernels, b->kernels) && !strcmp(a->shape, b->shape);
}

// Orders entries for xconv_find_record_rank.
static int entry_order(const void *pa, const void *pb)
{
    const xconv_find_entry *a = pa, *b = pb;
    if (a->passed != b->passed)
        return a->passed ? -1 : 1;
    if (!a->passed)
        return 0;
    return a->median_ms < b->median_ms ? -1 : a->median_ms > b->median_ms;
}

void xconv_find_record_rank(xconv_find_record *r)
{
    qsort(r->entries, (size_t)r->count, sizeof *r->entries, entry_order);
}

// ---------------------------------------------------------------------------------------------
// Text: records as lines of tab-separated key=value fields, values percent-encoded

typedef struct text_buf {
    char *s;
    size_t len, cap;
    bool failed;
} text_buf;

// Appends n bytes of s to b (b->failed without memory).
static void add(text_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->s, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

// Appends printf-style text to b.
static void addf(text_buf *b, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    add(b, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

// Whether byte c is written as %XX: the escape itself, the field separators and controls.
static bool escaped(unsigned char c)
{
    return c == '%' || c == '|' || c == '\t' || c < 0x20 || c == 0x7f;
}

// Appends s percent-encoded to b.
static void add_value(text_buf *b, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (escaped(*c))
            addf(b, "%%%02X", *c);
        else
            add(b, (const char *)c, 1);
    }
}

// Decodes n bytes of percent-encoded s into buf (len bytes); false when malformed or too long.
static bool get_value(const char *s, size_t n, char *buf, size_t len)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned char)s[i];
        if (s[i] == '%') {
            if (i + 2 >= n)
                return false;
            char hex[3] = {s[i + 1], s[i + 2], 0};
            char *end = NULL;
            v = (unsigned)strtoul(hex, &end, 16);
            if (end != hex + 2 || v == 0)
                return false;
            i += 2;
        } else if (escaped((unsigned char)v)) {
            return false;
        }
        if (out + 1 >= len)
            return false;
        buf[out++] = (char)v;
    }
    buf[out] = '\0';
    return true;
}

// Appends one entry field ("entry=variant|pass|ms|err|threshold|workspace|tiling|tiles|notes"
// and "|f32" for an entry timed in fp32 math under a reduced mode).
static void add_entry(text_buf *b, const xconv_find_entry *e)
{
    add(b, "\tentry=", 7);
    add_value(b, e->variant);
    addf(b, "|%s|%.9g|%.9g|%.9g|%llu|", e->passed ? "pass" : "fail", e->median_ms, e->max_err,
         e->threshold, (unsigned long long)e->workspace_bytes);
    add_value(b, e->tuning.direct_tiling);
    add(b, "|", 1);
    add_value(b, e->tuning.gemm_tiles);
    add(b, "|", 1);
    add_value(b, e->notes);
    if (e->tuning.math[0]) {
        add(b, "|", 1);
        add_value(b, e->tuning.math);
    }
}

char *xconv_find_db_format(const xconv_find_record *recs, int count)
{
    text_buf b = {0};
    add(&b, XCONV_FIND_DB_HEADER, strlen(XCONV_FIND_DB_HEADER));
    for (int i = 0; i < count; i++) {
        const xconv_find_record *r = &recs[i];
        const struct {
            const char *name, *value;
        } keys[] = {{"backend", r->backend}, {"device", r->device}, {"driver", r->driver},
                    {"xconv", r->xconv},     {"kernels", r->kernels}, {"shape", r->shape},
                    {"mode", r->mode},       {"date", r->date}};
        add(&b, "rec", 3);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            addf(&b, "\t%s=", keys[k].name);
            add_value(&b, keys[k].value);
        }
        for (int e = 0; e < r->count; e++)
            add_entry(&b, &r->entries[e]);
        add(&b, "\n", 1);
    }
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

// Parses a double filling the n bytes of s; false when they are not one number.
static bool get_double(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end = NULL;
    *out = strtod(buf, &end);
    return end == buf + n;
}

// Parses an entry's value (n bytes of s) into *e; returns NULL or what is wrong.
static const char *parse_entry(const char *s, size_t n, xconv_find_entry *e)
{
    const char *field[ENTRY_FIELDS] = {0};
    size_t flen[ENTRY_FIELDS] = {0};
    int nf = 0;
    for (const char *p = s, *end = s + n; nf < ENTRY_FIELDS; nf++) {
        const char *bar = memchr(p, '|', (size_t)(end - p));
        field[nf] = p;
        flen[nf] = (size_t)((bar ? bar : end) - p);
        if (!bar) {
            nf++;
            break;
        }
        p = bar + 1;
    }
    if (nf < ENTRY_FIELDS - 1)
        return "an entry has too few fields";
    memset(e, 0, sizeof *e);
    double ws = 0;
    bool pass = flen[1] == 4 && !memcmp(field[1], "pass", 4);
    if (!pass && !(flen[1] == 4 && !memcmp(field[1], "fail", 4)))
        return "an entry is neither pass nor fail";
    e->passed = pass;
    if (!get_value(field[0], flen[0], e->variant, sizeof e->variant) || !e->variant[0])
        return "an entry has no variant";
    if (!get_double(field[2], flen[2], &e->median_ms) ||
        !get_double(field[3], flen[3], &e->max_err) ||
        !get_double(field[4], flen[4], &e->threshold) || !get_double(field[5], flen[5], &ws) ||
        !(ws >= 0) || (pass && !(e->median_ms >= 0 && isfinite(e->median_ms))))
        return "an entry has a bad number";
    e->workspace_bytes = (uint64_t)ws;
    if (!get_value(field[6], flen[6], e->tuning.direct_tiling, sizeof e->tuning.direct_tiling) ||
        !get_value(field[7], flen[7], e->tuning.gemm_tiles, sizeof e->tuning.gemm_tiles) ||
        !get_value(field[8], flen[8], e->notes, sizeof e->notes) ||
        (nf > 9 && !get_value(field[9], flen[9], e->tuning.math, sizeof e->tuning.math)))
        return "an entry has a bad text field";
    if (e->tuning.math[0] && strcmp(e->tuning.math, "f32") != 0)
        return "an entry's math is not f32";
    return NULL;
}

bool xconv_find_record_append(xconv_find_record *r, const xconv_find_entry *e)
{
    xconv_find_entry *grown = realloc(r->entries, (size_t)(r->count + 1) * sizeof *grown);
    if (!grown)
        return false;
    r->entries = grown;
    r->entries[r->count++] = *e;
    return true;
}

// Parses one record line (n bytes, no newline) into *r; returns NULL, what is wrong, or
// "no memory".
static const char *parse_line(const char *s, size_t n, xconv_find_record *r)
{
    memset(r, 0, sizeof *r);
    struct {
        const char *name;
        char *buf;
        size_t len;
        bool seen;
    } keys[] = {{"backend", r->backend, sizeof r->backend, false},
                {"device", r->device, sizeof r->device, false},
                {"driver", r->driver, sizeof r->driver, false},
                {"xconv", r->xconv, sizeof r->xconv, false},
                {"kernels", r->kernels, sizeof r->kernels, false},
                {"shape", r->shape, sizeof r->shape, false},
                {"mode", r->mode, sizeof r->mode, false},
                {"date", r->date, sizeof r->date, false}};
    const size_t nkeys = sizeof keys / sizeof keys[0];
    if (n < 3 || memcmp(s, "rec", 3) != 0 || (n > 3 && s[3] != '\t'))
        return "not a record";
    for (const char *p = s + 3, *end = s + n; p < end;) {
        p++;  // the tab
        const char *tab = memchr(p, '\t', (size_t)(end - p));
        const char *stop = tab ? tab : end, *eq = memchr(p, '=', (size_t)(stop - p));
        if (!eq)
            return "a field without '='";
        size_t klen = (size_t)(eq - p), vlen = (size_t)(stop - eq - 1);
        if (klen == 5 && !memcmp(p, "entry", 5)) {
            xconv_find_entry e;
            const char *why = parse_entry(eq + 1, vlen, &e);
            if (why)
                return why;
            if (!xconv_find_record_append(r, &e))
                return "no memory";
        }
        for (size_t k = 0; k < nkeys; k++) {
            if (strlen(keys[k].name) != klen || memcmp(p, keys[k].name, klen) != 0)
                continue;
            if (keys[k].seen || !get_value(eq + 1, vlen, keys[k].buf, keys[k].len))
                return "a repeated or bad key field";
            keys[k].seen = true;
        }
        p = stop;  // other fields (a later version's) are skipped
    }
    for (size_t k = 0; k < nkeys; k++)  // a driver or a date may be ""
        if (!keys[k].seen || (!keys[k].buf[0] && strcmp(keys[k].name, "driver") != 0 &&
                              strcmp(keys[k].name, "date") != 0))
            return "a key field is missing";
    if (r->count == 0)
        return "a record without entries";
    xconv_find_record_rank(r);  // ranked, whatever the file's order
    return NULL;
}

// xconv_find_db_parse on text whose lines end in '\n' alone.
static int parse_lf(const char *text, size_t len, xconv_find_record **recs, int *count,
                    char *why, size_t why_len)
{
    *recs = NULL;
    *count = 0;
    if (why_len)
        why[0] = '\0';
    int problems = 0, cap = 0;
    size_t hlen = strlen(XCONV_FIND_DB_HEADER);
    if (len < hlen || memcmp(text, XCONV_FIND_DB_HEADER, hlen) != 0) {
        snprintf(why, why_len, "line 1: not a find-db header (\"%.*s\")",
                 (int)strcspn(XCONV_FIND_DB_HEADER, "\n"), XCONV_FIND_DB_HEADER);
        problems++;
    }
    int line = problems ? 1 : 2;
    for (const char *p = text + (problems ? 0 : hlen), *end = text + len; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        const char *problem = NULL;
        xconv_find_record r = {0};
        if (!nl)
            problem = "the last line is cut off (no newline)";
        else if (memchr(p, '\0', n))
            problem = "a NUL byte";
        else if (n > 0 && p[0] != '#')
            problem = parse_line(p, n, &r);
        p = nl ? nl + 1 : end;
        if (problem && strcmp(problem, "no memory") == 0)
            goto out_of_memory;
        if (problem) {
            xconv_find_record_free(&r);
            if (!problems++)
                snprintf(why, why_len, "line %d: %s", line, problem);
            continue;
        }
        if (r.count == 0)
            continue;  // a blank line or a comment
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            xconv_find_record *grown = realloc(*recs, (size_t)cap * sizeof *grown);
            if (!grown) {
                xconv_find_record_free(&r);
                goto out_of_memory;
            }
            *recs = grown;
        }
        (*recs)[(*count)++] = r;
    }
    return problems;
out_of_memory:
    xconv_find_records_free(*recs, *count);
    *recs = NULL;
    *count = 0;
    return -1;
}

// Returns a copy of text (len bytes) with the '\r' of every "\r\n" dropped and its length in
// *out_len, or NULL without memory.
static char *crlf_to_lf(const char *text, size_t len, size_t *out_len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (!(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n'))
            copy[n++] = text[i];
    copy[n] = '\0';
    *out_len = n;
    return copy;
}

int xconv_find_db_parse(const char *text, size_t len, xconv_find_record **recs, int *count,
                        char *why, size_t why_len)
{
    // A file edited by hand on Windows (the docs invite editing) ends its lines in CRLF.
    if (!memchr(text, '\r', len))
        return parse_lf(text, len, recs, count, why, why_len);
    size_t lf_len = 0;
    char *lf = crlf_to_lf(text, len, &lf_len);
    if (!lf) {
        *recs = NULL;
        *count = 0;
        return -1;
    }
    int problems = parse_lf(lf, lf_len, recs, count, why, why_len);
    free(lf);
    return problems;
}

// ---------------------------------------------------------------------------------------------
// The file: locking, reading, setting a corrupted one aside

// Takes the find-db's lock (an exclusive flock on find.db.lock, blocking); returns its file
// descriptor, or -1 with err filled.
static int lock_db(const xconv_cache *cache, xconv_error *err)
{
    char path[4096];
    if (!xconv_cache_path(cache, XCONV_FIND_DB_FILE ".lock", path, sizeof path)) {
        xconv_error_set(err, XCONV_ERR_IO, "cache folder name too long");
        return -1;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        xconv_error_set(err, XCONV_ERR_IO, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            xconv_error_set(err, XCONV_ERR_IO, "cannot lock %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
    }
    return fd;
}

// Releases the lock lock_db took.
static void unlock_db(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}

// What reading the file gave.
typedef struct db_read {
    xconv_find_record *recs;
    int count;
    xconv_file_stamp stamp;  // of the file read (exists false: there was none)
    int problems;            // lines (or the header) that did not parse
    char why[256];
} db_read;

// Reads and parses the find-db at path into *out. Returns XCONV_OK (a missing file reads as
// empty), XCONV_ERR_IO or XCONV_ERR_OUT_OF_MEMORY.
static xconv_status read_db(const char *path, db_read *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    xconv_status st = xconv_file_read(path, MAX_DB_BYTES, &text, &len, &out->stamp, err);
    if (st == XCONV_ERR_NOT_FOUND)
        return XCONV_OK;
    if (st != XCONV_OK)
        return st;
    out->problems = xconv_find_db_parse(text, len, &out->recs, &out->count, out->why,
                                        sizeof out->why);
    free(text);
    if (out->problems < 0)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory to read %s", path);
    return XCONV_OK;
}

// Writes count records to path atomically and returns the new file's stamp in *stamp.
static xconv_status write_db(const char *path, const xconv_find_record *recs, int count,
                             xconv_file_stamp *stamp, xconv_error *err)
{
    char *text = xconv_find_db_format(recs, count);
    if (!text)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory to write %s", path);
    xconv_status st = xconv_file_write_atomic(path, text, strlen(text), err);
    free(text);
    xconv_file_stamp_get(path, stamp);
    return st;
}

// With the lock held: moves a corrupted find-db at path aside as path.corrupt-DATE-PID, writes
// back the records that did parse (in *r) and warns. Returns XCONV_OK or the failure.
static xconv_status set_aside(xconv_cache *cache, const char *path, db_read *r,
                              xconv_error *err)
{
    char date[32], aside[4200];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y%m%d-%H%M%S", &tm);
    // A new name (link fails on one that exists), then the old one goes.
    int rc = -1;
    for (int i = 0; i < 100 && rc != 0; i++) {
        snprintf(aside, sizeof aside, "%s.corrupt-%s-%ld%s%.0d", path, date, (long)getpid(),
                 i ? "-" : "", i);
        rc = link(path, aside);
        if (rc != 0 && errno != EEXIST)
            break;
    }
    if (rc != 0 || unlink(path) != 0)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot set the corrupted %s aside: %s", path,
                               strerror(errno));
    xconv_cache_warn(cache, "find-db %s is corrupted (%s): set aside as %s; %d good record%s "
                     "kept", path, r->why, aside, r->count, r->count == 1 ? "" : "s");
    return write_db(path, r->recs, r->count, &r->stamp, err);
}

// With the lock held: reads the find-db at path into *r, setting a corrupted one aside.
static xconv_status read_locked(xconv_cache *cache, const char *path, db_read *r,
                                xconv_error *err)
{
    xconv_status st = read_db(path, r, err);
    if (st == XCONV_OK && r->problems > 0)
        st = set_aside(cache, path, r, err);
    return st;
}

// Replaces cache's copy of the db with r's records (taken over).
static void keep(xconv_cache *cache, db_read *r)
{
    xconv_find_records_free(cache->db, cache->db_count);
    cache->db = r->recs;
    cache->db_count = r->count;
    cache->db_stamp = r->stamp;
    cache->db_loaded = true;
    cache->stats.db_reads++;
    r->recs = NULL;
    r->count = 0;
}

xconv_status xconv_find_db_refresh(xconv_cache *cache, xconv_error *err)
{
    char path[4096];
    if (!xconv_cache_path(cache, XCONV_FIND_DB_FILE, path, sizeof path))
        return xconv_error_set(err, XCONV_ERR_IO, "cache folder name too long");
    xconv_file_stamp now;
    xconv_file_stamp_get(path, &now);
    if (cache->db_loaded && xconv_file_stamp_same(&now, &cache->db_stamp))
        return XCONV_OK;
    db_read r;
    xconv_status st = read_db(path, &r, err);  // readers take no lock: writers rename
    if (st == XCONV_OK && r.problems > 0) {
        // Corrupted: set it aside under the lock, unless a writer replaced it meanwhile.
        xconv_find_records_free(r.recs, r.count);
        int fd = lock_db(cache, err);
        st = fd < 0 ? err->status : read_locked(cache, path, &r, err);
        unlock_db(fd);
    }
    if (st == XCONV_OK)
        keep(cache, &r);
    xconv_find_records_free(r.recs, r.count);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Storing, looking up, listing, clearing

// Runs edit on the file's records under the lock and writes the result back. edit changes the
// array *recs of *count records (freeing those it drops; *count stays right even when it
// fails) and returns false without memory.
static xconv_status edit_db(xconv_cache *cache,
                            bool (*edit)(xconv_find_record **recs, int *count, void *user),
                            void *user, xconv_error *err)
{
    char path[4096];
    if (!xconv_cache_path(cache, XCONV_FIND_DB_FILE, path, sizeof path))
        return xconv_error_set(err, XCONV_ERR_IO, "cache folder name too long");
    if (cache->flags & XCONV_CACHE_DB_READ_ONLY)
        return xconv_error_set(err, XCONV_ERR_IO, "the find-db %s is read-only here (its lock "
                               "file is not a regular file, or the cache was opened so)", path);
    pthread_mutex_lock(&cache->mutex);
    int fd = lock_db(cache, err);
    db_read r = {0};
    xconv_status st = fd < 0 ? err->status : read_locked(cache, path, &r, err);
    if (st == XCONV_OK && !edit(&r.recs, &r.count, user))
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the find-db");
    if (st == XCONV_OK)
        st = write_db(path, r.recs, r.count, &r.stamp, err);
    unlock_db(fd);
    if (st == XCONV_OK)
        keep(cache, &r);
    xconv_find_records_free(r.recs, r.count);
    pthread_mutex_unlock(&cache->mutex);
    return st;
}

// The edit of a store (user: the record): drops the record of the same key and appends a copy
// with its entries ranked and its date set.
static bool edit_store(xconv_find_record **recs, int *count, void *user)
{
    const xconv_find_record *rec = user;
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        if (same_key(&(*recs)[i], rec))
            xconv_find_record_free(&(*recs)[i]);
        else
            (*recs)[kept++] = (*recs)[i];
    }
    *count = kept;
    xconv_find_record *grown = realloc(*recs, (size_t)(kept + 1) * sizeof *grown);
    if (!grown)
        return false;
    *recs = grown;
    xconv_find_record *r = &grown[kept];
    bool copied = xconv_find_record_copy(r, rec);  // on failure r holds no entries
    *count = kept + 1;
    if (!copied)
        return false;
    xconv_find_record_rank(r);
    if (!r->date[0])
        xconv_utc_now(r->date, sizeof r->date);
    return true;
}

xconv_status xconv_find_db_store(xconv_cache *cache, const xconv_find_record *rec,
                                 xconv_error *err)
{
    if (XCONV_NULL_ARG(err, cache) || XCONV_NULL_ARG(err, rec))
        return XCONV_ERR_INVALID;
    if (!rec->backend[0] || !rec->device[0] || !rec->shape[0] || !rec->xconv[0] ||
        !rec->kernels[0] || !rec->mode[0] || rec->count <= 0 || !rec->entries)
        return xconv_error_set(err, XCONV_ERR_INVALID, "find-db: a record needs its key (see "
                               "xconv_find_record_key), a mode and at least one entry");
    for (int i = 0; i < rec->count; i++)
        if (!rec->entries[i].variant[0])
            return xconv_error_set(err, XCONV_ERR_INVALID, "find-db: entry %d has no variant",
                                   i);
    return edit_db(cache, edit_store, (void *)rec, err);
}

// What a clear removes (device NULL: every record) and how many it did.
typedef struct clear_args {
    const char *device;
    int removed;
} clear_args;

// The edit of a clear.
static bool edit_clear(xconv_find_record **recs, int *count, void *user)
{
    clear_args *a = user;
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        if (!a->device || strcmp((*recs)[i].device, a->device) == 0) {
            xconv_find_record_free(&(*recs)[i]);
            a->removed++;
        } else {
            (*recs)[kept++] = (*recs)[i];
        }
    }
    *count = kept;
    return true;
}

xconv_status xconv_find_db_clear(xconv_cache *cache, const char *device, int *removed,
                                 xconv_error *err)
{
    if (removed)
        *removed = 0;
    if (XCONV_NULL_ARG(err, cache))
        return XCONV_ERR_INVALID;
    clear_args a = {.device = device};
    xconv_status st = edit_db(cache, edit_clear, &a, err);
    if (removed)
        *removed = st == XCONV_OK ? a.removed : 0;
    return st;
}

xconv_status xconv_find_db_lookup(xconv_cache *cache, const xconv_device_info *info,
                                  const xconv_problem *p, xconv_find_record *out, bool *stale,
                                  xconv_error *err)
{
    if (XCONV_NULL_ARG(err, cache) || XCONV_NULL_ARG(err, info) || XCONV_NULL_ARG(err, p) ||
        XCONV_NULL_ARG(err, out) || XCONV_NULL_ARG(err, stale))
        return XCONV_ERR_INVALID;
    memset(out, 0, sizeof *out);
    *stale = false;
    if (cache->flags & XCONV_CACHE_NO_FIND_DB)
        return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "the find-db is off");
    xconv_find_record key;
    xconv_find_record_key(info, p, &key);
    pthread_mutex_lock(&cache->mutex);
    xconv_status st = xconv_find_db_refresh(cache, err);
    const xconv_find_record *fresh = NULL, *newest_stale = NULL;
    for (int i = 0; st == XCONV_OK && i < cache->db_count; i++) {
        const xconv_find_record *r = &cache->db[i];
        if (strcmp(r->backend, key.backend) || strcmp(r->device, key.device) ||
            strcmp(r->shape, key.shape))
            continue;
        if (xconv_find_record_fresh(r, info))
            fresh = r;
        else if (!newest_stale || strcmp(r->date, newest_stale->date) > 0)
            newest_stale = r;
    }
    const xconv_find_record *found = fresh ? fresh : newest_stale;
    if (st == XCONV_OK && !found)
        st = xconv_error_set(err, XCONV_ERR_NOT_FOUND, "the find-db has no record of %s on %s",
                             key.shape, key.device);
    if (st == XCONV_OK && !xconv_find_record_copy(out, found))
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a record");
    if (st == XCONV_OK)
        *stale = !fresh;
    pthread_mutex_unlock(&cache->mutex);
    return st;
}

xconv_status xconv_find_db_list(xconv_cache *cache, xconv_find_record **out, int *count,
                                xconv_error *err)
{
    if (XCONV_NULL_ARG(err, cache) || XCONV_NULL_ARG(err, out) || XCONV_NULL_ARG(err, count))
        return XCONV_ERR_INVALID;
    *out = NULL;
    *count = 0;
    pthread_mutex_lock(&cache->mutex);
    xconv_status st = xconv_find_db_refresh(cache, err);
    int n = st == XCONV_OK ? cache->db_count : 0;
    xconv_find_record *copy = n ? calloc((size_t)n, sizeof *copy) : NULL;
    if (n && !copy)
        st = xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the records");
    int made = 0;
    for (; copy && made < n; made++)
        if (!xconv_find_record_copy(&copy[made], &cache->db[made]))
            break;
    pthread_mutex_unlock(&cache->mutex);
    if (copy && made < n) {
        xconv_find_records_free(copy, made);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for the records");
    }
    *out = copy;
    *count = st == XCONV_OK ? n : 0;
    return st;
}
