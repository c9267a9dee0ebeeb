// SPDX-License-Identifier: MIT
// Output files: checking a path before the work, writing whole files atomically with the
// existing file's mode and owner, and files that stay valid while records are appended.
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

// ---------------------------------------------------------------------------------------------
// Checking a path

// Writes the directory part of path into dir ("." when it has none, "/" for the root).
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

// Follows path while it is a symbolic link, leaving the final target (which may not exist) in
// path. Returns 0, or an errno value (ELOOP after 40 links, ENAMETOOLONG).
static int follow_links(char *path, size_t len)
{
    struct stat st;
    for (int hops = 0; lstat(path, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        char target[PATH_MAX], dir[PATH_MAX];
        ssize_t n = hops < 40 ? readlink(path, target, sizeof target - 1) : -1;
        if (n < 0)
            return hops < 40 ? errno : ELOOP;
        target[n] = '\0';
        dir_of(path, dir, sizeof dir);
        int w = target[0] == '/' ? snprintf(path, len, "%s", target)
                                 : snprintf(path, len, "%s/%s", dir, target);
        if (w < 0 || (size_t)w >= len)
            return ENAMETOOLONG;
    }
    return 0;
}

// Returns what a file type is called in messages, or NULL for a regular file.
static const char *not_regular(mode_t mode)
{
    if (S_ISREG(mode))
        return NULL;
    return S_ISDIR(mode)    ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

// Writes the canonical form of path into buf (len bytes): its folder resolved by realpath, its
// last name kept; returns false when the folder does not resolve.
static bool canonical(const char *path, char *buf, size_t len)
{
    char dir[PATH_MAX], real[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    return realpath(dir, real) && snprintf(buf, len, "%s/%s", real, name) < (int)len;
}

bool cli_same_file(const char *a, const char *b)
{
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return false;
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return false;
    char ca[PATH_MAX], cb[PATH_MAX];
    return canonical(a, ca, sizeof ca) && canonical(b, cb, sizeof cb) && strcmp(ca, cb) == 0;
}

// cli_output_check's work; `quiet` leaves out the note on a followed link. Returns 0 or 2.
static int check(const char *option, const char *given, bool allow_stdout, bool quiet,
                 cli_output *out)
{
    memset(out, 0, sizeof *out);
    out->option = option;
    out->given = given;
    if (strcmp(given, "-") == 0) {
        if (allow_stdout) {
            out->to_stdout = true;
            return 0;
        }
        cli_error("%s -: this output cannot go to standard output; give a file", option);
        return CLI_USAGE;
    }
    if (snprintf(out->path, sizeof out->path, "%s", given) >= (int)sizeof out->path) {
        cli_error("%s %s: the path is too long", option, given);
        return CLI_USAGE;
    }
    int e = follow_links(out->path, sizeof out->path);
    if (e) {
        cli_error("%s %s: cannot follow the symbolic link: %s", option, given, strerror(e));
        return CLI_USAGE;
    }
    bool link = strcmp(out->path, given) != 0;
    const char *target = link ? out->path : given;
    const char *via = link ? " (the target of the symbolic link " : "";
    struct stat st;
    if (lstat(out->path, &st) == 0) {
        const char *kind = not_regular(st.st_mode);
        if (kind) {
            cli_error("%s %s%s%s%s is %s; xconv writes regular files only%s", option, target,
                      via, link ? given : "", link ? ")" : "", kind,
                      S_ISDIR(st.st_mode) || !allow_stdout ? ""
                                                          : " (- writes to standard output)");
            return CLI_USAGE;
        }
        if (access(out->path, W_OK) != 0 || !(st.st_mode & 0222)) {
            cli_error("%s %s%s%s%s is read-only (mode %04o): xconv does not replace it", option,
                      target, via, link ? given : "", link ? ")" : "",
                      (unsigned)(st.st_mode & 07777));
            return CLI_USAGE;
        }
        out->exists = true;
        out->mode = st.st_mode & 07777;
        out->uid = st.st_uid;
        out->gid = st.st_gid;
    } else if (errno != ENOENT) {
        cli_error("%s %s: %s", option, target, strerror(errno));
        return CLI_USAGE;
    }
    char dir[PATH_MAX];
    dir_of(out->path, dir, sizeof dir);
    struct stat ds;
    if (stat(dir, &ds) != 0 || !S_ISDIR(ds.st_mode)) {
        cli_error("%s %s: the directory %s does not exist", option, target, dir);
        return CLI_USAGE;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_error("%s %s: cannot make files in %s: %s", option, target, dir, strerror(errno));
        return CLI_USAGE;
    }
    if (link && !quiet)
        cli_error("note: %s %s is a symbolic link: writing its target %s", option, given,
                  out->path);
    return 0;
}

int cli_output_check(const char *option, const char *given, bool allow_stdout, cli_output *out)
{
    return check(option, given, allow_stdout, false, out);
}

// ---------------------------------------------------------------------------------------------
// Writing a file into place

// Creates a new temporary file beside path, readable and writable as a new file would be (0666
// less the umask); returns its descriptor with the name in tmp, or -1 with errno set.
static int open_temp(const char *path, char *tmp, size_t len)
{
    static atomic_uint counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(tmp, len, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1u));
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

// Whether the file replacing out's can carry its mode and owner and take its place by rename:
// not when it has other names (hard links) or belongs to someone else (only root can give a
// file away). Then it is written in place instead.
static bool can_replace(const cli_output *out)
{
    struct stat st;
    if (!out->exists || stat(out->path, &st) != 0)
        return true;
    return st.st_nlink == 1 && (st.st_uid == geteuid() || geteuid() == 0);
}

// Gives the new file fd the existing file's mode and owner. Returns 0 or -1 (errno set).
static int keep_mode(int fd, const cli_output *out)
{
    if (!out->exists)
        return 0;
    if (fchmod(fd, out->mode) != 0)
        return -1;
    if ((out->uid != geteuid() || out->gid != getegid()) && fchown(fd, out->uid, out->gid) != 0)
        return -1;
    return 0;
}

// Writes through writer into f and makes it durable; returns 0 or -1 (errno set).
static int write_durable(FILE *f, int (*writer)(FILE *f, const void *ctx), const void *ctx)
{
    if (writer(f, ctx) != 0 || fflush(f) != 0 || ferror(f))
        return -1;
    return fsync(fileno(f));
}

// Opens out's file for writing in place (its inode, mode and owner stay), emptied. Returns the
// stream, or NULL with errno set.
static FILE *open_in_place(const cli_output *out)
{
    int fd = open(out->path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0)
        close(fd);
    if (f && ftruncate(fd, 0) != 0) {
        fclose(f);
        return NULL;
    }
    return f;
}

// Writes through writer into a new file beside out's path, synced when durable, and renames it
// over the path. Returns 0, or -1 with errno set (the new file removed; the path keeps what it
// held).
static int replace_with(const cli_output *out, int (*writer)(FILE *f, const void *ctx),
                        const void *ctx, bool durable)
{
    char tmp[PATH_MAX + 64];
    int fd = open_temp(out->path, tmp, sizeof tmp);
    if (fd < 0)
        return -1;
    FILE *f = keep_mode(fd, out) == 0 ? fdopen(fd, "w") : NULL;
    int failed = !f || (durable ? write_durable(f, writer, ctx) != 0
                                : writer(f, ctx) != 0 || fflush(f) != 0);
    int saved = errno;
    if (!failed && rename(tmp, out->path) != 0) {
        failed = 1;
        saved = errno;
    }
    if ((f ? fclose(f) : close(fd)) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

// Writes a whole file as cli_output_write says. Returns 0, or 1 after a message.
static int write_file(const cli_output *out, int (*writer)(FILE *f, const void *ctx),
                      const void *ctx)
{
    if (!can_replace(out)) {
        FILE *f = open_in_place(out);
        int failed = !f || write_durable(f, writer, ctx) != 0;
        int saved = errno;
        if (f && fclose(f) != 0 && !failed) {
            failed = 1;
            saved = errno;
        }
        if (failed)
            cli_error("cannot write %s: %s", out->path, strerror(saved));
        return failed ? CLI_FAILED : 0;
    }
    if (replace_with(out, writer, ctx, true) != 0) {
        cli_error("cannot write %s: %s", out->path, strerror(errno));
        return CLI_FAILED;
    }
    return 0;
}

int cli_output_write(const cli_output *out, int (*writer)(FILE *f, const void *ctx),
                     const void *ctx)
{
    if (out->to_stdout) {
        if (writer(stdout, ctx) != 0 || fflush(stdout) != 0) {
            cli_error("writing to standard output: %s", strerror(errno));
            return CLI_FAILED;
        }
        return 0;
    }
    cli_output now;  // what is there may have changed during the work
    int rc = check(out->option, out->given, false, true, &now);
    return rc ? rc : write_file(&now, writer, ctx);
}

char *cli_render_text(void (*fn)(FILE *f, const void *ctx), const void *ctx, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    fn(f, ctx);
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}

// ---------------------------------------------------------------------------------------------
// Files valid after every piece
//
// Each piece replaces the whole file: its text so far (kept in memory) and the new closing go
// into a temporary file renamed over the path, so a reader sees the old file or the new one,
// never a closing half overwritten (a reader that opened the old file goes on reading it whole).
// Rewriting costs a copy of the file per piece, small beside the work that makes a piece. A file
// that cannot be replaced (other names, another owner) is written in place instead: a reader
// may then catch a piece half written. Pieces are flushed, not synced; the file is synced when
// it closes.

// Appends len bytes of text to s->body; returns false without memory.
static bool body_append(cli_stream_file *s, const char *text, size_t len)
{
    if (s->len + len + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + len + 1)
            cap *= 2;
        char *grown = realloc(s->body, cap);
        if (!grown)
            return false;
        s->body = grown;
        s->cap = cap;
    }
    memcpy(s->body + s->len, text, len);
    s->len += len;
    s->body[s->len] = '\0';
    return true;
}

// Keeps a copy of closing as the text that ends the file now; returns false without memory.
static bool set_closing(cli_stream_file *s, const char *closing)
{
    char *copy = strdup(closing);
    if (!copy)
        return false;
    free(s->closing);
    s->closing = copy;
    return true;
}

// The file's contents as one piece of writing: the body and a closing.
typedef struct contents {
    const char *body;
    size_t len;
    const char *closing;
} contents;

static int write_contents(FILE *f, const void *ctx)
{
    const contents *c = ctx;
    if (c->len && fwrite(c->body, 1, c->len, f) != c->len)
        return -1;
    fputs(c->closing, f);
    return ferror(f) ? -1 : 0;
}

// Writes the body and closing into a new file renamed over s's path. Returns 0, or -1 with
// errno set (nothing is left behind; the file keeps what it held).
static int replace_file(cli_stream_file *s, const char *closing)
{
    contents c = {s->body, s->len, closing};
    return replace_with(&s->out, write_contents, &c, false);
}

// Writes the body's last `added` bytes and closing over the old closing of a file written in
// place, in one write. Returns 0, or -1 with errno set.
static int write_in_place(cli_stream_file *s, size_t added, const char *closing)
{
    size_t at = s->len - added, clen = strlen(closing), len = added + clen;
    char *piece = malloc(len + 1);
    if (!piece)
        return -1;
    memcpy(piece, s->body + at, added);
    memcpy(piece + added, closing, clen);
    int rc = 0;
    for (size_t done = 0; done < len && rc == 0;) {
        ssize_t n = pwrite(s->fd, piece + done, len - done, (off_t)(at + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            rc = -1;
        else
            done += (size_t)n;
    }
    free(piece);
    if (rc == 0 && ftruncate(s->fd, (off_t)len + (off_t)at) != 0)
        rc = -1;
    return rc;
}

// Marks *s failed and frees what it holds; returns rc.
static int open_failed(cli_stream_file *s, int rc)
{
    free(s->body);
    free(s->closing);
    s->body = s->closing = NULL;
    s->failed = true;
    return rc;
}

int cli_stream_file_open(cli_stream_file *s, const cli_output *out, const char *head,
                         const char *closing)
{
    memset(s, 0, sizeof *s);
    s->out = *out;
    s->fd = -1;
    if (!set_closing(s, closing)) {
        cli_error("no memory for %s", out->to_stdout ? "standard output" : out->path);
        return open_failed(s, CLI_FAILED);
    }
    if (out->to_stdout) {
        fputs(head, stdout);
        if (fflush(stdout) != 0) {
            cli_error("writing to standard output: %s", strerror(errno));
            return open_failed(s, CLI_FAILED);
        }
        return 0;
    }
    cli_output now;
    int rc = check(out->option, out->given, false, true, &now);
    if (rc)
        return open_failed(s, rc);
    s->out = now;
    if (!body_append(s, head, strlen(head))) {
        cli_error("no memory for %s", now.path);
        return open_failed(s, CLI_FAILED);
    }
    s->in_place = !can_replace(&now);
    if (s->in_place) {
        FILE *f = open_in_place(&now);
        contents c = {s->body, s->len, closing};
        int failed = !f || write_contents(f, &c) != 0 || fflush(f) != 0;
        int saved = errno;
        if (f && !failed) {
            s->fd = dup(fileno(f));
            failed = s->fd < 0;
            saved = errno;
        }
        if (f)
            fclose(f);
        if (failed) {
            cli_error("cannot write %s: %s", now.path, strerror(saved));
            return open_failed(s, CLI_FAILED);
        }
        return 0;
    }
    if (replace_file(s, closing) != 0) {
        cli_error("cannot write %s: %s", now.path, strerror(errno));
        return open_failed(s, CLI_FAILED);
    }
    return 0;
}

int cli_stream_file_append(cli_stream_file *s, const char *text, size_t len,
                           const char *closing)
{
    if (s->failed)
        return CLI_FAILED;
    if (s->out.to_stdout) {
        s->any = true;
        if ((len && fwrite(text, 1, len, stdout) != len) || fflush(stdout) != 0) {
            cli_error("writing to standard output: %s", strerror(errno));
            s->failed = true;
            return CLI_FAILED;
        }
        if (!set_closing(s, closing)) {
            cli_error("no memory for standard output");
            s->failed = true;
            return CLI_FAILED;
        }
        return 0;
    }
    size_t before = s->len;
    bool ok = body_append(s, text, len);
    int saved = ok ? 0 : ENOMEM;
    if (ok) {
        ok = (s->in_place ? write_in_place(s, len, closing) : replace_file(s, closing)) == 0;
        saved = errno;
    }
    if (ok && !set_closing(s, closing)) {
        ok = false;
        saved = ENOMEM;
    }
    if (!ok) {
        s->len = before;  // the file keeps what it held; an in-place file gets its old end back
        if (s->in_place)
            write_in_place(s, 0, s->closing);
        s->failed = true;
        cli_error("cannot write %s: %s (it keeps the records written before)", s->out.path,
                  strerror(saved));
        return CLI_FAILED;
    }
    s->any = true;
    return 0;
}

// Makes the file at path durable: opens it and syncs it. Returns 0, or -1 with errno set.
static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int cli_stream_file_close(cli_stream_file *s)
{
    int rc = s->failed ? CLI_FAILED : 0;
    if (s->out.to_stdout) {
        if (!s->failed && s->closing &&
            (fputs(s->closing, stdout) < 0 || fflush(stdout) != 0)) {
            cli_error("writing to standard output: %s", strerror(errno));
            rc = CLI_FAILED;
        }
    } else if (!s->failed) {
        bool ok = s->in_place ? fsync(s->fd) == 0 : sync_path(s->out.path) == 0;
        if (!ok) {
            cli_error("cannot write %s: %s", s->out.path, strerror(errno));
            rc = CLI_FAILED;
        }
    }
    if (s->fd >= 0 && close(s->fd) != 0 && !rc) {
        cli_error("cannot write %s: %s", s->out.path, strerror(errno));
        rc = CLI_FAILED;
    }
    s->fd = -1;
    free(s->body);
    free(s->closing);
    s->body = s->closing = NULL;
    s->len = s->cap = 0;
    return rc;
}
