/* report_json_keys.c - the writer's loop over the tables of
 * report_keys.c (report_keys_read is the reader's): each row's key and
 * value, its RK_FIG figures worked out here. */
#include "report.h"
#include "report_keys.h"
#include "opt.h"

#include <math.h>

/* A list of strings, as typed. */
static void jstrs(FILE *f, const char *const *s, uint32_t n)
{
    uint32_t i;
    fputc('[', f);
    for (i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        report_json_str(f, s[i]);
    }
    fputc(']', f);
}

/* A string, or null for none. */
static void jstr_or_null(FILE *f, const char *s)
{
    if (s)
        report_json_str(f, s);
    else
        fputs("null", f);
}

/* A finding's evidence: counts exactly, the rest to 6 significant digits. */
static void jevidence(FILE *f, const struct finding *x)
{
    int k;
    fputc('{', f);
    for (k = 0; k < x->nev; k++) {
        fprintf(f, "%s", k ? ", " : "");
        report_json_str(f, x->ev[k].key);
        if (isfinite(x->ev[k].v) && fabs(x->ev[k].v) < 9007199254740992.0 && x->ev[k].v == (double)(int64_t)x->ev[k].v)
            fprintf(f, ": %s", REPORT_JNUM("%.0f", x->ev[k].v));
        else
            fprintf(f, ": %s", REPORT_JNUM("%.6g", x->ev[k].v));
    }
    fputc('}', f);
}

/* A config's RK_FIG row (report_keys.h). */
static void jfig_config(FILE *f, enum report_key_fig fig, const struct config *cfg)
{
    uint32_t i;
    switch (fig) {
    case RKF_URLS:
        jstrs(f, cfg->url_text, cfg->ntargets);
        break;
    case RKF_METHOD:
        report_json_str(f, cfg->method);
        break;
    case RKF_OPTIONS: /* connections, threads, keepalive, requests, durations, http2, ... */
        opt_json_write(f, cfg);
        break;
    case RKF_BODY:
        fprintf(f, "%zu", cfg->has_body ? cfg->body_len : (size_t)0);
        break;
    case RKF_HEADERS:
        jstrs(f, cfg->headers, cfg->nheaders);
        break;
    case RKF_EXPECT:
        report_json_str(f, cfg->expect.text);
        break;
    case RKF_TARGETS:
        jstr_or_null(f, cfg->targets_path);
        break;
    case RKF_THINK:
        fprintf(f, "[%s, %s]", REPORT_JNUM("%.6f", (double)cfg->think_lo_ns / 1e9),
                REPORT_JNUM("%.6f", (double)cfg->think_hi_ns / 1e9));
        break;
    case RKF_CHECKS:
        jstrs(f, cfg->check_exprs, cfg->ncheck_exprs);
        break;
    case RKF_STAGES:
        fputc('[', f);
        for (i = 0; i < cfg->nstages; i++) {
            const struct report_stage st = { cfg->stage_dur[i], cfg->stage_val[i] };
            fprintf(f, "%s{", i ? ", " : "");
            report_json_keys(f, &report_keys_stage, &st, NULL, 1);
            fputc('}', f);
        }
        fputc(']', f);
        break;
    case RKF_CONTENT_TYPE:
        report_json_str(f, cfg->content_type);
        break;
    case RKF_REPLAY:
        if (cfg->replay_path)
            report_replay_config_json(f, cfg);
        break;
    default:
        break;
    }
}

/* An RK_FIG row's value (report_keys.h): base its table's struct, ctx the
 * caller's. */
static void jfig(FILE *f, enum report_key_fig fig, const void *base, const void *ctx)
{
    const struct run_figures *r = base;
    const struct tcpinfo_sum *t = &r->tcp;
    const struct shard_info *sh = base;
    const struct machine *m = base;
    const struct machine_ref *ref = base;
    const struct replay_tally *rt = base;
    const struct run_check *ck = base;
    const struct run_probe *pr = base;
    const struct machine_noise *no = base;
    const struct config *cfg = ctx;
    char lb[600];
    uint64_t completed;
    uint32_t i;
    switch (fig) {
    case RKF_OPENED:
        fprintf(f, "%llu", (unsigned long long)r->total.conns_opened);
        break;
    case RKF_STARVED:
        fprintf(f, "%u", r->conns.starved);
        break;
    case RKF_RTT_MEAN:
        fputs(REPORT_JNUM("%.3f", t->sampled ? t->rtt_sum_us / (double)t->sampled : 0.0), f);
        break;
    case RKF_RTT_MIN:
        fputs(REPORT_JNUM("%.3f", t->min_rtt_us == UINT32_MAX ? 0.0 : (double)t->min_rtt_us), f);
        break;
    case RKF_SENT_RPS:
        fputs(REPORT_JNUM("%.3f", r->elapsed_s > 0 ? (double)stats_sent(&r->total) / r->elapsed_s : 0.0), f);
        break;
    case RKF_SHARD_ELAPSED:
        fputs(REPORT_JNUM("%.6f", sh->elapsed_s), f);
        break;
    case RKF_SHARD_RPS:
        fputs(REPORT_JNUM("%.3f", sh->elapsed_s > 0 ? (double)sh->completed / sh->elapsed_s : 0.0), f);
        break;
    case RKF_PORTS:
        fprintf(f, "[%lld, %lld]", m->port_lo, m->port_hi);
        break;
    case RKF_REF_CI:
        if (isnan(ref->rps_ci[0]) || isnan(ref->rps_ci[1]))
            fprintf(f, "null");
        else
            fprintf(f, "[%s, %s]", REPORT_JNUM("%.1f", ref->rps_ci[0]), REPORT_JNUM("%.1f", ref->rps_ci[1]));
        break;
    case RKF_SKIPPED_METHODS:
        fprintf(f, "{");
        for (i = 0; i < rt->nskip; i++) {
            fprintf(f, "%s", i ? ", " : "");
            report_json_str(f, rt->skip_method[i]);
            fprintf(f, ": %llu", (unsigned long long)rt->skip_count[i]);
        }
        fprintf(f, "}");
        break;
    case RKF_EVIDENCE:
        jevidence(f, base);
        break;
    case RKF_PROBE_TARGETS:
        fputc('[', f);
        for (i = 0; i < pr->ntargets; i++) {
            fprintf(f, "%s{", i ? ", " : "");
            report_json_keys(f, &report_keys_probe_target, &pr->target[i], NULL, 1);
            fputc('}', f);
        }
        fputc(']', f);
        break;
    case RKF_LEVEL:
        fputs("0.95", f);
        break;
    case RKF_CI_COVERS:
        fputs("\"this run's sampling (batch means), not the drift between runs\"", f);
        break;
    case RKF_FOREIGN_CPU:
        fputs(no->known ? REPORT_JNUM("%.3f", no->foreign_cpu_pct) : "null", f);
        break;
    case RKF_STEAL:
        fputs(no->known ? REPORT_JNUM("%.3f", no->steal_pct) : "null", f);
        break;
    case RKF_THROTTLED:
        fprintf(f, no->nr_throttled >= 0 ? "%lld" : "null", no->nr_throttled);
        break;
    case RKF_CHECK_TARGET:
        report_json_str(f, ck->target < cfg->ntargets ? report_label(cfg, ck->target, lb, sizeof(lb)) : "?");
        break;
    case RKF_CHECK_INDEX:
        fprintf(f, "%u", ck->target);
        break;
    case RKF_FIRST_FAILURE:
        jstr_or_null(f, ck->failed ? ck->first_failure : NULL);
        break;
    case RKF_CPU_PER_REQUEST:
        completed = *(const uint64_t *)ctx;
        fputs(REPORT_JNUM("%.3f", completed ? ((const struct monitor_result *)base)->cpu_s * 1e6 / (double)completed
                                            : 0.0), f);
        break;
    default:
        jfig_config(f, fig, base);
        break;
    }
}

/* The members of table t from base, each after ", " but the first when
 * first is set; ctx goes to its RK_FIG rows. */
void report_json_keys(FILE *f, const struct report_keys *t, const void *base, const void *ctx, int first)
{
    const char *b = base;
    size_t i;
    for (i = 0; i < t->n; i++) {
        const struct report_key *k = &t->row[i];
        const void *v = b + k->off;
        if ((k->flags & RK_WHEN) && !*(const int *)(const void *)(b + k->when))
            continue;
        if ((k->flags & RK_IF) && !*(const uint32_t *)(const void *)(b + k->when))
            continue;
        if ((k->flags & RK_IF_PTR) && !*(const void *const *)(const void *)(b + k->when))
            continue;
        if (k->flags & RK_MEMBERS) {
            jfig(f, (enum report_key_fig)k->fig, base, ctx);
            continue;
        }
        fprintf(f, "%s\"%s\": ", first ? "" : ", ", k->key);
        first = 0;
        switch ((enum report_key_type)k->type) {
        case RK_COUNT:
            fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)v);
            break;
        case RK_U32:
            fprintf(f, "%u", *(const uint32_t *)v);
            break;
        case RK_INT:
            fprintf(f, "%d", *(const int *)v);
            break;
        case RK_LL:
            fprintf(f, "%lld", *(const long long *)v);
            break;
        case RK_NUM:
            fputs(REPORT_JNUM(k->fmt, *(const double *)v), f);
            break;
        case RK_US:
            fputs(REPORT_JNUM("%.3f", k->unit == RK_IN_S    ? *(const double *)v * 1e6
                                      : k->unit == RK_IN_NS ? *(const double *)v / 1e3
                                                            : *(const double *)v), f);
            break;
        case RK_BOOL:
            fputs(*(const int *)v ? "true" : "false", f);
            break;
        case RK_TRI:
            fputs(*(const int *)v < 0 ? "null" : *(const int *)v ? "true" : "false", f);
            break;
        case RK_STR:
            if ((k->flags & RK_NULL_EMPTY) && *(const char *)v == '\0')
                fputs("null", f);
            else
                report_json_str(f, v);
            break;
        case RK_OBJ:
            fputc('{', f);
            report_json_keys(f, k->sub, v, ctx, 1);
            fputc('}', f);
            break;
        case RK_NS:
            fputs(REPORT_JNUM(k->fmt, (double)*(const uint64_t *)v / 1e9), f);
            break;
        case RK_ENUM:
            fprintf(f, "\"%s\"", k->words[*(const int *)v >= 0 && *(const int *)v < k->nwords ? *(const int *)v : 0]);
            break;
        case RK_FIG:
            jfig(f, (enum report_key_fig)k->fig, base, ctx);
            break;
        }
    }
}
