/* report_json.c - the whole result as JSON. The key names are a contract
 * (see the README): add keys, never rename them. */
#include "report.h"
#include "report_keys.h"
#include "opt.h"

#include <math.h>
#include <string.h>

static double us(double ns)
{
    return ns / 1000.0;
}

/* A histogram object, left open after its buckets for more members. */
static void jhist_open(FILE *f, const char *key, const struct hist *h, const char *ind)
{
    struct hist_iter it;
    int first = 1, k;
    const struct report_hist_head head = { h->total, h->total ? us((double)h->min) : 0.0, us(hist_mean(h)),
                                           us(hist_stdev(h)), us((double)h->max) };
    fprintf(f, "%s\"%s\": {", ind, key);
    report_json_keys(f, &report_keys_hist, &head, NULL, 1);
    fprintf(f, ",\n");
    fprintf(f, "%s  \"percentiles_us\": {", ind);
    for (k = 0; k < REPORT_NPCTS; k++)
        fprintf(f, "%s\"%s\": %s", k ? ", " : "", report_pct_names[k],
                REPORT_JNUM("%.3f", us(hist_percentile(h, report_pcts[k]))));
    fprintf(f, "},\n%s  \"histogram\": [", ind);
    for (hist_iter_init(&it, h); hist_iter_next(&it);) {
        fprintf(f, "%s[%s, %llu]", first ? "" : ", ", REPORT_JNUM("%.3f", us((double)it.hi)),
                (unsigned long long)it.count);
        first = 0;
    }
    fprintf(f, "]");
}

static void jhist(FILE *f, const char *key, const struct hist *h, const char *ind)
{
    jhist_open(f, key, h, ind);
    fprintf(f, "}");
}

/* An interval as [lo, hi] after key (a side the run cannot give: null),
 * in the figure's unit divided by div. */
static void jci(FILE *f, const char *key, const struct interval *iv, double div)
{
    fprintf(f, "%s[%s, %s]", key, REPORT_JNUM("%.3f", iv->lo / div), REPORT_JNUM("%.3f", iv->hi / div));
}

/* The latency's intervals, members of its object, in us. */
static void jci_latency(FILE *f, const struct run_ci *ci, const char *ind)
{
    int k;
    if (ci == NULL || ci->batches == 0)
        return;
    fprintf(f, ",\n%s  ", ind);
    jci(f, "\"mean_ci_us\": ", &ci->mean, 1000);
    fprintf(f, ", \"percentiles_ci_us\": {");
    for (k = 0; k < REPORT_NPCTS; k++) {
        fprintf(f, "%s\"%s\": ", k ? ", " : "", report_pct_names[k]);
        jci(f, "", &ci->pct[k], 1000);
    }
    fprintf(f, "}");
}

/* --precision: its goal (each figure's half-width asked, relative), the
 * widths the run's intervals came to (null: unbounded), whether the goal
 * was met and when the run stopped for it (null: it ran to its end). */
static void jprecision(FILE *f, const struct precision *p, const struct run_figures *r)
{
    int i, met = 1;
    if (p->n == 0)
        return;
    fprintf(f, ",\n  \"precision\": {\"goal\": {");
    for (i = 0; i < p->n; i++)
        fprintf(f, "%s\"%s\": %s", i ? ", " : "", p->g[i].name, REPORT_JNUM("%.4f", p->g[i].rel));
    fprintf(f, "}, \"widths\": {");
    for (i = 0; i < p->n; i++) {
        double w = precision_width(report_ci_of(&r->ci, &p->g[i]));
        met &= w <= p->g[i].rel;
        fprintf(f, "%s\"%s\": %s", i ? ", " : "", p->g[i].name, REPORT_JNUM("%.4f", w));
    }
    fprintf(f, "}, \"reached\": %s, \"stopped_at_s\": %s}", met ? "true" : "false",
            r->precise_at_s > 0 ? REPORT_JNUM("%.3f", r->precise_at_s) : "null");
}

/* What the totals' or a URL's counters are written with. */
struct jstats_of {
    const struct stats *s;
    uint64_t in_flight;
    double oldest_s, elapsed;   /* oldest_s < 0: not told */
    const struct proto *proto;
    const struct run_ci *ci;    /* the run's intervals (the totals'), or NULL */
};

/* A header compression's saving: 1 - wire / decoded (0 with nothing decoded). */
static double savings(uint64_t wire, uint64_t decoded)
{
    return decoded ? 1.0 - (double)wire / (double)decoded : 0.0;
}

/* A figure worked out from the counters (D row r of counters.h), after
 * sep. Returns 0 when it has nothing to say here. */
static int jderived(FILE *f, const struct jstats_of *x, const struct counters_row *r, const char *sep)
{
    const struct stats *s = x->s;
    int i;
    if (r->derived == COUNTERS_D_in_flight_oldest_s && x->oldest_s < 0)
        return 0;
    fprintf(f, "%s\"%s\": ", sep, r->key);
    switch ((enum counters_derived)r->derived) {
    case COUNTERS_D_protocol:
        fprintf(f, "\"%s\"", x->proto->name);
        return 1;
    case COUNTERS_D_errors:
        fprintf(f, "%llu", (unsigned long long)stats_errors(s));
        return 1;
    case COUNTERS_D_in_flight:
        fprintf(f, "%llu", (unsigned long long)x->in_flight);
        return 1;
    case COUNTERS_D_elapsed_s:
        fputs(REPORT_JNUM("%.9f", x->elapsed), f);
        return 1;
    case COUNTERS_D_rps:
        fputs(REPORT_JNUM("%.3f", x->elapsed > 0 ? (double)s->completed / x->elapsed : 0.0), f);
        if (x->ci && x->ci->batches)
            jci(f, ", \"rps_ci\": ", &x->ci->rps, 1);
        return 1;
    case COUNTERS_D_connections_per_request:
        fputs(REPORT_JNUM("%.4f", s->completed ? (double)s->conns_opened / (double)s->completed : 0.0), f);
        return 1;
    case COUNTERS_D_server_closes:
        fprintf(f, "%llu, \"server_close_reasons\": {", (unsigned long long)stats_server_closes(s));
        for (i = 0; i < CLOSE__COUNT; i++)
            fprintf(f, "%s\"%s\": %llu", i ? ", " : "", stats_close_name((enum close_kind)i),
                    (unsigned long long)s->closes[i]);
        fprintf(f, "}");
        return 1;
    case COUNTERS_D_in_flight_oldest_s:
        fputs(REPORT_JNUM("%.6f", x->oldest_s), f);
        return 1;
    case COUNTERS_D_covers:
        /* latency.covers: the requests that ended in the measured window,
         * whenever begun (summary.carried_in of them in the warm-up);
         * latency.censored: samples of requests still waiting at its end,
         * at their age then (censored_unsent: never sent). */
        fprintf(f, "\"ended in the window\"");
        return 1;
    case COUNTERS_D_header_space_savings:
        /* HPACK's saving as h2load's "space savings": 1 - wire / decoded. */
        fputs(REPORT_JNUM("%.4f", savings(s->h2_hdr_wire, s->h2_hdr_decoded)), f);
        return 1;
    case COUNTERS_D_qpack_space_savings:
        /* QPACK's, under the same key in "http3". */
        fputs(REPORT_JNUM("%.4f", savings(s->h3_hdr_wire, s->h3_hdr_decoded)), f);
        return 1;
    case COUNTERS_D_smoothed_rtt_s:
        fputs(REPORT_JNUM("%.9f", s->quic_conns ? (double)s->quic_srtt_sum_ns / (double)s->quic_conns / 1e9 : 0.0),
              f);
        return 1;
    case COUNTERS_D_min_rtt_s:
        fputs(REPORT_JNUM("%.9f", (double)s->quic_min_rtt_ns / 1e9), f);
        return 1;
    default:
        break;
    }
    return 1;
}

/* The members of object `in` from the counters' table, in its order;
 * first: no separator before the first. */
static void jcounters(FILE *f, const struct jstats_of *x, enum counters_in in, int first)
{
    int i;
    for (i = 0; i < COUNTERS_NROWS; i++) {
        const struct counters_row *r = &stats_counters[i];
        const char *sep = first ? "" : ", ";
        if (r->in != in)
            continue;
        if (r->derived != COUNTERS_D_NONE) {
            if (jderived(f, x, r, sep))
                first = 0;
            continue;
        }
        fprintf(f, "%s\"%s\": %llu", sep, r->key, (unsigned long long)stats_counter_get(x->s, r));
        first = 0;
    }
}

/* Whether any counter of object `in` counted something. */
static int jcounted(const struct stats *s, enum counters_in in)
{
    int i;
    for (i = 0; i < COUNTERS_NROWS; i++)
        if (stats_counters[i].in == in && stats_counters[i].derived == COUNTERS_D_NONE &&
            stats_counter_get(s, &stats_counters[i]))
            return 1;
    return 0;
}

/* The parts shared by the totals and each URL. */
static void jstats(FILE *f, const struct stats *s, uint64_t in_flight, double oldest_s, double elapsed,
                   const struct proto *proto, const struct run_ci *ci, const char *ind)
{
    const struct jstats_of x = { s, in_flight, oldest_s, elapsed, proto, ci };
    int i, first = 1;
    fprintf(f, "%s\"%s\": {", ind, stats_counters_in[COUNTERS_IN_SUMMARY]);
    jcounters(f, &x, COUNTERS_IN_SUMMARY, 1);
    fprintf(f, "},\n");
    fprintf(f, "%s\"status\": {", ind);
    for (i = 0; i < STATUS_MAX; i++) {
        if (s->status[i] == 0)
            continue;
        fprintf(f, "%s\"%d\": %llu", first ? "" : ", ", i, (unsigned long long)s->status[i]);
        first = 0;
    }
    fprintf(f, "},\n%s\"errors\": {", ind);
    for (i = 0; i < ERR__COUNT; i++)
        fprintf(f, "%s\"%s\": %llu", i ? ", " : "", stats_err_name((enum err_kind)i),
                (unsigned long long)s->errors[i]);
    fprintf(f, "},\n");
    for (i = 0; i < H__COUNT; i++) {
        jhist_open(f, stats_hist_name((enum hist_kind)i), &s->h[i], ind);
        if (i == H_LATENCY) {
            jcounters(f, &x, COUNTERS_IN_LATENCY, 0);
            jci_latency(f, ci, ind);
        }
        fprintf(f, "},\n");
    }
    fprintf(f, "%s\"%s\": {", ind, stats_counters_in[COUNTERS_IN_TLS]);
    jcounters(f, &x, COUNTERS_IN_TLS, 1);
    fprintf(f, "}");
    /* Each protocol's figures under its own name: an HTTP/3 run's QPACK
     * and retries in "http3" (before, in "http2"), no "http2" beside them. */
    if (proto->figures == COUNTERS_IN_HTTP2 || jcounted(s, COUNTERS_IN_HTTP2)) {
        fprintf(f, ",\n%s\"%s\": {", ind, stats_counters_in[COUNTERS_IN_HTTP2]);
        jcounters(f, &x, COUNTERS_IN_HTTP2, 1);
        fprintf(f, "}");
    }
    if (proto->figures == COUNTERS_IN_HTTP3 || jcounted(s, COUNTERS_IN_HTTP3)) {
        fprintf(f, ",\n%s\"%s\": {", ind, stats_counters_in[COUNTERS_IN_HTTP3]);
        jcounters(f, &x, COUNTERS_IN_HTTP3, 1);
        fprintf(f, "}");
    }
    /* HTTP/3: QUIC's own figures (ngtcp2's), where QUIC ran. */
    if (s->quic_sent || s->quic_recv) {
        fprintf(f, ",\n%s\"%s\": {", ind, stats_counters_in[COUNTERS_IN_QUIC]);
        jcounters(f, &x, COUNTERS_IN_QUIC, 1);
        fprintf(f, "}");
    }
}

static void jtimeline(FILE *f, const struct run_figures *r)
{
    uint32_t i;
    fprintf(f, "  \"timeline\": [");
    for (i = 0; i < r->nseconds; i++) {
        const struct tl_second *s = &r->timeline[i];
        fprintf(f, "%s\n    {\"t_s\": %u", i ? "," : "", i);
        report_json_keys(f, &report_keys_second, s, NULL, 0);
        if (r->tl_hist) {
            /* A shard's: the second's own histogram, so shards merge exactly. */
            fprintf(f, ",\n     ");
            jhist(f, stats_hist_name(H_LATENCY), &r->tl_hist[i], "     ");
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n");
}

static void jshard(FILE *f, const struct shard_info *s, int merged)
{
    fprintf(f, "{");
    report_json_keys(f, &report_keys_shard, s, NULL, 1);
    if (merged)
        report_json_keys(f, &report_keys_shard_run, s, NULL, 0);
    fprintf(f, "}");
}

void report_json_config(FILE *f, const struct config *cfg)
{
    fputc('{', f);
    report_json_keys(f, &report_keys_config, cfg, NULL, 1);
    fputc('}', f);
}

void report_json_server(FILE *f, const struct monitor_result *m, uint64_t completed)
{
    uint32_t i;
    fprintf(f, "{");
    report_json_keys(f, &report_keys_server, m, &completed, 1);
    if (m->has_syscw) /* when the monitor read /proc/PID/io (findings_server_writes) */
        fprintf(f, ", \"io_read_unix_s\": [%.6f, %.6f, %.6f, %.6f]", m->io_begin_s[0], m->io_begin_s[1],
                m->io_end_s[0], m->io_end_s[1]);
    fprintf(f, ",\n    \"%s\": [", report_keys_proc.name);
    for (i = 0; i < m->nprocs; i++) {
        fprintf(f, "%s\n      {", i ? "," : "");
        report_json_keys(f, &report_keys_proc, &m->procs[i], NULL, 1);
        fprintf(f, "}");
    }
    fprintf(f, "],\n    \"%s\": [", report_keys_point.name);
    for (i = 0; i < m->npoints; i++) {
        fprintf(f, "%s{", i ? ", " : "");
        report_json_keys(f, &report_keys_point, &m->series[i], NULL, 1);
        fprintf(f, "}");
    }
    fprintf(f, "]}");
}

/* A member of the result's object from its table: "name": {...}. */
static void jobj(FILE *f, const struct report_keys *t, const void *base)
{
    fprintf(f, "  \"%s\": {", t->name);
    report_json_keys(f, t, base, NULL, 1);
    fprintf(f, "},\n");
}

void report_json_ref(FILE *f, const struct machine_ref *ref)
{
    fprintf(f, "{");
    report_json_keys(f, &report_keys_ref, ref, NULL, 1);
    fprintf(f, "}");
}

/* "error_details": what each kind of error seen was, in words. */
static void jerror_details(FILE *f, const struct stats *s, const struct proto *proto)
{
    int k, first = 1;
    const char *first_words;
    fprintf(f, ",\n  \"error_details\": {");
    for (k = 0; k < ERR__COUNT; k++) {
        if (s->errors[k] == 0)
            continue;
        fprintf(f, "%s\"%s\": ", first ? "" : ", ", stats_err_name((enum err_kind)k));
        first_words = stats_err_first(s, (enum err_kind)k);
        report_json_str(f, first_words ? first_words : stats_err_explain((enum err_kind)k, proto));
        first = 0;
    }
    fprintf(f, "},\n");
}

/* "checks": each check's passes and failures, the first failure's words. */
static void jchecks(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    uint32_t i;
    fprintf(f, "  \"%s\": [", report_keys_check.name);
    for (i = 0; i < r->nchecks; i++) {
        fprintf(f, "%s\n    {", i ? "," : "");
        report_json_keys(f, &report_keys_check, &r->checks[i], cfg, 1);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n");
}

/* "stages" (--stages): each stage's span, load and latency. */
static void jstages(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    uint32_t i;
    uint64_t t0 = 0;
    fprintf(f, "  \"stages\": [");
    for (i = 0; i < r->nstages && i < cfg->nstages; i++) {
        const struct stats *g = &r->per_stage[i];
        fprintf(f,
                "%s\n    {\"start_s\": %s, \"end_s\": %s, \"from\": %s, \"to\": %s, \"sent\": %llu, "
                "\"completed\": %llu, \"errors\": %llu,\n     ",
                i ? "," : "", REPORT_JNUM("%.3f", (double)t0 / 1e9),
                REPORT_JNUM("%.3f", (double)(t0 + cfg->stage_dur[i]) / 1e9),
                REPORT_JNUM("%.3f", i ? cfg->stage_val[i - 1] : cfg->stage_start),
                REPORT_JNUM("%.3f", cfg->stage_val[i]), (unsigned long long)g->started,
                (unsigned long long)g->completed, (unsigned long long)stats_errors(g));
        jhist(f, stats_hist_name(H_LATENCY), &g->h[H_LATENCY], "");
        fprintf(f, "}");
        t0 += cfg->stage_dur[i];
    }
    fprintf(f, "\n  ],\n");
}

/* "per_url": each target's figures, the ones past FIGURES_TARGETS as one. */
static void jper_url(FILE *f, const struct config *cfg, const struct run_figures *r)
{
    uint32_t i;
    fprintf(f, "  \"per_url\": [");
    for (i = 0; i < r->ntargets; i++) {
        fprintf(f, "%s\n    {\"url\": ", i ? "," : "");
        if (report_is_other(cfg, i)) {
            /* The targets past FIGURES_TARGETS, together. */
            fprintf(f, "null, \"method\": null, \"name\": null, \"other_targets\": %u,\n",
                    cfg->ntargets - FIGURES_TARGETS);
            jstats(f, &r->per_target[i], r->target_in_flight[i], -1, r->elapsed_s, config_proto(cfg), NULL, "     ");
            fprintf(f, "}");
            continue;
        }
        report_json_str(f, cfg->url_text[i]);
        fprintf(f, ", \"method\": ");
        report_json_str(f, report_method(cfg, i));
        fprintf(f, ", \"name\": ");
        if (cfg->targets && cfg->targets[i].name)
            report_json_str(f, cfg->targets[i].name);
        else
            fprintf(f, "null");
        fprintf(f, ",\n");
        jstats(f, &r->per_target[i], r->target_in_flight[i], -1, r->elapsed_s, config_proto(cfg), NULL, "     ");
        fprintf(f, "}");
    }
}

int report_json(FILE *f, const struct run_result *res)
{
    const struct config *cfg = res->cfg;
    const struct run_figures *r = &res->fig;
    const struct monitor_result *server = res->has_server ? &res->server : NULL;
    const struct findings *fs = res->has_findings ? &res->found : NULL;
    const struct slo *slo = res->slo;
    uint32_t i;
    int k;

    fprintf(f, "{\n  \"tool\": \"rafale\",\n  \"%s\": ", report_keys_config.name);
    report_json_config(f, cfg);
    fprintf(f, ",\n");
    fprintf(f, "  \"interrupted\": %s,\n", r->interrupted ? "true" : "false");
    fprintf(f, "  \"start_unix_s\": %s,\n", REPORT_JNUM("%.6f", r->start_unix_s));
    if (r->aborted)
        jobj(f, &report_keys_aborted, r);
    if (r->gave_up_s > 0)
        jobj(f, &report_keys_gave_up, r);
    if (res->ref.known) {
        fprintf(f, "  \"%s\": ", report_keys_ref.name);
        report_json_ref(f, &res->ref);
        fprintf(f, ",\n");
    }
    if (r->shard.count) {
        fprintf(f, "  \"%s\": ", report_keys_shard.name);
        jshard(f, &r->shard, 0);
        fprintf(f, ",\n");
    }
    if (r->nshards) {
        fprintf(f, "  \"shards\": [");
        for (i = 0; i < r->nshards; i++) {
            fprintf(f, "%s\n    ", i ? "," : "");
            jshard(f, &r->shards[i], 1);
        }
        fprintf(f, "\n  ],\n");
    }
    jobj(f, &report_keys_client, r);
    if (res->env.cpus_online > 0)
        jobj(f, &report_keys_env, &res->env);
    if (res->noise.known || res->noise.nr_throttled > 0)
        jobj(f, &report_keys_noise, &res->noise);
    jobj(f, &report_keys_conns, r);   /* fairness */
    jobj(f, &report_keys_tcp, r);     /* TCP_INFO of the closed connections */
    if (server) {
        fprintf(f, "  \"%s\": ", report_keys_server.name);
        report_json_server(f, server, r->total.completed);
        fprintf(f, ",\n");
    }
    if (res->probe.ntargets) /* only when one was made: a result without it stays as it was */
        jobj(f, &report_keys_probe, &res->probe);
    if (cfg->replay_tally)
        jobj(f, &report_keys_replay, cfg->replay_tally);
    if (r->target_rate > 0)
        jobj(f, &report_keys_rate, r);
    jstats(f, &r->total, r->in_flight, r->in_flight_oldest_s, r->elapsed_s, config_proto(cfg),
           &r->ci, "  ");
    if (r->ci.batches) {
        fprintf(f, ",\n  \"%s\": {", report_keys_ci.name);
        report_json_keys(f, &report_keys_ci, &r->ci, NULL, 1);
        fputc('}', f);
    }
    jprecision(f, &cfg->precision, r);
    jerror_details(f, &r->total, config_proto(cfg));
    if (r->nvars)
        fprintf(f, "  \"parked_connections\": %u,\n", r->parked);
    if (cfg->out[OUT_LOG]) {
        fprintf(f, "  \"log\": {\"file\": ");
        report_json_str(f, cfg->out[OUT_LOG]);
        fprintf(f, ", \"written\": %llu, \"dropped\": %llu, \"error\": ", (unsigned long long)r->log_written,
                (unsigned long long)r->log_dropped);
        if (r->log_failed)
            report_json_str(f, strerror(r->log_failed));
        else
            fprintf(f, "null");
        fprintf(f, "},\n");
    }
    if (r->nvars) {
        fprintf(f, "  \"skipped_by_variable\": {");
        for (k = 0; k < (int)r->nvars; k++) {
            fprintf(f, "%s", k ? ", " : "");
            report_json_str(f, r->var_names[k]);
            fprintf(f, ": %llu", (unsigned long long)r->skipped_var[k]);
        }
        fprintf(f, "},\n");
    }
    if (r->nchecks)
        jchecks(f, cfg, r);
    jtimeline(f, r);
    if (r->nstages)
        jstages(f, cfg, r);
    if (slo && slo->n) {
        fprintf(f, "  \"slo\": [");
        for (k = 0; k < slo->n; k++) {
            fprintf(f, "%s{\"check\": ", k ? ", " : "");
            report_json_str(f, slo->goal[k].text);
            fprintf(f, ", \"value\": %s, \"threshold\": %s, \"pass\": %s}", REPORT_JNUM("%.6g", slo->goal[k].value),
                    REPORT_JNUM("%.6g", slo->goal[k].threshold), slo->goal[k].pass ? "true" : "false");
        }
        fprintf(f, "],\n");
    }
    if (fs) {
        fprintf(f, "  \"%s\": ", report_keys_finding.name);
        report_json_findings(f, fs, "  ");
        fprintf(f, ",\n");
    }
    jper_url(f, cfg, r);
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}

void report_json_findings(FILE *f, const struct findings *fs, const char *ind)
{
    int i;
    fprintf(f, "[");
    for (i = 0; fs && i < fs->n; i++) {
        fprintf(f, "%s\n%s  {", i ? "," : "", ind);
        report_json_keys(f, &report_keys_finding, &fs->f[i], NULL, 1);
        fprintf(f, "}");
    }
    fprintf(f, "%s]", fs && fs->n ? "\n" : "");
}
