/* sweep.c - `rafale sweep`: ramp the rate up by doubling until a step
 * misses the SLO, then bisect between the last pass and the first failure
 * to within 5%. A step also fails when rafale could not send at the asked
 * rate (under 98%): a rate that was not offered was not sustained. */
#include "sweep.h"
#include "findings.h"
#include "observed.h"
#include "report.h"
#include "units.h"

#include <string.h>

struct engine_step {
    const struct config *cfg;
    const atomic_int *stop;
    int unreached;          /* a run ended ENGINE_EDOWN */
};

/* A step through the engine: a constant-rate run of cfg at rate. */
static int run_step(double rate, struct sweep_step *st, void *ctx, char *err, size_t errlen)
{
    struct engine_step *es = ctx;
    const struct config *base = es->cfg;
    const atomic_int *stop = es->stop;
    struct config cfg = *base;
    static struct run_result res; /* 20 KiB of findings: off the stack */
    struct observed_in in = { 0 };
    const struct run_figures *r = &res.fig;
    const struct findings *fs = &res.found;
    struct slo slo = base->slo;
    uint64_t errs;
    int i, rc, client_bound = -1;

    cfg.rate = rate;
    cfg.requests = 0;
    memset(st, 0, sizeof(*st));
    st->target = rate;
    in.cfg = &cfg;
    in.stop = stop;
    in.no_noise = 1;
    in.findings = !cfg.no_findings;
    if ((rc = observed_run(&in, &res, err, errlen)) != 0) {
        es->unreached = rc == ENGINE_EDOWN;
        return -1;
    }
    if (!cfg.no_findings) {
        /* A step's findings, by id: the step table names them. */
        size_t at = 0, ati = 0;
        for (i = 0; i < fs->n; i++) {
            char *to = fs->f[i].warning ? st->found : st->found_info;
            size_t *pos = fs->f[i].warning ? &at : &ati;
            if (*pos + strlen(fs->f[i].id) + 2 < sizeof(st->found))
                *pos += (size_t)snprintf(to + *pos, sizeof(st->found) - *pos, "%s%s", *pos ? "," : "", fs->f[i].id);
        }
        client_bound = findings_get(fs, FINDING_CLIENT_CPU_BOUND) != NULL;
    }
    errs = stats_errors(&r->total);
    st->sent = r->elapsed_s > 0 ? (double)stats_sent(&r->total) / r->elapsed_s : 0;
    st->p50_ns = hist_percentile(&r->total.h[H_LATENCY], 50);
    st->p99_ns = hist_percentile(&r->total.h[H_LATENCY], 99);
    st->max_ns = (double)r->total.h[H_LATENCY].max;
    st->err_pct = r->total.completed + errs ? 100.0 * (double)errs / (double)(r->total.completed + errs) : 0;
    st->pass = slo_eval(&slo, &r->total, r->elapsed_s) == 0;
    for (i = 0; i < slo.n; i++) {
        if (!slo.goal[i].pass) {
            char v[32];
            snprintf(st->why, sizeof(st->why), "%s (measured %s)", slo.goal[i].text,
                     slo_value_str(&slo.goal[i], slo.goal[i].value, v, sizeof(v)));
            break;
        }
    }
    if (st->pass && st->sent < 0.98 * rate) {
        st->pass = 0;
        snprintf(st->why, sizeof(st->why), "sent only %.0f req/s (%s)", st->sent,
                 r->total.reconnects_delayed ? "connects failed: the server was not reached"
                 : (client_bound < 0 ? r->client_cpu_s > 0.9 * r->elapsed_s * cfg.threads : client_bound)
                     ? "rafale's CPU was saturated"
                     : "connections all busy: raise -c");
    }
    result_free(&res);
    return 0;
}

/* Runs and records the next step. Returns 1 when it passed, 0 when it
 * failed, -1 on error or when there is no room or time for it. */
static int next_step(double rate, const atomic_int *stop, sweep_runner_fn run, void *ctx, sweep_step_fn on_step,
                     void *arg, struct sweep_result *out, char *err, size_t errlen)
{
    struct sweep_step *st;
    if (out->n == (int)(sizeof(out->steps) / sizeof(out->steps[0])) || atomic_load(stop))
        return -1;
    st = &out->steps[out->n];
    memset(st, 0, sizeof(*st));
    if (run(rate, st, ctx, err, errlen) != 0)
        return -2;
    out->n++;
    if (on_step)
        on_step(st, arg);
    if (atomic_load(stop))
        return -1;
    return st->pass;
}

int sweep_run(const struct config *cfg, const atomic_int *stop, sweep_step_fn on_step, void *arg,
              struct sweep_result *out, char *err, size_t errlen)
{
    struct engine_step es = { cfg, stop, 0 };
    int rc = sweep_search(cfg->sweep_start, cfg->sweep_max, stop, run_step, &es, on_step, arg, out, err, errlen);
    out->unreached = es.unreached;
    return rc;
}

int sweep_search(double start, double max, const atomic_int *stop, sweep_runner_fn run, void *ctx,
                 sweep_step_fn on_step, void *arg, struct sweep_result *out, char *err, size_t errlen)
{
    double rate = start, pass = 0, fail = 0;
    int r;

    memset(out, 0, sizeof(*out));
    /* Ramp: double until a step fails or --max is reached. */
    for (;;) {
        r = next_step(rate, stop, run, ctx, on_step, arg, out, err, errlen);
        if (r == -2)
            return -1;
        if (r < 0)
            break;
        if (r == 0) {
            fail = rate;
            break;
        }
        pass = rate;
        if (rate >= max)
            break;
        rate = rate * 2 > max ? max : rate * 2;
    }
    /* Bisect between the last pass and the first failure. */
    while (pass > 0 && fail > 0 && (fail - pass) / pass > 0.05) {
        rate = (pass + fail) / 2;
        r = next_step(rate, stop, run, ctx, on_step, arg, out, err, errlen);
        if (r == -2)
            return -1;
        if (r < 0)
            break;
        if (r)
            pass = rate;
        else
            fail = rate;
    }
    out->knee = pass;
    out->interrupted = atomic_load(stop) != 0;
    return 0;
}

void sweep_print_header(FILE *f, const struct config *cfg)
{
    char w[32], d[32];
    int i;
    fprintf(f, "rafale sweep: %s, SLO '", cfg->url_text[0]);
    for (i = 0; i < cfg->slo.n; i++)
        fprintf(f, "%s%s", i ? "," : "", cfg->slo.goal[i].text);
    fprintf(f, "'; each step %s warm-up + %s, %u connections, %u threads\n\n",
            units_fmt_ns(w, sizeof(w), (double)cfg->warmup_ns), units_fmt_ns(d, sizeof(d), (double)cfg->duration_ns),
            cfg->connections, cfg->threads);
    fprintf(f, "  %12s %12s %9s %9s %9s %8s  %s\n", "target req/s", "sent req/s", "p50", "p99", "max", "errors", "SLO");
    fflush(f);
}

void sweep_print_step(FILE *f, const struct sweep_step *s)
{
    char a[32], b[32], c[32];
    fprintf(f, "  %12.0f %12.1f %9s %9s %9s %7.2f%%  %s%s%s\n", s->target, s->sent,
            units_fmt_ns(a, sizeof(a), s->p50_ns), units_fmt_ns(b, sizeof(b), s->p99_ns),
            units_fmt_ns(c, sizeof(c), s->max_ns), s->err_pct, s->pass ? "pass" : "FAIL", s->pass ? "" : ": ",
            s->pass ? "" : s->why);
    if (s->found[0] || s->found_info[0])
        fprintf(f, "  %12s%s%s%s%s\n", "", s->found[0] ? " [!] " : "", s->found, s->found_info[0] ? " [i] " : "",
                s->found_info);
    fflush(f);
}

void sweep_print_summary(FILE *f, const struct sweep_result *r)
{
    if (r->interrupted)
        fprintf(f, "\nInterrupted.\n");
    if (r->knee > 0)
        fprintf(f, "\nKnee: %.0f req/s is the highest rate tried that met the SLO.\n", r->knee);
    else
        fprintf(f, "\nNo rate met the SLO: even the first step failed (try a lower --start).\n");
}

int sweep_json(FILE *f, const struct config *cfg, const struct sweep_result *r)
{
    int i;
    fprintf(f, "{\n  \"tool\": \"rafale\",\n  \"sweep\": {\"url\": ");
    report_json_str(f, cfg->url_text[0]);
    fprintf(f, ", \"slo\": [");
    for (i = 0; i < cfg->slo.n; i++) {
        if (i)
            fputs(", ", f);
        report_json_str(f, cfg->slo.goal[i].text);
    }
    fprintf(f, "], \"connections\": %u, \"threads\": %u, \"step_s\": %s, \"warmup_s\": %s,\n", cfg->connections,
            cfg->threads, REPORT_JNUM("%.3f", (double)cfg->duration_ns / 1e9),
            REPORT_JNUM("%.3f", (double)cfg->warmup_ns / 1e9));
    fprintf(f, "    \"knee_rps\": %s, \"interrupted\": %s,\n    \"steps\": [", REPORT_JNUM("%.3f", r->knee),
            r->interrupted ? "true" : "false");
    for (i = 0; i < r->n; i++) {
        const struct sweep_step *s = &r->steps[i];
        fprintf(f,
                "%s\n      {\"target_rps\": %s, \"sent_rps\": %s, \"p50_us\": %s, \"p99_us\": %s, "
                "\"max_us\": %s, \"errors_pct\": %s, \"pass\": %s, \"findings\": [",
                i ? "," : "", REPORT_JNUM("%.3f", s->target), REPORT_JNUM("%.3f", s->sent),
                REPORT_JNUM("%.3f", s->p50_ns / 1e3), REPORT_JNUM("%.3f", s->p99_ns / 1e3),
                REPORT_JNUM("%.3f", s->max_ns / 1e3), REPORT_JNUM("%.4f", s->err_pct), s->pass ? "true" : "false");
        {
            /* The ids, as strings: warnings first. */
            const char *lists[2] = { s->found, s->found_info };
            int k, first = 1;
            for (k = 0; k < 2; k++) {
                const char *p = lists[k];
                while (*p) {
                    size_t n = strcspn(p, ",");
                    fprintf(f, "%s\"%.*s\"", first ? "" : ", ", (int)n, p);
                    first = 0;
                    p += n + (p[n] == ',');
                }
            }
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n    ]}\n}\n");
    return ferror(f) ? -1 : 0;
}
