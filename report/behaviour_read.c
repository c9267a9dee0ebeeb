// SPDX-License-Identifier: MIT
// Reading a behaviour JSON file back (for `xconv report`), through the strict JSON reader: every
// field the writer writes, checked for its type.
#include <errno.h>
#include "file_open.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "behaviour.h"
#include "json_read.h"

// The largest behaviour file read.
#define BEHAVIOUR_MAX_BYTES (64u << 20)

typedef struct reader {
    const char *origin;
    xconv_error *err;
    xconv_status st;       // the first failure; later reads do nothing
} reader;

// Fills the error with "origin: byte N: where: what" once; returns XCONV_ERR_PARSE.
static xconv_status bad(reader *rd, const xconv_json *at, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static xconv_status bad(reader *rd, const xconv_json *at, const char *where, const char *fmt, ...)
{
    if (rd->st)
        return rd->st;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rd->st = xconv_error_set(rd->err, XCONV_ERR_PARSE, "%s: byte %zu: %s: %s", rd->origin,
                                    at ? at->offset : 0, where, msg);
}

// ---------------------------------------------------------------------------------------------
// Fields

// Returns member key of obj, or NULL after an error naming it (prefix.key) when missing.
static const xconv_json *member(reader *rd, const xconv_json *obj, const char *prefix,
                                const char *key)
{
    const xconv_json *v = rd->st ? NULL : xconv_json_get(obj, key);
    if (!v && !rd->st)
        bad(rd, obj, prefix, "lacks \"%s\"", key);
    return v;
}

// Reads string member key of obj into buf (len bytes).
static void get_str(reader *rd, const xconv_json *obj, const char *prefix, const char *key,
                    char *buf, size_t len)
{
    const xconv_json *v = member(rd, obj, prefix, key);
    if (!v)
        return;
    if (v->type != XCONV_JSON_STRING)
        bad(rd, v, prefix, "\"%s\" wants a string, got %s", key, xconv_json_type_name(v->type));
    else if (v->length >= len)
        bad(rd, v, prefix, "\"%s\" is longer than %zu bytes", key, len - 1);
    else
        memcpy(buf, v->string, v->length + 1);
}

// Returns number member key of obj (null reads as NAN when nullable).
static double get_num(reader *rd, const xconv_json *obj, const char *prefix, const char *key,
                      bool nullable)
{
    const xconv_json *v = member(rd, obj, prefix, key);
    if (!v)
        return NAN;
    if (v->type == XCONV_JSON_NULL && nullable)
        return NAN;
    if (v->type != XCONV_JSON_NUMBER) {
        bad(rd, v, prefix, "\"%s\" wants a number, got %s", key, xconv_json_type_name(v->type));
        return NAN;
    }
    return v->number;
}

// Returns integer member key of obj, which must lie in [lo, hi].
static int64_t get_int(reader *rd, const xconv_json *obj, const char *prefix, const char *key,
                       double lo, double hi)
{
    double d = get_num(rd, obj, prefix, key, false);
    if (rd->st)
        return 0;
    if (d != floor(d) || d < lo || d > hi) {
        bad(rd, xconv_json_get(obj, key), prefix, "\"%s\" wants an integer in [%.0f, %.0f]", key,
            lo, hi);
        return 0;
    }
    return (int64_t)d;
}

#define COUNT_MAX 9007199254740992.0  // 2^53: counts are exact below it

// Returns array member key of obj, or NULL after an error.
static const xconv_json *get_array(reader *rd, const xconv_json *obj, const char *prefix,
                                   const char *key)
{
    const xconv_json *v = member(rd, obj, prefix, key);
    if (v && v->type != XCONV_JSON_ARRAY) {
        bad(rd, v, prefix, "\"%s\" wants an array, got %s", key, xconv_json_type_name(v->type));
        return NULL;
    }
    return v;
}

// Returns the index of the stack whose id is that of string member key of obj, or -1 after an
// error.
static int get_stack(reader *rd, const xconv_behaviour_run *run, const xconv_json *obj,
                     const char *prefix, const xconv_json *v)
{
    if (!v || rd->st)
        return -1;
    if (v->type == XCONV_JSON_STRING)
        for (int i = 0; i < run->nstacks; i++)
            if (strcmp(run->stacks[i].id, v->string) == 0)
                return i;
    bad(rd, v ? v : obj, prefix, "names no stack of \"stacks\"");
    return -1;
}

// ---------------------------------------------------------------------------------------------
// Blocks

static void read_stack(reader *rd, const xconv_json *o, const char *at, xconv_behaviour_stack *s)
{
    get_str(rd, o, at, "id", s->id, sizeof s->id);
    get_str(rd, o, at, "device", s->device, sizeof s->device);
    get_str(rd, o, at, "backend", s->backend, sizeof s->backend);
    get_str(rd, o, at, "platform", s->platform, sizeof s->platform);
    get_str(rd, o, at, "driver", s->driver, sizeof s->driver);
    get_str(rd, o, at, "version", s->version, sizeof s->version);
    get_str(rd, o, at, "type", s->type, sizeof s->type);
    get_str(rd, o, at, "build_flags", s->build_flags, sizeof s->build_flags);
    const xconv_json *flags = get_array(rd, o, at, "fp32_config");
    for (int i = 0; flags && !rd->st && i < flags->count; i++) {
        const xconv_json *v = &flags->items[i];
        unsigned bit = 1;
        while (bit && !(v->type == XCONV_JSON_STRING && xconv_fp_flag_name(bit) &&
                        strcmp(xconv_fp_flag_name(bit), v->string) == 0))
            bit <<= 1;
        if (!bit)
            bad(rd, v, at, "fp32_config holds an unknown flag");
        s->fp32_config |= bit;
    }
}

static void read_probe(reader *rd, const xconv_json *o, const char *at, xconv_behaviour_probe *p)
{
    char kind[16] = "";
    get_str(rd, o, at, "probe", p->name, sizeof p->name);
    get_str(rd, o, at, "kind", kind, sizeof kind);
    if (!rd->st) {
        if (strcmp(kind, "special") == 0)
            p->kind = XCONV_PROBE_SPECIAL;
        else if (strcmp(kind, "zero") == 0)
            p->kind = XCONV_PROBE_ZERO;
        else if (strcmp(kind, "denormal") == 0)
            p->kind = XCONV_PROBE_DENORMAL;
        else
            bad(rd, xconv_json_get(o, "kind"), at, "wants \"special\", \"zero\" or \"denormal\"");
    }
    p->cases = (int)get_int(rd, o, at, "cases", 0, 1e6);
    p->ran = (int)get_int(rd, o, at, "ran", 0, 1e6);
    get_str(rd, o, at, "verdict", p->verdict, sizeof p->verdict);
    p->outputs = get_int(rd, o, at, "outputs", 0, COUNT_MAX);
    get_str(rd, o, at, "note", p->note, sizeof p->note);
    struct {
        const char *key;
        int64_t *v;
    } special[] = {{"expected_special", &p->expected_special}, {"extra", &p->extra},
                   {"missing", &p->missing}, {"wrong_kind", &p->wrong_kind},
                   {"beyond_block", &p->beyond_block}, {"finite_off", &p->finite_off}},
      zero[] = {{"zeros", &p->zeros}, {"ieee_minus", &p->ieee_minus},
                {"got_minus", &p->got_minus}, {"got_plus", &p->got_plus},
                {"sign_mismatch", &p->sign_mismatch}, {"nonzero", &p->nonzero}},
      denormal[] = {{"kept", &p->kept}, {"flushed", &p->flushed}, {"wrong", &p->wrong}};
    for (int i = 0; i < 6; i++) {
        if (p->kind == XCONV_PROBE_SPECIAL)
            *special[i].v = get_int(rd, o, at, special[i].key, 0, COUNT_MAX);
        else if (p->kind == XCONV_PROBE_ZERO)
            *zero[i].v = get_int(rd, o, at, zero[i].key, 0, COUNT_MAX);
        else if (i < 3)
            *denormal[i].v = get_int(rd, o, at, denormal[i].key, 0, COUNT_MAX);
    }
}

// Returns the outcome word's outcome, or -1.
static int outcome_of(const char *word)
{
    static const char *const words[] = {"pass", "fail", "not_applicable", "error"};
    for (int i = 0; i < 4; i++)
        if (strcmp(word, words[i]) == 0)
            return i;
    return -1;
}

static void read_shape_result(reader *rd, const xconv_behaviour_run *run, const xconv_json *o,
                              const char *at, xconv_behaviour_shape *s)
{
    char word[24] = "";
    s->shape = (int)get_int(rd, o, at, "shape", 0, run->nshapes - 1);
    get_str(rd, o, at, "outcome", word, sizeof word);
    int outcome = outcome_of(word);
    if (!rd->st && outcome < 0)
        bad(rd, xconv_json_get(o, "outcome"), at, "an unknown outcome");
    s->outcome = outcome < 0 ? XCONV_OUTCOME_ERROR : (xconv_outcome)outcome;
    s->max_norm_err = get_num(rd, o, at, "max_norm_err", true);
    s->max_block_err = get_num(rd, o, at, "max_block_err", true);
    s->max_ulp = (uint64_t)get_int(rd, o, at, "max_ulp", 0, COUNT_MAX);
    const xconv_json *det = member(rd, o, at, "deterministic");
    if (det && det->type != XCONV_JSON_BOOL)
        bad(rd, det, at, "\"deterministic\" wants true or false");
    s->deterministic = det && det->boolean;
    get_str(rd, o, at, "note", s->note, sizeof s->note);
}

static void read_record(reader *rd, const xconv_behaviour_run *run, const xconv_json *o,
                        const char *at, xconv_behaviour_record *r)
{
    char where[96];
    r->stack = get_stack(rd, run, o, at, member(rd, o, at, "stack"));
    get_str(rd, o, at, "variant", r->variant, sizeof r->variant);
    get_str(rd, o, at, "family", r->family, sizeof r->family);
    get_str(rd, o, at, "accuracy_family", r->accuracy_family, sizeof r->accuracy_family);
    get_str(rd, o, at, "kernels", r->kernels, sizeof r->kernels);
    r->threshold = get_num(rd, o, at, "threshold", true);
    get_str(rd, o, at, "note", r->note, sizeof r->note);
    const xconv_json *a = member(rd, o, at, "accuracy");
    snprintf(where, sizeof where, "%s.accuracy", at);
    if (a) {
        r->shapes = (int)get_int(rd, a, where, "shapes", 0, 1e6);
        r->passed = (int)get_int(rd, a, where, "passed", 0, 1e6);
        r->failed = (int)get_int(rd, a, where, "failed", 0, 1e6);
        r->not_applicable = (int)get_int(rd, a, where, "not_applicable", 0, 1e6);
        r->errors = (int)get_int(rd, a, where, "errors", 0, 1e6);
        r->max_norm_err = get_num(rd, a, where, "max_norm_err", true);
        r->median_norm_err = get_num(rd, a, where, "median_norm_err", true);
        r->max_block_err = get_num(rd, a, where, "max_block_err", true);
        r->worst_shape = (int)get_int(rd, a, where, "worst_shape", -1, run->nshapes - 1);
        r->ulp_compared = get_int(rd, a, where, "ulp_compared", 0, COUNT_MAX);
        r->max_ulp = (uint64_t)get_int(rd, a, where, "max_ulp", 0, COUNT_MAX);
        r->median_ulp = get_num(rd, a, where, "median_ulp", true);
        r->share_correctly_rounded = get_num(rd, a, where, "share_correctly_rounded", true);
    }
    const xconv_json *d = member(rd, o, at, "determinism");
    snprintf(where, sizeof where, "%s.determinism", at);
    if (d) {
        r->det_compared = (int)get_int(rd, d, where, "compared", 0, 1e6);
        r->det_differing = (int)get_int(rd, d, where, "differing", 0, 1e6);
    }
    const xconv_json *probes = get_array(rd, o, at, "probes");
    for (int i = 0; probes && !rd->st && i < probes->count; i++) {
        if (r->nprobes == XCONV_BEHAVIOUR_MAX_PROBES) {
            bad(rd, &probes->items[i], at, "more than %d probes", XCONV_BEHAVIOUR_MAX_PROBES);
            break;
        }
        snprintf(where, sizeof where, "%s.probes[%d]", at, i);
        read_probe(rd, &probes->items[i], where, &r->probes[r->nprobes++]);
    }
    const xconv_json *shapes = get_array(rd, o, at, "shapes");
    if (!shapes || rd->st)
        return;
    r->per_shape = calloc((size_t)shapes->count + 1, sizeof *r->per_shape);
    if (!r->per_shape) {
        rd->st = xconv_error_set(rd->err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
        return;
    }
    for (int i = 0; !rd->st && i < shapes->count; i++) {
        snprintf(where, sizeof where, "%s.shapes[%d]", at, i);
        read_shape_result(rd, run, &shapes->items[i], where, &r->per_shape[r->nshapes++]);
    }
}

static void read_agreement(reader *rd, const xconv_behaviour_run *run, const xconv_json *o,
                           const char *at, xconv_behaviour_agreement *g)
{
    get_str(rd, o, at, "variant", g->variant, sizeof g->variant);
    const xconv_json *pair = get_array(rd, o, at, "stacks");
    if (pair && pair->count != 2)
        bad(rd, pair, at, "\"stacks\" wants two stack ids");
    if (pair && !rd->st) {
        g->stack_a = get_stack(rd, run, o, at, &pair->items[0]);
        g->stack_b = get_stack(rd, run, o, at, &pair->items[1]);
    }
    g->shapes = (int)get_int(rd, o, at, "shapes", 0, 1e6);
    g->identical_shapes = (int)get_int(rd, o, at, "identical_shapes", 0, 1e6);
    g->compared = get_int(rd, o, at, "compared", 0, COUNT_MAX);
    g->differing = get_int(rd, o, at, "differing", 0, COUNT_MAX);
    g->nonfinite_mismatch = get_int(rd, o, at, "nonfinite_mismatch", 0, COUNT_MAX);
    g->max_ulp = (uint64_t)get_int(rd, o, at, "max_ulp", 0, COUNT_MAX);
    g->median_ulp = get_num(rd, o, at, "median_ulp", true);
    g->median_ulp_differing = get_num(rd, o, at, "median_ulp_differing", true);
}

// ---------------------------------------------------------------------------------------------
// The file

// Allocates *items for the count entries of array arr (NULL: none); returns false after an
// out-of-memory error.
static bool alloc_items(reader *rd, const xconv_json *arr, size_t size, void **items)
{
    *items = calloc(arr ? (size_t)arr->count + 1 : 1, size);
    if (!*items)
        rd->st = xconv_error_set(rd->err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
    return *items != NULL;
}

// Fills run from the tree root (a behaviour file already checked to be one).
static void read_tree(reader *rd, const xconv_json *root, xconv_behaviour_run *run)
{
    const char *top = "top level";
    run->schema_version = (int)get_int(rd, root, top, "schema_version", 1,
                                       XCONV_BEHAVIOUR_SCHEMA_VERSION);
    get_str(rd, root, top, "version", run->info.tool_version, sizeof run->info.tool_version);
    get_str(rd, root, top, "commit", run->info.commit, sizeof run->info.commit);
    get_str(rd, root, top, "date", run->info.date, sizeof run->info.date);
    get_str(rd, root, top, "command", run->info.command, sizeof run->info.command);
    get_str(rd, root, top, "host", run->host, sizeof run->host);
    run->seed = (uint64_t)get_num(rd, root, top, "seed", false);
    run->host_ref_gflop = get_num(rd, root, top, "host_ref_gflop", true);
    const xconv_json *shapes = get_array(rd, root, top, "shapes");
    const xconv_json *cases = get_array(rd, root, top, "probe_problems");
    const xconv_json *stacks = get_array(rd, root, top, "stacks");
    const xconv_json *recs = get_array(rd, root, top, "records");
    const xconv_json *agree = get_array(rd, root, top, "agreement");
    if (rd->st || !alloc_items(rd, shapes, sizeof *run->shapes, (void **)&run->shapes) ||
        !alloc_items(rd, cases, sizeof *run->cases, (void **)&run->cases) ||
        !alloc_items(rd, stacks, sizeof *run->stacks, (void **)&run->stacks) ||
        !alloc_items(rd, recs, sizeof *run->recs, (void **)&run->recs) ||
        !alloc_items(rd, agree, sizeof *run->agree, (void **)&run->agree))
        return;
    char at[64];
    for (int i = 0; !rd->st && i < shapes->count; i++, run->nshapes++) {
        snprintf(at, sizeof at, "shapes[%d]", i);
        get_str(rd, &shapes->items[i], at, "name", run->shapes[i].name,
                sizeof run->shapes[i].name);
        get_str(rd, &shapes->items[i], at, "shape", run->shapes[i].spec,
                sizeof run->shapes[i].spec);
    }
    for (int i = 0; !rd->st && i < cases->count; i++, run->ncases++) {
        snprintf(at, sizeof at, "probe_problems[%d]", i);
        get_str(rd, &cases->items[i], at, "probe", run->cases[i].probe,
                sizeof run->cases[i].probe);
        get_str(rd, &cases->items[i], at, "shape", run->cases[i].spec,
                sizeof run->cases[i].spec);
        get_str(rd, &cases->items[i], at, "inputs", run->cases[i].what,
                sizeof run->cases[i].what);
    }
    for (int i = 0; !rd->st && i < stacks->count; i++) {
        snprintf(at, sizeof at, "stacks[%d]", i);
        read_stack(rd, &stacks->items[i], at, &run->stacks[i]);
        for (int k = 0; !rd->st && k < i; k++)
            if (strcmp(run->stacks[k].id, run->stacks[i].id) == 0)
                bad(rd, &stacks->items[i], at, "id \"%s\" appears twice", run->stacks[i].id);
        run->nstacks++;
    }
    for (int i = 0; !rd->st && i < recs->count; i++) {
        snprintf(at, sizeof at, "records[%d]", i);
        run->count++;
        read_record(rd, run, &recs->items[i], at, &run->recs[i]);
    }
    for (int i = 0; !rd->st && i < agree->count; i++, run->nagree++) {
        snprintf(at, sizeof at, "agreement[%d]", i);
        read_agreement(rd, run, &agree->items[i], at, &run->agree[i]);
    }
}

// Returns true when root is an object with "tool": "xconv" and "kind": "behaviour".
static bool behaviour_root(const xconv_json *root)
{
    const xconv_json *tool = xconv_json_get(root, "tool"), *kind = xconv_json_get(root, "kind");
    return tool && tool->type == XCONV_JSON_STRING && strcmp(tool->string, "xconv") == 0 &&
           kind && kind->type == XCONV_JSON_STRING && strcmp(kind->string, "behaviour") == 0;
}

// Reads the parsed tree root into *out; returns XCONV_OK or the first failure (*out empty).
static xconv_status read_root(const xconv_json *root, const char *origin,
                              xconv_behaviour_run *out, xconv_error *err)
{
    reader rd = {.origin = origin, .err = err};
    if (!behaviour_root(root))
        bad(&rd, root, "top level", "not an xconv behaviour file (it lacks \"tool\": \"xconv\" "
                                    "and \"kind\": \"behaviour\")");
    else
        read_tree(&rd, root, out);
    if (rd.st)
        xconv_behaviour_run_free(out);
    return rd.st;
}

xconv_status xconv_behaviour_parse(const char *text, size_t len, const char *origin,
                                   xconv_behaviour_run *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    origin = origin ? origin : "behaviour";
    xconv_json *root = xconv_json_parse(text, len, err);
    if (!root)
        return xconv_error_prefix(err, "%s", origin);
    xconv_status st = read_root(root, origin, out, err);
    xconv_json_free(root);
    return st;
}

xconv_status xconv_behaviour_load(const char *path, xconv_behaviour_run *out, bool *is_behaviour,
                                  xconv_error *err)
{
    memset(out, 0, sizeof *out);
    *is_behaviour = false;
    struct stat sb;
    FILE *f = xconv_file_open_regular(path, &sb);
    if (!f && errno == EINVAL)
        return XCONV_OK;  // not one of ours: the caller's reader says what it is
    if (!f)
        return xconv_error_set(err, XCONV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    if ((uint64_t)sb.st_size > BEHAVIOUR_MAX_BYTES) {
        fclose(f);  // not one of ours: the caller's reader says what it is
        return XCONV_OK;
    }
    size_t len = (size_t)sb.st_size;
    char *text = malloc(len + 1);
    bool failed = !text || fread(text, 1, len, f) != len || ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        return xconv_error_set(err, XCONV_ERR_IO, "cannot read '%s'", path);
    }
    xconv_error parse_err = {0};
    xconv_json *root = xconv_json_parse(text, len, &parse_err);
    free(text);
    xconv_status st = XCONV_OK;
    if (root && behaviour_root(root)) {
        *is_behaviour = true;
        st = read_root(root, path, out, err);
    }
    xconv_json_free(root);
    return st;
}
