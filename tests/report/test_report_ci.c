/* report_ci: a run's 95% intervals: none without batches (the figures
 * alone, NaN bounds); from the engine's batches of time (identical
 * batches: the throughput's interval closes on its estimate; batches that
 * vary: it opens around it); from a merged result's seconds, batches a
 * second long; too few seconds: none. Every estimate is the reports' own
 * figure. And a precision goal's interval found by its figure. */
#include "report.h"
#include "../t.h"

#include <math.h>
#include <string.h>

/* A run of n ticks of BATCH_TICK_NS, tick i answering 100 (or 100 +- 10
 * alternately when vary) requests of 10..1000 us; its latencies in
 * r->total too. */
static void run_in_ticks(struct run_figures *r, uint32_t n, int vary)
{
    struct hist h;
    uint32_t i, j;
    memset(r, 0, sizeof(*r));
    stats_init(&r->total);
    batches_init(&r->batches, TL_SUB_BITS);
    hist_init_bits(&h, TL_SUB_BITS);
    for (i = 0; i < n; i++) {
        uint32_t k = vary ? (i % 2 ? 110 : 90) : 100;
        hist_reset(&h);
        for (j = 0; j < k; j++) {
            uint64_t v = 10000 * (uint64_t)(1 + j % 100);
            hist_record(&h, v);
            hist_record(&r->total.h[H_LATENCY], v);
        }
        r->total.completed += k;
        batches_add(&r->batches, (uint64_t)i * BATCH_TICK_NS, &h, k);
    }
    hist_fini(&h);
    r->elapsed_s = (double)n * BATCH_TICK_NS / 1e9;
}

static int nan_bounds(const struct interval *v)
{
    return isnan(v->lo) && isnan(v->hi);
}

/* Every estimate is the figure the reports show. */
static int estimates_are_the_figures(const struct run_figures *r)
{
    const struct hist *h = &r->total.h[H_LATENCY];
    int i, ok = r->ci.rps.est == (r->elapsed_s > 0 ? (double)r->total.completed / r->elapsed_s : 0) &&
                r->ci.mean.est == hist_mean(h);
    for (i = 0; i < RUN_CI_NPCTS; i++)
        ok &= r->ci.pct[i].est == hist_percentile(h, report_pcts[i]);
    return ok;
}

static void without_batches(void)
{
    struct run_figures r;
    int i, open = 1;
    run_in_ticks(&r, 40, 0);
    batches_fini(&r.batches); /* a result read back: none */
    report_ci(&r);
    for (i = 0; i < RUN_CI_NPCTS; i++)
        open &= nan_bounds(&r.ci.pct[i]);
    CHECK(r.ci.batches == 0 && r.ci.batch_s == 0 && nan_bounds(&r.ci.rps) && nan_bounds(&r.ci.mean) && open);
    CHECK(estimates_are_the_figures(&r) && r.ci.rps.est == 3200);
    /* Nothing measured: 0 per second, not a division by zero. */
    r.elapsed_s = 0;
    report_ci(&r);
    CHECK(r.ci.rps.est == 0 && nan_bounds(&r.ci.rps));
    figures_free(&r);
}

static void from_the_engines_batches(void)
{
    struct run_figures r;
    int i, inside = 1;
    /* 40 ticks of 100 answers: 3200 a second in every batch. */
    run_in_ticks(&r, 40, 0);
    report_ci(&r);
    CHECKF(r.ci.batches == 40 && r.ci.batch_s == BATCH_TICK_NS / 1e9, "%u batches of %f s", r.ci.batches,
           r.ci.batch_s);
    CHECK(estimates_are_the_figures(&r) && r.ci.rps.est == 3200);
    CHECKF(fabs(r.ci.rps.lo - 3200) < 1e-6 && fabs(r.ci.rps.hi - 3200) < 1e-6, "%f-%f", r.ci.rps.lo, r.ci.rps.hi);
    CHECKF(r.ci.mean.lo <= r.ci.mean.est && r.ci.mean.est <= r.ci.mean.hi, "%f %f %f", r.ci.mean.lo, r.ci.mean.est,
           r.ci.mean.hi);
    /* Each percentile's interval holds its estimate (or says it cannot). */
    for (i = 0; i < RUN_CI_NPCTS; i++)
        inside &= (isnan(r.ci.pct[i].lo) || r.ci.pct[i].lo <= r.ci.pct[i].est) &&
                  (isnan(r.ci.pct[i].hi) || r.ci.pct[i].est <= r.ci.pct[i].hi);
    CHECK(inside && !isnan(r.ci.pct[0].lo) && !isnan(r.ci.pct[0].hi));
    figures_free(&r);

    /* 90 and 110 in turn: the same rate, now uncertain. */
    run_in_ticks(&r, 40, 1);
    report_ci(&r);
    CHECK(r.ci.batches == 40 && r.ci.rps.est == 3200 && estimates_are_the_figures(&r));
    CHECKF(r.ci.rps.lo < 3200 && r.ci.rps.hi > 3200 && r.ci.rps.lo > 2800 && r.ci.rps.hi < 3600, "%f-%f",
           r.ci.rps.lo, r.ci.rps.hi);
    figures_free(&r);

    /* 4 batches: too few to say. */
    run_in_ticks(&r, 4, 1);
    report_ci(&r);
    CHECK(r.ci.batches == 0 && nan_bounds(&r.ci.rps) && nan_bounds(&r.ci.mean) && estimates_are_the_figures(&r));
    figures_free(&r);
}

/* A merged result: no batches, its seconds' histograms. */
static void from_merged_seconds(void)
{
    struct run_figures r;
    uint32_t s, j;
    uint32_t n[] = { 12, 10 };
    int k;
    for (k = 0; k < 2; k++) {
        memset(&r, 0, sizeof(r));
        stats_init(&r.total);
        r.nseconds = n[k];
        r.timeline = calloc(r.nseconds, sizeof(*r.timeline));
        r.tl_hist = calloc(r.nseconds, sizeof(*r.tl_hist));
        for (s = 0; s < r.nseconds; s++) {
            hist_init_bits(&r.tl_hist[s], TL_SUB_BITS);
            for (j = 0; j < 500 + 20 * (s % 3); j++) {
                hist_record(&r.tl_hist[s], 200000 + 1000 * (uint64_t)j);
                hist_record(&r.total.h[H_LATENCY], 200000 + 1000 * (uint64_t)j);
            }
            r.timeline[s].completed = r.tl_hist[s].total;
            r.total.completed += r.tl_hist[s].total;
        }
        r.elapsed_s = r.nseconds;
        report_ci(&r);
        CHECKF(r.ci.batches == r.nseconds && r.ci.batch_s == 1.0, "%u batches of %f s", r.ci.batches, r.ci.batch_s);
        CHECK(estimates_are_the_figures(&r));
        CHECKF(r.ci.rps.lo < r.ci.rps.est && r.ci.rps.est < r.ci.rps.hi, "%f %f %f", r.ci.rps.lo, r.ci.rps.est,
               r.ci.rps.hi);
        CHECK(r.ci.pct[0].lo <= r.ci.pct[0].est && r.ci.pct[0].est <= r.ci.pct[0].hi);
        figures_free(&r);
    }
    /* Three seconds: too few. */
    memset(&r, 0, sizeof(r));
    stats_init(&r.total);
    r.nseconds = 3;
    r.timeline = calloc(3, sizeof(*r.timeline));
    r.tl_hist = calloc(3, sizeof(*r.tl_hist));
    for (s = 0; s < 3; s++) {
        hist_init_bits(&r.tl_hist[s], TL_SUB_BITS);
        hist_record_n(&r.tl_hist[s], 300000, 100);
        hist_record_n(&r.total.h[H_LATENCY], 300000, 100);
        r.timeline[s].completed = 100;
    }
    r.total.completed = 300;
    r.elapsed_s = 3;
    report_ci(&r);
    CHECK(r.ci.batches == 0 && nan_bounds(&r.ci.rps) && r.ci.rps.est == 100 && r.ci.pct[4].est == 300000);
    figures_free(&r);
}

static void goal_finds_its_interval(void)
{
    struct run_ci ci;
    struct precision_goal g;
    int i, ok = 1;
    memset(&ci, 0, sizeof(ci));
    memset(&g, 0, sizeof(g));
    g.fig = INTERVAL_RPS;
    CHECK(report_ci_of(&ci, &g) == &ci.rps);
    g.fig = INTERVAL_MEAN;
    CHECK(report_ci_of(&ci, &g) == &ci.mean);
    g.fig = INTERVAL_PCT;
    for (i = 0; i < RUN_CI_NPCTS; i++) {
        g.pct = report_pcts[i];
        ok &= report_ci_of(&ci, &g) == &ci.pct[i];
    }
    CHECK(ok);
    CHECK(report_pcts[4] == 99 && strcmp(report_pct_names[5], "99.9") == 0);
    g.pct = 42; /* never a goal's: the throughput's rather than none */
    CHECK(report_ci_of(&ci, &g) == &ci.rps);
}

int main(void)
{
    T_RUN(without_batches);
    T_RUN(from_the_engines_batches);
    T_RUN(from_merged_seconds);
    T_RUN(goal_finds_its_interval);
    T_END("test_report_ci");
}
