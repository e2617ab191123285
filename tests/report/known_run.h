/* known_run.h - one run whose every figure is known, for the tests of the
 * reports that write it (text, brief, side by side, HTML): 1000 answers in
 * 2.00 s on 4 connections, latencies 1..100 us ten times each (kept exactly
 * by the histogram: p50 50us, p99 99us, max 100us), 990 of status 200 and
 * 10 of 404 outside --expect 200, 2 timeouts, a server watched (2 CPU
 * seconds, a process table) and two findings. Its texts hold markup and
 * quotes, as a hostile server or file could put there: a report must show
 * them, never obey them. */
#ifndef RAFALE_TEST_KNOWN_RUN_H
#define RAFALE_TEST_KNOWN_RUN_H

#include "report.h"
#include "targets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KNOWN_URL "http://127.0.0.1:8080/a?q=<b>&x='y'"
#define KNOWN_CMD "/usr/bin/srv --name=<script>alert(1)</script>"
#define KNOWN_SUMMARY "the server said <i>\"busy\"</i> & closed"

static inline void known_stats(struct stats *s)
{
    uint64_t v;
    stats_init(s);
    for (v = 0; v < 1000; v++)
        hist_record(&s->h[H_LATENCY], 1000 * (v % 100 + 1));
    s->completed = 1000;
    s->errors[ERR_TIMEOUT_ANSWER] = 2;
    s->started = 1002;
    s->status[200] = 990;
    s->status[404] = 10;
    s->bad_status = 10;
    s->bytes_received = 2048000;
    s->bytes_sent = 102400;
    s->conns_opened = 4;
}

/* res: the known run, its configuration in *cfg (config_free it, then
 * result_free res with res->cfg cleared). */
static inline int known_run(struct run_result *res, struct config *cfg)
{
    char err[256];
    struct finding *f;
    config_defaults(cfg);
    cfg->connections = 4;
    cfg->threads = 2;
    cfg->requests = 1000;
    if (targets_add_url(cfg, KNOWN_URL, err, sizeof(err)) != 0 || status_set_parse("200", &cfg->expect, err, sizeof(err)) != 0)
        return -1;
    result_init(res);
    res->cfg = cfg;
    known_stats(&res->fig.total);
    res->fig.ntargets = 1;
    res->fig.per_target = calloc(1, sizeof(struct stats));
    res->fig.target_in_flight = calloc(1, sizeof(uint64_t));
    known_stats(&res->fig.per_target[0]);
    res->fig.elapsed_s = 2.0;
    res->fig.all_connected_s = 0.001;
    res->fig.ci.rps.lo = res->fig.ci.rps.hi = res->fig.ci.mean.lo = res->fig.ci.mean.hi = NAN;
    {
        int i;
        for (i = 0; i < RUN_CI_NPCTS; i++)
            res->fig.ci.pct[i].lo = res->fig.ci.pct[i].hi = NAN;
    }
    res->has_server = 1;
    res->server.pid = 4242;
    res->server.cpu_s = 2.0;
    res->server.rss_peak_bytes = res->server.rss_mean_bytes = 8 << 20;
    res->server.processes = res->server.threads = 1;
    res->server.samples = 20;
    res->server.cpus = 2;
    snprintf(res->server.pss_note, sizeof(res->server.pss_note),
             "PSS unavailable (/proc/PID/smaps_rollup: Permission denied): RSS shown");
    res->server.nprocs = 1;
    res->server.procs = calloc(1, sizeof(struct monitor_proc));
    res->server.procs[0].pid = 4242;
    snprintf(res->server.procs[0].command, sizeof(res->server.procs[0].command), "%s", KNOWN_CMD);
    res->server.procs[0].cpu_s = 2.0;
    res->server.procs[0].rss_peak_bytes = 8 << 20;
    res->has_findings = 1;
    res->found.n = 2;
    f = &res->found.f[0];
    snprintf(f->id, sizeof(f->id), "bad_status");
    f->warning = 1;
    snprintf(f->summary, sizeof(f->summary), "%s", KNOWN_SUMMARY);
    snprintf(f->advice, sizeof(f->advice), "look at <its> logs");
    f = &res->found.f[1];
    snprintf(f->id, sizeof(f->id), "cpu_bound");
    snprintf(f->summary, sizeof(f->summary), "an info");
    snprintf(f->advice, sizeof(f->advice), "nothing to do");
    return 0;
}

static inline void known_free(struct run_result *res, struct config *cfg)
{
    res->cfg = NULL;
    result_free(res);
    config_free(cfg);
}

/* What fn wrote of res, as a string (free it). */
static inline char *known_written(int (*fn)(FILE *, const struct run_result *), const struct run_result *res, int *rc)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    *rc = f ? fn(f, res) : -1;
    if (f)
        fclose(f);
    return text;
}

/* The known run made and written by fn: its text (free it), NULL when the
 * run could not be made; fn's return in *rc. */
static inline char *known_report(int (*fn)(FILE *, const struct run_result *), struct run_result *res,
                                 struct config *cfg, int *rc)
{
    *rc = -1;
    return known_run(res, cfg) == 0 ? known_written(fn, res, rc) : NULL;
}

#endif
