// scratch (not part of xconv): the same direct_regblock kernel text through every compiler and
// runtime path on one GPU, timed alternately:
//   cu    NVRTC CUBIN loaded by CUDA (what xconv's CUDA backend runs)
//   cuptx NVRTC PTX, JIT-compiled by the driver, run by CUDA
//   cucl  NVIDIA OpenCL's PTX, JIT-compiled by the driver, run by CUDA
//   cl    OpenCL from source (what xconv's OpenCL backend runs)
//   clnv  NVRTC PTX given to OpenCL as a binary
// Usage: xrt OUTDIR DIALECT INCDIR label:kernel_file:defines_file:groups:wg ...
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <cuda.h>
#include <nvrtc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_X (10000L * 6 * 22 * 22)
#define N_W (16L * 6 * 25)
#define N_Y (10000L * 16 * 18 * 18)
#define REPS 25
#define ROUNDS 3
enum { P_CU, P_CUPTX, P_CUCL, P_CL, P_CLNV, NPATH };
static const char *pname[NPATH] = {"cu", "cuptx", "cu90a", "cl", "clnv"};

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_; cuGetErrorString(r_, &s_); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)
#define CLK(x) do { cl_int r_ = (x); if (r_ != CL_SUCCESS) { fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, r_); exit(1); } } while (0)

static char *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb"); if (!f) { perror(p); exit(1); }
    fseek(f, 0, SEEK_END); long m = ftell(f); rewind(f);
    char *s = malloc(m + 1); if (fread(s, 1, m, f) != (size_t)m) exit(1); s[m] = 0; fclose(f);
    if (n) *n = m;
    return s;
}
static void spit(const char *dir, const char *label, const char *ext, const void *d, size_t n) {
    char p[1024]; snprintf(p, sizeof p, "%s/%s.%s", dir, label, ext);
    FILE *f = fopen(p, "wb"); fwrite(d, 1, n, f); fclose(f);
}
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

typedef struct {
    char label[64]; size_t groups, wg;
    CUmodule mod[3]; CUfunction fn[3];
    cl_program prog[2]; cl_kernel kern[2];
    double t[NPATH][ROUNDS * REPS]; int nt[NPATH]; long bad[NPATH];
} config;

static cl_context clctx; static cl_command_queue clq; static cl_device_id cldev;
static cl_mem cx, cw, cy; static CUdeviceptr dx, dw, dy; static CUstream st;
static float *hy_ref, *hy;

static void poison(void) {
    CK(cuMemsetD32(dy, 0x7fc00001u, N_Y));
    cl_uint pat = 0x7fc00001u; CLK(clEnqueueFillBuffer(clq, cy, &pat, 4, 0, N_Y * 4, 0, NULL, NULL)); CLK(clFinish(clq));
}
static void run_path(config *c, int p, int timed) {
    for (int i = 0; i < (timed ? REPS : 5); i++) {
        double ms;
        if (p <= P_CUCL) {
            void *args[] = {&dx, &dw, &dy};
            CUevent a, b; CK(cuEventCreate(&a, 0)); CK(cuEventCreate(&b, 0));
            CK(cuEventRecord(a, st));
            CK(cuLaunchKernel(c->fn[p], c->groups, 1, 1, c->wg, 1, 1, 0, st, args, NULL));
            CK(cuEventRecord(b, st)); CK(cuEventSynchronize(b));
            float f; CK(cuEventElapsedTime(&f, a, b)); ms = f;
            cuEventDestroy(a); cuEventDestroy(b);
        } else {
            cl_kernel k = c->kern[p - P_CL]; size_t g = c->groups * c->wg, l = c->wg; cl_event e;
            CLK(clEnqueueNDRangeKernel(clq, k, 1, NULL, &g, &l, 0, NULL, &e)); CLK(clWaitForEvents(1, &e));
            cl_ulong s0, s1;
            CLK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 8, &s0, NULL));
            CLK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &s1, NULL));
            clReleaseEvent(e); ms = (s1 - s0) * 1e-6;
        }
        if (timed) c->t[p][c->nt[p]++] = ms;
    }
}
static long check(int p) {
    if (p <= P_CUCL) CK(cuMemcpyDtoH(hy, dy, N_Y * 4));
    else CLK(clEnqueueReadBuffer(clq, cy, CL_TRUE, 0, N_Y * 4, hy, 0, NULL, NULL));
    long bad = 0;
    for (long i = 0; i < N_Y; i++) if (memcmp(&hy[i], &hy_ref[i], 4) != 0) bad++;
    return bad;
}

int main(int argc, char **argv) {
    const char *out = argv[1]; char *dialect = slurp(argv[2], NULL); const char *inc = argv[3];
    int nc = argc - 4; config *cf = calloc(nc, sizeof *cf);
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext cctx;
    CK(cuDevicePrimaryCtxRetain(&cctx, dev)); CK(cuCtxSetCurrent(cctx)); CK(cuStreamCreate(&st, 0));
    cl_platform_id plats[8]; cl_uint np; CLK(clGetPlatformIDs(8, plats, &np));
    for (cl_uint i = 0; i < np; i++) {
        char name[256]; clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, "NVIDIA") && clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &cldev, NULL) == CL_SUCCESS) break;
    }
    cl_int rc; clctx = clCreateContext(NULL, 1, &cldev, NULL, NULL, &rc); CLK(rc);
    clq = clCreateCommandQueue(clctx, cldev, CL_QUEUE_PROFILING_ENABLE, &rc); CLK(rc);
    float *hx = malloc(N_X * 4), *hw = malloc(N_W * 4); hy = malloc(N_Y * 4); hy_ref = malloc(N_Y * 4);
    srand(7); for (long i = 0; i < N_X; i++) hx[i] = rand() / (float)RAND_MAX - 0.5f;
    for (long i = 0; i < N_W; i++) hw[i] = rand() / (float)RAND_MAX - 0.5f;
    const char *dist = getenv("XRT_DATA");
    if (dist && strcmp(dist, "wide") == 0) {  // xconv's: odd numerators on a 2^-24 grid in (-1, 1)
        unsigned long long z = 0x9E3779B97F4A7C15ull;
        for (long i = 0; i < N_X + N_W; i++) {
            z ^= z << 13; z ^= z >> 7; z ^= z << 17;
            int k = (int)(z >> 40);
            float v = (float)(2 * k + 1 - (1 << 24)) * 0x1p-24f;
            if (i < N_X) hx[i] = v; else hw[i - N_X] = v;
        }
    } else if (dist && strcmp(dist, "small") == 0) {  // few mantissa bits: multiples of 1/8
        for (long i = 0; i < N_X; i++) hx[i] = (rand() % 16 - 8) / 8.0f;
        for (long i = 0; i < N_W; i++) hw[i] = (rand() % 16 - 8) / 8.0f;
    }
    printf("data %s: x[0..3] %g %g %g %g\n", dist ? dist : "narrow", hx[0], hx[1], hx[2], hx[3]);
    CK(cuMemAlloc(&dx, N_X * 4)); CK(cuMemAlloc(&dw, N_W * 4)); CK(cuMemAlloc(&dy, N_Y * 4));
    CK(cuMemcpyHtoD(dx, hx, N_X * 4)); CK(cuMemcpyHtoD(dw, hw, N_W * 4));
    cx = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N_X * 4, hx, &rc); CLK(rc);
    cw = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N_W * 4, hw, &rc); CLK(rc);
    cy = clCreateBuffer(clctx, CL_MEM_READ_WRITE, N_Y * 4, NULL, &rc); CLK(rc);

    for (int ci = 0; ci < nc; ci++) {
        config *c = &cf[ci];
        char spec[2048]; snprintf(spec, sizeof spec, "%s", argv[4 + ci]);
        char *lab = strtok(spec, ":"), *kf = strtok(NULL, ":"), *df = strtok(NULL, ":");
        c->groups = atol(strtok(NULL, ":")); c->wg = atol(strtok(NULL, ":")); char *clx = strtok(NULL, ":"); if (!clx) clx = "";
        snprintf(c->label, sizeof c->label, "%s", lab);
        char *kern = slurp(kf, NULL), *defs = slurp(df, NULL);
        for (char *q = defs; *q; q++) if (*q == '\n') *q = ' ';
        char *text = malloc(strlen(dialect) + strlen(kern) + 64);
        sprintf(text, "%s\n#line 1\n%s", dialect, kern);
        // NVRTC
        const char *av[80]; int ac = 0; char incopt[1200]; snprintf(incopt, sizeof incopt, "--include-path=%s", inc);
        av[ac++] = "--std=c++17"; av[ac++] = "--fmad=false"; av[ac++] = "--gpu-architecture=sm_90"; av[ac++] = incopt;
        char *dcopy = strdup(defs); for (char *tok = strtok(dcopy, " "); tok; tok = strtok(NULL, " ")) av[ac++] = tok;
        nvrtcProgram np_; nvrtcCreateProgram(&np_, text, "k.cu", 0, NULL, NULL);
        nvrtcResult nr = nvrtcCompileProgram(np_, ac, av);
        if (nr != NVRTC_SUCCESS) { size_t ls; nvrtcGetProgramLogSize(np_, &ls); char *lg = malloc(ls); nvrtcGetProgramLog(np_, lg); fprintf(stderr, "%s NVRTC: %s\n", lab, lg); exit(1); }
        size_t pl, cl_; nvrtcGetPTXSize(np_, &pl); char *ptx = malloc(pl); nvrtcGetPTX(np_, ptx);
        nvrtcGetCUBINSize(np_, &cl_); char *cub = malloc(cl_); nvrtcGetCUBIN(np_, cub);
        spit(out, lab, "nvrtc.ptx", ptx, pl - 1); spit(out, lab, "nvrtc.cubin", cub, cl_);
        // OpenCL from source
        char opts[4096]; snprintf(opts, sizeof opts, "%s %s -I %s -cl-std=CL1.2 -cl-nv-verbose", defs, clx, inc);
        const char *tp = text; c->prog[0] = clCreateProgramWithSource(clctx, 1, &tp, NULL, &rc); CLK(rc);
        rc = clBuildProgram(c->prog[0], 1, &cldev, opts, NULL, NULL);
        char log[65536]; clGetProgramBuildInfo(c->prog[0], cldev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("%s OpenCL build rc=%d: %s\n", lab, rc, log); CLK(rc);
        size_t bl; CLK(clGetProgramInfo(c->prog[0], CL_PROGRAM_BINARY_SIZES, sizeof bl, &bl, NULL));
        unsigned char *clptx = malloc(bl + 1); CLK(clGetProgramInfo(c->prog[0], CL_PROGRAM_BINARIES, sizeof clptx, &clptx, NULL));
        clptx[bl] = 0; spit(out, lab, "ocl.ptx", clptx, strlen((char *)clptx));
        // OpenCL from NVRTC's PTX
        const unsigned char *pb = (const unsigned char *)ptx; size_t pbl = pl; cl_int bs;
        c->prog[1] = clCreateProgramWithBinary(clctx, 1, &cldev, &pbl, &pb, &bs, &rc);
        if (rc == CL_SUCCESS) rc = clBuildProgram(c->prog[1], 1, &cldev, "", NULL, NULL);
        if (rc != CL_SUCCESS) { clGetProgramBuildInfo(c->prog[1], cldev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL); printf("%s clnv build rc=%d bs=%d: %s\n", lab, rc, bs, log); c->prog[1] = NULL; }
        for (int k = 0; k < 2; k++) if (c->prog[k]) {
            c->kern[k] = clCreateKernel(c->prog[k], "direct_regblock", &rc); CLK(rc);
            CLK(clSetKernelArg(c->kern[k], 0, sizeof cx, &cx)); CLK(clSetKernelArg(c->kern[k], 1, sizeof cw, &cw)); CLK(clSetKernelArg(c->kern[k], 2, sizeof cy, &cy));
        }
        // CUDA: NVRTC cubin; driver JIT of both PTXs (kept as cubins for the disassembler)
        CK(cuModuleLoadData(&c->mod[0], cub));
        const char *ptxs[2] = {ptx, (char *)clptx}; const char *jn[2] = {"nvjit.cubin", "ocljit.cubin"};
        for (int k = 0; k < 2; k++) {
            CUlinkState ls; void *cb; size_t cbs;
            char elog[8192] = ""; CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
            void *ov[2] = {elog, (void *)(size_t)sizeof elog};
            CK(cuLinkCreate(2, o, ov, &ls));
            CUresult r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)ptxs[k], strlen(ptxs[k]) + 1, "k.ptx", 0, NULL, NULL);
            if (r == CUDA_SUCCESS) r = cuLinkComplete(ls, &cb, &cbs);
            if (r != CUDA_SUCCESS) { printf("%s JIT %s failed: %d %s\n", lab, jn[k], r, elog); c->mod[k + 1] = NULL; cuLinkDestroy(ls); continue; }
            spit(out, lab, jn[k], cb, cbs);
            CK(cuModuleLoadData(&c->mod[k + 1], cb)); cuLinkDestroy(ls);
        }
        if (c->mod[2]) cuModuleUnload(c->mod[2]);  // OpenCL's PTX adds %envreg0 to ctaid: not runnable here
        {
            av[2] = "--gpu-architecture=sm_90a";
            nvrtcProgram p2; nvrtcCreateProgram(&p2, text, "k.cu", 0, NULL, NULL);
            if (nvrtcCompileProgram(p2, ac, av) != NVRTC_SUCCESS) { fprintf(stderr, "sm_90a failed\n"); exit(1); }
            size_t n2; nvrtcGetCUBINSize(p2, &n2); char *cb2 = malloc(n2); nvrtcGetCUBIN(p2, cb2);
            spit(out, lab, "nvrtc90a.cubin", cb2, n2);
            CK(cuModuleLoadData(&c->mod[2], cb2));
        }
        for (int k = 0; k < 3; k++) if (c->mod[k]) CK(cuModuleGetFunction(&c->fn[k], c->mod[k], "direct_regblock"));
        for (int k = 0; k < 3; k++) if (c->fn[k]) { int regs; cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, c->fn[k]); printf("%s %s regs=%d\n", lab, pname[k], regs); }
        free(kern); free(defs); free(text); free(dcopy);
    }
    // reference output: the first config's NVRTC cubin
    poison(); run_path(&cf[0], P_CU, 0); CK(cuCtxSynchronize()); CK(cuMemcpyDtoH(hy_ref, dy, N_Y * 4));
    long nan = 0; for (long i = 0; i < N_Y; i++) if (isnan(hy_ref[i])) nan++;
    printf("reference: %ld NaN of %ld\n", nan, N_Y);
    for (int r = 0; r < ROUNDS; r++)
        for (int ci = 0; ci < nc; ci++)
            for (int p = 0; p < NPATH; p++) {
                config *c = &cf[ci];
                int ok = p <= P_CUCL ? c->fn[p] != NULL : c->kern[p - P_CL] != NULL;
                const char *want = getenv("XRT_PATHS");
                char key[32]; snprintf(key, sizeof key, ",%s,", pname[p]);
                if (!ok || (want && !strstr(want, key))) continue;
                if (r == 0) { fprintf(stderr, "run %s %s\n", c->label, pname[p]); fflush(stderr); }
                poison(); run_path(c, p, 0); run_path(c, p, 1);
                if (p <= P_CUCL) CK(cuCtxSynchronize()); else CLK(clFinish(clq));
                c->bad[p] += check(p);
            }
    for (int ci = 0; ci < nc; ci++) {
        config *c = &cf[ci]; printf("%-14s", c->label);
        for (int p = 0; p < NPATH; p++) {
            if (!c->nt[p]) { printf(" %6s -    ", pname[p]); continue; }
            double s[ROUNDS * REPS]; memcpy(s, c->t[p], sizeof(double) * c->nt[p]); qsort(s, c->nt[p], sizeof(double), cmpd);
            double rm[ROUNDS]; for (int r = 0; r < ROUNDS; r++) { double q[REPS]; memcpy(q, c->t[p] + r * REPS, sizeof q); qsort(q, REPS, sizeof(double), cmpd); rm[r] = q[REPS / 2]; }
            printf(" %s %.4f [%.4f %.4f %.4f]%s", pname[p], s[c->nt[p] / 2], rm[0], rm[1], rm[2], c->bad[p] ? " MISMATCH" : "");
        }
        printf("\n");
    }
    return 0;
}
