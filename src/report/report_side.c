/* report_side.c - several saved runs side by side (rafale report a.json
 * b.json): each run's settings in a line, then a row of its headline
 * figures, so they read across rather than as whole reports one after
 * the other. */
#include "report.h"
#include "units.h"

#include <string.h>

/* The warnings' ids, "a, b", or "-" (an interrupted run says so first). */
static void warnings(char *b, size_t n, const struct run_result *x)
{
    size_t at = 0;
    int i;
    b[0] = '\0';
    if (x->fig.interrupted)
        at += (size_t)snprintf(b, n, "interrupted");
    for (i = 0; x->has_findings && i < x->found.n && at < n; i++)
        if (x->found.f[i].warning)
            at += (size_t)snprintf(b + at, n - at, "%s%s", at ? ", " : "", x->found.f[i].id);
    if (b[0] == '\0')
        snprintf(b, n, "-");
}

void report_side_text(FILE *f, const struct run_result *const *runs, const char *const *names, int n)
{
    int i, w = 4;
    for (i = 0; i < n; i++)
        if ((int)strlen(names[i]) > w)
            w = (int)strlen(names[i]);
    fprintf(f, "Side by side  %d runs, a row each (rafale report FILE gives one in full)\n", n);
    for (i = 0; i < n; i++) {
        const struct config *cfg = runs[i]->cfg;
        fprintf(f, "  %s: ", names[i]);
        report_setup_line(f, cfg);
        if (cfg->ntargets)
            fprintf(f, "\n  %*s  %s", w, "", cfg->url_text[0]);
        if (cfg->ntargets > 1)
            fprintf(f, " and %u more", cfg->ntargets - 1);
        fputc('\n', f);
    }
    fprintf(f, "\n  %-*s %9s %7s %10s %10s %9s %9s %9s %8s %9s %13s  %s\n", w, "file", "requests", "errors",
            "bad status", "req/s", "p50", "p99", "max", "conn/req", "CPU/req", "memory peak", "warnings");
    for (i = 0; i < n; i++) {
        const struct stats *s = &runs[i]->fig.total;
        const struct monitor_result *m = runs[i]->has_server ? &runs[i]->server : NULL;
        double el = runs[i]->fig.elapsed_s;
        char p50[32] = "-", p99[32] = "-", max[32] = "-", bad[16], cpu[32] = "-", mem[48] = "-", warn[256];
        snprintf(bad, sizeof(bad), "%.1f%%", s->completed ? 100.0 * (double)s->bad_status / (double)s->completed : 0);
        if (m && s->completed && (m->cpu_s > 0 || m->cpu_exact))
            units_fmt_ns(cpu, sizeof(cpu), m->cpu_s * 1e9 / (double)s->completed);
        if (m) {
            const char *label;
            char b[32];
            uint64_t v = report_server_memory(m, &label);
            snprintf(mem, sizeof(mem), "%s %s", units_fmt_bytes(b, sizeof(b), (double)v), label);
        }
        warnings(warn, sizeof(warn), runs[i]);
        if (s->h[H_LATENCY].total) { /* else nothing answered: no latency, not 0ns */
            units_fmt_ns(p50, sizeof(p50), hist_percentile(&s->h[H_LATENCY], 50));
            units_fmt_ns(p99, sizeof(p99), hist_percentile(&s->h[H_LATENCY], 99));
            units_fmt_ns(max, sizeof(max), (double)s->h[H_LATENCY].max);
        }
        fprintf(f, "  %-*s %9llu %7llu %10s %10.1f %9s %9s %9s %8.2f %9s %13s  %s\n", w, names[i],
                (unsigned long long)s->completed, (unsigned long long)stats_errors(s), bad,
                el > 0 ? (double)s->completed / el : 0.0, p50, p99, max, s->completed ? (double)s->conns_opened / (double)s->completed : 0.0, cpu, mem, warn);
    }
}
