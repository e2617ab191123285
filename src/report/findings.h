/* findings.h - why the numbers look as they do. After a run, a rule engine
 * (a pure function of the result and of what was sampled around it) says
 * what it sees: connections starved, the accept queue overflowing, Nagle
 * meeting delayed ACKs, queueing read as latency, a CPU limit on either
 * side, logging, keep-alive limits, ports and files running out, packet
 * loss, a few slow requests setting a -n run's length (stragglers),
 * timeouts reconnecting into a full accept queue, figures that drift over the
 * run (not_steady). Each finding carries the figures that earned it and one line of
 * advice; the rules are a table (findings_rules.h), each rule's threshold
 * and minimum sample is written beside it in findings_int.h, and a healthy
 * run must stay silent. What they find is a result's (struct findings,
 * result.h). */
#ifndef RAFALE_FINDINGS_H
#define RAFALE_FINDINGS_H

#include "result.h"

/* Runs every rule on r (the server's and the host's figures where it has
 * them). out holds what they found, warnings first. */
void findings_eval(const struct run_result *r, struct findings *out);
/* The finding of rule id, or NULL. */
const struct finding *findings_get(const struct findings *fs, enum finding_id id);
/* The finding whose JSON id is json (one read back may be of a rule this
 * build does not know), or NULL. */
const struct finding *findings_named(const struct findings *fs, const char *json);
/* The JSON id of rule id: "starved_connections", ... */
const char *findings_name(enum finding_id id);
/* Whether other processes took the machine's CPUs during run r: the
 * noisy_neighbour rule, whether findings were asked for or not. */
int findings_machine_busy(const struct run_result *r);
/* Evidence key of f, or def when absent. */
double findings_ev(const struct finding *f, const char *key, double def);

#endif
