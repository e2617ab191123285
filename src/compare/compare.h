/* compare.h - `rafale compare`: several servers, the same workloads, runs
 * interleaved, each server followed in a cgroup of its own (CPU, memory as
 * PSS, per process), one table and one HTML report. The compare file is
 * small and hand-editable (compare_file.c):
 *
 *   [settings]            repeat, grace, ready-timeout, server-cpus,
 *                         client-cpus, and the default of any workload key
 *   [server NAME]         start = COMMAND (run by /bin/sh -c) | pid = PID |
 *                         cgroup = PATH | reuse = yes (already running: the
 *                         process holding the url's port is watched);
 *                         url = http://127.0.0.1:8080; dir,
 *                         env = NAME=VALUE (repeatable), ready = /path,
 *                         ready-status = 2xx, version = COMMAND
 *   [workload NAME]       path = /, and any run option by its long name:
 *                         connections, requests, duration (or auto), close, rate,
 *                         method, header (repeatable), body, body-file,
 *                         content-type, expect, timeout, pipeline,
 *                         http2, streams, ...; or replay = FILE (an access
 *                         log, compare_replay.c) with the keys of a replay
 *
 * A line whose first non-blank character is '#' is a comment; '#' anywhere
 * else is part of the value. */
#ifndef RAFALE_COMPARE_H
#define RAFALE_COMPARE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare_settings.h"
#include "config.h"
#include "monitor.h"
#include "result.h"
#include "slo.h"
#include "verdict.h"

struct compare_server {
    char *name;
    char *start;            /* shell command; NULL when attaching */
    int pid;                /* attach: this process and its children */
    char *cgroup;           /* attach: every process of this cgroup v2 */
    int reuse;              /* attach: the process that listens on the url's port */
    char *url;              /* base URL, e.g. http://127.0.0.1:8080 */
    char *dir;
    char **env;             /* "NAME=VALUE" */
    int nenv;
    char *ready;            /* path to GET until it answers, or NULL: a TCP connect */
    struct status_set ready_status; /* what counts as an answer (default 2xx,3xx) */
    char *version_cmd;      /* run once before the runs; its first line is shown */
    char *version;          /* that line, or NULL */
};

/* duration = auto: a round length tried, and what its runs showed. */
struct compare_probe {
    uint64_t duration_ns;
    double own_ci;          /* the two widest of the servers' own throughput intervals together (duration_auto.h),
                               relative; NaN: a run had none */
};
#define COMPARE_PROBES_MAX 40 /* from 100 ms, doubling: past 2^64 ns */

struct compare_workload {
    char *name;
    char *path;             /* appended to each server's url */
    struct config cfg;      /* every run option; the URL is set per run */
    /* duration = auto: cfg.duration_ns is what the probing rounds chose
     * (compare_rounds), from COMPARE_AUTO_FIRST_NS up to max-duration. */
    int duration_auto;
    int auto_max;           /* max-duration reached, the intervals still wider */
    struct compare_probe probes[COMPARE_PROBES_MAX];
    int nprobes;
};

struct compare_file {
    char *file;
    struct compare_server *servers;
    int nservers;
    struct compare_workload *workloads;
    int nworkloads;
    struct compare_settings set;
    int baseline;           /* baseline = SERVER: 1 + its index; 0 none */
};

/* Parses the compare file; the settings given on the command line (over: its
 * non-zero fields, or NULL) take precedence over the file's. Returns 0, or
 * -1 with "FILE:LINE: reason" in err. */
int compare_file_parse(const char *path, const struct compare_settings *over, struct compare_file *p, char *err, size_t errlen);
void compare_file_free(struct compare_file *p);

/* Before anything starts: the port of each server compare starts must be
 * free, else the server measured would be the one already there. Returns
 * 0, or -1 with "[server NAME] ... held by pid N (COMMAND) ..." in err. */
int compare_ports_free(const struct compare_file *p, char *err, size_t errlen);
/* pin = auto: with neither CPU list set, splits the CPUs this process may
 * use between the servers and rafale (pin becomes PIN_CHOSE). */
void compare_file_pin_auto(struct compare_settings *set);

/* A cell's memory measure, from the least exact to the most. */
enum compare_mem {
    CMP_MEM_RSS,                 /* RSS summed: PSS was not readable */
    CMP_MEM_PSS,                 /* the kernel's PSS: shared pages divided among every process of the machine */
    CMP_MEM_ALONE                /* as if it ran alone: its pages each counted once (monitor.h) */
};
/* The measure's name in tables: "alone", "PSS", "RSS". */
const char *compare_mem_name(int kind);
/* Its name in JSON: "alone", "pss", "rss". */
const char *compare_mem_key(int kind);

/* One workload on one server: its runs and what they add up to. */
struct compare_cell {
    char *url;                   /* what the runs were sent to */
    /* Its runs, each a full result. A run of targets (--targets) keeps
     * its own configuration, their URLs on this server; the others' cfg
     * is NULL: the workload's, on url. */
    struct run_result *runs;
    int nruns, caprun;
    /* Filled by compare_summarize(): */
    struct stats total;          /* every run merged: histograms, statuses, counters */
    double rps_median, rps_min, rps_max;
    double server_cpu_us;        /* per request, median over runs; < 0 unknown */
    uint64_t mem_peak;           /* highest memory of its runs, in its measure: */
    int mem_kind;                /* enum compare_mem, the least exact of its runs' (like with like) */
    int best_run;                /* the run with the highest memory, for the process table */
    double bad_pct;              /* responses with a status outside --expect, in % */
    double conns_per_req;
    int keepalive_refused;       /* keep-alive asked, a new connection nearly every time */
    int invalid;                 /* most responses were bad statuses, or implausible_cpu: not a result */
    char implausible_cpu[200];   /* why the server's CPU shows it did not answer (compare.c), or "" */
    int unstable;                /* repetitions differ by more than 10% */
    int client_bound;            /* rafale's own CPU was saturated in some run (its client_cpu_bound finding) */
    struct findings found;       /* what any of its runs found (evidence "runs": in how many) */
    /* Verdicts (verdict.c), 95% intervals over its rounds; NaN unknown. */
    double rps_ci[2], p50_ci_us[2], p99_ci_us[2];
    double ratio, ratio_ci[2];   /* time per request over the best's, paired by round */
    int verdict;                 /* enum verdict_kind */
    struct verdict_pair vs_best; /* the pair behind it (why, when undecided) */
    struct verdict_pair vs_base; /* against the compare file's baseline (verdict VERDICT_INVALID: none) */
    int rank;                    /* shared only by servers whose verdict is same; 0 not ranked */
    struct slo slo;              /* the workload's --slo on every run merged (slo.n 0: none) */
    int slo_failed;              /* --slo goals that failed */
};

/* Servers answering a workload differently: a row per server and field
 * that differ from the first server's answer (and the first's own). */
struct compare_difference {
    int server;
    char field[16];              /* "status", "location", "type", "framing", "body" */
    char value[300];
};

struct compare_alike {
    int checked;                 /* the answers were compared */
    char note[300];              /* why not, when not */
    char cut[300];               /* "NAME: answer not read whole in 5 s", each server whose answer was cut:
                                    compared with nothing */
    struct compare_difference *diff;
    int ndiff;
};

struct compare_result {
    int nworkloads, nservers;
    struct compare_alike *alike;     /* per workload: the same work, checked before the load */
    struct compare_cell *cells;      /* [w * nservers + s] */
    int *failed;                 /* server could not be used */
    char **failure;              /* why, in a line (CMP_WHY_MAX bytes) */
    char **output;               /* its output's last CMP_OUTPUT_MAX bytes, when it failed */
    int interrupted;
    int cgroups;                 /* servers ran in cgroups of their own */
    char note[256];              /* why not, when started servers did not */
    struct machine_ref ref;      /* calibrate = yes: this machine's reference */
};

struct compare_cell *compare_cell_at(const struct compare_result *r, int w, int s);

#define CMP_WHY_MAX 512
#define CMP_OUTPUT_MAX 4096   /* of a failed server's output, kept (the JSON has it whole) */
#define CMP_OUTPUT_LINES 5    /* the text shows its last lines, */
#define CMP_OUTPUT_COLS 200   /* each cut to this many bytes, with "…" */

/* The last CMP_OUTPUT_LINES lines of out that are not blank, each cut at
 * CMP_OUTPUT_COLS bytes (on a UTF-8 character's start) with "…", into
 * lines[], oldest first. Returns how many. */
int compare_output_lines(const char *out, char lines[][CMP_OUTPUT_COLS + 4]);

/* s, cut as compare_output_lines cuts a line, into buf. */
const char *compare_cut(const char *s, size_t n, char buf[CMP_OUTPUT_COLS + 4]);

typedef void (*compare_log_fn)(const char *line, void *arg);

/* Allocates an empty result for p. Returns 0 or -1. */
int compare_result_init(struct compare_result *r, const struct compare_file *p);
/* Adds a run to a cell, taking res over (res is left empty). Returns 0 or -1. */
int compare_add_run(struct compare_cell *c, struct run_result *res);
/* A compare of saved runs (`rafale report A.json B.json`): one workload with
 * cfg's settings and n "servers", one per run. compare_saved_add() names run k
 * and takes its result over. Both return 0 or -1 (out of memory); p and r
 * are freed by the caller either way. */
int compare_saved_init(struct compare_file *p, struct compare_result *r, const struct config *cfg, int n);
int compare_saved_add(struct compare_file *p, struct compare_result *r, int k, const char *name, const char *url,
                  struct run_result *res);
/* A run's own 95% interval of its throughput (from its batches of time):
 * its half-width relative to the estimate, NaN when it has none. */
double compare_own_ci(const struct run_result *run);
/* Computes the summary of every cell from its runs. */
void compare_summarize(const struct compare_file *p, struct compare_result *r);
/* Server a against server b on workload w, paired by round (verdict.h);
 * verdict VERDICT_INVALID when either has no valid result. */
void compare_pair(const struct compare_file *p, const struct compare_result *r, int w, int a, int b, struct verdict_pair *out);
/* The most servers for which the reports show a matrix of pairwise verdicts. */
#define CMP_MATRIX_MAX 6

/* What a comparison's exit status says (documented in --help, the man page
 * and the README): 0 when every server gave a valid result for every
 * workload, 1 when a server failed or a result is not valid, 3 when an SLO
 * failed (and all else was valid), 130 when interrupted. */
int compare_exit_status(const struct compare_result *r);

/* Runs the compare file: starts the servers, runs every workload against every
 * server, repetitions interleaved, stops everything. log receives one line
 * per event. Returns 0 (the result may hold failed servers), or -1 with a
 * reason in err. Every process started is gone before it returns, even when
 * *stop was set. */
int compare_rounds(struct compare_file *p, const atomic_int *stop, compare_log_fn log, void *arg, struct compare_result *out,
            char *err, size_t errlen);
void compare_result_free(struct compare_result *r);

/* Text tables, a self-contained HTML page, JSON with every run in full. */
void report_compare_print(FILE *f, const struct compare_file *p, const struct compare_result *r);
int report_compare_html(FILE *f, const struct compare_file *p, const struct compare_result *r);
int report_compare_json(FILE *f, const struct compare_file *p, const struct compare_result *r);

#endif
