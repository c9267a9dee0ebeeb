// SPDX-License-Identifier: MIT
// Device descriptions the planners' tests plan for without a device: a GPU like an H100, a CPU
// as PoCL reports one, and a small GPU.
#ifndef XCONV_TEST_SYNTHETIC_DEVICES_H
#define XCONV_TEST_SYNTHETIC_DEVICES_H

#include <stdio.h>

#include "../host/core/device.h"

// A GPU like an H100: 48 KiB local memory per work-group, 1024 work-items, warps of 32.
static inline xconv_device_info gpu_info(void)
{
    xconv_device_info i = {.is_gpu = true, .compute_units = 132, .local_mem_bytes = 48 << 10,
                           .max_alloc_bytes = 20ull << 30, .global_mem_bytes = 80ull << 30,
                           .const_mem_bytes = 64 << 10, .max_work_group_size = 1024,
                           .max_work_item_sizes = {1024, 1024, 64}, .preferred_multiple = 32};
    snprintf(i.name, sizeof i.name, "synthetic GPU");
    return i;
}

// A CPU as PoCL reports one: 2 cores, 1 MiB "local" memory, work-groups up to 4096.
static inline xconv_device_info cpu_info(void)
{
    xconv_device_info i = {.is_cpu = true, .compute_units = 2, .local_mem_bytes = 1 << 20,
                           .max_alloc_bytes = 1ull << 30, .global_mem_bytes = 4ull << 30,
                           .max_work_group_size = 4096,
                           .max_work_item_sizes = {4096, 4096, 4096}, .preferred_multiple = 8};
    snprintf(i.name, sizeof i.name, "synthetic CPU");
    return i;
}

// A small GPU: 16 KiB local memory, 256 work-items, 128 per dimension, 128 MiB allocations.
static inline xconv_device_info small_gpu_info(void)
{
    xconv_device_info i = gpu_info();
    i.compute_units = 8;
    i.local_mem_bytes = 16 << 10;
    i.max_work_group_size = 256;
    i.max_work_item_sizes[0] = i.max_work_item_sizes[1] = 128;
    i.max_alloc_bytes = 128ull << 20;
    i.global_mem_bytes = 1ull << 30;
    snprintf(i.name, sizeof i.name, "synthetic small GPU");
    return i;
}

#endif // XCONV_TEST_SYNTHETIC_DEVICES_H
