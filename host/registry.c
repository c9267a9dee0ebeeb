// SPDX-License-Identifier: MIT
// The variant registry: every family's table in listing order, lookup, applicability, planning.
#include <stdio.h>
#include <string.h>

#include "variant.h"

#define XCONV_MAX_VARIANTS 64

typedef const xconv_variant *(*family_table_fn)(int *count);

static const family_table_fn family_tables[] = {
    xconv_reference_variants,
    xconv_direct_variants,
    xconv_gemm_variants,
    xconv_peer_variants,
};

const xconv_variant *const *xconv_variants_all(int *count)
{
    static const xconv_variant *all[XCONV_MAX_VARIANTS + 1];
    static int total = -1;
    if (total < 0) {
        int n = 0;
        for (size_t f = 0; f < sizeof family_tables / sizeof family_tables[0]; f++) {
            int family_count = 0;
            const xconv_variant *table = family_tables[f](&family_count);
            for (int i = 0; i < family_count && n < XCONV_MAX_VARIANTS; i++)
                all[n++] = &table[i];
        }
        all[n] = NULL;
        total = n;
    }
    *count = total;
    return all;
}

const xconv_variant *xconv_variant_find(const char *name, xconv_error *err)
{
    int count = 0;
    const xconv_variant *const *all = xconv_variants_all(&count);
    for (int i = 0; i < count; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    char names[2048] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 all[i]->name);
    xconv_error_set(err, XCONV_ERR_NOT_FOUND, "unknown variant '%s'; valid variants: %s", name,
                    names);
    return NULL;
}

bool xconv_variant_applies(const xconv_variant *v, const xconv_device *dev,
                           const xconv_problem *p, char *reason, size_t len)
{
    if (v->backends == 0) {
        snprintf(reason, len, "%s runs on the host, not on a device", v->name);
        return false;
    }
    if (!(v->backends & XCONV_BACKEND_BIT(dev->info.backend))) {
        snprintf(reason, len, "%s does not run on the %s backend", v->name,
                 xconv_backend_name(dev->info.backend));
        return false;
    }
    return v->applies ? v->applies(dev, p, reason, len) : true;
}

xconv_status xconv_variant_plan(const xconv_variant *v, const xconv_device *dev,
                                const xconv_problem *p, xconv_plan *plan, xconv_error *err)
{
    char reason[512] = "";
    if (!xconv_variant_applies(v, dev, p, reason, sizeof reason))
        return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE, "%s", reason);
    memset(plan, 0, sizeof *plan);
    xconv_status st = v->plan(dev, p, plan, err);
    if (st != XCONV_OK)
        return st;
    for (int i = 0; i < plan->nsteps; i++) {
        const xconv_step *s = &plan->steps[i];
        if (s->local_mem_bytes > dev->info.local_mem_bytes)
            return xconv_error_set(err, XCONV_ERR_NOT_APPLICABLE,
                                   "step %s needs %zu bytes of local memory; the device has %llu",
                                   s->kernel, s->local_mem_bytes,
                                   (unsigned long long)dev->info.local_mem_bytes);
    }
    if (plan->workspace_bytes > dev->info.max_alloc_bytes)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY,
                               "workspace of %zu bytes passes the device's largest allocation "
                               "of %llu bytes",
                               plan->workspace_bytes,
                               (unsigned long long)dev->info.max_alloc_bytes);
    return XCONV_OK;
}
