// SPDX-License-Identifier: MIT
// Opening an input file for reading without ever blocking on it: the one way xconv's readers
// open the files they are given.
#ifndef XCONV_FILE_OPEN_H
#define XCONV_FILE_OPEN_H

#include <stdio.h>
#include <sys/stat.h>

// Opens path for reading without blocking (a FIFO with no writer, a socket or a device is never
// waited on) and returns it with *sb filled when it is a regular file. Returns NULL with errno
// set otherwise: open's error (ENOENT, EACCES, ...), or EINVAL for a path that is not a regular
// file.
FILE *xconv_file_open_regular(const char *path, struct stat *sb);

// The reason xconv_file_open_regular failed, for a message: "not a regular file" for EINVAL,
// else strerror(err).
const char *xconv_file_open_why(int err);

#endif // XCONV_FILE_OPEN_H
