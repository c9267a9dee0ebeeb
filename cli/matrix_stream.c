// SPDX-License-Identifier: MIT
// Matrix records streamed to JSON and CSV: each record goes in with one write that also rewrites
// the JSON's closing text, so the files are valid after every record.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "matrix_stream.h"

// ---------------------------------------------------------------------------------------------
// Text rendered in memory, written in one call

typedef struct text {
    char *buf;
    size_t len;
    FILE *f;
} text;

// Opens an in-memory stream to render into; returns false without memory.
static bool text_open(text *t)
{
    t->buf = NULL;
    t->len = 0;
    t->f = open_memstream(&t->buf, &t->len);
    return t->f != NULL;
}

// Closes the stream (its text stays in t->buf, t->len); returns false when rendering failed.
static bool text_close(text *t)
{
    bool ok = !ferror(t->f);
    ok &= fclose(t->f) == 0;
    t->f = NULL;
    return ok && t->buf;
}

// Writes len bytes of buf at offset of fd in one pwrite (retried on a short write); returns 0
// or -1 (errno set).
static int write_at(int fd, const char *buf, size_t len, long long offset)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, buf, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
        offset += n;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Creating a file

// Writes `first` (len bytes) into a new file beside path and renames it into place with the
// mode of a new file; returns the open descriptor, or -1 after printing why.
static int create_file(const char *path, const char *first, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "xconv: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || write_at(fd, first, len, 0) != 0 ||
        rename(tmp, path) != 0) {
        fprintf(stderr, "xconv: cannot write %s: %s\n", path, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    return fd;
}

int cli_matrix_stream_open(cli_matrix_stream *s, const char *json_path, const char *csv_path,
                           const xconv_run_file *head)
{
    memset(s, 0, sizeof *s);
    s->json_fd = s->csv_fd = -1;
    s->json_path = json_path;
    s->csv_path = csv_path;
    text t;
    if (json_path) {
        if (!text_open(&t))
            return CLI_FAILED;
        xconv_matrix_write_head(t.f, head);
        long long end = ftell(t.f);
        xconv_matrix_write_tail(t.f, 0, false);
        bool ok = text_close(&t);
        s->json_end = end;
        s->json_fd = ok ? create_file(json_path, t.buf, t.len) : -1;
        free(t.buf);
        if (s->json_fd < 0)
            return CLI_FAILED;
    }
    if (csv_path) {
        if (!text_open(&t))
            return CLI_FAILED;
        xconv_matrix_write_csv_header(t.f);
        bool ok = text_close(&t);
        s->csv_end = (long long)t.len;
        s->csv_fd = ok ? create_file(csv_path, t.buf, t.len) : -1;
        free(t.buf);
        if (s->csv_fd < 0) {
            if (s->json_fd >= 0) {
                close(s->json_fd);
                unlink(json_path);
                s->json_fd = -1;
            }
            return CLI_FAILED;
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Records

// Says once that writing path failed; returns CLI_FAILED.
static int failed(cli_matrix_stream *s, const char *path)
{
    if (!s->failed)
        fprintf(stderr, "xconv: cannot write %s: %s (it keeps the records before)\n", path,
                strerror(errno ? errno : ENOMEM));
    s->failed = true;
    return CLI_FAILED;
}

int cli_matrix_stream_add(cli_matrix_stream *s, const xconv_matrix_record *m)
{
    if (s->failed)
        return CLI_FAILED;
    text t;
    if (s->json_fd >= 0) {
        if (!text_open(&t))
            return failed(s, s->json_path);
        fputs(s->count ? ",\n    " : "\n    ", t.f);
        xconv_matrix_write_record(t.f, m);
        long long added = ftell(t.f);
        xconv_matrix_write_tail(t.f, s->count + 1, false);
        bool ok = text_close(&t) && write_at(s->json_fd, t.buf, t.len, s->json_end) == 0;
        free(t.buf);
        if (!ok)
            return failed(s, s->json_path);
        s->json_end += added;
    }
    if (s->csv_fd >= 0) {
        if (!text_open(&t))
            return failed(s, s->csv_path);
        xconv_matrix_write_csv_row(t.f, m);
        bool ok = text_close(&t) && write_at(s->csv_fd, t.buf, t.len, s->csv_end) == 0;
        s->csv_end += ok ? (long long)t.len : 0;
        free(t.buf);
        if (!ok)
            return failed(s, s->csv_path);
    }
    s->count++;
    return 0;
}

int cli_matrix_stream_close(cli_matrix_stream *s, bool complete)
{
    int rc = s->failed ? CLI_FAILED : 0;
    if (s->json_fd >= 0 && !s->failed) {
        text t;
        bool ok = text_open(&t);
        if (ok) {
            xconv_matrix_write_tail(t.f, s->count, complete);
            ok = text_close(&t) && write_at(s->json_fd, t.buf, t.len, s->json_end) == 0 &&
                 ftruncate(s->json_fd, (off_t)(s->json_end + (long long)t.len)) == 0;
            free(t.buf);
        }
        if (!ok)
            rc = failed(s, s->json_path);
    }
    if (s->json_fd >= 0 && close(s->json_fd) != 0)
        rc = failed(s, s->json_path);
    if (s->csv_fd >= 0 && close(s->csv_fd) != 0)
        rc = failed(s, s->csv_path);
    s->json_fd = s->csv_fd = -1;
    return rc;
}
