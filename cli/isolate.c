// SPDX-License-Identifier: MIT
// Running a lost device's remaining cases in new processes of xconv (exec, never a bare fork:
// CUDA is not fork-safe once cuInit ran) and receiving their records through a pipe.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xconv/xconv.h>

#include "cli.h"
#include "interrupt.h"
#include "isolate.h"

extern char **environ;

// One message on the pipe: a header, then `bytes` of record (none for a begin).
enum { MSG_MAGIC = 0x78636f6e, MSG_BEGIN = 1, MSG_RECORD = 2, MSG_MAX = 3800 };

typedef struct msg_header {
    uint32_t magic;
    int32_t type;
    int32_t index;
    uint32_t bytes;
} msg_header;

// ---------------------------------------------------------------------------------------------
// The worker's side

int cli_worker_init(cli_worker *w)
{
    memset(w, 0, sizeof *w);
    const char *v = getenv("XCONV_WORKER");
    if (!v || !*v)
        return 0;
    char end = 0;
    if (sscanf(v, "%d:%d:%d%c", &w->fd, &w->device, &w->first, &end) != 3 || w->fd < 3 ||
        w->device < 0 || w->first < 0) {
        fprintf(stderr, "xconv: XCONV_WORKER='%s' is not FD:DEVICE:CASE (it is set by xconv "
                        "for its own worker processes)\n", v);
        return CLI_USAGE;
    }
    w->active = true;
    return 0;
}

// Writes one message in one write (under PIPE_BUF: never interleaved or split). Returns 0 or -1.
static int send_msg(const cli_worker *w, int type, int index, const void *data, size_t bytes)
{
    char buf[sizeof(msg_header) + MSG_MAX];
    if (bytes > MSG_MAX)
        return -1;
    msg_header h = {.magic = MSG_MAGIC, .type = type, .index = index, .bytes = (uint32_t)bytes};
    memcpy(buf, &h, sizeof h);
    if (bytes)
        memcpy(buf + sizeof h, data, bytes);
    size_t len = sizeof h + bytes;
    ssize_t n;
    do
        n = write(w->fd, buf, len);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

int cli_worker_begin(const cli_worker *w, int index)
{
    return send_msg(w, MSG_BEGIN, index, NULL, 0);
}

int cli_worker_record(const cli_worker *w, int index, const void *rec, size_t bytes)
{
    return send_msg(w, MSG_RECORD, index, rec, bytes);
}

// ---------------------------------------------------------------------------------------------
// The parent's side

// The path this program runs from: /proc/self/exe where it can be executed, else argv[0].
static const char *self_path(char **argv)
{
    return access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : argv[0];
}

// Returns a copy of the environment with XCONV_WORKER=fd:device:first in place of any other
// (free with free_env), or NULL without memory.
static char **worker_env(int fd, int device, int first)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    char *mine = malloc(64);
    if (!env || !mine) {
        free(env);
        free(mine);
        return NULL;
    }
    snprintf(mine, 64, "XCONV_WORKER=%d:%d:%d", fd, device, first);
    size_t k = 0;
    env[k++] = mine;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "XCONV_WORKER=", 13) != 0)
            env[k++] = environ[i];
    env[k] = NULL;
    return env;
}

// Starts a worker for cases from `first` of device `device` writing to a new pipe; returns its
// pid and the pipe's read end in *fd, or -1 with the reason in why.
static pid_t spawn_worker(char **argv, int device, int first, int *fd, char *why, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, len, "pipe: %s", strerror(errno));
        return -1;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);  // the write end stays open across exec
    char **env = worker_env(fds[1], device, first);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);  // stdout is ours
    // A process group of its own: a Ctrl-C reaches this process only, which passes the stop on
    // once (a second SIGINT would stop the worker at once instead of after its case).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid = -1;
    const char *path = self_path(argv);
    int rc = env ? (strchr(path, '/') ? posix_spawn : posix_spawnp)(&pid, path, &fa, &attr,
                                                                   argv, env)
                 : ENOMEM;
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    if (env)
        free(env[0]);
    free(env);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        snprintf(why, len, "starting %s: %s", path, strerror(rc));
        return -1;
    }
    *fd = fds[0];
    return pid;
}

// Reads exactly len bytes from fd; returns 0, or -1 at the end of the pipe or an error.
static int read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

// Waits until fd has data or ends; a stop asked of this process while waiting is passed on to
// the worker once. Returns 0 when fd can be read.
static int wait_readable(int fd, pid_t pid, bool *forwarded)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = poll(&p, 1, 200);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
        int sig = cli_interrupted();
        if (sig && !*forwarded) {
            kill(pid, sig);
            *forwarded = true;
        }
    }
}

// Describes how worker pid ended into why ("killed by signal 11 (Segmentation fault)").
static void describe_end(int status, char *why, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(why, len, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(why, len, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(why, len, "ended (wait status %d)", status);
}

// Receives a worker's messages until its pipe ends: *next moves past each record received,
// *running names the case it started and has not finished (-1: none).
static void receive(int fd, pid_t pid, const cli_isolate_ops *ops, int *next, int *running)
{
    char *rec = malloc(ops->record_bytes ? ops->record_bytes : 1);
    bool forwarded = false;
    msg_header h;
    while (rec && wait_readable(fd, pid, &forwarded) == 0 && read_full(fd, &h, sizeof h) == 0) {
        bool ok = h.magic == MSG_MAGIC &&
                  ((h.type == MSG_RECORD && h.bytes == ops->record_bytes && h.index == *next) ||
                   (h.type == MSG_BEGIN && h.bytes == 0 && h.index == *next));
        if (!ok) {
            fprintf(stderr, "xconv: a worker process sent a malformed message; it is stopped\n");
            kill(pid, SIGKILL);
            break;
        }
        if (h.type == MSG_BEGIN) {
            *running = h.index;
            ops->begin(ops->user, h.index);
            continue;
        }
        if (read_full(fd, rec, h.bytes) != 0)
            break;
        ops->record(ops->user, h.index, rec);
        *next = h.index + 1;
        *running = -1;
    }
    free(rec);
}

int cli_isolate_run(char **argv, int device, int first, int end, const cli_isolate_ops *ops)
{
    int next = first;
    while (next < end && !cli_interrupted()) {
        char why[512];
        int fd = -1;
        pid_t pid = spawn_worker(argv, device, next, &fd, why, sizeof why);
        if (pid < 0) {
            fprintf(stderr, "xconv: cannot run the cases left in a new process: %s\n", why);
            char msg[700];
            snprintf(msg, sizeof msg, "not run: its device was lost for good at an earlier case "
                                      "and no new process could be started (%s)", why);
            for (; next < end; next++)
                ops->died(ops->user, next, msg);
            return CLI_FAILED;
        }
        int running = -1, before = next;
        receive(fd, pid, ops, &next, &running);
        close(fd);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (next >= end || cli_interrupted() || (clean && running < 0 && next > before))
            continue;  // done, stopped, or its device was lost for good too: the next one goes on
        int lost = running >= 0 ? running : next;
        char end_why[128], msg[700];
        describe_end(status, end_why, sizeof end_why);
        snprintf(msg, sizeof msg, "the process running this case (a new one: the device was "
                                  "lost for good at an earlier case) %s%s", end_why,
                 running < 0 ? " before starting it" : "");
        ops->died(ops->user, lost, msg);
        next = lost + 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Test faults

// Parses XCONV_TEST_FAULT: returns the fault for case `index` (0: none), or -1 when malformed.
static int parse_faults(int index)
{
    const char *v = getenv("XCONV_TEST_FAULT");
    if (!v || !*v)
        return 0;
    int found = 0;
    for (const char *p = v; *p;) {
        char kind[16];
        int at = -1, used = 0;
        if (sscanf(p, "%d:%15[a-z]%n", &at, kind, &used) != 2 || at < 0)
            return -1;
        int f = !strcmp(kind, "lose")     ? XCONV_TEST_FAULT_LOSE
                : !strcmp(kind, "kernel") ? XCONV_TEST_FAULT_KERNEL
                : !strcmp(kind, "abort")  ? CLI_TEST_ABORT
                                          : -1;
        if (f < 0)
            return -1;
        if (at == index && !found)
            found = f;
        p += used;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return found;
}

int cli_test_fault(int index)
{
    int f = parse_faults(index);
    return f > 0 ? f : 0;
}

int cli_test_fault_check(void)
{
    if (parse_faults(-1) >= 0)
        return 0;
    fprintf(stderr, "xconv: XCONV_TEST_FAULT='%s' is not CASE:KIND[,CASE:KIND...] with KIND "
                    "lose, kernel or abort\n", getenv("XCONV_TEST_FAULT"));
    return CLI_USAGE;
}
