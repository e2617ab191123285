/* findings_steady.c - not_steady: the run's figures moved one way while it
 * was measured (a warm-up not over, a server that slows as it runs), so
 * its means describe neither its start nor its end. The per-second
 * throughput and median latency are tested for a trend (trend.h); it must
 * be both sure and large (findings_int.h). */
#include "findings_int.h"

#include "trend.h"
#include "units.h"

#include <math.h>
#include <string.h>

/* One figure's trend, and whether it passes the thresholds. */
struct drift {
    struct trend t;
    int judged, fired;
    double change;              /* over the run: +0.3 is 30% more at its end than at its start */
    double from, to;            /* the values the change is between */
};

/* The change of t across the run: the larger of its line's (Theil-Sen,
 * first second to last) and of its first and last thirds' medians (a step
 * the line, a median of slopes, does not follow), in S's direction. */
static void change_of(struct drift *d)
{
    const struct trend *t = &d->t;
    double line = t->at_first > 0 ? t->at_last / t->at_first - 1 : 0;
    double thirds = t->first > 0 ? t->last / t->first - 1 : 0;
    if (line * t->s <= 0)
        line = 0;
    if (thirds * t->s <= 0)
        thirds = 0;
    if (fabs(line) >= fabs(thirds)) {
        d->change = line;
        d->from = t->at_first;
        d->to = t->at_last;
    } else {
        d->change = thirds;
        d->from = t->first;
        d->to = t->last;
    }
}

static void judge(struct drift *d, const double *x, const double *y, uint32_t n, double min_abs)
{
    d->judged = trend_test(x, y, n, &d->t) == 0;
    if (!d->judged)
        return;
    change_of(d);
    d->fired = d->t.p < DRIFT_P && fabs(d->change) >= DRIFT_CHANGE && fabs(d->to - d->from) >= min_abs;
}

/* "fell 31% (from 1000 to 690 req/s, -16 req/s a second, 95%: -19 to -13;
 * p 0.0001)", scale: the unit's size (1 for req/s, NS_MS for ms). */
static size_t tell(char *buf, size_t n, const char *what, const struct drift *d, double per_x, const char *unit,
                   double scale)
{
    int k = snprintf(buf, n, "%s %s %.0f%% (from %.4g to %.4g %s; %+.3g %s a second, 95%%: %+.3g to %+.3g; "
                     "Mann-Kendall p %.2g)", what, d->change > 0 ? "rose" : "fell", 100 * fabs(d->change),
                     d->from / scale, d->to / scale, unit, d->t.slope * per_x / scale, unit,
                     d->t.slope_lo * per_x / scale, d->t.slope_hi * per_x / scale, d->t.p);
    return k < 0 ? 0 : (size_t)k >= n ? n - 1 : (size_t)k;
}

static void evidence(struct finding *f, const char *pre, const struct drift *d, double scale)
{
    char k[32];
    snprintf(k, sizeof(k), "%s_slope%s", pre, scale == 1 ? "" : "_us");
    ev(f, k, d->t.slope / scale);
    snprintf(k, sizeof(k), "%s_slope_lo%s", pre, scale == 1 ? "" : "_us");
    ev(f, k, d->t.slope_lo / scale);
    snprintf(k, sizeof(k), "%s_slope_hi%s", pre, scale == 1 ? "" : "_us");
    ev(f, k, d->t.slope_hi / scale);
    snprintf(k, sizeof(k), "%s_change_pct", pre);
    ev(f, k, 100 * d->change);
    snprintf(k, sizeof(k), "%s_p", pre);
    ev(f, k, d->t.p);
}

/* When a change at the start had settled: the first point within the
 * tolerance of the last third's median, with the median of it and the two
 * after it within too (one point of the old level is not its end). */
static double settled_at(const struct drift *d, const double *x, const double *y, uint32_t n, double g)
{
    double tol = DRIFT_START_SHARE * fabs(d->t.last - d->t.first);
    uint32_t i;
    for (i = 0; i + 3 <= n; i++)
        if (fabs(y[i] - d->t.last) <= tol && fabs(trend_median(y + i, 3) - d->t.last) <= tol)
            return x[i] - g / 2;
    return x[n - 1];
}

/* A closed loop's fall in throughput that rafale's own pace explains, not
 * the server's answers: its load's threads were busy b of the run R
 * (warm-up in; their own CPU, not the monitor's), so they waited on the
 * server th (1 - b) R at most, all th together. For the last third's
 * median to fall by f from the first third's at the same work per
 * request, half the last third's seconds, h, must each have waited f of
 * theirs in some thread: f h > th (1 - b) R cannot be, however the load
 * is split, and rafale's CPU per request grew. Only where the server gave
 * it no other work (no connection opened again, errors under 1%) and its
 * median answer held (within half the rule's change): a healthy serve on
 * a virtual machine fell from 119 000 to 68 000 req/s in 10 s, its thread
 * 98% busy, p50 flat, and the advice said the server slows. Returns b (at
 * most 1) and the most they waited (*wait, s), or 0. */
static double own_pace(const struct ctx *c, const struct drift *dr, const struct drift *dl, uint32_t n, double per,
                       double *wait)
{
    const struct config *cfg = c->in->cfg;
    double th = c->r->shard.threads, run = elapsed(c) + (double)cfg->warmup_ns / NS_S, b, fall, h;
    uint32_t third = n / 3 ? n / 3 : 1;
    if (!dr->fired || dr->change >= 0 || !dl->judged || dl->fired || fabs(dl->change) >= DRIFT_CHANGE / 2 ||
        c->r->nshards || th <= 0 || run <= 0 || c->r->workers_cpu_s <= 0 || dr->t.first <= 0 ||
        c->s->conns_opened > cfg->connections || 100 * stats_errors(c->s) > c->s->completed)
        return 0;
    b = c->r->workers_cpu_s / (th * run);
    if (b > 1)
        b = 1;
    fall = 1 - dr->t.last / dr->t.first;
    h = (double)((third + 1) / 2) * per;
    *wait = (1 - b) * run;
    return fall > 0 && fall * h > th * *wait ? b : 0;
}

/* The advice when rafale's pace fell (own_pace: busy, wait), or may have
 * moved: its load CPU-bound (client_cpu_bound), the median answer's
 * trend not fired, and the bound not sure of it (a healthy serve fell 23%
 * in its last 3 s, rafale 97% busy, its median answer 34 to 36 us but for
 * the last second's; another rose 36%, rafale 93% busy, and was said to be
 * still warming): then neither is blamed, as the figures cannot tell. A
 * rise over by the middle third is told as a warm-up, whoever's it was. */
static void pace_advice(struct finding *f, const struct ctx *c, double busy, double wait)
{
    uint32_t th = c->r->shard.threads;
    if (busy > 0)
        say(f->advice, sizeof(f->advice), "rafale's pace fell, not the server's answers: its %u load thread%s %s busy "
            "%.0f%% of the run, so waited on the server %.2f s at most%s, too little for this fall, and the median "
            "answer held: rafale's CPU per request grew (the machine ran it slower: other VMs on its host, its clock; "
            "or answers cost it more reads); measure again on CPUs of its own", th, th == 1 ? "" : "s",
            th == 1 ? "was" : "were", 100 * busy, th * wait, th == 1 ? "" : " in all");
    else
        say(f->advice, sizeof(f->advice), "rafale's pace or the server's, these figures cannot tell: rafale was "
            "CPU-bound (client_cpu_bound), so set this throughput as much as the server, and the median answer "
            "moved less than this rule counts; measure again with rafale on more or quieter CPUs (-t)");
}

void findings_not_steady(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct run_figures *r = c->r;
    const struct monitor_result *m = c->server;
    double x[TREND_MAX_POINTS], rps[TREND_MAX_POINTS], px[TREND_MAX_POINTS], p50[TREND_MAX_POINTS];
    double p50s[TREND_MAX_POINTS], g, settled = -1, busy = 0, wait = 0;
    struct drift dr = { 0 }, dl = { 0 };
    const struct drift *lead;
    const double *ly, *lx;
    uint32_t full, per, n, np = 0, i, j;
    struct finding *f;
    size_t k;
    int worse, start;
    /* Stages change the load on purpose. */
    if (cfg->nstages || r->timeline == NULL)
        return;
    /* Whole seconds only: the last one may be cut short. */
    full = r->nseconds;
    if (full && (double)full > elapsed(c))
        full--;
    if (full < DRIFT_MIN_SECONDS)
        return;
    /* A long run in at most TREND_MAX_POINTS groups of whole seconds. */
    per = (full + TREND_MAX_POINTS - 1) / TREND_MAX_POINTS;
    n = full / per;
    g = per;
    for (i = 0; i < n; i++) {
        uint32_t with = 0;
        double sum = 0;
        for (j = 0; j < per; j++) {
            const struct tl_second *s = &r->timeline[i * per + j];
            sum += (double)s->completed;
            if (s->completed)
                p50s[with++] = s->p50_ns;
        }
        x[i] = i * g + g / 2;
        rps[i] = sum / g;
        if (with) {
            px[np] = x[i];
            p50[np++] = trend_median(p50s, with);
        }
    }
    /* Open loop the schedule sets the throughput (-R's, or the log's,
     * which rises and falls as its traffic did): latency only. */
    if (!config_open_loop(cfg) && trend_median(rps, n) >= DRIFT_MIN_RPS)
        judge(&dr, x, rps, n, 0);
    if (np >= DRIFT_MIN_SECONDS / per)
        judge(&dl, px, p50, np, DRIFT_MIN_P50_NS);
    if ((!dr.fired && !dl.fired) || (f = add(c)) == NULL)
        return;
    /* The shape is the larger change's. */
    lead = dr.fired && (!dl.fired || fabs(dr.change) >= fabs(dl.change)) ? &dr : &dl;
    ly = lead == &dr ? rps : p50;
    lx = lead == &dr ? x : px;
    worse = lead == &dr ? lead->change < 0 : lead->change > 0;
    start = fabs(lead->t.mid - lead->t.last) <= DRIFT_START_SHARE * fabs(lead->t.last - lead->t.first);
    k = 0;
    if (dr.fired)
        k = tell(f->summary, sizeof(f->summary), "throughput", &dr, 1, "req/s", 1);
    if (dl.fired) {
        if (k)
            k += (size_t)snprintf(f->summary + k, sizeof(f->summary) - k, " and ");
        if (k < sizeof(f->summary))
            k += tell(f->summary + k, sizeof(f->summary) - k, "the median latency", &dl, 1, "ms", NS_MS);
    }
    if (k < sizeof(f->summary))
        snprintf(f->summary + k, sizeof(f->summary) - k, " over %u whole seconds: the run's figures are its average, "
                 "not a steady state", n * per);
    if (c->found[FINDING_SERVER_SCALING]) {
        say(f->advice, sizeof(f->advice), "the server's pool grew during the run (see server_scaling): the change "
            "is its growth; warm up (--warmup) until it has grown, or set its size");
    } else if ((busy = own_pace(c, &dr, &dl, n, g, &wait)) > 0 ||
               (lead == &dr && !dl.fired && c->found[FINDING_CLIENT_CPU_BOUND] && (worse || !start))) {
        pace_advice(f, c, busy, wait);
    } else if (start) {
        settled = settled_at(lead, lx, ly, lead == &dr ? n : np, g);
        say(f->advice, sizeof(f->advice), "it changed in its first %.0f s and held after: a warm-up not over (caches, "
            "a JIT, connections, a pool growing); warm up longer (--warmup %.0fs) or measure after it", settled,
            ceil(settled + (double)cfg->warmup_ns / NS_S));
    } else if (worse) {
        char mem[96] = "";
        if (m && m->npoints >= 2 && m->series[0].rss_bytes &&
            m->series[m->npoints - 1].rss_bytes >= DRIFT_RSS_GROWTH * (double)m->series[0].rss_bytes)
            snprintf(mem, sizeof(mem), " (its memory grew from %.0f to %.0f MiB)",
                     (double)m->series[0].rss_bytes / 1048576.0, (double)m->series[m->npoints - 1].rss_bytes / 1048576.0);
        say(f->advice, sizeof(f->advice), "the server slows as it runs: a leak%s, garbage collection, a queue that "
            "grows%s, a pool still growing; run it longer to see whether it settles, and watch it (--monitor)", mem,
            config_open_loop(cfg) ? " (a rate above what it carries)" : "");
    } else {
        say(f->advice, sizeof(f->advice), "it sped up as it ran, past its start: still warming (caches, a JIT, a "
            "pool growing); warm up longer (--warmup) or run longer");
    }
    /* Without the machine's figures (a server on this host, not watched:
     * its CPU is in the machine's), other processes may have moved the
     * seconds as well: a healthy serve read 122 000 falling to 45 000
     * req/s while a build started beside it. Said, not guessed away. */
    if (!c->in->noise.known && busy == 0) { /* busy: rafale had its CPUs, others did not take them */
        size_t len = strlen(f->advice);
        snprintf(f->advice + len, sizeof(f->advice) - len, "; or other processes took the CPUs as it went (not "
                 "measured here: --monitor the server, and noisy_neighbour tells)");
    }
    ev(f, "seconds", n * per);
    if (dr.judged)
        evidence(f, "rps", &dr, 1);
    if (dl.judged)
        evidence(f, "p50", &dl, 1e3);
    if (settled >= 0)
        ev(f, "settled_s", settled);
    if (busy > 0)
        ev(f, "client_busy", busy);
}
