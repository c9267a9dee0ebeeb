// Timer marks on one OpenCL device: the FMA kernel of floor2.c (no event of its own) between a
// start mark and an end mark, each a one-item stamp kernel or a marker command.
// argv: platform, global size, iterations.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
static const char *src =
  "__kernel void st(__global float *y){ y[0] = 1.0f; }\n"
  "__kernel void k(__global float *y, int iters){ size_t i = get_global_id(0);\n"
  "  float a0=y[i],a1=a0+1,a2=a0+2,a3=a0+3,a4=a0+4,a5=a0+5,a6=a0+6,a7=a0+7;\n"
  "  for (int j = 0; j < iters; j++) { a0=fma(a0,1.0001f,0.5f); a1=fma(a1,1.0001f,0.5f); a2=fma(a2,1.0001f,0.5f); a3=fma(a3,1.0001f,0.5f);\n"
  "    a4=fma(a4,1.0001f,0.5f); a5=fma(a5,1.0001f,0.5f); a6=fma(a6,1.0001f,0.5f); a7=fma(a7,1.0001f,0.5f); }\n"
  "  y[i] = a0+a1+a2+a3+a4+a5+a6+a7; }\n";
static double ts(cl_event e, cl_profiling_info w) { cl_ulong v = 0; clGetEventProfilingInfo(e, w, 8, &v, 0); return (double)v; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
enum { N = 200, W = 20 };
static double med(double *v) { qsort(v, N, sizeof *v, cmp); return v[N / 2]; }
static cl_command_queue q; static cl_kernel st; static size_t one = 1;
static void mark(int kind, cl_event *e) {
  if (kind == 0) clEnqueueNDRangeKernel(q, st, 1, 0, &one, &one, 0, 0, e);
  else if (kind == 1) clEnqueueMarkerWithWaitList(q, 0, 0, e);
  else clEnqueueBarrierWithWaitList(q, 0, 0, e);
}
int main(int argc, char **argv) {
  int plat = argc > 1 ? atoi(argv[1]) : 0; size_t gsz = argc > 2 ? atol(argv[2]) : 270336; int iters = argc > 3 ? atoi(argv[3]) : 6000;
  cl_platform_id p[8]; cl_uint np; clGetPlatformIDs(8, p, &np);
  cl_device_id d; clGetDeviceIDs(p[plat], CL_DEVICE_TYPE_ALL, 1, &d, 0);
  char name[256]; clGetDeviceInfo(d, CL_DEVICE_NAME, 256, name, 0);
  printf("OpenCL %s, global %zu, iters %d\n", name, gsz, iters);
  cl_context ctx = clCreateContext(0, 1, &d, 0, 0, 0);
  q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, 0);
  cl_program pr = clCreateProgramWithSource(ctx, 1, &src, 0, 0); clBuildProgram(pr, 1, &d, "", 0, 0);
  cl_kernel k = clCreateKernel(pr, "k", 0); st = clCreateKernel(pr, "st", 0);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gsz * 4, 0, 0), sb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, 0, 0);
  float one_f = 1.0f; clEnqueueFillBuffer(q, b, &one_f, 4, 0, gsz * 4, 0, 0, 0);
  clSetKernelArg(k, 0, sizeof b, &b); clSetKernelArg(k, 1, sizeof iters, &iters); clSetKernelArg(st, 0, sizeof sb, &sb);
  const char *kn[] = {"stamp", "marker", "barrier"};
  int pairs[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {2, 2}};
  for (int m = 0; m < 5; m++) {
    double ss[N], se[N], es[N], ee[N];
    for (int i = 0; i < N + W; i++) {
      cl_event e1, e2;
      mark(pairs[m][0], &e1);
      clEnqueueNDRangeKernel(q, k, 1, 0, &gsz, 0, 0, 0, 0);
      mark(pairs[m][1], &e2);
      clWaitForEvents(1, &e2);
      if (i >= W) {
        int j = i - W;
        ss[j] = (ts(e2, CL_PROFILING_COMMAND_START) - ts(e1, CL_PROFILING_COMMAND_START)) * 1e-6;
        se[j] = (ts(e2, CL_PROFILING_COMMAND_START) - ts(e1, CL_PROFILING_COMMAND_END)) * 1e-6;
        es[j] = (ts(e2, CL_PROFILING_COMMAND_END) - ts(e1, CL_PROFILING_COMMAND_START)) * 1e-6;
        ee[j] = (ts(e2, CL_PROFILING_COMMAND_END) - ts(e1, CL_PROFILING_COMMAND_END)) * 1e-6;
      }
      clReleaseEvent(e1); clReleaseEvent(e2);
    }
    printf("  %-7s .. %-7s  START2-END1 %.4f  END2-END1 %.4f  START2-START1 %.4f  END2-START1 %.4f ms\n",
           kn[pairs[m][0]], kn[pairs[m][1]], med(se), med(ee), med(ss), med(es));
  }
  return 0;
}
