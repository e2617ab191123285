/* engine.c - runs a load test: the worker threads, each with its own event
 * loop, connections (conn.c), read buffer and counters; the work queue that
 * gives connections their requests; the constant-rate schedule's timer. The
 * watch while they run is live.c's, the collection of their figures after
 * join collect.c's. Threads share only the
 * read-only plan (plan.c) and the timeline (which has its own lock), so the
 * hot path has no locks and no atomics.
 *
 * Closed loop (default): a connection sends its next request as soon as a
 * response arrives. Rate mode (-R): a per-thread schedule (schedule.c) says
 * when each request is due; due requests wait in a backlog for a free
 * connection and keep their due time, so latency is measured from when the
 * request should have been sent (no coordinated omission). */
#include "engine.h"
#include "err.h"
#include "client.h"
#include "collect.h"
#include "live.h"
#include "clock.h"
#include "shard.h"
#include "rxstamp.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_WAIT_NS (50 * NS_PER_MS) /* how soon a worker notices a stop */

/* --- rate mode: due requests to free connections --- */

/* Every connection waits to connect again (reach.c): the due requests go
 * nowhere, and end at once as the last connect did, the schedule keeping
 * its due times (started = completed + errors + in flight still holds). */
static void unsent_all(struct worker *w, uint64_t now)
{
    while (w->backlog.len > 0) {
        uint64_t due = backlog_peek(&w->backlog);
        if (due >= w->plan->t_measure && !workq_may_start(w)) {
            w->backlog.len = 0; /* -n's budget is spent: the rest are not the run's */
            return;
        }
        backlog_pop(&w->backlog);
        /* Spread over the connections, as their targets' share. */
        conn_unsent(&w->conns[w->unsent_next++ % w->nactive], due, now);
    }
}

/* Due requests go to free connections, oldest first. */
static void dispatch(struct worker *w)
{
    uint64_t now = clock_ns();
    while (w->rlen > 0 && w->qlen > 0) {
        /* Requests refused unprocessed go first: they were due earliest. */
        struct conn *c = workq_dequeue(w);
        if (c->waiting || (c->state != C_IDLE && (c->state != C_OPEN || c->count >= c->cap || c->draining)))
            continue;
        conn_take(c, 0, now);
        if (c->state == C_OPEN && c->count < c->cap && !c->draining)
            workq_enqueue(c);
    }
    while (w->backlog.len > 0 && w->qlen > 0) {
        struct conn *c = workq_dequeue(w);
        uint64_t due = backlog_peek(&w->backlog);
        if (c->waiting || (c->state != C_IDLE && (c->state != C_OPEN || c->count >= c->cap || c->draining)))
            continue; /* busy again since it was queued, or waiting to connect again */
        if (due >= w->plan->t_measure && !workq_may_start(w)) {
            w->backlog.len = 0;
            break;
        }
        backlog_pop(&w->backlog);
        conn_take(c, due, now);
        /* More room on it (HTTP/2 streams, pipelining): back in the queue,
         * behind the others, so due requests spread over the connections.
         * Idle still: its request was skipped (a variable not set). */
        if ((c->state == C_OPEN || c->state == C_IDLE) && c->count < c->cap && !c->draining)
            workq_enqueue(c);
    }
    if (w->backlog.len > 0 && w->nwaiting && w->nactive && w->nwaiting >= w->nactive)
        unsent_all(w, now);
    /* --max-connections: the schedule is behind and every connection is
     * busy, so bring in another one rather than let requests wait (not
     * when connects fail: another would fail as well). */
    if (w->backlog.len > 0 && w->qlen == 0 && w->nactive < w->nconns && w->nwaiting == 0) {
        workq_enqueue(&w->conns[w->nactive++]);
        dispatch(w);
    }
}

/* rafale replay's schedule: the log's requests due by now join the
 * backlog, keeping their due times (latency is measured from them, as
 * -R's); the timer is set for the next one. A reader behind (none read
 * yet) is looked at again in a millisecond; at the log's end, what was
 * scheduled is the worker's budget. */
static void replay_fire(struct worker *w, uint64_t now)
{
    const struct plan *pl = w->plan;
    uint64_t due, next = now + NS_PER_MS;
    int r;
    while (!w->stopping && (r = replay_peek(w, &due)) != 0) {
        if (r < 0 || pl->t0 + due >= pl->t_deadline) {
            w->budget = w->scheduled;
            next = 0;
            break;
        }
        if (pl->t0 + due > now) {
            next = pl->t0 + due;
            break;
        }
        if (backlog_push(&w->backlog, pl->t0 + due) != 0) {
            snprintf(w->err, sizeof(w->err), "out of memory for the backlog of due requests");
            w->stopping = 1;
            return;
        }
        replay_pass(w);
        w->rp_due = due;
        w->scheduled++;
    }
    dispatch(w);
    if (next && !w->stopping && loop_timer_set(&w->loop, &w->sched_timer, next) != 0) {
        snprintf(w->err, sizeof(w->err), "out of memory for the schedule's timer");
        w->stopping = 1;
    }
}

/* The schedule's timer: every request due by now joins the backlog. */
static void sched_fire(struct timer *t, uint64_t now)
{
    struct worker *w = container_of(t, struct worker, sched_timer);
    const struct plan *pl = w->plan;

    if (pl->replay) {
        replay_fire(w, now);
        return;
    }

    while (w->sched.next_due <= now && w->sched.next_due < pl->t_deadline && !w->stopping) {
        if (w->sched.next_due >= pl->t_measure) {
            /* -n counts the requests the window took in from the warm-up. */
            if (w->scheduled + w->st.carried_in >= w->budget)
                break;
            w->scheduled++;
        }
        if (backlog_push(&w->backlog, sched_next(&w->sched)) != 0) {
            snprintf(w->err, sizeof(w->err), "out of memory for the backlog of due requests");
            w->stopping = 1;
            return;
        }
    }
    dispatch(w);
    /* Stopping (the first connects all refused, say): nothing more is due.
     * Set again, the timer was already past and spun in run_timers. */
    if (!w->stopping && w->sched.next_due < pl->t_deadline &&
        (w->sched.next_due < pl->t_measure || w->scheduled + w->st.carried_in < w->budget) &&
        loop_timer_set(&w->loop, &w->sched_timer, w->sched.next_due) != 0) {
        snprintf(w->err, sizeof(w->err), "out of memory for the schedule's timer");
        w->stopping = 1;
    }
}

/* --- the worker loop --- */

/* --stages ...c: the connections this worker should have now. */
static uint32_t conns_due(const struct worker *w, uint64_t now)
{
    const struct plan *pl = w->plan;
    double total = ramp_rate(&pl->ramp, now > pl->t_measure ? now - pl->t_measure : 0);
    uint32_t c = (uint32_t)(total + 0.5), nt = pl->nthreads, mine;
    if (pl->cfg->shard_count) /* the ramp is the whole run's: this shard's share of it */
        c = (uint32_t)shard_share(c, pl->cfg->shard_index, pl->cfg->shard_count);
    mine = c / nt + (w->id < c % nt);
    return mine < w->nconns ? mine : w->nconns;
}

/* Brings connections in, or lets the last ones go once their request is
 * answered (conn_fill closes them), as the stages say. */
static void ramp_conns(struct worker *w, uint64_t now)
{
    uint32_t want = conns_due(w, now);
    while (w->nactive < want)
        workq_enqueue(&w->conns[w->nactive++]);
    if (w->nactive > want) {
        uint32_t i;
        for (i = want; i < w->nactive; i++)
            if (w->conns[i].count == 0 && w->conns[i].state != C_IDLE) {
                conn_close(&w->conns[i]);
                w->conns[i].queued = 0;
            }
        w->nactive = want;
    }
}

static void run_queue(struct worker *w)
{
    /* Only those queued before this pass: a connection failing again at
     * once waits for the next turn of the loop instead of spinning here.
     * And a few at a time: the handshakes of the first ones are only seen
     * once the batch is issued, so a large batch inflates their measured
     * connect time; but 10 000 connections must still open quickly. */
    uint32_t batch = 16 + w->qlen / 16;
    uint32_t n = w->qlen < batch ? w->qlen : batch;
    uint64_t now = clock_ns();
    while (n-- > 0) {
        struct conn *c = workq_dequeue(w);
        if (w->plan->ramped == 2 && (uint32_t)(c - w->conns) >= w->nactive)
            continue; /* let go by the stages */
        if (c->state == C_IDLE && w->rlen)
            conn_take(c, 0, now);
        else if (c->state == C_IDLE && workq_may_start(w))
            conn_take(c, now, now);
        else if (c->state == C_OPEN && c->count < c->cap)
            conn_fill(c, now);
    }
}


static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const struct plan *pl = w->plan;
    uint32_t i;

    w->t_last = pl->t_measure;
    w->tl_end = pl->t_measure + NS_PER_S;
    w->tick_len = BATCH_TICK_NS;
    w->tick_start = pl->t_measure;
    w->tick_end = pl->t_measure + BATCH_TICK_NS;
    if (pl->ramped == 2)
        w->nactive = conns_due(w, pl->t0);
    for (i = 0; i < w->nactive; i++)
        workq_enqueue(&w->conns[i]);
    if (pl->replay) {
        loop_precise_timers();
        if (loop_timer_set(&w->loop, &w->sched_timer, pl->t0) != 0)
            snprintf(w->err, sizeof(w->err), "out of memory for the schedule's timer");
    } else if (rate_mode(w)) {
        loop_precise_timers();
        sched_init(&w->sched, pl->t0, w->id, pl->nthreads, pl->cfg->rate, pl->cfg->poisson,
                   pl->ramped == 1 ? &pl->ramp : NULL);
        if (pl->cfg->shard_count)
            /* Shard i of n sends requests i, i+n, i+2n... of the whole run's
             * schedule: its own is shifted by i/n of its interval. */
            sched_shift(&w->sched, (double)pl->cfg->shard_index / pl->cfg->shard_count, pl->cfg->shard_index);
        if (loop_timer_set(&w->loop, &w->sched_timer, w->sched.next_due) != 0)
            snprintf(w->err, sizeof(w->err), "out of memory for the schedule's timer");
    }

    for (;;) {
        uint64_t now, wait;
        if (w->qlen && !rate_mode(w))
            run_queue(w);
        else if (rate_mode(w) && (w->backlog.len || w->rlen) && w->qlen)
            dispatch(w);
        atomic_store_explicit(&w->pub_done, w->st.completed, memory_order_relaxed);
        atomic_store_explicit(&w->pub_err, stats_errors(&w->st), memory_order_relaxed);
        atomic_store_explicit(&w->pub_open, w->open, memory_order_relaxed);
        if (w->live) {
            atomic_store_explicit(&w->pub_started, w->st.started, memory_order_relaxed);
            atomic_store_explicit(&w->pub_ended, w->ended, memory_order_relaxed);
            if (rate_mode(w)) {
                atomic_store_explicit(&w->pub_backlog, w->backlog.len, memory_order_relaxed);
                atomic_store_explicit(&w->pub_lag_due, w->backlog.len ? backlog_peek(&w->backlog) : 0,
                                      memory_order_relaxed);
            }
        }
        if (w->abort) {
            atomic_store_explicit(&w->pub_checked, w->st.checked, memory_order_relaxed);
            atomic_store_explicit(&w->pub_chk_failed, w->st.checks_failed, memory_order_relaxed);
            atomic_store_explicit(&w->pub_bad, w->live_bad, memory_order_relaxed);
        }
        if (w->ended + w->st.skipped >= w->budget || (w->parked && w->parked >= w->nactive))
            break;
        if (atomic_load_explicit(pl->stop, memory_order_relaxed) || atomic_load_explicit(pl->failed, memory_order_relaxed) ||
            atomic_load_explicit(&((struct plan *)pl)->aborted, memory_order_relaxed) ||
            atomic_load_explicit(&((struct plan *)pl)->precise, memory_order_relaxed)) {
            w->t_last = clock_ns();
            break;
        }
        now = clock_ns();
        if (now >= pl->t_deadline) {
            w->t_last = pl->t_deadline;
            break;
        }
        if (w->t_down && reach_gave_up(w, now)) {
            w->t_last = now;
            break;
        }
        if (pl->ramped == 2)
            ramp_conns(w, now);
        if (!w->carried && now >= pl->t_measure)
            record_carry_in(w);
        record_roll(w, now);
        if (w->err[0]) {
            atomic_store(pl->failed, 1);
            break;
        }
        wait = (w->qlen && !rate_mode(w)) ? 0 : MAX_WAIT_NS;
        if (pl->t_deadline - now < wait)
            wait = pl->t_deadline - now;
        if (!w->carried && pl->t_measure - now < wait)
            wait = pl->t_measure - now; /* the window opens on time, the budget knowing what it carries */
        if (loop_poll(&w->loop, wait) < 0) {
            snprintf(w->err, sizeof(w->err), "epoll_wait: %s", strerror(errno));
            break;
        }
    }
    {
        /* Its CPU over the run, before the teardown: the run's time ends here too. */
        struct timespec ts;
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
            w->cpu_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    }
    w->stopping = 1;
    w->t_stop = clock_ns();
    if (w->t_stop > pl->t_deadline)
        w->t_stop = pl->t_deadline;
    record_censor(w); /* out of memory: they stay counted in flight, not in the histogram */
    for (i = 0; i < w->nconns; i++)
        conn_close(&w->conns[i]);
    if (w->err[0])
        atomic_store(pl->failed, 1);
    record_last_second(w);
    reqlog_flush(w);
    atomic_store(&w->finished, 1);
    return NULL;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

/* Waits until the wall clock reads t (--start-at), or stop. Returns how
 * late it is (0 when on time). */
static double wait_until(double t, const atomic_int *stop)
{
    for (;;) {
        double left = t - shard_now();
        struct timespec ts;
        if (left <= 0)
            return -left;
        if (atomic_load(stop))
            return 0;
        if (left > 0.1)
            left = 0.1;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)(left * 1e9);
        nanosleep(&ts, NULL);
    }
}

/* One TCP (or Unix socket) connection to a, within timeout_ns. Returns 0 or
 * an errno value. */
static int probe(const struct net_addr *a, const struct net_addr *src, uint64_t timeout_ns)
{
    struct pollfd p;
    int fd = net_connect(a, src), rc;
    if (fd < 0)
        return -fd;
    p.fd = fd;
    p.events = POLLOUT;
    rc = poll(&p, 1, (int)(timeout_ns / 1000000));
    rc = rc == 1 ? net_connect_result(fd) : rc == 0 ? ETIMEDOUT : errno;
    close(fd);
    return rc;
}

/* The sessions this rafale speaks, found by their protocol's name (as
 * haproxy's muxes by their ALPN token). */
static const struct session_ops *const sessions[] = {
    &session_http1,
    &session_http2,
#ifdef RAFALE_HTTP3
    &session_http3,
#endif
};

/* The plan, and its session's part (session_ops.plan_init): the engine
 * puts the two together, so the plan knows no session. */
static int build_plan(const struct config *cfg, struct plan *pl, char *err, size_t errlen)
{
    size_t i;
    if (plan_build(cfg, pl, err, errlen) != 0)
        return -1;
    for (i = 0; i < sizeof(sessions) / sizeof(sessions[0]) && strcmp(sessions[i]->name, pl->proto->name) != 0; i++)
        ;
    if (i == sizeof(sessions) / sizeof(sessions[0]))
        return err_set(err, errlen, NULL, "%s: this rafale does not speak %s", pl->proto->option, pl->proto->label);
    pl->sess = sessions[i];
    if (show_init(pl) != 0)
        return err_set(err, errlen, NULL, "out of memory");
    return pl->sess->plan_init ? pl->sess->plan_init(pl, err, errlen) : 0;
}

static void free_plan(struct plan *pl)
{
    show_free(pl);
    reach_fini(pl);
    if (pl->sess && pl->sess->plan_free)
        pl->sess->plan_free(pl);
    plan_free(pl);
}

int engine_preflight(const struct config *cfg, int connect, char *err, size_t errlen)
{
    struct config scfg;
    struct plan pl;
    uint32_t i;
    int rc;
    scfg = *cfg; /* the caller's share already (shard_apply) */
    rc = build_plan(&scfg, &pl, err, errlen);
    for (i = 0; rc == 0 && connect && i < pl.nendpoints; i++) {
        int e = probe(&pl.endpoints[i].addr, cfg->nsources ? &cfg->sources[0] : NULL, cfg->connect_timeout_ns);
        if (e != 0) {
            char a[128];
            err_set(err, errlen, NULL, "cannot connect to %s: %s", net_addr_str(&pl.endpoints[i].addr, a, sizeof(a)),
                    strerror(e));
            rc = -1;
        }
    }
    free_plan(&pl);
    return rc;
}

/* The run's workers, each with its connections and its share of -n.
 * Returns them, or NULL with the reason in err. */
static struct worker *make_workers(const struct config *cfg, const struct plan *pl, uint32_t nt, char *err,
                                   size_t errlen)
{
    struct worker *ws = calloc(nt, sizeof(*ws));
    uint64_t budget_left = cfg->requests ? cfg->requests : UINT64_MAX;
    uint32_t t, i, first = 0;
    if (ws == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return NULL;
    }
    for (t = 0; t < nt; t++) {
        uint32_t nc = cfg->connections / nt + (t < cfg->connections % nt);
        uint32_t nmax = cfg->max_connections / nt + (t < cfg->max_connections % nt);
        uint64_t budget = UINT64_MAX;
        if (cfg->requests) {
            if (cfg->rate > 0)
                /* Rate mode: thread t owns requests t, t+nt, t+2nt... */
                budget = cfg->requests / nt + (t < cfg->requests % nt);
            else
                /* Each thread's share in proportion to its connections; the
                 * shares add up to exactly -n. */
                budget = t == nt - 1 ? budget_left : cfg->requests * nc / cfg->connections;
            budget_left -= budget;
        }
        if (worker_init(&ws[t], pl, t, nc, nmax, first, budget) != 0) {
            err_set(err, errlen, NULL, "cannot set up worker %u: out of memory or file descriptors", t);
            for (i = 0; i <= t; i++)
                worker_free(&ws[i]);
            free(ws);
            return NULL;
        }
        ws[t].sched_timer.fn = sched_fire;
        first += ws[t].nconns;
    }
    return ws;
}

/* --start-at: every shard begins its measured phase at the same instant;
 * the warm-up comes before it. Returns 0, or ENGINE_ESTOPPED when Ctrl-C
 * came in the wait: the user gave up before any load. */
static int wait_start(const struct config *cfg, const atomic_int *stop, struct run_figures *res, char *err,
                      size_t errlen)
{
    res->shard.late_s = wait_until(cfg->start_at - (double)cfg->warmup_ns / 1e9, stop);
    if (!atomic_load(stop))
        return 0;
    err_set(err, errlen, NULL, "interrupted while waiting for --start-at: nothing was sent");
    return ENGINE_ESTOPPED;
}

/* The run's clock: its start, the measured phase after the warm-up, its
 * deadline. */
static void start_clock(const struct config *cfg, struct plan *pl, struct run_figures *res)
{
    pl->t0 = clock_ns();
    res->start_unix_s = shard_now();
    if (cfg->start_at > 0) {
        /* The run begins at --start-at, not when this thread woke: a shard
         * woken a few ms late (a loaded machine wakes a sleeper late)
         * would send all its share that much out of phase with the other
         * shards', its requests landing beside theirs; its first requests
         * are as late as it was. More than a second late, it begins when
         * it starts (the warning said so). */
        double begin = cfg->start_at - (double)cfg->warmup_ns / 1e9, late = res->start_unix_s - begin;
        if (late > 0 && late <= 1) {
            pl->t0 -= (uint64_t)(late * 1e9);
            res->start_unix_s = begin;
        }
    }
    res->start_unix_s += (double)cfg->warmup_ns / 1e9;
    if (pl->log)
        reqlog_header(pl->log, res->start_unix_s);
    pl->t_measure = pl->t0 + cfg->warmup_ns;
    if (pl->replay)
        replay_go(pl, pl->t0);
    pl->t_deadline = cfg->duration_ns ? pl->t_measure + cfg->duration_ns : UINT64_MAX;
}

/* What a run adds to its plan beyond the requests: --log's writer, the
 * live figures, the threads, the batches, --stages' ramp. Returns 0,
 * ENGINE_EPLAN (the log's path) or -1 (memory). */
static int run_parts(const struct config *cfg, struct plan *pl, struct reqlog *lg, uint32_t nt, char *err,
                     size_t errlen)
{
    if (cfg->out[OUT_LOG]) {
        if (reqlog_open(lg, cfg, nt, err, errlen) != 0)
            return ENGINE_EPLAN; /* before any load: the user's path */
        pl->log = lg;
    }
    if (cfg->metrics_listen || cfg->tui) { /* the live figures: the port's, the full-screen view's */
        if ((pl->live = calloc(1, sizeof(*pl->live))) == NULL) {
            err_set(err, errlen, NULL, "out of memory");
            return -1;
        }
        pthread_mutex_init(&pl->live_mu, NULL);
    }
    pl->nthreads = nt;
    batches_init(&pl->batches, TL_SUB_BITS); /* out of memory: no interval, the run goes on */
    if (cfg->nstages) {
        ramp_init(&pl->ramp, cfg->stage_start, cfg->stage_dur, cfg->stage_val, cfg->nstages);
        pl->ramped = cfg->stages_conns ? 2 : 1;
    }
    return 0;
}

/* After the threads joined: the run's figures, or why there are none
 * (ENGINE_EDOWN: the first connects all failed; -1). cpu0: the process's
 * CPU time when the load began. */
static int run_outcome(const struct config *cfg, struct plan *pl, struct worker *ws, uint32_t nt, uint32_t started,
                       const atomic_int *stop, double cpu0, struct run_figures *res, char *err, size_t errlen)
{
    uint32_t t;
    int rc = -1;

    for (t = 0; t < started && !ws[t].err[0]; t++)
        ;
    /* The first connects all failed: no report of nothing, one line; a
     * worker's own reason (a protocol mismatch seen by one of them) names
     * the cause better than the last failure's. */
    if (atomic_load(&pl->reach->said) && t == started) {
        err_set(err, errlen, NULL, "%s", pl->reach->msg);
        rc = ENGINE_EDOWN;
    } else if (started == nt) {
        rc = collect_merge(ws, nt, pl, res, err, errlen);
    }
    if (rc == 0 && collect_checks(pl, ws, nt, res) != 0) {
        err_set(err, errlen, NULL, "out of memory for the checks");
        rc = -1;
    }
    if (rc == 0) {
        collect_finish(cfg, pl, ws, nt, stop, cpu_seconds() - cpu0, res);
        res->batches = pl->batches; /* taken over */
        memset(&pl->batches, 0, sizeof(pl->batches));
    }
    else
        figures_free(res); /* what was merged before the failure */
    return rc;
}

int engine_run(const struct config *cfg_all, const atomic_int *stop, engine_progress_fn progress, void *arg,
               struct run_figures *res, char *err, size_t errlen)
{
    /* This shard's share of the run (all of it without --shard). */
    struct config shcfg;
    const struct config *cfg = &shcfg;
    struct plan pl;
    struct timeline tl;
    struct reqlog lg;
    atomic_int failed = 0;
    struct worker *ws = NULL;
    uint32_t t, nt = cfg_all->threads, started_threads = 0;
    double cpu0;
    int rc = -1, hold = -1, i, batch_mu = 0;

    memset(res, 0, sizeof(*res));
    memset(&pl, 0, sizeof(pl));
    shcfg = *cfg_all; /* the caller's share already (shard_apply): computed once */
    if (nt > cfg->connections)
        nt = cfg->connections;
    if (timeline_init(&tl, nt) != 0) {
        err_set(err, errlen, NULL, "cannot set up the timeline");
        return -1;
    }
    tl.keep_hist = cfg->shard_count > 0;
    if (cfg->abort_on_fail || cfg->metrics_listen || cfg->tui)
        timeline_keep_cumulative(&tl);

    /* The kernel's stamping on for the whole run, every connection's
     * answers stamped (rxstamp.h); before the first connect, it is on
     * within a few ms or never. */
    if (!cfg->user_timestamps && (hold = rxstamp_hold()) >= 0)
        for (i = 0; i < 50 && !rxstamp_live(hold); i++)
            nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    memset(&lg, 0, sizeof(lg));
    if (build_plan(cfg, &pl, err, errlen) != 0) {
        rc = ENGINE_EPLAN;
        goto out;
    }
    /* After the plan is built: plan_build starts from a zeroed plan. */
    pthread_mutex_init(&pl.batch_mu, NULL);
    batch_mu = 1;
    pl.stop = stop;
    pl.tl = &tl;
    pl.failed = &failed;
    if ((rc = run_parts(cfg, &pl, &lg, nt, err, errlen)) != 0)
        goto out;
    rc = -1;
    if ((ws = make_workers(cfg, &pl, nt, err, errlen)) == NULL)
        goto out;
    if (reach_init(&pl, ws, nt) != 0) {
        err_set(err, errlen, NULL, "out of memory");
        for (t = 0; t < nt; t++)
            worker_free(&ws[t]);
        goto out;
    }
    if (cfg->replay_path) {
        /* The log's first requests read before the clock starts. */
        if (replay_start(&pl, nt, err, errlen) != 0) {
            rc = ENGINE_EPLAN;
            goto workers;
        }
        replay_primed(&pl, stop);
    }

    if (cfg->start_at > 0 && (rc = wait_start(cfg, stop, res, err, errlen)) != 0)
        goto workers;
    cpu0 = cpu_seconds();
    start_clock(cfg, &pl, res);
    for (t = 0; t < nt; t++) {
        if (pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]) != 0) {
            err_set(err, errlen, NULL, "cannot start thread: %s", strerror(errno));
            break;
        }
        started_threads++;
    }
    if ((progress || cfg->abort_on_fail || cfg->metrics_listen || cfg->precision.n) && started_threads == nt)
        live_watch(&pl, ws, nt, progress, arg, res);
    for (t = 0; t < started_threads; t++)
        pthread_join(ws[t].thread, NULL);
    replay_stop(&pl, ws, started_threads); /* its tally complete: what came due */
    if (pl.log) {
        int lfail = 0;
        reqlog_close(pl.log, &res->log_written, &res->log_dropped, &lfail);
        res->log_failed = lfail;
    }

    rc = run_outcome(cfg, &pl, ws, nt, started_threads, stop, cpu0, res, err, errlen);
workers:
    replay_stop(&pl, ws, started_threads); /* stopped already, but where the run failed before its end */
    for (t = 0; t < nt; t++)
        worker_free(&ws[t]);
out:
    replay_stop(&pl, NULL, 0);
    if (pl.live) {
        pthread_mutex_destroy(&pl.live_mu);
        free(pl.live);
        pl.live = NULL;
    }
    if (lg.started) {
        /* Failed before the run: the writer goes too. */
        uint64_t a, b;
        int e;
        reqlog_close(&lg, &a, &b, &e);
    }
    free(ws);
    batches_fini(&pl.batches);
    if (batch_mu)
        pthread_mutex_destroy(&pl.batch_mu);
    free_plan(&pl);
    timeline_fini(&tl);
    if (hold >= 0)
        close(hold);
    return rc;
}
