// SPDX-License-Identifier: MIT
// implicit_mma_packed: the tensor-core implicit GEMM of cl/implicit_mma.cl (the same C = A x B,
// one product per group, the same mma.sync and store of C: common/xconv_mma.h) fed from packed
// operands through a ring of local-memory stages filled by asynchronous 16-byte copies. Three
// kernels, run in this order by one plan (host/families/gemm/plan_mma.c):
//
//   implicit_mma_pack_w: the filters (K, CG, R, S) into A = (K, R, S, CP) in the workspace, a
//     group's channels padded with zeros to CP, a multiple of a 16-byte chunk (4 TF32 words or
//     8 fp16/bf16 elements), tf32 values rounded to TF32 (cvt.rna) as implicit_mma rounds them.
//     A tiled transpose through local memory where R S > 1: a work-group takes one filter and
//     a block of PACK_W_CHUNKS chunks of its channels, reads the block's channels x R S
//     elements in their stored order (contiguous) into local rows of one tap each, then writes
//     the (R, S, chunk) chunks, each tap's chunks contiguous. A 1x1 filter is already
//     channels-fastest: one work-item a chunk, no local memory (PACK_W_CHUNKS 0).
//   implicit_mma_pack_x: x (N, C, H, W) into (N, H, W, G, CP): a pixel's channels of a group
//     contiguous, padded alike, so two consecutive k of a 16-bit type share one aligned word.
//   implicit_mma_packed: the product, k walked as (r, s, c) over the padded channels (k < R S
//     CP): every 16-byte chunk of a row of A or a column of B lies inside one filter tap, and
//     is one aligned 16-byte copy from the packed tensors (zeros where the tap falls in the
//     padding or past the image, rows past M, columns past C's and k past the end).
//
// The pipeline (XC_MMA_STAGES buffers of one K step each, one barrier a step): step s's copies
// are issued STAGES - 1 steps ahead; at step s a work-item waits until at most STAGES - 2 of its
// copy groups are in flight (its step-s copies have landed), the barrier makes every work-item's
// copies visible and tells that all are done with the buffer of step s - 1, which then takes
// the copies of step s + STAGES - 1, and the step's words are multiplied. With XC_MMA_PTX 1 a
// copy is PTX's cp.async.cg.shared.global (16 bytes, src-size 0 for the zeros), one
// cp.async.commit_group a step, cp.async.wait_group STAGES - 2; with XC_MMA_PTX 0 (the CPU-device
// tests, the mma emulated) the same copies are plain loads and stores in the same ring.
//
// Local layout: a stage holds A's TILE_M rows and then B's TILE_N columns, each a row of KW
// words (k contiguous, as in global memory) in 16-byte chunks, chunk c of row m stored at
// c ^ ((m / (8 / KC)) % KC) (KC chunks a row): the 8 rows an ldmatrix phase reads (one chunk
// each) then cover the 32 banks once. Fragments come from `ldmatrix.x4` (b16, which in 32-bit
// word terms gives lane (g, t) word t of row g of each of four 8-row matrices: for a 16-row
// tile of A the rows g and g + 8 at chunks 2 slice and 2 slice + 1, for a pair of 8-column
// tiles of B columns g and g + 8 the same): exactly the mma fragments of cl/implicit_mma.cl's
// header in all three math modes. The fragment-order layout of implicit_mma puts a chunk's four
// words in four lanes' slots, which a 16-byte copy cannot write; hence rows and ldmatrix here.
// XC_MMA_PTX 0 reads the same words with plain loads.
//
// Direct B (XC_MMA_B_DIRECT 1: a 1x1 filter, stride 1, no padding, one group, H W a multiple
// of a chunk's pixels): B's row k is x's channel k of an image, contiguous along the output
// positions, so the product copies B straight from x and implicit_mma_pack_x does not run. A
// stage then holds B as TILE_K rows of k (elements) of TILE_N columns, 16-byte chunks of 8
// fp16/bf16 or 4 fp32 pixels (one image each: H W is a multiple of them), chunk c of row k at
// c ^ (k % 8) for 16 bits, c ^ (2 (k % 4)) for fp32. For f16/bf16 `ldmatrix.x4.trans` gives the
// B fragments from those rows (lane (g, t): k 2t and 2t + 1 of column g, and k + 8); for tf32
// (32-bit words, no .trans) the lane reads B(t, g) and B(t + 4, g) with plain local loads (the
// swizzle puts the warp's 32 words in 32 banks) and rounds them to TF32 there, as packing x
// does. k runs over the same channels in the same steps and slices as packed x, with zeros past
// C: the mma sees the same fragments, so the sums are the same bits as the packed pipeline's.
//
// Split-K (XC_MMA_SPLIT S > 1, for grids under a wave of the device): group id 2 runs over
// groups x S; slice s walks K steps [s SPLIT_STEPS, (s + 1) SPLIT_STEPS) through the same ring
// and stores its fp32 sums as partial C (common/xconv_mma.h) in the workspace, the partials of
// group g, slice s at word y_off + (g S + s) M PART_LD; cl/splitk_reduce.cl then adds the S
// partials in slice order and rounds once into y (the same sums on every backend).

#ifndef XC_MMA_STAGES
#define XC_MMA_STAGES 3     // local-memory stages of the ring: 2, 3 or 4
#endif
#ifndef XC_MMA_PACK_W_CHUNKS
#define XC_MMA_PACK_W_CHUNKS 0  // 16-byte chunks of pack_w's channel block (32, 64); 0: untiled
#endif
#ifndef XC_MMA_PACK_W_THREADS
#define XC_MMA_PACK_W_THREADS 256  // work-items of a tiled pack_w work-group: 64 to 256
#endif
#ifndef XC_MMA_B_DIRECT
#define XC_MMA_B_DIRECT 0   // 1: B copied from x as it lies (1x1, stride 1, unpadded, 1 group)
#endif

#include "xconv_matrix_operands.h"
#include "xconv_mma.h"

// ---------------------------------------------------------------------------------------------
// Derived parameters of these kernels (in 32-bit words unless said)

#define XC_MMA_KC (XC_MMA_KW / 4)                            // 16-byte chunks of a row a step
#define XC_MMA_CPW ((XC_CG + 4 * XC_MMA_PACK - 1) / (4 * XC_MMA_PACK) * 4)  // words: CP / PACK
#define XC_MMA_GCPW (XC_GROUPS * XC_MMA_CPW)                 // words of a packed pixel of x
#define XC_MMA_KPW (XC_R * XC_S * XC_MMA_CPW)                // words of a packed row of A
#define XC_MMA_PSTEPS ((XC_MMA_KPW + XC_MMA_KW - 1) / XC_MMA_KW)
#ifndef XC_MMA_SPLIT_STEPS
#define XC_MMA_SPLIT_STEPS XC_MMA_PSTEPS  // K steps of one slice (all of them unsplit)
#endif
#define XC_MMA_STAGE ((XC_MMA_TILE_M + XC_MMA_TILE_N) * XC_MMA_KW)  // words of one stage
#define XC_MMA_A_CHUNKS (XC_MMA_TILE_M * XC_MMA_KC)
#define XC_MMA_B_CHUNKS (XC_MMA_TILE_N * XC_MMA_KC)
#define XC_MMA_A_ITERS ((XC_MMA_A_CHUNKS + XC_MMA_THREADS - 1) / XC_MMA_THREADS)
#define XC_MMA_B_ITERS ((XC_MMA_B_CHUNKS + XC_MMA_THREADS - 1) / XC_MMA_THREADS)
// Words of local memory: the ring, or the staged sums of C where they are larger.
#define XC_MMA_LOCAL_WORDS                                                     \
    ((XC_MMA_STAGES * XC_MMA_STAGE > XC_MMA_STAGE_WORDS ? XC_MMA_STAGES * XC_MMA_STAGE \
                                                        : XC_MMA_STAGE_WORDS + 3) / 4 * 4)

#if XC_MMA_KC != 2 && XC_MMA_KC != 4 && XC_MMA_KC != 8
#error "implicit_mma_packed.cl: a K step of 8, 16 or 32 words (2, 4 or 8 chunks a row)"
#endif
#if XC_MMA_STAGES < 2 || XC_MMA_STAGES > 4
#error "implicit_mma_packed.cl: XC_MMA_STAGES is 2, 3 or 4"
#endif
#if XC_MMA_SPLIT < 1 || XC_MMA_SPLIT_STEPS * XC_MMA_SPLIT < XC_MMA_PSTEPS || \
    XC_MMA_SPLIT_STEPS * (XC_MMA_SPLIT - 1) >= XC_MMA_PSTEPS
#error "implicit_mma_packed.cl: SPLIT slices of SPLIT_STEPS K steps, none empty, cover K"
#endif
#if XC_MMA_B_DIRECT
#define XC_MMA_BPIX (4 * XC_MMA_PACK)                         // pixels of a 16-byte chunk of x
#define XC_MMA_BNC (XC_MMA_TILE_N / XC_MMA_BPIX)              // chunks of a local row of B
#define XC_MMA_BROW (XC_MMA_TILE_N / XC_MMA_PACK)             // words of a local row of B
#if XC_R != 1 || XC_S != 1 || XC_STRIDE_H != 1 || XC_STRIDE_W != 1 || XC_PAD_H || XC_PAD_W || \
    XC_GROUPS != 1 || (XC_H * XC_W) % XC_MMA_BPIX || XC_MMA_BNC % 8
#error "implicit_mma_packed.cl: direct B takes 1x1, stride 1, unpadded, 1 group, H W a multiple \
of a chunk's pixels and TILE_N of 8 chunks"
#endif
#endif
#if XC_MMA_THREADS % XC_MMA_KC
#error "implicit_mma_packed.cl: a work-item copies one chunk column of every row it copies"
#endif

// ---------------------------------------------------------------------------------------------
// The packing steps (w: tiled through local memory, 2-D launch, or a 16-byte chunk a work-item,
// 1-D; x: a chunk a work-item, 2-D)

// Word q of a packed chunk: elements (chunk * 4 + q) * PACK + h (h < PACK) of a group's
// channels, read through `at` (the element of channel 0) every `stride` elements; zeros past CG.
XC_FUNC unsigned int xc_mma_pack_word(const XC_GLOBAL XC_MMA_SRC *at, const int stride,
                                      const int c0)
{
#if XC_MMA_PACK == 1
    return c0 < XC_CG ? xc_mma_tf32(at[c0 * stride]) : 0u;
#else
    const unsigned int lo = c0 < XC_CG ? (unsigned int)at[c0 * stride] : 0u;
    const unsigned int hi = c0 + 1 < XC_CG ? (unsigned int)at[(c0 + 1) * stride] : 0u;
    return XC_PACK16(lo, hi);
#endif
}

#if XC_MMA_PACK_W_CHUNKS == 0
// A = the filters as (K, R, S, CP): work-item i writes chunk i % (CPW / 4) of filter tap
// (i / (CPW / 4)) % RS of filter i / (CPW / 4) / RS.
XC_KERNEL void implicit_mma_pack_w(const XC_GLOBAL XC_MMA_SRC *XC_RESTRICT w,
                                   XC_GLOBAL unsigned int *XC_RESTRICT ws, const int w_off
                                   XC_BATCH_PARAM)
{
    const int i = XC_GLOBAL_ID(0);
    if (i >= XC_K * XC_R * XC_S * (XC_MMA_CPW / 4))
        return;
    const int chunk = i % (XC_MMA_CPW / 4), rs = i / (XC_MMA_CPW / 4) % (XC_R * XC_S);
    const int row = i / (XC_MMA_CPW / 4) / (XC_R * XC_S);     // filter, bound K
    const XC_GLOBAL XC_MMA_SRC *at = w + row * XC_CG * (XC_R * XC_S) + rs;
    const int c0 = chunk * 4 * XC_MMA_PACK;
    XC_ST_WORDS4(ws + w_off + (row * (XC_R * XC_S) + rs) * XC_MMA_CPW + chunk * 4,
                 xc_mma_pack_word(at, XC_R * XC_S, c0),
                 xc_mma_pack_word(at, XC_R * XC_S, c0 + XC_MMA_PACK),
                 xc_mma_pack_word(at, XC_R * XC_S, c0 + 2 * XC_MMA_PACK),
                 xc_mma_pack_word(at, XC_R * XC_S, c0 + 3 * XC_MMA_PACK));
}
#else
#define XC_MMA_PW_WORDS (4 * XC_MMA_PACK_W_CHUNKS)  // words of a block of one tap
#define XC_MMA_PW_LD (XC_MMA_PW_WORDS + 4)          // words of a local row: a spare chunk
                                                    // spreads a read round's taps over banks
// A = the filters as (K, R, S, CP), tiled: group (block, filter) packs words [w0, w0 + words)
// of every tap of the filter. Read round: word e = (m, rs), tap fastest, so consecutive
// work-items read consecutive stored elements; it lands at local row rs, word m. Write round:
// chunk e = (rs, ch), chunk fastest, one 16-byte store from local row rs.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_MMA_PACK_W_THREADS, 1, 1)
void implicit_mma_pack_w(const XC_GLOBAL XC_MMA_SRC *XC_RESTRICT w,
                         XC_GLOBAL unsigned int *XC_RESTRICT ws, const int w_off XC_BATCH_PARAM)
{
    XC_LOCAL uint4 tile_units[XC_R * XC_S * XC_MMA_PW_LD / 4];  // a row of words a tap
    XC_LOCAL_PTR unsigned int *tile = (XC_LOCAL_PTR unsigned int *)tile_units;
    const int tid = XC_LOCAL_ID(0);                    // bound PACK_W_THREADS
    const int w0 = XC_GROUP_ID(0) * XC_MMA_PW_WORDS;   // the block's first word of CPW
    const int row = XC_GROUP_ID(1);                    // filter, bound K
    const int words = XC_MMA_CPW - w0 < XC_MMA_PW_WORDS ? XC_MMA_CPW - w0 : XC_MMA_PW_WORDS;
    const XC_GLOBAL XC_MMA_SRC *at = w + row * XC_CG * (XC_R * XC_S);
    for (int e = tid; e < words * (XC_R * XC_S); e += XC_MMA_PACK_W_THREADS) {
        const int m = e / (XC_R * XC_S), rs = e % (XC_R * XC_S);  // word of the block, tap
        tile[rs * XC_MMA_PW_LD + m] =
            xc_mma_pack_word(at + rs, XC_R * XC_S, (w0 + m) * XC_MMA_PACK);
    }
    XC_BARRIER();
    for (int e = tid; e < words / 4 * (XC_R * XC_S); e += XC_MMA_PACK_W_THREADS) {
        const int rs = e / (words / 4), ch = e % (words / 4);     // tap, chunk of the block
        const uint4 v = tile_units[(rs * XC_MMA_PW_LD) / 4 + ch];
        XC_ST_WORDS4(ws + w_off + (row * (XC_R * XC_S) + rs) * XC_MMA_CPW + w0 + ch * 4, v.x,
                     v.y, v.z, v.w);
    }
}
#endif

// x as (N, H, W, G, CP): work-item (pos, gc) writes chunk gc of pixel pos. Work-groups of 8
// pixels x 8 chunks: a warp's 8 pixels x 4 chunks read 32 contiguous bytes of each channel and
// write 64 contiguous bytes of each pixel.
XC_KERNEL void implicit_mma_pack_x(const XC_GLOBAL XC_MMA_SRC *XC_RESTRICT x,
                                   XC_GLOBAL unsigned int *XC_RESTRICT ws, const int x_off
                                   XC_BATCH_PARAM)
{
    const int pos = XC_GLOBAL_ID(0), gc = XC_GLOBAL_ID(1);  // pixel of N H W; chunk of G CPW / 4
    if (pos >= XC_N * XC_H * XC_W || gc >= XC_MMA_GCPW / 4)
        return;
    const int n = pos / (XC_H * XC_W), hw = pos % (XC_H * XC_W);
    const int g = gc / (XC_MMA_CPW / 4), chunk = gc % (XC_MMA_CPW / 4);
    const XC_GLOBAL XC_MMA_SRC *at = x + (n * XC_C + g * XC_CG) * (XC_H * XC_W) + hw;
    const int c0 = chunk * 4 * XC_MMA_PACK;
    XC_ST_WORDS4(ws + x_off + pos * XC_MMA_GCPW + gc * 4,
                 xc_mma_pack_word(at, XC_H * XC_W, c0),
                 xc_mma_pack_word(at, XC_H * XC_W, c0 + XC_MMA_PACK),
                 xc_mma_pack_word(at, XC_H * XC_W, c0 + 2 * XC_MMA_PACK),
                 xc_mma_pack_word(at, XC_H * XC_W, c0 + 3 * XC_MMA_PACK));
}

// ---------------------------------------------------------------------------------------------
// The copies and the fragment loads

// Chunk `chunk` of local row `row` (of A, or of B past A's rows): its first word.
XC_FUNC int xc_mma_chunk_at(const int row, const int chunk)
{
    return row * XC_MMA_KW + (chunk ^ (row / (8 / XC_MMA_KC) % XC_MMA_KC)) * 4;
}

#if XC_MMA_B_DIRECT
// Chunk `chunk` of local row k of direct B (from B's first word): its first word. 16 bits: the
// 8 rows of an ldmatrix phase at one chunk in 8 chunks of the 32 banks; fp32: rows t and t + 4
// (t < 4) at chunks 2j and 2j + 1 likewise.
XC_FUNC int xc_mma_b_chunk_at(const int k, const int chunk)
{
#if XC_MMA_PACK == 1
    return k * XC_MMA_BROW + (chunk ^ (2 * (k % 4))) * 4;
#else
    return k * XC_MMA_BROW + (chunk ^ (k % 8)) * 4;
#endif
}
#endif

#if XC_MMA_PTX
// One 16-byte copy global -> local, zeros when !ok (src then only a valid address).
XC_FUNC void xc_mma_copy(XC_LOCAL_PTR unsigned int *dst, const XC_GLOBAL unsigned int *src,
                         const bool ok)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :
                 : "r"(XC_LOCAL_ADDR(dst)), "l"(src), "r"(ok ? 16 : 0)
                 : "memory");
}

XC_FUNC void xc_mma_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// Waits until at most STAGES - 2 of this work-item's copy groups are in flight.
XC_FUNC void xc_mma_wait_ring(void)
{
#if XC_MMA_STAGES == 2
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#elif XC_MMA_STAGES == 3
    asm volatile("cp.async.wait_group 1;" ::: "memory");
#else
    asm volatile("cp.async.wait_group 2;" ::: "memory");
#endif
}

XC_FUNC void xc_mma_wait_all(void)
{
    asm volatile("cp.async.wait_all;" ::: "memory");
}

// The four words of an x4 ldmatrix: matrix j's row i (i = lane % 8 for this lane's address) is
// local row base + i + 8 * (b_order ? j >> 1 : j & 1), chunk c0 + (b_order ? j & 1 : j >> 1).
XC_FUNC void xc_mma_ldsm(unsigned int *r, XC_LOCAL_PTR const unsigned int *buf, const int base,
                         const int c0, const int b_order, const int lane)
{
    const int j = lane / 8, i = lane % 8;
    const int row = base + i + 8 * (b_order ? j >> 1 : j & 1);
    const int chunk = c0 + (b_order ? j & 1 : j >> 1);
    XC_LOCAL_PTR const unsigned int *at = buf + xc_mma_chunk_at(row, chunk);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(XC_LOCAL_ADDR(at))
                 : "memory");
}
#else
XC_FUNC void xc_mma_copy(XC_LOCAL_PTR unsigned int *dst, const XC_GLOBAL unsigned int *src,
                         const bool ok)
{
    for (int q = 0; q < 4; q++)
        dst[q] = ok ? src[q] : 0u;
}

XC_FUNC void xc_mma_commit(void)
{
}

XC_FUNC void xc_mma_wait_ring(void)
{
}

XC_FUNC void xc_mma_wait_all(void)
{
}

// What an x4 ldmatrix gives lane (g, t): word t of row g of each matrix j (placed as above).
XC_FUNC void xc_mma_ldsm(unsigned int *r, XC_LOCAL_PTR const unsigned int *buf, const int base,
                         const int c0, const int b_order, const int lane)
{
    const int g = lane / 4, t = lane % 4;
    for (int j = 0; j < 4; j++) {
        const int row = base + g + 8 * (b_order ? j >> 1 : j & 1);
        r[j] = buf[xc_mma_chunk_at(row, c0 + (b_order ? j & 1 : j >> 1)) + t];
    }
}
#endif

// ---------------------------------------------------------------------------------------------
// One K step: issuing its copies, multiplying its stage

// Where this work-item's columns of B (output positions) start in packed x: the pixel offset
// of their image (words) and their windows' corners.
typedef struct xc_mma_packed_col {
    int offset, ih0, iw0;
} xc_mma_packed_col;

#if XC_MMA_B_DIRECT
// Direct B: offset = where the chunk of pixels from column j starts in x, channel 0 (-1 past
// C's columns; a chunk lies in one image); ih0 and iw0 unused.
XC_FUNC xc_mma_packed_col xc_mma_packed_column(const int j XC_BATCH_PARAM)
{
    xc_mma_packed_col col;
    const int n = j / (XC_H * XC_W), hw = j % (XC_H * XC_W);
    col.offset = j < XC_MMA_COLS ? n * XC_C * (XC_H * XC_W) + hw : -1;
    col.ih0 = col.iw0 = 0;
    return col;
}
#else
XC_FUNC xc_mma_packed_col xc_mma_packed_column(const int j XC_BATCH_PARAM)
{
    xc_mma_packed_col col;
    const bool ok = j < XC_MMA_COLS;
    const int jj = ok ? j : 0;
    const int n = jj / (XC_P * XC_Q), p = jj / XC_Q % XC_P, q = jj % XC_Q;
    col.offset = n * XC_H * XC_W * XC_MMA_GCPW;
    col.ih0 = ok ? p * XC_STRIDE_H - XC_PAD_H : -1073741824;  // past C's: every tap outside
    col.iw0 = q * XC_STRIDE_W - XC_PAD_W;
    return col;
}
#endif

// Issues this work-item's copies of K step `step` into `stage`: chunk ch (= tid % KC) of its
// rows of A and columns of B, all in one filter tap.
XC_FUNC void xc_mma_issue(XC_LOCAL_PTR unsigned int *stage, const XC_GLOBAL unsigned int *wp,
                          const XC_GLOBAL unsigned int *xp, const int step, const int tid,
                          const int row0, const xc_mma_packed_col *cols)
{
    const int ch = tid % XC_MMA_KC;
    const int kw = step * XC_MMA_KW + ch * 4;                 // first word of k of the chunk
    const int rs = kw / XC_MMA_CPW, cw = kw % XC_MMA_CPW;     // its filter tap and channel word
    const bool inside_k = kw < XC_MMA_KPW;
    const int dh = rs / XC_S % XC_R * XC_DIL_H, dw = rs % XC_S * XC_DIL_W;
#pragma unroll
    for (int i = 0; i < XC_MMA_A_ITERS; i++) {
        const int e = tid + i * XC_MMA_THREADS;
        if (XC_MMA_A_CHUNKS % XC_MMA_THREADS == 0 || e < XC_MMA_A_CHUNKS) {
            const int row = e / XC_MMA_KC;                    // of the tile
            const bool ok = inside_k && row0 + row < XC_MMA_GEMM_M;
            xc_mma_copy(stage + xc_mma_chunk_at(row, ch),
                        ok ? wp + (row0 + row) * XC_MMA_KPW + kw : wp, ok);
        }
    }
#if XC_MMA_B_DIRECT
    // B: chunk e % BNC of row k = e / BNC (channel step TILE_K + k) from x as it lies.
    const XC_GLOBAL XC_MMA_SRC *x = (const XC_GLOBAL XC_MMA_SRC *)xp;
    const XC_GLOBAL XC_MMA_SRC *xs = x + step * XC_MMA_TILE_K * (XC_H * XC_W);  // the step's
#pragma unroll                                                                  // channel 0
    for (int i = 0; i < XC_MMA_B_ITERS; i++) {
        const int e = tid + i * XC_MMA_THREADS;
        if (XC_MMA_B_CHUNKS % XC_MMA_THREADS == 0 || e < XC_MMA_B_CHUNKS) {
            const int k = e / XC_MMA_BNC;
            // A work-item's chunk column is the same every iteration where BNC divides THREADS.
            const int offset = cols[XC_MMA_THREADS % XC_MMA_BNC ? i : 0].offset;
            const bool ok = step * XC_MMA_TILE_K + k < XC_C && offset >= 0;
            xc_mma_copy(stage + XC_MMA_TILE_M * XC_MMA_KW + xc_mma_b_chunk_at(k, e % XC_MMA_BNC),
                        (const XC_GLOBAL unsigned int *)(ok ? xs + offset + k * (XC_H * XC_W)
                                                            : x),
                        ok);
        }
    }
#else
#pragma unroll
    for (int i = 0; i < XC_MMA_B_ITERS; i++) {
        const int e = tid + i * XC_MMA_THREADS;
        if (XC_MMA_B_CHUNKS % XC_MMA_THREADS == 0 || e < XC_MMA_B_CHUNKS) {
            const int col = e / XC_MMA_KC;                    // of the tile
            const int ih = cols[i].ih0 + dh, iw = cols[i].iw0 + dw;
            const bool ok = inside_k && (unsigned)ih < (unsigned)XC_H &&
                            (unsigned)iw < (unsigned)XC_W;
            xc_mma_copy(stage + XC_MMA_TILE_M * XC_MMA_KW + xc_mma_chunk_at(col, ch),
                        ok ? xp + cols[i].offset + (ih * XC_W + iw) * XC_MMA_GCPW + cw : xp, ok);
        }
    }
#endif
}

#if XC_MMA_B_DIRECT
// This warp's B fragments of 8-word slice `slice` from direct B (rows of k): 8-column tile j
// at columns n0 + 8 j. Lane (g, t): 16 bits, word 0 = k 2t, 2t + 1 of column g (low half k
// 2t), word 1 the same 8 k further; tf32, B(t, g) and B(t + 4, g) rounded to TF32.
XC_FUNC void xc_mma_b_direct(unsigned int b[XC_MMA_N][2], XC_LOCAL_PTR const unsigned int *bs,
                             const int slice, const int n0, const int lane)
{
    const int g = lane / 4, t = lane % 4;
#if XC_MMA_PACK == 1
#pragma unroll
    for (int j = 0; j < XC_MMA_N; j++) {
        const int n = n0 + 8 * j + g, k = 8 * slice + t;
        b[j][0] = xc_mma_tf32(XC_AS_FLOAT(bs[xc_mma_b_chunk_at(k, n / 4) + n % 4]));
        b[j][1] = xc_mma_tf32(XC_AS_FLOAT(bs[xc_mma_b_chunk_at(k + 4, n / 4) + n % 4]));
    }
#elif XC_MMA_PTX
    // Matrix m of an x4 .trans: rows k 16 slice + (lane % 8) + 8 (m & 1) at the chunk of
    // columns n0 + 16 j2 + 8 (m >> 1): registers b[2 j2][0..1], b[2 j2 + 1][0..1].
    (void)g;
    (void)t;
    const int m = lane / 8, k = 16 * slice + lane % 8 + 8 * (m & 1);
    const unsigned int row = XC_LOCAL_ADDR(bs + k * XC_MMA_BROW);  // k % 8 == lane % 8
#pragma unroll
    for (int j2 = 0; j2 < XC_MMA_N / 2; j2++) {
        const int chunk = (n0 + 16 * j2 + 8 * (m >> 1)) / 8;
        unsigned int v0, v1, v2, v3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                     : "r"(row + (unsigned int)(chunk ^ (lane % 8)) * 16u)
                     : "memory");
        b[2 * j2][0] = v0;
        b[2 * j2][1] = v1;
        b[2 * j2 + 1][0] = v2;
        b[2 * j2 + 1][1] = v3;
    }
#else
#pragma unroll
    for (int j = 0; j < XC_MMA_N; j++) {
        const int n = n0 + 8 * j + g, upper = n % 2;  // the element's half of its word
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const int k = 16 * slice + 2 * t + 8 * r;
            const unsigned int lo = bs[xc_mma_b_chunk_at(k, n / 8) + n % 8 / 2] >> (16 * upper);
            const unsigned int hi =
                bs[xc_mma_b_chunk_at(k + 1, n / 8) + n % 8 / 2] >> (16 * upper);
            b[j][r] = (lo & 0xffffu) | (hi << 16);
        }
    }
#endif
}
#endif

// acc += this warp's A rows times its B columns over one stage, 8 words of k at a time: one
// x4 ldmatrix a 16-row tile of A and a pair of 8-column tiles of B.
XC_FUNC void xc_mma_packed_multiply(XC_LOCAL_PTR const unsigned int *stage, const int warp_m,
                                    const int warp_n, const int lane,
                                    XC_LOCAL_PTR unsigned int *scratch, float *acc)
{
#pragma unroll
    for (int slice = 0; slice < XC_MMA_KW / 8; slice++) {
        unsigned int a[XC_MMA_M][4], b[XC_MMA_N][2];
#pragma unroll
        for (int i = 0; i < XC_MMA_M; i++)
            xc_mma_ldsm(a[i], stage, warp_m * XC_MMA_WARP_M + 16 * i, 2 * slice, 0, lane);
#if XC_MMA_B_DIRECT
        xc_mma_b_direct(b, stage + XC_MMA_TILE_M * XC_MMA_KW, slice, warp_n * XC_MMA_WARP_N,
                        lane);
#else
#pragma unroll
        for (int j = 0; j < XC_MMA_N / 2; j++) {
            unsigned int v[4];
            xc_mma_ldsm(v, stage + XC_MMA_TILE_M * XC_MMA_KW, warp_n * XC_MMA_WARP_N + 16 * j,
                        2 * slice, 1, lane);
            b[2 * j][0] = v[0];
            b[2 * j][1] = v[1];
            b[2 * j + 1][0] = v[2];
            b[2 * j + 1][1] = v[3];
        }
#endif
#pragma unroll
        for (int i = 0; i < XC_MMA_M; i++) {
#pragma unroll
            for (int j = 0; j < XC_MMA_N; j++)
                xc_mma(acc + (i * XC_MMA_N + j) * 4, a[i], b[j], scratch, lane);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The product

// y = conv(x, w) from packed A (the workspace from word w_off) and packed x (from word x_off),
// y from element y_off (split: the partials, in the workspace): group id 0 indexes column
// tiles, 1 row tiles, 2 the group (and the slice). Every work-item reaches every barrier, copy
// group and mma: out-of-range rows and columns only zero copies and mask stores.
XC_KERNEL XC_WORK_GROUP_SIZE(XC_MMA_THREADS, 1, 1)
void implicit_mma_packed(const XC_GLOBAL unsigned int *XC_RESTRICT xws, const int x_off,
                         const XC_GLOBAL unsigned int *XC_RESTRICT wws, const int w_off,
                         XC_GLOBAL XC_MMA_OUT *XC_RESTRICT y, const int y_off XC_BATCH_PARAM)
{
    // lds: the ring, then the staged sums of C; scratch, tid, lane, warp.
    XC_MMA_KERNEL_LOCALS;
    const int col0 = XC_GROUP_ID(0) * XC_MMA_TILE_N;
    const int row0 = XC_GROUP_ID(1) * XC_MMA_TILE_M;
    const int group = XC_GROUP_ID(2) / XC_MMA_SPLIT;   // bound GROUPS
    const int slice = XC_GROUP_ID(2) % XC_MMA_SPLIT;   // of K, bound SPLIT
    const int step0 = slice * XC_MMA_SPLIT_STEPS;      // the slice's first K step
    const int steps = XC_MMA_PSTEPS - step0 < XC_MMA_SPLIT_STEPS ? XC_MMA_PSTEPS - step0
                                                                 : XC_MMA_SPLIT_STEPS;
    const XC_GLOBAL unsigned int *wp = wws + w_off + group * XC_MMA_GEMM_M * XC_MMA_KPW;
    const XC_GLOBAL unsigned int *xp = xws + x_off + group * XC_MMA_CPW;
    y += y_off;
#if XC_MMA_SPLIT > 1
    y += XC_GROUP_ID(2) * XC_MMA_GEMM_M * XC_MMA_PART_LD;
#else
    y += group * XC_MMA_GEMM_M * XC_P * XC_Q;
#endif

    // This work-item's columns of B: column (tid + i THREADS) / KC of the tile (direct B: the
    // chunk of columns (tid + i THREADS) % BNC).
    xc_mma_packed_col cols[XC_MMA_B_ITERS];
#pragma unroll
    for (int i = 0; i < XC_MMA_B_ITERS; i++)
#if XC_MMA_B_DIRECT
        cols[i] = xc_mma_packed_column(col0 + (tid + i * XC_MMA_THREADS) % XC_MMA_BNC *
                                                  XC_MMA_BPIX XC_BATCH_ARG);
#else
        cols[i] = xc_mma_packed_column(col0 + (tid + i * XC_MMA_THREADS) / XC_MMA_KC
                                       XC_BATCH_ARG);
#endif

    float acc[XC_MMA_M * XC_MMA_N * 4];
#pragma unroll
    for (int i = 0; i < XC_MMA_M * XC_MMA_N * 4; i++)
        acc[i] = 0.0f;

    // The slice's steps: step `step` of the loop is K step step0 + step.
#pragma unroll
    for (int s = 0; s < XC_MMA_STAGES - 1; s++) {
        if (s < steps)
            xc_mma_issue(lds + s * XC_MMA_STAGE, wp, xp, step0 + s, tid, row0, cols);
        xc_mma_commit();
    }
    for (int step = 0; step < steps; step++) {
        xc_mma_wait_ring();  // this work-item's copies of `step` have landed
        XC_BARRIER();        // everyone's have; everyone is done with step - 1's stage
        const int next = step + XC_MMA_STAGES - 1;
        if (next < steps)
            xc_mma_issue(lds + next % XC_MMA_STAGES * XC_MMA_STAGE, wp, xp, step0 + next, tid,
                         row0, cols);
        xc_mma_commit();
        xc_mma_packed_multiply(lds + step % XC_MMA_STAGES * XC_MMA_STAGE, warp_m, warp_n, lane,
                               scratch, acc);
    }
    xc_mma_wait_all();
    xc_mma_store_c(y, (XC_LOCAL_PTR float *)lds + warp * 16 * XC_MMA_STAGE_LD,
                   row0 + warp_m * XC_MMA_WARP_M, col0 + warp_n * XC_MMA_WARP_N, lane,
                   acc XC_BATCH_ARG);
}
