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

// Writes a whole file as cli_output_write says; keep_open (non-NULL) receives the stream, left
// open at the end of the file. Returns 0, or 1 after a message.
static int write_file(const cli_output *out, int (*writer)(FILE *f, const void *ctx),
                      const void *ctx, FILE **keep_open)
{
    if (!can_replace(out)) {
        FILE *f = open_in_place(out);
        int failed = !f || write_durable(f, writer, ctx) != 0;
        int saved = errno;
        if (f && !keep_open)
            failed |= fclose(f) != 0;
        if (!failed && keep_open)
            *keep_open = f;
        else if (failed && f && keep_open)
            fclose(f);
        if (failed)
            cli_error("cannot write %s: %s", out->path, strerror(saved));
        return failed ? CLI_FAILED : 0;
    }
    char tmp[PATH_MAX + 64];
    int fd = open_temp(out->path, tmp, sizeof tmp);
    if (fd < 0) {
        cli_error("cannot write %s: %s", out->path, strerror(errno));
        return CLI_FAILED;
    }
    FILE *f = keep_mode(fd, out) == 0 ? fdopen(fd, "w") : NULL;
    int failed = !f || write_durable(f, writer, ctx) != 0;
    int saved = errno;
    if (!failed && rename(tmp, out->path) != 0) {
        failed = 1;
        saved = errno;
    }
    if (failed || !keep_open) {
        if (f ? fclose(f) != 0 : close(fd) != 0) {
            if (!failed)
                saved = errno;
            failed = 1;
        }
    } else {
        *keep_open = f;
    }
    if (failed) {
        unlink(tmp);
        cli_error("cannot write %s: %s", out->path, strerror(saved));
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
    return rc ? rc : write_file(&now, writer, ctx, NULL);
}

// ---------------------------------------------------------------------------------------------
// Files valid after every piece

// The first contents of a stream file: its head and closing.
typedef struct first_text {
    const char *head, *closing;
} first_text;

static int write_first(FILE *f, const void *ctx)
{
    const first_text *t = ctx;
    fputs(t->head, f);
    fputs(t->closing, f);
    return ferror(f) ? -1 : 0;
}

int cli_stream_file_open(cli_stream_file *s, const cli_output *out, const char *head,
                         const char *closing)
{
    memset(s, 0, sizeof *s);
    s->out = *out;
    snprintf(s->closing, sizeof s->closing, "%s", closing);
    if (out->to_stdout) {
        s->f = stdout;
        fputs(head, stdout);
        if (fflush(stdout) != 0) {
            cli_error("writing to standard output: %s", strerror(errno));
            s->failed = true;
            return CLI_FAILED;
        }
        return 0;
    }
    cli_output now;
    int rc = check(out->option, out->given, false, true, &now);
    if (rc)
        return rc;
    s->out = now;
    first_text t = {head, closing};
    rc = write_file(&now, write_first, &t, &s->f);
    if (rc) {
        s->failed = true;
        return rc;
    }
    s->closing_at = ftell(s->f) - (long)strlen(closing);
    return 0;
}

// Puts the file back as it was before a failed append: its old closing at its old place.
static void restore(cli_stream_file *s)
{
    clearerr(s->f);
    if (fseek(s->f, s->closing_at, SEEK_SET) == 0) {
        fputs(s->closing, s->f);
        fflush(s->f);
        if (ftruncate(fileno(s->f), s->closing_at + (long)strlen(s->closing)) != 0)
            clearerr(s->f);
    }
}

int cli_stream_file_append(cli_stream_file *s, const char *text, size_t len,
                           const char *closing)
{
    if (s->failed)
        return CLI_FAILED;
    if (s->out.to_stdout) {
        s->any = true;
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
            cli_error("writing to standard output: %s", strerror(errno));
            s->failed = true;
            return CLI_FAILED;
        }
        snprintf(s->closing, sizeof s->closing, "%s", closing);
        return 0;
    }
    long end = s->closing_at + (long)len;
    bool ok = fseek(s->f, s->closing_at, SEEK_SET) == 0 && fwrite(text, 1, len, s->f) == len &&
              fputs(closing, s->f) >= 0 && fflush(s->f) == 0 &&
              ftruncate(fileno(s->f), end + (long)strlen(closing)) == 0;
    if (!ok) {
        int saved = errno;
        restore(s);
        s->failed = true;
        cli_error("cannot write %s: %s (it keeps the records written before)", s->out.path,
                  strerror(saved));
        return CLI_FAILED;
    }
    s->any = true;
    s->closing_at = end;
    snprintf(s->closing, sizeof s->closing, "%s", closing);
    return 0;
}

int cli_stream_file_close(cli_stream_file *s)
{
    if (!s->f)
        return s->failed ? CLI_FAILED : 0;
    int rc = s->failed ? CLI_FAILED : 0;
    if (s->out.to_stdout) {
        if (!s->failed && (fputs(s->closing, stdout) < 0 || fflush(stdout) != 0)) {
            cli_error("writing to standard output: %s", strerror(errno));
            rc = CLI_FAILED;
        }
    } else {
        if (!s->failed && (fflush(s->f) != 0 || fsync(fileno(s->f)) != 0)) {
            cli_error("cannot write %s: %s", s->out.path, strerror(errno));
            rc = CLI_FAILED;
        }
        if (fclose(s->f) != 0 && !rc) {
            cli_error("cannot write %s: %s", s->out.path, strerror(errno));
            rc = CLI_FAILED;
        }
    }
    s->f = NULL;
    return rc;
}
