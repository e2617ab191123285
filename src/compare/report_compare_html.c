/* report_compare_html.c - the results of `rafale compare` as one
 * self-contained HTML page: the settings, charts and tables. Every string
 * goes out through html.h, escaped. */
#include "compare.h"
#include "html.h"
#include "report.h"
#include "report_compare.h"
#include "svg.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum what { BAR_RPS, BAR_P99, BAR_CPU, BAR_MEM };

/* Latency bars: a log axis when they span more than two decades, where a
 * fast server's bars would be slivers beside a slow one's. */
static const struct svg_bar_style latency_style = { "latency (ms, log scale)", NULL, NULL, NULL, 0 };

/* Array sizes from the compare file's counts (ints, never negative). */
static size_t n_of(int n)
{
    return n > 0 ? (size_t)n : 0;
}

static void bars(FILE *f, const struct compare_file *p, const struct compare_result *r, const char *title, const char *ylabel,
                 enum what what)
{
    const char **groups = calloc(n_of(p->nworkloads), sizeof(char *));
    const char **series = calloc(n_of(p->nservers), sizeof(char *));
    double *v = calloc(n_of(p->nworkloads) * n_of(p->nservers) * 3, sizeof(double));
    double *lo = v ? v + n_of(p->nworkloads) * n_of(p->nservers) : NULL, *hi = lo ? lo + (lo - v) : NULL;
    int w, s;
    if (groups && series && v) {
        for (w = 0; w < p->nworkloads; w++)
            groups[w] = p->workloads[w].name;
        for (s = 0; s < p->nservers; s++)
            series[s] = p->servers[s].name;
        for (w = 0; w < p->nworkloads; w++)
            for (s = 0; s < p->nservers; s++) {
                const struct compare_cell *c = compare_cell_at(r, w, s);
                double x = c->invalid ? NAN : 0, l = NAN, u = NAN;
                /* A result made of failures draws no bar: it would win. */
                if (c->nruns && !c->invalid) {
                    if (what == BAR_RPS) {
                        x = c->rps_median;
                        l = c->rps_ci[0];
                        u = c->rps_ci[1];
                    } else if (what == BAR_P99) {
                        x = hist_percentile(&c->total.h[H_LATENCY], 99) / 1e6;
                        l = c->p99_ci_us[0] / 1e3;
                        u = c->p99_ci_us[1] / 1e3;
                    }
                    else if (what == BAR_CPU)
                        x = c->server_cpu_us > 0 ? c->server_cpu_us : 0;
                    else
                        x = (double)c->mem_peak / (1024.0 * 1024.0);
                }
                v[w * p->nservers + s] = x;
                lo[w * p->nservers + s] = l;
                hi[w * p->nservers + s] = u;
            }
        svg_bar_chart(f, title, ylabel, groups, p->nworkloads, series, p->nservers, v, lo, hi,
                      what == BAR_P99 ? &latency_style : NULL);
    }
    free(groups);
    free(series);
    free(v);
}

/* Mean, p50 and p99 of one workload, a group each, a bar per server. */
static void latency_bars(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    static const char *const groups[3] = { "mean", "p50", "p99" };
    const char **series = calloc(n_of(p->nservers), sizeof(char *));
    double *v = calloc(9 * n_of(p->nservers), sizeof(double));
    double *lo = v ? v + 3 * n_of(p->nservers) : NULL, *hi = lo ? lo + 3 * n_of(p->nservers) : NULL;
    char title[200];
    int s, n = p->nservers;
    if (series && v) {
        for (s = 0; s < n; s++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            series[s] = p->servers[s].name;
            lo[s] = hi[s] = lo[n + s] = hi[n + s] = lo[2 * n + s] = hi[2 * n + s] = NAN;
            if (c->invalid)
                v[s] = v[n + s] = v[2 * n + s] = NAN;
            if (c->nruns == 0 || c->invalid)
                continue;
            v[0 * n + s] = hist_mean(&c->total.h[H_LATENCY]) / 1e6;
            v[1 * n + s] = hist_percentile(&c->total.h[H_LATENCY], 50) / 1e6;
            v[2 * n + s] = hist_percentile(&c->total.h[H_LATENCY], 99) / 1e6;
            /* The rounds' intervals (verdict.c), in ms. */
            lo[n + s] = c->p50_ci_us[0] / 1e3;
            hi[n + s] = c->p50_ci_us[1] / 1e3;
            lo[2 * n + s] = c->p99_ci_us[0] / 1e3;
            hi[2 * n + s] = c->p99_ci_us[1] / 1e3;
        }
        snprintf(title, sizeof(title), "Latency: %s", p->workloads[w].name);
        svg_bar_chart(f, title, "latency (ms)", groups, 3, series, n, v, lo, hi, &latency_style);
    }
    free(series);
    free(v);
}

/* Percentile curves of one workload; a log latency axis when one server's
 * tail would flatten every other curve. */
static void percentile_curves(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    static const double ticks[] = { 1, 10, 100, 1000, 10000, 100000 };
    static const char *const labels[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
    enum { N = 121 };
    struct svg_series *ser = calloc(n_of(p->nservers), sizeof(*ser));
    double x[N], *y = calloc(n_of(p->nservers) * N, sizeof(double)), top, lo_p50 = INFINITY, hi = 0;
    struct svg_axis ax = { "percentile", 1, ticks, labels, 0, 1, NULL };
    struct svg_axis ay = { "latency (ms)", 0, NULL, NULL, 0, 0, NULL };
    uint64_t most = 10;
    char title[200];
    int s, i, ns = 0;

    if (ser == NULL || y == NULL)
        goto out;
    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        if (c->nruns && c->total.h[H_LATENCY].total > most)
            most = c->total.h[H_LATENCY].total;
    }
    top = log10((double)most);
    if (top > 5)
        top = 5;
    for (i = 0; i < N; i++)
        x[i] = pow(10, top * i / (N - 1));
    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        double *ys = y + ns * N;
        if (c->nruns == 0 || c->total.h[H_LATENCY].total == 0 || c->invalid)
            continue;
        for (i = 0; i < N; i++)
            ys[i] = hist_percentile(&c->total.h[H_LATENCY], 100.0 * (1 - 1 / x[i])) / 1e6;
        if (ys[0] <= 0)
            ys[0] = 1e-6;
        if (hist_percentile(&c->total.h[H_LATENCY], 50) / 1e6 < lo_p50)
            lo_p50 = hist_percentile(&c->total.h[H_LATENCY], 50) / 1e6;
        if (ys[N - 1] > hi)
            hi = ys[N - 1];
        ser[ns].name = p->servers[s].name;
        ser[ns].x = x;
        ser[ns].y = ys;
        ser[ns].n = N;
        ns++;
    }
    ax.nticks = (int)floor(top) + 1;
    if (hi > 20 * lo_p50) {
        ay.log = 1;
        ay.label = "latency (ms, log scale)";
    }
    snprintf(title, sizeof(title), "Latency by percentile: %s", p->workloads[w].name);
    if (ns)
        svg_line_chart(f, title, &ax, &ay, ser, ns);
out:
    free(ser);
    free(y);
}

/* Workload w's throughput second by second, a line per server, its rounds
 * laid end to end: a round that dipped, or a server that slows as it runs,
 * shows. A run's last second, when partial, is scaled to a whole one (it is
 * no drop), or left out when under half of one and not the only one. */
static void throughput_over_time(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    struct svg_series *ser = calloc(n_of(p->nservers), sizeof(*ser));
    double **xs = calloc(n_of(p->nservers), sizeof(double *)), **ys = calloc(n_of(p->nservers), sizeof(double *));
    struct svg_axis ax = { "seconds under load (rounds end to end)", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis ay = { "requests per second", 0, NULL, NULL, 0, 0, NULL };
    char title[200];
    int s, k, ns = 0;

    if (ser == NULL || xs == NULL || ys == NULL)
        goto out;
    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        uint32_t n = 0, i;
        double off = 0;
        if (c->invalid)
            continue;
        for (k = 0; k < c->nruns; k++)
            n += c->runs[k].fig.nseconds;
        if (n == 0)
            continue;
        xs[ns] = calloc(n, sizeof(double));
        ys[ns] = calloc(n, sizeof(double));
        if (xs[ns] == NULL || ys[ns] == NULL)
            goto out;
        n = 0;
        for (k = 0; k < c->nruns; k++) {
            const struct run_figures *res = &c->runs[k].fig;
            double last = res->elapsed_s - (double)(res->nseconds ? res->nseconds - 1 : 0);
            for (i = 0; i < res->nseconds; i++) {
                double v = (double)res->timeline[i].completed, len = 1;
                if (i == res->nseconds - 1 && last < 0.999) {
                    if (last < 0.5 && res->nseconds > 1)
                        break;
                    if (last > 0.001)
                        len = last;
                }
                xs[ns][n] = off + i + len / 2;
                ys[ns][n++] = v / len;
            }
            off += res->elapsed_s > 0 ? res->elapsed_s : (double)res->nseconds;
        }
        ser[ns].name = p->servers[s].name;
        ser[ns].x = xs[ns];
        ser[ns].y = ys[ns];
        ser[ns].n = (int)n;
        ns++;
    }
    snprintf(title, sizeof(title), "Throughput over time: %s", p->workloads[w].name);
    if (ns)
        svg_line_chart(f, title, &ax, &ay, ser, ns);
out:
    for (s = 0; xs && ys && s < p->nservers; s++) {
        free(xs[s]);
        free(ys[s]);
    }
    free(xs);
    free(ys);
    free(ser);
}

/* Memory of each server over its time under load, its runs laid end to
 * end: as if alone when every run measured it, else PSS, else RSS, one
 * measure for every line. */
static void memory_chart(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    struct svg_series *ser = calloc(n_of(p->nservers), sizeof(*ser));
    double **xs = calloc(n_of(p->nservers), sizeof(double *)), **ys = calloc(n_of(p->nservers), sizeof(double *));
    struct svg_axis ax = { "seconds under load (runs end to end)", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis ay = { "memory (MiB)", 0, NULL, NULL, 0, 0, NULL };
    int s, w, k, ns = 0, pss = 1, alone = 1;
    const char *title;

    if (ser == NULL || xs == NULL || ys == NULL)
        goto out;
    for (s = 0; s < p->nservers; s++)
        for (w = 0; w < p->nworkloads; w++)
            for (k = 0; k < compare_cell_at(r, w, s)->nruns; k++) {
                const struct run_result *run = &compare_cell_at(r, w, s)->runs[k];
                pss &= !run->has_server || run->server.has_pss;
                alone &= !run->has_server || run->server.has_alone;
            }
    for (s = 0; s < p->nservers; s++) {
        uint32_t n = 0, i;
        double off = 0;
        for (w = 0; w < p->nworkloads; w++)
            for (k = 0; k < compare_cell_at(r, w, s)->nruns; k++)
                n += compare_cell_at(r, w, s)->runs[k].server.npoints;
        if (n == 0)
            continue;
        xs[ns] = calloc(n, sizeof(double));
        ys[ns] = calloc(n, sizeof(double));
        if (xs[ns] == NULL || ys[ns] == NULL)
            goto out;
        n = 0;
        for (w = 0; w < p->nworkloads; w++)
            for (k = 0; k < compare_cell_at(r, w, s)->nruns; k++) {
                const struct monitor_result *m = &compare_cell_at(r, w, s)->runs[k].server;
                double last = 0;
                for (i = 0; i < m->npoints; i++) {
                    const struct monitor_point *pt = &m->series[i];
                    xs[ns][n] = off + pt->t_s;
                    ys[ns][n++] = (double)(alone ? pt->alone_bytes : pss ? pt->pss_bytes : pt->rss_bytes) /
                                  (1024.0 * 1024.0);
                    last = pt->t_s;
                }
                off += last;
            }
        ser[ns].name = p->servers[s].name;
        ser[ns].x = xs[ns];
        ser[ns].y = ys[ns];
        ser[ns].n = (int)n;
        ns++;
    }
    if (alone) {
        ay.label = "memory (MiB, alone)";
        title = "Server memory (alone) over time";
    } else if (pss) {
        ay.label = "memory (MiB, PSS)";
        title = "Server memory (PSS) over time";
    } else {
        ay.label = "memory (MiB, RSS summed: PSS was not readable)";
        title = "Server memory (RSS) over time";
    }
    if (ns)
        svg_line_chart(f, title, &ax, &ay, ser, ns);
out:
    for (s = 0; xs && ys && s < p->nservers; s++) {
        free(xs[s]);
        free(ys[s]);
    }
    free(xs);
    free(ys);
    free(ser);
}

/* Each server against the compare file's baseline, in a line. */
static void baseline_html(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    int s, b = p->baseline - 1, any = 0;
    if (b < 0 || b >= p->nservers)
        return;
    html_printf(f, "<br/>Against the baseline, ");
    html_text(f, p->servers[b].name);
    html_printf(f, ":");
    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        char what[96];
        if (s == b || c->vs_base.verdict == VERDICT_INVALID)
            continue;
        html_printf(f, "%s ", any ? ";" : "");
        html_text(f, p->servers[s].name);
        html_printf(f, " ");
        html_text(f, report_compare_pair_text(what, sizeof(what), &c->vs_base, 0));
        any = 1;
    }
    html_printf(f, "%s", any ? "." : " no other valid result.");
}

/* Every pair of servers (2 to CMP_MATRIX_MAX), the row against the column. */
static void matrix_html(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    int a, b;
    if (p->nservers < 2 || p->nservers > CMP_MATRIX_MAX)
        return;
    html_printf(f, "<table class=\"pairs\"><tr><th>the row against the column</th>");
    for (b = 0; b < p->nservers; b++) {
        html_printf(f, "<th>");
        html_text(f, p->servers[b].name);
        html_printf(f, "</th>");
    }
    html_printf(f, "</tr>\n");
    for (a = 0; a < p->nservers; a++) {
        html_printf(f, "<tr><th>");
        html_text(f, p->servers[a].name);
        html_printf(f, "</th>");
        for (b = 0; b < p->nservers; b++) {
            struct verdict_pair v;
            char what[96];
            if (a == b) {
                html_printf(f, "<td>&#183;</td>");
                continue;
            }
            compare_pair(p, r, w, a, b, &v);
            html_printf(f, "<td title=\"");
            html_text(f, report_compare_pair_text(what, sizeof(what), &v, 0));
            html_printf(f, "\">");
            html_text(f, report_compare_pair_text(what, sizeof(what), &v, 1));
            html_printf(f, "</td>");
        }
        html_printf(f, "</tr>\n");
    }
    html_printf(f, "</table>");
}

/* The page's head, its CSS, and what was compared how. */
static void page_head(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    html_printf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>rafale compare</title><style>"
               HTML_CSS "body{margin:24px}.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));"
               "gap:0 24px}.charts svg{width:100%%;height:auto}h3{font-size:15px}td.l,th.l{text-align:left}code{font-size:12px}"
               "table.cells{font-size:13px}table.cells th{font-weight:normal}.warn{color:#b00}</style></head><body>\n"
               "<h1>rafale compare</h1>\n");
    html_printf(f, "<p>%d server%s, %d workload%s, %d repetition%s interleaved", p->nservers, p->nservers == 1 ? "" : "s",
            p->nworkloads, p->nworkloads == 1 ? "" : "s", p->set.repeat, p->set.repeat == 1 ? "" : "s");
    if (p->set.nserver_cpus && p->set.nclient_cpus)
        html_printf(f, "; servers pinned to CPU %d%s, rafale to CPU %d%s%s", p->set.server_cpus[0],
                p->set.nserver_cpus > 1 ? "..." : "", p->set.client_cpus[0], p->set.nclient_cpus > 1 ? "..." : "",
                p->set.pin == PIN_CHOSE ? " (pin = auto)" : "");
    html_printf(f, ".%s</p>\n", r->cgroups ? " Each server ran in a cgroup of its own: every process it started was "
                                          "measured and stopped." : "");
    if (r->note[0]) {
        html_printf(f, "<p class=\"warn\">Servers ran in process groups only: ");
        html_text(f, r->note);
        html_printf(f, ".</p>\n");
    }
    if (r->interrupted)
        html_printf(f, "<p class=\"warn\">Interrupted: the figures cover the runs made before the signal.</p>\n");
    {
        /* The verdict first, a line per workload (95% intervals, paired by round). */
        int w;
        html_printf(f, "<h2>Verdict</h2>\n<ul>\n");
        for (w = 0; w < p->nworkloads; w++) {
            char line[2048];
            int s, any = 0;
            report_compare_verdict_line(line, sizeof(line), p, r, w);
            html_printf(f, "<li><b>");
            html_text(f, p->workloads[w].name);
            html_printf(f, "</b>: ");
            html_text(f, line);
            /* (html_printf escapes a %s: the tags are formats of their own) */
            for (s = 0; s < p->nservers; s++)
                if (report_compare_why(line, sizeof(line), p, r, w, s)) {
                    html_printf(f, any ? "<li>" : "<ul><li>");
                    html_text(f, line);
                    html_printf(f, "</li>");
                    any = 1;
                }
            if (any)
                html_printf(f, "</ul>");
            baseline_html(f, p, r, w);
            matrix_html(f, p, r, w);
            html_printf(f, "</li>\n");
        }
        html_printf(f, "</ul>\n");
    }
}

/* Each server: its URL, how it was started, its version. */
static void servers_table(FILE *f, const struct compare_file *p)
{
    int s;
    html_printf(f, "<h2>Servers</h2>\n<table><tr><th>server</th><th class=\"l\">url</th><th class=\"l\">started with</th>"
               "<th class=\"l\">version</th></tr>\n");
    for (s = 0; s < p->nservers; s++) {
        const struct compare_server *sv = &p->servers[s];
        html_printf(f, "<tr><td>");
        html_text(f, sv->name);
        html_printf(f, "</td><td class=\"l\">");
        html_text(f, sv->url);
        html_printf(f, "</td><td class=\"l\"><code>");
        if (sv->start)
            html_text(f, sv->start);
        else if (sv->pid)
            html_printf(f, "pid %d (attached)", sv->pid);
        else if (sv->reuse)
            html_printf(f, "reuse = yes (attached)");
        else
            html_text(f, sv->cgroup);
        html_printf(f, "</code></td><td class=\"l\">");
        html_text(f, sv->version ? sv->version : "-");
        html_printf(f, "</td></tr>\n");
    }
}

/* Each workload: its request, connections, mode, length, rate, warm-up. */
static void workloads_table(FILE *f, const struct compare_file *p)
{
    int w;
    char a[32], b[32], c2[32];
    html_printf(f, "</table>\n<h2>Workloads</h2>\n<table><tr><th>workload</th><th class=\"l\">request</th><th>connections</th>"
               "<th class=\"l\">mode</th><th>length</th><th>rate (req/s)</th><th>warm-up</th><th>good statuses</th></tr>\n");
    for (w = 0; w < p->nworkloads; w++) {
        const struct compare_workload *wl = &p->workloads[w];
        const struct config *c = &wl->cfg;
        uint32_t h;
        html_printf(f, "<tr><td>");
        html_text(f, wl->name);
        html_printf(f, "</td><td class=\"l\"><code>");
        if (c->replay_path) {
            html_printf(f, "replay ");
            html_text(f, c->replay_path);
        } else if (c->targets_path) {
            html_printf(f, "targets ");
            html_text(f, c->targets_path);
        } else {
            html_text(f, c->method);
            html_printf(f, " ");
            html_text(f, wl->path);
        }
        for (h = 0; h < c->nheaders; h++) {
            html_printf(f, "<br/>");
            html_text(f, c->headers[h]);
        }
        if (c->has_body)
            html_printf(f, "<br/>(body: %zu bytes)", c->body_len);
        html_printf(f, "</code></td><td>%u</td><td class=\"l\">%s", c->connections,
                c->keepalive ? "keep-alive" : "new connection per request");
        if (config_proto(c)->takes & TAKES_STREAMS)
            html_printf(f, ", %s &#215; %u stream%s", config_proto(c)->label, config_depth(c),
                        config_depth(c) > 1 ? "s" : "");
        else if (config_depth(c) > 1)
            html_printf(f, ", pipelining %u", config_depth(c));
        html_printf(f, "</td><td>");
        if (c->requests)
            html_printf(f, "%llu requests", (unsigned long long)c->requests);
        if (wl->duration_auto)
            html_printf(f, "%s (duration = auto%s)", units_fmt_ns(a, sizeof(a), (double)c->duration_ns),
                        wl->auto_max ? ": max-duration reached" : "");
        else if (c->duration_ns && (!c->requests || c->duration_ns != 5000000000ULL))
            html_printf(f, "%s%s", c->requests ? ", at most " : "", units_fmt_ns(a, sizeof(a), (double)c->duration_ns));
        if (c->rate > 0)
            snprintf(b, sizeof(b), "%.0f", c->rate);
        html_printf(f, "</td><td>%s</td><td>%s</td><td>", c->rate > 0 ? b : "closed loop",
                units_fmt_ns(c2, sizeof(c2), (double)c->warmup_ns));
        html_text(f, c->expect.text);
        html_printf(f, "</td></tr>\n");
    }
    html_printf(f, "</table>\n");

}

/* Workload w's table: a row per server. */
static void cells_table(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    const struct compare_workload *wl = &p->workloads[w];
    int s;
    char a[32], b[32], c2[32], d[32];
    double best = report_compare_best_rps(r, w);
    char desc[400];
    report_compare_describe(desc, sizeof(desc), wl);
    html_printf(f, "<h2>");
    html_text(f, wl->name);
    html_printf(f, "</h2>\n<p>");
    html_text(f, desc);
    html_printf(f, ".</p>\n<table class=\"cells\"><tr><th rowspan=\"2\">rank</th><th rowspan=\"2\">server</th>"
               "<th colspan=\"3\">throughput (req/s)</th><th colspan=\"4\">latency</th>"
               "<th rowspan=\"2\">errors</th><th rowspan=\"2\">bad status (%% of responses)</th>"
               "<th rowspan=\"2\">connections per request</th><th rowspan=\"2\">server CPU per request</th>"
               "<th rowspan=\"2\">server %s</th><th rowspan=\"2\">vs best</th></tr>\n"
               "<tr><th>median</th><th>min</th><th>max</th><th>mean</th><th>p50</th><th>p99</th><th>max</th></tr>\n",
            report_compare_mem_label(r, w));
    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        char cpu[32], mem[32], ratio[96];
        if (c->rank > 0)
            html_printf(f, "<tr><td>%d</td><td>", c->rank);
        else
            html_printf(f, "<tr><td>-</td><td>");
        html_text(f, p->servers[s].name);
        if (c->nruns == 0) {
            html_printf(f, "</td><td colspan=\"13\" class=\"warn\">%s</td></tr>\n", r->failed[s] ? "failed" : "not run");
            continue;
        }
        report_compare_cpu_mem(c, report_compare_mem_mixed(r, w), cpu, sizeof(cpu), mem, sizeof(mem));
        html_printf(f, "</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                   "<td>%llu</td><td class=\"%s\">%.1f</td><td class=\"%s\">%.2f</td><td>%s</td><td>%s</td>"
                   "<td class=\"%s\">%s</td></tr>\n",
                c->rps_median, c->rps_min, c->rps_max, units_fmt_ns(a, sizeof(a), hist_mean(&c->total.h[H_LATENCY])),
                units_fmt_ns(b, sizeof(b), hist_percentile(&c->total.h[H_LATENCY], 50)),
                units_fmt_ns(c2, sizeof(c2), hist_percentile(&c->total.h[H_LATENCY], 99)),
                units_fmt_ns(d, sizeof(d), (double)c->total.h[H_LATENCY].max), (unsigned long long)stats_errors(&c->total),
                c->bad_pct > 0 ? "warn" : "", c->bad_pct, c->keepalive_refused ? "warn" : "", c->conns_per_req, cpu,
                mem, c->invalid ? "warn" : "", report_compare_ratio_text(ratio, sizeof(ratio), c, best));
    }
    html_printf(f, "</table>\n");
}

/* A chart's groups past this would be slivers: the table has them all. */
#define TARGET_BARS 30

/* A targets workload: a row per target and server (rounds merged), and
 * each target's p99 per server. */
static void targets_block(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    const struct config *cfg = NULL;
    uint32_t n = report_compare_targets(r, w, &cfg), nb = n < TARGET_BARS ? n : TARGET_BARS, i;
    int s, ns = p->nservers;
    char lb[600], a[32], b[32], title[300];
    const char **groups, **series;
    char (*names)[600];
    double *v;
    if (n == 0)
        return;
    html_printf(f, "<h3>Per target (rounds merged)</h3>\n<table class=\"cells\"><tr><th class=\"l\">target</th>"
                   "<th>server</th><th>requests</th><th>req/s</th><th>p50</th><th>p99</th><th>errors</th>"
                   "<th>bad status</th></tr>\n");
    for (i = 0; i < n; i++)
        for (s = 0; s < ns; s++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            struct stats t;
            double rps;
            if (c->nruns == 0)
                continue;
            rps = report_compare_target(c, i, &t);
            html_printf(f, "<tr><td class=\"l\">");
            html_text(f, report_compare_target_label(cfg, i, lb, sizeof(lb)));
            html_printf(f, "</td><td>");
            html_text(f, p->servers[s].name);
            html_printf(f, "</td><td>%llu</td><td>%.1f</td><td>%s</td><td>%s</td><td>%llu</td><td class=\"%s\">%llu</td>"
                           "</tr>\n", (unsigned long long)t.completed, rps,
                        units_fmt_ns(a, sizeof(a), hist_percentile(&t.h[H_LATENCY], 50)),
                        units_fmt_ns(b, sizeof(b), hist_percentile(&t.h[H_LATENCY], 99)),
                        (unsigned long long)stats_errors(&t), t.bad_status ? "warn" : "",
                        (unsigned long long)t.bad_status);
            stats_fini(&t);
        }
    html_printf(f, "</table>\n");
    groups = calloc(nb, sizeof(char *));
    series = calloc(n_of(ns), sizeof(char *));
    names = calloc(nb, sizeof(*names));
    v = calloc((size_t)nb * n_of(ns), sizeof(double));
    if (groups && series && names && v) {
        for (s = 0; s < ns; s++)
            series[s] = p->servers[s].name;
        for (i = 0; i < nb; i++) {
            snprintf(names[i], sizeof(names[i]), "%s", report_compare_target_label(cfg, i, lb, sizeof(lb)));
            groups[i] = names[i];
            for (s = 0; s < ns; s++) {
                const struct compare_cell *c = compare_cell_at(r, w, s);
                struct stats t;
                /* As in the other charts: nothing to draw for a result that is not one. */
                v[i * (size_t)ns + (size_t)s] = NAN;
                if (c->nruns == 0 || c->invalid)
                    continue;
                report_compare_target(c, i, &t);
                if (t.completed)
                    v[i * (size_t)ns + (size_t)s] = hist_percentile(&t.h[H_LATENCY], 99) / 1e6;
                stats_fini(&t);
            }
        }
        if (nb < n)
            snprintf(title, sizeof(title), "p99 per target: %s (the first %u of %u)", p->workloads[w].name, nb, n);
        else
            snprintf(title, sizeof(title), "p99 per target: %s", p->workloads[w].name);
        html_printf(f, "<div class=\"charts\">\n");
        svg_bar_chart(f, title, "latency (ms)", groups, (int)nb, series, ns, v, NULL, NULL, &latency_style);
        html_printf(f, "</div>\n");
    }
    free(groups);
    free(series);
    free(names);
    free(v);
}

/* Workload w's warnings, a line per server that earned one. */
static void cells_notes(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    const struct compare_workload *wl = &p->workloads[w];
    int s;
    for (s = 0; s < p->nservers; s++) {
        const struct compare_cell *c = compare_cell_at(r, w, s);
        char codes[128];
        if (c->nruns == 0)
            continue;
        if (c->implausible_cpu[0]) {
            html_printf(f, "<p class=\"warn\">");
            html_text(f, p->servers[s].name);
            html_printf(f, ": ");
            html_text(f, c->implausible_cpu);
            html_printf(f, ": not a valid result, left out of the charts and of 'vs best'.</p>\n");
        } else if (c->invalid) {
            report_compare_bad_codes(codes, sizeof(codes), &c->total, &wl->cfg.expect);
            html_printf(f, "<p class=\"warn\">");
            html_text(f, p->servers[s].name);
            html_printf(f, ": %.1f%% of responses had a status outside ", c->bad_pct);
            html_text(f, wl->cfg.expect.text);
            html_printf(f, " (");
            html_text(f, c->total.completed ? codes : "no response at all");
            html_printf(f, "): not a valid result, left out of the charts and of 'vs best'.</p>\n");
        }
        if (c->keepalive_refused) {
            html_printf(f, "<p class=\"warn\">");
            html_text(f, p->servers[s].name);
            html_printf(f, ": keep-alive refused by the server (");
            html_text(f, report_compare_close_why(&c->total));
            html_printf(f, "): %.2f connections per request, so this measured new connections.</p>\n", c->conns_per_req);
        }
        if (c->unstable) {
            html_printf(f, "<p class=\"warn\">");
            html_text(f, p->servers[s].name);
            html_printf(f, ": repetitions differ by more than 10%%.</p>\n");
        }
        if (c->found.n) {
            html_printf(f, "<p>");
            html_text(f, p->servers[s].name);
            html_printf(f, ":</p>\n");
            report_html_findings(f, &c->found);
        }
    }
}

/* Each server's processes, in its run with the most memory. */
static void processes_block(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    int w, s;
    html_printf(f, "<h2>Processes</h2>\n<p>Each server in its run with the most memory. Alone (as root) counts its "
               "resident pages each once, a page shared among its processes divided among them only, shared "
               "libraries whole: the memory it uses, whatever runs beside it. PSS is the kernel's: a shared page "
               "divided among every process of the machine that maps it, so a server beside its twin looks "
               "smaller. RSS counts a shared page in every process.</p>\n");
    for (s = 0; s < p->nservers; s++) {
        const struct run_result *top = NULL;
        uint64_t most = 0;
        for (w = 0; w < p->nworkloads; w++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            if (c->best_run >= 0 && (top == NULL || c->mem_peak > most)) {
                top = &c->runs[c->best_run];
                most = c->mem_peak;
            }
        }
        if (top == NULL)
            continue;
        html_printf(f, "<h3>");
        html_text(f, p->servers[s].name);
        html_printf(f, "</h3>\n");
        report_html_server(f, top);
    }
}

/* The servers that failed: why, and their last output lines. */
static void failures_block(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    int s;
    for (s = 0; s < p->nservers; s++)
        if (r->failed[s]) {
            html_printf(f, "<p class=\"warn\">Failed: ");
            html_text(f, p->servers[s].name);
            html_printf(f, ": ");
            html_text(f, r->failure[s]);
            {
                char lines[CMP_OUTPUT_LINES][CMP_OUTPUT_COLS + 4];
                int n = compare_output_lines(r->output[s], lines), k;
                if (n)
                    html_printf(f, "; last output:");
                for (k = 0; k < n; k++) {
                    html_printf(f, "<br/><code>");
                    html_text(f, lines[k]);
                    html_printf(f, "</code>");
                }
            }
            html_printf(f, "</p>\n");
        }
}

int report_compare_html(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    int w;

    page_head(f, p, r);
    servers_table(f, p);
    workloads_table(f, p);
    /* Charts side by side as the window allows (the CSS grid). */
    html_printf(f, "<div class=\"charts\">\n");
    bars(f, p, r, "Throughput (median of rounds, 95% interval)", "requests per second", BAR_RPS);
    bars(f, p, r, "p99 latency (95% interval)", "latency (ms)", BAR_P99);
    bars(f, p, r, "Server CPU per request", "CPU (microseconds per request)", BAR_CPU);
    bars(f, p, r, "Server memory (peak, in each row's measure of the tables)", "memory (MiB)", BAR_MEM);
    memory_chart(f, p, r);
    html_printf(f, "</div>\n");
    for (w = 0; w < p->nworkloads; w++) {
        cells_table(f, p, r, w);
        targets_block(f, p, r, w);
        cells_notes(f, p, r, w);
        html_printf(f, "<div class=\"charts\">\n");
        latency_bars(f, p, r, w);
        percentile_curves(f, p, r, w);
        throughput_over_time(f, p, r, w);
        html_printf(f, "</div>\n");
    }
    processes_block(f, p, r);
    failures_block(f, p, r);
    html_printf(f, "<p style=\"color:#888\">Made by rafale compare. Percentiles within 1%%.</p>\n</body></html>\n");
    return ferror(f) ? -1 : 0;
}
