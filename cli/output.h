// SPDX-License-Identifier: MIT
// Output files: a path is checked before any work (what is there is honoured: a directory, a
// device, a FIFO or a read-only file is refused, a symbolic link is followed to its target),
// whole files are written through a temporary file renamed into place (keeping an existing
// file's mode and owner), and "-" is standard output.
#ifndef XCONV_CLI_OUTPUT_H
#define XCONV_CLI_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

// Where one output goes, as cli_output_check found it.
typedef struct cli_output {
    const char *option;      // the option that named it ("--json"), for messages
    const char *given;       // the path as given
    bool to_stdout;          // "-": standard output
    char path[PATH_MAX];     // the file written: given, or the final target of a symbolic link
    bool exists;             // a regular file is there now
    mode_t mode;             // its permissions, kept by the file that replaces it
    uid_t uid;               // and its owner
    gid_t gid;
} cli_output;

// Checks that `given` can take the output of `option` before any work is done: "-" (when
// allow_stdout) is standard output; a symbolic link is followed to its final target (a note
// says so); the target must be a regular file the user may write or not exist yet in a
// directory the user may write. Fills *out and returns 0, or returns 2 (bad usage) after a
// message naming the option, the path and what is wrong with it.
int cli_output_check(const char *option, const char *given, bool allow_stdout, cli_output *out);

// Returns true when paths a and b name the same file: the same inode when both exist, else the
// same canonical path (the folder resolved, the name kept). "-" is never a file.
bool cli_same_file(const char *a, const char *b);

// Writes a whole file through writer (which returns 0, or -1 with errno set) into a temporary
// file beside out->path, renamed over it when complete: an existing file's mode and owner are
// kept, and nothing is left behind on failure. Standard output is written directly. The path is
// checked again first. Returns 0, 2 when the path is no longer acceptable, or 1 after a
// message when writing failed.
int cli_output_write(const cli_output *out, int (*writer)(FILE *f, const void *ctx),
                     const void *ctx);

// Renders what fn writes (given ctx) into a new string of *len bytes; returns it (free it), or
// NULL when memory ran out or writing failed.
char *cli_render_text(void (*fn)(FILE *f, const void *ctx), const void *ctx, size_t *len);

// A file written a piece at a time that is valid after every piece, for a reader too: the head
// and closing are written when it opens; each appended piece goes where the closing was, with
// the closing after it, the whole file renamed over the path (a file with other names or
// another owner is written in place). The file's text is kept in memory.
typedef struct cli_stream_file {
    cli_output out;
    bool in_place;           // written in place (not replaced): fd is open on it
    int fd;                  // the file written in place, or -1
    char *body;              // the text before the closing (files only)
    size_t len, cap;         // its length and allocation
    char *closing;           // the text that ends the file now
    bool any;                // a piece was appended
    bool failed;             // a write failed: later appends do nothing
} cli_stream_file;

// Opens *s on out with `head` and `closing`: a file gets both at once (mode and owner kept as
// cli_output_write does), standard output gets the head only. Returns 0, or 1 (2 when the path
// is no longer acceptable) after a message.
int cli_stream_file_open(cli_stream_file *s, const cli_output *out, const char *head,
                         const char *closing);

// Appends `len` bytes of text where the closing was and writes `closing` (the closing from now
// on) after them; an empty text with a new closing only changes the ending. Returns 0, or 1
// after a message (the file then keeps what it held before).
int cli_stream_file_append(cli_stream_file *s, const char *text, size_t len,
                           const char *closing);

// Ends *s: standard output gets the closing; a file is synced. Frees what *s holds. Returns 0,
// or 1 after a message.
int cli_stream_file_close(cli_stream_file *s);

#endif // XCONV_CLI_OUTPUT_H
