// SPDX-License-Identifier: MIT
// The OpenCL backend's advice slot: installed platforms that list no device, and how to enable
// the one whose devices an environment variable switches on (Mesa's Rusticl).
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

// Returns true when `name` holds "rusticl" in any case (Mesa names its platform "rusticl").
static bool is_rusticl(const char *name)
{
    static const char word[] = "rusticl";
    for (const char *p = name; *p; p++) {
        size_t i = 0;
        while (word[i] && tolower((unsigned char)p[i]) == word[i])
            i++;
        if (!word[i])
            return true;
    }
    return false;
}

// Appends one line of advice about platform `name`, which lists no device, to buf.
static void advise_platform(const char *name, char *buf, size_t len)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    if (is_rusticl(name))
        snprintf(buf + used, len - used,
                 "%splatform '%s' (Mesa's Rusticl) lists no device: it lists only the drivers "
                 "that RUSTICL_ENABLE names; RUSTICL_ENABLE=llvmpipe gives its CPU device",
                 used ? "\n" : "", name);
    else
        snprintf(buf + used, len - used, "%splatform '%s' lists no device", used ? "\n" : "",
                 name);
}

void xconv_opencl_advice(char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    cl_uint nplat = 0;
    if (clGetPlatformIDs(0, NULL, &nplat) != CL_SUCCESS || nplat == 0)
        return;
    cl_platform_id *plats = calloc(nplat, sizeof *plats);
    if (!plats || clGetPlatformIDs(nplat, plats, NULL) != CL_SUCCESS) {
        free(plats);
        return;
    }
    for (cl_uint i = 0; i < nplat; i++) {
        cl_uint ndev = 0;
        cl_int rc = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
        if (rc == CL_SUCCESS && ndev > 0)
            continue;
        if (rc != CL_SUCCESS && rc != CL_DEVICE_NOT_FOUND)
            continue;  // a failing platform is reported by the listing itself
        char name[128] = "";
        if (clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL) !=
            CL_SUCCESS)
            snprintf(name, sizeof name, "#%u", (unsigned)i);
        advise_platform(name, buf, len);
    }
    free(plats);
}
