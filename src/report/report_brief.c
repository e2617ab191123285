/* report_brief.c - the short report (--brief): the headline lines only,
 * each under the label the full report (report_text.c) gives it, for
 * people who run rafale in loops. */
#include "report.h"
#include "units.h"

#include <math.h>
#include <stdio.h>

void report_errors_counts(FILE *f, const struct stats *s)
{
    uint64_t n = stats_errors(s), ended = s->completed + n;
    int k, i;
    fprintf(f, "%llu (%.2f%% of requests ended):", (unsigned long long)n, ended ? 100.0 * (double)n / (double)ended : 0.0);
    for (k = 0, i = 0; k < ERR__COUNT; k++)
        if (s->errors[k])
            fprintf(f, "%s %s %llu", i++ ? "," : "", stats_err_name((enum err_kind)k), (unsigned long long)s->errors[k]);
}

/* A line of its own per headline, each under the label the full report
 * gives it, so a script reading one reads the other. */
int report_brief(FILE *f, const struct run_result *res)
{
    const struct config *cfg = res->cfg;
    const struct run_figures *r = &res->fig;
    const struct stats *s = &r->total;
    const struct hist *h = &s->h[H_LATENCY];
    double el = r->elapsed_s > 0 ? r->elapsed_s : 1e-9;
    uint64_t n = stats_errors(s);
    char b1[32], b2[32], b3[32];
    int i;

    if (r->aborted)
        fprintf(f, "Aborted       the SLO was lost %.1fs into the run: %s (--abort-on-fail)\n", r->aborted_at_s,
                r->aborted_why);
    if (r->gave_up_s > 0)
        fprintf(f, "Gave up       no connection could be opened: %s\n", r->gave_up_why);
    fprintf(f, "Requests      %llu completed, %llu errors, %llu in flight at the end, in %.2fs\n",
            (unsigned long long)s->completed, (unsigned long long)n, (unsigned long long)r->in_flight, r->elapsed_s);
    fprintf(f, "Throughput    %.1f req/s", (double)s->completed / el);
    if (!isnan(r->ci.rps.lo))
        fprintf(f, " (95%%: %.1f-%.1f)", r->ci.rps.lo, r->ci.rps.hi);
    fputc('\n', f);
    if (h->total)
        fprintf(f, "Latency       p50 %s, p99 %s, max %s%s\n", units_fmt_ns(b1, sizeof(b1), hist_percentile(h, 50)),
                units_fmt_ns(b2, sizeof(b2), hist_percentile(h, 99)), units_fmt_ns(b3, sizeof(b3), (double)h->max),
                r->target_rate > 0 || r->total.h[H_LAG].total ? " (from when each request was due)" : "");
    else
        fprintf(f, "Latency       none: no answer\n");
    report_status_line(f, s);
    report_bad_status_line(f, cfg, s);
    if (n == 0) {
        fprintf(f, "Errors        none\n");
    } else {
        fputs("Errors        ", f);
        report_errors_counts(f, s);
        fputc('\n', f);
    }
    if (res->has_findings)
        for (i = 0; i < res->found.n; i++)
            fprintf(f, "%s%s %s: %s\n", i ? "              " : "Findings      ", res->found.f[i].warning ? "[!]" : "[i]",
                    res->found.f[i].id, res->found.f[i].summary);
    return ferror(f) ? -1 : 0;
}
