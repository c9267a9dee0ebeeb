// Does the end marker complete after the region's kernel? The FMA kernel of floor2.c with an event
// of its own between a stamp kernel and a marker: how often END(marker) < END(kernel), and the
// median END(marker) - END(kernel). argv: platform, global size, iterations.
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
enum { N = 500 };
int main(int argc, char **argv) {
  int plat = argc > 1 ? atoi(argv[1]) : 0; size_t gsz = argc > 2 ? atol(argv[2]) : 270336; int iters = argc > 3 ? atoi(argv[3]) : 6000;
  cl_platform_id p[8]; cl_uint np; clGetPlatformIDs(8, p, &np);
  cl_device_id d; clGetDeviceIDs(p[plat], CL_DEVICE_TYPE_ALL, 1, &d, 0);
  char name[256]; clGetDeviceInfo(d, CL_DEVICE_NAME, 256, name, 0);
  cl_context ctx = clCreateContext(0, 1, &d, 0, 0, 0);
  cl_command_queue q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, 0);
  cl_program pr = clCreateProgramWithSource(ctx, 1, &src, 0, 0); clBuildProgram(pr, 1, &d, "", 0, 0);
  cl_kernel k = clCreateKernel(pr, "k", 0), st = clCreateKernel(pr, "st", 0);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gsz * 4, 0, 0), sb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, 0, 0);
  float one_f = 1.0f; clEnqueueFillBuffer(q, b, &one_f, 4, 0, gsz * 4, 0, 0, 0);
  clSetKernelArg(k, 0, sizeof b, &b); clSetKernelArg(k, 1, sizeof iters, &iters); clSetKernelArg(st, 0, sizeof sb, &sb);
  size_t one = 1; double lag[N], own[N], reg[N]; int early = 0;
  for (int i = 0; i < N + 20; i++) {
    cl_event e1, ek, e2;
    clEnqueueNDRangeKernel(q, st, 1, 0, &one, &one, 0, 0, &e1);
    clEnqueueNDRangeKernel(q, k, 1, 0, &gsz, 0, 0, 0, &ek);
    clEnqueueMarkerWithWaitList(q, 0, 0, &e2);
    clWaitForEvents(1, &e2);
    if (i >= 20) {
      double ke = ts(ek, CL_PROFILING_COMMAND_END), me = ts(e2, CL_PROFILING_COMMAND_END);
      early += me < ke; lag[i - 20] = (me - ke) * 1e-6;
      own[i - 20] = (ke - ts(ek, CL_PROFILING_COMMAND_START)) * 1e-6; reg[i - 20] = (me - ts(e1, CL_PROFILING_COMMAND_END)) * 1e-6;
    }
    clReleaseEvent(e1); clReleaseEvent(ek); clReleaseEvent(e2);
  }
  qsort(lag, N, sizeof *lag, cmp); qsort(own, N, sizeof *own, cmp); qsort(reg, N, sizeof *reg, cmp);
  printf("%s global %zu iters %d: END(marker) < END(kernel) in %d of %d; END(marker)-END(kernel) min %.4f median %.4f max %.4f ms; kernel own %.4f, region %.4f ms\n",
         name, gsz, iters, early, N, lag[0], lag[N / 2], lag[N - 1], own[N / 2], reg[N / 2]);
  return 0;
}
