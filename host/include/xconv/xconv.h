// SPDX-License-Identifier: MIT
// xconv's public API: 2-D convolutions on OpenCL and CUDA devices. This header includes every
// topic's header; a client may include only the ones it uses:
//   <xconv/core.h>       the contract of every call, status and errors, devices, buffers
//   <xconv/problem.h>    the convolution problem, SPEC shapes, benchdnn descriptors, shape files
//   <xconv/plans.h>      variants, plans, running them, tunings and the automatic choice
//   <xconv/plan_options.h>  the planning options: forced choices (included by plans.h)
//   <xconv/caches.h>     the cache on disk: compiled kernels, bundles and the find-db
//   <xconv/reference.h>  the float64 reference results are checked against
//   <xconv/timing.h>     the measuring primitive and the device's measured peaks
//   <xconv/raw_ops.h>    SGEMM and 2-D FFTs on raw data
//   <xconv/native.h>     the backends' own handles of devices and buffers, for interop
// Every call that can fail returns a status and fills an xconv_error the caller prints; the
// library never prints, exits or reads the environment. Handles are opaque; two devices, plans
// or threads never interfere. A shared libxconv exports what these headers declare, and nothing
// else (the library is built with hidden visibility).
#ifndef XCONV_H
#define XCONV_H

#include <xconv/core.h>
#include <xconv/problem.h>
#include <xconv/plans.h>
#include <xconv/caches.h>
#include <xconv/reference.h>
#include <xconv/timing.h>
#include <xconv/raw_ops.h>
#include <xconv/native.h>

// Measuring: cases, results, find, checking helpers.
#include <xconv/measure.h>

#endif // XCONV_H
