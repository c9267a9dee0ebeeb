// SPDX-License-Identifier: MIT
// direct_tiled: each work-group loads the input tile its outputs need, halo and zero padding
// included, into local memory once, cooperatively, XD_CHUNK_C input channels at a time, and
// computes its outputs from there (two barriers per chunk: loaded, then consumed).
//
// Work-item (tx, ty) computes XD_BLOCK_K output channels x XD_BLOCK_H consecutive rows x
// XD_BLOCK_W columns, the columns consecutive (XD_STRIP_W=1) or XD_WG_W apart (XD_STRIP_W=0).
// Filters are read from global memory at addresses shared by the whole work-group. The tuning
// parameters, geometry and tile layout are the family's, in common/xconv_direct_block.h; the
// body, shared with direct_tiled_db, is common/xconv_direct_tiled_body.h.
// With an epilogue (common/xconv_epilogue.h) the store adds the bias, activates and, when the
// planner gave whole pool windows to each work-item, pools.

#include "xconv_epilogue.h"
#include "xconv_direct_block.h"

#define XD_TILE_BUFFERS 1  // one tile buffer: load, barrier, compute, barrier per chunk

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL XC_WORK_GROUP_SIZE(XD_WG_W, XD_WG_H, 1)
void direct_tiled(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                  const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                  XC_GLOBAL XC_DATA *XC_RESTRICT y XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
#include "xconv_direct_tiled_body.h"
}
