#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static const char *src = "__kernel void k(__global float *y){ y[get_global_id(0)] = 1.0f; }\n";
static double span(cl_event a, cl_event b) { cl_ulong e=0,s=0; clGetEventProfilingInfo(a,CL_PROFILING_COMMAND_END,8,&e,0); clGetEventProfilingInfo(b,CL_PROFILING_COMMAND_START,8,&s,0); return (double)(s-e)*1e-6; }
static double kspan(cl_event a) { cl_ulong e=0,s=0; clGetEventProfilingInfo(a,CL_PROFILING_COMMAND_END,8,&e,0); clGetEventProfilingInfo(a,CL_PROFILING_COMMAND_START,8,&s,0); return (double)(e-s)*1e-6; }
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static void sleep_us(int us){ struct timespec t={0, us*1000L}; nanosleep(&t,0);}
int main(int argc,char**argv){
  int plat = argc>1?atoi(argv[1]):0; if(plat<0) return 0; size_t gsz = argc>2?atol(argv[2]):1;
  cl_platform_id p[8]; cl_uint np; clGetPlatformIDs(8,p,&np);
  cl_device_id d; clGetDeviceIDs(p[plat],CL_DEVICE_TYPE_ALL,1,&d,0);
  char name[256]; clGetDeviceInfo(d,CL_DEVICE_NAME,256,name,0); printf("device %s, global %zu\n",name,gsz);
  cl_context ctx=clCreateContext(0,1,&d,0,0,0);
  cl_command_queue q=clCreateCommandQueue(ctx,d,CL_QUEUE_PROFILING_ENABLE,0);
  cl_program pr=clCreateProgramWithSource(ctx,1,&src,0,0); clBuildProgram(pr,1,&d,"",0,0);
  cl_kernel k=clCreateKernel(pr,"k",0), st=clCreateKernel(pr,"k",0);
  cl_mem b=clCreateBuffer(ctx,CL_MEM_READ_WRITE,gsz*4+64,0,0), sb=clCreateBuffer(ctx,CL_MEM_READ_WRITE,64,0,0);
  clSetKernelArg(k,0,sizeof b,&b); clSetKernelArg(st,0,sizeof sb,&sb);
  size_t one=1; enum{N=200}; double t[5][N];
  for(int mode=0;mode<5;mode++){
    for(int i=0;i<N+20;i++){
      cl_event e1,e2,ek,ue=0;
      if(mode==3){ ue=clCreateUserEvent(ctx,0); clEnqueueNDRangeKernel(q,st,1,0,&one,&one,1,&ue,&e1);} 
      else clEnqueueNDRangeKernel(q,st,1,0,&one,&one,0,0,&e1);
      if(mode==1){ clFlush(q); sleep_us(200);} 
      if(mode==4){ clFlush(q); sleep_us(1000);} 
      if(mode!=2) clEnqueueNDRangeKernel(q,k,1,0,&gsz,0,0,0,&ek); 
      clEnqueueNDRangeKernel(q,st,1,0,&one,&one,0,0,&e2);
      if(mode==3) clSetUserEventStatus(ue,CL_COMPLETE);
      clWaitForEvents(1,&e2);
      if(i>=20) t[mode][i-20] = span(e1,e2);
      if(i>=20 && mode==0 && i<25) printf("  kernel own START-END %.4f ms\n", kspan(ek));
      clReleaseEvent(e1); clReleaseEvent(e2); if(mode!=2) clReleaseEvent(ek); if(ue) clReleaseEvent(ue);
    }
    qsort(t[mode],N,sizeof(double),cmp);
  }
  const char*names[]={"bracket (as xconv)","flush+sleep 200us before kernel","empty region","gated by user event","flush+sleep 1000us"};
  for(int m=0;m<5;m++) printf("%-36s median %.4f ms  min %.4f\n",names[m],t[m][N/2],t[m][0]);
  return 0;
}
