/* report_ci.c - a run's intervals from its own batches (report.h,
 * interval.h): from the engine's batches of time, or, for shards merged,
 * from their per-second histograms. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(RUN_CI_NPCTS == REPORT_NPCTS, "an interval for every percentile the reports show");

static void none(struct run_ci *ci, const struct engine_result *r)
{
    uint32_t i;
    memset(ci, 0, sizeof(*ci));
    ci->rps.est = r->elapsed_s > 0 ? (double)r->total.completed / r->elapsed_s : 0;
    ci->mean.est = hist_mean(&r->total.h[H_LATENCY]);
    ci->rps.lo = ci->rps.hi = ci->mean.lo = ci->mean.hi = NAN;
    for (i = 0; i < RUN_CI_NPCTS; i++) {
        ci->pct[i].est = hist_percentile(&r->total.h[H_LATENCY], report_pcts[i]);
        ci->pct[i].lo = ci->pct[i].hi = NAN;
    }
}

/* From k batches of len_s each (the last ending at the run's end): their
 * histograms and answers. */
static void from_batches(struct run_ci *ci, const struct engine_result *r, const struct hist *h, const uint64_t *answers,
                         uint32_t k, double len_s)
{
    double *y = malloc(4 * (size_t)k * sizeof(*y)), *d, *s, *n;
    uint32_t i;
    if (y == NULL)
        return;
    d = y + k;
    s = d + k;
    n = s + k;
    for (i = 0; i < k; i++) {
        y[i] = (double)answers[i];
        d[i] = len_s;
        s[i] = h[i].sum;
        n[i] = (double)h[i].total;
    }
    /* The last batch ends with the run. */
    d[k - 1] = r->elapsed_s - (k - 1) * len_s;
    if (d[k - 1] > 0)
        interval_ratio(y, d, k, &ci->rps);
    interval_ratio(s, n, k, &ci->mean);
    for (i = 0; i < RUN_CI_NPCTS; i++)
        interval_percentile(&r->total.h[H_LATENCY], h, k, report_pcts[i], &ci->pct[i]);
    ci->batches = k;
    ci->batch_s = len_s;
    free(y);
}

void report_ci(struct engine_result *r)
{
    const struct batches *b = &r->batches;
    struct run_ci ci;
    uint32_t i, k = 0;
    none(&ci, r);
    if (b->b && b->len_ns) {
        /* The batches the run covered (a thread's last tick may close one
         * past the last answer: empty). */
        k = (uint32_t)ceil(r->elapsed_s * 1e9 / (double)b->len_ns);
        if (k > b->n)
            k = b->n;
    }
    if (k >= INTERVAL_MIN_BATCHES) {
        struct hist *h = malloc(k * sizeof(*h));
        uint64_t *a = malloc(k * sizeof(*a));
        if (h && a) {
            for (i = 0; i < k; i++) {
                h[i] = b->b[i].h; /* read through: the store keeps its buckets */
                a[i] = b->b[i].answers;
            }
            from_batches(&ci, r, h, a, k, (double)b->len_ns / 1e9);
        }
        free(h);
        free(a);
    } else if (r->tl_hist && r->timeline && r->nseconds >= INTERVAL_MIN_BATCHES) {
        /* Shards merged: their seconds. */
        uint64_t *a = malloc(r->nseconds * sizeof(*a));
        if (a) {
            for (i = 0; i < r->nseconds; i++)
                a[i] = r->timeline[i].requests;
            from_batches(&ci, r, r->tl_hist, a, r->nseconds, 1.0);
        }
        free(a);
    }
    /* The estimates are the reports' own figures, whatever the batches sum to. */
    ci.rps.est = r->elapsed_s > 0 ? (double)r->total.completed / r->elapsed_s : 0;
    r->ci = ci;
}
