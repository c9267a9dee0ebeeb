// SPDX-License-Identifier: MIT
// The OpenCL backend's device listing: every platform's devices, their limits and status names.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "opencl_internal.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif
#ifndef CL_CONTEXT_TERMINATED_KHR
#define CL_CONTEXT_TERMINATED_KHR -1121
#endif
#ifndef CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE  // OpenCL 3.0's device query
#define CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE 0x1067
#endif

// ---------------------------------------------------------------------------------------------
// Status codes

const char *xconv_opencl_status_name(cl_int code)
{
    switch (code) {
#define NAME(c) case c: return #c;
    NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY) NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    NAME(CL_MEM_COPY_OVERLAP) NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET) NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME(CL_COMPILE_PROGRAM_FAILURE) NAME(CL_LINK_PROGRAM_FAILURE)
    NAME(CL_INVALID_VALUE) NAME(CL_INVALID_DEVICE_TYPE) NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT) NAME(CL_INVALID_QUEUE_PROPERTIES)
    NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_HOST_PTR) NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_BINARY) NAME(CL_INVALID_BUILD_OPTIONS) NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE) NAME(CL_INVALID_KERNEL_NAME)
    NAME(CL_INVALID_KERNEL_DEFINITION) NAME(CL_INVALID_KERNEL) NAME(CL_INVALID_ARG_INDEX)
    NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE) NAME(CL_INVALID_KERNEL_ARGS)
    NAME(CL_INVALID_WORK_DIMENSION) NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE) NAME(CL_INVALID_GLOBAL_OFFSET)
    NAME(CL_INVALID_EVENT_WAIT_LIST) NAME(CL_INVALID_EVENT) NAME(CL_INVALID_OPERATION)
    NAME(CL_INVALID_BUFFER_SIZE) NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_PROPERTY)
    NAME(CL_PLATFORM_NOT_FOUND_KHR) NAME(CL_CONTEXT_TERMINATED_KHR)
#undef NAME
    }
    return "unknown";
}

xconv_status xconv_opencl_status_map(cl_int code)
{
    switch (code) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
        return XCONV_ERR_OUT_OF_MEMORY;
    default:
        return XCONV_ERR_DEVICE;
    }
}

xconv_status xconv_opencl_fail(xconv_error *err, cl_int code, const char *what)
{
    return xconv_error_set(err, xconv_opencl_status_map(code), "%s failed: %s (%d)", what,
                           xconv_opencl_status_name(code), (int)code);
}

xconv_status xconv_opencl_fail_wait(xconv_error *err, cl_int code, const char *what)
{
    switch (code) {
    case CL_OUT_OF_RESOURCES:
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_INVALID_COMMAND_QUEUE:
    case CL_CONTEXT_TERMINATED_KHR:
        return xconv_error_set(err, XCONV_ERR_DEVICE_LOST,
                               "%s failed: %s (%d): a command faulted and the context is lost",
                               what, xconv_opencl_status_name(code), (int)code);
    default:
        return xconv_opencl_fail(err, code, what);
    }
}

// ---------------------------------------------------------------------------------------------
// Platforms and devices

#define NO_PLATFORM_MSG                                                                     \
    "no OpenCL platform installed: install an OpenCL driver (Debian: pocl-opencl-icd for "  \
    "CPUs, or the GPU vendor's driver) or point OCL_ICD_VENDORS at a folder of .icd files"

// Appends the devices of platform `plat` to *list; returns CL_SUCCESS or the failing code.
static cl_int add_platform_devices(cl_platform_id plat, opencl_device_list *list)
{
    cl_uint n = 0;
    cl_int rc = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (rc == CL_DEVICE_NOT_FOUND || (rc == CL_SUCCESS && n == 0))
        return CL_SUCCESS;
    if (rc != CL_SUCCESS)
        return rc;
    cl_device_id *grown = realloc(list->devices, (list->count + n) * sizeof *grown);
    cl_platform_id *plats = realloc(list->platforms, (list->count + n) * sizeof *plats);
    if (grown)
        list->devices = grown;
    if (plats)
        list->platforms = plats;
    if (!grown || !plats)
        return CL_OUT_OF_HOST_MEMORY;
    rc = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, n, list->devices + list->count, NULL);
    if (rc != CL_SUCCESS)
        return rc;
    for (cl_uint i = 0; i < n; i++)
        list->platforms[list->count + i] = plat;
    list->count += (int)n;
    return CL_SUCCESS;
}

xconv_status xconv_opencl_devices(opencl_device_list *list, xconv_error *err)
{
    *list = (opencl_device_list){0};
    cl_uint nplat = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &nplat);
    if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && nplat == 0))
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, NO_PLATFORM_MSG);
    if (rc != CL_SUCCESS)
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE, "clGetPlatformIDs failed: %s (%d)",
                               xconv_opencl_status_name(rc), (int)rc);
    cl_platform_id *plats = calloc(nplat, sizeof *plats);
    if (!plats)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
    rc = clGetPlatformIDs(nplat, plats, NULL);
    for (cl_uint i = 0; rc == CL_SUCCESS && i < nplat; i++)
        rc = add_platform_devices(plats[i], list);
    free(plats);
    if (rc != CL_SUCCESS) {
        xconv_opencl_devices_free(list);
        return xconv_error_set(err, XCONV_ERR_UNAVAILABLE,
                               "listing OpenCL devices failed: %s (%d)",
                               xconv_opencl_status_name(rc), (int)rc);
    }
    return XCONV_OK;
}

void xconv_opencl_devices_free(opencl_device_list *list)
{
    free(list->devices);
    free(list->platforms);
    *list = (opencl_device_list){0};
}

// ---------------------------------------------------------------------------------------------
// Device info

// Copies a string query of a device or platform into buf, trimmed of padding ("" on failure).
static void info_string(cl_device_id dev, cl_platform_id plat, cl_uint param, char *buf,
                        size_t len)
{
    size_t need = 0;
    buf[0] = '\0';
    cl_int rc = dev ? clGetDeviceInfo(dev, param, 0, NULL, &need)
                    : clGetPlatformInfo(plat, param, 0, NULL, &need);
    char *tmp = rc == CL_SUCCESS && need > 0 ? calloc(need + 1, 1) : NULL;
    if (!tmp)
        return;
    rc = dev ? clGetDeviceInfo(dev, param, need, tmp, NULL)
             : clGetPlatformInfo(plat, param, need, tmp, NULL);
    const char *s = tmp;
    while (*s == ' ')
        s++;
    if (rc == CL_SUCCESS)
        snprintf(buf, len, "%s", s);
    for (size_t n = strlen(buf); n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\n'); n--)
        buf[n - 1] = '\0';
    free(tmp);
}

static cl_ulong info_ulong(cl_device_id dev, cl_device_info param)
{
    cl_ulong v = 0;
    return clGetDeviceInfo(dev, param, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static cl_uint info_uint(cl_device_id dev, cl_device_info param)
{
    cl_uint v = 0;
    return clGetDeviceInfo(dev, param, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

// Returns the registers a work-item of GPU dev holds before its compiler spills, from the
// vendor's ISA documents (host/core/targets.c cites them): AMD's GCN, CDNA and RDNA address 256
// VGPRs a lane; Intel's Gen9 to Xe-HPC threads hold 128 GRFs, 128 floats a lane at SIMD8.
// 0 for other devices (no limit the planners apply).
static int registers_per_item(cl_device_id dev, bool is_gpu)
{
    cl_uint vendor = info_uint(dev, CL_DEVICE_VENDOR_ID);
    if (!is_gpu)
        return 0;
    return vendor == 0x1002 ? 256 : vendor == 0x8086 ? 128 : 0;
}

// Scalar registers a wavefront holds for values uniform over its work-items: AMD GPUs' SGPRs,
// 102 a wave on GFX9 and 106 on GFX10 and later (host/core/targets.c cites clang's AMDGPU
// backend); OpenCL does not say which, so the fewer. 0 for other devices (no scalar file the
// planners count).
static int scalar_registers(cl_device_id dev, bool is_gpu)
{
    return is_gpu && info_uint(dev, CL_DEVICE_VENDOR_ID) == 0x1002 ? 102 : 0;
}

static size_t info_size(cl_device_id dev, cl_device_info param)
{
    size_t v = 0;
    return clGetDeviceInfo(dev, param, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

// Returns true when the device lists extension `name`.
bool xconv_opencl_has_extension(cl_device_id dev, const char *name)
{
    size_t need = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &need) != CL_SUCCESS || need == 0)
        return false;
    char *ext = calloc(need + 1, 1);
    bool found = ext && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, need, ext, NULL) == CL_SUCCESS
                 && strstr(ext, name) != NULL;
    free(ext);
    return found;
}

// Returns true when the device does double precision (an fp config, or cl_khr_fp64 listed).
static bool device_fp64(cl_device_id dev)
{
    return info_ulong(dev, CL_DEVICE_DOUBLE_FP_CONFIG) != 0 ||
           xconv_opencl_has_extension(dev, "cl_khr_fp64");
}

// Returns the sub-group size at which the device runs Intel's sub-group matrix multiply-
// accumulate: its smallest sub-group (CL_DEVICE_SUB_GROUP_SIZES_INTEL), as the extension's
// built-ins require; 0 without cl_intel_subgroup_matrix_multiply_accumulate or a size of 8 or 16.
static int intel_mma_sub_group(cl_device_id dev)
{
    if (!xconv_opencl_has_extension(dev, "cl_intel_subgroup_matrix_multiply_accumulate"))
        return 0;
    size_t sizes[16] = {0}, bytes = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &bytes) !=
        CL_SUCCESS)
        return 0;
    size_t smallest = 0;
    for (size_t i = 0; i < bytes / sizeof sizes[0] && i < 16; i++)
        if (sizes[i] && (!smallest || sizes[i] < smallest))
            smallest = sizes[i];
    return smallest == 8 || smallest == 16 ? (int)smallest : 0;
}

// Returns the device's CL_DEVICE_SINGLE_FP_CONFIG as XCONV_FP_* bits.
static unsigned fp32_config(cl_device_id dev)
{
    static const struct {
        cl_device_fp_config cl;
        unsigned bit;
    } bits[] = {
        {CL_FP_DENORM, XCONV_FP_DENORM},
        {CL_FP_INF_NAN, XCONV_FP_INF_NAN},
        {CL_FP_ROUND_TO_NEAREST, XCONV_FP_ROUND_TO_NEAREST},
        {CL_FP_ROUND_TO_ZERO, XCONV_FP_ROUND_TO_ZERO},
        {CL_FP_ROUND_TO_INF, XCONV_FP_ROUND_TO_INF},
        {CL_FP_FMA, XCONV_FP_FMA},
        {CL_FP_SOFT_FLOAT, XCONV_FP_SOFT_FLOAT},
        {CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, XCONV_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT},
    };
    cl_ulong config = info_ulong(dev, CL_DEVICE_SINGLE_FP_CONFIG);
    unsigned out = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (config & bits[i].cl)
            out |= bits[i].bit;
    return out;
}

// Fills everything but preferred_multiple from the device's own queries.
static void fill_info(cl_device_id dev, cl_platform_id plat, int index, xconv_device_info *info)
{
    *info = (xconv_device_info){.backend = XCONV_BACKEND_OPENCL, .backend_index = index};
    info_string(NULL, plat, CL_PLATFORM_NAME, info->platform, sizeof info->platform);
    info_string(dev, NULL, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    info_string(dev, NULL, CL_DEVICE_NAME, info->name, sizeof info->name);
    info_string(dev, NULL, CL_DRIVER_VERSION, info->driver, sizeof info->driver);
    info_string(dev, NULL, CL_DEVICE_VERSION, info->version, sizeof info->version);
    cl_device_type type = info_ulong(dev, CL_DEVICE_TYPE);
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    info->compute_units = (int)info_uint(dev, CL_DEVICE_MAX_COMPUTE_UNITS);
    info->clock_mhz = (int)info_uint(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    info->global_mem_bytes = info_ulong(dev, CL_DEVICE_GLOBAL_MEM_SIZE);
    info->local_mem_bytes = info_ulong(dev, CL_DEVICE_LOCAL_MEM_SIZE);
    info->max_alloc_bytes = info_ulong(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    info->const_mem_bytes = info_ulong(dev, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    info->cache_bytes = info_ulong(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    info->max_work_group_size = info_size(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    info->native_float_width = (int)info_uint(dev, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
    size_t sizes[16] = {0};
    cl_uint dims = info_uint(dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    if (dims > 16)
        dims = 16;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), sizes, NULL);
    for (int d = 0; d < 3; d++)
        info->max_work_item_sizes[d] = (cl_uint)d < dims ? sizes[d] : 1;
    info->fp64 = device_fp64(dev);
    // NVIDIA's cl_nv_device_attribute_query reports the register file a work-group may use;
    // other devices do not say (0).
    // Its compute capability says which tensor-core instructions inline PTX may use.
    if (xconv_opencl_has_extension(dev, "cl_nv_device_attribute_query")) {
        info->max_registers_per_work_group =
            (int)info_uint(dev, CL_DEVICE_REGISTERS_PER_BLOCK_NV);
        info->cc_major = (int)info_uint(dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
        info->cc_minor = (int)info_uint(dev, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
    }
    info->intel_mma_sub_group = intel_mma_sub_group(dev);
    info->max_registers_per_item = registers_per_item(dev, info->is_gpu);
    info->max_scalar_registers = scalar_registers(dev, info->is_gpu);
    info->fp32_config = fp32_config(dev);
    snprintf(info->build_flags, sizeof info->build_flags, "%s", XCONV_OPENCL_BUILD_FLAGS);
}

// A kernel that touches memory, built only to ask the compiler its preferred group multiple.
static const char probe_source[] =
    "__kernel void xconv_probe(__global float *x) { x[get_global_id(0)] += 1.0f; }\n";

// Sets preferred_multiple of the n infos for devices devs (all of platform plat) from one
// build of the probe kernel; returns false when the context or the build failed.
static bool probe_preferred_multiples(cl_platform_id plat, const cl_device_id *devs, cl_uint n,
                                      xconv_device_info *infos)
{
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_int rc;
    cl_context context = clCreateContext(props, n, devs, NULL, NULL, &rc);
    if (!context)
        return false;
    const char *src = probe_source;
    cl_program prog = clCreateProgramWithSource(context, 1, &src, NULL, &rc);
    cl_kernel kernel = NULL;
    if (prog && clBuildProgram(prog, n, devs, "", NULL, NULL) == CL_SUCCESS)
        kernel = clCreateKernel(prog, "xconv_probe", &rc);
    for (cl_uint i = 0; kernel && i < n; i++) {
        size_t multiple = 0;
        rc = clGetKernelWorkGroupInfo(kernel, devs[i],
                                      CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                      sizeof multiple, &multiple, NULL);
        if (rc == CL_SUCCESS && multiple > 0)
            infos[i].preferred_multiple = multiple;
    }
    bool ok = kernel != NULL;
    if (kernel)
        clReleaseKernel(kernel);
    if (prog)
        clReleaseProgram(prog);
    clReleaseContext(context);
    return ok;
}

// Sets preferred_multiple of the n infos: OpenCL 3.0's device query where every device answers
// it (no build: a probe costs 20 ms of a 50 ms `xconv run` on PoCL), else one probe build for the
// whole platform, else one per device; a device where all fail keeps 1 (no preference known).
static void fill_preferred_multiples(cl_platform_id plat, const cl_device_id *devs, cl_uint n,
                                     xconv_device_info *infos)
{
    cl_uint answered = 0;
    for (cl_uint i = 0; i < n; i++) {
        infos[i].preferred_multiple = info_size(devs[i],
                                                CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
        answered += infos[i].preferred_multiple > 0;
    }
    if (answered == n)
        return;
    for (cl_uint i = 0; i < n; i++)
        infos[i].preferred_multiple = 1;
    if (probe_preferred_multiples(plat, devs, n, infos) || n == 1)
        return;
    for (cl_uint i = 0; i < n; i++)
        probe_preferred_multiples(plat, devs + i, 1, infos + i);
}

xconv_status xconv_opencl_enumerate(xconv_device_info *infos, int max, int *count,
                                    xconv_error *err)
{
    *count = 0;
    opencl_device_list list;
    xconv_status st = xconv_opencl_devices(&list, err);
    if (st != XCONV_OK)
        return st;
    xconv_device_info *all = calloc(list.count > 0 ? (size_t)list.count : 1, sizeof *all);
    if (!all) {
        xconv_opencl_devices_free(&list);
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    for (int i = 0; i < list.count; i++)
        fill_info(list.devices[i], list.platforms[i], i, &all[i]);
    // One probe build per platform, over that platform's run of devices.
    for (int start = 0, end; start < list.count; start = end) {
        for (end = start + 1; end < list.count && list.platforms[end] == list.platforms[start];)
            end++;
        fill_preferred_multiples(list.platforms[start], list.devices + start,
                                 (cl_uint)(end - start), all + start);
    }
    for (int i = 0; i < list.count && i < max; i++)
        infos[i] = all[i];
    *count = list.count;
    free(all);
    xconv_opencl_devices_free(&list);
    return XCONV_OK;
}
