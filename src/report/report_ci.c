/* report_ci.c - a run's intervals from its own batches (report.h,
 * interval.h): from the engine's batches of time, or, for shards merged,
 * from their per-second histograms. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The percentiles every report shows, and gives an interval for. */
const double report_pcts[REPORT_NPCTS] = { 50, 75, 90, 95, 99, 99.9 };
const char *const report_pct_names[REPORT_NPCTS] = { "50", "75", "90", "95", "99", "99.9" };

_Static_assert(RUN_CI_NPCTS == REPORT_NPCTS, "an interval for every percentile the reports show");

/* Each figure from the batches b (NULL: none, the figures alone). */
static void fill(struct run_ci *ci, const struct run_figures *r, const struct batches *b)
{
    const struct hist *all = &r->total.h[H_LATENCY];
    uint32_t i;
    memset(ci, 0, sizeof(*ci));
    ci->rps.lo = ci->rps.hi = ci->mean.lo = ci->mean.hi = NAN;
    for (i = 0; i < RUN_CI_NPCTS; i++)
        ci->pct[i].lo = ci->pct[i].hi = NAN;
    if (b) {
        interval_of_run(b, all, r->elapsed_s, INTERVAL_RPS, NULL, 0, &ci->rps);
        interval_of_run(b, all, r->elapsed_s, INTERVAL_MEAN, NULL, 0, &ci->mean);
        interval_of_run(b, all, r->elapsed_s, INTERVAL_PCT, report_pcts, RUN_CI_NPCTS, ci->pct);
        ci->batches = ci->rps.batches ? ci->rps.batches : ci->mean.batches;
        if (ci->batches) {
            ci->batches = b->n;
            ci->batch_s = (double)b->len_ns / 1e9;
        }
    }
    /* The estimates are the reports' own figures, whatever the batches sum to. */
    ci->rps.est = r->elapsed_s > 0 ? (double)r->total.completed / r->elapsed_s : 0;
    ci->mean.est = hist_mean(all);
    for (i = 0; i < RUN_CI_NPCTS; i++)
        ci->pct[i].est = hist_percentile(all, report_pcts[i]);
}

const struct interval *report_ci_of(const struct run_ci *ci, const struct precision_goal *g)
{
    int i;
    if (g->fig == INTERVAL_RPS)
        return &ci->rps;
    if (g->fig == INTERVAL_MEAN)
        return &ci->mean;
    for (i = 0; i < RUN_CI_NPCTS; i++)
        if (report_pcts[i] == g->pct)
            return &ci->pct[i];
    return &ci->rps; /* the goals name the reported percentiles alone (precision.c) */
}

void report_ci(struct run_figures *r)
{
    struct batches secs;
    uint32_t i;
    if (r->batches.b) {
        fill(&r->ci, r, &r->batches);
        return;
    }
    if (!r->tl_hist || !r->timeline || r->nseconds == 0) {
        fill(&r->ci, r, NULL);
        return;
    }
    /* Shards merged: their seconds, as batches a second long. */
    memset(&secs, 0, sizeof(secs));
    secs.len_ns = 1000000000ULL;
    secs.n = r->nseconds;
    if ((secs.b = calloc(r->nseconds, sizeof(*secs.b))) == NULL) {
        fill(&r->ci, r, NULL);
        return;
    }
    for (i = 0; i < r->nseconds; i++) {
        secs.b[i].h = r->tl_hist[i]; /* read through */
        secs.b[i].answers = r->timeline[i].completed;
    }
    fill(&r->ci, r, &secs);
    free(secs.b);
}
