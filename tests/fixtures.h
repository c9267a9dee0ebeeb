// SPDX-License-Identifier: MIT
// What several tests open and parse the same way: a target profile, the first OpenCL CPU device,
// a shape with storage and math fields appended. Failures count as CHECKs (tests/check.h).
#ifndef XCONV_TEST_FIXTURES_H
#define XCONV_TEST_FIXTURES_H

#include <stdbool.h>
#include <stdio.h>

#include <xconv/xconv.h>

#include "tests/check.h"

// Parses spec with `types` ("dtype=f16,math=f16", or "") appended into *p.
static inline bool parse_with(const char *spec, const char *types, xconv_problem *p)
{
    char full[256];
    snprintf(full, sizeof full, "%s%s%s", spec, types[0] ? "," : "", types);
    xconv_error err;
    xconv_status st = xconv_shape_parse(full, p, &err);
    CHECK_MSG(st == XCONV_OK, "%s: %s", full, err.msg);
    return st == XCONV_OK;
}

// Opens target profile `name` (a device description without a backend), or returns NULL.
static inline xconv_device *open_target(const char *name)
{
    xconv_error err;
    const xconv_target *t = xconv_target_find(name, &err);
    CHECK_MSG(t != NULL, "%s", err.msg);
    return t ? xconv_device_open_target(t, &err) : NULL;
}

// Opens the first OpenCL CPU device, or returns NULL.
static inline xconv_device *open_cpu(void)
{
    xconv_error err;
    xconv_devices *list = xconv_devices_enumerate(XCONV_BACKEND_BIT(XCONV_BACKEND_OPENCL), &err);
    xconv_device *dev = NULL;
    for (int i = 0; !dev && i < xconv_devices_count(list); i++)
        if (xconv_devices_info_at(list, i)->is_cpu)
            dev = xconv_device_open_info(xconv_devices_info_at(list, i), &err);
    xconv_devices_free(list);
    return dev;
}

#endif  // XCONV_TEST_FIXTURES_H
