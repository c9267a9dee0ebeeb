// SPDX-License-Identifier: MIT
// Target profiles: GPUs described from their vendors' documentation, each as the device-limits
// struct a live device fills, so that the planners plan for a profile exactly as for the device.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contract.h"
#include "core/device.h"

// ---------------------------------------------------------------------------------------------
// The profiles
//
// Sources, cited by letter beside each value:
//  [R] ROCm, "AMD GPU specifications" (rocm.docs.amd.com/en/latest/reference/gpu-specs.html):
//      compute units, wavefront size, LDS (KiB) and VGPR file (KiB) per CU of each GPU.
//  [C] AMD, MI250X product page (amd.com/en/products/accelerators/instinct/mi200/mi250x.html):
//      220 CUs in two GCDs, 1700 MHz peak engine clock, 128 GB HBM2e.
//  [W] ROCm OpenCL runtime, github.com/ROCm/legacy-rocm-build issues 330 and 1388: ROCm's
//      OpenCL reports a largest work-group of 256 (kernels without reqd_work_group_size are
//      compiled for at most 256 work-items) and work-item sizes of 1024 in each dimension.
//  [G] AMD Radeon RX 6900 XT specifications (amd.com/en/products/graphics/amd-radeon-rx-6900-xt;
//      as tabled by guru3d's review): 80 CUs, 2250 MHz boost clock, 16 GB GDDR6.
//  [L] clang's AMDGPU backend (llvm.org/docs/AMDGPUUsage.html): wave32 is the default
//      wavefront size of GFX10 and later, wave64 of GFX9; fp64 on every GCN/RDNA target;
//      256 architectural VGPRs a lane at most (gfx90a adds 256 AGPRs, which hold spills and
//      matrix operands). Scalar registers: clang's AMDGPU backend addresses 102 SGPRs a
//      wave on GFX9 (getAddressableNumSGPRs), 106 on GFX10 and later; its resource report
//      counts VCC beside them (the 104 and 108 SGPRs of bench/results/*-compile_*.json).
//  [O] Intel GPU Occupancy Calculator (github.com/oneapi-src/oneAPI-samples,
//      Tools/GPU-Occupancy-Calculator): Xe-HPG (Arc) 16 EUs a sub-slice, 8 threads an EU, up
//      to 512 EUs, sub-groups 32/16/8, 64 KiB SLM a work-group, work-groups up to 1024;
//      Xe-HPC (Max) 8 EUs a sub-slice, up to 1024 EUs, sub-groups 32/16, 128 KiB SLM a
//      work-group, work-groups up to 1024.
//  [A] Intel ARK: Arc A770 Graphics (16 GB), 32 Xe-cores, 2100 MHz graphics clock; Data Center
//      GPU Max 1550, 128 Xe-cores, 1600 MHz max dynamic clock, 128 GB HBM2e.
//  [X] Intel oneAPI GPU Optimization Guide, "Small Register Mode vs. Large Register Mode": each
//      EU has 64 KB of registers (128 GRFs of 64 B a thread in small mode, 8 threads; 256 in
//      large mode, 4 threads) on the Max series; Xe-HPG's GRFs are 32 B (128 a thread, 8
//      threads: 32 KB an EU).
//  [I] Intel compute-runtime: single allocations above 4 GB need
//      -cl-intel-greater-than-4GB-buffer-required, so CL_DEVICE_MAX_MEM_ALLOC_SIZE is 4 GB.
//  [N] NVIDIA H100 Tensor Core GPU Architecture whitepaper and the CUDA C++ Programming Guide,
//      table of compute capability 9.0: 132 SMs (SXM5), 1980 MHz max boost, 65536 32-bit
//      registers a block, 48 KB of static shared memory a block, 1024 threads a block, warps
//      of 32, 64 KB of constant memory, 50 MB of L2, 80 GB HBM3.
//  [M] Khronos, cl_intel_subgroup_matrix_multiply_accumulate (OpenCL extension registry, rev.
//      1.1.0): the built-ins run at the device's smallest sub-group, 8 or 16. Xe-HPG (Arc) and
//      Xe-HPC (Max) have the matrix engines (XMX) behind it; their smallest sub-groups are 8 and
//      16 [O]. Debian's ocloc (IGC 1.0.12504, intel-opencl-icd 22.43) declares the built-ins
//      only where the extension's macro is defined, and does not define it for dg2 or pvc;
//      common/xconv_xmx.h declares them itself there, and ocloc's disassembly of implicit_xmx
//      shows dpas.8x8 for both (docs/guide/vendors.md).
//  [S] The OpenCL 1.2 specification, table 4.3: the minimum a conforming GPU reports (64 KB of
//      constant buffer); used where the vendor's runtime reports a value no document gives.
// The clock is the peak engine clock; peaks stay 0 (floors need measured or given peaks).
// max_registers_per_work_group stays 0 on the AMD and Intel profiles, as their OpenCL
// runtimes report no register file (the planners then plan as on the live device); their
// register files are in [R] and [X]. max_registers_per_item is what the OpenCL backend fills
// for AMD and Intel GPUs (cl/opencl_device.c); 0 on NVIDIA, as on the live device. It is the
// register file of a thread over the lanes of the SIMD width the compiler compiles at: Intel's
// IGC compiled every kernel for pvc at SIMD32 (bench/results/*-compile_standard.json, 191 of
// 191), 128 GRFs of 64 B over 32 lanes being 64 floats a lane; for dg2 it fell back to SIMD8
// where registers ran short (128 GRFs of 32 B over 8 lanes: 128 floats a lane).

#define KIB 1024ull
#define GIB (1024ull * 1024ull * 1024ull)

// Arithmetic every profiled GPU offers and our build flags (as the OpenCL backend reports).
#define GPU_FP32 (XCONV_FP_DENORM | XCONV_FP_INF_NAN | XCONV_FP_ROUND_TO_NEAREST | \
                  XCONV_FP_ROUND_TO_ZERO | XCONV_FP_ROUND_TO_INF | XCONV_FP_FMA)
#define OPENCL_FLAGS "-cl-std=CL1.2; #pragma OPENCL FP_CONTRACT OFF"

static const xconv_target targets[] = {
    {.name = "gfx90a", .product = "AMD Instinct MI250X (one GCD)", .compiler = "amdgcn",
     .arch = "gfx90a",
     .info = {.backend = XCONV_BACKEND_OPENCL, .platform = "profile", .vendor = "AMD",
              .name = "AMD Instinct MI250X (gfx90a, one GCD)", .version = "OpenCL 1.2",
              .is_gpu = true,
              .compute_units = 110,                      // [C] 220 CUs in two GCDs; [R] 110
              .clock_mhz = 1700,                         // [C]
              .global_mem_bytes = 64 * GIB,              // [C] 128 GB in two GCDs
              .local_mem_bytes = 64 * KIB,               // [R] LDS 64 KiB
              .max_alloc_bytes = 48 * GIB,               // [S] >= 1/4 of global; ROCm: ~75%
              .const_mem_bytes = 64 * KIB,               // [S]
              .cache_bytes = 8 * 1024 * KIB,             // [R] L2 8 MiB a GCD
              .max_work_group_size = 256,                // [W]
              .max_work_item_sizes = {1024, 1024, 1024}, // [W]
              .preferred_multiple = 64,                  // [R] wavefront 64; [L]
              .native_float_width = 1,
              .max_registers_per_item = 256,             // [L] 256 VGPRs a lane
              .max_scalar_registers = 102,               // [L] SGPRs a wave, GFX9
              .fp64 = true,                              // [L]
              .fp32_config = GPU_FP32, .build_flags = OPENCL_FLAGS}},
    {.name = "gfx1030", .product = "AMD Radeon RX 6900 XT", .compiler = "amdgcn",
     .arch = "gfx1030",
     .info = {.backend = XCONV_BACKEND_OPENCL, .platform = "profile", .vendor = "AMD",
              .name = "AMD Radeon RX 6900 XT (gfx1030)", .version = "OpenCL 1.2",
              .is_gpu = true,
              .compute_units = 80,                       // [R] [G]
              .clock_mhz = 2250,                         // [G] boost
              .global_mem_bytes = 16 * GIB,              // [G]
              .local_mem_bytes = 64 * KIB,               // [R] LDS 64 KiB a work-group
              .max_alloc_bytes = 12 * GIB,               // [S] >= 1/4 of global; ROCm: ~75%
              .const_mem_bytes = 64 * KIB,               // [S]
              .cache_bytes = 128 * 1024 * KIB,           // [G] Infinity Cache 128 MB
              .max_work_group_size = 256,                // [W]
              .max_work_item_sizes = {1024, 1024, 1024}, // [W]
              .preferred_multiple = 32,                  // [R] wavefront 32; [L] wave32
              .native_float_width = 1,
              .max_registers_per_item = 256,             // [L] 256 VGPRs a lane
              .max_scalar_registers = 106,               // [L] SGPRs a wave, GFX10+
              .fp64 = true,                              // [L]
              .fp32_config = GPU_FP32, .build_flags = OPENCL_FLAGS}},
    {.name = "dg2", .product = "Intel Arc A770", .compiler = "ocloc", .arch = "dg2",
     .info = {.backend = XCONV_BACKEND_OPENCL, .platform = "profile", .vendor = "Intel",
              .name = "Intel Arc A770 (dg2)", .version = "OpenCL 3.0", .is_gpu = true,
              .compute_units = 512,                      // [A] 32 Xe-cores; [O] 512 EUs
              .clock_mhz = 2100,                         // [A]
              .global_mem_bytes = 16 * GIB,              // [A]
              .local_mem_bytes = 64 * KIB,               // [O] SLM a work-group
              .max_alloc_bytes = 4 * GIB,                // [I]
              .const_mem_bytes = 64 * KIB,               // [S]
              .cache_bytes = 16 * 1024 * KIB,            // [A] L2 16 MB
              .max_work_group_size = 1024,               // [O]
              .max_work_item_sizes = {1024, 1024, 1024}, // [O]
              .preferred_multiple = 32,                  // [O] widest sub-group
              .native_float_width = 1,
              .max_registers_per_item = 128,             // [X] 128 GRFs of 32 B at SIMD8
              .fp64 = false,                             // [A] Arc has no native fp64
              .intel_mma_sub_group = 8,                  // [M] [O] XMX at sub-group 8
              .fp32_config = GPU_FP32, .build_flags = OPENCL_FLAGS}},
    {.name = "pvc", .product = "Intel Data Center GPU Max 1550", .compiler = "ocloc",
     .arch = "pvc",
     .info = {.backend = XCONV_BACKEND_OPENCL, .platform = "profile", .vendor = "Intel",
              .name = "Intel Data Center GPU Max 1550 (pvc)", .version = "OpenCL 3.0",
              .is_gpu = true,
              .compute_units = 1024,                     // [A] 128 Xe-cores; [O] 1024 EUs
              .clock_mhz = 1600,                         // [A]
              .global_mem_bytes = 128 * GIB,             // [A]
              .local_mem_bytes = 128 * KIB,              // [O] SLM a work-group
              .max_alloc_bytes = 4 * GIB,                // [I]
              .const_mem_bytes = 64 * KIB,               // [S]
              .cache_bytes = 408 * 1024 * KIB,           // [A] L2 408 MB
              .max_work_group_size = 1024,               // [O]
              .max_work_item_sizes = {1024, 1024, 1024}, // [O]
              .preferred_multiple = 16,                  // [O] sub-groups 16/32: 16 default
              .native_float_width = 1,
              .max_registers_per_item = 64,              // [X] 128 GRFs of 64 B at SIMD32
              .fp64 = true,                              // [A]
              .intel_mma_sub_group = 16,                 // [M] [O] XMX at sub-group 16
              .fp32_config = GPU_FP32, .build_flags = OPENCL_FLAGS}},
    {.name = "sm_90", .product = "NVIDIA H100 SXM5", .compiler = "nvrtc", .arch = "sm_90",
     .info = {.backend = XCONV_BACKEND_CUDA, .platform = "profile", .vendor = "NVIDIA",
              .name = "NVIDIA H100 SXM5 (sm_90)", .version = "compute capability 9.0",
              .is_gpu = true,
              .compute_units = 132,                      // [N]
              .clock_mhz = 1980,                         // [N]
              .global_mem_bytes = 80 * GIB,              // [N]
              .local_mem_bytes = 48 * KIB,               // [N] static shared a block
              .max_alloc_bytes = 80 * GIB,               // [N] one allocation: all memory
              .const_mem_bytes = 64 * KIB,               // [N]
              .cache_bytes = 50 * 1024 * KIB,            // [N]
              .local_mem_per_unit_bytes = 228 * KIB,     // [N] shared memory an SM
              .max_work_group_size = 1024,               // [N]
              .max_work_item_sizes = {1024, 1024, 64},   // [N]
              .preferred_multiple = 32,                  // [N] warp
              .native_float_width = 1,
              .max_registers_per_work_group = 65536,     // [N]
              .fp64 = true,                              // [N]
              .cc_major = 9, .cc_minor = 0,
              .fp32_config = GPU_FP32 | XCONV_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT,
              .build_flags = "--std=c++17 --fmad=false"}},
};

#define NTARGETS ((int)(sizeof targets / sizeof targets[0]))

// ---------------------------------------------------------------------------------------------
// Queries

int xconv_target_count(void)
{
    return NTARGETS;
}

const xconv_target *xconv_target_at(int i)
{
    return i >= 0 && i < NTARGETS ? &targets[i] : NULL;
}

const xconv_target *xconv_target_find(const char *name, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, name))
        return NULL;
    for (int i = 0; i < NTARGETS; i++)
        if (strcmp(targets[i].name, name) == 0)
            return &targets[i];
    char names[256] = "";
    size_t used = 0;
    for (int i = 0; i < NTARGETS && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 targets[i].name);
    xconv_error_set(err, XCONV_ERR_NOT_FOUND, "no target profile '%s' (profiles: %s)",
                    name, names);
    return NULL;
}

xconv_device *xconv_device_open_target(const xconv_target *target, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, target))
        return NULL;
    xconv_device *dev = calloc(1, sizeof *dev);
    if (!dev) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
        return NULL;
    }
    dev->info = target->info;  // no backend: plans are made, never prepared or run
    return dev;
}
