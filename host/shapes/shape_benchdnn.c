// SPDX-License-Identifier: MIT
// oneDNN benchdnn convolution descriptors ("mb32ic64ih56oc64oh56kh3ph1n\"resnet:res2a\"") to and
// from problems.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <xconv/xconv.h>

#include "core/contract.h"

// ---------------------------------------------------------------------------------------------
// The keys

// Pairs are (h, w) in adjacent slots so the w key is the h key + 1; the 3-D keys are read only
// to be refused by name.
enum {
    BD_G, BD_MB, BD_IC, BD_OC,
    BD_IH, BD_IW, BD_OH, BD_OW, BD_KH, BD_KW, BD_SH, BD_SW, BD_PH, BD_PW, BD_DH, BD_DW,
    BD_ID, BD_OD, BD_KD, BD_SD, BD_PD, BD_DD, BD_COUNT
};

static const char *const bd_names[BD_COUNT] = {
    "g", "mb", "ic", "oc", "ih", "iw", "oh", "ow", "kh", "kw", "sh", "sw", "ph", "pw", "dh", "dw",
    "id", "od", "kd", "sd", "pd", "dd",
};

#define BD_VALID_KEYS "g mb ic ih iw oc oh ow kh kw sh sw ph pw dh dw n"

// Returns the key spelled by [name, name+len), or -1.
static int bd_key(const char *name, size_t len)
{
    for (int i = 0; i < BD_COUNT; i++)
        if (strlen(bd_names[i]) == len && memcmp(bd_names[i], name, len) == 0)
            return i;
    return -1;
}

// ---------------------------------------------------------------------------------------------
// Reading the entries

typedef struct bd_desc {
    int64_t v[BD_COUNT];
    bool given[BD_COUNT];
} bd_desc;

static bool is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

// Reads the name after 'n' ([s, end), quoted or the rest of the text) into name; returns
// XCONV_OK or XCONV_ERR_PARSE.
static xconv_status bd_name(const char *s, const char *end, const char *desc, char *name,
                            size_t name_len, xconv_error *err)
{
    const char *b = s, *e = end;
    if (b < end && *b == '"') {
        b++;
        e = memchr(b, '"', (size_t)(end - b));
        if (!e)
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "unterminated quoted name in '%s'", desc);
        if (e + 1 != end)
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "text after the name's closing quote in '%s' (the name "
                                   "comes last)", desc);
    }
    if (b == e)
        return xconv_error_set(err, XCONV_ERR_PARSE, "empty name after 'n' in '%s'", desc);
    for (const char *c = b; c < e; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7F)
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "control character in the name in '%s'", desc);
    size_t len = (size_t)(e - b);
    if (name && len >= name_len)
        return xconv_error_set(err, XCONV_ERR_PARSE,
                               "name '%.*s' is longer than %zu characters", (int)len, b,
                               name_len - 1);
    if (name) {
        memcpy(name, b, len);
        name[len] = '\0';
    }
    return XCONV_OK;
}

// Reads the entries of desc ([s, end), trimmed) into *d; returns XCONV_OK or XCONV_ERR_PARSE
// naming the offending key or character.
static xconv_status bd_read(const char *s, const char *end, const char *desc, bd_desc *d,
                            char *name, size_t name_len, xconv_error *err)
{
    while (s < end) {
        if (*s == '_') {
            s++;
            continue;
        }
        if (*s == 'n')
            return bd_name(s + 1, end, desc, name, name_len, err);
        const char *kb = s;
        while (s < end && is_lower(*s))
            s++;
        if (s == kb)
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "unexpected '%c' at offset %d of '%s' (want a key such as "
                                   "ih, then its value)", *s, (int)(s - desc), desc);
        int key = bd_key(kb, (size_t)(s - kb));
        if (key < 0)
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "unknown key '%.*s' in '%s'; benchdnn keys: " BD_VALID_KEYS,
                                   (int)(s - kb), kb, desc);
        if (s < end && *s == '-')
            return xconv_error_set(err, XCONV_ERR_PARSE, "negative value for '%s' in '%s'",
                                   bd_names[key], desc);
        if (s == end || !is_digit(*s))
            return xconv_error_set(err, XCONV_ERR_PARSE, "key '%s' has no value in '%s'",
                                   bd_names[key], desc);
        int64_t v = 0;
        for (; s < end && is_digit(*s); s++) {
            v = v * 10 + (*s - '0');
            if (v > XCONV_MAX_INDEX)
                return xconv_error_set(err, XCONV_ERR_PARSE,
                                       "value of '%s' in '%s' passes %" PRId64, bd_names[key],
                                       desc, XCONV_MAX_INDEX);
        }
        if (d->given[key])
            return xconv_error_set(err, XCONV_ERR_PARSE, "key '%s' given twice in '%s'",
                                   bd_names[key], desc);
        d->v[key] = v;
        d->given[key] = true;
    }
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// benchdnn's rules

// Returns the output size of one dimension (0 when empty or the terms overflow).
static int64_t bd_out(int64_t i, int64_t k, int64_t s, int64_t p, int64_t d)
{
    xconv_problem q = xconv_problem_default();
    q.h = i;
    q.r = k;
    q.stride_h = s;
    q.pad_h = p;
    q.dil_h = d + 1;
    return xconv_problem_out_h(&q);
}

// Settles one dimension's padding (key pair base ih/iw + dim): checks a given output size
// against the given padding, or deduces the smallest padding that gives it. Returns XCONV_OK or
// XCONV_ERR_PARSE naming the output key.
static xconv_status bd_settle(bd_desc *d, int dim, const char *desc, xconv_error *err)
{
    int64_t i = d->v[BD_IH + dim], k = d->v[BD_KH + dim], s = d->v[BD_SH + dim];
    int64_t dl = d->v[BD_DH + dim];
    const char *hw = dim ? "width" : "height";
    if (!d->given[BD_OH + dim] || i < 1 || k < 1 || s < 1)
        return XCONV_OK;  // nothing to check; the problem check reports bad sizes
    int64_t o = d->v[BD_OH + dim];
    if (d->given[BD_PH + dim]) {
        int64_t got = bd_out(i, k, s, d->v[BD_PH + dim], dl);
        if (got != o)
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "%s%" PRId64 " in '%s' does not match the output %s %" PRId64
                                   " that %s%" PRId64 " %s%" PRId64 " %s%" PRId64 " %s%" PRId64
                                   " %s%" PRId64 " give",
                                   bd_names[BD_OH + dim], o, desc, hw, got, bd_names[BD_IH + dim],
                                   i, bd_names[BD_KH + dim], k, bd_names[BD_SH + dim], s,
                                   bd_names[BD_PH + dim], d->v[BD_PH + dim],
                                   bd_names[BD_DH + dim], dl);
        return XCONV_OK;
    }
    // The total padding (o-1)*s + (k-1)*(d+1) + 1 - i, split evenly (rounded up); computed in
    // double so absurd sizes cannot overflow, then checked exactly.
    double total = (double)(o - 1) * (double)s + (double)(k - 1) * (double)(dl + 1) + 1.0 -
                   (double)i;
    int64_t p = total <= 0 ? 0 : (int64_t)((total + 1) / 2);
    if (total > 2.0 * XCONV_MAX_INDEX || bd_out(i, k, s, p, dl) != o)
        return xconv_error_set(err, XCONV_ERR_PARSE,
                               "%s%" PRId64 " in '%s': no padding gives that output %s from "
                               "%s%" PRId64 " %s%" PRId64 " %s%" PRId64 " %s%" PRId64
                               " (%s0 gives %" PRId64 ")",
                               bd_names[BD_OH + dim], o, desc, hw, bd_names[BD_IH + dim], i,
                               bd_names[BD_KH + dim], k, bd_names[BD_SH + dim], s,
                               bd_names[BD_DH + dim], dl, bd_names[BD_PH + dim],
                               bd_out(i, k, s, 0, dl));
    d->v[BD_PH + dim] = p;
    d->given[BD_PH + dim] = true;
    return XCONV_OK;
}

// Applies benchdnn's defaults and implicit rules to *d and builds *p; returns XCONV_OK or
// XCONV_ERR_PARSE naming what is missing or inconsistent.
static xconv_status bd_problem(bd_desc *d, const char *desc, xconv_problem *p, xconv_error *err)
{
    for (int k = BD_ID; k <= BD_DD; k++)
        if (d->given[k])
            return xconv_error_set(err, XCONV_ERR_PARSE,
                                   "key '%s' in '%s': 3-D convolutions are not supported",
                                   bd_names[k], desc);
    if (!d->given[BD_IC])
        return xconv_error_set(err, XCONV_ERR_PARSE, "'%s' lacks 'ic' (input channels)", desc);
    if (!d->given[BD_OC])
        return xconv_error_set(err, XCONV_ERR_PARSE, "'%s' lacks 'oc' (output channels)", desc);
    // A 1-D descriptor (only w keys) is a convolution of height 1.
    bool any_h = false, any_w = false;
    for (int k = BD_IH; k <= BD_DW; k += 2) {
        any_h |= d->given[k];
        any_w |= d->given[k + 1];
    }
    if (!any_h && any_w) {
        d->v[BD_IH] = d->v[BD_KH] = 1;
        d->given[BD_IH] = d->given[BD_KH] = true;
    }
    // Values for the smaller dimension are copied from the bigger one: every key when the
    // width has none, else key by key except the output size, which follows from the others.
    for (int k = BD_IH; any_h && k <= BD_DW; k += 2) {
        if (k == BD_OH && any_w)
            continue;
        if (d->given[k] && !d->given[k + 1]) {
            d->v[k + 1] = d->v[k];
            d->given[k + 1] = true;
        } else if (!d->given[k] && d->given[k + 1]) {
            d->v[k] = d->v[k + 1];
            d->given[k] = true;
        }
    }
    if (!d->given[BD_IH])
        return xconv_error_set(err, XCONV_ERR_PARSE, "'%s' lacks 'ih' (input height)", desc);
    if (!d->given[BD_KH])
        return xconv_error_set(err, XCONV_ERR_PARSE, "'%s' lacks 'kh' (kernel height)", desc);
    static const int64_t defaults[][2] = {
        {BD_MB, 2}, {BD_G, 1}, {BD_SH, 1}, {BD_SW, 1}, {BD_DH, 0}, {BD_DW, 0},
    };
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (!d->given[defaults[i][0]])
            d->v[defaults[i][0]] = defaults[i][1];
    for (int dim = 0; dim < 2; dim++) {
        xconv_status st = bd_settle(d, dim, desc, err);
        if (st)
            return st;
    }
    xconv_problem q = xconv_problem_default();
    q.n = d->v[BD_MB];
    q.c = d->v[BD_IC];
    q.h = d->v[BD_IH];
    q.w = d->v[BD_IW];
    q.k = d->v[BD_OC];
    q.r = d->v[BD_KH];
    q.s = d->v[BD_KW];
    q.stride_h = d->v[BD_SH];
    q.stride_w = d->v[BD_SW];
    q.pad_h = d->v[BD_PH];
    q.pad_w = d->v[BD_PW];
    q.dil_h = d->v[BD_DH] + 1;
    q.dil_w = d->v[BD_DW] + 1;
    q.groups = d->v[BD_G];
    *p = q;
    return XCONV_OK;
}

// ---------------------------------------------------------------------------------------------
// Public

xconv_status xconv_shape_parse_benchdnn(const char *desc, xconv_problem *p, char *name,
                                        size_t name_len, xconv_error *err)
{
    if (XCONV_NULL_ARG(err, desc) || XCONV_NULL_ARG(err, p))
        return XCONV_ERR_INVALID;
    if (name && name_len == 0)
        return xconv_error_set(err, XCONV_ERR_INVALID, "%s: name_len is 0", __func__);
    const char *b = desc, *e = desc + strlen(desc);
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        e--;
    if (b == e)
        return xconv_error_set(err, XCONV_ERR_PARSE, "empty benchdnn descriptor");
    bd_desc d;
    memset(&d, 0, sizeof d);
    char got_name[256] = "";
    size_t got_len = name ? (name_len < sizeof got_name ? name_len : sizeof got_name)
                          : sizeof got_name;
    xconv_status st = bd_read(b, e, desc, &d, got_name, got_len, err);
    xconv_problem q;
    if (!st)
        st = bd_problem(&d, desc, &q, err);
    if (!st && (st = xconv_problem_check(&q, err)) != XCONV_OK)
        xconv_error_prefix(err, "benchdnn descriptor '%s'", desc);
    if (st)
        return st;
    *p = q;
    if (name)
        snprintf(name, name_len, "%s", got_name);
    return XCONV_OK;
}

int xconv_shape_format_benchdnn(const xconv_problem *p, char *buf, size_t len)
{
    if (!p || (!buf && len))
        return -1;
    char g[32] = "";
    if (p->groups != 1)
        snprintf(g, sizeof g, "g%" PRId64, p->groups);
    return snprintf(buf, len,
                    "%smb%" PRId64 "_ic%" PRId64 "ih%" PRId64 "iw%" PRId64 "_oc%" PRId64
                    "oh%" PRId64 "ow%" PRId64 "_kh%" PRId64 "kw%" PRId64 "_sh%" PRId64
                    "sw%" PRId64 "_ph%" PRId64 "pw%" PRId64 "_dh%" PRId64 "dw%" PRId64,
                    g, p->n, p->c, p->h, p->w, p->k, xconv_problem_out_h(p),
                    xconv_problem_out_w(p), p->r, p->s, p->stride_h, p->stride_w, p->pad_h,
                    p->pad_w, p->dil_h - 1, p->dil_w - 1);
}
