/* engine.c - the load generator: worker threads, the connection state
 * machine, the send schedule, and the merge of per-thread results.
 *
 * Each worker owns an event loop, its connections, one read buffer and its
 * own stats; threads share only the read-only plan, so the hot path has no
 * locks and no atomics. A connection goes
 *
 *     IDLE -> CONNECTING -> HANDSHAKE -> OPEN -> ... -> IDLE
 *
 * and while OPEN it carries a ring of outstanding requests ("slots", more
 * than one when pipelining): written in order, answered in order.
 *
 * Closed loop (default): a connection sends its next request as soon as a
 * response arrives. Rate mode (-R): a per-thread schedule says when each
 * request is due; due requests wait in a backlog for a free connection and
 * keep their due time, so latency is measured from when the request should
 * have been sent (no coordinated omission).
 *
 * A request is "started" when it gets a slot, and it ends completed or
 * failed, so started = completed + errors + in flight always holds. */
#include "engine.h"
#include "clock.h"
#include "http_parse.h"
#include "io.h"
#include "loop.h"
#include "net.h"
#include "request.h"
#include "tls.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_WAIT_NS (50 * NS_PER_MS) /* how soon a worker notices a stop */
#define MAX_IOV 64

struct plan_url {
    char *req;
    size_t len;
    int head;
    uint32_t target;
};

struct plan_target {
    struct net_addr addr;
    int tls;
    char host[URL_HOST_MAX];  /* for SNI and the certificate check */
    uint32_t *urls;   /* indexes into plan.urls */
    uint32_t nurls;
};

struct plan {
    const struct config *cfg;
    struct plan_url *urls;
    uint32_t nurls;
    struct plan_target *targets;
    uint32_t ntargets;
    uint32_t nthreads;
    struct tls_client *tls; /* when some URL is https:// */
    uint64_t t0;         /* start: warm-up begins */
    uint64_t t_measure;  /* measured phase begins */
    uint64_t t_deadline; /* -d ends the measured phase here, or UINT64_MAX */
    const atomic_int *stop;
    struct timeline *tl; /* shared: each worker merges its seconds into it */
};

enum { C_IDLE, C_CONNECTING, C_HANDSHAKE, C_OPEN };

struct slot {
    uint64_t t_due;      /* when it should have been sent (== t_sent in closed loop) */
    uint64_t t_sent;     /* when it started: connect start if a connection was opened for it */
    uint32_t url;
    uint8_t measured;    /* started in the measured phase: counts in the results */
};

struct worker;

struct conn {
    struct loop_io io;
    struct timer timer;
    struct worker *w;
    const struct io_ops *ops;
    void *io_ctx;
    int fd;
    uint8_t state;
    uint8_t queued;      /* in worker.restart (closed loop) or worker.ready (rate) */
    uint8_t got_first;   /* a byte of the oldest request's response arrived */
    uint16_t count;      /* requests outstanding */
    uint16_t nsent;      /* of those, written whole */
    uint16_t head;       /* ring index of the oldest */
    uint16_t cap;        /* pipeline depth */
    uint32_t target;
    uint32_t rr;         /* next URL of the target, round-robin */
    uint64_t nreq;       /* requests begun on this connection */
    uint64_t t_first;
    uint64_t t_tcp;      /* TCP handshake done: the TLS handshake starts */
    size_t woff;         /* bytes written of the first unsent request */
    struct hp hp;
    struct slot *slots;  /* cap entries; &one when not pipelining */
    struct slot one;
};

struct worker {
    const struct plan *plan;
    struct loop loop;
    struct conn *conns;
    uint32_t nconns;       /* allocated: the share of --max-connections (or -c) */
    uint32_t nactive;      /* in use: the share of -c, more when the schedule falls behind */
    uint32_t id;
    /* Connections waiting to be given work, processed outside handlers so
     * that failing connects never recurse. A FIFO: in rate mode requests go
     * round-robin over the connections, as evenly as the schedule allows. */
    uint32_t *q;
    uint32_t qhead, qlen;
    uint64_t budget;       /* measured requests this worker may start */
    uint64_t ended;        /* measured requests completed or failed */
    uint64_t t_last;       /* when the last measured request ended */
    int stopping;
    /* Rate mode: the schedule and the backlog of due, unsent requests. */
    struct timer sched;
    uint64_t next_due;
    uint64_t scheduled;    /* measured requests put on the schedule */
    double gap_ns;         /* mean time between this worker's requests */
    uint64_t rng;
    uint64_t *backlog;
    uint32_t bl_head, bl_len, bl_cap;
    struct stats st;       /* counters; histograms are kept per URL only */
    struct stats *per_url;
    struct tls_session_slot *sessions; /* one per target, for resumption */
    /* Timeline: this worker's current second, merged into the shared
     * timeline as it ends. */
    uint32_t tl_sec;
    uint64_t tl_end;        /* end of that second, ns */
    uint64_t tl_req, tl_err;
    struct hist tl_h;       /* TL_SUB_BITS precision: within 3% */
    uint32_t open;          /* sockets open now */
    uint32_t connected;     /* connections that completed a handshake, up to nconns */
    uint64_t t_all_connected; /* when all nconns first were, 0 if never */
    /* Published for the live view; read by the main thread. */
    _Atomic uint64_t pub_done, pub_err;
    _Atomic uint32_t pub_open;
    atomic_int finished;
    char *rbuf;
    struct iovec iov[MAX_IOV];
    pthread_t thread;
    char err[160];
};

static int rate_mode(const struct worker *w)
{
    return w->plan->cfg->rate > 0;
}

static struct slot *slot_at(struct conn *c, uint32_t i)
{
    return &c->slots[(c->head + i) % c->cap];
}

static void conn_close(struct conn *c)
{
    if (c->fd >= 0) {
        c->ops->close(c->io_ctx, c->fd);
        c->fd = -1;
        c->w->open--;
    }
    c->ops = &io_plain;
    c->io_ctx = NULL;
    c->state = C_IDLE;
    c->count = c->nsent = 0;
    c->woff = 0;
}

/* Queues c to be given work by the worker loop (closed loop: its next
 * request; rate mode: the next due request). */
static void enqueue(struct conn *c)
{
    struct worker *w = c->w;
    if (c->queued)
        return;
    c->queued = 1;
    w->q[(w->qhead + w->qlen) % w->nconns] = (uint32_t)(c - w->conns);
    w->qlen++;
}

static struct conn *dequeue(struct worker *w)
{
    struct conn *c;
    if (w->qlen == 0)
        return NULL;
    c = &w->conns[w->q[w->qhead]];
    w->qhead = (w->qhead + 1) % w->nconns;
    w->qlen--;
    c->queued = 0;
    return c;
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

/* Brings the worker's timeline second up to `now`: the seconds that ended
 * are merged into the shared timeline (empty ones too, so no second waits
 * on an idle thread). One division-free compare on the per-request path. */
static void tl_roll(struct worker *w, uint64_t now)
{
    while (now >= w->tl_end) {
        tl_close(w->plan->tl, w->tl_sec, w->tl_req, w->tl_err, &w->tl_h);
        hist_reset(&w->tl_h);
        w->tl_req = w->tl_err = 0;
        w->tl_sec++;
        w->tl_end += NS_PER_S;
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

static void arm_timer(struct conn *c)
{
    const struct config *cfg = c->w->plan->cfg;
    uint64_t limit = cfg->timeout_ns;
    if (c->count == 0)
        return; /* idle connections never time out */
    if (c->state == C_CONNECTING && cfg->connect_timeout_ns < limit)
        limit = cfg->connect_timeout_ns;
    timer_set(&c->w->loop, &c->timer, slot_at(c, 0)->t_sent + limit);
}

/* The connection is lost: every outstanding request ends with error k. */
static void conn_fail(struct conn *c, enum err_kind k, int e, const char *detail, uint64_t now)
{
    struct worker *w = c->w;
    uint32_t i;

    for (i = 0; i < c->count; i++) {
        struct slot *s = slot_at(c, i);
        struct stats *u = &w->per_url[s->url];
        if (!s->measured)
            continue;
        note_error(&w->st, k, e, detail);
        note_error(u, k, e, detail);
        tl_roll(w, now);
        w->tl_err++;
        if (k == ERR_TIMEOUT || k == ERR_CONNECT_TIMEOUT)
            hist_record(&w->tl_h, now - s->t_due);
        if (k == ERR_TIMEOUT || k == ERR_CONNECT_TIMEOUT) {
            /* A slow sample is still a sample: drop it and the tail lies. */
            hist_record(&u->h[H_LATENCY], now - s->t_due);
            hist_record(&u->h[H_LATENCY_UNC], now - s->t_sent);
        }
        w->ended++;
        w->t_last = now;
    }
    conn_close(c);
    enqueue(c);
}

/* May another request start? */
static int may_start(const struct worker *w)
{
    return !w->stopping && w->st.started < w->budget;
}

/* Gives c a request due at t_due. The caller checked the budget. */
static void slot_add(struct conn *c, uint64_t t_due, uint64_t now)
{
    struct worker *w = c->w;
    const struct plan_target *tg = &w->plan->targets[c->target];
    struct slot *s = &c->slots[(c->head + c->count) % c->cap];

    s->t_due = t_due;
    s->t_sent = now;
    s->url = tg->urls[c->rr++ % tg->nurls];
    s->measured = t_due >= w->plan->t_measure;
    if (s->measured) {
        w->st.started++;
        w->per_url[s->url].started++;
        if (rate_mode(w)) {
            hist_record(&w->per_url[s->url].h[H_LAG], now - t_due);
        }
    }
    if (c->count == 0) {
        hp_reset(&c->hp, w->plan->urls[s->url].head);
        c->got_first = 0;
    }
    c->count++;
    c->nreq++;
}

static void conn_write(struct conn *c)
{
    struct worker *w = c->w;
    const struct plan *pl = w->plan;

    while (c->nsent < c->count) {
        int n = 0;
        uint32_t i;
        ssize_t r;
        for (i = c->nsent; i < c->count && n < MAX_IOV; i++, n++) {
            const struct plan_url *pu = &pl->urls[slot_at(c, i)->url];
            size_t off = i == c->nsent ? c->woff : 0;
            w->iov[n].iov_base = pu->req + off;
            w->iov[n].iov_len = pu->len - off;
        }
        r = n == 1 ? c->ops->write(c->io_ctx, c->fd, w->iov[0].iov_base, w->iov[0].iov_len)
                   : c->ops->writev(c->io_ctx, c->fd, w->iov, n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return; /* edge-triggered EPOLLOUT will call us back */
            if (errno == EPROTO && c->ops->error)
                conn_fail(c, ERR_TLS, 0, c->ops->error(c->io_ctx), clock_ns());
            else
                conn_fail(c, ERR_WRITE, errno, NULL, clock_ns());
            return;
        }
        if (pl->t_measure <= slot_at(c, c->nsent)->t_due) {
            w->st.bytes_sent += (uint64_t)r;
            w->per_url[slot_at(c, c->nsent)->url].bytes_sent += (uint64_t)r;
        }
        while (r > 0) {
            size_t left = pl->urls[slot_at(c, c->nsent)->url].len - c->woff;
            if ((size_t)r >= left) {
                r -= (ssize_t)left;
                c->nsent++;
                c->woff = 0;
            } else {
                c->woff += (size_t)r;
                r = 0;
            }
        }
    }
}

/* Closed loop: top the connection up to its pipeline depth and send. */
static void conn_fill(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    uint64_t rpc = w->plan->cfg->requests_per_conn;
    int was_idle = c->count == 0;

    while (c->count < c->cap && may_start(w) && (rpc == 0 || c->nreq < rpc))
        slot_add(c, now, now);
    if (was_idle)
        arm_timer(c);
    conn_write(c);
}

/* Opens a connection for the request just added to an idle connection. */
static void conn_open(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    const struct config *cfg = w->plan->cfg;
    const struct net_addr *src = NULL;
    int fd, e;

    if (cfg->nsources)
        src = &cfg->sources[(c - w->conns + w->st.conns_opened) % cfg->nsources];
    c->nreq = c->count;
    fd = net_connect(&w->plan->targets[c->target].addr, src);
    if (fd < 0) {
        conn_fail(c, connect_kind(-fd), -fd, NULL, now);
        return;
    }
    c->fd = fd;
    c->ops = &io_plain;
    c->io_ctx = NULL;
    c->state = C_CONNECTING;
    w->open++;
    if ((e = loop_add(&w->loop, fd, LOOP_IN | LOOP_OUT, &c->io)) != 0) {
        conn_fail(c, ERR_CONNECT_OTHER, e, NULL, now);
        return;
    }
    arm_timer(c);
}

/* A connection in the work queue gets work: its next request (closed loop)
 * or the oldest due request (rate mode). */
static void conn_take(struct conn *c, uint64_t t_due, uint64_t now)
{
    slot_add(c, t_due, now);
    if (c->state == C_IDLE) {
        conn_open(c, now);
        return;
    }
    if (c->count == 1)
        arm_timer(c);
    conn_write(c);
}

/* The oldest outstanding request got its whole response. Returns 0 when
 * the connection stays open, -1 when it was closed. */
static int conn_complete(struct conn *c, uint64_t now, int force_close)
{
    struct worker *w = c->w;
    const struct config *cfg = w->plan->cfg;
    struct slot *s = slot_at(c, 0);
    enum hp_close why = hp_close_reason(&c->hp);
    int server_keeps = why == HP_KEEP;

    if (s->measured) {
        struct stats *u = &w->per_url[s->url];
        unsigned status = c->hp.status < STATUS_MAX ? c->hp.status : 0;
        w->st.completed++;
        u->completed++;
        w->st.status[status]++;
        u->status[status]++;
        hist_record(&u->h[H_LATENCY], now - s->t_due);
        hist_record(&u->h[H_LATENCY_UNC], now - s->t_sent);
        hist_record(&u->h[H_TTFB], c->t_first - s->t_sent);
        tl_roll(w, now);
        w->tl_req++;
        hist_record(&w->tl_h, now - s->t_due);
        if (cfg->keepalive && !server_keeps) {
            /* hp_close and close_kind list the reasons in the same order. */
            enum close_kind k = why == HP_CLOSE_HEADER ? CLOSE_HEADER
                              : why == HP_CLOSE_HTTP10 ? CLOSE_HTTP10 : CLOSE_BODY_EOF;
            w->st.closes[k]++;
            u->closes[k]++;
        }
        w->ended++;
        w->t_last = now;
    }
    if (c->nsent == 0)
        force_close = 1; /* answered before the request was written whole */
    else
        c->nsent--;
    c->head = (uint16_t)((c->head + 1) % c->cap);
    c->count--;

    if (force_close || !cfg->keepalive || !server_keeps ||
        (cfg->requests_per_conn && c->nreq >= cfg->requests_per_conn && c->count == 0)) {
        if (c->count > 0) {
            /* The server closes with pipelined requests unanswered. */
            conn_fail(c, ERR_CLOSED_EARLY, 0, "closed with pipelined requests unanswered", now);
            return -1;
        }
        conn_close(c);
        enqueue(c);
        return -1;
    }
    if (c->count > 0) {
        hp_reset(&c->hp, w->plan->urls[slot_at(c, 0)->url].head);
        c->got_first = 0;
        arm_timer(c);
    }
    return 0;
}

/* hup: the event said the peer closed or failed; then read on until the
 * end of stream, because no further edge will announce it. */
static void conn_read(struct conn *c, int hup)
{
    struct worker *w = c->w;
    char *buf = w->rbuf;

    for (;;) {
        ssize_t n = c->ops->read(c->io_ctx, c->fd, buf, IO_RBUF_SIZE);
        uint64_t now;
        size_t off = 0;
        int done = 0;

        if (n > 0) {
            now = clock_ns();
            if (now >= w->plan->t_measure) {
                w->st.bytes_recv += (uint64_t)n;
                if (c->count)
                    w->per_url[slot_at(c, 0)->url].bytes_recv += (uint64_t)n;
            }
            while (off < (size_t)n) {
                ssize_t r;
                if (c->count == 0) {
                    /* Bytes nobody asked for: the responses counted, but the
                     * connection is not trusted any more. */
                    conn_close(c);
                    enqueue(c);
                    return;
                }
                if (!c->got_first) {
                    c->got_first = 1;
                    c->t_first = now;
                }
                r = hp_feed(&c->hp, buf + off, (size_t)n - off);
                if (r == -1) {
                    conn_fail(c, ERR_MALFORMED, 0, c->hp.error, now);
                    return;
                }
                if (r == -2)
                    break;
                off += (size_t)r;
                done++;
                if (conn_complete(c, now, 0) < 0)
                    return;
            }
            /* Pipelining: top up once half the window has drained, so each
             * write carries several requests instead of one per response. */
            if (done && c->count < c->cap && (c->cap <= 2 || c->count <= c->cap / 2 || rate_mode(w))) {
                if (rate_mode(w))
                    enqueue(c);
                else
                    conn_fill(c, now);
                if (c->state != C_OPEN)
                    return;
            }
            if (n < IO_RBUF_SIZE && !hup)
                return; /* drained: the next arrival raises a new edge */
            continue;
        }
        if (n == 0) {
            now = clock_ns();
            if (c->count == 0) {
                /* An idle keep-alive connection closed by the server. */
                if (w->plan->cfg->keepalive && now >= w->plan->t_measure)
                    w->st.closes[CLOSE_IDLE]++;
                conn_close(c);
                enqueue(c);
            } else if (hp_eof(&c->hp)) {
                if (!c->got_first)
                    c->t_first = now;
                conn_complete(c, now, 1);
            } else {
                conn_fail(c, ERR_CLOSED_EARLY, 0, NULL, now);
            }
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            return;
        if (c->count == 0) {
            conn_close(c);
            enqueue(c);
            return;
        }
        if (errno == EPROTO && c->ops->error)
            conn_fail(c, ERR_TLS, 0, c->ops->error(c->io_ctx), clock_ns());
        else
            conn_fail(c, ERR_RESET, errno, NULL, clock_ns());
        return;
    }
}

static void conn_ready(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    c->state = C_OPEN;
    if (rate_mode(w)) {
        arm_timer(c);
        conn_write(c);
        if (c->state == C_OPEN && c->count < c->cap)
            enqueue(c);
    } else {
        conn_fill(c, now);
    }
}

static void conn_handshake(struct conn *c)
{
    int r = c->ops->handshake(c->io_ctx, c->fd), kind;
    uint64_t now;
    if (r == IO_WANT_READ || r == IO_WANT_WRITE)
        return; /* both directions are watched: the next edge calls us again */
    now = clock_ns();
    if (r == IO_ERROR) {
        if (c->ops->error)
            conn_fail(c, ERR_TLS, 0, c->ops->error(c->io_ctx), now);
        else
            conn_fail(c, ERR_CONNECT_OTHER, errno, NULL, now);
        return;
    }
    kind = c->ops->handshake_kind(c->io_ctx);
    if (kind != IO_HS_NONE) {
        struct worker *w = c->w;
        struct slot *s = slot_at(c, 0);
        if (s->measured) {
            struct stats *u = &w->per_url[s->url];
            int resumed = kind == IO_HS_RESUMED;
            hist_record(&u->h[H_TLS], now - c->t_tcp);
            if (resumed) {
                w->st.tls_resumed++;
                u->tls_resumed++;
            } else {
                w->st.tls_full++;
                u->tls_full++;
            }
        }
    }
    conn_ready(c, now);
}

static void conn_on_io(struct loop_io *io, uint32_t ev)
{
    struct conn *c = container_of(io, struct conn, io);
    struct worker *w = c->w;

    switch (c->state) {
    case C_CONNECTING: {
        int e = net_connect_result(c->fd);
        uint64_t now = clock_ns();
        struct slot *s;
        if (e != 0) {
            conn_fail(c, connect_kind(e), e, NULL, now);
            return;
        }
        if (!(ev & (LOOP_OUT | LOOP_ERR)))
            return;
        s = slot_at(c, 0);
        if (w->connected < w->nconns && ++w->connected == w->nconns)
            w->t_all_connected = now;
        if (s->measured) {
            w->st.conns_opened++;
            w->per_url[s->url].conns_opened++;
            hist_record(&w->per_url[s->url].h[H_CONNECT], now - s->t_sent);
        }
        if (w->plan->targets[c->target].tls) {
            char e2[128];
            void *ssl = tls_client_conn(w->plan->tls, c->fd, w->plan->targets[c->target].host,
                                        &w->sessions[c->target], e2, sizeof(e2));
            if (ssl == NULL) {
                conn_fail(c, ERR_TLS, 0, "cannot start TLS", now);
                return;
            }
            c->ops = &io_tls;
            c->io_ctx = ssl;
            c->t_tcp = now;
        }
        c->state = C_HANDSHAKE;
        conn_handshake(c);
        return;
    }
    case C_HANDSHAKE:
        conn_handshake(c);
        return;
    case C_OPEN:
        if ((ev & LOOP_OUT) && c->nsent < c->count)
            conn_write(c);
        if (c->state == C_OPEN && (ev & LOOP_IN))
            conn_read(c, (ev & LOOP_ERR) != 0);
        return;
    default:
        return;
    }
}

static void conn_on_timer(struct timer *t, uint64_t now)
{
    struct conn *c = container_of(t, struct conn, timer);
    if (c->count == 0 || c->state == C_IDLE)
        return;
    if (now < slot_at(c, 0)->t_sent + c->w->plan->cfg->timeout_ns && c->state != C_CONNECTING) {
        arm_timer(c); /* the request that timer was for has been answered */
        return;
    }
    conn_fail(c, c->state == C_CONNECTING ? ERR_CONNECT_TIMEOUT : ERR_TIMEOUT,
              c->state == C_CONNECTING ? ETIMEDOUT : 0, NULL, now);
}

/* --- rate mode: the schedule --- */

/* Next gap between requests: fixed, or exponential for Poisson arrivals. */
static uint64_t next_gap(struct worker *w)
{
    double u;
    if (!w->plan->cfg->poisson)
        return 0; /* uniform: computed from the index, see sched_due() */
    /* xorshift64*: small, fast, and good enough to draw arrival times. */
    w->rng ^= w->rng >> 12;
    w->rng ^= w->rng << 25;
    w->rng ^= w->rng >> 27;
    u = (double)((w->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
    return (uint64_t)(-log(1.0 - u) * w->gap_ns);
}

static int backlog_push(struct worker *w, uint64_t t)
{
    if (w->bl_len == w->bl_cap) {
        uint32_t cap = w->bl_cap ? w->bl_cap * 2 : 1024, i;
        uint64_t *b = malloc(cap * sizeof(*b));
        if (b == NULL)
            return -1;
        for (i = 0; i < w->bl_len; i++)
            b[i] = w->backlog[(w->bl_head + i) % w->bl_cap];
        free(w->backlog);
        w->backlog = b;
        w->bl_head = 0;
        w->bl_cap = cap;
    }
    w->backlog[(w->bl_head + w->bl_len) % w->bl_cap] = t;
    w->bl_len++;
    return 0;
}

/* Due requests go to free connections, oldest first. */
static void dispatch(struct worker *w)
{
    uint64_t now = clock_ns();
    while (w->bl_len > 0 && w->qlen > 0) {
        struct conn *c = dequeue(w);
        uint64_t due = w->backlog[w->bl_head];
        if (c->state != C_IDLE && (c->state != C_OPEN || c->count >= c->cap))
            continue; /* busy again since it was queued */
        if (due >= w->plan->t_measure && !may_start(w)) {
            w->bl_len = 0;
            break;
        }
        w->bl_head = (w->bl_head + 1) % w->bl_cap;
        w->bl_len--;
        conn_take(c, due, now);
    }
    /* --max-connections: the schedule is behind and every connection is
     * busy, so bring in another one rather than let requests wait. */
    if (w->bl_len > 0 && w->qlen == 0 && w->nactive < w->nconns) {
        enqueue(&w->conns[w->nactive++]);
        dispatch(w);
    }
}

static void sched_fire(struct timer *t, uint64_t now)
{
    struct worker *w = container_of(t, struct worker, sched);
    const struct plan *pl = w->plan;

    while (w->next_due <= now && w->next_due < pl->t_deadline && !w->stopping) {
        if (w->next_due >= pl->t_measure) {
            if (w->scheduled >= w->budget)
                break;
            w->scheduled++;
        }
        if (backlog_push(w, w->next_due) != 0) {
            snprintf(w->err, sizeof(w->err), "out of memory for the backlog of due requests");
            w->stopping = 1;
            return;
        }
        if (pl->cfg->poisson)
            w->next_due += next_gap(w);
        else
            w->next_due += (uint64_t)w->gap_ns;
    }
    dispatch(w);
    if (w->next_due < pl->t_deadline && (w->next_due < pl->t_measure || w->scheduled < w->budget))
        timer_set(&w->loop, &w->sched, w->next_due);
}

/* --- the worker loop --- */

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
        struct conn *c = dequeue(w);
        if (c->state == C_IDLE && may_start(w))
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
    for (i = 0; i < w->nactive; i++)
        enqueue(&w->conns[i]);
    if (rate_mode(w)) {
        /* Thread i sends requests i, i+n, i+2n... of one evenly spaced
         * global schedule, so the total is even whatever -t and -R are. */
        loop_precise_timers();
        w->next_due = pl->t0 + (uint64_t)((double)w->id * 1e9 / pl->cfg->rate);
        timer_set(&w->loop, &w->sched, w->next_due);
    }

    for (;;) {
        uint64_t now, wait;
        if (w->qlen && !rate_mode(w))
            run_queue(w);
        else if (rate_mode(w) && w->bl_len && w->qlen)
            dispatch(w);
        atomic_store_explicit(&w->pub_done, w->st.completed, memory_order_relaxed);
        atomic_store_explicit(&w->pub_err, stats_errors(&w->st), memory_order_relaxed);
        atomic_store_explicit(&w->pub_open, w->open, memory_order_relaxed);
        if (w->ended >= w->budget)
            break;
        if (atomic_load_explicit(pl->stop, memory_order_relaxed)) {
            w->t_last = clock_ns();
            break;
        }
        now = clock_ns();
        if (now >= pl->t_deadline) {
            w->t_last = pl->t_deadline;
            break;
        }
        tl_roll(w, now);
        if (w->err[0])
            break;
        wait = (w->qlen && !rate_mode(w)) ? 0 : MAX_WAIT_NS;
        if (pl->t_deadline - now < wait)
            wait = pl->t_deadline - now;
        if (loop_poll(&w->loop, wait) < 0) {
            snprintf(w->err, sizeof(w->err), "epoll_wait: %s", strerror(errno));
            break;
        }
    }
    w->stopping = 1;
    for (i = 0; i < w->nconns; i++)
        conn_close(&w->conns[i]);
    /* The last, partial second, when this thread saw something in it. */
    if (w->tl_req || w->tl_err)
        tl_close(pl->tl, w->tl_sec, w->tl_req, w->tl_err, &w->tl_h);
    atomic_store(&w->finished, 1);
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
    tls_client_free(pl->tls);
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
        /* URLs on the same address (and scheme) share connections. */
        for (j = 0; j < pl->ntargets; j++)
            if (pl->targets[j].addr.len == a.len && memcmp(&pl->targets[j].addr.ss, &a.ss, a.len) == 0 &&
                pl->targets[j].tls == u->tls && strcmp(pl->targets[j].host, u->host) == 0)
                break;
        if (u->tls && pl->tls == NULL && tls_client_new(&cfg->tls, &pl->tls, err, errlen) != 0)
            return -1;
        if (j == pl->ntargets) {
            pl->targets[j].addr = a;
            pl->targets[j].tls = u->tls;
            snprintf(pl->targets[j].host, sizeof(pl->targets[j].host), "%s", u->host);
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
    if (w->conns)
        for (i = 0; i < w->nconns; i++)
            if (w->conns[i].slots != &w->conns[i].one)
                free(w->conns[i].slots);
    free(w->per_url);
    hist_fini(&w->tl_h);
    if (w->sessions)
        for (i = 0; i < w->plan->ntargets; i++)
            tls_session_free(&w->sessions[i]);
    free(w->sessions);
    stats_fini(&w->st);
    free(w->conns);
    free(w->q);
    free(w->backlog);
    free(w->rbuf);
    loop_fini(&w->loop);
}

static int worker_init(struct worker *w, const struct plan *pl, uint32_t id, uint32_t nconns, uint32_t nmax,
                       uint32_t first_conn, uint64_t budget)
{
    const struct config *cfg = pl->cfg;
    uint32_t i, depth = cfg->keepalive && cfg->pipeline > 1 ? cfg->pipeline : 1;

    memset(w, 0, sizeof(*w));
    w->plan = pl;
    w->id = id;
    w->loop.epfd = -1;
    w->nconns = nmax > nconns ? nmax : nconns;
    w->nactive = nconns;
    w->budget = budget;
    w->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)id << 32 | 12345u);
    if (cfg->rate > 0)
        w->gap_ns = 1e9 * pl->nthreads / cfg->rate;
    w->sched.fn = sched_fire;
    nconns = w->nconns;
    if (loop_init(&w->loop, nconns < 1024 ? (int)nconns + 16 : 1024) != 0)
        return -1;
    w->conns = calloc(nconns, sizeof(*w->conns));
    w->q = calloc(nconns, sizeof(uint32_t));
    w->rbuf = malloc(IO_RBUF_SIZE);
    w->per_url = calloc(pl->nurls, sizeof(*w->per_url));
    w->sessions = calloc(pl->ntargets, sizeof(*w->sessions));
    hist_init_bits(&w->tl_h, TL_SUB_BITS);
    if (w->sessions == NULL || w->conns == NULL || w->q == NULL || w->rbuf == NULL || w->per_url == NULL || stats_init(&w->st) != 0)
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
        c->cap = (uint16_t)depth;
        c->slots = depth > 1 ? calloc(depth, sizeof(struct slot)) : &c->one;
        if (c->slots == NULL)
            return -1;
        c->target = (first_conn + i) % pl->ntargets;
        /* Spread the starting URL so each URL gets its share from the start. */
        c->rr = (first_conn + i) / pl->ntargets;
    }
    return 0;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

/* Sums what the workers published, for the live view; the latencies are
 * those of the last complete second over all threads. */
static void sample_progress(const struct plan *pl, struct worker *ws, uint32_t nt, struct engine_progress *p)
{
    struct tl_second last;
    uint32_t t;
    memset(p, 0, sizeof(*p));
    p->elapsed_s = ((double)clock_ns() - (double)pl->t_measure) / 1e9;
    for (t = 0; t < nt; t++) {
        p->completed += atomic_load_explicit(&ws[t].pub_done, memory_order_relaxed);
        p->errors += atomic_load_explicit(&ws[t].pub_err, memory_order_relaxed);
        p->open += atomic_load_explicit(&ws[t].pub_open, memory_order_relaxed);
    }
    if (tl_latest(pl->tl, &last)) {
        p->p50_ns = last.p50_ns;
        p->p99_ns = last.p99_ns;
    }
}

/* The timeline, once every worker is done. Returns 0 or -1. */
static int take_timeline(struct timeline *tl, struct engine_result *res)
{
    tl_finish(tl);
    if (tl->ndone == 0)
        return 0;
    res->timeline = malloc(tl->ndone * sizeof(*res->timeline));
    if (res->timeline == NULL)
        return -1;
    memcpy(res->timeline, tl->done, tl->ndone * sizeof(*res->timeline));
    res->nseconds = tl->ndone;
    return tl->oom ? -1 : 0;
}

int engine_run(const struct config *cfg, const atomic_int *stop, engine_progress_fn progress, void *arg,
               struct engine_result *res, char *err, size_t errlen)
{
    struct plan pl;
    struct timeline tl;
    struct worker *ws = NULL;
    uint32_t t, nt = cfg->threads, first = 0, started_threads = 0, i;
    int k;
    uint64_t budget_left = cfg->requests ? cfg->requests : UINT64_MAX, t_end = 0;
    double cpu0;
    int rc = -1;

    memset(res, 0, sizeof(*res));
    if (nt > cfg->connections)
        nt = cfg->connections;
    if (tl_init(&tl, nt) != 0) {
        snprintf(err, errlen, "cannot set up the timeline");
        return -1;
    }
    if (plan_build(cfg, &pl, err, errlen) != 0)
        goto out;
    pl.stop = stop;
    pl.nthreads = nt;
    pl.tl = &tl;
    ws = calloc(nt, sizeof(*ws));
    if (ws == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
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
        if (worker_init(&ws[t], &pl, t, nc, nmax, first, budget) != 0) {
            snprintf(err, errlen, "cannot set up worker %u: out of memory or file descriptors", t);
            for (i = 0; i <= t; i++)
                worker_free(&ws[i]);
            goto out;
        }
        first += ws[t].nconns;
    }

    cpu0 = cpu_seconds();
    pl.t0 = clock_ns();
    pl.t_measure = pl.t0 + cfg->warmup_ns;
    pl.t_deadline = cfg->duration_ns ? pl.t_measure + cfg->duration_ns : UINT64_MAX;
    for (t = 0; t < nt; t++) {
        if (pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]) != 0) {
            snprintf(err, errlen, "cannot start thread: %s", strerror(errno));
            break;
        }
        started_threads++;
    }
    if (progress && started_threads == nt) {
        for (;;) {
            struct engine_progress p;
            struct timespec ts = { 0, 250 * 1000000L };
            int all = 1;
            nanosleep(&ts, NULL);
            for (t = 0; t < nt; t++)
                if (!atomic_load(&ws[t].finished))
                    all = 0;
            if (all)
                break;
            sample_progress(&pl, ws, nt, &p);
            progress(&p, arg);
        }
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
                /* Counters come from the totals; histograms are recorded
                 * per URL only (half the work per response) and summed here. */
                stats_merge(&res->total, &ws[t].st);
                for (i = 0; i < pl.nurls; i++) {
                    const struct stats *u = &ws[t].per_url[i];
                    stats_merge(&res->per_url[i], u);
                    for (k = 0; k < H__COUNT; k++)
                        hist_merge(&res->total.h[k], &u->h[k]);
                }
                if (ws[t].t_last > t_end)
                    t_end = ws[t].t_last;
                res->queued += ws[t].bl_len;
                res->extra_connections += ws[t].nactive - (cfg->connections / nt + (t < cfg->connections % nt));
                if (ws[t].t_all_connected == 0)
                    res->all_connected_s = -1;
                else if (res->all_connected_s >= 0 && (double)(ws[t].t_all_connected - pl.t0) / 1e9 > res->all_connected_s)
                    res->all_connected_s = (double)(ws[t].t_all_connected - pl.t0) / 1e9;
                if (ws[t].err[0]) {
                    snprintf(err, errlen, "%s", ws[t].err);
                    rc = -1;
                }
            }
            res->in_flight = res->total.started - res->total.completed - stats_errors(&res->total);
            stats_count_bad(&res->total, &cfg->expect);
            for (i = 0; i < pl.nurls; i++) {
                res->url_in_flight[i] = res->per_url[i].started - res->per_url[i].completed -
                                        stats_errors(&res->per_url[i]);
                stats_count_bad(&res->per_url[i], &cfg->expect);
            }
            if (rc == 0 && take_timeline(&tl, res) != 0) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            }
            res->elapsed_s = t_end > pl.t_measure ? (double)(t_end - pl.t_measure) / 1e9 : 0;
            res->interrupted = atomic_load(stop) != 0;
            res->target_rate = cfg->rate;
            res->client_cpu_s = cpu_seconds() - cpu0;
        }
    }
    for (t = 0; t < nt; t++)
        worker_free(&ws[t]);
out:
    free(ws);
    plan_free(&pl);
    tl_fini(&tl);
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
    free(res->timeline);
    stats_fini(&res->total);
    memset(res, 0, sizeof(*res));
}
