// SPDX-License-Identifier: MIT
// direct_const: filters read from constant memory. Each work-item computes a register block of
// XC_BLOCK_K output channels x XC_BLOCK_H rows x XC_BLOCK_W columns, reading its input window
// straight from global memory (rows shared between its outputs are loaded once).
//
// Work-item (tx, ty) of a work-group owns rows p = tile_p + ty * XC_BLOCK_H + i (i < XC_BLOCK_H)
// and columns q = tile_q + tx + j * XC_WG_W (j < XC_BLOCK_W): columns interleave so that
// neighbouring work-items read and write neighbouring addresses. The whole filter tensor is one
// constant buffer, so the host applies this variant only while it fits the device's limit.
// With XC_FLAT=1 the work-groups are one-dimensional and carry no tile: consecutive work-items
// take consecutive register blocks of the whole output (columns, then rows, then k-blocks, then
// images), so no work-group is padded to a warp multiple.
// With XC_VEC_Q > 0 (CPU devices; OpenCL C only) an item's XC_BLOCK_W = XC_VEC_Q consecutive
// columns are one vector: each tap is one vector load (stride 1 or 2) and one vector FMA per
// channel, with per-lane clamped loads only for taps whose window crosses the input's edge.

// ---------------------------------------------------------------------------------------------
// Tuning parameters (set by host/plan_direct.c)

#ifndef XC_WG_W
#define XC_WG_W 16     // work-items along q in a work-group (8..64)
#endif
#ifndef XC_WG_H
#define XC_WG_H 8      // work-items along p in a work-group (1..16)
#endif
#ifndef XC_BLOCK_W
#define XC_BLOCK_W 1   // output columns per work-item, XC_WG_W apart (1..4)
#endif
#ifndef XC_BLOCK_H
#define XC_BLOCK_H 2   // consecutive output rows per work-item (1..4)
#endif
#ifndef XC_STRIP_W
#define XC_STRIP_W 0   // 1: an item's columns are consecutive (CPUs: vectors within an item);
#endif                 // 0: they are XC_WG_W apart (GPUs: neighbouring items, neighbouring data)
#ifndef XC_BLOCK_K
#define XC_BLOCK_K 4   // output channels per work-item, all within one group (1..16)
#endif
#ifndef XC_FLAT
#define XC_FLAT 0      // 1: flat numbering of register blocks, XC_WG_H = 1, columns consecutive
#endif
#ifndef XC_VEC_Q
#define XC_VEC_Q 0     // 4, 8 or 16: columns are vector lanes (needs XC_STRIP_W, not XC_FLAT)
#endif
#ifndef XC_UNROLL_C
#define XC_UNROLL_C 0  // 1: the channel loop is unrolled too, so with XC_BLOCK_K = K every filter
#endif                 // index is a compile-time constant (operands straight from constant banks)

// ---------------------------------------------------------------------------------------------
// Derived parameters

#if XC_FLAT
#define XC_TILE_W XC_BLOCK_W  // the unit the flat index counts: one work-item's block
#define XC_TILE_H XC_BLOCK_H
#define XC_BLOCK_STEP_W 1     // column step within a work-item
#else
#define XC_TILE_W (XC_WG_W * XC_BLOCK_W)  // output columns of a work-group
#define XC_TILE_H (XC_WG_H * XC_BLOCK_H)  // output rows of a work-group
#define XC_BLOCK_STEP_W (XC_STRIP_W ? 1 : XC_WG_W)  // column step within a work-item
#endif
#define XC_ITEM_STEP_W (XC_STRIP_W ? XC_BLOCK_W : 1)   // column step between work-items
#define XC_TILES_W ((XC_Q + XC_TILE_W - 1) / XC_TILE_W)
#define XC_TILES_H ((XC_P + XC_TILE_H - 1) / XC_TILE_H)
#define XC_KBLOCKS ((XC_KG + XC_BLOCK_K - 1) / XC_BLOCK_K)  // k-blocks per channel group
#define XC_RS (XC_R * XC_S)
#define XC_FILTER_ELEMS (XC_K * XC_CG * XC_RS)
// Every column an item reads is inside the input: no padding and no partial tiles along q.
#define XC_COLS_IN (XC_PAD_W == 0 && XC_Q % XC_TILE_W == 0)

#if XC_VEC_Q
#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_C_VERSION__)
#error "direct_const: XC_VEC_Q needs OpenCL C's vector types"
#endif
#if XC_BLOCK_W != XC_VEC_Q || !XC_STRIP_W || XC_FLAT
#error "direct_const: XC_VEC_Q needs XC_BLOCK_W == XC_VEC_Q, XC_STRIP_W = 1 and XC_FLAT = 0"
#endif
#define DC_CAT2(a, b) a##b
#define DC_CAT(a, b) DC_CAT2(a, b)
#define DC_VEC DC_CAT(float, XC_VEC_Q)            // the vector of an item's columns
#define DC_VLOAD DC_CAT(vload, XC_VEC_Q)
#define DC_VSTORE DC_CAT(vstore, XC_VEC_Q)
// Whether a tap's lanes can be one load: stride 1, or stride 2 with a double-width load.
#if XC_STRIDE_W == 2 && XC_VEC_Q == 4
#define DC_VLOAD_PAIRS(p) vload8(0, (p)).even     // 4 columns at stride 2: one 8-float load
#define DC_TAP_LOADS 1
#elif XC_STRIDE_W == 2 && XC_VEC_Q == 8
#define DC_VLOAD_PAIRS(p) vload16(0, (p)).even
#define DC_TAP_LOADS 1
#else
#define DC_TAP_LOADS (XC_STRIDE_W == 1)
#endif
#endif

XC_CONSTANT_ARRAY(float, xc_filter, XC_FILTER_ELEMS)

XC_FUNC int dc_min(int a, int b) { return a < b ? a : b; }
XC_FUNC int dc_clamp(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }  // into [0, hi]

// ---------------------------------------------------------------------------------------------
// The body

XC_FUNC void direct_const_body(const XC_GLOBAL float *XC_RESTRICT x,
                               XC_CONSTANT_PARAM(float, xc_filter),
                               XC_GLOBAL float *XC_RESTRICT y)
{
#if XC_FLAT
    const int tx = 0, ty = 0;  // the "tile" is the work-item's own block
    // Flat (n, group, k-block, block row, block column) of this work-item; past the last image
    // in the last work-group.
    int g = XC_GROUP_ID(0) * XC_WG_W + XC_LOCAL_ID(0);
#else
    const int tx = XC_LOCAL_ID(0);  // column within the tile, < XC_WG_W
    const int ty = XC_LOCAL_ID(1);  // row block within the tile, < XC_WG_H
    int g = XC_GROUP_ID(0);         // flat (n, group, k-block, tile row, tile column)
#endif
    const int tile_q = (g % XC_TILES_W) * XC_TILE_W;
    g /= XC_TILES_W;
    const int tile_p = (g % XC_TILES_H) * XC_TILE_H;
    g /= XC_TILES_H;
    const int kb = g % (XC_GROUPS * XC_KBLOCKS);
    const int n_item = g / (XC_GROUPS * XC_KBLOCKS);  // past XC_N - 1 only for flat spares
    const int n = dc_min(n_item, XC_N - 1);           // spares read the last image, store nothing
    const int grp = kb / XC_KBLOCKS;
    const int k0 = grp * XC_KG + (kb % XC_KBLOCKS) * XC_BLOCK_K;  // first output channel
    const int k_end = grp * XC_KG + XC_KG;                         // past the group's last
    const int p0 = tile_p + ty * XC_BLOCK_H;
    const int q0 = tile_q + tx * XC_ITEM_STEP_W;

    // First input row and column of each output. Rows are clamped to the output (edge rows
    // repeat the last one and are not stored); columns are tested against the input, and their
    // addresses clamped, at each load.
    int ih0[XC_BLOCK_H];
    int iw0[XC_BLOCK_W];
    for (int i = 0; i < XC_BLOCK_H; i++)
        ih0[i] = dc_min(p0 + i, XC_P - 1) * XC_STRIDE_H - XC_PAD_H;
    for (int j = 0; j < XC_BLOCK_W; j++)
        iw0[j] = (q0 + j * XC_BLOCK_STEP_W) * XC_STRIDE_W - XC_PAD_W;
    int kf[XC_BLOCK_K];  // filter offset of each output channel, clamped to the group
    for (int kk = 0; kk < XC_BLOCK_K; kk++)
        kf[kk] = dc_min(k0 + kk, k_end - 1) * XC_CG * XC_RS;

#if XC_VEC_Q
    // Taps whose window of input columns lies inside the row: their lanes are one vector load.
    bool tap_in[XC_S];
    for (int s = 0; s < XC_S; s++) {
        const int first = iw0[0] + s * XC_DIL_W;
        const int last = first + (XC_STRIDE_W == 2 ? 2 * XC_VEC_Q : XC_VEC_Q) - 1;
        tap_in[s] = DC_TAP_LOADS && first >= 0 && last < XC_W;
    }
    DC_VEC acc[XC_BLOCK_K][XC_BLOCK_H];  // lane j: column q0 + j
    for (int kk = 0; kk < XC_BLOCK_K; kk++)
        for (int i = 0; i < XC_BLOCK_H; i++)
            acc[kk][i] = (DC_VEC)(0.0f);
#else
    float acc[XC_BLOCK_K][XC_BLOCK_H][XC_BLOCK_W];
    for (int kk = 0; kk < XC_BLOCK_K; kk++)
        for (int i = 0; i < XC_BLOCK_H; i++)
            for (int j = 0; j < XC_BLOCK_W; j++)
                acc[kk][i][j] = 0.0f;
#endif

    const XC_GLOBAL float *x_img = x + (n * XC_C + grp * XC_CG) * XC_H * XC_W;
#if XC_UNROLL_C
#pragma unroll
#endif
    for (int c = 0; c < XC_CG; c++) {
        const XC_GLOBAL float *x_plane = x_img + c * XC_H * XC_W;
#pragma unroll
        for (int r = 0; r < XC_R; r++) {
#pragma unroll
            for (int s = 0; s < XC_S; s++) {
#pragma unroll
                for (int i = 0; i < XC_BLOCK_H; i++) {
                    const int ih = ih0[i] + r * XC_DIL_H;
                    // With no padding every clamped row is inside: the test folds away.
                    const bool row_in = XC_PAD_H == 0 || (ih >= 0 && ih < XC_H);
                    const int ihc = XC_PAD_H == 0 ? ih : dc_clamp(ih, XC_H - 1);
#if XC_VEC_Q
                    const XC_GLOBAL float *x_row = x_plane + ihc * XC_W;
                    DC_VEC xv;
                    if (tap_in[s]) {
#if XC_STRIDE_W == 1
                        xv = DC_VLOAD(0, x_row + iw0[0] + s * XC_DIL_W);
#elif defined(DC_VLOAD_PAIRS)
                        xv = DC_VLOAD_PAIRS(x_row + iw0[0] + s * XC_DIL_W);
#endif
                    } else {
                        // The window crosses an edge: lane by lane from clamped addresses.
                        float lane[XC_VEC_Q];
                        for (int j = 0; j < XC_VEC_Q; j++) {
                            const int iw = iw0[j] + s * XC_DIL_W;
                            const float v = x_row[dc_clamp(iw, XC_W - 1)];
                            lane[j] = iw >= 0 && iw < XC_W ? v : 0.0f;
                        }
                        xv = DC_VLOAD(0, lane);
                    }
                    xv = row_in ? xv : (DC_VEC)(0.0f);
#pragma unroll
                    for (int kk = 0; kk < XC_BLOCK_K; kk++)
                        acc[kk][i] = fma(xv, (DC_VEC)(xc_filter[kf[kk] + c * XC_RS + r * XC_S + s]),
                                         acc[kk][i]);
#else
#pragma unroll
                    for (int j = 0; j < XC_BLOCK_W; j++) {
                        const int iw = iw0[j] + s * XC_DIL_W;
                        // Unconditional loads from clamped addresses, then a select: no
                        // divergence on GPUs, and vectorizable across work-items on CPUs.
                        const bool in = row_in && (XC_COLS_IN || (iw >= 0 && iw < XC_W));
                        const int iwc = XC_COLS_IN ? iw : dc_clamp(iw, XC_W - 1);
                        const float v = x_plane[ihc * XC_W + iwc];
                        const float xv = in ? v : 0.0f;
#pragma unroll
                        for (int kk = 0; kk < XC_BLOCK_K; kk++)
                            acc[kk][i][j] = XC_FMA(
                                xv, xc_filter[kf[kk] + c * XC_RS + r * XC_S + s], acc[kk][i][j]);
                    }
#endif
                }
            }
        }
    }

    for (int kk = 0; kk < XC_BLOCK_K; kk++) {
        if (k0 + kk >= k_end || n_item >= XC_N)
            break;
#if XC_VEC_Q
        for (int i = 0; i < XC_BLOCK_H && p0 + i < XC_P; i++) {
            XC_GLOBAL float *y_row = y + ((n * XC_K + k0 + kk) * XC_P + p0 + i) * XC_Q;
            if (q0 + XC_VEC_Q <= XC_Q) {
                DC_VSTORE(acc[kk][i], 0, y_row + q0);
            } else {  // the last item of a row: only the lanes inside it
                float lane[XC_VEC_Q];
                DC_VSTORE(acc[kk][i], 0, lane);
                for (int j = 0; j < XC_VEC_Q && q0 + j < XC_Q; j++)
                    y_row[q0 + j] = lane[j];
            }
        }
#else
        for (int i = 0; i < XC_BLOCK_H; i++) {
            const int p = p0 + i;
            for (int j = 0; j < XC_BLOCK_W; j++) {
                const int q = q0 + j * XC_BLOCK_STEP_W;
                if (p < XC_P && q < XC_Q)
                    y[((n * XC_K + k0 + kk) * XC_P + p) * XC_Q + q] = acc[kk][i][j];
            }
        }
#endif
    }
}

// ---------------------------------------------------------------------------------------------
// Entry point

XC_KERNEL XC_WORK_GROUP_SIZE(XC_WG_W, XC_WG_H, 1)
void direct_const(const XC_GLOBAL float *XC_RESTRICT x,
                  XC_CONSTANT_PARAM(float, xc_filter),
                  XC_GLOBAL float *XC_RESTRICT y)
{
    direct_const_body(x, xc_filter, y);
}
