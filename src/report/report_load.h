/* report_load.h - reads a result saved with --json back, so `rafale report`
 * can rebuild the text and HTML reports without running anything (a
 * compare's saved result: compare_load.h). */
#ifndef RAFALE_REPORT_LOAD_H
#define RAFALE_REPORT_LOAD_H

#include <jansson.h>
#include <stddef.h>

#include "config.h"
#include "monitor.h"
#include "result.h"

/* The largest saved result read (report, diff, merge, calibrate's cache).
 * A run writes about 110 B per second of timeline (a few KiB with --shard's
 * per-second histograms) and a row of histograms for each of its first 200
 * targets (40 KiB for a typical spread, 330 KiB with every bucket from 1 us
 * to 1 h filled): a day-long run of 200 targets stays under 100 MiB.
 * Loading takes about 12 times the file's size in memory. */
#define REPORT_LOAD_MAX_MIB 256

/* Reads one run's result from JSON already parsed (path names it in
 * messages): out owns its configuration, has no host counters. Returns 0,
 * or -1 with a one-line reason in err; free out with result_free either
 * way. */
int report_load_run_root(json_t *root, const char *path, struct run_result *out, char *err, size_t errlen);
/* The parse refuses a file larger than REPORT_LOAD_MAX_MIB before reading it
 * (a pipe: as soon as it is). */
json_t *report_load_json(const char *path, char *err, size_t errlen);
/* A "calibration" object (rafale calibrate's reference), checked. */
struct jc;
void report_load_ref(struct jc *c, json_t *o, struct machine_ref *ref);
/* A run's result and a "config" object, for a reader of a larger file (a
 * compare's runs and workloads). Return 0, or -1 (the reason in c). */
int report_load_run(struct jc *c, json_t *root, struct run_result *run);
int report_load_config(struct jc *c, json_t *o, struct config *cfg);
/* A config's "replay" (rafale replay's settings) into cfg, a tally for
 * the result's "replay" made (report_replay.c). Returns 0, or -1. */
int report_replay_load_config(struct jc *c, json_t *o, struct config *cfg);
/* A "server" object (--monitor's figures) into m (report_load_server.c). */
void report_load_server(struct jc *c, struct monitor_result *m, json_t *sv);

#endif
