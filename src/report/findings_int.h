/* findings_int.h - what the rules' files share (findings.c,
 * findings_server.c), private to src/report/: every threshold with its
 * reason, in one place, the context a rule reads, and the small helpers
 * that add a finding and its evidence. */
#ifndef RAFALE_FINDINGS_INT_H
#define RAFALE_FINDINGS_INT_H

#include "findings.h"
#include "hist.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define NS_S 1e9
#define NS_MS 1e6

/* --- thresholds, in one place --- */

/* noisy_neighbour: other processes used this share of all the CPUs. */
#define NOISE_FOREIGN_PCT 10.0

/* listen_queue_overflow / syn_retransmits: a connect (or a first byte)
 * that took a SYN retry: Linux resends a SYN after 1 s, then 3 s, 7 s. */
#define SYN_STEP_NS (0.9 * NS_S)
#define SYN_MIN_SLOW 3              /* and at least this many such connects for syn_retransmits */
/* nagle_delayed_ack: half the responses end in a delayed-ACK window after
 * their first byte, their bodies small, their first bytes fast. */
#define NAGLE_MIN_RESPONSES 20
#define NAGLE_SHARE 0.5
#define NAGLE_LINUX_LO (30 * NS_MS)   /* Linux: 40 ms (TCP_DELACK_MIN), a little more under load */
#define NAGLE_LINUX_HI (60 * NS_MS)
#define NAGLE_OTHER_LO (180 * NS_MS)  /* the 200 ms of other systems */
#define NAGLE_OTHER_HI (250 * NS_MS)
#define NAGLE_MAX_BYTES (64 * 1024)   /* a larger body can take that long on the wire */
/* queueing: closed loop, enough connections, a latency Little's law
 * explains (in a closed loop it always does), far above the server's own
 * time and long in itself; nearly all answers well above that time too,
 * and each target's median, or else fast and slow answers from a server
 * with room for every connection (a cache in front of slow pages, a mix of
 * cheap and dear targets) would pass for a queue.
 * The server's own time shows in the answers that found its queue empty:
 * the connections' first ones (W workers answer W at once, then W after
 * twice the time, ...). It is read as the QUEUE_SERVICE_RANK-th fastest
 * good answer, every answer of a status outside --expect or a failed check
 * counted as faster still: an instant 503 did no work, and one fast answer
 * or four is an outlier (a cached page), not the server's time. A count,
 * not a share: the empty queue is in the first answers only, a share of
 * a longer run would reach into the queue. */
#define QUEUE_MIN_CONNS 8
#define QUEUE_MIN_RESPONSES 100        /* good answers */
#define QUEUE_SERVICE_RANK 5
#define QUEUE_TIMES_SERVICE 5.0
/* In a queue even the fast answers wait: p5 too (5% of fast answers, a
 * cache, keep p5 near the own time; in a short run p5 is among the first
 * answers, a few steps of W above the fifth: 2, not 3 as above the
 * fastest), and the median of every target with 5% of the answers. */
#define QUEUE_P5_TIMES_SERVICE 2.0
#define QUEUE_URL_SHARE 0.05
#define QUEUE_URL_TIMES_SERVICE 3.0
#define QUEUE_MIN_MEAN_NS (10 * NS_MS)
#define QUEUE_LITTLE_TOLERANCE 0.30  /* the queue fills during the first second */
/* With --monitor, the own time is the server's CPU per answer when its
 * CPUs were this busy: its work is then CPU, and the answers that found the
 * queue empty are few or none (a server that accepts every connection and
 * interleaves them, as an event loop does, has no empty queue after its
 * first answer). CPU per answer, not divided by its workers or CPUs: one
 * request runs on one CPU at a time, so that is the least it takes; the
 * CPU time over the CPUs is the time between two answers at full
 * capacity (1 / throughput), and a wait for a CPU among more workers than
 * CPUs is a queue too (the run queue), which fewer connections shorten.
 * Less busy, a server waits on something (I/O, a backend, a sleep) for
 * longer than its CPU time, which would understate its own time: the
 * fastest good answers tell it then. */
#define QUEUE_CPU_BUSY 0.80
/* The idle probe's answers (client/probe.c) are the server's own time,
 * measured, when it has this many of every target's, none bad: its median
 * is one answer's time with no other in the server. */
#define QUEUE_PROBE_MIN_ANSWERS 3
/* client_cpu_bound / server_cpu_bound: busy 90% of the CPUs one may use. */
#define CPU_BOUND 0.90
#define CPU_MIN_S 0.5                 /* runs shorter than this tell little */
/* client_delay: answers rafale read late, after the kernel had them. A
 * wake-up from epoll_wait costs tens of µs on a virtual machine (about
 * the whole answer of a fast server) and is no fault; a read 1 ms or more
 * after the arrival means rafale's thread was not running (another
 * process had its CPU, or it was busy): in a closed loop its next request
 * waited that long, so the load it sent was throttled. Late counts from a
 * tenth of the median latency too, so a slow server's answers need more;
 * 1% of the answers so late is a pattern, not one preemption. */
#define CD_LATE_NS (1 * NS_MS)
#define CD_LATE_OF_P50 0.10
#define CD_LATE_SHARE 0.01
#define CD_MIN_RESPONSES 100
/* server_waiting: neither side busy, and slow answers anyway. */
#define WAIT_SERVER_MAX 0.50
#define WAIT_MIN_P50_NS (10 * NS_MS)
#define WAIT_MIN_RESPONSES 20
/* server_writes: bytes per request to storage or the terminal. */
#define WRITES_PER_REQUEST 20.0
#define WRITES_MIN_BYTES (64 * 1024)
#define WRITES_MIN_RESPONSES 100
/* wchar counts every byte passed to the write() family (write, writev,
 * pwrite, sendfile: to files, pipes, terminals, sockets) and syscw its
 * calls; send() and sendmsg() are in neither. A server writes its answers
 * one way for all of them. Over TLS its socket writes hold more than the
 * answers' bytes rafale counts: a handshake's certificates and tickets,
 * and each record's header and tag (22-29 B; a head and a body may be
 * two). */
#define WRITES_TLS_HANDSHAKE_BYTES (16 * 1024)
#define WRITES_TLS_ANSWER_BYTES 64.0
#define WRITES_TLS_RECORD 16384.0
/* The monitor reads /proc/PID/io at its first and last samples, not at the
 * measured phase's edges: nginx answering by writev, 0.1 s runs after a
 * 0.2 s warm-up, had 0.95, 0.89, 0.33 and 0 of its answers in the window
 * (a loaded machine woke the monitor late), and the whole of wchar was
 * taken for logging. The answers its window may hold or miss
 * (edge_answers: the seconds off at each edge at the run's rate, and the
 * requests in flight there) must be at most a tenth of the run's: then an
 * answer's bytes, written or not, move the figure by a tenth of an answer
 * at most, and below that volume wchar says nothing (write_bytes and a
 * captured output still do: they hold no answers). At 20 000 req/s a
 * tenth is 5 ms a side; a run of 1 s or more is off by 1-3% on an idle
 * machine. */
#define WRITES_EDGE_SHARE 0.1
/* Beyond the edges, how far wchar may sit under the answers and still hold
 * them (the last answers of a connection written as the reads are taken),
 * and past them before the rest is more than answers. */
#define WRITES_SLACK_SHARE 0.02
/* Answers written by write() take a call each at least, and other writes
 * (a log line, a request passed on) calls of their own: a log line a
 * request beside them is about one more call a request. Bytes beyond the
 * answers in fewer than one call per two requests are not beside them:
 * the answers went by send() and those calls are the other writes (a
 * server logging a line a request has about one call a request and a
 * wchar far from its answers' size). A log written in large blocks
 * beside answers by write() (nginx's access_log buffer=) looks the same:
 * the summary says so. */
#define WRITES_OWN_CALLS 0.5
/* wchar does not say where the bytes went: a log file, a pipe, a socket
 * (mod_wsgi passing requests to its daemons, a proxy to its backends).
 * Logging is named only when as much as half of them is known to be a
 * log: reached storage (write_bytes) or its output that compare captured. */
#define WRITES_LOGGED_SHARE 0.5
/* keepalive_limit: most server-ended connections carried the same number. */
#define KA_MIN_ENDED 3
#define KA_MODE_SHARE 0.8
/* packet_loss: retransmitted segments of the connections read at close. */
#define LOSS_SHARE 0.005
#define LOSS_MIN_SEGMENTS 1000
#define LOSS_MIN_CONNS 1  /* the segments are the sample */
/* server_scaling: the server's processes or threads grew during the run
 * (the least seen in a second, from the monitor, sampled ten times a
 * second), and the seconds when it was still small were slower: a pool
 * that starts small (Apache prefork spawns up to 32 a second, php-fpm's
 * dynamic pool, a thread pool on demand) measures its own growth first.
 * Small: under 2/3 of its peak; grown: 90% of it; both at least a whole
 * second, two more processes or threads, and the grown seconds 1.3 times
 * as fast: a server with a thread per connection makes them all as the
 * connections open, within the first 100 ms sample, and stays silent. */
#define SCALE_GROWTH 1.5
#define SCALE_GROWN 0.9
#define SCALE_MIN_ADDED 2
#define SCALE_RATE_GAIN 1.3

/* stragglers: a run bounded by -n lasts until its last request ends, so a
 * few slow ones (a SYN retry of 1 s, a timeout) set its length and its
 * headline rate, wherever they fall. The tail is judged by the body's own
 * rate, not by a fixed half of the run: the first 95% of the requests
 * ended by some time, and at their rate all of them would have ended by
 * that time / 0.95; the run lasted 20% of its length or more beyond that
 * (the headline is then 20% or more under the body's rate, and the last
 * 5% at most went 6 times slower than the rest or more), and 0.2 s or
 * more (a preemption on a busy machine costs tens of ms; a SYN retry is
 * 1 s). The tail named is the requests that ended after that time and
 * one round of the requests in flight at the body's rate more. The
 * issue's cases: 14 838, 5 091, 62, 5, 4 a second, 99.6% in the first 2 s
 * of 4.27 s; and nginx with a backlog of 4, -c 100 -n 20000 --close,
 * 19 958 done by 7 s and the last 42 in 3.45 s more (1 915 req/s said, 94%
 * of it in the first 70% of the run: a fixed half missed it). A -d run
 * ends at its deadline, which no slow request stretches. At least 500
 * requests (then the 5% is 25 or fewer of a real sample), and in a closed
 * loop 20 rounds of its connections: a run of a few rounds is a few
 * latencies long, and its last round's ordinary spread a large part of it.
 * When each request's end was kept (a run, not one read back) the times
 * are exact to 0.8%; from the timeline, the body ends with the whole
 * second it ended in, so the rule errs toward silence. */
#define STRAG_BULK_SHARE 0.95
#define STRAG_LOST_SHARE 0.20
#define STRAG_MIN_LOST_S 0.2
#define STRAG_MIN_REQUESTS 500
#define STRAG_MIN_ROUNDS 20
/* rafale's own longest late read, of the time the tail lost, that names rafale as its cause. */
#define STRAG_STALL_OF_LOST 0.5
/* timeout_storm: timeouts whose connections were opened again into a full
 * accept queue (a timed-out request is still served; its reconnect queues
 * behind it, and --timeout counts the connect's wait too). At least 10
 * timeouts and 1% of the requests ended; 3 or more connects beyond the -c
 * connections (opened, or timed out connecting): the timeouts did
 * reconnect (keep-alive only: with --close every request opens one
 * anyway). Not a share of the timeouts: a reconnect still waiting for its
 * SYN retry when the run ends is neither opened nor timed out; and the queue shown full by our own connects: SYN_MIN_SLOW of
 * them at a SYN retry step or timed out (the host's overflow counters are
 * host-wide: evidence, not proof). Timeouts without a full queue are a
 * slow server, which latency says. */
#define STORM_MIN_TIMEOUTS 10
#define STORM_SHARE 0.01
#define STORM_MIN_RECONNECTS 3

/* not_steady: the whole seconds of the measured phase (the warm-up is
 * not in them) tested for a trend, Mann-Kendall with its variance widened
 * for their own autocorrelation (trend.h), the throughput in a closed loop
 * (at a constant rate the schedule sets it) and the median latency.
 * Sure: p under 1%; a run is judged on two figures, and a wrong "your run
 * drifts" costs more than a missed one. Large: 20% or more across the run
 * (the larger of the Theil-Sen line's change from the first second to the
 * last and the first and last thirds' medians, so a step counts as a
 * slope does): the run's mean then misstates its first and last seconds
 * by about 10% each, beyond a quiet machine's run-to-run spread (a few %)
 * and the per-second percentiles' precision (3%), and well under the 30%
 * a leaking server loses. At least 10 whole seconds (a default -d 10s
 * run): with fewer, 1% needs nearly every second in order, and a trend and
 * one chance order of a steady run are not told apart. A latency change
 * of 0.2 ms or more: a wake-up on a busy virtual machine costs tens of µs,
 * and a loopback p50 of 65 µs moved to 85 µs in a healthy run. The
 * throughput only at 20 answers a second or more: at fewer, chance alone
 * moves a second's count by 22% (Poisson). The change is the start's (a
 * warm-up) when the middle third's median is within a quarter of the
 * change from the last third's. */
#define DRIFT_MIN_SECONDS 10
#define DRIFT_P 0.01
#define DRIFT_CHANGE 0.20
#define DRIFT_MIN_P50_NS (0.2 * NS_MS)
#define DRIFT_MIN_RPS 20.0
#define DRIFT_START_SHARE 0.25
/* The server's memory named as a cause when its RSS grew this much. */
#define DRIFT_RSS_GROWTH 1.2

struct ctx;

/* A row's severity, struct finding's warning. */
#define FINDINGS_WARNING 1
#define FINDINGS_INFO 0

/* FINDING_BIT() masks hold a bit per rule. */
_Static_assert(FINDING_COUNT <= 32, "more rules than bits in unsigned");

/* A row of the table (findings_rules.h). */
struct findings_rule {
    const char *json;
    int warning;
    void (*fn)(struct ctx *c);
    unsigned silences;          /* FINDING_BIT()s */
};

/* The rows, in the order of enum finding_id (findings.c). */
extern const struct findings_rule findings_rules[FINDING_COUNT];

/* What a rule reads, and what the rules before it found. */
struct ctx {
    const struct run_result *in;
    const struct run_figures *r;
    const struct stats *s;
    const struct monitor_result *server; /* the server watched (--monitor, compare), or NULL */
    const struct netstat_obs *net;       /* the host around the run, or NULL (a merged or loaded result) */
    struct findings *out;
    enum finding_id rule;                /* the one running */
    struct finding *found[FINDING_COUNT];
    unsigned silenced;                   /* FINDING_BIT()s of the rules not to run */
};

/* The running rule's finding, its JSON id and severity from its row; NULL
 * when it has one already (a rule finds once). */
static inline struct finding *add(struct ctx *c)
{
    struct finding *f;
    if (c->found[c->rule] || c->out->n == FINDINGS_MAX)
        return NULL;
    f = c->found[c->rule] = &c->out->f[c->out->n++];
    memset(f, 0, sizeof(*f));
    snprintf(f->id, sizeof(f->id), "%s", findings_rules[c->rule].json);
    f->warning = findings_rules[c->rule].warning;
    return f;
}

static inline void ev(struct finding *f, const char *key, double v)
{
    if (f == NULL || f->nev == FINDING_EV_MAX)
        return;
    snprintf(f->ev[f->nev].key, sizeof(f->ev[f->nev].key), "%s", key);
    f->ev[f->nev++].v = v;
}

static inline void say(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void say(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}

/* Samples of h at or above x ns, and between lo and hi. */
static inline uint64_t hist_above(const struct hist *h, double x)
{
    struct hist_iter it;
    uint64_t n = 0;
    for (hist_iter_init(&it, h); hist_iter_next(&it);)
        if ((double)it.lo >= x)
            n += it.count;
    return n;
}

static inline uint64_t hist_within(const struct hist *h, double lo, double hi)
{
    struct hist_iter it;
    uint64_t n = 0;
    for (hist_iter_init(&it, h); hist_iter_next(&it);)
        if ((double)it.lo >= lo && (double)it.hi <= hi)
            n += it.count;
    return n;
}

/* The r-th smallest sample of h (from 1), at its bucket's middle. */
static inline double hist_rank(const struct hist *h, uint64_t r)
{
    return h->total ? hist_percentile(h, 100.0 * ((double)r - 0.5) / (double)h->total) : 0;
}

static inline double elapsed(const struct ctx *c)
{
    return c->r->elapsed_s > 0 ? c->r->elapsed_s : 0;
}

static inline double rps(const struct ctx *c)
{
    return elapsed(c) > 0 ? (double)c->s->completed / elapsed(c) : 0;
}

static inline int64_t delta(const struct netstat_counters *a, const struct netstat_counters *b, size_t off)
{
    uint64_t x = *(const uint64_t *)((const char *)a + off), y = *(const uint64_t *)((const char *)b + off);
    return y >= x ? (int64_t)(y - x) : 0;
}

#define NET_DELTA(net, field) delta(&(net)->before, &(net)->after, offsetof(struct netstat_counters, field))

static inline int net_ok(const struct netstat_obs *n)
{
    return n && n->before.ok && n->after.ok;
}

/* The server's rules (findings_server.c). */
/* The share of its CPUs the server used, or -1 when not known. */
double findings_server_busy(const struct ctx *c);
void findings_server_cpu_bound(struct ctx *c);
void findings_server_waiting(struct ctx *c);
void findings_server_writes(struct ctx *c);
void findings_server_scaling(struct ctx *c);
/* not_steady (findings_steady.c). */
void findings_not_steady(struct ctx *c);

#endif
