// SPDX-License-Identifier: MIT
// The cache on disk: compiled kernels, kernel bundles and the find-db's records.
#ifndef XCONV_PUBLIC_CACHES_H
#define XCONV_PUBLIC_CACHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/core.h>
#include <xconv/problem.h>
#include <xconv/plans.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// ---------------------------------------------------------------------------------------------
// The cache on disk: compiled kernels and the find-db (docs/find.md)

typedef struct xconv_cache xconv_cache;  // one folder, shared by processes and threads

enum {
    XCONV_CACHE_NO_KERNELS = 1u << 0,   // build every program from source, keep no binaries
    XCONV_CACHE_NO_FIND_DB = 1u << 1,   // "auto" uses the rules only
    XCONV_CACHE_TRUST_STALE = 1u << 2,  // "auto" also uses records made under another driver,
                                        // xconv version or kernel sources (said in its why)
    XCONV_CACHE_DB_READ_ONLY = 1u << 3, // the find-db is read, never written: stores and clears
                                        // fail with XCONV_ERR_IO (set by xconv_cache_open, with
                                        // a warning, when the find-db's lock file is not a file)
};

// Opens the cache in folder dir (made, with its parents, when missing) with XCONV_CACHE_* flags.
// Returns NULL with XCONV_ERR_IO when the folder cannot be made or written (dir naming a file
// that is not a folder included).
xconv_cache *xconv_cache_open(const char *dir, unsigned flags, xconv_error *err);

// Writes the default cache folder, the one the command line uses, into buf (len bytes): from the
// values of XCONV_CACHE_DIR, XDG_CACHE_HOME and HOME that the caller passes (NULL for an unset
// one; the library reads no environment): cache_dir when set, else xdg_cache_home/xconv, else
// home/.cache/xconv. Returns false when there is none: cache_dir is "" or "none", neither of the
// others is set, buf is NULL, or the folder's name does not fit buf.
bool xconv_cache_default_dir(const char *cache_dir, const char *xdg_cache_home, const char *home,
                             char *buf, size_t len);

// Opens the default cache (xconv_cache_default_dir's folder) with XCONV_CACHE_* flags: attached
// to a device, "auto" there reads the find-db that `xconv find` writes, and picks what the
// command line picks. Returns NULL with XCONV_ERR_NOT_FOUND when there is no default folder, or
// with xconv_cache_open's status when it cannot be opened.
xconv_cache *xconv_cache_open_default(const char *cache_dir, const char *xdg_cache_home,
                                      const char *home, unsigned flags, xconv_error *err);

// Closes a cache (devices it is attached to must be closed or detached first); NULL is ignored.
void xconv_cache_close(xconv_cache *cache);

// Returns the cache's folder and its flags.
const char *xconv_cache_dir(const xconv_cache *cache);
unsigned xconv_cache_flags(const xconv_cache *cache);

// What a cache did since it was opened.
typedef struct xconv_cache_stats {
    int kernel_hits;     // programs made from a stored binary
    int kernel_misses;   // programs built from source (their binaries then stored)
    int kernel_rejects;  // stored binaries that did not match or load: rebuilt and replaced
    int db_reads;        // times the find-db file was read and parsed
} xconv_cache_stats;

// Fills *out with the cache's counts.
void xconv_cache_get_stats(xconv_cache *cache, xconv_cache_stats *out);

// Moves the warnings collected since the last call (a corrupted find-db set aside, a file that
// could not be written) into buf (len bytes), one a line, "" when there are none; returns how
// many there were. The library never prints them: its caller does.
int xconv_cache_take_warnings(xconv_cache *cache, char *buf, size_t len);

// Removes every stored binary; *removed (when not NULL) gets their number. Returns XCONV_OK or
// XCONV_ERR_IO.
xconv_status xconv_cache_clear_kernels(xconv_cache *cache, int *removed, xconv_error *err);

// Writes the compiled kernels of cache made for one of the ndevs open devices devs (every one
// stored when ndevs is 0) into one bundle file at path (replaced atomically), for another
// machine with the same devices, drivers and xconv to import; *count gets their number.
// Returns XCONV_OK, XCONV_ERR_NOT_FOUND when there is none, or XCONV_ERR_IO.
xconv_status xconv_cache_export_kernels(xconv_cache *cache, xconv_device *const *devs,
                                        int ndevs, const char *path, int *count,
                                        xconv_error *err);

// Checks the whole bundle file at path, then stores its kernels in cache (each file replaced
// atomically, so concurrent importers and builders lose nothing); *count gets their number.
// Refuses the bundle, storing nothing, with XCONV_ERR_INVALID and a message that begins with
// why: "damaged" (not whole, its checksum or an entry does not match), "stale" (another bundle
// format, xconv version or kernel sources, or an entry whose key is not the one its device
// looks up with this xconv's kernel text) or "foreign" (a kernel for a device, driver or
// compiler that none of the ndevs open devices devs has; a CUDA kernel is for an architecture,
// sm_XY, and NVRTC's version, so a CUDA target profile takes its devices' kernels).
// XCONV_ERR_NOT_FOUND or XCONV_ERR_IO
// when it cannot be read.
xconv_status xconv_cache_import_kernels(xconv_cache *cache, xconv_device *const *devs,
                                        int ndevs, const char *path, int *count,
                                        xconv_error *err);

// Attaches cache to dev (NULL detaches): dev's programs are then loaded from and stored in it,
// and "auto" on dev reads its find-db. The cache must stay open while it is attached.
void xconv_device_set_cache(xconv_device *dev, xconv_cache *cache);

// Returns the hash of every embedded kernel source and the dialect (16 hex digits). Find-db
// records and binaries made under other sources are stale.
const char *xconv_kernels_hash(void);

// One timed candidate of a find: a variant under one tuning, and how it did.
typedef struct xconv_find_entry {
    char variant[48];
    xconv_tuning tuning;
    bool passed;               // within its accuracy threshold: only passing entries can win
    double median_ms;          // device time per run (0: not timed)
    double max_err;            // largest normalised error against the float64 reference
    double threshold;          // the variant's accuracy threshold
    uint64_t workspace_bytes;
    char notes[64];            // the variant's numerical notes ("winograd", "split-k ...")
} xconv_find_entry;

// One record of the find-db: the ranking of one shape on one device, under one key.
typedef struct xconv_find_record {
    char backend[16];          // "opencl", "cuda"
    char device[256];          // the device's name
    char driver[128];          // its driver version
    char xconv[32];            // XCONV_VERSION
    char kernels[24];          // xconv_kernels_hash()
    char shape[256];           // the canonical SPEC (xconv_shape_format)
    char mode[16];             // how it was found: "normal" or "exhaustive"
    char date[32];             // when, ISO 8601 UTC
    int count;                 // entries: passing ones fastest first, then the rest
    xconv_find_entry *entries; // owned by the record (xconv_find_record_free)
} xconv_find_record;

// Fills rec's key (backend, device, driver, xconv, kernels, shape) for p on the device info
// describes, and empties its entries.
void xconv_find_record_key(const xconv_device_info *info, const xconv_problem *p,
                           xconv_find_record *rec);

// Returns true when rec was made under the driver info reports, this xconv version and these
// kernel sources; false for a stale record.
bool xconv_find_record_fresh(const xconv_find_record *rec, const xconv_device_info *info);

// Frees a record's entries (the record itself belongs to the caller); NULL is ignored.
void xconv_find_record_free(xconv_find_record *rec);

// Frees an array of count records from xconv_find_db_list; NULL is ignored.
void xconv_find_records_free(xconv_find_record *recs, int count);

// Stores rec in cache's find-db, replacing the record of the same key (backend, device, driver,
// xconv, kernels, shape). Records other processes stored meanwhile are kept: the file is merged
// under a lock and replaced atomically. Returns XCONV_OK, XCONV_ERR_INVALID for a record
// without a key, or XCONV_ERR_IO.
xconv_status xconv_find_db_store(xconv_cache *cache, const xconv_find_record *rec,
                                 xconv_error *err);

// Looks up p's record for the device info describes: a fresh one, else (*stale true) the
// newest stale one, copied into *out (free with xconv_find_record_free). Returns XCONV_OK, or
// XCONV_ERR_NOT_FOUND when there is none (or the cache has XCONV_CACHE_NO_FIND_DB).
xconv_status xconv_find_db_lookup(xconv_cache *cache, const xconv_device_info *info,
                                  const xconv_problem *p, xconv_find_record *out, bool *stale,
                                  xconv_error *err);

// Copies every record into a new array *out of *count (free with xconv_find_records_free).
// Returns XCONV_OK (an empty or missing db gives 0 records) or XCONV_ERR_OUT_OF_MEMORY.
xconv_status xconv_find_db_list(xconv_cache *cache, xconv_find_record **out, int *count,
                                xconv_error *err);

// Removes the records of devices named `device` (NULL: every record); *removed (when not NULL)
// gets their number. Returns XCONV_OK or XCONV_ERR_IO.
xconv_status xconv_find_db_clear(xconv_cache *cache, const char *device, int *removed,
                                 xconv_error *err);

XCONV_API_END

#endif // XCONV_PUBLIC_CACHES_H
