// SPDX-License-Identifier: MIT
// What the FFT family's tests share: a shape parsed as a CHECK, and planning options forcing a
// transform size and images per pass.
#ifndef XCONV_TEST_FFT_FIXTURES_H
#define XCONV_TEST_FFT_FIXTURES_H

#include "xconv/xconv.h"
#include "tests/check.h"

// Parses spec (a CHECK).
static inline xconv_problem parse(const char *spec)
{
    xconv_problem p;
    xconv_error err = {0};
    CHECK_MSG(xconv_shape_parse(spec, &p, &err) == XCONV_OK, "%s: %s", spec, err.msg);
    return p;
}

// Planning options forcing a transform size and images per pass (0: chosen).
static inline xconv_plan_options forced(int tile_h, int tile_w, int64_t chunk)
{
    xconv_plan_options o;
    xconv_plan_options_default(&o);
    o.fft_tile_h = tile_h;
    o.fft_tile_w = tile_w;
    o.fft_chunk = chunk;
    return o;
}

#endif // XCONV_TEST_FFT_FIXTURES_H
