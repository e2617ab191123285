/* report_compare_json.c - a compare's result as JSON: its settings, each
 * workload's pairwise verdicts and cells with their runs whole
 * (compare_load.c reads it back). */
#include "compare.h"
#include "report.h"
#include "report_compare.h"
#include "verdict.h"

#include <math.h>
#include <string.h>

/* "key": [low, high], or null when unknown (fewer than 2 rounds). */
static void json_ci(FILE *f, const char *key, const double ci[2])
{
    if (isnan(ci[0]) || isnan(ci[1]))
        fprintf(f, "\"%s\": null, ", key);
    else
        fprintf(f, "\"%s\": [%s, %s], ", key, REPORT_JNUM("%.6g", ci[0]), REPORT_JNUM("%.6g", ci[1]));
}

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

/* Server s: how it was started, and why it failed if it did. */
static void json_server(FILE *f, const struct compare_file *p, const struct compare_result *r, int s)
{
    const struct compare_server *sv = &p->servers[s];
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
    fprintf(f, ", \"output\": ");
    jstr_or_null(f, r->failed[s] && r->output[s][0] ? r->output[s] : NULL);
    fprintf(f, "}");
}

/* A workload's rounds and whether its servers answered alike. */
static void json_alike(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    /* Rounds: the most repetitions any server had. */
    int rounds = 0, s2;
    for (s2 = 0; s2 < p->nservers; s2++)
        if (compare_cell_at(r, w, s2)->nruns > rounds)
            rounds = compare_cell_at(r, w, s2)->nruns;
    fprintf(f, ", \"rounds\": %d, \"alike\": ", rounds);
    if (r->alike == NULL || !r->alike[w].checked) {
        fprintf(f, "null, \"alike_note\": ");
        report_json_str(f, r->alike ? r->alike[w].note : "");
    } else if (r->alike[w].ndiff == 0) {
        fprintf(f, "true");
    } else {
        int k;
        fprintf(f, "[");
        for (k = 0; k < r->alike[w].ndiff; k++) {
            const struct compare_difference *d = &r->alike[w].diff[k];
            fprintf(f, "%s{\"field\": \"%s\", \"server\": ", k ? ", " : "", d->field);
            report_json_str(f, p->servers[d->server].name);
            fprintf(f, ", \"value\": ");
            report_json_str(f, d->value);
            fprintf(f, "}");
        }
        fprintf(f, "]");
    }
    if (r->alike && r->alike[w].cut[0]) {
        fprintf(f, ", \"alike_cut\": ");
        report_json_str(f, r->alike[w].cut);
    }
}

/* duration = auto: the length chosen and the probing rounds that chose
 * it (null without). */
static void json_duration_auto(FILE *f, const struct compare_file *p, const struct compare_workload *wl)
{
    int k;
    fprintf(f, ", \"duration_auto\": ");
    if (!wl->duration_auto) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"duration_s\": %s, \"max_duration_s\": %s, \"max_reached\": %s, \"probes\": [",
            REPORT_JNUM("%.3f", (double)wl->cfg.duration_ns / 1e9),
            REPORT_JNUM("%.3f", (double)p->set.max_duration_ns / 1e9), wl->auto_max ? "true" : "false");
    for (k = 0; k < wl->nprobes; k++)
        fprintf(f, "%s{\"duration_s\": %s, \"own_ci\": %s}", k ? ", " : "",
                REPORT_JNUM("%.3f", (double)wl->probes[k].duration_ns / 1e9),
                REPORT_JNUM("%.5f", wl->probes[k].own_ci));
    fputs("]}", f);
}

/* Every pair of servers (2 to CMP_MATRIX_MAX, as the text and HTML show
 * them): the first's time per request against the second's, as a verdict
 * (compare_pair: recomputed from the runs when the file is read back). */
static void json_pairwise(FILE *f, const struct compare_file *p, const struct compare_result *r, int w)
{
    int a, b, first = 1;
    if (p->nservers < 2 || p->nservers > CMP_MATRIX_MAX)
        return;
    fprintf(f, ",\n  \"pairwise\": [");
    for (a = 0; a < p->nservers; a++)
        for (b = 0; b < p->nservers; b++) {
            struct verdict_pair v;
            if (a == b)
                continue;
            compare_pair(p, r, w, a, b, &v);
            fprintf(f, "%s{\"server\": ", first ? "" : ",\n   ");
            report_json_str(f, p->servers[a].name);
            fprintf(f, ", \"against\": ");
            report_json_str(f, p->servers[b].name);
            if (v.verdict == VERDICT_INVALID || !(v.ratio > 0)) /* no valid pair, or no round to pair */
                fprintf(f, ", \"ratio\": null, ");
            else
                fprintf(f, ", \"ratio\": %s, ", REPORT_JNUM("%.4f", v.ratio));
            json_ci(f, "ratio_ci", v.ci);
            fprintf(f, "\"verdict\": \"%s\", \"undecided_why\": ", verdict_name(v.verdict));
            if (v.verdict == VERDICT_UNDECIDED) {
                char why[400];
                report_json_str(f, verdict_why_text(why, sizeof(why), &v, &p->set));
            } else {
                fputs("null", f);
            }
            fputc('}', f);
            first = 0;
        }
    fprintf(f, "]");
}

/* A workload's cell on server s: its figures, intervals, verdict, findings,
 * SLO and every run as `rafale --json` writes it. */
static void json_cell(FILE *f, const struct compare_file *p, const struct compare_result *r, int w, int s, double best)
{
    const struct compare_workload *wl = &p->workloads[w];
    int k;
    unsigned i;
    const struct compare_cell *c = compare_cell_at(r, w, s);
    const struct stats *t = &c->total;
    int fs = 1;
    fprintf(f, "%s\n   {\"name\": ", s ? "," : "");
    report_json_str(f, p->servers[s].name);
    fprintf(f, ", \"url\": ");
    jstr_or_null(f, c->url);
    fprintf(f, ", \"runs\": %d, \"rps\": [", c->nruns);
    for (k = 0; k < c->nruns; k++)
        fprintf(f, "%s%s", k ? ", " : "",
                REPORT_JNUM("%.3f", c->runs[k].fig.elapsed_s > 0
                                        ? (double)c->runs[k].fig.total.completed / c->runs[k].fig.elapsed_s
                                        : 0));
    fprintf(
        f,
        "], \"rps_median\": %s, \"rps_min\": %s, \"rps_max\": %s, \"mean_us\": %s, \"p50_us\": %s, "
        "\"p99_us\": %s, \"max_us\": %s, \"requests\": %llu, \"errors\": %llu, \"unexpected_status\": %llu, "
        "\"bad_status_pct\": %s, \"connections_opened\": %llu, \"connections_per_request\": %s, "
        "\"keepalive_refused\": %s, \"server_cpu_us_per_request\": %s, \"memory_peak_bytes\": %llu, "
        "\"memory_kind\": \"%s\", \"ratio_to_best\": %s, \"valid\": %s, \"unstable\": %s, "
        "\"client_bound\": %s, \"failed\": %s, \"status\": {",
        REPORT_JNUM("%.3f", c->rps_median), REPORT_JNUM("%.3f", c->rps_min), REPORT_JNUM("%.3f", c->rps_max),
        REPORT_JNUM("%.3f", hist_mean(&t->h[H_LATENCY]) / 1e3),
        REPORT_JNUM("%.3f", hist_percentile(&t->h[H_LATENCY], 50) / 1e3),
        REPORT_JNUM("%.3f", hist_percentile(&t->h[H_LATENCY], 99) / 1e3),
        REPORT_JNUM("%.3f", (double)t->h[H_LATENCY].max / 1e3), (unsigned long long)t->completed,
        (unsigned long long)stats_errors(t), (unsigned long long)t->bad_status, REPORT_JNUM("%.3f", c->bad_pct),
        (unsigned long long)t->conns_opened, REPORT_JNUM("%.4f", c->conns_per_req),
        c->keepalive_refused ? "true" : "false", REPORT_JNUM("%.3f", c->server_cpu_us),
        (unsigned long long)c->mem_peak, compare_mem_key(c->mem_kind),
        REPORT_JNUM("%.4f", c->rps_median > 0 && !c->invalid && best > 0 ? best / c->rps_median : 0),
        c->nruns && !c->invalid ? "true" : "false", c->unstable ? "true" : "false",
        c->client_bound ? "true" : "false", r->failed[s] ? "true" : "false");
    for (i = 0; i < STATUS_MAX; i++)
        if (t->status[i]) {
            fprintf(f, "%s\"%u\": %llu", fs ? "" : ", ", i, (unsigned long long)t->status[i]);
            fs = 0;
        }
    fprintf(f, "}, ");
    json_ci(f, "rps_ci", c->rps_ci);
    json_ci(f, "p50_ci_us", c->p50_ci_us);
    json_ci(f, "p99_ci_us", c->p99_ci_us);
    json_ci(f, "ratio_ci", c->ratio_ci);
    fprintf(f, "\"ratio\": %s, \"verdict\": \"%s\", \"rank\": %d, \"undecided_why\": ",
            REPORT_JNUM("%.4f", c->ratio), c->invalid ? "not valid" : verdict_name(c->verdict), c->rank);
    {
        char why[600];
        if (c->verdict == VERDICT_UNDECIDED && !c->invalid)
            report_json_str(f, verdict_why_text(why, sizeof(why), &c->vs_best, &p->set));
        else
            fputs("null", f);
        if (c->vs_base.verdict != VERDICT_INVALID) {
            fprintf(f, ", \"vs_baseline\": {\"ratio\": %s, ", REPORT_JNUM("%.4f", c->vs_base.ratio));
            json_ci(f, "ratio_ci", c->vs_base.ci);
            fprintf(f, "\"verdict\": \"%s\"}", verdict_name(c->vs_base.verdict));
        }
    }
    if (c->implausible_cpu[0]) {
        fprintf(f, ", \"not_valid_because\": ");
        report_json_str(f, c->implausible_cpu);
    }
    fprintf(f, ", \"findings\": ");
    report_json_findings(f, &c->found, "      ");
    if (c->slo.n && c->nruns) {
        /* The workload's SLO on every run merged. */
        fprintf(f, ", \"slo\": [");
        for (i = 0; i < (unsigned)c->slo.n; i++) {
            fprintf(f, "%s{\"check\": ", i ? ", " : "");
            report_json_str(f, c->slo.goal[i].text);
            fprintf(f, ", \"value\": %s, \"threshold\": %s, \"pass\": %s}",
                    REPORT_JNUM("%.6g", c->slo.goal[i].value), REPORT_JNUM("%.6g", c->slo.goal[i].threshold),
                    c->slo.goal[i].pass ? "true" : "false");
        }
        fprintf(f, "]");
    }
    fprintf(f, ",\n    \"run_results\": [");
    for (k = 0; k < c->nruns; k++) {
        /* Each run exactly as `rafale --json` writes it: a view of it with
         * its configuration (the workload's on the cell's URL, when it has
         * none of its own) and its findings, [] for none. */
        static struct run_result run; /* 20 KiB of findings: off the stack */
        struct config cfg = wl->cfg;
        const char *ut[1] = { c->url ? c->url : "" };
        cfg.url_text = ut;
        cfg.ntargets = 1;
        run = c->runs[k];
        run.cfg = c->runs[k].cfg ? c->runs[k].cfg : &cfg;
        run.has_findings = 1;
        fprintf(f, "%s\n", k ? "," : "");
        report_json(f, &run);
    }
    fprintf(f, "]}");
}

int report_compare_json(FILE *f, const struct compare_file *p, const struct compare_result *r)
{
    int w, s, first = 1;

    fprintf(f, "{\n\"tool\": \"rafale\",\n\"compare\": {\"plan\": ");
    jstr_or_null(f, p->file);
    fprintf(f, ", \"repeat_auto\": %s, \"max_repeat\": %d, \"max_duration_s\": %s, \"discard\": %d, "
               "\"same_within\": %s, \"baseline\": ", p->set.repeat_auto ? "true" : "false", p->set.max_repeat,
            REPORT_JNUM("%.3f", (double)p->set.max_duration_ns / 1e9), p->set.discard,
            REPORT_JNUM("%.4f", p->set.same_within));
    jstr_or_null(f, p->baseline > 0 && p->baseline <= p->nservers ? p->servers[p->baseline - 1].name : NULL);
    fprintf(f, ", \"repeat\": %d, \"grace_s\": %s, \"ready_timeout_s\": %s, \"server_cpus\": ", p->set.repeat,
            REPORT_JNUM("%.3f", (double)p->set.grace_ns / 1e9), REPORT_JNUM("%.3f", (double)p->set.ready_ns / 1e9));
    cpus(f, p->set.server_cpus, p->set.nserver_cpus);
    fprintf(f, ", \"client_cpus\": ");
    cpus(f, p->set.client_cpus, p->set.nclient_cpus);
    fprintf(f, ", \"pin\": \"%s\"", p->set.pin == PIN_CHOSE ? "auto" : p->set.pin == PIN_NO ? "no" :
                                       p->set.nserver_cpus || p->set.nclient_cpus ? "given" : "none");
    if (r->ref.known) {
        fprintf(f, ", \"calibration\": ");
        report_json_ref(f, &r->ref);
    }
    fprintf(f, ", \"interrupted\": %s, \"cgroups\": %s, \"note\": ", r->interrupted ? "true" : "false",
            r->cgroups ? "true" : "false");
    report_json_str(f, r->note);
    fprintf(f, ",\n\"servers\": [");
    for (s = 0; s < p->nservers; s++)
        json_server(f, p, r, s);
    fprintf(f, "],\n\"workloads\": [");
    for (w = 0; w < p->nworkloads; w++) {
        const struct compare_workload *wl = &p->workloads[w];
        double best = report_compare_best_rps(r, w);
        fprintf(f, "%s\n {\"name\": ", w ? "," : "");
        report_json_str(f, wl->name);
        fprintf(f, ", \"path\": ");
        report_json_str(f, wl->path);
        json_alike(f, p, r, w);
        fprintf(f, ", \"connections\": %u, \"close\": %s, \"rate\": %s", wl->cfg.connections,
                wl->cfg.keepalive ? "false" : "true", REPORT_JNUM("%.3f", wl->cfg.rate));
        json_duration_auto(f, p, wl);
        fprintf(f, ",\n  \"config\": ");
        report_json_config(f, &wl->cfg);
        json_pairwise(f, p, r, w);
        fprintf(f, ",\n  \"servers\": [");
        for (s = 0; s < p->nservers; s++)
            json_cell(f, p, r, w, s, best);
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
        fprintf(f, ", \"output\": ");
        report_json_str(f, r->output[s]);
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "]}\n}\n");
    return ferror(f) ? -1 : 0;
}

