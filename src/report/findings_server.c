/* findings_server.c - the rules about the server itself, from its monitor:
 * its CPU, what it writes per answer, how it scaled over the run. */
#include "findings_int.h"

#include "units.h"

#include <math.h>
#include <string.h>

/* The server's share of the CPUs it may use. */
/* The CPUs the server may use: its affinity, cgroup and the machine's
 * (monitor), and no more than the threads it had. */
static double server_cpus(const struct monitor_result *m)
{
    return m->threads && m->threads < m->cpus ? m->threads : m->cpus;
}

double findings_server_busy(const struct ctx *c)
{
    const struct monitor_result *m = c->server;
    if (m == NULL || m->cpus <= 0 || elapsed(c) < CPU_MIN_S || (m->cpu_s <= 0 && !m->cpu_exact))
        return -1;
    return m->cpu_s / (elapsed(c) * server_cpus(m));
}

void findings_server_cpu_bound(struct ctx *c)
{
    const struct monitor_result *m = c->server;
    double busy = findings_server_busy(c);
    struct finding *f;
    if (busy < CPU_BOUND || (f = add(c)) == NULL)
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
}

/* Run only when no finding before it explains the wait (findings_rules.h). */
void findings_server_waiting(struct ctx *c)
{
    const struct monitor_result *m = c->server;
    double busy = findings_server_busy(c), p50 = hist_percentile(&c->s->h[H_LATENCY], 50);
    struct finding *f;
    char b[32];
    /* Open loop (-R, a replay) both sides idle is the point: closed loop
     * only. On a busy machine a server idle for its CPU may have been
     * waiting for one: "it waits on something else" would be a guess. */
    if (busy < 0 || config_open_loop(c->in->cfg) || findings_machine_busy(c->in) || busy >= WAIT_SERVER_MAX || p50 < WAIT_MIN_P50_NS ||
        c->s->completed < WAIT_MIN_RESPONSES || (f = add(c)) == NULL)
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
    for (i = 0; i < c->in->cfg->ntargets; i++)
        if (c->in->cfg->urls[i].tls)
            return (double)(c->s->tls_full + c->s->tls_resumed) * WRITES_TLS_HANDSHAKE_BYTES +
                   ((double)c->s->completed + (double)c->s->bytes_received / WRITES_TLS_RECORD) *
                       WRITES_TLS_ANSWER_BYTES;
    return 0;
}

/* The most answers a second the run's connections could have carried: each
 * keeps its requests in flight, none answered faster than the fastest
 * answer. At least the run's own rate. */
static double fastest(const struct ctx *c)
{
    const struct hist *h = &c->s->h[H_LATENCY_UNC];
    double most = h->total && h->min > 0 ? (double)c->in->cfg->connections * config_depth(c->in->cfg) * 1e9 /
                                               (double)h->min
                                         : 0;
    return most > rps(c) ? most : rps(c);
}

/* Answers the monitor's count of writes may hold that rafale's figures do
 * not, or the reverse: its /proc/PID/io reads a moment off the measured
 * phase's edges (late: measured answers missed; early, after a warm-up:
 * warm-up answers counted; a loaded machine wakes the monitor late) and
 * the requests in flight at either edge, at the run's mean rate. *missed:
 * the most the late reads may have missed, at the fastest rate the
 * connections allow (fastest()): nginx's answers ran at 3.5 times a 0.1-s
 * run's mean in the 3 ms before a late read, and, missed, read as 133 B of
 * other writes a request. -1: the times are not known. */
static double edge_answers(const struct ctx *c, double *missed)
{
    const struct monitor_result *m = c->server;
    double start = c->r->start_unix_s, end = start + elapsed(c), late = 0, early = 0;
    double edges = (double)c->s->carried_in + (double)c->r->in_flight;
    if (m->io_begin_s[0] <= 0 || m->io_end_s[0] <= 0 || start <= 0)
        return -1;
    if (m->io_begin_s[1] > start)
        late += m->io_begin_s[1] - start;
    if (c->in->cfg->warmup_ns > 0 && m->io_begin_s[0] < start)
        early += start - m->io_begin_s[0];
    if (m->io_end_s[0] < end)
        late += end - m->io_end_s[0];
    *missed = late * fastest(c) + edges;
    return (late + early) * rps(c) + edges;
}

/* What the server wrote beside its answers, from wchar (bytes passed to
 * the write() family) and syscw (its calls). A server writes its sockets
 * with write()/writev() (nginx, Apache, Go, Node: wchar holds the answers)
 * or with send() (Python, Rust's std, haproxy: it holds none of them), and
 * /proc/PID/io does not say which. The bytes alone cannot tell them apart
 * once the other writes are as large as the answers (a Python server
 * logging 151 B a request beside 94 B answers read as 57 B of logging);
 * the calls can: answers written by write() take at least a call each, so
 * bytes beyond them must come in calls of their own. Sets *bytes, *calls
 * (those writes) and *in (the answers are in wchar: 1, not: 0, taken as
 * not because the calls say so: 2). Returns 0, or -1 when the window is
 * too far off the measured phase to tell (WRITES_EDGE_SHARE). */
static int beside_answers(const struct ctx *c, double *bytes, double *calls, int *in)
{
    const struct monitor_result *m = c->server;
    /* The answers' bytes as rafale read them, and as the server may have
     * written them (TLS: records and handshakes, at most). */
    double n = (double)c->s->completed, ans = (double)c->s->bytes_received, ans_hi = ans + tls_overhead(c);
    double w = (double)m->wchar, k = (double)m->syscw, missed, edge = edge_answers(c, &missed), slack, more;
    if (edge < 0 || edge > WRITES_EDGE_SHARE * n || n <= 0)
        return -1;
    /* The answers the window may hold or miss, in bytes: the room either way. */
    slack = edge * ans_hi / n + WRITES_SLACK_SHARE * ans_hi;
    more = w - ans_hi;
    /* Answers missed count as answers, at the most the reads could miss:
     * taken for none, every answer written would read as other writes. */
    *in = w + (missed > edge ? missed : edge) * ans_hi / n + WRITES_SLACK_SHARE * ans_hi >= ans;
    if (*in && more > slack + WRITES_PER_REQUEST * n && k - n <= edge + WRITES_OWN_CALLS * n)
        *in = 2; /* the bytes beyond the answers would have no calls of their own: send() and a line a request */
    *bytes = *in == 1 ? (more - slack >= WRITES_PER_REQUEST * n ? more : 0) : w;
    *calls = *in == 1 ? (k > n ? k - n : 0) : k;
    return 0;
}

/* What the server wrote that is not an answer: logging to a file, a pipe
 * or a terminal, or passing requests on through a socket (wchar and
 * syscw), else what compare captured of its output and what reached
 * storage (write_bytes: a log file, not a pipe). Logging is named only
 * when the bytes are known to be files or its output
 * (WRITES_LOGGED_SHARE). */
void findings_server_writes(struct ctx *c)
{
    const struct monitor_result *m = c->server;
    double bytes = 0, calls = 0, per, wchar = 0, logged = 0, n = (double)c->s->completed;
    struct finding *f;
    int known = 0, in = 0, by_calls, logging;
    if (m && m->has_io)
        logged += (double)m->write_bytes;
    if (c->in->server_output_bytes >= 0)
        logged += (double)c->in->server_output_bytes;
    if (c->s->completed < WRITES_MIN_RESPONSES || elapsed(c) <= 0)
        return;
    if (m && m->has_wchar && m->has_syscw && beside_answers(c, &bytes, &calls, &in) == 0) {
        wchar = (double)m->wchar;
        known = 2;
    } else {
        bytes = logged; /* storage and captured output: files and its terminal, no answers in them */
        known = (m && m->has_io) || c->in->server_output_bytes >= 0;
    }
    if (!known || bytes < WRITES_MIN_BYTES)
        return;
    per = bytes / n;
    if (per < WRITES_PER_REQUEST || (f = add(c)) == NULL)
        return;
    logging = logged >= WRITES_LOGGED_SHARE * bytes;
    by_calls = in == 2;
    if (known == 2)
        say(f->summary, sizeof(f->summary), "the server wrote %.0f B per request besides its answers, in %.2g write "
            "call%s per request, to files, pipes, its terminal or sockets%s: %.0f B written%s", per, calls / n,
            calls == n ? "" : "s", logging ? " (logging?)" : ", which /proc/PID/io does not tell apart", wchar,
            in == 1   ? ", less the bytes rafale received"
            : by_calls ? "; its answers went by send(), not counted there (or, written in these calls too, with the "
                         "rest in large blocks, the writes beside them were smaller)"
                       : "; its answers went by send(), not counted there");
    else
        say(f->summary, sizeof(f->summary), "the server wrote %.0f B per request to files or its terminal (logging?)",
            per);
    if (logging)
        say(f->advice, sizeof(f->advice), "a log line per request costs time: compare servers with the same logging, "
            "or turn it off to measure the server alone");
    else
        say(f->advice, sizeof(f->advice), "see where they go (ls -l /proc/PID/fd; strace -f -e trace=write,writev "
            "-p PID): a log costs time, compare servers with the same one; a gateway's or a proxy's writes to its "
            "workers or backends are part of its work");
    ev(f, "bytes_per_request", per);
    ev(f, "bytes", bytes);
    if (known == 2) {
        ev(f, "wchar_bytes", wchar);
        ev(f, "answers_in_wchar", in == 1);
        ev(f, "write_calls_per_request", calls / n);
        ev(f, "bytes_per_write_call", calls > 0 ? bytes / calls : 0);
    }
    if (m && m->has_io)
        ev(f, "write_bytes", (double)m->write_bytes);
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
void findings_server_scaling(struct ctx *c)
{
    const struct monitor_result *m = c->server;
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
                small_req += (double)c->r->timeline[s].completed;
                nsmall++;
            } else if (n >= SCALE_GROWN * peak) {
                grown_req += (double)c->r->timeline[s].completed;
                ngrown++;
            }
        }
        if (nsmall == 0 || ngrown == 0)
            continue;
        small_rate = small_req / nsmall;
        grown_rate = grown_req / ngrown;
        if (grown_rate < SCALE_RATE_GAIN * small_rate || grown_rate <= 0)
            continue;
        if ((f = add(c)) == NULL)
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
