/* result.h - one run's result, the one shape every part of rafale holds
 * it in: a run as it ends (observed.c fills it), a run read back from its
 * JSON (report_load.c), shards merged into one (merge.c), each run of a
 * compare (compare.h); what the findings' rules read (findings.h) and what
 * every writer of a run takes (report.h). Its figures are the engine's
 * (figures.h); around them, what was observed of the server and the host,
 * the machine, and the findings on it all. */
#ifndef RAFALE_RESULT_H
#define RAFALE_RESULT_H

#include <stdint.h>

#include "config.h"
#include "figures.h"
#include "findings_rules.h"
#include "machine.h"
#include "monitor.h"
#include "netstat.h"
#include "slo.h"

/* The findings of a run (report/findings.c's rules say them): each with
 * the figures that earned it and one line of advice. */
#define FINDINGS_MAX FINDING_COUNT /* a rule finds once at most */
#define FINDING_EV_MAX 16 /* stragglers says 13; test_findings keeps one free */

struct finding_ev {
    char key[40];               /* snake_case, its unit as suffix (_us, _s, _bytes, _per_request) */
    double v;
};

struct finding {
    char id[32];                /* its rule's JSON id: "starved_connections", ... (findings_rules.h) */
    int warning;                /* 1: the figures mislead without it; 0: info */
    char summary[400];
    char advice[400];
    struct finding_ev ev[FINDING_EV_MAX];
    int nev;
};

struct findings {
    struct finding f[FINDINGS_MAX];
    int n;
};

struct run_result {
    /* What was run. A live run's points at its caller's configuration;
     * a result read back or merged owns its own (own_cfg, the same
     * pointer, freed with it). In a compare, a run of its workload's
     * configuration on the cell's URL leaves it NULL (compare.h). */
    const struct config *cfg;
    struct config *own_cfg;
    struct run_figures fig;            /* what the engine measured */
    struct run_probe probe;            /* the idle probe before it (probe.ntargets 0: none) */
    struct monitor_result server;      /* has_server: the server watched (--monitor, compare) */
    int has_server;
    struct netstat_obs net;            /* has_net: the host around the run (not in a result read back or merged) */
    int has_net;
    int64_t server_output_bytes;       /* compare: what the server wrote to its stdout/stderr, -1 unknown */
    struct machine env;                /* where it ran (cpus_online 0: unknown) */
    struct machine_ref ref;            /* --calibrate yes: this machine's reference */
    struct machine_noise noise;        /* what else ran there meanwhile */
    struct findings found;             /* has_findings: what the rules said of it */
    int has_findings;
    const struct slo *slo;             /* the SLO's goals judged on it, or NULL */
};

/* An empty result: nothing known (server_output_bytes -1). */
void result_init(struct run_result *r);
/* Frees what r holds (its figures, the server's, its configuration when
 * it owns it) and empties it. */
void result_free(struct run_result *r);
/* Moves src's insides to dst (which holds nothing), leaving src empty. */
void result_move(struct run_result *dst, struct run_result *src);

#endif
