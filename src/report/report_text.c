/* report_text.c - the report a person reads at the end of a run. */
#include "report.h"
#include "text.h"
#include "units.h"

#include <math.h>
#include <string.h>


/* s as a terminal may show it (text_scrub: a name or a check from a file),
 * into buf. */
static const char *shown(const char *s, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "%s", s);
    text_scrub(buf, k < n ? k : n - 1, 1);
    return buf;
}

void report_put_col(FILE *f, const char *text, size_t w)
{
    char buf[1200];
    const char *s = shown(text, buf, sizeof(buf));
    size_t b = 0, chars = 0;
    while (s[b] && chars < w) {
        b++;
        while (((unsigned char)s[b] & 0xC0) == 0x80)
            b++;
        chars++;
    }
    fprintf(f, "%.*s%*s", (int)b, s, (int)(w - chars), "");
}

size_t report_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

const char *report_method(const struct config *cfg, uint32_t i)
{
    if (cfg->targets && i < cfg->ntargets && cfg->targets[i].own && cfg->targets[i].method)
        return cfg->targets[i].method;
    return cfg->method;
}

const char *report_label(const struct config *cfg, uint32_t i, char *buf, size_t n)
{
    const struct target *t = cfg->targets && i < cfg->ntargets ? &cfg->targets[i] : NULL;
    if (report_is_other(cfg, i)) {
        snprintf(buf, n, "(%u other targets)", cfg->ntargets - FIGURES_TARGETS);
        return buf;
    }
    if (t && t->name)
        return t->name;
    if (t && t->own) {
        snprintf(buf, n, "%s %s", report_method(cfg, i), cfg->url_text[i]);
        return buf;
    }
    return cfg->url_text[i];
}

/* --stages: each stage's target, what was sent and how it went. */
static void stages_block(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    uint64_t t0 = 0;
    uint32_t k;
    const char *unit = cfg->stages_conns ? "conns" : "req/s";
    fprintf(f, "\nStages          from -> to %-6s     sent  completed   errors      p50      p99      max\n", unit);
    for (k = 0; k < r->nstages && k < cfg->nstages; k++) {
        const struct stats *g = &r->per_stage[k];
        char p50[32], p99[32], mx[32], span[48];
        double from = k ? cfg->stage_val[k - 1] : cfg->stage_start;
        snprintf(span, sizeof(span), "%g-%gs", (double)t0 / 1e9, (double)(t0 + cfg->stage_dur[k]) / 1e9);
        t0 += cfg->stage_dur[k];
        fprintf(f, "  %-12s %7.0f -> %-7.0f     %9llu  %9llu %8llu %8s %8s %8s\n", span, from, cfg->stage_val[k],
                (unsigned long long)g->started, (unsigned long long)g->completed,
                (unsigned long long)stats_errors(g), units_fmt_ns(p50, sizeof(p50), hist_percentile(&g->h[H_LATENCY], 50)),
                units_fmt_ns(p99, sizeof(p99), hist_percentile(&g->h[H_LATENCY], 99)),
                units_fmt_ns(mx, sizeof(mx), (double)g->h[H_LATENCY].max));
    }
    if (!cfg->stages_conns)
        fprintf(f, "  (latency from when each request was due on the ramped schedule: coordinated omission corrected)\n");
}

/* HTTP/2 or HTTP/3: what header compression (HPACK, QPACK) saved, and
 * HTTP/2's requests sent again (HTTP/3's go under QUIC). */
static void headers_line(FILE *f, const struct stats *s, const struct proto *p)
{
    char w[32], d[32];
    int h3 = p->figures == COUNTERS_IN_HTTP3;
    uint64_t wire = h3 ? s->h3_hdr_wire : s->h2_hdr_wire, dec = h3 ? s->h3_hdr_decoded : s->h2_hdr_decoded;
    fprintf(f, "\n%-13s response headers %s on the wire, %s decoded", p->label,
            units_fmt_bytes(w, sizeof(w), (double)wire), units_fmt_bytes(d, sizeof(d), (double)dec));
    if (dec)
        fprintf(f, " (%s saved %.1f%%)", p->codec, 100.0 * (1.0 - (double)wire / (double)dec));
    if (s->h2_retried && !h3)
        fprintf(f, "\n              %llu times a request was refused unprocessed (GOAWAY or REFUSED_STREAM) and sent "
                   "again on another connection", (unsigned long long)s->h2_retried);
}

static void quic_line(FILE *f, const struct stats *s)
{
    char a[32], b[32];
    fprintf(f, "\nQUIC          %llu packets sent, %llu received, %llu lost", (unsigned long long)s->quic_sent,
            (unsigned long long)s->quic_recv, (unsigned long long)s->quic_lost);
    if (s->quic_conns)
        fprintf(f, "; RTT %s smoothed (mean of %llu connection%s), %s least",
                units_fmt_ns(a, sizeof(a), (double)s->quic_srtt_sum_ns / (double)s->quic_conns),
                (unsigned long long)s->quic_conns, s->quic_conns == 1 ? "" : "s",
                units_fmt_ns(b, sizeof(b), (double)s->quic_min_rtt_ns));
    if (s->quic_early + s->quic_early_rejected)
        fprintf(f, "\n              0-RTT: %llu connections sent their requests early, the server took them on %llu",
                (unsigned long long)(s->quic_early + s->quic_early_rejected), (unsigned long long)s->quic_early);
    if (s->h3_retried)
        fprintf(f, "\n              %llu times a request was refused unprocessed (GOAWAY or H3_REQUEST_REJECTED) and "
                   "sent again on another connection", (unsigned long long)s->h3_retried);
}

/* The header over lat_row's columns, its percentiles from the names table. */
static void lat_header(FILE *f)
{
    int i;
    fprintf(f, "\nLatency    %8s %8s %8s", "min", "mean", "stdev");
    for (i = 0; i < REPORT_NPCTS; i++) {
        char b[16];
        snprintf(b, sizeof(b), "p%s", report_pct_names[i]);
        fprintf(f, " %8s", b);
    }
    fprintf(f, " %8s\n", "max");
}

static void lat_row(FILE *f, const char *name, const struct hist *h)
{
    char b[32];
    double v[REPORT_NPCTS];
    int i;
    fprintf(f, "  %-8s", name);
    if (h->total == 0) {
        fprintf(f, "  (none)\n");
        return;
    }
    fprintf(f, " %8s", units_fmt_ns(b, sizeof(b), (double)h->min));
    fprintf(f, " %8s", units_fmt_ns(b, sizeof(b), hist_mean(h)));
    fprintf(f, " %8s", units_fmt_ns(b, sizeof(b), hist_stdev(h)));
    hist_percentiles(h, report_pcts, REPORT_NPCTS, v);
    for (i = 0; i < REPORT_NPCTS; i++)
        fprintf(f, " %8s", units_fmt_ns(b, sizeof(b), v[i]));
    fprintf(f, " %8s\n", units_fmt_ns(b, sizeof(b), (double)h->max));
}

/* --precision's line: reached or not, when, and how wide each figure's
 * interval came out against its goal. Nothing without --precision. */
static void precision_line(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    const struct precision *p = &cfg->precision;
    int i, met = 1;
    if (p->n == 0)
        return;
    for (i = 0; i < p->n; i++)
        met &= precision_width(report_ci_of(&r->ci, &p->g[i])) <= p->g[i].rel;
    /* The watch judged the batches closed then; the report's intervals take
     * every answer, the last partial tick's and those in flight at the stop
     * too, and may be a little wider: said so, not "reached". */
    if (r->precise_at_s > 0 && met)
        fprintf(f, "Precision     reached at %.1fs, the run stopped there:", r->precise_at_s);
    else if (r->precise_at_s > 0)
        fprintf(f, "Precision     met at %.1fs by the answers then, the run stopped there; with every answer:",
                r->precise_at_s);
    else
        fprintf(f, "Precision     %s in %.1fs:", met ? "reached at the end" : "not reached", r->elapsed_s);
    for (i = 0; i < p->n; i++) {
        double w = precision_width(report_ci_of(&r->ci, &p->g[i]));
        if (isinf(w))
            fprintf(f, "%s %s unbounded (goal %g%%)", i ? "," : "", p->g[i].name, p->g[i].rel * 100);
        else
            fprintf(f, "%s %s +-%.1f%% (goal %g%%)", i ? "," : "", p->g[i].name, w * 100, p->g[i].rel * 100);
    }
    fputc('\n', f);
}

/* The total's 95% interval, a side a row under its figure (mean and the
 * percentiles): "?" where the run cannot give it. */
static void ci_row(FILE *f, const char *name, const struct run_ci *ci, int hi)
{
    char b[32];
    int i;
    fprintf(f, "  %-8s %8s", name, "");
    fprintf(f, " %8s", units_fmt_ns(b, sizeof(b), hi ? ci->mean.hi : ci->mean.lo));
    fprintf(f, " %8s", "");
    for (i = 0; i < REPORT_NPCTS; i++) {
        double v = hi ? ci->pct[i].hi : ci->pct[i].lo;
        fprintf(f, " %8s", isnan(v) ? "?" : units_fmt_ns(b, sizeof(b), v));
    }
    fputc('\n', f);
}

static void ci_rows(FILE *f, const struct run_figures *r)
{
    char b[32];
    if (r->ci.batches == 0 || r->total.h[H_LATENCY].total == 0)
        return;
    ci_row(f, "95% low", &r->ci, 0);
    ci_row(f, "95% high", &r->ci, 1);
    fprintf(f, "  (95%% low, high: the interval from this run's own %u batches of %s: its sampling, not the drift\n"
               "   between runs; ?: too few samples to bound it)\n",
            r->ci.batches, units_fmt_ns(b, sizeof(b), r->ci.batch_s * 1e9));
}

/* Ten log-spaced bins between the fastest and the slowest request. */
int report_hist_rows(FILE *f, const struct hist *h, int nbins, int width, const char *in)
{
    uint64_t bins[32] = { 0 }, most = 0;
    double lo = (double)h->min, hi = (double)h->max, step;
    struct hist_iter it;
    int b;

    if (nbins > 32)
        nbins = 32;
    if (width > 200)
        width = 200;
    if (h->total == 0 || nbins < 1)
        return 0;
    if (lo < 1)
        lo = 1;
    if (hi <= lo * 1.0001)
        return 0;
    step = log(hi / lo) / nbins;
    for (hist_iter_init(&it, h); hist_iter_next(&it);) {
        double mid = ((double)it.lo + (double)it.hi) / 2;
        if (mid < lo)
            mid = lo;
        b = (int)(log(mid / lo) / step);
        if (b >= nbins)
            b = nbins - 1;
        if (b < 0)
            b = 0;
        bins[b] += it.count;
    }
    for (b = 0; b < nbins; b++)
        if (bins[b] > most)
            most = bins[b];
    for (b = 0; b < nbins; b++) {
        char s1[32], s2[32], bar[201];
        int w = most ? (int)((double)bins[b] * width / (double)most + 0.5) : 0;
        if (w == 0 && bins[b] > 0)
            w = 1;
        memset(bar, '#', (size_t)w);
        bar[w] = '\0';
        fprintf(f, "%s%8s - %-8s %-*s %6.2f%%  %llu\n", in, units_fmt_ns(s1, sizeof(s1), lo * exp(step * b)),
                units_fmt_ns(s2, sizeof(s2), lo * exp(step * (b + 1))), width, bar,
                100.0 * (double)bins[b] / (double)h->total, (unsigned long long)bins[b]);
    }
    return nbins;
}

static void text_histogram(FILE *f, const struct hist *h)
{
    if (h->total == 0)
        return;
    if ((double)h->max <= ((double)h->min < 1 ? 1 : (double)h->min) * 1.0001) {
        char s[32];
        fprintf(f, "\nLatency distribution: all %llu requests took %s\n", (unsigned long long)h->total,
                units_fmt_ns(s, sizeof(s), (double)h->max));
        return;
    }
    fprintf(f, "\nLatency distribution (total)\n");
    report_hist_rows(f, h, 10, 40, "  ");
}

/* Why the server ended keep-alive connections, when it did: a server that
 * closes after every response measures new connections, not keep-alive.
 * Answers nobody asked for (a second answer to one request) are said apart,
 * as a warning: they were credited to no request. */
static void closes_line(FILE *f, const struct config *cfg, const struct stats *s)
{
    /* Faulty framing is counted with the server's closes (its answers
     * ended keep-alive) but rafale closed those connections: said apart. */
    uint64_t framing = s->closes[CLOSE_FRAMING], after = stats_server_closes(s) - framing;
    uint64_t idle = s->closes[CLOSE_IDLE] + s->closes[CLOSE_IDLE_408];
    int k, any = 0;
    if (!cfg->keepalive)
        return;
    if (after || idle) {
        fprintf(f, "\n              closed by the server: ");
        if (after)
            fprintf(f, "%llu after a response (", (unsigned long long)after);
        for (k = 0; k < CLOSE_IDLE; k++)
            if (s->closes[k] && k != CLOSE_FRAMING) {
                fprintf(f, "%s%llu: %s", any ? ", " : "", (unsigned long long)s->closes[k],
                        stats_close_explain((enum close_kind)k));
                any = 1;
            }
        if (after)
            fprintf(f, ")");
        if (idle) {
            fprintf(f, "%s%llu while idle", after ? "; " : "", (unsigned long long)idle);
            if (s->closes[CLOSE_IDLE_408] == 0)
                fprintf(f, ", without a word");
            else if (s->closes[CLOSE_IDLE] == 0)
                fprintf(f, ", after a 408 Request Timeout");
            else
                fprintf(f, " (%llu after a 408 Request Timeout)", (unsigned long long)s->closes[CLOSE_IDLE_408]);
        }
    }
    if (s->closes[CLOSE_UNSOLICITED])
        fprintf(f, "\nUnsolicited   %llu times the server %s: credited to no request, the connection closed by rafale",
                (unsigned long long)s->closes[CLOSE_UNSOLICITED], stats_close_explain(CLOSE_UNSOLICITED));
    if (framing)
        fprintf(f, "\nFraming       %llu answers had Transfer-Encoding with Content-Length, or in HTTP/1.0 (RFC 9112\n"
                   "              sections 6.1, 6.3): faulty framing, not reused, their connections closed by rafale",
                (unsigned long long)framing);
    if (s->completed >= 10 && (after + framing) * 10 >= s->completed * 9)
        fprintf(f, "\nKeep-alive    refused by the server: nearly every request went on a new connection,\n"
                   "              so this measured new connections, not keep-alive");
}

void report_status_line(FILE *f, const struct stats *s)
{
    int i, any = 0;
    fprintf(f, "Status codes");
    for (i = 0; i < STATUS_MAX; i++) {
        if (s->status[i] == 0)
            continue;
        fprintf(f, "%s%d: %llu", any ? ", " : "  ", i, (unsigned long long)s->status[i]);
        any = 1;
    }
    fprintf(f, "%s\n", any ? "" : "  none");
}

void report_bad_status_line(FILE *f, const struct config *cfg, const struct stats *s)
{
    unsigned i;
    int n = 0;
    if (s->bad_status == 0)
        return;
    fprintf(f, "Bad status    %llu (%.2f%% of responses) outside the expected %s:", (unsigned long long)s->bad_status,
            s->completed ? 100.0 * (double)s->bad_status / (double)s->completed : 0.0, cfg->expect.text);
    for (i = 0; i < STATUS_MAX && n < 8; i++)
        if (s->status[i] && !status_set_has(&cfg->expect, i))
            fprintf(f, "%s %u", n++ ? "," : "", i);
    fprintf(f, "%s\n", s->completed && s->bad_status * 2 > s->completed
                           ? "\n              most answers were failures: the throughput above is not a valid result"
                           : "");
}

static void errors_block(FILE *f, const struct stats *s, uint64_t ended, const struct proto *p)
{
    uint64_t n = stats_errors(s);
    int k;
    if (s->reconnects_delayed) {
        fprintf(f, "Reconnects    %llu waited after a failed connect (4ms, doubling up to 1s per connection, from 4ms "
                   "again once it is up), rather than flood a server that could not take them\n",
                (unsigned long long)s->reconnects_delayed);
        if (s->failed_waiting)
            fprintf(f, "              %llu requests due while every connection waited ended at once with the error "
                       "of the last connect, never sent\n", (unsigned long long)s->failed_waiting);
    }
    if (n == 0) {
        fprintf(f, "Errors        none\n");
        return;
    }
    fprintf(f, "Errors        %llu (%.2f%% of requests ended)\n", (unsigned long long)n,
            ended ? 100.0 * (double)n / (double)ended : 0.0);
    for (k = 0; k < ERR__COUNT; k++) {
        if (s->errors[k] == 0)
            continue;
        const char *first = stats_err_first(s, (enum err_kind)k);
        fprintf(f, "  %-17s %8llu  %s", stats_err_name((enum err_kind)k), (unsigned long long)s->errors[k],
                stats_err_explain((enum err_kind)k, p));
        if (first)
            fprintf(f, " (first: %s)", first);
        fputc('\n', f);
    }
}

/* Rate mode: target against achieved, how late the sender was, and why a
 * shortfall happened, so a slow server is not mistaken for a slow client.
 * A replay (no rate, the log's times): how late it sent only. */
static void rate_block(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    const struct stats *s = &r->total;
    double el = r->elapsed_s > 0 ? r->elapsed_s : 1e-9;
    double achieved = (double)stats_sent(s) / el, ratio = r->target_rate > 0 ? achieved / r->target_rate : 1;
    double cpu_share = r->client_cpu_s / (el * cfg->threads);
    char l50[32], l99[32], lmax[32];

    if (r->target_rate > 0)
        fprintf(f, "Rate          target %.1f req/s, sent %.1f req/s (%.1f%%)%s\n", r->target_rate, achieved, 100 * ratio,
                cfg->poisson ? ", Poisson arrivals" : "");
    if (s->h[H_LAG].total)
        fprintf(f, "Send lag      p50 %s, p99 %s, max %s behind the schedule\n", units_fmt_ns(l50, sizeof(l50), hist_percentile(&s->h[H_LAG], 50)),
                units_fmt_ns(l99, sizeof(l99), hist_percentile(&s->h[H_LAG], 99)), units_fmt_ns(lmax, sizeof(lmax), (double)s->h[H_LAG].max));
    if (r->target_rate <= 0)
        return;
    if (r->extra_connections)
        fprintf(f, "Extra         %u connections opened beyond -c %u because the schedule fell behind (--max-connections)\n",
                r->extra_connections, cfg->connections);
    if (r->queued)
        fprintf(f, "Not sent      %llu requests were due but found no free connection before the end\n",
                (unsigned long long)r->queued);
    if (ratio >= 0.99 && hist_percentile(&s->h[H_LAG], 99) > 10e6) {
        fprintf(f, "Why           the rate was kept overall, but requests waited up to %s for a free connection:\n"
                   "              the server stalled at times (slowest response %s); 'total' counts the wait\n",
                lmax, units_fmt_ns(l50, sizeof(l50), (double)s->h[H_LATENCY_UNC].max));
    } else if (ratio < 0.99) {
        if (s->reconnects_delayed)
            fprintf(f, "Why           connects failed and their connections waited to connect again (Reconnects "
                       "below):\n              too few were up to send at this rate\n");
        else if (cpu_share > 0.9)
            fprintf(f, "Why           rafale's own CPU was saturated (%.0f%% of %u thread%s): add threads (-t) or cores;\n"
                       "              the server was not the limit\n", 100 * cpu_share, cfg->threads,
                    cfg->threads == 1 ? "" : "s");
        else
            fprintf(f, "Why           all %u connections were busy waiting for the server: it answered too slowly\n"
                       "              for this rate (needs about rate x latency = %.0f connections; raise -c)\n",
                    cfg->connections, r->target_rate * hist_mean(&s->h[H_LATENCY_UNC]) / 1e9 + 1);
    }
}

/* A merged result's shards, one line each; a shard whose own CPU was busy
 * (>= 90% of its threads) may have held the load back. */
static void shards_block(FILE *f, const struct run_figures *r)
{
    uint32_t i;
    size_t w = 4;
    for (i = 0; i < r->nshards; i++)
        if (strlen(r->shards[i].host) > w)
            w = strlen(r->shards[i].host);
    fprintf(f, "\nShard  %-*s %10s %8s %11s %8s %11s %6s\n", (int)w, "host", "requests", "errors", "req/s", "p99",
            "client CPU", "late");
    for (i = 0; i < r->nshards; i++) {
        const struct shard_info *sh = &r->shards[i];
        char p99[32];
        double busy = sh->elapsed_s > 0 && sh->threads ? sh->client_cpu_s / sh->elapsed_s / sh->threads : 0;
        fprintf(f, "  %3u  %-*s %10llu %8llu %11.1f %8s %10.2fs %5.2fs%s\n", sh->index, (int)w, sh->host,
                (unsigned long long)sh->completed, (unsigned long long)sh->errors,
                sh->elapsed_s > 0 ? (double)sh->completed / sh->elapsed_s : 0.0,
                units_fmt_ns(p99, sizeof(p99), sh->p99_ns), sh->client_cpu_s, sh->late_s,
                busy >= 0.9 ? "  CPU-bound: its own CPU was the bottleneck" : "");
    }
}

/* What was asked: the first lines, before any figure. */
void report_setup_line(FILE *f, const struct config *cfg)
{
    char b1[32], b2[32];
    uint32_t i;

    if (cfg->replay_path) /* connections open as the log's concurrency needs them */
        fprintf(f, "up to %u connection%s on %u thread%s, %s", cfg->max_connections,
                cfg->max_connections == 1 ? "" : "s", cfg->threads, cfg->threads == 1 ? "" : "s",
                !cfg->keepalive ? "a new connection per request" : "keep-alive");
    else
        fprintf(f, "%u connection%s on %u thread%s, %s", cfg->connections, cfg->connections == 1 ? "" : "s",
                cfg->threads, cfg->threads == 1 ? "" : "s",
                !cfg->keepalive ? "a new connection per request" : "keep-alive");
    if (config_proto(cfg)->takes & TAKES_STREAMS)
        fprintf(f, ", %s (%u stream%s per connection)", config_proto(cfg)->title, config_depth(cfg),
                config_depth(cfg) > 1 ? "s" : "");
    if (cfg->keepalive && cfg->requests_per_conn)
        fprintf(f, " (%llu requests per connection)", (unsigned long long)cfg->requests_per_conn);
    if (config_proto(cfg)->takes & TAKES_PIPELINE && config_depth(cfg) > 1)
        fprintf(f, ", pipelining %u", config_depth(cfg));
    if (cfg->nstages)
        fprintf(f, ", %u stages of %s", cfg->nstages, cfg->stages_conns ? "connections" : "rate");
    else if (cfg->rate > 0)
        fprintf(f, ", %.1f req/s", cfg->rate);
    if (cfg->requests)
        fprintf(f, ", %llu requests", (unsigned long long)cfg->requests);
    if (cfg->duration_ns)
        fprintf(f, ", %s at most", units_fmt_ns(b1, sizeof(b1), (double)cfg->duration_ns));
    for (i = 0; i < cfg->ntargets && cfg->targets && cfg->targets[i].own; i++)
        ;
    if (i < cfg->ntargets && !cfg->replay_path) /* some URL is sent with the run's method (a replay: the log's) */
        fprintf(f, ", %s", cfg->method);
    fprintf(f, ", timeout %s", units_fmt_ns(b2, sizeof(b2), (double)cfg->timeout_ns));
}

static void probe_line(FILE *f, const struct run_probe *p)
{
    char b[1024];
    if (*report_probe_text(p, b, sizeof(b)))
        fprintf(f, "%s\n", b);
}

static void setup_block(FILE *f, const struct config *cfg, const struct run_figures *r, const struct run_probe *p)
{
    char b1[32], b2[32], b3[32];
    uint32_t i;

    fprintf(f, "rafale: ");
    report_setup_line(f, cfg);
    fputc('\n', f);
    {
        /* Think time: the configured pause, never in the latency figures. */
        uint32_t i, own = 0;
        for (i = 0; cfg->targets && i < cfg->ntargets; i++)
            own += cfg->targets[i].has_think;
        if (cfg->think_hi_ns || own) {
            fprintf(f, "  think time: ");
            if (cfg->think_hi_ns > cfg->think_lo_ns)
                fprintf(f, "%s to %s", units_fmt_ns(b1, sizeof(b1), (double)cfg->think_lo_ns),
                        units_fmt_ns(b2, sizeof(b2), (double)cfg->think_hi_ns));
            else if (cfg->think_hi_ns)
                fprintf(f, "%s", units_fmt_ns(b1, sizeof(b1), (double)cfg->think_lo_ns));
            else
                fprintf(f, "none");
            fprintf(f, " after each answer%s (not in the latency figures)\n",
                    own ? ", # think: of its own on some targets" : "");
        }
    }
    if (cfg->replay_path && cfg->ntargets) { /* one URL, the log's paths in rows */
        fprintf(f, "  %s: the log's paths, in %u row%s (", cfg->url_text[0], cfg->ntargets, cfg->ntargets == 1 ? "" : "s");
        for (i = 0; i < cfg->ntargets; i++) {
            char nb[1200];
            const char *name = cfg->targets ? cfg->targets[i].name : NULL;
            fprintf(f, "%s%s", i ? ", " : "", name ? shown(name, nb, sizeof(nb)) : "?");
        }
        fprintf(f, ")\n");
    }
    for (i = 0; i < cfg->ntargets && !cfg->replay_path; i++) {
        const struct target *t = cfg->targets ? &cfg->targets[i] : NULL;
        char nb[1200];
        if (t && t->own)
            fprintf(f, "  %s %s%s%s%s\n", report_method(cfg, i), cfg->url_text[i], t->name ? "  (" : "",
                    t->name ? shown(t->name, nb, sizeof(nb)) : "", t->name ? ")" : "");
        else
            fprintf(f, "  %s\n", cfg->url_text[i]);
    }
    report_replay_text(f, cfg);
    if (cfg->targets_path)
        fprintf(f, "Targets from %s, %s order%s.\n", cfg->targets_path,
                cfg->order_mode == ORDER_RANDOM ? "random" : cfg->order_mode == ORDER_SESSION ? "session" : "sequential",
                cfg->norder > cfg->ntargets ? " (repeated targets weigh more)" : "");
    if (cfg->warmup_ns && r->total.carried_in)
        /* Left out, they would hold the server in the window unanswered:
         * a queueing server's throughput fell by a third. */
        fprintf(f, "Warm-up of %s not counted, but its %llu requests that ended in the measured window count "
                   "there, as every answer in it.\n",
                units_fmt_ns(b3, sizeof(b3), (double)cfg->warmup_ns), (unsigned long long)r->total.carried_in);
    else if (cfg->warmup_ns)
        fprintf(f, "Warm-up of %s not counted.\n", units_fmt_ns(b3, sizeof(b3), (double)cfg->warmup_ns));
    probe_line(f, p);
    if (r->interrupted)
        fprintf(f, "Interrupted: the figures cover the run until the signal.\n");
    if (r->shard.count) {
        fprintf(f, "Shard %u of %u (on %s): this process's share of the totals above; rafale merge joins the shards.\n",
                r->shard.index, r->shard.count, r->shard.host);
        if (r->shard.late_s > 0.001)
            fprintf(f, "Late: this shard began %.3fs after --start-at.\n", r->shard.late_s);
    }
    if (r->nshards)
        fprintf(f, "Merged from %u shards: counters summed, histograms merged bucket by bucket.\n", r->nshards);
    fputc('\n', f);
}

/* How many, how fast, over how many connections, how many bytes. */
static void summary_block(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    const struct stats *s = &r->total;
    char b1[32], b2[32], b3[32];
    double el = r->elapsed_s > 0 ? r->elapsed_s : 1e-9;

    if (r->aborted)
        fprintf(f, "Aborted       the SLO was lost %.1fs into the run: %s (--abort-on-fail); the figures are of what "
                   "ran\n", r->aborted_at_s, r->aborted_why);
    if (r->gave_up_s > 0)
        fprintf(f, "Gave up       no connection could be opened for %s (--timeout): %s; the run stopped before its "
                   "-n requests, the figures are of what ran\n",
                units_fmt_ns(b1, sizeof(b1), r->gave_up_s * 1e9), r->gave_up_why);
    fprintf(f, "Requests      %llu completed, %llu errors, %llu in flight at the end, in %.2fs\n",
            (unsigned long long)s->completed, (unsigned long long)stats_errors(s), (unsigned long long)r->in_flight,
            r->elapsed_s);
    precision_line(f, cfg, r);
    if (s->censored) {
        /* They waited at least that long: dropping them would hide the
         * slowest answers (or the ones that never came). */
        fprintf(f, "In flight     the oldest waited %s; %llu waiting longer than any answer took are in the latency "
                   "figures at their age", units_fmt_ns(b1, sizeof(b1), r->in_flight_oldest_s * 1e9),
                (unsigned long long)s->censored);
        if (s->censored_unsent)
            fprintf(f, " (%llu of them due and never sent)", (unsigned long long)s->censored_unsent);
        fputc('\n', f);
    }
    fprintf(f, "Throughput    %.1f req/s", (double)s->completed / el);
    if (!isnan(r->ci.rps.lo))
        fprintf(f, " (95%%: %.1f-%.1f)", r->ci.rps.lo, r->ci.rps.hi);
    fprintf(f, ", %s/s received, %s/s sent\n",
            units_fmt_bytes(b1, sizeof(b1), (double)s->bytes_received / el),
            units_fmt_bytes(b2, sizeof(b2), (double)s->bytes_sent / el));
    if (cfg->warmup_ns && s->conns_warmup)
        fprintf(f, "Connections   %llu opened during the warm-up, %llu after it", (unsigned long long)s->conns_warmup,
                (unsigned long long)s->conns_opened);
    else
        fprintf(f, "Connections   %llu opened", (unsigned long long)s->conns_opened);
    if (s->completed && (!cfg->keepalive || s->conns_opened * 100 > s->completed))
        fprintf(f, ", %.2f per request", (double)s->conns_opened / (double)s->completed);
    if (r->all_connected_s >= 0 && cfg->keepalive)
        fprintf(f, " (all %u connected within %s)", cfg->connections,
                units_fmt_ns(b3, sizeof(b3), r->all_connected_s * 1e9));
    closes_line(f, cfg, s);
    if (s->tls_full + s->tls_resumed)
        fprintf(f, "\nTLS           %llu handshakes: %llu full, %llu resumed", (unsigned long long)(s->tls_full + s->tls_resumed),
                (unsigned long long)s->tls_full, (unsigned long long)s->tls_resumed);
    if (config_proto(cfg)->takes & TAKES_STREAMS)
        headers_line(f, s, config_proto(cfg));
    if (s->quic_sent || s->quic_recv)
        quic_line(f, s);
    if (cfg->follow || s->redirects || s->redirects_away) {
        fprintf(f, "\nRedirects     %llu followed", (unsigned long long)s->redirects);
        if (s->completed)
            fprintf(f, " (%.2f per completed request, each chain timed as one request)",
                    (double)s->redirects / (double)s->completed);
        if (s->redirects_away)
            fprintf(f, "; %llu to another origin, not followed (the 3xx is the answer)",
                    (unsigned long long)s->redirects_away);
    }
    fprintf(f, "\nTransfer      %s received, %s sent\n", units_fmt_bytes(b1, sizeof(b1), (double)s->bytes_received),
            units_fmt_bytes(b3, sizeof(b3), (double)s->bytes_sent));
}

/* How the answers' times were taken (results saved before say nothing). */
static void stamp_note(FILE *f, const struct stats *s)
{
    if (s->stamped_kernel && !s->stamped_user)
        fprintf(f, "  (times end at the kernel's arrival of an answer; as read: when rafale read it;\n"
                   "   cl.delay: the difference, rafale's own delay, in none of the other figures)\n");
    else if (s->stamped_kernel)
        fprintf(f, "  (%llu answers timed at the kernel's arrival, %llu stamped as read in user time: their\n"
                   "   sockets gave no kernel timestamps)\n",
                (unsigned long long)s->stamped_kernel, (unsigned long long)s->stamped_user);
    else if (s->stamped_user)
        fprintf(f, "  (times end when rafale read an answer: stamped as read, in user time, rafale's own\n"
                   "   delay included)\n");
}

/* The latency table, what its rows mean, and the distribution. */
static void latency_block(FILE *f, const struct run_figures *r)
{
    const struct stats *s = &r->total;
    lat_header(f);
    lat_row(f, "connect", &s->h[H_CONNECT]);
    if (s->h[H_TLS].total)
        lat_row(f, "tls", &s->h[H_TLS]);
    lat_row(f, "ttfb", &s->h[H_TTFB]);
    if (s->h[H_TRANSFER].total)
        lat_row(f, "transfer", &s->h[H_TRANSFER]);
    lat_row(f, "total", &s->h[H_LATENCY]);
    ci_rows(f, r);
    if (s->h[H_CLIENT_DELAY].total) {
        lat_row(f, "as read", &s->h[H_LATENCY_USER]);
        lat_row(f, "cl.delay", &s->h[H_CLIENT_DELAY]);
    }
    stamp_note(f, s);
    if (r->target_rate > 0 || s->h[H_LAG].total) { /* open loop: -R, or a replayed log's times */
        lat_row(f, "uncorr.", &s->h[H_LATENCY_UNC]);
        fprintf(f, "  (total: from when each request was due on the schedule, so waiting for a free connection\n"
                   "   counts; uncorr.: from when it was actually sent, as closed-loop tools report it;\n"
                   "   connect: %s handshakes; ttfb: from the send; transfer: first byte to last)\n",
                s->quic_sent ? "QUIC" : "TCP");
    } else {
        fprintf(f, "  (connect: %s handshakes; ttfb and total: from the start of a request, its connect included;\n"
                   "   transfer: from the first byte of a response to its last)\n", s->quic_sent ? "QUIC" : "TCP");
    }
    text_histogram(f, &s->h[H_LATENCY]);
}

/* One row per target (or URL), when there are several. */
static void per_url_block(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    const struct stats *s = &r->total;
    double el = r->elapsed_s > 0 ? r->elapsed_s : 1e-9;
    size_t w = 10;
    char lb[600];
    uint32_t i;
    int bad;
    for (i = 0; i < r->ntargets; i++)
        if (report_chars(report_label(cfg, i, lb, sizeof(lb))) > w)
            w = report_chars(report_label(cfg, i, lb, sizeof(lb)));
    if (w > 60)
        w = 60;
    /* A column of bad statuses only when there are some: which
     * target the server refused is what a user looks for then. */
    bad = s->bad_status > 0;
    fprintf(f, "\n%s %*s %10s %8s%s %11s %8s %8s %8s\n", cfg->targets_path ? "Target " : "Per URL", (int)w - 6, "",
            "requests", "errors", bad ? "  bad status" : "", "req/s", "p50", "p99", "max");
    for (i = 0; i < r->ntargets; i++) {
        const struct stats *u = &r->per_target[i];
        char p50[32], p99[32], mx[32], bs[32] = "";
        if (bad)
            snprintf(bs, sizeof(bs), " %11llu", (unsigned long long)u->bad_status);
        fputs("  ", f);
        report_put_col(f, report_label(cfg, i, lb, sizeof(lb)), w);
        fprintf(f, " %10llu %8llu%s %11.1f %8s %8s %8s\n", (unsigned long long)u->completed, (unsigned long long)stats_errors(u), bs, (double)u->completed / el,
                units_fmt_ns(p50, sizeof(p50), hist_percentile(&u->h[H_LATENCY], 50)),
                units_fmt_ns(p99, sizeof(p99), hist_percentile(&u->h[H_LATENCY], 99)),
                units_fmt_ns(mx, sizeof(mx), (double)u->h[H_LATENCY].max));
    }
}

/* Checks: a row per target and check, with the first failure; the
 * requests not sent for want of a variable. */
static void checks_block(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    const struct stats *s = &r->total;
    uint32_t i, k;
    size_t w = 6, cw = 5;
    char lb[600];
    if (r->nchecks == 0 && s->skipped == 0 && r->parked == 0)
        return;
    if (r->nchecks) {
        for (i = 0; i < r->nchecks; i++) {
            size_t n = strlen(r->checks[i].target < cfg->ntargets ? report_label(cfg, r->checks[i].target, lb, sizeof(lb)) : "?");
            if (n > w)
                w = n > 40 ? 40 : n;
            if (strlen(r->checks[i].text) > cw)
                cw = strlen(r->checks[i].text) > 50 ? 50 : strlen(r->checks[i].text);
        }
        fprintf(f, "\nChecks        %llu of %llu checked responses failed one (%.2f%%); they stay in the latency figures\n",
                (unsigned long long)s->checks_failed, (unsigned long long)s->checked,
                s->checked ? 100.0 * (double)s->checks_failed / (double)s->checked : 0.0);
        fprintf(f, "  %-*s  %-*s %10s %10s\n", (int)w, "target", (int)cw, "check", "passed", "failed");
        for (i = 0; i < r->nchecks; i++) {
            const struct run_check *e = &r->checks[i];
            fputs("  ", f);
            report_put_col(f, e->target < cfg->ntargets ? report_label(cfg, e->target, lb, sizeof(lb)) : "?", w);
            fputs("  ", f);
            report_put_col(f, e->text, cw);
            fprintf(f, " %10llu %10llu\n", (unsigned long long)e->passed, (unsigned long long)e->failed);
            if (e->failed)
                fprintf(f, "  %-*s  first failure: %s\n", (int)w, "", e->first_failure);
        }
    }
    if (s->skipped) {
        fprintf(f, "Skipped       %llu requests not sent: a variable they need was not set (", (unsigned long long)s->skipped);
        for (k = 0, i = 0; k < r->nvars; k++)
            if (r->skipped_var[k])
                fprintf(f, "%s%s: %llu", i++ ? ", " : "", r->var_names[k], (unsigned long long)r->skipped_var[k]);
        fprintf(f, ")\n");
    }
    if (r->parked)
        fprintf(f, "Stopped       %u connection%s took no more work: every target %s could send needs a variable none "
                   "of %s answers set\n", r->parked, r->parked == 1 ? "" : "s", r->parked == 1 ? "it" : "they",
                r->parked == 1 ? "its" : "their");
}

int report_text(FILE *f, const struct run_result *res)
{
    const struct config *cfg = res->cfg;
    const struct run_figures *r = &res->fig;
    const struct monitor_result *server = res->has_server ? &res->server : NULL;
    const struct findings *fs = res->has_findings ? &res->found : NULL;
    const struct stats *s = &r->total;

    setup_block(f, cfg, r, &res->probe);
    summary_block(f, cfg, r);
    if ((r->target_rate > 0 || s->h[H_LAG].total) && !cfg->nstages)
        rate_block(f, cfg, r);
    if (r->nstages)
        stages_block(f, cfg, r);
    latency_block(f, r);
    if (server) {
        fprintf(f, "\n");
        report_server_text(f, res, "");
    }
    fputc('\n', f);
    report_status_line(f, s);
    report_bad_status_line(f, cfg, s);
    errors_block(f, s, s->completed + stats_errors(s), config_proto(cfg));
    checks_block(f, cfg, r);
    if (cfg->out[OUT_LOG]) {
        fprintf(f, "\nLog           %llu lines to %s", (unsigned long long)r->log_written,
                strcmp(cfg->out[OUT_LOG], "-") == 0 ? "stdout" : cfg->out[OUT_LOG]);
        if (cfg->log_sample > 1)
            fprintf(f, " (one request in %u)", cfg->log_sample);
        if (r->log_dropped)
            fprintf(f, "; %llu dropped, counted: %s", (unsigned long long)r->log_dropped,
                    r->log_failed ? "the writing stopped" : "the writer fell behind");
        if (r->log_failed)
            fprintf(f, " (%s)", strerror(r->log_failed));
        fputc('\n', f);
    }
    if (fs && fs->n) {
        fputc('\n', f);
        report_findings_text(f, fs, "");
    }
    if (r->ntargets > 1)
        per_url_block(f, cfg, r);
    if (r->nshards)
        shards_block(f, r);
    if (res->ref.known) {
        fputc('\n', f);
        report_ref_text(f, &res->ref, "");
    }
    return ferror(f) ? -1 : 0;
}

