// SPDX-License-Identifier: MIT
// The OpenCL backend's context and buffer structs and the helpers its files share (internal).
#ifndef XCONV_OPENCL_INTERNAL_H
#define XCONV_OPENCL_INTERNAL_H

#include <CL/cl.h>
#include <stdbool.h>

#include "../host/core/backend.h"
#include "opencl_delay.h"

// What the device info says of the build: XCONV_OPENCL_BUILD_OPTIONS (host/core/backend.h) and the
// dialect's contraction setting (common/xconv_dialect.h).
#define XCONV_OPENCL_BUILD_FLAGS XCONV_OPENCL_BUILD_OPTIONS "; #pragma OPENCL FP_CONTRACT OFF"

// A copy of part of a buffer for a constant argument at an offset, or a sub-buffer from an
// offset to the end for a buffer argument at an offset; made on first use.
typedef struct opencl_view {
    size_t offset, bytes;
    bool sub;                   // a sub-buffer (shares the memory), not a copy
    cl_mem mem;
    struct opencl_view *next;
} opencl_view;

// A device buffer (the core keeps the registry and checks ranges).
struct xconv_backend_buffer {
    cl_mem mem;
    size_t bytes;               // the size asked for (at least 4 are allocated)
    opencl_view *views;         // copies for constant arguments and sub-buffers at an offset
};

typedef struct opencl_context {
    cl_platform_id platform;    // the device's platform (a rebuilt context is made on it)
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    uint64_t max_alloc_bytes;   // CL_DEVICE_MAX_MEM_ALLOC_SIZE
    uint64_t const_mem_bytes;   // CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE
    cl_uint base_align_bytes;   // CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: sub-buffer origins
    xconv_backend_program *delay_program;  // cl/timer_delay.cl: marks timed regions' starts
    cl_kernel delay_kernel;
    cl_mem delay_sink;          // the one word it writes
    int delay_mode;             // an xconv_timing_delay: whether regions start with a delay
    xconv_delay delay;          // its calibration (kept over a reset: the device is the same)
    cl_event timer_event;       // the start kernel timer_start enqueued, NULL outside a region
    bool region_delayed;        // the region opened with a delay of ctx->delay.iters steps
    double region_host_start_ns;  // the host's clock just before it enqueued that delay
    bool region_events;         // commands in a timed region keep their events (CPU devices)
    cl_event region_last;       // then the event of the region's latest command, NULL before one
    bool clock_checked;         // the profiling clock was seen to advance (first timer_start)
    bool nv_register_cap;       // the compiler takes -cl-nv-maxrregcount (cl_nv_compiler_options)
} opencl_context;

// Every device of every platform, in enumeration order (the index is backend_index).
typedef struct opencl_device_list {
    cl_device_id *devices;
    cl_platform_id *platforms;  // the platform of each device
    int count;
} opencl_device_list;

// Fills *list; returns XCONV_ERR_UNAVAILABLE with the reason when no platform is installed.
xconv_status xconv_opencl_devices(opencl_device_list *list, xconv_error *err);

// Frees what xconv_opencl_devices allocated.
void xconv_opencl_devices_free(opencl_device_list *list);

// The `enumerate` slot (cl/opencl_device.c).
xconv_status xconv_opencl_enumerate(xconv_device_info *infos, int max, int *count,
                                    xconv_error *err);

// The `advice` slot (cl/opencl_advice.c): one line per installed platform that lists no device,
// saying how to enable Rusticl's; "" when every platform lists a device.
void xconv_opencl_advice(char *buf, size_t len);

// Returns true when the device lists extension `name`.
bool xconv_opencl_has_extension(cl_device_id dev, const char *name);

// Returns the name of an OpenCL status code ("CL_INVALID_WORK_GROUP_SIZE"), or "unknown".
const char *xconv_opencl_status_name(cl_int code);

// Returns the xconv status an OpenCL error maps to: allocation failures and out-of-resources
// give XCONV_ERR_OUT_OF_MEMORY, everything else XCONV_ERR_DEVICE.
xconv_status xconv_opencl_status_map(cl_int code);

// Fills err with "<what> failed: NAME (code)" under the mapped status; returns that status.
xconv_status xconv_opencl_fail(xconv_error *err, cl_int code, const char *what);

// As xconv_opencl_fail for a call that waits for commands to complete (clFinish, a blocking
// copy, an event wait), where CL_OUT_OF_RESOURCES, a failed command in the wait list, an
// unavailable device, a terminated context or a queue gone invalid mean that a command faulted
// and the context is lost: XCONV_ERR_DEVICE_LOST.
xconv_status xconv_opencl_fail_wait(xconv_error *err, cl_int code, const char *what);

// Writes "OpenCL 3.0 PoCL 3.1 (Portable Computing Language), CLBlast 1.5.3" for the context's
// platform into buf (the `libraries` slot, cl/opencl_clblast.c for CLBlast's part).
void xconv_opencl_libraries(void *ctx, char *buf, size_t len);

// The vendor slots, in cl/opencl_clblast.c (CLBlast).
xconv_status xconv_opencl_sgemm(void *ctx, const xconv_gemm_args *args, xconv_error *err);
bool xconv_opencl_conv_supports(void *ctx, const char *algo, const xconv_problem *p,
                                size_t *workspace_bytes, char *reason, size_t reason_len);
xconv_status xconv_opencl_conv(void *ctx, const char *algo, const xconv_problem *p,
                               const xconv_vendor_conv_buffers *b, xconv_error *err);

// On CPU devices every command inside a timed region keeps its event, so that the region ends
// where its last command ended. Returns `ev` (set to NULL) then, to pass as the command's event,
// and NULL otherwise.
cl_event *xconv_opencl_region_slot(opencl_context *ctx, cl_event *ev);

// Takes ev (NULL is fine): inside a region on a CPU device it becomes the region's last command,
// replacing the one before; otherwise it is released.
void xconv_opencl_region_note(opencl_context *ctx, cl_event ev);

// The timer slots (cl/opencl_timer.c): timer_start, timer_stop, and timer_delay (mode: an
// xconv_timing_delay). xconv_opencl_timer_release ends any region and frees the start kernel
// (before the queue and context go); the calibration is kept.
xconv_status xconv_opencl_timer_start(void *vctx, xconv_error *err);
xconv_status xconv_opencl_timer_stop(void *vctx, double *ms, xconv_error *err);
void xconv_opencl_timer_mode(void *vctx, int mode);
void xconv_opencl_timer_release(opencl_context *ctx);

// Drops CLBlast's process-wide caches of compiled kernels; called when the last context closes,
// since those caches hold references to the context's programs.
void xconv_opencl_clblast_release(void);

// ---------------------------------------------------------------------------------------------
// Built programs, their kernel objects and launches (cl/opencl_programs.c)

// A kernel object created from a program, kept for the program's life.
typedef struct opencl_kernel {
    char *name;
    cl_kernel kernel;
    cl_uint nargs;
    struct opencl_kernel *next;
} opencl_kernel;

// A built program and the kernel objects made from it.
struct xconv_backend_program {
    cl_program program;
    opencl_kernel *kernels;
};

// The program slots of the backend's table: free, build (the whole log in *log on failure),
// and the ones below.
void xconv_opencl_program_free(void *vctx, xconv_backend_program *prog);
xconv_status xconv_opencl_program_build(void *vctx, const char *source, const char *options,
                                        xconv_backend_program **out, char **log, xconv_error *err);

// OpenCL builds are thread-safe by the standard; Oclgrind's runtime crashes when two threads
// build at once, so its programs are built one at a time.
bool xconv_opencl_builds_concurrently(void *vctx);

// The program's binary for the context's device (what clCreateProgramWithBinary takes).
xconv_status xconv_opencl_program_binary(void *vctx, xconv_backend_program *prog, void **data,
                                         size_t *len, xconv_error *err);

// Makes a program from a binary of the context's device, built with the same options.
xconv_status xconv_opencl_program_load(void *vctx, const void *data, size_t len,
                                       const char *options, xconv_backend_program **out,
                                       xconv_error *err);

// The options every program gets beside its defines, for the keys of stored binaries.
void xconv_opencl_compiler_id(void *vctx, char *buf, size_t len);

// The launch slot: enqueues kernel l->kernel of prog with l's arguments and geometry on the
// context's queue; returns XCONV_OK, or XCONV_ERR_INVALID naming a bad kernel, argument or
// size, or the enqueue's failure explained with the kernel's limits.
xconv_status xconv_opencl_launch(void *vctx, xconv_backend_program *prog,
                                 const xconv_launch *l, xconv_error *err);

// Compiles text with options for the context's device; returns XCONV_OK and the program in
// *out, or XCONV_ERR_BUILD with the log (the whole of it in *log, when log is not NULL).
xconv_status xconv_opencl_compile(opencl_context *ctx, const char *text, const char *options,
                                  cl_program *out, char **log, xconv_error *err);

#endif // XCONV_OPENCL_INTERNAL_H
