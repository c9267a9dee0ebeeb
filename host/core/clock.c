// SPDX-License-Identifier: MIT
// The host's monotonic clock.
#include <time.h>

#include "core/clock.h"

double xconv_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
