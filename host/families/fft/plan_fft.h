// SPDX-License-Identifier: MIT
// The FFT family's planner: whether FFT convolution (whole image or overlap-save tiles) applies
// to a problem on a device, the transform size, tiles, work-group shapes and images per pass it
// picks, and the plan's steps and workspace regions (internal header).
//
// The steps, in order (kernel source / entry point):
//   filter transform   fft_forward / fft_filter   once per run
//   input transform    fft_forward / fft_input    then, per pass of `chunk` images,
//   channel sum        fft_cgemm / fft_cgemm      these three
//   inverse transform  fft_inverse / fft_output
// Their workspace regions are "input spectra", "filter spectra" and "output spectra", each
// passed to kernels as the workspace pointer and an int offset in floats.
#ifndef XCONV_PLAN_FFT_H
#define XCONV_PLAN_FFT_H

#include "plan/plan.h"

// ---------------------------------------------------------------------------------------------
// Transform sizes

#define XCONV_FFT_MAX_LENGTH 4096  // the kernels' twiddle arithmetic holds up to here

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

// The family's one parameter block: every step of a plan gets all of it as defines, and each
// kernel reads the fields of its own step.
typedef struct xconv_fft_params {
    int lh, radix_h, lw, radix_w;  // transform size and radix codes
    int tiles_h, tiles_w;          // tiles per image (1 x 1: the whole image)
    int out_h, out_w;              // output rows and columns per tile
    int batch;                     // spectrum columns per pass
    // The transforms (fft_input, fft_filter, fft_output):
    int planes;                    // real planes per work-group (even)
    int pitch;                     // complex elements per local row
    int threads;                   // work-items per work-group
    int inline_passes;             // 1: passes inlined; 0 (CPUs): one out-of-line function
    // The channel sum (fft_cgemm):
    int gemm_tile_m, gemm_tile_n, gemm_tile_k;  // block of Y per work-group, channels per step
    int gemm_wpt_m, gemm_wpt_n;                 // block per work-item
} xconv_fft_params;

// Adds a step's defines (XCONV_FFT_DEFINES of t) to s; returns the first failure of
// xconv_step_define.
xconv_status xconv_fft_define(xconv_step *s, const xconv_fft_params *t, xconv_error *err);

// Sets t's channel sum tiles for problem p over a pass of t->batch columns
// (host/families/fft/fft_gemm_tiles.c), or takes the forced ones (TM, TN, TK, WM, WN; NULL or
// zeros: chosen). Returns false with the reason in why when forced tiles do not fit.
bool xconv_fft_gemm_tiles(const xconv_device_info *info, const xconv_problem *p,
                          const int *forced, xconv_fft_params *t, char *why, size_t len);

// Local memory of t's channel sum blocks, in bytes.
size_t xconv_fft_gemm_local_bytes(const xconv_fft_params *t);

// ---------------------------------------------------------------------------------------------
// Choosing

typedef enum xconv_fft_kind {
    XCONV_FFT_WHOLE = 0,  // `fft`: one transform per image, common size >= H + 2 pad
    XCONV_FFT_TILED = 1,  // `fft_tiled`: overlap-save tiles of the image
} xconv_fft_kind;

// What the planner chose for one problem on one device.
typedef struct xconv_fft_choice {
    xconv_fft_kind kind;
    xconv_problem problem;
    int lh, lw;                // transform size
    int tiles_h, tiles_w;      // tiles per image
    int out_h, out_w;          // outputs per tile (the plan's error block)
    int freqs;                 // stored frequencies per plane: lh * (lw / 2 + 1)
    int64_t chunk;             // images per pass (chunk * tiles even when there are several
                               // passes: results do not depend on the chunk)
    int64_t passes;            // ceil(n / chunk)
    int64_t batch;             // spectrum columns per full pass: chunk * tiles
    float filter_scale;        // 1 / (lh * lw), the filter step's `scale` argument
    size_t input_bytes, filter_bytes, output_bytes;  // the three regions
    xconv_fft_params params;   // the input transform, channel sum and inverse transform
    xconv_fft_params filter;   // the filter transform: params with its own planes and threads
} xconv_fft_choice;

// Chooses kind's transform size, tiles, parameters and images per pass for p on info's device;
// opts (NULL: defaults) may force the transform size (fft_tile_h/_w) and cap the images per
// pass (fft_chunk). Returns XCONV_OK, or XCONV_ERR_NOT_APPLICABLE with the reason (stride or
// dilation not 1, a filter larger than every tile, a forced size that does not fit, a transform
// whose local memory or a workspace whose size passes the device's limits, with the numbers),
// or XCONV_ERR_INVALID for an invalid problem.
xconv_status xconv_fft_choose(xconv_fft_kind kind, const xconv_device_info *info,
                              const xconv_problem *p, const xconv_plan_options *opts,
                              xconv_fft_choice *c, xconv_error *err);

// Returns true when the FFT variant `kind` applies to p on info's device, else false with the
// reason in reason (which may be NULL).
bool xconv_fft_applies(xconv_fft_kind kind, const xconv_device_info *info,
                       const xconv_problem *p, char *reason, size_t len);

// Fills plan with kind's steps for p on info's device under opts: the three workspace regions,
// the filter transform, then per pass the input transform, channel sum and inverse transform
// (a last, shorter pass launches only its own work-groups), the summary and the error block
// (the tile's outputs). Returns XCONV_OK or xconv_fft_choose's or a define's failure.
xconv_status xconv_fft_plan(const xconv_device_info *info, const xconv_problem *p,
                            xconv_fft_kind kind, const xconv_plan_options *opts,
                            xconv_plan *plan, xconv_error *err);

// The FFT variants' applies and plan (their xconv_variant's): xconv_fft_applies and
// xconv_fft_plan of the variant's kind (v, or plan->variant) on dev.
bool xconv_fft_applies_variant(const xconv_variant *v, const xconv_device *dev,
                               const xconv_problem *p, char *reason, size_t len);
xconv_status xconv_fft_plan_variant(const xconv_device *dev, const xconv_problem *p,
                                    const xconv_plan_options *opts, xconv_plan *plan,
                                    xconv_error *err);

// ---------------------------------------------------------------------------------------------
// The transforms alone, on raw planes (xconv_fft2d in the public header)

// The problem whose input is `batch` real planes of lh x lw: n = batch, c = k = 1, h = lh,
// w = lw, a 1x1 filter.
xconv_problem xconv_fft_planes_problem(int64_t lh, int64_t lw, int64_t batch);

// Fills plan (new and empty, for xconv_fft_planes_problem) with one step: the forward 2-D R2C
// transform of the planes in x into the half spectra in y, or (inverse) the C2R transform of the
// half spectra in x into the planes in y, unnormalised. Spectrum element (u, v) of plane b is
// complex number (u * (lw/2 + 1) + v) * batch + b. Returns XCONV_ERR_INVALID for a size that is
// not 2^a 3^b 5^c up to XCONV_FFT_MAX_LENGTH or a batch < 1, XCONV_ERR_OUT_OF_MEMORY when the
// spectra pass the 32-bit index range, XCONV_ERR_NOT_APPLICABLE when a transform passes the
// device's local memory, or a define's failure.
xconv_status xconv_fft_plan_planes(const xconv_device_info *info, int64_t lh, int64_t lw,
                                   int64_t batch, bool inverse, xconv_plan *plan,
                                   xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Work estimates

// The FLOPs of the transforms (5 N log2 N per complex N-point FFT as a stand-in, rows and
// columns as the kernels run them) and of the channel sum (8 per complex multiply-add), and the
// bytes each step reads and writes in global memory over the whole problem.
typedef struct xconv_fft_costs {
    double transform_flops, gemm_flops;
    double filter_bytes, input_bytes, gemm_bytes, inverse_bytes;
} xconv_fft_costs;

// Fills *out with c's work estimates.
void xconv_fft_choice_costs(const xconv_fft_choice *c, xconv_fft_costs *out);

#endif // XCONV_PLAN_FFT_H
