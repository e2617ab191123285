/* live.c - the engine's watch while its workers run: four times a second
 * it sums what they published for the progress line and --metrics-listen
 * (the live figures), and once a second judges --abort-on-fail's SLO on the
 * seconds every thread has closed. It reads only what the workers publish
 * (relaxed atomics, the timeline, the live figures under their lock). */
#include "live.h"
#include "clock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Sums what the workers published, for the live view; the latencies are
 * those of the last complete second over all threads. */
static void sample_progress(const struct plan *pl, struct worker *ws, uint32_t nt, struct engine_progress *p)
{
    struct tl_second last;
    double p90;
    uint32_t t;
    memset(p, 0, sizeof(*p));
    p->p50_ns = p->p90_ns = p->p99_ns = -1;
    p->elapsed_s = ((double)clock_ns() - (double)pl->t_measure) / 1e9;
    for (t = 0; t < nt; t++) {
        p->completed += atomic_load_explicit(&ws[t].pub_done, memory_order_relaxed);
        p->errors += atomic_load_explicit(&ws[t].pub_err, memory_order_relaxed);
        p->open += atomic_load_explicit(&ws[t].pub_open, memory_order_relaxed);
    }
    if (timeline_latest(pl->tl, &last, &p90) && last.completed) {
        p->p50_ns = last.p50_ns;
        p->p90_ns = p90;
        p->p99_ns = last.p99_ns;
    }
}

/* --abort-on-fail: the SLO on the figures so far (the seconds every
 * thread has closed, so at most a second behind). Returns 1 when it is
 * lost, with which threshold and when in res. */
static int slo_lost(struct plan *pl, struct worker *ws, uint32_t nt, struct stats *snap, struct run_figures *res)
{
    struct slo s = pl->cfg->slo;
    uint64_t req, errs, now = clock_ns();
    uint32_t t, secs;
    int k;
    if (now < pl->t_measure + pl->cfg->abort_after_ns)
        return 0;
    secs = timeline_cumulative(pl->tl, &snap->h[H_LATENCY], &req, &errs);
    if (secs == 0)
        return 0;
    snap->completed = req;
    memset(snap->errors, 0, sizeof(snap->errors));
    snap->errors[0] = errs;
    snap->bad_status = snap->checked = snap->checks_failed = 0;
    for (t = 0; t < nt; t++) {
        snap->bad_status += atomic_load_explicit(&ws[t].pub_bad, memory_order_relaxed);
        snap->checked += atomic_load_explicit(&ws[t].pub_checked, memory_order_relaxed);
        snap->checks_failed += atomic_load_explicit(&ws[t].pub_chk_failed, memory_order_relaxed);
    }
    if (snap->bad_status > snap->completed)
        snap->bad_status = snap->completed; /* published a moment apart */
    if (snap->checks_failed > snap->checked)
        snap->checks_failed = snap->checked;
    if (slo_eval(&s, snap, (double)secs) == 0)
        return 0;
    for (k = 0; k < s.n; k++)
        if (!s.goal[k].pass) {
            /* Nothing measured yet (no answer, or none checked) is not
             * judged yet: at the end it fails, not on the way. */
            int lat = s.goal[k].metric == SLO_PCT || s.goal[k].metric == SLO_MEAN || s.goal[k].metric == SLO_MAX_LAT;
            if ((lat && snap->h[H_LATENCY].total == 0) || (s.goal[k].metric == SLO_CHECKS_PCT && snap->checked == 0))
                continue;
            char v[32];
            res->aborted = 1;
            res->aborted_at_s = (double)(now - pl->t_measure) / 1e9;
            snprintf(res->aborted_why, sizeof(res->aborted_why), "%s (measured %s over the first %us)", s.goal[k].text,
                     slo_value_str(&s.goal[k], s.goal[k].value, v, sizeof(v)), secs);
            return 1;
        }
    return 0;
}

/* --precision: 1 when every goal's interval is within its width on the
 * batches so far (a second of them at least, and 16 batches: an interval
 * of a few short batches can be narrow by chance). */
static int precision_met(struct plan *pl)
{
    const struct precision *p = &pl->cfg->precision;
    uint64_t now = clock_ns();
    double el;
    int i, met = 1;
    if (now < pl->t_measure + NS_PER_S)
        return 0;
    /* The ticks closed so far: the one under way is in no batch yet. */
    el = (double)((now - pl->t_measure) / BATCH_TICK_NS * BATCH_TICK_NS) / 1e9;
    pthread_mutex_lock(&pl->batch_mu);
    for (i = 0; i < p->n && met; i++) {
        struct interval iv;
        if (interval_of_run(&pl->batches, NULL, el, p->g[i].fig, &p->g[i].pct, 1, &iv) != 0 || iv.batches == 0 ||
            pl->batches.n < 16 || precision_width(&iv) > p->g[i].rel)
            met = 0;
    }
    pthread_mutex_unlock(&pl->batch_mu);
    return met;
}

/* --metrics-listen: the figures so far, copied for the caller's callback. */
static void live_snapshot(struct plan *pl, struct worker *ws, uint32_t nt, struct engine_live *out)
{
    uint64_t now = clock_ns(), due;
    uint32_t t;
    struct hist keep = out->latency;
    pthread_mutex_lock(&pl->live_mu);
    *out = *pl->live;
    pthread_mutex_unlock(&pl->live_mu);
    out->latency = keep;
    out->closed_s = timeline_cumulative(pl->tl, &out->latency, &out->closed_req, &out->closed_err);
    out->started = out->ended = out->backlog = 0;
    out->open = 0;
    out->lag_s = 0;
    for (t = 0; t < nt; t++) {
        out->backlog += atomic_load_explicit(&ws[t].pub_backlog, memory_order_relaxed);
        due = atomic_load_explicit(&ws[t].pub_lag_due, memory_order_relaxed);
        if (due && due < now && (double)(now - due) / 1e9 > out->lag_s)
            out->lag_s = (double)(now - due) / 1e9; /* the oldest of all threads' */
        out->started += atomic_load_explicit(&ws[t].pub_started, memory_order_relaxed);
        out->ended += atomic_load_explicit(&ws[t].pub_ended, memory_order_relaxed);
        out->open += atomic_load_explicit(&ws[t].pub_open, memory_order_relaxed);
    }
    if (out->ended > out->started)
        out->ended = out->started; /* published a moment apart */
    out->ntargets = pl->ntargets < ENGINE_LIVE_FIGS ? pl->ntargets : ENGINE_LIVE_FIGS + 1;
    out->rate_mode = pl->cfg->rate > 0;
    /* --stages: the rate of this moment of the ramp. */
    out->target_rate = pl->ramped == 1 && pl->cfg->rate > 0 ? ramp_rate(&pl->ramp, now > pl->t0 ? now - pl->t0 : 0)
                                                           : pl->cfg->rate;
    if (now < pl->t_measure) { /* the warm-up's figures are not the run's */
        out->lag_s = 0;
        out->backlog = 0;
    }
    out->elapsed_s = ((double)now - (double)pl->t_measure) / 1e9;
}

void live_watch(struct plan *pl, struct worker *ws, uint32_t nt, engine_progress_fn progress, void *arg,
                struct run_figures *res)
{
    uint32_t t;
    struct stats snap;
    struct engine_live *live = NULL;
    uint64_t next_judge = 0;
    int judge = pl->cfg->abort_on_fail && stats_init(&snap) == 0;
    if (pl->live && (live = calloc(1, sizeof(*live))) != NULL && hist_init_bits(&live->latency, TL_SUB_BITS) != 0) {
        free(live);
        live = NULL;
    }
    if (judge) {
        hist_fini(&snap.h[H_LATENCY]);
        judge = hist_init_bits(&snap.h[H_LATENCY], TL_SUB_BITS) == 0;
    }
    for (;;) {
        struct engine_progress p;
        struct timespec ts = { 0, 250 * 1000000L };
        int all = 1;
        nanosleep(&ts, NULL);
        for (t = 0; t < nt; t++)
            if (!atomic_load(&ws[t].finished))
                all = 0;
        if (all) {
            /* Every thread added its last counts: the live figures are the
             * run's, one last time. */
            if (progress && live) {
                sample_progress(pl, ws, nt, &p);
                live_snapshot(pl, ws, nt, live);
                p.live = live;
                progress(&p, arg);
            }
            break;
        }
        if (pl->cfg->precision.n && !atomic_load(&pl->precise) && precision_met(pl)) {
            res->precise_at_s = (double)(clock_ns() - pl->t_measure) / 1e9;
            atomic_store(&pl->precise, 1);
        }
        if (judge && !atomic_load(&pl->aborted) && clock_ns() >= next_judge) {
            next_judge = clock_ns() + NS_PER_S;
            if (slo_lost(pl, ws, nt, &snap, res))
                atomic_store(&pl->aborted, 1);
        }
        if (progress) {
            sample_progress(pl, ws, nt, &p);
            if (live) {
                live_snapshot(pl, ws, nt, live);
                p.live = live;
            }
            progress(&p, arg);
        }
    }
    if (pl->cfg->abort_on_fail)
        stats_fini(&snap);
    if (live) {
        hist_fini(&live->latency);
        free(live);
    }
}
