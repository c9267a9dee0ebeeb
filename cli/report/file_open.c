// SPDX-License-Identifier: MIT
// Opening an input file for reading without ever blocking on it (file_open.h).
#include "file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

FILE *xconv_file_open_regular(const char *path, struct stat *sb)
{
    if (!path || !sb) {
        errno = EFAULT;
        return NULL;
    }
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);  // reads of a regular file never block; cleared all the same
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
    return f;
}

const char *xconv_file_open_why(int err)
{
    return err == EINVAL ? "not a regular file" : strerror(err);
}
