/* collect.h - after join, the workers' figures into one result (collect.c);
 * private to src/client/. */
#ifndef RAFALE_COLLECT_H
#define RAFALE_COLLECT_H

#include "client.h"
#include "engine.h"

/* The workers' counters and histograms into res. Returns 0, or -1 with a
 * reason in err (a worker's own error, or no memory). */
int collect_merge(struct worker *ws, uint32_t nt, const struct plan *pl, struct run_figures *res, char *err,
                  size_t errlen);
/* The checks' counts, the first failure the earliest; the requests
 * skipped per variable. Returns 0 or -1 (memory). */
int collect_checks(const struct plan *pl, const struct worker *ws, uint32_t nt, struct run_figures *res);
/* What the result says of the run itself: its measured time, its rate,
 * rafale's CPU (cpu_s), this shard's place. */
void collect_finish(const struct config *cfg, const struct plan *pl, const struct worker *ws, uint32_t nt,
                    const atomic_int *stop, double cpu_s, struct run_figures *res);

#endif
