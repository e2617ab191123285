/* report_compare.c - the results of `rafale compare`: a table per workload
 * (hyperfine-style ratios to the best valid result), the servers' processes,
 * an HTML page with charts, and JSON holding every run in full. */
#include "compare.h"
#include "report.h"
#include "svg.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The best median req/s of workload w among the servers whose result is
 * valid. */
static double best_rps(const struct cmp_result *r, int w)
{
    double best = 0;
    int s;
    for (s = 0; s < r->nservers; s++) {
        const struct cmp_cell *c = cmp_cell(r, w, s);
        if (!r->failed[s] && c->nruns && !c->invalid && c->rps_median > best)
            best = c->rps_median;
    }
    return best;
}

static const char *ratio_text(char *b, size_t n, const struct cmp_cell *c, double best)
{
    if (c->invalid)
        snprintf(b, n, "not valid");
    else if (c->rps_median <= 0 || best <= 0)
        snprintf(b, n, "-");
    else if (best / c->rps_median < 1.005)
        snprintf(b, n, "1.00");
    else
        snprintf(b, n, "%.2fx slower", best / c->rps_median);
    return b;
}

/* "GET /, 50 connections, keep-alive, 10000 requests, 2 headers, ..." */
static void describe(char *b, size_t n, const struct cmp_workload *wl)
{
    const struct config *c = &wl->cfg;
    char d[32];
    size_t u = 0;
#define ADD(...) do { int w_ = snprintf(b + u, n > u ? n - u : 0, __VA_ARGS__); if (w_ > 0) u += (size_t)w_; } while (0)
    ADD("%s %s, %u connections, %s", c->method, wl->path, c->connections,
        c->keepalive ? "keep-alive" : "a new connection per request");
    if (c->rate > 0)
        ADD(", %.0f req/s", c->rate);
    if (c->requests)
        ADD(", %llu requests", (unsigned long long)c->requests);
    if (c->duration_ns && (!c->requests || c->duration_ns != 5000000000ULL))
        ADD(", %s", units_fmt_ns(d, sizeof(d), (double)c->duration_ns));
    if (c->nheaders)
        ADD(", %u header%s", c->nheaders, c->nheaders == 1 ? "" : "s");
    if (c->has_body)
        ADD(", %zu-byte body", c->body_len);
    if (strcmp(c->expect.text, "2xx,3xx") != 0)
        ADD(", expect %s", c->expect.text);
#undef ADD
}

static int name_width(const struct cmp_plan *p)
{
    int s, w = 6;
    for (s = 0; s < p->nservers; s++)
        if ((int)strlen(p->servers[s].name) > w)
            w = (int)strlen(p->servers[s].name);
    return w > 40 ? 40 : w;
}

/* The statuses outside the expected set, "502: 9000, 500: 12". */
static void bad_codes(char *b, size_t n, const struct stats *t, const struct status_set *expect)
{
    size_t u = 0;
    unsigned i;
    int k = 0;
    b[0] = '\0';
    for (i = 0; i < STATUS_MAX && k < 4; i++)
        if (t->status[i] && !status_set_has(expect, i)) {
            int w = snprintf(b + u, n > u ? n - u : 0, "%s%u: %llu", k++ ? ", " : "", i, (unsigned long long)t->status[i]);
            if (w > 0)
                u += (size_t)w;
        }
}

/* Why the server closed keep-alive connections, in words. */
static const char *close_why(const struct stats *t)
{
    int k, top = 0;
    for (k = 1; k < CLOSE_IDLE; k++)
        if (t->closes[k] > t->closes[top])
            top = k;
    return t->closes[top] ? stats_close_explain((enum close_kind)top) : "closed without saying why";
}

static const char *mem_label(const struct cmp_result *r, int w)
{
    int s;
    for (s = 0; s < r->nservers; s++) {
        const struct cmp_cell *c = cmp_cell(r, w, s);
        if (c->best_run >= 0 && !c->mem_is_pss)
            return "RSS peak";
    }
    return "PSS peak";
}

void cmp_print(FILE *f, const struct cmp_plan *p, const struct cmp_result *r)
{
    int w, s, nw = name_width(p), any_notes = 0;

    if (r->note[0])
        fprintf(f, "\nNote: servers ran in process groups, not cgroups (%s): a server that daemonizes escapes them.\n",
                r->note);
    for (w = 0; w < p->nworkloads; w++) {
        const struct cmp_workload *wl = &p->workloads[w];
        double best = best_rps(r, w);
        char desc[400];
        describe(desc, sizeof(desc), wl);
        fprintf(f, "\nWorkload '%s': %s, x %d\n", wl->name, desc, p->set.repeat);
        fprintf(f, "  %-*s %9s %19s %9s %9s %8s %10s %8s %9s %10s  %s\n", nw, "server", "req/s", "(min - max req/s)",
                "p50", "p99", "errors", "bad status", "conn/req", "CPU/req", mem_label(r, w), "vs best");
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            char p50[32], p99[32], cpu[32], mem[32], ratio[32], range[48], bad[16];
            if (c->nruns == 0) {
                fprintf(f, "  %-*.*s %9s  (%s)\n", nw, nw, p->servers[s].name, "-",
                        r->failed[s] ? "failed, see below" : "not run");
                continue;
            }
            snprintf(range, sizeof(range), "(%.0f - %.0f)", c->rps_min, c->rps_max);
            if (c->server_cpu_us >= 0)
                units_fmt_ns(cpu, sizeof(cpu), c->server_cpu_us * 1e3);
            else
                snprintf(cpu, sizeof(cpu), "-");
            if (c->best_run >= 0)
                units_fmt_bytes(mem, sizeof(mem), (double)c->mem_peak);
            else
                snprintf(mem, sizeof(mem), "-");
            snprintf(bad, sizeof(bad), "%.1f%%", c->bad_pct);
            fprintf(f, "  %-*.*s %9.0f %19s %9s %9s %8llu %10s %8.2f %9s %10s  %s\n", nw, nw, p->servers[s].name,
                    c->rps_median, range, units_fmt_ns(p50, sizeof(p50), hist_percentile(&c->total.latency, 50)),
                    units_fmt_ns(p99, sizeof(p99), hist_percentile(&c->total.latency, 99)),
                    (unsigned long long)stats_errors(&c->total), bad, c->conns_per_req, cpu, mem,
                    ratio_text(ratio, sizeof(ratio), c, best));
        }
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            const char *name = p->servers[s].name;
            char codes[128];
            if (c->nruns == 0)
                continue;
            if (c->invalid) {
                bad_codes(codes, sizeof(codes), &c->total, &wl->cfg.expect);
                fprintf(f, "  [!] %s: %.1f%% of responses had a status outside %s (%s): not a valid result, "
                           "left out of 'vs best'\n", name, c->bad_pct, wl->cfg.expect.text,
                        c->total.completed ? codes : "no response at all");
            } else if (c->bad_pct > 0) {
                bad_codes(codes, sizeof(codes), &c->total, &wl->cfg.expect);
                fprintf(f, "  [!] %s: %.1f%% bad statuses (%s)\n", name, c->bad_pct, codes);
            }
            if (c->keepalive_refused)
                fprintf(f, "  [!] %s: keep-alive refused by the server (%s): %.2f connections per request, so this "
                           "measured new connections\n", name, close_why(&c->total), c->conns_per_req);
            if (c->unstable)
                fprintf(f, "  [!] %s: repetitions differ by more than 10%%: the machine is noisy\n", name);
            if (c->client_bound)
                fprintf(f, "  [!] %s: rafale's own CPU was saturated: the server was not measured at its limit\n", name);
            any_notes |= c->invalid || c->keepalive_refused || c->unstable || c->client_bound || c->bad_pct > 0;
        }
    }
    (void)any_notes;
    fprintf(f, "\nServers\n");
    for (s = 0; s < p->nservers; s++) {
        const struct cmp_server *sv = &p->servers[s];
        const struct cmp_run *top = NULL;
        uint64_t most = 0;
        for (w = 0; w < p->nworkloads; w++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            if (c->best_run >= 0 && (top == NULL || c->mem_peak > most)) {
                top = &c->runs[c->best_run];
                most = c->mem_peak;
            }
        }
        fprintf(f, "  %s: ", sv->name);
        if (sv->start)
            fprintf(f, "start = %s", sv->start);
        else if (sv->pid)
            fprintf(f, "pid %d (attached)", sv->pid);
        else
            fprintf(f, "cgroup %s (attached)", sv->cgroup);
        fprintf(f, "\n");
        if (sv->version)
            fprintf(f, "    version: %s\n", sv->version);
        if (top) {
            fprintf(f, "    in its run with the most memory:\n");
            report_server_text(f, &top->server, top->res.total.completed, "    ");
        }
    }
    for (s = 0; s < p->nservers; s++)
        if (r->failed[s])
            fprintf(f, "\nFailed: %s: %s\n", p->servers[s].name, r->failure[s]);
    if (r->interrupted)
        fprintf(f, "\nInterrupted: the tables cover the runs made before the signal.\n");
}

/* --- JSON ---------------------------------------------------------------- */

static void jstr_or_null(FILE *f, const char *s)
{
    if (s)
        report_json_str(f, s);
    else
        fputs("null", f);
}

static void cpus(FILE *f, const int *c, int n)
{
    int i;
    fputc('[', f);
    for (i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? ", " : "", c[i]);
    fputc(']', f);
}

int cmp_json(FILE *f, const struct cmp_plan *p, const struct cmp_result *r)
{
    int w, s, k, first = 1;
    unsigned i;

    fprintf(f, "{\n\"tool\": \"rafale\",\n\"compare\": {\"plan\": ");
    jstr_or_null(f, p->file);
    fprintf(f, ", \"repeat\": %d, \"grace_s\": %.3f, \"ready_timeout_s\": %.3f, \"server_cpus\": ", p->set.repeat,
            (double)p->set.grace_ns / 1e9, (double)p->set.ready_ns / 1e9);
    cpus(f, p->set.server_cpus, p->set.nserver_cpus);
    fprintf(f, ", \"client_cpus\": ");
    cpus(f, p->set.client_cpus, p->set.nclient_cpus);
    fprintf(f, ", \"interrupted\": %s, \"cgroups\": %s, \"note\": ", r->interrupted ? "true" : "false",
            r->cgroups ? "true" : "false");
    report_json_str(f, r->note);
    fprintf(f, ",\n\"servers\": [");
    for (s = 0; s < p->nservers; s++) {
        const struct cmp_server *sv = &p->servers[s];
        fprintf(f, "%s\n  {\"name\": ", s ? "," : "");
        report_json_str(f, sv->name);
        fprintf(f, ", \"url\": ");
        report_json_str(f, sv->url);
        fprintf(f, ", \"start\": ");
        jstr_or_null(f, sv->start);
        fprintf(f, ", \"pid\": %d, \"cgroup\": ", sv->pid);
        jstr_or_null(f, sv->cgroup);
        fprintf(f, ", \"version\": ");
        jstr_or_null(f, sv->version);
        fprintf(f, ", \"failed\": %s, \"reason\": ", r->failed[s] ? "true" : "false");
        jstr_or_null(f, r->failed[s] ? r->failure[s] : NULL);
        fprintf(f, "}");
    }
    fprintf(f, "],\n\"workloads\": [");
    for (w = 0; w < p->nworkloads; w++) {
        const struct cmp_workload *wl = &p->workloads[w];
        double best = best_rps(r, w);
        fprintf(f, "%s\n {\"name\": ", w ? "," : "");
        report_json_str(f, wl->name);
        fprintf(f, ", \"path\": ");
        report_json_str(f, wl->path);
        fprintf(f, ", \"connections\": %u, \"close\": %s, \"rate\": %.3f,\n  \"config\": ", wl->cfg.connections,
                wl->cfg.keepalive ? "false" : "true", wl->cfg.rate);
        report_json_config(f, &wl->cfg);
        fprintf(f, ",\n  \"servers\": [");
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            const struct stats *t = &c->total;
            int fs = 1;
            fprintf(f, "%s\n   {\"name\": ", s ? "," : "");
            report_json_str(f, p->servers[s].name);
            fprintf(f, ", \"url\": ");
            jstr_or_null(f, c->url);
            fprintf(f, ", \"runs\": %d, \"rps\": [", c->nruns);
            for (k = 0; k < c->nruns; k++)
                fprintf(f, "%s%.3f", k ? ", " : "",
                        c->runs[k].res.elapsed_s > 0 ? (double)c->runs[k].res.total.completed / c->runs[k].res.elapsed_s : 0);
            fprintf(f, "], \"rps_median\": %.3f, \"rps_min\": %.3f, \"rps_max\": %.3f, \"mean_us\": %.3f, \"p50_us\": %.3f, "
                       "\"p99_us\": %.3f, \"max_us\": %.3f, \"requests\": %llu, \"errors\": %llu, \"unexpected_status\": %llu, "
                       "\"bad_status_pct\": %.3f, \"connections_opened\": %llu, \"connections_per_request\": %.4f, "
                       "\"keepalive_refused\": %s, \"server_cpu_us_per_request\": %.3f, \"memory_peak_bytes\": %llu, "
                       "\"memory_kind\": \"%s\", \"ratio_to_best\": %.4f, \"valid\": %s, \"unstable\": %s, "
                       "\"client_bound\": %s, \"failed\": %s, \"status\": {",
                    c->rps_median, c->rps_min, c->rps_max, hist_mean(&t->latency) / 1e3,
                    hist_percentile(&t->latency, 50) / 1e3, hist_percentile(&t->latency, 99) / 1e3,
                    (double)t->latency.max / 1e3, (unsigned long long)t->completed,
                    (unsigned long long)stats_errors(t), (unsigned long long)t->bad_status, c->bad_pct,
                    (unsigned long long)t->conns_opened, c->conns_per_req, c->keepalive_refused ? "true" : "false",
                    c->server_cpu_us, (unsigned long long)c->mem_peak, c->mem_is_pss ? "pss" : "rss",
                    c->rps_median > 0 && !c->invalid && best > 0 ? best / c->rps_median : 0,
                    c->nruns && !c->invalid ? "true" : "false", c->unstable ? "true" : "false",
                    c->client_bound ? "true" : "false", r->failed[s] ? "true" : "false");
            for (i = 0; i < STATUS_MAX; i++)
                if (t->status[i]) {
                    fprintf(f, "%s\"%u\": %llu", fs ? "" : ", ", i, (unsigned long long)t->status[i]);
                    fs = 0;
                }
            fprintf(f, "},\n    \"run_results\": [");
            for (k = 0; k < c->nruns; k++) {
                /* Each run exactly as `rafale --json` writes it. */
                struct config cfg = wl->cfg;
                const char *ut[1] = { c->url ? c->url : "" };
                cfg.url_text = ut;
                cfg.nurls = 1;
                fprintf(f, "%s\n", k ? "," : "");
                report_json(f, &cfg, &c->runs[k].res, c->runs[k].has_server ? &c->runs[k].server : NULL, NULL);
            }
            fprintf(f, "]}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n],\n\"failed\": [");
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

/* --- HTML ---------------------------------------------------------------- */

enum what { BAR_RPS, BAR_P99, BAR_CPU, BAR_MEM };

static void bars(FILE *f, const struct cmp_plan *p, const struct cmp_result *r, const char *title, const char *ylabel,
                 enum what what)
{
    const char **groups = calloc((size_t)p->nworkloads, sizeof(char *));
    const char **series = calloc((size_t)p->nservers, sizeof(char *));
    double *v = calloc((size_t)(p->nworkloads * p->nservers), sizeof(double));
    int w, s;
    if (groups && series && v) {
        for (w = 0; w < p->nworkloads; w++)
            groups[w] = p->workloads[w].name;
        for (s = 0; s < p->nservers; s++)
            series[s] = p->servers[s].name;
        for (w = 0; w < p->nworkloads; w++)
            for (s = 0; s < p->nservers; s++) {
                const struct cmp_cell *c = cmp_cell(r, w, s);
                double x = c->invalid ? NAN : 0;
                /* A result made of failures draws no bar: it would win. */
                if (c->nruns && !c->invalid) {
                    if (what == BAR_RPS)
                        x = c->rps_median;
                    else if (what == BAR_P99)
                        x = hist_percentile(&c->total.latency, 99) / 1e6;
                    else if (what == BAR_CPU)
                        x = c->server_cpu_us > 0 ? c->server_cpu_us : 0;
                    else
                        x = (double)c->mem_peak / (1024.0 * 1024.0);
                }
                v[w * p->nservers + s] = x;
            }
        svg_bar_chart(f, title, ylabel, groups, p->nworkloads, series, p->nservers, v);
    }
    free(groups);
    free(series);
    free(v);
}

/* Mean, p50 and p99 of one workload, a group each, a bar per server. */
static void latency_bars(FILE *f, const struct cmp_plan *p, const struct cmp_result *r, int w)
{
    static const char *const groups[3] = { "mean", "p50", "p99" };
    const char **series = calloc((size_t)p->nservers, sizeof(char *));
    double *v = calloc((size_t)(3 * p->nservers), sizeof(double));
    char title[200];
    int s;
    if (series && v) {
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            series[s] = p->servers[s].name;
            if (c->invalid)
                v[s] = v[p->nservers + s] = v[2 * p->nservers + s] = NAN;
            if (c->nruns == 0 || c->invalid)
                continue;
            v[0 * p->nservers + s] = hist_mean(&c->total.latency) / 1e6;
            v[1 * p->nservers + s] = hist_percentile(&c->total.latency, 50) / 1e6;
            v[2 * p->nservers + s] = hist_percentile(&c->total.latency, 99) / 1e6;
        }
        snprintf(title, sizeof(title), "Latency: %s", p->workloads[w].name);
        svg_bar_chart(f, title, "latency (ms)", groups, 3, series, p->nservers, v);
    }
    free(series);
    free(v);
}

/* Percentile curves of one workload; a log latency axis when one server's
 * tail would flatten every other curve. */
static void percentile_curves(FILE *f, const struct cmp_plan *p, const struct cmp_result *r, int w)
{
    static const double ticks[] = { 1, 10, 100, 1000, 10000, 100000 };
    static const char *const labels[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
    enum { N = 121 };
    struct svg_series *ser = calloc((size_t)p->nservers, sizeof(*ser));
    double x[N], *y = calloc((size_t)(p->nservers * N), sizeof(double)), top, lo_p50 = INFINITY, hi = 0;
    struct svg_axis ax = { "percentile", 1, ticks, labels, 0 }, ay = { "latency (ms)", 0, NULL, NULL, 0 };
    uint64_t most = 10;
    char title[200];
    int s, i, ns = 0;

    if (ser == NULL || y == NULL)
        goto out;
    for (s = 0; s < p->nservers; s++) {
        const struct cmp_cell *c = cmp_cell(r, w, s);
        if (c->nruns && c->total.latency.total > most)
            most = c->total.latency.total;
    }
    top = log10((double)most);
    if (top > 5)
        top = 5;
    for (i = 0; i < N; i++)
        x[i] = pow(10, top * i / (N - 1));
    for (s = 0; s < p->nservers; s++) {
        const struct cmp_cell *c = cmp_cell(r, w, s);
        double *ys = y + ns * N;
        if (c->nruns == 0 || c->total.latency.total == 0 || c->invalid)
            continue;
        for (i = 0; i < N; i++)
            ys[i] = hist_percentile(&c->total.latency, 100.0 * (1 - 1 / x[i])) / 1e6;
        if (ys[0] <= 0)
            ys[0] = 1e-6;
        if (hist_percentile(&c->total.latency, 50) / 1e6 < lo_p50)
            lo_p50 = hist_percentile(&c->total.latency, 50) / 1e6;
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

/* Memory (PSS, or RSS) of each server over its time under load, its runs
 * laid end to end. */
static void memory_chart(FILE *f, const struct cmp_plan *p, const struct cmp_result *r)
{
    struct svg_series *ser = calloc((size_t)p->nservers, sizeof(*ser));
    double **xs = calloc((size_t)p->nservers, sizeof(double *)), **ys = calloc((size_t)p->nservers, sizeof(double *));
    struct svg_axis ax = { "seconds under load (runs end to end)", 0, NULL, NULL, 0 };
    struct svg_axis ay = { "memory (MiB)", 0, NULL, NULL, 0 };
    int s, w, k, ns = 0, pss = 1;

    if (ser == NULL || xs == NULL || ys == NULL)
        goto out;
    for (s = 0; s < p->nservers; s++) {
        uint32_t n = 0, i;
        double off = 0;
        for (w = 0; w < p->nworkloads; w++)
            for (k = 0; k < cmp_cell(r, w, s)->nruns; k++) {
                n += cmp_cell(r, w, s)->runs[k].server.npoints;
                pss &= !cmp_cell(r, w, s)->runs[k].has_server || cmp_cell(r, w, s)->runs[k].server.has_pss;
            }
        if (n == 0)
            continue;
        xs[ns] = calloc(n, sizeof(double));
        ys[ns] = calloc(n, sizeof(double));
        if (xs[ns] == NULL || ys[ns] == NULL)
            goto out;
        n = 0;
        for (w = 0; w < p->nworkloads; w++)
            for (k = 0; k < cmp_cell(r, w, s)->nruns; k++) {
                const struct monitor_result *m = &cmp_cell(r, w, s)->runs[k].server;
                double last = 0;
                for (i = 0; i < m->npoints; i++) {
                    xs[ns][n] = off + m->series[i].t_s;
                    ys[ns][n++] = (double)(pss ? m->series[i].pss_bytes : m->series[i].rss_bytes) / (1024.0 * 1024.0);
                    last = m->series[i].t_s;
                }
                off += last;
            }
        ser[ns].name = p->servers[s].name;
        ser[ns].x = xs[ns];
        ser[ns].y = ys[ns];
        ser[ns].n = (int)n;
        ns++;
    }
    if (!pss)
        ay.label = "memory (MiB, RSS summed: PSS was not readable)";
    if (ns)
        svg_line_chart(f, pss ? "Server memory (PSS) over time" : "Server memory (RSS) over time", &ax, &ay, ser, ns);
out:
    for (s = 0; xs && ys && s < p->nservers; s++) {
        free(xs[s]);
        free(ys[s]);
    }
    free(xs);
    free(ys);
    free(ser);
}

static void html_text(FILE *f, const char *s)
{
    svg_text(f, s ? s : "");
}

int cmp_html(FILE *f, const struct cmp_plan *p, const struct cmp_result *r)
{
    int w, s;
    char a[32], b[32], c2[32], d[32];

    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>rafale compare</title><style>"
               "body{font-family:sans-serif;max-width:960px;margin:24px auto;color:#222}h1{font-size:22px}"
               "h2{font-size:17px;margin-top:28px}h3{font-size:15px}table{border-collapse:collapse;margin:8px 0}"
               "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}"
               "td:first-child,th:first-child{text-align:left}td.l,th.l{text-align:left}code{font-size:12px}"
               "table.cells{font-size:13px}table.cells th{font-weight:normal}"
               "svg{display:block;margin:12px 0;max-width:100%%;height:auto}.warn{color:#b00}</style></head><body>\n"
               "<h1>rafale compare</h1>\n");
    fprintf(f, "<p>%d server%s, %d workload%s, %d repetition%s interleaved", p->nservers, p->nservers == 1 ? "" : "s",
            p->nworkloads, p->nworkloads == 1 ? "" : "s", p->set.repeat, p->set.repeat == 1 ? "" : "s");
    if (p->set.nserver_cpus && p->set.nclient_cpus)
        fprintf(f, "; servers pinned to CPU %d%s, rafale to CPU %d%s", p->set.server_cpus[0],
                p->set.nserver_cpus > 1 ? "..." : "", p->set.client_cpus[0], p->set.nclient_cpus > 1 ? "..." : "");
    fprintf(f, ".%s</p>\n", r->cgroups ? " Each server ran in a cgroup of its own: every process it started was "
                                          "measured and stopped." : "");
    if (r->note[0]) {
        fprintf(f, "<p class=\"warn\">Servers ran in process groups only: ");
        html_text(f, r->note);
        fprintf(f, ".</p>\n");
    }
    if (r->interrupted)
        fprintf(f, "<p class=\"warn\">Interrupted: the figures cover the runs made before the signal.</p>\n");

    fprintf(f, "<h2>Servers</h2>\n<table><tr><th>server</th><th class=\"l\">url</th><th class=\"l\">started with</th>"
               "<th class=\"l\">version</th></tr>\n");
    for (s = 0; s < p->nservers; s++) {
        const struct cmp_server *sv = &p->servers[s];
        fprintf(f, "<tr><td>");
        html_text(f, sv->name);
        fprintf(f, "</td><td class=\"l\">");
        html_text(f, sv->url);
        fprintf(f, "</td><td class=\"l\"><code>");
        if (sv->start)
            html_text(f, sv->start);
        else if (sv->pid)
            fprintf(f, "pid %d (attached)", sv->pid);
        else
            html_text(f, sv->cgroup);
        fprintf(f, "</code></td><td class=\"l\">");
        html_text(f, sv->version ? sv->version : "-");
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n<h2>Workloads</h2>\n<table><tr><th>workload</th><th class=\"l\">request</th><th>connections</th>"
               "<th class=\"l\">mode</th><th>length</th><th>rate (req/s)</th><th>warm-up</th><th>good statuses</th></tr>\n");
    for (w = 0; w < p->nworkloads; w++) {
        const struct cmp_workload *wl = &p->workloads[w];
        const struct config *c = &wl->cfg;
        uint32_t h;
        fprintf(f, "<tr><td>");
        html_text(f, wl->name);
        fprintf(f, "</td><td class=\"l\"><code>");
        html_text(f, c->method);
        fprintf(f, " ");
        html_text(f, wl->path);
        for (h = 0; h < c->nheaders; h++) {
            fprintf(f, "<br/>");
            html_text(f, c->headers[h]);
        }
        if (c->has_body)
            fprintf(f, "<br/>(body: %zu bytes)", c->body_len);
        fprintf(f, "</code></td><td>%u</td><td class=\"l\">%s</td><td>", c->connections,
                c->keepalive ? "keep-alive" : "new connection per request");
        if (c->requests)
            fprintf(f, "%llu requests", (unsigned long long)c->requests);
        if (c->duration_ns && (!c->requests || c->duration_ns != 5000000000ULL))
            fprintf(f, "%s%s", c->requests ? ", at most " : "", units_fmt_ns(a, sizeof(a), (double)c->duration_ns));
        if (c->rate > 0)
            snprintf(b, sizeof(b), "%.0f", c->rate);
        fprintf(f, "</td><td>%s</td><td>%s</td><td>", c->rate > 0 ? b : "closed loop",
                units_fmt_ns(c2, sizeof(c2), (double)c->warmup_ns));
        html_text(f, c->expect.text);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");

    bars(f, p, r, "Throughput (median of repetitions)", "requests per second", BAR_RPS);
    bars(f, p, r, "p99 latency", "latency (ms)", BAR_P99);
    bars(f, p, r, "Server CPU per request", "CPU (microseconds per request)", BAR_CPU);
    bars(f, p, r, "Server memory (peak PSS; RSS where PSS was not readable)", "memory (MiB)", BAR_MEM);
    memory_chart(f, p, r);

    for (w = 0; w < p->nworkloads; w++) {
        const struct cmp_workload *wl = &p->workloads[w];
        double best = best_rps(r, w);
        char desc[400];
        describe(desc, sizeof(desc), wl);
        fprintf(f, "<h2>");
        html_text(f, wl->name);
        fprintf(f, "</h2>\n<p>");
        html_text(f, desc);
        fprintf(f, ".</p>\n<table class=\"cells\"><tr><th rowspan=\"2\">server</th>"
                   "<th colspan=\"3\">throughput (req/s)</th><th colspan=\"4\">latency</th>"
                   "<th rowspan=\"2\">errors</th><th rowspan=\"2\">bad status (%% of responses)</th>"
                   "<th rowspan=\"2\">connections per request</th><th rowspan=\"2\">server CPU per request</th>"
                   "<th rowspan=\"2\">server memory (%s)</th><th rowspan=\"2\">vs best</th></tr>\n"
                   "<tr><th>median</th><th>min</th><th>max</th><th>mean</th><th>p50</th><th>p99</th><th>max</th></tr>\n",
                mem_label(r, w));
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            char cpu[32], mem[32], ratio[32];
            fprintf(f, "<tr><td>");
            html_text(f, p->servers[s].name);
            if (c->nruns == 0) {
                fprintf(f, "</td><td colspan=\"13\" class=\"warn\">%s</td></tr>\n", r->failed[s] ? "failed" : "not run");
                continue;
            }
            if (c->server_cpu_us >= 0)
                units_fmt_ns(cpu, sizeof(cpu), c->server_cpu_us * 1e3);
            else
                snprintf(cpu, sizeof(cpu), "-");
            if (c->best_run >= 0)
                units_fmt_bytes(mem, sizeof(mem), (double)c->mem_peak);
            else
                snprintf(mem, sizeof(mem), "-");
            fprintf(f, "</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                       "<td>%llu</td><td%s>%.1f</td><td%s>%.2f</td><td>%s</td><td>%s</td><td%s>%s</td></tr>\n",
                    c->rps_median, c->rps_min, c->rps_max, units_fmt_ns(a, sizeof(a), hist_mean(&c->total.latency)),
                    units_fmt_ns(b, sizeof(b), hist_percentile(&c->total.latency, 50)),
                    units_fmt_ns(c2, sizeof(c2), hist_percentile(&c->total.latency, 99)),
                    units_fmt_ns(d, sizeof(d), (double)c->total.latency.max), (unsigned long long)stats_errors(&c->total),
                    c->bad_pct > 0 ? " class=\"warn\"" : "", c->bad_pct, c->keepalive_refused ? " class=\"warn\"" : "",
                    c->conns_per_req, cpu, mem, c->invalid ? " class=\"warn\"" : "", ratio_text(ratio, sizeof(ratio), c, best));
        }
        fprintf(f, "</table>\n");
        for (s = 0; s < p->nservers; s++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            char codes[128];
            if (c->nruns == 0)
                continue;
            if (c->invalid) {
                bad_codes(codes, sizeof(codes), &c->total, &wl->cfg.expect);
                fprintf(f, "<p class=\"warn\">");
                html_text(f, p->servers[s].name);
                fprintf(f, ": %.1f%% of responses had a status outside ", c->bad_pct);
                html_text(f, wl->cfg.expect.text);
                fprintf(f, " (");
                html_text(f, c->total.completed ? codes : "no response at all");
                fprintf(f, "): not a valid result, left out of the charts and of 'vs best'.</p>\n");
            }
            if (c->keepalive_refused) {
                fprintf(f, "<p class=\"warn\">");
                html_text(f, p->servers[s].name);
                fprintf(f, ": keep-alive refused by the server (");
                html_text(f, close_why(&c->total));
                fprintf(f, "): %.2f connections per request, so this measured new connections.</p>\n", c->conns_per_req);
            }
            if (c->unstable || c->client_bound) {
                fprintf(f, "<p class=\"warn\">");
                html_text(f, p->servers[s].name);
                fprintf(f, ":%s%s</p>\n", c->unstable ? " repetitions differ by more than 10%." : "",
                        c->client_bound ? " rafale's own CPU was saturated: the server was not measured at its limit."
                                        : "");
            }
        }
        latency_bars(f, p, r, w);
        percentile_curves(f, p, r, w);
    }

    fprintf(f, "<h2>Processes</h2>\n<p>Each server in its run with the most memory. PSS divides each shared page "
               "among the processes sharing it, so it adds up to the memory really used; RSS counts a shared page "
               "in every process.</p>\n");
    for (s = 0; s < p->nservers; s++) {
        const struct cmp_run *top = NULL;
        uint64_t most = 0;
        for (w = 0; w < p->nworkloads; w++) {
            const struct cmp_cell *c = cmp_cell(r, w, s);
            if (c->best_run >= 0 && (top == NULL || c->mem_peak > most)) {
                top = &c->runs[c->best_run];
                most = c->mem_peak;
            }
        }
        if (top == NULL)
            continue;
        fprintf(f, "<h3>");
        html_text(f, p->servers[s].name);
        fprintf(f, "</h3>\n");
        report_html_server(f, &top->server, top->res.total.completed);
    }
    for (s = 0; s < p->nservers; s++)
        if (r->failed[s]) {
            fprintf(f, "<p class=\"warn\">Failed: ");
            html_text(f, p->servers[s].name);
            fprintf(f, ": ");
            html_text(f, r->failure[s]);
            fprintf(f, "</p>\n");
        }
    fprintf(f, "<p style=\"color:#888\">Made by rafale compare. Percentiles within 1%%.</p>\n</body></html>\n");
    return ferror(f) ? -1 : 0;
}
