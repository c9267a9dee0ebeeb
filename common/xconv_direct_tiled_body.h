// SPDX-License-Identifier: MIT
// The body of the direct family's local-memory tiled kernels, cl/direct_tiled.cl (one tile
// buffer) and cl/direct_tiled_db.cl (two: double buffering). Each of those files defines
// XD_TILE_BUFFERS, declares its entry point and includes this text inside the entry point's
// braces: the tile is a __local array, which OpenCL C declares only in a kernel function's own
// scope, and PoCL (3.1, several threads) gave wrong results when a __local pointer was passed
// to a helper function, so the shared text is the body itself rather than a helper.
// cmake/embed_kernels.cmake pastes it in at build time like any other header.
//
// A work-group loads the input tile its outputs need, halo and zero padding included, into
// local memory cooperatively, XD_CHUNK_C input channels at a time, and computes its outputs
// from there. One buffer: a barrier after each load (loaded) and after each chunk's compute
// (consumed). Two buffers: the next chunk is loaded into the other buffer while this one is
// computed from, and one barrier per chunk separates both the load and the reuse of a buffer.
// Work-item (tx, ty) computes XD_BLOCK_K output channels x XD_BLOCK_H rows x XD_BLOCK_W
// columns of its work-group's XD_TILE_H x XD_TILE_W outputs (common/xconv_direct_block.h).

#if XD_TILE_BUFFERS != 1 && XD_TILE_BUFFERS != 2
#error "xconv_direct_tiled_body.h: XD_TILE_BUFFERS must be 1 or 2"
#endif

    XC_LOCAL float tiles[XD_TILE_BUFFERS * XD_TILE_ELEMS];  // input tiles, one chunk each
    const int tx = XC_LOCAL_ID(0);  // column within the tile, < XD_WG_W
    const int ty = XC_LOCAL_ID(1);  // row block within the tile, < XD_WG_H
    const int lid = ty * XD_WG_W + tx;
    int g = XC_GROUP_ID(0);  // flat (n, group, k-block, tile row, tile column)
    const int tile_q = (g % XD_TILES_W) * XD_TILE_W;
    g /= XD_TILES_W;
    const int tile_p = (g % XD_TILES_H) * XD_TILE_H;
    g /= XD_TILES_H;
    const int kb = g % (XC_GROUPS * XD_KBLOCKS);
    const int n = g / (XC_GROUPS * XD_KBLOCKS);
    const int grp = kb / XD_KBLOCKS;
    const int k0 = grp * XC_KG + (kb % XD_KBLOCKS) * XD_BLOCK_K;  // first output channel
    const int k_end = grp * XC_KG + XC_KG;                         // past the group's last
    float acc[XD_BLOCK_K][XD_BLOCK_H][XD_BLOCK_W];
    for (int kk = 0; kk < XD_BLOCK_K; kk++)
        for (int i = 0; i < XD_BLOCK_H; i++)
            for (int j = 0; j < XD_BLOCK_W; j++)
                acc[kk][i][j] = 0.0f;

    const XC_GLOBAL XC_DATA *x_img = x + (n * XC_C + grp * XC_CG) * XC_H * XC_W;
    const int ih0 = tile_p * XC_STRIDE_H - XC_PAD_H;  // the tile's top-left input
    const int iw0 = tile_q * XC_STRIDE_W - XC_PAD_W;
#if XD_TILE_BUFFERS == 2
    for (int e = lid; e < XD_TILE_ELEMS; e += XD_WG_SIZE)  // chunk 0, into buffer 0
        tiles[e] = xd_tile_element(x_img, 0, ih0, iw0, e);
#endif
    for (int ci = 0; ci < XD_CHUNKS; ci++) {
        const int c0 = ci * XD_CHUNK_C;
#if XD_TILE_BUFFERS == 1
        const int buf = 0;  // the one buffer's first element
        for (int e = lid; e < XD_TILE_ELEMS; e += XD_WG_SIZE)  // element of the chunk
            tiles[e] = xd_tile_element(x_img, c0, ih0, iw0, e);
        XC_BARRIER();  // the chunk is loaded
#else
        const int buf = (ci & 1) * XD_TILE_ELEMS;  // this chunk's buffer
        // Chunk ci is loaded, and every work-item is done with chunk ci - 1, whose buffer the
        // next load reuses.
        XC_BARRIER();
        if (ci + 1 < XD_CHUNKS) {
            for (int e = lid; e < XD_TILE_ELEMS; e += XD_WG_SIZE)  // the next chunk
                tiles[XD_TILE_ELEMS - buf + e] =
                    xd_tile_element(x_img, c0 + XD_CHUNK_C, ih0, iw0, e);
        }
#endif
#pragma unroll
        for (int cc = 0; cc < XD_CHUNK_C; cc++) {
            // Channels past the group's last multiply zeros in the tile by the last channel's
            // filters (finite values), so no test is needed.
            const int c = XC_CG % XD_CHUNK_C == 0 ? c0 + cc : xd_min(c0 + cc, XC_CG - 1);
#pragma unroll
            for (int r = 0; r < XC_R; r++) {
#pragma unroll
                for (int s = 0; s < XC_S; s++) {
                    float wv[XD_BLOCK_K];
#pragma unroll
                    for (int kk = 0; kk < XD_BLOCK_K; kk++)
                        wv[kk] = XC_LD(w, (xd_min(k0 + kk, k_end - 1) * XC_CG + c) * XD_RS +
                                              r * XC_S + s);
#pragma unroll
                    for (int i = 0; i < XD_BLOCK_H; i++) {
                        const int row = cc * XD_IN_TILE_H + (ty * XD_BLOCK_H + i) * XC_STRIDE_H +
                                        r * XC_DIL_H;
#pragma unroll
                        for (int j = 0; j < XD_BLOCK_W; j++) {
                            const int col = (tx * XD_ITEM_STEP_W + j * XD_BLOCK_STEP_W) *
                                                XC_STRIDE_W + s * XC_DIL_W;
                            const float xv = tiles[buf + row * XD_IN_TILE_W + col];
#pragma unroll
                            for (int kk = 0; kk < XD_BLOCK_K; kk++)
                                acc[kk][i][j] = XC_FMA(xv, wv[kk], acc[kk][i][j]);
                        }
                    }
                }
            }
        }
#if XD_TILE_BUFFERS == 1
        XC_BARRIER();  // every work-item is done with the chunk
#endif
    }

    const int p0 = tile_p + ty * XD_BLOCK_H;
    const int q0 = tile_q + tx * XD_ITEM_STEP_W;
    for (int kk = 0; kk < XD_BLOCK_K; kk++) {
#if XC_POOL_H
        const int k = k0 + kk;
#define XD_VALUE(i, j) XC_EPI(acc[kk][i][j], k)
        if (k < k_end) {
            XD_POOL_STORE(y + (n * XC_K + k) * XC_Y_H * XC_Y_W, p0, q0, XD_VALUE)
        }
#else
        for (int i = 0; i < XD_BLOCK_H; i++) {
            const int p = p0 + i;
            for (int j = 0; j < XD_BLOCK_W; j++) {
                const int q = q0 + j * XD_BLOCK_STEP_W;
                if (k0 + kk < k_end && p < XC_P && q < XC_Q)
                    XC_ST(y, ((n * XC_K + k0 + kk) * XC_P + p) * XC_Q + q,
                          XC_EPI(acc[kk][i][j], k0 + kk));
            }
        }
#endif
    }
