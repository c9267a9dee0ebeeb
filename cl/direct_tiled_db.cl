// SPDX-License-Identifier: MIT
// direct_tiled_db: as direct_tiled (input tile + halo in local memory, XD_CHUNK_C channels at a
// time), with two tile buffers: while the work-group computes from one chunk it loads the next
// into the other, so one barrier per chunk separates both the load and the reuse of a buffer.
//
// Each work-item's outputs, the filters' reads and the epilogue are direct_tiled's (see
// cl/direct_tiled.cl): the body both kernels run is common/xconv_direct_tiled_body.h, the tuning
// parameters, geometry and tile layout the family's, in common/xconv_direct_block.h.

#include "xconv_epilogue.h"
#include "xconv_direct_block.h"

#define XD_TILE_BUFFERS 2  // two tile buffers: one barrier per chunk, twice the local memory

// ---------------------------------------------------------------------------------------------
// The kernel

XC_KERNEL XC_WORK_GROUP_SIZE(XD_WG_W, XD_WG_H, 1)
void direct_tiled_db(const XC_GLOBAL XC_DATA *XC_RESTRICT x,
                     const XC_GLOBAL XC_DATA *XC_RESTRICT w,
                     XC_GLOBAL XC_DATA *XC_RESTRICT y XC_EPI_BIAS_PARAM XC_BATCH_PARAM)
{
#include "xconv_direct_tiled_body.h"
}
