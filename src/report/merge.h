/* merge.h - `rafale merge`: the results of one run's shards (--shard I/N,
 * or the ranks of rafale-mpi) as the one result a single process would have
 * reported: counters summed, histograms merged bucket by bucket (so
 * percentiles are recomputed, never averaged), per-second timelines aligned
 * on the wall clock, the elapsed time from the earliest start to the latest
 * end. */
#ifndef RAFALE_MERGE_H
#define RAFALE_MERGE_H

#include <jansson.h>
#include <stddef.h>

#include "report_load.h"

/* Merges n shard results (parsed --json documents; names[i] says where
 * each came from, for messages) into out, which the reports and the JSON
 * writer take as any run (out->fig.shards lists the shards; out owns its
 * configuration; free it with result_free). Refuses, with
 * the reason in err: a file that is not a shard's result, shards of
 * different workloads, a shard missing or given twice. Returns 0 or -1. */
int merge_shards(json_t **roots, const char **names, int n, struct run_result *out, char *err, size_t errlen);

/* The first key on which two results' "config" objects differ, keys in
 * own[] aside, or NULL when they are one workload. */
const char *merge_config_diff(json_t *a, json_t *b, const char *const *own, size_t nown);

#endif
