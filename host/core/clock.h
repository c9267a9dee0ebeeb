// SPDX-License-Identifier: MIT
// The host's monotonic clock, for times taken on the host (compiles, host references, tests).
#ifndef XCONV_CLOCK_H
#define XCONV_CLOCK_H

// Returns the host's monotonic clock in milliseconds (an arbitrary origin: use differences).
double xconv_now_ms(void);

#endif // XCONV_CLOCK_H
