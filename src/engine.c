/* engine.c - the load generator: worker threads, the connection state
 * machine, and the merge of per-thread results.
 *
 * Each worker owns an event loop, its connections, one read buffer and its
 * own stats; threads share only the read-only plan, so the hot path has no
 * locks and no atomics. A connection goes
 *
 *     IDLE -> CONNECTING -> HANDSHAKE -> WRITING -> READING -+-> WRITING (keep-alive)
 *                                                            +-> IDLE -> CONNECTING ...
 *
 * and a request is "started" when it is given a slot (with -n, its share of
 * the total), so started = completed + errors + in flight always holds. */
#include "engine.h"
#include "clock.h"
#include "http_parse.h"
#include "io.h"
#include "loop.h"
#include "net.h"
#include "request.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RBUF_SIZE (64 * 1024)
#define MAX_WAIT_NS (50 * NS_PER_MS) /* how soon a worker notices a stop */
#define container_of(p, T, m) ((T *)(void *)((char *)(p) - offsetof(T, m)))

struct plan_url {
    char *req;
    size_t len;
    int head;
    uint32_t target;
};

struct plan_target {
    struct net_addr addr;
    uint32_t *urls;   /* indexes into plan.urls */
    uint32_t nurls;
};

struct plan {
    const struct config *cfg;
    struct plan_url *urls;
    uint32_t nurls;
    struct plan_target *targets;
    uint32_t ntargets;
    uint64_t t0;
    const atomic_int *stop;
};

enum { C_IDLE, C_CONNECTING, C_HANDSHAKE, C_WRITING, C_READING };

struct worker;

struct conn {
    struct loop_io io;
    struct timer timer;
    struct worker *w;
    const struct io_ops *ops;
    void *io_ctx;
    int fd;
    uint8_t state;
    uint8_t fresh;        /* a connection was opened for the current request */
    uint8_t got_byte;
    uint8_t pending;      /* queued in worker.pending */
    uint32_t target;
    uint32_t url;
    uint32_t rr;          /* next URL of the target, round-robin */
    uint64_t nreq;        /* requests begun on this connection */
    uint64_t t_start, t_first;
    size_t woff;
    struct hp hp;
};

struct worker {
    const struct plan *plan;
    struct loop loop;
    struct conn *conns;
    uint32_t nconns;
    uint32_t *pending;     /* connections to (re)start outside their handler */
    uint32_t npending;
    uint64_t budget;       /* requests this worker may start */
    uint64_t ended;        /* completed + failed */
    uint64_t t_last;       /* when the last request ended */
    int stopping;
    struct stats st;
    struct stats *per_url;
    char *rbuf;
    pthread_t thread;
    char err[160];
};

static void conn_begin(struct conn *c);

static void conn_close(struct conn *c)
{
    if (c->fd >= 0) {
        c->ops->close(c->io_ctx, c->fd);
        c->fd = -1;
    }
    c->state = C_IDLE;
}

static void queue_restart(struct conn *c)
{
    struct worker *w = c->w;
    if (!c->pending) {
        c->pending = 1;
        w->pending[w->npending++] = (uint32_t)(c - w->conns);
    }
}

static enum err_kind connect_kind(int e)
{
    switch (e) {
    case ECONNREFUSED:
        return ERR_CONNECT_REFUSED;
    case ETIMEDOUT:
        return ERR_CONNECT_TIMEOUT;
    case EADDRNOTAVAIL:
        return ERR_ADDR_UNAVAILABLE;
    default:
        return ERR_CONNECT_OTHER;
    }
}

static void note_error(struct stats *s, enum err_kind k, int e, const char *detail)
{
    s->errors[k]++;
    if (s->err_errno[k] == 0)
        s->err_errno[k] = e;
    if (s->err_detail[k] == NULL)
        s->err_detail[k] = detail;
}

/* The current request ended in error: count it, drop the connection, and
 * start the next request from the loop (never recursively). */
static void conn_fail(struct conn *c, enum err_kind k, int e, const char *detail, uint64_t now)
{
    struct worker *w = c->w;
    struct stats *u = &w->per_url[c->url];

    note_error(&w->st, k, e, detail);
    note_error(u, k, e, detail);
    if (k == ERR_TIMEOUT || k == ERR_CONNECT_TIMEOUT) {
        /* A slow sample is still a sample: drop it and the tail lies. */
        hist_record(&w->st.latency, now - c->t_start);
        hist_record(&u->latency, now - c->t_start);
    }
    w->ended++;
    w->t_last = now;
    conn_close(c);
    queue_restart(c);
}

static void conn_done(struct conn *c, uint64_t now, int force_close)
{
    struct worker *w = c->w;
    const struct config *cfg = w->plan->cfg;
    struct stats *u = &w->per_url[c->url];
    unsigned status = c->hp.status < STATUS_MAX ? c->hp.status : 0;
    uint64_t lat = now - c->t_start, ttfb = c->t_first - c->t_start;
    int server_keeps = hp_keepalive(&c->hp);

    w->st.completed++;
    u->completed++;
    w->st.status[status]++;
    u->status[status]++;
    hist_record(&w->st.latency, lat);
    hist_record(&u->latency, lat);
    hist_record(&w->st.ttfb, ttfb);
    hist_record(&u->ttfb, ttfb);
    w->ended++;
    w->t_last = now;

    if (cfg->keepalive && !server_keeps) {
        w->st.server_closes++;
        u->server_closes++;
    }
    if (force_close || !cfg->keepalive || !server_keeps ||
        (cfg->requests_per_conn && c->nreq >= cfg->requests_per_conn))
        conn_close(c);
    conn_begin(c);
}

static void conn_write(struct conn *c)
{
    struct worker *w = c->w;
    const struct plan_url *pu = &w->plan->urls[c->url];

    while (c->woff < pu->len) {
        ssize_t n = c->ops->write(c->io_ctx, c->fd, pu->req + c->woff, pu->len - c->woff);
        if (n > 0) {
            c->woff += (size_t)n;
            w->st.bytes_sent += (uint64_t)n;
            w->per_url[c->url].bytes_sent += (uint64_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return; /* edge-triggered EPOLLOUT will call us back */
        conn_fail(c, ERR_WRITE, n < 0 ? errno : EPIPE, NULL, clock_ns());
        return;
    }
    c->state = C_READING;
}

/* hup: the event said the peer closed or failed; then read on until the
 * end of stream, because no further edge will announce it. */
static void conn_read(struct conn *c, int hup)
{
    struct worker *w = c->w;
    char *buf = w->rbuf;

    for (;;) {
        ssize_t n = c->ops->read(c->io_ctx, c->fd, buf, RBUF_SIZE);
        uint64_t now;

        if (n > 0) {
            ssize_t r;
            now = clock_ns();
            w->st.bytes_recv += (uint64_t)n;
            w->per_url[c->url].bytes_recv += (uint64_t)n;
            if (!c->got_byte) {
                c->got_byte = 1;
                c->t_first = now;
            }
            r = hp_feed(&c->hp, buf, (size_t)n);
            if (r == -1) {
                conn_fail(c, ERR_MALFORMED, 0, c->hp.error, now);
                return;
            }
            if (r >= 0) {
                /* Bytes past the end of the response were never asked for:
                 * the response counts, but the connection is not trusted. */
                conn_done(c, now, r < n);
                return;
            }
            if (n < RBUF_SIZE && !hup)
                return; /* drained: the next arrival raises a new edge */
            continue;
        }
        if (n == 0) {
            now = clock_ns();
            if (hp_eof(&c->hp)) {
                if (!c->got_byte)
                    c->t_first = now;
                conn_done(c, now, 1);
            } else {
                conn_fail(c, ERR_CLOSED_EARLY, 0, NULL, now);
            }
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            return;
        conn_fail(c, errno == ETIMEDOUT ? ERR_TIMEOUT : ERR_RESET, errno, NULL, clock_ns());
        return;
    }
}

static void conn_handshake(struct conn *c)
{
    int r = c->ops->handshake(c->io_ctx, c->fd);
    if (r == IO_OK) {
        c->state = C_WRITING;
        conn_write(c);
    } else if (r == IO_ERROR) {
        conn_fail(c, ERR_CONNECT_OTHER, errno, NULL, clock_ns());
    }
    /* IO_WANT_*: both directions are watched, the next edge calls us again. */
}

static void conn_on_io(struct loop_io *io, uint32_t ev)
{
    struct conn *c = container_of(io, struct conn, io);
    struct worker *w = c->w;

    switch (c->state) {
    case C_CONNECTING: {
        int e = net_connect_result(c->fd);
        uint64_t now = clock_ns();
        if (e != 0) {
            conn_fail(c, connect_kind(e), e, NULL, now);
            return;
        }
        if (!(ev & (LOOP_OUT | LOOP_ERR)))
            return;
        w->st.conns_opened++;
        w->per_url[c->url].conns_opened++;
        hist_record(&w->st.connect, now - c->t_start);
        hist_record(&w->per_url[c->url].connect, now - c->t_start);
        c->state = C_HANDSHAKE;
        conn_handshake(c);
        return;
    }
    case C_HANDSHAKE:
        conn_handshake(c);
        return;
    case C_WRITING:
        if (ev & LOOP_OUT)
            conn_write(c);
        /* A server may answer (413, 400) before it read the whole request. */
        if (c->state == C_WRITING && (ev & LOOP_IN))
            conn_read(c, (ev & LOOP_ERR) != 0);
        if (c->state == C_READING && (ev & LOOP_IN))
            conn_read(c, (ev & LOOP_ERR) != 0);
        return;
    case C_READING:
        if (ev & LOOP_IN)
            conn_read(c, (ev & LOOP_ERR) != 0);
        return;
    default:
        return;
    }
}

static void conn_on_timer(struct timer *t, uint64_t now)
{
    struct conn *c = container_of(t, struct conn, timer);
    if (c->state == C_CONNECTING)
        conn_fail(c, ERR_CONNECT_TIMEOUT, ETIMEDOUT, NULL, now);
    else if (c->state != C_IDLE)
        conn_fail(c, ERR_TIMEOUT, 0, NULL, now);
}

/* Gives the connection its next request, opening a socket if it has none. */
static void conn_begin(struct conn *c)
{
    struct worker *w = c->w;
    const struct plan *pl = w->plan;
    const struct config *cfg = pl->cfg;
    const struct plan_target *tg = &pl->targets[c->target];
    uint64_t now;

    if (w->stopping || w->st.started >= w->budget) {
        conn_close(c);
        return;
    }
    w->st.started++;
    c->url = tg->urls[c->rr++ % tg->nurls];
    w->per_url[c->url].started++;
    hp_reset(&c->hp, pl->urls[c->url].head);
    c->got_byte = 0;
    c->woff = 0;
    now = clock_ns();
    c->t_start = now;

    if (c->fd < 0) {
        int fd = net_connect(&tg->addr), e;
        uint64_t ct = cfg->connect_timeout_ns < cfg->timeout_ns ? cfg->connect_timeout_ns : cfg->timeout_ns;
        c->fresh = 1;
        c->nreq = 0;
        if (fd < 0) {
            conn_fail(c, connect_kind(-fd), -fd, NULL, now);
            return;
        }
        c->fd = fd;
        c->ops = &io_plain;
        c->io_ctx = NULL;
        if ((e = loop_add(&w->loop, fd, LOOP_IN | LOOP_OUT, &c->io)) != 0) {
            conn_fail(c, ERR_CONNECT_OTHER, e, NULL, now);
            return;
        }
        c->state = C_CONNECTING;
        c->nreq++;
        timer_set(&w->loop, &c->timer, now + ct);
        return;
    }
    c->fresh = 0;
    c->nreq++;
    c->state = C_WRITING;
    timer_set(&w->loop, &c->timer, now + cfg->timeout_ns);
    conn_write(c);
}

static void run_pending(struct worker *w)
{
    uint32_t n = w->npending, i;
    /* Only those queued before this pass: a connection failing again at
     * once waits for the next turn of the loop instead of spinning here. */
    uint32_t *snap = w->pending + n;
    memcpy(snap, w->pending, n * sizeof(*snap));
    w->npending = 0;
    for (i = 0; i < n; i++) {
        struct conn *c = &w->conns[snap[i]];
        c->pending = 0;
        conn_begin(c);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const struct plan *pl = w->plan;
    const struct config *cfg = pl->cfg;
    uint64_t deadline = cfg->duration_ns ? pl->t0 + cfg->duration_ns : UINT64_MAX;
    uint32_t i;

    w->t_last = pl->t0;
    for (i = 0; i < w->nconns; i++)
        queue_restart(&w->conns[i]);

    for (;;) {
        uint64_t now, wait;
        if (w->npending)
            run_pending(w);
        if (w->ended >= w->budget)
            break;
        if (atomic_load_explicit(pl->stop, memory_order_relaxed))
            break;
        now = clock_ns();
        if (now >= deadline) {
            w->t_last = deadline;
            break;
        }
        wait = w->npending ? 0 : MAX_WAIT_NS;
        if (deadline - now < wait)
            wait = deadline - now;
        if (loop_poll(&w->loop, wait) < 0) {
            snprintf(w->err, sizeof(w->err), "epoll_wait: %s", strerror(errno));
            break;
        }
    }
    w->stopping = 1;
    for (i = 0; i < w->nconns; i++)
        conn_close(&w->conns[i]);
    return NULL;
}

/* --- plan: resolve targets and build requests once --- */

static void plan_free(struct plan *pl)
{
    uint32_t i;
    for (i = 0; i < pl->nurls; i++)
        free(pl->urls[i].req);
    for (i = 0; i < pl->ntargets; i++)
        free(pl->targets[i].urls);
    free(pl->urls);
    free(pl->targets);
}

static int plan_build(const struct config *cfg, struct plan *pl, char *err, size_t errlen)
{
    uint32_t i, j;

    memset(pl, 0, sizeof(*pl));
    pl->cfg = cfg;
    pl->urls = calloc(cfg->nurls, sizeof(*pl->urls));
    pl->targets = calloc(cfg->nurls, sizeof(*pl->targets));
    if (pl->urls == NULL || pl->targets == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pl->nurls = cfg->nurls;
    for (i = 0; i < cfg->nurls; i++) {
        struct net_addr a;
        const struct url *u = &cfg->urls[i];
        if (request_build(cfg, u, &pl->urls[i].req, &pl->urls[i].len, err, errlen) != 0)
            return -1;
        pl->urls[i].head = strcmp(cfg->method, "HEAD") == 0;
        if (net_resolve(u->host, u->port, &a, err, errlen) != 0)
            return -1;
        /* URLs on the same address share connections. */
        for (j = 0; j < pl->ntargets; j++)
            if (pl->targets[j].addr.len == a.len && memcmp(&pl->targets[j].addr.ss, &a.ss, a.len) == 0)
                break;
        if (j == pl->ntargets) {
            pl->targets[j].addr = a;
            pl->targets[j].urls = calloc(cfg->nurls, sizeof(uint32_t));
            if (pl->targets[j].urls == NULL) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            pl->ntargets++;
        }
        pl->targets[j].urls[pl->targets[j].nurls++] = i;
        pl->urls[i].target = j;
    }
    return 0;
}

static void worker_free(struct worker *w)
{
    uint32_t i;
    if (w->per_url) {
        for (i = 0; i < w->plan->nurls; i++)
            stats_fini(&w->per_url[i]);
    }
    free(w->per_url);
    stats_fini(&w->st);
    free(w->conns);
    free(w->pending);
    free(w->rbuf);
    loop_fini(&w->loop);
}

static int worker_init(struct worker *w, const struct plan *pl, uint32_t nconns, uint32_t first_conn,
                       uint64_t budget)
{
    uint32_t i;
    memset(w, 0, sizeof(*w));
    w->plan = pl;
    w->loop.epfd = -1;
    w->nconns = nconns;
    w->budget = budget;
    if (loop_init(&w->loop, nconns < 1024 ? (int)nconns + 16 : 1024) != 0)
        return -1;
    w->conns = calloc(nconns, sizeof(*w->conns));
    w->pending = calloc(2 * (size_t)nconns, sizeof(uint32_t));
    w->rbuf = malloc(RBUF_SIZE);
    w->per_url = calloc(pl->nurls, sizeof(*w->per_url));
    if (w->conns == NULL || w->pending == NULL || w->rbuf == NULL || w->per_url == NULL ||
        stats_init(&w->st) != 0)
        return -1;
    for (i = 0; i < pl->nurls; i++)
        if (stats_init(&w->per_url[i]) != 0)
            return -1;
    for (i = 0; i < nconns; i++) {
        struct conn *c = &w->conns[i];
        c->w = w;
        c->fd = -1;
        c->io.fn = conn_on_io;
        c->timer.fn = conn_on_timer;
        c->ops = &io_plain;
        c->target = (first_conn + i) % pl->ntargets;
        /* Spread the starting URL so each URL gets its share from the start. */
        c->rr = (first_conn + i) / pl->ntargets;
    }
    return 0;
}

int engine_run(const struct config *cfg, const atomic_int *stop, struct engine_result *res,
               char *err, size_t errlen)
{
    struct plan pl;
    struct worker *ws = NULL;
    uint32_t t, nt = cfg->threads, first = 0, started_threads = 0, i;
    uint64_t budget_left = cfg->requests ? cfg->requests : UINT64_MAX, t_end = 0;
    int rc = -1;

    memset(res, 0, sizeof(*res));
    if (plan_build(cfg, &pl, err, errlen) != 0)
        goto out;
    pl.stop = stop;
    if (nt > cfg->connections)
        nt = cfg->connections;
    ws = calloc(nt, sizeof(*ws));
    if (ws == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (t = 0; t < nt; t++) {
        uint32_t nc = cfg->connections / nt + (t < cfg->connections % nt);
        uint64_t budget = UINT64_MAX;
        if (cfg->requests) {
            /* Each thread's share in proportion to its connections; the
             * shares add up to exactly -n. */
            budget = t == nt - 1 ? budget_left : cfg->requests * nc / cfg->connections;
            budget_left -= budget;
        }
        if (worker_init(&ws[t], &pl, nc, first, budget) != 0) {
            snprintf(err, errlen, "cannot set up worker %u: out of memory or file descriptors", t);
            for (i = 0; i <= t; i++)
                worker_free(&ws[i]);
            goto out;
        }
        first += nc;
    }

    pl.t0 = clock_ns();
    for (t = 0; t < nt; t++) {
        if (pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]) != 0) {
            snprintf(err, errlen, "cannot start thread: %s", strerror(errno));
            break;
        }
        started_threads++;
    }
    for (t = 0; t < started_threads; t++)
        pthread_join(ws[t].thread, NULL);

    if (started_threads == nt) {
        res->nurls = pl.nurls;
        res->per_url = calloc(pl.nurls, sizeof(*res->per_url));
        res->url_in_flight = calloc(pl.nurls, sizeof(uint64_t));
        if (res->per_url == NULL || res->url_in_flight == NULL || stats_init(&res->total) != 0) {
            snprintf(err, errlen, "out of memory");
        } else {
            rc = 0;
            for (i = 0; i < pl.nurls; i++)
                if (stats_init(&res->per_url[i]) != 0)
                    rc = -1;
            for (t = 0; t < nt && rc == 0; t++) {
                stats_merge(&res->total, &ws[t].st);
                for (i = 0; i < pl.nurls; i++)
                    stats_merge(&res->per_url[i], &ws[t].per_url[i]);
                if (ws[t].t_last > t_end)
                    t_end = ws[t].t_last;
                if (ws[t].err[0]) {
                    snprintf(err, errlen, "%s", ws[t].err);
                    rc = -1;
                }
            }
            res->in_flight = res->total.started - res->total.completed - stats_errors(&res->total);
            for (i = 0; i < pl.nurls; i++)
                res->url_in_flight[i] = res->per_url[i].started - res->per_url[i].completed -
                                        stats_errors(&res->per_url[i]);
            res->elapsed_s = (double)(t_end - pl.t0) / 1e9;
            res->interrupted = atomic_load(stop) != 0;
        }
    }
    for (t = 0; t < nt; t++)
        worker_free(&ws[t]);
out:
    free(ws);
    plan_free(&pl);
    return rc;
}

void engine_result_free(struct engine_result *res)
{
    uint32_t i;
    if (res->per_url)
        for (i = 0; i < res->nurls; i++)
            stats_fini(&res->per_url[i]);
    free(res->per_url);
    free(res->url_in_flight);
    stats_fini(&res->total);
    memset(res, 0, sizeof(*res));
}
