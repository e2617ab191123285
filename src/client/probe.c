/* probe.c - the idle probe: the server's own time, measured rather than
 * guessed from a loaded run's fastest answers (which a full queue, or a
 * warm-up that left one, makes hundreds of ms).
 *
 * Before the load, the run's own requests, every target's in turn, one at a
 * time on one connection: PROBE_PER_TARGET answers a target, within
 * 1% of the run's length (at least PROBE_MIN_NS, which a slow server needs
 * for a few answers, at most PROBE_MAX_NS). Its figures are reported apart
 * and never in the run's; the queueing rule compares the loaded latency
 * with them (report/findings.c).
 *
 * It sends nothing the user did not ask for: the run's own requests, and
 * only when sending a few more of them changes nothing: safe methods (GET,
 * HEAD, OPTIONS: RFC 9110 §9.2.1), no template (a {{seq}} or a CSV row
 * would be taken again by the run), no cookie jar, a run bounded by time
 * (-n says how many requests the server gets) in a closed loop (the
 * queueing rule's only: a schedule's run is judged by its lag), not a
 * shard of a distributed run, at most PROBE_TARGETS targets;
 * --no-probe turns it off. The probe is a run of the engine itself (the
 * plan, the protocols, TLS, HTTP/2 and HTTP/3 are the run's), on one
 * connection with -n and -d of its own: nothing new on the load's path. */
#include "engine.h"
#include "clock.h"
#include "request.h"
#include "template.h"

#include <string.h>
#include <strings.h>

#define PROBE_PER_TARGET 8
#define PROBE_SHARE 0.01
#define PROBE_MIN_NS (200 * NS_PER_MS)
#define PROBE_MAX_NS NS_PER_S

static int safe(const char *m)
{
    return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0 || strcmp(m, "OPTIONS") == 0;
}

int probe_wanted(const struct config *cfg)
{
    uint32_t i, h;
    /* A replay sends the log's requests alone: a probe's would be none of them. */
    if (cfg->no_probe || cfg->requests || cfg->duration_ns == 0 || cfg->rate > 0 || cfg->replay_path || cfg->nstages ||
        cfg->shard_count ||
        cfg->sweep ||
        cfg->start_at > 0 || cfg->cookies || cfg->ntargets == 0 || cfg->ntargets > PROBE_TARGETS)
        return 0;
    for (i = 0; i < cfg->ntargets; i++) {
        struct req_spec rs;
        config_request(cfg, i, &rs);
        if (!safe(rs.method) || template_has(cfg->urls[i].target, strlen(cfg->urls[i].target)) ||
            (rs.has_body && template_has(rs.body, rs.body_len)))
            return 0;
        for (h = 0; h < rs.nheaders; h++)
            if (template_has(rs.headers[h], strlen(rs.headers[h])))
                return 0;
    }
    return 1;
}

static void summary(const struct stats *s, double *p50, double *min)
{
    const struct hist *h = &s->h[H_LATENCY];
    *p50 = h->total ? hist_percentile(h, 50) : 0;
    *min = h->total ? (double)h->min : 0;
}

void probe_run(const struct config *cfg, const atomic_int *stop, struct run_probe *out)
{
    struct config p = *cfg;
    struct run_figures fig;
    double limit = PROBE_SHARE * (double)(cfg->warmup_ns + cfg->duration_ns);
    uint64_t t0;
    uint32_t i;
    char err[512];

    memset(out, 0, sizeof(*out));
    /* One connection, one request at a time, no schedule, nothing but the
     * requests: no warm-up, no pause, no log, no live figures. */
    p.connections = 1;
    p.threads = 1;
    p.max_connections = 0;
    p.pipeline = 1;
    p.streams = 1;
    p.rate = 0;
    p.poisson = 0;
    p.nstages = 0;
    p.warmup_ns = 0;
    p.think_lo_ns = p.think_hi_ns = 0;
    p.order_mode = ORDER_DEFAULT;
    p.requests = (uint64_t)PROBE_PER_TARGET * cfg->ntargets;
    p.duration_ns = limit < PROBE_MIN_NS ? PROBE_MIN_NS : limit > PROBE_MAX_NS ? PROBE_MAX_NS : (uint64_t)limit;
    p.abort_on_fail = 0;
    p.metrics_listen = NULL;
    p.precision.n = 0;
    for (i = 0; i < OUT__COUNT; i++)
        p.out[i] = NULL;
    t0 = clock_ns();
    /* Not reached, or stopped: no figure, the run says why. */
    if (engine_run(&p, stop, NULL, NULL, &fig, err, sizeof(err)) != 0)
        return;
    if (fig.interrupted) {
        figures_free(&fig);
        return;
    }
    out->elapsed_s = (double)(clock_ns() - t0) / 1e9;
    out->answered = fig.total.completed;
    out->failed = stats_errors(&fig.total);
    out->bad = fig.total.bad_status + fig.total.checks_failed;
    out->sent = out->answered + out->failed + fig.in_flight;
    summary(&fig.total, &out->p50_ns, &out->min_ns);
    for (i = 0; i < cfg->ntargets && fig.per_target; i++) {
        out->target[i].answered = fig.per_target[i].completed;
        summary(&fig.per_target[i], &out->target[i].p50_ns, &out->target[i].min_ns);
    }
    out->ntargets = cfg->ntargets;
    figures_free(&fig);
}
