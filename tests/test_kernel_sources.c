// SPDX-License-Identifier: MIT
// Checks the kernel texts embedded at build time against cl/*.cl on disk: each `#include "H"`
// line is replaced by common/H between #line directives that restore the kernel's own line
// numbers, nothing else changes, and no include is left for the OpenCL or NVRTC compiler.
// Runs from the source tree (ctest's working directory).
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/caches/programs.h"
#include "tests/check.h"

// Returns the contents of path as a malloc'd string, or NULL when it cannot be read.
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
            size_t got = fread(text, 1, (size_t)n, f);
            text[got] = '\0';
        }
    }
    fclose(f);
    return text;
}

// Returns the text the build should embed for cl/<stem>.cl (malloc'd), or NULL when a file is
// missing: each include line becomes #line 1 "H", common/H, a newline and #line N "<stem>.cl",
// N being the number of the line after the include.
static char *expected_embedding(const char *stem)
{
    char path[256];
    snprintf(path, sizeof path, "cl/%s.cl", stem);
    char *source = read_text(path);
    if (!source)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        free(source);
        return NULL;
    }
    const char *line = source;
    int number = 1;
    bool ok = true;
    while (*line && ok) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char header[128];
        if (sscanf(line, "#include \"%127[A-Za-z0-9_.]\"", header) == 1) {
            snprintf(path, sizeof path, "common/%s", header);
            char *included = read_text(path);
            ok = included != NULL;
            if (ok)
                fprintf(out, "#line 1 \"%s\"\n%s\n#line %d \"%s.cl\"", header, included,
                        number + 1, stem);
            free(included);
        } else {
            fwrite(line, 1, len, out);
        }
        if (end)
            fputc('\n', out);
        line = end ? end + 1 : line + len;
        number++;
    }
    free(source);
    if (fclose(out) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}

static void test_embedded_sources(void)
{
    const char *const *names = xconv_kernel_source_names();
    int includers = 0;
    for (int i = 0; names[i]; i++) {
        const char *embedded = xconv_kernel_source(names[i]);
        CHECK_MSG(embedded != NULL, "%s is listed but not embedded", names[i]);
        char *expected = expected_embedding(names[i]);
        CHECK_MSG(expected != NULL, "cl/%s.cl or a header it includes cannot be read", names[i]);
        if (!embedded || !expected) {
            free(expected);
            continue;
        }
        CHECK_MSG(strcmp(embedded, expected) == 0, "%s: embedded text differs from cl/%s.cl with "
                  "its includes resolved", names[i], names[i]);
        CHECK_MSG(strstr(embedded, "#include \"") == NULL, "%s keeps an #include", names[i]);
        includers += strstr(embedded, "#line 1 \"xconv_direct_block.h\"") != NULL;
        free(expected);
    }
    // direct_const, direct_tiled, direct_tiled_db and direct_regblock share the family header.
    CHECK_MSG(includers == 4, "%d kernels include xconv_direct_block.h, expected 4", includers);
}

int main(void)
{
    test_embedded_sources();
    return check_summary("test_kernel_sources");
}
