// SPDX-License-Identifier: MIT
// The shapes and math modes implicit_mma's tests plan and run (tests/test_plan_mma.c,
// tests/test_mma.c), with the tile each shape is expected to get.
#ifndef XCONV_TEST_MMA_SHAPES_H
#define XCONV_TEST_MMA_SHAPES_H

// Shapes of every kind the kernel's edges meet: rows, columns and K not multiples of the tiles,
// two row tiles (64 x 128, the device given many compute units), 128 x 128 tiles (given one),
// groups (one filter a group: 16-row tiles), stride, dilation, rectangular filters, a 1x1 filter,
// K below one K step, and channels in whole K steps (k walked as (r, s, c)) on 32-row and
// 128 x 128 tiles with stride, dilation and padding.
static const char *const run_specs[] = {
    "n=2,c=5,h=7,w=9,k=20,r=3,pad=1",
    "n=1,c=8,h=10,w=10,k=70,r=3,stride=2,pad=1",
    "n=2,c=12,h=6,w=6,k=6,r=3,groups=3,pad=1",
    "n=2,c=6,h=12,w=12,k=130,r=3,pad=1",
    "n=1,c=3,h=9,w=11,k=17,r=2,s=3,dil=2,pad_w=2",
    "n=3,c=40,h=5,w=5,k=33,r=1",
    "n=1,c=1,h=12,w=12,k=4,r=3",
    "n=2,c=32,h=7,w=9,k=20,r=3,pad=1",
    "n=4,c=64,h=20,w=18,k=70,r=3,s=2,stride=2,dil=2,pad=2",
    // 1x1, stride 1, unpadded (B read from x where H W allows, DIRECT_FIRST on): H W of 16
    // (every mode, one partial column tile), 120 (two column tiles, an image boundary inside
    // the first), 36 (tf32 only: not a multiple of 8); K and C off the tiles, batches of 2-3.
    "n=2,c=40,h=4,w=4,k=33,r=1",
    "n=2,c=72,h=10,w=12,k=130,r=1",
    "n=3,c=20,h=6,w=6,k=70,r=1",
};
// The compute units the device reports while each shape is planned (tile choice).
static const int run_units[] = {64, 1000, 64, 1, 64, 64, 64, 64, 1, 64, 64, 64};
// The row tile each shape is expected to get.
static const int run_tile_m[] = {32, 64, 16, 128, 32, 64, 16, 32, 128, 64, 64, 64};
#define RUN_SPECS 9     // the general shapes (every check runs them)
#define DIRECT_FIRST 9  // the 1x1 shapes of direct B, to the end of run_specs
#define ALL_SPECS ((int)(sizeof run_specs / sizeof run_specs[0]))

static const char *const math_specs[] = {"math=tf32", "dtype=f16,math=f16",
                                         "dtype=bf16,math=bf16"};
#endif // XCONV_TEST_MMA_SHAPES_H
