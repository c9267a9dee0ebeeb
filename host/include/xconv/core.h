// SPDX-License-Identifier: MIT
// xconv's core: the version, the contract every call keeps, status and errors, devices
// (backends, listing, opening, target profiles) and buffers of device memory.
#ifndef XCONV_PUBLIC_CORE_H
#define XCONV_PUBLIC_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xconv/visibility.h>

XCONV_API_BEGIN

#define XCONV_VERSION "0.1.0"

// The contract of every function of xconv's headers (scripts/gen_contract_test.py checks it on
// each one):
// - A pointer argument may be NULL only where its comment says so ("NULL: defaults", "when not
//   NULL", "NULL is ignored"; err is always optional). Any other NULL is refused before any
//   work: a call returning a status returns XCONV_ERR_INVALID with "xconv_fn: ARG is NULL" in
//   err; a constructor or lookup returns NULL (err filled the same way); a query returns its
//   safe value: false, 0, NULL, "" (summaries), NaN (reference elements), -1 (calls that write
//   into buf); a call returning nothing does nothing.
// - Sizes, indices, enum values and descriptors out of their range are refused the same way
//   (XCONV_ERR_INVALID, NULL, false, 0 or NaN), never read past.
// - Buffers belong to the device they were created on: a run given a buffer of another device
//   fails with XCONV_ERR_INVALID.
// - No success without a result: XCONV_OK means the outputs were written.
// - xconv_plan_create, xconv_auto_choose, xconv_forward and xconv_convolve clear err (XCONV_OK,
//   "") when they succeed; other calls leave err alone on success.

// The git commit the library was built from ("abc123def456", "-dirty" appended when tracked
// files differed from it, "unknown" outside a checkout).
const char *xconv_git_commit(void);

// ---------------------------------------------------------------------------------------------
// Status and errors

// Every call that can fail returns one of these; 0 is success, errors are negative.
typedef enum xconv_status {
    XCONV_OK = 0,
    XCONV_ERR_INVALID = -1,        // a bad argument or descriptor
    XCONV_ERR_PARSE = -2,          // a malformed shape string, option value or file
    XCONV_ERR_IO = -3,             // a file could not be read or written
    XCONV_ERR_NOT_APPLICABLE = -4, // the variant does not handle this problem on this device
    XCONV_ERR_UNAVAILABLE = -5,    // a backend, library or device is not present
    XCONV_ERR_OUT_OF_MEMORY = -6,  // an allocation failed or passes the device's limit
    XCONV_ERR_BUILD = -7,          // a kernel failed to compile (the message holds the log)
    XCONV_ERR_DEVICE = -8,         // a runtime call on the device failed
    XCONV_ERR_NOT_FOUND = -9,      // an unknown name (variant, device, suite)
    XCONV_ERR_DEVICE_LOST = -10,   // a sticky fault: the device's context must be reopened
} xconv_status;

// Returns a short fixed description of a status ("invalid argument").
const char *xconv_status_to_string(xconv_status status);

// The room of an error's message: a short one (a longer one is cut, ending in "..."). What does
// not fit has its own call: a failed build's whole compiler log, xconv_device_build_log.
#define XCONV_ERROR_MSG_LEN 512

// A message filled by a failing call; the caller owns it and prints it (the library never
// prints). Small enough for the stack.
typedef struct xconv_error {
    xconv_status status;
    char msg[XCONV_ERROR_MSG_LEN];
} xconv_error;

// Fills *err (when not NULL) with status and a printf-style message (cut to fit, ending in
// "..."); returns status.
xconv_status xconv_error_set(xconv_error *err, xconv_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// Prepends "context: " to an already filled message; returns err->status.
xconv_status xconv_error_prefix(xconv_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef struct xconv_device_info xconv_device_info;

// Opaque handles.
typedef struct xconv_device xconv_device;    // an open device: one queue (OpenCL) or stream (CUDA)
typedef struct xconv_buffer xconv_buffer;    // device memory of one device

// ---------------------------------------------------------------------------------------------
// Devices

typedef enum xconv_backend_kind {
    XCONV_BACKEND_OPENCL = 0,
    XCONV_BACKEND_CUDA = 1,
    XCONV_BACKEND_COUNT
} xconv_backend_kind;

// Returns "opencl" or "cuda".
const char *xconv_backend_name(xconv_backend_kind kind);

// What a device reports about itself; the planner reads its limits from here.
struct xconv_device_info {
    xconv_backend_kind backend;
    int backend_index;           // index among this backend's devices
    char platform[128];          // OpenCL platform name, or "CUDA"
    char vendor[128];
    char name[256];
    char driver[128];            // driver version string
    char version[128];           // OpenCL version or CUDA runtime/compute capability text
    bool is_gpu, is_cpu;
    int compute_units;
    int clock_mhz;
    uint64_t global_mem_bytes;
    uint64_t local_mem_bytes;    // local (shared) memory per work-group
    uint64_t max_alloc_bytes;    // largest single buffer
    uint64_t const_mem_bytes;    // largest constant buffer
    uint64_t cache_bytes;        // last-level cache (0 when unknown)
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    size_t preferred_multiple;   // preferred work-group size multiple (warp/wavefront/SIMD width)
    int native_float_width;      // native float vector width (OpenCL; 1 on GPUs, CUDA: 1)
    int max_registers_per_work_group;  // 32-bit registers one work-group may hold (CUDA's
                                       // MAX_REGISTERS_PER_BLOCK, OpenCL's NVIDIA extension);
                                       // 0 when the device does not say (other OpenCL devices)
    int max_registers_per_item;  // 32-bit registers one work-item holds before its compiler
                                 // spills: AMD a lane's VGPRs, Intel a thread's GRFs over the
                                 // lanes of the SIMD width IGC compiles at; 0 when unknown
                                 // (NVIDIA: ptxas keeps our plans in 255); the planners keep
                                 // the values they count under it (docs/guide/vendors.md)
    int max_scalar_registers;    // 32-bit scalar registers a wavefront holds for values
                                 // uniform over its work-items (AMD's SGPRs) before its
                                 // compiler spills them; 0 where the device has none or does
                                 // not say (the direct planners count their filter taps in it)
    bool fp64;
    int cc_major, cc_minor;      // NVIDIA compute capability (CUDA, NVIDIA's OpenCL); else 0
    int intel_mma_sub_group;     // the sub-group size at which the device runs Intel's
                                 // matrix engines (cl_intel_subgroup_matrix_multiply_
                                 // accumulate: its smallest sub-group, 8 on Xe-HPG, 16 on
                                 // Xe-HPC); 0 when it does not report the extension
    double peak_gflops;          // measured or configured fp32 peak, 0 when unknown
    double peak_gbps;            // measured or configured memory bandwidth, 0 when unknown
    // The arithmetic our kernels get: XCONV_FP_* bits (OpenCL: the device's
    // CL_DEVICE_SINGLE_FP_CONFIG; CUDA: what the hardware and the backend's NVRTC flags give),
    // and the compiler options and contraction setting every xconv kernel is built with.
    unsigned fp32_config;
    char build_flags[192];       // "-cl-std=CL1.2; #pragma OPENCL FP_CONTRACT OFF"
    uint64_t local_mem_per_unit_bytes;  // local memory one compute unit holds for all its
                                        // work-groups (CUDA's MAX_SHARED_MEMORY_PER_
                                        // MULTIPROCESSOR; NVIDIA's OpenCL takes CUDA's value
                                        // for the same GPU); 0 when the device does not say
};

// Bits of xconv_device_info.fp32_config (the values of OpenCL's CL_FP_* flags).
enum {
    XCONV_FP_DENORM = 1u << 0,          // denormals are kept (not flushed to zero)
    XCONV_FP_INF_NAN = 1u << 1,         // Inf and NaN are supported
    XCONV_FP_ROUND_TO_NEAREST = 1u << 2,
    XCONV_FP_ROUND_TO_ZERO = 1u << 3,
    XCONV_FP_ROUND_TO_INF = 1u << 4,
    XCONV_FP_FMA = 1u << 5,             // fused multiply-add in hardware
    XCONV_FP_SOFT_FLOAT = 1u << 6,      // basic operations are done in software
    XCONV_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT = 1u << 7,
};

typedef struct xconv_devices xconv_devices;  // the devices the backends listed, at one moment

// Every backend built in, for xconv_devices_enumerate.
#define XCONV_BACKENDS_ALL (~0u)

// Lists the devices of the backends whose XCONV_BACKEND_BIT is set in `backends`
// (XCONV_BACKENDS_ALL: every one; starting a backend costs time: CUDA's cuInit, every OpenCL
// platform's driver); the others record "not listed", and a backend that lists no device records
// why. Read the snapshot by count and index; free it with xconv_devices_free. Selectors that
// name a backend ("opencl:1") select in a partial list as in a full one. Returns NULL only
// without host memory (XCONV_ERR_OUT_OF_MEMORY).
xconv_devices *xconv_devices_enumerate(unsigned backends, xconv_error *err);

// Frees a snapshot from xconv_devices_enumerate; NULL is ignored.
void xconv_devices_free(xconv_devices *devs);

// Returns the number of devices listed (0 for NULL).
int xconv_devices_count(const xconv_devices *devs);

// Returns device `index` (0 <= index < xconv_devices_count), valid until devs is freed; NULL
// past the last.
const xconv_device_info *xconv_devices_info_at(const xconv_devices *devs, int index);

// Returns XCONV_OK when backend `kind` was listed, else why it listed no device (a status, the
// reason written into `reason`, len bytes: "not listed", "not built in ...", the backend's
// failure); XCONV_ERR_INVALID for a NULL devs or reason or an unknown kind.
xconv_status xconv_devices_backend_status(const xconv_devices *devs, xconv_backend_kind kind,
                                          char *reason, size_t len);

// Writes lines of advice about what of backend `kind` is installed but lists no device into buf
// (len bytes; "" when none); returns their length, as snprintf does, or -1 for bad arguments.
int xconv_devices_backend_advice(const xconv_devices *devs, xconv_backend_kind kind, char *buf,
                                 size_t len);

// Finds the device that `selector` names in devs: a global index ("0"), a backend and index
// ("opencl:1", "cuda:0") or a case-insensitive substring of the name, platform, vendor or
// version ("pocl", "h100"); NULL or "" picks the first GPU, else the first CPU device. Returns
// its index, or a negative status with a message listing the valid choices.
int xconv_devices_select(const xconv_devices *devs, const char *selector, xconv_error *err);

// Lists the devices, selects one by `selector` (as xconv_devices_select) and opens it; returns
// NULL and fills err on failure.
xconv_device *xconv_device_open(const char *selector, xconv_error *err);

// Opens the device described by info (an entry of xconv_devices_info_at); returns NULL and
// fills err on failure. A CUDA device's context is made on a thread of the library's while the
// caller goes on (planning and compiling need none): the first call that uses the context waits
// for it, and reports the failure to make it; closing waits for it too.
xconv_device *xconv_device_open_info(const xconv_device_info *info, xconv_error *err);

// ---------------------------------------------------------------------------------------------
// Target profiles: GPUs described from their vendors' documentation (host/core/targets.c cites each
// value), for planning and compile checks on a machine without them

typedef struct xconv_target {
    const char *name;        // "gfx90a", "gfx1030", "dg2", "pvc", "sm_90"
    const char *product;     // "AMD Instinct MI250X (one GCD)"
    const char *compiler;    // the vendor compiler that checks it: "amdgcn", "ocloc" or "nvrtc"
    const char *arch;        // that compiler's target: "gfx90a", "dg2", "sm_90"
    xconv_device_info info;  // the limits, as the device itself reports them
} xconv_target;

// Returns the number of profiles, and profile i (NULL past the last).
int xconv_target_count(void);
const xconv_target *xconv_target_at(int i);

// Returns the profile named `name`, or NULL with XCONV_ERR_NOT_FOUND listing the names.
const xconv_target *xconv_target_find(const char *name, xconv_error *err);

// Opens a device that only plans: it has the profile's limits and no backend, so plans made on
// it are the plans the device would get; preparing or running them, and buffers, fail with
// XCONV_ERR_UNAVAILABLE. With a cache attached, xconv_plans_build compiles a CUDA profile's
// plans into it (NVRTC, no GPU) and xconv_cache_export_kernels/_import_kernels take it for the
// devices of its architecture. Close it with xconv_device_close. Returns NULL without host
// memory.
xconv_device *xconv_device_open_target(const xconv_target *target, xconv_error *err);

// Waits for the device, frees every buffer and program it still holds and closes it; NULL is
// ignored. Plans made on it must not run afterwards (destroying them is still fine).
void xconv_device_close(xconv_device *dev);

// Returns what the device reports about itself (valid while it is open).
const xconv_device_info *xconv_device_get_info(const xconv_device *dev);

// Writes the short label "opencl:0 NVIDIA H100 80GB HBM3" of info into buf (len bytes).
void xconv_device_label(const xconv_device_info *info, char *buf, size_t len);

// Waits until everything enqueued on the device has finished; returns its status.
xconv_status xconv_device_wait(xconv_device *dev, xconv_error *err);

// A fault that breaks the device's context (a kernel's illegal address on CUDA, a lost device
// on OpenCL) fails the call that meets it with XCONV_ERR_DEVICE_LOST, and the library rebuilds
// the context at once where the backend can (OpenCL): buffers made before are lost (any use of
// them fails with XCONV_ERR_DEVICE_LOST; destroying them is still fine), plans stay valid and
// build their programs again when they next run. Returns how many times dev's context was
// rebuilt since it was opened: a caller compares it with the count when it uploaded its data.
unsigned xconv_device_resets(const xconv_device *dev);

// Returns true when dev is lost for good: a fault broke its context and it cannot be rebuilt in
// this process (CUDA after a sticky error: the driver recovers only in a new process). Every
// call on it then fails with XCONV_ERR_DEVICE_LOST saying so, without touching the device;
// destroying its buffers and plans and closing it are safe. A caller that must go on runs the
// rest of its work in a new process (the CLI does: docs/guide/reading-results.md).
bool xconv_device_lost(const xconv_device *dev);

// Writes the versions of the software dev runs on into buf (len bytes): the OpenCL platform's
// and CLBlast's, or the CUDA driver's, NVRTC's, cuBLAS's and cuDNN's (loading those libraries
// to ask them); "" when the backend says nothing. Returns the length written.
int xconv_device_libraries(xconv_device *dev, char *buf, size_t len);

// Writes the whole compiler log of the last build on dev that failed (an XCONV_ERR_BUILD's
// message holds only its start) into buf (len bytes, cut to fit); returns the log's length, as
// snprintf does: 0 when no build on dev has failed, -1 for a NULL dev or buf.
int xconv_device_build_log(const xconv_device *dev, char *buf, size_t len);

// Returns the milliseconds spent building programs on dev since it was opened or last reset.
double xconv_device_compile_ms(const xconv_device *dev);

// Sets dev's accumulated build time back to 0.
void xconv_device_reset_compile_ms(xconv_device *dev);

// ---------------------------------------------------------------------------------------------
// Buffers (device memory; the library keeps each device's registry and checks every range)

// Allocates `bytes` of device memory on dev; returns NULL with XCONV_ERR_OUT_OF_MEMORY past the
// device's limits (the message gives them).
xconv_buffer *xconv_buffer_create(xconv_device *dev, size_t bytes, xconv_error *err);

// Frees a buffer (after the work enqueued on it); NULL is ignored.
void xconv_buffer_destroy(xconv_buffer *buf);

// Returns the size buf was created with, in bytes (0 for NULL).
size_t xconv_buffer_size(const xconv_buffer *buf);

// Copies `bytes` from host memory src into buf at byte `offset`, blocking until done; returns
// XCONV_ERR_INVALID when the range passes the buffer.
xconv_status xconv_buffer_upload(xconv_buffer *buf, size_t offset, size_t bytes, const void *src,
                                 xconv_error *err);

// Copies `bytes` of buf from byte `offset` into host memory dst, blocking until done; returns
// XCONV_ERR_INVALID when the range passes the buffer.
xconv_status xconv_buffer_download(xconv_buffer *buf, size_t offset, size_t bytes, void *dst,
                                   xconv_error *err);

// Enqueues a fill of the first `count` floats of buf with value (NaN poisons an output);
// returns XCONV_ERR_INVALID when they pass the buffer.
xconv_status xconv_buffer_fill_f32(xconv_buffer *buf, size_t count, float value,
                                   xconv_error *err);

XCONV_API_END

#endif // XCONV_PUBLIC_CORE_H
