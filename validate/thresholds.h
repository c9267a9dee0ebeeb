// SPDX-License-Identifier: MIT
// Pass/fail thresholds on the normalised error, per variant family, kept in one place.
#ifndef XCONV_THRESHOLDS_H
#define XCONV_THRESHOLDS_H

#include "reference.h"

// Returns the largest normalised error |y - ref| / sum|x*w| a variant whose accuracy entry is
// `family` may show: 1e-5 for "reference", "direct", "gemm", "peer" and any unknown entry (or
// NULL), 1e-4 for "winograd" and "fft", and each Winograd algorithm's own: 3e-6 for
// "winograd_f23", 3e-5 for "winograd_f43", 2e-5 for "winograd_f25". validate/thresholds.c
// explains the numbers.
double xconv_threshold_for_family(const char *family);

// Returns variant v's threshold: its own where validate/thresholds.c measured one (over its
// error block), else its accuracy family's (xconv_threshold_for_family(v->accuracy)).
double xconv_threshold_for_variant(const xconv_variant_info *v);

// Returns what storing y in dtype adds to a threshold: half an ulp of the storage type relative
// to the output, 2^-11 for fp16, 2^-8 for bf16, 0 for fp32 (validate/thresholds.c).
double xconv_threshold_storage(int64_t dtype);

// Returns what a reduced math mode adds to a threshold (tensor-core products): 2^-10 + 2^-12
// for tf32, 2^-12 for f16 and bf16, 0 for strict fp32 (validate/thresholds.c).
double xconv_threshold_math(int64_t math);

// Returns true when r compared at least one element, found none non-finite and its largest
// normalised error is at most threshold.
bool xconv_compare_passed(const xconv_compare_result *r, double threshold);

#endif // XCONV_THRESHOLDS_H
