// SPDX-License-Identifier: MIT
// Shape strings: parsing "n=32,c=3,h=224,...,stride=2,pad=3" into a problem and formatting back.
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xconv/xconv.h>

#include "core/contract.h"

// ---------------------------------------------------------------------------------------------
// The keys

// The keys in the order of the table below; combined keys precede their _h/_w forms.
enum {
    KEY_N, KEY_C, KEY_H, KEY_W, KEY_K, KEY_R, KEY_S,
    KEY_STRIDE, KEY_STRIDE_H, KEY_STRIDE_W, KEY_PAD, KEY_PAD_H, KEY_PAD_W,
    KEY_DIL, KEY_DIL_H, KEY_DIL_W, KEY_GROUPS,
    KEY_BIAS, KEY_ACT, KEY_POOL, KEY_POOL_H, KEY_POOL_W, KEY_POOL_STRIDE, KEY_POOL_STRIDE_H,
    KEY_POOL_STRIDE_W, KEY_POOL_PAD, KEY_POOL_PAD_H, KEY_POOL_PAD_W, KEY_DTYPE, KEY_MATH,
    KEY_COUNT
};

typedef struct key_def {
    const char *name;
    unsigned bit;  // XCONV_KEY_* reported through *seen
} key_def;

static const key_def keys[KEY_COUNT] = {
    [KEY_N] = {"n", XCONV_KEY_N},
    [KEY_C] = {"c", XCONV_KEY_C},
    [KEY_H] = {"h", XCONV_KEY_H},
    [KEY_W] = {"w", XCONV_KEY_W},
    [KEY_K] = {"k", XCONV_KEY_K},
    [KEY_R] = {"r", XCONV_KEY_R},
    [KEY_S] = {"s", XCONV_KEY_S},
    [KEY_STRIDE] = {"stride", XCONV_KEY_STRIDE},
    [KEY_STRIDE_H] = {"stride_h", XCONV_KEY_STRIDE},
    [KEY_STRIDE_W] = {"stride_w", XCONV_KEY_STRIDE},
    [KEY_PAD] = {"pad", XCONV_KEY_PAD},
    [KEY_PAD_H] = {"pad_h", XCONV_KEY_PAD},
    [KEY_PAD_W] = {"pad_w", XCONV_KEY_PAD},
    [KEY_DIL] = {"dil", XCONV_KEY_DIL},
    [KEY_DIL_H] = {"dil_h", XCONV_KEY_DIL},
    [KEY_DIL_W] = {"dil_w", XCONV_KEY_DIL},
    [KEY_GROUPS] = {"groups", XCONV_KEY_GROUPS},
    [KEY_BIAS] = {"bias", XCONV_KEY_BIAS},
    [KEY_ACT] = {"act", XCONV_KEY_ACT},
    [KEY_POOL] = {"pool", XCONV_KEY_POOL},
    [KEY_POOL_H] = {"pool_h", XCONV_KEY_POOL},
    [KEY_POOL_W] = {"pool_w", XCONV_KEY_POOL},
    [KEY_POOL_STRIDE] = {"pool_stride", XCONV_KEY_POOL_STRIDE},
    [KEY_POOL_STRIDE_H] = {"pool_stride_h", XCONV_KEY_POOL_STRIDE},
    [KEY_POOL_STRIDE_W] = {"pool_stride_w", XCONV_KEY_POOL_STRIDE},
    [KEY_POOL_PAD] = {"pool_pad", XCONV_KEY_POOL_PAD},
    [KEY_POOL_PAD_H] = {"pool_pad_h", XCONV_KEY_POOL_PAD},
    [KEY_POOL_PAD_W] = {"pool_pad_w", XCONV_KEY_POOL_PAD},
    [KEY_DTYPE] = {"dtype", XCONV_KEY_DTYPE},
    [KEY_MATH] = {"math", XCONV_KEY_MATH},
};

#define VALID_KEYS "n c h w k r s stride stride_h stride_w pad pad_h pad_w dil dil_h dil_w " \
                   "groups bias act pool pool_h pool_w pool_stride pool_stride_h pool_stride_w " \
                   "pool_pad pool_pad_h pool_pad_w dtype math"

// The activations by value (xconv_activation), as SPECs name them.
static const char *const activation_names[] = {"none", "relu", "relu6"};

const char *xconv_activation_name(int64_t act)
{
    return act >= 0 && act < 3 ? activation_names[act] : NULL;
}

// Sets *out to the value whose name(value) is [begin, end), for values 0..count-1; returns
// false for another name.
static bool parse_named(const char *begin, const char *end, const char *(*name)(int64_t),
                        int64_t count, int64_t *out)
{
    for (int64_t i = 0; i < count; i++)
        if (strlen(name(i)) == (size_t)(end - begin) &&
            memcmp(name(i), begin, (size_t)(end - begin)) == 0) {
            *out = i;
            return true;
        }
    return false;
}

// Sets *out to the activation named by [begin, end); returns false for another name.
static bool parse_activation(const char *begin, const char *end, int64_t *out)
{
    for (int64_t i = 0; i < 3; i++)
        if (strlen(activation_names[i]) == (size_t)(end - begin) &&
            memcmp(activation_names[i], begin, (size_t)(end - begin)) == 0) {
            *out = i;
            return true;
        }
    return false;
}

// Returns the index of the key spelled by [name, name+len), or -1.
static int key_find(const char *name, size_t len)
{
    for (int i = 0; i < KEY_COUNT; i++)
        if (strlen(keys[i].name) == len && memcmp(keys[i].name, name, len) == 0)
            return i;
    return -1;
}

// ---------------------------------------------------------------------------------------------
// Parsing

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

// Trims whitespace off both ends of [*begin, *end).
static void trim(const char **begin, const char **end)
{
    while (*begin < *end && is_space(**begin))
        (*begin)++;
    while (*end > *begin && is_space((*end)[-1]))
        (*end)--;
}

// Parses a decimal integer (optional sign) filling all of [begin, end); returns false if it is
// not one or does not fit int64 (*overflow tells which).
static bool parse_int(const char *begin, const char *end, int64_t *out, bool *overflow)
{
    char buf[64];
    size_t len = (size_t)(end - begin);
    *overflow = false;
    const char *digits = begin + (len > 0 && (*begin == '+' || *begin == '-'));
    if (digits == end)
        return false;
    for (const char *c = digits; c < end; c++)
        if (*c < '0' || *c > '9')
            return false;
    if (len >= sizeof buf) {
        *overflow = true;
        return false;
    }
    memcpy(buf, begin, len);
    buf[len] = '\0';
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE) {
        *overflow = true;
        return false;
    }
    *out = (int64_t)v;
    return true;
}

// Parses one token [begin, end) (already trimmed) into values[]/given[]; returns XCONV_OK or
// XCONV_ERR_PARSE naming the token.
static xconv_status parse_token(const char *begin, const char *end, int64_t *values, bool *given,
                                xconv_error *err)
{
    int tlen = (int)(end - begin);
    const char *eq = memchr(begin, '=', (size_t)tlen);
    if (!eq)
        return xconv_error_set(err, XCONV_ERR_PARSE, "missing '=' in '%.*s' (want key=value)",
                               tlen, begin);
    const char *kb = begin, *ke = eq, *vb = eq + 1, *ve = end;
    trim(&kb, &ke);
    trim(&vb, &ve);
    if (kb == ke)
        return xconv_error_set(err, XCONV_ERR_PARSE, "missing key in '%.*s'", tlen, begin);
    int key = key_find(kb, (size_t)(ke - kb));
    if (key < 0)
        return xconv_error_set(err, XCONV_ERR_PARSE,
                               "unknown key '%.*s' in '%.*s'; valid keys: " VALID_KEYS,
                               (int)(ke - kb), kb, tlen, begin);
    if (vb == ve)
        return xconv_error_set(err, XCONV_ERR_PARSE, "empty value in '%.*s'", tlen, begin);
    if (given[key])
        return xconv_error_set(err, XCONV_ERR_PARSE, "key '%s' given twice (again in '%.*s')",
                               keys[key].name, tlen, begin);
    bool overflow;
    if (key == KEY_ACT) {
        if (!parse_activation(vb, ve, &values[key]))
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "value '%.*s' in '%.*s' is not an activation (none, relu, "
                                   "relu6)", (int)(ve - vb), vb, tlen, begin);
    } else if (key == KEY_DTYPE) {
        if (!parse_named(vb, ve, xconv_dtype_name, 3, &values[key]))
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "value '%.*s' in '%.*s' is not a storage type (f32, f16, "
                                   "bf16)", (int)(ve - vb), vb, tlen, begin);
    } else if (key == KEY_MATH) {
        if (!parse_named(vb, ve, xconv_math_name, 4, &values[key]))
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "value '%.*s' in '%.*s' is not a math mode (f32, tf32, f16, "
                                   "bf16)", (int)(ve - vb), vb, tlen, begin);
    } else if (!parse_int(vb, ve, &values[key], &overflow))
        return xconv_error_set(err, XCONV_ERR_PARSE, "value '%.*s' in '%.*s' is %s",
                               (int)(ve - vb), vb, tlen, begin,
                               overflow ? "out of range" : "not an integer");
    given[key] = true;
    return XCONV_OK;
}

// Sets *dst from the combined key, then from the specific key, when given.
static void set_pair(int64_t *dst, int combined, int specific, const int64_t *values,
                     const bool *given)
{
    if (given[combined])
        *dst = values[combined];
    if (given[specific])
        *dst = values[specific];
}

// Sets the epilogue's fields from the keys given; a window given without its stride sets the
// stride to the window.
static void apply_epilogue(xconv_epilogue *e, const int64_t *values, const bool *given)
{
    if (given[KEY_BIAS])
        e->bias = values[KEY_BIAS];
    if (given[KEY_ACT])
        e->act = values[KEY_ACT];
    set_pair(&e->pool_h, KEY_POOL, KEY_POOL_H, values, given);
    set_pair(&e->pool_w, KEY_POOL, KEY_POOL_W, values, given);
    if ((given[KEY_POOL] || given[KEY_POOL_H]) && !given[KEY_POOL_STRIDE] &&
        !given[KEY_POOL_STRIDE_H])
        e->pool_stride_h = e->pool_h;
    if ((given[KEY_POOL] || given[KEY_POOL_W]) && !given[KEY_POOL_STRIDE] &&
        !given[KEY_POOL_STRIDE_W])
        e->pool_stride_w = e->pool_w;
    set_pair(&e->pool_stride_h, KEY_POOL_STRIDE, KEY_POOL_STRIDE_H, values, given);
    set_pair(&e->pool_stride_w, KEY_POOL_STRIDE, KEY_POOL_STRIDE_W, values, given);
    set_pair(&e->pool_pad_h, KEY_POOL_PAD, KEY_POOL_PAD_H, values, given);
    set_pair(&e->pool_pad_w, KEY_POOL_PAD, KEY_POOL_PAD_W, values, given);
}

xconv_status xconv_shape_apply(const char *spec, xconv_problem *p, unsigned *seen,
                               xconv_error *err)
{
    if (XCONV_NULL_ARG(err, spec) || XCONV_NULL_ARG(err, p))
        return XCONV_ERR_INVALID;
    int64_t values[KEY_COUNT] = {0};
    bool given[KEY_COUNT] = {false};
    const char *tb = spec;
    for (int index = 1;; index++) {
        const char *te = strchr(tb, ',');
        const char *next = te ? te + 1 : NULL;
        if (!te)
            te = tb + strlen(tb);
        trim(&tb, &te);
        if (tb == te)
            return xconv_error_set(err, XCONV_ERR_PARSE, "empty token #%d in shape '%s'", index,
                                   spec);
        xconv_status st = parse_token(tb, te, values, given, err);
        if (st)
            return st;
        if (!next)
            break;
        tb = next;
    }
    // Apply only after the whole spec parsed, so a failure leaves *p as it was.
    int64_t *direct[] = {&p->n, &p->c, &p->h, &p->w, &p->k, &p->r, &p->s};
    for (int i = KEY_N; i <= KEY_S; i++)
        if (given[i])
            *direct[i - KEY_N] = values[i];
    set_pair(&p->stride_h, KEY_STRIDE, KEY_STRIDE_H, values, given);
    set_pair(&p->stride_w, KEY_STRIDE, KEY_STRIDE_W, values, given);
    set_pair(&p->pad_h, KEY_PAD, KEY_PAD_H, values, given);
    set_pair(&p->pad_w, KEY_PAD, KEY_PAD_W, values, given);
    set_pair(&p->dil_h, KEY_DIL, KEY_DIL_H, values, given);
    set_pair(&p->dil_w, KEY_DIL, KEY_DIL_W, values, given);
    if (given[KEY_GROUPS])
        p->groups = values[KEY_GROUPS];
    apply_epilogue(&p->epi, values, given);
    if (given[KEY_DTYPE])
        p->dtype = values[KEY_DTYPE];
    if (given[KEY_MATH])
        p->math = values[KEY_MATH];
    unsigned bits = 0;
    for (int i = 0; i < KEY_COUNT; i++)
        if (given[i])
            bits |= keys[i].bit;
    if (seen)
        *seen = bits;
    return XCONV_OK;
}

xconv_status xconv_shape_read(const char *spec, xconv_problem *p, unsigned *seen,
                              xconv_error *err)
{
    if (XCONV_NULL_ARG(err, spec) || XCONV_NULL_ARG(err, p))
        return XCONV_ERR_INVALID;
    xconv_problem q = xconv_problem_default();
    unsigned keys_seen = 0;
    xconv_status st = xconv_shape_apply(spec, &q, &keys_seen, err);
    if (st)
        return st;
    for (int i = KEY_N; i < KEY_S; i++)  // every size but s (which defaults to r) is required
        if (!(keys_seen & keys[i].bit))
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "shape '%s': %s is required (a shape names n, c, h, w, k "
                                   "and r)", spec, keys[i].name);
    // The SPEC's derived defaults (s = r, ...); a key given as 0 stays, for the check to refuse.
    xconv_problem given = q;
    xconv_problem_complete(&q);
    if (keys_seen & XCONV_KEY_S)
        q.s = given.s;
    if (keys_seen & XCONV_KEY_POOL_STRIDE)
        q.epi = given.epi;
    *p = q;
    if (seen)
        *seen = keys_seen;
    return XCONV_OK;
}

xconv_status xconv_shape_parse(const char *spec, xconv_problem *p, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, spec) || XCONV_NULL_ARG(err, p))
        return XCONV_ERR_INVALID;
    xconv_problem q;
    xconv_status st = xconv_shape_read(spec, &q, NULL, err);
    if (st)
        return st;
    if ((st = xconv_problem_check(&q, err))) {
        xconv_error_prefix(err, "shape '%s'", spec);
        return st;
    }
    *p = q;
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Formatting

// Appends ",name=v" for a combined key when h == w, else ",name_h=a,name_w=b"; nothing when both
// are at the default.
static int format_pair(char *buf, size_t len, const char *name, int64_t h, int64_t w, int64_t def)
{
    if (h == w)
        return h == def ? 0 : snprintf(buf, len, ",%s=%" PRId64, name, h);
    return snprintf(buf, len, ",%s_h=%" PRId64 ",%s_w=%" PRId64, name, h, name, w);
}

// Appends the epilogue's keys that differ from their defaults: bias, act, the pool window, its
// stride when it is not the window, its padding.
static int format_epilogue(const xconv_epilogue *e, char *buf, size_t len)
{
    int n = 0;
    if (e->bias)
        n += snprintf(buf + n, len - (size_t)n, ",bias=%" PRId64, e->bias);
    const char *act = xconv_activation_name(e->act);
    if (e->act && act)
        n += snprintf(buf + n, len - (size_t)n, ",act=%s", act);
    else if (e->act)
        n += snprintf(buf + n, len - (size_t)n, ",act=%" PRId64, e->act);
    n += format_pair(buf + n, len - (size_t)n, "pool", e->pool_h, e->pool_w, 0);
    if (e->pool_stride_h != e->pool_h || e->pool_stride_w != e->pool_w)
        n += format_pair(buf + n, len - (size_t)n, "pool_stride", e->pool_stride_h,
                         e->pool_stride_w, -1);
    n += format_pair(buf + n, len - (size_t)n, "pool_pad", e->pool_pad_h, e->pool_pad_w, 0);
    return n;
}

// Appends ",dtype=NAME" and ",math=NAME" for a storage type and a math mode other than fp32.
static int format_types(const xconv_problem *p, char *buf, size_t len)
{
    int n = 0;
    const char *dtype = xconv_dtype_name(p->dtype), *math = xconv_math_name(p->math);
    if (p->dtype)
        n += dtype ? snprintf(buf, len, ",dtype=%s", dtype)
                   : snprintf(buf, len, ",dtype=%" PRId64, p->dtype);
    if (p->math)
        n += math ? snprintf(buf + n, len - (size_t)n, ",math=%s", math)
                  : snprintf(buf + n, len - (size_t)n, ",math=%" PRId64, p->math);
    return n;
}

int xconv_shape_format(const xconv_problem *p, char *buf, size_t len)
{
    if (!p || (!buf && len))
        return -1;
    char out[1024];  // 28 keys of at most 34 characters each fit
    int n = snprintf(out, sizeof out,
                     "n=%" PRId64 ",c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64 ",k=%" PRId64
                     ",r=%" PRId64,
                     p->n, p->c, p->h, p->w, p->k, p->r);
    if (p->s != p->r)
        n += snprintf(out + n, sizeof out - (size_t)n, ",s=%" PRId64, p->s);
    n += format_pair(out + n, sizeof out - (size_t)n, "stride", p->stride_h, p->stride_w, 1);
    n += format_pair(out + n, sizeof out - (size_t)n, "pad", p->pad_h, p->pad_w, 0);
    n += format_pair(out + n, sizeof out - (size_t)n, "dil", p->dil_h, p->dil_w, 1);
    if (p->groups != 1)
        n += snprintf(out + n, sizeof out - (size_t)n, ",groups=%" PRId64, p->groups);
    n += format_epilogue(&p->epi, out + n, sizeof out - (size_t)n);
    n += format_types(p, out + n, sizeof out - (size_t)n);
    return snprintf(buf, len, "%s", out);
}
