// SPDX-License-Identifier: MIT
// An open device: the backend table, its context and the device's info (internal header).
#ifndef XCONV_DEVICE_H
#define XCONV_DEVICE_H

#include "backend.h"

#define XCONV_MAX_DEVICES 64

typedef struct xconv_program_memo xconv_program_memo;  // host/program_memo.h

// An open device. Variants enqueue work on it through be and ctx.
typedef struct xconv_device {
    const xconv_backend_iface *be;
    void *ctx;
    xconv_device_info info;
    double compile_ms;             // program build time accumulated since it was last reset
    xconv_program_memo *programs;  // programs by (kernel source, plan defines), for launches
} xconv_device;

// One entry of the device list, with a backend's failure kept when it listed nothing.
typedef struct xconv_device_list {
    xconv_device_info devices[XCONV_MAX_DEVICES];
    int count;
    // Per backend: XCONV_OK, or why it listed no device ("cuda: unavailable (no libcuda.so.1)").
    xconv_status backend_status[XCONV_BACKEND_COUNT];
    char backend_reason[XCONV_BACKEND_COUNT][512];
    // Per backend: lines of advice on installed parts that list no device ("" when none).
    char backend_advice[XCONV_BACKEND_COUNT][1024];
} xconv_device_list;

// Lists the devices of every backend built in; a backend with none records its reason and the
// call still succeeds. Returns XCONV_OK.
xconv_status xconv_devices_list(xconv_device_list *list);

// Finds the device that `selector` names in list: a global index ("0"), a backend and index
// ("opencl:1", "cuda:0") or a case-insensitive substring of the name, platform, vendor or
// version ("pocl", "h100"). NULL or "" picks
// XCONV_DEVICE from the environment, else the first GPU, else the first CPU device. Returns the
// index in list->devices, or a negative status with a message that lists the valid choices.
int xconv_device_select(const xconv_device_list *list, const char *selector, xconv_error *err);

// Opens the device described by info; returns NULL and fills err on failure.
xconv_device *xconv_device_open(const xconv_device_info *info, xconv_error *err);

// Closes a device and frees everything it holds; NULL is ignored.
void xconv_device_close(xconv_device *dev);

// Short label "opencl:0 NVIDIA H100 80GB HBM3" for tables.
void xconv_device_label(const xconv_device_info *info, char *buf, size_t len);

#endif // XCONV_DEVICE_H
