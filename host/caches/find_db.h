// SPDX-License-Identifier: MIT
// The find-db's file (internal header): its text format, and reading it into a cache.
#ifndef XCONV_FIND_DB_H
#define XCONV_FIND_DB_H

#include "caches/cache.h"

#define XCONV_FIND_DB_FILE "find.db"
#define XCONV_FIND_DB_HEADER "# xconv find-db 1\n"

// Parses a find-db file's text (len bytes) into a new array *recs of *count records (NULL, 0
// when it holds none). Returns the number of problems found (0: a sound file); the good records
// are kept either way and `why` (why_len bytes) gets the first problem ("line 3: no shape").
// Returns -1 without memory.
int xconv_find_db_parse(const char *text, size_t len, xconv_find_record **recs, int *count,
                        char *why, size_t why_len);

// Returns the file text of count records (header first) as a new malloc'd string, or NULL
// without memory.
char *xconv_find_db_format(const xconv_find_record *recs, int count);

// Appends a copy of entry e to r's entries; returns false without memory.
bool xconv_find_record_append(xconv_find_record *r, const xconv_find_entry *e);

// Ranks r's entries: passing ones fastest first, then the others (qsort's order among them).
void xconv_find_record_rank(xconv_find_record *r);

// Copies src's key, entries included, into *dst (which owns its new entries); returns false
// without memory.
bool xconv_find_record_copy(xconv_find_record *dst, const xconv_find_record *src);

// Rereads cache's find-db when the file changed since it was last read (the caller holds
// cache->mutex). A corrupted file is set aside as find.db.corrupt-DATE-PID, its good records
// written back, and a warning added. Returns XCONV_OK, or XCONV_ERR_IO / XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_find_db_refresh(xconv_cache *cache, xconv_error *err);

#endif // XCONV_FIND_DB_H
