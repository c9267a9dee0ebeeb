// SPDX-License-Identifier: MIT
// A stand-in libcuda.so.1 for timing the CUDA backend's cold start on a machine without a GPU
// (scripts/cold_start.sh): one "device" of compute capability 9.0 whose memory is host memory,
// launches that do nothing (outputs are garbage), and a driver start that sleeps as a real one
// works: cuInit FAKE_CU_INIT_MS (default 100) the first time, cuDevicePrimaryCtxRetain
// FAKE_CU_CTX_MS (default 300), then fails with FAKE_CU_CTX_FAIL set. NVRTC compiles for real.
// With FAKE_CU_TRACE set, each driver call that matters to the timeline is printed with its time
// since cuInit. Never a test of results: it shows only what waits for what
// (tests/cli/cuda_start.sh).
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUstream, *CUmodule, *CUfunction, *CUevent;
typedef unsigned long long CUdeviceptr;

static double start_ms;
static int handle;                // what every context, stream, module, event points at
static char constants[1 << 16];   // every __constant__ symbol

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void note(const char *what)
{
    if (getenv("FAKE_CU_TRACE"))
        fprintf(stderr, "[fake libcuda %7.1f ms] %s\n", now_ms() - start_ms, what);
}

static void sleep_ms(const char *variable, int fallback)
{
    const char *v = getenv(variable);
    usleep((useconds_t)(v ? atoi(v) : fallback) * 1000u);
}

static void *host(CUdeviceptr p)
{
    return (void *)(size_t)p;
}

CUresult cuInit(unsigned flags)
{
    static int done;
    (void)flags;
    if (!done++) {
        start_ms = now_ms();
        note("cuInit");
        sleep_ms("FAKE_CU_INIT_MS", 100);
    }
    return 0;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    (void)dev;
    note("cuDevicePrimaryCtxRetain starts");
    sleep_ms("FAKE_CU_CTX_MS", 300);
    if (getenv("FAKE_CU_CTX_FAIL")) {
        note("cuDevicePrimaryCtxRetain failed");
        return 999;  // CUDA_ERROR_UNKNOWN
    }
    note("cuDevicePrimaryCtxRetain done");
    *ctx = &handle;
    return 0;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, void *o, void **v)
{
    (void)n, (void)o, (void)v;
    note(memcmp(image, "\177ELF", 4) == 0 ? "cuModuleLoadDataEx (a CUBIN)" : "cuModuleLoadDataEx");
    *m = &handle;
    return 0;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                        void **extra)
{
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)s;
    (void)params, (void)extra;
    note("cuLaunchKernel");
    return 0;
}

// What the device says of itself: an H100's figures for the attributes the backend reads.
CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice dev)
{
    static const int figures[][2] = {
        {75, 9}, {76, 0},             // compute capability
        {16, 132}, {13, 1980000},     // multiprocessors, clock (kHz)
        {1, 1024}, {2, 1024}, {3, 1024}, {4, 64}, {10, 32}, {12, 65536},
        {8, 49152}, {9, 65536}, {38, 50331648}, {97, 232448}, {81, 233472}, {82, 65536},
        {39, 2048}};
    (void)dev;
    *v = 0;
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (figures[i][0] == attribute)
            *v = figures[i][1];
    return 0;
}

CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult r, const char **s) { (void)r; *s = "CUDA_ERROR_FAKE"; return 0; }
CUresult cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fake"; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(CUdevice *d, int i) { *d = i; return 0; }
CUresult cuDeviceGetName(char *s, int len, CUdevice d)
{
    (void)d;
    snprintf(s, (size_t)len, "Fake H100 (scripts/fake_libcuda.c)");
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { (void)d; *bytes = 80ull << 30; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return 0; }
CUresult cuDevicePrimaryCtxReset_v2(CUdevice d) { (void)d; return 0; }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuStreamCreate(CUstream *s, unsigned f) { (void)f; *s = &handle; return 0; }
CUresult cuStreamDestroy_v2(CUstream s) { (void)s; return 0; }
CUresult cuStreamSynchronize(CUstream s) { (void)s; return 0; }
CUresult cuEventCreate(CUevent *e, unsigned f) { (void)f; *e = &handle; return 0; }
CUresult cuEventDestroy_v2(CUevent e) { (void)e; return 0; }
CUresult cuEventRecord(CUevent e, CUstream s)
{
    (void)e, (void)s;
    note("cuEventRecord");
    return 0;
}
CUresult cuEventSynchronize(CUevent e) { (void)e; return 0; }
CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) { (void)a, (void)b; *ms = 0.01f; return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)(size_t)calloc(1, n ? n : 1); return 0; }
CUresult cuMemFree_v2(CUdeviceptr p) { free(host(p)); return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { memcpy(host(d), s, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
    (void)st;
    memcpy(host(d), s, n);
    return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st)
{
    (void)st;
    memcpy(d, host(s), n);
    return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    (void)st;
    memcpy(host(d), host(s), n);
    return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream st)
{
    (void)st;
    unsigned *p = host(d);
    for (size_t i = 0; i < n; i++)
        p[i] = v;
    return 0;
}
CUresult cuModuleUnload(CUmodule m) { (void)m; return 0; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n)
{
    char what[160];
    (void)m;
    snprintf(what, sizeof what, "cuModuleGetFunction %s", n);
    note(what);
    *f = &handle;
    return 0;
}
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *n)
{
    (void)m, (void)n;
    *p = (CUdeviceptr)(size_t)constants;
    *bytes = sizeof constants;
    return 0;
}
CUresult cuFuncSetAttribute(CUfunction f, int a, int v) { (void)f, (void)a, (void)v; return 0; }
// NVRTC asks the driver for its compute cache's tables: refused, so NVRTC caches nothing.
CUresult cuGetExportTable(const void **table, const void *id) { (void)id; *table = NULL; return 999; }
