/* report_html.c - one self-contained HTML file for a run: tables and inline
 * SVG charts, no script and nothing fetched, readable printed. */
#include "report.h"
#include "html.h"
#include "svg.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Inside html_printf formats, so a percent sign is written %%. */
#define STYLE HTML_CSS "body{max-width:780px}.fail{color:#b00;font-weight:bold}.pass{color:#070}" \
    ".problems{border:2px solid #b00;background:#fff0f0;padding:4px 14px;margin:12px 0}.problems p{margin:6px 0}"

/* Latency axes: log past two decades (svg.h). */
#define LATENCY_LOG "latency (ms, log scale)"

/* Latency against percentile on a "nines" axis, as HdrHistogram plots it. */
static void percentile_chart(FILE *f, const struct stats *s, int rate_mode)
{
    static const double ticks[] = { 1, 10, 100, 1000, 10000, 100000 };
    static const char *const labels[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
    enum { N = 121 };
    double x[N], y[3][N];
    struct svg_series ser[3];
    struct svg_axis ax = { "percentile", 1, ticks, labels, 0, 1, NULL };
    struct svg_axis ay = { "latency (ms)", 0, NULL, NULL, 0, 0, NULL };
    const struct hist *h[3] = { &s->h[H_LATENCY], &s->h[H_TTFB], &s->h[H_LATENCY_UNC] };
    const char *names[3] = { rate_mode ? "total (from when due)" : "total", "time to first byte", "uncorrected (from send)" };
    double top = log10((double)(s->h[H_LATENCY].total > 10 ? s->h[H_LATENCY].total : 10));
    int i, k, ns = rate_mode ? 3 : 2;

    if (s->h[H_LATENCY].total == 0)
        return; /* nothing answered: no latency to draw (a line of 0 ms would be one) */
    if (top > 5)
        top = 5;
    for (i = 0; i < N; i++) {
        double nines = top * i / (N - 1), p = 100.0 * (1 - pow(10, -nines));
        x[i] = pow(10, nines); /* 1/(1-p) */
        for (k = 0; k < ns; k++)
            y[k][i] = hist_percentile(h[k], p) / 1e6;
    }
    for (k = 0; k < ns; k++) {
        ser[k].name = names[k];
        ser[k].x = x;
        ser[k].y = y[k];
        ser[k].n = N;
    }
    ax.nticks = (int)floor(top) + 1;
    /* One slow tail would flatten the rest on a linear axis. */
    if ((double)s->h[H_LATENCY].max > 20 * hist_percentile(&s->h[H_LATENCY], 50)) {
        ay.log = 1;
        ay.label = "latency (ms, log scale)";
        for (k = 0; k < ns; k++)
            for (i = 0; i < N; i++)
                if (y[k][i] <= 0)
                    y[k][i] = 1e-6;
    }
    svg_line_chart(f, "Latency by percentile", &ax, &ay, ser, ns);
}

static void timeline_charts(FILE *f, const struct run_figures *r)
{
    uint32_t n = r->nseconds, i;
    double last = r->elapsed_s - (double)(n ? n - 1 : 0); /* how much of its last second the run lived */
    double *t, *rps, *err, *p50, *p99, *mx;
    struct svg_axis ax = { "time (s)", 0, NULL, NULL, 0, 0, NULL };
    if (n == 0)
        return;
    t = calloc(n * 6, sizeof(double));
    if (t == NULL)
        return;
    rps = t + n;
    err = rps + n;
    p50 = err + n;
    p99 = p50 + n;
    mx = p99 + n;
    for (i = 0; i < n; i++) {
        t[i] = i + 0.5;
        rps[i] = (double)r->timeline[i].completed;
        err[i] = (double)r->timeline[i].errors;
        /* A last second the run only began is no drop in throughput:
         * scaled to a whole second when it lasted half of one, else left out. */
        if (i == n - 1 && n > 1 && last < 0.999) {
            if (last >= 0.5) {
                rps[i] /= last;
                err[i] /= last;
            } else {
                n--;
                break;
            }
        }
        p50[i] = r->timeline[i].p50_ns / 1e6;
        p99[i] = r->timeline[i].p99_ns / 1e6;
        mx[i] = r->timeline[i].max_ns / 1e6;
    }
    {
        struct svg_series s[2] = { { "completed", t, rps, (int)n }, { "errors", t, err, (int)n } };
        struct svg_axis ay = { "requests per second", 0, NULL, NULL, 0, 0, NULL };
        svg_line_chart(f, "Throughput over time", &ax, &ay, s, 2);
    }
    if (r->total.h[H_LATENCY].total) {
        struct svg_series s[3] = { { "p50", t, p50, (int)n }, { "p99", t, p99, (int)n }, { "max", t, mx, (int)n } };
        struct svg_axis ay = { "latency (ms)", 0, NULL, NULL, 0, 0, LATENCY_LOG };
        svg_line_chart(f, "Latency over time", &ax, &ay, s, 3);
    }
    free(t);
}

/* A status code's class, or an error, by colour: the good answers blue as
 * every other bar, 3xx apart, 4xx and 5xx in warm colours. */
enum { CLASS_1XX, CLASS_2XX, CLASS_3XX, CLASS_4XX, CLASS_5XX, CLASS_ERR, NCLASSES };
static const char *const class_name[NCLASSES] = { "1xx", "2xx", "3xx", "4xx", "5xx", "errors" };
static const char *const class_fill[NCLASSES] = { "#7f7f7f", "#1f77b4", "#17becf", "#ff7f0e", "#d62728", "#8c564b" };

static void status_chart(FILE *f, const struct stats *s)
{
    const char *groups[STATUS_MAX + ERR__COUNT], *fills[STATUS_MAX + ERR__COUNT], *keys[NCLASSES], *key_fill[NCLASSES];
    char names[STATUS_MAX + ERR__COUNT][24];
    double v[STATUS_MAX + ERR__COUNT];
    const char *series[1] = { "requests" };
    int i, n = 0, seen[NCLASSES] = { 0 }, nkeys = 0;
    for (i = 0; i < STATUS_MAX; i++)
        if (s->status[i]) {
            int c = i < 200 ? CLASS_1XX : i < 300 ? CLASS_2XX : i < 400 ? CLASS_3XX : i < 500 ? CLASS_4XX : CLASS_5XX;
            snprintf(names[n], sizeof(names[n]), "%d", i);
            groups[n] = names[n];
            fills[n] = class_fill[c];
            seen[c] = 1;
            v[n++] = (double)s->status[i];
        }
    for (i = 0; i < ERR__COUNT; i++)
        if (s->errors[i]) {
            snprintf(names[n], sizeof(names[n]), "%s", stats_err_name((enum err_kind)i));
            groups[n] = names[n];
            fills[n] = class_fill[CLASS_ERR];
            seen[CLASS_ERR] = 1;
            v[n++] = (double)s->errors[i];
        }
    for (i = 0; i < NCLASSES; i++)
        if (seen[i]) {
            keys[nkeys] = class_name[i];
            key_fill[nkeys++] = class_fill[i];
        }
    if (n) {
        const struct svg_bar_style style = { NULL, fills, keys, key_fill, nkeys };
        svg_bar_chart(f, "Status codes and errors", "requests", groups, n, series, 1, v, NULL, NULL, &style);
    }
}

/* What went wrong, at the top of the page with the findings: the answers
 * outside the expected statuses, and the requests that ended in errors. */
static void problems_block(FILE *f, const struct config *cfg, const struct stats *s)
{
    uint64_t errors = stats_errors(s);
    int i, n = 0;
    if (s->bad_status == 0 && errors == 0)
        return;
    html_printf(f, "<div class=\"problems\">\n");
    if (s->bad_status) {
        html_printf(f, "<p><b>Bad status</b> %llu (%.2f%% of responses) outside the expected %s:",
                    (unsigned long long)s->bad_status,
                    s->completed ? 100.0 * (double)s->bad_status / (double)s->completed : 0.0, cfg->expect.text);
        for (i = 0; i < STATUS_MAX && n < 8; i++)
            if (s->status[i] && !status_set_has(&cfg->expect, (unsigned)i))
                html_printf(f, "%s %d: %llu", n++ ? "," : "", i, (unsigned long long)s->status[i]);
        html_printf(f, ".");
        if (s->completed && s->bad_status * 2 > s->completed)
            html_printf(f, " Most answers were failures: the throughput is not a valid result.");
        html_printf(f, "</p>\n");
    }
    if (errors) {
        html_printf(f, "<p><b>Errors</b> ");
        report_errors_counts(f, s);
        html_printf(f, " (see Errors below).</p>\n");
    }
    html_printf(f, "</div>\n");
}

/* The total latency's 95% intervals (report_ci) as two rows under it, a
 * side the run cannot bound shown "?", and as whiskers on the figures'
 * bars. Nothing for a run without them (saved before they were). */
static void ci_tr(FILE *f, const char *name, const struct run_ci *ci, int high)
{
    char b[32];
    int i;
    html_printf(f, "<tr><td>%s</td><td></td><td>%s</td>", name,
                isnan(high ? ci->mean.hi : ci->mean.lo) ? "?"
                : units_fmt_ns(b, sizeof(b), high ? ci->mean.hi : ci->mean.lo));
    for (i = 0; i < REPORT_NPCTS && i < RUN_CI_NPCTS; i++) {
        double v = high ? ci->pct[i].hi : ci->pct[i].lo;
        html_printf(f, "<td>%s</td>", isnan(v) ? "?" : units_fmt_ns(b, sizeof(b), v));
    }
    html_printf(f, "<td></td></tr>\n");
}

static void ci_chart(FILE *f, const struct run_figures *r)
{
    enum { N = 1 + RUN_CI_NPCTS };
    const char *groups[N], *series[1] = { "total" };
    char names[N][16];
    double v[N], lo[N], hi[N];
    struct svg_bar_style st = { LATENCY_LOG, NULL, NULL, NULL, 0 };
    int i;
    for (i = 0; i < N; i++) {
        const struct interval *iv = i == 0 ? &r->ci.mean : &r->ci.pct[i - 1];
        snprintf(names[i], sizeof(names[i]), i == 0 ? "mean" : "p%s", i == 0 ? "" : report_pct_names[i - 1]);
        groups[i] = names[i];
        v[i] = (i == 0 ? hist_mean(&r->total.h[H_LATENCY]) : hist_percentile(&r->total.h[H_LATENCY],
                                                                            report_pcts[i - 1])) / 1e6;
        lo[i] = iv->lo / 1e6; /* NaN stays NaN: no whisker */
        hi[i] = iv->hi / 1e6;
    }
    st.log_label = svg_log_wanted(v, N) ? LATENCY_LOG : NULL;
    svg_bar_chart(f, "Latency and its 95% intervals (this run's sampling)", "latency (ms)", groups, N, series, 1, v,
                  lo, hi, &st);
}

static void lat_tr(FILE *f, const char *name, const struct hist *h)
{
    char b[32];
    int i;
    if (h->total == 0)
        return;
    html_printf(f, "<tr><td>%s</td><td>%s</td>", name, units_fmt_ns(b, sizeof(b), (double)h->min));
    html_printf(f, "<td>%s</td>", units_fmt_ns(b, sizeof(b), hist_mean(h)));
    for (i = 0; i < REPORT_NPCTS; i++)
        html_printf(f, "<td>%s</td>", units_fmt_ns(b, sizeof(b), hist_percentile(h, report_pcts[i])));
    html_printf(f, "<td>%s</td></tr>\n", units_fmt_ns(b, sizeof(b), (double)h->max));
}

void report_html_server(FILE *f, const struct run_result *res)
{
    const struct monitor_result *m = &res->server;
    uint64_t completed = res->fig.total.completed;
    struct monitor_group g[32];
    uint32_t ng = monitor_groups(m, g, 32), i;
    char a[32], b[32], c[32], d[32], e[32];

    html_printf(f, "<h3>Server: ");
    if (m->cgroup[0]) {
        html_printf(f, "cgroup ");
        html_text(f, m->cgroup);
    } else {
        html_printf(f, "pid %d and its children", m->pid);
    }
    html_printf(f, "</h3>\n<p>%u process%s, %u threads at most. CPU %.2f s", m->processes, m->processes == 1 ? "" : "es",
            m->threads, m->cpu_s);
    if (completed)
        html_printf(f, ", %s per request", units_fmt_ns(a, sizeof(a), m->cpu_s * 1e9 / (double)completed));
    if (m->has_pss) {
        /* Alone when measured, PSS always, each said what it counts. */
        if (m->has_alone)
            html_printf(f, ". Memory: alone %s peak (mean %s), PSS %s", units_fmt_bytes(a, sizeof(a),
                        (double)m->alone_peak_bytes), units_fmt_bytes(b, sizeof(b), (double)m->alone_mean_bytes),
                        units_fmt_bytes(c, sizeof(c), (double)m->pss_peak_bytes));
        else
            html_printf(f, ". Memory: PSS %s peak (mean %s)", units_fmt_bytes(a, sizeof(a), (double)m->pss_peak_bytes),
                        units_fmt_bytes(b, sizeof(b), (double)m->pss_mean_bytes));
        html_printf(f, ", USS %s; RSS summed %s (it counts shared pages in each process). %s",
                    units_fmt_bytes(d, sizeof(d), (double)m->uss_peak_bytes),
                    units_fmt_bytes(e, sizeof(e), (double)m->rss_peak_bytes),
                    m->has_alone ? report_memory_meaning("alone") : "");
        html_printf(f, "%s%s%s%s.", m->has_alone ? "; " : "", report_memory_meaning("PSS"), m->has_alone ? "" : "; ",
                    m->has_alone ? "" : m->pss_note);
    } else {
        html_printf(f, ". Memory: RSS summed %s peak (it counts shared pages in each process); ",
                units_fmt_bytes(a, sizeof(a), (double)m->rss_peak_bytes));
        html_text(f, m->pss_note);
        html_printf(f, ".");
    }
    if (m->gone)
        html_printf(f, " <span class=\"fail\">Nothing was left of it before the end.</span>");
    html_printf(f, "</p>\n");
    if (ng == 0)
        return;
    html_printf(f, "<table><tr><th>processes</th><th>%s each</th><th>USS each</th><th>RSS each</th><th>CPU (s)</th>"
               "<th>command</th></tr>\n", m->has_alone ? "alone" : "PSS");
    for (i = 0; i < ng; i++) {
        html_printf(f, "<tr><td>%u%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.2f</td><td style=\"text-align:left\">",
                g[i].count, g[i].exited ? " (exited)" : "",
                m->has_pss ? units_fmt_bytes(a, sizeof(a), (double)(m->has_alone ? g[i].alone_each : g[i].pss_each))
                           : "-",
                m->has_pss ? units_fmt_bytes(b, sizeof(b), (double)g[i].uss_each) : "-",
                units_fmt_bytes(c, sizeof(c), (double)g[i].rss_each), g[i].cpu_s);
        html_text(f, g[i].command);
        html_printf(f, "</td></tr>\n");
    }
    html_printf(f, "</table>\n");
}

/* The server's memory (alone, PSS, or RSS) through the run. */
static void memory_chart(FILE *f, const struct monitor_result *m)
{
    double *x, *y;
    uint32_t i;
    struct svg_axis ax = { "time (s)", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis ay = { m->has_alone ? "memory (MiB, alone)" : m->has_pss ? "memory (MiB, PSS)"
                                                                             : "memory (MiB, RSS summed)",
                           0, NULL, NULL, 0, 0, NULL };
    if (m->npoints < 2 || (x = calloc(2 * m->npoints, sizeof(double))) == NULL)
        return;
    y = x + m->npoints;
    for (i = 0; i < m->npoints; i++) {
        x[i] = m->series[i].t_s;
        y[i] = (double)(m->has_alone ? m->series[i].alone_bytes
                        : m->has_pss ? m->series[i].pss_bytes : m->series[i].rss_bytes) / (1024.0 * 1024.0);
    }
    {
        struct svg_series s = { "server", x, y, (int)m->npoints };
        svg_line_chart(f, "Server memory over time", &ax, &ay, &s, 1);
    }
    free(x);
}

void report_html_findings(FILE *f, const struct findings *fs)
{
    int i;
    if (fs == NULL || fs->n == 0)
        return;
    html_printf(f, "<div class=\"findings\"><b>Findings</b><ul>\n");
    for (i = 0; i < fs->n; i++) {
        html_printf(f, fs->f[i].warning ? "<li>&#9888; <b>" : "<li>&#8505; <b>"); /* %s would be escaped */
        html_text(f, fs->f[i].id);
        html_printf(f, "</b>: ");
        html_text(f, fs->f[i].summary);
        html_printf(f, "<br/><span class=\"adv\">");
        html_text(f, fs->f[i].advice);
        html_printf(f, "</span></li>\n");
    }
    html_printf(f, "</ul></div>\n");
}

/* Several URLs or targets: a row each, and their p50 and p99 side by side
 * (the first HTML_TARGET_BARS: bars past that would be slivers). */
#define HTML_TARGET_BARS 30

static void per_url_block(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    double el = r->elapsed_s > 0 ? r->elapsed_s : 1e-9;
    uint32_t i, n = r->ntargets < HTML_TARGET_BARS ? r->ntargets : HTML_TARGET_BARS;
    const char *word = cfg->targets_path ? "target" : "URL";
    char b1[32], b2[32], lb[600], title[80];
    const char **groups = calloc(n, sizeof(char *));
    char (*names)[600] = calloc(n, sizeof(*names));
    double *v = calloc(2 * (size_t)n, sizeof(double));
    static const char *const series[2] = { "p50", "p99" };

    html_printf(f, "<h2>Per %s</h2>\n<table><tr><th>%s</th><th>requests</th><th>errors</th><th>bad status</th>"
                   "<th>req/s</th><th>p50</th><th>p99</th><th>max</th></tr>\n", word, word);
    for (i = 0; i < r->ntargets; i++) {
        const struct stats *u = &r->per_target[i];
        char mx[32];
        html_printf(f, "<tr><td style=\"text-align:left\">");
        html_text(f, report_label(cfg, i, lb, sizeof(lb)));
        html_printf(f, "</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%.1f</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                    (unsigned long long)u->completed, (unsigned long long)stats_errors(u),
                    (unsigned long long)u->bad_status, (double)u->completed / el,
                    units_fmt_ns(b1, sizeof(b1), hist_percentile(&u->h[H_LATENCY], 50)),
                    units_fmt_ns(b2, sizeof(b2), hist_percentile(&u->h[H_LATENCY], 99)),
                    units_fmt_ns(mx, sizeof(mx), (double)u->h[H_LATENCY].max));
    }
    html_printf(f, "</table>\n");
    if (groups && names && v) {
        for (i = 0; i < n; i++) {
            const struct stats *u = &r->per_target[i];
            snprintf(names[i], sizeof(names[i]), "%s", report_label(cfg, i, lb, sizeof(lb)));
            groups[i] = names[i];
            /* A target that was never answered has no latency to draw. */
            v[2 * i] = u->completed ? hist_percentile(&u->h[H_LATENCY], 50) / 1e6 : NAN;
            v[2 * i + 1] = u->completed ? hist_percentile(&u->h[H_LATENCY], 99) / 1e6 : NAN;
        }
        if (n < r->ntargets)
            snprintf(title, sizeof(title), "Latency per %s (the first %u of %u)", word, n, r->ntargets);
        else
            snprintf(title, sizeof(title), "Latency per %s", word);
        const struct svg_bar_style style = { LATENCY_LOG, NULL, NULL, NULL, 0 };
        svg_bar_chart(f, title, "latency (ms)", groups, (int)n, series, 2, v, NULL, NULL, &style);
    }
    free(groups);
    free(names);
    free(v);
}

int report_html(FILE *f, const struct run_result *res)
{
    const struct config *cfg = res->cfg;
    const struct run_figures *r = &res->fig;
    const struct monitor_result *server = res->has_server ? &res->server : NULL;
    const struct findings *fs = res->has_findings ? &res->found : NULL;
    const struct stats *s = &r->total;
    double el = r->elapsed_s > 0 ? r->elapsed_s : 1e-9;
    uint32_t i;
    int k;
    char b1[32];

    html_printf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>rafale report</title>"
               "<style>" STYLE "</style></head><body>\n");
    html_printf(f, "<h1>rafale report</h1>\n<p>");
    for (i = 0; i < cfg->ntargets; i++) {
        html_text(f, cfg->url_text[i]);
        html_printf(f, "<br/>");
    }
    html_printf(f, "%u connections on %u threads, %s", cfg->connections, cfg->threads,
            cfg->keepalive ? "keep-alive" : "a new connection per request");
    if (cfg->rate > 0)
        html_printf(f, ", %.1f req/s (constant rate)", cfg->rate);
    html_printf(f, ", %s.</p>\n", cfg->method);
    if (r->interrupted)
        html_printf(f, "<p class=\"fail\">Interrupted: the figures cover the run until the signal.</p>\n");
    problems_block(f, cfg, s);
    report_html_findings(f, fs);

    html_printf(f, "<h2>Summary</h2>\n<table><tr><th>requests</th><th>errors</th><th>bad status</th>"
               "<th>in flight at the end</th><th>elapsed</th><th>req/s</th><th>received</th></tr>\n");
    html_printf(f, "<tr><td>%llu</td><td>%llu</td><td>%llu (%.2f%%)</td><td>%llu</td><td>%.2f s</td><td>%.1f",
            (unsigned long long)s->completed, (unsigned long long)stats_errors(s), (unsigned long long)s->bad_status,
            s->completed ? 100.0 * (double)s->bad_status / (double)s->completed : 0.0, (unsigned long long)r->in_flight,
            r->elapsed_s, (double)s->completed / el);
    if (r->ci.batches && !isnan(r->ci.rps.lo) && !isnan(r->ci.rps.hi))
        html_printf(f, " (95%%: %.1f\xe2\x80\x93%.1f)", r->ci.rps.lo, r->ci.rps.hi);
    html_printf(f, "</td><td>%s/s</td></tr></table>\n", units_fmt_bytes(b1, sizeof(b1), (double)s->bytes_received / el));
    if (server)
        report_html_server(f, res);

    html_printf(f, "<h2>Latency</h2>\n<table><tr><th></th><th>min</th><th>mean</th>");
    for (k = 0; k < REPORT_NPCTS; k++)
        html_printf(f, "<th>p%s</th>", report_pct_names[k]);
    html_printf(f, "<th>max</th></tr>\n");
    lat_tr(f, "connect", &s->h[H_CONNECT]);
    lat_tr(f, "tls", &s->h[H_TLS]);
    lat_tr(f, "ttfb", &s->h[H_TTFB]);
    lat_tr(f, "transfer", &s->h[H_TRANSFER]);
    lat_tr(f, "total", &s->h[H_LATENCY]);
    if (r->ci.batches && s->h[H_LATENCY].total) {
        ci_tr(f, "95% low", &r->ci, 0);
        ci_tr(f, "95% high", &r->ci, 1);
    }
    if (r->target_rate > 0 || s->h[H_LAG].total) /* open loop: -R, or a replayed log's times */
        lat_tr(f, "uncorrected", &s->h[H_LATENCY_UNC]);
    /* Empty (not drawn) unless the kernel stamped the answers. */
    lat_tr(f, "total as read", s->h[H_CLIENT_DELAY].total ? &s->h[H_LATENCY_USER] : &s->h[H_CLIENT_DELAY]);
    lat_tr(f, "client delay", &s->h[H_CLIENT_DELAY]);
    html_printf(f, "</table>\n");
    if (r->ci.batches && s->h[H_LATENCY].total)
        html_printf(f, "<p>95%% low, high: the interval from this run's own %u batches of %s: its sampling, not the "
                       "drift between runs; ?: too few samples to bound it.</p>\n", r->ci.batches,
                    units_fmt_ns(b1, sizeof(b1), r->ci.batch_s * 1e9));
    percentile_chart(f, s, r->target_rate > 0 || s->h[H_LAG].total);
    if (r->ci.batches && s->h[H_LATENCY].total)
        ci_chart(f, r);
    timeline_charts(f, r);
    if (server)
        memory_chart(f, server);
    status_chart(f, s);

    if (r->ntargets > 1)
        per_url_block(f, cfg, r);
    if (r->nchecks) {
        html_printf(f, "<h2>Checks</h2>\n<p>%llu of %llu checked responses failed one (%.2f%%); they stay in the "
                       "latency figures.</p>\n<table><tr><th>target</th><th>check</th><th>passed</th><th>failed</th>"
                       "<th>first failure</th></tr>\n", (unsigned long long)s->checks_failed,
                    (unsigned long long)s->checked,
                    s->checked ? 100.0 * (double)s->checks_failed / (double)s->checked : 0.0);
        for (i = 0; i < r->nchecks; i++) {
            const struct run_check *e = &r->checks[i];
            char lb[600];
            html_printf(f, "<tr><td>");
            html_text(f, e->target < cfg->ntargets ? report_label(cfg, e->target, lb, sizeof(lb)) : "?");
            html_printf(f, "</td><td style=\"text-align:left\"><code>");
            html_text(f, e->text);
            /* (html_printf escapes %s: the class is in the format) */
            html_printf(f, e->failed ? "</code></td><td>%llu</td><td class=\"fail\">%llu</td><td style=\"text-align:left\">"
                                     : "</code></td><td>%llu</td><td>%llu</td><td style=\"text-align:left\">",
                        (unsigned long long)e->passed, (unsigned long long)e->failed);
            html_text(f, e->failed ? e->first_failure : "");
            html_printf(f, "</td></tr>\n");
        }
        html_printf(f, "</table>\n");
    }
    if (stats_errors(s)) {
        html_printf(f, "<h2>Errors</h2>\n<table><tr><th>kind</th><th>count</th><th>meaning</th></tr>\n");
        for (k = 0; k < ERR__COUNT; k++)
            if (s->errors[k]) {
                const char *first = stats_err_first(s, (enum err_kind)k);
                html_printf(f, "<tr><td>%s</td><td>%llu</td><td style=\"text-align:left\">", stats_err_name((enum err_kind)k),
                        (unsigned long long)s->errors[k]);
                html_text(f, stats_err_explain((enum err_kind)k, config_proto(cfg)));
                if (first) {
                    html_printf(f, " (first: ");
                    html_text(f, first);
                    html_printf(f, ")");
                }
                html_printf(f, "</td></tr>\n");
            }
        html_printf(f, "</table>\n");
    }
    html_printf(f, "<p style=\"color:#888\">Made by rafale. Percentiles within 1%%; the timeline within 3%%.</p>\n");
    html_printf(f, "</body></html>\n");
    return ferror(f) ? -1 : 0;
}
