/* findings.h - why the numbers look as they do. After a run, a rule engine
 * (a pure function of the result and of what was sampled around it) says
 * what it sees: connections starved, the accept queue overflowing, Nagle
 * meeting delayed ACKs, queueing read as latency, a CPU limit on either
 * side, logging, keep-alive limits, ports and files running out, packet
 * loss, a few slow requests setting a -n run's length (stragglers),
 * timeouts reconnecting into a full accept queue. Each finding carries the figures that earned it and one line of
 * advice; each rule's threshold and minimum sample is written beside it in
 * findings.c, and a healthy run must stay silent. */
#ifndef RAFALE_FINDINGS_H
#define RAFALE_FINDINGS_H

#include <stdint.h>

#include "config.h"
#include "engine.h"
#include "monitor.h"
#include "netstat.h"

#define FINDINGS_MAX 16
#define FINDING_EV_MAX 12

struct finding_ev {
    char key[40];               /* snake_case, its unit as suffix (_us, _s, _bytes, _per_request) */
    double v;
};

struct finding {
    char id[32];                /* "starved_connections", ... */
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

/* What the rules read. Everything but cfg and r may be absent. */
struct findings_in {
    const struct config *cfg;
    const struct engine_result *r;
    const struct monitor_result *server; /* the server watched (--monitor, compare), or NULL */
    const struct netstat_obs *net;       /* the host around the run, or NULL (a merged or loaded result) */
    int64_t server_output_bytes;         /* compare: what the server wrote to its stdout/stderr, -1 unknown */
};

/* Runs every rule. out holds what they found, warnings first. */
void findings_eval(const struct findings_in *in, struct findings *out);
/* Whether other processes took the machine's CPUs during run r: the
 * noisy_neighbour rule, whether findings were asked for or not. */
int findings_machine_busy(const struct engine_result *r);
/* The finding called id, or NULL. */
const struct finding *findings_get(const struct findings *fs, const char *id);
/* Evidence key of f, or def when absent. */
double findings_ev(const struct finding *f, const char *key, double def);

#endif
