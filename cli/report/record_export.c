// SPDX-License-Identifier: MIT
// The machine-readable writers, JSON and CSV, both driven by one table of record fields.
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "record.h"

// ---------------------------------------------------------------------------------------------
// The fields

typedef enum field_kind {
    FIELD_STRING,   // char array, written escaped (JSON) or quoted when needed (CSV)
    FIELD_U64,      // uint64_t
    FIELD_INT,      // int
    FIELD_I64,      // int64_t
    FIELD_DOUBLE,   // double; NaN and Inf are written as null (JSON) or an empty cell (CSV)
    FIELD_PASS,     // bool derived from the outcome
    FIELD_OUTCOME,  // the outcome as a stable lowercase word
    FIELD_BOOL,     // bool
    FIELD_IDENTICAL,  // bool derived from the comparison: compared, no element differs
} field_kind;

typedef struct record_field {
    const char *name;  // JSON key and CSV column
    field_kind kind;
    size_t offset;     // in xconv_record
    size_t size;       // of the member, to bound strings that lack a terminator
} record_field;

#define FIELD(member, kind) \
    { #member, kind, offsetof(xconv_record, member), sizeof(((xconv_record *)0)->member) }

// Both formats write these, in this order (docs/guide/reading-results.md lists their meanings).
static const record_field fields[] = {
    FIELD(device, FIELD_STRING),      FIELD(backend, FIELD_STRING),
    FIELD(driver, FIELD_STRING),      FIELD(libraries, FIELD_STRING),
    FIELD(variant, FIELD_STRING),
    FIELD(family, FIELD_STRING),      FIELD(shape_name, FIELD_STRING),
    FIELD(shape, FIELD_STRING),       FIELD(dtype, FIELD_STRING),
    FIELD(math, FIELD_STRING),        FIELD(reference, FIELD_STRING),
    FIELD(seed, FIELD_U64),           FIELD(repeat, FIELD_INT),
    FIELD(median_ms, FIELD_DOUBLE),   FIELD(min_ms, FIELD_DOUBLE),
    FIELD(max_ms, FIELD_DOUBLE),      FIELD(compile_ms, FIELD_DOUBLE),
    FIELD(gflops, FIELD_DOUBLE),      FIELD(gbps, FIELD_DOUBLE),
    FIELD(floor_ms, FIELD_DOUBLE),    FIELD(floor_share, FIELD_DOUBLE),
    FIELD(max_norm_err, FIELD_DOUBLE), FIELD(error_block_h, FIELD_I64),
    FIELD(error_block_w, FIELD_I64),  FIELD(max_block_err, FIELD_DOUBLE),
    FIELD(threshold, FIELD_DOUBLE),
    FIELD(worst_index, FIELD_I64),
    { "pass", FIELD_PASS, offsetof(xconv_record, outcome), sizeof(xconv_outcome) },
    FIELD(outcome, FIELD_OUTCOME),    FIELD(note, FIELD_STRING),
};
#define FIELD_COUNT (sizeof fields / sizeof fields[0])

#define CMP_FIELD(name, member, kind) \
    { name, kind, offsetof(xconv_record, cmp.member), sizeof(((xconv_record *)0)->cmp.member) }

// The comparison's fields, written after the others when any record has a comparison.
static const record_field cmp_fields[] = {
    CMP_FIELD("compared", compared, FIELD_BOOL),
    CMP_FIELD("bitwise_identical", differing, FIELD_IDENTICAL),
    CMP_FIELD("differing_elements", differing, FIELD_I64),
    CMP_FIELD("max_ulp", max_ulp, FIELD_U64),
    CMP_FIELD("other_backend", other, FIELD_STRING),
    CMP_FIELD("other_median_ms", other_ms, FIELD_DOUBLE),
    CMP_FIELD("time_ratio", ratio, FIELD_DOUBLE),
};
#define CMP_FIELD_COUNT (sizeof cmp_fields / sizeof cmp_fields[0])

// Whether any of the count records has a comparison (its fields are then written).
static bool any_comparison(const xconv_record *recs, int count)
{
    for (int i = 0; i < count; i++)
        if (recs[i].cmp.present)
            return true;
    return false;
}

// Returns field i of the fields written (the record's, then the comparison's when with_cmp).
static const record_field *field_at(size_t i)
{
    return i < FIELD_COUNT ? &fields[i] : &cmp_fields[i - FIELD_COUNT];
}

// Returns the address of field fd in rec.
static const void *field_ptr(const xconv_record *rec, const record_field *fd)
{
    return (const char *)rec + fd->offset;
}

// Writes a number field (anything but a string) as text, or nothing when it is not finite;
// returns false for a non-finite double (the caller writes null or leaves the cell empty).
static bool write_number(FILE *f, const xconv_record *rec, const record_field *fd)
{
    const void *v = field_ptr(rec, fd);
    switch (fd->kind) {
    case FIELD_U64: fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)v); return true;
    case FIELD_INT: fprintf(f, "%d", *(const int *)v); return true;
    case FIELD_I64: fprintf(f, "%lld", (long long)*(const int64_t *)v); return true;
    case FIELD_PASS:
        fputs(rec->outcome == XCONV_OUTCOME_PASS ? "true" : "false", f);
        return true;
    case FIELD_BOOL: fputs(*(const bool *)v ? "true" : "false", f); return true;
    case FIELD_IDENTICAL:
        fputs(rec->cmp.compared && rec->cmp.differing == 0 ? "true" : "false", f);
        return true;
    case FIELD_DOUBLE: {
        double d = *(const double *)v;
        if (!isfinite(d))
            return false;
        fprintf(f, "%.9g", d);
        return true;
    }
    default: return true;
    }
}

// Returns the length of the valid UTF-8 sequence at s (at most `left` bytes), or 0.
static size_t utf8_length(const unsigned char *s, size_t left)
{
    size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;
    if (s[0] < 0xC2 || s[0] > 0xF4 || len > left)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    // Overlong three- and four-byte forms, UTF-16 surrogates and code points past U+10FFFF.
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return len;
}

// ---------------------------------------------------------------------------------------------
// JSON

// Writes s (at most max bytes) as a JSON string: quotes, backslashes and control characters
// escaped, and any byte that is not valid UTF-8 replaced by U+FFFD.
void xconv_json_write_string(FILE *f, const char *s, size_t max)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strnlen(s, max);
    putc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char c = u[i];
        if (c == '"' || c == '\\') {
            putc('\\', f);
            putc(c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\r') {
            fputs("\\r", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(f, "\\u%04x", c);
        } else if (c >= 0x80) {
            size_t n = utf8_length(u + i, len - i);
            if (n == 0) {
                fputs("\\ufffd", f);
                n = 1;
            } else {
                fwrite(u + i, 1, n, f);
            }
            i += n;
            continue;
        } else {
            putc(c, f);
        }
        i++;
    }
    putc('"', f);
}

void xconv_json_write_member(FILE *f, const char *lead, const char *s, size_t max)
{
    fputs(lead, f);
    xconv_json_write_string(f, s, max);
}

// Writes one record as a one-line JSON object (with the comparison's fields when with_cmp).
static void json_record(FILE *f, const xconv_record *rec, bool with_cmp)
{
    putc('{', f);
    for (size_t i = 0; i < FIELD_COUNT + (with_cmp ? CMP_FIELD_COUNT : 0); i++) {
        const record_field *fd = field_at(i);
        fprintf(f, "%s\"%s\": ", i ? ", " : "", fd->name);
        if (fd->kind == FIELD_STRING)
            xconv_json_write_string(f, field_ptr(rec, fd), fd->size);
        else if (fd->kind == FIELD_OUTCOME)
            fprintf(f, "\"%s\"", xconv_outcome_word(rec->outcome));
        else if (!write_number(f, rec, fd))
            fputs("null", f);
    }
    putc('}', f);
}

// Returns 0 when everything written so far reached the file, else -1 (errno set by the failing
// call).
static int finish(FILE *f)
{
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}

void xconv_json_write_strings(FILE *f, const xconv_json_str *members, size_t n, bool first)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\"%s\": ", first && i == 0 ? "" : ", ", members[i].key);
        xconv_json_write_string(f, members[i].value, members[i].size);
    }
}

void xconv_json_write_run_info(FILE *f, const xconv_run_info *info)
{
    xconv_json_write_member(f, "\"version\": ", info->tool_version, sizeof info->tool_version);
    xconv_json_write_member(f, ",\n  \"commit\": ", info->commit, sizeof info->commit);
    xconv_json_write_member(f, ",\n  \"date\": ", info->date, sizeof info->date);
    xconv_json_write_member(f, ",\n  \"command\": ", info->command, sizeof info->command);
}

void xconv_json_write_head(FILE *f, const xconv_run_info *info, const char *kind)
{
    fputs("{\n  \"tool\": \"xconv\",\n  ", f);
    xconv_json_write_run_info(f, info);
    if (kind)
        fprintf(f, ",\n  \"kind\": \"%s\"", kind);
    fputs(",\n  \"records\": [", f);
}

void xconv_json_write_record(FILE *f, const xconv_record *rec, bool first, bool with_cmp)
{
    fputs(first ? "\n    " : ",\n    ", f);
    json_record(f, rec, with_cmp);
}

const char *xconv_json_closing(bool any_records)
{
    return any_records ? "\n  ]\n}\n" : "]\n}\n";
}

int xconv_records_write_json(FILE *f, const xconv_run_info *info, const xconv_record *recs,
                             int count)
{
    bool with_cmp = any_comparison(recs, count);
    xconv_json_write_head(f, info, with_cmp ? "parity" : NULL);
    for (int i = 0; i < count && !ferror(f); i++)
        xconv_json_write_record(f, &recs[i], i == 0, with_cmp);
    fputs(xconv_json_closing(count > 0), f);
    return finish(f);
}

// ---------------------------------------------------------------------------------------------
// CSV

void xconv_csv_write_string(FILE *f, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    bool quote = len > 0 && (s[0] == ' ' || s[len - 1] == ' ');
    for (size_t i = 0; i < len && !quote; i++)
        quote = strchr(",\"\r\n", s[i]) != NULL;
    if (!quote) {
        fwrite(s, 1, len, f);
        return;
    }
    putc('"', f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            putc('"', f);
        putc(s[i], f);
    }
    putc('"', f);
}

void xconv_csv_write_header(FILE *f, bool with_cmp)
{
    size_t nfields = FIELD_COUNT + (with_cmp ? CMP_FIELD_COUNT : 0);
    for (size_t i = 0; i < nfields; i++)
        fprintf(f, "%s%s", i ? "," : "", field_at(i)->name);
    putc('\n', f);
}

void xconv_csv_write_row(FILE *f, const xconv_record *rec, bool with_cmp)
{
    size_t nfields = FIELD_COUNT + (with_cmp ? CMP_FIELD_COUNT : 0);
    for (size_t i = 0; i < nfields; i++) {
        const record_field *fd = field_at(i);
        if (i)
            putc(',', f);
        if (fd->kind == FIELD_STRING)
            xconv_csv_write_string(f, field_ptr(rec, fd), fd->size);
        else if (fd->kind == FIELD_OUTCOME)
            fputs(xconv_outcome_word(rec->outcome), f);
        else
            write_number(f, rec, fd);
    }
    putc('\n', f);
}

int xconv_records_write_csv(FILE *f, const xconv_record *recs, int count)
{
    bool with_cmp = any_comparison(recs, count);
    xconv_csv_write_header(f, with_cmp);
    for (int r = 0; r < count && !ferror(f); r++)
        xconv_csv_write_row(f, &recs[r], with_cmp);
    return finish(f);
}
