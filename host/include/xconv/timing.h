// SPDX-License-Identifier: MIT
// Timing on the device: the measuring primitive (device events around enqueued work) and
// the device's peaks measured with xconv's own micro-kernels.
#ifndef XCONV_PUBLIC_TIMING_H
#define XCONV_PUBLIC_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/core.h>
#include <xconv/visibility.h>

XCONV_API_BEGIN

// ---------------------------------------------------------------------------------------------
// Measuring (the one primitive bench, parity and the GEMM comparison use)

// Enqueues run number `run` of the work being measured (asynchronously); returns a status.
typedef xconv_status (*xconv_enqueue_fn)(void *user, int run, xconv_error *err);

// What xconv_device_measure found: device time per run in milliseconds.
typedef struct xconv_timing {
    int warmup, repeat;
    double median_ms, min_ms, max_ms;
} xconv_timing;

// Calls enqueue(user, i) `warmup` times untimed, waits, then `repeat` times (i counting on from
// warmup) each between two marks in the device's queue, and fills *out with the median, min
// and max of the marks' times (device events, not a host clock); samples (when not NULL) gets
// the repeat times in run order. Returns XCONV_ERR_INVALID for repeat < 1, or the first
// failure of enqueue or the device.
xconv_status xconv_device_measure(xconv_device *dev, xconv_enqueue_fn enqueue, void *user,
                                  int warmup, int repeat, xconv_timing *out, double *samples,
                                  xconv_error *err);

// How a timed region starts on the device's queue (docs/guide/reading-results.md, "What is
// timed"). On a GPU a plain start mark completes at once on the idle device, which then waits
// while the host enqueues the run: that host time would be timed. A delay, a short kernel of
// about 100 us the device runs before the mark, lets the host enqueue the run first.
typedef enum xconv_timing_delay {
    XCONV_TIMING_DELAY_AUTO = 0,  // the delay on GPUs, a plain mark on CPU devices (whose queues
                                  // are host threads): the default
    XCONV_TIMING_DELAY_OFF = 1,   // a plain mark on every device
    XCONV_TIMING_DELAY_ON = 2,    // the delay on every device, CPU devices too
} xconv_timing_delay;

// Sets how dev's timed regions (xconv_device_measure) start from now on. Returns XCONV_OK, or
// XCONV_ERR_INVALID for a mode that is not an xconv_timing_delay. A backend with one way only
// (or a device that only plans) keeps it.
xconv_status xconv_device_set_timing_delay(xconv_device *dev, xconv_timing_delay mode,
                                           xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Peaks: the device's limits, measured with xconv's own micro-kernels (cl/peak_*.cl)

// What xconv_peaks_measure found. Each figure comes from the fastest of the timed runs.
typedef struct xconv_peaks {
    double fp32_gflops;        // fp32 FMA throughput, GFLOP/s (an FMA counts 2 FLOPs)
    double gbps;               // copy bandwidth: bytes read plus bytes written over time, GB/s
    double gbps_read;          // read-only bandwidth, GB/s
    xconv_timing fma, copy, read;  // the timings of the three micro-kernels
    double fma_flops;          // FLOPs of one FMA run
    double copy_bytes;         // bytes one copy run moves (read + written)
    double read_bytes;         // bytes one read run reads
    size_t fma_items;          // work-items of the FMA kernel
    int fma_iters;             // its iterations per work-item (calibrated to a run of ~20 ms)
    size_t work_group;         // work-group size of all three
    int fma_lanes;             // lanes of each FMA chain: the device's native float vector
                               // width on OpenCL devices that have one (CPUs), else 1
    // The tensor cores' throughput per reduced math mode (cl/peak_mma.cl: mma.sync, the
    // instruction implicit_mma uses), indexed by xconv_math: XCONV_MATH_TF32, _F16, _BF16.
    // 0 where not measured: index XCONV_MATH_F32 always (fp32 is fp32_gflops), and every mode
    // on a device without NVIDIA tensor cores (compute capability 8.0 or later).
    double mma_gflops[4];      // GFLOP/s (a multiply-add counts 2 FLOPs)
    xconv_timing mma[4];       // the timings of the mma kernel in each mode
    double mma_flops[4];       // FLOPs of one run
    int mma_iters[4];          // its iterations (calibrated to a run of ~20 ms)
    char mma_note[256];        // why the tensor cores were not measured ("" when they were):
                               // none on the device, or the kernel did not build there
} xconv_peaks;

// Measures dev's fp32 FMA throughput, its memory bandwidth (a copy, and reads alone) and, on a
// device with NVIDIA tensor cores, their throughput in tf32, f16 and bf16, with xconv's own
// kernels, sized from the device's limits (compute units, work-group size, memory, cache) and
// timed with xconv_device_measure: 2 warm-up and `repeat` timed runs each. Fills *out and
// returns XCONV_OK, XCONV_ERR_INVALID for repeat < 1, or the first failure (a build, an
// allocation past the device's memory, a launch).
xconv_status xconv_peaks_measure(xconv_device *dev, int repeat, xconv_peaks *out,
                                 xconv_error *err);

XCONV_API_END

#endif // XCONV_PUBLIC_TIMING_H
