/* metrics.c - --metrics-listen: the run's figures for Prometheus while it
 * runs. A thread of its own answers GET /metrics (OpenMetrics 1.0, or the
 * Prometheus text format 0.0.4 when the scraper asks for it) and GET
 * /snapshot.json from the copy the engine's watch publishes four times a
 * second; it never touches a worker, so a scraper (slow, silent or
 * hostile) never slows the load. One request per connection, 8 KiB at
 * most; 2 s to send it and take the whole answer. */
#include "metrics.h"
#include "check.h"
#include "err.h"
#include "html.h"
#include "http_req.h"
#include "net.h"
#include "report.h"
#include "stats.h"
#include "status.h"
#include "svg.h"
#include "text.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SERIES_MAX 3600   /* points of the live page's charts: a second each, an hour */

/* The live page's series, a point a second: time, completed and failed
 * per second, p50 and p99 so far, in flight; the server's share of its
 * CPUs and its memory (with --monitor). */
enum { PT_T, PT_RPS, PT_ERR, PT_P50, PT_P99, PT_INFLIGHT, PT_SCPU, PT_SMEM, PT__COUNT };

struct metrics {
    int fd;
    atomic_int stop;
    /* The live page: a point a second, and the final report once it is
     * made (a page sees it when --metrics-linger keeps us after the run). */
    double *pt[PT__COUNT];
    uint32_t npts;
    uint64_t last_req, last_err, last_sec;
    double last_t, last_cpu_s;
    int srv_first;               /* the first point with a server sample, -1 none yet */
    char *final_html;
    size_t final_len;
    int done;
    uint64_t linger_ns;          /* --metrics-linger */
    pthread_t thread;
    pthread_mutex_t mu;
    struct engine_live live;     /* the last published (live.latency its own buckets) */
    int have;
    struct monitor_live server;  /* --monitor's, when have_server */
    int have_server;
    char picked[INET6_ADDRSTRLEN + 10]; /* the kernel's port for port 0, "" otherwise */
    char *labels[ENGINE_LIVE_FIGS + 1]; /* each target's, escaped for a label value */
    uint32_t nlabels;
};

/* A label value (OpenMetrics: \\, \" and \n escaped), cut to 200 bytes on
 * a character's start; UTF-8, as a scraper refuses the whole page
 * otherwise: a byte that is not becomes U+FFFD, a control '?'. */
static char *label(const char *s)
{
    size_t n = text_cut(s, strlen(s), 200), i, o = 0, k;
    char *out;
    if ((out = malloc(n * TEXT_REPLACEMENT_LEN + 1)) == NULL)
        return NULL;
    for (i = 0; i < n; i += k) {
        unsigned char c = (unsigned char)s[i];
        k = 1;
        if (c == '\\' || c == '"') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if (c < 0x20 || c == 0x7f) {
            out[o++] = '?';
        } else if ((k = text_utf8_len(s + i, n - i)) == 0) {
            memcpy(out + o, TEXT_REPLACEMENT, TEXT_REPLACEMENT_LEN);
            o += TEXT_REPLACEMENT_LEN;
            k = 1;
        } else {
            memcpy(out + o, s + i, k);
            o += k;
        }
    }
    out[o] = '\0';
    return out;
}

static int is_loopback(const struct net_addr *a)
{
    if (a->ss.ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr) >> 24) == 127;
    if (a->ss.ss_family == AF_INET6) {
        static const unsigned char lo[16] = { [15] = 1 };
        return memcmp(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr, lo, 16) == 0;
    }
    return 0;
}

/* The latency histogram's bounds, in seconds (Prometheus' defaults, wider). */
static const double les[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                              0.25,   0.5,     1,      2.5,   5,      10,    30,   60 };
#define NLES (sizeof(les) / sizeof(les[0]))

/* The exposition, into a buffer (a few KiB). om: OpenMetrics. */
static void expose(struct metrics *m, FILE *f, int om)
{
    const struct engine_live *l = &m->live;
    uint64_t cum[NLES] = { 0 }, total = 0;
    struct hist_iter it;
    uint32_t i, k;
    /* OpenMetrics names a counter's family without "_total". */
    fprintf(f, "# TYPE rafale_requests%s counter\n# HELP rafale_requests%s Responses completed, by status.\n",
            om ? "" : "_total", om ? "" : "_total");
    for (i = 0; i < STATUS_MAX; i++)
        if (l->status[i])
            fprintf(f, "rafale_requests_total{status=\"%u\"} %llu\n", i, (unsigned long long)l->status[i]);
    fprintf(f, "# TYPE rafale_errors%s counter\n# HELP rafale_errors%s Requests that failed, by kind.\n",
            om ? "" : "_total", om ? "" : "_total");
    for (i = 0; i < ERR__COUNT; i++)
        fprintf(f, "rafale_errors_total{kind=\"%s\"} %llu\n", stats_err_name((enum err_kind)i),
                (unsigned long long)l->errors[i]);
    fprintf(f, "# TYPE rafale_target_requests%s counter\n# HELP rafale_target_requests%s Requests ended, by target "
               "(the first %d; the rest as other).\n", om ? "" : "_total", om ? "" : "_total", ENGINE_LIVE_FIGS);
    for (i = 0; i < l->ntargets && i < m->nlabels; i++)
        fprintf(f, "rafale_target_requests_total{target=\"%s\"} %llu\n", m->labels[i],
                (unsigned long long)l->targets[i]);
    /* The counters' table's (counters.h), each its own family. */
    for (i = 0; i < COUNTERS_NROWS; i++)
        if (stats_counters[i].metric)
            fprintf(f, "# TYPE rafale_%s%s counter\n# HELP rafale_%s%s %s\nrafale_%s_total %llu\n",
                    stats_counters[i].metric, om ? "" : "_total", stats_counters[i].metric, om ? "" : "_total",
                    stats_counters[i].help, stats_counters[i].metric, (unsigned long long)l->counters[i]);
    fprintf(f, "# TYPE rafale_in_flight gauge\n# HELP rafale_in_flight Requests started and not ended.\n"
               "rafale_in_flight %llu\n", (unsigned long long)(l->started - l->ended));
    fprintf(f, "# TYPE rafale_connections_open gauge\n# HELP rafale_connections_open Connections open.\n"
               "rafale_connections_open %u\n", l->open);
    if (l->rate_mode) {
        fprintf(f, "# TYPE rafale_target_rate gauge\n# HELP rafale_target_rate The schedule's requests per second.\n"
                   "rafale_target_rate %.3f\n", l->target_rate);
        fprintf(f, "# TYPE rafale_schedule_lag_seconds gauge\n# HELP rafale_schedule_lag_seconds How late the oldest "
                   "request due and not yet sent is (0: on schedule); its latency counts from its due time.\n"
                   "rafale_schedule_lag_seconds %.6f\n", l->lag_s);
        fprintf(f, "# TYPE rafale_schedule_backlog gauge\n# HELP rafale_schedule_backlog Requests due and not yet "
                   "sent, waiting for a free connection.\nrafale_schedule_backlog %llu\n",
                (unsigned long long)l->backlog);
    }
    if (m->have_server && m->server.ok) {
        const struct monitor_live *sv = &m->server;
        fprintf(f, "# TYPE rafale_server_cpu_seconds%s counter\n# HELP rafale_server_cpu_seconds%s CPU time (user and "
                   "system) of the monitored server since the monitor began.\nrafale_server_cpu_seconds_total %.3f\n",
                om ? "" : "_total", om ? "" : "_total", sv->cpu_s);
        if (sv->cpus > 0)
            fprintf(f, "# TYPE rafale_server_cpus gauge\n# HELP rafale_server_cpus CPUs the server may use (its "
                       "affinity, its cgroup's cpu.max, the machine's).\nrafale_server_cpus %g\n", sv->cpus);
        if (sv->has_pss)
            fprintf(f, "# TYPE rafale_server_pss_bytes gauge\n# HELP rafale_server_pss_bytes Proportional set size of "
                       "the server's processes, the kernel's (a shared page divided among every process of the "
                       "machine that maps it).\nrafale_server_pss_bytes %llu\n",
                    (unsigned long long)sv->pss_bytes);
        if (sv->has_alone)
            fprintf(f, "# TYPE rafale_server_alone_bytes gauge\n# HELP rafale_server_alone_bytes Memory of the "
                       "server as if it ran alone: its resident pages each counted once (as root).\n"
                       "rafale_server_alone_bytes %llu\n",
                    (unsigned long long)sv->alone_bytes);
        fprintf(f, "# TYPE rafale_server_rss_bytes gauge\n# HELP rafale_server_rss_bytes Resident set size of the "
                   "server's processes, summed.\nrafale_server_rss_bytes %llu\n", (unsigned long long)sv->rss_bytes);
        fprintf(f, "# TYPE rafale_server_processes gauge\n# HELP rafale_server_processes Processes of the server.\n"
                   "rafale_server_processes %u\n", sv->processes);
    }
    /* Cumulative buckets from the histogram's own: a bucket counts under
     * the first bound at or above its upper end. */
    for (hist_iter_init(&it, &l->latency); hist_iter_next(&it);) {
        total += it.count;
        for (k = 0; k < NLES; k++)
            if ((double)it.hi <= les[k] * 1e9) {
                cum[k] += it.count;
                break;
            }
    }
    fprintf(f, "# TYPE rafale_latency_seconds histogram\n# HELP rafale_latency_seconds Latency of the responses of the "
               "seconds done, within 3%%.\n");
    for (k = 0; k < NLES; k++) {
        if (k)
            cum[k] += cum[k - 1];
        fprintf(f, "rafale_latency_seconds_bucket{le=\"%g\"} %llu\n", les[k], (unsigned long long)cum[k]);
    }
    fprintf(f, "rafale_latency_seconds_bucket{le=\"+Inf\"} %llu\nrafale_latency_seconds_sum %.9f\n"
               "rafale_latency_seconds_count %llu\n", (unsigned long long)total, l->latency.sum / 1e9,
            (unsigned long long)total);
    if (om)
        fprintf(f, "# EOF\n");
}

static uint64_t now_ms(void);

/* The live page: numbers and two charts, refreshed once a second from
 * /snapshot.json and /chart.svg (drawn by the report's SVG code); when the
 * run is done, the final report in its place. No fetch leaves this origin. */
static const char PAGE[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>rafale: live</title><style>"
    "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}#charts svg{width:48%;min-width:480px;height:auto}"
    "</style></head><body>\n<h1>rafale: live</h1>\n<p id=\"state\">running</p>\n"
    "<table><tr><th>elapsed</th><th>requests</th><th>req/s</th><th>errors</th><th>in flight</th>"
    "<th>connections</th><th>p50</th><th>p99</th></tr>\n<tr><td id=\"elapsed\">-</td><td id=\"requests\">-</td>"
    "<td id=\"rps\">-</td><td id=\"errors\">-</td><td id=\"inflight\">-</td><td id=\"open\">-</td>"
    "<td id=\"p50\">-</td><td id=\"p99\">-</td></tr></table>\n<div id=\"charts\"></div>\n<script>\n"
    "var last = null;\n"
    "function us(v) { return v >= 1000 ? (v / 1000).toFixed(2) + ' ms' : v.toFixed(0) + ' us'; }\n"
    "function tick() {\n"
    "  fetch('/snapshot.json').then(function (r) { return r.json(); }).then(function (s) {\n"
    "    var rps = last && s.elapsed_s > last.elapsed_s ? (s.requests - last.requests) / (s.elapsed_s - last.elapsed_s)\n"
    "      : s.elapsed_s > 0 ? s.requests / s.elapsed_s : 0;\n"
    "    document.getElementById('elapsed').textContent = s.elapsed_s.toFixed(1) + ' s';\n"
    "    document.getElementById('requests').textContent = s.requests;\n"
    "    document.getElementById('rps').textContent = rps.toFixed(0);\n"
    "    document.getElementById('errors').textContent = s.errors;\n"
    "    document.getElementById('inflight').textContent = s.in_flight;\n"
    "    document.getElementById('open').textContent = s.connections_open;\n"
    "    document.getElementById('p50').textContent = us(s.p50_us);\n"
    "    document.getElementById('p99').textContent = us(s.p99_us);\n"
    "    last = s;\n"
    "    if (s.done) {\n"
    "      document.getElementById('state').textContent = 'done: the final report';\n"
    "      return fetch('/report.html').then(function (r) { return r.text(); }).then(function (h) {\n"
    "        document.open(); document.write(h); document.close(); });\n"
    "    }\n"
    "    return fetch('/chart.svg').then(function (r) { return r.text(); }).then(function (t) {\n"
    "      document.getElementById('charts').innerHTML = t; setTimeout(tick, 1000); });\n"
    "  }).catch(function () { document.getElementById('state').textContent =\n"
    "    'the run has ended: its report is in rafale\\'s output (--metrics-linger keeps this page up to show it)'; });\n"
    "}\ntick();\n</script>\n</body></html>\n";

/* The live page's charts: throughput and latency, a point a second. */
static void charts(struct metrics *m, FILE *f)
{
    struct svg_axis ax = { "time (s)", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis ay = { "requests per second", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis al = { "latency (ms)", 0, NULL, NULL, 0, 0, "latency (ms, log scale)" };
    struct svg_axis ae = { "requests", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis ac = { "% of the CPUs it may use", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis am = { "MiB", 0, NULL, NULL, 0, 0, NULL };
    double *t = m->pt[PT_T];
    int n = (int)m->npts;
    struct svg_series s1 = { "completed", t, m->pt[PT_RPS], n };
    struct svg_series s2[2] = { { "p50", t, m->pt[PT_P50], n }, { "p99", t, m->pt[PT_P99], n } };
    struct svg_series s3[2] = { { "errors per second", t, m->pt[PT_ERR], n }, { "in flight", t, m->pt[PT_INFLIGHT], n } };
    /* The server's points from its first sample on: none made up before. */
    int c0 = m->srv_first < 0 || m->srv_first > n ? n : m->srv_first, f0 = m->srv_first < 1 ? n : m->srv_first - 1;
    struct svg_series s4 = { "server CPU", t + c0, m->pt[PT_SCPU] + c0, n - c0 };
    struct svg_series s5 = { m->server.has_alone ? "server memory, alone" : m->server.has_pss ? "server PSS"
                                                                                             : "server RSS",
                             t + f0, m->pt[PT_SMEM] + f0, n - f0 };
    svg_line_chart(f, "Throughput over time", &ax, &ay, &s1, 1);
    svg_line_chart(f, "Latency over time (the run so far)", &ax, &al, s2, 2);
    svg_line_chart(f, "Errors and requests in flight over time", &ax, &ae, s3, 2);
    if (m->have_server && m->srv_first >= 0) {
        svg_line_chart(f, "Server CPU over time", &ax, &ac, &s4, 1);
        svg_line_chart(f, "Server memory over time", &ax, &am, &s5, 1);
    }
}

static void snapshot_json(struct metrics *m, FILE *f)
{
    const struct engine_live *l = &m->live;
    uint64_t done = 0, errs = 0;
    uint32_t i;
    for (i = 0; i < STATUS_MAX; i++)
        done += l->status[i];
    for (i = 0; i < ERR__COUNT; i++)
        errs += l->errors[i];
    fprintf(f,
            "{\"elapsed_s\": %s, \"requests\": %llu, \"errors\": %llu, \"in_flight\": %llu, "
            "\"connections_open\": %u, \"p50_us\": %s, \"p99_us\": %s, \"done\": %s",
            REPORT_JNUM("%.3f", l->elapsed_s > 0 ? l->elapsed_s : 0.0), (unsigned long long)done,
            (unsigned long long)errs, (unsigned long long)(l->started - l->ended), l->open,
            REPORT_JNUM("%.1f", hist_percentile(&l->latency, 50) / 1e3),
            REPORT_JNUM("%.1f", hist_percentile(&l->latency, 99) / 1e3), m->done ? "true" : "false");
    if (l->rate_mode)
        fprintf(f, ", \"target_rate\": %s, \"lag_s\": %s, \"backlog\": %llu", REPORT_JNUM("%.3f", l->target_rate),
                REPORT_JNUM("%.6f", l->lag_s), (unsigned long long)l->backlog);
    if (m->have_server && m->server.ok) {
        fprintf(f, ", \"server\": {\"cpu_s\": %s, \"cpus\": %s, \"rss_bytes\": %llu, \"processes\": %u",
                REPORT_JNUM("%.3f", m->server.cpu_s), REPORT_JNUM("%g", m->server.cpus),
                (unsigned long long)m->server.rss_bytes, m->server.processes);
        if (m->server.has_pss)
            fprintf(f, ", \"pss_bytes\": %llu", (unsigned long long)m->server.pss_bytes);
        if (m->server.has_alone)
            fprintf(f, ", \"alone_bytes\": %llu", (unsigned long long)m->server.alone_bytes);
        fputc('}', f);
    }
    fputs("}\n", f);
}

/* Up to MAX_PENDING connections at once, each with 2 s from its accept to
 * send its request and take the whole answer: a silent one, or a slow
 * reader, holds only its own slot, never the others. */
#define MAX_PENDING METRICS_PENDING
#define REQ_MAX 8192
#define HOLD_MS 2000 /* from its accept to its answer taken */
struct pending {
    int fd;
    int head;           /* HEAD: the answer's head alone */
    int draining;       /* answered, our side shut: reading to the client's close */
    size_t n;
    uint64_t deadline_ms;
    char *out;          /* the answer, once the request is whole */
    size_t out_len, out_off;
    struct http_req hr; /* its head as read so far, as `rafale serve` reads one */
    char req[REQ_MAX];
};

/* The answer, head and body (none to a HEAD), for the thread's loop to
 * send. A 405 says what is allowed (RFC 9110 section 15.5.6). */
static void answer(struct pending *q, int status, const char *type, const char *body, size_t n)
{
    char head[300];
    int k = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                                         "Connection: close\r\n\r\n", status, status_reason(status), type, n,
                     status == 405 ? "Allow: GET, HEAD\r\n" : "");
    if (q->head)
        n = 0; /* RFC 9110 section 9.3.2: GET's head, no content */
    if ((q->out = malloc((size_t)k + n)) == NULL)
        return;
    memcpy(q->out, head, (size_t)k);
    if (n)
        memcpy(q->out + k, body, n);
    q->out_len = (size_t)k + n;
    q->out_off = 0;
}

/* Sends what the client takes now (the socket is non-blocking). Returns 1
 * when the answer is all sent, 0 when more is to go, -1 on an error. */
static int send_some(struct pending *q)
{
    while (q->out_off < q->out_len) {
        ssize_t r = send(q->fd, q->out + q->out_off, q->out_len - q->out_off, MSG_NOSIGNAL);
        if (r > 0)
            q->out_off += (size_t)r;
        else if (r < 0 && errno == EINTR)
            continue;
        else
            return r < 0 && errno == EAGAIN ? 0 : -1;
    }
    return 1;
}

/* Closes a client. An answer not sent whole ends with a reset (SO_LINGER
 * 0): the client sees an error, never a short body that looks whole. */
static void drop(struct pending *q)
{
    if (q->out && q->out_off < q->out_len) {
        struct linger reset = { 1, 0 };
        setsockopt(q->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    }
    close(q->fd);
    free(q->out);
    q->out = NULL;
    q->fd = -1;
}

/* The value of the request's Accept header (its head, hl bytes), lower-
 * cased (media types are case-insensitive, RFC 9110 section 8.3.1), ""
 * without one. */
static void accept_value(const char *head, size_t hl, char *v, size_t vlen)
{
    size_t n = 0, i;
    const char *a = check_header(head, hl, "accept", 6, &n);
    for (i = 0; a && i < n && i + 1 < vlen; i++)
        v[i] = (char)tolower((unsigned char)a[i]);
    v[i] = '\0';
}

/* The answer to q's whole request head (hl bytes, q->hr): its method and
 * the path of its target, a query after any path. */
static void serve_one(struct metrics *m, struct pending *q, size_t hl)
{
    const struct http_req *r = &q->hr;
    const char *query = memchr(r->path, '?', r->plen);
    size_t blen = 0, plen = query ? (size_t)(query - r->path) : r->plen;
    char *body = NULL, acc[512];
    FILE *f;
    q->head = r->head;
    if (!q->head && !(r->mlen == 3 && memcmp(r->method, "GET", 3) == 0)) {
        answer(q, 405, "text/plain", "", 0);
        return;
    }
#define IS(p) (plen == sizeof(p) - 1 && memcmp(r->path, p, plen) == 0)
    if ((f = open_memstream(&body, &blen)) == NULL)
        return;
    pthread_mutex_lock(&m->mu);
    if (IS("/metrics")) {
        /* OpenMetrics unless the scraper asks only for the old text format. */
        int om;
        accept_value(q->req, hl, acc, sizeof(acc));
        om = strstr(acc, "application/openmetrics-text") != NULL || strstr(acc, "text/plain") == NULL;
        expose(m, f, om);
        pthread_mutex_unlock(&m->mu);
        fclose(f);
        answer(q, 200, om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                          : "text/plain; version=0.0.4; charset=utf-8", body, blen);
    } else if (IS("/snapshot.json")) {
        snapshot_json(m, f);
        pthread_mutex_unlock(&m->mu);
        fclose(f);
        answer(q, 200, "application/json", body, blen);
    } else if (IS("/chart.svg")) {
        charts(m, f);
        pthread_mutex_unlock(&m->mu);
        fclose(f);
        answer(q, 200, "image/svg+xml", body, blen);
    } else if (IS("/report.html") && m->done) {
        fwrite(m->final_html, 1, m->final_len, f);
        pthread_mutex_unlock(&m->mu);
        fclose(f);
        answer(q, 200, "text/html; charset=utf-8", body, blen);
    } else if (IS("/")) {
        pthread_mutex_unlock(&m->mu);
        fputs(PAGE, f);
        fclose(f);
        answer(q, 200, "text/html; charset=utf-8", body, blen);
    } else {
        pthread_mutex_unlock(&m->mu);
        fprintf(f, "rafale: GET /metrics (OpenMetrics) or /snapshot.json\n");
        fclose(f);
        answer(q, 404, "text/plain", body, blen);
    }
#undef IS
    free(body);
}

/* What q has read so far, read as `rafale serve` reads a request head
 * (http_req.c, strict RFC 9112): a whole head answered; one that cannot be
 * a request (a TLS ClientHello, binary, a NUL: refused on its first bytes)
 * answered at once with the status the parser says (400, 501, 505); one
 * past REQ_MAX a 414 (its first line) or 431. Returns 0 to wait for more, 1
 * when answered (q->out NULL: no memory). */
static int take(struct metrics *m, struct pending *q)
{
    /* (http_req_parse sets both when it refuses; set here too for gcc's
     * -flto, which cannot always tell.) */
    const char *why = "bad request";
    int status = 400;
    /* (a body is not read: its length does not matter) */
    ssize_t hl = http_req_parse(q->req, q->n, UINT64_MAX, &q->hr, &status, &why);
    if (hl >= 0)
        serve_one(m, q, (size_t)hl);
    else if (hl == -1)
        answer(q, status, "text/plain", "", 0);
    else if (q->n == REQ_MAX - 1)
        answer(q, q->hr.line_done ? 431 : 414, "text/plain", "", 0);
    else
        return 0;
    return 1;
}

/* A client's turn, when poll says it may go on: its request read, its
 * answer sent, then (our side shut) what it still sends read and dropped
 * until it closes: a close with unread bytes would be a reset, which may
 * take the answer from it (RFC 9112 section 9.6). Returns 0 to keep it,
 * -1 to drop it. */
static int turn(struct metrics *m, struct pending *q)
{
    ssize_t r;
    if (q->draining) {
        char sink[4096];
        r = recv(q->fd, sink, sizeof(sink), 0);
        return r > 0 || (r < 0 && (errno == EAGAIN || errno == EINTR)) ? 0 : -1;
    }
    if (q->out == NULL) {
        r = recv(q->fd, q->req + q->n, REQ_MAX - 1 - q->n, 0);
        if (r > 0)
            q->n += (size_t)r;
        q->req[q->n] = '\0';
        if (r <= 0 || !take(m, q))
            return r > 0 || (r < 0 && (errno == EAGAIN || errno == EINTR)) ? 0 : -1;
        if (q->out == NULL)
            return -1; /* no memory for its answer */
    }
    switch (send_some(q)) {
    case 0:
        return 0;
    case 1:
        shutdown(q->fd, SHUT_WR);
        q->draining = 1;
        return 0;
    default:
        return -1;
    }
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A slot for a client waiting to be accepted when all are taken: the
 * longest held of those still without a whole request or already
 * answered, and held for GRACE_MS at least (a silent crowd does not keep a
 * scraper out, nor does a crowd coming after it take its slot before its
 * request came; one being sent its answer keeps its slot). -1 when none
 * may give way. */
#define GRACE_MS 100
static int give_way(const struct pending *pd, uint64_t now)
{
    int k, v = -1;
    for (k = 0; k < MAX_PENDING; k++)
        if ((pd[k].out == NULL || pd[k].draining) && pd[k].deadline_ms - HOLD_MS + GRACE_MS <= now &&
            (v < 0 || pd[k].deadline_ms < pd[v].deadline_ms))
            v = k;
    return v;
}

static void *metrics_main(void *arg)
{
    struct metrics *m = arg;
    struct pending *pd = calloc(MAX_PENDING, sizeof(*pd));
    int k;
    if (pd == NULL)
        return NULL;
    for (k = 0; k < MAX_PENDING; k++)
        pd[k].fd = -1;
    while (!atomic_load(&m->stop)) {
        struct pollfd p[MAX_PENDING + 1];
        int np = 0, idx[MAX_PENDING + 1], free_slot = -1, full;
        uint64_t t;
        for (k = 0; k < MAX_PENDING; k++)
            if (pd[k].fd >= 0) {
                p[np].fd = pd[k].fd;
                p[np].events = pd[k].out && !pd[k].draining ? POLLOUT : POLLIN;
                idx[np++] = k;
            } else if (free_slot < 0) {
                free_slot = k;
            }
        full = free_slot < 0;
        if (full)
            free_slot = give_way(pd, now_ms());
        if (free_slot >= 0) {
            p[np].fd = m->fd;
            p[np].events = POLLIN;
            idx[np++] = -1;
        }
        if (poll(p, (nfds_t)np, full ? GRACE_MS / 2 : 200) < 0)
            continue;
        t = now_ms();
        for (k = 0; k < np; k++) {
            if (!(p[k].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR)))
                continue;
            if (idx[k] < 0) {
                struct pending *q = &pd[free_slot];
                int c;
                if (q->fd >= 0 && q->out && !q->draining)
                    continue; /* its request came meanwhile: it keeps its slot */
                if ((c = accept4(m->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0)
                    continue;
                if (q->fd >= 0)
                    drop(q);
                memset(q, 0, offsetof(struct pending, req));
                q->fd = c;
                q->deadline_ms = t + HOLD_MS;
                if (turn(m, q) != 0) /* its request already in, answered before another may take its slot */
                    drop(q);
                continue;
            }
            if (turn(m, &pd[idx[k]]) != 0)
                drop(&pd[idx[k]]); /* a client gone, or no memory for its answer */
        }
        for (k = 0; k < MAX_PENDING; k++)
            if (pd[k].fd >= 0 && t > pd[k].deadline_ms)
                drop(&pd[k]); /* 2 s and no whole request, or an answer not taken: dropped */
    }
    for (k = 0; k < MAX_PENDING; k++)
        if (pd[k].fd >= 0)
            drop(&pd[k]);
    free(pd);
    return NULL;
}

int metrics_start(const struct config *cfg, struct metrics **out, char *err, size_t errlen)
{
    const char *spec = cfg->metrics_listen, *colon = strrchr(spec, ':');
    struct net_addr a;
    struct metrics *m;
    char host[256], why[300];
    unsigned long port;
    char *end;
    uint32_t i;
    if (colon == NULL || (size_t)(colon - spec) >= sizeof(host) ||
        (port = strtoul(colon + 1, &end, 10)) > 65535 || *end || end == colon + 1) {
        err_set(err, errlen, NULL, "--metrics-listen wants ADDR:PORT, such as 127.0.0.1:9464, not '%s'", spec);
        return -1;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    } else if (strchr(host, ':')) {
        /* "::1:9464": where the address ends is a guess (RFC 3986 section 3.2.2). */
        err_set(err, errlen, NULL, "--metrics-listen wants an IPv6 address in brackets, such as [::1]:9464, not '%s'",
                spec);
        return -1;
    }
    if (net_resolve(host[0] ? host : "127.0.0.1", (uint16_t)port, &a, why, sizeof(why)) != 0) {
        err_set(err, errlen, NULL, "--metrics-listen %s: %s", spec, why);
        return -1;
    }
    if (!is_loopback(&a) && !cfg->metrics_public) {
        err_set(err, errlen, NULL,
                "--metrics-listen %s is not a loopback address: anyone who reaches it reads the figures; "
                "add --metrics-public to mean it",
                spec);
        return -1;
    }
    if ((m = calloc(1, sizeof(*m))) == NULL || hist_init_bits(&m->live.latency, 5) != 0) {
        free(m);
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    {
        /* Without SO_REUSEPORT: a port another program listens on is in use. */
        int one = 1;
        m->fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (m->fd < 0 || setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
            bind(m->fd, (const struct sockaddr *)&a.ss, a.len) != 0 || listen(m->fd, 64) != 0) {
            /* (errno of the call that failed; close keeps it) */
            err_set(err, errlen, NULL, "--metrics-listen %s: %s", spec, strerror(errno));
            if (m->fd >= 0)
                close(m->fd);
            hist_fini(&m->live.latency);
            free(m);
            return -1;
        }
        a.len = sizeof(a.ss);
        if (port == 0 && getsockname(m->fd, (struct sockaddr *)&a.ss, &a.len) == 0)
            net_addr_str(&a, m->picked, sizeof(m->picked));
    }
    for (i = 0; i < cfg->ntargets && i <= ENGINE_LIVE_FIGS; i++) {
        const char *name = i == ENGINE_LIVE_FIGS ? "other"
                           : cfg->targets && cfg->targets[i].name ? cfg->targets[i].name : cfg->url_text[i];
        if ((m->labels[i] = label(name)) == NULL)
            break;
        m->nlabels = i + 1;
    }
    m->srv_first = -1;
    m->linger_ns = cfg->metrics_linger_ns;
    for (i = 0; i < PT__COUNT; i++)
        if ((m->pt[i] = calloc(SERIES_MAX, sizeof(double))) == NULL)
            break; /* no live charts: pt[PT__COUNT - 1] is NULL */
    pthread_mutex_init(&m->mu, NULL);
    if (pthread_create(&m->thread, NULL, metrics_main, m) != 0) {
        err_set(err, errlen, NULL, "--metrics-listen: cannot start its thread");
        metrics_stop(m, NULL);
        return -1;
    }
    *out = m;
    return 0;
}

const char *metrics_picked(const struct metrics *m)
{
    return m->picked[0] ? m->picked : NULL;
}

void metrics_publish(struct metrics *m, const struct engine_live *live, const struct monitor_live *server)
{
    struct hist keep;
    pthread_mutex_lock(&m->mu);
    keep = m->live.latency;
    m->live = *live;
    m->live.latency = keep;
    hist_reset(&m->live.latency);
    hist_merge(&m->live.latency, &live->latency);
    m->have = 1;
    if (server) {
        m->server = *server;
        m->have_server = 1;
    }
    /* A point a second for the live page's charts, from the seconds every
     * thread has closed: counts sampled at the moment of the look halved
     * one second and doubled the next when a thread closed its second just
     * after the look. The last second may be partial: its own length. */
    if (live->closed_s > m->last_sec && m->npts < SERIES_MAX && m->pt[PT__COUNT - 1]) {
        double end = live->elapsed_s > 0 && live->elapsed_s < live->closed_s ? live->elapsed_s : live->closed_s;
        double span = end - (double)m->last_sec, dt = live->elapsed_s - m->last_t;
        double per = dt > 0 ? dt : 1; /* the server's CPU: over the time since its last sample */
        uint32_t k = m->npts;
        if (span <= 0)
            span = 1;
        m->pt[PT_T][k] = end;
        m->pt[PT_RPS][k] = (double)(live->closed_req - m->last_req) / span;
        m->pt[PT_ERR][k] = (double)(live->closed_err - m->last_err) / span;
        m->pt[PT_P50][k] = hist_percentile(&live->latency, 50) / 1e6;
        m->pt[PT_P99][k] = hist_percentile(&live->latency, 99) / 1e6;
        m->pt[PT_INFLIGHT][k] = (double)(live->started - live->ended);
        if (server && server->ok) {
            double cpu = server->cpu_s - m->last_cpu_s;
            /* The first sample's CPU may cover more than this second: its
             * share is drawn from the next point on. */
            if (m->srv_first < 0)
                m->srv_first = (int)k + 1;
            m->pt[PT_SCPU][k] = server->cpus > 0 && cpu > 0 ? 100 * cpu / per / server->cpus : 0;
            m->pt[PT_SMEM][k] = (double)(server->has_alone ? server->alone_bytes
                                         : server->has_pss ? server->pss_bytes : server->rss_bytes) / 1048576.0;
            m->last_cpu_s = server->cpu_s;
        }
        m->npts++;
        m->last_t = live->elapsed_s;
        m->last_sec = live->closed_s;
        m->last_req = live->closed_req;
        m->last_err = live->closed_err;
    }
    pthread_mutex_unlock(&m->mu);
}

void metrics_final(struct metrics *m, const char *html, size_t len)
{
    char *copy = malloc(len ? len : 1);
    if (copy == NULL)
        return;
    memcpy(copy, html, len);
    pthread_mutex_lock(&m->mu);
    free(m->final_html);
    m->final_html = copy;
    m->final_len = len;
    m->done = 1;
    pthread_mutex_unlock(&m->mu);
}

void metrics_stop(struct metrics *m, const atomic_int *stop)
{
    uint32_t i;
    if (m == NULL)
        return;
    /* Only when asked (--metrics-linger): the run's exit never waits for a
     * browser's next poll. A Ctrl-C ends the linger; after a run that one
     * stopped, the handler is gone and a second one ends rafale. */
    if (m->done && m->thread && m->linger_ns && stop) {
        uint64_t end = now_ms() + m->linger_ns / 1000000;
        int was = atomic_load(stop);
        char d[32];
        /* Said even with -q: after the report, a silent wait looks hung. */
        fprintf(stderr, "rafale: the metrics port stays open %s more (--metrics-linger): %s ends it\n",
                units_fmt_ns(d, sizeof(d), (double)m->linger_ns), was ? "a second Ctrl-C" : "Ctrl-C");
        while (now_ms() < end && (was || !atomic_load(stop))) {
            struct timespec ts = { 0, 50 * 1000000L };
            nanosleep(&ts, NULL);
        }
    }
    atomic_store(&m->stop, 1);
    if (m->thread)
        pthread_join(m->thread, NULL);
    free(m->final_html);
    for (i = 0; i < PT__COUNT; i++)
        free(m->pt[i]);
    close(m->fd);
    for (i = 0; i < m->nlabels; i++)
        free(m->labels[i]);
    hist_fini(&m->live.latency);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
