// The same FMA kernel through CUDA, timed by two events (as xconv's CUDA timer).
#include <cstdio>
#include <cstdlib>
#include <algorithm>
__global__ void st(float *y) { y[0] = 1.0f; }
__global__ void k(float *y, int iters) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  float a0=y[i],a1=a0+1,a2=a0+2,a3=a0+3,a4=a0+4,a5=a0+5,a6=a0+6,a7=a0+7;
  for (int j = 0; j < iters; j++) { a0=fmaf(a0,1.0001f,0.5f); a1=fmaf(a1,1.0001f,0.5f); a2=fmaf(a2,1.0001f,0.5f); a3=fmaf(a3,1.0001f,0.5f);
    a4=fmaf(a4,1.0001f,0.5f); a5=fmaf(a5,1.0001f,0.5f); a6=fmaf(a6,1.0001f,0.5f); a7=fmaf(a7,1.0001f,0.5f); }
  y[i] = a0+a1+a2+a3+a4+a5+a6+a7;
}
int main(int argc, char **argv) {
  size_t gsz = argc > 1 ? atol(argv[1]) : 270336; int iters = argc > 2 ? atoi(argv[2]) : 6000;
  float *y, *s; cudaMalloc(&y, gsz * 4); cudaMalloc(&s, 64); cudaMemset(y, 0, gsz * 4);
  cudaStream_t q; cudaStreamCreate(&q);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  const int N = 200, W = 20; double t[N], t2[N];
  for (int mode = 0; mode < 2; mode++)
    for (int i = 0; i < N + W; i++) {
      cudaEventRecord(a, q);
      if (mode) st<<<1, 1, 0, q>>>(s);
      k<<<gsz / 256, 256, 0, q>>>(y, iters);
      cudaEventRecord(b, q); cudaEventSynchronize(b);
      float ms = 0; cudaEventElapsedTime(&ms, a, b);
      if (i >= W) (mode ? t2 : t)[i - W] = ms;
    }
  std::sort(t, t + N); std::sort(t2, t2 + N);
  printf("CUDA global %zu iters %d: events around the kernel %.4f ms; events around stamp+kernel %.4f ms (%s)\n", gsz, iters, t[N/2], t2[N/2], cudaGetErrorString(cudaGetLastError()));
  return 0;
}
