/* report.h - the results of a run, for people (text) and machines (JSON,
 * ab-compatible CSV). Each writer takes a FILE and the run's result (its
 * server's figures, findings and SLO where it has them) and returns 0 or
 * -1. */
#ifndef RAFALE_REPORT_H
#define RAFALE_REPORT_H

#include <stdio.h>

#include "config.h"
#include "monitor.h"
#include "result.h"

/* The text report: the server's block when it was watched, the findings'
 * when there are. */
int report_text(FILE *f, const struct run_result *res);
/* The latency distribution of h in nbins rows of log-spaced bins (up to
 * 32), bars up to width '#' (up to 200), each row after in. Returns the
 * rows written: 0 when h is empty or all its samples are one value. */
int report_hist_rows(FILE *f, const struct hist *h, int nbins, int width, const char *in);
/* The report's "Status codes" line, and its "Bad status" line when answers
 * came outside --expect (report_text.c; the short report's too). */
void report_status_line(FILE *f, const struct stats *s);
void report_bad_status_line(FILE *f, const struct config *cfg, const struct stats *s);
/* "N (P% of requests ended): kind n, kind n" of s's errors (plain words
 * and digits: as they are in HTML too). */
void report_errors_counts(FILE *f, const struct stats *s);
/* --brief: the headline lines only (requests, throughput, p50/p99, status
 * codes, errors, the findings' one-liners), for runs in a loop. */
int report_brief(FILE *f, const struct run_result *res);
/* The whole result as JSON ("findings" when it has them, [] for none;
 * "slo" when evaluated), as `rafale report` and `merge` read it back. */
int report_json(FILE *f, const struct run_result *res);
/* The "Findings" section, one "[!]" (warning) or "[i]" (info) line each
 * and its advice, each line after indent in; nothing when there is none. */
void report_findings_text(FILE *f, const struct findings *fs, const char *in);
/* The findings as a JSON array (without its key). */
void report_json_findings(FILE *f, const struct findings *fs, const char *ind);
/* rafale replay (report_replay.c): its settings in the "config" object
 * (", \"replay\": {...}"); what it read of its log, a line each given to
 * out (the requests replayed, then the lines skipped by reason, the first
 * of each at FILE:LINE), and those lines in the text and HTML reports
 * (nothing for a run). */
void report_replay_config_json(FILE *f, const struct config *cfg);
void report_replay_lines(const struct config *cfg, void (*out)(FILE *f, const char *line), FILE *f);
void report_replay_text(FILE *f, const struct config *cfg);
void report_replay_html(FILE *f, const struct config *cfg);
/* The "config" object of a result, as report_json writes it. */
void report_json_config(FILE *f, const struct config *cfg);
/* The "server" object of a result; completed: the run's responses. */
void report_json_server(FILE *f, const struct monitor_result *m, uint64_t completed);
/* Writes s as a JSON string literal. */
void report_json_str(FILE *f, const char *s);
/* v as a JSON number printed by fmt (one double conversion, "%.3f"), in
 * buf, or "null" when v is not finite: JSON has no inf or NaN (RFC 8259
 * §6). Every double a JSON writer prints goes through REPORT_JNUM. */
#define REPORT_JNUM_MAX 400 /* "%.9f" of the largest double: 309 digits, a sign, a point, 9 decimals */
const char *report_json_num(char *buf, const char *fmt, double v);
#define REPORT_JNUM(fmt, v) report_json_num((char[REPORT_JNUM_MAX]){ 0 }, (fmt), (v))
/* rafale calibrate's reference, as a JSON object. */
void report_json_ref(FILE *f, const struct machine_ref *ref);
/* Its line in the text report ("Reference ..."). */
void report_ref_text(FILE *f, const struct machine_ref *ref, const char *indent);
/* Results reported together (names[i] the file of res[i]): when they come
 * from two machines or more, each machine and its reference (report_machines.c). */
void report_machines(FILE *f, const struct run_result *const *res, const char *const *names, int n);
/* n saved runs side by side (names[i] the file of runs[i]): each one's
 * settings in a line, then a row of its headline figures (report_side.c). */
void report_side_text(FILE *f, const struct run_result *const *runs, const char *const *names, int n);
/* The settings of a run in a line, without its end: "4 connections on 2
 * threads, keep-alive, 3000 requests, GET, timeout 10.00s". */
void report_setup_line(FILE *f, const struct config *cfg);
/* Its latency's percentiles, ab's -e table. */
int report_csv(FILE *f, const struct run_result *res);
/* A self-contained HTML page with inline SVG charts. */
int report_html(FILE *f, const struct run_result *res);

/* The findings box at the top of an HTML report (nothing when none). */
void report_html_findings(FILE *f, const struct findings *fs);
/* The server block of a run's HTML report (res has_server): a paragraph
 * and the process table. */
void report_html_server(FILE *f, const struct run_result *res);
/* The server block of a run's text report (res has_server): CPU, memory
 * (alone, PSS, USS, RSS) and the processes grouped by command; each line
 * starts with indent. */
void report_server_text(FILE *f, const struct run_result *res, const char *indent);
/* The memory figure a report leads with, the most exact measured; *label
 * receives "alone" (as if it ran alone: its pages each counted once),
 * "PSS" (the kernel's, among every process of the machine) or "RSS". */
uint64_t report_server_memory(const struct monitor_result *m, const char **label);
/* What the measure called label counts, in a line ("" for RSS). */
const char *report_memory_meaning(const char *label);

/* The idle probe's sentence into buf ("" when there was none). */
const char *report_probe_text(const struct run_probe *p, char *buf, size_t n);
/* How the reports name URL i: its "# name:", "METHOD URL" for a target of
 * its own, or the URL as typed; the row of the targets past
 * FIGURES_TARGETS is "(N other targets)". */
const char *report_label(const struct config *cfg, uint32_t i, char *buf, size_t n);
/* Writes text as a terminal may show it in a column of w characters: cut
 * on a UTF-8 character's start (never inside one), padded to w. */
void report_put_col(FILE *f, const char *text, size_t w);
/* Characters (not bytes) of a UTF-8 string, for a column's width. */
size_t report_chars(const char *s);

/* Is figures row i the one of the targets past FIGURES_TARGETS? */
static inline int report_is_other(const struct config *cfg, uint32_t i)
{
    return cfg->ntargets > FIGURES_TARGETS && i == FIGURES_TARGETS;
}
/* The method URL i is sent with. */
const char *report_method(const struct config *cfg, uint32_t i);

/* The run's 95% intervals (r->ci) from its batches of time, or from a
 * merged result's per-second histograms; without enough of either, the
 * figures alone (NaN bounds). */
void report_ci(struct run_figures *r);
/* The interval of goal g's figure among ci's. */
const struct interval *report_ci_of(const struct run_ci *ci, const struct precision_goal *g);


/* The percentiles every report shows, in order. */
extern const double report_pcts[];
extern const char *const report_pct_names[];
#define REPORT_NPCTS 6

#endif
