// SPDX-License-Identifier: MIT
// Tests of CUDA kernel bundles made without a GPU: the sm_90 profile's keys are the keys an H100
// looks up (its name and driver aside) and differ for another architecture or kernel text; a
// program compiled through NVRTC for the profile is stored once as a CUBIN, exported, imported
// for a device of compute capability 9.0, and refused (nothing stored) for one of 8.0. The live
// devices are described, not opened: no GPU is needed. Skips (77) without NVRTC.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../host/caches/programs.h"

#ifdef XCONV_HAVE_CUDA
#include "../cuda/nvrtc_compile.h"
#include "../host/core/backend.h"
#include "../cuda/cuda_loader.h"

static char folder[256];

// Returns a device as the CUDA backend describes a GPU of compute capability major.minor named
// `name` under driver `driver`, with no context (it is never opened; free it with free()).
static xconv_device *described(const char *name, const char *driver, int major, int minor)
{
    xconv_device *dev = calloc(1, sizeof *dev);
    if (!dev)
        return NULL;
    dev->be = xconv_backend_get(XCONV_BACKEND_CUDA);
    dev->info = xconv_target_find("sm_90", NULL)->info;
    snprintf(dev->info.platform, sizeof dev->info.platform, "CUDA");
    snprintf(dev->info.name, sizeof dev->info.name, "%s", name);
    snprintf(dev->info.driver, sizeof dev->info.driver, "%s", driver);
    dev->info.cc_major = major;
    dev->info.cc_minor = minor;
    return dev;
}

// Returns the number of files in sub-folder `sub` of the test folder's kernels/.
static int stored(const char *sub)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls '%s/%s/kernels' 2>/dev/null | wc -l", folder, sub);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

// Opens cache folder `sub` of the test folder.
static xconv_cache *open_cache(const char *sub)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/%s", folder, sub);
    xconv_error err;
    xconv_cache *cache = xconv_cache_open(dir, 0, &err);
    CHECK_MSG(cache != NULL, "%s", err.msg);
    return cache;
}

// The keys: the profile's is the one a described H100 of any name and driver has.
static void test_keys(xconv_device *profile)
{
    xconv_device *h100 = described("NVIDIA H100 80GB HBM3", "13.0", 9, 0);
    xconv_device *gh200 = described("NVIDIA GH200 480GB", "12.8", 9, 0);
    xconv_device *a100 = described("NVIDIA A100-SXM4-80GB", "13.0", 8, 0);
    CHECK(h100 && gh200 && a100);
    if (!h100 || !gh200 || !a100)
        goto out;
    const char *text = xconv_kernel_source("direct_naive");
    char k[4][8192];
    CHECK(xconv_kernel_cache_key(profile, "direct_naive", text, "-DXC_N=1", k[0], sizeof k[0]));
    CHECK(xconv_kernel_cache_key(h100, "direct_naive", text, "-DXC_N=1", k[1], sizeof k[1]));
    CHECK(xconv_kernel_cache_key(gh200, "direct_naive", text, "-DXC_N=1", k[2], sizeof k[2]));
    CHECK(xconv_kernel_cache_key(a100, "direct_naive", text, "-DXC_N=1", k[3], sizeof k[3]));
    CHECK_MSG(strcmp(k[0], k[1]) == 0, "profile:\n%s\nH100:\n%s", k[0], k[1]);
    CHECK(strcmp(k[1], k[2]) == 0);
    CHECK(strcmp(k[0], k[3]) != 0);
    CHECK_CONTAINS(k[0], "\ndevice=sm_90\ndriver=any\n");
    CHECK_CONTAINS(k[0], "\ncompiler=nvrtc ");
    CHECK(strstr(k[1], "H100") == NULL);
    CHECK_CONTAINS(k[3], "\ndevice=sm_80\n");
    char other[8192];
    CHECK(xconv_kernel_cache_key(profile, "direct_naive", "// other text", "-DXC_N=1", other,
                                 sizeof other));
    CHECK(strcmp(k[0], other) != 0);
out:
    free(h100);
    free(gh200);
    free(a100);
}

// Compiles one plan's programs for the profile into cache `a`, exports them, imports them for a
// described H100 into `b` and refuses them for a described A100 into `c`.
static void test_bundle(xconv_device *profile)
{
    xconv_cache *a = open_cache("a"), *b = open_cache("b"), *c = open_cache("c");
    xconv_device *h100 = described("NVIDIA H100 PCIe", "12.9", 9, 0);
    xconv_device *a100 = described("NVIDIA A100-SXM4-80GB", "13.0", 8, 0);
    xconv_error err;
    xconv_problem p;
    CHECK(xconv_shape_parse("n=2,c=3,h=9,w=11,k=4,r=3,pad=1", &p, &err) == XCONV_OK);
    xconv_device_set_cache(profile, a);
    xconv_plan *plan = xconv_plan_create(profile, &p, "direct_naive", NULL, &err);
    CHECK_MSG(plan != NULL, "%s", err.msg);
    xconv_build_stats st = {0};
    CHECK(plan && xconv_plans_build(&plan, 1, 1, NULL, NULL, &st, &err) == XCONV_OK);
    CHECK_MSG(st.built >= 1 && st.failed == 0, "built %d, failed %d", st.built, st.failed);
    CHECK(stored("a") == st.built);
    CHECK(plan && xconv_plans_build(&plan, 1, 1, NULL, NULL, &st, &err) == XCONV_OK);
    CHECK(stored("a") == st.built);  // a second build keeps the files: nothing is added
    char bundle[300];
    snprintf(bundle, sizeof bundle, "%s/sm90.bundle", folder);
    int n = 0;
    xconv_status s = xconv_cache_export_kernels(a, &profile, 1, bundle, &n, &err);
    CHECK_MSG(s == XCONV_OK && n == stored("a"), "%s (%d)", err.msg, n);
    s = xconv_cache_import_kernels(b, &h100, 1, bundle, &n, &err);
    CHECK_MSG(s == XCONV_OK && n == stored("a") && stored("b") == n, "%s", err.msg);
    s = xconv_cache_import_kernels(c, &a100, 1, bundle, &n, &err);
    CHECK(s == XCONV_ERR_INVALID && n == 0 && stored("c") <= 0);
    CHECK_CONTAINS(err.msg, "foreign: it holds kernels for device 'sm_90'");
    CHECK_CONTAINS(err.msg, "given: 'sm_80'");
    xconv_plan_destroy(plan);
    xconv_device_set_cache(profile, NULL);
    free(h100);
    free(a100);
    xconv_cache_close(a);
    xconv_cache_close(b);
    xconv_cache_close(c);
}

int main(void)
{
    xconv_error err;
    if (!xconv_nvrtc_load(&err)) {
        printf("SKIP: %s\n", err.msg);
        return CHECK_SKIP_CODE;
    }
    snprintf(folder, sizeof folder, "/tmp/xconv-cuda-bundle-XXXXXX");
    if (!mkdtemp(folder)) {
        printf("SKIP: no temporary folder\n");
        return CHECK_SKIP_CODE;
    }
    xconv_device *profile = xconv_device_open_target(xconv_target_find("sm_90", NULL), &err);
    CHECK(profile != NULL);
    if (profile) {
        test_keys(profile);
        test_bundle(profile);
    }
    xconv_device_close(profile);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    CHECK(system(cmd) == 0);
    return check_summary("test_cuda_bundle");
}
#else
int main(void)
{
    printf("SKIP: built without the CUDA backend\n");
    return CHECK_SKIP_CODE;
}
#endif
