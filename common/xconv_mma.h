// SPDX-License-Identifier: MIT
// What the tensor-core implicit GEMMs share (cl/implicit_mma.cl, registers double-buffered;
// cl/implicit_mma_packed.cl, packed operands through a cp.async ring): their tuning defines and
// the tiles derived from them, the mma.sync instruction as inline PTX or its emulation through
// local memory (XC_MMA_PTX 0, the CPU-device tests), TF32 rounding, and the store of C through
// local memory. cl/implicit_mma.cl's header says how the fragments and tiles are laid out. A
// kernel includes xconv_matrix_operands.h before it (embedded kernels resolve one level).
#ifndef XCONV_MMA_H
#define XCONV_MMA_H

// ---------------------------------------------------------------------------------------------
// Tuning parameters (host/families/gemm/plan_mma.c)

#ifndef XC_MMA_MATH
#error "xconv_mma.h needs XC_MMA_MATH (1 tf32, 2 f16, 3 bf16)"
#endif
#ifndef XC_MMA_PTX
#define XC_MMA_PTX 1        // 1: mma.sync as inline PTX; 0: emulated (tests on CPU devices)
#endif
#ifndef XC_MMA_WARPS_M
#define XC_MMA_WARPS_M 2    // warps along M: 1, 2 or 4
#endif
#ifndef XC_MMA_WARPS_N
#define XC_MMA_WARPS_N 2    // warps along N: 1, 2 or 4
#endif
#ifndef XC_MMA_TILE_M
#define XC_MMA_TILE_M 64    // rows of C per work-group: a multiple of 16 * WARPS_M
#endif
#ifndef XC_MMA_TILE_N
#define XC_MMA_TILE_N 64    // columns of C per work-group: a multiple of 8 * WARPS_N
#endif
#ifndef XC_MMA_TILE_K
#define XC_MMA_TILE_K 32    // k per local-memory step: a multiple of 8 words (16 tf32, 32 f16)
#endif
#ifndef XC_MMA_SPLIT
#define XC_MMA_SPLIT 1      // K slices (the packed pipeline's split-K): 1, or 2 to 16 with C
#endif                      // stored as fp32 partials, XC_MMA_PART_LD floats a row

// ---------------------------------------------------------------------------------------------
// Derived parameters

#define XC_MMA_WARP 32                                        // lanes of a warp (PTX)
#define XC_MMA_THREADS (XC_MMA_WARPS_M * XC_MMA_WARPS_N * XC_MMA_WARP)
#define XC_MMA_PACK (XC_MMA_MATH == 1 ? 1 : 2)                // elements per 32-bit word
#define XC_MMA_KW (XC_MMA_TILE_K / XC_MMA_PACK)               // words of k per local row
#define XC_MMA_WARP_M (XC_MMA_TILE_M / XC_MMA_WARPS_M)        // rows of C per warp
#define XC_MMA_WARP_N (XC_MMA_TILE_N / XC_MMA_WARPS_N)        // columns of C per warp
#define XC_MMA_M (XC_MMA_WARP_M / 16)                         // 16-row tiles per warp
#define XC_MMA_N (XC_MMA_WARP_N / 8)                          // 8-column tiles per warp

#define XC_MMA_GEMM_M XC_KG                     // rows of C: a group's filters
#define XC_MMA_COLS (XC_N * XC_P * XC_Q)        // columns of C: output positions

#if XC_MMA_MATH < 1 || XC_MMA_MATH > 3
#error "xconv_mma.h: XC_MMA_MATH is 1 (tf32), 2 (f16) or 3 (bf16)"
#endif
#if (XC_MMA_MATH == 1 && XC_DTYPE) || (XC_MMA_MATH == 2 && XC_DTYPE != 1) || \
    (XC_MMA_MATH == 3 && XC_DTYPE != 2)
#error "xconv_mma.h: tf32 reads fp32 storage, f16 fp16 storage and bf16 bf16 storage"
#endif
#if XC_MMA_TILE_M % (16 * XC_MMA_WARPS_M) || XC_MMA_TILE_N % (16 * XC_MMA_WARPS_N) || \
    XC_MMA_KW % 8 || XC_MMA_TILE_K % XC_MMA_PACK
#error "xconv_mma.h: warp tiles of whole 16 x 16 tiles and K steps of whole 8-word slices"
#endif
#if XC_MMA_THREADS & (XC_MMA_THREADS - 1)
#error "xconv_mma.h: WARPS_M * WARPS_N warps, a power of two"
#endif

// What C is stored as: y in the storage type, or a slice's fp32 partial sums under split-K.
#if XC_MMA_SPLIT > 1
#ifndef XC_MMA_PART_LD
#error "xconv_mma.h: split-K needs XC_MMA_PART_LD, the partials' row stride"
#endif
#define XC_MMA_OUT float
#else
#define XC_MMA_OUT XC_DATA
#endif

// The operands as stored: fp32 for tf32, the 16-bit words themselves for f16 and bf16 (raw
// bits, so OpenCL needs no half arithmetic); y through the dialect's XC_DATA and XC_ST.
#if XC_MMA_PACK == 1
#define XC_MMA_SRC float
#else
#define XC_MMA_SRC unsigned short
#endif

// ---------------------------------------------------------------------------------------------
// The instruction: D = A * B + C on one 16 x 8 tile (a: 4 words, b: 2 words, acc: 4 floats)

#if XC_MMA_PTX
#if XC_MMA_MATH == 1
#define XC_MMA_OP "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
#elif XC_MMA_MATH == 2
#define XC_MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#else
#define XC_MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#endif

XC_FUNC void xc_mma(float *acc, const unsigned int *a, const unsigned int *b,
                    XC_LOCAL_PTR unsigned int *scratch, const int lane)
{
    (void)scratch;
    (void)lane;
    float d0, d1, d2, d3;
    asm volatile(XC_MMA_OP " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%10, %11, %12, %13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(acc[0]), "f"(acc[1]), "f"(acc[2]), "f"(acc[3]));
    acc[0] = d0;
    acc[1] = d1;
    acc[2] = d2;
    acc[3] = d3;
}

// An fp32 value rounded to TF32 (its bits in a 32-bit word), as the mma reads it.
XC_FUNC unsigned int xc_mma_tf32(const float f)
{
    unsigned int u;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(f));
    return u;
}
#else
#define XC_MMA_SCRATCH (XC_MMA_THREADS * 6)  // words: 4 of A and 2 of B per lane

// The value of element `upper` (0: the lower 16 bits, 1: the upper) of word w as the mma reads.
XC_FUNC float xc_mma_value(const unsigned int w, const int upper)
{
#if XC_MMA_MATH == 1
    (void)upper;
    return XC_AS_FLOAT(w);
#else
    return xc_matrix_half_value(w, upper, XC_MMA_MATH == 3);
#endif
}

// The emulated mma: every lane of the warp publishes its fragments in scratch (the warp's 32
// lanes x 6 words); each lane then reads A(m, k) and B(k, n) from the lane and register that
// the PTX layout gives them and sums its four outputs (m = g or g + 8, n = 2t or 2t + 1).
// Work-group barriers: every work-item calls it equally often.
XC_FUNC void xc_mma(float *acc, const unsigned int *a, const unsigned int *b,
                    XC_LOCAL_PTR unsigned int *scratch, const int lane)
{
    XC_BARRIER();
    for (int i = 0; i < 4; i++)
        scratch[lane * 6 + i] = a[i];
    scratch[lane * 6 + 4] = b[0];
    scratch[lane * 6 + 5] = b[1];
    XC_BARRIER();
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) {
        const int m = g + (i >= 2 ? 8 : 0), n = 2 * t + i % 2;
        float sum = acc[i];
        for (int k = 0; k < 8 * XC_MMA_PACK; k++) {
#if XC_MMA_PACK == 1  // m16n8k8 tf32: A(m, k) in lane (m % 8) * 4 + k % 4, register
            // (m >= 8) + 2 * (k >= 4); B(k, n) in lane n * 4 + k % 4, register k >= 4
            const unsigned int aw = scratch[((m % 8) * 4 + k % 4) * 6 + (m >= 8) + 2 * (k >= 4)];
            const unsigned int bw = scratch[(n * 4 + k % 4) * 6 + 4 + (k >= 4)];
#else  // m16n8k16: A(m, k) in lane (m % 8) * 4 + (k % 8) / 2, register (m >= 8) +
            // 2 * (k >= 8), half k % 2; B(k, n) in lane n * 4 + (k % 8) / 2, register k >= 8
            const unsigned int aw =
                scratch[((m % 8) * 4 + (k % 8) / 2) * 6 + (m >= 8) + 2 * (k >= 8)];
            const unsigned int bw = scratch[(n * 4 + (k % 8) / 2) * 6 + 4 + (k >= 8)];
#endif
            sum = XC_FMA(xc_mma_value(aw, k % 2), xc_mma_value(bw, k % 2), sum);
        }
        acc[i] = sum;
    }
}

// An fp32 value rounded to TF32 as cvt.rna.tf32.f32 does: to nearest, ties away from zero, the
// low 13 bits cleared (NaN and infinity kept).
XC_FUNC unsigned int xc_mma_tf32(const float f)
{
    const unsigned int u = XC_AS_UINT(f);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return u;
    return (u + 0x1000u) & 0xffffe000u;
}
#endif

// ---------------------------------------------------------------------------------------------
// A kernel's local memory and work-item ids

// Declares, first in a tensor-core kernel: lds, the kernel's XC_MMA_LOCAL_WORDS words of local
// memory (16-byte aligned: lds_units); scratch, the warp's 32 lanes x 6 words of the emulated
// mma (with PTX an unused alias of lds); tid, the work-item, bound THREADS (a power of two: the
// mask tells the compiler so, which folds the places of the staged words); lane, its lane of
// its warp; warp, bound WARPS_M * WARPS_N, at warp_m of WARPS_M and warp_n of WARPS_N.
#if XC_MMA_PTX
#define XC_MMA_SCRATCH_ALL
#define XC_MMA_WARP_SCRATCH lds  // unused
#else
#define XC_MMA_SCRATCH_ALL XC_LOCAL unsigned int scratch_all[XC_MMA_SCRATCH];
#define XC_MMA_WARP_SCRATCH (scratch_all + warp * XC_MMA_WARP * 6)
#endif
#define XC_MMA_KERNEL_LOCALS                                                  \
    XC_LOCAL uint4 lds_units[XC_MMA_LOCAL_WORDS / 4];                         \
    XC_LOCAL_PTR unsigned int *lds = (XC_LOCAL_PTR unsigned int *)lds_units;  \
    XC_MMA_SCRATCH_ALL                                                        \
    const int tid = XC_LOCAL_ID(0) & (XC_MMA_THREADS - 1);                    \
    const int lane = tid % XC_MMA_WARP;                                       \
    const int warp = tid / XC_MMA_WARP;                                       \
    const int warp_m = warp / XC_MMA_WARPS_N, warp_n = warp % XC_MMA_WARPS_N; \
    XC_LOCAL_PTR unsigned int *scratch = XC_MMA_WARP_SCRATCH

// ---------------------------------------------------------------------------------------------
// Storing C

// Writes this warp's tiles into y through local memory, one 16-row tile of its block at a time:
// the warp puts its fragments' sums in its part of `stage` (16 rows of WARP_N floats, padded by
// one), then each lane takes one column and writes its 16 rows, so that a warp's store is
// WARP_N consecutive output positions of one filter (contiguous within an image) rather than
// four-float pieces of eight filters. Rows past M and columns past C's are skipped. Every
// work-item of the work-group calls it (two barriers a 16-row tile). Under split-K (XC_MMA_SPLIT
// > 1) y is the slice's partial C instead, row-major with PART_LD floats a row, the sums as
// they are (fp32).
#define XC_MMA_STAGE_LD (XC_MMA_WARP_N + 1)  // floats per staged row
#define XC_MMA_STAGE_WORDS (XC_MMA_WARPS_M * XC_MMA_WARPS_N * 16 * XC_MMA_STAGE_LD)

XC_FUNC void xc_mma_store_c(XC_GLOBAL XC_MMA_OUT *y, XC_LOCAL_PTR float *stage, const int row0,
                            const int col0, const int lane, const float *acc XC_BATCH_PARAM)
{
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < XC_MMA_M; i++) {
        XC_BARRIER();  // every warp is done with the operands (or the last tile's rows)
#pragma unroll
        for (int j = 0; j < XC_MMA_N; j++) {
#pragma unroll
            for (int e = 0; e < 4; e++)  // row g + 8 (e >= 2), column 8 j + 2 t + e % 2
                stage[(g + 8 * (e / 2)) * XC_MMA_STAGE_LD + j * 8 + 2 * t + e % 2] =
                    acc[(i * XC_MMA_N + j) * 4 + e];
        }
        XC_BARRIER();
        for (int c = lane; c < XC_MMA_WARP_N; c += XC_MMA_WARP) {
            const int col = col0 + c;  // column of C, bound COLS
            if (col >= XC_MMA_COLS)
                continue;
#if XC_MMA_SPLIT > 1
#pragma unroll
            for (int r = 0; r < 16; r++) {
                const int row = row0 + i * 16 + r;  // row of C, bound M
                if (row < XC_MMA_GEMM_M)
                    y[row * XC_MMA_PART_LD + col] = stage[r * XC_MMA_STAGE_LD + c];
            }
#else
            const int n = col / (XC_P * XC_Q), pq = col % (XC_P * XC_Q);
#pragma unroll
            for (int r = 0; r < 16; r++) {
                const int row = row0 + i * 16 + r;  // row of C, bound M
                if (row < XC_MMA_GEMM_M)
                    XC_ST(y, (n * XC_K + row) * (XC_P * XC_Q) + pq,
                          stage[r * XC_MMA_STAGE_LD + c]);
            }
#endif
        }
    }
}


#endif // XCONV_MMA_H
