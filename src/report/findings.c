/* findings.c - the rules, and findings_eval running them in the table's
 * order (findings_rules.h), each unless a finding before it silenced it.
 * Each one reads figures that exist already (the result, the host's
 * counters read before and after, the server's monitor) and fires only
 * past a stated threshold with a minimum sample: a false alarm is worse
 * than none, and every rule has a test on a healthy server where it must
 * stay silent (tests/integ/findings.py) and unit tests at its edges
 * (tests/report/test_findings.c). */
#include "findings.h"
#include "findings_int.h"

#include "hist.h"
#include "units.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

/* Connections that waited past the limit while another was answered. */
static void starved(struct ctx *c)
{
    const struct fairness_conns *k = &c->r->conns;
    struct finding *f;
    char w[32], l[32];
    if (k->starved == 0 || k->clients < 2 || (f = add(c)) == NULL)
        return;
    units_fmt_ns(w, sizeof(w), k->starved_wait_s * NS_S);
    units_fmt_ns(l, sizeof(l), k->wait_limit_s * NS_S);
    say(f->summary, sizeof(f->summary),
        "%u of %u connections got no answer for %s or more while others were answered (the longest waited %s); "
        "answers per connection: min %llu, median %llu, max %llu",
        k->starved, k->clients, l, w, (unsigned long long)k->req_min, (unsigned long long)k->req_median,
        (unsigned long long)k->req_max);
    if (c->found[FINDING_LISTEN_QUEUE_OVERFLOW])
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
static void listen_overflow(struct ctx *c)
{
    const struct netstat_obs *n = c->net;
    struct finding *f;
    int64_t ov, dr, syn;
    uint64_t slow_conn, slow_first;
    if (!net_ok(n) || !n->local)
        return;
    ov = NET_DELTA(n, listen_overflows);
    dr = NET_DELTA(n, listen_drops);
    syn = NET_DELTA(n, syn_retrans);
    slow_conn = hist_above(&c->s->h[H_CONNECT], SYN_STEP_NS);
    slow_first = hist_above(&c->s->h[H_TTFB], SYN_STEP_NS);
    /* Host-wide counters: our own connects must show it, at a SYN retry
     * step or timed out (a slow answer proves nothing). */
    if (ov + dr == 0 || slow_conn + c->s->errors[ERR_TIMEOUT_CONNECT] == 0 || (f = add(c)) == NULL)
        return;
    say(f->summary, sizeof(f->summary),
        "the server's accept queue overflowed: the kernel counted %lld listen overflows and %lld drops during the run "
        "(host-wide), %lld SYNs sent again; %llu connects took a SYN retry (1 s, 3 s, 7 s ...)",
        (long long)ov, (long long)dr, (long long)syn, (unsigned long long)slow_conn);
    {
        /* Who queues depends on the run: every request when each has its
         * connection, else the connections opening at once. */
        const struct config *cfg = c->in->cfg;
        char who[160], backlog[160];
        if (!cfg->keepalive)
            snprintf(who, sizeof(who), "with a new connection per request, every request needs a place in that queue");
        else
            snprintf(who, sizeof(who), "the run's %u connections open at once (and again after each close), "
                     "each needing a place in that queue", cfg->connections);
        if (n->backlog_known)
            snprintf(backlog, sizeof(backlog), "the listen() backlog of %s (it is %u; net.core.somaxconn is %lld and "
                     "caps it)", n->addr, n->backlog, (long long)n->somaxconn);
        else
            snprintf(backlog, sizeof(backlog), "the server's listen() backlog (net.core.somaxconn is %lld and caps it)",
                     (long long)n->somaxconn);
        say(f->advice, sizeof(f->advice), "raise %s, or let the server accept faster; %s", backlog, who);
    }
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
}

/* Connects at the SYN retry steps without an overflow to blame: what the
 * client side alone can see of a remote server (or a firewall). */
static void syn_retransmits(struct ctx *c)
{
    const struct netstat_obs *n = c->net;
    struct finding *f;
    uint64_t slow = hist_above(&c->s->h[H_CONNECT], SYN_STEP_NS), conns = c->s->h[H_CONNECT].total;
    int64_t syn = net_ok(n) ? NET_DELTA(n, syn_retrans) : -1;
    if (slow < SYN_MIN_SLOW || slow * 1000 < conns || syn == 0 || (f = add(c)) == NULL)
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
static void nagle(struct ctx *c)
{
    const struct hist *t = &c->s->h[H_TRANSFER];
    struct finding *f;
    uint64_t lin = hist_within(t, NAGLE_LINUX_LO, NAGLE_LINUX_HI), oth = hist_within(t, NAGLE_OTHER_LO, NAGLE_OTHER_HI);
    uint64_t hit = lin > oth ? lin : oth;
    double per = c->s->completed ? (double)c->s->bytes_received / (double)c->s->completed : 0;
    double gap = hist_percentile(t, 50), first = hist_percentile(&c->s->h[H_TTFB], 50);
    char g[32], fb[32];
    if (t->total < NAGLE_MIN_RESPONSES || (double)hit < NAGLE_SHARE * (double)t->total || per > NAGLE_MAX_BYTES ||
        first * 2 > gap || (f = add(c)) == NULL)
        return;
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
}

/* The idle probe, when it measured every target of the run and none of
 * its answers was bad (an instant 503 did no work). */
static const struct run_probe *probed(const struct ctx *c)
{
    const struct run_probe *p = &c->in->probe;
    return p->ntargets && p->ntargets == c->in->cfg->ntargets && p->answered >= QUEUE_PROBE_MIN_ANSWERS &&
                   p->bad == 0 && p->p50_ns > 0
               ? p
               : NULL;
}

/* Closed loop: connections / throughput is the latency (Little's law), far
 * above the server's own time: the time is spent waiting in a queue. Its
 * own time is measured when the idle probe ran (an answer alone, before the
 * load), the monitor's CPU per answer under load its second witness when
 * its CPUs were busy (the larger of the two is taken: a false alarm is
 * worse than none); else the CPU per answer alone; else it is estimated
 * from the fastest good answers, and said to be. */
static void queueing(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct run_probe *pr = probed(c);
    struct finding *f;
    /* The answers alone (first byte, then the rest): the samples recorded
     * at their age when the run stopped would pull the mean down. */
    const struct hist *fb = &c->s->h[H_TTFB];
    uint64_t bad = c->s->bad_status + c->s->checks_failed;
    double x = rps(c), little, mean = hist_mean(fb) + hist_mean(&c->s->h[H_TRANSFER]), service, cpu = 0;
    double p5 = hist_percentile(fb, 5), busy = findings_server_busy(c);
    int from_cpu;
    uint32_t i, depth = config_depth(cfg);
    char l[32], sv[32], m[32], al[32], own[240], in[64];
    if (config_open_loop(cfg) || cfg->nstages || cfg->connections < QUEUE_MIN_CONNS || bad >= c->s->completed ||
        c->s->completed - bad < QUEUE_MIN_RESPONSES || x <= 0)
        return;
    if (busy >= QUEUE_CPU_BUSY && c->server->cpu_s > 0)
        cpu = c->server->cpu_s / (double)c->s->completed * NS_S;
    if (pr) {
        service = pr->p50_ns > cpu ? pr->p50_ns : cpu;
        from_cpu = cpu > pr->p50_ns;
        units_fmt_ns(al, sizeof(al), pr->p50_ns);
        if (from_cpu)
            say(own, sizeof(own), "its own time is at least %s, its CPU per answer under load (its CPUs were %.0f%% "
                "busy); alone an answer took %s (the median of %llu, one at a time before the load)",
                units_fmt_ns(sv, sizeof(sv), service), 100 * busy, al, (unsigned long long)pr->answered);
        else if (cpu > 0)
            say(own, sizeof(own), "alone an answer takes %s (the median of %llu, one at a time before the load); its "
                "CPU per answer under load %s, its CPUs %.0f%% busy", al, (unsigned long long)pr->answered,
                units_fmt_ns(sv, sizeof(sv), cpu), 100 * busy);
        else
            say(own, sizeof(own), "alone an answer takes %s (the median of %llu, one at a time before the load)", al,
                (unsigned long long)pr->answered);
    } else if (cpu > 0) {
        service = cpu;
        from_cpu = 1;
        say(own, sizeof(own), "its own time is about %s (its CPU per answer, from the monitor: its CPUs were %.0f%% "
            "busy)", units_fmt_ns(sv, sizeof(sv), service), 100 * busy);
    } else {
        service = hist_rank(fb, bad + QUEUE_SERVICE_RANK);
        from_cpu = 0;
        say(own, sizeof(own), "its own time is estimated at about %s (its fifth fastest good answer%s; not measured "
            "alone)", units_fmt_ns(sv, sizeof(sv), service),
            c->server ? ": its CPUs were not busy enough for its CPU per answer to be its time" : "");
    }
    little = (double)cfg->connections * depth / x * NS_S;
    if (mean < QUEUE_MIN_MEAN_NS || mean < QUEUE_TIMES_SERVICE * service || p5 < QUEUE_P5_TIMES_SERVICE * service ||
        mean < (1 - QUEUE_LITTLE_TOLERANCE) * little || mean > (1 + QUEUE_LITTLE_TOLERANCE) * little)
        return;
    for (i = 0; c->r->per_target && i < c->r->ntargets; i++) {
        const struct stats *u = &c->r->per_target[i];
        /* Its own time alone when the probe measured it. */
        double t = pr && i < pr->ntargets && pr->target[i].answered ? pr->target[i].p50_ns : service;
        if (t < cpu)
            t = cpu;
        if ((double)u->completed >= QUEUE_URL_SHARE * (double)c->s->completed &&
            hist_percentile(&u->h[H_TTFB], 50) < QUEUE_URL_TIMES_SERVICE * t)
            return; /* a target answered fast: no queue in front of it */
    }
    if ((f = add(c)) == NULL)
        return;
    /* What is in flight: a connection's streams (or pipelined requests) each. */
    if (depth > 1)
        say(in, sizeof(in), "%u connections x %u %s", cfg->connections, depth,
            config_proto(cfg)->in_flight);
    else
        say(in, sizeof(in), "%u connections", cfg->connections);
    say(f->summary, sizeof(f->summary),
        "most of this latency is waiting in the server's queue: %s / %.1f req/s = %s (Little's law; mean %s), while "
        "%s", in, x, units_fmt_ns(l, sizeof(l), little), units_fmt_ns(m, sizeof(m), mean), own);
    say(f->advice, sizeof(f->advice),
        "a closed loop keeps every connection waiting; use fewer connections, or -R / rafale sweep to measure latency "
        "at a load the server can carry");
    ev(f, "connections", cfg->connections);
    ev(f, "requests_per_connection", depth);
    ev(f, "rps", x);
    ev(f, "wait_s", little / NS_S);
    ev(f, "latency_mean_us", mean / 1e3);
    ev(f, "service_us", service / 1e3);
    ev(f, "service_from_cpu", from_cpu);
    ev(f, "service_estimated", pr == NULL && !from_cpu);
    if (pr) {
        ev(f, "alone_p50_us", pr->p50_ns / 1e3);
        ev(f, "alone_answers", (double)pr->answered);
    }
    if (c->found[FINDING_LISTEN_QUEUE_OVERFLOW]) {
        /* A full accept queue and a queue in the server are two queues: a
         * larger backlog lets more connections in to wait in the second. */
        struct finding *lq = c->found[FINDING_LISTEN_QUEUE_OVERFLOW];
        size_t len = strlen(lq->advice);
        snprintf(lq->advice + len, sizeof(lq->advice) - len, "; but see queueing: a larger backlog only moves the "
                 "wait into the server");
    }
}

/* Whether rafale read answers late (client_delay's figures): the share
 * of them and how late counts. */
static int client_late(const struct ctx *c, double *share, double *late_ns)
{
    const struct hist *d = &c->s->h[H_CLIENT_DELAY];
    /* At a constant rate (or a log's times) the schedule sends on time
     * whatever rafale reads late (a late send shows as lag and in the
     * corrected latency): only a closed loop's load waits for its reads. */
    if (d->total < CD_MIN_RESPONSES || config_open_loop(c->in->cfg))
        return 0;
    *late_ns = hist_percentile(&c->s->h[H_LATENCY], 50) * CD_LATE_OF_P50;
    if (*late_ns < CD_LATE_NS)
        *late_ns = CD_LATE_NS;
    *share = (double)hist_above(d, *late_ns) / (double)d->total;
    return *share >= CD_LATE_SHARE;
}

static void client_delay(struct ctx *c)
{
    const struct hist *d = &c->s->h[H_CLIENT_DELAY];
    double p50 = hist_percentile(&c->s->h[H_LATENCY], 50), late_ns, share;
    struct finding *f;
    if (!client_late(c, &share, &late_ns) || (f = add(c)) == NULL)
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

static void client_cpu(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct netstat_obs *n = c->net;
    double th = cfg->threads < cfg->connections ? cfg->threads : cfg->connections, busy, run;
    struct finding *f;
    double cpu_s = c->r->client_cpu_s;
    uint32_t i;
    if (n && n->client_cpus && th > n->client_cpus)
        th = n->client_cpus;
    run = elapsed(c) + (double)cfg->warmup_ns / NS_S;
    if (th <= 0 || run < CPU_MIN_S)
        return;
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
    if (busy < CPU_BOUND || (f = add(c)) == NULL)
        return;
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
}

static void keepalive_limit(struct ctx *c)
{
    const struct fairness_conns *k = &c->r->conns;
    struct finding *f;
    double share;
    uint32_t i;
    if (!c->in->cfg->keepalive || k->server_ended < KA_MIN_ENDED || k->ended_mode < 2 ||
        (double)k->ended_mode_count < KA_MODE_SHARE * (double)k->server_ended || c->s->completed == 0)
        return;
    for (i = 0; c->r->per_target && c->r->ntargets > 1 && i < c->r->ntargets; i++) {
        /* One target's answers end most of them: that target closes (its
         * "Connection: close"), no request limit of the server's. */
        const struct stats *u = &c->r->per_target[i];
        if ((double)stats_server_closes(u) >= KA_MODE_SHARE * (double)stats_server_closes(c->s) &&
            (double)u->completed < KA_MODE_SHARE * (double)c->s->completed)
            return;
    }
    share = (double)k->server_ended / (double)c->s->completed;
    if ((f = add(c)) == NULL)
        return;
    f->warning = share >= 0.01; /* info when so few paid for it */
    say(f->summary, sizeof(f->summary), "the server closed %llu keep-alive connections, %llu of them after exactly %llu "
        "requests: %.1f%% of requests paid a new connection", (unsigned long long)k->server_ended,
        (unsigned long long)k->ended_mode_count, (unsigned long long)k->ended_mode, 100 * share);
    say(f->advice, sizeof(f->advice), "a per-connection request limit (Apache's MaxKeepAliveRequests, nginx's "
        "keepalive_requests): raise it to measure keep-alive alone");
    ev(f, "requests_per_connection", (double)k->ended_mode);
    ev(f, "connections", (double)k->server_ended);
    ev(f, "share_new_connections", share);
}

static void ports_exhausted(struct ctx *c)
{
    const struct netstat_obs *n = c->net;
    uint64_t e = c->s->errors[ERR_ADDR_UNAVAILABLE];
    struct finding *f;
    if (e && (f = add(c)) != NULL) {
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
}

static void fd_limit(struct ctx *c)
{
    const struct netstat_obs *n = c->net;
    struct finding *f;
    int en = c->s->err_errno[ERR_CONNECT_OTHER];
    if ((en == EMFILE || en == ENFILE) && (f = add(c)) != NULL) {
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
    const struct netstat_obs *n = c->net;
    struct finding *f;
    double share;
    if (t->sampled < LOSS_MIN_CONNS || t->segs_out < LOSS_MIN_SEGMENTS)
        return;
    /* A full accept queue on this host drops SYNs and segments too: those
     * are its retransmits, not the network's. */
    if (net_ok(n) && n->local && NET_DELTA(n, listen_overflows) + NET_DELTA(n, listen_drops) > 0)
        return;
    share = (double)t->retrans / (double)t->segs_out;
    if (share <= LOSS_SHARE || (f = add(c)) == NULL)
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

/* Requests ended by t_s into the run and when the last of them ended:
 * from each request's end when kept (a bucket begun by t_s counted whole:
 * the tail after t_s errs short), else from the whole seconds of the
 * timeline. */
static uint64_t ended_by(const struct ctx *c, double t_s, double *at_s)
{
    const struct run_figures *r = c->r;
    struct hist_iter it;
    uint64_t n = 0;
    uint32_t i;
    *at_s = 0;
    if (r->ends.total) {
        for (hist_iter_init(&it, &r->ends); hist_iter_next(&it);)
            if ((double)it.lo <= t_s * NS_S)
                n += it.count;
        *at_s = n ? hist_rank(&r->ends, n) / NS_S : 0;
        return n;
    }
    for (i = 0; r->timeline && i < r->nseconds && i + 1 <= t_s; i++) {
        n += r->timeline[i].completed + r->timeline[i].errors;
        *at_s = i + 1;
    }
    return n;
}

/* When the k-th request ended: from each request's end when kept, else the
 * end of the timeline's second it ended in (later: the bulk's rate is then
 * lower, and the rule errs toward silence); 0 when unknown. */
static double end_of(const struct ctx *c, uint64_t k)
{
    const struct run_figures *r = c->r;
    uint64_t n = 0;
    uint32_t i;
    if (r->ends.total)
        return hist_rank(&r->ends, k) / NS_S;
    for (i = 0; r->timeline && i < r->nseconds; i++) {
        n += r->timeline[i].completed + r->timeline[i].errors;
        if (n >= k)
            return i + 1 < elapsed(c) ? i + 1 : elapsed(c);
    }
    return 0;
}

static uint64_t timeouts(const struct stats *s)
{
    return s->errors[ERR_TIMEOUT_CONNECT] + s->errors[ERR_TIMEOUT_ANSWER];
}

/* A few requests at the end of a -n run set its length: the bulk's rate
 * would have ended the run well before its last request did. */
static void stragglers(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct netstat_obs *n = c->net;
    uint64_t ended = c->s->completed + stats_errors(c->s), bulk, tail, slow = hist_above(&c->s->h[H_CONNECT], SYN_STEP_NS);
    uint64_t tmo = timeouts(c->s), body;
    double e = elapsed(c), bulk_s, body_s, steady_end, lost, conc = (double)cfg->connections * config_depth(cfg);
    /* The latest rafale read an answer after the kernel had it: how long
     * rafale itself was kept from its connections at most. */
    double stall = (double)c->s->h[H_CLIENT_DELAY].max / NS_S;
    int64_t syn = net_ok(n) ? NET_DELTA(n, syn_retrans) : -1;
    struct finding *f;
    char te[32], tt[32], to[32], mx[32];
    size_t k;
    int own;
    if (cfg->requests == 0 || c->r->interrupted || c->r->aborted || c->r->gave_up_s > 0 || c->r->in_flight || e <= 0 ||
        (cfg->duration_ns && e * NS_S >= (double)cfg->duration_ns) || ended < STRAG_MIN_REQUESTS ||
        (!config_open_loop(cfg) && (double)ended < STRAG_MIN_ROUNDS * conc))
        return;
    /* The body's rate, and when it would have ended every request. */
    body = (uint64_t)(STRAG_BULK_SHARE * (double)ended);
    body_s = end_of(c, body);
    if (body == 0 || body_s <= 0)
        return;
    steady_end = body_s * (double)ended / (double)body;
    lost = e - steady_end;
    if (lost < STRAG_LOST_SHARE * e || lost < STRAG_MIN_LOST_S)
        return;
    /* The tail: the requests that ended after that, and after one more
     * round of what was in flight at the body's rate (the body's last
     * round ends unevenly, a few requests after its mean). */
    bulk = ended_by(c, steady_end + conc * body_s / (double)body, &bulk_s);
    if (bulk == 0 || bulk >= ended || bulk_s <= 0 || (f = add(c)) == NULL)
        return;
    tail = ended - bulk;
    own = stall >= STRAG_STALL_OF_LOST * lost; /* rafale's own late read explains the tail */
    k = (size_t)snprintf(f->summary, sizeof(f->summary),
                         "%llu of %llu requests (%.1f%%) took the last %s of this %s run, at %.1f req/s: the other "
                         "%llu were done in %s, at %.0f req/s, where the headline says %.0f req/s; ",
                         (unsigned long long)tail, (unsigned long long)ended, 100.0 * (double)tail / (double)ended,
                         units_fmt_ns(tt, sizeof(tt), (e - bulk_s) * NS_S), units_fmt_ns(te, sizeof(te), e * NS_S),
                         (double)tail / (e - bulk_s), (unsigned long long)bulk, units_fmt_ns(to, sizeof(to), bulk_s * NS_S),
                         (double)bulk / bulk_s, (double)ended / e);
    if (k >= sizeof(f->summary))
        k = sizeof(f->summary) - 1;
    if (slow || tmo)
        say(f->summary + k, sizeof(f->summary) - k, "%llu connects waited for a SYN retry (1 s, 3 s ...)%s and %llu "
            "requests timed out", (unsigned long long)slow, syn > 0 ? ", this host sent SYNs again," : "",
            (unsigned long long)tmo);
    else if (own)
        say(f->summary + k, sizeof(f->summary) - k, "rafale itself read an answer %s after it had arrived: a stall of "
            "rafale's own (its CPU taken) that long is enough for this tail",
            units_fmt_ns(mx, sizeof(mx), stall * NS_S));
    else
        say(f->summary + k, sizeof(f->summary) - k, "rafale saw no cause (no SYN retry, no timeout): the slowest "
            "answer took %s", units_fmt_ns(mx, sizeof(mx), (double)c->s->h[H_LATENCY].max));
    say(f->advice, sizeof(f->advice), "the headline is these few requests' length, not the server's rate: quote the "
        "rate before them, or measure a duration (-d), which slow requests cannot stretch%s",
        slow ? "; SYN retries mean a full accept queue: raise the listen() backlog and somaxconn, or use keep-alive"
        : tmo                                   ? "; each timeout lasts --timeout"
        : own ? "; give rafale CPUs of its own (taskset) and keep busy processes off them"
              : "");
    ev(f, "requests", (double)ended);
    ev(f, "tail_requests", (double)tail);
    ev(f, "tail_s", e - bulk_s);
    ev(f, "tail_rps", (double)tail / (e - bulk_s));
    ev(f, "elapsed_s", e);
    ev(f, "bulk_s", bulk_s);
    ev(f, "steady_rps", (double)bulk / bulk_s);
    ev(f, "rps", (double)ended / e);
    ev(f, "lost_s", lost);
    ev(f, "slow_connects", (double)slow);
    ev(f, "timeouts", (double)tmo);
    ev(f, "client_stall_s", stall);
    if (syn >= 0)
        ev(f, "syn_retransmits", (double)syn);
}

/* Timeouts that reconnect into a full accept queue feed themselves. */
static void timeout_storm(struct ctx *c)
{
    const struct config *cfg = c->in->cfg;
    const struct netstat_obs *n = c->net;
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
        slow + s->errors[ERR_TIMEOUT_CONNECT] < SYN_MIN_SLOW || (f = add(c)) == NULL)
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

int findings_machine_busy(const struct run_result *r)
{
    const struct machine_noise *n = &r->noise;
    return n->known && n->foreign_cpu_pct + n->steal_pct > NOISE_FOREIGN_PCT && r->fig.elapsed_s >= CPU_MIN_S;
}

static void noisy_neighbour(struct ctx *c)
{
    const struct machine_noise *n = &c->in->noise;
    struct finding *f;
    double share, late_ns;
    if (!findings_machine_busy(c->in) || (f = add(c)) == NULL)
        return;
    say(f->summary, sizeof(f->summary), "other processes used %.0f%% of the machine's CPUs during the run%s%.0f%% "
        "stolen by the hypervisor)", n->foreign_cpu_pct, n->steal_pct > 0.5 ? " (and " : " (", n->steal_pct);
    say(f->advice, sizeof(f->advice), "the figures are not the server's alone: measure on a quiet machine, or "
        "repeat the run and compare");
    ev(f, "foreign_cpu_pct", n->foreign_cpu_pct);
    ev(f, "steal_pct", n->steal_pct);
    /* The cause of rafale's late reads, when client_delay would tell them
     * (it is silenced by this finding): they are told here, not apart. */
    if (!(c->silenced & FINDING_BIT(CLIENT_DELAY)) && client_late(c, &share, &late_ns)) {
        size_t len = strlen(f->summary);
        snprintf(f->summary + len, sizeof(f->summary) - len, "; rafale read %.1f%% of the answers %.0f ms or more "
                 "late (client_delay), so the load it sent may have been throttled", 100 * share, late_ns / NS_MS);
        ev(f, "client_late_share", share);
    }
}

const struct findings_rule findings_rules[FINDING_COUNT] = {
#define FINDINGS_RULE_ROW(id, json, severity, fn, silences) \
    [FINDING_##id] = { json, FINDINGS_##severity, fn, silences },
    FINDINGS_RULES(FINDINGS_RULE_ROW)
#undef FINDINGS_RULE_ROW
};

void findings_eval(const struct run_result *in, struct findings *out)
{
    struct ctx c;
    struct findings tmp;
    int i, k = 0;

    memset(out, 0, sizeof(*out));
    memset(&c, 0, sizeof(c));
    c.in = in;
    c.r = &in->fig;
    c.s = &in->fig.total;
    c.server = in->has_server ? &in->server : NULL;
    c.net = in->has_net ? &in->net : NULL;
    c.out = out;
    for (c.rule = 0; c.rule < FINDING_COUNT; c.rule++) {
        if (c.silenced & (1u << c.rule))
            continue;
        findings_rules[c.rule].fn(&c);
        if (c.found[c.rule])
            c.silenced |= findings_rules[c.rule].silences;
    }
    /* Warnings first, in the order found. */
    tmp = *out;
    for (i = 0; i < tmp.n; i++)
        if (tmp.f[i].warning)
            out->f[k++] = tmp.f[i];
    for (i = 0; i < tmp.n; i++)
        if (!tmp.f[i].warning)
            out->f[k++] = tmp.f[i];
}

const struct finding *findings_named(const struct findings *fs, const char *json)
{
    int i;
    for (i = 0; fs && i < fs->n; i++)
        if (strcmp(fs->f[i].id, json) == 0)
            return &fs->f[i];
    return NULL;
}

const struct finding *findings_get(const struct findings *fs, enum finding_id id)
{
    return findings_named(fs, findings_name(id));
}

const char *findings_name(enum finding_id id)
{
    return findings_rules[id].json;
}

double findings_ev(const struct finding *f, const char *key, double def)
{
    int i;
    for (i = 0; f && i < f->nev; i++)
        if (strcmp(f->ev[i].key, key) == 0)
            return f->ev[i].v;
    return def;
}
