// SPDX-License-Identifier: MIT
// Shape files: one named, weighted shape a line, in xconv's SPEC syntax or as a benchdnn
// descriptor, read into an array of entries.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xconv/xconv.h>

#include "core/contract.h"

// The longest line a shape file may hold, and the largest file read.
#define LINE_MAX_CHARS 4096
#define FILE_MAX_BYTES (16u << 20)

// ---------------------------------------------------------------------------------------------
// One line

typedef struct line_fields {
    char name[XCONV_SHAPE_NAME_MAX];
    bool has_name, has_weight;
    double weight;
    char shape[LINE_MAX_CHARS + 1];  // the shape fields joined by one space
    size_t shape_len;
} line_fields;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Returns true when field [b, e) starts with prefix.
static bool starts_with(const char *b, const char *e, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(e - b) >= n && memcmp(b, prefix, n) == 0;
}

// Stores name=VALUE's value ([b, e), quotes around it removed); returns XCONV_OK or
// XCONV_ERR_PARSE.
static xconv_status take_name(const char *b, const char *e, line_fields *lf, xconv_error *err)
{
    if (lf->has_name)
        return xconv_error_set(err, XCONV_ERR_PARSE, "name given twice");
    if (e - b >= 2 && *b == '"' && e[-1] == '"') {
        b++;
        e--;
    }
    if (b == e)
        return xconv_error_set(err, XCONV_ERR_PARSE, "empty name");
    for (const char *c = b; c < e; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7F || *c == '"')
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "name '%.*s' holds a quote or control character",
                                   (int)(e - b), b);
    if ((size_t)(e - b) >= sizeof lf->name)
        return xconv_error_set(err, XCONV_ERR_PARSE, "name '%.*s' is longer than %d characters",
                               (int)(e - b), b, XCONV_SHAPE_NAME_MAX - 1);
    memcpy(lf->name, b, (size_t)(e - b));
    lf->name[e - b] = '\0';
    lf->has_name = true;
    return XCONV_OK;
}

// Stores weight=VALUE's value ([b, e)); returns XCONV_OK or XCONV_ERR_PARSE unless it is a
// positive finite number.
static xconv_status take_weight(const char *b, const char *e, line_fields *lf, xconv_error *err)
{
    if (lf->has_weight)
        return xconv_error_set(err, XCONV_ERR_PARSE, "weight given twice");
    char buf[64];
    size_t len = (size_t)(e - b);
    char *end = NULL;
    double w = 0;
    if (len > 0 && len < sizeof buf && (*b == '.' || (*b >= '0' && *b <= '9')) &&
        strspn(b, "0123456789.eE+-") >= len) {
        memcpy(buf, b, len);
        buf[len] = '\0';
        errno = 0;
        w = strtod(buf, &end);
    }
    if (!end || *end || errno || !isfinite(w) || !(w > 0))
        return xconv_error_set(err, XCONV_ERR_PARSE,
                               "weight '%.*s' is not a positive number (how often the layer "
                               "occurs, e.g. weight=3)", (int)len, b);
    lf->weight = w;
    lf->has_weight = true;
    return XCONV_OK;
}

// Appends a shape field [b, e) to lf->shape; returns XCONV_OK.
static xconv_status take_shape(const char *b, const char *e, line_fields *lf)
{
    size_t len = (size_t)(e - b);
    if (lf->shape_len)
        lf->shape[lf->shape_len++] = ' ';
    memcpy(lf->shape + lf->shape_len, b, len);  // fits: fields come from a line of at most
    lf->shape_len += len;                       // LINE_MAX_CHARS characters
    lf->shape[lf->shape_len] = '\0';
    return XCONV_OK;
}

// Splits line into fields (whitespace outside double quotes separates; '#' outside quotes ends
// the line) and sorts them into *lf; returns XCONV_OK or XCONV_ERR_PARSE.
static xconv_status split_fields(const char *line, line_fields *lf, xconv_error *err)
{
    const char *c = line;
    for (;;) {
        while (*c && is_blank(*c))
            c++;
        if (!*c || *c == '#')
            return XCONV_OK;
        const char *b = c;
        bool quoted = false;
        for (; *c && (quoted || (!is_blank(*c) && *c != '#')); c++)
            if (*c == '"')
                quoted = !quoted;
        if (quoted)
            return xconv_error_set(err, XCONV_ERR_PARSE, "unterminated quote in '%s'", b);
        xconv_status st;
        if (starts_with(b, c, "name="))
            st = take_name(b + 5, c, lf, err);
        else if (starts_with(b, c, "weight="))
            st = take_weight(b + 7, c, lf, err);
        else
            st = take_shape(b, c, lf);
        if (st)
            return st;
    }
}

// Returns true when shape text is in xconv's SPEC syntax (it starts "key=" or "key ="), false
// for a benchdnn descriptor.
static bool is_spec(const char *shape)
{
    const char *c = shape;
    while ((*c >= 'a' && *c <= 'z') || *c == '_')
        c++;
    while (*c == ' ')
        c++;
    return c != shape && *c == '=';
}

xconv_status xconv_shape_line_parse(const char *line, xconv_shape_entry *entry, bool *blank,
                                    xconv_error *err)
{
    if (XCONV_NULL_ARG(err, line) || XCONV_NULL_ARG(err, entry) || XCONV_NULL_ARG(err, blank))
        return XCONV_ERR_INVALID;
    *blank = false;
    if (strlen(line) > LINE_MAX_CHARS)
        return xconv_error_set(err, XCONV_ERR_PARSE, "line longer than %d characters",
                               LINE_MAX_CHARS);
    line_fields *lf = calloc(1, sizeof *lf);
    if (!lf)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a line");
    xconv_status st = split_fields(line, lf, err);
    xconv_shape_entry e;
    memset(&e, 0, sizeof e);
    if (!st && lf->shape_len == 0) {
        if (lf->has_name || lf->has_weight)
            st = xconv_error_set(err, XCONV_ERR_PARSE, "a name or weight without a shape");
        else
            *blank = true;
    } else if (!st && is_spec(lf->shape)) {
        st = xconv_shape_parse(lf->shape, &e.problem, err);
    } else if (!st) {
        char bd_name[XCONV_SHAPE_NAME_MAX] = "";
        st = xconv_shape_parse_benchdnn(lf->shape, &e.problem, bd_name, sizeof bd_name, err);
        if (!st && bd_name[0] && lf->has_name)
            st = xconv_error_set(err, XCONV_ERR_PARSE,
                                 "name given twice (name= and the descriptor's n\"%s\")",
                                 bd_name);
        if (!st && bd_name[0])
            snprintf(lf->name, sizeof lf->name, "%s", bd_name);
    }
    if (!st && !*blank) {
        snprintf(e.name, sizeof e.name, "%s", lf->name);
        e.weight = lf->has_weight ? lf->weight : 1.0;
        *entry = e;
    }
    free(lf);
    return st;
}

// ---------------------------------------------------------------------------------------------
// A file

// Appends e to the growing array *shapes (*count used, *cap allocated); returns false without
// memory.
static bool append(xconv_shape_entry **shapes, int *count, int *cap, const xconv_shape_entry *e)
{
    if (*count == *cap) {
        int grown_cap = *cap ? *cap * 2 : 32;
        xconv_shape_entry *grown = realloc(*shapes, (size_t)grown_cap * sizeof *grown);
        if (!grown)
            return false;
        *shapes = grown;
        *cap = grown_cap;
    }
    (*shapes)[(*count)++] = *e;
    return true;
}

// Returns the entry among shapes[0..count) named name, or NULL.
static const xconv_shape_entry *find_name(const xconv_shape_entry *shapes, int count,
                                          const char *name)
{
    for (int i = 0; name[0] && i < count; i++)
        if (strcmp(shapes[i].name, name) == 0)
            return &shapes[i];
    return NULL;
}

// Parses one line (bytes [b, e) of the text, line number no) and appends its entry; returns
// XCONV_OK or an error prefixed "origin:no: ".
static xconv_status parse_one(const char *b, const char *e, int no, const char *origin,
                              xconv_shape_entry **shapes, int *count, int *cap, xconv_error *err)
{
    if (e > b && e[-1] == '\r')
        e--;
    if (e - b > LINE_MAX_CHARS)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s:%d: line longer than %d characters",
                               origin, no, LINE_MAX_CHARS);
    char line[LINE_MAX_CHARS + 1];
    memcpy(line, b, (size_t)(e - b));
    line[e - b] = '\0';
    xconv_shape_entry entry;
    bool blank = false;
    xconv_status st = xconv_shape_line_parse(line, &entry, &blank, err);
    if (st) {
        xconv_error_prefix(err, "%s:%d", origin, no);
        return st;
    }
    if (blank)
        return XCONV_OK;
    entry.line = no;
    const xconv_shape_entry *twin = find_name(*shapes, *count, entry.name);
    if (twin)
        return xconv_error_set(err, XCONV_ERR_PARSE, "%s:%d: name '%s' already used on line %d",
                               origin, no, entry.name, twin->line);
    if (!append(shapes, count, cap, &entry))
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "%s:%d: no memory for the shapes",
                               origin, no);
    return XCONV_OK;
}

xconv_status xconv_shapes_parse(const char *text, size_t len, const char *origin,
                                xconv_shape_entry **shapes, int *count, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, text) || XCONV_NULL_ARG(err, shapes) || XCONV_NULL_ARG(err, count))
        return XCONV_ERR_INVALID;
    if (!origin)
        origin = "shapes";
    *shapes = NULL;
    *count = 0;
    const char *end = text + len, *b = text;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        b += 3;  // a UTF-8 byte-order mark
    xconv_shape_entry *list = NULL;
    int n = 0, cap = 0;
    xconv_status st = XCONV_OK;
    for (int no = 1; !st && b < end; no++) {
        const char *e = memchr(b, '\n', (size_t)(end - b));
        if (!e)
            e = end;
        if (memchr(b, '\0', (size_t)(e - b)))
            st = xconv_error_set(err, XCONV_ERR_PARSE, "%s:%d: NUL byte (not a text file)",
                                 origin, no);
        else
            st = parse_one(b, e, no, origin, &list, &n, &cap, err);
        b = e + 1;
    }
    if (!st && n == 0)
        st = xconv_error_set(err, XCONV_ERR_PARSE,
                             "%s: no shapes (every line is blank or a comment)", origin);
    if (st) {
        free(list);
        return st;
    }
    *shapes = list;
    *count = n;
    return XCONV_OK;
}

xconv_status xconv_shapes_read(const char *path, xconv_shape_entry **shapes, int *count,
                               xconv_error *err)
{
    if (XCONV_NULL_ARG(err, path) || XCONV_NULL_ARG(err, shapes) || XCONV_NULL_ARG(err, count))
        return XCONV_ERR_INVALID;
    // Opened without blocking, so a FIFO with no writer is refused rather than waited on.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return xconv_error_set(err, XCONV_ERR_IO, "'%s' is not a regular file", path);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return xconv_error_set(err, XCONV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    if ((uint64_t)sb.st_size > FILE_MAX_BYTES) {
        fclose(f);
        return xconv_error_set(err, XCONV_ERR_PARSE,
                               "'%s' is larger than %u MiB: not a shape file", path,
                               FILE_MAX_BYTES >> 20);
    }
    size_t len = (size_t)sb.st_size;
    char *text = malloc(len + 1);
    if (!text) {
        fclose(f);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory to read '%s'", path);
    }
    size_t got = fread(text, 1, len, f);
    bool failed = ferror(f) || got != len;
    fclose(f);
    xconv_status st = failed ? xconv_error_set(err, XCONV_ERR_IO, "cannot read '%s'", path)
                             : xconv_shapes_parse(text, len, path, shapes, count, err);
    free(text);
    return st;
}

void xconv_shapes_free(xconv_shape_entry *shapes)
{
    free(shapes);
}
