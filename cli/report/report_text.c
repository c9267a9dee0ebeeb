// SPDX-License-Identifier: MIT
// The report's terminal summary: per device how often each variant wins, and in compare mode
// every cell flagged as slower or faster beyond noise.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

// Prints "variant N, variant M, ..." for the winners of device d, most wins first.
static void print_wins(FILE *f, const report_device *d)
{
    int *wins = calloc((size_t)d->nvariants + 1, sizeof *wins);
    if (!wins)
        return;
    int none = 0;
    for (int s = 0; s < d->nshapes; s++) {
        if (d->winner[s] >= 0)
            wins[d->winner[s]]++;
        else
            none++;
    }
    const char *sep = "";
    for (;;) {
        int best = -1;
        for (int v = 0; v < d->nvariants; v++)
            if (wins[v] > 0 && (best < 0 || wins[v] > wins[best]))
                best = v;
        if (best < 0)
            break;
        fprintf(f, "%s%s %d", sep, d->variants[best].name, wins[best]);
        wins[best] = 0;
        sep = ", ";
    }
    if (none)
        fprintf(f, "%sno passing time %d", sep, none);
    free(wins);
}

int xconv_report_write_text(FILE *f, const xconv_report *r)
{
    for (int i = 0; i < r->ndevices; i++) {
        const report_device *d = &r->devices[i];
        fprintf(f, "%s: %d shapes x %d variants; fastest: ", d->label, d->nshapes,
                d->nvariants);
        print_wins(f, d);
        fputc('\n', f);
    }
    if (r->base) {
        fprintf(f, "against %s: %d regression%s, %d improvement%s beyond noise (margin %.0f%%) in "
                   "%d cells found in both\n",
                r->base_file, r->regressions, r->regressions == 1 ? "" : "s", r->improvements,
                r->improvements == 1 ? "" : "s", r->margin * 100, r->compared);
        char a[32], b[32];
        for (int i = 0; i < r->ndevices; i++) {
            const report_device *d = &r->devices[i];
            for (int s = 0; s < d->nshapes; s++) {
                const report_shape *shape = &r->shapes[d->shapes[s]];
                for (int v = 0; v < d->nvariants; v++) {
                    const report_cell *c = report_at(d, s, v);
                    const char *word = c->verdict == VERDICT_SLOWER   ? "SLOWER"
                                       : c->verdict == VERDICT_BROKE  ? "BROKE"
                                       : c->verdict == VERDICT_FASTER ? "faster"
                                       : c->verdict == VERDICT_FIXED  ? "fixed"
                                                                      : NULL;
                    if (!word)
                        continue;
                    fprintf(f, "  %-6s %s  %s  %s", word, d->dev->id, d->variants[v].name,
                            shape->name[0] ? shape->name : shape->spec);
                    if (isfinite(c->ratio))
                        fprintf(f, "  x%.3f (now %s-%s ms,", c->ratio,
                                report_ms(c->m->rec.min_ms, a, sizeof a),
                                report_ms(c->m->rec.max_ms, b, sizeof b));
                    if (isfinite(c->ratio))
                        fprintf(f, " base %s-%s ms)", report_ms(c->base->rec.min_ms, a, sizeof a),
                                report_ms(c->base->rec.max_ms, b, sizeof b));
                    else
                        fprintf(f, "  (now %s, base %s)", xconv_outcome_name(c->m->rec.outcome),
                                xconv_outcome_name(c->base->rec.outcome));
                    fputc('\n', f);
                }
            }
        }
    }
    report_behaviour_text(f, r);
    report_vendors_text(f, r);
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}
