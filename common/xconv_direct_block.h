// SPDX-License-Identifier: MIT
// The direct family's shared kernel pieces: its tuning parameters' defaults, the tile and
// register-block geometry they imply, where a work-item's block and its first inputs lie, the
// clamped input loads, and the elements of a local-memory input tile. direct_const,
// direct_tiled, direct_tiled_db and direct_regblock include it; cmake/embed_kernels.cmake pastes
// it into their text at build time, so each embedded kernel is still one self-contained source
// for OpenCL and NVRTC alike.
//
// Work-item (tx, ty) of a work-group owns rows p = tile_p + ty * XD_BLOCK_H + i (i < XD_BLOCK_H)
// and columns q = tile_q + tx + j * XD_WG_W (j < XD_BLOCK_W, XD_STRIP_W=0: neighbouring
// work-items read and write neighbouring addresses) or consecutive ones (XD_STRIP_W=1), for
// XD_BLOCK_K output channels of one group. With XD_FLAT=1 (direct_const, direct_regblock) the
// work-groups are one-dimensional and carry no tile: consecutive work-items take consecutive
// register blocks (columns consecutive, then rows, k-blocks, images), so no work-group is padded
// to a warp multiple.
//
// Names: the direct family's own defines are XD_* (tuning parameters, as
// host/families/direct/plan_direct.c passes them through common/xconv_direct_params.h, and what
// they imply) and its helpers xd_*;
// XC_* names are shared by every family: the dialect (XC_LD, XC_FMA, XC_BARRIER, XC_DATA, ...,
// common/xconv_dialect.h), the problem's shape (XC_N, XC_P, ..., common/xconv_problem_fields.h)
// and the epilogue (XC_EPI*, XC_POOL_*, common/xconv_epilogue.h).
#ifndef XCONV_DIRECT_BLOCK_H
#define XCONV_DIRECT_BLOCK_H

// ---------------------------------------------------------------------------------------------
// Tuning parameters (set by host/families/direct/plan_direct.c)

#ifndef XD_WG_W
#define XD_WG_W 16     // work-items along q in a work-group (8..64)
#endif
#ifndef XD_WG_H
#define XD_WG_H 8      // work-items along p in a work-group (1..16)
#endif
#ifndef XD_BLOCK_W
#define XD_BLOCK_W 1   // output columns per work-item (1..8)
#endif
#ifndef XD_BLOCK_H
#define XD_BLOCK_H 2   // consecutive output rows per work-item (1..4)
#endif
#ifndef XD_STRIP_W
#define XD_STRIP_W 0   // 1: an item's columns are consecutive (CPUs: vectors within an item);
#endif                 // 0: they are XD_WG_W apart (GPUs: neighbouring items, neighbouring data)
#ifndef XD_BLOCK_K
#define XD_BLOCK_K 4   // output channels per work-item, all within one group (1..16)
#endif
#ifndef XD_CHUNK_C
#define XD_CHUNK_C 4   // input channels staged in local memory at a time (1..C/groups)
#endif
#ifndef XD_FLAT
#define XD_FLAT 0      // 1: flat numbering of register blocks, XD_WG_H = 1, columns consecutive
#endif

// ---------------------------------------------------------------------------------------------
// Derived parameters

#if XD_FLAT
#define XD_TILE_W XD_BLOCK_W  // the unit the flat index counts: one work-item's block
#define XD_TILE_H XD_BLOCK_H
#define XD_BLOCK_STEP_W 1     // column step within a work-item
#else
#define XD_TILE_W (XD_WG_W * XD_BLOCK_W)  // output columns of a work-group
#define XD_TILE_H (XD_WG_H * XD_BLOCK_H)  // output rows of a work-group
#define XD_BLOCK_STEP_W (XD_STRIP_W ? 1 : XD_WG_W)  // column step within a work-item
#endif
#define XD_ITEM_STEP_W (XD_STRIP_W ? XD_BLOCK_W : 1)   // column step between work-items
#define XD_TILES_W ((XC_Q + XD_TILE_W - 1) / XD_TILE_W)
#define XD_TILES_H ((XC_P + XD_TILE_H - 1) / XD_TILE_H)
#define XD_KBLOCKS ((XC_KG + XD_BLOCK_K - 1) / XD_BLOCK_K)  // k-blocks per channel group
#define XD_RS (XC_R * XC_S)
#define XD_WG_SIZE (XD_WG_W * XD_WG_H)
#define XD_CHUNKS ((XC_CG + XD_CHUNK_C - 1) / XD_CHUNK_C)
// Every column an item reads is inside the input: no padding and no partial tiles along q.
#define XD_COLS_IN (XC_PAD_W == 0 && XC_Q % XD_TILE_W == 0)

XC_FUNC int xd_min(int a, int b) { return a < b ? a : b; }
XC_FUNC int xd_clamp(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }  // into [0, hi]

// ---------------------------------------------------------------------------------------------
// Where a work-item's register block lies

typedef struct {
    int tile_p, tile_q;  // first output row and column of the work-group's tile
    int p0, q0;          // first output row and column of the work-item's block
    int n_item;          // image of the block: past XC_N - 1 only for flat spares
    int n;               // the image read: n_item clamped, so spares read the last one
    int grp;             // channel group
    int k0, k_end;       // first output channel, and past the group's last one
} xd_block;

// Returns the block of work-item (tx, ty) (both 0 for flat plans) whose flat index g counts
// (n, group, k-block, tile row, tile column), tile column fastest.
XC_FUNC xd_block xd_locate(int g, int tx, int ty XC_BATCH_PARAM)
{
    xd_block b;
    b.tile_q = (g % XD_TILES_W) * XD_TILE_W;
    g /= XD_TILES_W;
    b.tile_p = (g % XD_TILES_H) * XD_TILE_H;
    g /= XD_TILES_H;
    const int kb = g % (XC_GROUPS * XD_KBLOCKS);
    b.n_item = g / (XC_GROUPS * XD_KBLOCKS);
    b.n = xd_min(b.n_item, XC_N - 1);
    b.grp = kb / XD_KBLOCKS;
    b.k0 = b.grp * XC_KG + (kb % XD_KBLOCKS) * XD_BLOCK_K;
    b.k_end = b.grp * XC_KG + XC_KG;
    b.p0 = b.tile_p + ty * XD_BLOCK_H;
    b.q0 = b.tile_q + tx * XD_ITEM_STEP_W;
    return b;
}

// Fills the first input row of each of the block's rows and the first input column of each of
// its columns. Rows are clamped to the output (edge rows repeat the last one and are not
// stored); columns are tested against the input, and their addresses clamped, at each load.
XC_FUNC void xd_first_inputs(xd_block b, int ih0[XD_BLOCK_H], int iw0[XD_BLOCK_W])
{
    for (int i = 0; i < XD_BLOCK_H; i++)
        ih0[i] = xd_min(b.p0 + i, XC_P - 1) * XC_STRIDE_H - XC_PAD_H;
    for (int j = 0; j < XD_BLOCK_W; j++)
        iw0[j] = (b.q0 + j * XD_BLOCK_STEP_W) * XC_STRIDE_W - XC_PAD_W;
}

// ---------------------------------------------------------------------------------------------
// Input loads

// Returns input row ih clamped into the input (ih itself when the input has no rows of padding)
// and sets *inside to whether ih is a row of the input rather than of its padding.
XC_FUNC int xd_input_row(int ih, bool *inside)
{
    // With no padding every clamped row is inside: the test folds away.
    *inside = XC_PAD_H == 0 || (ih >= 0 && ih < XC_H);
    return XC_PAD_H == 0 ? ih : xd_clamp(ih, XC_H - 1);
}

// Returns the input at column iw of clamped row ihc (row_in: whether the row is inside), zero in
// the padding. The load is unconditional, from a clamped address, and a select gives the zero:
// no divergence on GPUs, vectorizable across work-items on CPUs.
XC_FUNC float xd_input(const XC_GLOBAL XC_DATA *x_plane, int ihc, bool row_in, int iw)
{
    const bool in = row_in && (XD_COLS_IN || (iw >= 0 && iw < XC_W));
    const int iwc = XD_COLS_IN ? iw : xd_clamp(iw, XC_W - 1);
    const float v = XC_LD(x_plane, ihc * XC_W + iwc);
    return in ? v : 0.0f;
}

// ---------------------------------------------------------------------------------------------
// A fused max-pool (common/xconv_epilogue.h, included before this header)
//
// A kernel pools in its store when each work-item's register block holds whole windows: windows
// as wide as their stride and unpadded, a block of XD_BLOCK_H rows and XD_BLOCK_W consecutive
// columns that are multiples of them. Blocks start at multiples of their size, so windows never
// straddle two work-items. The planner (host/families/direct/plan_direct.c) only fuses the pool into such plans.

#if defined(XC_POOL_H) && XC_POOL_H
#if XC_POOL_STRIDE_H != XC_POOL_H || XC_POOL_STRIDE_W != XC_POOL_W || XC_POOL_PAD_H || \
    XC_POOL_PAD_W
#error "direct kernels pool only unpadded windows as wide as their stride"
#endif
#if XD_BLOCK_H % XC_POOL_H || XD_BLOCK_W % XC_POOL_W || \
    (XC_POOL_W > 1 && !(XD_STRIP_W || XD_FLAT))
#error "direct kernels pool only blocks of whole windows (consecutive columns)"
#endif

// Stores the pooled outputs of one output channel's register block into y_plane (XC_Y_H x
// XC_Y_W): rows p0 + i (i < XD_BLOCK_H) and columns q0 + j (j < XD_BLOCK_W) hold VALUE(i, j),
// the outputs after bias and activation; each window of them gives one output, in row-major
// order through xc_epi_max, as the unfused pool step takes them. Windows past the pooled output's
// edge (rows or columns the floor of the pool drops, and blocks past the output) are skipped.
#define XD_POOL_STORE(y_plane, p0, q0, VALUE)                                              \
    _Pragma("unroll") for (int xd_pi = 0; xd_pi < XD_BLOCK_H / XC_POOL_H; xd_pi++) {       \
        const int xd_yp = (p0) / XC_POOL_H + xd_pi;                                        \
        _Pragma("unroll") for (int xd_pj = 0; xd_pj < XD_BLOCK_W / XC_POOL_W; xd_pj++) {   \
            const int xd_yq = (q0) / XC_POOL_W + xd_pj;                                    \
            float xd_m = XC_EPI_NEG_INF;                                                   \
            _Pragma("unroll") for (int xd_a = 0; xd_a < XC_POOL_H; xd_a++)                 \
                _Pragma("unroll") for (int xd_b = 0; xd_b < XC_POOL_W; xd_b++)             \
                    xd_m = xc_epi_max(xd_m, VALUE(xd_pi * XC_POOL_H + xd_a,                \
                                                  xd_pj * XC_POOL_W + xd_b));              \
            if (xd_yp < XC_Y_H && xd_yq < XC_Y_W)                                          \
                XC_ST((y_plane), xd_yp * XC_Y_W + xd_yq, xd_m);                            \
        }                                                                                  \
    }

// XD_POOL_STORE of output channel b.k0 + kk of block b (an xd_block) from its registers
// acc[kk] (rows i, columns j; XD_ACC_VALUE reads the caller's acc, b and kk), into y's pooled
// layout: how direct_const and direct_regblock end.
#define XD_ACC_VALUE(i, j) XC_EPI(acc[kk][i][j], b.k0 + kk)
#define XD_POOL_STORE_ACC(y, b, kk)                                                        \
    XD_POOL_STORE((y) + ((b).n * XC_K + (b).k0 + (kk)) * XC_Y_H * XC_Y_W, (b).p0, (b).q0,  \
                  XD_ACC_VALUE)
#endif

// ---------------------------------------------------------------------------------------------
// Input tiles in local memory (direct_tiled, direct_tiled_db)

// A work-group's input tile: its outputs' windows, halo and zero padding included, one plane per
// channel of a chunk.
#define XD_IN_TILE_H ((XD_TILE_H - 1) * XC_STRIDE_H + (XC_R - 1) * XC_DIL_H + 1)
#define XD_IN_TILE_W ((XD_TILE_W - 1) * XC_STRIDE_W + (XC_S - 1) * XC_DIL_W + 1)
#define XD_IN_PLANE (XD_IN_TILE_H * XD_IN_TILE_W)
#define XD_TILE_ELEMS (XD_CHUNK_C * XD_IN_PLANE)  // floats of one chunk's tile

// Returns element e of the tile of channels c0.. whose top-left input is (ih0, iw0): zero in the
// padding and past the group's last channel. (The caller stores it: PoCL 3.1 gave wrong results
// when a __local pointer was passed to a helper function.)
XC_FUNC float xd_tile_element(const XC_GLOBAL XC_DATA *x_img, int c0, int ih0, int iw0, int e)
{
    const int cc = e / XD_IN_PLANE;
    const int rem = e - cc * XD_IN_PLANE;
    const int row = rem / XD_IN_TILE_W;
    const int ih = ih0 + row;
    const int iw = iw0 + rem - row * XD_IN_TILE_W;
    float v = 0.0f;
    if (c0 + cc < XC_CG && ih >= 0 && ih < XC_H && iw >= 0 && iw < XC_W)
        v = XC_LD(x_img, ((c0 + cc) * XC_H + ih) * XC_W + iw);
    return v;
}

#endif // XCONV_DIRECT_BLOCK_H
