/* client.h - the load generator's insides, shared by its files and
 * private to src/client/ (make layout checks):
 *
 *   engine.c    worker threads, the rate schedule's timer, start and stop;
 *               it builds the plan and picks each connection's session;
 *               worker.c a worker's state made and freed;
 *               engine.h what the rest of the program calls (the
 *               figures it fills: src/result/), engine_figs.h the live
 *               figures
 *   live.c      the watch while the workers run: progress, the live
 *               figures (--metrics-listen), --abort-on-fail's SLO (live.h)
 *   collect.c   after join: the workers' figures into one result
 *               (collect.h)
 *   plan.c      the read-only plan: addresses resolved, request bytes built
 *               once, templated requests expanded (HTTP/1.1 form)
 *   plan_h2.c   the plan's HTTP/2 form: header fields built once
 *   conn.c      the connection: socket, transport (io_ops), timers, states;
 *               it names no protocol: the session behind session_ops does
 *   http1.c     the HTTP/1.1 session: requests to bytes, bytes to ended
 *               responses, --follow
 *   http2.c     the HTTP/2 session, on libnghttp2, and http2_write.c its
 *               frames onto the socket (they share http2.h)
 *   mux.c       what the multiplexed sessions (HTTP/2, HTTP/3) share: the
 *               slot pool, a refused request sent again, a response's
 *               life on its slot
 *   http3.c     the HTTP/3 session, on nghttp3, and its parts (built with
 *               HTTP/3 alone; they share http3.h): http3_quic.c its QUIC
 *               transport (ngtcp2, GnuTLS, a connected UDP socket),
 *               http3_body.c templated bodies kept until QUIC is done with
 *               them, http3_early.c 0-RTT, http3_frames.c the response
 *               field sections' bytes
 *   workq.c     the work queue and the requests to send again
 *   record.c    every figure of a request that started or ended, totals
 *               and per target in one place, and the timeline
 *   verify.c    a response's checks and extractions (# check:, # extract:)
 *   show.c      -v: each target's first exchange, the first error of each
 *               kind and bad status, on stderr
 *   reqlog.c    --log: a line per ended request, handed to a writer thread
 *   fairness.c  after join: each connection's share of the answers
 *   replay.c    rafale replay's log: read by a thread of its own, its
 *               requests handed to the workers in batches ahead of time
 *               (replay.h)
 *   sched.c     the constant-rate schedule (-R), with ramp.c its ramps
 *               (--stages) and backlog.c its backlog (schedule.h)
 *   timeline.c  the per-second timeline in bounded memory (timeline.h)
 *   cookie.c    a connection's cookie jar, --cookies (cookie.h)
 *   reach.c     (reach.h) whether the run reaches its servers: the first contact (a
 *               run whose first connects all fail stops in one line), the
 *               wait before a connection connects again after a failed one
 *   probe.c     the idle probe: before the load, a few of the run's
 *               requests one at a time, a run of the engine of its own
 *
 * Calls go down, never round: engine -> conn, http1, http2, http3, plan,
 * plan_h2; http2, http3 -> mux; http1, http2, http3, mux -> conn, plan,
 * plan_h2, verify, show; everything ->
 * workq, record; record -> reqlog; engine, conn -> reach; engine -> live,
 * collect; collect -> fairness; engine -> reqlog; probe -> engine; conn reaches its session
 * only through session_ops.
 *
 * A connection goes
 *
 *     IDLE -> CONNECTING -> HANDSHAKE -> OPEN -> ... -> IDLE
 *
 * and carries a ring of outstanding requests ("slots", more than one when
 * pipelining): written in order, answered in order. A request is "started"
 * when it gets a slot, and it ends completed or failed, so started =
 * completed + errors + in flight always holds. */
#ifndef RAFALE_CLIENT_H
#define RAFALE_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>

#include "batch.h"
#include "check.h"
#include "config.h"
#include "cookie.h"
#include "engine_figs.h"
#include "figures.h"
#include "http_parse.h"
#include "io.h"
#include "loop.h"
#include "net.h"
#include "replay.h"
#include "rxstamp.h"
#include "schedule.h"
#include "stats.h"
#include "tcpinfo.h"
#include "template.h"
#include "timeline.h"
#include "tls.h"

#define MAX_IOV 64

/* --- the plan (plan.c): read-only while the threads run --- */

struct plan_target {
    char *req;           /* the request's bytes, built once; NULL when templated */
    size_t len;
    void *h2nv;          /* HTTP/2: the request's header fields (nghttp2_nv), built once */
    size_t h2nnv;
    struct tpl *h2val;   /* HTTP/2, templated: each field value's template (nparts 0: as is) */
    int head;            /* a HEAD request: no body in the answer */
    int tls;             /* https: Secure cookies go */
    uint32_t endpoint;   /* index into plan.endpoints */
    /* Templated: expanded per request (plan_expand) into the slot's buffer. */
    struct tpl *head_tpl;  /* HTTP/1.1: request line and fields, no Content-Length, no blank line */
    struct tpl *body_tpl;  /* a templated body */
    const char *body;      /* or a literal one */
    size_t body_len;
    int has_body, add_len; /* add_len: Content-Length is ours to write */
    size_t max_len;        /* the longest expansion */
    /* Checks (# check:, --check) and extractions (# extract:): ranges of
     * plan.checks and plan.extracts; what of the response they read. */
    uint32_t check0, nchecks, extract0, nextracts;
    uint8_t capture;       /* CAPTURE_HEAD | CAPTURE_BODY */
    uint8_t after;         /* AFTER_VERIFY | AFTER_THINK: what its answer sets off (0 for most) */
    uint64_t vars;         /* the variables its templates use, a bit each: not sent until they are set */
    uint64_t think_lo, think_hi; /* the pause after its answer (closed loop), ns */
    size_t replay_rest;    /* rafale replay: where its request line's " HTTP/1.1" begins in req */
    /* --log: its name or URL, quoted for JSON and for CSV, and its method. */
    char *log_json, *log_csv, *log_method;
    size_t log_json_len, log_csv_len, log_method_len;
};

#define CAPTURE_HEAD 1
#define CAPTURE_BODY 2
#define AFTER_VERIFY 1
#define AFTER_THINK 2

struct plan_endpoint {
    struct net_addr addr;
    int tls;
    char host[URL_HOST_MAX];  /* for SNI and the certificate check */
    uint32_t *targets;   /* indexes into plan.targets */
    uint32_t ntargets;
    uint32_t *order;     /* its share of the --targets order (repetitions weigh) */
    uint32_t norder;
    /* A connection to it got an answer in the run's protocol (conn_spoke):
     * a protocol mismatch after that is its error mid-run, counted; before,
     * it ends the run (conn_mismatch). */
    atomic_int spoke;
};

/* --log (reqlog.c): the writer thread and the buffers workers hand it. */
#define REQLOG_BUFS 4
struct logbuf {
    char *p;
    size_t len;
    uint64_t lines;
    int busy;            /* queued for the writer, or being written */
};
/* How the log's descriptor is written (reqlog.c's open_stdout). */
enum reqlog_how { LOG_OWN, LOG_FILE, LOG_SOCKET, LOG_SHARED };

struct reqlog {
    int fd, csv, started, closing, failed, finished;
    enum reqlog_how how;
    atomic_int abandon;  /* the run ended 2 s ago: a reader that does not read is given up on */
    uint32_t sample;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct logbuf **ready;
    uint32_t nready, cap;
    uint64_t written, dropped;
};

struct plan {
    const struct config *cfg;
    struct reqlog *log;  /* --log, or NULL */
    size_t log_line_max; /* --log: the longest line a request can make */
    struct plan_target *targets; /* ntargets, parallel to cfg->urls */
    uint32_t ntargets;
    struct plan_endpoint *endpoints; /* the addresses connections go to (a --targets entry is a target) */
    uint32_t nendpoints;
    uint32_t nthreads;
    struct tls_client *tls; /* when some target is https:// */
    struct tpl_set *tset;   /* what templates share: {{seq}}, CSV rows (atomics) */
    _Atomic uint64_t *next; /* --order sequential: the next turn, per address */
    int templated;          /* some request is expanded per request */
    size_t max_len;         /* the longest expansion of any request */
    const struct proto *proto;        /* the run's protocol (proto.h) */
    const struct session_ops *sess;   /* the session that speaks it */
    void *shared;        /* what the session's connections share (session_ops.plan_init): its
                          * libraries' callbacks, HTTP/3's TLS credentials */
    struct check *checks;   /* every target's, in target order */
    uint32_t nchecks;
    uint32_t *check_target;    /* the target of each */
    struct check *extracts;
    uint32_t nextracts;
    uint32_t *extract_var;  /* the variable each sets (tset->var_names) */
    uint64_t t0;         /* start: warm-up begins */
    uint64_t t_measure;  /* measured phase begins */
    uint64_t t_deadline; /* -d ends the measured phase here, or UINT64_MAX */
    const atomic_int *stop;
    atomic_int aborted;  /* --abort-on-fail: the SLO was lost (engine.c's watch), the workers stop */
    /* --metrics-listen: what each worker adds once a second (record_roll),
     * under live_mu; read by the watch. */
    struct engine_live *live;
    pthread_mutex_t live_mu;
    struct timeline *tl; /* shared (it has its own lock): each worker merges its seconds into it */
    /* The run's batches of time (batch.h): each worker adds its ticks under
     * batch_mu (32 times a second); the watch reads them for --precision. */
    pthread_mutex_t batch_mu;
    struct batches batches;
    atomic_int precise;  /* --precision: the goal was reached (live.c), the workers stop */
    struct show *show;   /* -v (show.c), or NULL */
    atomic_int *failed;  /* set by a worker whose error ends the whole run (its err says why) */
    struct reach *reach; /* the first contact (reach.c), shared by the workers */
    /* --stages: the rate (or connections) over time, from t_measure. */
    struct ramp ramp;
    int ramped;          /* 1: rates, 2: connections */
    struct replay *replay; /* rafale replay: the log's reader (replay.c), NULL otherwise */
};

/* Resolves the targets and builds each target's request. Returns 0, or -1 with
 * a reason in err. */
int plan_build(const struct config *cfg, struct plan *pl, char *err, size_t errlen);
void plan_free(struct plan *pl);
/* A templated request of the target, whole (HTTP/1.1), into out (plan.max_len
 * bytes), with jar's Cookie field after the user's fields; *jar_line says
 * whether it wrote one. Returns its length. */
size_t plan_expand(const struct plan *pl, uint32_t target, struct tpl_ctx *ctx, const struct jar *jar, char *out,
                   uint8_t *jar_line);
/* Only its body (HTTP/2). */
size_t plan_expand_body(const struct plan *pl, uint32_t target, struct tpl_ctx *ctx, char *out);
/* The folder a target's {{csv}} paths are relative to: its targets file's
 * (t may be NULL: ".") into dir (n bytes). */
void plan_target_dir(const struct target *t, char *dir, size_t n);
/* What a template at where came from on the command line ("the URL", "a -H
 * header"...), for its mistakes: a targets file's are named by line. */
const char *plan_tpl_origin(enum tpl_where where);

/* --- a request and its connection --- */

struct slot {
    const char *req;     /* HTTP/1.1: the bytes to send; multiplexed: a templated body */
    size_t req_len;
    char *kept;          /* sent again (a multiplexed retry, mux.c) with these expanded bytes, or NULL */
    uint64_t t_due;      /* when it should have been sent (== t_sent in closed loop) */
    uint64_t t_sent;     /* when it started: connect start if a connection was opened for it */
    uint64_t t_first;    /* multiplexed: when the first field section of its response arrived */
    size_t body_off;     /* HTTP/2: request body bytes handed to the session */
    uint32_t target;     /* its index in plan.targets */
    int32_t stream;      /* multiplexed: its stream (HTTP/3: its id + 1), 0 before it is submitted */
    uint16_t status;     /* multiplexed: the final status */
    uint8_t measured;    /* counts in the results: due or started in the measured window, or
                          * begun in the warm-up and carried in (record.c) */
    uint8_t busy;        /* outstanding on its connection */
    uint8_t got_first;   /* multiplexed: t_first is set */
    uint8_t ended;       /* multiplexed: the response ended (its stream's end) */
    uint8_t retries;     /* multiplexed: refused unprocessed and sent again, so many times */
    uint8_t stage;       /* --stages: the stage it was due in */
    uint8_t hops;        /* --follow: redirects followed so far */
    uint8_t jar_line;    /* HTTP/1.1: its last Cookie field is the jar's (--cookies), not the user's */
    uint8_t unsent;      /* rate mode: ended at its due time unsent, every connection waiting to connect again */
    uint8_t head;        /* a HEAD request: its answer has no body (the target's method, or a replayed line's) */
    struct capture *capt; /* multiplexed, a target with checks: its response's fields and body (kept with
                           * the slot) */
    uint64_t bytes_in;   /* its response's bytes (--log) */
};

/* The bytes of a response kept for its checks and extractions (verify.c):
 * its fields as "name: value" lines (HTTP/1.1's as they came, HTTP/2's and
 * HTTP/3's written so), then its body (HTTP/1.1's undone from its chunks by
 * the parser). Grown to the largest response seen, up to a limit, and
 * reused. */
struct capture {
    char *p;
    size_t len, cap;
    size_t head_len;     /* where the body begins */
    uint64_t total;      /* bytes seen, kept or not */
    uint8_t over;        /* some were not kept (CAPTURE_HEAD_CUT: some of the head) */
};
#define CAPTURE_HEAD_CUT 0x2

enum { C_IDLE, C_CONNECTING, C_HANDSHAKE, C_OPEN };

struct conn;

/* The protocol under a connection: it turns the connection's requests into
 * bytes and bytes into ended responses. HTTP/1.1 answers in order (the
 * slots are a ring); HTTP/2 multiplexes (the slots are a pool). */
struct session_ops {
    const char *name;                  /* its protocol's (proto.name): "http/1.1", "h2", "h3" */
    int multiplexed;                   /* responses end in any order: refill at once */
    size_t wbuf;                       /* the worker's wbuf it writes through (0: none) */
    size_t ctx_size;                   /* its state (conn.ctx), made with the connection; 0: the
                                        * session makes it when the connection is first used */
    /* What its connections share, made once with the plan (NULL: nothing).
     * Returns 0, or -1 with the reason in err; plan_free undoes it, even
     * when plan_init failed halfway. */
    int (*plan_init)(struct plan *pl, char *err, size_t errlen);
    void (*plan_free)(struct plan *pl);
    /* A free slot for a new request (the caller checked count < cap). */
    struct slot *(*slot_new)(struct conn *c);
    /* A request was added (s, now busy). */
    void (*added)(struct conn *c, struct slot *s);
    /* The transport is up (TCP, and TLS when asked). Returns 0, or -1 when
     * it failed the connection. */
    int (*ready)(struct conn *c, uint64_t now);
    /* Writes what the transport takes of what is waiting. */
    void (*write)(struct conn *c);
    /* Is something waiting to be written? */
    int (*want_write)(const struct conn *c);
    /* Bytes arrived. Returns how many responses ended, or -1 when the
     * connection failed or was closed meanwhile. */
    int (*read)(struct conn *c, const char *buf, size_t n, uint64_t now);
    /* The peer closed the connection with requests outstanding. */
    void (*eof)(struct conn *c, uint64_t now);
    /* The outstanding request started first: the next to time out. */
    struct slot *(*oldest)(struct conn *c);
    /* An open connection's timer fired: ends the requests past --timeout
     * (HTTP/2: per stream), or NULL to fail the whole connection. */
    void (*timeout)(struct conn *c, uint64_t now);
    /* The socket is closing: drop the session's state. */
    void (*closed)(struct conn *c);
    /* The bytes of s's templated request, expanded into buf (the plan's
     * max_len): its whole HTTP/1.1 form, or HTTP/2's body and values. */
    size_t (*expand)(struct conn *c, struct slot *s, struct tpl_ctx *ctx, char *buf);
    /* Before a connection is opened: what the session needs of its own
     * (HTTP/1.1: the parser's Location and Set-Cookie buffers, whom it tells
     * its spans). Returns 0,
     * or -1 when it failed the connection. */
    int (*prepare)(struct conn *c, uint64_t now);
    /* The connection goes away for good: frees the session's insides. */
    void (*fini)(struct conn *c);
    /* A session that brings its own transport (HTTP/3: QUIC over UDP)
     * opens it here, instead of TCP and TLS: it sets fd, watches it with
     * handlers of its own, and calls conn_up once its handshake is done.
     * NULL for sessions over TCP. Its timeout op then runs in every state. */
    void (*open)(struct conn *c, uint64_t now);
};

extern const struct session_ops session_http1;
extern const struct session_ops session_http2;
#ifdef RAFALE_HTTP3
extern const struct session_ops session_http3;
#endif

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
    uint8_t waiting;     /* a connect failed: none again before its timer (reach.c), out of the work queue */
    uint8_t first;       /* reach.c, before the run's first contact: 1 its first connect is under way (counted), 2 it ended */
    uint8_t cut;         /* reach.c: its TLS handshakes cut short without a word, before the run's first contact */
    uint8_t counted_up;  /* reach.c: it is up, counted in reach.nup */
    uint8_t draining;    /* takes no new request (HTTP/2: after a GOAWAY) */
    uint16_t hint;       /* multiplexed: where to look for a free slot (mux.c) */
    uint64_t walk;       /* --order session: the next target of this connection */
    uint32_t number;     /* over all threads: {{conn}} */
    char *tbuf;          /* templated requests: plan.max_len bytes per slot */
    struct jar *jar;     /* --cookies: this connection's (kept across reconnects) */
    uint16_t count;      /* requests outstanding */
    uint16_t head;       /* ring index of the oldest */
    uint16_t cap;        /* pipeline depth, or HTTP/2 streams */
    uint32_t endpoint;   /* where it connects: index into plan.endpoints */
    uint32_t rr;         /* next target of the endpoint, round-robin */
    uint64_t nreq;       /* requests begun on this connection */
    uint64_t t_tcp;      /* TCP handshake done: the TLS handshake starts */
    uint64_t rx_stamp;   /* the kernel's receive time of the latest data read (CLOCK_REALTIME ns), 0: none */
    uint8_t stamping;    /* its socket gives kernel receive timestamps (rxstamp.h) */
    uint8_t tls_peer;    /* what its TLS handshake showed of the server (enum tls_peer) */
    /* Fairness (record.c): answers it got, when its present wait for one
     * began (0: it waits for none), its longest wait and when that ended,
     * its first and last answer; answers on the present TCP connection. */
    uint64_t answered, t_wait, wait_max, wait_end, t_ans_first, t_ans_last;
    uint32_t tcp_answers;
    uint8_t used;        /* started a measured request */
    uint8_t thinking;    /* --think: its timer holds the next request back */
    uint8_t parked;      /* skipped a whole turn of its targets: takes no more work */
    uint32_t skips;      /* requests skipped in a row (a variable not set) */
    uint64_t think_until; /* --think: no request before then */
    uint64_t backoff_ns; /* reach.c: its next wait after a failed connect, 0 once it was up */
    struct tpl_vars *vars; /* # extract: this connection's values (kept across reconnects) */
    void *ctx;           /* its session's state (struct h1, h2, h3 of http1.c, http2.c, http3.h), made by
                          * the session, kept across reconnects, freed by its fini */
    struct slot *slots;  /* cap entries; &one when not pipelining */
    struct slot one;
};

static inline struct slot *slot_at(struct conn *c, uint32_t i)
{
    return &c->slots[(c->head + i) % c->cap];
}

/* conn.c */
/* A connection of worker w speaking sess (chosen by the engine), holding
 * slots and tbuf from here on. Returns 0, or -1 when out of memory. */
int conn_init(struct conn *c, struct worker *w, const struct session_ops *sess, uint32_t number, uint32_t endpoint,
               uint32_t rr, uint16_t depth, struct slot *slots, char *tbuf);
/* Frees what the connection and its session hold (not slots and tbuf,
 * which are the engine's). */
void conn_fini(struct conn *c);
/* Gives an idle or open connection a request due at t_due (closed loop:
 * now), opening it when idle. The caller checked the budget. */
void conn_take(struct conn *c, uint64_t t_due, uint64_t now);
/* Rate mode, every connection of the worker waiting to connect again
 * (reach.c): the request due at due, of one of c's targets, goes nowhere
 * and ends at once with the error of the worker's last connect. */
void conn_unsent(struct conn *c, uint64_t due, uint64_t now);
/* Closed loop: tops an open connection up to its pipeline depth. */
void conn_fill(struct conn *c, uint64_t now);
/* The connection is lost: every outstanding request ends with error k. */
void conn_fail(struct conn *c, enum err_kind k, int e, const char *detail, uint64_t now);
/* The server answered c in another protocol than the run speaks (HTTP/1
 * to HTTP/2's preface, plain HTTP to TLS, TLS to plain HTTP). Before any
 * connection to its address was answered in the run's protocol, the whole
 * run stops (conn_abort, with the line fmt makes); after, it is this
 * connection's error k (detail, a static string), counted. */
void conn_mismatch(struct conn *c, enum err_kind k, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Ends the whole run for what happened on c: "ADDRESS <fmt...>" into the
 * worker's err (its first reason kept), every worker stops (plan.failed),
 * and the CLI prints that line instead of a report; c's requests end as
 * error k. */
void conn_abort(struct conn *c, enum err_kind k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Do the n bytes at p begin with a TLS record (RFC 8446 section 5.1): an
 * alert or a handshake, version 3.x? Only a TLS server answers so. */
static inline int conn_tls_record(const char *p, size_t n)
{
    return n >= 2 && (p[0] == 0x15 || p[0] == 0x16) && p[1] == 0x03;
}
/* Closes the socket; the connection is idle again. */
void conn_close(struct conn *c);
/* --think: holds c's next request until c->think_until (its timer). */
void conn_think(struct conn *c);
/* After the answer to a request of the target: the pause its --think asks. */
void conn_thought(struct conn *c, uint32_t target, uint64_t now);
/* A session's own transport (session_ops.open) finished its handshake: the
 * connection is open, its requests go. */
void conn_up(struct conn *c, uint64_t now);
/* --source: the local address c's next connection binds to, or NULL. */
const struct net_addr *conn_source(const struct conn *c);
/* Re-arms the request timeout for the oldest outstanding request. */
void conn_arm(struct conn *c);
/* --cookies: the Set-Cookie value v (n bytes) of a response to s. */
void conn_cookie(struct conn *c, const struct slot *s, const char *v, size_t n);
/* A request is done with its slot (ended or sent again elsewhere). */
static inline void conn_release(struct conn *c, struct slot *s)
{
    s->busy = 0;
    c->count--;
}
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
    uint64_t budget;       /* measured requests this worker may start (carried in ones too) */
    uint64_t ended;        /* measured requests completed or failed */
    uint32_t parked;       /* connections that took no more work (conn.c's pick_target) */
    uint64_t t_last;       /* when the last measured request ended */
    struct hist ends;      /* when each measured request ended, from the start of the measured phase */
    int stopping;
    uint8_t carried;       /* the measured window opened: the warm-up's requests were carried in */
    /* Rate mode: the schedule and the backlog of due, unsent requests. */
    struct timer sched_timer;
    struct sched sched;
    uint64_t scheduled;    /* measured requests put on the schedule */
    double cpu_s;          /* its thread's CPU, warm-up included: read as its loop ends */
    struct backlog backlog;
    /* rafale replay: this worker's place in its ring of the log's batches
     * (replay.c): the next entry to schedule (batch number, index), and the
     * next to take, the one the oldest due request of the backlog is. */
    uint32_t rp_sb, rp_si, rp_tb, rp_ti;
    uint64_t rp_due;     /* the last request scheduled: its due time (ns from the start) */
    const struct replay_entry *rp_cur; /* taken last: its bytes stay until the next take */
    const char *rp_path;
    /* HTTP/2: requests refused unprocessed (GOAWAY, REFUSED_STREAM), to be
     * sent again before any new one; RFC 9113 §8.7 says it is safe. */
    struct slot *retry;
    uint32_t rhead, rlen, rcap;
    struct stats st;       /* counters of all targets; histograms are per target only */
    struct stats *per_target;
    struct stats *per_stage; /* --stages: by the stage a request was due in */
    struct tls_ticket *tickets; /* a TLS session ticket per endpoint, for resumption */
    uint64_t rng;          /* --order random, {{rand}}, {{uuid}}: seeded by --seed */
    /* Timeline: this worker's current second, merged into the shared one as
     * it ends; and its current tick (batch.h), added to the second and to
     * the batches as it ends. */
    uint32_t tl_sec;
    uint64_t tl_end;       /* end of that second, ns */
    uint64_t tl_req, tl_err;
    struct hist tl_h;      /* TL_SUB_BITS precision: within 3% */
    uint64_t tick_start, tick_end; /* the current tick, ns */
    uint64_t tick_len;     /* its length: the batches' then, 1/32 s to 1 s (record.c) */
    uint64_t tick_req, tick_err;
    struct hist tick_h;    /* what ended in it, TL_SUB_BITS */
    uint32_t open;         /* sockets open now */
    /* reach.c: connections waiting to connect again; whether one was ever
     * up; since when connects failed with none up (0: one came up since),
     * and how the latest failed (for --timeout's giving up). */
    uint32_t nwaiting, unsent_next; /* unsent_next: the connection the next unsent request is of */
    uint8_t up;
    uint8_t gave_up;       /* -n alone: none could connect for --timeout, the worker stopped */
    uint64_t t_down;
    uint32_t down_endpoint;
    int down_kind, down_errno;
    const char *down_detail;
    uint32_t connected;    /* connections that completed a handshake, up to nconns */
    uint64_t t_all_connected; /* when all nconns first were, 0 if never */
    /* Published for the live view; read by the main thread. */
    _Atomic uint64_t pub_done, pub_err;
    _Atomic uint64_t pub_checked, pub_chk_failed, pub_bad; /* --abort-on-fail's figures */
    _Atomic uint64_t pub_started, pub_ended; /* --metrics-listen: in flight */
    /* --metrics-listen in rate mode: requests due and not yet sent, and
     * the due time of the oldest of them (0: none). */
    _Atomic uint64_t pub_backlog, pub_lag_due;
    uint64_t live_bad;     /* --abort-on-fail: responses outside --expect so far */
    /* What the run asks beyond the common case, read once per request:
     * some target's checks read its bytes, some target has an "after"
     * (plan_target.after), --abort-on-fail counts bad statuses, some request
     * needs a variable. */
    uint8_t capturing, afters, abort, vars, logging, live;
    /* -v: capturing answers for show.c (until every target was shown), and
     * its answers so far; show.c's first error and bad status. */
    uint8_t showing, verbose;
    uint32_t show_seen;
    /* --metrics-listen: this second's counts, added to plan.live as it ends. */
    uint64_t *live_status, live_err[ERR__COUNT], live_targets[ENGINE_LIVE_FIGS + 1];
    /* --log: this worker's buffers, the one it fills, its count for --log-sample. */
    struct logbuf logb[REQLOG_BUFS];
    int logcur;
    uint64_t logn;
    _Atomic uint32_t pub_open;
    atomic_int finished;
    /* Findings: TCP_INFO at close (the first TCPINFO_FIRST, then one in
     * TCPINFO_EVERY), and how many answers the keep-alive
     * connections the server ended had carried (KA_MAX and over: the last). */
    struct tcpinfo_sum tcp;
    uint64_t tcp_closes;   /* connections closed that were up */
    uint64_t *ka_ended;
    /* The requests outstanding or due when the run stopped, at their age
     * then: recorded by the merge, after the answers' p99 is known. */
    struct censored *cens;
    uint32_t ncens;
    uint64_t t_stop;
    /* Checks: passed and failed per check of the plan, and the first
     * failure of each (what was seen, and when). */
    uint64_t *chk_pass, *chk_fail, *chk_seen_t;
    char (*chk_seen)[CHECK_SEEN_MAX + 1];
    uint64_t *skipped_var; /* per variable: requests skipped because it was not set */
    /* The kernel's arrival (monotonic ns) of the bytes a session is reading
     * now, set by conn_read around a session's read; 0: none (user time). */
    uint64_t t_arr;
    struct rxstamp_clock clk; /* the kernel's stamps onto the monotonic clock */
    struct rxstamp_msg rx;    /* recvmsg's header around rbuf, built at the first stamped connection */
    char *rbuf;
    char *wbuf;            /* HTTP/2: frames gathered into one write; --follow: a request being rebuilt */
    struct iovec iov[MAX_IOV];
    pthread_t thread;
    char err[400];
    /* --metrics-listen: the counters as last added to plan.live (once a
     * second; last in the struct, away from what each request touches). */
    uint64_t live_counted[COUNTERS_NROWS];
};

/* worker.c: a worker's state made, with nconns connections now and room
 * for nmax (--max-connections), numbered from first_conn, budget its share
 * of -n (0: none); 0, or -1 (memory, descriptors: worker_free undoes it).
 * Its schedule's timer is the engine's to set. */
int worker_init(struct worker *w, const struct plan *pl, uint32_t id, uint32_t nconns, uint32_t nmax,
                uint32_t first_conn, uint64_t budget);
void worker_free(struct worker *w);

#define KA_MAX 4096
#define TCPINFO_FIRST 64
#define TCPINFO_EVERY 16

struct censored {
    uint32_t target;     /* UINT32_MAX: due on the schedule, never sent */
    uint8_t stage;
    uint64_t age_due, age_sent;
};

static inline int rate_mode(const struct worker *w)
{
    return config_open_loop(w->plan->cfg);
}

/* c was answered in the run's protocol: its address speaks it
 * (plan_endpoint.spoke). Once per connection: a load, and a store once. */
static inline void conn_spoke(struct conn *c)
{
    atomic_int *s = &c->w->plan->endpoints[c->endpoint].spoke;
    if (!atomic_load_explicit(s, memory_order_relaxed))
        atomic_store_explicit(s, 1, memory_order_relaxed);
}

/* When the bytes being read arrived (kernel's stamp) or, without one, now:
 * a response's first and last byte are stamped with it. */
static inline uint64_t conn_arrival(const struct conn *c, uint64_t now)
{
    return c->w->t_arr ? c->w->t_arr : now;
}

/* workq.c: the work queue and the requests to send again. */
/* Keeps s to be sent again on another connection. Returns 0, or -1 when
 * out of memory (then the caller ends it as an error). */
int workq_retry(struct worker *w, const struct slot *s);
/* Takes the oldest such request into s. */
void workq_retry_take(struct worker *w, struct slot *s);
/* Queues c to be given work by the worker loop (closed loop: its next
 * request; rate mode: the next due request). */
void workq_enqueue(struct conn *c);
/* The connection queued first, or NULL when none is. */
struct conn *workq_dequeue(struct worker *w);
/* May another request start? */
int workq_may_start(const struct worker *w);

/* mux.c: what the multiplexed sessions (http2.c, http3.c) share. */
/* A free slot of c's pool; the busy one sent first (session_ops.slot_new,
 * oldest). */
struct slot *mux_slot_new(struct conn *c);
struct slot *mux_oldest(struct conn *c);
/* s was refused unprocessed; progress: the server processed a request on c,
 * or may still. A copy goes to the worker's requests to send again. Returns
 * 1 when it went (the caller counts it: record_retry), 0 when it is s's
 * error: no progress and its retries used up, or out of memory. */
int mux_retry(struct conn *c, struct slot *s, int progress);
/* s's response: its first field section began (arrived at now); a field of
 * it, kept for its checks; it ended at now: its checks, its --think, its
 * figures (the caller frees the slot). */
void mux_first(struct conn *c, struct slot *s, uint64_t now);
void mux_field(struct conn *c, struct slot *s, const char *name, size_t nlen, const char *value, size_t vlen);
void mux_ended(struct conn *c, struct slot *s, uint64_t now);
/* The requests on c past --timeout end as timeouts, drop (the session's)
 * cancelling each one's stream and freeing its slot; then c is given work. */
void mux_timeouts(struct conn *c, uint64_t now, void (*drop)(struct conn *c, struct slot *s));

/* plan_h2.c: the plan's requests as HTTP/2 header fields. */
#define H2_MAX_FIELDS 64    /* of a templated request */
#define H2_MAX_VALUE 8192   /* a templated field value's longest expansion */
#define H2_METHOD 0         /* where request_fields puts :method and :path */
#define H2_PATH 3
/* Builds every target's fields (and their templates). Returns 0, or -1 with
 * the reason (FILE:LINE for a targets file's request) in err. */
int plan_h2_build(struct plan *pl, char *err, size_t errlen);
void plan_h2_free(struct plan *pl);
/* A templated HTTP/2 request's body and field values, into out. Returns
 * the body's length (the values follow at the body's largest size). */
size_t plan_h2_expand(const struct plan *pl, uint32_t target, struct tpl_ctx *ctx, char *out);
/* A request's fields for nghttp2, into out (nghttp2_nv[H2_MAX_FIELDS + 1]):
 * the target's, its templated values from req (expanded), and the jar's
 * cookies for it (written in buf). Returns how many. */
size_t plan_h2_fields(const struct plan *pl, const struct slot *s, const struct jar *jar, char *buf, void *out);

/* The largest body of a target's request: where its field values begin. */
static inline size_t plan_h2_body_room(const struct plan_target *pt)
{
    return pt->body_tpl ? pt->body_tpl->max_len : pt->body_len;
}

/* verify.c: checks and extractions on a response. */
/* Keeps n more bytes of a response, up to what its checks may read. */
void verify_keep(struct capture *cp, const struct plan *pl, const char *buf, size_t n);
/* HTTP/1.1: the parser's span of a response (struct hp's span), kept into
 * cp, the capture of the response being read. */
void verify_span(struct capture *cp, const struct plan *pl, enum hp_span kind, const char *at, size_t n);
/* cp holds no response any more. */
void verify_reset(struct capture *cp);
/* The response to s ended with status: its target's checks counted, its
 * extractions into c's variables; cp holds its bytes (NULL when its target
 * needs none). Returns 1 when every check passed. */
int verify_response(struct conn *c, struct slot *s, unsigned status, struct capture *cp, uint64_t now);
/* Before s is taken: 1 when its target needs a variable c has not set. */
static inline int verify_missing(const struct conn *c, const struct plan_target *pt)
{
    return pt->vars && (c->vars == NULL || (pt->vars & ~c->vars->set) != 0);
}

/* show.c: -v. The plan's show when cfg->verbose (0, or -1 out of memory). */
int show_init(struct plan *pl);
void show_free(struct plan *pl);
/* A response ended while w->showing: the first of its target is written
 * (request, status, fields, body); minor: HTTP/1.<minor>, or -1
 * multiplexed. cp: its capture, or NULL. */
void show_exchange(struct conn *c, const struct slot *s, unsigned status, int minor, struct capture *cp);
/* The first answer of a bad status, the first error of a kind: a line. */
void show_status(struct worker *w, const struct slot *s, unsigned status);
void show_error(struct worker *w, const struct slot *s, enum err_kind k, const char *detail);

/* reqlog.c: --log. Opens the file and starts its writer (0, or -1 with err). */
int reqlog_open(struct reqlog *lg, const struct config *cfg, uint32_t nthreads, char *err, size_t errlen);
/* Its first line: when the measured phase began (wall clock). */
void reqlog_header(struct reqlog *lg, double start_unix_s);
int reqlog_worker_init(struct worker *w);
void reqlog_worker_free(struct worker *w);
/* A measured request ended: its line (err < 0: completed with status),
 * its last byte's arrival t_end (the kernel's) and now (rafale's read). */
void reqlog_line(struct worker *w, const struct conn *c, const struct slot *s, unsigned status, int err, uint64_t t_first,
                 uint64_t t_end, uint64_t now);
/* The worker ends: its last buffer to the writer. */
void reqlog_flush(struct worker *w);
/* Every buffer written, the file closed: the lines written and dropped,
 * and the errno that stopped it (0 none). */
void reqlog_close(struct reqlog *lg, uint64_t *written, uint64_t *dropped, int *failed);

/* fairness.c: the connections' share of answers, into out (see
 * figures.h); p99_ns and max_ns: of the answers; starved ones only in a
 * closed loop. Returns 0, or -1 when out of memory. */
struct fairness_conns;
int fairness_collect(const struct worker *ws, uint32_t nt, double p99_ns, double max_ns, int closed,
                   struct fairness_conns *out);

/* --- record.c: the bookkeeping of a request --- */

/* A request got a slot on c (and is due at s->t_due). */
void record_start(struct conn *c, struct slot *s, uint64_t now);
/* The TCP handshake of the connection opened for s ended at now. */
void record_connect(struct worker *w, const struct slot *s, uint64_t now);
/* A TLS handshake of that long, full or resumed. */
void record_tls(struct worker *w, const struct slot *s, uint64_t ns, int resumed);
/* Bytes written for s, bytes read (s: the oldest outstanding, or NULL). */
void record_sent(struct worker *w, const struct slot *s, uint64_t bytes);
void record_received(struct worker *w, const struct slot *s, uint64_t bytes, uint64_t now);
/* Check k (of the plan) passed or failed on s's response; seen: what was
 * there (kept for the first failure). */
void record_check(struct conn *c, struct slot *s, uint32_t k, int ok, const char *seen, uint64_t now);
/* s's response had checks: all passed, or not. */
void record_checked(struct worker *w, const struct slot *s, int all);
/* A request was not sent: variable v it needs is not set (due at t_due). */
void record_skip(struct worker *w, uint32_t target, uint32_t v, uint64_t t_due);
/* s got its whole response: status, first byte at t_first, and how the
 * server ended the connection after it (CLOSE__COUNT: it did not). */
void record_response(struct conn *c, struct slot *s, unsigned status, uint64_t t_first,
                     enum close_kind closed, uint64_t now);
/* s, on c, failed with error k (errno e, or a static detail). */
void record_error(struct conn *c, struct slot *s, enum err_kind k, int e, const char *detail, uint64_t now);
/* The measured window opens (once per worker): the warm-up's requests still
 * outstanding join it, counted as started (stats.carried_in); their answers
 * count where they end, as every answer in the window does. */
void record_carry_in(struct worker *w);
/* HTTP/2 and HTTP/3: bytes of s's frames (its target's share of what was
 * received); bytes written on a connection (the requests of several
 * streams); response header blocks on the wire and decoded, HPACK's or
 * (h3) QPACK's; s refused unprocessed and queued to be sent again (its
 * count HTTP/3's with h3, else HTTP/2's). */
void record_frame_bytes(struct worker *w, struct slot *s, uint64_t bytes, uint64_t now);
void record_sent_conn(struct worker *w, uint64_t bytes, uint64_t now);
void record_headers(struct worker *w, int h3, uint64_t wire, uint64_t decoded, uint64_t now);
void record_retry(struct worker *w, const struct slot *s, int h3);
/* HTTP/3: QUIC datagrams sent and received, packets declared lost; a
 * connection's RTT estimate (smoothed and least) as it closes. */
void record_quic(struct worker *w, uint64_t sent, uint64_t recv, uint64_t lost, uint64_t now);
void record_quic_rtt(struct worker *w, uint64_t srtt_ns, uint64_t min_rtt_ns, uint64_t now);
/* --http3-0rtt: a connection's requests went in 0-RTT; the server took them or not. */
void record_quic_early(struct worker *w, int accepted, uint64_t now);
/* --follow: s followed a redirect (away: one to another origin ended it). */
void record_redirect(struct worker *w, const struct slot *s, int away);
/* A keep-alive connection with no request in flight ended: k says how
 * (CLOSE_IDLE, CLOSE_IDLE_408, CLOSE_UNSOLICITED). */
void record_idle_close(struct worker *w, enum close_kind k, uint64_t now);
/* The timeline: brings the worker's second up to now; closes the last one
 * (and adds the transfers counted apart), once the worker is done. */
void record_roll(struct worker *w, uint64_t now);
void record_last_second(struct worker *w);
/* c's socket is about to close: its TCP_INFO, when sampled. */
void record_tcpinfo(struct conn *c);
/* The run stopped at w->t_stop: what every connection still waits for,
 * into w->cens (the due, unsent ones stay in w->backlog). Returns 0, or
 * -1 when out of memory (then nothing is in w->cens). */
int record_censor(struct worker *w);
/* --stages: the stage of a request due at t_due (0 without stages). */
uint8_t record_stage(const struct worker *w, uint64_t t_due);
/* c waits to connect again (its connect for a request of the target failed). */
void record_backoff(struct conn *c, uint32_t target, uint64_t now);

/* reach.c: whether the run reaches its servers (reach.h). */
#include "reach.h"

#endif
