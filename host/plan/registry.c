// SPDX-License-Identifier: MIT
// The variant registry: every family's table in listing order, lookup, applicability and
// tunings. (Planning a variant is host/plan/plan.c's.)
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/contract.h"
#include "plan/variant.h"

#define XCONV_MAX_VARIANTS 64

typedef const xconv_variant *(*family_table_fn)(int *count);

static const family_table_fn family_tables[] = {
    xconv_reference_variants,
    xconv_direct_variants,
    xconv_gemm_variants,
    xconv_mma_variants,
    xconv_xmx_variants,
    xconv_winograd_variants,
    xconv_fft_variants,
    xconv_peer_variants,
};

// The flat list, filled once (pthread_once: two threads never race on it) and never changed.
static const xconv_variant *all_variants[XCONV_MAX_VARIANTS];
static int variant_total;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

// Fills the flat list from the family tables.
static void registry_fill(void)
{
    int n = 0;
    for (size_t f = 0; f < sizeof family_tables / sizeof family_tables[0]; f++) {
        int family_count = 0;
        const xconv_variant *table = family_tables[f](&family_count);
        for (int i = 0; i < family_count && n < XCONV_MAX_VARIANTS; i++)
            all_variants[n++] = &table[i];
    }
    variant_total = n;
}

int xconv_variant_count(void)
{
    pthread_once(&registry_once, registry_fill);
    return variant_total;
}

const xconv_variant *xconv_variant_at(int index)
{
    return index >= 0 && index < xconv_variant_count() ? all_variants[index] : NULL;
}

const xconv_variant_info *xconv_variant_get_info(const xconv_variant *v)
{
    return v ? &v->info : NULL;
}

const xconv_variant *xconv_variant_find(const char *name, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, name))
        return NULL;
    int count = xconv_variant_count();
    for (int i = 0; i < count; i++)
        if (strcmp(all_variants[i]->info.name, name) == 0)
            return all_variants[i];
    char names[2048] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 all_variants[i]->info.name);
    xconv_error_set(err, XCONV_ERR_NOT_FOUND, "unknown variant '%s'; valid variants: %s",
                    name, names);
    return NULL;
}

// ---------------------------------------------------------------------------------------------
// Applicability

// Returns the math modes of XCONV_MATH_BIT set `maths` as a reason names them.
static const char *math_list(unsigned maths)
{
    static const char *const lists[] = {"strict fp32: math=f32", "math=tf32", "math=f16",
                                        "math=tf32 or f16", "math=bf16", "math=tf32 or bf16",
                                        "math=f16 or bf16", "math=tf32, f16 or bf16"};
    unsigned reduced = maths >> XCONV_MATH_TF32 & 7u;
    return reduced ? lists[reduced] : lists[0];
}

// A variant computes only the math modes it declares (xconv_variant.maths; strict fp32 when it
// declares none), so strict fp32 never gets a reduced mode and a reduced mode never silently
// runs another; reduced storage is read and written by the variants that declare it
// (xconv_variant.dtypes), without an epilogue.
bool xconv_variant_types_apply(const xconv_variant *v, const xconv_problem *p, char *reason,
                               size_t len)
{
    unsigned maths = v->maths ? v->maths : XCONV_MATH_BIT(XCONV_MATH_F32);
    if (p->math < 0 || p->math > XCONV_MATH_BF16 || !(maths & XCONV_MATH_BIT(p->math))) {
        if (p->math == XCONV_MATH_F32)
            snprintf(reason, len, "math=f32 is strict fp32: %s computes only reduced math "
                     "(ask for %s)", v->info.name, math_list(maths));
        else
            snprintf(reason, len, "math=%s: %s does not implement this math mode (it computes "
                     "%s)", xconv_math_name(p->math) ? xconv_math_name(p->math) : "?",
                     v->info.name, math_list(maths));
        return false;
    }
    if (p->dtype == XCONV_DTYPE_F32)
        return true;
    if (!(v->dtypes & XCONV_DTYPE_BIT(p->dtype))) {
        snprintf(reason, len, "%s has no dtype=%s kernels yet", v->info.name,
                 xconv_dtype_name(p->dtype));
        return false;
    }
    if (xconv_problem_has_epilogue(p)) {
        snprintf(reason, len, "an epilogue with dtype=%s is not implemented yet",
                 xconv_dtype_name(p->dtype));
        return false;
    }
    return true;
}

bool xconv_variant_applies(const xconv_variant *v, const xconv_device *dev,
                           const xconv_problem *p, char *reason, size_t len)
{
    char scratch[8];
    if (!reason || len == 0) {  // a caller that wants no reason: it goes to scratch
        reason = scratch;
        len = sizeof scratch;
    }
    if (!v || !p) {
        snprintf(reason, len, "%s is NULL", v ? "p" : "v");
        return false;
    }
    if (!xconv_variant_types_apply(v, p, reason, len))
        return false;
    if (v->info.backends == 0) {
        if (!dev)
            return v->applies ? v->applies(v, NULL, p, reason, len) : true;
        snprintf(reason, len, "%s runs on the host, not on a device", v->info.name);
        return false;
    }
    if (!dev) {
        snprintf(reason, len, "%s needs a device", v->info.name);
        return false;
    }
    if (!(v->info.backends & XCONV_BACKEND_BIT(dev->info.backend))) {
        snprintf(reason, len, "%s does not run on the %s backend", v->info.name,
                 xconv_backend_name(dev->info.backend));
        return false;
    }
    // A variant that does not fuse computes the convolution alone; the epilogue's steps follow.
    xconv_problem conv = xconv_problem_conv_only(p);
    return v->applies ? v->applies(v, dev, v->fuses ? p : &conv, reason, len) : true;
}

// ---------------------------------------------------------------------------------------------
// Tuning

int xconv_variant_tunings(const xconv_variant *v, const xconv_device *dev,
                          const xconv_problem *p, xconv_tuning *out, int max)
{
    char reason[512];
    if (!v || !p || !out || !v->tunings || max < 1 ||
        !xconv_variant_applies(v, dev, p, reason, sizeof reason))
        return 0;
    // Planning reads only the device's description, never its context.
    return v->tunings(v, (xconv_device *)dev, p, out, max);
}
