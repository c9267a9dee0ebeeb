// SPDX-License-Identifier: MIT
// What several tests open, parse and run the same way: a target profile, the first OpenCL CPU
// device, a shape with storage and math fields appended, a plan run over operands in the
// problem's storage type. Failures count as CHECKs (tests/check.h).
#ifndef XCONV_TEST_FIXTURES_H
#define XCONV_TEST_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

// Runs plan on dev (with a workspace of its size) over x and w (fp32, rounded to p's storage
// type) and downloads y as fp32; y starts as a NaN of the storage type in every element (fp32
// 0x7fc00000, f16 0x7e00, bf16 0x7fc0), so an element the kernel never writes fails the
// comparison. Returns the status.
static inline xconv_status run_stored(xconv_device *dev, xconv_plan *plan,
                                      const xconv_problem *p, const float *x, const float *w,
                                      float *y, xconv_error *err)
{
    size_t eb = xconv_problem_elem_bytes(p);
    size_t xn = (size_t)xconv_problem_x_elems(p), wn = (size_t)xconv_problem_w_elems(p);
    size_t yn = (size_t)xconv_problem_y_elems(p);
    void *xs = malloc(xn * eb), *ws = malloc(wn * eb), *ys = malloc(yn * eb);
    xconv_tensors t = {.x = xconv_buffer_create(dev, xn * eb, err),
                       .w = xconv_buffer_create(dev, wn * eb, err),
                       .y = xconv_buffer_create(dev, (yn * eb + 3) / 4 * 4, err)};
    size_t workspace = xconv_plan_workspace_size(plan);
    if (workspace)
        t.workspace = xconv_buffer_create(dev, workspace, err);
    xconv_status st = xs && ws && ys && t.x && t.w && t.y && (!workspace || t.workspace)
                          ? XCONV_OK
                          : XCONV_ERR_OUT_OF_MEMORY;
    if (st == XCONV_OK && !(xconv_dtype_from_f32(p->dtype, x, xs, xn) &&
                            xconv_dtype_from_f32(p->dtype, w, ws, wn)))
        st = XCONV_ERR_INVALID;
    uint32_t poison_bits = p->dtype == XCONV_DTYPE_F16    ? 0x7e007e00u
                           : p->dtype == XCONV_DTYPE_BF16 ? 0x7fc07fc0u
                                                          : 0x7fc00000u;
    float poison;
    memcpy(&poison, &poison_bits, sizeof poison);
    st = st ? st : xconv_buffer_fill_f32(t.y, (yn * eb + 3) / 4, poison, err);
    st = st ? st : xconv_buffer_upload(t.x, 0, xn * eb, xs, err);
    st = st ? st : xconv_buffer_upload(t.w, 0, wn * eb, ws, err);
    st = st ? st : xconv_plan_run(plan, &t, err);
    st = st ? st : xconv_device_wait(dev, err);
    st = st ? st : xconv_buffer_download(t.y, 0, yn * eb, ys, err);
    if (st == XCONV_OK)
        xconv_dtype_to_f32(p->dtype, ys, y, yn);
    xconv_buffer_destroy(t.x), xconv_buffer_destroy(t.w), xconv_buffer_destroy(t.y);
    xconv_buffer_destroy(t.workspace);
    free(xs), free(ws), free(ys);
    return st;
}

#endif  // XCONV_TEST_FIXTURES_H
