// SPDX-License-Identifier: MIT
// The devices the backends list (a snapshot, read by count and index) and selection by index,
// backend and index, or name.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contract.h"
#include "core/device.h"

#define MAX_DEVICES 64

// Every backend's devices, with a backend's failure kept when it listed nothing.
struct xconv_devices {
    xconv_device_info devices[MAX_DEVICES];
    int count;
    // Per backend: XCONV_OK, or why it listed no device ("cuda: unavailable (no libcuda.so.1)").
    xconv_status backend_status[XCONV_BACKEND_COUNT];
    char backend_reason[XCONV_BACKEND_COUNT][512];
    // Per backend: lines of advice on installed parts that list no device ("" when none).
    char backend_advice[XCONV_BACKEND_COUNT][1024];
};

// ---------------------------------------------------------------------------------------------
// Listing

// Lists backend `kind`'s devices into list, or records why it listed none.
static void list_backend(xconv_devices *list, int kind, unsigned backends)
{
    const xconv_backend_iface *be = xconv_backend_get((xconv_backend_kind)kind);
    char *reason = list->backend_reason[kind];
    size_t reason_len = sizeof list->backend_reason[kind];
    if (!(backends & XCONV_BACKEND_BIT(kind))) {
        list->backend_status[kind] = XCONV_ERR_UNAVAILABLE;
        snprintf(reason, reason_len, "not listed");
        return;
    }
    if (!be) {
        list->backend_status[kind] = XCONV_ERR_UNAVAILABLE;
        snprintf(reason, reason_len, "not built in (configure with -DXCONV_%s=ON)",
                 kind == XCONV_BACKEND_CUDA ? "CUDA" : "OPENCL");
        return;
    }
    xconv_error err = {0};  // one message per backend, copied out below
    int count = 0;
    int room = MAX_DEVICES - list->count;
    xconv_status st = be->enumerate(list->devices + list->count, room, &count, &err);
    list->backend_status[kind] = st;
    if (be->advice)
        be->advice(list->backend_advice[kind], sizeof list->backend_advice[kind]);
    if (st != XCONV_OK) {
        snprintf(reason, reason_len, "%s", err.msg);
        return;
    }
    if (count == 0)
        snprintf(reason, reason_len, "no devices");
    list->count += count < room ? count : room;
}

// NVIDIA's OpenCL reports CL_DEVICE_GLOBAL_MEM_CACHE_SIZE as its SMs' L1 caches together (4.1
// MiB on an H100: 132 x 32 KiB), not the L2 that keeps data between kernels (50 MiB, which
// CUDA's driver reports). Timing sizes its rotating input sets by the last-level cache, so
// through OpenCL a layer of 9 to 100 MB ran from a warm L2 where CUDA's runs did not
// (MobileNet-v2's 24 MB b7 depthwise layer timed 1.5x faster through OpenCL for that alone).
// An OpenCL GPU with the same name and compute capability as a CUDA device takes that device's
// cache size where it is larger; the CUDA backend is asked for its devices here when the list
// left it out.
static void share_cache_sizes(xconv_devices *list, unsigned backends)
{
    bool nvidia_opencl = false;
    for (int i = 0; i < list->count; i++)
        nvidia_opencl |= list->devices[i].backend == XCONV_BACKEND_OPENCL &&
                         list->devices[i].cc_major > 0;
    const xconv_backend_iface *cuda = xconv_backend_get(XCONV_BACKEND_CUDA);
    if (!nvidia_opencl || !cuda)
        return;
    const xconv_device_info *cudas = list->devices;
    int ncudas = list->count;
    xconv_device_info *unlisted = NULL;
    if (!(backends & XCONV_BACKEND_BIT(XCONV_BACKEND_CUDA))) {
        xconv_error err = {0};
        unlisted = calloc(MAX_DEVICES, sizeof *unlisted);
        if (!unlisted || cuda->enumerate(unlisted, MAX_DEVICES, &ncudas, &err) != XCONV_OK) {
            free(unlisted);
            return;
        }
        cudas = unlisted;
    }
    for (int i = 0; i < list->count; i++) {
        xconv_device_info *cl = &list->devices[i];
        if (cl->backend != XCONV_BACKEND_OPENCL || !cl->is_gpu || cl->cc_major == 0)
            continue;
        for (int j = 0; j < ncudas; j++) {
            const xconv_device_info *cu = &cudas[j];
            if (cu->backend == XCONV_BACKEND_CUDA && cu->cc_major == cl->cc_major &&
                cu->cc_minor == cl->cc_minor && strcmp(cu->name, cl->name) == 0 &&
                cu->cache_bytes > cl->cache_bytes) {
                cl->cache_bytes = cu->cache_bytes;
                cl->local_mem_per_unit_bytes = cu->local_mem_per_unit_bytes;
                break;
            }
        }
    }
    free(unlisted);
}

xconv_devices *xconv_devices_enumerate(unsigned backends, xconv_error *err)
{
    xconv_devices *list = calloc(1, sizeof *list);
    if (!list) {
        xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "out of host memory");
        return NULL;
    }
    for (int kind = 0; kind < XCONV_BACKEND_COUNT; kind++)
        list_backend(list, kind, backends);
    share_cache_sizes(list, backends);
    return list;
}

void xconv_devices_free(xconv_devices *devs)
{
    free(devs);
}

int xconv_devices_count(const xconv_devices *devs)
{
    return devs ? devs->count : 0;
}

const xconv_device_info *xconv_devices_info_at(const xconv_devices *devs, int index)
{
    if (!devs || index < 0 || index >= devs->count)
        return NULL;
    return &devs->devices[index];
}

xconv_status xconv_devices_backend_status(const xconv_devices *devs, xconv_backend_kind kind,
                                          char *reason, size_t len)
{
    if (!devs || !reason || (unsigned)kind >= XCONV_BACKEND_COUNT)
        return XCONV_ERR_INVALID;
    if (len > 0)
        snprintf(reason, len, "%s", devs->backend_reason[kind]);
    return devs->backend_status[kind];
}

int xconv_devices_backend_advice(const xconv_devices *devs, xconv_backend_kind kind, char *buf,
                                 size_t len)
{
    if (!devs || !buf || (unsigned)kind >= XCONV_BACKEND_COUNT)
        return -1;
    return snprintf(buf, len, "%s", devs->backend_advice[kind]);
}

// ---------------------------------------------------------------------------------------------
// Selection

static bool contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *h = haystack; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static bool parse_index(const char *s, int *out)
{
    char *end = NULL;
    if (!*s || !isdigit((unsigned char)*s))
        return false;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 1000000)
        return false;
    *out = (int)v;
    return true;
}

// Writes the valid choices into the error message.
static int selection_error(const xconv_devices *list, const char *selector,
                           const char *why, xconv_error *err)
{
    char choices[4096] = "";
    size_t used = 0;
    for (int i = 0; i < list->count && used < sizeof choices; i++) {
        char label[320];
        xconv_device_label(&list->devices[i], label, sizeof label);
        used += (size_t)snprintf(choices + used, sizeof choices - used, "\n  %d  %s", i, label);
    }
    for (int k = 0; k < XCONV_BACKEND_COUNT && used < sizeof choices; k++)
        if (list->backend_status[k] != XCONV_OK)
            used += (size_t)snprintf(choices + used, sizeof choices - used,
                                     "\n  (%s: unavailable: %s)",
                                     xconv_backend_name((xconv_backend_kind)k),
                                     list->backend_reason[k]);
    for (int k = 0; k < XCONV_BACKEND_COUNT; k++)
        for (const char *line = list->backend_advice[k]; *line && used < sizeof choices;) {
            int n = (int)strcspn(line, "\n");
            used += (size_t)snprintf(choices + used, sizeof choices - used, "\n  (%s: %.*s)",
                                     xconv_backend_name((xconv_backend_kind)k), n, line);
            line += n + (line[n] == '\n');
        }
    return xconv_error_set(err, XCONV_ERR_NOT_FOUND, "device '%s' %s; devices:%s%s", selector,
                           why, list->count ? "" : " none", choices);
}

int xconv_devices_select(const xconv_devices *list, const char *selector, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, list))
        return XCONV_ERR_INVALID;
    if (!selector || !*selector) {
        for (int i = 0; i < list->count; i++)
            if (list->devices[i].is_gpu)
                return i;
        for (int i = 0; i < list->count; i++)
            if (list->devices[i].is_cpu)
                return i;
        if (list->count > 0)
            return 0;
        return selection_error(list, "(default)", "cannot be chosen: no device found", err);
    }
    int index;
    if (parse_index(selector, &index)) {
        if (index < list->count)
            return index;
        return selection_error(list, selector, "is past the last device", err);
    }
    const char *colon = strchr(selector, ':');
    if (colon) {
        for (int kind = 0; kind < XCONV_BACKEND_COUNT; kind++) {
            const char *name = xconv_backend_name((xconv_backend_kind)kind);
            if (strlen(name) != (size_t)(colon - selector) ||
                strncmp(selector, name, strlen(name)) != 0)
                continue;
            if (!parse_index(colon + 1, &index))
                return selection_error(list, selector, "has no valid index after ':'", err);
            for (int i = 0; i < list->count; i++)
                if ((int)list->devices[i].backend == kind &&
                    list->devices[i].backend_index == index)
                    return i;
            return selection_error(list, selector, "does not exist", err);
        }
    }
    for (int i = 0; i < list->count; i++) {
        const xconv_device_info *d = &list->devices[i];
        if (contains_nocase(d->name, selector) || contains_nocase(d->platform, selector) ||
            contains_nocase(d->vendor, selector) || contains_nocase(d->version, selector))
            return i;
    }
    return selection_error(list, selector, "matches no device", err);
}
