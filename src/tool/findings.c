/* findings.c - the rules. Each one reads figures that exist already (the
 * result, the host's counters read before and after, the server's monitor)
 * and fires only past a stated threshold with a minimum sample: a false
 * alarm is worse than none, and every rule has a test on a healthy server
 * where it must stay silent (tests/integ/findings.py) and unit tests at
 * its edges (tests/test_findings.c). */
#include "findings.h"

#include "hist.h"
#include "units.h"

#include <errno.h>
#include <stdarg.h>
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
/* With wchar (every byte passed to write(), writev(), sendfile(): to
 * files, pipes, terminals, sockets), the answers are taken out: a server
 * writes its sockets through those calls (nginx, Apache, Go, Node; then
 * wchar holds every byte rafale received) or through send() and sendmsg()
 * (Python, Rust's std, haproxy; then none of them), one way for all its
 * answers. wchar at least the bytes received: the answers are in it, the
 * rest is other writes; less: they cannot all be, and wchar is taken
 * whole. Over TLS a server's socket writes hold more than the answers'
 * bytes rafale counts: a handshake's certificates and tickets, and each
 * record's header and tag (22-29 B; a head and a body may be two). */
/* The monitor's wchar and rafale's bytes are read a moment apart (answers
 * in flight, the window's edges): nginx writing its answers by writev read
 * 2% under the bytes received, and the whole of it was taken for logging.
 * Within 10% under, the answers are in it; a log as large as 90% of the
 * answers, written beside send(), is then missed, not imagined. */
#define WRITES_ANSWERS_IN 0.9
#define WRITES_TLS_HANDSHAKE_BYTES (16 * 1024)
#define WRITES_TLS_ANSWER_BYTES 64.0
#define WRITES_TLS_RECORD 16384.0
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
 * headline rate. It fires when 95% or more of the requests had ended in
 * the first half of the elapsed time: the others, 5% at most, took the
 * second half, and the headline is under half (0.5 / 0.95) the rate the
 * rest were answered at. The example: 14 838, 5 091, 62, 5, 4 per
 * second, 99.6% in the first 2 s of 4.27 s. A -d run ends at its deadline,
 * which no slow request stretches. At least 500 requests (then the 5% is
 * 25 or fewer of a real sample), and in a closed loop 20 rounds of its
 * connections: a run of a few rounds is a few latencies long, and its last
 * round's ordinary spread a large part of it.
 * When each request's end was kept (a run, not one read back) the counts
 * are exact to 0.8%; from the timeline, only whole seconds count as the
 * first half and its end as the bulk's, so the rule errs toward silence. */
#define STRAG_BULK_SHARE 0.95
#define STRAG_MIN_REQUESTS 500
#define STRAG_MIN_ROUNDS 20
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

struct ctx {
    const struct findings_in *in;
    const struct engine_result *r;
    const struct stats *s;
    struct findings *out;
};

static struct finding *add(struct ctx *c, const char *id, int warning)
{
    struct finding *f;
    if (c->out->n == FINDINGS_MAX)
        return NULL;
    f = &c->out->f[c->out->n++];
    memset(f, 0, sizeof(*f));
    snprintf(f->id, sizeof(f->id), "%s", id);
    f->warning = warning;
    return f;
}

static void ev(struct finding *f, const char *key, double v)
{
    if (f == NULL || f->nev == FINDING_EV_MAX)
        return;
    snprintf(f->ev[f->nev].key, sizeof(f->ev[f->nev].key), "%s", key);
    f->ev[f->nev++].v = v;
}

static void say(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}

/* Samples of h at or above x ns, and between lo and hi. */
static uint64_t hist_above(const struct hist *h, double x)
{
    struct hist_iter it;
    uint64_t n = 0;
    for (hist_iter_init(&it, h); hist_iter_next(&it);)
        if ((double)it.lo >= x)
            n += it.count;
    return n;
}

static uint64_t hist_within(const struct hist *h, double lo, double hi)
{
    struct hist_iter it;
    uint64_t n = 0;
    for (hist_iter_init(&it, h); hist_iter_next(&it);)
        if ((double)it.lo >= lo && (double)it.hi <= hi)
            n += it.count;
    return n;
}

/* The r-th smallest sample of h (from 1), at its bucket's middle. */
static double hist_rank(const struct hist *h, uint64_t r)
{
    return h->total ? hist_percentile(h, 100.0 * ((double)r - 0.5) / (double)h->total) : 0;
}

static double elapsed(const struct ctx *c)
{
    return c->r->elapsed_s > 0 ? c->r->elapsed_s : 0;
}

static double rps(const struct ctx *c)
{
    return elapsed(c) > 0 ? (double)c->s->completed / elapsed(c) : 0;
}

static int64_t delta(const struct netstat_counters *a, const struct netstat_counters *b, size_t off)
{
    uint64_t x = *(const uint64_t *)((const char *)a + off), y = *(const uint64_t *)((const char *)b + off);
    return y >= x ? (int64_t)(y - x) : 0;
}

#define NET_DELTA(net, field) delta(&(net)->before, &(net)->after, offsetof(struct netstat_counters, field))

static int net_ok(const struct netstat_obs *n)
{
    return n && n->before.ok && n->after.ok;
}

/* Connections that waited past the limit while another was answered. */
static void starved(struct ctx *c, int overflow)
{
    const struct engine_conns *k = &c->r->conns;
    struct finding *f;
    char w[32], l[32];
    if (k->starved == 0 || k->clients < 2)
        return;
    f = add(c, "starved_connections", 1);
    if (f == NULL)
        return;
    units_fmt_ns(w, sizeof(w), k->starved_wait_s * NS_S);
    units_fmt_ns(l, sizeof(l), k->wait_limit_s * NS_S);
    say(f->summary, sizeof(f->summary),
        "%u of %u connections got no answer for %s or more while others were answered (the longest waited %s); "
        "answers per connection: min %llu, median %llu, max %llu",
        k->starved, k->clients, l, w, (unsigned long long)k->req_min, (unsigned long long)k->req_median,
        (unsigned long long)k->req_max);
    if (overflow)
        say(f->advice, sizeof(f->advice),
            "their connects waited in a full accept queue (see listen_queue_overflow): the server accepts fewer "
            "connections than you opened");
    else
        say(f->advice, sizeof(f->advice),
            "the server serves fewer connections at once than you opened (a single thread or a small pool?): "
            "its throughput is real, but %u clients were not served; use -c %u or give it more workers",
            k->starved, k->clients - k->starved > 0 ? k->clients - k->starved : 1);
    ev(f, "connections", k->clients);
    ev(f, "starved", k->starved);
    ev(f, "wait_s", k->starved_wait_s);
    ev(f, "wait_limit_s", k->wait_limit_s);
    ev(f, "requests_min", (double)k->req_min);
    ev(f, "requests_median", (double)k->req_median);
    ev(f, "requests_max", (double)k->req_max);
}

/* Connects at each SYN retry step: 1 s, 3 s (1 + 2), 7 s (1 + 2 + 4). */
static void steps(struct finding *f, const struct hist *connect)
{
    ev(f, "connects_at_1s", (double)hist_within(connect, 0.9 * NS_S, 1.5 * NS_S));
    ev(f, "connects_at_3s", (double)hist_within(connect, 2.9 * NS_S, 3.5 * NS_S));
    ev(f, "connects_at_7s", (double)hist_within(connect, 6.9 * NS_S, 7.6 * NS_S));
}

/* The kernel dropped SYNs or handshakes for a full accept queue. Host-wide
 * counters, so only for a server on this host, and only with our own
 * connects (or first bytes) at the retry steps to show for it. */
static int listen_overflow(struct ctx *c)
{
    const struct netstat_obs *n = c->in->net;
    struct finding *f;
    int64_t ov, dr, syn;
    uint64_t slow_conn, slow_first;
    if (!net_ok(n) || !n->local)
        return 0;
    ov = NET_DELTA(n, listen_overflows);
    dr = NET_DELTA(n, listen_drops);
    syn = NET_DELTA(n, syn_retrans);
    slow_conn = hist_above(&c->s->h[H_CONNECT], SYN_STEP_NS);
    slow_first = hist_above(&c->s->h[H_TTFB], SYN_STEP_NS);
    /* Host-wide counters: our own connects must show it, at a SYN retry
     * step or timed out (a slow answer proves nothing). */
    if (ov + dr == 0 || slow_conn + c->s->errors[ERR_TIMEOUT_CONNECT] == 0)
        return 0;
    if ((f = add(c, "listen_queue_overflow", 1)) == NULL)
        return 1;
    say(f->summary, sizeof(f->summary),
        "the server's accept queue overflowed: the kernel counted %lld listen overflows and %lld drops during the run "
        "(host-wide), %lld SYNs sent again; %llu connects took a SYN retry (1 s, 3 s, 7 s ...)",
        (long long)ov, (long long)dr, (long long)syn, (unsigned long long)slow_conn);
    if (n->backlog_known)
        say(f->advice, sizeof(f->advice),
            "raise the listen() backlog of %s (it is %u; net.core.somaxconn is %lld and caps it), or let the server "
            "accept faster; with --close every request needs a place in that queue",
            n->addr, n->backlog, (long long)n->somaxconn);
    else
        say(f->advice, sizeof(f->advice),
            "raise the server's listen() backlog (net.core.somaxconn is %lld and caps it), or let it accept faster",
            (long long)n->somaxconn);
    ev(f, "listen_overflows", (double)ov);
    ev(f, "listen_drops", (double)dr);
    ev(f, "syn_retransmits", (double)syn);
    ev(f, "slow_connects", (double)slow_conn);
    ev(f, "slow_first_bytes", (double)slow_first);
    steps(f, &c->s->h[H_CONNECT]);
    ev(f, "connect_p99_us", hist_percentile(&c->s->h[H_CONNECT], 99) / 1e3);
    if (n->backlog_known)
        ev(f, "backlog", n->backlog);
    if (n->somaxconn >= 0)
        ev(f, "somaxconn", (double)n->somaxconn);
    return 1;
}

/* Connects at the SYN retry steps without an overflow to blame: what the
 * client side alone can see of a remote server (or a firewall). */
static void syn_retransmits(struct ctx *c)
{
    const struct netstat_obs *n = c->in->net;
    struct finding *f;
    uint64_t slow = hist_above(&c->s->h[H_CONNECT], SYN_STEP_NS), conns = c->s->h[H_CONNECT].total;
    int64_t syn = net_ok(n) ? NET_DELTA(n, syn_retrans) : -1;
    if (slow < SYN_MIN_SLOW || slow * 1000 < conns || syn == 0)
        return;
    if ((f = add(c, "syn_retransmits", 1)) == NULL)
        return;
    say(f->summary, sizeof(f->summary),
        "%llu of %llu connects took 0.9 s or more, the SYN retry steps (1 s, 3 s, 7 s)%s", (unsigned long long)slow,
        (unsigned long long)conns, syn > 0 ? "; this host sent SYNs again during the run" : "");
    say(f->advice, sizeof(f->advice),
        "SYNs were lost or dropped: a full accept queue on the server (raise its listen() backlog and somaxconn), "
        "a SYN flood guard, or the network; use keep-alive to connect less");
    ev(f, "slow_connects", (double)slow);
    ev(f, "connects", (double)conns);
    steps(f, &c->s->h[H_CONNECT]);
    if (syn >= 0)
        ev(f, "syn_retransmits", (double)syn);
    ev(f, "connect_p99_us", hist_percentile(&c->s->h[H_CONNECT], 99) / 1e3);
}

/* Head and body in two segments, Nagle on, our ACK delayed. */
static int nagle(struct ctx *c)
{
    const struct hist *t = &c->s->h[H_TRANSFER];
    struct finding *f;
    uint64_t lin = hist_within(t, NAGLE_LINUX_LO, NAGLE_LINUX_HI), oth = hist_within(t, NAGLE_OTHER_LO, NAGLE_OTHER_HI);
    uint64_t hit = lin > oth ? lin : oth;
    double per = c->s->completed ? (double)c->s->bytes_recv / (double)c->s->completed : 0;
    double gap = hist_percentile(t, 50), first = hist_percentile(&c->s->h[H_TTFB], 50);
    char g[32], fb[32];
    if (t->total < NAGLE_MIN_RESPONSES || (double)hit < NAGLE_SHARE * (double)t->total || per > NAGLE_MAX_BYTES ||
        first * 2 > gap)
        return 0;
    if ((f = add(c, "nagle_delayed_ack", 1)) == NULL)
        return 1;
    say(f->summary, sizeof(f->summary),
        "%.0f%% of responses took %s from their first byte to their last, the delayed-ACK timer, though their first "
        "byte came after %s and they are small (%.0f B each)",
        100.0 * (double)hit / (double)t->total, units_fmt_ns(g, sizeof(g), gap), units_fmt_ns(fb, sizeof(fb), first),
        per);
    say(f->advice, sizeof(f->advice),
        "the server writes a response in several segments with Nagle's algorithm on and waits for our delayed ACK: "
        "it should set TCP_NODELAY or write head and body together; unless it streams its body that slowly on "
        "purpose, this is not its work time");
    ev(f, "median_gap_us", gap / 1e3);
    ev(f, "ttfb_p50_us", first / 1e3);
    ev(f, "share", (double)hit / (double)t->total);
    ev(f, "bytes_per_request", per);
    return 1;
}

static double server_busy(const struct ctx *c);

/* Closed loop: connections / throughput is the latency (Little's law), far
 * above the server's own time (its CPU per answer when its CPUs were busy,
 * else its fastest good answers): the time is spent waiting in a queue. */
static int queueing(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    struct finding *f;
    /* The answers alone (first byte, then the rest): the samples recorded
     * at their age when the run stopped would pull the mean down. */
    const struct hist *fb = &c->s->h[H_TTFB];
    uint64_t bad = c->s->bad_status + c->s->checks_failed;
    double x = rps(c), little, mean = hist_mean(fb) + hist_mean(&c->s->h[H_TRANSFER]), service;
    double p5 = hist_percentile(fb, 5), busy = server_busy(c);
    int from_cpu;
    uint32_t i;
    char l[32], sv[32], m[32], how[160];
    if (cfg->rate > 0 || cfg->nstages || cfg->connections < QUEUE_MIN_CONNS || bad >= c->s->completed ||
        c->s->completed - bad < QUEUE_MIN_RESPONSES || x <= 0)
        return 0;
    from_cpu = busy >= QUEUE_CPU_BUSY && c->in->server->cpu_s > 0;
    if (from_cpu) {
        service = c->in->server->cpu_s / (double)c->s->completed * NS_S;
        say(how, sizeof(how), "its CPU per answer, from the monitor: its CPUs were %.0f%% busy", 100 * busy);
    } else {
        service = hist_rank(fb, bad + QUEUE_SERVICE_RANK);
        say(how, sizeof(how), "its fifth fastest good answer%s",
            c->in->server ? ": its CPUs were not busy enough for its CPU per answer to be its time" : "");
    }
    little = (double)cfg->connections * (cfg->http2 ? cfg->streams : cfg->pipeline > 1 ? cfg->pipeline : 1) / x * NS_S;
    if (mean < QUEUE_MIN_MEAN_NS || mean < QUEUE_TIMES_SERVICE * service || p5 < QUEUE_P5_TIMES_SERVICE * service ||
        mean < (1 - QUEUE_LITTLE_TOLERANCE) * little || mean > (1 + QUEUE_LITTLE_TOLERANCE) * little)
        return 0;
    for (i = 0; c->r->per_url && i < c->r->nurls; i++) {
        const struct stats *u = &c->r->per_url[i];
        if ((double)u->completed >= QUEUE_URL_SHARE * (double)c->s->completed &&
            hist_percentile(&u->h[H_TTFB], 50) < QUEUE_URL_TIMES_SERVICE * service)
            return 0; /* a target answered fast: no queue in front of it */
    }
    if ((f = add(c, "queueing", 1)) == NULL)
        return 1;
    say(f->summary, sizeof(f->summary),
        "most of this latency is waiting in the server's queue: %u connections / %.1f req/s = %s (Little's law; mean "
        "%s), while its own time is about %s (%s)",
        cfg->connections, x, units_fmt_ns(l, sizeof(l), little), units_fmt_ns(m, sizeof(m), mean),
        units_fmt_ns(sv, sizeof(sv), service), how);
    say(f->advice, sizeof(f->advice),
        "a closed loop keeps every connection waiting; use fewer connections, or -R / rafale sweep to measure latency "
        "at a load the server can carry");
    ev(f, "connections", cfg->connections);
    ev(f, "rps", x);
    ev(f, "wait_s", little / NS_S);
    ev(f, "latency_mean_us", mean / 1e3);
    ev(f, "service_us", service / 1e3);
    ev(f, "service_from_cpu", from_cpu);
    return 1;
}

static void client_delay(struct ctx *c)
{
    const struct hist *d = &c->s->h[H_CLIENT_DELAY];
    double p50 = hist_percentile(&c->s->h[H_LATENCY], 50), late_ns = p50 * CD_LATE_OF_P50, share;
    struct finding *f;
    if (d->total < CD_MIN_RESPONSES)
        return;
    if (late_ns < CD_LATE_NS)
        late_ns = CD_LATE_NS;
    share = (double)hist_above(d, late_ns) / (double)d->total;
    if (share < CD_LATE_SHARE || (f = add(c, "client_delay", 1)) == NULL)
        return;
    say(f->summary, sizeof(f->summary), "rafale read %.1f%% of responses late (%.0f ms or more after they arrived; "
        "p99 %.2f ms): the latency figures are the kernel's and do not include it, but the load it sent may have "
        "been throttled", 100 * share, late_ns / NS_MS, hist_percentile(d, 99) / NS_MS);
    say(f->advice, sizeof(f->advice), "give rafale CPUs of its own (taskset, fewer threads than free CPUs) and "
        "keep other busy processes off them");
    ev(f, "late_share", share);
    ev(f, "late_ms", late_ns / NS_MS);
    ev(f, "p99_ms", hist_percentile(d, 99) / NS_MS);
    ev(f, "latency_p50_ms", p50 / NS_MS);
}

static int client_cpu(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct netstat_obs *n = c->in->net;
    double th = cfg->threads < cfg->connections ? cfg->threads : cfg->connections, busy, run;
    struct finding *f;
    double cpu_s = c->r->client_cpu_s;
    uint32_t i;
    if (n && n->client_cpus && th > n->client_cpus)
        th = n->client_cpus;
    run = elapsed(c) + (double)cfg->warmup_ns / NS_S;
    if (th <= 0 || run < CPU_MIN_S)
        return 0;
    busy = cpu_s / (run * th);
    if (c->r->nshards) {
        /* Merged: the CPU is every shard's; the busiest shard speaks. */
        busy = 0;
        for (i = 0; i < c->r->nshards; i++) {
            const struct shard_info *sh = &c->r->shards[i];
            double b, t = sh->threads ? sh->threads : 1, e = sh->elapsed_s + (double)cfg->warmup_ns / NS_S;
            if (e < CPU_MIN_S)
                continue;
            b = sh->client_cpu_s / (e * t);
            if (b > busy) {
                busy = b;
                th = t;
                cpu_s = sh->client_cpu_s;
            }
        }
    }
    if (busy < CPU_BOUND)
        return 0;
    if ((f = add(c, "client_cpu_bound", 1)) == NULL)
        return 1;
    say(f->summary, sizeof(f->summary), "rafale's %.0f thread%s %s busy %.0f%% of the run: the figures measure rafale "
        "as much as the server", th, th == 1 ? "" : "s", th == 1 ? "was" : "were", 100 * busy);
    say(f->advice, sizeof(f->advice), "add threads (-t) on free CPUs, or spread the load over machines with --shard");
    ev(f, "busy", busy);
    ev(f, "threads", th);
    ev(f, "cpu_s", cpu_s);
    if (c->s->h[H_CLIENT_DELAY].total) {
        /* What that cost the answers: the time they waited for rafale. */
        size_t len = strlen(f->summary);
        double p99 = hist_percentile(&c->s->h[H_CLIENT_DELAY], 99);
        snprintf(f->summary + len, sizeof(f->summary) - len, "; its own delay reading answers: p99 %.2f ms "
                 "(client_delay)", p99 / NS_MS);
        ev(f, "client_delay_p99_ms", p99 / NS_MS);
    }
    return 1;
}

/* The server's share of the CPUs it may use. */
/* The CPUs the server may use: its affinity, cgroup and the machine's
 * (monitor), and no more than the threads it had. */
static double server_cpus(const struct monitor_result *m)
{
    return m->threads && m->threads < m->cpus ? m->threads : m->cpus;
}

static double server_busy(const struct ctx *c)
{
    const struct monitor_result *m = c->in->server;
    if (m == NULL || m->cpus <= 0 || elapsed(c) < CPU_MIN_S || (m->cpu_s <= 0 && !m->cpu_exact))
        return -1;
    return m->cpu_s / (elapsed(c) * server_cpus(m));
}

static void server_cpu(struct ctx *c, int explained, int client_bound)
{
    const struct monitor_result *m = c->in->server;
    double busy = server_busy(c), p50 = hist_percentile(&c->s->h[H_LATENCY], 50);
    struct finding *f;
    char b[32];
    if (busy < 0)
        return;
    if (busy >= CPU_BOUND) {
        if ((f = add(c, "server_cpu_bound", 0)) == NULL)
            return;
        say(f->summary, sizeof(f->summary), "the server used %.0f%% of the %.4g CPU%s it may use (%s): its CPU is the "
            "limit (%.0f us of CPU per request)", 100 * busy, server_cpus(m), server_cpus(m) == 1 ? "" : "s",
            server_cpus(m) < m->cpus ? "one per thread it had" : "its affinity, cgroup and the machine's",
            c->s->completed ? m->cpu_s * 1e6 / (double)c->s->completed : 0.0);
        say(f->advice, sizeof(f->advice), "this throughput is what its CPUs give: profile it, or give it more CPUs "
            "(affinity, cgroup cpu.max, workers)");
        ev(f, "busy", busy);
        ev(f, "cpus", server_cpus(m));
        ev(f, "cpu_s", m->cpu_s);
        return;
    }
    /* At a constant rate both sides idle is the point: closed loop only. */
    if (explained || client_bound || c->in->cfg->rate > 0 || busy >= WAIT_SERVER_MAX || p50 < WAIT_MIN_P50_NS ||
        c->s->completed < WAIT_MIN_RESPONSES)
        return;
    if ((f = add(c, "server_waiting", 1)) == NULL)
        return;
    say(f->summary, sizeof(f->summary), "neither side was busy (the server used %.0f%% of the %.4g CPU%s it may use) "
        "and yet half the answers took %s or more", 100 * busy, server_cpus(m), server_cpus(m) == 1 ? "" : "s",
        units_fmt_ns(b, sizeof(b), p50));
    say(f->advice, sizeof(f->advice), "the server waits on something else: locks, sleeps, I/O, a backend, a small "
        "pool of workers");
    ev(f, "busy", busy);
    ev(f, "cpus", server_cpus(m));
    ev(f, "latency_p50_us", p50 / 1e3);
}

/* Over TLS, what a server's socket writes hold beyond the answers' bytes. */
static double tls_overhead(const struct ctx *c)
{
    uint32_t i;
    for (i = 0; i < c->in->cfg->nurls; i++)
        if (c->in->cfg->urls[i].tls)
            return (double)(c->s->tls_full + c->s->tls_resumed) * WRITES_TLS_HANDSHAKE_BYTES +
                   ((double)c->s->completed + (double)c->s->bytes_recv / WRITES_TLS_RECORD) * WRITES_TLS_ANSWER_BYTES;
    return 0;
}

/* What the server wrote that is not an answer: logging to a file, a pipe
 * or a terminal (wchar), else what compare captured of its output and what
 * reached storage (write_bytes: a log file, not a pipe). */
static void server_writes(struct ctx *c)
{
    const struct monitor_result *m = c->in->server;
    double bytes = 0, per, recv = (double)c->s->bytes_recv, wchar = 0;
    struct finding *f;
    int known = 0, answers_in = 0;
    if (m && m->has_wchar) {
        wchar = (double)m->wchar;
        answers_in = wchar >= WRITES_ANSWERS_IN * recv && recv > 0;
        bytes = answers_in ? wchar - recv - tls_overhead(c) : wchar;
        if (bytes < 0)
            bytes = 0;
        known = 1;
    } else {
        if (m && m->has_io) {
            bytes += (double)m->write_bytes;
            known = 1;
        }
        if (c->in->server_output_bytes >= 0) {
            bytes += (double)c->in->server_output_bytes;
            known = 1;
        }
    }
    if (!known || c->s->completed < WRITES_MIN_RESPONSES || bytes < WRITES_MIN_BYTES)
        return;
    per = bytes / (double)c->s->completed;
    if (per < WRITES_PER_REQUEST)
        return;
    if ((f = add(c, "server_writes", 0)) == NULL)
        return;
    if (m && m->has_wchar)
        say(f->summary, sizeof(f->summary), "the server wrote %.0f B per request besides its answers, to files, pipes, "
            "its terminal or other sockets (logging?): %.0f B written%s", per, wchar,
            answers_in ? ", less the bytes rafale received" : "; its answers went by send(), not counted there");
    else
        say(f->summary, sizeof(f->summary), "the server wrote %.0f B per request to files or its terminal (logging?)",
            per);
    say(f->advice, sizeof(f->advice), "a log line per request costs time: compare servers with the same logging, "
        "or turn it off to measure the server alone%s", m && m->has_wchar ? " (a proxy's writes to its backends "
        "count here too)" : "");
    ev(f, "bytes_per_request", per);
    ev(f, "bytes", bytes);
    if (m && m->has_wchar) {
        ev(f, "wchar_bytes", wchar);
        ev(f, "answers_in_wchar", answers_in);
    }
}

/* The least processes (or threads) of the points overlapping second s. */
static double pool_at(const struct monitor_result *m, uint32_t s, int threads)
{
    double least = -1;
    uint32_t i;
    for (i = 1; i < m->npoints; i++) {
        double n = threads ? m->series[i].threads : m->series[i].processes;
        if (m->series[i - 1].t_s < s + 1 && m->series[i].t_s > s && (least < 0 || n < least))
            least = n;
    }
    return least;
}

/* The pool grew while rafale measured, and throughput followed it. */
static void server_scaling(struct ctx *c)
{
    const struct monitor_result *m = c->in->server;
    uint32_t full, s, k;
    struct finding *f;
    if (m == NULL || m->npoints < 3 || c->r->nseconds < 2)
        return;
    /* Whole seconds only: the last one may be cut short. */
    full = c->r->nseconds;
    if ((double)full > elapsed(c))
        full--;
    for (k = 0; k < 2; k++) {
        double first = k ? m->series[0].threads : m->series[0].processes, peak = first, least = first;
        double small_req = 0, grown_req = 0, small_rate, grown_rate;
        uint32_t nsmall = 0, ngrown = 0, i;
        for (i = 0; i < m->npoints; i++) {
            double n = k ? m->series[i].threads : m->series[i].processes;
            peak = n > peak ? n : peak;
            least = n < least ? n : least;
        }
        if (least <= 0 || peak < SCALE_GROWTH * least || peak - least < SCALE_MIN_ADDED)
            continue;
        for (s = 0; s < full; s++) {
            double n = pool_at(m, s, (int)k);
            if (n < 0)
                continue;
            if (n * SCALE_GROWTH < peak) {
                small_req += (double)c->r->timeline[s].requests;
                nsmall++;
            } else if (n >= SCALE_GROWN * peak) {
                grown_req += (double)c->r->timeline[s].requests;
                ngrown++;
            }
        }
        if (nsmall == 0 || ngrown == 0)
            continue;
        small_rate = small_req / nsmall;
        grown_rate = grown_req / ngrown;
        if (grown_rate < SCALE_RATE_GAIN * small_rate || grown_rate <= 0)
            continue;
        if ((f = add(c, "server_scaling", 1)) == NULL)
            return;
        say(f->summary, sizeof(f->summary), "the server grew from %.0f to %.0f %s during the run, and its throughput "
            "with it: %.0f req/s in the %u second%s it had under 2/3 of its most, %.0f req/s in the %u it had 90%% of "
            "it or more", least, peak, k ? "threads" : "processes", small_rate, nsmall, nsmall == 1 ? "" : "s",
            grown_rate, ngrown);
        say(f->advice, sizeof(f->advice), "the figures mix a pool that was growing with the grown one: warm up "
            "(--warmup) until it has grown, or set its size (Apache's StartServers, php-fpm's pm = static, a fixed "
            "thread pool)");
        ev(f, k ? "threads_start" : "processes_start", least);
        ev(f, k ? "threads_peak" : "processes_peak", peak);
        ev(f, "rps_small", small_rate);
        ev(f, "rps_grown", grown_rate);
        ev(f, "seconds_small", nsmall);
        ev(f, "seconds_grown", ngrown);
        return;
    }
}

static void keepalive_limit(struct ctx *c)
{
    const struct engine_conns *k = &c->r->conns;
    struct finding *f;
    double share;
    uint32_t i;
    if (!c->in->cfg->keepalive || k->server_ended < KA_MIN_ENDED || k->ended_mode < 2 ||
        (double)k->ended_mode_count < KA_MODE_SHARE * (double)k->server_ended || c->s->completed == 0)
        return;
    for (i = 0; c->r->per_url && c->r->nurls > 1 && i < c->r->nurls; i++) {
        /* One target's answers end most of them: that target closes (its
         * "Connection: close"), no request limit of the server's. */
        const struct stats *u = &c->r->per_url[i];
        if ((double)stats_server_closes(u) >= KA_MODE_SHARE * (double)stats_server_closes(c->s) &&
            (double)u->completed < KA_MODE_SHARE * (double)c->s->completed)
            return;
    }
    share = (double)k->server_ended / (double)c->s->completed;
    if ((f = add(c, "keepalive_limit", share >= 0.01)) == NULL)
        return;
    say(f->summary, sizeof(f->summary), "the server closed %llu keep-alive connections, %llu of them after exactly %llu "
        "requests: %.1f%% of requests paid a new connection", (unsigned long long)k->server_ended,
        (unsigned long long)k->ended_mode_count, (unsigned long long)k->ended_mode, 100 * share);
    say(f->advice, sizeof(f->advice), "a per-connection request limit (Apache's MaxKeepAliveRequests, nginx's "
        "keepalive_requests): raise it to measure keep-alive alone");
    ev(f, "requests_per_connection", (double)k->ended_mode);
    ev(f, "connections", (double)k->server_ended);
    ev(f, "share_new_connections", share);
}

static void ports(struct ctx *c)
{
    const struct netstat_obs *n = c->in->net;
    uint64_t e = c->s->errors[ERR_ADDR_UNAVAILABLE];
    struct finding *f;
    int en = c->s->err_errno[ERR_CONNECT_OTHER];
    if (e && (f = add(c, "ports_exhausted", 1)) != NULL) {
        say(f->summary, sizeof(f->summary), "%llu connects found no free local port (EADDRNOTAVAIL)%s",
            (unsigned long long)e, n && n->time_wait >= 0 ? "; sockets in TIME_WAIT hold them" : "");
        if (n && n->port_lo >= 0)
            say(f->advice, sizeof(f->advice), "each closed connection keeps its port 60 s in TIME_WAIT (%lld now) out "
                "of %lld-%lld: use keep-alive, more source addresses (--source), a wider "
                "net.ipv4.ip_local_port_range, or net.ipv4.tcp_tw_reuse=1",
                (long long)n->time_wait, (long long)n->port_lo, (long long)n->port_hi);
        else
            say(f->advice, sizeof(f->advice), "use keep-alive, more source addresses (--source), or a wider "
                "net.ipv4.ip_local_port_range");
        ev(f, "errors", (double)e);
        if (n && n->time_wait >= 0)
            ev(f, "time_wait", (double)n->time_wait);
        if (n && n->port_lo >= 0) {
            ev(f, "port_lo", (double)n->port_lo);
            ev(f, "port_hi", (double)n->port_hi);
        }
    }
    if ((en == EMFILE || en == ENFILE) && (f = add(c, "fd_limit", 1)) != NULL) {
        say(f->summary, sizeof(f->summary), "%llu connects failed: %s",
            (unsigned long long)c->s->errors[ERR_CONNECT_OTHER], en == EMFILE ? "too many open files in rafale (EMFILE)"
                                                                              : "too many open files on the host (ENFILE)");
        if (n && n->nofile)
            say(f->advice, sizeof(f->advice), "rafale may open %llu files: raise ulimit -n (or the hard limit in "
                "limits.conf), or use fewer connections", (unsigned long long)n->nofile);
        else
            say(f->advice, sizeof(f->advice), "raise ulimit -n, or use fewer connections");
        ev(f, "errors", (double)c->s->errors[ERR_CONNECT_OTHER]);
        if (n && n->nofile)
            ev(f, "nofile", (double)n->nofile);
    }
}

static void packet_loss(struct ctx *c)
{
    const struct tcpinfo_sum *t = &c->r->tcp;
    const struct netstat_obs *n = c->in->net;
    struct finding *f;
    double share;
    if (t->sampled < LOSS_MIN_CONNS || t->segs_out < LOSS_MIN_SEGMENTS)
        return;
    /* A full accept queue on this host drops SYNs and segments too: those
     * are its retransmits, not the network's. */
    if (net_ok(n) && n->local && NET_DELTA(n, listen_overflows) + NET_DELTA(n, listen_drops) > 0)
        return;
    share = (double)t->retrans / (double)t->segs_out;
    if (share <= LOSS_SHARE || (f = add(c, "packet_loss", 1)) == NULL)
        return;
    say(f->summary, sizeof(f->summary), "%.2f%% of the segments rafale sent were sent again (%llu of %llu, on %llu "
        "connections read at close); RTT %.0f us, lowest %.0f us", 100 * share, (unsigned long long)t->retrans,
        (unsigned long long)t->segs_out, (unsigned long long)t->sampled, t->rtt_sum_us / (double)t->sampled,
        t->min_rtt_us == UINT32_MAX ? 0.0 : (double)t->min_rtt_us);
    say(f->advice, sizeof(f->advice), "the network loses packets: each loss costs a retransmission timeout (200 ms "
        "or more); measure on a cleaner path, or count it in");
    ev(f, "retransmits", (double)t->retrans);
    ev(f, "segments", (double)t->segs_out);
    ev(f, "share", share);
    ev(f, "rtt_us", t->rtt_sum_us / (double)t->sampled);
    if (t->min_rtt_us != UINT32_MAX)
        ev(f, "min_rtt_us", t->min_rtt_us);
}

/* Requests ended by t_s into the run and when the last of them ended (an
 * upper bound): from each request's end when kept, else from the whole
 * seconds of the timeline. */
static uint64_t ended_by(const struct ctx *c, double t_s, double *at_s)
{
    const struct engine_result *r = c->r;
    uint64_t n = 0;
    uint32_t i;
    *at_s = 0;
    if (r->ends.total) {
        n = hist_within(&r->ends, 0, t_s * NS_S);
        *at_s = n ? hist_rank(&r->ends, n) / NS_S : 0;
        return n;
    }
    for (i = 0; r->timeline && i < r->nseconds && i + 1 <= t_s; i++) {
        n += r->timeline[i].requests + r->timeline[i].errors;
        *at_s = i + 1;
    }
    return n;
}

static uint64_t timeouts(const struct stats *s)
{
    return s->errors[ERR_TIMEOUT_CONNECT] + s->errors[ERR_TIMEOUT_ANSWER];
}

/* A few requests at the end of a -n run set its length. */
static void stragglers(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct netstat_obs *n = c->in->net;
    uint64_t ended = c->s->completed + stats_errors(c->s), bulk, tail, slow = hist_above(&c->s->h[H_CONNECT], SYN_STEP_NS);
    uint64_t tmo = timeouts(c->s);
    double e = elapsed(c), bulk_s, conc = (double)cfg->connections *
                                          (cfg->http2 ? cfg->streams : cfg->keepalive && cfg->pipeline > 1 ? cfg->pipeline : 1);
    int64_t syn = net_ok(n) ? NET_DELTA(n, syn_retrans) : -1;
    struct finding *f;
    char te[32], tt[32], to[32], mx[32];
    size_t k;
    if (cfg->requests == 0 || c->r->interrupted || c->r->aborted || c->r->in_flight || e <= 0 ||
        (cfg->duration_ns && e * NS_S >= (double)cfg->duration_ns) || ended < STRAG_MIN_REQUESTS ||
        (cfg->rate <= 0 && (double)ended < STRAG_MIN_ROUNDS * conc))
        return;
    bulk = ended_by(c, e / 2, &bulk_s);
    if ((double)bulk < STRAG_BULK_SHARE * (double)ended || bulk_s <= 0 || (f = add(c, "stragglers", 1)) == NULL)
        return;
    tail = ended - bulk;
    k = (size_t)snprintf(f->summary, sizeof(f->summary),
                         "%llu of %llu requests (%.1f%%) took the last %s of this %s run: the other %llu were done in "
                         "%s, at %.0f req/s, where the headline says %.0f req/s; ",
                         (unsigned long long)tail, (unsigned long long)ended, 100.0 * (double)tail / (double)ended,
                         units_fmt_ns(tt, sizeof(tt), (e - bulk_s) * NS_S), units_fmt_ns(te, sizeof(te), e * NS_S),
                         (unsigned long long)bulk, units_fmt_ns(to, sizeof(to), bulk_s * NS_S), (double)bulk / bulk_s,
                         (double)ended / e);
    if (k >= sizeof(f->summary))
        k = sizeof(f->summary) - 1;
    if (slow || tmo)
        say(f->summary + k, sizeof(f->summary) - k, "%llu connects waited for a SYN retry (1 s, 3 s ...)%s and %llu "
            "requests timed out", (unsigned long long)slow, syn > 0 ? ", this host sent SYNs again," : "",
            (unsigned long long)tmo);
    else
        say(f->summary + k, sizeof(f->summary) - k, "rafale saw no cause (no SYN retry, no timeout): the slowest "
            "answer took %s", units_fmt_ns(mx, sizeof(mx), (double)c->s->h[H_LATENCY].max));
    say(f->advice, sizeof(f->advice), "the headline is these few requests' length, not the server's rate: quote the "
        "rate before them, or measure a duration (-d), which slow requests cannot stretch%s",
        slow ? "; SYN retries mean a full accept queue: raise the listen() backlog and somaxconn, or use keep-alive"
             : tmo ? "; each timeout lasts --timeout" : "");
    ev(f, "requests", (double)ended);
    ev(f, "tail_requests", (double)tail);
    ev(f, "tail_s", e - bulk_s);
    ev(f, "elapsed_s", e);
    ev(f, "bulk_s", bulk_s);
    ev(f, "steady_rps", (double)bulk / bulk_s);
    ev(f, "rps", (double)ended / e);
    ev(f, "slow_connects", (double)slow);
    ev(f, "timeouts", (double)tmo);
    if (syn >= 0)
        ev(f, "syn_retransmits", (double)syn);
}

/* Timeouts that reconnect into a full accept queue feed themselves. */
static void timeout_storm(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct netstat_obs *n = c->in->net;
    const struct stats *s = c->s;
    uint64_t tmo = timeouts(s), ended = s->completed + stats_errors(s), slow = hist_above(&s->h[H_CONNECT], SYN_STEP_NS);
    uint64_t tried = s->conns_opened + s->errors[ERR_TIMEOUT_CONNECT];
    uint64_t reconn = tried > c->r->conns.clients ? tried - c->r->conns.clients : 0;
    int64_t syn = net_ok(n) ? NET_DELTA(n, syn_retrans) : -1;
    int64_t ov = net_ok(n) && n->local ? NET_DELTA(n, listen_overflows) : 0;
    struct finding *f;
    char t[32];
    if (!cfg->keepalive || tmo < STORM_MIN_TIMEOUTS || (double)tmo < STORM_SHARE * (double)ended ||
        reconn < STORM_MIN_RECONNECTS ||
        slow + s->errors[ERR_TIMEOUT_CONNECT] < SYN_MIN_SLOW)
        return;
    if ((f = add(c, "timeout_storm", 1)) == NULL)
        return;
    say(f->summary, sizeof(f->summary), "%llu requests timed out (%llu of them before the connection was up, %llu "
        "waiting for the answer) and their connections were opened again: %llu connects for %u connections; %llu "
        "waited for a SYN retry%s. Each timeout leaves the server working on the abandoned request and queues a new "
        "connection behind it, and --timeout (%s) counts that wait too", (unsigned long long)tmo,
        (unsigned long long)s->errors[ERR_TIMEOUT_CONNECT], (unsigned long long)s->errors[ERR_TIMEOUT_ANSWER],
        (unsigned long long)tried, c->r->conns.clients, (unsigned long long)slow,
        ov > 0 ? " and this host's accept queues overflowed" : "", units_fmt_ns(t, sizeof(t), (double)cfg->timeout_ns));
    say(f->advice, sizeof(f->advice), "raise --timeout above the answers' time at this load, or lower -c to what the "
        "server accepts: then the queue drains instead of refilling with reconnects");
    ev(f, "timeouts", (double)tmo);
    ev(f, "timeouts_connect", (double)s->errors[ERR_TIMEOUT_CONNECT]);
    ev(f, "timeouts_answer", (double)s->errors[ERR_TIMEOUT_ANSWER]);
    ev(f, "connections", c->r->conns.clients);
    ev(f, "connections_opened", (double)s->conns_opened);
    ev(f, "reconnects", (double)reconn);
    ev(f, "slow_connects", (double)slow);
    ev(f, "timeout_s", (double)cfg->timeout_ns / NS_S);
    if (syn >= 0)
        ev(f, "syn_retransmits", (double)syn);
    if (ov > 0)
        ev(f, "listen_overflows", (double)ov);
}

static void noisy_neighbour(struct ctx *c)
{
    const struct machine_noise *n = &c->r->noise;
    struct finding *f;
    if (!n->known || n->foreign_cpu_pct + n->steal_pct <= NOISE_FOREIGN_PCT || elapsed(c) < CPU_MIN_S)
        return;
    if ((f = add(c, "noisy_neighbour", 1)) == NULL)
        return;
    say(f->summary, sizeof(f->summary), "other processes used %.0f%% of the machine's CPUs during the run%s%.0f%% "
        "stolen by the hypervisor)", n->foreign_cpu_pct, n->steal_pct > 0.5 ? " (and " : " (", n->steal_pct);
    say(f->advice, sizeof(f->advice), "the figures are not the server's alone: measure on a quiet machine, or "
        "repeat the run and compare");
    ev(f, "foreign_cpu_pct", n->foreign_cpu_pct);
    ev(f, "steal_pct", n->steal_pct);
}

void findings_eval(const struct findings_in *in, struct findings *out)
{
    struct ctx c = { in, in->r, &in->r->total, out };
    struct findings tmp;
    int overflow, explained, cbound, i, k = 0;

    memset(out, 0, sizeof(*out));
    overflow = listen_overflow(&c);
    if (!overflow)
        syn_retransmits(&c);
    starved(&c, overflow);
    explained = nagle(&c);
    /* A full accept queue and a queue in the server are two queues: a
     * larger backlog lets more connections in to wait in the second. */
    if (!explained && queueing(&c) && overflow && strcmp(out->f[0].id, "listen_queue_overflow") == 0) {
        struct finding *lq = &out->f[0];
        size_t len = strlen(lq->advice);
        snprintf(lq->advice + len, sizeof(lq->advice) - len, "; but see queueing: a larger backlog only moves the "
                 "wait into the server");
    }
    explained |= overflow || findings_get(out, "queueing") != NULL;
    client_delay(&c);
    cbound = client_cpu(&c);
    server_cpu(&c, explained || out->n > 0, cbound);
    server_writes(&c);
    server_scaling(&c);
    keepalive_limit(&c);
    ports(&c);
    packet_loss(&c);
    stragglers(&c);
    timeout_storm(&c);
    noisy_neighbour(&c);
    /* Warnings first, in the order found. */
    tmp = *out;
    for (i = 0; i < tmp.n; i++)
        if (tmp.f[i].warning)
            out->f[k++] = tmp.f[i];
    for (i = 0; i < tmp.n; i++)
        if (!tmp.f[i].warning)
            out->f[k++] = tmp.f[i];
}

const struct finding *findings_get(const struct findings *fs, const char *id)
{
    int i;
    for (i = 0; fs && i < fs->n; i++)
        if (strcmp(fs->f[i].id, id) == 0)
            return &fs->f[i];
    return NULL;
}

double findings_ev(const struct finding *f, const char *key, double def)
{
    int i;
    for (i = 0; f && i < f->nev; i++)
        if (strcmp(f->ev[i].key, key) == 0)
            return f->ev[i].v;
    return def;
}
