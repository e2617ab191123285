/* report_compare.c - the results of `rafale compare`: a table per workload
 * (hyperfine-style ratios to the best), an HTML page with charts, JSON. */
#include "compare.h"
#include "report.h"
#include "svg.h"
#include "units.h"

#include <math.h>
#include <string.h>

/* The best median req/s of workload w among servers that ran it. */
static double best_rps(const struct cmp_plan *p, const struct cmp_result *r, int w)
{
    double best = 0;
    int s;
    for (s = 0; s < p->nservers; s++)
        if (!r->failed[s] && r->cells[w][s].runs && r->cells[w][s].rps_median > best)
            best = r->cells[w][s].rps_median;
    return best;
}

static void minmax(const struct cmp_cell *c, double *lo, double *hi)
{
    int i, n = c->runs < 16 ? c->runs : 16;
    *lo = INFINITY;
    *hi = 0;
    for (i = 0; i < n; i++) {
        if (c->rps[i] < *lo)
            *lo = c->rps[i];
        if (c->rps[i] > *hi)
            *hi = c->rps[i];
    }
}

static int unstable(const struct cmp_cell *c)
{
    double lo, hi;
    minmax(c, &lo, &hi);
    return c->runs > 1 && c->rps_median > 0 && (hi - lo) / c->rps_median > 0.10;
}

static void ratio_text(char *b, size_t n, double best, double v)
{
    if (v <= 0)
        snprintf(b, n, "-");
    else if (best / v < 1.005)
        snprintf(b, n, "1.00");
    else
        snprintf(b, n, "%.2fx slower", best / v);
}

void cmp_print(FILE *f, const struct cmp_plan *p, const struct cmp_result *r)
{
    int w, s, flagged = 0;
    for (w = 0; w < p->nworkloads; w++) {
        const struct cmp_workload *wl = &p->workloads[w];
        double best = best_rps(p, r, w);
        char d[32];
        fprintf(f, "\nWorkload '%s': GET %s, %u connections, %s, ", wl->name, wl->path, wl->connections,
                wl->close ? "new connection per request" : "keep-alive");
        if (wl->rate > 0)
            fprintf(f, "%.0f req/s, ", wl->rate);
        if (wl->requests)
            fprintf(f, "%llu requests", (unsigned long long)wl->requests);
        else
            fprintf(f, "%s", units_fmt_ns(d, sizeof(d), (double)wl->duration_ns));
        fprintf(f, " x %d\n", p->repeat);
        fprintf(f, "  %-16s %10s %21s %9s %9s %7s %10s %10s  %s\n", "server", "req/s", "(min - max)", "p50", "p99",
                "errors", "CPU/req", "RSS peak", "vs best");
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = &r->cells[w][s];
            char p50[32], p99[32], cpu[32], rss[32], ratio[32], range[48];
            double lo, hi;
            if (c->runs == 0 || r->failed[s]) {
                fprintf(f, "  %-16s %10s  (failed, see below)\n", p->servers[s].name, "-");
                continue;
            }
            minmax(c, &lo, &hi);
            snprintf(range, sizeof(range), "(%.0f - %.0f)", lo, hi);
            if (c->server_cpu_us >= 0)
                units_fmt_ns(cpu, sizeof(cpu), c->server_cpu_us * 1e3);
            else
                snprintf(cpu, sizeof(cpu), "-");
            if (c->rss_peak)
                units_fmt_bytes(rss, sizeof(rss), (double)c->rss_peak);
            else
                snprintf(rss, sizeof(rss), "-");
            ratio_text(ratio, sizeof(ratio), best, c->rps_median);
            fprintf(f, "  %-16s %10.0f %21s %9s %9s %7llu %10s %10s  %s%s%s\n", p->servers[s].name, c->rps_median, range,
                    units_fmt_ns(p50, sizeof(p50), c->p50_ns), units_fmt_ns(p99, sizeof(p99), c->p99_ns),
                    (unsigned long long)c->errors, cpu, rss, ratio, unstable(c) ? "  [!] runs differ >10%" : "",
                    c->client_bound ? "  [!] rafale was the bottleneck" : "");
            flagged |= unstable(c) || c->client_bound;
        }
    }
    if (flagged)
        fprintf(f, "\n[!] runs differ >10%%: repetitions disagree, the machine is noisy; "
                   "rafale was the bottleneck: its CPU saturated, so the server was not measured at its limit.\n");
    for (s = 0; s < p->nservers; s++)
        if (r->failed[s])
            fprintf(f, "\nFailed: %s: %s\n", p->servers[s].name, r->failure[s]);
    if (r->interrupted)
        fprintf(f, "\nInterrupted: the tables cover the runs made before the signal.\n");
}

int cmp_json(FILE *f, const struct cmp_plan *p, const struct cmp_result *r)
{
    int w, s, first = 1;
    fprintf(f, "{\n  \"tool\": \"rafale\",\n  \"compare\": {\"repeat\": %d, \"interrupted\": %s,\n    \"workloads\": [",
            p->repeat, r->interrupted ? "true" : "false");
    for (w = 0; w < p->nworkloads; w++) {
        const struct cmp_workload *wl = &p->workloads[w];
        double best = best_rps(p, r, w);
        fprintf(f, "%s\n      {\"name\": ", w ? "," : "");
        report_json_str(f, wl->name);
        fprintf(f, ", \"path\": ");
        report_json_str(f, wl->path);
        fprintf(f, ", \"connections\": %u, \"close\": %s, \"rate\": %.3f, \"servers\": [", wl->connections,
                wl->close ? "true" : "false", wl->rate);
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = &r->cells[w][s];
            double lo, hi;
            int i;
            minmax(c, &lo, &hi);
            fprintf(f, "%s\n        {\"name\": ", s ? "," : "");
            report_json_str(f, p->servers[s].name);
            fprintf(f, ", \"runs\": %d, \"rps\": [", c->runs);
            for (i = 0; i < c->runs && i < 16; i++)
                fprintf(f, "%s%.3f", i ? ", " : "", c->rps[i]);
            fprintf(f, "], \"rps_median\": %.3f, \"rps_min\": %.3f, \"rps_max\": %.3f, \"p50_us\": %.3f, \"p99_us\": %.3f, "
                       "\"errors\": %llu, \"requests\": %llu, \"server_cpu_us_per_request\": %.3f, \"rss_peak_bytes\": %llu, "
                       "\"ratio_to_best\": %.4f, \"unstable\": %s, \"client_bound\": %s, \"failed\": %s}",
                    c->rps_median, c->runs ? lo : 0, hi, c->p50_ns / 1e3, c->p99_ns / 1e3, (unsigned long long)c->errors,
                    (unsigned long long)c->completed, c->server_cpu_us, (unsigned long long)c->rss_peak,
                    c->rps_median > 0 && !r->failed[s] ? best / c->rps_median : 0, unstable(c) ? "true" : "false",
                    c->client_bound ? "true" : "false", r->failed[s] ? "true" : "false");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n    ],\n    \"failed\": [");
    for (s = 0; s < p->nservers; s++) {
        if (!r->failed[s])
            continue;
        fprintf(f, "%s{\"name\": ", first ? "" : ", ");
        report_json_str(f, p->servers[s].name);
        fprintf(f, ", \"reason\": ");
        report_json_str(f, r->failure[s]);
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "]}\n}\n");
    return ferror(f) ? -1 : 0;
}

static void bars(FILE *f, const struct cmp_plan *p, const struct cmp_result *r, const char *title, const char *ylabel,
                 int what)
{
    const char *groups[CMP_MAX], *series[CMP_MAX];
    double v[CMP_MAX * CMP_MAX];
    int w, s;
    for (w = 0; w < p->nworkloads; w++)
        groups[w] = p->workloads[w].name;
    for (s = 0; s < p->nservers; s++)
        series[s] = p->servers[s].name;
    for (w = 0; w < p->nworkloads; w++)
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = &r->cells[w][s];
            double x = 0;
            if (c->runs && !r->failed[s]) {
                if (what == 0)
                    x = c->rps_median;
                else if (what == 1)
                    x = c->p99_ns / 1e6;
                else if (what == 2)
                    x = c->server_cpu_us > 0 ? c->server_cpu_us : 0;
                else
                    x = (double)c->rss_peak / (1024.0 * 1024.0);
            }
            v[w * p->nservers + s] = x;
        }
    svg_bar_chart(f, title, ylabel, groups, p->nworkloads, series, p->nservers, v);
}

int cmp_html(FILE *f, const struct cmp_plan *p, const struct cmp_result *r)
{
    static const double ticks[] = { 1, 10, 100, 1000, 10000, 100000 };
    static const char *const labels[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
    int w, s, i;

    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>rafale compare</title><style>"
               "body{font-family:sans-serif;max-width:780px;margin:24px auto;color:#222}h1{font-size:22px}"
               "h2{font-size:17px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}"
               "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}"
               "td:first-child,th:first-child{text-align:left}svg{display:block;margin:12px 0;max-width:100%%;height:auto}"
               ".warn{color:#b00}</style></head><body>\n<h1>rafale compare</h1>\n");
    fprintf(f, "<p>%d servers, %d workloads, %d repetitions interleaved.</p>\n", p->nservers, p->nworkloads, p->repeat);
    bars(f, p, r, "Throughput (median of repetitions)", "requests per second", 0);
    bars(f, p, r, "p99 latency", "latency (ms)", 1);
    bars(f, p, r, "Server CPU per request", "CPU (microseconds per request)", 2);
    bars(f, p, r, "Server memory (peak RSS)", "memory (MiB)", 3);
    for (w = 0; w < p->nworkloads; w++) {
        double best = best_rps(p, r, w), x[121], y[CMP_MAX][121];
        struct svg_series ser[CMP_MAX];
        struct svg_axis ax = { "percentile", 1, ticks, labels, 0 }, ay = { "latency (ms)", 0, NULL, NULL, 0 };
        char title[160];
        int ns = 0;
        uint64_t most = 10;
        double top;
        fprintf(f, "<h2>");
        svg_text(f, p->workloads[w].name);
        fprintf(f, "</h2>\n<table><tr><th>server</th><th>req/s</th><th>min</th><th>max</th><th>p50</th><th>p99</th>"
                   "<th>errors</th><th>CPU/req</th><th>RSS peak</th><th>vs best</th></tr>\n");
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = &r->cells[w][s];
            char a[32], b[32], cpu[32], rss[32], ratio[32];
            double lo, hi;
            fprintf(f, "<tr><td>");
            svg_text(f, p->servers[s].name);
            if (c->runs == 0 || r->failed[s]) {
                fprintf(f, "</td><td colspan=\"9\" class=\"warn\">failed</td></tr>\n");
                continue;
            }
            minmax(c, &lo, &hi);
            if (c->server_cpu_us >= 0)
                units_fmt_ns(cpu, sizeof(cpu), c->server_cpu_us * 1e3);
            else
                snprintf(cpu, sizeof(cpu), "-");
            units_fmt_bytes(rss, sizeof(rss), (double)c->rss_peak);
            ratio_text(ratio, sizeof(ratio), best, c->rps_median);
            fprintf(f, "</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%s</td><td>%llu</td><td>%s</td>"
                       "<td>%s</td><td>%s%s</td></tr>\n",
                    c->rps_median, lo, hi, units_fmt_ns(a, sizeof(a), c->p50_ns), units_fmt_ns(b, sizeof(b), c->p99_ns),
                    (unsigned long long)c->errors, cpu, rss, ratio, unstable(c) ? " (runs differ &gt;10%)" : "");
            if (c->lat.total > most)
                most = c->lat.total;
        }
        fprintf(f, "</table>\n");
        top = log10((double)most);
        if (top > 5)
            top = 5;
        for (i = 0; i < 121; i++)
            x[i] = pow(10, top * i / 120);
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = &r->cells[w][s];
            if (c->runs == 0 || r->failed[s])
                continue;
            for (i = 0; i < 121; i++)
                y[ns][i] = hist_percentile(&c->lat, 100.0 * (1 - 1 / x[i])) / 1e6;
            ser[ns].name = p->servers[s].name;
            ser[ns].x = x;
            ser[ns].y = y[ns];
            ser[ns].n = 121;
            ns++;
        }
        ax.nticks = (int)floor(top) + 1;
        snprintf(title, sizeof(title), "Latency by percentile: %s", p->workloads[w].name);
        if (ns)
            svg_line_chart(f, title, &ax, &ay, ser, ns);
    }
    for (s = 0; s < p->nservers; s++)
        if (r->failed[s]) {
            fprintf(f, "<p class=\"warn\">Failed: ");
            svg_text(f, p->servers[s].name);
            fprintf(f, ": ");
            svg_text(f, r->failure[s]);
            fprintf(f, "</p>\n");
        }
    fprintf(f, "<p style=\"color:#888\">Made by rafale compare.</p>\n</body></html>\n");
    return ferror(f) ? -1 : 0;
}
