/* collect.c - after join: the workers' counters, histograms, checks and
 * waiting requests into the run's figures. Each worker wrote only its own
 * figures while it ran; here they are summed (stats_merge, by the counters'
 * table), the requests still waiting are censored into the histograms, and
 * the result gets what it says of the run itself. */
#include "collect.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The timeline, once every worker is done. Returns 0 or -1. */
static int take_timeline(struct timeline *tl, struct run_figures *res)
{
    timeline_finish(tl);
    if (tl->ndone == 0)
        return 0;
    res->timeline = malloc(tl->ndone * sizeof(*res->timeline));
    if (res->timeline == NULL)
        return -1;
    memcpy(res->timeline, tl->done, tl->ndone * sizeof(*res->timeline));
    res->nseconds = tl->ndone;
    if (tl->keep_hist && tl->hists) {
        /* Taken over: the timeline forgets them. */
        res->tl_hist = tl->hists;
        tl->hists = NULL;
        tl->keep_hist = 0;
    }
    return tl->oom ? -1 : 0;
}

/* The slowest sample of each histogram a waiting request may enter: a
 * waiting request's age is a lower bound of its latency, so it enters a
 * histogram only past that histogram's slowest sample (where it can only
 * raise the percentiles toward the truth); below it, it would show a time
 * no answer took (a request sent 1 ms before the stop, in flight, is 1 ms
 * old since it was sent though every answer took 5). A histogram with no
 * sample takes none: nothing answered, there is no latency to show. The
 * totals' maxima, which no target's or stage's exceed. */
struct censor_limits {
    uint64_t due, user, sent;
};

static uint64_t censor_limit(const struct hist *h)
{
    return h->total ? h->max : UINT64_MAX;
}

/* A waiting request of that age enters a histogram of that limit. */
static int censor_enters(uint64_t age, uint64_t limit)
{
    return limit != UINT64_MAX && age > limit;
}

/* The requests that waited when the run stopped, at their age then: into
 * the latency histograms (their target's and the totals; a due, unsent one
 * only the totals' corrected ones, having no target yet nor a send time) and
 * their stage's, each past its own slowest sample (censor_limits). After
 * the fairness limit took the answers' p99. */
static void censor_one(struct run_figures *res, const struct censor_limits *lim, uint32_t target, uint8_t stage,
                       uint64_t age_due, uint64_t age_sent)
{
    struct stats *u = target != UINT32_MAX ? &res->per_target[figures_row(target)] : NULL;
    double age = (double)age_due / 1e9;
    if (age > res->in_flight_oldest_s)
        res->in_flight_oldest_s = age;
    if (u && censor_enters(age_sent, lim->sent)) {
        hist_record(&u->h[H_LATENCY_UNC], age_sent);
        hist_record(&res->total.h[H_LATENCY_UNC], age_sent);
    }
    if (censor_enters(age_due, lim->user)) {
        if (u)
            hist_record(&u->h[H_LATENCY_USER], age_due);
        hist_record(&res->total.h[H_LATENCY_USER], age_due);
    }
    if (!censor_enters(age_due, lim->due))
        return;
    if (u) {
        hist_record(&u->h[H_LATENCY], age_due);
        u->censored++;
    } else {
        res->total.censored_unsent++;
    }
    hist_record(&res->total.h[H_LATENCY], age_due);
    res->total.censored++;
    if (res->per_stage && stage < res->nstages)
        hist_record(&res->per_stage[stage].h[H_LATENCY], age_due);
}

static void censor_merge(const struct worker *ws, uint32_t nt, const struct plan *pl, struct run_figures *res)
{
    /* Taken before any is recorded: one waiting request does not raise the
     * bar for the next. */
    const struct censor_limits lim = { censor_limit(&res->total.h[H_LATENCY]),
                                       censor_limit(&res->total.h[H_LATENCY_USER]),
                                       censor_limit(&res->total.h[H_LATENCY_UNC]) };
    uint32_t t, i;
    for (t = 0; t < nt; t++) {
        const struct worker *w = &ws[t];
        for (i = 0; i < w->ncens; i++) {
            const struct censored *e = &w->cens[i];
            censor_one(res, &lim, e->target, e->stage, e->age_due, e->age_sent);
        }
        for (i = 0; i < w->backlog.len; i++) {
            uint64_t due = w->backlog.t[(w->backlog.head + i) % w->backlog.cap];
            if (due >= pl->t_measure && due < w->t_stop)
                censor_one(res, &lim, UINT32_MAX, record_stage(w, due), w->t_stop - due, 0);
        }
    }
}

/* After join: the workers' counters and histograms into one result. Counters
 * come from each worker's totals; histograms are recorded per target only
 * (half the work per response) and summed here. Returns 0, or -1 with a
 * reason in err. */
int collect_merge(struct worker *ws, uint32_t nt, const struct plan *pl, struct run_figures *res, char *err,
                  size_t errlen)
{
    const struct config *cfg = pl->cfg;
    uint32_t t, i;
    int k;

    res->ntargets = figures_rows(pl->ntargets);
    res->per_target = calloc(res->ntargets, sizeof(*res->per_target));
    res->target_in_flight = calloc(res->ntargets, sizeof(uint64_t));
    if (res->per_target == NULL || res->target_in_flight == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    stats_init(&res->total);
    hist_init(&res->ends);
    for (i = 0; i < res->ntargets; i++)
        stats_init(&res->per_target[i]);
    for (t = 0; t < nt; t++) {
        stats_merge(&res->total, &ws[t].st);
        hist_merge(&res->ends, &ws[t].ends);
        for (i = 0; i < res->ntargets; i++) {
            const struct stats *u = &ws[t].per_target[i];
            stats_merge(&res->per_target[i], u);
            for (k = 0; k < H__COUNT; k++)
                hist_merge(&res->total.h[k], &u->h[k]);
        }
        res->queued += ws[t].backlog.len;
        res->extra_connections += ws[t].nactive - (cfg->connections / nt + (t < cfg->connections % nt));
        if (ws[t].t_all_connected == 0)
            res->all_connected_s = -1;
        else if (res->all_connected_s >= 0 && (double)(ws[t].t_all_connected - pl->t0) / 1e9 > res->all_connected_s)
            res->all_connected_s = (double)(ws[t].t_all_connected - pl->t0) / 1e9;
        if (ws[t].err[0]) {
            err_set(err, errlen, NULL, "%s", ws[t].err);
            return -1;
        }
    }
    if (!config_open_loop(cfg)) {
        /* Closed loop: every request is sent when due, so the uncorrected
         * histogram is the corrected one (record.c records it once). A
         * replay is open loop: record.c recorded both. */
        for (i = 0; i < res->ntargets; i++)
            hist_merge(&res->per_target[i].h[H_LATENCY_UNC], &res->per_target[i].h[H_LATENCY]);
        hist_merge(&res->total.h[H_LATENCY_UNC], &res->total.h[H_LATENCY]);
    }
    res->in_flight = res->total.started - res->total.completed - stats_errors(&res->total);
    /* The answers' own figures: first byte plus the rest (timeouts and the
     * censored are not answers), each sum a bound from above. */
    if (fairness_collect(ws, nt,
                       hist_percentile(&res->total.h[H_TTFB], 99) + hist_percentile(&res->total.h[H_TRANSFER], 99),
                       (double)res->total.h[H_TTFB].max + (double)res->total.h[H_TRANSFER].max, !config_open_loop(cfg),
                       &res->conns) != 0) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    tcpinfo_sum_init(&res->tcp);
    for (t = 0; t < nt; t++)
        tcpinfo_merge(&res->tcp, &ws[t].tcp);
    if (pl->ramped) {
        if ((res->per_stage = calloc(pl->ramp.n, sizeof(*res->per_stage))) == NULL) {
            err_set(err, errlen, NULL, "out of memory");
            return -1;
        }
        res->nstages = pl->ramp.n;
        for (i = 0; i < pl->ramp.n; i++) {
            stats_init(&res->per_stage[i]);
            for (t = 0; t < nt; t++)
                stats_merge(&res->per_stage[i], &ws[t].per_stage[i]);
        }
    }
    censor_merge(ws, nt, pl, res);
    stats_count_bad(&res->total, &cfg->expect);
    stats_count_stamped(&res->total);
    for (i = 0; i < res->ntargets; i++) {
        res->target_in_flight[i] = res->per_target[i].started - res->per_target[i].completed - stats_errors(&res->per_target[i]);
        stats_count_bad(&res->per_target[i], &cfg->expect);
        stats_count_stamped(&res->per_target[i]);
    }
    if (take_timeline(pl->tl, res) != 0) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    return 0;
}

/* The checks' counts over the threads, the first failure the earliest;
 * the requests skipped per variable. Returns 0 or -1 (memory). */
int collect_checks(const struct plan *pl, const struct worker *ws, uint32_t nt, struct run_figures *res)
{
    uint32_t k, t;
    if (pl->nchecks) {
        if ((res->checks = calloc(pl->nchecks, sizeof(*res->checks))) == NULL)
            return -1;
        res->nchecks = pl->nchecks;
    }
    for (k = 0; k < pl->nchecks; k++) {
        struct run_check *e = &res->checks[k];
        uint64_t first = UINT64_MAX;
        e->target = pl->check_target[k];
        snprintf(e->text, sizeof(e->text), "%s", pl->checks[k].text);
        for (t = 0; t < nt; t++) {
            e->passed += ws[t].chk_pass[k];
            e->failed += ws[t].chk_fail[k];
            if (ws[t].chk_fail[k] && ws[t].chk_seen_t[k] < first) {
                first = ws[t].chk_seen_t[k];
                snprintf(e->first_failure, sizeof(e->first_failure), "%s", ws[t].chk_seen[k]);
            }
        }
    }
    for (t = 0; t < nt; t++)
        res->parked += ws[t].parked;
    if (pl->tset->nvars) {
        res->var_names = calloc(pl->tset->nvars, sizeof(*res->var_names));
        res->skipped_var = calloc(pl->tset->nvars, sizeof(*res->skipped_var));
        if (res->var_names == NULL || res->skipped_var == NULL)
            return -1;
        res->nvars = pl->tset->nvars;
        for (k = 0; k < pl->tset->nvars; k++) {
            snprintf(res->var_names[k], sizeof(res->var_names[k]), "%s", pl->tset->var_names[k]);
            for (t = 0; t < nt; t++)
                res->skipped_var[k] += ws[t].skipped_var[k];
        }
    }
    return 0;
}

/* What the merged result says of the run itself: its measured time, its
 * rate, rafale's CPU, this shard's place. */
void collect_finish(const struct config *cfg, const struct plan *pl, const struct worker *ws, uint32_t nt,
                    const atomic_int *stop, double cpu_s, struct run_figures *res)
{
    uint64_t t_end = 0;
    uint32_t t;
    res->elapsed_s = 0;
    for (t = 0; t < nt; t++)
        if (ws[t].t_last > t_end)
            t_end = ws[t].t_last;
    if (t_end > pl->t_measure)
        res->elapsed_s = (double)(t_end - pl->t_measure) / 1e9;
    res->interrupted = atomic_load(stop) != 0;
    for (t = 0; t < nt; t++)
        if (ws[t].gave_up && res->gave_up_s == 0) {
            res->gave_up_s = (double)cfg->timeout_ns / 1e9;
            reach_why(&ws[t], res->gave_up_why, sizeof(res->gave_up_why));
        }
    res->target_rate = cfg->rate;
    res->client_cpu_s = cpu_s;
    res->workers_cpu_s = 0;
    for (t = 0; t < nt; t++)
        res->workers_cpu_s += ws[t].cpu_s;
    res->shard.index = cfg->shard_index;
    res->shard.count = cfg->shard_count;
    res->shard.start_unix_s = res->start_unix_s;
    res->shard.threads = nt;
    if (gethostname(res->shard.host, sizeof(res->shard.host)) != 0)
        snprintf(res->shard.host, sizeof(res->shard.host), "?");
    res->shard.host[sizeof(res->shard.host) - 1] = '\0';
}
