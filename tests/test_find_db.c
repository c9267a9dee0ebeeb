// SPDX-License-Identifier: MIT
// Tests of the find-db and "auto" without a device (planning alone on a CPU-like description):
// the file format, fresh and stale records, auto from the db or the rules, corrupted and cut-off
// files set aside with their good records kept, processes storing at once losing nothing, and
// the default cache folder.
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../host/caches/cache.h"
#include "check.h"
#include "../host/caches/find_db.h"
#include "../host/plan/variant.h"

// ---------------------------------------------------------------------------------------------
// Fixtures

// A CPU-like device (PoCL's figures) that only plans: no backend, no context.
static xconv_device_info cpu_info(void)
{
    xconv_device_info info;
    memset(&info, 0, sizeof info);
    info.backend = XCONV_BACKEND_OPENCL;
    info.is_cpu = true;
    snprintf(info.name, sizeof info.name, "test CPU | with %% odd\tcharacters");
    snprintf(info.driver, sizeof info.driver, "1.0");
    info.native_float_width = 16;
    info.compute_units = 2;
    info.local_mem_bytes = 1024 * 1024;
    info.const_mem_bytes = 1024 * 1024;
    info.max_work_group_size = 4096;
    info.max_work_item_sizes[0] = info.max_work_item_sizes[1] = 4096;
    info.max_work_item_sizes[2] = 4096;
    info.preferred_multiple = 8;
    info.max_alloc_bytes = 1ull << 30;
    info.global_mem_bytes = 1ull << 32;
    return info;
}

// A GPU-like device (an H100's limits) that only plans.
static xconv_device_info gpu_info(void)
{
    xconv_device_info info = cpu_info();
    info.backend = XCONV_BACKEND_CUDA;
    info.is_cpu = false;
    info.is_gpu = true;
    info.native_float_width = 1;
    info.compute_units = 132;
    info.local_mem_bytes = 48 << 10;
    info.const_mem_bytes = 64 << 10;
    info.max_work_group_size = 1024;
    info.max_work_item_sizes[0] = info.max_work_item_sizes[1] = 1024;
    info.max_work_item_sizes[2] = 64;
    info.preferred_multiple = 32;
    info.max_registers_per_work_group = 65536;
    info.max_alloc_bytes = info.global_mem_bytes = 80ull << 30;
    return info;
}

static char folder[256];

// Makes a fresh cache folder under /tmp; returns its cache.
static xconv_cache *fresh_cache(unsigned flags)
{
    snprintf(folder, sizeof folder, "/tmp/xconv_test_find_db.XXXXXX");
    CHECK(mkdtemp(folder) != NULL);
    xconv_error err = {0};
    xconv_cache *cache = xconv_cache_open(folder, flags, &err);
    CHECK_MSG(cache != NULL, "%s", err.msg);
    return cache;
}

// Removes the folder fresh_cache made.
static void remove_folder(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    CHECK(system(cmd) == 0);
}

static xconv_problem shape(const char *spec)
{
    xconv_problem p;
    xconv_error err = {0};
    CHECK(xconv_shape_parse(spec, &p, &err) == XCONV_OK);
    return p;
}

// A record of p on info ranking `winner` first (with tiles when not NULL) and `other` second.
static void make_record(const xconv_device_info *info, const xconv_problem *p,
                        const char *winner, const char *tiles, const char *other,
                        xconv_find_record *rec)
{
    xconv_find_record_key(info, p, rec);
    snprintf(rec->mode, sizeof rec->mode, "normal");
    rec->entries = calloc(3, sizeof *rec->entries);
    rec->count = 3;
    snprintf(rec->entries[0].variant, sizeof rec->entries[0].variant, "%s", other);
    rec->entries[0].passed = true;
    rec->entries[0].median_ms = 2.0;
    snprintf(rec->entries[1].variant, sizeof rec->entries[1].variant, "%s", winner);
    rec->entries[1].passed = true;
    rec->entries[1].median_ms = 1.0;
    rec->entries[1].workspace_bytes = 123456789012ull;
    snprintf(rec->entries[1].notes, sizeof rec->entries[1].notes, "a|b%%c");
    if (tiles)
        snprintf(rec->entries[1].tuning.gemm_tiles, sizeof rec->entries[1].tuning.gemm_tiles,
                 "%s", tiles);
    snprintf(rec->entries[2].variant, sizeof rec->entries[2].variant, "direct_naive");
    rec->entries[2].passed = false;  // fastest of all, but wrong: never chosen
    rec->entries[2].median_ms = 0.5;
    rec->entries[2].max_err = 1.0;
}

// Writes text to the cache's find.db as is.
static void write_db_text(const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/find.db", folder);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

// Returns how many files in the cache folder start with find.db.corrupt-.
static int corrupt_files(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '^find.db.corrupt-'", folder);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = -1;
        pclose(f);
    }
    return n;
}

// ---------------------------------------------------------------------------------------------
// The format

static void test_format(void)
{
    xconv_device_info info = cpu_info();
    xconv_problem p = shape("n=2,c=3,h=9,w=11,k=4,r=3,pad=1");
    xconv_find_record rec;
    make_record(&info, &p, "im2col_gemm", "32,64,16,4,8,4,4", "direct_tiled", &rec);
    snprintf(rec.date, sizeof rec.date, "2024-01-02T03:04:05Z");
    snprintf(rec.entries[0].tuning.math, sizeof rec.entries[0].tuning.math, "f32");
    char *text = xconv_find_db_format(&rec, 1);
    CHECK(text && strncmp(text, XCONV_FIND_DB_HEADER, strlen(XCONV_FIND_DB_HEADER)) == 0);
    CHECK(text && strchr(text + strlen(XCONV_FIND_DB_HEADER), '\n') ==
                      text + strlen(text) - 1);  // one line a record, tabs and bars escaped
    xconv_find_record *back = NULL;
    int count = 0;
    char why[256];
    CHECK(text && xconv_find_db_parse(text, strlen(text), &back, &count, why, sizeof why) == 0);
    CHECK(count == 1);
    if (count == 1) {
        CHECK(strcmp(back[0].device, info.name) == 0);
        CHECK(strcmp(back[0].shape, rec.shape) == 0 && strcmp(back[0].date, rec.date) == 0);
        CHECK(back[0].count == 3);  // read back ranked: passing ones fastest first
        CHECK(strcmp(back[0].entries[0].variant, "im2col_gemm") == 0);
        CHECK(strcmp(back[0].entries[0].notes, "a|b%c") == 0);
        CHECK(back[0].entries[0].workspace_bytes == 123456789012ull);
        CHECK(strcmp(back[0].entries[0].tuning.gemm_tiles, "32,64,16,4,8,4,4") == 0);
        CHECK(strcmp(back[0].entries[1].variant, "direct_tiled") == 0);
        CHECK(strcmp(back[0].entries[1].tuning.math, "f32") == 0);  // timed in fp32 math
        CHECK(back[0].entries[0].tuning.math[0] == '\0');  // written without the field
        CHECK(!back[0].entries[2].passed && back[0].entries[2].max_err == 1.0);
    }
    xconv_find_records_free(back, count);

    // Problems: a missing key, a bad entry, a cut-off last line; the good record survives.
    static const char *const bad[] = {
        "rec\tbackend=opencl\n",
        "rec\tbackend=opencl\tdevice=d\tdriver=\txconv=0\tkernels=k\tshape=n=1\tmode=normal\t"
        "date=x\tentry=v|maybe|1|0|0|0|||\n",
        "rec\tbackend=opencl\tdevice=d\tdriver=\txconv=0\tkernels=k\tshape=n=1\tmode=normal\t"
        "date=x\tentry=v|pass|1|0|0|0||||f16\n",  // a math other than f32
        "garbage line\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len = strlen(text) + strlen(bad[i]) + 1;
        char *mixed = malloc(len);
        snprintf(mixed, len, "%s%s", text, bad[i]);
        CHECK(xconv_find_db_parse(mixed, strlen(mixed), &back, &count, why, sizeof why) == 1);
        CHECK_MSG(count == 1 && strstr(why, "line 3") != NULL, "%s", why);
        xconv_find_records_free(back, count);
        free(mixed);
    }
    // CRLF line ends (a file edited by hand on Windows) read as the same records.
    size_t tlen = strlen(text), clen = 0;
    char *crlf = malloc(2 * tlen + 1);
    for (size_t i = 0; crlf && i < tlen; i++) {
        if (text[i] == '\n')
            crlf[clen++] = '\r';
        crlf[clen++] = text[i];
    }
    CHECK(crlf && xconv_find_db_parse(crlf, clen, &back, &count, why, sizeof why) == 0);
    CHECK_MSG(count == 1 && strcmp(back[0].shape, rec.shape) == 0 &&
                  strcmp(back[0].date, rec.date) == 0 && back[0].count == 3,
              "CRLF: %d records, %s", count, why);
    xconv_find_records_free(back, count);
    free(crlf);
    size_t cut = strlen(text) - 5;  // the record's line loses its end
    CHECK(xconv_find_db_parse(text, cut, &back, &count, why, sizeof why) == 1);
    CHECK_CONTAINS(why, "cut off");
    CHECK(count == 0);
    xconv_find_records_free(back, count);
    CHECK(xconv_find_db_parse("not a db\n", 9, &back, &count, why, sizeof why) >= 1);
    CHECK_CONTAINS(why, "header");
    xconv_find_records_free(back, count);
    free(text);
    xconv_find_record_free(&rec);
    CHECK(strlen(xconv_kernels_hash()) == 16);
}

// ---------------------------------------------------------------------------------------------
// Auto from the db, the rules, fresh and stale records

// Says what auto chose for spec on dev.
static xconv_auto_info choose(xconv_device *dev, const char *spec)
{
    xconv_problem p = shape(spec);
    xconv_auto_info info;
    xconv_error err = {0};
    xconv_status st = xconv_auto_choose(dev, &p, NULL, &info, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    return info;
}

// The rules on a GPU (an H100-like description, 132 units, 48 KiB of local memory): Winograd
// F(4x4,3x3) for wide 3x3 stride-1 layers with >= 2e7 FLOPs a unit and F(2x2,3x3) from a quarter
// of that or on 56x56 planes from 1e6, F(2x2,5x5) for wide 5x5 ones from 1e6, tiled FFT for busy
// wide ones with larger filters, implicit_precomp for other busy wide ones whose offset table
// takes at most 1/8 of local memory, direct_regblock for busy stems over few channels at stride 4,
// gemm_1x1 for wide 1x1 layers with >= 128 filters over >= 256 channels and planes of whole
// float4s, the implicit GEMM for the other wide ones, direct_depthwise for depthwise ones (in fp32
// math under a reduced mode too), direct_naive for those whose filter it does not take, the
// implicit GEMM for large products that are not wide, direct_regblock for other narrow or
// small ones.
static void test_auto_gpu_rules(void)
{
    xconv_device dev = {.info = gpu_info()};
    static const struct {
        const char *spec, *variant;
    } want[] = {
        {"n=32,c=64,h=56,w=56,k=64,r=3,pad=1", "winograd_f43"},        // 5.6e7 FLOPs a unit
        {"n=8,c=64,h=56,w=56,k=64,r=3,pad=1", "winograd_f23"},         // 1.4e7
        {"n=1,c=64,h=56,w=56,k=64,r=3,pad=1", "winograd_f23"},         // 1.8e6, 56x56 planes
        {"n=1,c=512,h=7,w=7,k=512,r=3,pad=1", "implicit_gemm"},        // 1.8e6, 7x7 planes
        {"n=1,c=128,h=28,w=28,k=128,r=3,pad=1", "implicit_gemm"},      // 1.8e6, 28x28 planes
        {"n=32,c=64,h=32,w=32,k=64,r=5,pad=2", "fft_tiled"},
        {"n=8,c=64,h=64,w=64,k=64,r=11,pad=5", "fft_tiled"},
        {"n=1,c=96,h=27,w=27,k=256,r=5,pad=2,groups=2", "winograd_f25"},  // 3.4e6
        {"n=1,c=32,h=27,w=27,k=96,r=5,pad=2", "implicit_gemm"},        // 8.5e5: below 1e6
        {"n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3", "implicit_precomp"},  // 1176 bytes
        {"n=32,c=64,h=56,w=56,k=64,r=3,dil=2,pad=2", "implicit_precomp"},      // 4608 bytes
        {"n=32,c=256,h=28,w=28,k=256,r=3,stride=2,pad=1", "implicit_gemm"},    // 18432 bytes
        {"n=1,c=128,h=56,w=56,k=128,r=3,stride=2,pad=1", "implicit_gemm"},     // 1.8e6
        {"n=64,c=3,h=227,w=227,k=96,r=11,stride=4", "direct_regblock"},  // a stem at stride 4
        {"n=1,c=3,h=227,w=227,k=96,r=11,stride=4", "implicit_gemm"},     // 1.6e6: not busy
        {"n=8,c=256,h=56,w=56,k=256,r=1", "gemm_1x1"},
        {"n=8,c=64,h=56,w=56,k=256,r=1", "implicit_gemm"},       // 64 input channels
        {"n=32,c=128,h=28,w=28,k=512,r=1", "implicit_gemm"},     // 128 input channels
        {"n=32,c=256,h=56,w=56,k=64,r=1", "implicit_gemm"},      // 64 filters
        {"n=32,c=512,h=7,w=7,k=2048,r=1", "implicit_gemm"},      // 49-float planes
        {"n=32,c=256,h=56,w=56,k=512,r=1,stride=2", "implicit_gemm"},
        {"n=1,c=144,h=28,w=28,k=32,r=1", "direct_regblock"},     // 7.2e6 FLOPs: small
        {"n=100,c=1,h=48,w=48,k=6,r=5", "direct_regblock"},
        {"n=10000,c=6,h=22,w=22,k=16,r=5", "direct_regblock"},     // 16 filters, 5x5
        {"n=32,c=3,h=224,w=224,k=32,r=3,stride=2,pad=1", "implicit_gemm"},  // 27 taps, 6.9e8
        {"n=32,c=144,h=56,w=56,k=24,r=1", "implicit_gemm"},      // 24 filters, 1x1, 6.9e8
        {"n=1,c=64,h=56,w=56,k=64,r=1", "implicit_gemm"},        // 1x1, 2.6e7 FLOPs
        {"n=1,c=144,h=56,w=56,k=144,r=3,pad=1,groups=144", "direct_depthwise"},  // 6.2e4 a unit
        {"n=32,c=144,h=56,w=56,k=144,r=3,pad=1,groups=144", "direct_depthwise"},  // 2.0e6
        {"n=32,c=144,h=56,w=56,k=144,r=3,stride=2,pad=1,groups=144", "direct_depthwise"},
        {"n=32,c=960,h=7,w=7,k=960,r=3,pad=1,groups=960", "direct_depthwise"},  // 7x7 planes
        {"n=32,c=144,h=56,w=56,k=144,r=3,pad=1,groups=144,math=tf32", "direct_depthwise"},
        {"n=1,c=16,h=32,w=32,k=16,r=13,pad=6,groups=16", "direct_naive"},  // 169 taps
        {"n=1,c=144,h=56,w=56,k=288,r=3,pad=1,groups=144", "direct_regblock"},  // 2 a group
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        xconv_auto_info a = choose(&dev, want[i].spec);
        CHECK_MSG(a.variant && strcmp(a.variant->info.name, want[i].variant) == 0,
                  "%s: auto chose %s, not %s", want[i].spec,
                  a.variant ? a.variant->info.name : "nothing", want[i].variant);
    }
}

// The rules on a CPU: fused Winograd for wide 3x3 (F(4x4,3x3) where the output is wide enough)
// and 5x5 stride-1 layers, tiled FFT for wide ones with larger filters, direct_const for the
// rest where its filters fit constant memory (dilated layers too).
static void test_auto_cpu_rules(void)
{
    xconv_device dev = {.info = cpu_info()};
    static const struct {
        const char *spec, *variant;
    } want[] = {
        {"n=1,c=64,h=224,w=224,k=64,r=3,pad=1", "winograd_f43_fused"},
        {"n=2,c=256,h=14,w=14,k=256,r=3,pad=1", "winograd_f23_fused"},
        {"n=2,c=32,h=56,w=56,k=64,r=5,pad=2", "winograd_f25_fused"},
        {"n=1,c=64,h=64,w=64,k=64,r=11,pad=5", "fft_tiled"},
        {"n=1,c=128,h=56,w=56,k=128,r=3,pad=2,dil=2", "direct_const"},
        {"n=100,c=6,h=22,w=22,k=16,r=5", "direct_const"},
        {"n=2,c=3,h=9,w=11,k=4,r=3,pad=1", "direct_const"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        xconv_auto_info a = choose(&dev, want[i].spec);
        CHECK_MSG(a.variant && strcmp(a.variant->info.name, want[i].variant) == 0,
                  "%s: auto chose %s, not %s", want[i].spec,
                  a.variant ? a.variant->info.name : "nothing", want[i].variant);
    }
}

static void test_auto(void)
{
    const char *spec = "n=2,c=3,h=9,w=11,k=4,r=3,pad=1";
    xconv_device dev = {.info = cpu_info()};
    xconv_error err = {0};

    // No cache: the rules (a CPU: direct_const).
    xconv_auto_info a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_RULES && strcmp(a.variant->info.name, "direct_const") == 0);
    CHECK_CONTAINS(a.why, "rules, line 5");

    // An empty db: the rules, saying the db has no record.
    xconv_cache *cache = fresh_cache(0);
    dev.cache = cache;
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_RULES && !a.stale_ignored);
    CHECK_CONTAINS(a.why, "no record");

    // A fresh record: its fastest passing entry with its tiles (not the faster failing one).
    xconv_problem p = shape(spec);
    xconv_find_record rec;
    make_record(&dev.info, &p, "im2col_gemm", "32,32,16,4,4,4,4", "direct_tiled", &rec);
    CHECK(xconv_find_db_store(cache, &rec, &err) == XCONV_OK);
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_DB && strcmp(a.variant->info.name, "im2col_gemm") == 0);
    CHECK(strcmp(a.tuning.gemm_tiles, "32,32,16,4,4,4,4") == 0 && a.db_ms == 1.0);
    xconv_plan *plan = xconv_plan_create(&dev, &p, "auto", NULL, &err);
    xconv_auto_info from_plan;
    CHECK(plan && xconv_plan_auto_info(plan, &from_plan) && from_plan.source == XCONV_AUTO_DB);
    CHECK(plan && strstr(xconv_plan_summary(plan), "32x32 tiles") != NULL);
    xconv_plan_destroy(plan);
    plan = xconv_plan_create(&dev, &p, "direct_naive", NULL, &err);
    CHECK(plan && !xconv_plan_auto_info(plan, &from_plan));
    xconv_plan_destroy(plan);
    // Another shape has no record.
    a = choose(&dev, "n=1,c=3,h=9,w=11,k=4,r=3,pad=1");
    CHECK(a.source == XCONV_AUTO_RULES);

    // A driver change makes the record stale: not used, and said so; trusted on request.
    snprintf(dev.info.driver, sizeof dev.info.driver, "2.0");
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_RULES && a.stale_ignored);
    CHECK_CONTAINS(a.why, "stale");
    xconv_cache *trusting = xconv_cache_open(folder, XCONV_CACHE_TRUST_STALE, &err);
    dev.cache = trusting;
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_DB_STALE && strcmp(a.variant->info.name, "im2col_gemm") == 0);
    CHECK_CONTAINS(a.why, "driver '1.0'");
    xconv_cache *off = xconv_cache_open(folder, XCONV_CACHE_NO_FIND_DB, &err);
    dev.cache = off;
    snprintf(dev.info.driver, sizeof dev.info.driver, "1.0");
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_RULES);

    // A stale record beside a fresh one: lookup prefers the fresh one.
    xconv_find_record newer;
    snprintf(dev.info.driver, sizeof dev.info.driver, "2.0");
    make_record(&dev.info, &p, "implicit_gemm", NULL, "direct_tiled", &newer);
    CHECK(xconv_find_db_store(cache, &newer, &err) == XCONV_OK);
    dev.cache = cache;
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_DB && strcmp(a.variant->info.name, "implicit_gemm") == 0);
    xconv_find_record *all = NULL;
    int count = 0;
    CHECK(xconv_find_db_list(cache, &all, &count, &err) == XCONV_OK && count == 2);
    xconv_find_records_free(all, count);

    // Storing the same key again replaces it; clearing a device removes its records.
    CHECK(xconv_find_db_store(cache, &newer, &err) == XCONV_OK);
    CHECK(xconv_find_db_list(cache, &all, &count, &err) == XCONV_OK && count == 2);
    xconv_find_records_free(all, count);
    int removed = 0;
    CHECK(xconv_find_db_clear(cache, "no such device", &removed, &err) == XCONV_OK);
    CHECK(removed == 0);
    CHECK(xconv_find_db_clear(cache, dev.info.name, &removed, &err) == XCONV_OK);
    CHECK(removed == 2);
    CHECK(xconv_find_db_list(cache, &all, &count, &err) == XCONV_OK && count == 0);
    xconv_find_records_free(all, count);
    xconv_find_record empty = {0};
    CHECK(xconv_find_db_store(cache, &empty, &err) == XCONV_ERR_INVALID);

    // Under tf32 math, a record's fp32-math entry plans in fp32 math (a CPU has no variant that
    // computes tf32); the same entry without it does not plan and the rules take over.
    const char *tf32 = "n=2,c=3,h=9,w=11,k=4,r=3,pad=1,math=tf32";
    xconv_problem pt = shape(tf32);
    xconv_find_record widened;
    make_record(&dev.info, &pt, "direct_tiled", NULL, "direct_const", &widened);
    snprintf(widened.entries[1].tuning.math, sizeof widened.entries[1].tuning.math, "f32");
    CHECK(xconv_find_db_store(cache, &widened, &err) == XCONV_OK);
    a = choose(&dev, tf32);
    CHECK(a.source == XCONV_AUTO_DB && strcmp(a.variant->info.name, "direct_tiled") == 0);
    CHECK(strcmp(a.tuning.math, "f32") == 0);
    CHECK_CONTAINS(a.why, "in fp32 math");
    plan = xconv_plan_create(&dev, &pt, "auto", NULL, &err);
    CHECK_MSG(plan && strstr(xconv_plan_summary(plan), "in fp32 math") != NULL, "%s",
              plan ? xconv_plan_summary(plan) : err.msg);
    xconv_plan_destroy(plan);
    widened.entries[1].tuning.math[0] = '\0';
    CHECK(xconv_find_db_store(cache, &widened, &err) == XCONV_OK);
    a = choose(&dev, tf32);
    CHECK(a.source == XCONV_AUTO_RULES);
    CHECK_CONTAINS(a.why, "no passing entry of the find-db's record plans now");
    xconv_find_record_free(&widened);

    // A record whose passing entries do not plan here (a variant this build lacks, a reference
    // auto never chooses): the rules, saying why.
    xconv_find_record odd;
    make_record(&dev.info, &p, "no_such_variant", NULL, "cpu_ref", &odd);
    CHECK(xconv_find_db_store(cache, &odd, &err) == XCONV_OK);
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_RULES);
    CHECK_CONTAINS(a.why, "no passing entry of the find-db's record plans now");
    xconv_find_record_free(&odd);

    xconv_find_record_free(&rec);
    xconv_find_record_free(&newer);
    xconv_cache_close(trusting);
    xconv_cache_close(off);
    xconv_cache_close(cache);
    remove_folder();
}

// ---------------------------------------------------------------------------------------------
// Corrupted files

static void test_corrupted(void)
{
    xconv_cache *cache = fresh_cache(0);
    xconv_device dev = {.info = cpu_info(), .cache = cache};
    const char *spec = "n=2,c=3,h=9,w=11,k=4,r=3,pad=1";
    xconv_problem p = shape(spec);
    xconv_error err = {0};
    char warnings[4096];

    // Garbage: reported and set aside, never a crash; auto uses the rules.
    write_db_text("\x01\x02 not a find-db at all \xff\n\n");
    xconv_auto_info a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_RULES);
    CHECK(xconv_cache_take_warnings(cache, warnings, sizeof warnings) == 1);
    CHECK_CONTAINS(warnings, "corrupted");
    CHECK(corrupt_files() == 1);
    CHECK(xconv_cache_take_warnings(cache, warnings, sizeof warnings) == 0);

    // A good record, then a line cut off mid-way (a crash of an editor, not of xconv): the good
    // record is kept and used, the file set aside once.
    xconv_find_record rec;
    make_record(&dev.info, &p, "im2col_gemm", NULL, "direct_tiled", &rec);
    char *text = xconv_find_db_format(&rec, 1);
    size_t len = strlen(text) + 64;
    char *cut = malloc(len);
    snprintf(cut, len, "%srec\tbackend=opencl\tdevice=x", text);
    write_db_text(cut);
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_DB && strcmp(a.variant->info.name, "im2col_gemm") == 0);
    CHECK(xconv_cache_take_warnings(cache, warnings, sizeof warnings) == 1);
    CHECK_CONTAINS(warnings, "1 good record");
    CHECK(corrupt_files() == 2);
    // The rewritten file is sound: another cache reads it without a warning.
    xconv_cache *again = xconv_cache_open(folder, 0, &err);
    dev.cache = again;
    a = choose(&dev, spec);
    CHECK(a.source == XCONV_AUTO_DB);
    CHECK(xconv_cache_take_warnings(again, warnings, sizeof warnings) == 0);
    // A store into a corrupted file keeps its good records too.
    write_db_text(cut);
    xconv_find_record other;
    xconv_problem q = shape("n=1,c=3,h=9,w=11,k=4,r=3,pad=1");
    make_record(&dev.info, &q, "direct_tiled", NULL, "direct_const", &other);
    CHECK(xconv_find_db_store(again, &other, &err) == XCONV_OK);
    xconv_find_record *all = NULL;
    int count = 0;
    CHECK(xconv_find_db_list(again, &all, &count, &err) == XCONV_OK && count == 2);
    xconv_find_records_free(all, count);
    CHECK(xconv_cache_take_warnings(again, warnings, sizeof warnings) == 1);
    CHECK(corrupt_files() == 3);

    free(cut);
    free(text);
    xconv_find_record_free(&rec);
    xconv_find_record_free(&other);
    xconv_cache_close(again);
    xconv_cache_close(cache);
    remove_folder();
}

// ---------------------------------------------------------------------------------------------
// Processes storing at once

enum { WRITERS = 4, RECORDS_EACH = 20 };

// A child: stores its records one by one, each through its own cache (as separate commands
// would); a reader child looks up in a loop and must never see a corrupted file.
static int child(int id)
{
    xconv_error err = {0};
    xconv_cache *cache = xconv_cache_open(folder, 0, &err);
    if (!cache)
        return 2;
    xconv_device_info info = cpu_info();
    int failed = 0;
    for (int i = 0; i < RECORDS_EACH; i++) {
        char spec[128];
        snprintf(spec, sizeof spec, "n=%d,c=%d,h=9,w=11,k=4,r=3", 1 + id, 1 + i);
        xconv_problem p;
        xconv_shape_parse(spec, &p, &err);
        if (id == WRITERS) {  // the reader
            xconv_find_record rec;
            bool stale;
            if (xconv_find_db_lookup(cache, &info, &p, &rec, &stale, &err) == XCONV_OK)
                xconv_find_record_free(&rec);
            continue;
        }
        xconv_find_record rec;
        make_record(&info, &p, "im2col_gemm", NULL, "direct_tiled", &rec);
        failed += xconv_find_db_store(cache, &rec, &err) != XCONV_OK;
        xconv_find_record_free(&rec);
    }
    char warnings[4096];
    failed += xconv_cache_take_warnings(cache, warnings, sizeof warnings);
    xconv_cache_close(cache);
    return failed ? 1 : 0;
}

static void test_concurrent(void)
{
    xconv_cache *cache = fresh_cache(0);
    pid_t pids[WRITERS + 1];
    for (int id = 0; id <= WRITERS; id++) {
        pids[id] = fork();
        if (pids[id] == 0)
            _exit(child(id));
        CHECK(pids[id] > 0);
    }
    for (int id = 0; id <= WRITERS; id++) {
        int status = -1;
        CHECK(pids[id] > 0 && waitpid(pids[id], &status, 0) == pids[id]);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d: status %d", id,
                  status);
    }
    xconv_find_record *all = NULL;
    int count = 0;
    xconv_error err = {0};
    CHECK(xconv_find_db_list(cache, &all, &count, &err) == XCONV_OK);
    CHECK_MSG(count == WRITERS * RECORDS_EACH, "%d records of %d", count,
              WRITERS * RECORDS_EACH);
    xconv_find_records_free(all, count);
    CHECK(corrupt_files() == 0);
    xconv_cache_close(cache);
    remove_folder();
}

// The default cache folder: XCONV_CACHE_DIR's value first, then XDG_CACHE_HOME's, then HOME's,
// "none" or "" for no cache, and opening it makes the folder.
static void test_default_dir(void)
{
    char buf[256], folder[] = "/tmp/xconv_default_XXXXXX", want[300];
    CHECK(xconv_cache_default_dir("/a/b", "/x", "/h", buf, sizeof buf) && !strcmp(buf, "/a/b"));
    CHECK(xconv_cache_default_dir(NULL, "/x", "/h", buf, sizeof buf) &&
          !strcmp(buf, "/x/xconv"));
    CHECK(xconv_cache_default_dir(NULL, "", "/h", buf, sizeof buf) &&
          !strcmp(buf, "/h/.cache/xconv"));
    CHECK(!xconv_cache_default_dir("none", "/x", "/h", buf, sizeof buf));
    CHECK(!xconv_cache_default_dir("", "/x", "/h", buf, sizeof buf));
    CHECK(!xconv_cache_default_dir(NULL, NULL, NULL, buf, sizeof buf));
    CHECK(!xconv_cache_default_dir(NULL, "/a-long-folder-name", NULL, buf, 8));

    xconv_error err = {0};
    CHECK(xconv_cache_open_default("none", NULL, NULL, 0, &err) == NULL);
    CHECK(err.status == XCONV_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.msg, "XCONV_CACHE_DIR is 'none'");
    CHECK(xconv_cache_open_default(NULL, NULL, NULL, 0, &err) == NULL);
    CHECK_CONTAINS(err.msg, "neither XDG_CACHE_HOME nor HOME");
    CHECK(mkdtemp(folder) != NULL);
    xconv_cache *cache = xconv_cache_open_default(NULL, folder, "/nonexistent", 0, &err);
    CHECK_MSG(cache != NULL, "%s", err.msg);
    snprintf(want, sizeof want, "%s/xconv", folder);
    CHECK(cache && !strcmp(xconv_cache_dir(cache), want));
    xconv_cache_close(cache);
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_default_dir();
    test_format();
    test_auto();
    test_auto_gpu_rules();
    test_auto_cpu_rules();
    test_corrupted();
    test_concurrent();
    return check_summary("test_find_db");
}
