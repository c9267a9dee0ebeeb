// SPDX-License-Identifier: MIT
// The behaviour report as JSON (schema in docs/behaviour.md): run info, shapes, probe problems,
// stacks, one record per stack and variant, and the agreement of each pair of stacks.
#include <math.h>
#include <string.h>

#include "behaviour.h"

// ---------------------------------------------------------------------------------------------
// Values

// Writes "key": and a JSON string.
static void str(FILE *f, const char *key, const char *s, size_t max)
{
    fprintf(f, "\"%s\": ", key);
    xconv_json_write_string(f, s, max);
}

#define STR(f, key, field) str(f, key, field, sizeof(field))

// Writes "key": and a number, or null when it is not finite.
static void num(FILE *f, const char *key, double v)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.9g", key, v);
    else
        fprintf(f, "\"%s\": null", key);
}

// Writes "key": and an integer.
static void i64(FILE *f, const char *key, int64_t v)
{
    fprintf(f, "\"%s\": %lld", key, (long long)v);
}

// The same after a ", ": a member after an object's first.
#define NEXT_STR(f, key, field) (fputs(", ", f), STR(f, key, field))

static void next_num(FILE *f, const char *key, double v)
{
    fputs(", ", f);
    num(f, key, v);
}

static void next_i64(FILE *f, const char *key, int64_t v)
{
    fputs(", ", f);
    i64(f, key, v);
}

// Returns the kind of probe as the file spells it.
static const char *kind_word(xconv_probe_kind kind)
{
    return kind == XCONV_PROBE_SPECIAL ? "special" : kind == XCONV_PROBE_ZERO ? "zero"
                                                                              : "denormal";
}

// ---------------------------------------------------------------------------------------------
// Blocks: a stack, a record and an agreement are item i of run's array of them

static void write_stack(FILE *f, const xconv_behaviour_run *run, int i)
{
    const xconv_behaviour_stack *s = &run->stacks[i];
    const xconv_json_str strings[] = {
        XCONV_JSON_STR("id", s->id),           XCONV_JSON_STR("device", s->device),
        XCONV_JSON_STR("backend", s->backend), XCONV_JSON_STR("platform", s->platform),
        XCONV_JSON_STR("driver", s->driver),   XCONV_JSON_STR("version", s->version),
        XCONV_JSON_STR("type", s->type),
    };
    fputs("    {", f);
    xconv_json_write_strings(f, strings, sizeof strings / sizeof strings[0], true);
    fputs(", \"fp32_config\": [", f);
    int n = 0;
    for (unsigned bit = 1; bit; bit <<= 1) {
        const char *name = (s->fp32_config & bit) ? xconv_fp_flag_name(bit) : NULL;
        if (name)
            fprintf(f, "%s\"%s\"", n++ ? ", " : "", name);
    }
    fputs("], ", f);
    STR(f, "build_flags", s->build_flags);
    fputs("}", f);
}

static void write_probe(FILE *f, const xconv_behaviour_probe *p)
{
    fputs("        {", f);
    STR(f, "probe", p->name);
    fprintf(f, ", \"kind\": \"%s\", ", kind_word(p->kind));
    i64(f, "cases", p->cases);
    next_i64(f, "ran", p->ran);
    NEXT_STR(f, "verdict", p->verdict);
    next_i64(f, "outputs", p->outputs);
    struct {
        const char *key;
        int64_t v;
    } special[] = {{"expected_special", p->expected_special}, {"extra", p->extra},
                   {"missing", p->missing}, {"wrong_kind", p->wrong_kind},
                   {"beyond_block", p->beyond_block}, {"finite_off", p->finite_off}},
      zero[] = {{"zeros", p->zeros}, {"ieee_minus", p->ieee_minus},
                {"got_minus", p->got_minus}, {"got_plus", p->got_plus},
                {"sign_mismatch", p->sign_mismatch}, {"nonzero", p->nonzero}},
      denormal[] = {{"kept", p->kept}, {"flushed", p->flushed}, {"wrong", p->wrong}};
    int count = p->kind == XCONV_PROBE_SPECIAL ? 6 : p->kind == XCONV_PROBE_ZERO ? 6 : 3;
    for (int i = 0; i < count; i++) {
        fputs(", ", f);
        if (p->kind == XCONV_PROBE_SPECIAL)
            i64(f, special[i].key, special[i].v);
        else if (p->kind == XCONV_PROBE_ZERO)
            i64(f, zero[i].key, zero[i].v);
        else
            i64(f, denormal[i].key, denormal[i].v);
    }
    NEXT_STR(f, "note", p->note);
    fputs("}", f);
}

static void write_shape_result(FILE *f, const xconv_behaviour_shape *s)
{
    fprintf(f, "        {\"shape\": %d, \"outcome\": \"%s\", ", s->shape,
            xconv_outcome_word(s->outcome));
    num(f, "max_norm_err", s->max_norm_err);
    next_num(f, "max_block_err", s->max_block_err);
    fprintf(f, ", \"max_ulp\": %llu, \"deterministic\": %s, ", (unsigned long long)s->max_ulp,
            s->deterministic ? "true" : "false");
    STR(f, "note", s->note);
    fputs("}", f);
}

static void write_record(FILE *f, const xconv_behaviour_run *run, int i)
{
    const xconv_behaviour_record *r = &run->recs[i];
    const xconv_behaviour_stack *s = &run->stacks[r->stack];
    const xconv_json_str strings[] = {
        XCONV_JSON_STR("stack", s->id),
        XCONV_JSON_STR("variant", r->variant),
        XCONV_JSON_STR("family", r->family),
        XCONV_JSON_STR("accuracy_family", r->accuracy_family),
        XCONV_JSON_STR("kernels", r->kernels),
    };
    fputs("    {", f);
    xconv_json_write_strings(f, strings, sizeof strings / sizeof strings[0], true);
    next_num(f, "threshold", r->threshold);
    fprintf(f, ",\n      \"accuracy\": {\"shapes\": %d, \"passed\": %d, \"failed\": %d, "
               "\"not_applicable\": %d, \"errors\": %d, ",
            r->shapes, r->passed, r->failed, r->not_applicable, r->errors);
    num(f, "max_norm_err", r->max_norm_err);
    next_num(f, "median_norm_err", r->median_norm_err);
    next_num(f, "max_block_err", r->max_block_err);
    fprintf(f, ", \"worst_shape\": %d, ", r->worst_shape);
    i64(f, "ulp_compared", r->ulp_compared);
    fprintf(f, ", \"max_ulp\": %llu, ", (unsigned long long)r->max_ulp);
    num(f, "median_ulp", r->median_ulp);
    next_num(f, "share_correctly_rounded", r->share_correctly_rounded);
    fprintf(f, "},\n      \"determinism\": {\"compared\": %d, \"differing\": %d, "
               "\"deterministic\": %s},\n      \"probes\": [\n",
            r->det_compared, r->det_differing,
            r->det_compared == 0 ? "null" : r->det_differing ? "false" : "true");
    for (int i = 0; i < r->nprobes; i++) {
        write_probe(f, &r->probes[i]);
        fputs(i + 1 < r->nprobes ? ",\n" : "\n", f);
    }
    fputs("      ],\n      \"shapes\": [\n", f);
    for (int i = 0; i < r->nshapes; i++) {
        write_shape_result(f, &r->per_shape[i]);
        fputs(i + 1 < r->nshapes ? ",\n" : "\n", f);
    }
    fputs("      ],\n      ", f);
    STR(f, "note", r->note);
    fputs("}", f);
}

static void write_agreement(FILE *f, const xconv_behaviour_run *run, int i)
{
    const xconv_behaviour_agreement *g = &run->agree[i];
    fputs("    {", f);
    STR(f, "variant", g->variant);
    fputs(", \"stacks\": [", f);
    xconv_json_write_string(f, run->stacks[g->stack_a].id, sizeof run->stacks[0].id);
    fputs(", ", f);
    xconv_json_write_string(f, run->stacks[g->stack_b].id, sizeof run->stacks[0].id);
    fprintf(f, "], \"shapes\": %d, \"identical_shapes\": %d, \"bitwise_identical\": %s, ",
            g->shapes, g->identical_shapes,
            g->shapes > 0 && g->differing == 0 ? "true" : "false");
    i64(f, "compared", g->compared);
    next_i64(f, "differing", g->differing);
    next_num(f, "share_differing", g->compared ? (double)g->differing / (double)g->compared : NAN);
    next_i64(f, "nonfinite_mismatch", g->nonfinite_mismatch);
    fprintf(f, ", \"max_ulp\": %llu, ", (unsigned long long)g->max_ulp);
    num(f, "median_ulp", g->median_ulp);
    next_num(f, "median_ulp_differing", g->median_ulp_differing);
    fputs("}", f);
}

// ---------------------------------------------------------------------------------------------
// The file: its arrays (write_array) and their items (item i of run's, as the blocks above)

static void write_shape(FILE *f, const xconv_behaviour_run *run, int i)
{
    fputs("    {", f);
    STR(f, "name", run->shapes[i].name);
    NEXT_STR(f, "shape", run->shapes[i].spec);
    fputc('}', f);
}

static void write_probe_problem(FILE *f, const xconv_behaviour_run *run, int i)
{
    fputs("    {", f);
    STR(f, "probe", run->cases[i].probe);
    NEXT_STR(f, "shape", run->cases[i].spec);
    NEXT_STR(f, "inputs", run->cases[i].what);
    fputc('}', f);
}

// Writes the member `name`: an array of run's n items, one a line through item.
static void write_array(FILE *f, const char *name, const xconv_behaviour_run *run, int n,
                        void (*item)(FILE *f, const xconv_behaviour_run *run, int i))
{
    fprintf(f, ",\n  \"%s\": [\n", name);
    for (int i = 0; i < n; i++) {
        item(f, run, i);
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    fputs("  ]", f);
}

int xconv_behaviour_write_json(FILE *f, const xconv_behaviour_run *run)
{
    fprintf(f, "{\n  \"tool\": \"xconv\",\n  \"kind\": \"behaviour\",\n"
               "  \"schema_version\": %d,\n  ",
            XCONV_BEHAVIOUR_SCHEMA_VERSION);
    xconv_json_write_run_info(f, &run->info);
    fputs(",\n  ", f);
    STR(f, "host", run->host);
    fprintf(f, ",\n  \"seed\": %llu,\n  ", (unsigned long long)run->seed);
    num(f, "host_ref_gflop", run->host_ref_gflop);
    write_array(f, "shapes", run, run->nshapes, write_shape);
    write_array(f, "probe_problems", run, run->ncases, write_probe_problem);
    write_array(f, "stacks", run, run->nstacks, write_stack);
    write_array(f, "records", run, run->count, write_record);
    write_array(f, "agreement", run, run->nagree, write_agreement);
    fputs("\n}\n", f);
    return fflush(f) != 0 || ferror(f) ? -1 : 0;
}
