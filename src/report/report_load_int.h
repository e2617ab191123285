/* report_load_int.h - what the files reading a saved result share,
 * private to src/report/ (report_load_stats.c): a stats object (the
 * totals' or a target's) read back, and its latencies, durations and
 * histograms, which other parts of a result hold too; each value checked. */
#ifndef RAFALE_REPORT_LOAD_INT_H
#define RAFALE_REPORT_LOAD_INT_H

#include <jansson.h>
#include <stdint.h>

#include "hist.h"
#include "jread.h"
#include "stats.h"

/* A latency in microseconds: 0, or 1 ns to the 1 h clamp. */
double report_load_us(struct jc *c, json_t *o, const char *key, int required);
/* A duration in seconds that can hold completed requests. */
double report_load_elapsed(struct jc *c, json_t *o, const char *key, uint64_t completed, int required);
/* A histogram: [upper_bound_us, count] pairs, bounds increasing, counts
 * adding up to "count"; min <= max within the clamp. */
void report_load_hist(struct jc *c, struct hist *h, json_t *parent, const char *key);
/* The counters, statuses, errors and histograms of the totals or one
 * target, and *in_flight. */
void report_load_stats(struct jc *c, struct stats *s, json_t *o, uint64_t *in_flight);

#endif
