// SPDX-License-Identifier: MIT
// Intel's matrix engines (XMX, the DPAS instruction) for kernels: one sub-group's 8 x 16 by
// 16 x SG multiply-accumulate with f16 or bf16 operands and fp32 sums, through
// cl_intel_subgroup_matrix_multiply_accumulate's built-ins (XC_XMX_NATIVE 1) or an emulation of
// them through local memory on any device (0), with the operands in the extension's layout.
//
// The layout (SG, the sub-group size, is 8 on Xe-HPG and 16 on Xe-HPC; the host passes it):
//   B (16 x SG): lane j holds column j, 8 words, word i = k 2i (lower half) and 2i + 1 (upper).
//   A (8 x 16): row m is spread over the lanes: with SG 8 lane l holds k 2l and 2l + 1 of it
//     (one word), with SG 16 lane l holds k l (the lower 16 bits of a word).
//   C (8 x SG): lane j holds column j, rows 0-7.
// The kernel keeps each operand as an array of 8 words (acc: 8 floats), so the emulated and
// native forms take the same arguments.
//
// Defines: XC_XMX_MATH (2 f16, 3 bf16), XC_XMX_SG (8 or 16), XC_XMX_NATIVE (1 built-ins, 0
// emulated), XC_XMX_THREADS (the work-group's work-items: sub-groups of SG consecutive ones).
#ifndef XCONV_XMX_H
#define XCONV_XMX_H

#if XC_XMX_SG != 8 && XC_XMX_SG != 16
#error "xconv_xmx.h: XC_XMX_SG is 8 or 16 (the device's smallest sub-group)"
#endif
#if XC_XMX_MATH != 2 && XC_XMX_MATH != 3
#error "xconv_xmx.h: XC_XMX_MATH is 2 (f16) or 3 (bf16)"
#endif

#if XC_XMX_NATIVE
// =============================================================================================
// The built-ins: one DPAS a call (OpenCL on Intel GPUs only)

#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_C_VERSION__)
#error "xconv_xmx.h: the native matrix engines are an OpenCL extension (set XC_XMX_NATIVE 0)"
#endif

// The kernel's attribute: the sub-group size the built-ins need.
#define XC_XMX_SUB_GROUP_SIZE __attribute__((intel_reqd_sub_group_size(XC_XMX_SG)))
#define XC_XMX_LANE(tid) ((int)get_sub_group_local_id())     // lane in the sub-group, bound SG
#define XC_XMX_SUB_GROUP(tid) ((int)get_sub_group_id())       // sub-group of the work-group

// Compilers that offer the built-ins without defining the extension's macro (Debian's IGC
// 1.0.12504 for dg2 and pvc) declare them only under it: declare the two this header uses.
#ifndef cl_intel_subgroup_matrix_multiply_accumulate
#if XC_XMX_SG == 8
float8 __attribute__((overloadable)) intel_sub_group_f16_f16_matrix_mad_k16(int8 a, int8 b,
                                                                            float8 acc);
float8 __attribute__((overloadable)) intel_sub_group_bf16_bf16_matrix_mad_k16(int8 a, int8 b,
                                                                              float8 acc);
#else
float8 __attribute__((overloadable)) intel_sub_group_f16_f16_matrix_mad_k16(short8 a, int8 b,
                                                                            float8 acc);
float8 __attribute__((overloadable)) intel_sub_group_bf16_bf16_matrix_mad_k16(short8 a, int8 b,
                                                                              float8 acc);
#endif
#endif

#if XC_XMX_MATH == 2
#define XC_XMX_BUILTIN intel_sub_group_f16_f16_matrix_mad_k16
#else
#define XC_XMX_BUILTIN intel_sub_group_bf16_bf16_matrix_mad_k16
#endif

// No local memory: the sub-group exchanges operands in the instruction itself.
#define XC_XMX_SCRATCH_WORDS 1

// acc (8 floats) += A * B, A and B in the layout above; every lane of the sub-group calls it.
XC_FUNC void xc_xmx_mad(float *acc, const unsigned int *a, const unsigned int *b,
                        XC_LOCAL_PTR unsigned int *scratch, const int lane)
{
    (void)scratch;
    (void)lane;
#if XC_XMX_SG == 8
    const int8 av = as_int8((uint8)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]));
#else
    const short8 av = as_short8((ushort8)((ushort)a[0], (ushort)a[1], (ushort)a[2],
                                          (ushort)a[3], (ushort)a[4], (ushort)a[5],
                                          (ushort)a[6], (ushort)a[7]));
#endif
    const int8 bv = as_int8((uint8)(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]));
    float8 c = (float8)(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]);
    c = XC_XMX_BUILTIN(av, bv, c);
    acc[0] = c.s0, acc[1] = c.s1, acc[2] = c.s2, acc[3] = c.s3;
    acc[4] = c.s4, acc[5] = c.s5, acc[6] = c.s6, acc[7] = c.s7;
}

#else
// =============================================================================================
// The emulation: a sub-group is SG consecutive work-items; A goes through local memory

#define XC_XMX_SUB_GROUP_SIZE
#define XC_XMX_LANE(tid) ((tid) % XC_XMX_SG)
#define XC_XMX_SUB_GROUP(tid) ((tid) / XC_XMX_SG)

// Words of local memory the work-group's exchange takes: 8 words a lane.
#define XC_XMX_SCRATCH_WORDS (XC_XMX_THREADS * 8)

// The value of the 16-bit element `upper` (0: the lower half, 1: the upper) of word w, exactly.
XC_FUNC float xc_xmx_value(const unsigned int w, const int upper)
{
    return xc_matrix_half_value(w, upper, XC_XMX_MATH == 3);
}

// The built-in's result on one lane: each lane publishes its words of A in scratch (its
// sub-group's SG x 8 words), then sums its column's 8 outputs over k = 0..15 in order with
// fp32 fmas (each product of two 16-bit values is exact in fp32). Work-group barriers: every
// work-item calls it equally often, in uniform control flow.
XC_FUNC void xc_xmx_mad(float *acc, const unsigned int *a, const unsigned int *b,
                        XC_LOCAL_PTR unsigned int *scratch, const int lane)
{
    XC_BARRIER();  // every lane is done with the last call's words
    for (int m = 0; m < 8; m++)
        scratch[lane * 8 + m] = a[m];
    XC_BARRIER();
    for (int m = 0; m < 8; m++) {
        float sum = acc[m];
        for (int k = 0; k < 16; k++) {
#if XC_XMX_SG == 8  // A(m, k): lane k / 2, half k % 2
            const float av = xc_xmx_value(scratch[(k / 2) * 8 + m], k % 2);
#else               // A(m, k): lane k, the lower half
            const float av = xc_xmx_value(scratch[k * 8 + m], 0);
#endif
            sum = XC_FMA(av, xc_xmx_value(b[k / 2], k % 2), sum);
        }
        acc[m] = sum;
    }
}
#endif

#endif // XCONV_XMX_H
