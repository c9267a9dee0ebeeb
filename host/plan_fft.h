// SPDX-License-Identifier: MIT
// The FFT planner: whether FFT convolution (whole-image or overlap-save tiles) applies to a
// problem on a device, the transform size, tiles, work-group shapes and workspace regions it
// picks, and the defines and launch geometry of its four steps. Pure functions of
// xconv_device_info and xconv_problem.
//
// The steps, in order (kernel source / entry point):
//   0 filter transform   fft_forward / fft_filter   once per run
//   1 input transform    fft_forward / fft_input    then, per pass of `chunk` images,
//   2 channel sum        fft_cgemm / fft_cgemm      these three
//   3 inverse transform  fft_inverse / fft_output
// Their workspace regions are XCONV_FFT_REGION_* (each passed to kernels as a base pointer and
// an int offset in floats).
#ifndef XCONV_PLAN_FFT_H
#define XCONV_PLAN_FFT_H

#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// Transform sizes

#define XCONV_FFT_MAX_LENGTH 4096  // the kernels' twiddle arithmetic holds up to here
#define XCONV_FFT_MIN_PRODUCTS 8    // products per output (C/groups x R x S) FFT needs

// Returns true when n > 0 is 2^a 3^b 5^c.
bool xconv_fft_is_smooth(int64_t n);

// Returns the smallest 2^a 3^b 5^c >= n (1 for n <= 1).
int64_t xconv_fft_next_smooth(int64_t n);

// Returns the radix code of length n for common/xconv_fft.h: hex digit i is the radix of DIF
// pass i (8s first, then 4 or 2, then 5s, then 3s), e.g. 0x38 for 24; 0 when n is not smooth,
// is 1, or passes XCONV_FFT_MAX_LENGTH.
int xconv_fft_radix_code(int n);

// ---------------------------------------------------------------------------------------------
// Step parameters (their defines: common/xconv_fft_params.h)

typedef struct xconv_fft_transform_params {
    int lh, radix_h, lw, radix_w;  // transform size and radix codes
    int tiles_h, tiles_w;          // tiles per image (1 x 1: the whole image)
    int out_h, out_w;              // output rows and columns per tile
    int planes;                    // real planes per work-group (even)
    int pitch;                     // complex elements per local row
    int threads;                   // work-items per work-group
    int inline_passes;             // 1: passes inlined; 0 (CPUs): one out-of-line function
    int batch;                     // spectrum columns per pass
} xconv_fft_transform_params;

typedef struct xconv_fft_gemm_params {
    int tile_m, tile_n, tile_k;    // block of Y per work-group, input channels per step
    int wpt_m, wpt_n;              // block per work-item
    int batch;                     // spectrum columns per pass
} xconv_fft_gemm_params;

// One define of a step.
typedef struct xconv_fft_define {
    const char *name;
    long long value;
} xconv_fft_define;

// Fills out with the transform steps' defines (at most max); returns how many there are.
int xconv_fft_transform_defines(const xconv_fft_transform_params *t, xconv_fft_define *out,
                                int max);

// Fills out with the channel sum's defines (at most max); returns how many there are.
int xconv_fft_gemm_defines(const xconv_fft_gemm_params *t, xconv_fft_define *out, int max);

// ---------------------------------------------------------------------------------------------
// Plans

typedef enum xconv_fft_kind {
    XCONV_FFT_WHOLE = 0,  // `fft`: one transform per image, common size >= H + 2 pad
    XCONV_FFT_TILED = 1,  // `fft_tiled`: overlap-save tiles of the image
} xconv_fft_kind;

typedef enum xconv_fft_region {
    XCONV_FFT_REGION_INPUT = 0,   // input spectra: F x C x batch complex
    XCONV_FFT_REGION_FILTER = 1,  // filter spectra: F x K x C/groups complex
    XCONV_FFT_REGION_OUTPUT = 2,  // output spectra: F x K x batch complex
    XCONV_FFT_REGIONS = 3,
} xconv_fft_region;

typedef enum xconv_fft_step {
    XCONV_FFT_STEP_FILTER = 0,
    XCONV_FFT_STEP_INPUT = 1,
    XCONV_FFT_STEP_GEMM = 2,
    XCONV_FFT_STEP_INVERSE = 3,
    XCONV_FFT_STEPS = 4,
} xconv_fft_step;

// The launch of one step.
typedef struct xconv_fft_launch {
    const char *label;         // "filter transform", "input transform", ...
    const char *source;        // kernel file stem in cl/
    const char *kernel;        // entry point
    size_t global[3], local[3];
    size_t local_mem_bytes;    // local memory the kernel declares
} xconv_fft_launch;

typedef struct xconv_fft_plan {
    xconv_fft_kind kind;
    xconv_problem problem;
    int lh, lw;                // transform size
    int tiles_h, tiles_w;      // tiles per image
    int out_h, out_w;          // outputs per tile
    int freqs;                 // stored frequencies per plane: lh * (lw / 2 + 1)
    int64_t chunk;             // images per pass (chunk * tiles even when there are several
                               // passes: results do not depend on the chunk)
    int64_t passes;            // ceil(n / chunk)
    int64_t batch;             // spectrum columns per full pass: chunk * tiles
    float filter_scale;        // 1 / (lh * lw), the filter step's `scale` argument
    const char *region_names[XCONV_FFT_REGIONS];
    size_t region_bytes[XCONV_FFT_REGIONS];
    size_t workspace_bytes;    // the regions, each aligned to 256 bytes
    xconv_fft_transform_params input, filter, inverse;
    xconv_fft_gemm_params gemm;
    xconv_fft_launch launch[XCONV_FFT_STEPS];  // for a full pass
    char summary[256];
} xconv_fft_plan;

// Choices a caller may force (tuning, tests); zeros leave them to the planner.
typedef struct xconv_fft_options {
    int tile_h, tile_w;  // transform size (fft_tiled: the tile; fft: at least the padded image)
    int64_t chunk;       // images per pass, at most what the workspace budget allows
} xconv_fft_options;

// Fills *plan for problem p on info's device (opts may be NULL). Returns XCONV_OK, or
// XCONV_ERR_NOT_APPLICABLE with the reason (stride or dilation not 1, a 1x1 filter, fewer
// than XCONV_FFT_MIN_PRODUCTS products per output, a filter larger than every tile, a transform whose local memory or a workspace whose size passes the
// device's limits, with the numbers), or XCONV_ERR_INVALID for an invalid problem.
xconv_status xconv_fft_plan_make(xconv_fft_kind kind, const xconv_device_info *info,
                                 const xconv_problem *p, const xconv_fft_options *opts,
                                 xconv_fft_plan *plan, xconv_error *err);

// Returns true when the FFT variant `kind` applies to p on info's device, else false with the
// reason in reason (which may be NULL).
bool xconv_fft_applies(xconv_fft_kind kind, const xconv_device_info *info,
                       const xconv_problem *p, char *reason, size_t len);

// Sets *launch to step `step`'s geometry for a pass of `images` images (the last pass may be
// shorter than plan->chunk).
void xconv_fft_launch_for(const xconv_fft_plan *plan, xconv_fft_step step, int64_t images,
                          xconv_fft_launch *launch);

// Work estimates for the whole problem: the FLOPs of the transforms (butterflies as executed,
// 5 N log2 N per complex N-point FFT as a stand-in) and of the channel sum (8 per complex
// multiply-add), and the bytes each step reads and writes in global memory.
typedef struct xconv_fft_costs {
    double transform_flops, gemm_flops;
    double bytes[XCONV_FFT_STEPS];
} xconv_fft_costs;

void xconv_fft_plan_costs(const xconv_fft_plan *plan, const xconv_problem *p,
                          xconv_fft_costs *out);

#endif // XCONV_PLAN_FFT_H
