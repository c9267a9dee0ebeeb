// SPDX-License-Identifier: MIT
// Planning options: their defaults, the range of each forced field, and a find-db's tuning text
// read into them.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

// ---------------------------------------------------------------------------------------------
// Defaults and the forced fields

void xconv_plan_options_default(xconv_plan_options *opts)
{
    if (opts)
        memset(opts, 0, sizeof *opts);
}

static const char *const direct_kernel_names[] = {
    [XCONV_DIRECT_KERNEL_CONST] = "direct_const",
    [XCONV_DIRECT_KERNEL_TILED] = "direct_tiled",
    [XCONV_DIRECT_KERNEL_TILED_DB] = "direct_tiled_db",
    [XCONV_DIRECT_KERNEL_REGBLOCK] = "direct_regblock",
};

#define DIRECT_KERNELS ((int)(sizeof direct_kernel_names / sizeof direct_kernel_names[0]))

const char *xconv_direct_kernel_name(int kernel)
{
    return kernel > XCONV_DIRECT_KERNEL_NONE && kernel < DIRECT_KERNELS
               ? direct_kernel_names[kernel]
               : NULL;
}

const xconv_forced_direct_tiling *xconv_plan_options_direct(const xconv_plan_options *opts,
                                                            int kernel)
{
    for (int i = 0; opts && kernel != XCONV_DIRECT_KERNEL_NONE && i < XCONV_DIRECT_TILINGS_MAX;
         i++)
        if (opts->direct_tiling[i].kernel == kernel)
            return &opts->direct_tiling[i];
    return NULL;
}

bool xconv_plan_options_force_direct(const xconv_plan_options *opts)
{
    for (int i = 0; opts && i < XCONV_DIRECT_TILINGS_MAX; i++)
        if (opts->direct_tiling[i].kernel != XCONV_DIRECT_KERNEL_NONE)
            return true;
    return false;
}

bool xconv_forced_gemm_tiles_set(const xconv_forced_gemm_tiles *t)
{
    static const xconv_forced_gemm_tiles none = {0};
    return t && memcmp(t, &none, sizeof none) != 0;
}

bool xconv_forced_wino_block_set(const xconv_forced_wino_block *b)
{
    static const xconv_forced_wino_block none = {0};
    return b && memcmp(b, &none, sizeof none) != 0;
}

// Returns the name of entry i's first field out of its range (into name, len bytes), or NULL.
static const char *direct_bad(const xconv_plan_options *opts, int i, char *name, size_t len)
{
    const xconv_forced_direct_tiling *t = &opts->direct_tiling[i];
    const char *bad = NULL;
    if (t->kernel == XCONV_DIRECT_KERNEL_NONE) {
        static const xconv_forced_direct_tiling none = {0};
        bad = memcmp(t, &none, sizeof none) ? "kernel" : NULL;  // fields of no kernel
    } else {
        bad = !xconv_direct_kernel_name(t->kernel) ? "kernel"
              : xconv_plan_options_direct(opts, t->kernel) != t ? "kernel"  // a second entry
              : t->wg_w < 1 ? "wg_w" : t->wg_h < 1 ? "wg_h"
              : t->block_w < 1 ? "block_w" : t->block_h < 1 ? "block_h"
              : t->block_k < 0 ? "block_k"
              : t->strip != 0 && t->strip != 1 ? "strip"
              : t->flat != 0 && t->flat != 1 ? "flat"
              : t->unroll_c != 0 && t->unroll_c != 1 ? "unroll_c"
              : t->repeat < 0 || t->repeat > 64 ? "repeat"
              : t->vec_q != 0 && t->vec_q != 4 && t->vec_q != 8 && t->vec_q != 16 ? "vec_q"
                                                                               : NULL;
    }
    if (bad)
        snprintf(name, len, "direct_tiling[%d].%s", i, bad);
    return bad ? name : NULL;
}

// Returns the field of gemm_tiles out of its range, or NULL.
static const char *gemm_bad(const xconv_forced_gemm_tiles *t)
{
    if (!xconv_forced_gemm_tiles_set(t))
        return NULL;
    return t->tm < 1 ? "gemm_tiles.tm" : t->tn < 1 ? "gemm_tiles.tn" : t->tk < 1 ? "gemm_tiles.tk"
           : t->wm < 1 ? "gemm_tiles.wm" : t->wn < 1 ? "gemm_tiles.wn"
           : t->vw != 1 && t->vw != 4 ? "gemm_tiles.vw"
           : t->pad < 0 ? "gemm_tiles.pad"
           : t->split < 0 || t->split > 16 ? "gemm_tiles.split"
                                           : NULL;
}

// Returns the field of mma_tiles out of its range, or NULL (whether the kernels take the
// tiles is the planner's to say).
static const char *mma_bad(const xconv_forced_mma_tiles *t)
{
    static const xconv_forced_mma_tiles none = {0};
    if (memcmp(t, &none, sizeof none) == 0)
        return NULL;
    return t->tm < 1 ? "mma_tiles.tm" : t->tn < 1 ? "mma_tiles.tn" : t->tk < 1 ? "mma_tiles.tk"
           : t->wm < 1 ? "mma_tiles.wm" : t->wn < 1 ? "mma_tiles.wn"
           : t->stages != 0 && (t->stages < 2 || t->stages > 4) ? "mma_tiles.stages"
                                                                 : NULL;
}

// Returns the field of winograd_fused out of its range, or NULL.
static const char *wino_bad(const xconv_forced_wino_block *b)
{
    if (!xconv_forced_wino_block_set(b))
        return NULL;
    return b->tb < 1 ? "winograd_fused.tb" : b->kb < 1 ? "winograd_fused.kb"
           : b->cc < 1 ? "winograd_fused.cc" : b->wt < 1 ? "winograd_fused.wt"
           : b->wk < 1 ? "winograd_fused.wk"
           : b->vec != 0 && b->vec != 8 && b->vec != 16 ? "winograd_fused.vec"
                                                        : NULL;
}

// The first field of a forced fft_cgemm tiling out of range: all zeros (chosen) or each >= 1.
static const char *fft_gemm_bad(const int t[5])
{
    static const char *names[5] = {"fft_gemm[0] (TM)", "fft_gemm[1] (TN)", "fft_gemm[2] (TK)",
                                   "fft_gemm[3] (WM)", "fft_gemm[4] (WN)"};
    if (!(t[0] | t[1] | t[2] | t[3] | t[4]))
        return NULL;
    for (int i = 0; i < 5; i++)
        if (t[i] < 1)
            return names[i];
    return NULL;
}

xconv_status xconv_plan_options_check(const xconv_plan_options *opts, xconv_error *err)
{
    if (!opts)
        return XCONV_OK;
    char direct[48];
    const char *bad = opts->epilogue < XCONV_EPILOGUE_AUTO ||
                              opts->epilogue > XCONV_EPILOGUE_UNFUSED ? "epilogue"
                      : opts->gemm_split_k < 0 || opts->gemm_split_k > 16 ? "gemm_split_k"
                      : opts->batch_chunk < 0 ? "batch_chunk"
                      : opts->winograd_chunk < 0 ? "winograd_chunk"
                      : opts->fft_chunk < 0 ? "fft_chunk"
                      : opts->runtime_batch < XCONV_BATCH_DEFAULT ||
                              opts->runtime_batch > XCONV_BATCH_BAKED ? "runtime_batch"
                      : opts->runtime_dims < XCONV_BATCH_DEFAULT ||
                              opts->runtime_dims > XCONV_BATCH_BAKED ? "runtime_dims"
                      : opts->fp32_math < 0 || opts->fp32_math > 1 ? "fp32_math"
                      : opts->mma_pipeline < 0 || opts->mma_pipeline > 3 ? "mma_pipeline"
                      : opts->mma_split_k < 0 || opts->mma_split_k > 16 ? "mma_split_k"
                      : opts->fft_tile_h < 0 || opts->fft_tile_w < 0 ? "fft_tile_h/fft_tile_w"
                      : opts->fft_planes != 0 && opts->fft_planes != 2 &&
                              opts->fft_planes != 4 && opts->fft_planes != 8 ? "fft_planes"
                      : fft_gemm_bad(opts->fft_gemm) ? fft_gemm_bad(opts->fft_gemm)
                      : gemm_bad(&opts->gemm_tiles) ? gemm_bad(&opts->gemm_tiles)
                      : wino_bad(&opts->winograd_fused) ? wino_bad(&opts->winograd_fused)
                      : mma_bad(&opts->mma_tiles) ? mma_bad(&opts->mma_tiles)
                                                        : NULL;
    for (int i = 0; !bad && i < XCONV_DIRECT_TILINGS_MAX; i++)
        bad = direct_bad(opts, i, direct, sizeof direct);
    if (bad)
        return xconv_error_set(err, XCONV_ERR_INVALID,
                               "plan options: %s is out of range (xconv_plan_options)", bad);
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// A find-db's tuning text

// Reads "a,b,c,..." (only digits, signs and commas) into v (at most max values); returns how
// many, or -1 for text that is not such a list.
static int int_list(const char *s, const char *end, int *v, int max)
{
    int n = 0;
    while (s < end) {
        char *next;
        long x = strtol(s, &next, 10);
        if (next == s || n == max || x < -1000000 || x > 1000000 || (next < end && *next != ','))
            return -1;
        v[n++] = (int)x;
        s = next < end ? next + 1 : next;
        if (next < end && s == end)
            return -1;  // a trailing comma
    }
    return n;
}

// Reads the direct tiling entries of text into *out's direct_tiling (each replacing the entry
// of its kernel, else a free one); returns false when an entry does not parse.
static bool parse_direct(const char *text, xconv_plan_options *out)
{
    for (const char *e = text; *e;) {
        const char *end = strchr(e, ';'), *colon = strchr(e, ':');
        if (!end)
            end = e + strlen(e);
        if (!colon || colon > end)
            return false;
        int kernel = XCONV_DIRECT_KERNEL_NONE, v[10] = {0};
        for (int k = 1; k < DIRECT_KERNELS; k++)
            if ((size_t)(colon - e) == strlen(direct_kernel_names[k]) &&
                !strncmp(e, direct_kernel_names[k], (size_t)(colon - e)))
                kernel = k;
        int n = int_list(colon + 1, end, v, 10);
        if (kernel == XCONV_DIRECT_KERNEL_NONE || n < 8)
            return false;
        xconv_forced_direct_tiling t = {kernel, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
                                        v[8], v[9]};
        xconv_forced_direct_tiling *slot =
            (xconv_forced_direct_tiling *)xconv_plan_options_direct(out, kernel);
        for (int i = 0; !slot && i < XCONV_DIRECT_TILINGS_MAX; i++)
            if (out->direct_tiling[i].kernel == XCONV_DIRECT_KERNEL_NONE)
                slot = &out->direct_tiling[i];
        if (!slot)
            return false;
        *slot = t;
        e = *end ? end + 1 : end;
    }
    return true;
}

// Reads "TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]" into *t (VW 4 and PAD VW when left out); returns
// false when it does not parse.
static bool parse_gemm(const char *text, xconv_forced_gemm_tiles *t)
{
    int v[8] = {0};
    int n = int_list(text, text + strlen(text), v, 8);
    if (n < 5)
        return false;
    int vw = n > 5 ? v[5] : 4;
    *t = (xconv_forced_gemm_tiles){v[0], v[1], v[2], v[3], v[4], vw, n > 6 ? v[6] : vw, v[7]};
    return true;
}

void xconv_tuning_keep_forced(const xconv_plan_options *opts, xconv_tuning *tuning)
{
    if (xconv_plan_options_force_direct(opts))
        tuning->direct_tiling[0] = '\0';
    if (opts && xconv_forced_gemm_tiles_set(&opts->gemm_tiles))
        tuning->gemm_tiles[0] = '\0';
    if (opts && opts->fp32_math)
        tuning->math[0] = '\0';
}

xconv_status xconv_tuning_apply(const xconv_tuning *tuning, xconv_plan_options *opts,
                                xconv_error *err)
{
    if (!tuning || !opts)
        return xconv_error_set(err, XCONV_ERR_INVALID, "xconv_tuning_apply: %s is NULL",
                               !tuning ? "tuning" : "opts");
    xconv_plan_options o = *opts;
    // The text must end inside its array (a record's fields are cut to fit).
    if (!memchr(tuning->direct_tiling, '\0', sizeof tuning->direct_tiling) ||
        !parse_direct(tuning->direct_tiling, &o))
        return xconv_error_set(err, XCONV_ERR_PARSE, "the tuning's direct tiling '%.*s' does not "
                               "parse: expected kind:wg_w,wg_h,block_w,block_h,block_k,strip,"
                               "flat,unroll_c[,repeat[,vec_q]]",
                               (int)sizeof tuning->direct_tiling, tuning->direct_tiling);
    if (!memchr(tuning->gemm_tiles, '\0', sizeof tuning->gemm_tiles) ||
        (tuning->gemm_tiles[0] && !parse_gemm(tuning->gemm_tiles, &o.gemm_tiles)))
        return xconv_error_set(err, XCONV_ERR_PARSE, "the tuning's GEMM tiles '%.*s' do not "
                               "parse: expected TM,TN,TK,WM,WN[,VW[,PAD[,SPLIT]]]",
                               (int)sizeof tuning->gemm_tiles, tuning->gemm_tiles);
    if (!memchr(tuning->math, '\0', sizeof tuning->math) ||
        (tuning->math[0] && strcmp(tuning->math, "f32") != 0))
        return xconv_error_set(err, XCONV_ERR_PARSE, "the tuning's math '%.*s' is not \"f32\" or "
                               "\"\"", (int)sizeof tuning->math, tuning->math);
    if (tuning->math[0])
        o.fp32_math = 1;
    *opts = o;
    return XCONV_OK;
}
