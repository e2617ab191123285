/* report_compare.h - what the text, JSON and HTML reports of a compare
 * share (internal to report_compare*.c). */
#ifndef RAFALE_REPORT_COMPARE_H
#define RAFALE_REPORT_COMPARE_H

#include <stddef.h>

#include "compare.h"

/* The best median req/s of workload w among the valid results. */
double report_compare_best_rps(const struct compare_result *r, int w);
/* "best", "same (0.98–1.02)", "1.35x slower (1.30–1.41)", "undecided
 * (0.93–1.10)", "not valid" or "-": a cell against the best. Returns b. */
const char *report_compare_ratio_text(char *b, size_t n, const struct compare_cell *c, double best);
/* A pair's verdict in words, as above; brief: without the interval
 * ("same", "1.35x slower", "undecided"), for the matrix. Returns b. */
const char *report_compare_pair_text(char *b, size_t n, const struct verdict_pair *v, int brief);
/* Server s of workload w undecided against the best (or else the
 * baseline): "s against best: undecided: too noisy: ...; more rounds ...".
 * Returns 1 when there is such a line, else 0. */
int report_compare_why(char *b, size_t n, const struct compare_file *p, const struct compare_result *r, int w, int s);
/* Workload w's verdict in a line: "Fastest: X (N req/s). Y 1.50x slower
 * (1.46–1.54). Z: same as X (0.98–1.03). W: not valid (...)." with each
 * server's first warning finding beside it. "Fastest" only when every
 * other valid result is decided slower or the same: else "No fastest
 * decided. Reference: X" (one undecided), "Reference: X" (one decided
 * faster), "Only valid result: X" (no other). */
void report_compare_verdict_line(char *b, size_t n, const struct compare_file *p, const struct compare_result *r, int w);
/* "GET /, 50 connections, keep-alive, 10000 requests, ..." */
void report_compare_describe(char *b, size_t n, const struct compare_workload *wl);
/* The statuses outside the expected set, "502: 9000, 500: 12". */
void report_compare_bad_codes(char *b, size_t n, const struct stats *t, const struct status_set *expect);
/* Why the server closed keep-alive connections, in words. */
const char *report_compare_close_why(const struct stats *t);
/* Whether workload w's cells measured memory differently (alone here, RSS
 * there): then each cell names its measure. */
int report_compare_mem_mixed(const struct compare_result *r, int w);
/* The memory column's header: "alone peak" (or "PSS peak", "RSS peak")
 * when every row has that measure, "memory peak" when they differ. */
const char *report_compare_mem_label(const struct compare_result *r, int w);
/* A cell's server CPU per request and memory peak as shown, or "-";
 * named: the memory followed by its measure ("12.3MiB RSS"). */
void report_compare_cpu_mem(const struct compare_cell *c, int named, char *cpu, size_t cn, char *mem, size_t mn);
/* Width of the server name column. */
int report_compare_name_width(const struct compare_file *p);

/* A targets workload's rows of per-target figures (figures_rows of its
 * targets), *cfg its targets as loaded for a server (the same entries on
 * every server); 0 when w sends one request (no per-target table). */
uint32_t report_compare_targets(const struct compare_result *r, int w, const struct config **cfg);
/* Target i as the per-target tables name it: its "# name:", else its
 * method and path (the server's origin left out: it differs per server). */
const char *report_compare_target_label(const struct config *cfg, uint32_t i, char *buf, size_t n);
/* Cell c's figures for target i, its rounds merged into *out (stats_init
 * here, stats_fini by the caller). Returns its req/s over the rounds. */
double report_compare_target(const struct compare_cell *c, uint32_t i, struct stats *out);

#endif
