// SPDX-License-Identifier: MIT
// Reading a behaviour JSON file back (for `xconv report`), through Jansson (json_read.h): every
// field the writer writes, checked for its type.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "behaviour.h"
#include "file_open.h"
#include "json_read.h"

// The largest behaviour file read.
#define BEHAVIOUR_MAX_BYTES (64u << 20)

typedef struct reader {
    xconv_error *err;
    xconv_status st;       // the first failure; later reads do nothing
} reader;

// Fills the error with "where: what" once (the file's name is prefixed at the end); returns
// XCONV_ERR_PARSE.
static xconv_status bad(reader *rd, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static xconv_status bad(reader *rd, const char *where, const char *fmt, ...)
{
    if (rd->st)
        return rd->st;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rd->st = xconv_error_set(rd->err, XCONV_ERR_PARSE, "%s: %s",
                                    where ? where : "top level", msg);
}

// ---------------------------------------------------------------------------------------------
// Fields: each required, read only while nothing has failed

// Returns member key of obj, or NULL after an error naming it (at.key) when missing.
static const json_t *member(reader *rd, const json_t *obj, const char *at, const char *key)
{
    const json_t *v = rd->st ? NULL : json_object_get(obj, key);
    if (!v && !rd->st)
        bad(rd, at, json_is_object(obj) ? "lacks \"%s\"" : "wants an object holding \"%s\"",
            key);
    return v;
}

// Reads string member key of obj into buf (len bytes).
static void get_str(reader *rd, const json_t *obj, const char *at, const char *key, char *buf,
                    size_t len)
{
    if (!rd->st)
        rd->st = xconv_json_get_string(obj, key, true, at, buf, len, rd->err);
}

// Returns number member key of obj (null reads as NAN when nullable).
static double get_num(reader *rd, const json_t *obj, const char *at, const char *key,
                      bool nullable)
{
    double d = NAN;
    if (!rd->st)
        rd->st = xconv_json_get_double(obj, key, true, nullable, at, &d, rd->err);
    return d;
}

// Returns integer member key of obj, which must lie in [lo, hi].
static int64_t get_int(reader *rd, const json_t *obj, const char *at, const char *key,
                       int64_t lo, int64_t hi)
{
    int64_t i = 0;
    if (!rd->st)
        rd->st = xconv_json_get_int64(obj, key, true, lo, hi, at, &i, rd->err);
    return i;
}

#define COUNT_MAX INT64_MAX
#define SMALL_MAX 1000000  // shapes, probes and cases of one run

// Returns array member key of obj, or NULL after an error.
static const json_t *get_array(reader *rd, const json_t *obj, const char *at, const char *key)
{
    const json_t *v = NULL;
    if (!rd->st)
        rd->st = xconv_json_get_array(obj, key, true, at, &v, rd->err);
    return v;
}

// Returns the index of the stack whose id is string v, or -1 after an error.
static int get_stack(reader *rd, const xconv_behaviour_run *run, const char *at, const json_t *v)
{
    if (!v || rd->st)
        return -1;
    for (int i = 0; i < run->nstacks; i++)
        if (xconv_json_is_word(v, run->stacks[i].id))
            return i;
    bad(rd, at, "names no stack of \"stacks\"");
    return -1;
}

// ---------------------------------------------------------------------------------------------
// Blocks

static void read_stack(reader *rd, const json_t *o, const char *at, xconv_behaviour_stack *s)
{
    get_str(rd, o, at, "id", s->id, sizeof s->id);
    get_str(rd, o, at, "device", s->device, sizeof s->device);
    get_str(rd, o, at, "backend", s->backend, sizeof s->backend);
    get_str(rd, o, at, "platform", s->platform, sizeof s->platform);
    get_str(rd, o, at, "driver", s->driver, sizeof s->driver);
    get_str(rd, o, at, "version", s->version, sizeof s->version);
    get_str(rd, o, at, "type", s->type, sizeof s->type);
    get_str(rd, o, at, "build_flags", s->build_flags, sizeof s->build_flags);
    const json_t *flags = get_array(rd, o, at, "fp32_config");
    for (size_t i = 0; flags && !rd->st && i < json_array_size(flags); i++) {
        const json_t *v = json_array_get(flags, i);
        unsigned bit = 1;
        while (bit && !(xconv_fp_flag_name(bit) && xconv_json_is_word(v, xconv_fp_flag_name(bit))))
            bit <<= 1;
        if (!bit)
            bad(rd, at, "fp32_config[%zu] is not a known flag", i);
        s->fp32_config |= bit;
    }
}

static void read_probe(reader *rd, const json_t *o, const char *at, xconv_behaviour_probe *p)
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
            bad(rd, at, "kind wants \"special\", \"zero\" or \"denormal\"");
    }
    p->cases = (int)get_int(rd, o, at, "cases", 0, SMALL_MAX);
    p->ran = (int)get_int(rd, o, at, "ran", 0, SMALL_MAX);
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

static void read_shape_result(reader *rd, const xconv_behaviour_run *run, const json_t *o,
                              const char *at, xconv_behaviour_shape *s)
{
    char word[24] = "";
    s->shape = (int)get_int(rd, o, at, "shape", 0, run->nshapes - 1);
    get_str(rd, o, at, "outcome", word, sizeof word);
    int outcome = outcome_of(word);
    if (!rd->st && outcome < 0)
        bad(rd, at, "outcome \"%s\" is not a known outcome", word);
    s->outcome = outcome < 0 ? XCONV_OUTCOME_ERROR : (xconv_outcome)outcome;
    s->max_norm_err = get_num(rd, o, at, "max_norm_err", true);
    s->max_block_err = get_num(rd, o, at, "max_block_err", true);
    s->max_ulp = (uint64_t)get_int(rd, o, at, "max_ulp", 0, COUNT_MAX);
    if (!rd->st)
        rd->st = xconv_json_get_bool(o, "deterministic", true, at, &s->deterministic, rd->err);
    get_str(rd, o, at, "note", s->note, sizeof s->note);
}

static void read_record(reader *rd, const xconv_behaviour_run *run, const json_t *o,
                        const char *at, xconv_behaviour_record *r)
{
    char where[96];
    r->stack = get_stack(rd, run, at, member(rd, o, at, "stack"));
    get_str(rd, o, at, "variant", r->variant, sizeof r->variant);
    get_str(rd, o, at, "family", r->family, sizeof r->family);
    get_str(rd, o, at, "accuracy_family", r->accuracy_family, sizeof r->accuracy_family);
    get_str(rd, o, at, "kernels", r->kernels, sizeof r->kernels);
    r->threshold = get_num(rd, o, at, "threshold", true);
    get_str(rd, o, at, "note", r->note, sizeof r->note);
    const json_t *a = member(rd, o, at, "accuracy");
    snprintf(where, sizeof where, "%s.accuracy", at);
    if (a) {
        r->shapes = (int)get_int(rd, a, where, "shapes", 0, SMALL_MAX);
        r->passed = (int)get_int(rd, a, where, "passed", 0, SMALL_MAX);
        r->failed = (int)get_int(rd, a, where, "failed", 0, SMALL_MAX);
        r->not_applicable = (int)get_int(rd, a, where, "not_applicable", 0, SMALL_MAX);
        r->errors = (int)get_int(rd, a, where, "errors", 0, SMALL_MAX);
        r->max_norm_err = get_num(rd, a, where, "max_norm_err", true);
        r->median_norm_err = get_num(rd, a, where, "median_norm_err", true);
        r->max_block_err = get_num(rd, a, where, "max_block_err", true);
        r->worst_shape = (int)get_int(rd, a, where, "worst_shape", -1, run->nshapes - 1);
        r->ulp_compared = get_int(rd, a, where, "ulp_compared", 0, COUNT_MAX);
        r->max_ulp = (uint64_t)get_int(rd, a, where, "max_ulp", 0, COUNT_MAX);
        r->median_ulp = get_num(rd, a, where, "median_ulp", true);
        r->share_correctly_rounded = get_num(rd, a, where, "share_correctly_rounded", true);
    }
    const json_t *d = member(rd, o, at, "determinism");
    snprintf(where, sizeof where, "%s.determinism", at);
    if (d) {
        r->det_compared = (int)get_int(rd, d, where, "compared", 0, SMALL_MAX);
        r->det_differing = (int)get_int(rd, d, where, "differing", 0, SMALL_MAX);
    }
    const json_t *probes = get_array(rd, o, at, "probes");
    for (size_t i = 0; probes && !rd->st && i < json_array_size(probes); i++) {
        if (r->nprobes == XCONV_BEHAVIOUR_MAX_PROBES) {
            bad(rd, at, "more than %d probes", XCONV_BEHAVIOUR_MAX_PROBES);
            break;
        }
        snprintf(where, sizeof where, "%s.probes[%zu]", at, i);
        read_probe(rd, json_array_get(probes, i), where, &r->probes[r->nprobes++]);
    }
    const json_t *shapes = get_array(rd, o, at, "shapes");
    if (!shapes || rd->st)
        return;
    r->per_shape = calloc(json_array_size(shapes) + 1, sizeof *r->per_shape);
    if (!r->per_shape) {
        rd->st = xconv_error_set(rd->err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
        return;
    }
    for (size_t i = 0; !rd->st && i < json_array_size(shapes); i++) {
        snprintf(where, sizeof where, "%s.shapes[%zu]", at, i);
        read_shape_result(rd, run, json_array_get(shapes, i), where, &r->per_shape[r->nshapes++]);
    }
}

static void read_agreement(reader *rd, const xconv_behaviour_run *run, const json_t *o,
                           const char *at, xconv_behaviour_agreement *g)
{
    get_str(rd, o, at, "variant", g->variant, sizeof g->variant);
    const json_t *pair = get_array(rd, o, at, "stacks");
    if (pair && json_array_size(pair) != 2)
        bad(rd, at, "\"stacks\" wants two stack ids");
    if (pair && !rd->st) {
        g->stack_a = get_stack(rd, run, at, json_array_get(pair, 0));
        g->stack_b = get_stack(rd, run, at, json_array_get(pair, 1));
    }
    g->shapes = (int)get_int(rd, o, at, "shapes", 0, SMALL_MAX);
    g->identical_shapes = (int)get_int(rd, o, at, "identical_shapes", 0, SMALL_MAX);
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
static bool alloc_items(reader *rd, const json_t *arr, size_t size, void **items)
{
    *items = calloc(json_array_size(arr) + 1, size);
    if (!*items)
        rd->st = xconv_error_set(rd->err, XCONV_ERR_OUT_OF_MEMORY, "no memory");
    return *items != NULL;
}

// Fills run from the tree root (a behaviour file already checked to be one).
static void read_tree(reader *rd, const json_t *root, xconv_behaviour_run *run)
{
    const char *top = NULL;  // the top level
    run->schema_version = (int)get_int(rd, root, top, "schema_version", 1,
                                       XCONV_BEHAVIOUR_SCHEMA_VERSION);
    get_str(rd, root, top, "version", run->info.tool_version, sizeof run->info.tool_version);
    get_str(rd, root, top, "commit", run->info.commit, sizeof run->info.commit);
    get_str(rd, root, top, "date", run->info.date, sizeof run->info.date);
    get_str(rd, root, top, "command", run->info.command, sizeof run->info.command);
    get_str(rd, root, top, "host", run->host, sizeof run->host);
    run->seed = (uint64_t)get_int(rd, root, top, "seed", 0, INT64_MAX);
    run->host_ref_gflop = get_num(rd, root, top, "host_ref_gflop", true);
    const json_t *shapes = get_array(rd, root, top, "shapes");
    const json_t *cases = get_array(rd, root, top, "probe_problems");
    const json_t *stacks = get_array(rd, root, top, "stacks");
    const json_t *recs = get_array(rd, root, top, "records");
    const json_t *agree = get_array(rd, root, top, "agreement");
    if (rd->st || !alloc_items(rd, shapes, sizeof *run->shapes, (void **)&run->shapes) ||
        !alloc_items(rd, cases, sizeof *run->cases, (void **)&run->cases) ||
        !alloc_items(rd, stacks, sizeof *run->stacks, (void **)&run->stacks) ||
        !alloc_items(rd, recs, sizeof *run->recs, (void **)&run->recs) ||
        !alloc_items(rd, agree, sizeof *run->agree, (void **)&run->agree))
        return;
    char at[64];
    for (size_t i = 0; !rd->st && i < json_array_size(shapes); i++, run->nshapes++) {
        const json_t *o = json_array_get(shapes, i);
        snprintf(at, sizeof at, "shapes[%zu]", i);
        get_str(rd, o, at, "name", run->shapes[i].name, sizeof run->shapes[i].name);
        get_str(rd, o, at, "shape", run->shapes[i].spec, sizeof run->shapes[i].spec);
    }
    for (size_t i = 0; !rd->st && i < json_array_size(cases); i++, run->ncases++) {
        const json_t *o = json_array_get(cases, i);
        snprintf(at, sizeof at, "probe_problems[%zu]", i);
        get_str(rd, o, at, "probe", run->cases[i].probe, sizeof run->cases[i].probe);
        get_str(rd, o, at, "shape", run->cases[i].spec, sizeof run->cases[i].spec);
        get_str(rd, o, at, "inputs", run->cases[i].what, sizeof run->cases[i].what);
    }
    for (size_t i = 0; !rd->st && i < json_array_size(stacks); i++) {
        snprintf(at, sizeof at, "stacks[%zu]", i);
        read_stack(rd, json_array_get(stacks, i), at, &run->stacks[i]);
        for (size_t k = 0; !rd->st && k < i; k++)
            if (strcmp(run->stacks[k].id, run->stacks[i].id) == 0)
                bad(rd, at, "id \"%s\" appears twice", run->stacks[i].id);
        run->nstacks++;
    }
    for (size_t i = 0; !rd->st && i < json_array_size(recs); i++) {
        snprintf(at, sizeof at, "records[%zu]", i);
        run->count++;
        read_record(rd, run, json_array_get(recs, i), at, &run->recs[i]);
    }
    for (size_t i = 0; !rd->st && i < json_array_size(agree); i++, run->nagree++) {
        snprintf(at, sizeof at, "agreement[%zu]", i);
        read_agreement(rd, run, json_array_get(agree, i), at, &run->agree[i]);
    }
}

// Returns true when root is an object with "tool": "xconv" and "kind": "behaviour".
static bool behaviour_root(const json_t *root)
{
    return xconv_json_is_word(json_object_get(root, "tool"), "xconv") &&
           xconv_json_is_word(json_object_get(root, "kind"), "behaviour");
}

// Reads the parsed tree root into *out; returns XCONV_OK or the first failure, its message
// prefixed with origin (*out empty).
static xconv_status read_root(const json_t *root, const char *origin,
                              xconv_behaviour_run *out, xconv_error *err)
{
    reader rd = {.err = err};
    if (!behaviour_root(root))
        bad(&rd, "top level", "not an xconv behaviour file (it lacks \"tool\": \"xconv\" "
                              "and \"kind\": \"behaviour\")");
    else
        read_tree(&rd, root, out);
    if (rd.st) {
        xconv_behaviour_run_free(out);
        if (err)
            xconv_error_prefix(err, "%s", origin);
    }
    return rd.st;
}

xconv_status xconv_behaviour_parse(const char *text, size_t len, const char *origin,
                                   xconv_behaviour_run *out, xconv_error *err)
{
    memset(out, 0, sizeof *out);
    origin = origin ? origin : "behaviour";
    xconv_error local;
    err = err ? err : &local;
    json_t *root = xconv_json_parse(text, len, err);
    if (!root)
        return xconv_error_prefix(err, "%s", origin);
    xconv_status st = read_root(root, origin, out, err);
    json_decref(root);
    return st;
}

xconv_status xconv_behaviour_load(const char *path, xconv_behaviour_run *out, bool *is_behaviour,
                                  xconv_error *err)
{
    memset(out, 0, sizeof *out);
    *is_behaviour = false;
    json_t *root;
    xconv_status st = xconv_json_probe_path(path, BEHAVIOUR_MAX_BYTES, &root, err);
    if (st == XCONV_OK && root && behaviour_root(root)) {
        *is_behaviour = true;
        st = read_root(root, path, out, err);
    }
    json_decref(root);
    return st;
}
