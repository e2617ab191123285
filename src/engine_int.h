/* engine_int.h - the load generator's insides, shared by its modules and by
 * nothing else:
 *
 *   plan.c      the read-only plan: targets resolved, request bytes built once
 *   engine.c    worker threads, the work queue, the rate schedule's timer,
 *               start, progress and the merge after join
 *   conn.c      the connection: socket, transport (io_ops), timers, states
 *   http1.c     the session: HTTP/1.1 requests to bytes, bytes to ended
 *               responses (HTTP/2 goes beside it, behind session_ops)
 *   record.c    every figure of a request that started or ended, totals
 *               and per URL in one place, and the timeline
 *   schedule.c  the constant-rate schedule and its backlog, pure functions
 *
 * A connection goes
 *
 *     IDLE -> CONNECTING -> HANDSHAKE -> OPEN -> ... -> IDLE
 *
 * and carries a ring of outstanding requests ("slots", more than one when
 * pipelining): written in order, answered in order. A request is "started"
 * when it gets a slot, and it ends completed or failed, so started =
 * completed + errors + in flight always holds. */
#ifndef RAFALE_ENGINE_INT_H
#define RAFALE_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>

#include "config.h"
#include "http_parse.h"
#include "io.h"
#include "loop.h"
#include "net.h"
#include "schedule.h"
#include "stats.h"
#include "timeline.h"
#include "tls.h"

#define MAX_IOV 64

/* --- the plan (plan.c): read-only while the threads run --- */

struct plan_url {
    char *req;           /* the request's bytes, built once */
    size_t len;
    int head;            /* a HEAD request: no body in the answer */
    uint32_t target;
};

struct plan_target {
    struct net_addr addr;
    int tls;
    char host[URL_HOST_MAX];  /* for SNI and the certificate check */
    uint32_t *urls;      /* indexes into plan.urls */
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
    struct timeline *tl; /* shared (it has its own lock): each worker merges its seconds into it */
};

/* Resolves the targets and builds each URL's request. Returns 0, or -1 with
 * a reason in err. */
int plan_build(const struct config *cfg, struct plan *pl, char *err, size_t errlen);
void plan_free(struct plan *pl);

/* --- a request and its connection --- */

struct slot {
    uint64_t t_due;      /* when it should have been sent (== t_sent in closed loop) */
    uint64_t t_sent;     /* when it started: connect start if a connection was opened for it */
    uint32_t url;
    uint8_t measured;    /* started in the measured phase: counts in the results */
};

enum { C_IDLE, C_CONNECTING, C_HANDSHAKE, C_OPEN };

struct conn;

/* The protocol under a connection: it turns the connection's requests into
 * bytes and bytes into ended responses. */
struct session_ops {
    const char *name;                  /* "http/1.1" */
    /* A request was added (the newest slot). */
    void (*added)(struct conn *c, struct slot *s);
    /* Writes what the transport takes of the requests not written yet. */
    void (*write)(struct conn *c);
    /* Are requests waiting to be written? */
    int (*want_write)(const struct conn *c);
    /* Bytes arrived. Returns how many responses ended, or -1 when the
     * connection failed or was closed meanwhile. */
    int (*read)(struct conn *c, const char *buf, size_t n, uint64_t now);
    /* The peer closed the connection with requests outstanding. */
    void (*eof)(struct conn *c, uint64_t now);
};

extern const struct session_ops session_http1;

/* HTTP/1.1's state on a connection. */
struct h1 {
    struct hp hp;        /* the response being parsed: the oldest request's */
    uint16_t nsent;      /* outstanding requests written whole */
    uint8_t got_first;   /* a byte of the oldest request's response arrived */
    size_t woff;         /* bytes written of the first unsent request */
    uint64_t t_first;    /* when that byte arrived */
};

struct worker;

struct conn {
    struct loop_io io;
    struct timer timer;
    struct worker *w;
    const struct io_ops *ops;
    const struct session_ops *sess;
    void *io_ctx;
    int fd;
    uint8_t state;
    uint8_t queued;      /* in the worker's work queue */
    uint16_t count;      /* requests outstanding */
    uint16_t head;       /* ring index of the oldest */
    uint16_t cap;        /* pipeline depth */
    uint32_t target;
    uint32_t rr;         /* next URL of the target, round-robin */
    uint64_t nreq;       /* requests begun on this connection */
    uint64_t t_tcp;      /* TCP handshake done: the TLS handshake starts */
    struct h1 h1;
    struct slot *slots;  /* cap entries; &one when not pipelining */
    struct slot one;
};

static inline struct slot *slot_at(struct conn *c, uint32_t i)
{
    return &c->slots[(c->head + i) % c->cap];
}

/* conn.c */
void conn_init(struct conn *c, struct worker *w, uint32_t target, uint32_t rr, uint16_t depth, struct slot *slots);
/* Gives an idle or open connection a request due at t_due (closed loop:
 * now), opening it when idle. The caller checked the budget. */
void conn_take(struct conn *c, uint64_t t_due, uint64_t now);
/* Closed loop: tops an open connection up to its pipeline depth. */
void conn_fill(struct conn *c, uint64_t now);
/* The connection is lost: every outstanding request ends with error k. */
void conn_fail(struct conn *c, enum err_kind k, int e, const char *detail, uint64_t now);
/* Closes the socket; the connection is idle again. */
void conn_close(struct conn *c);
/* Re-arms the request timeout for the oldest outstanding request. */
void conn_arm(struct conn *c);
/* An error on the transport while reading or writing: its kind. */
void conn_io_error(struct conn *c, enum err_kind plain_kind, uint64_t now);

/* --- the worker thread --- */

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
    struct timer sched_timer;
    struct sched sched;
    uint64_t scheduled;    /* measured requests put on the schedule */
    struct backlog backlog;
    struct stats st;       /* counters of all URLs; histograms are per URL only */
    struct stats *per_url;
    struct tls_session_slot *sessions; /* one per target, for resumption */
    /* Timeline: this worker's current second, merged into the shared one as
     * it ends. */
    uint32_t tl_sec;
    uint64_t tl_end;       /* end of that second, ns */
    uint64_t tl_req, tl_err;
    struct hist tl_h;      /* TL_SUB_BITS precision: within 3% */
    uint32_t open;         /* sockets open now */
    uint32_t connected;    /* connections that completed a handshake, up to nconns */
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

static inline int rate_mode(const struct worker *w)
{
    return w->plan->cfg->rate > 0;
}

/* engine.c: the work queue. */
/* Queues c to be given work by the worker loop (closed loop: its next
 * request; rate mode: the next due request). */
void worker_enqueue(struct conn *c);
/* May another request start? */
int worker_may_start(const struct worker *w);

/* --- record.c: the bookkeeping of a request --- */

/* A request got a slot (and is due at s->t_due). */
void record_start(struct worker *w, const struct slot *s, uint64_t now);
/* The TCP handshake of the connection opened for s ended at now. */
void record_connect(struct worker *w, const struct slot *s, uint64_t now);
/* A TLS handshake of that long, full or resumed. */
void record_tls(struct worker *w, const struct slot *s, uint64_t ns, int resumed);
/* Bytes written for s, bytes read (s: the oldest outstanding, or NULL). */
void record_sent(struct worker *w, const struct slot *s, uint64_t bytes);
void record_received(struct worker *w, const struct slot *s, uint64_t bytes, uint64_t now);
/* s got its whole response: status, first byte at t_first, and how the
 * server ended the connection after it (CLOSE__COUNT: it did not). */
void record_response(struct worker *w, const struct slot *s, unsigned status, uint64_t t_first,
                     enum close_kind closed, uint64_t now);
/* s failed with error k (errno e, or a static detail). */
void record_error(struct worker *w, const struct slot *s, enum err_kind k, int e, const char *detail, uint64_t now);
/* The server closed an idle keep-alive connection. */
void record_idle_close(struct worker *w, uint64_t now);
/* The timeline: brings the worker's second up to now; closes the last one. */
void record_roll(struct worker *w, uint64_t now);
void record_last_second(struct worker *w);

#endif
