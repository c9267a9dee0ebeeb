// SPDX-License-Identifier: MIT
// Tests of the compiled-kernel cache on the first device of each backend (OpenCL program
// binaries; CUBINs from NVRTC where a GPU is): a second device (as a second process would) loads
// what the first stored and computes the same bits; a changed driver, source or define is
// another key; a corrupted, cut-off, foreign or refused binary is rebuilt and replaced; the flag
// that turns it off and clearing. Skips (77) without any device.
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../host/caches/cache.h"
#include "check.h"
#include "../host/caches/programs.h"
#include "../host/plan/plan.h"

static char folder[256];
static xconv_device_info device_info;

static const char spec[] = "n=2,c=3,h=9,w=11,k=4,r=3,pad=1";

// Opens the OpenCL device with cache attached; NULL (after a failed check) when it cannot.
static xconv_device *open_with(xconv_cache *cache)
{
    xconv_error err = {0};
    xconv_device *dev = xconv_device_open_info(&device_info, &err);
    CHECK_MSG(dev != NULL, "%s", err.msg);
    if (dev)
        xconv_device_set_cache(dev, cache);
    return dev;
}

// Plans direct_naive for the test shape on dev, prepares it and runs it on fixed inputs into y.
static void run_once(xconv_device *dev, float *y)
{
    xconv_error err = {0};
    xconv_problem p;
    CHECK(xconv_shape_parse(spec, &p, &err) == XCONV_OK);
    float x[2 * 3 * 9 * 11], w[4 * 3 * 3 * 3];
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        x[i] = (float)((i * 37) % 11) - 5.0f;
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        w[i] = (float)((i * 13) % 7) * 0.25f - 0.75f;
    xconv_status st = xconv_convolve(dev, &p, "direct_naive", x, w, y, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
}

// Returns the counts of cache.
static xconv_cache_stats stats(xconv_cache *cache)
{
    xconv_cache_stats s;
    xconv_cache_get_stats(cache, &s);
    return s;
}

// Writes the path of the stored binary of direct_naive's program for the test shape on dev.
static bool binary_path(xconv_device *dev, char *path, size_t len)
{
    xconv_error err = {0};
    xconv_problem p;
    xconv_shape_parse(spec, &p, &err);
    xconv_plan *plan = xconv_plan_create(dev, &p, "direct_naive", NULL, &err);
    bool ok = plan != NULL;
    char options[4096], key[8192];
    if (ok) {
        xconv_step_options(plan->steps[0], options, sizeof options);
        ok = xconv_kernel_cache_key(dev, "direct_naive", xconv_kernel_source("direct_naive"),
                                    options, key, sizeof key) &&
             xconv_kernel_cache_file(dev, key, path, len);
    }
    xconv_plan_destroy(plan);
    return ok;
}

// Overwrites byte `at` (from the end when negative) of the file at path, or cuts the file to
// `at` bytes when cut is set.
static void damage(const char *path, long at, bool cut)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    if (cut) {
        fclose(f);
        CHECK(truncate(path, at) == 0);
        return;
    }
    long pos = at < 0 ? size + at : at;
    fseek(f, pos, SEEK_SET);
    int c = fgetc(f);
    fseek(f, pos, SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
}

// Opens a new device (a second process, as far as the cache can tell), runs the shape and
// checks its output against want and which counts moved.
static void expect_run(xconv_cache *cache, const float *want, int hits, int misses, int rejects,
                       const char *what)
{
    xconv_cache_stats before = stats(cache);
    xconv_device *dev = open_with(cache);
    float y[2 * 4 * 9 * 11];
    if (dev)
        run_once(dev, y);
    xconv_device_close(dev);
    xconv_cache_stats after = stats(cache);
    CHECK_MSG(dev && memcmp(y, want, sizeof y) == 0, "%s: another output", what);
    CHECK_MSG(after.kernel_hits - before.kernel_hits == hits &&
                  after.kernel_misses - before.kernel_misses == misses &&
                  after.kernel_rejects - before.kernel_rejects == rejects,
              "%s: hits %d, misses %d, rejects %d (wanted %d, %d, %d)", what,
              after.kernel_hits - before.kernel_hits, after.kernel_misses - before.kernel_misses,
              after.kernel_rejects - before.kernel_rejects, hits, misses, rejects);
}

// Runs every check on the device info describes, in a cache folder of its own.
static void test_device(const xconv_device_info *info)
{
    device_info = *info;
    char label[320];
    xconv_device_label(info, label, sizeof label);
    printf("%s\n", label);
    snprintf(folder, sizeof folder, "/tmp/xconv_test_kernel_cache.XXXXXX");
    CHECK(mkdtemp(folder) != NULL);
    xconv_error err = {0};
    xconv_cache *cache = xconv_cache_open(folder, 0, &err);
    CHECK_MSG(cache != NULL, "%s", err.msg);
    if (!cache)
        return;
    // The first build stores its binary; the same device's second plan uses its program cache.
    float want[2 * 4 * 9 * 11];
    xconv_device *dev = open_with(cache);
    if (dev)
        run_once(dev, want);
    char path[4096] = "";
    CHECK(dev && binary_path(dev, path, sizeof path));
    struct stat st;
    CHECK_MSG(stat(path, &st) == 0 && st.st_size > 0, "no binary at %s", path);
    CHECK(stats(cache).kernel_misses == 1 && stats(cache).kernel_hits == 0);

    // Another key: another driver string, source or define; the same key: the same file.
    char key[8192], other[8192], other_path[4096];
    CHECK(xconv_kernel_cache_key(dev, "direct_naive", "text", "-DXC_N=1", key, sizeof key));
    CHECK(xconv_kernel_cache_key(dev, "direct_naive", "text2", "-DXC_N=1", other, sizeof other));
    CHECK(strcmp(key, other) != 0);
    CHECK(xconv_kernel_cache_key(dev, "direct_naive", "text", "-DXC_N=2", other, sizeof other));
    CHECK(strcmp(key, other) != 0);
    xconv_device_info saved = dev->info;
    snprintf(dev->info.driver, sizeof dev->info.driver, "another driver");
    CHECK(xconv_kernel_cache_key(dev, "direct_naive", "text", "-DXC_N=1", other, sizeof other));
    CHECK(strcmp(key, other) != 0);
    CHECK(binary_path(dev, other_path, sizeof other_path) && strcmp(path, other_path) != 0);
    xconv_backend_program *prog = NULL;
    CHECK(xconv_kernel_cache_get(dev, "direct_naive", "text", "-DXC_N=1", &prog) ==
          XCONV_ERR_NOT_FOUND && !prog);
    dev->info = saved;
    xconv_device_close(dev);

    // A second "process" loads the binary: the same bits, nothing compiled.
    expect_run(cache, want, 1, 0, 0, "stored binary");
    // A flipped byte in the payload, a cut-off file, a file holding another key, a payload the
    // driver refuses: each is rebuilt and replaced, and the next one loads again.
    damage(path, -10, false);
    expect_run(cache, want, 0, 0, 1, "corrupted payload");
    expect_run(cache, want, 1, 0, 0, "after the corrupted payload was replaced");
    damage(path, st.st_size / 2, true);
    expect_run(cache, want, 0, 0, 1, "cut-off file");
    damage(path, 40, false);  // inside the key's text
    expect_run(cache, want, 0, 0, 1, "another key");
    FILE *f = fopen(path, "rb");
    char *file = calloc(1, (size_t)st.st_size + 64);
    size_t got = f ? fread(file, 1, (size_t)st.st_size + 64, f) : 0;
    if (f)
        fclose(f);
    char *payload = strstr(file, "\n\n");
    CHECK(got > 0 && payload);
    if (payload) {  // a payload that matches its checksum but is no binary: the driver refuses
        static const char junk[] = "not a program";
        char *bytes = strstr(file, "bytes=");
        size_t klen = (size_t)(bytes - file);
        char header[256];
        int hlen = snprintf(header, sizeof header, "bytes=%zu\nsum=%016llx\n\n",
                            sizeof junk - 1,
                            (unsigned long long)xconv_hash64(junk, sizeof junk - 1,
                                                             XCONV_HASH_SEED));
        FILE *w = fopen(path, "wb");
        fwrite(file, 1, klen, w);
        fwrite(header, 1, (size_t)hlen, w);
        fwrite(junk, 1, sizeof junk - 1, w);
        fclose(w);
        expect_run(cache, want, 0, 0, 1, "refused payload");
        expect_run(cache, want, 1, 0, 0, "after the refused payload was replaced");
    }
    free(file);

    // Kernels off: nothing read or stored.
    xconv_cache *off = xconv_cache_open(folder, XCONV_CACHE_NO_KERNELS, &err);
    expect_run(off, want, 0, 0, 0, "kernels off");
    xconv_cache_close(off);

    // Clearing removes the binaries; the next run builds and stores again.
    int removed = 0;
    CHECK(xconv_cache_clear_kernels(cache, &removed, &err) == XCONV_OK && removed >= 1);
    CHECK(stat(path, &st) != 0);
    expect_run(cache, want, 0, 1, 0, "after clearing");
    char warnings[4096];
    CHECK(xconv_cache_take_warnings(cache, warnings, sizeof warnings) == 0);
    xconv_cache_close(cache);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    xconv_error err = {0};
    xconv_devices *list = xconv_devices_enumerate(XCONV_BACKENDS_ALL, &err);
    int tested = 0;
    for (int kind = 0; kind < XCONV_BACKEND_COUNT; kind++) {
        const xconv_device_info *info = NULL;
        for (int i = 0; i < xconv_devices_count(list) && !info; i++)
            if ((int)xconv_devices_info_at(list, i)->backend == kind)
                info = xconv_devices_info_at(list, i);
        if (info) {
            test_device(info);
            tested++;
        } else {
            char reason[512] = "";
            xconv_devices_backend_status(list, (xconv_backend_kind)kind, reason, sizeof reason);
            printf("%s: no device (%s); its checks skipped\n",
                   xconv_backend_name((xconv_backend_kind)kind), reason);
        }
    }
    xconv_devices_free(list);
    if (!tested) {
        printf("SKIP: no device\n");
        return CHECK_SKIP_CODE;
    }
    return check_summary("test_kernel_cache");
}
