// SPDX-License-Identifier: MIT
// The kernel dialect: macros that let one kernel text compile as OpenCL C 1.2 and, through NVRTC,
// as CUDA. Backends prepend this text to every kernel source; kernels use only these names for
// qualifiers, work-item ids, barriers and math built-ins.
//
// Floating-point contraction is off on both compilers (OpenCL's FP_CONTRACT pragma here, NVRTC's
// --fmad=false in the CUDA backend): a kernel that wants a fused multiply-add writes XC_FMA, so
// both builds round the same operations the same way and give bitwise identical results.
#ifndef XCONV_DIALECT_H
#define XCONV_DIALECT_H

// Two 16-bit values in one 32-bit word, the first in the lower half (the order of two
// consecutive elements in memory on a little-endian device).
#define XC_PACK16(lo, hi) ((unsigned int)(lo) | (unsigned int)(hi) << 16)

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
// =============================================================================================
// OpenCL C

#pragma OPENCL FP_CONTRACT OFF

#define XC_KERNEL __kernel                 // a kernel entry point
// The exact work-group size a kernel is always launched with (after XC_KERNEL): lets the compiler
// size registers for it (CUDA's __launch_bounds__) and specialise (OpenCL's reqd_work_group_size).
#define XC_WORK_GROUP_SIZE(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))
#define XC_FUNC static inline              // a helper function callable from kernels
// A helper kept out of line, with external linkage so that no interprocedural pass
// specialises it for its constant arguments either.
#define XC_FUNC_NOINLINE __attribute__((noinline))
#define XC_GLOBAL __global                 // qualifier of a global-memory pointer
#define XC_LOCAL __local                   // a local-memory array declared in a kernel body
#define XC_LOCAL_PTR __local               // qualifier of a pointer into local memory
#define XC_RESTRICT restrict

// Constant memory: declare the array at file scope with XC_CONSTANT_ARRAY and take it as a kernel
// parameter with XC_CONSTANT_PARAM (same name). On OpenCL the parameter is the array.
#define XC_CONSTANT_ARRAY(type, name, count)
#define XC_CONSTANT_PARAM(type, name) __constant type *restrict name
// A helper's parameter for that array (the kernel passes `name` on); no restrict, which
// Oclgrind 21.10 cannot run once the helper is inlined.
#define XC_CONSTANT_ARG(type, name) __constant type *name

#define XC_GLOBAL_ID(d) ((int)get_global_id(d))    // work-item index in the NDRange
#define XC_LOCAL_ID(d) ((int)get_local_id(d))      // index within the work-group
#define XC_GROUP_ID(d) ((int)get_group_id(d))      // work-group index
#define XC_LOCAL_SIZE(d) ((int)get_local_size(d))  // work-group size
#define XC_NUM_GROUPS(d) ((int)get_num_groups(d))  // work-groups in the NDRange
#define XC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)  // work-group barrier over local memory
// Orders this work-item's local-memory accesses (no work-group synchronisation): loads are not
// moved across it.
#define XC_LOCAL_FENCE() mem_fence(CLK_LOCAL_MEM_FENCE)

#define XC_FMA(a, b, c) fma((a), (b), (c))
#define XC_FABS(a) fabs(a)
#define XC_NAN NAN
// 4 floats at global ptr + 4*i, ptr 16-byte aligned: one 16-byte access, as in the CUDA
// dialect. vload4/vstore4 need only 4-byte alignment, so NVIDIA's OpenCL compiler split them into
// four 4-byte accesses (the FFT transforms' spectra moved in four times the instructions).
#define XC_LOAD4(ptr, i) (((const __global float4 *)(ptr))[(i)])
#define XC_STORE4(v, ptr, i) (((__global float4 *)(ptr))[(i)] = (v))
#define XC_MAKE_FLOAT4(a, b, c, d) ((float4)((a), (b), (c), (d)))
#define XC_MAKE_FLOAT2(a, b) ((float2)((a), (b)))
#define XC_AS_UINT(f) as_uint(f)
#define XC_AS_FLOAT(u) as_float(u)
// Two 32-bit words at a global pointer, one 8-byte access (the pointer 8-byte aligned), as a
// uint2 (vload2 would let NVIDIA's OpenCL compiler make two 4-byte accesses of it).
#define XC_LD_WORDS2(p) (((const __global uint2 *)(p))[0])
#define XC_ST_WORDS2(p, lo, hi) (((__global uint2 *)(p))[0] = (uint2)((lo), (hi)))
// Four 32-bit words at a global pointer, one 16-byte access (the pointer 16-byte aligned).
#define XC_LD_WORDS4(p) (((const __global uint4 *)(p))[0])
#define XC_ST_WORDS4(p, a, b, c, d) (((__global uint4 *)(p))[0] = (uint4)((a), (b), (c), (d)))
// The address of a local-memory pointer in PTX's .shared window, as inline PTX (cp.async,
// ldmatrix) takes it: a __local pointer converted to an integer (NVIDIA's OpenCL: the
// address-space-3 pointer's value, a 32-bit offset).
#define XC_LOCAL_ADDR(p) ((unsigned int)(size_t)(p))

// fp16 storage through the core built-ins: a `half` pointer needs no extension when it is only
// read by vload_half and written by vstore_half (round to nearest even).
#define XC_HALF_T half
#define XC_LD_HALF(ptr, i) vload_half((i), (ptr))
#define XC_ST_HALF(ptr, i, v) vstore_half_rte((v), (i), (ptr))
#define XC_LD_HALF4(ptr) vload_half4(0, (ptr))  // 4 halves as a float4
#define XC_ST_HALF4(ptr, v) vstore_half4_rte((v), 0, (ptr))
#define XC_LD_HALF2(ptr) vload_half2(0, (ptr))  // 2 halves as a float2
#define XC_ST_HALF2(ptr, v) vstore_half2_rte((v), 0, (ptr))

#elif defined(__CUDACC_RTC__) || defined(__CUDACC__)
// =============================================================================================
// CUDA through NVRTC

#define XC_KERNEL extern "C" __global__
#define XC_WORK_GROUP_SIZE(x, y, z) __launch_bounds__((x) * (y) * (z))
#define XC_FUNC static __device__ __forceinline__
#define XC_FUNC_NOINLINE static __device__ __noinline__
#define XC_GLOBAL
#define XC_LOCAL __shared__
#define XC_LOCAL_PTR
#define XC_RESTRICT __restrict__

// A real __constant__ symbol; the host copies the data into it before each launch. The kernel
// parameter keeps the argument list the same as OpenCL's and is never read.
#define XC_CONSTANT_ARRAY(type, name, count) __constant__ type name[count];
#define XC_CONSTANT_PARAM(type, name) const type *name##_unused_param
#define XC_CONSTANT_ARG(type, name) const type *name##_unused_param

// One component of a uint3/dim3 built-in (a macro, so no unused helper warns in NVRTC's logs).
#define XC_DIM3_GET(v, d) ((d) == 0 ? (int)(v).x : (d) == 1 ? (int)(v).y : (int)(v).z)
#define XC_LOCAL_ID(d) XC_DIM3_GET(threadIdx, (d))
#define XC_GROUP_ID(d) XC_DIM3_GET(blockIdx, (d))
#define XC_LOCAL_SIZE(d) XC_DIM3_GET(blockDim, (d))
#define XC_NUM_GROUPS(d) XC_DIM3_GET(gridDim, (d))
#define XC_GLOBAL_ID(d) (XC_GROUP_ID(d) * XC_LOCAL_SIZE(d) + XC_LOCAL_ID(d))
#define XC_BARRIER() __syncthreads()
#define XC_LOCAL_FENCE() __threadfence_block()

#define XC_FMA(a, b, c) fmaf((a), (b), (c))
#define XC_FABS(a) fabsf(a)
#define XC_NAN __int_as_float(0x7fc00000)
#define XC_LOAD4(ptr, i) (((const float4 *)(ptr))[(i)])
#define XC_STORE4(v, ptr, i) (((float4 *)(ptr))[(i)] = (v))
#define XC_MAKE_FLOAT4(a, b, c, d) make_float4((a), (b), (c), (d))
#define XC_MAKE_FLOAT2(a, b) make_float2((a), (b))
#define XC_AS_UINT(f) __float_as_uint(f)
#define XC_AS_FLOAT(u) __uint_as_float(u)
// Two 32-bit words at a global pointer, one 8-byte access (the pointer 8-byte aligned).
#define XC_LD_WORDS2(p) (((const uint2 *)(p))[0])
#define XC_ST_WORDS2(p, lo, hi) (((uint2 *)(p))[0] = make_uint2((lo), (hi)))
// Four 32-bit words at a global pointer, one 16-byte access (the pointer 16-byte aligned).
#define XC_LD_WORDS4(p) (((const uint4 *)(p))[0])
#define XC_ST_WORDS4(p, a, b, c, d) (((uint4 *)(p))[0] = make_uint4((a), (b), (c), (d)))
// The address of a __shared__ pointer in PTX's .shared window, as inline PTX takes it.
#define XC_LOCAL_ADDR(p) ((unsigned int)__cvta_generic_to_shared(p))

// fp16 storage as 16-bit words converted by PTX's cvt (exact to fp32; round to nearest even
// back), the same operations as OpenCL's vload_half and vstore_half_rte (defined only where
// used, so no unused helper warns).
#if XC_DTYPE == 1
XC_FUNC float xc_half_to_float(unsigned short h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
XC_FUNC unsigned short xc_float_to_half(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#endif
#define XC_HALF_T unsigned short
#define XC_LD_HALF(ptr, i) xc_half_to_float((ptr)[(i)])
#define XC_ST_HALF(ptr, i, v) ((ptr)[(i)] = xc_float_to_half(v))
#if XC_DTYPE == 1
// 4 halves as a float4 and back, one 8-byte access each.
XC_FUNC float4 xc_half4_to_float4(const unsigned short *p)
{
    const uint2 u = XC_LD_WORDS2(p);
    return make_float4(xc_half_to_float((unsigned short)(u.x & 0xffffu)),
                       xc_half_to_float((unsigned short)(u.x >> 16)),
                       xc_half_to_float((unsigned short)(u.y & 0xffffu)),
                       xc_half_to_float((unsigned short)(u.y >> 16)));
}
XC_FUNC void xc_float4_to_half4(unsigned short *p, const float4 v)
{
    XC_ST_WORDS2(p, XC_PACK16(xc_float_to_half(v.x), xc_float_to_half(v.y)),
                 XC_PACK16(xc_float_to_half(v.z), xc_float_to_half(v.w)));
}
XC_FUNC float2 xc_half2_to_float2(const unsigned short *p)
{
    const unsigned int u = ((const unsigned int *)p)[0];
    return make_float2(xc_half_to_float((unsigned short)(u & 0xffffu)),
                       xc_half_to_float((unsigned short)(u >> 16)));
}
XC_FUNC void xc_float2_to_half2(unsigned short *p, const float2 v)
{
    ((unsigned int *)p)[0] = XC_PACK16(xc_float_to_half(v.x), xc_float_to_half(v.y));
}
#endif
#define XC_LD_HALF4(ptr) xc_half4_to_float4(ptr)
#define XC_ST_HALF4(ptr, v) xc_float4_to_half4((ptr), (v))
// 2 halves as a float2 and back, one 4-byte access each.
#define XC_LD_HALF2(ptr) xc_half2_to_float2(ptr)
#define XC_ST_HALF2(ptr, v) xc_float2_to_half2((ptr), (v))

#else
#error "xconv_dialect.h: compile as OpenCL C or as CUDA"
#endif

// =============================================================================================
// The batch size N: baked into the program as the define XC_N, or, where the host defines
// XC_N_RUNTIME instead so that one program serves every batch, the kernel's last argument (an
// int the host appends to every step whose defines leave N out). Every entry point that reads
// the problem ends its parameter list with XC_BATCH_PARAM (after XC_EPI_BIAS_PARAM); a helper
// that reads XC_N ends its own with XC_BATCH_PARAM and is called with XC_BATCH_ARG last.

//
// With XC_DIMS_RUNTIME too (the GEMM family's shared programs), the problem's other sizes come
// after N as arguments in the same way, in this order: C, H, W, K, P, Q (ints); XC_CG and XC_KG
// are derived from them and the baked XC_GROUPS. R, S, strides, padding, dilation and groups stay
// defines. The parameters travel with XC_BATCH_PARAM / XC_BATCH_ARG, so a helper that reads any
// of these sizes ends its parameter list with XC_BATCH_PARAM.

#if XC_DIMS_RUNTIME && !XC_N_RUNTIME
#error "xconv_dialect.h: XC_DIMS_RUNTIME needs XC_N_RUNTIME"
#endif
#if XC_DIMS_RUNTIME
#if defined(XC_C) || defined(XC_H) || defined(XC_W) || defined(XC_K) || defined(XC_P) || \
    defined(XC_Q) || defined(XC_CG) || defined(XC_KG)
#error "xconv_dialect.h: XC_DIMS_RUNTIME with a size defined too"
#endif
#define XC_BATCH_PARAM                                                                   \
    , const int xc_batch, const int xc_dim_c, const int xc_dim_h, const int xc_dim_w,     \
        const int xc_dim_k, const int xc_dim_p, const int xc_dim_q
#define XC_BATCH_ARG , xc_batch, xc_dim_c, xc_dim_h, xc_dim_w, xc_dim_k, xc_dim_p, xc_dim_q
#define XC_N xc_batch
#define XC_C xc_dim_c
#define XC_H xc_dim_h
#define XC_W xc_dim_w
#define XC_K xc_dim_k
#define XC_P xc_dim_p
#define XC_Q xc_dim_q
#define XC_CG (xc_dim_c / XC_GROUPS)
#define XC_KG (xc_dim_k / XC_GROUPS)
#elif XC_N_RUNTIME
#ifdef XC_N
#error "xconv_dialect.h: XC_N and XC_N_RUNTIME are both defined"
#endif
#define XC_BATCH_PARAM , const int xc_batch
#define XC_BATCH_ARG , xc_batch
#define XC_N xc_batch
#else
#define XC_BATCH_PARAM
#define XC_BATCH_ARG
#endif

// =============================================================================================
// Storage of x, w and y: XC_DATA is the element type of their pointers, XC_LD(ptr, i) reads
// element i as a float and XC_ST(ptr, i, v) rounds the float v into element i. XC_DTYPE (the
// host's xconv_dtype, undefined for fp32) selects fp32, fp16 (XC_DTYPE 1) or bf16 (2); the math
// stays fp32. bf16 is the upper half of an fp32: a shift to read, round to nearest even to write.

#if XC_DTYPE == 1
#define XC_DATA XC_HALF_T
#define XC_LD(ptr, i) XC_LD_HALF((ptr), (i))
#define XC_ST(ptr, i, v) XC_ST_HALF((ptr), (i), (v))
#elif XC_DTYPE == 2
// The bf16 bits of f rounded to nearest, ties to even; a NaN stays a NaN.
XC_FUNC unsigned short xc_float_to_bf16(float f)
{
    unsigned int u = XC_AS_UINT(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (unsigned short)((u >> 16) | 0x40u);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define XC_DATA unsigned short
#define XC_LD(ptr, i) XC_AS_FLOAT((unsigned int)(ptr)[(i)] << 16)
#define XC_ST(ptr, i, v) ((ptr)[(i)] = xc_float_to_bf16(v))
#else
#define XC_DATA float
#define XC_LD(ptr, i) ((ptr)[(i)])
#define XC_ST(ptr, i, v) ((ptr)[(i)] = (v))
#endif

// Four elements at once: XC_LD4(ptr, i) reads elements [i, i + 4) of a global XC_DATA pointer
// as a float4, XC_ST4(ptr, i, v) rounds the float4 v into them; i is a multiple of 4 and the
// pointer's base 16-byte aligned, so fp32 is one 16-byte access and fp16 and bf16 one 8-byte
// access (two 32-bit words, the lower element in the lower half: little-endian devices, as
// every device xconv supports). Each element rounds as XC_ST rounds it.
#if XC_DTYPE == 1
#define XC_LD4(ptr, i) XC_LD_HALF4((ptr) + (i))
#define XC_ST4(ptr, i, v) XC_ST_HALF4((ptr) + (i), (v))
#elif XC_DTYPE == 2
XC_FUNC float4 xc_ld4_bf16(const XC_GLOBAL XC_DATA *p)
{
    const uint2 u = XC_LD_WORDS2(p);
    return XC_MAKE_FLOAT4(XC_AS_FLOAT(u.x << 16), XC_AS_FLOAT(u.x & 0xffff0000u),
                          XC_AS_FLOAT(u.y << 16), XC_AS_FLOAT(u.y & 0xffff0000u));
}
XC_FUNC void xc_st4_bf16(XC_GLOBAL XC_DATA *p, const float4 v)
{
    XC_ST_WORDS2(p, XC_PACK16(xc_float_to_bf16(v.x), xc_float_to_bf16(v.y)),
                 XC_PACK16(xc_float_to_bf16(v.z), xc_float_to_bf16(v.w)));
}
#define XC_LD4(ptr, i) xc_ld4_bf16((ptr) + (i))
#define XC_ST4(ptr, i, v) xc_st4_bf16((ptr) + (i), (v))
#else
#define XC_LD4(ptr, i) (((const XC_GLOBAL float4 *)((ptr) + (i)))[0])
#define XC_ST4(ptr, i, v) (((XC_GLOBAL float4 *)((ptr) + (i)))[0] = (v))
#endif

// Two elements at once: XC_LD2(ptr, i) reads elements [i, i + 2) of a global XC_DATA pointer
// as a float2, XC_ST2(ptr, i, v) rounds the float2 v into them; i is even and the pointer's base
// aligned to two elements, so fp16 and bf16 are one 4-byte access (the lower element in the
// lower half) and fp32 one 8-byte access. Each element rounds as XC_ST rounds it.
#if XC_DTYPE == 1
#define XC_LD2(ptr, i) XC_LD_HALF2((ptr) + (i))
#define XC_ST2(ptr, i, v) XC_ST_HALF2((ptr) + (i), (v))
#elif XC_DTYPE == 2
XC_FUNC float2 xc_ld2_bf16(const XC_GLOBAL XC_DATA *p)
{
    const unsigned int u = ((const XC_GLOBAL unsigned int *)p)[0];
    return XC_MAKE_FLOAT2(XC_AS_FLOAT(u << 16), XC_AS_FLOAT(u & 0xffff0000u));
}
XC_FUNC void xc_st2_bf16(XC_GLOBAL XC_DATA *p, const float2 v)
{
    ((XC_GLOBAL unsigned int *)p)[0] = XC_PACK16(xc_float_to_bf16(v.x), xc_float_to_bf16(v.y));
}
#define XC_LD2(ptr, i) xc_ld2_bf16((ptr) + (i))
#define XC_ST2(ptr, i, v) xc_st2_bf16((ptr) + (i), (v))
#else
#define XC_LD2(ptr, i) (((const XC_GLOBAL float2 *)((ptr) + (i)))[0])
#define XC_ST2(ptr, i, v) (((XC_GLOBAL float2 *)((ptr) + (i)))[0] = (v))
#endif

#endif // XCONV_DIALECT_H
